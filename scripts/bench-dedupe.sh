#!/usr/bin/env bash
# Measures `twinpage dedupe` on a benchmark crawl of real pages with planted copies.
#
#   scripts/bench-dedupe.sh [N]        # N pages, default 10000
#
# Makes (or reuses) the crawl ${TMPDIR:-/tmp}/twinpage-bench-work/crawl-N-seedS/crawl.warc.gz with
# scripts/crawl-corpus.py (warcio, installed into the venv ${TMPDIR:-/tmp}/twinpage-bench-venv),
# then runs, one after the other, each with a fresh render cache and under /usr/bin/time -v:
#   1. twinpage dedupe crawl.warc.gz           (pages replayed with the archive's resources)
#   2. twinpage dedupe files/docs.csv          (the same pages as lone files, no archive)
# and prints per run (also to RUN/report.md): pages, records, seconds and pages/s of each
# stage (from the time each `stage N of 4` line reached stderr), wall time, CPU (twinpage's,
# the whole process tree's with Chromium, and other jobs' meanwhile), peak memory, documents
# rendered, clusters of copies, recall of the planted groups (crawl.truth.csv) and pairs of
# pages from different groups joined. Two heavy runs at once skew each other: run one at a time.
#
# Environment: SEED (default 7), TWINPAGE_BIN (default /tmp/twinpage-bench, copied from
# target/release/twinpage when missing), BENCH_TIMEOUT (seconds a run may take; then it is
# stopped and what it finished is reported), THREADS (--threads for twinpage; default all cores).
set -euo pipefail

N=${1:-10000}
SEED=${SEED:-7}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TMP=${TMPDIR:-/tmp}
BIN=${TWINPAGE_BIN:-/tmp/twinpage-bench}
VENV=$TMP/twinpage-bench-venv
WORK=$TMP/twinpage-bench-work
CRAWL_DIR=$WORK/crawl-$N-seed$SEED
CRAWL=$CRAWL_DIR/crawl.warc.gz
RUN=$WORK/run-$N-seed$SEED-$(date +%Y%m%d-%H%M%S)

if [ ! -x "$BIN" ]; then
    if [ ! -x "$ROOT/target/release/twinpage" ]; then
        (cd "$ROOT" && cargo build --release)
    fi
    cp "$ROOT/target/release/twinpage" "$BIN"
fi
if ! "$VENV/bin/python" -c 'import warcio' 2>/dev/null; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet warcio
fi

mkdir -p "$CRAWL_DIR" "$RUN"
# a crawl made by another version of crawl-corpus.py is made again
MAKER=$(sha256sum "$ROOT/scripts/crawl-corpus.py" | cut -c1-16)
if [ ! -s "$CRAWL" ] || [ ! -s "$CRAWL_DIR/crawl.truth.csv" ] || [ ! -s "$CRAWL_DIR/files/docs.csv" ] \
    || [ "$(cat "$CRAWL_DIR/made-by" 2>/dev/null)" != "$MAKER" ]; then
    rm -rf "$CRAWL_DIR/part" "$CRAWL_DIR/files" "$CRAWL_DIR/files.part" "$CRAWL_DIR/made-by"
    mkdir -p "$CRAWL_DIR/part"
    "$VENV/bin/python" "$ROOT/scripts/crawl-corpus.py" "$CRAWL_DIR/part/crawl.warc.gz" --pages "$N" \
        --seed "$SEED" | tee "$CRAWL_DIR/crawl-corpus.log"
    mv "$CRAWL_DIR/part/crawl.truth.csv" "$CRAWL_DIR/crawl.truth.csv"
    mv "$CRAWL_DIR/part/crawl.warc.gz" "$CRAWL"
    rmdir "$CRAWL_DIR/part"
    # the same pages as lone files, for the run without the archive
    "$VENV/bin/python" "$ROOT/scripts/crawl-corpus.py" "$CRAWL" --export-pages "$CRAWL_DIR/files.part"
    mv "$CRAWL_DIR/files.part" "$CRAWL_DIR/files"
    echo "$MAKER" > "$CRAWL_DIR/made-by"
else
    echo "reusing $CRAWL"
fi

# Samples the process tree under PID every half second until PID ends: CPU seconds of
# every process seen (Chromium's included: /usr/bin/time counts only the processes
# twinpage reaps) and the peak of the tree's summed PSS. Writes "CPU_SECONDS PEAK_PSS_KB".
cat > "$RUN/tree-sampler.py" <<'PY'
import os, sys, time
root, out = int(sys.argv[1]), sys.argv[2]
me, hz, page_kb = os.getpid(), os.sysconf("SC_CLK_TCK"), os.sysconf("SC_PAGE_SIZE") // 1024
cpu, peak = {}, 0
while True:
    procs = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                stat = open(f"/proc/{name}/stat").read()
            except OSError:
                continue
            f = stat[stat.rindex(")") + 2:].split()
            procs[int(name)] = (int(f[1]), int(f[11]) + int(f[12]), int(f[21]))
    if root not in procs:
        break
    children = {}
    for pid, (ppid, _, _) in procs.items():
        children.setdefault(ppid, []).append(pid)
    stack, rss = [root], 0
    while stack:
        pid = stack.pop()
        stack.extend(children.get(pid, []))
        if pid != me:
            cpu[pid] = max(cpu.get(pid, 0), procs[pid][1])
            try:  # proportional set size: Chromium's processes share much of their memory
                with open(f"/proc/{pid}/smaps_rollup") as f:
                    rss += next(int(l.split()[1]) for l in f if l.startswith("Pss:"))
            except (OSError, StopIteration, ValueError):
                rss += procs[pid][2] * page_kb
    peak = max(peak, rss)
    time.sleep(0.5)
with open(out, "w") as f:
    f.write(f"{sum(cpu.values()) / hz:.1f} {peak}\n")
PY

# One dedupe run: LABEL INPUT. Writes $RUN/LABEL/{run,cache,stdout.txt,stderr.ts,time.txt,wall.txt}.
bench() {
    local label=$1 input=$2 dir=$RUN/$1 status=0 t0 t1 runner sampler
    mkdir -p "$dir"
    local cmd=("$BIN" dedupe "$input" --out "$dir/run" --cache "$dir/cache")
    [ -n "${THREADS:-}" ] && cmd+=(--threads "$THREADS")
    local limit=()
    [ -n "${BENCH_TIMEOUT:-}" ] && limit=(timeout --signal=INT --kill-after=30 "$BENCH_TIMEOUT")
    echo "== $label: ${cmd[*]}" >&2
    printf '%s\n' "/usr/bin/time -v ${cmd[*]}" > "$dir/command.txt"
    # the machine's CPU counters before and after: what other jobs took meanwhile skews the seconds
    head -1 /proc/stat > "$dir/cpu-before.txt"
    t0=$EPOCHREALTIME
    # stderr through a loop that stamps each line with the time it arrived; stdout to a file
    (
        set +e
        { "${limit[@]}" /usr/bin/time -v -o "$dir/time.txt" "${cmd[@]}" 2>&1 >"$dir/stdout.txt"; } \
            | while IFS= read -r line; do
                printf '%s %s\n' "$EPOCHREALTIME" "$line"
                printf '  [%s] %s\n' "$label" "$line" >&2
            done > "$dir/stderr.ts"
        exit "${PIPESTATUS[0]}"
    ) &
    runner=$!
    python3 "$RUN/tree-sampler.py" "$runner" "$dir/tree.txt" &
    sampler=$!
    wait "$runner" && status=0 || status=$?
    t1=$EPOCHREALTIME
    head -1 /proc/stat > "$dir/cpu-after.txt"
    wait "$sampler" || true
    printf '%s %s %s\n' "$t0" "$t1" "$status" > "$dir/wall.txt"
}

bench warc "$CRAWL"
bench files "$CRAWL_DIR/files/docs.csv"

"$VENV/bin/python" - "$RUN" "$CRAWL" "$CRAWL_DIR/crawl.truth.csv" <<'PY' | tee "$RUN/report.md"
import csv, glob, json, os, re, sys
from itertools import combinations

run, crawl, truth_path = sys.argv[1:4]
labels = [("warc", "WARC (replay)"), ("files", "lone files (docs.csv)")]

truth = {}
kinds = {}
with open(truth_path, newline="", encoding="utf-8") as f:
    for row in csv.DictReader(f):
        truth[row["url"]] = row["group"]
        kinds.setdefault(row["url"], row["kind"])
shells = {u for u, k in kinds.items() if k.startswith("shell")}
records = None
log = os.path.join(os.path.dirname(truth_path), "crawl-corpus.log")
if os.path.exists(log):
    m = re.search(r"(\d+) records", open(log).read())
    records = int(m.group(1)) if m else None


def measure(label):
    d = os.path.join(run, label)
    out = {"dir": d}
    t0, t1, status = open(os.path.join(d, "wall.txt")).read().split()
    t0, t1 = float(t0), float(t1)
    out["status"], out["wall"] = int(status), t1 - t0
    stages, lines = {}, []
    for line in open(os.path.join(d, "stderr.ts"), encoding="utf-8", errors="replace"):
        stamp, _, text = line.rstrip("\n").partition(" ")
        lines.append(text)
        m = re.match(r"twinpage: dedupe: stage (\d) of 4", text)
        if m:
            stages.setdefault(int(m.group(1)), float(stamp))
    out["lines"] = lines
    bounds = [stages.get(k) for k in (1, 2, 3, 4)] + [t1]
    # stage 1 from the start of the process; a docs.csv input prints no stage-1 line,
    # and the time to its first stage line is counted as stage 1 all the same
    out["no_stage1"] = 1 not in stages and bool(stages)
    bounds[0] = t0 if stages else None
    out["stages"] = [
        (b - a) if a is not None and b is not None else None
        for a, b in zip(bounds, bounds[1:])
    ]
    # a stage that never ended (killed run) has no length
    if out["status"] != 0:
        last = max((k for k in stages), default=0)
        if last:
            out["stages"][last - 1] = None
    tv = open(os.path.join(d, "time.txt")).read() if os.path.exists(os.path.join(d, "time.txt")) else ""
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", tv)
    out["rss_mb"] = int(m.group(1)) / 1024 if m else None
    for key, pat in [("user", r"User time \(seconds\): ([\d.]+)"), ("sys", r"System time \(seconds\): ([\d.]+)")]:
        m = re.search(pat, tv)
        out[key] = float(m.group(1)) if m else None
    out["others"] = out["tree_cpu"] = out["tree_rss_mb"] = None
    try:
        hz = os.sysconf("SC_CLK_TCK")
        busy = []
        for name in ("cpu-before.txt", "cpu-after.txt"):
            f = [int(x) for x in open(os.path.join(d, name)).read().split()[1:]]
            busy.append(sum(f[:8]) - f[3] - f[4])  # all but idle and iowait
        out["tree_cpu"], out["tree_rss_mb"] = None, None
        tree = os.path.join(d, "tree.txt")
        if os.path.exists(tree):
            c, kb = open(tree).read().split()
            out["tree_cpu"], out["tree_rss_mb"] = float(c), int(kb) / 1024
        mine = out["tree_cpu"] if out["tree_cpu"] is not None else (out["user"] or 0) + (out["sys"] or 0)
        out["others"] = (busy[1] - busy[0]) / hz - mine
    except (OSError, ValueError, IndexError):
        pass
    # `rendered bodies: …` (score) or `… (N document(s) rendered)` (newer dedupe builds)
    rendered = [t for t in out["lines"] if "rendered bodies" in t or "rendered)" in t]
    out["rendered_line"] = rendered[-1] if rendered else None
    cache = os.path.join(d, "cache")
    names = [os.path.basename(p) for p in glob.glob(os.path.join(cache, "*", "*.json"))]
    out["cache_rendered"] = sum(1 for n in names if not n.endswith(".failed.json"))
    out["cache_failed"] = sum(1 for n in names if n.endswith(".failed.json"))
    r = os.path.join(d, "run")
    decided, rdocs, pairs, scored = {}, set(), 0, set()
    for path in [os.path.join(r, "pairs.csv")] + sorted(glob.glob(os.path.join(r, "verify-*.scored.csv"))):
        if not os.path.exists(path):
            continue
        with open(path, newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                pairs += 1
                scored.add(frozenset((row["url_a"], row["url_b"])))
                by = row.get("decided_by", "")
                decided[by] = decided.get(by, 0) + 1
                if by == "rendered":
                    rdocs.update((row["html_a"], row["html_b"]))
    out["decided"], out["rendered_docs"], out["scored_pairs"] = decided, len(rdocs), pairs
    times = os.path.join(r, "times.json")
    out["times"] = json.load(open(times)) if os.path.exists(times) else None
    summary = os.path.join(r, "summary.json")
    out["summary"] = json.load(open(summary)) if os.path.exists(summary) else None
    clusters = os.path.join(r, "clusters.csv")
    if os.path.exists(clusters):
        rows = list(csv.DictReader(open(clusters, newline="", encoding="utf-8")))
        out["pages"] = len(rows)
        members = {}
        unknown = 0
        for row in rows:
            g = truth.get(row["url"])
            if g is None:
                unknown += 1
                g = "?" + row["url"]
            members.setdefault(g, []).append(row)
        planted = hit = planted_sh = hit_sh = paired = paired_sh = 0
        for g, rs in members.items():
            for a, b in combinations(rs, 2):
                planted += 1
                same = a["cluster"] == b["cluster"]
                hit += same
                direct = frozenset((a["url"], b["url"])) in scored
                paired += direct
                if a["url"] in shells or b["url"] in shells:
                    planted_sh += 1
                    hit_sh += same
                    paired_sh += direct
        by_cluster = {}
        for row in rows:
            by_cluster.setdefault(row["cluster"], []).append(truth.get(row["url"], "?" + row["url"]))
        wrong = sum(1 for gs in by_cluster.values() for a, b in combinations(gs, 2) if a != b)
        wrong_clusters = sum(1 for gs in by_cluster.values() if len(set(gs)) > 1)
        # members placed with a kept page of another group, by how they joined
        kept_group = {row["cluster"]: truth.get(row["url"]) for row in rows if row["keep"] == "1"}
        foreign = {}
        for row in rows:
            if row["keep"] != "1" and truth.get(row["url"]) != kept_group.get(row["cluster"]):
                foreign[row["joined"]] = foreign.get(row["joined"], 0) + 1
        out["foreign"] = foreign
        # the planted groups split over clusters: which kinds of copy were missed
        missed = {}
        for g, rs in members.items():
            if len(rs) < 2:
                continue
            keep = {}
            for row in rs:
                keep[row["cluster"]] = keep.get(row["cluster"], 0) + 1
            main = max(keep, key=keep.get)
            for row in rs:
                if row["cluster"] != main:
                    k = kinds.get(row["url"], "?")
                    missed[k] = missed.get(k, 0) + 1
        out.update(planted=planted, hit=hit, planted_sh=planted_sh, hit_sh=hit_sh, wrong=wrong,
                   paired=paired, paired_sh=paired_sh,
                   wrong_clusters=wrong_clusters, unknown=unknown, missed=missed)
    return out


def fmt(x, spec="{:.1f}"):
    return "n/a" if x is None else spec.format(x)


results = [(name, measure(label)) for label, name in labels if os.path.exists(os.path.join(run, label, "wall.txt"))]
print(f"\n## twinpage dedupe benchmark: {os.path.basename(run)}\n")
print(f"crawl: {crawl} ({os.path.getsize(crawl):,} bytes)")
for name, r in results:
    print(f"{name}: `{open(os.path.join(r['dir'], 'command.txt')).read().strip()}` (exit {r['status']})")
print()
header = "| | " + " | ".join(name for name, _ in results) + " |"
print(header)
print("|---" * (len(results) + 1) + "|")


def row(title, values):
    print(f"| {title} | " + " | ".join(values) + " |")


row("pages read", [str((r["summary"] or {}).get("documents", r.get("pages", "n/a"))) for _, r in results])
row("records in the input", [
    str(((r["summary"] or {}).get("read") or {}).get("records", records if i == 0 else "n/a (files)"))
    for i, (_, r) in enumerate(results)])
names = ["1 read", "2 candidates", "3 score", "4 clusters (+ verification)"]
for i, stage in enumerate(names):
    vals = []
    for _, r in results:
        s = r["stages"][i]
        pages = (r["summary"] or {}).get("documents") or r.get("pages")
        v = "n/a" if s is None else f"{s:.1f} s ({pages / s:,.0f} pages/s)" if pages and s > 0 else f"{s:.1f} s"
        if i == 0 and r.get("no_stage1"):
            v += " (no stage-1 line: start to stage 2)"
        vals.append(v)
    row(f"stage {stage}", vals)
row("wall time", [f"{r['wall']:.1f} s" for _, r in results])
row("CPU user + sys (time -v: twinpage and the children it reaped)", [
    f"{fmt(r['user'])} + {fmt(r['sys'])} s" + (f" ({(r['user'] + r['sys']) / r['wall']:.2f} cores busy)"
                                              if r['user'] is not None and r['wall'] > 0 else "")
    for _, r in results])
row("CPU of the whole process tree (sampled, Chromium included)", [
    "n/a" if r["tree_cpu"] is None else f"{r['tree_cpu']:.1f} s ({r['tree_cpu'] / r['wall']:.2f} cores busy)"
    for _, r in results])
row(f"CPU taken by other jobs meanwhile ({os.cpu_count()} cores)", [
    "n/a" if r["others"] is None else f"{max(0.0, r['others']):.1f} s ({max(0.0, r['others']) / r['wall']:.2f} cores)"
    for _, r in results])
row("peak memory: RSS of the largest process (time -v) / PSS of the whole tree (sampled)", [
    f"{fmt(r['rss_mb'], '{:,.0f} MB')} / {fmt(r['tree_rss_mb'], '{:,.0f} MB')}" for _, r in results])
row("rendered (stderr)", [r["rendered_line"].replace("twinpage: ", "") if r["rendered_line"] else "not reported by dedupe" for _, r in results])
row("twinpage's own stage seconds (times.json)", [
    ", ".join(f"{k} {v:.1f} s" if isinstance(v, (int, float)) else f"{k} {v}"
              for k, v in (r["times"].get("seconds") or {}).items()) if r.get("times") else "not written by this build"
    for _, r in results])
row("renders in the fresh cache (ok / failed)", [f"{r['cache_rendered']} / {r['cache_failed']}" for _, r in results])
row("documents in pairs decided on rendered bodies", [str(r["rendered_docs"]) for _, r in results])
row("scored pairs (pairs.csv + verify-*): decided_by", [
    f"{r['scored_pairs']}: " + ", ".join(f"{k or '(none)'} {v}" for k, v in sorted(r["decided"].items(), key=lambda kv: -kv[1]))
    for _, r in results])
row("candidate pairs / verified", [
    f"{(r['summary'] or {}).get('candidate_pairs', 'n/a')} / {(r['summary'] or {}).get('verified_pairs', 'n/a')}"
    for _, r in results])
row("clusters of copies / copies to drop / unsure", [
    "/".join(str((r["summary"] or {}).get(k, "n/a")) for k in ("clusters", "copies", "unsure"))
    for _, r in results])
row("verification rounds / pages left unsettled", [
    f"{(r['summary'] or {}).get('rounds', 'n/a')} / {(r['summary'] or {}).get('unsettled', 'n/a')}"
    for _, r in results])
row("recall of planted pairs", [
    f"{r['hit']} / {r['planted']} = {r['hit'] / r['planted']:.3f}" if r.get("planted") else "n/a" for _, r in results])
row("  without a script-built page", [
    f"{r['hit'] - r['hit_sh']} / {r['planted'] - r['planted_sh']} = "
    f"{(r['hit'] - r['hit_sh']) / (r['planted'] - r['planted_sh']):.3f}"
    if r.get("planted", 0) > r.get("planted_sh", 0) else "n/a" for _, r in results])
row("  with a script-built page", [
    f"{r['hit_sh']} / {r['planted_sh']} = {r['hit_sh'] / r['planted_sh']:.3f}" if r.get("planted_sh") else "n/a"
    for _, r in results])
row("planted pairs scored as a pair (by URL; all / with a script-built page)", [
    f"{r['paired']} / {r['planted']}; {r['paired_sh']} / {r['planted_sh']}" if r.get("planted") else "n/a"
    for _, r in results])
row("pages split from their group's main cluster, by kind", [
    ", ".join(f"{k} {v}" for k, v in sorted(r.get("missed", {}).items(), key=lambda kv: -kv[1])) or "none"
    for _, r in results])
row("pairs from different groups joined (clusters)", [
    f"{r['wrong']} ({r['wrong_clusters']} clusters)" if "wrong" in r else "n/a" for _, r in results])
row("  members of another group than the kept page, by `joined`", [
    ", ".join(f"{k} {v}" for k, v in sorted(r.get("foreign", {}).items(), key=lambda kv: -kv[1])) or "none"
    for _, r in results])
row("pages not in the truth file", [str(r.get("unknown", "n/a")) for _, r in results])
print()
for name, r in results:
    other = [l for l in r["lines"] if not l.startswith("twinpage: dedupe: stage")]
    if other:
        print(f"{name}: other stderr lines ({len(other)}):")
        for l in other[:15]:
            print("    " + l)
        if len(other) > 15:
            print(f"    … {len(other) - 15} more in {r['dir']}/stderr.ts")
print(f"\nrun folders: {run}/{{warc,files}}")
PY

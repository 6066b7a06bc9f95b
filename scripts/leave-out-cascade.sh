#!/usr/bin/env bash
# Leave-one-kind-out as a user scores: for each kind K of web/test.csv, both shipped
# models (fetched + rendered, fetched-only) are trained again without K (web/train.csv
# minus K, plus er/train.csv; the shipped seed and precision target), and K's test pairs
# are scored with `--render auto`: the fetched-only model decides what it can, the rest is
# rendered (stored renders here) and decided by the other. Prints, per kind and pooled,
# the automatic decisions right and wrong by the stage that took them, and the review share.
#
#     scripts/leave-out-cascade.sh [KIND ...]     (default: every kind; ~1 min a kind on 2 cores)
#
# Needs `cargo build --release` first. `twinpage evaluate --leave-out kind` judges the
# rendered model alone; this judges the cascade that `twinpage score` runs by default.
set -euo pipefail
cd "$(dirname "$0")/.."
twinpage=target/release/twinpage
[ -x "$twinpage" ] || { echo "$twinpage missing: run cargo build --release first" >&2; exit 1; }
web=training-data/web
# Pair files name their documents relative to themselves, so the split files live beside
# web/train.csv (hidden names, removed on exit).
train="$web/.leave-out-train.$$.csv"
test="$web/.leave-out-test.$$.csv"
work=$(mktemp -d)
trap 'rm -rf "$train" "$test" "$work"' EXIT
kinds=("$@")
if [ ${#kinds[@]} -eq 0 ]; then
    mapfile -t kinds < <(python3 -c "
import csv
print('\n'.join(sorted({r['kind'] for r in csv.DictReader(open('$web/test.csv'))})))")
fi
for kind in "${kinds[@]}"; do
    python3 - "$kind" "$train" "$test" <<'PY'
import csv, sys
kind, train, test = sys.argv[1:]
for source, target, keep in [("training-data/web/train.csv", train, lambda r: r["kind"] != kind),
                             ("training-data/web/test.csv", test, lambda r: r["kind"] == kind)]:
    with open(source, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    with open(target, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=rows[0].keys(), lineterminator="\n")
        writer.writeheader()
        writer.writerows(r for r in rows if keep(r))
PY
    common=(--pairs "$train" --pairs training-data/er/train.csv --seed 7 --precision-target 0.95)
    "$twinpage" train "${common[@]}" --out "$work/$kind.json" >/dev/null 2>&1
    "$twinpage" train "${common[@]}" --no-render --out "$work/$kind.fetched.json" >/dev/null 2>&1
    "$twinpage" score --pairs "$test" --model "$work/$kind.json" \
        --fetched-model "$work/$kind.fetched.json" --render auto --out "$work/$kind.scored.csv" 2>/dev/null
done
python3 - "$work" "${kinds[@]}" <<'PY'
import collections, csv, os, sys
work, kinds = sys.argv[1], sys.argv[2:]
print("| left-out kind | pairs | decided by the fetched-only model: right / wrong "
      "| after rendering: right / wrong | review |")
print("|---|---|---|---|---|")
pooled = collections.Counter()
for kind in kinds:
    with open(os.path.join(work, f"{kind}.scored.csv"), newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    c = collections.Counter()
    for r in rows:
        if r["decision"] == "review":
            c["review"] += 1
        else:
            right = (r["decision"] == "duplicate") == (r["label"] == "1")
            # Screened pairs (identical bodies) are settled before any rendering.
            stage = "rendered" if r["decided_by"] == "rendered" else "fetched"
            c[(stage, right)] += 1
    c["pairs"] = len(rows)
    pooled.update(c)
    print(f"| {kind} | {c['pairs']} | {c[('fetched', True)]} / {c[('fetched', False)]} "
          f"| {c[('rendered', True)]} / {c[('rendered', False)]} | {c['review']} |")
right = pooled[("fetched", True)] + pooled[("rendered", True)]
decided = right + pooled[("fetched", False)] + pooled[("rendered", False)]
print(f"| **pooled** | {pooled['pairs']} | {pooled[('fetched', True)]} / {pooled[('fetched', False)]} "
      f"| {pooled[('rendered', True)]} / {pooled[('rendered', False)]} "
      f"| {pooled['review']} ({pooled['review'] / pooled['pairs']:.0%}); "
      f"automatic decisions right {right} of {decided} ({right / max(decided, 1):.3f}) |")
PY

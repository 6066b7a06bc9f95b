"""twinpage on Spark: candidate pairs, scores and clusters of a docs table.

    driver.py --binary TWINPAGE candidates --docs docs.csv --out pairs.csv [options]
    driver.py --binary TWINPAGE pipeline --docs docs.csv --out DIR [options]

Each step gives the same bytes as the one-machine command with the same options:
`candidates` as `twinpage candidates --method lsh`, `pipeline` writes DIR/candidates.csv,
DIR/scores.csv (`twinpage score`) and DIR/clusters.csv (`twinpage cluster`). The work
that grows with the corpus runs on the executors: the binary sketches each partition of
the docs table (`twinpage sketch`), Spark joins documents on (band, key), verifies each
pair by its estimated Jaccard, the binary scores each partition of the pairs, and Spark
finds the connected components of the pairs decided duplicate. scale/run-local.sh runs
it in local mode; docs/scale.md says how to submit it to a cluster.
"""

import argparse
import csv
import io
import itertools
import json
import os
import re
import subprocess
import sys
import tempfile
import time

from pyspark import SparkConf, SparkContext

DECISION_COLUMNS = ["p_duplicate", "p_spread", "confidence", "decision", "decided_by"]
# What `twinpage sketch` writes before the docs table's other columns.
SKETCH_COLUMNS = ["url", "html", "rendered", "domain", "status", "words", "bands", "minhashes", "error"]
STARTED = time.monotonic()


def say(message):
    """A line on stderr with the seconds since the start."""
    print(f"twinpage-spark: [{time.monotonic() - STARTED:6.1f} s] {message}", file=sys.stderr)


class Failure(Exception):
    """A run that cannot go on, with what to fix: exit code 1, no traceback."""


def main():
    args = parse_args()
    try:
        run(args)
    except Failure as e:
        print(f"twinpage-spark: error: {e}", file=sys.stderr)
        sys.exit(1)
    except Exception as e:
        # A Failure raised on an executor reaches here inside Spark's exception: its
        # message, not the Java stack, is what says what to fix.
        found = re.search(r"Failure: (.+?)(?:\n\s*at |\Z)", str(e), re.DOTALL)
        if not found:
            raise
        print(f"twinpage-spark: error: {found.group(1).strip()}", file=sys.stderr)
        sys.exit(1)


def parse_args():
    ap = argparse.ArgumentParser(prog="scale/run-local.sh", description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", required=True, help="the twinpage binary (run-local.sh sets it)")
    commands = ap.add_subparsers(dest="command", required=True)
    for name, out_help in [("candidates", "output pair file"), ("pipeline", "output folder")]:
        p = commands.add_parser(name)
        p.add_argument("--master", default="local[*]", help="Spark master (default local[*])")
        p.add_argument("--partitions", type=int, help="partitions of the docs table, the pairs and "
                       "every shuffle (default in local mode: twice the cores)")
        p.add_argument("--docs", required=True, help="docs.csv (url,html[,rendered], other columns kept)")
        p.add_argument("--out", required=True, help=out_help)
        p.add_argument("--method", default="lsh", choices=["simhash", "minhash", "combined", "pugh", "lsh"])
        p.add_argument("--sites", default="all", choices=["all", "same", "cross"])
        p.add_argument("--skip-bad", action="store_true")
        p.add_argument("--text", choices=["core", "visible"])
        p.add_argument("--threshold")
        p.add_argument("--lsh-hashes")
        p.add_argument("--lsh-shingle-words")
        # Sketches take a document's stored or cached render, as `twinpage candidates` does.
        p.add_argument("--no-render", action="store_true")
        p.add_argument("--cache", help="render cache folder")
        if name == "pipeline":
            p.add_argument("--model", help="as `twinpage score --model`")
            p.add_argument("--fetched-model", help="as `twinpage score --fetched-model`")
            p.add_argument("--render", choices=["auto", "always", "never"])
            p.add_argument("--max-size", type=int, default=50, help="as `twinpage cluster --max-size`")
    args = ap.parse_args()
    if getattr(args, "max_size", 0) < 0:
        ap.error(f"--max-size {args.max_size}: give a number of documents, 0 or more")
    if args.method != "lsh":
        ap.error(f"--method {args.method} is not supported on Spark yet: use --method lsh")
    return args


def run(args):
    # Executors run the binary as named: a relative path is found in their working folder,
    # where spark-submit --files puts it (docs/scale.md).
    binary = args.binary
    docs = os.path.abspath(args.docs)
    if not os.path.isfile(docs):
        raise Failure(f"--docs {args.docs}: no such file (give a docs.csv with columns url,html)")
    sketch_options = options(args, ["text", "threshold", "lsh_hashes", "lsh_shingle_words",
                                     "no_render", "cache"])
    # Checks the options on the driver, before Spark starts, and says what verifying needs.
    plan = json.loads(call([binary, "sketch", "--plan", *sketch_options], "the sketch options"))

    log4j = os.path.join(os.path.dirname(os.path.abspath(__file__)), "log4j2.properties")
    conf = (SparkConf().setMaster(args.master).setAppName("twinpage")
            .set("spark.ui.enabled", "false")
            .set("spark.ui.showConsoleProgress", "false")
            .set("spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile=file:{log4j}"))
    # Every shuffle cuts its output in this many partitions: a few per core is enough for
    # balance; more tasks cost more than they spread.
    if args.partitions or args.master.startswith("local"):
        conf.set("spark.default.parallelism", str(args.partitions or 2 * os.cpu_count()))
    sc = SparkContext(conf=conf)
    sc.setLogLevel("FATAL")  # the driver says what went wrong, without Java stacks
    try:
        if args.command == "candidates":
            head, pairs = candidates(sc, args, binary, docs, args.out, plan, sketch_options)
            with output(args.out) as f:
                write_rows(f, itertools.chain([head], pairs.toLocalIterator()))
            say(f"{pairs.count()} candidate pairs by lsh in {args.out}")
        else:
            pipeline(sc, args, binary, docs, plan, sketch_options)
    finally:
        sc.stop()


def pipeline(sc, args, binary, docs, plan, sketch_options):
    os.makedirs(args.out, exist_ok=True)
    candidates_csv = os.path.join(args.out, "candidates.csv")
    head, pairs = candidates(sc, args, binary, docs, candidates_csv, plan, sketch_options)
    with output(candidates_csv) as f:
        write_rows(f, itertools.chain([head], pairs.toLocalIterator()))
    say(f"{pairs.count()} candidate pairs by lsh")

    # As given: the binary on each executor resolves them, and picks its default model,
    # as it does on one machine (in local mode, executors work in the current folder).
    score_options = options(args, ["model", "fetched_model", "render", "no_render", "cache"])
    base = os.path.dirname(os.path.abspath(candidates_csv))
    # Each partition keeps its place in the sorted pairs, so the output keeps their order.
    scored = pairs.mapPartitions(lambda rows: score_partition(rows, head, binary, base, score_options))
    scored = scored.persist()
    scored.count()  # all partitions at once; writing then reads them one at a time
    with output(os.path.join(args.out, "scores.csv")) as f:
        write_rows(f, itertools.chain([head + DECISION_COLUMNS], scored.toLocalIterator()))
    say(f"{scored.count()} pairs scored")

    found = clusters(scored, head, args.max_size)
    found.count()
    with output(os.path.join(args.out, "clusters.csv")) as f:
        write_rows(f, itertools.chain([["cluster", "size", "status", "url", "html"]], found.toLocalIterator()))
    say(f"{found.count()} documents in clusters; candidates.csv, scores.csv, clusters.csv in {args.out}")


def candidates(sc, args, binary, docs, out, plan, sketch_options):
    """The pair file's header, and its rows sorted as `twinpage candidates` writes them
    (by the two documents' numbers in the docs table)."""
    parts = sc.defaultParallelism
    # Fields may span lines, so a file is read whole by one task (the sketching, which
    # costs, is spread below); Python's csv reads it as the binary's csv crate does
    # (RFC 4180, blank lines skipped), where Spark SQL's CSV reader would differ in
    # details and cost a dozen seconds of start-up.
    table = sc.wholeTextFiles(docs, minPartitions=1).values()
    rows = table.flatMap(lambda text: filter(None, csv.reader(io.StringIO(text, newline="")))).zipWithIndex()
    header = [h.lstrip("\ufeff").strip() for h in rows.first()[0]]
    ragged = rows.filter(lambda r: len(r[0]) != len(header)).take(1)
    if ragged:
        raise Failure(f"{docs} row {ragged[0][1]}: {len(ragged[0][0])} fields where the header has "
                      f"{len(header)}")
    documents = rows.filter(lambda r: r[1] > 0).map(lambda r: (r[1] - 1, r[0])).repartition(parts)
    base = os.path.dirname(docs)
    sketches = documents.mapPartitions(
        lambda part: sketch_partition(part, header, binary, base, out, sketch_options)).persist()
    check_sketches(sketches, args, docs, out)
    say(f"{sketches.count()} documents sketched")

    ok = sketches.filter(lambda s: s[1]["status"] == "ok")
    # Document number -> (min-values, pair-file side, registered domain), for documents with bands.
    usable = ok.filter(lambda s: s[1]["bands"]).mapValues(
        lambda d: (d["minhashes"], d["side"], d["domain"])).persist()
    looked_at = (ok.flatMap(lambda s: (((band, key), s[0]) for band, key in enumerate(s[1]["bands"])))
                 .groupByKey()
                 .flatMap(lambda kv: itertools.combinations(sorted(kv[1]), 2))
                 .distinct())
    # Each pair meets both documents' values in one join (a document's values cross the
    # shuffle once per pair it is in), then the two halves meet by pair.
    verified = (looked_at.flatMap(lambda p: [(p[0], p), (p[1], p)])
                .join(usable)
                .map(lambda x: (x[1][0], (x[0], x[1][1])))
                .groupByKey()
                .flatMap(lambda x: verify(*x[0], *(d for _, d in sorted(x[1])), plan, args.sites)))

    rendered = not ok.filter(lambda s: s[1]["side"][2]).isEmpty()
    extra = [h for i, h in enumerate(header) if i not in document_columns(header)]
    head = ["url_a", "url_b", "html_a", "html_b"] + (["rendered_a", "rendered_b"] if rendered else [])
    head += ["method", *plan["evidence"], *(f"{h}{s}" for h in extra for s in ("_a", "_b"))]
    pairs = verified.map(lambda p: (p[0], pair_row(p[1], p[2], p[3], rendered))).persist()
    # Persisted and counted here so that writing (one partition at a time) computes nothing.
    pairs = pairs.sortByKey(numPartitions=parts).values().persist()
    pairs.count()
    return head, pairs


def document_columns(header):
    """Positions of url, html and rendered: the first column of each name, as the binary takes them."""
    return {header.index(n) for n in ("url", "html", "rendered") if n in header}


def sketch_partition(part, header, binary, base, pairs_out, sketch_options):
    """Runs `twinpage sketch` on one partition of the docs table: (number, sketch) per row."""
    part = list(part)
    if not part:
        return
    options = ["--base", base, "--pairs-out", pairs_out, *sketch_options]
    docs, sketches = run_on_partition(binary, "sketch", "--docs", header,
                                      (fields for _, fields in part), options)
    fixed = len(SKETCH_COLUMNS)
    assert sketches[0][:fixed] == SKETCH_COLUMNS, "twinpage sketch wrote other columns"
    for (number, _), s in zip(part, sketches[1:], strict=True):
        d = dict(zip(SKETCH_COLUMNS, s))
        yield number, {
            "status": d["status"],
            # The binary names rows of this copy: the driver names them in the table.
            "error": re.sub(rf"^{re.escape(docs)}:\d+: ", "", d["error"]),
            "html": d["html"],
            "side": [d["url"], d["html"], d["rendered"], *s[fixed:]],
            "domain": d["domain"],
            "bands": d["bands"].split(),
            "minhashes": d["minhashes"],
        }


def check_sketches(sketches, args, docs, out):
    """Rows the binary could not sketch: an error naming the first, or with --skip-bad
    (unreadable documents only) the list beside the output, as `twinpage candidates` does."""
    bad = sorted(sketches.filter(lambda s: s[1]["status"] != "ok").collect(), key=lambda s: s[0])
    if not bad:
        return
    where = lambda n, d: f"{docs} row {n + 1} (html {d['html'] or '?'})"
    not_documents = [(n, d) for n, d in bad if d["status"] == "bad-row"]
    if not_documents:
        n, d = not_documents[0]
        raise Failure(f"{where(n, d)}: {d['error']}")
    if not args.skip_bad:
        n, d = bad[0]
        raise Failure(f"{where(n, d)}: {d['error']} ({len(bad)} row(s); use --skip-bad to skip "
                      "unreadable documents)")
    skipped = out + ".skipped.csv" if out != "-" else "skipped.csv"
    with output(skipped) as f:
        write_rows(f, itertools.chain([["row", "reason"]], ([where(n, d), d["error"]] for n, d in bad)))
    say(f"skipped {len(bad)} row(s) with unreadable documents; listed in {skipped}")


def verify(a, b, da, db, plan, sites):
    """The pair (a, b) if `twinpage candidates --method lsh` keeps it: one band agreeing in
    full, and the share of agreeing min-values (the estimated Jaccard) at the threshold."""
    (va, side_a, domain_a), (vb, side_b, domain_b) = da, db
    width, rows = 4, plan["rows"]  # a (16-bit) min-value is 4 hex digits
    values = lambda v: [v[i:i + width] for i in range(0, len(v), width)]
    va, vb = values(va), values(vb)
    if not any(va[band * rows:(band + 1) * rows] == vb[band * rows:(band + 1) * rows]
               for band in range(plan["bands"])):
        return []
    estimate = sum(x == y for x, y in zip(va, vb)) / plan["hashes"]
    if estimate < plan["threshold"]:
        return []
    if sites != "all" and (bool(domain_a) and domain_a == domain_b) != (sites == "same"):
        return []
    # Rust's {:.3} and Python's .3f round the same (correctly, ties to even).
    return [((a, b), side_a, side_b, f"{estimate:.3f}")]


def pair_row(side_a, side_b, evidence, rendered):
    """A row of the pair file, in the column order of crates/twinpage/src/candidates/corpus.rs write_pairs."""
    (url_a, html_a, rend_a, *extra_a), (url_b, html_b, rend_b, *extra_b) = side_a, side_b
    row = [url_a, url_b, html_a, html_b] + ([rend_a, rend_b] if rendered else [])
    return row + ["lsh", evidence] + [v for pair in zip(extra_a, extra_b) for v in pair]


def score_partition(rows, head, binary, base, score_options):
    """Runs `twinpage score` on one partition of the pair rows: each row followed by its
    decision columns."""
    rows = list(rows)
    if not rows:
        return
    # The paths in a pair file are relative to its folder: absolute in this copy, as
    # written in the output.
    _, scored = run_on_partition(binary, "score", "--pairs", head,
                                 (absolute(r, base) for r in rows), score_options)
    for row, s in zip(rows, scored[1:], strict=True):
        yield row + s[len(row):]


def run_on_partition(binary, command, flag, head, rows, options):
    """Runs `twinpage COMMAND` with one thread on `head` and `rows` written to a
    temporary CSV given as FLAG: that CSV's path (the binary names rows by it) and the
    rows of the output, header first."""
    with tempfile.TemporaryDirectory(prefix="twinpage-spark-") as tmp:
        given, out = os.path.join(tmp, "given.csv"), os.path.join(tmp, "out.csv")
        with open(given, "w", newline="", encoding="utf-8") as f:
            write_rows(f, itertools.chain([head], rows))
        # One thread: Spark runs a task per core already.
        call([binary, "--threads", "1", command, flag, given, "--out", out, *options],
             f"twinpage {command}")
        with open(out, newline="", encoding="utf-8") as f:
            return given, list(csv.reader(f))


def absolute(row, base):
    """The row with its document paths (html_a, html_b, rendered_a, rendered_b) absolute."""
    return [os.path.join(base, v.strip()) if 2 <= i < 6 and v.strip() else v for i, v in enumerate(row)]


def clusters(scored, head, max_size):
    """`twinpage cluster` of the scored rows: (cluster, size, status, url, html) per
    document, sorted by cluster id then document (crates/twinpage/src/candidates/cluster.rs)."""
    url_a, url_b, html_a, html_b = (head.index(c) for c in ("url_a", "url_b", "html_a", "html_b"))
    decision = len(head) + DECISION_COLUMNS.index("decision")
    # Every document of the scored pairs (its html as written, trimmed) with the URL of
    # its first appearance, side a before side b.
    documents = (scored.zipWithIndex()
                 .flatMap(lambda x: [(x[0][html_a].strip(), ((x[1], 0), x[0][url_a].strip())),
                                     (x[0][html_b].strip(), ((x[1], 1), x[0][url_b].strip()))])
                 .reduceByKey(min)
                 .mapValues(lambda first: first[1]))
    duplicates = (scored.filter(lambda r: r[decision].strip() == "duplicate")
                  .map(lambda r: (r[html_a].strip(), r[html_b].strip()))
                  .filter(lambda e: e[0] != e[1]))
    # (smallest member of the document's cluster, (document, url)); a document in no
    # duplicate pair is its own cluster.
    members = documents.leftOuterJoin(components(duplicates)).map(
        lambda kv: (kv[1][1] or kv[0], (kv[0], kv[1][0])))
    rows = members.groupByKey().flatMap(lambda kv: cluster_rows(kv[0], list(kv[1]), max_size))
    return rows.sortByKey().values().persist()


def cluster_rows(first, members, max_size):
    """The rows of one cluster, keyed for sorting."""
    cluster = f"c{fnv1a(first.encode()):016x}"
    status = "too-large" if len(members) > max_size else "ok"
    return [((cluster, key), [cluster, str(len(members)), status, url, key]) for key, url in members]


def fnv1a(data):
    """64-bit FNV-1a (crates/util/src/hash.rs), which names a cluster by its smallest member."""
    h = 0xCBF29CE484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def components(edges):
    """(node, smallest node of its connected component) for every node of `edges`, by
    alternating large-star and small-star (Kiveris et al., "Connected components in
    MapReduce and beyond", 2014): O(log^2 n) rounds, where following a chain of
    near-duplicates one link a round would take as many rounds as the chain is long."""
    def large_star(kv):
        node, neighbours = kv
        m = min(min(neighbours), node)
        return [(v, m) for v in set(neighbours) if v > node]

    def small_star(kv):
        node, smaller = kv
        m = min(min(smaller), node)
        return [(v, m) for v in set(smaller) | {node} if v != m]

    while True:
        edges = edges.flatMap(lambda e: [e, (e[1], e[0])]).groupByKey().flatMap(large_star)
        edges = edges.map(lambda e: e if e[1] <= e[0] else (e[1], e[0])).groupByKey().flatMap(small_star)
        edges = edges.distinct().persist()
        say(f"connected components: {edges.count()} edges")
        edges.localCheckpoint()
        # Done when each node points at one node, which points nowhere: a star per
        # component, centred on its smallest node (both steps only ever point a node at
        # a smaller one, and keep the components).
        sources = edges.keys().distinct()
        if edges.count() == sources.count() and edges.values().intersection(sources).isEmpty():
            return edges


def options(args, names):
    """The flags given for `names`, for the binary (unset ones keep the binary's defaults)."""
    out = []
    for name in names:
        value = getattr(args, name)
        flag = "--" + name.replace("_", "-")
        if value is True:
            out.append(flag)
        elif value not in (None, False):
            out += [flag, str(value)]
    return out


def call(command, what):
    """Runs the binary; its own message (and exit code 2 for a usage error) on failure."""
    try:
        done = subprocess.run(command, capture_output=True, text=True)
    except FileNotFoundError:
        raise Failure(f"{command[0]}: no such binary (cargo build --release, or TWINPAGE_BIN=PATH)")
    if done.returncode == 2:
        sys.stderr.write(done.stderr)
        sys.exit(2)
    if done.returncode != 0:
        raise Failure(f"{what} failed: {done.stderr.strip()}")
    return done.stdout


class output:
    """A file written whole or not at all: a temporary file beside it, renamed at the end."""

    def __init__(self, path):
        self.path = path

    def __enter__(self):
        if self.path == "-":
            self.file = sys.stdout
            return self.file
        folder = os.path.dirname(os.path.abspath(self.path))
        fd, self.temp = tempfile.mkstemp(prefix=".twinpage-spark-", suffix=".tmp", dir=folder)
        self.file = os.fdopen(fd, "w", newline="", encoding="utf-8")
        return self.file

    def __exit__(self, kind, *_):
        if self.path == "-":
            sys.stdout.flush()
            return
        self.file.close()
        if kind is None:
            os.replace(self.temp, self.path)
        else:
            os.unlink(self.temp)


def write_rows(f, rows):
    # The binary's csv crate writes "\n" line ends and quotes only where needed, as this does.
    csv.writer(f, lineterminator="\n").writerows(rows)


if __name__ == "__main__":
    main()

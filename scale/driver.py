"""twinpage on Spark: the candidate pairs of a docs table, or a crawl's duplicates.

    driver.py --binary TWINPAGE [--master URL] candidates --docs docs.csv --out pairs.csv [options]
    driver.py --binary TWINPAGE [--master URL] dedupe INPUT... --out DIR [options]

Each gives what the one-machine command with the same options gives: `candidates` the
bytes of `twinpage candidates --method lsh`, `dedupe` the run folder of `twinpage dedupe`
(docs.csv and pages/ of a crawl, candidates.csv, pairs.csv, clusters.csv, summary.json,
report.html). Spark only moves rows: every computation on pages is the binary's, run on
each partition (sketches, verification of a pair, scores, which pairs join a cluster,
the place of each document and the pairs still to judge, the keep rule); Spark joins
documents on their band keys, finds the connected components of the pairs that join,
and sorts. scale/run.sh runs it (local mode by default); docs/scale.md says how to
submit it to a cluster.
"""

import argparse
import csv
import io
import itertools
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time

from pyspark import SparkConf, SparkContext

DECISION_COLUMNS = ["p_duplicate", "p_spread", "confidence", "decision", "decided_by", "core_in_other"]
# What `twinpage sketch` writes before the docs table's other columns.
SKETCH_COLUMNS = ["url", "html", "rendered", "domain", "status", "words", "bands", "minhashes",
                  "visible_bands", "visible_minhashes", "record_keys", "error"]
# The texts a sketch may band, by the prefix of their columns: core content (or the one
# text chosen), then the whole visible text (with --text both).
TEXT_PREFIXES = ["", "visible_"]
# With --text both, each document keeps its nearest of the pairs its core finds, and of
# those only the visible text finds (as in crates/twinpage/src/candidates/sketch.rs).
NEAREST_BY_CORE = 32
NEAREST_BY_VISIBLE_TEXT = 8
# Record pages are also paired by their records' keys: each its nearest on another site,
# keys held by more records left out (as in crates/twinpage/src/candidates/records.rs).
NEAREST_RECORDS = 3
MAX_BLOCK = 100
# What `twinpage settle place` reads of a judged pair, and writes per document.
JUDGED_COLUMNS = ["html_a", "html_b", "p_duplicate", "decision", "decided_by", "core_in_other"]
PLACE_COLUMNS = ["cluster", "keep", "joined", "why", "url", "source", "html"]
STARTED = time.monotonic()
# How the binary starts a warning; what a partition's scoring yields: rows, or warnings.
BINARY_WARNING = "twinpage: warning:"
ROW, WARNING = "row", "warning"


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
    ap = argparse.ArgumentParser(prog="scale/run.sh", description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", required=True, help="the twinpage binary (run.sh sets it)")
    ap.add_argument("--master", default="local[*]", help="Spark master (default local[*])")
    ap.add_argument("--partitions", type=int, help="partitions of the docs table, the pairs and "
                    "every shuffle (default: twice the cores in local mode, else Spark's default)")
    ap.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                    help="a Spark setting, as spark-submit --conf (repeat for several)")
    commands = ap.add_subparsers(dest="command", required=True)
    p = commands.add_parser("candidates", help="as `twinpage candidates --method lsh`")
    p.add_argument("--docs", required=True, help="docs.csv (url,html[,rendered], other columns kept)")
    p.add_argument("--out", required=True, help="output pair file")
    p.add_argument("--method", default="lsh", choices=["simhash", "minhash", "combined", "pugh", "lsh"])
    p.add_argument("--sites", default="all", choices=["all", "same", "cross"])
    p.add_argument("--skip-bad", action="store_true")
    p.add_argument("--text", choices=["core", "visible", "both"])
    p.add_argument("--threshold")
    p.add_argument("--lsh-hashes")
    p.add_argument("--lsh-shingle-words")
    # Sketches take a document's stored or cached render, as `twinpage candidates` does.
    p.add_argument("--no-render", action="store_true")
    p.add_argument("--cache", help="render cache folder")
    p = commands.add_parser("dedupe", help="as `twinpage dedupe`")
    p.add_argument("inputs", nargs="+", metavar="INPUT",
                   help="crawl files (.warc, .warc.gz, .wacz, .jsonl), or one docs.csv")
    p.add_argument("--out", required=True, help="run folder")
    p.add_argument("--model", help="as `twinpage dedupe --model`")
    p.add_argument("--fetched-model", help="as `twinpage dedupe --fetched-model`")
    p.add_argument("--no-render", action="store_true", help="fetched bodies only (no browser)")
    p.add_argument("--cache", help="render cache folder (executors render pages missing from it)")
    p.add_argument("--render-deadline")
    p.add_argument("--render-memory")
    p.add_argument("--tabs")
    args = ap.parse_args()
    if args.command == "candidates" and args.method != "lsh":
        ap.error(f"--method {args.method} is not supported on Spark yet: use --method lsh")
    return args


def run(args):
    # Executors run the binary as named: a relative path is found in their working folder,
    # where spark-submit --files puts it (docs/scale.md).
    binary = args.binary
    if args.command == "candidates":
        docs = os.path.abspath(args.docs)
        if not os.path.isfile(docs):
            raise Failure(f"--docs {args.docs}: no such file (give a docs.csv with columns url,html)")
        sketch_options = options(args, ["text", "threshold", "lsh_hashes", "lsh_shingle_words",
                                         "no_render", "cache"])
        verify_options = options(args, ["threshold", "lsh_hashes", "lsh_shingle_words", "sites"])
    else:
        docs = dedupe_docs(args)
    # Checks the options on the driver, before Spark starts, and says how sketches band.
    plan = json.loads(call([binary, "sketch", "--plan", *(sketch_options if args.command == "candidates" else [])],
                           "the sketch options"))

    log4j = os.path.join(os.path.dirname(os.path.abspath(__file__)), "log4j2.properties")
    conf = (SparkConf().setMaster(args.master).setAppName("twinpage")
            .set("spark.ui.enabled", "false")
            .set("spark.ui.showConsoleProgress", "false")
            .set("spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile=file:{log4j}"))
    for setting in args.conf:
        key, is_set, value = setting.partition("=")
        if not is_set:
            raise Failure(f"--conf {setting}: give KEY=VALUE")
        conf.set(key, value)
    # Every shuffle cuts its output in this many partitions: a few per core is enough for
    # balance; more tasks cost more than they spread.
    if args.partitions or args.master.startswith("local"):
        conf.set("spark.default.parallelism", str(args.partitions or 2 * os.cpu_count()))
    sc = SparkContext(conf=conf)
    sc.setLogLevel("FATAL")  # the driver says what went wrong, without Java stacks
    try:
        if args.command == "candidates":
            head, pairs = candidates(sc, args.skip_bad, binary, docs, args.out, plan, sketch_options,
                                     verify_options)
            with output(args.out) as f:
                write_rows(f, itertools.chain([head], pairs.toLocalIterator()))
            say(f"{pairs.count()} candidate pairs by lsh in {args.out}")
        else:
            dedupe(sc, args, binary, docs, plan)
    finally:
        sc.stop()


def dedupe_docs(args):
    """Opens the run as `twinpage dedupe` does (options and models checked, a folder of
    another command refused) and reads crawls into it; the run's docs table."""
    # Inputs as given: a page's `source` names its crawl file as the user did.
    inputs = args.inputs
    args.out = os.path.abspath(args.out)
    for i in inputs:
        if os.path.isdir(i):
            raise Failure(f"{i}: a folder; on Spark give a docs.csv (url,html) or crawl files")
    say("opening the run (and reading the crawl, if any) with twinpage dedupe --until read")
    call([args.binary, "dedupe", *inputs, "--out", args.out, *dedupe_options(args), "--until", "read"],
         "twinpage dedupe --until read")
    if len(inputs) == 1 and inputs[0].endswith(".csv"):
        return os.path.abspath(inputs[0])
    return os.path.join(args.out, "docs.csv")


def dedupe_options(args):
    """The options of `twinpage dedupe` as given (they make the run's command)."""
    return options(args, ["model", "fetched_model", "no_render", "cache", "render_deadline",
                          "render_memory", "tabs"])


def rendering_options(args):
    """How executors render, as `dedupe` does: pages of crawls replay from them."""
    if args.no_render:
        return ["--no-render"]
    return ["--replay-run", args.out, *options(args, ["cache", "render_deadline", "render_memory", "tabs"])]


def dedupe(sc, args, binary, docs, plan):
    """`twinpage dedupe`'s stages, each skipped when an earlier run finished it."""
    out = args.out
    candidates_csv, pairs_csv = os.path.join(out, "candidates.csv"), os.path.join(out, "pairs.csv")
    rendering = rendering_options(args)
    seconds = {}
    if not os.path.isfile(candidates_csv):
        started = time.monotonic()
        # dedupe's candidates: the default banding, core and visible text, pages built by
        # script rendered.
        sketch_options = ["--text", "both", "--records",
                          *([] if args.no_render else ["--render-thin"]), *rendering]
        head, pairs = candidates(sc, True, binary, docs, candidates_csv, plan, sketch_options, [],
                                 quiet=True)
        with output(candidates_csv) as f:
            write_rows(f, itertools.chain([head], pairs.toLocalIterator()))
        seconds["candidates"] = time.monotonic() - started
        say(f"{pairs.count()} candidate pairs")
    # As dedupe scores: the cascade of both models, or the fetched-only model alone.
    score_options = rendering + options(args, ["fetched_model"] if args.no_render else ["model", "fetched_model"])
    if not os.path.isfile(pairs_csv):
        started = time.monotonic()
        score_file(sc, binary, candidates_csv, pairs_csv, score_options)
        seconds["score"] = time.monotonic() - started
        say("candidate pairs scored")
    started = time.monotonic()
    placed = settle(sc, binary, out, docs, score_options)
    fd, placed_csv = tempfile.mkstemp(prefix=".placed-", suffix=".csv", dir=out)
    try:
        with os.fdopen(fd, "w", newline="", encoding="utf-8") as f:
            write_rows(f, itertools.chain([PLACE_COLUMNS], placed.toLocalIterator()))
        print(call([binary, "settle", "finish", "--run", out, "--placed", placed_csv],
                   "twinpage settle finish"), end="")
    finally:
        os.unlink(placed_csv)
    seconds["clusters"] = time.monotonic() - started
    with output(os.path.join(out, "times.json")) as f:
        json.dump({"seconds": {k: round(v, 2) for k, v in seconds.items()}, "spark": True}, f, indent=2)


def read_table(sc, path):
    """A CSV file's header and its rows as (number, fields), numbered from 0. Fields may
    span lines, so a file is read whole by one task (the work on its rows is spread
    after); Python's csv reads it as the binary's csv crate does (RFC 4180, blank lines
    skipped), where Spark SQL's CSV reader would differ in details and cost a dozen
    seconds of start-up."""
    table = sc.wholeTextFiles(path, minPartitions=1).values()
    rows = table.flatMap(lambda text: filter(None, csv.reader(io.StringIO(text, newline="")))).zipWithIndex()
    first = rows.take(1)
    if not first:
        raise Failure(f"{path}: empty (a CSV file starts with its header)")
    header = [h.lstrip("\ufeff").strip() for h in first[0][0]]
    ragged = rows.filter(lambda r: len(r[0]) != len(header)).take(1)
    if ragged:
        raise Failure(f"{path} row {ragged[0][1]}: {len(ragged[0][0])} fields where the header has "
                      f"{len(header)}")
    return header, rows.filter(lambda r: r[1] > 0).map(lambda r: (r[1] - 1, r[0]))


def score_file(sc, binary, pairs_csv, out, score_options):
    """`twinpage score` of a pair file, a partition at a time, rows kept in order. What
    the binary warns of (pages unlike the model's training pages) is said on the
    driver's stderr, each warning once: an executor's stderr is in no one's sight."""
    head, rows = read_table(sc, pairs_csv)
    base = os.path.dirname(os.path.abspath(pairs_csv))
    rows = rows.sortByKey(numPartitions=sc.defaultParallelism).values()
    scored = rows.mapPartitions(lambda part: score_partition(part, head, binary, base, score_options))
    scored = scored.persist()
    scored.count()  # all partitions at once; writing then reads them one at a time
    for line in sorted(set(scored.filter(lambda s: s[0] == WARNING).values().collect())):
        print(line, file=sys.stderr)
    with output(out) as f:
        scored_rows = scored.filter(lambda s: s[0] == ROW).values()
        write_rows(f, itertools.chain([head + DECISION_COLUMNS], scored_rows.toLocalIterator()))


def settle(sc, binary, out, docs, score_options):
    """Every document's place, as `dedupe` settles it: the pairs that join (the binary
    says which) make connected components, found by Spark; each partition of whole
    components goes to `twinpage settle place`, which places their documents or names
    the pairs of a center and a member it needs judged first; those pairs are scored
    (`verify-N.csv`, `verify-N.scored.csv` of the run, as on one machine) and the
    components still open placed again. The rows of `settle place`, by document."""
    parts = sc.defaultParallelism
    base = os.path.dirname(docs)
    pairs_out = os.path.join(out, "candidates.csv")
    header, documents = read_table(sc, docs)
    # (number, [url, source, html]): html names the body as the run's pairs do.
    members = documents.repartition(parts).mapPartitions(
        lambda part: members_partition(part, header, binary, base, pairs_out)).persist()
    judged = [judged_rows(sc, os.path.join(out, "pairs.csv"), 0)]
    edges = judged[0].values().mapPartitions(lambda part: joins_partition(part, binary)).filter(
        lambda e: e[0] != e[1])
    # Body -> the smallest body of its component; a body in no joining pair is its own.
    component = components(edges)
    grouped = (members.map(lambda m: (m[1][2], m))
               .leftOuterJoin(component)
               .map(lambda kv: (kv[1][1] or kv[0], kv[1][0]))).persist()
    group_of_body = grouped.map(lambda g: (g[1][1][2], g[0])).distinct().persist()
    say(f"{grouped.count()} documents grouped by the components of their bodies")
    placed, open_groups = sc.emptyRDD(), grouped
    for round_ in itertools.count(1):
        by_group = (sc.union(judged).map(lambda j: (j[1][0], j))
                    .join(group_of_body).map(lambda kv: (kv[1][1], kv[1][0])))
        result = open_groups.cogroup(by_group, numPartitions=parts).mapPartitions(
            lambda part: place_partition(part, binary, base, header, pairs_out, round_)).persist()
        needed = result.filter(lambda r: r[0] == "needed").map(lambda r: (r[1], r[2]))
        pending = needed.map(lambda n: (n[0], None)).distinct().persist()
        settled = result.filter(lambda r: r[0] == "placed").map(lambda r: (r[1], r[2])).subtractByKey(pending)
        placed = placed.union(settled.values())
        if pending.isEmpty():
            break
        asked, scored = (os.path.join(out, f) for f in (f"verify-{round_}.csv", f"verify-{round_}.scored.csv"))
        if not os.path.isfile(scored):
            rows = sorted(needed.values().collect())
            say(f"round {round_}: {len(rows)} pair(s) to judge: of a center and a member never judged, "
                "or held apart by their fetched bodies alone (judged again on their rendered bodies)")
            with output(asked) as f:
                write_rows(f, itertools.chain([["url_a", "url_b", "html_a", "html_b", "stage"]], rows))
            score_file(sc, binary, asked, scored, score_options)
        judged.append(judged_rows(sc, scored, round_))
        open_groups = grouped.join(pending).mapValues(lambda v: v[0])
    return placed.sortByKey(numPartitions=parts).values()


def judged_rows(sc, scored_csv, file_number):
    """The judgements of a scored pair file: ((file, row), [html_a, html_b, p, decision, by])."""
    header, rows = read_table(sc, scored_csv)
    missing = [c for c in JUDGED_COLUMNS if c not in header]
    if missing:
        raise Failure(f"{scored_csv}: no column {missing[0]} (is it the output of `twinpage score`?)")
    at = [header.index(c) for c in JUDGED_COLUMNS]
    return rows.map(lambda r: ((file_number, r[0]), [r[1][i].strip() for i in at])).persist()


def members_partition(part, header, binary, base, pairs_out):
    """`twinpage settle members` of a partition of the docs table: (number, [url,
    source, html, the row's fields])."""
    part = sorted(part)
    if not part:
        return
    _, rows = run_on_partition(binary, ["settle", "members"], "--docs", header,
                               (fields for _, fields in part),
                               ["--base", base, "--pairs-out", pairs_out])
    for (number, fields), member in zip(part, rows[1:], strict=True):
        yield number, [*member, fields]


def joins_partition(rows, binary):
    """`twinpage settle joins` of judged rows: the (html_a, html_b) that join a cluster."""
    rows = list(rows)
    if not rows:
        return
    _, edges = run_on_partition(binary, ["settle", "joins"], "--judged", JUDGED_COLUMNS, rows, [])
    yield from (tuple(e) for e in edges[1:])


def place_partition(part, binary, base, header, pairs_out, round_):
    """`twinpage settle place` of the groups of a partition: ("placed", group, (number,
    row)) for each document, ("needed", group, pair) for each pair to judge first."""
    documents, judged, group_of = [], [], {}
    for group, (members, judgements) in part:
        for number, member in members:
            documents.append((number, group, member))
            group_of[member[2]] = group
        judged.extend(judgements)
    if not documents:
        return
    documents.sort()
    judged.sort()
    with tempfile.TemporaryDirectory(prefix="twinpage-spark-") as tmp:
        files = {n: os.path.join(tmp, n) for n in ("docs.csv", "judged.csv", "placed.csv", "needed.csv")}
        with open(files["judged.csv"], "w", newline="", encoding="utf-8") as f:
            write_rows(f, itertools.chain([JUDGED_COLUMNS], (j for _, j in judged)))
        with open(files["docs.csv"], "w", newline="", encoding="utf-8") as f:
            # The documents' rows as the docs table has them, in its order.
            write_rows(f, itertools.chain([header], (m[3] for _, _, m in documents)))
        call([binary, "--threads", "1", "settle", "place", "--docs", files["docs.csv"], "--base", base,
              "--pairs-out", pairs_out, "--judged", files["judged.csv"], "--round", str(round_),
              "--out", files["placed.csv"], "--needed", files["needed.csv"]], "twinpage settle place")
        with open(files["placed.csv"], newline="", encoding="utf-8") as f:
            placed = list(csv.reader(f))[1:]
        with open(files["needed.csv"], newline="", encoding="utf-8") as f:
            needed = list(csv.reader(f))[1:]
    for (number, group, _), row in zip(documents, placed, strict=True):
        yield "placed", group, (number, row)
    for pair in needed:
        yield "needed", group_of[pair[2]], pair


def candidates(sc, skip_bad, binary, docs, out, plan, sketch_options, verify_options, quiet=False):
    """The pair file's header, and its rows sorted as `twinpage candidates` writes them
    (by the two documents' numbers in the docs table). `quiet`: unreadable documents
    are skipped without a list, as `dedupe` skips them."""
    parts = sc.defaultParallelism
    header, documents = read_table(sc, docs)
    documents = documents.repartition(parts)
    base = os.path.dirname(docs)
    sketches = documents.mapPartitions(
        lambda part: sketch_partition(part, header, binary, base, out, sketch_options)).persist()
    check_sketches(sketches, skip_bad or quiet, docs, None if quiet else out)
    say(f"{sketches.count()} documents sketched")

    ok = sketches.filter(lambda s: s[1]["status"] == "ok")
    both = "both" in sketch_options
    core = verified_pairs(ok, TEXT_PREFIXES[0], binary, verify_options,
                          NEAREST_BY_CORE if both else None).persist()
    verified = core
    if both:
        # Each document's nearest on either text; a pair both texts find keeps the
        # evidence of the core (as `candidates --text both` keeps them).
        visible = verified_pairs(ok, TEXT_PREFIXES[1], binary, verify_options, NEAREST_BY_VISIBLE_TEXT)
        verified = nearest(core, NEAREST_BY_CORE).union(
            nearest(visible.subtractByKey(core), NEAREST_BY_VISIBLE_TEXT)).persist()
    if "--records" in sketch_options:
        # Pairs no sketch found have no evidence.
        by_records = record_pairs(ok).map(lambda pair: (pair, None)).subtractByKey(verified)
        verified = verified.union(with_sides(by_records.keys(), ok)).persist()

    rendered = not ok.filter(lambda s: s[1]["side"][2]).isEmpty()
    extra = [h for i, h in enumerate(header) if i not in document_columns(header)]
    head = ["url_a", "url_b", "html_a", "html_b"] + (["rendered_a", "rendered_b"] if rendered else [])
    head += ["method", *plan["evidence"], *(f"{h}{s}" for h in extra for s in ("_a", "_b"))]
    pairs = verified.map(lambda p: (p[0], pair_row(*p[1], rendered))).persist()
    # Persisted and counted here so that writing (one partition at a time) computes nothing.
    pairs = pairs.sortByKey(numPartitions=parts).values().persist()
    pairs.count()
    return head, pairs


def verified_pairs(ok, prefix, binary, verify_options, star_over=None):
    """The pairs of documents sharing a band key of one text (its columns named with
    `prefix`) that its min-values verify: (pair, (side a, side b, evidence)). With
    `star_over` k, more than k documents with the same min-values (a wall served at
    every URL) stand in the bands as the first of them by URL (then number), and each
    of the rest is paired with it alone, as `candidates --text both` pairs them."""
    # Document number -> (min-values, registered domain, pair-file side), for documents with bands.
    usable = ok.filter(lambda s: s[1][prefix + "bands"]).mapValues(
        lambda d: (d[prefix + "minhashes"], d["domain"], d["side"]))
    standing, stars = ok, ok.context.emptyRDD()
    if star_over is not None:
        stars = (usable.map(lambda u: (u[1][0], (u[1][2][0], u[0]))).groupByKey()
                 .map(lambda kv: [number for _, number in sorted(kv[1])])
                 .filter(lambda same: len(same) > star_over)
                 .flatMap(lambda same: ((same[0], member) for member in same[1:])))
        standing = ok.subtractByKey(stars.map(lambda star: (star[1], None)))
    looked_at = (standing.flatMap(lambda s: (((band, key), s[0]) for band, key in enumerate(s[1][prefix + "bands"])))
                 .groupByKey()
                 .flatMap(lambda kv: itertools.combinations(sorted(kv[1]), 2))
                 .union(stars.map(lambda star: (min(star), max(star))))
                 .distinct())
    # Each pair meets both documents' values in one join (a document's values cross the
    # shuffle once per pair it is in), then the two halves meet by pair, and the binary
    # says which pairs `candidates` keeps.
    verified = (looked_at.flatMap(lambda p: [(p[0], p), (p[1], p)])
                .join(usable)
                .map(lambda x: (x[1][0], (x[0], x[1][1])))
                .groupByKey()
                .map(lambda x: (x[0], *(d for _, d in sorted(x[1])))))
    return (verified.mapPartitions(lambda part: verify_partition(part, binary, verify_options))
            .map(lambda v: (v[0], v[1:])))


def record_pairs(ok):
    """The pairs of record pages by their records' keys, as `candidates --records` finds
    them: a key held by 2 to MAX_BLOCK records weighs the log of the records over its
    holders, two records on different registered domains (or unknown) are as close as
    the sum of the weights of their shared keys (summed by increasing key, as the binary
    sums them), and each record keeps its NEAREST_RECORDS nearest (ties by URL, then
    number: Python orders strings by code point as the binary orders UTF-8 bytes)."""
    keyed = ok.filter(lambda s: s[1]["record_keys"]).mapValues(
        lambda d: (d["record_keys"], d["domain"], d["side"][0]))
    records = keyed.count()
    holders = (keyed.flatMap(lambda d: ((key, (d[0], *d[1][1:])) for key in d[1][0]))
               .groupByKey()
               .mapValues(list)
               .filter(lambda kv: 2 <= len(kv[1]) <= MAX_BLOCK))

    def shared(kv):
        key, docs = kv
        weight = math.log(records / len(docs))
        for doc, site, _ in docs:
            for other, other_site, other_url in docs:
                if other != doc and (not site or other_site != site):
                    yield (doc, other, other_url), (key, weight)

    def closeness(kv):
        (doc, other, other_url), weights = kv
        total = 0.0
        for _, weight in sorted(weights):
            total += weight
        return doc, (-total, other_url, other)

    def kept(kv):
        doc, others = kv
        for _, _, other in sorted(others)[:NEAREST_RECORDS]:
            yield (min(doc, other), max(doc, other))

    return (holders.flatMap(shared).groupByKey().map(closeness)
            .groupByKey().flatMap(kept).distinct())


def with_sides(pairs, ok):
    """(pair, (side a, side b, None)) for each pair of document numbers: found by no
    sketch, it has no evidence."""
    sides = ok.mapValues(lambda d: d["side"])
    halves = (pairs.flatMap(lambda p: [(p[0], p), (p[1], p)])
              .join(sides)
              .map(lambda x: (x[1][0], (x[0], x[1][1]))))
    return halves.groupByKey().mapValues(lambda h: (*(side for _, side in sorted(h)), None))


def nearest(pairs, k):
    """The pairs (pair, (side a, side b, evidence)) among the `k` closest of either
    document by their evidence, as `candidates --text both` keeps them: ties by the
    pair's documents in the order of (URL, number), the lower first."""
    def ranked(p):
        (a, b), (side_a, side_b, evidence) = p
        tie = tuple(sorted([(side_a[0], a), (side_b[0], b)]))
        return [(end, (-float(evidence), tie, p[0])) for end in p[0]]
    ends = pairs.flatMap(ranked)
    kept = (ends.groupByKey()
            .flatMap(lambda kv: (pair for _, _, pair in sorted(kv[1])[:k]))
            .distinct()
            .map(lambda pair: (pair, None)))
    return pairs.join(kept).mapValues(lambda v: v[0])


def verify_partition(part, binary, verify_options):
    """`twinpage sketch --verify` of a partition of looked-at pairs (pair, values and
    side of a, of b): (pair, side a, side b, evidence) for each pair it keeps."""
    part = list(part)
    if not part:
        return
    looked = ([a, b, va[0], vb[0], va[1], vb[1]] for (a, b), va, vb in part)
    head = ["a", "b", "minhashes_a", "minhashes_b", "domain_a", "domain_b"]
    _, kept = run_on_partition(binary, ["sketch"], "--verify", head, looked, verify_options)
    sides = {(a, b): (va[2], vb[2]) for (a, b), va, vb in part}
    for a, b, evidence in kept[1:]:
        pair = (int(a), int(b))
        yield (pair, *sides[pair], evidence)


def document_columns(header):
    """Positions of url, html and rendered: the first column of each name, as the binary takes them."""
    return {header.index(n) for n in ("url", "html", "rendered") if n in header}


def sketch_partition(part, header, binary, base, pairs_out, sketch_options):
    """Runs `twinpage sketch` on one partition of the docs table: (number, sketch) per row."""
    part = list(part)
    if not part:
        return
    options = ["--base", base, "--pairs-out", pairs_out, *sketch_options]
    docs, sketches = run_on_partition(binary, ["sketch"], "--docs", header,
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
            **{prefix + "bands": d[prefix + "bands"].split() for prefix in TEXT_PREFIXES},
            **{prefix + "minhashes": d[prefix + "minhashes"] for prefix in TEXT_PREFIXES},
            "record_keys": [int(key, 16) for key in d["record_keys"].split()],
        }


def check_sketches(sketches, skip_bad, docs, out):
    """Rows the binary could not sketch: an error naming the first, or with `skip_bad`
    (unreadable documents only) skipped, listed beside `out` (when given) as `twinpage
    candidates` does."""
    bad = sorted(sketches.filter(lambda s: s[1]["status"] != "ok").collect(), key=lambda s: s[0])
    if not bad:
        return
    where = lambda n, d: f"{docs} row {n + 1} (html {d['html'] or '?'})"
    not_documents = [(n, d) for n, d in bad if d["status"] == "bad-row"]
    if not_documents:
        n, d = not_documents[0]
        raise Failure(f"{where(n, d)}: {d['error']}")
    if not skip_bad:
        n, d = bad[0]
        raise Failure(f"{where(n, d)}: {d['error']} ({len(bad)} row(s); use --skip-bad to skip "
                      "unreadable documents)")
    if out is None:
        return
    skipped = out + ".skipped.csv" if out != "-" else "skipped.csv"
    with output(skipped) as f:
        write_rows(f, itertools.chain([["row", "reason"]], ([where(n, d), d["error"]] for n, d in bad)))
    say(f"skipped {len(bad)} row(s) with unreadable documents; listed in {skipped}")


def pair_row(side_a, side_b, evidence, rendered):
    """A row of the pair file, in the column order of crates/twinpage/src/candidates/corpus.rs
    write_pairs (a pair without evidence was found by its records alone)."""
    (url_a, html_a, rend_a, *extra_a), (url_b, html_b, rend_b, *extra_b) = side_a, side_b
    row = [url_a, url_b, html_a, html_b] + ([rend_a, rend_b] if rendered else [])
    found = ["records", ""] if evidence is None else ["lsh", evidence]
    return row + found + [v for pair in zip(extra_a, extra_b) for v in pair]


def score_partition(rows, head, binary, base, score_options):
    """Runs `twinpage score` on one partition of the pair rows: (ROW, each row followed by
    its decision columns), then (WARNING, line) for each warning of the binary's."""
    rows = list(rows)
    if not rows:
        return
    # The paths in a pair file are relative to its folder: absolute in this copy, as
    # written in the output.
    warnings = []
    _, scored = run_on_partition(binary, ["score"], "--pairs", head,
                                 (absolute(r, base) for r in rows), score_options, warnings)
    for row, s in zip(rows, scored[1:], strict=True):
        yield ROW, row + s[len(row):]
    for line in warnings:
        yield WARNING, line


def run_on_partition(binary, command, flag, head, rows, options, warnings=None):
    """Runs `twinpage COMMAND...` with one thread on `head` and `rows` written to a
    temporary CSV given as FLAG: that CSV's path (the binary names rows by it) and the
    rows of the output, header first; the binary's warnings added to `warnings`."""
    with tempfile.TemporaryDirectory(prefix="twinpage-spark-") as tmp:
        given, out = os.path.join(tmp, "given.csv"), os.path.join(tmp, "out.csv")
        with open(given, "w", newline="", encoding="utf-8") as f:
            write_rows(f, itertools.chain([head], rows))
        # One thread: Spark runs a task per core already.
        call([binary, "--threads", "1", *command, flag, given, "--out", out, *options],
             f"twinpage {' '.join(command)}", warnings)
        with open(out, newline="", encoding="utf-8") as f:
            return given, list(csv.reader(f))


def absolute(row, base):
    """The row with its document paths (html_a, html_b, rendered_a, rendered_b) absolute."""
    return [os.path.join(base, v.strip()) if 2 <= i < 6 and v.strip() else v for i, v in enumerate(row)]


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


def call(command, what, warnings=None):
    """Runs the binary; its own message (and exit code 2 for a usage error) on failure.
    Its warnings (lines of its stderr) are added to `warnings` when given."""
    try:
        done = subprocess.run(command, capture_output=True, text=True)
    except FileNotFoundError:
        raise Failure(f"{command[0]}: no such binary (cargo build --release, or TWINPAGE_BIN=PATH)")
    if done.returncode == 2:
        sys.stderr.write(done.stderr)
        sys.exit(2)
    if done.returncode != 0:
        raise Failure(f"{what} failed: {done.stderr.strip()}")
    if warnings is not None:
        warnings.extend(line for line in done.stderr.splitlines() if line.startswith(BINARY_WARNING))
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

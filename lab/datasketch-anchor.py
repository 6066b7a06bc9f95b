#!/usr/bin/env python3
"""The Python anchor for the candidates bench: datasketch's MinHashLSH on a synthetic crawl.

    lab/datasketch-anchor.py target/synthetic-crawl-100000 [--threshold 0.4] [--perm 128] [--shingle 3]

The crawl folder is one that `cargo bench --bench candidates -- --crawl N` writes
(target/synthetic-crawl-N/: docs.csv, pages/, planted.csv); run the bench first. This
does what a datasketch user does, in one process (datasketch's MinHashLSH is
single-threaded; `twinpage candidates` uses every core): for each document of
docs.csv, read the page, take its visible text (stdlib html.parser, text outside
<head>, <script> and <style>), lowercase and split it on whitespace, hash its word
shingles into a MinHash with the batch fast path (update_batch on a copy of one
initialised MinHash, as MinHash.generator does), insert every MinHash into
MinHashLSH(threshold, num_perm) and query each document. The candidate pairs are the
distinct (a, b), a < b, of those answers, unverified, as datasketch returns them.

The defaults are those of `twinpage candidates`, which the bench runs: threshold 0.4,
128 hashes, word 3-shingles (crates/twinpage/src/candidates/lsh.rs). The line printed has the bench's
figures, computed as it does: wall time (reading, hashing and LSH, from docs.csv to the
pair set), peak memory (this process's ru_maxrss, the interpreter included), candidate
pairs and candidates per planted pair, and the recall of the planted pairs of
planted.csv, all and those whose word 5-shingle Jaccard is >= 0.8, documents numbered
by their page file's name. After the timed part it adds how many of the candidates
have a MinHash-estimated Jaccard >= the threshold, the check `twinpage candidates`
applies to its own before listing them.

datasketch is pinned (with numpy and scipy) in a virtualenv at target/anchor-venv,
made on the first run with `python3 -m venv` and pip; the script re-executes itself
under that venv's python.
"""

import argparse
import csv
import os
import resource
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path

PINS = ["datasketch==2.0.0", "numpy==2.4.6", "scipy==1.17.1"]
VENV = Path(__file__).resolve().parent.parent / "target" / "anchor-venv"


def in_venv():
    """Makes target/anchor-venv with the pins when it lacks them, and runs this script there."""
    python = VENV / "bin" / "python"
    if Path(sys.prefix).resolve() == VENV.resolve():
        return
    check = "import importlib.metadata as m, sys; sys.exit(m.version('datasketch') != sys.argv[1])"
    pinned = PINS[0].split("==")[1]
    if not python.exists() or subprocess.run([python, "-c", check, pinned], capture_output=True).returncode:
        print(f"datasketch-anchor: installing {' '.join(PINS)} in {VENV}", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", "--clear", VENV], check=True)
        subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *PINS], check=True)
    os.execv(python, [str(python), __file__, *sys.argv[1:]])


class VisibleText(HTMLParser):
    """The text of a page outside <head>, <script> and <style>."""

    HIDDEN = {"head", "script", "style"}

    def __init__(self):
        super().__init__()
        self.parts, self.hidden = [], 0

    def handle_starttag(self, tag, attrs):
        self.hidden += tag in self.HIDDEN

    def handle_endtag(self, tag):
        if tag in self.HIDDEN and self.hidden:
            self.hidden -= 1

    def handle_data(self, data):
        if not self.hidden:
            self.parts.append(data)


def shingles(path, k):
    """The word k-shingles of a page as bytes: one shingle of all words when fewer than k (as Rust)."""
    parser = VisibleText()
    parser.feed(Path(path).read_text(encoding="utf-8", errors="replace"))
    parser.close()
    words = " ".join(parser.parts).lower().split()
    width = min(k, len(words))
    return {" ".join(words[i:i + width]).encode() for i in range(len(words) - width + 1)} if words else set()


def page_number(path):
    return int(Path(path).stem)


def main():
    in_venv()
    import datasketch
    from datasketch import MinHash, MinHashLSH

    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("crawl", type=Path, help="a folder with docs.csv, pages/ and planted.csv")
    cli.add_argument("--threshold", type=float, default=0.4)
    cli.add_argument("--perm", type=int, default=128)
    cli.add_argument("--shingle", type=int, default=3)
    args = cli.parse_args()

    start = time.perf_counter()
    blank, minhashes = MinHash(num_perm=args.perm), {}
    with open(args.crawl / "docs.csv", newline="") as f:
        for row in csv.DictReader(f):
            if grams := shingles(row["html"], args.shingle):
                m = blank.copy()
                m.update_batch(grams)
                minhashes[page_number(row["html"])] = m
    lsh = MinHashLSH(threshold=args.threshold, num_perm=args.perm)
    with lsh.insertion_session() as session:
        for number, m in minhashes.items():
            session.insert(number, m, check_duplication=False)
    found = {(a, b) for a, m in minhashes.items() for b in lsh.query(m) if a < b}
    wall = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    verified = sum(minhashes[a].jaccard(minhashes[b]) >= args.threshold for a, b in found)

    with open(args.crawl / "planted.csv", newline="") as f:
        planted = [(page_number(r["html_a"]), page_number(r["html_b"]), float(r["jaccard5"])) for r in csv.DictReader(f)]

    def hit(least):
        wanted = [(min(a, b), max(a, b)) for a, b, j in planted if j >= least]
        return sum(p in found for p in wanted), len(wanted)

    (got, total), (got_high, total_high) = hit(0.0), hit(0.8)
    print(
        f"datasketch {datasketch.__version__} MinHashLSH (threshold {args.threshold}, {args.perm} perms = "
        f"{lsh.b} bands x {lsh.r} rows, word {args.shingle}-shingles, one process) on {len(minhashes)} pages of "
        f"{args.crawl}: {wall:.1f} s, peak memory {peak:.0f} MB; {len(found)} candidate pairs "
        f"({len(found) / max(total, 1):.2f} per planted pair; {verified} with estimated Jaccard >= {args.threshold}); "
        f"recall {got}/{total} = {got / max(total, 1):.4f} of all planted pairs, "
        f"{got_high}/{total_high} = {got_high / max(total_high, 1):.4f} of those with Jaccard >= 0.8"
    )


if __name__ == "__main__":
    main()

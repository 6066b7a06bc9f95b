#!/usr/bin/env python3
"""The shipped models on pairs of real pages that no one built for twinpage.

The pages are the two extraction test suites in ../shared/data/web-pages (trafilatura's
evaluation, 884 pages of about as many sites, and Readability's real pages of 4 KB or
more). Some of them are copies of each other as the web makes them (an agency story on
two news sites, one press release on two, one article in both suites), and many share a
template (blogs of one WordPress.com theme, sites of one publisher). `twinpage
candidates --text both --threshold 0.1` over all of them found the pairs of
lab/real-pages-truth.csv, each labelled by reading both pages.

Runs `twinpage score` (the cascade, rendering what it needs into OUT/cache) on those
pairs and prints each decision beside its label; then lists the candidate pairs of
today's build that the truth file lacks (label them, and add them), and which labelled
copies `dedupe` would find as candidates (`--text both` at its default threshold).

    python3 lab/real-pages.py [OUT] [TWINPAGE]     (default target/real-pages)

Needs ../shared/data and `cargo build --release`; about 20 seconds.
"""
import csv
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PAGES = os.path.join(HERE, "..", "..", "shared", "data", "web-pages")
MIN_BYTES = 4096  # Readability's fixtures below this are lorem ipsum, as training-data says


def pages():
    """URL -> file of every page of both suites."""
    found, files = {}, set()
    suite = os.path.join(PAGES, "trafilatura-eval")
    for url, entry in json.load(open(os.path.join(suite, "evaldata.json"))).items():
        path = os.path.join(suite, "eval", entry["file"])
        if os.path.exists(path) and path not in files:
            found[url] = path
            files.add(path)
    suite = os.path.join(PAGES, "readability")
    for name in sorted(os.listdir(suite)):
        path = os.path.join(suite, name, "source.html")
        if os.path.exists(path) and os.path.getsize(path) >= MIN_BYTES:
            found[f"https://readability.example/{name}"] = path
    return found


def run(*args):
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)


def main(out="target/real-pages", twinpage="target/release/twinpage"):
    for path, what in [(PAGES, "../shared/data/web-pages"), (twinpage, "cargo build --release")]:
        if not os.path.exists(path):
            sys.exit(f"{path} missing: this needs {what}")
    os.makedirs(out, exist_ok=True)
    files = pages()
    docs = os.path.join(out, "docs.csv")
    with open(docs, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["url", "html"])
        w.writerows(files.items())
    truth = list(csv.DictReader(open(os.path.join(HERE, "real-pages-truth.csv"), encoding="utf-8")))
    pairs = os.path.join(out, "pairs.csv")
    with open(pairs, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["url_a", "url_b", "html_a", "html_b", "label"])
        w.writerows([t["url_a"], t["url_b"], files[t["url_a"]], files[t["url_b"]], t["label"]] for t in truth)
    scored = os.path.join(out, "scored.csv")
    run(twinpage, "score", "--pairs", pairs, "--out", scored, "--cache", os.path.join(out, "cache"))
    report(truth, list(csv.DictReader(open(scored, encoding="utf-8"))))
    labelled = {frozenset((t["url_a"], t["url_b"])): t for t in truth}
    for name, extra in [("wide", ["--threshold", "0.1"]), ("dedupe", [])]:
        path = os.path.join(out, f"candidates-{name}.csv")
        run(twinpage, "candidates", "--docs", docs, "--text", "both", "--no-render", "--out", path, *extra)
        found = {frozenset((r["url_a"], r["url_b"])) for r in csv.DictReader(open(path, encoding="utf-8"))}
        if name == "wide":
            for pair in found - labelled.keys():
                print("unlabelled candidate pair:", " vs ".join(sorted(pair)))
        else:
            copies = [k for k, t in labelled.items() if t["label"] == "1"]
            print(f"copies found as dedupe's candidates: {sum(k in found for k in copies)} of {len(copies)}")


def report(truth, rows):
    right = wrong = review = 0
    for t, r in zip(truth, rows):
        decision = r["decision"]
        if decision == "review":
            review += 1
            mark = "review"
        elif (decision == "duplicate") == (t["label"] == "1"):
            right += 1
            mark = "right"
        else:
            wrong += 1
            mark = "WRONG"
        print(f"{mark:6} label {t['label']} {decision:9} p {r['p_duplicate']} by {r['decided_by']:8} {t['why']}")
    print(f"{len(rows)} pairs: {right} decided right, {wrong} wrong, {review} to review")


if __name__ == "__main__":
    main(*sys.argv[1:])

#!/usr/bin/env python3
"""Recall of a labelled pair file's true duplicate pairs by candidate generation.

    scripts/candidate-recall.py docs PAIRS.csv DOCS.csv
        writes DOCS.csv (url,html with absolute paths): every distinct document of
        PAIRS.csv once, as a corpus for `twinpage candidates`.
    scripts/candidate-recall.py recall PAIRS.csv CANDIDATES.csv
        prints the candidates' count, the duplicate pairs of PAIRS.csv they
        contain (recall) and the distinct pairs they contain.

Documents are matched by absolute path; pairs are unordered.
"""
import csv
import os
import sys


def labelled(pairs_path):
    base = os.path.dirname(os.path.abspath(pairs_path))
    with open(pairs_path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            a = os.path.normpath(os.path.join(base, row["html_a"]))
            b = os.path.normpath(os.path.join(base, row["html_b"]))
            yield row, a, b


def docs(pairs_path, out_path):
    seen = {}
    for row, a, b in labelled(pairs_path):
        seen.setdefault(a, row["url_a"])
        seen.setdefault(b, row["url_b"])
    with open(out_path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["url", "html"])
        for path in sorted(seen):
            w.writerow([seen[path], path])
    print(f"{len(seen)} documents -> {out_path}")


def recall(pairs_path, candidates_path):
    truth = {}
    for row, a, b in labelled(pairs_path):
        if a != b:
            truth[frozenset((a, b))] = row["label"].strip() in ("1", "duplicate", "true")
    base = os.path.dirname(os.path.abspath(candidates_path))
    found = set()
    with open(candidates_path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            a = os.path.normpath(os.path.join(base, row["html_a"]))
            b = os.path.normpath(os.path.join(base, row["html_b"]))
            found.add(frozenset((a, b)))
    positives = {p for p, dup in truth.items() if dup}
    negatives = {p for p, dup in truth.items() if not dup}
    hit = len(positives & found)
    print(
        f"candidates {len(found)}  duplicate pairs found {hit}/{len(positives)} "
        f"(recall {hit / max(len(positives), 1):.4f})  labelled-distinct pairs among them "
        f"{len(negatives & found)}/{len(negatives)}"
    )


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("docs", "recall"):
        sys.exit(__doc__)
    {"docs": docs, "recall": recall}[sys.argv[1]](sys.argv[2], sys.argv[3])

#!/usr/bin/env python3
"""Recall of a labelled pair file's true duplicate pairs by candidate generation.

    lab/candidate-recall.py docs PAIRS.csv DOCS.csv
        writes DOCS.csv (url,html[,rendered] with absolute paths): every distinct
        document of PAIRS.csv once, with its stored render when the pair file names
        one, as a corpus for `twinpage candidates`.
    lab/candidate-recall.py recall PAIRS.csv CANDIDATES.csv
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
    base = os.path.dirname(os.path.abspath(pairs_path))
    seen = {}
    for row, a, b in labelled(pairs_path):
        for path, side in ((a, "a"), (b, "b")):
            rendered = (row.get(f"rendered_{side}") or "").strip()
            rendered = os.path.normpath(os.path.join(base, rendered)) if rendered else ""
            seen.setdefault(path, (row[f"url_{side}"], rendered))
    with open(out_path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["url", "html", "rendered"])
        for path in sorted(seen):
            url, rendered = seen[path]
            w.writerow([url, path, rendered])
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
    # Copies of one page are duplicates of each other even where no row pairs them:
    # the true pairs are those of documents made from one source page (columns
    # source_a, source_b), so a candidate between two unpaired copies is no noise.
    source = {}
    for row, a, b in labelled(pairs_path):
        source.setdefault(a, row.get("source_a"))
        source.setdefault(b, row.get("source_b"))
    if all(source.values()):
        sizes = {}
        for s in source.values():
            sizes[s] = sizes.get(s, 0) + 1
        true_pairs = sum(n * (n - 1) // 2 for n in sizes.values())
        inside = sum(1 for p in found if len({source.get(d) for d in p}) == 1)
        print(
            f"true pairs (copies of one source page) {true_pairs}: {inside} among the "
            f"candidates; {len(found) / max(true_pairs, 1):.2f} candidates per true pair"
        )


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("docs", "recall"):
        sys.exit(__doc__)
    {"docs": docs, "recall": recall}[sys.argv[1]](sys.argv[2], sys.argv[3])

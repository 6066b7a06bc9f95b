#!/usr/bin/env python3
"""A corpus that looks like a crawl, with planted near-copies, for `twinpage candidates`.

    scripts/synthetic-corpus.py OUT_DIR [--docs 100000] [--copies 0.05] [--seed 7] [--chains N]

Writes OUT_DIR/pages/NNNNNNN.html (150-400 words each from a Zipf-distributed vocabulary
of 50,000 words), OUT_DIR/docs.csv (url,html) and OUT_DIR/planted.csv (html_a,html_b,
jaccard5): a share --copies of the documents are copies of an earlier one with 1-3 % of
their words replaced, and jaccard5 is the pair's word 5-shingle Jaccard. Then

    twinpage candidates --docs OUT_DIR/docs.csv --method lsh --out cands.csv
    scripts/synthetic-corpus.py --recall OUT_DIR cands.csv

prints the candidate count and the share of planted pairs found. Standard library only.
"""

import argparse
import csv
import itertools
import os
import random
import sys


def shingles(words, k=5):
    return {tuple(words[i:i + k]) for i in range(max(1, len(words) - k + 1))}


def write(out, n, copies, seed, edits=(0.01, 0.03), chains=0):
    rng = random.Random(seed)
    vocabulary = [f"w{i}" for i in range(50_000)]
    cumulative = list(itertools.accumulate(1.0 / (i + 1) for i in range(len(vocabulary))))
    pages = os.path.join(out, "pages")
    os.makedirs(pages, exist_ok=True)
    texts, planted = [], []
    for i in range(n):
        if i > 0 and rng.random() < copies:
            source = rng.randrange(i)
            words = list(texts[source])
            for _ in range(max(1, int(len(words) * rng.uniform(*edits)))):
                words[rng.randrange(len(words))] = rng.choices(vocabulary, cum_weights=cumulative)[0]
            a, b = shingles(texts[source]), shingles(words)
            planted.append((source, i, len(a & b) / len(a | b)))
        else:
            words = rng.choices(vocabulary, cum_weights=cumulative, k=rng.randint(150, 400))
        texts.append(words)
        with open(os.path.join(pages, f"{i:07}.html"), "w") as f:
            f.write(f"<html><head><title>page {i}</title></head><body><p>{' '.join(words)}</p></body></html>")
    # A story as its page 1, the whole (as a site that copied it all) and its page 2:
    # each page is a duplicate of the whole, not of the other page. Its two pages are on
    # its own site, the whole on the copier's.
    for k in range(chains):
        first, second = (rng.choices(vocabulary, cum_weights=cumulative, k=250) for _ in range(2))
        for j, words in enumerate([first, first + second, second]):
            with open(os.path.join(pages, f"{n + 3 * k + j:07}.html"), "w") as f:
                f.write(f"<html><head><title>story {k}</title></head><body><p>{' '.join(words)}</p></body></html>")
    name = lambda i: os.path.abspath(os.path.join(pages, f"{i:07}.html"))
    with open(os.path.join(out, "docs.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["url", "html"])
        for i in range(n):
            w.writerow([f"https://site{i % 997}.example/{i}", name(i)])
        for k in range(chains):
            urls = [f"https://story{k}.example/1", f"https://copier{k}.example/story{k}",
                    f"https://story{k}.example/2"]
            for j, url in enumerate(urls):
                w.writerow([url, name(n + 3 * k + j)])
    with open(os.path.join(out, "planted.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["html_a", "html_b", "jaccard5"])
        for a, b, j in planted:
            w.writerow([name(a), name(b), f"{j:.3f}"])
    print(f"{n + 3 * chains} documents, {len(planted)} planted pairs in {out}")


def recall(out, candidates):
    with open(os.path.join(out, "planted.csv"), newline="") as f:
        planted = {frozenset((r["html_a"], r["html_b"])) for r in csv.DictReader(f)}
    found = set()
    with open(candidates, newline="") as f:
        for r in csv.DictReader(f):
            found.add(frozenset((os.path.abspath(r["html_a"]), os.path.abspath(r["html_b"]))))
    hit = len(planted & found)
    print(f"{len(found)} candidate pairs, {hit} of {len(planted)} planted pairs "
          f"(recall {hit / max(len(planted), 1):.3f}), {len(found) - hit} others")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("candidates", nargs="?")
    ap.add_argument("--recall", action="store_true", help="measure CANDIDATES against OUT's planted pairs")
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--copies", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--chains", type=int, default=0, help="also write N stories as page 1, "
                    "the whole and page 2 (pairs that chain: 3 documents more each)")
    ap.add_argument("--edits", default="0.01,0.03", help="LO,HI: the share of a copy's words "
                    "replaced, drawn between them (higher: copies of copies drift into chains)")
    args = ap.parse_args()
    if args.recall:
        if not args.candidates:
            sys.exit("--recall needs the candidates file")
        recall(args.out, args.candidates)
    else:
        write(args.out, args.docs, args.copies, args.seed, tuple(map(float, args.edits.split(","))),
              args.chains)


if __name__ == "__main__":
    main()

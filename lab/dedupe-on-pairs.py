#!/usr/bin/env python3
"""How `twinpage dedupe` clusters the documents of a labelled pair file.

Writes the pair file's documents as one docs.csv (url, html, rendered: their stored
renders, so no browser runs), runs `twinpage dedupe` on it, and counts, over the
labelled pairs whose two documents were both read: the duplicates that land in one
cluster (recall) and the distinct pairs joined in one cluster.

    python3 lab/dedupe-on-pairs.py training-data/web/test.csv /tmp/run [TWINPAGE [DEDUPE_ARGS...]]

Arguments after TWINPAGE go to `twinpage dedupe` (`--no-render --model M`, say).
"""
import csv
import os
import subprocess
import sys


def main(pairs, out, twinpage="target/release/twinpage", *dedupe_args):
    base = os.path.dirname(os.path.abspath(pairs))
    os.makedirs(out, exist_ok=True)
    docs, rows = {}, []
    with open(pairs, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            for side in "ab":
                html = os.path.join(base, row["html_" + side])
                rendered = row.get("rendered_" + side) or ""
                docs.setdefault(html, (row["url_" + side], os.path.join(base, rendered) if rendered else ""))
            rows.append((os.path.join(base, row["html_a"]), os.path.join(base, row["html_b"]), row["label"]))
    listing = os.path.join(out, "docs.csv")
    with open(listing, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["url", "html", "rendered"])
        for html, (url, rendered) in docs.items():
            writer.writerow([url, html, rendered])
    run = os.path.join(out, "run")
    subprocess.run([twinpage, "dedupe", listing, "--out", run, *dedupe_args], check=True)
    cluster = {}
    with open(os.path.join(run, "clusters.csv"), newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            cluster[row["html"]] = row["cluster"]
    together = {"1": [0, 0], "0": [0, 0]}
    for a, b, label in rows:
        if a in cluster and b in cluster and label in together:
            together[label][0] += cluster[a] == cluster[b]
            together[label][1] += 1
    dup, dist = together["1"], together["0"]
    print(f"{len(docs)} documents, {len(rows)} labelled pairs")
    print(f"duplicate pairs in one cluster: {dup[0]} of {dup[1]} ({dup[0] / max(dup[1], 1):.3f})")
    print(f"distinct pairs joined: {dist[0]} of {dist[1]} ({dist[0] / max(dist[1], 1):.3f})")


if __name__ == "__main__":
    main(*sys.argv[1:])

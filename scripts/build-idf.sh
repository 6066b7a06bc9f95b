#!/usr/bin/env bash
# Rebuilds the idf table shipped in the binary (crates/twinpage/src/document/idf.tsv) from the real
# pages in ../shared/data/web-pages, leaving out every page whose pairs are in the
# test split of training-data/web (so no statistic of a test page shapes the model).
set -euo pipefail
cd "$(dirname "$0")/.."
pages=../shared/data/web-pages
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$pages" "$work" <<'PY'
import csv, os, sys
pages, work = sys.argv[1], sys.argv[2]
test = set()
for row in csv.DictReader(open("training-data/web/test.csv")):
    test.update([row["source_a"], row["source_b"]])
kept = 0
for folder in sorted(os.listdir(f"{pages}/readability")):
    src = f"{pages}/readability/{folder}/source.html"
    if os.path.exists(src) and f"readability/{folder}" not in test:
        os.symlink(os.path.abspath(src), f"{work}/readability-{folder}.html"); kept += 1
for name in sorted(os.listdir(f"{pages}/trafilatura-eval/eval")):
    if f"trafilatura/{name}" not in test and name.endswith(".html"):
        os.symlink(os.path.abspath(f"{pages}/trafilatura-eval/eval/{name}"), f"{work}/trafilatura-{name}"); kept += 1
print(f"{kept} pages (test-split pages left out)", file=sys.stderr)
PY
cargo run --release -- idf --pages "$work" --out crates/twinpage/src/document/idf.tsv

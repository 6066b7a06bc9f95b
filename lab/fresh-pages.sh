#!/usr/bin/env bash
# Judges the shipped models on pages the training data never used: the generator
# (training-data/generate.py --fresh-beside) builds a second set of web pairs from the
# real pages that training-data/web leaves out, and from none of their sites, with
# pages up to 100 KB of gzip (the training set stops at 20 KB) and another seed; its
# documents are rendered, then both shipped models judge every pair (`evaluate --by
# kind`) and `score` runs its default cascade on them. Needs ../shared/data and
# `cargo build --release`; about 10 minutes on 2 cores, most of it rendering.
#
#     lab/fresh-pages.sh [OUT]        (default target/fresh-web)
set -euo pipefail
cd "$(dirname "$0")/.."
twinpage=target/release/twinpage
[ -x "$twinpage" ] || { echo "$twinpage missing: run cargo build --release first" >&2; exit 1; }
out=${1:-target/fresh-web}
python3 training-data/generate.py --quiet --seed 8 --fresh-beside training-data/web \
    --max-gzip 100000 --out "$out"
for split in train test; do
    "$twinpage" render --pairs "$out/$split.csv" --store "$out/rendered" --out "$out/$split.csv"
done
pairs=(--pairs "$out/train.csv" --pairs "$out/test.csv")
echo "== fetched + rendered model (models/default.json)"
"$twinpage" evaluate "${pairs[@]}" --by kind
echo "== fetched-only model (models/fetched-only.json)"
"$twinpage" evaluate "${pairs[@]}" --by kind --model models/fetched-only.json --no-render
echo "== the cascade of score --render auto"
for split in train test; do
    "$twinpage" score --pairs "$out/$split.csv" --out "$out/$split.scored.csv"
done
python3 - "$out/train.scored.csv" "$out/test.scored.csv" <<'PY'
import csv, sys
rows = [r for path in sys.argv[1:] for r in csv.DictReader(open(path, encoding="utf-8"))]
decided = [r for r in rows if r["decision"] != "review"]
wrong = [r for r in decided if (r["decision"] == "duplicate") != (r["label"] == "1")]
print(f"{len(rows)} pairs: {len(decided)} decided automatically, {len(decided) - len(wrong)} of them right; "
      f"{len(rows) - len(decided)} to review")
for r in wrong:
    print(f"  wrong: {r['kind']} (label {r['label']}) p {r['p_duplicate']} by {r['decided_by']}: "
          f"{r['url_a']} vs {r['url_b']}")
PY

#!/usr/bin/env bash
# Renders every document of the training data in Chromium and stores the renders
# beside it (training-data/*/rendered/), filling the pair files' rendered_a,
# rendered_b columns, so that training and the quality tests need no browser and
# give the same vectors on every machine. Run after generate.py / convert_er.py:
#
#   scripts/render-training-data.sh web/train.csv web/test.csv er/train.csv er/valid.csv
#
# Renders already stored (or in the render cache) are reused, so after a
# regeneration only new documents are rendered; renders no pair file of the folder
# names any more are removed. All four files from scratch (15,006 documents, none in
# the cache): 13 min 43 s on 2 cores; the 4,229 web pages alone 6 min 7 s (11.5 per second).
set -euo pipefail
cd "$(dirname "$0")/.."
twinpage=${TWINPAGE:-./target/release/twinpage}
cache=${TWINPAGE_RENDER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/twinpage/render}
for set in "$@"; do
    folder=training-data/${set%/*}
    "$twinpage" render --pairs "training-data/$set" --cache "$cache" \
        --store "$folder/rendered" --out "training-data/$set"
done
for folder in $(printf 'training-data/%s\n' "${@%/*}" | sort -u); do
    python3 - "$folder" <<'PY'
import csv, glob, os, sys
folder = sys.argv[1]
named = set()
for path in glob.glob(os.path.join(folder, '*.csv')):
    with open(path, encoding='utf-8', newline='') as f:
        for row in csv.DictReader(f):
            named.update(row.get(k) for k in ('rendered_a', 'rendered_b') if row.get(k))
gone = [n for n in os.listdir(os.path.join(folder, 'rendered')) if 'rendered/' + n not in named]
for n in gone:
    os.remove(os.path.join(folder, 'rendered', n))
print('%s: removed %d render(s) no pair file names' % (folder, len(gone)))
PY
done

#!/usr/bin/env bash
# Renders every document of the training data in Chromium and stores the renders
# beside it, one pack per pair file (training-data/web/rendered/test.tar.zst for
# web/test.csv), filling the pair files' rendered_a, rendered_b columns, so that
# training and the quality tests need no browser and give the same vectors on every
# machine. Run after generate.py / convert_er.py:
#
#   scripts/render-training-data.sh web/train.csv web/test.csv er/train.csv er/valid.csv
#
# Renders already in the pack (or in the render cache) are reused, so after a
# regeneration only new documents are rendered; a pack holds the renders of its
# pair file only, and is left untouched when they did not change. All four files
# from scratch (15,006 documents, none in the cache): 13 min 43 s on 2 cores; the
# 4,229 web pages alone 6 min 7 s (11.5 per second). Writing the packs from stored
# renders: 66 s. The four packs take 8.4 MB (the renders as gzipped files took
# 64 MB), which is what a re-render of every page adds to the repository's history.
set -euo pipefail
cd "$(dirname "$0")/.."
twinpage=${TWINPAGE:-./target/release/twinpage}
cache=${TWINPAGE_RENDER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/twinpage/render}
for set in "$@"; do
    folder=training-data/${set%/*}
    split=$(basename "$set" .csv)
    "$twinpage" render --pairs "training-data/$set" --cache "$cache" \
        --store "$folder/rendered/$split.tar.zst" --out "training-data/$set"
done

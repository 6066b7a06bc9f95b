#!/usr/bin/env bash
# Renders every document of the training data in Chromium and stores the renders
# beside it (training-data/*/rendered/), filling the pair files' rendered_a,
# rendered_b columns, so that training and the quality tests need no browser and
# give the same vectors on every machine. Run after generate.py / convert_er.py.
# Takes tens of minutes on 2 cores; renders already in the cache are reused.
set -euo pipefail
cd "$(dirname "$0")/.."
twinpage=${TWINPAGE:-./target/release/twinpage}
cache=${TWINPAGE_RENDER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/twinpage/render}
for set in "$@"; do
    folder=training-data/${set%/*}
    "$twinpage" render --pairs "training-data/$set" --cache "$cache" \
        --store "$folder/rendered" --out "training-data/$set"
done

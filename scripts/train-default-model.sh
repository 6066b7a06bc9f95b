#!/usr/bin/env bash
# Rebuilds the shipped models from the shipped training data (seeded, reproducible):
#   models/default.json       fetched- and rendered-body signals (the pair files carry
#                             their stored renders, so no browser runs here)
#   models/fetched-only.json  fetched-body signals only, for `--no-render`
# Training-data generation (needs ../shared/data) and rendering are documented in
# training-data/README.md; this script uses the files as they are.
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=(--pairs training-data/web/train.csv --pairs training-data/er/train.csv)
cargo run --release -- train "${pairs[@]}" --seed 7 --precision-target 0.95 --out models/default.json
cargo run --release -- train "${pairs[@]}" --seed 7 --precision-target 0.95 --no-render --out models/fetched-only.json

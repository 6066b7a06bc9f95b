#!/usr/bin/env bash
# Rebuilds models/default.json from the shipped training data (seeded, reproducible).
# Training-data generation itself (needs ../shared/data) is documented in
# training-data/README.md; this script uses the generated files as they are.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --release -- train \
  --pairs training-data/web/train.csv \
  --pairs training-data/er/train.csv \
  --seed 7 \
  --out models/default.json

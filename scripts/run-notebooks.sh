#!/usr/bin/env bash
# Executes every notebook top to bottom with the twinpage Python package (built from
# this clone), in a virtual environment with the pinned stack of
# notebooks/requirements.txt; a notebook that raises fails the run. Executed copies go
# to target/notebooks-run; with --update the notebooks themselves are rewritten with
# their new outputs (to commit).
#
#     scripts/run-notebooks.sh [--update]
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/notebooks-venv
if [ ! -x "$venv/bin/jupyter" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r notebooks/requirements.txt
fi
[ -x target/release/twinpage ] || cargo build --release
# The notebooks call the Python package, built from this clone (maturin; fast once
# target/release holds the workspace's crates).
"$venv/bin/pip" install --quiet --disable-pip-version-check --force-reinstall --no-deps ./python
# Notebooks run from their own folder (their paths are relative to it).
if [ "${1:-}" = "--update" ]; then
    where=(--inplace)
else
    where=(--output-dir ../target/notebooks-run)
fi
for notebook in notebooks/*.ipynb; do
    start=$SECONDS
    (cd notebooks && "../$venv/bin/jupyter" nbconvert --to notebook --execute \
        --ExecutePreprocessor.timeout=1200 "${where[@]}" \
        "$(basename "$notebook")" --log-level=WARN)
    echo "$notebook: ran in $((SECONDS - start)) s"
done

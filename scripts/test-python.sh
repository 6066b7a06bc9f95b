#!/usr/bin/env bash
# Builds the Python package from this clone into a virtual environment, as a user
# would (`pip install ./python`: maturin builds the Rust extension), and runs its
# pytest suite, which compares it with the release binary.
#
#     scripts/test-python.sh [PYTEST ARGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/python-venv
if [ ! -x "$venv/bin/pytest" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "pandas>=1.5" "pyarrow>=10" "pytest>=7"
fi
[ -x target/release/twinpage ] || cargo build --release
"$venv/bin/pip" install --quiet --disable-pip-version-check --force-reinstall --no-deps ./python
# From the repository root, so `import twinpage` is the installed package, not python/twinpage.
"$venv/bin/pytest" -q -p no:cacheprovider python/tests "$@"

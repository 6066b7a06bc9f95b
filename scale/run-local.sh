#!/usr/bin/env bash
# The Spark driver (scale/driver.py) in Spark local mode, on this machine's cores:
#
#   scale/run-local.sh candidates --docs docs.csv --out pairs.csv [--threshold J ...]
#   scale/run-local.sh pipeline --docs docs.csv --out DIR [--model M --render WHEN ...]
#
# Installs what it needs the first time: Java from Debian when `java` is missing,
# a pinned pyspark from PyPI in target/scale-venv (reused), and target/release/twinpage
# (built with cargo when stale; TWINPAGE_BIN=PATH uses that binary instead).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
pyspark_version=4.0.1
venv="$root/target/scale-venv"

say() { echo "run-local.sh: $*" >&2; }

# Runs started together (the tests) take turns installing: only the first installs.
mkdir -p "$root/target"
exec 9>"$root/target/scale-venv.lock"
flock 9
if ! command -v java >/dev/null; then
    say "installing Java (openjdk-17-jre-headless) with apt-get"
    if [ "$(id -u)" != 0 ]; then
        say "error: java is missing and this is not root: install openjdk-17-jre-headless (Java 17+)"
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq openjdk-17-jre-headless >/dev/null
fi

# The venv counts as installed only once pyspark imports at the pinned version, so an
# interrupted install is started again rather than half used.
if ! "$venv/bin/python" -c "import pyspark, sys; sys.exit(pyspark.__version__ != '$pyspark_version')" 2>/dev/null; then
    say "installing pyspark $pyspark_version in $venv (once; about 400 MB)"
    rm -rf "$venv"
    if ! python3 -m venv "$venv" 2>/dev/null; then
        # Debian's python3 needs python3-venv for `-m venv`.
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
        python3 -m venv "$venv"
    fi
    "$venv/bin/pip" install --quiet --disable-pip-version-check --no-cache-dir "pyspark==$pyspark_version"
fi
flock -u 9

binary="${TWINPAGE_BIN:-}"
if [ -z "$binary" ]; then
    (cd "$root" && cargo build --release --quiet)
    binary="$root/target/release/twinpage"
fi

# Executors run their Python from the same venv; the driver's own messages and the
# binary's go to stderr, Spark's are kept to errors.
# Local mode needs no network address: this silences the warning about the host name.
export SPARK_LOCAL_IP="${SPARK_LOCAL_IP:-127.0.0.1}"
export PYSPARK_PYTHON="$venv/bin/python" PYSPARK_DRIVER_PYTHON="$venv/bin/python"
exec "$venv/bin/python" "$root/scale/driver.py" --binary "$binary" "$@"

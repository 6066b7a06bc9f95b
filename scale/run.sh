#!/usr/bin/env bash
# The Spark driver (scale/driver.py): in Spark local mode on this machine's cores, or
# submitted to a cluster's master with --master:
#
#   scale/run.sh [--master spark://HOST:7077] dedupe INPUT... --out DIR [--no-render ...]
#   scale/run.sh [--master URL] candidates --docs docs.csv --out pairs.csv [--threshold J ...]
#
# Installs what it needs the first time: Java from Debian when `java` is missing,
# a pinned pyspark from PyPI in target/scale-venv (reused), and target/release/twinpage
# (built with cargo when stale; TWINPAGE_BIN=PATH uses that binary instead).
set -euo pipefail
# shellcheck source=scale/setup.sh
source "$(dirname "$0")/setup.sh"

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

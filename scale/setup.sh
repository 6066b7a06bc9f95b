# Sourced by the scale/ scripts: installs what Spark needs the first time, as a new
# machine would, and sets `root` (the repository), `venv` (target/scale-venv, with the
# pinned pyspark) and `spark_home` (that pyspark's Spark: bin/spark-class, jars/).
#
# Java comes from Debian (openjdk-17-jre-headless) when `java` is missing; pyspark
# from PyPI. Scripts started together (the tests) take turns: only the first installs.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pyspark_version=4.0.1
venv="$root/target/scale-venv"

say() { echo "$(basename "$0"): $*" >&2; }

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
spark_home="$("$venv/bin/python" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')"

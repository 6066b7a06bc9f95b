#!/usr/bin/env bash
# Regenerates the WARC / WACZ test fixtures in tests/crawls/ from scratch.
#
#   tests/crawls/make.sh
#
# Needs: python3 (with venv), wget (Debian's), and PyPI for warcio and wacz.
# Set CRAWL_VENV=/some/dir to reuse a venv between runs (default: a fresh one
# in a temporary folder). Serves tests/crawls/site/ on 127.0.0.1 only, on a
# free port, and always stops that server on exit. See README.md.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WARCIO_VERSION=1.8.1
WACZ_VERSION=0.6.0
URLS=(
  http://twinpage.test/article.html
  http://twinpage.test/article-copy.html
  http://twinpage.test/other.html
  http://twinpage.test/app.html
  http://twinpage.test/old-article
  http://twinpage.test/gone.html
  http://twinpage.test/chunked.html
  http://twinpage.test/gzip.html
  http://twinpage.test/charset-header.html
  http://twinpage.test/charset-meta.html
)
OUTPUTS=(wget.warc.gz wget-plain.warc warcio.warc.gz warcio.warc warcio-revisit.warc.gz
         crawl.wacz pages.jsonl pages-bad.jsonl truncated.warc.gz corrupt.warc versions.txt)

export LC_ALL=C TZ=UTC
WORK="$(mktemp -d "${TMPDIR:-/tmp}/twinpage-crawls.XXXXXX")"
SERVER_PID=""

stop_server() {
  if [ -n "$SERVER_PID" ]; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
  fi
}
cleanup() {
  stop_server
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM   # the EXIT trap then stops the server

# -- tools ------------------------------------------------------------------
VENV="${CRAWL_VENV:-$WORK/venv}"
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check \
  "warcio==$WARCIO_VERSION" "wacz==$WACZ_VERSION"
PY="$VENV/bin/python"
command -v wget >/dev/null || { echo "make.sh: wget is missing (apt-get install wget)" >&2; exit 1; }

# -- clean outputs (site/, scripts and README stay) --------------------------
cd "$HERE"
rm -f "${OUTPUTS[@]}"
rm -rf expected
mkdir expected

# -- server -----------------------------------------------------------------
python3 "$HERE/server.py" --port-file "$WORK/port" 2>"$WORK/server.log" &
SERVER_PID=$!
for _ in $(seq 1 100); do
  [ -s "$WORK/port" ] && break
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/server.log" >&2; exit 1; }
  sleep 0.1
done
PORT="$(cat "$WORK/port")"
echo "make.sh: fixture server on 127.0.0.1:$PORT"

# -- wget -------------------------------------------------------------------
# wget is pointed at the fixture server as its HTTP proxy, so the recorded
# URLs are http://twinpage.test/... whatever port the server got.
run_wget() {
  local name="$1"; shift
  local rc=0
  (cd "$WORK" && env -u no_proxy -u NO_PROXY wget --no-config --no-verbose \
      -e robots=off -e use_proxy=on -e "http_proxy=http://127.0.0.1:$PORT/" \
      --compression=auto --page-requisites --directory-prefix="files-$name" \
      --warc-file="$name" --warc-tempdir=. "$@" "${URLS[@]}") || rc=$?
  # 8 = "server issued an error response": the 404 for gone.html, expected.
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 8 ]; then
    echo "make.sh: wget failed with exit code $rc" >&2
    exit 1
  fi
}
run_wget wget
run_wget wget-plain --no-warc-compression
mv "$WORK/wget.warc.gz" "$WORK/wget-plain.warc" "$HERE/"

# -- warcio -----------------------------------------------------------------
"$PY" "$HERE/fixtures.py" warcio --port "$PORT" --out "$HERE"
stop_server

# -- wacz -------------------------------------------------------------------
(cd "$WORK" && cp "$HERE/wget.warc.gz" . && "$VENV/bin/wacz" create -o crawl.wacz --detect-pages wget.warc.gz)
mv "$WORK/crawl.wacz" "$HERE/"

# -- pages lists, broken inputs, expected indexes, checks --------------------
"$PY" "$HERE/fixtures.py" pages --out "$HERE"
"$PY" "$HERE/fixtures.py" break --out "$HERE"
"$PY" "$HERE/fixtures.py" expected --out "$HERE"
"$PY" "$HERE/fixtures.py" check --out "$HERE"

for f in wget.warc.gz warcio.warc.gz warcio-revisit.warc.gz; do gzip -t "$f"; done
if gzip -t truncated.warc.gz 2>/dev/null; then
  echo "make.sh: truncated.warc.gz is unexpectedly a whole gzip file" >&2; exit 1
fi
for f in wget.warc.gz wget-plain.warc warcio.warc.gz warcio.warc warcio-revisit.warc.gz; do
  "$VENV/bin/warcio" check "$f"
done
"$PY" -m zipfile -t crawl.wacz >/dev/null

{
  echo "wget: $(wget --version | head -1)"
  echo "warcio: $("$PY" -c 'from importlib.metadata import version; print(version("warcio"))')"
  echo "wacz: $("$PY" -c 'from importlib.metadata import version; print(version("wacz"))')"
  echo "python: $("$PY" -c 'import sys; print(sys.version.split()[0])')"
} > versions.txt

total=$(find . -type f -printf '%s\n' | awk '{ n += $1 } END { print n }')
echo "make.sh: done, tests/crawls holds $total bytes"
if [ "$total" -gt 300000 ]; then
  echo "make.sh: tests/crawls is over 300 KB" >&2
  exit 1
fi

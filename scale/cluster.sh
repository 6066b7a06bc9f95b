#!/usr/bin/env bash
# A Spark standalone cluster on this machine: one master and two workers, each a JVM
# of its own on 127.0.0.1, started with the pyspark package's own `spark-class`.
#
#   scale/cluster.sh up       starts it (if it is not up) and prints the master's URL
#   scale/cluster.sh status   prints the master's URL and its live workers, or fails
#   scale/cluster.sh down     stops every JVM it started, and checks that none is left
#
# Then: scale/run.sh --master spark://127.0.0.1:7077 dedupe docs.csv --out DIR ...
# SPARK_MASTER_PORT (7077), SPARK_MASTER_WEBUI_PORT (8080) move the master; each worker
# takes one core and TWINPAGE_SPARK_WORKER_MEMORY (2g). State and logs are kept in
# target/spark-cluster/ (TWINPAGE_SPARK_CLUSTER for another folder).
set -euo pipefail
# shellcheck source=scale/setup.sh
source "$(dirname "$0")/setup.sh"

port="${SPARK_MASTER_PORT:-7077}"
ui="${SPARK_MASTER_WEBUI_PORT:-8080}"
state="${TWINPAGE_SPARK_CLUSTER:-$root/target/spark-cluster}"
master="spark://127.0.0.1:$port"
workers=2
export SPARK_HOME="$spark_home" SPARK_LOCAL_IP=127.0.0.1
# The executors the workers start run Python from the same venv as the driver.
export PYSPARK_PYTHON="$venv/bin/python"

# The master's view of itself (its web UI's JSON), or nothing when it does not answer.
master_json() {
    "$venv/bin/python" - "$ui" <<'PY' 2>/dev/null || true
import json, sys, urllib.request
with urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/json/", timeout=2) as r:
    state = json.load(r)
alive = sum(w.get("state") == "ALIVE" for w in state.get("workers", []))
print(state.get("url", ""), alive)
PY
}

alive_workers() { master_json | awk '{print $2}'; }

# Starts `spark-class CLASS ARGS...` as its own process group, its pid in NAME.pid.
start() {
    local name="$1"
    shift
    setsid "$spark_home/bin/spark-class" "$@" >"$state/$name.log" 2>&1 < /dev/null &
    echo $! >"$state/$name.pid"
}

# Waits up to 90 s for `check` to print `want`.
wait_for() {
    local what="$1" want="$2" check="$3"
    for _ in $(seq 180); do
        [ "$($check)" = "$want" ] && return 0
        sleep 0.5
    done
    say "error: $what did not come up in 90 s; its log is in $state"
    exit 1
}

running() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

up() {
    mkdir -p "$state"
    if running "$state/master.pid"; then
        say "already up"
    else
        start master org.apache.spark.deploy.master.Master \
            --host 127.0.0.1 --port "$port" --webui-port "$ui"
        wait_for "the master" "$master 0" master_json
        for i in $(seq "$workers"); do
            mkdir -p "$state/worker$i"
            start "worker$i" org.apache.spark.deploy.worker.Worker \
                --host 127.0.0.1 --cores 1 --memory "${TWINPAGE_SPARK_WORKER_MEMORY:-2g}" \
                --webui-port "$((ui + i))" --work-dir "$state/worker$i" "$master"
        done
    fi
    wait_for "$workers workers" "$workers" alive_workers
    echo "$master"
}

status() {
    local seen
    seen="$(master_json)"
    if [ -z "$seen" ]; then
        say "down (no master answers on 127.0.0.1:$ui)"
        exit 1
    fi
    echo "$seen" | awk '{print $1 " with " $2 " live worker(s)"}'
}

# Stops each JVM's process group: TERM, then KILL after 15 s; fails if one is left.
down() {
    local pids=() pid
    for file in "$state"/worker*.pid "$state"/master.pid; do
        [ -f "$file" ] || continue
        pid="$(cat "$file")"
        kill -TERM -- "-$pid" 2>/dev/null || true
        pids+=("$pid")
        rm -f "$file"
    done
    for pid in "${pids[@]}"; do
        for _ in $(seq 30); do
            kill -0 -- "-$pid" 2>/dev/null || break
            sleep 0.5
        done
        kill -KILL -- "-$pid" 2>/dev/null || true
    done
    sleep 0.5
    for pid in "${pids[@]}"; do
        if kill -0 -- "-$pid" 2>/dev/null; then
            say "error: process group $pid is still running"
            exit 1
        fi
    done
    say "down (${#pids[@]} JVM(s) stopped)"
}

case "${1:-}" in
    up) up ;;
    status) status ;;
    down) down ;;
    *)
        say "usage: scale/cluster.sh up|status|down"
        exit 2
        ;;
esac

#!/usr/bin/env bash
# Fuzzes the entry points that read outside input, for SECONDS each (default 600),
# one target at a time, and prints each target's executions and findings:
#   pair_file  the pair-file reader: rows, or an error naming the file and a line of it
#   page       the decoder and attribute extraction of a fetched body: finite shares
#   model      the model loader, and judging every vector (NaN too) into [0, 1]
# Exit 1 when a target found a crash, timeout or out-of-memory input (saved under
# fuzz/artifacts/TARGET/). Needs the nightly toolchain and cargo-fuzz
# (`cargo install cargo-fuzz`). Seeds are fuzz/seeds/TARGET (committed, from
# training-data); inputs found along the way stay in fuzz/corpus/TARGET (not committed)
# so a later run starts from them. Not part of CI: `cargo test` never builds fuzz/.
set -euo pipefail

seconds=${1:-600}
if ! [[ $seconds =~ ^[1-9][0-9]*$ ]]; then
    echo "usage: scripts/fuzz.sh [SECONDS per target, default 600]" >&2
    exit 2
fi
cd "$(dirname "$0")/../fuzz"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
touch "$scratch/start"

cargo +nightly fuzz build -O

found=0
for target in pair_file page model; do
    mkdir -p "corpus/$target"
    log="$scratch/$target.log"
    started=$(date +%s)
    # An input that takes 10 s, or 2 GB, is a finding, not a slow input. The targets
    # write each input to a file under TMPDIR, removed with the scratch folder.
    TMPDIR="$scratch" cargo +nightly fuzz run -O "$target" "corpus/$target" "seeds/$target" -- \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -dict="dicts/$target.dict" -print_final_stats=1 >"$log" 2>&1 || true
    took=$(($(date +%s) - started))
    executions=$(awk '/stat::number_of_executed_units/ {print $2}' "$log")
    corpus=$(find "corpus/$target" -type f | wc -l)
    findings=$(find "artifacts/$target" -type f -newer "$scratch/start" 2>/dev/null || true)
    echo "$target: ${executions:-?} executions in ${took} s, corpus ${corpus} inputs, findings: ${findings:-none}"
    if [[ -n $findings ]]; then
        found=1
        grep -m1 -A12 -E '^(==[0-9]+==ERROR|thread .* panicked|ALARM|SUMMARY)' "$log" || tail -20 "$log"
    fi
done
exit "$found"

#!/usr/bin/env bash
# Fuzzes the entry points that read untrusted input, each for SECONDS (default 600):
#   pair_file  the pair-file reader (twinpage::document::PairFile::read)
#   page       the decoder and attribute extraction of a fetched body
#   model      the model loader, and judging with what it loaded
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`). Seeds are in
# fuzz/seeds/<target>; what libFuzzer finds goes to fuzz/corpus/<target>, crashes to
# fuzz/artifacts/<target>. Prints each target's executions and whether it crashed.
# Not part of CI: `cargo test` never builds the fuzz crate.
set -uo pipefail
cd "$(dirname "$0")/../fuzz"
seconds=${1:-600}
status=0
for target in pair_file page model; do
    mkdir -p "corpus/$target"
    log=$(mktemp)
    cargo +nightly fuzz run -O "$target" "corpus/$target" "seeds/$target" -- \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 >"$log" 2>&1
    code=$?
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
    if [ "$code" -eq 0 ]; then verdict="no crash"; else verdict="CRASH (exit $code; see fuzz/artifacts/$target)"; status=1; fi
    echo "$target: ${runs:-?} executions in ${seconds} s: $verdict"
    [ "$code" -eq 0 ] || tail -40 "$log"
    rm -f "$log"
done
exit $status

#!/usr/bin/env bash
# Runs every fuzz target in fuzz/ (libFuzzer, through libfuzzer-sys) for a bounded
# time, from the seed corpora checked in under fuzz/corpus/, and prints the
# executions of each. A crash, a panic or a hang fails the run and leaves the input
# in fuzz/artifacts/TARGET/.
#
#   scripts/fuzz.sh                      # each target for 60 s
#   FUZZ_SECONDS=3600 scripts/fuzz.sh    # a longer run
#   scripts/fuzz.sh mcp_stdio            # one target
#
# The targets are a package of the workspace, built like the tests (the dev profile,
# the same dependencies: after scripts/test.sh, only our own crates compile) with
# libFuzzer's coverage instrumentation on the library and the targets alone
# (scripts/fuzz-rustc.sh as RUSTC_WORKSPACE_WRAPPER). Stable Rust; no cargo-fuzz.
# Needs the guests built (scripts/build-guests.sh): mcp_stdio serves a real component.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
seconds=${FUZZ_SECONDS:-60}
[ -f target/test-guests/hostile.wasm ] || scripts/build-guests.sh

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(argument_text binder extract manifest mcp_stdio openapi schema_binder)
build_started=$(date +%s)
RUSTC_WORKSPACE_WRAPPER=$root/scripts/fuzz-rustc.sh cargo build --quiet --locked -p toolhost-fuzz --bins
echo "fuzz: the targets built in $(( $(date +%s) - build_started )) s"

for target in "${targets[@]}"; do
    corpus=$root/target/fuzz-corpus/$target
    artifacts=$root/fuzz/artifacts/$target
    mkdir -p "$corpus" "$artifacts"
    cp -n fuzz/corpus/"$target"/* "$corpus"/
    log=$(mktemp)
    if ! target/debug/"$target" "$corpus" -artifact_prefix="$artifacts/" -max_total_time="$seconds" \
        -timeout=30 -rss_limit_mb=4096 -max_len=65536 >"$log" 2>&1; then
        grep -E "panicked|thread '|ERROR|SUMMARY|Test unit written" "$log" | head -n 20
        tail -n 5 "$log"
        echo "fuzz: $target failed; the input is in fuzz/artifacts/$target/" >&2
        exit 1
    fi
    runs=$(grep -oE 'Done [0-9]+ runs in [0-9]+ second' "$log" | tail -n 1)
    echo "fuzz: $target: ${runs:-no runs reported} ($(ls "$corpus" | wc -l) inputs in the corpus)"
    rm -f "$log"
done

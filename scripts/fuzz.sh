#!/usr/bin/env bash
# Runs every fuzz target in fuzz/ (cargo-fuzz, libFuzzer) for a bounded time, from the
# seed corpora checked in under fuzz/corpus/, and prints the executions of each. A
# crash, a panic or a hang fails the run and leaves the input in fuzz/artifacts/.
#
#   scripts/fuzz.sh                      # each target for 60 s (as CI does)
#   FUZZ_SECONDS=3600 scripts/fuzz.sh    # a longer run
#   scripts/fuzz.sh mcp_stdio            # one target
#
# Needs the guests built (scripts/build-guests.sh): mcp_stdio serves a real component.
# Installs cargo-fuzz and the nightly toolchain it needs when they are missing.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
seconds=${FUZZ_SECONDS:-60}
cargo_fuzz_version=0.13.2

rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
if ! cargo fuzz --version 2>/dev/null | grep -q "$cargo_fuzz_version"; then
    echo "fuzz: installing cargo-fuzz $cargo_fuzz_version" >&2
    cargo install --locked --quiet cargo-fuzz --version "$cargo_fuzz_version"
fi
[ -f target/test-guests/hostile.wasm ] || scripts/build-guests.sh

# One target folder for everything (the fuzz build's instrumentation makes its own
# artifacts there, beside the others). No sanitizer: the code is safe Rust, and
# libFuzzer still catches panics, aborts, hangs (-timeout) and memory blow-ups.
export CARGO_TARGET_DIR=$root/target/fuzz
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(argument_text binder extract manifest mcp_stdio schema_binder)
build_started=$(date +%s)
(cd fuzz && cargo +nightly fuzz build --sanitizer none)
echo "fuzz: the targets built in $(( $(date +%s) - build_started )) s"

for target in "${targets[@]}"; do
    corpus=$root/target/fuzz-corpus/$target
    mkdir -p "$corpus"
    cp -n fuzz/corpus/"$target"/* "$corpus"/
    log=$(mktemp)
    if ! (cd fuzz && cargo +nightly fuzz run --sanitizer none "$target" "$corpus" -- \
        -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 -max_len=65536) >"$log" 2>&1; then
        grep -E "panicked|thread '|ERROR|SUMMARY|Test unit written" "$log" | head -n 20
        tail -n 5 "$log"
        echo "fuzz: $target failed; the input is in fuzz/artifacts/$target/" >&2
        exit 1
    fi
    runs=$(grep -oE 'Done [0-9]+ runs in [0-9]+ second' "$log" | tail -n 1)
    echo "fuzz: $target: ${runs:-no runs reported} ($(ls "$corpus" | wc -l) inputs in the corpus)"
    rm -f "$log"
done

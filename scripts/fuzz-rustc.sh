#!/usr/bin/env bash
# The RUSTC_WORKSPACE_WRAPPER of the fuzz build (scripts/fuzz.sh): compiles the
# workspace's own crates in that build (the library and the fuzz targets) with
# libFuzzer's coverage instrumentation (SanitizerCoverage: 8-bit counters, the table
# of program counters, compared values), and `--cfg fuzzing`. The dependencies are
# not instrumented, so they are the test build's, already compiled: the fuzzer is
# guided by coverage of our own code, which is what it is there to exercise. These
# are stable codegen options; no sanitizer is asked for (the code is safe Rust, and
# libFuzzer still catches panics, aborts, hangs and memory blow-ups).
set -euo pipefail
rustc=$1
shift
# A build script runs at build time, without libFuzzer: not instrumented.
for argument in "$@"; do
    [ "$argument" = build_script_build ] && exec "$rustc" "$@"
done
exec "$rustc" "$@" \
    -Cpasses=sancov-module \
    -Cllvm-args=-sanitizer-coverage-level=4 \
    -Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
    -Cllvm-args=-sanitizer-coverage-pc-table \
    -Cllvm-args=-sanitizer-coverage-trace-compares \
    -Copt-level=1 \
    --cfg fuzzing

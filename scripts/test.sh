#!/usr/bin/env bash
# Runs every test: builds the guests (example tools and test guests) into
# components, then runs the workspace's tests against them through real wasmtime.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
scripts/build-guests.sh
# Build the tests (and with them the `toolhost` binary, with the same features, so
# nothing is compiled twice), then compile the example tools into the tests' cache
# once, before the test binaries start: otherwise several of them compile the large
# Python and JavaScript components at the same time.
cargo test --workspace --locked --no-run "$@"
TOOLHOST_CACHE_DIR=target/test-cache target/debug/toolhost list --plugins target/plugins >/dev/null
cargo test --workspace --locked "$@"

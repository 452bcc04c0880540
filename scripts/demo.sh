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

# Tools from a registry: Debian's docker-registry on loopback; the calculator pushed
# signed with a new key, pulled into an empty plugin folder only because the key
# verifies it, locked by digest, listed with who signed it, and called.
source scripts/need-package.sh
need_package /usr/bin/docker-registry docker-registry "the demo's registry part" docker-registry
if [ -x /usr/bin/docker-registry ]; then
    echo
    echo "== tools from a registry"
    work=$root/target/demo-registry
    rm -rf "$work" && mkdir -p "$work"
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    printf 'version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: %s\nhttp:\n  addr: 127.0.0.1:%s\n' \
        "$work/data" "$port" >"$work/config.yml"
    /usr/bin/docker-registry serve "$work/config.yml" >/dev/null 2>&1 &
    registry_pid=$!
    trap 'kill $registry_pid 2>/dev/null' EXIT
    for _ in $(seq 100); do (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
    toolhost=$root/target/debug/toolhost
    export COSIGN_PASSWORD=demo DOCKER_CONFIG=$work
    reference=127.0.0.1:$port/demo/calculator:1.0.0
    (set -x
     "$toolhost" generate-key-pair --output-key-prefix "$work/author"
     "$toolhost" push target/plugins/calculator.wasm "$reference" --sign "$work/author.key"
     "$toolhost" pull "$reference" --plugins "$work/plugins" --key "$work/author.pub"
     "$toolhost" list --plugins "$work/plugins" | tail -n 2
     "$toolhost" call --plugins "$work/plugins" gcd '{"a": 84, "b": 36}')
fi

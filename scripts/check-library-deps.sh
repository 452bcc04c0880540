#!/usr/bin/env bash
# Checks that the library, built with its default features, carries none of its
# faces' dependencies: the command's (clap, indicatif, tracing-subscriber, anyhow),
# the MCP server's (rmcp, behind the `mcp` feature) and the embedding model's
# (candle-core, tokenizers, behind `semantic`).
#
# anyhow is checked among the library's own dependencies only: wasmtime's crates
# depend on it themselves, so it is in the tree whatever the library does.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

all=$(cargo tree -p toolhost -e normal --prefix none --locked | awk '{ print $1 }' | sort -u)
direct=$(cargo tree -p toolhost -e normal --prefix none --locked --depth 1 | awk '{ print $1 }' | sort -u)
found=$( { grep -xE 'clap|indicatif|tracing-subscriber|rmcp|candle-core|tokenizers' <<<"$all" || true; }
         { grep -xE 'anyhow' <<<"$direct" || true; } )
if [ -n "$found" ]; then
    echo "check-library-deps: the toolhost library (default features) depends on: $(echo $found)" >&2
    echo "check-library-deps: these belong to the command (toolhost-cli) or behind a feature" >&2
    exit 1
fi
echo "check-library-deps: the library's default build has none of clap, indicatif, tracing-subscriber, rmcp, candle-core, tokenizers, and no anyhow of its own"

#!/usr/bin/env bash
# Runs every test: builds the guests (example tools and test guests) into
# components, then runs the workspace's tests against them through real wasmtime.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
scripts/build-guests.sh
# The MCP servers the plugin tests start (tests/all/mcp_servers.rs), from npm.
scripts/install-mcp-servers.sh
# The multi-replica test (tests/all/nginx.rs) runs Debian's nginx.
if [ ! -x /usr/sbin/nginx ]; then
    if [ "$(id -u)" = 0 ]; then
        echo "test: installing nginx-light for the load-balancer test" >&2
        apt-get update -qq >/dev/null 2>&1 || true
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null
        # The package starts its own server on port 80; the test runs its own.
        service nginx stop >/dev/null 2>&1 || pkill -x nginx || true
    else
        echo "test: nginx is missing (apt-get install nginx-light): the load-balancer test will fail" >&2
    fi
fi
# Build the tests (and with them the `toolhost` binary, with the same features, so
# nothing is compiled twice), then compile the example tools into the tests' cache
# once, before the test binaries start: otherwise several of them compile the large
# Python and JavaScript components at the same time.
cargo test --workspace --locked --no-run "$@"
TOOLHOST_CACHE_DIR=target/test-cache target/debug/toolhost list --plugins target/plugins >/dev/null
cargo test --workspace --locked "$@"
# The Python package, through pip and pytest (python/tests), with the same guests and cache.
scripts/test-python.sh

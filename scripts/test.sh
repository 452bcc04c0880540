#!/usr/bin/env bash
# Runs every test: builds the guests (example tools and test guests) into
# components, then runs the workspace's tests against them through real wasmtime.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
scripts/build-guests.sh
# The MCP servers the plugin tests start (tests/all/mcp_servers.rs), from npm.
scripts/install-mcp-servers.sh
# The multi-replica test (tests/all/nginx.rs) runs Debian's nginx; the registry
# tests (tests/all/registry.rs) Debian's docker-registry, with htpasswd for its users.
# A package that starts a server of its own (SERVICE) has it stopped: the tests run theirs.
need_package() { # BINARY PACKAGE WHY [SERVICE]
    [ -x "$1" ] && return
    if [ "$(id -u)" = 0 ]; then
        echo "test: installing $2 for $3" >&2
        apt-get update -qq >/dev/null 2>&1 || true
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null
        if [ -n "${4:-}" ]; then
            service "$4" stop >/dev/null 2>&1 || pkill -x "$4" || true
        fi
    else
        echo "test: $1 is missing (apt-get install $2): $3 will fail" >&2
    fi
}
need_package /usr/sbin/nginx nginx-light "the load-balancer test" nginx
need_package /usr/bin/docker-registry docker-registry "the registry tests" docker-registry
need_package /usr/bin/htpasswd apache2-utils "the registry tests"
# Build the tests (and with them the `toolhost` binary, with the same features, so
# nothing is compiled twice), then compile the example tools into the tests' cache
# once, before the test binaries start: otherwise several of them compile the large
# Python and JavaScript components at the same time.
cargo test --workspace --locked --no-run "$@"
TOOLHOST_CACHE_DIR=target/test-cache target/debug/toolhost list --plugins target/plugins >/dev/null
cargo test --workspace --locked "$@"
# The Python package, through pip and pytest (python/tests), with the same guests and cache.
scripts/test-python.sh

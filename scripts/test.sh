#!/usr/bin/env bash
# Runs every test: builds the guests (example tools and test guests) into
# components, then runs the workspace's tests against them through real wasmtime.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
# What runs in this session before the tests: anything new in it afterwards, other
# than this script's own commands, was left running by a test (see the end). Where
# the session began outside this PID namespace (some containers), ps shows session
# 0, which is the kernel threads' too: the tests then get a session of their own.
session=$(ps -o sid= -p $$ | tr -d ' ')
if [ "$session" = 0 ]; then
    [ -z "${TOOLHOST_TEST_SESSION:-}" ] || { echo "test.sh: no session of its own" >&2; exit 1; }
    exec env TOOLHOST_TEST_SESSION=1 setsid --wait "$0" "$@"
fi
session_processes() {
    ps -e -o pid=,sid=,ppid=,stat= | awk -v sid="$session" '$2 == sid && $4 !~ /^Z/ { print $1, $3 }'
}
already_running=$(session_processes | awk '{ print $1 }')
# Each phase's time, so that a slow run says where it went.
phase_started=$(date +%s)
took() { echo "test.sh: $1 took $(( $(date +%s) - phase_started )) s"; phase_started=$(date +%s); }
scripts/build-guests.sh
took "building the guests"
# Where disk is short (CI sets TOOLHOST_LOW_DISK=1), the guests' toolchain and build
# go once the components are in target/plugins and target/test-guests.
if [ "${TOOLHOST_LOW_DISK:-}" = 1 ]; then
    rm -rf target/guest-build target/guest-toolchain
fi
# The MCP servers the plugin tests start (tests/all/mcp_servers.rs), from npm.
scripts/install-mcp-servers.sh
# BFCL's function schemas and accepted calls (tests/all/bfcl.rs), from PyPI.
scripts/install-test-data.sh
# The multi-replica tests (tests/all/nginx.rs, replicas.rs) run Debian's nginx; the registry
# tests (tests/all/registry.rs) Debian's docker-registry, with htpasswd for its users.
source scripts/need-package.sh
need_package /usr/sbin/nginx nginx-light "the load-balancer test" nginx
# The replicas sharing a store (tests/all/replicas.rs) share Debian's redis-server.
need_package /usr/bin/redis-server redis-server "the shared-store test" redis-server
need_package /usr/bin/docker-registry docker-registry "the registry tests" docker-registry
need_package /usr/bin/htpasswd apache2-utils "the registry tests"
# The console's tests (tests/all/console.rs) drive Debian's chromium.
need_package /usr/bin/chromium chromium "the console tests"
# The metrics test (tests/all/metrics.rs) scrapes the server with Debian's Prometheus.
need_package /usr/bin/prometheus prometheus "the metrics test" prometheus
# One build of the library, the command, the Python package's native module, the
# tests, the benchmarks and the examples (scripts/host-build-env.sh: the benchmarks and
# examples are compiled so that they cannot rot, and linted; timings belong to `cargo
# bench` on a quiet machine). Then the example tools are compiled into the tests'
# cache once, before the test binaries start: otherwise several of them compile the
# large Python and JavaScript components at the same time. Optimized (a one-shot
# command would otherwise leave the large ones on baseline code, its optimizing done
# in the background of a process that ends first).
source scripts/host-build-env.sh
host_build
took "the Rust build"
TOOLHOST_CACHE_DIR=target/test-cache target/debug/toolhost list --compiler optimizing --plugins target/plugins >/dev/null
host_cargo test "${host_packages[@]}" --locked --lib --bins --tests "$@"
host_cargo test "${host_packages[@]}" --locked --doc "$@"
took "the Rust tests"
# The MCP project's conformance suite against `toolhost serve --http` (its summary).
scripts/conformance.sh | sed -n '/=== SUMMARY ===/,$p'
# And its next release (an alpha: the 2026-07-28 revision, tasks), from its total on.
CONFORMANCE_NEXT=1 scripts/conformance.sh | sed -n '/^Total:/,$p'
took "the MCP conformance suite"
# The packages that install without Rust (scripts/dist.sh), packed from the build
# above: the command, the Python wheel, the npm package with its prebuilt addon.
DIST_PROFILE=dev scripts/dist.sh
took "packing the packages"
# The Python package (python/tests, pytest), its wheel installed in a fresh
# virtualenv, with the same guests and cache.
TOOLHOST_DIST=keep scripts/test-python.sh
took "the Python package's tests"
# The Node.js package (node/tests, node's test runner), its tarball installed in a
# fresh project, and its framework adapters through the AI SDK, LangChain.js and the
# OpenAI Agents SDK.
TOOLHOST_DIST=keep scripts/test-node.sh
took "the Node package's tests"
# Every server a test starts is stopped whatever the test's end (tests/all/process.rs):
# a process of this session that was not running before the tests, and is neither
# this script's nor its caller's command (nor run by one: .ci/run checks beside the
# tests), is a leftover.
leftovers=$(session_processes | awk -v me=$$ -v caller=$PPID -v before="$already_running" '
    BEGIN { n = split(before, b, "\n"); for (i = 1; i <= n; i++) old[b[i]] = 1 }
    { parent[$1] = $2; seen[++count] = $1 }
    END {
        for (i = 1; i <= count; i++) {
            pid = seen[i]
            if (pid in old || parent[pid] == caller) continue
            # This script and what it runs now (this very check) are not leftovers,
            # nor what another command of the caller runs.
            for (up = pid; up in parent && up != me && parent[up] != caller; up = parent[up]) {}
            if (up != me && !(up in parent && parent[up] == caller)) print pid
        }
    }')
if [ -n "$leftovers" ]; then
    echo "test.sh: the tests left these processes running:" >&2
    ps -o pid=,ppid=,etimes=,args= -p "$(echo $leftovers | tr ' ' ',')" >&2 || true
    exit 1
fi
echo "test.sh: no process left running"

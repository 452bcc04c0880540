#!/usr/bin/env bash
# Builds, once, what installs without a Rust toolchain, into dist/:
#
#   dist/toolhost                                     the command
#   dist/toolhost_wasm-VERSION-cp39-abi3-PLATFORM.whl the Python package (`pip install`,
#                                                     then `import toolhost`)
#   dist/toolhost-VERSION.tgz                         the npm package, with its addon
#                                                     prebuilt for this platform
#
#   scripts/dist.sh                      # cargo's release profile (what users get)
#   DIST_PROFILE=dev scripts/dist.sh     # packs the tests' debug build, compiling
#                                        # nothing more (scripts/test-python.sh and
#                                        # scripts/test-node.sh install these)
#
# One cargo invocation builds the command, the Python module and the Node addon, so
# that cargo unifies their features once and compiles wasmtime once. maturin writes
# the wheel's metadata from python/pyproject.toml and the `wheel` project's `pack`
# packs it with the module; `maturin build` is not used because it runs a cargo of
# its own for the Python crate alone, whose different features would compile toolhost
# and everything above tokio again. auditwheel names the manylinux platform the
# module fits (the symbols it takes from glibc); the wheel is tagged with it.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
profile=${DIST_PROFILE:-release}
started=$(date +%s)

# The packaging tools, pinned, in a virtualenv of their own.
tools=target/dist-tools
if [ ! -x "$tools/bin/maturin" ]; then
    python3 -m venv "$tools"
    "$tools/bin/pip" install --quiet --disable-pip-version-check maturin==1.16.0 wheel==0.48.0 auditwheel==6.8.2
fi

case "$profile" in
    dev)
        source scripts/host-build-env.sh
        host_build --quiet
        built=target/debug
        ;;
    release)
        PYO3_BUILD_EXTENSION_MODULE=1 cargo build --release --locked \
            -p toolhost-cli -p toolhost-python -p toolhost-node
        built=${CARGO_TARGET_DIR:-target}/release
        ;;
    *) echo "dist.sh: DIST_PROFILE is dev or release, not '$profile'" >&2; exit 2 ;;
esac
echo "dist.sh: the $profile build took $(( $(date +%s) - started )) s"

rm -rf dist target/dist-stage
mkdir -p dist target/dist-stage
# What the packages hold has no debug information (a debug build's line tables
# triple its size); `quietly` shows a tool's chatter only when it fails.
pack_binary() { strip --strip-debug -o "$2" "$1"; }
quietly() {
    local log status=0
    log=$(mktemp)
    "$@" >"$log" 2>&1 || status=$?
    [ "$status" = 0 ] || cat "$log" >&2
    rm -f "$log"
    return "$status"
}
pack_binary "$built/toolhost" dist/toolhost

# The wheel: maturin's metadata, the Python half, the module under its abi3 name.
wheel_stage=target/dist-stage/wheel
mkdir -p "$wheel_stage"
(cd python && quietly "$root/$tools/bin/maturin" pep517 write-dist-info --quiet \
    --metadata-directory "$root/$wheel_stage")
cp -r python/toolhost "$wheel_stage/toolhost"
find "$wheel_stage/toolhost" -name __pycache__ -prune -exec rm -rf {} +
pack_binary "$built/lib_native.so" "$wheel_stage/toolhost/_native.abi3.so"
quietly "$tools/bin/python" -m wheel pack --dest-dir dist "$wheel_stage"
wheel=$(ls dist/*.whl)
platform=$("$tools/bin/auditwheel" show "$wheel" 2>/dev/null | grep -o 'manylinux_[0-9]*_[0-9]*_[a-z0-9_]*' | head -n 1 || true)
if [ -n "$platform" ]; then
    quietly "$tools/bin/python" -m wheel tags --remove --platform-tag "$platform" "$wheel"
fi

# The npm package: package.json, lib/, and the addon where lib/native.js looks.
npm_stage=target/dist-stage/npm
mkdir -p "$npm_stage"
cp -r node/package.json node/lib "$npm_stage/"
pack_binary "$built/libtoolhost_node.so" "$npm_stage/toolhost.linux-x64-gnu.node"
(cd "$npm_stage" && quietly npm pack --pack-destination "$root/dist")

echo "dist.sh: in dist/ after $(( $(date +%s) - started )) s:"
ls -l dist | awk 'NR > 1 { printf "  %-60s %6.1f MB\n", $9, $5 / 1048576 }'

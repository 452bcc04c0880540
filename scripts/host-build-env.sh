# Sourced by scripts/test.sh, scripts/test-python.sh, scripts/check-features.sh and
# .ci/run: the one debug build of the host side of the workspace, so that the scripts
# (and the `cargo test` after it) build the same units and nothing twice.
#
#   guest_packages  `-p NAME` for each guest (example-tools/, example-policies/, tests/guests/)
#   host_packages   cargo arguments selecting every other package but the fuzz targets
#   host_cargo      cargo, with the environment of that build
#   check_only      cargo arguments for a check: the dev profile, nothing optimised
#   host_build      builds the library, the `toolhost` command, the Python package's
#                   native module (target/debug/lib_native.so), the SDK, and every
#                   test, benchmark and example, in one cargo invocation: cargo unifies
#                   their features once and compiles each dependency (wasmtime above
#                   all) once
#
# The guests are left out: they are components, built for wasm32-wasip2 by
# scripts/build-guests.sh, and their exports cannot be linked into a host library.
# Leaving them out changes no other crate's features (`cargo build --unit-graph` lists
# the same units as `cargo test --workspace`).
#
# With clippy installed, clippy-driver compiles the workspace's own crates
# (RUSTC_WORKSPACE_WRAPPER, as `cargo clippy` does for a check) with the workspace's
# lints and warnings as errors: one pass lints and builds, where a separate `cargo
# clippy` would check every dependency once more. Nothing is exported: the fuzz and
# Windows builds use other compilers.

guest_packages() {
    cargo metadata --no-deps --format-version 1 --locked | python3 -c '
import json, sys
for package in json.load(sys.stdin)["packages"]:
    path = package["manifest_path"]
    if any(folder in path for folder in ("/example-tools/", "/example-policies/", "/tests/guests/")):
        print("-p", package["name"])'
}
# The fuzz targets are built apart, instrumented (scripts/fuzz.sh). The command is
# built with search by meaning, which its tests try (the library has the feature in
# this build anyway: the command's dev-dependency turns it on).
host_packages=(--workspace $(guest_packages | sed 's/^-p /--exclude /') --exclude toolhost-fuzz
    --features toolhost-cli/semantic)

# For a `cargo check` or `cargo clippy` (the guests', the feature sets', Windows'): a
# check compiles in full only what runs while building (build scripts, procedural
# macros and what they use), where the dev profile's optimised Cranelift and
# wasmparser (Cargo.toml: for the tests' large components) only cost time; wasmparser
# alone took 54 s of the Windows check. Every package the profile optimises is
# compiled unoptimised instead.
check_only=()
for package in $(sed -n 's/^\[profile\.dev\.package\.\([A-Za-z0-9_-]*\)\]$/\1/p' Cargo.toml); do
    check_only+=(--config "profile.dev.package.$package.opt-level=0")
done

clippy_driver=$(dirname "$(rustup which cargo 2>/dev/null || command -v cargo)")/clippy-driver
host_cargo() {
    if [ -x "$clippy_driver" ]; then
        # CLIPPY_ARGS: how `cargo clippy -- -D warnings` hands its arguments over.
        RUSTC_WORKSPACE_WRAPPER=$clippy_driver CLIPPY_ARGS=-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__ \
            PYO3_BUILD_EXTENSION_MODULE=1 cargo "$@"
    else
        # The native module is an extension module: it must not link libpython
        # (maturin sets the same when it builds a wheel).
        PYO3_BUILD_EXTENSION_MODULE=1 cargo "$@"
    fi
}
[ -x "$clippy_driver" ] || echo "no clippy-driver (rustup component add clippy): the build is not linted" >&2

host_build() {
    host_cargo build "${host_packages[@]}" --locked --lib --bins --tests --benches --examples "$@"
}

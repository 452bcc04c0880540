#!/usr/bin/env bash
# Checks the library builds clean (clippy, -D warnings) with each feature set a user
# may pick, not only the all-features build the workspace's own crates ask for (cargo
# unifies their features): the default (no feature), each feature alone, and the
# library's unix-only code on a target that is not unix (Windows), so that
# `cfg(not(unix))` code is compiled too.
#
#   scripts/check-features.sh                 every feature set, then Windows
#   scripts/check-features.sh --no-windows    the feature sets only
#   scripts/check-features.sh --windows-only  Windows only
#
# The Windows check compiles std for x86_64-pc-windows-gnu from source with Debian's
# rustc-web (what scripts/build-guests.sh installs for the guests; rustup cannot
# download targets here). Only `cargo check`: nothing is linked.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target/clippy}

# check_only: the dev profile without its optimised packages (scripts/host-build-env.sh).
source scripts/host-build-env.sh

# `registry` is `oci`'s old name: the same build.
features=("" mcp http mcp-servers rest-apis oci fuzzing semantic)
if [ "${1:-}" != --windows-only ]; then
    for feature in "${features[@]}"; do
        echo "check-features: toolhost with ${feature:-no features}"
        cargo clippy -p toolhost --lib --locked --no-default-features ${feature:+--features "$feature"} \
            "${check_only[@]}" -- -D warnings
    done
fi
[ "${1:-}" = --no-windows ] && exit 0
version=$(/usr/bin/rustc --version 2>/dev/null | awk '{print $2}') || true
std_source=/usr/src/rustc-$version/library # where rust-web-src puts it
if [ -z "$version" ] || [ ! -d "$std_source" ] || [ ! -x /usr/bin/cargo ]; then
    echo "check-features: no Windows check: it needs Debian's rustc-web, cargo-web and rust-web-src" \
        "(scripts/build-guests.sh installs them where rustup has no wasm32-wasip2)" >&2
    exit 1
fi
# The crates that build C (ring, aws-lc-sys) need a C compiler for Windows, and std
# for windows-gnu MinGW's dlltool: Debian's MinGW-w64 and NASM.
if ! command -v x86_64-w64-mingw32-gcc >/dev/null || ! command -v nasm >/dev/null; then
    [ "$(id -u)" = 0 ] || { echo "check-features: install gcc-mingw-w64-x86-64-posix and nasm (root)" >&2; exit 1; }
    echo "check-features: installing Debian's gcc-mingw-w64-x86-64-posix and nasm"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc-mingw-w64-x86-64-posix nasm >/dev/null
fi
echo "check-features: the command and the library (every feature) for x86_64-pc-windows-gnu, with Debian's rustc $version"
# Debian's compiler with its own std source; RUSTC_BOOTSTRAP for -Zbuild-std.
# A target directory of its own: another compiler's artefacts cannot be shared.
log=$(mktemp)
status=0
env -u RUSTFLAGS RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR=target/windows-check \
    /usr/bin/cargo check -p toolhost-cli --bins --locked --target x86_64-pc-windows-gnu \
    -Zbuild-std=std,panic_abort "${check_only[@]}" >"$log" 2>&1 || status=$?
# The C crates' build scripts say much of nothing; the rest is cargo's account.
grep -vE '^warning: (ring|aws-lc-sys)@' "$log" | grep -vE '^ *(Compiling|Checking) ' || true
# Warnings are errors for our own crates (not for std's or the dependencies').
if grep -qE '^warning: `toolhost(-cli)?` \(' "$log"; then
    echo "check-features: the Windows build of our crates has warnings (above)" >&2
    exit 1
fi
rm -f "$log"
exit "$status"

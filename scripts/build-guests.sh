#!/usr/bin/env bash
# Builds WebAssembly tool components (wasm32-wasip2).
#
#   scripts/build-guests.sh                 every guest of this repository:
#                                           example-tools/*    -> target/plugins/
#                                           example-policies/* -> target/policies/
#                                           tests/guests/*     -> target/test-guests/
#   scripts/build-guests.sh CRATE_DIR [OUT] one tool crate of your own -> OUT (default ./plugins)
#
# Example tools in Python (a folder with app.py) and JavaScript (a folder with app.js)
# are built with componentize-py and componentize-js at the pinned versions below,
# installed from PyPI / npm under target/guest-toolchain/ when missing; their
# manifest (<folder>.toml, with the descriptions those toolchains drop) goes beside.
# With WEVAL naming a weval binary (`cargo install weval`), JavaScript tools are
# compiled ahead of time (componentize-js --aot); otherwise StarlingMonkey interprets
# them. BENCHMARKS.md measures both: the ahead-of-time build is no faster here.
#
# Uses the rustup `wasm32-wasip2` target when it is installed. Otherwise it sets up
# an offline fallback itself (Debian's rustc-web with its std source, a wasm32-wasip2
# wasi-libc from Debian trixie, and the wasm linkers rustup's stable toolchain ships)
# and builds std from source with -Zbuild-std. Everything it downloads is kept under
# target/guest-toolchain/, so a second run with nothing changed takes seconds.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
toolchain_dir=$root/target/guest-toolchain
target=wasm32-wasip2
componentize_py_version=0.25.1
componentize_js_version=0.23.0

say() { printf 'build-guests: %s\n' "$*" >&2; }
die() {
    say "error: $*"
    exit 1
}

# How JavaScript tools are built: "aot" with a weval binary in $WEVAL, else "interpreter".
js_build=interpreter
if [ -n "${WEVAL:-}" ]; then
    [ -x "$WEVAL" ] ||
        die "WEVAL=$WEVAL is not an executable weval binary (cargo install weval), or unset it to interpret JavaScript"
    js_build=aot
fi

# --- choosing a toolchain -------------------------------------------------------

have_rustup_target() {
    command -v rustup >/dev/null 2>&1 &&
        rustup target list --installed 2>/dev/null | grep -qx "$target"
}

# Debian's rustc 1.96 and the std source of exactly the same version.
ensure_debian_rust() {
    if [ ! -x /usr/bin/rustc ] || [ ! -x /usr/bin/cargo ] || ! debian_std_source >/dev/null; then
        [ "$(id -u)" = 0 ] || die "the $target target is not installed and the offline fallback needs
  Debian packages rustc-web cargo-web rust-web-src; install them as root
  (apt-get install rustc-web cargo-web rust-web-src) or run 'rustup target add $target'."
        say "installing Debian's rustc-web, cargo-web and rust-web-src (offline fallback)"
        apt-get update -qq >/dev/null ||
            die "apt-get update failed; the fallback needs Debian's package archive"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq rustc-web cargo-web rust-web-src >/dev/null ||
            die "could not install rustc-web cargo-web rust-web-src from Debian's archive"
    fi
    debian_std_source >/dev/null ||
        die "Debian's rustc is $(/usr/bin/rustc --version) but its std source is missing;
  reinstall rust-web-src so that both come from the same version"
}

debian_std_source() {
    local version
    version=$(/usr/bin/rustc --version | awk '{print $2}')
    [ -d "/usr/src/rustc-$version/library" ] && echo "/usr/src/rustc-$version/library"
}

# A wasi-libc built for wasm32-wasip2 (bookworm's is preview1 only): Debian trixie's
# package, fetched with a private apt state so the system's apt setup is left alone.
ensure_wasi_libc() {
    local libc=$toolchain_dir/wasi-libc
    if [ -f "$libc/usr/lib/$target/libc.a" ]; then
        echo "$libc"
        return
    fi
    local mirror apt_dir
    mirror=$(debian_mirror)
    if [ -z "$mirror" ] && [ "$(id -u)" = 0 ]; then
        apt-get update -qq >/dev/null 2>&1 || true # apt-cache policy lists mirrors only once lists exist
        mirror=$(debian_mirror)
    fi
    [ -n "$mirror" ] || die "could not find the Debian mirror in 'apt-cache policy' to fetch wasi-libc from"
    apt_dir=$toolchain_dir/apt
    mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$libc"
    echo "deb $mirror trixie main" >"$apt_dir/sources.list"
    local apt_opts=(
        -o "Dir::Etc::SourceList=$apt_dir/sources.list"
        -o "Dir::Etc::SourceParts=/dev/null"
        -o "Dir::State::Lists=$apt_dir/lists"
        -o "Dir::Cache=$apt_dir/cache"
        -o "Debug::NoLocking=1"
    )
    say "fetching wasi-libc for $target from Debian trixie ($mirror)"
    apt-get "${apt_opts[@]}" update -qq >/dev/null 2>&1 ||
        die "could not read Debian trixie's package list from $mirror"
    (cd "$apt_dir" && apt-get "${apt_opts[@]}" download wasi-libc >/dev/null 2>&1) ||
        die "could not download trixie's wasi-libc package"
    dpkg-deb -x "$(ls "$apt_dir"/wasi-libc_*.deb | head -n1)" "$libc"
    [ -f "$libc/usr/lib/$target/libc.a" ] ||
        die "trixie's wasi-libc has no $target build (no usr/lib/$target/libc.a)"
    echo "$libc"
}

# The Debian mirror this machine's apt uses, as apt-cache policy reports it.
debian_mirror() {
    local mirror
    mirror=$(apt-cache policy 2>/dev/null | grep -oE 'https?://[^ ]+/debian(/| )' | grep -v security | head -n1 | tr -d ' ')
    echo "${mirror%/}"
}

# wasm-component-ld and wasm-ld as shipped with rustup's stable toolchain.
rustup_wasm_linkers() {
    local bin
    bin=$(rustup run stable rustc --print sysroot 2>/dev/null)/lib/rustlib/x86_64-unknown-linux-gnu/bin
    [ -x "$bin/wasm-component-ld" ] && [ -x "$bin/gcc-ld/wasm-ld" ] ||
        die "rustup's stable toolchain has no wasm-component-ld / gcc-ld/wasm-ld under $bin"
    echo "$bin"
}

# Sets up the environment for cargo and fills the array `cargo_cmd`.
choose_toolchain() {
    if have_rustup_target; then
        cargo_cmd=(cargo build --target "$target")
        return
    fi
    ensure_debian_rust
    local libc bin
    libc=$(ensure_wasi_libc)
    bin=$(rustup_wasm_linkers)
    unset RUSTFLAGS CARGO_BUILD_RUSTFLAGS
    export RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1
    export CARGO_TARGET_WASM32_WASIP2_RUSTFLAGS="-L $libc/usr/lib/$target -Clinker=$bin/wasm-component-ld -Clink-arg=--wasm-ld-path=$bin/gcc-ld/wasm-ld -Clink-arg=--validate-component=true"
    cargo_cmd=(/usr/bin/cargo build -Zbuild-std=std,panic_abort --target "$target")
}

# --- building -------------------------------------------------------------------

package_name() {
    sed -n 's/^name *= *"\(.*\)"/\1/p' "$1/Cargo.toml" | head -n1
}

# Copies a built component to OUT/<package>.wasm when it changed.
install_component() {
    local built=$1 out=$2 name=$3
    [ -f "$built" ] || die "cargo reported success but $built is missing"
    mkdir -p "$out"
    cmp -s "$built" "$out/$name.wasm" || cp "$built" "$out/$name.wasm"
}

build_repository_guests() {
    local packages=() dir name
    for dir in "$root"/example-tools/*/ "$root"/example-policies/*/ "$root"/tests/guests/*/; do
        if [ -f "$dir/Cargo.toml" ]; then packages+=(-p "$(package_name "$dir")"); fi
    done
    local target_dir=$root/target/guest-build
    (cd "$root" && "${cargo_cmd[@]}" --profile guest --target-dir "$target_dir" "${packages[@]}") ||
        die "cargo could not build the guests (its errors are above)"
    for dir in "$root"/example-tools/*/; do
        if [ -f "$dir/Cargo.toml" ]; then
            name=$(package_name "$dir")
            install_component "$target_dir/$target/guest/${name//-/_}.wasm" "$root/target/plugins" "$name"
        elif [ -f "$dir/app.py" ] || [ -f "$dir/app.js" ]; then
            build_script_tool "${dir%/}" "$root/target/plugins"
        fi
    done
    for dir in "$root"/example-policies/*/; do
        if [ -f "$dir/Cargo.toml" ]; then
            name=$(package_name "$dir")
            install_component "$target_dir/$target/guest/${name//-/_}.wasm" "$root/target/policies" "$name"
        else
            build_script_tool "${dir%/}" "$root/target/policies"
        fi
    done
    for dir in "$root"/tests/guests/*/; do
        name=$(package_name "$dir")
        install_component "$target_dir/$target/guest/${name//-/_}.wasm" "$root/target/test-guests" "$name"
    done
    say "components in target/plugins/ (example tools), target/policies/ (example policies) and target/test-guests/ (test guests)"
}

# --- tools in other languages ------------------------------------------------------

# The first world declared in a tool folder's wit/.
world_of() {
    sed -n 's/^world \([a-z0-9-]*\).*/\1/p' "$1"/wit/*.wit | head -n1
}

# Whether OUT is newer than every file of the tool folder DIR (and, for a JavaScript
# tool, was built the way this run would build it).
up_to_date() {
    local dir=$1 out=$2
    [ -f "$out" ] && [ -z "$(find "$dir" -type f -newer "$out" -not -path '*/__pycache__/*' -print -quit)" ] ||
        return 1
    [ ! -f "$dir/app.js" ] || [ "$(cat "$(js_build_stamp "$dir")" 2>/dev/null)" = "$js_build" ]
}

# Where the kind of build ($js_build) a JavaScript tool folder DIR last had is kept.
js_build_stamp() {
    echo "$toolchain_dir/built/$(basename "$1").js-build"
}

ensure_componentize_py() {
    local venv=$toolchain_dir/componentize-py-$componentize_py_version
    componentize_py=$venv/bin/componentize-py
    [ -x "$componentize_py" ] && return
    command -v python3 >/dev/null 2>&1 || die "python3 is needed for the Python example tool (apt install python3-venv)"
    say "installing componentize-py $componentize_py_version from PyPI"
    python3 -m venv "$venv" || die "python3 -m venv failed (on Debian: apt install python3-venv)"
    "$venv/bin/pip" install --quiet "componentize-py==$componentize_py_version" ||
        die "pip could not install componentize-py $componentize_py_version"
}

ensure_componentize_js() {
    local dir=$toolchain_dir/componentize-js-$componentize_js_version
    componentize_js=$dir/node_modules/.bin/componentize-js
    [ -x "$componentize_js" ] && return
    command -v npm >/dev/null 2>&1 || die "node and npm are needed for the JavaScript example tool (apt install nodejs npm)"
    say "installing componentize-js $componentize_js_version from npm"
    mkdir -p "$dir"
    (cd "$dir" && npm install --no-audit --no-fund --silent "@bytecodealliance/componentize-js@$componentize_js_version") ||
        die "npm could not install @bytecodealliance/componentize-js@$componentize_js_version"
}

# Builds the Python (app.py) or JavaScript (app.js) tool in DIR, with its wit/, into
# OUT/<folder>.wasm, unless that is newer than every file of DIR.
build_script_tool() {
    local dir=$1 out=$2 name
    name=$(basename "$dir")
    mkdir -p "$out"
    if ! up_to_date "$dir" "$out/$name.wasm"; then
        if [ -f "$dir/app.py" ]; then
            ensure_componentize_py
            say "componentize-py: $name"
            (cd "$toolchain_dir" && "$componentize_py" -d "$dir/wit" -w "$(world_of "$dir")" componentize \
                -p "$dir" app -o "$out/$name.wasm.part") || die "componentize-py could not build $dir"
        else
            ensure_componentize_js
            local aot=()
            [ "$js_build" = interpreter ] || aot=(--aot --weval-bin "$WEVAL")
            say "componentize-js: $name ($js_build)"
            "$componentize_js" "$dir/app.js" -w "$dir/wit" -n "$(world_of "$dir")" "${aot[@]}" \
                -o "$out/$name.wasm.part" || die "componentize-js could not build $dir"
        fi
        mv "$out/$name.wasm.part" "$out/$name.wasm"
        if [ -f "$dir/app.js" ]; then
            mkdir -p "$toolchain_dir/built" && echo "$js_build" >"$(js_build_stamp "$dir")"
        fi
    fi
    install_manifest "$dir" "$out" "$name"
}

# Copies DIR/<name>.toml beside the component when there is one.
install_manifest() {
    local dir=$1 out=$2 name=$3
    if [ -f "$dir/$name.toml" ]; then
        cmp -s "$dir/$name.toml" "$out/$name.toml" || cp "$dir/$name.toml" "$out/$name.toml"
    fi
}

build_one_crate() {
    local dir out name
    dir=$(cd "$1" && pwd) || die "no such crate folder: $1"
    [ -f "$dir/Cargo.toml" ] || die "$dir has no Cargo.toml"
    out=$(mkdir -p "${2:-plugins}" && cd "${2:-plugins}" && pwd)
    name=$(package_name "$dir")
    local target_dir
    target_dir=$(cd "$dir" && cargo metadata --no-deps --format-version 1 2>/dev/null |
        sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
    target_dir=${target_dir:-$dir/target}
    (cd "$dir" && "${cargo_cmd[@]}" --release) || die "cargo could not build $dir (its errors are above)"
    install_component "$target_dir/$target/release/${name//-/_}.wasm" "$out" "$name"
    say "built $out/$name.wasm"
}

cargo_cmd=()
choose_toolchain
if [ $# -eq 0 ]; then
    build_repository_guests
else
    build_one_crate "$@"
fi

# Sourced by scripts/test-python.sh and scripts/test-node.sh, which install the
# packages scripts/dist.sh made and test them as a user without Rust would:
#
#   without_rust COMMAND [ARGS...]
#
# runs COMMAND where no Rust toolchain can be found: rustup's and cargo's folders
# leave PATH, and `cargo`, `rustc` and `rustup` are commands that fail saying so (the
# system may have a rustc of its own in /usr/bin), so an install that would compile
# anything fails instead.
without_rust() {
    local shims=$root/target/no-rust
    mkdir -p "$shims"
    local tool
    for tool in cargo rustc rustup; do
        printf '#!/bin/sh\necho "%s was run, where a package must install without Rust: %s $*" >&2\nexit 1\n' \
            "$tool" "$tool" >"$shims/$tool"
        chmod +x "$shims/$tool"
    done
    local path
    path=$(printf '%s' "$PATH" | tr ':' '\n' | grep -v -e '/\.cargo/bin$' -e '/\.rustup/' | paste -sd: -)
    env -u CARGO -u RUSTC -u RUSTUP_TOOLCHAIN -u RUSTUP_HOME -u CARGO_HOME PATH="$shims:$path" "$@"
}

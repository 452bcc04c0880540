# Sourced by scripts/test.sh and scripts/demo.sh: `need_package BINARY PACKAGE WHY
# [SERVICE]` installs Debian's PACKAGE when BINARY is missing (as root; otherwise it
# says what will fail). A package that starts a server of its own (SERVICE) has it
# stopped: the tests and the demo start theirs.
need_package() {
    [ -x "$1" ] && return
    if [ "$(id -u)" = 0 ]; then
        echo "installing $2 for $3" >&2
        apt-get update -qq >/dev/null 2>&1 || true
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null
        if [ -n "${4:-}" ]; then
            service "$4" stop >/dev/null 2>&1 || pkill -x "$4" || true
        fi
    else
        echo "$1 is missing (apt-get install $2): $3 will fail" >&2
    fi
}

#!/usr/bin/env bash
# The demo: builds the example tools, lists them as a model would see them, and makes
# a few calls the way a model would, mistakes included.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
scripts/build-guests.sh
cargo build --quiet --locked -p toolhost
toolhost() { "$root/target/debug/toolhost" "$@" --plugins "$root/target/plugins"; }

show() {
    printf '\n$ toolhost call %s %s\n' "$1" "$2"
    toolhost call "$1" "$2" || true
}

echo
echo "== The tools in target/plugins/ =="
toolhost list
echo
echo "== Calls as a model makes them =="
show evaluate '{"expression": "2 * (3 + 4) ^ 2"}'
show Convert '{"value": 5, "from": "kilometer", "to": "mile", "precision": 3}'
show evaluate '{"expression": "1 / 0"}'
show evalute '{"expression": "1 + 1"}'

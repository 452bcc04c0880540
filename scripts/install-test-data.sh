#!/usr/bin/env bash
# Installs the test data that comes from outside the repository: the Berkeley Function
# Calling Leaderboard's own test cases (real function schemas, dotted names among
# them, and their accepted answers), from its PyPI package `bfcl-eval`, pinned, into
# target/bfcl (tests/all/bfcl.rs reads them). Only the wheel's data files are kept;
# nothing of it is installed into Python.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
version=2026.3.23
dest="$root/target/bfcl"
marker="$dest/.installed"
if [ -f "$marker" ] && [ "$(cat "$marker")" = "$version" ]; then
    exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m pip download --quiet --no-deps --disable-pip-version-check --dest "$work" "bfcl-eval==$version"
rm -rf "$dest"
mkdir -p "$dest"
python3 - "$work"/bfcl_eval-*.whl "$dest" <<'PY'
import sys, zipfile
wheel, dest = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as archive:
    for name in archive.namelist():
        if name.startswith("bfcl_eval/data/") and name.endswith(".json"):
            archive.extract(name, dest)
PY
echo "$version" >"$marker"
echo "install-test-data: BFCL $version test data in $dest/bfcl_eval/data" >&2

#!/usr/bin/env bash
# Tests the Python package (python/): puts it into a virtualenv under target/, beside
# the pinned test requirements (pytest and the agent frameworks the tests hand its
# functions to), then runs pytest against the built guests.
#
#   scripts/test-python.sh [PYTEST_ARGS...]
#
# Needs the guests (scripts/build-guests.sh). The native module is the one the
# workspace's debug build makes (scripts/host-build-env.sh; scripts/test.sh has built
# it already, otherwise this builds it): `pip install ./python` would have maturin
# compile wasmtime once more with the Python package's features alone. What goes into
# the virtualenv is what a wheel holds: python/toolhost/ and the module beside it.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
source scripts/host-build-env.sh
host_build --quiet
venv=target/python-venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r python/tests/requirements.txt
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
rm -rf "$site/toolhost"
cp -r python/toolhost "$site/toolhost"
# abi3: the name every CPython from 3.9 on loads (pyproject.toml's maturin build
# names it the same way).
cp target/debug/lib_native.so "$site/toolhost/_native.abi3.so"
# From the repository root, so that python/toolhost (the sources) cannot shadow the
# installed package.
"$venv/bin/pytest" -q -p no:cacheprovider python/tests "$@"

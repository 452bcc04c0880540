#!/usr/bin/env bash
# Tests the Python package (python/): installs it with pip into a virtualenv under
# target/, beside the pinned test requirements (pytest and the agent frameworks the
# tests hand its functions to), then runs pytest against the built guests.
#
#   scripts/test-python.sh [PYTEST_ARGS...]
#
# Needs the guests (scripts/build-guests.sh). The package is built with the debug
# profile, as the Rust tests are, so that it reuses their build of wasmtime; a plain
# `pip install ./python` builds the release profile.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
venv=target/python-venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
pip=("$venv/bin/python" -m pip install --quiet --disable-pip-version-check)
"${pip[@]}" -r python/tests/requirements.txt
MATURIN_PEP517_ARGS="--profile dev" "${pip[@]}" ./python
# From the repository root, so that python/toolhost (the sources) cannot shadow the
# installed package.
"$venv/bin/pytest" -q -p no:cacheprovider python/tests "$@"

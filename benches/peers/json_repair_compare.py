"""Our argument-text corpus (host/testdata/json_repair_corpus.json) through the
JSON repair libraries a user would reach for instead: json_repair (PyPI) and
jsonrepair (npm). Prints, per group of broken text, how many each reads as meant.

A case marked "refuse" has no one reading (a value cut inside a string, two
objects, prose): a library reads it as meant only when it gives nothing back (an
error, or an empty result). The host's own figures are its unit test's
(`cargo test -p toolhost --lib json_repair_corpus`), which must read every case as
meant. Run: python benches/peers/json_repair_compare.py NODE_MODULES (a folder holding
jsonrepair), with json_repair importable.
"""

import json
import subprocess
import sys
from collections import OrderedDict
from pathlib import Path

import json_repair

CORPUS = Path(__file__).resolve().parents[2] / "host/testdata/json_repair_corpus.json"

NODE = r"""
const { jsonrepair } = require(process.argv[1] + "/jsonrepair");
const cases = JSON.parse(require("fs").readFileSync(0, "utf8"));
console.log(JSON.stringify(cases.map((c) => {
    try { return { out: JSON.parse(jsonrepair(c.text)) }; } catch (e) { return { error: String(e) }; }
})));
"""


def python_library(case):
    try:
        return {"out": json_repair.loads(case["text"])}
    except Exception as error:  # the library's own failure is a refusal
        return {"error": str(error)}


def read_as_meant(case, result):
    if case.get("refuse"):
        out = result.get("out")
        return "error" in result or out in ("", None, [], {}) and case["text"].strip() != ""
    return "out" in result and result["out"] == case["want"]


def main():
    modules = sys.argv[1]
    cases = json.loads(CORPUS.read_text())
    node = subprocess.run(["node", "-e", NODE, modules], input=json.dumps(cases), capture_output=True, text=True, check=True)
    npm_results = json.loads(node.stdout)
    groups = OrderedDict()
    for case, npm in zip(cases, npm_results):
        row = groups.setdefault(case["group"], [0, 0, 0])
        row[0] += 1
        row[1] += read_as_meant(case, python_library(case))
        row[2] += read_as_meant(case, npm)
    print(f"{'group':<20} {'cases':>5} {'json_repair':>12} {'jsonrepair':>11}")
    totals = [0, 0, 0]
    for group, row in groups.items():
        print(f"{group:<20} {row[0]:>5} {row[1]:>12} {row[2]:>11}")
        totals = [t + r for t, r in zip(totals, row)]
    print(f"{'all':<20} {totals[0]:>5} {totals[1]:>12} {totals[2]:>11}")


if __name__ == "__main__":
    main()

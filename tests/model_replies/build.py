#!/usr/bin/env python3
"""Builds bfcl-2024-08-11.jsonl: replies real models wrote in the Berkeley Function
Calling Leaderboard's prompt mode (the calls written into the reply as Python,
`[func(a=1)]`), with BFCL's verdict on each, for tests/all/model_replies.rs.

The replies and verdicts are the leaderboard's published result and score files
(github.com/HuanzhiMao/BFCL-Result, folder 2024-08-11; Apache-2.0). The function
definitions are not copied when they are what the current `bfcl-eval` dataset has
for the same question (scripts/install-test-data.sh installs it); the line carries
the definitions the model saw, and the accepted answers, only where they differ.

    python3 tests/model_replies/build.py PATH/TO/BFCL-Result [MODEL ...] > tests/model_replies/bfcl-2024-08-11.jsonl
    python3 tests/model_replies/build.py --invented-names PATH/TO/BFCL-Result > tests/model_replies/invented-names.json

The second: every name a model (of any of the run's 70-odd) invented for a function
BFCL's checker then failed as `wrong_func_name`, with the function the case wanted, as
[[name, wanted], …] (names that are code or text rather than a name left out).

Each line: {"model", "id" (the current dataset's), "reply", "accepted"} and, for a reply
BFCL refused, "error_type", the calls as BFCL's decoder read them ("decoded": a list of
{name: arguments}, when it read any) and, where they differ from the current dataset's,
the "answer" it checked against and the "functions" the model was shown. So that the
file stays small, accepted replies are kept one in `--keep` (default 3), by the
question's number, as are the refusals no reading of the reply could mend (a wrong
value, a call left out); every refusal for the reply's form, a function's name or a
value's type is kept.
"""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "target/bfcl/bfcl_eval/data"
# The 2024 file name of each category, and its name in the current dataset.
CATEGORIES = {
    "simple": "simple_python",
    "multiple_function": "multiple",
    "parallel_function": "parallel",
    "parallel_multiple_function": "parallel_multiple",
    "java": "simple_java",
    "javascript": "simple_javascript",
}
# Models that were asked in BFCL's prompt format and answered in text.
DEFAULT_MODELS = [
    "meta-llama_Meta-Llama-3-8B-Instruct",
    "google_gemma-7b-it",
    "mistral-small-2402",
    "open-mixtral-8x7b",
    "gpt-3.5-turbo-0125",
    "claude-3-haiku-20240307",
]


def git_show(repo, path):
    out = subprocess.run(["git", "-C", repo, "show", f"HEAD:{path}"], capture_output=True, text=True)
    return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]


def read_lines(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def as_calls(answer, functions):
    """The accepted answer in the current dataset's form: a list of one-call dicts (the
    2024 files wrote parallel answers as one dict keyed `name_1`, `name_2`, …)."""
    names = {function["name"] for function in functions}
    calls = []
    for part in answer if isinstance(answer, list) else [answer]:
        for name, arguments in part.items():
            for separator in "_ ":
                base, _, number = name.rpartition(separator)
                if name not in names and base in names and number.isdigit():
                    name = base
            calls.append({name: arguments})
    return calls


def current_dataset():
    functions, answers = {}, {}
    for category in CATEGORIES.values():
        for entry in read_lines(DATA / f"BFCL_v4_{category}.json"):
            functions[entry["id"]] = entry["function"]
        for entry in read_lines(DATA / f"possible_answer/BFCL_v4_{category}.json"):
            answers[entry["id"]] = entry["ground_truth"]
    return functions, answers


# The refusals a host's reading of the reply may mend: kept whole. The others (a
# wrong value, a call left out) are kept one in `keep`, like the accepted replies.
MENDABLE = ("ast_decoder:", "simple_function_checker:wrong_func_name", "type_error:")


def kept(verdict, index, keep):
    mendable = verdict is not None and verdict["error_type"].startswith(MENDABLE)
    return mendable or index % keep == 0


def shown_in_2024(repo):
    """Each question's functions and accepted answer as the 2024 run had them, from
    every model's score files (a question every model answered right is absent)."""
    functions, answers = {}, {}
    listing = subprocess.run(["git", "-C", repo, "ls-tree", "-r", "--name-only", "HEAD", "2024-08-11/score"],
                             capture_output=True, text=True).stdout.split()
    for path in listing:
        old = Path(path).name.removesuffix("_score.json")
        if old not in CATEGORIES:
            continue
        for entry in git_show(repo, path)[1:]:
            prompt = entry.get("prompt")
            if not prompt:
                continue
            case = f"{CATEGORIES[old]}_{prompt['id'].rsplit('_', 1)[1]}"
            seen = prompt["function"] if isinstance(prompt["function"], list) else [prompt["function"]]
            functions.setdefault(case, seen)
            answers.setdefault(case, as_calls(entry["possible_answer"], seen))
    return functions, answers


def invented_names(repo):
    pairs = set()
    listing = subprocess.run(["git", "-C", repo, "ls-tree", "-r", "--name-only", "HEAD", "2024-08-11/score"],
                             capture_output=True, text=True).stdout.split()
    for path in listing:
        for entry in git_show(repo, path)[1:]:
            decoded = entry.get("model_result_decoded")
            if entry.get("error_type") != "simple_function_checker:wrong_func_name" or not isinstance(decoded, list):
                continue
            wanted = as_calls(entry["possible_answer"], [])[0]
            for call in filter(lambda c: isinstance(c, dict), decoded):
                for name in call:
                    if name and not any(c in name for c in "`()\n '\""):
                        pairs.add((name, next(iter(wanted))))
    print("[\n" + ",\n".join(json.dumps(pair) for pair in sorted(pairs)) + "\n]")


def main():
    args = sys.argv[1:]
    if args[:1] == ["--invented-names"]:
        return invented_names(args[1])
    keep = 3
    if args[:1] == ["--keep"]:
        keep, args = int(args[1]), args[2:]
    repo, models = args[0], args[1:] or DEFAULT_MODELS
    functions, answers = current_dataset()
    seen_then, answered_then = shown_in_2024(repo)
    left_out = 0
    for model in models:
        for old, new in CATEGORIES.items():
            results = git_show(repo, f"2024-08-11/result/{model}/gorilla_openfunctions_v1_test_{old}_result.json")
            refused = {e["prompt"]["id"]: e for e in git_show(repo, f"2024-08-11/score/{model}/{old}_score.json")[1:]}
            for result in results:
                reply = result["result"]
                if not isinstance(reply, str):
                    continue
                index = result["id"].rsplit("_", 1)[1]
                case = f"{new}_{index}"
                line = {"model": model, "id": case, "reply": reply}
                verdict = refused.get(result["id"])
                if not kept(verdict, int(index), keep):
                    left_out += 1
                    continue
                if verdict is None:
                    line["accepted"] = True
                else:
                    line.update(accepted=False, error_type=verdict["error_type"])
                    decoded = verdict.get("model_result_decoded")
                    if isinstance(decoded, list) and all(isinstance(c, dict) and len(c) == 1 for c in decoded):
                        line["decoded"] = decoded
                seen = seen_then.get(case, functions.get(case))
                answer = answered_then.get(case, answers.get(case))
                if answer != answers.get(case):
                    line["answer"] = answer
                if seen != functions.get(case):
                    line["functions"] = seen
                print(json.dumps(line, ensure_ascii=False))
    print(f"build.py: {left_out} replies left out (one in {keep} kept)", file=sys.stderr)


if __name__ == "__main__":
    main()

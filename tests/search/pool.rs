//! The tool pools and requests of the tool-search tests and benchmarks, from real
//! data installed by scripts/install-test-data.sh: every function the Berkeley
//! Function Calling Leaderboard defines with each single-function request it asks,
//! and real REST operations of public APIs (tests/search/openapi_tools.py).
//! Included by path (`#[path]`) in tests/all/search.rs and host/benches/search.rs.

#![allow(dead_code, reason = "each includer uses a part")]

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::Value;
use toolhost::{ServerTool, ToolSpec};

/// The categories whose cases ask for one function (once or several times).
const CATEGORIES: [&str; 8] = [
    "simple_python",
    "simple_java",
    "simple_javascript",
    "multiple",
    "parallel",
    "live_simple",
    "live_multiple",
    "live_parallel",
];

/// A tool of a pool: its name, description and parameters (JSON Schema).
pub(crate) struct Tool {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) parameters: Value,
}

/// A request and the tool that answers it.
pub(crate) struct Query {
    pub(crate) text: String,
    pub(crate) expected: String,
}

/// Where scripts/install-test-data.sh puts the data, below the repository's `target/`.
pub(crate) fn data(target: &Path) -> (PathBuf, PathBuf) {
    let bfcl = target.join("bfcl/bfcl_eval/data");
    let rest = target.join("tool-pool/openapi-tools.jsonl");
    for path in [&bfcl, &rest] {
        assert!(
            path.exists(),
            "{} is missing: run scripts/install-test-data.sh (scripts/test.sh does)",
            path.display()
        );
    }
    (bfcl, rest)
}

/// Every function BFCL's data defines (the first definition of each name), and every
/// single-function request with its function.
pub(crate) fn bfcl(dir: &Path) -> (Vec<Tool>, Vec<Query>) {
    let mut tools: BTreeMap<String, Tool> = BTreeMap::new();
    let mut add = |function: &Value| {
        let Some(name) = function["name"].as_str() else { return };
        tools.entry(name.to_string()).or_insert_with(|| Tool {
            name: name.to_string(),
            description: function["description"].as_str().unwrap_or_default().to_string(),
            parameters: function["parameters"].clone(),
        });
    };
    let mut files: Vec<PathBuf> = listing(dir);
    files.extend(listing(&dir.join("multi_turn_func_doc")));
    files.sort();
    for file in &files {
        for case in json_lines(file) {
            case["function"].as_array().into_iter().flatten().for_each(&mut add);
            if case.get("description").is_some() {
                add(&case); // a multi-turn function doc: one function a line
            }
        }
    }
    let mut queries = Vec::new();
    for category in CATEGORIES {
        let answers = json_lines(&dir.join(format!("possible_answer/BFCL_v4_{category}.json")));
        let expected: HashMap<&str, HashSet<&str>> =
            answers.iter().map(|a| (a["id"].as_str().unwrap_or(""), called(a))).collect();
        for case in json_lines(&dir.join(format!("BFCL_v4_{category}.json"))) {
            let Some(functions) = expected.get(case["id"].as_str().unwrap_or("")) else { continue };
            if let [function] = functions.iter().collect::<Vec<_>>()[..] {
                queries.push(Query { text: request(&case), expected: function.to_string() });
            }
        }
    }
    (tools.into_values().collect(), queries)
}

/// `count` REST operations spread evenly over the file.
pub(crate) fn rest(file: &Path, count: usize) -> Vec<Tool> {
    let all = json_lines(file);
    assert!(all.len() >= count, "only {} REST operations for {count}", all.len());
    let step = all.len() as f64 / count.max(1) as f64;
    (0..count)
        .map(|i| &all[(i as f64 * step) as usize])
        .map(|tool| Tool {
            name: tool["name"].as_str().unwrap_or_default().to_string(),
            description: tool["description"].as_str().unwrap_or_default().to_string(),
            parameters: tool["parameters"].clone(),
        })
        .collect()
}

/// The tools as an MCP server plugin's tools.
pub(crate) fn specs(tools: &[Tool]) -> Vec<ToolSpec> {
    let spec = |tool: &Tool| {
        let mut spec = ToolSpec::for_server_tool("pool", ServerTool::new(&tool.name, tool.parameters.clone(), None));
        spec.description = tool.description.clone();
        spec
    };
    tools.iter().map(spec).collect()
}

fn listing(dir: &Path) -> Vec<PathBuf> {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    entries
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect()
}

/// A data file's JSON lines; none when it is not JSON lines (one file is a document).
fn json_lines(file: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let lines = text.lines().filter(|l| !l.trim().is_empty());
    lines.map(serde_json::from_str).collect::<Result<Vec<Value>, _>>().unwrap_or_default()
}

/// The names of the functions a ground truth calls.
fn called(answer: &Value) -> HashSet<&str> {
    let calls = answer["ground_truth"].as_array().into_iter().flatten();
    calls.flat_map(|call| call.as_object().into_iter().flatten().map(|(name, _)| name.as_str())).collect()
}

/// What the user asked: the case's user messages, joined.
fn request(case: &Value) -> String {
    let turns =
        case["question"].as_array().into_iter().flatten().flat_map(|turn| turn.as_array().into_iter().flatten());
    let users = turns.filter(|message| message["role"] == "user").filter_map(|message| message["content"].as_str());
    users.collect::<Vec<_>>().join("\n")
}

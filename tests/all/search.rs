//! Tool search on real data. Quality: every single-function request of the Berkeley
//! Function Calling Leaderboard (its PyPI package's test cases: a user's request and
//! the function that answers it) searched for among every function BFCL defines, then
//! among 10,000 tools (BFCL's and real REST operations of the public APIs in
//! APIs.guru's OpenAPI directory, from npm), ranked by `Registry::search` and, in the
//! same run, by plain BM25 over the same text: recall@1/5/10 and MRR of both. And the
//! search as users reach it: `Host::search_tools` over real components, kept current
//! by a live folder's reload, and `toolhost search`.

use std::collections::HashMap;

use serde_json::Value;
use toolhost::{EmbeddingModel, Host, Registry};

use crate::common;

#[path = "../search/pool.rs"]
mod pool;
use pool::{Query, Tool};

/// Okapi BM25 as it is most often run (rank_bm25's and Lucene's defaults): lower-cased
/// runs of letters, digits and `_` as words, no stemming, no fields: each tool one
/// text of its name, description, parameter names and their descriptions — what the
/// host's index reads, without its reading.
struct PlainBm25 {
    postings: HashMap<String, Vec<(usize, f32)>>,
    tools: usize,
}

impl PlainBm25 {
    const K1: f32 = 1.5;
    const B: f32 = 0.75;

    fn new(tools: &[Tool]) -> PlainBm25 {
        let texts: Vec<Vec<String>> = tools.iter().map(|tool| plain_words(&tool_text(tool))).collect();
        let average = texts.iter().map(Vec::len).sum::<usize>() as f32 / texts.len().max(1) as f32;
        let mut counts: HashMap<String, Vec<(usize, f32)>> = HashMap::new();
        for (tool, words) in texts.iter().enumerate() {
            let mut frequency: HashMap<&str, f32> = HashMap::new();
            words.iter().for_each(|word| *frequency.entry(word).or_default() += 1.0);
            let norm = 1.0 - Self::B + Self::B * words.len() as f32 / average;
            for (word, f) in frequency {
                counts.entry(word.to_string()).or_default().push((tool, f * (Self::K1 + 1.0) / (f + Self::K1 * norm)));
            }
        }
        let n = tools.len() as f32;
        for postings in counts.values_mut() {
            let held = postings.len() as f32;
            let idf = (1.0 + (n - held + 0.5) / (held + 0.5)).ln();
            postings.iter_mut().for_each(|(_, score)| *score *= idf);
        }
        PlainBm25 { postings: counts, tools: tools.len() }
    }

    /// The positions of the best `limit` tools for `query`.
    fn search(&self, query: &str, limit: usize) -> Vec<usize> {
        let mut scores = vec![0f32; self.tools];
        for word in plain_words(query) {
            for &(tool, score) in self.postings.get(&word).map(Vec::as_slice).unwrap_or_default() {
                scores[tool] += score;
            }
        }
        let mut ranked: Vec<usize> = (0..self.tools).filter(|&t| scores[t] > 0.0).collect();
        ranked.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
        ranked.truncate(limit);
        ranked
    }
}

fn plain_words(text: &str) -> Vec<String> {
    let lower = text.to_lowercase();
    lower.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).map(str::to_string).collect()
}

/// A tool's name, description, and its parameters' names and descriptions.
fn tool_text(tool: &Tool) -> String {
    let mut text = format!("{} {}", tool.name, tool.description);
    for (name, schema) in tool.parameters["properties"].as_object().into_iter().flatten() {
        text.push_str(&format!(" {name} {}", schema["description"].as_str().unwrap_or_default()));
    }
    text
}

/// Recall at 1, 5 and 10 and the mean reciprocal rank (within the first 10).
#[derive(Default, Debug, Clone, Copy)]
struct Quality {
    at: [f64; 3],
    mrr: f64,
}

impl Quality {
    /// Of the 1-based ranks of the expected tools (`None`: not in the first 10).
    fn of(ranks: &[Option<usize>]) -> Quality {
        let n = ranks.len() as f64;
        let within = |k: usize| ranks.iter().filter(|r| r.is_some_and(|r| r <= k)).count() as f64 / n;
        let mrr = ranks.iter().map(|r| r.map_or(0.0, |r| 1.0 / r as f64)).sum::<f64>() / n;
        Quality { at: [within(1), within(5), within(10)], mrr }
    }

    fn row(&self, ranker: &str) -> String {
        let [at1, at5, at10] = self.at.map(|r| r * 100.0);
        format!("{ranker:<12} recall@1 {at1:5.1}  @5 {at5:5.1}  @10 {at10:5.1}  MRR {:.3}", self.mrr)
    }
}

/// Both rankers over `tools` for `queries`: (the host's, plain BM25's).
fn measure(tools: &[Tool], queries: &[Query]) -> (Quality, Quality) {
    let registry = Registry::from_specs(pool::specs(tools));
    let position: HashMap<&str, usize> = tools.iter().enumerate().map(|(i, t)| (t.name.as_str(), i)).collect();
    let plain = PlainBm25::new(tools);
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    for query in queries {
        let found = registry.search(&query.text, 10);
        ours.push(found.iter().position(|m| m.name == query.expected).map(|p| p + 1));
        let expected = position[query.expected.as_str()];
        theirs.push(plain.search(&query.text, 10).iter().position(|&t| t == expected).map(|p| p + 1));
    }
    (Quality::of(&ours), Quality::of(&theirs))
}

#[test]
fn search_finds_the_function_a_request_needs_better_than_plain_bm25() {
    let (bfcl_data, rest) = pool::data(&common::root().join("target"));
    let (bfcl, queries) = pool::bfcl(&bfcl_data);
    assert!(bfcl.len() > 1_500 && queries.len() > 1_500, "{} functions, {} requests", bfcl.len(), queries.len());
    let (ours, plain) = measure(&bfcl, &queries);
    println!(
        "{} requests among BFCL's {} functions:\n{}\n{}",
        queries.len(),
        bfcl.len(),
        ours.row("toolhost"),
        plain.row("plain BM25")
    );

    let mut tools = bfcl;
    let distractors = 10_000 - tools.len();
    tools.extend(pool::rest(&rest, distractors));
    let (ours_10k, plain_10k) = measure(&tools, &queries);
    println!(
        "the same among 10,000 tools ({distractors} REST operations):\n{}\n{}",
        ours_10k.row("toolhost"),
        plain_10k.row("plain BM25")
    );

    for (ours, plain) in [(ours, plain), (ours_10k, plain_10k)] {
        assert!(
            ours.at[1] >= plain.at[1] + 0.08,
            "recall@5 {:.3} is not 8 points above plain BM25's {:.3}",
            ours.at[1],
            plain.at[1]
        );
        assert!(ours.mrr > plain.mrr && ours.at[0] > plain.at[0] && ours.at[2] > plain.at[2]);
    }
}

/// The sentence-embedding model scripts/install-test-data.sh installs: all-MiniLM-L6-v2.
fn embedding_model() -> EmbeddingModel {
    let dir = common::root().join("target/embedding-model");
    EmbeddingModel::load(&dir)
        .unwrap_or_else(|e| panic!("{e}: run scripts/install-test-data.sh (scripts/test.sh does)"))
}

#[test]
fn a_host_with_a_model_finds_a_tool_by_meaning_when_no_word_matches() {
    let plugins = common::plugins_with(&["calculator", "units"]);
    let cache = tempfile::tempdir().unwrap();
    let with_model = || {
        let builder = Host::builder().plugin_dir(plugins.path()).cache_dir(cache.path());
        builder.embedding_model(embedding_model()).build().unwrap()
    };
    let query = "how far is a marathon in metres";
    let by_words = common::example_host_shared().search_tools(query, 3);
    assert!(by_words.iter().all(|m| m.name != "convert"), "{by_words:?}");

    // The host embeds its tools on a thread of its own; its searches rank by meaning
    // once that is done.
    let host = with_model();
    let by_meaning = (0..1200).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(50));
        host.search_tools(query, 3).first().is_some_and(|m| m.name == "convert")
    });
    assert!(by_meaning, "{:?}", host.search_tools(query, 3));
    // The finder of a disclosing host searches the same way.
    let shown = host.disclosing(toolhost::Disclosure::new(&["evaluate"]).unwrap());
    let answer = shown.call("find_tools", &serde_json::json!({"query": query, "limit": 3})).unwrap();
    assert_eq!(answer["tools"][0]["name"], "convert", "{answer}");
    drop((host, shown));

    // The vectors were kept in the cache folder: a new host with the same model ranks
    // by meaning from its first search, without making them again.
    let vectors: Vec<_> = std::fs::read_dir(cache.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("vectors-") && name.ends_with(".bin"))
        .collect();
    assert_eq!(vectors.len(), 1, "{vectors:?}");
    let again = with_model();
    assert_eq!(again.search_tools(query, 3)[0].name, "convert");
    again.embed_tools().unwrap();

    let empty = tempfile::tempdir().unwrap();
    let error = EmbeddingModel::load(empty.path()).unwrap_err().to_string();
    assert!(error.contains("config.json"), "{error}");
}

#[test]
fn the_host_searches_its_components_tools_and_keeps_the_index_current() {
    let dir = common::plugins_with(&["calculator", "units"]);
    let host = Host::builder().plugin_dir(dir.path()).cache_dir(common::test_cache_dir()).watch(true).build().unwrap();
    let found = host.search_tools("convert miles to kilometers", 3);
    assert_eq!(found[0].name, "convert", "{found:?}");
    assert!(host.search_tools("greatest common divisor of two numbers", 3).iter().any(|m| m.name == "gcd"));
    assert!(host.search_tools("zebra crossing", 5).is_empty());
    assert!(host.search_tools("text", 5).iter().all(|m| host.tool(&m.name).is_some()));

    // A component added to the live folder is found once the reload has run.
    std::fs::copy(common::plugins_dir().join("text.wasm"), dir.path().join("text.wasm")).unwrap();
    let reloaded = (0..200).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(50));
        host.search_tools("count the words in a text", 3).iter().any(|m| m.name == "word_count")
    });
    assert!(reloaded, "the text component's tools were never found: {:?}", host.search_tools("count words", 3));
}

#[test]
fn a_toolset_searches_only_its_own_tools() {
    let host = common::example_host_shared();
    let math = host.toolset(&["evaluate", "gcd"]).unwrap();
    let found = math.search_tools("convert units divisor evaluate expression", 10);
    let names: Vec<&str> = found.iter().map(|m| m.name.as_str()).collect();
    assert!(names.iter().all(|n| ["evaluate", "gcd"].contains(n)), "{names:?}");
    assert_eq!(names.len(), 2);
}

#[test]
fn the_command_searches_and_prints_json() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(["search", "--plugins"])
        .arg(common::plugins_dir())
        .args(["--json", "-n", "2", "kilometres to miles"])
        .env("TOOLHOST_CACHE_DIR", common::test_cache_dir())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let found: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(found[0]["name"], "convert", "{found}");
    assert_eq!(found.as_array().unwrap().len(), 2);
    assert!(found[0]["parameters"]["properties"].is_object() && found[0]["description"].is_string());

    let none = std::process::Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(["search", "--plugins"])
        .arg(common::plugins_dir())
        .arg("zebra crossing")
        .env("TOOLHOST_CACHE_DIR", common::test_cache_dir())
        .output()
        .unwrap();
    assert_eq!(none.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&none.stderr).contains("no tool shares a word"), "{none:?}");
}

#[test]
fn the_command_searches_by_meaning_with_a_model_and_names_one_it_cannot_read() {
    let plugins = common::plugins_with(&["calculator", "units"]);
    let search = |model: &std::path::Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_toolhost"))
            .args(["search", "--json", "-n", "1", "--plugins"])
            .arg(plugins.path())
            .arg("--embedding-model")
            .arg(model)
            .arg("how far is a marathon in metres")
            .env("TOOLHOST_CACHE_DIR", common::test_cache_dir())
            .output()
            .unwrap()
    };
    let output = search(&common::root().join("target/embedding-model"));
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let found: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(found[0]["name"], "convert", "{found}");

    let empty = tempfile::tempdir().unwrap();
    let output = search(empty.path());
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success() && error.contains("--embedding-model") && error.contains("config.json"),
        "{error}"
    );
}

//! Measures what ranking by meaning adds to tool search (the `semantic` feature), on
//! real data: every single-function request of BFCL searched for among every function
//! BFCL defines, then among 10,000 tools (BFCL's and real REST operations), by words
//! alone (`Registry::search`) and by words and meaning fused
//! (`Registry::search_by_meaning`, all-MiniLM-L6-v2). It embeds about 14,500 texts,
//! so it is run by hand rather than with the tests (BENCHMARKS.md, "Issue 45"):
//!
//! ```sh
//! scripts/install-test-data.sh && cargo run -p toolhost-cli --example search-by-meaning
//! ```

use std::path::Path;
use std::time::Instant;

use toolhost::{EmbeddingModel, Registry, ToolMatch};

#[path = "pool.rs"]
mod pool;

fn main() {
    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target");
    let model = EmbeddingModel::load(&target.join("embedding-model")).expect("run scripts/install-test-data.sh");
    let (bfcl_data, rest) = pool::data(&target);
    let (mut tools, queries) = pool::bfcl(&bfcl_data);
    println!("{} requests among BFCL's {} functions:", queries.len(), tools.len());
    measure(&model, &tools, &queries);
    let distractors = 10_000 - tools.len();
    tools.extend(pool::rest(&rest, distractors));
    println!("the same among {} tools (BFCL's and real REST operations):", tools.len());
    measure(&model, &tools, &queries);
}

/// Searches `tools` for each of `queries` by words, then by words and meaning, and
/// prints the quality of each with the time the model took.
fn measure(model: &EmbeddingModel, tools: &[pool::Tool], queries: &[pool::Query]) {
    let registry = Registry::from_specs(pool::specs(tools));
    let started = Instant::now();
    registry.embed_tools(model).expect("the model embeds the tools");
    println!("  the tools' vectors (those not made before) in {:.1} s", started.elapsed().as_secs_f64());
    let rank = |found: Vec<ToolMatch>, expected: &str| found.iter().position(|m| m.name == expected).map(|p| p + 1);
    let (mut words, mut both) = (Vec::new(), Vec::new());
    let started = Instant::now();
    for query in queries {
        words.push(rank(registry.search(&query.text, 10), &query.expected));
        both.push(rank(registry.search_by_meaning(model, &query.text, 10), &query.expected));
    }
    let each = started.elapsed().as_secs_f64() * 1000.0 / queries.len() as f64;
    println!("  {}", row("words", &words));
    println!("  {}", row("+ meaning", &both));
    println!("  {each:.1} ms a request (both searches, the query embedded once)");
}

/// Recall at 1, 5 and 10 and the mean reciprocal rank of 1-based `ranks` (within 10).
fn row(ranker: &str, ranks: &[Option<usize>]) -> String {
    let n = ranks.len() as f64;
    let within = |k: usize| 100.0 * ranks.iter().filter(|r| r.is_some_and(|r| r <= k)).count() as f64 / n;
    let mrr = ranks.iter().map(|r| r.map_or(0.0, |r| 1.0 / r as f64)).sum::<f64>() / n;
    format!("{ranker:<10} recall@1 {:5.1}  @5 {:5.1}  @10 {:5.1}  MRR {mrr:.3}", within(1), within(5), within(10))
}

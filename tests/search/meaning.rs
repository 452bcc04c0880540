//! Measures what ranking by meaning adds to tool search (the `semantic` feature), on
//! real data: every single-function request of BFCL searched for among every function
//! BFCL defines, by words alone (`Registry::search`) and by words and meaning fused
//! (`Registry::search_by_meaning`, all-MiniLM-L6-v2). It embeds about 4,300 texts, so
//! it is run by hand rather than with the tests (BENCHMARKS.md, "Issue 45"):
//!
//! ```sh
//! scripts/install-test-data.sh && cargo run -p toolhost-cli --example search-by-meaning
//! ```

use std::path::Path;

use toolhost::{EmbeddingModel, Registry, ToolMatch};

#[path = "pool.rs"]
mod pool;

fn main() {
    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target");
    let model = EmbeddingModel::load(&target.join("embedding-model")).expect("run scripts/install-test-data.sh");
    let (bfcl, queries) = pool::bfcl(&pool::data(&target).0);
    let registry = Registry::from_specs(pool::specs(&bfcl));
    let rank = |found: Vec<ToolMatch>, expected: &str| found.iter().position(|m| m.name == expected).map(|p| p + 1);
    let (mut words, mut both) = (Vec::new(), Vec::new());
    for query in &queries {
        words.push(rank(registry.search(&query.text, 10), &query.expected));
        both.push(rank(registry.search_by_meaning(&model, &query.text, 10), &query.expected));
    }
    println!("{} requests among BFCL's {} functions:", queries.len(), bfcl.len());
    println!("{}", row("words", &words));
    println!("{}", row("+ meaning", &both));
}

/// Recall at 1, 5 and 10 and the mean reciprocal rank of 1-based `ranks` (within 10).
fn row(ranker: &str, ranks: &[Option<usize>]) -> String {
    let n = ranks.len() as f64;
    let within = |k: usize| 100.0 * ranks.iter().filter(|r| r.is_some_and(|r| r <= k)).count() as f64 / n;
    let mrr = ranks.iter().map(|r| r.map_or(0.0, |r| 1.0 / r as f64)).sum::<f64>() / n;
    format!("{ranker:<10} recall@1 {:5.1}  @5 {:5.1}  @10 {:5.1}  MRR {mrr:.3}", within(1), within(5), within(10))
}

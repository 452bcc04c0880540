//! Ranking tools by meaning (the `semantic` feature): a sentence-embedding model the
//! user points to, run in-process on the CPU, turns each tool's text and each query
//! into a vector; a search ranks the tools by the cosine of their vectors to the
//! query's and fuses that ranking with the lexical one (reciprocal rank fusion). The
//! default build has none of it, and no model ships with toolhost.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use tokenizers::{PaddingParams, Tokenizer, TruncationParams};

use super::ToolMatch;
use crate::mutex::lock;
use crate::tool::ToolSpec;

/// The most tokens of a text the model reads (the rest of a long description is cut:
/// a tool's name and the start of its description say most of what it does).
const MAX_TOKENS: usize = 128;
/// Texts embedded at once.
const BATCH: usize = 16;
/// How many tools the ranking by meaning gives the fusion (and the lexical at least).
pub(crate) const FUSED_FROM: usize = 50;
/// Reciprocal rank fusion's constant: a tool at rank `r` (from 0) in a ranking scores
/// `1 / (K + r + 1)` from it. 60 is the value of the method's paper, not tuned here.
const FUSION_K: f32 = 60.0;

/// Why an embedding model could not be loaded or run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// A file of the model's folder is missing or does not read.
    #[error("{}: {reason}", path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The model failed on some text (a bug or a broken model, not bad input).
    #[error("the embedding model failed: {0}")]
    Failed(String),
}

/// A sentence-embedding model of the BERT family (all-MiniLM-L6-v2, bge-small,
/// e5-small, …) as sentence-transformers saves one: a folder with `config.json`,
/// `tokenizer.json` and `model.safetensors`. Its vectors are the mean of the last
/// layer over a text's tokens, normalised. Give it to
/// [`crate::HostBuilder::embedding_model`].
///
/// ```no_run
/// let model = toolhost::EmbeddingModel::load("models/all-MiniLM-L6-v2".as_ref())?;
/// let host = toolhost::Host::builder().plugin_dir("plugins").embedding_model(model).build()?;
/// let found = host.search_tools("what will the weather be tomorrow", 5);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct EmbeddingModel {
    model: BertModel,
    tokenizer: Tokenizer,
    device: Device,
    /// Each tool text's vector, kept across reloads: a reload embeds only what changed.
    known: Mutex<HashMap<String, Arc<[f32]>>>,
}

impl std::fmt::Debug for EmbeddingModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddingModel").finish_non_exhaustive()
    }
}

impl EmbeddingModel {
    /// Loads the model in `dir` (see [`EmbeddingModel`]); a file that is missing or
    /// does not read is an error naming it.
    pub fn load(dir: &Path) -> Result<EmbeddingModel, ModelError> {
        let file = |name: &str| dir.join(name);
        let unreadable = |path: PathBuf| {
            move |error: &dyn std::fmt::Display| ModelError::Unreadable { reason: error.to_string(), path }
        };
        let read = |path: PathBuf| std::fs::read(&path).map_err(|e| unreadable(path.clone())(&e));

        let config: Config =
            serde_json::from_slice(&read(file("config.json"))?).map_err(|e| unreadable(file("config.json"))(&e))?;
        let mut tokenizer =
            Tokenizer::from_file(file("tokenizer.json")).map_err(|e| unreadable(file("tokenizer.json"))(&e))?;
        let truncation = TruncationParams { max_length: MAX_TOKENS, ..TruncationParams::default() };
        tokenizer.with_truncation(Some(truncation)).map_err(|e| unreadable(file("tokenizer.json"))(&e))?;
        tokenizer.with_padding(Some(PaddingParams::default()));
        let device = Device::Cpu;
        let weights = file("model.safetensors");
        let variables = VarBuilder::from_buffered_safetensors(read(weights.clone())?, DType::F32, &device)
            .map_err(|e| unreadable(weights.clone())(&e))?;
        let model = BertModel::load(variables, &config).map_err(|e| unreadable(weights)(&e))?;
        Ok(EmbeddingModel { model, tokenizer, device, known: Mutex::new(HashMap::new()) })
    }

    /// The normalised vector of each of `texts`. Texts of like length are embedded
    /// together: a batch is as long as its longest text, the rest padding.
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, ModelError> {
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| texts[i].len());
        let mut vectors = vec![Vec::new(); texts.len()];
        for batch in order.chunks(BATCH) {
            let batch_texts: Vec<&str> = batch.iter().map(|&i| texts[i]).collect();
            let embedded = self.embed_batch(&batch_texts).map_err(|e| ModelError::Failed(e.to_string()))?;
            for (&i, vector) in batch.iter().zip(embedded) {
                vectors[i] = vector;
            }
        }
        Ok(vectors)
    }

    /// One batch through the model: token ids, the last layer, its mean over each
    /// text's tokens (padding left out), normalised.
    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, Box<dyn std::error::Error + Send + Sync>> {
        let encodings = self.tokenizer.encode_batch(texts.to_vec(), true)?;
        let rows = |part: fn(&tokenizers::Encoding) -> &[u32]| -> candle_core::Result<Tensor> {
            let rows: Vec<Tensor> =
                encodings.iter().map(|e| Tensor::new(part(e), &self.device)).collect::<candle_core::Result<_>>()?;
            Tensor::stack(&rows, 0)
        };
        let ids = rows(tokenizers::Encoding::get_ids)?;
        let mask = rows(tokenizers::Encoding::get_attention_mask)?;
        let hidden = self.model.forward(&ids, &ids.zeros_like()?, Some(&mask))?;
        let mask = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
        let summed = hidden.broadcast_mul(&mask)?.sum(1)?;
        let mean = summed.broadcast_div(&mask.sum(1)?)?;
        let norm = mean.sqr()?.sum_keepdim(1)?.sqrt()?;
        Ok(mean.broadcast_div(&norm)?.to_vec2::<f32>()?)
    }

    /// The vector of each of `texts`, those embedded before taken as they were.
    fn vectors(&self, texts: &[String]) -> Result<Vec<Arc<[f32]>>, ModelError> {
        let new: Vec<&str> = {
            let known = lock(&self.known);
            let mut new: Vec<&str> = texts.iter().map(String::as_str).filter(|t| !known.contains_key(*t)).collect();
            new.dedup();
            new
        };
        let embedded = self.embed(&new)?;
        let mut known = lock(&self.known);
        for (text, vector) in new.into_iter().zip(embedded) {
            known.insert(text.to_string(), vector.into());
        }
        Ok(texts.iter().map(|text| known[text].clone()).collect())
    }
}

/// The vectors of a registry's tools, in the order of its specs.
#[derive(Debug, Clone)]
pub(crate) struct SemanticIndex {
    names: Vec<String>,
    vectors: Vec<Arc<[f32]>>,
}

impl SemanticIndex {
    /// Embeds `specs` with `model` (what it embedded before is reused).
    pub(crate) fn new<'a>(
        model: &EmbeddingModel,
        specs: impl Iterator<Item = &'a ToolSpec>,
    ) -> Result<SemanticIndex, ModelError> {
        let (names, texts): (Vec<String>, Vec<String>) = specs.map(|spec| (spec.name.clone(), text_of(spec))).unzip();
        Ok(SemanticIndex { vectors: model.vectors(&texts)?, names })
    }

    /// The tools nearest in meaning to `query`, best first, at most `limit`.
    pub(crate) fn search(
        &self,
        model: &EmbeddingModel,
        query: &str,
        limit: usize,
    ) -> Result<Vec<ToolMatch>, ModelError> {
        let query = model.embed(&[query])?.pop().unwrap_or_default();
        let cosine = |vector: &[f32]| vector.iter().zip(&query).map(|(a, b)| a * b).sum::<f32>();
        let mut scored: Vec<(usize, f32)> = self.vectors.iter().map(|v| cosine(v)).enumerate().collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored.truncate(limit);
        Ok(scored.into_iter().map(|(tool, score)| ToolMatch { name: self.names[tool].clone(), score }).collect())
    }
}

/// What a tool's vector is made of: its name, what it does, and its parameters.
fn text_of(spec: &ToolSpec) -> String {
    let mut text = format!("{}: {}", spec.name, spec.description);
    let schema = spec.parameters_schema();
    for (name, parameter) in schema["properties"].as_object().into_iter().flatten() {
        let about = parameter["description"].as_str().unwrap_or_default();
        text.push_str(&format!(" {name}: {about}"));
    }
    text
}

/// The two rankings fused by reciprocal rank: each tool scores `1 / (K + rank + 1)`
/// from each ranking it is in, best first; a tie keeps the lexical order.
pub(crate) fn fuse(lexical: &[ToolMatch], semantic: &[ToolMatch], limit: usize) -> Vec<ToolMatch> {
    let mut scores: Vec<(String, f32)> = Vec::new();
    let mut at: HashMap<&str, usize> = HashMap::new();
    for ranking in [lexical, semantic] {
        for (rank, found) in ranking.iter().enumerate() {
            let share = 1.0 / (FUSION_K + rank as f32 + 1.0);
            match at.get(found.name.as_str()) {
                Some(&i) => scores[i].1 += share,
                None => {
                    at.insert(&found.name, scores.len());
                    scores.push((found.name.clone(), share));
                }
            }
        }
    }
    scores.sort_by(|a, b| b.1.total_cmp(&a.1));
    scores.truncate(limit);
    scores.into_iter().map(|(name, score)| ToolMatch { name, score }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranked(names: &[&str]) -> Vec<ToolMatch> {
        names.iter().map(|name| ToolMatch { name: (*name).to_string(), score: 1.0 }).collect()
    }

    #[test]
    fn fusion_puts_what_both_rank_well_first_and_keeps_the_lexical_order_on_ties() {
        let fused = fuse(&ranked(&["a", "b", "c"]), &ranked(&["b", "d"]), 10);
        let names: Vec<&str> = fused.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["b", "a", "d", "c"]);
        assert_eq!(fuse(&ranked(&["a", "b"]), &ranked(&["b", "a"]), 1)[0].name, "a");
    }
}

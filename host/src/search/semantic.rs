//! Ranking tools by meaning (the `semantic` feature): a sentence-embedding model the
//! user points to, run in-process on the CPU, turns each tool's text and each query
//! into a vector; a search ranks the tools by the cosine of their vectors to the
//! query's and fuses that ranking with the lexical one (reciprocal rank fusion). The
//! vectors are remembered by the text they were made from, in memory and, in a host's
//! cache folder, on disk. The default build has none of it, and no model ships with
//! toolhost.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

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
    /// What the model is: a digest of its three files, so that vectors kept on disk
    /// are only ever read back by the same model.
    id: blake3::Hash,
    /// Each tool text's vector by the digest of the text, kept across reloads: a
    /// reload embeds only what changed.
    known: Mutex<HashMap<TextKey, Arc<[f32]>>>,
    /// The file the vectors are kept in, once a host with a cache folder has it.
    file: OnceLock<PathBuf>,
}

/// A text's digest: what a vector is remembered by.
type TextKey = [u8; 32];

fn text_key(text: &str) -> TextKey {
    *blake3::hash(text.as_bytes()).as_bytes()
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
        let weight_bytes = read(weights.clone())?;
        let mut id = blake3::Hasher::new();
        for part in ["config.json", "tokenizer.json"] {
            id.update(&read(file(part))?);
        }
        let id = id.update(&weight_bytes).finalize();
        let variables = VarBuilder::from_buffered_safetensors(weight_bytes, DType::F32, &device)
            .map_err(|e| unreadable(weights.clone())(&e))?;
        let model = BertModel::load(variables, &config).map_err(|e| unreadable(weights)(&e))?;
        let (known, file) = (Mutex::new(HashMap::new()), OnceLock::new());
        Ok(EmbeddingModel { model, tokenizer, device, id, known, file })
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

    /// The vector of each of `texts`: those made before as they were, the others made
    /// now (and kept in the model's file, if it has one).
    fn vectors(&self, texts: &[String]) -> Result<Vec<Arc<[f32]>>, ModelError> {
        let keys: Vec<TextKey> = texts.iter().map(|text| text_key(text)).collect();
        let new: Vec<(TextKey, &str)> = {
            let known = lock(&self.known);
            let mut seen = HashSet::new();
            let unknown = keys.iter().zip(texts).filter(|(key, _)| !known.contains_key(*key) && seen.insert(**key));
            unknown.map(|(key, text)| (*key, text.as_str())).collect()
        };
        let embedded = self.embed(&new.iter().map(|(_, text)| *text).collect::<Vec<_>>())?;
        let mut known = lock(&self.known);
        for ((key, _), vector) in new.iter().zip(embedded) {
            known.insert(*key, vector.into());
        }
        if !new.is_empty() {
            self.save(&known);
        }
        Ok(keys.iter().map(|key| known[key].clone()).collect())
    }

    /// The vector of each of `texts` if every one was made before, without running
    /// the model.
    fn known_vectors(&self, texts: &[String]) -> Option<Vec<Arc<[f32]>>> {
        let known = lock(&self.known);
        texts.iter().map(|text| known.get(&text_key(text)).cloned()).collect()
    }

    /// Forgets every vector but those of `index` (the vectors of tools no longer
    /// served), in memory and on disk.
    pub(crate) fn forget_all_but(&self, index: &SemanticIndex) {
        let keep: HashSet<&TextKey> = index.keys.iter().collect();
        let mut known = lock(&self.known);
        let before = known.len();
        known.retain(|key, _| keep.contains(key));
        if known.len() != before {
            self.save(&known);
        }
    }

    /// Keeps the vectors in `dir` (a host's cache folder): reads those this model made
    /// there before and, if `writable`, writes what it makes from now on. A file that
    /// does not read is ignored (the vectors are made again).
    pub(crate) fn keep_vectors_in(&self, dir: &Path, writable: bool) {
        let path = dir.join(format!("vectors-{}.bin", &self.id.to_hex()[..32]));
        match std::fs::read(&path) {
            Ok(bytes) => match read_vectors(&bytes) {
                Some(vectors) => lock(&self.known).extend(vectors),
                None => tracing::warn!("{}: not a file of vectors; they will be made again", path.display()),
            },
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => tracing::warn!("{}: {error}; the vectors will be made again", path.display()),
        }
        if writable {
            let _ = self.file.set(path);
        }
    }

    /// Writes `known` to the model's file, if it has one: whole, to a file beside it
    /// first, then renamed over it, so a reader never sees half of one.
    fn save(&self, known: &HashMap<TextKey, Arc<[f32]>>) {
        let Some(path) = self.file.get() else { return };
        let partial = path.with_extension(format!("{}.partial", std::process::id()));
        let written = std::fs::File::create(&partial)
            .and_then(|file| {
                let mut out = std::io::BufWriter::new(file);
                write_vectors(&mut out, known)?;
                out.into_inner().map_err(std::io::IntoInnerError::into_error)?.sync_all()
            })
            .and_then(|()| std::fs::rename(&partial, path));
        if let Err(error) = written {
            let _ = std::fs::remove_file(&partial);
            tracing::warn!("{}: the vectors could not be kept: {error}", path.display());
        }
    }
}

/// The first line of a file of vectors.
const VECTORS_HEADER: &[u8] = b"toolhost vectors 1\n";

/// A file of vectors: the header, each vector's length (a little-endian `u32`), then
/// each text's digest followed by its vector (little-endian `f32`s). Written by hand:
/// a flat file of fixed-size records needs no serialisation crate.
fn write_vectors(out: &mut impl Write, known: &HashMap<TextKey, Arc<[f32]>>) -> std::io::Result<()> {
    let length = known.values().next().map_or(0, |vector| vector.len());
    out.write_all(VECTORS_HEADER)?;
    out.write_all(&(length as u32).to_le_bytes())?;
    for (key, vector) in known {
        out.write_all(key)?;
        for value in vector.iter() {
            out.write_all(&value.to_le_bytes())?;
        }
    }
    Ok(())
}

/// The vectors of a file [`write_vectors`] wrote, or `None` if it is not one.
fn read_vectors(bytes: &[u8]) -> Option<Vec<(TextKey, Arc<[f32]>)>> {
    let rest = bytes.strip_prefix(VECTORS_HEADER)?;
    let (length, rest) = rest.split_first_chunk::<4>()?;
    let length = u32::from_le_bytes(*length) as usize;
    let record = 32 + 4 * length;
    if length == 0 || rest.len() % record != 0 {
        return rest.is_empty().then(Vec::new);
    }
    let vector =
        |bytes: &[u8]| bytes.chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().unwrap_or_default())).collect();
    Some(rest.chunks_exact(record).map(|r| (r[..32].try_into().unwrap_or_default(), vector(&r[32..]))).collect())
}

/// The vectors of a registry's tools, in the order of its specs.
#[derive(Debug, Clone)]
pub(crate) struct SemanticIndex {
    names: Vec<String>,
    keys: Vec<TextKey>,
    vectors: Vec<Arc<[f32]>>,
}

impl SemanticIndex {
    /// Embeds `specs` with `model` (what it embedded before is reused).
    pub(crate) fn new<'a>(
        model: &EmbeddingModel,
        specs: impl Iterator<Item = &'a ToolSpec>,
    ) -> Result<SemanticIndex, ModelError> {
        let (names, texts) = names_and_texts(specs);
        let vectors = model.vectors(&texts)?;
        Ok(SemanticIndex { keys: texts.iter().map(|text| text_key(text)).collect(), names, vectors })
    }

    /// The index of `specs` if `model` has made every one's vector before, without
    /// running it.
    pub(crate) fn known<'a>(
        model: &EmbeddingModel,
        specs: impl Iterator<Item = &'a ToolSpec>,
    ) -> Option<SemanticIndex> {
        let (names, texts) = names_and_texts(specs);
        let vectors = model.known_vectors(&texts)?;
        Some(SemanticIndex { keys: texts.iter().map(|text| text_key(text)).collect(), names, vectors })
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

/// Each tool's name and the text its vector is made of.
fn names_and_texts<'a>(specs: impl Iterator<Item = &'a ToolSpec>) -> (Vec<String>, Vec<String>) {
    specs.map(|spec| (spec.name.clone(), text_of(spec))).unzip()
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

    #[test]
    fn a_file_of_vectors_reads_back_as_written_and_anything_else_is_refused() {
        let known: HashMap<TextKey, Arc<[f32]>> =
            [(text_key("a"), vec![0.5, -1.0].into()), (text_key("b"), vec![2.0, 0.25].into())].into();
        let mut bytes = Vec::new();
        write_vectors(&mut bytes, &known).unwrap();
        let read: HashMap<TextKey, Arc<[f32]>> = read_vectors(&bytes).unwrap().into_iter().collect();
        assert_eq!(read, known);
        assert!(read_vectors(&bytes[..bytes.len() - 1]).is_none());
        assert!(read_vectors(b"something else").is_none());
        let mut empty = Vec::new();
        write_vectors(&mut empty, &HashMap::new()).unwrap();
        assert_eq!(read_vectors(&empty), Some(Vec::new()));
    }
}

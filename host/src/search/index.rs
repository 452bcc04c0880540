//! The search index: for each stem, the tools whose name, description or parameters
//! hold it, with the score it adds to each (BM25F: a word counts more in a tool's
//! name than in its description, and more in a short text than in a long one), so a
//! query adds up a few lists and keeps the best.

use rustc_hash::FxHashMap as HashMap;

use serde_json::Value;

use super::words::Words;
use crate::tool::ToolSpec;

/// How much a word counts, by where it stands in a tool.
#[derive(Debug, Clone, Copy)]
struct Field {
    weight: f32,
    /// How much a longer text of this kind lowers each of its words (BM25's `b`).
    length_norm: f32,
}

/// The name's words: the strongest evidence of what a tool does.
const NAME: Field = Field { weight: 3.0, length_norm: 0.5 };
/// The description the model sees.
const DESCRIPTION: Field = Field { weight: 1.0, length_norm: 0.75 };
/// Parameter names, their descriptions and enumerated values.
const PARAMETERS: Field = Field { weight: 0.5, length_norm: 0.75 };
const FIELDS: [Field; 3] = [NAME, DESCRIPTION, PARAMETERS];

/// How soon a word's repeats stop adding (BM25's `k1`).
const SATURATION: f32 = 1.2;

/// How deep into a parameter schema's nested objects and arrays words are taken.
const SCHEMA_DEPTH: usize = 4;

/// The tools holding one stem.
#[derive(Debug, Clone)]
struct Posting {
    /// BM25's idf of the stem.
    rarity: f32,
    /// Each tool holding it (by position, ascending) and the score it adds to it.
    tools: Vec<(u32, f32)>,
}

/// A tool a search found: its position among the specs the index was built from,
/// its score, and how much of the query it holds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Hit {
    pub(crate) tool: usize,
    pub(crate) score: f32,
    /// The share of the query's words it holds, each weighted by its rarity (a word
    /// no tool holds weighs as much as the rarest): 1 when it holds them all.
    pub(crate) coverage: f32,
}

/// The stems of one tool, by field, each by its number in the [`StemCache`].
struct Document {
    fields: [Vec<u32>; 3],
}

/// Tools by the stems they hold; built once per registry.
#[derive(Debug, Clone, Default)]
pub(crate) struct SearchIndex {
    /// Stem → how rare it is, and the tools holding it, each with the score the stem
    /// adds to it.
    postings: HashMap<String, Posting>,
    /// Every stem, sorted: a query word that begins a longer stem finds it.
    vocabulary: Vec<String>,
    tools: usize,
}

impl SearchIndex {
    /// The index of `specs`; a tool is known by its position among them.
    pub(crate) fn new<'a>(specs: impl IntoIterator<Item = &'a ToolSpec>) -> SearchIndex {
        let mut stems = StemCache::default();
        let documents: Vec<Document> = specs.into_iter().map(|spec| stems.document(spec)).collect();
        let mut average = [0f32; 3];
        for document in &documents {
            for (field, stems) in document.fields.iter().enumerate() {
                average[field] += stems.len() as f32;
            }
        }
        let count = documents.len().max(1) as f32;
        let average = average.map(|total| (total / count).max(1.0));

        // Each tool's weighted frequency of each stem (by stem, in tool order), then
        // BM25's saturation and rarity.
        let mut frequencies: Vec<Vec<(u32, f32)>> = vec![Vec::new(); stems.stems.len()];
        for (tool, document) in documents.iter().enumerate() {
            for ((field_stems, field), average) in document.fields.iter().zip(FIELDS).zip(average) {
                let length = field_stems.len() as f32 / average;
                let per_word = field.weight / (1.0 - field.length_norm + field.length_norm * length);
                for &stem in field_stems {
                    let tools = &mut frequencies[stem as usize];
                    match tools.last_mut() {
                        Some((last, frequency)) if *last == tool as u32 => *frequency += per_word,
                        _ => tools.push((tool as u32, per_word)),
                    }
                }
            }
        }
        let mut postings = HashMap::with_capacity_and_hasher(frequencies.len(), Default::default());
        for (stem, mut tools) in std::mem::take(&mut stems.stems).into_iter().zip(frequencies) {
            let rarity = rarity(documents.len(), tools.len());
            for (_, frequency) in &mut tools {
                *frequency = rarity * *frequency * (SATURATION + 1.0) / (*frequency + SATURATION);
            }
            tools.shrink_to_fit();
            postings.insert(stem, Posting { rarity, tools });
        }
        let mut vocabulary: Vec<String> = postings.keys().cloned().collect();
        vocabulary.sort_unstable();
        SearchIndex { postings, vocabulary, tools: documents.len() }
    }

    /// The tools that best fit `query`, best first, at most `limit`. Ties go to the
    /// earlier tool; a tool that shares no word with the query is not listed.
    pub(crate) fn search(&self, query: &str, limit: usize) -> Vec<Hit> {
        if limit == 0 || self.tools == 0 {
            return Vec::new();
        }
        let mut stems = Words::default().stems(query);
        stems.sort_unstable();
        stems.dedup();
        let mut found =
            Found { scores: vec![0.0; self.tools], held: vec![0.0; self.tools], last: vec![u32::MAX; self.tools] };
        let mut whole = 0f32;
        for (word, stem) in stems.iter().enumerate() {
            let rarity = self.postings.get(stem).map_or(self.rarest(), |posting| posting.rarity);
            whole += rarity;
            self.add(stem, word as u32, 1.0, rarity, &mut found);
            for longer in self.longer_stems(stem) {
                self.add(longer, word as u32, PREFIX_WEIGHT, rarity, &mut found);
            }
        }
        best(&found.scores, limit)
            .into_iter()
            .map(|(tool, score)| Hit { tool, score, coverage: found.held[tool] / whole.max(f32::MIN_POSITIVE) })
            .collect()
    }

    /// Adds `weight` times what `stem` scores to each tool holding it, and credits
    /// each with `weight` times the query word's `rarity`, once per query `word`.
    fn add(&self, stem: &str, word: u32, weight: f32, rarity: f32, found: &mut Found) {
        let Some(posting) = self.postings.get(stem) else { return };
        for &(tool, score) in &posting.tools {
            let tool = tool as usize;
            found.scores[tool] += weight * score;
            if found.last[tool] != word {
                found.last[tool] = word;
                found.held[tool] += weight * rarity;
            }
        }
    }

    /// The rarity of a stem only one tool holds: what a word no tool holds weighs.
    fn rarest(&self) -> f32 {
        rarity(self.tools, 1)
    }

    /// The stems that `stem` begins (`calc` → `calcul`), when it is long enough to
    /// say something and holds no stem of its own.
    fn longer_stems<'s>(&'s self, stem: &'s str) -> impl Iterator<Item = &'s String> + 's {
        let usable = stem.chars().count() >= MIN_PREFIX && !self.postings.contains_key(stem);
        let start =
            if usable { self.vocabulary.partition_point(|word| word.as_str() < stem) } else { self.vocabulary.len() };
        self.vocabulary[start..].iter().take_while(move |word| word.starts_with(stem)).take(MAX_PREFIX_EXPANSIONS)
    }
}

/// A search's tally, by tool: its score, the rarity-weighted share of the query it
/// holds, and the last query word credited to it (a word found in several longer
/// stems is credited once).
struct Found {
    scores: Vec<f32>,
    held: Vec<f32>,
    last: Vec<u32>,
}

/// How much a stem found by its beginning counts against one found whole.
const PREFIX_WEIGHT: f32 = 0.5;
/// The fewest characters a query word needs to stand for longer words.
const MIN_PREFIX: usize = 3;
/// The most longer stems one query word stands for.
const MAX_PREFIX_EXPANSIONS: usize = 16;

/// How rare a stem held by `holding` of `tools` tools is (BM25's idf, never
/// negative: a stem every tool holds still counts a little).
fn rarity(tools: usize, holding: usize) -> f32 {
    let (tools, holding) = (tools as f32, holding as f32);
    (1.0 + (tools - holding + 0.5) / (holding + 0.5)).ln()
}

/// The `limit` highest positive scores, best first, ties to the earlier tool.
fn best(scores: &[f32], limit: usize) -> Vec<(usize, f32)> {
    let mut found: Vec<(usize, f32)> = scores.iter().copied().enumerate().filter(|&(_, score)| score > 0.0).collect();
    let by_rank = |a: &(usize, f32), b: &(usize, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if found.len() > limit {
        found.select_nth_unstable_by(limit - 1, by_rank);
        found.truncate(limit);
    }
    found.sort_unstable_by(by_rank);
    found
}

/// Stems of the words met so far, each stem known by a number: tools share most of
/// their words, and stemming a word again, or keeping its stems as text per tool,
/// costs more than looking it up.
#[derive(Default)]
struct StemCache {
    words: Words,
    /// A word as the text has it (between spaces) → its stems' numbers.
    seen: HashMap<String, Vec<u32>>,
    /// Each stem, by its number.
    stems: Vec<String>,
    numbers: HashMap<String, u32>,
}

impl StemCache {
    /// `spec`'s stems, by field.
    fn document(&mut self, spec: &ToolSpec) -> Document {
        let mut fields: [Vec<u32>; 3] = Default::default();
        let [name, description, parameters] = &mut fields;
        self.add(&spec.name, name);
        self.add(&spec.description, description);
        schema_words(&spec.parameters_schema(), SCHEMA_DEPTH, &mut |text| self.add(text, parameters));
        Document { fields }
    }

    /// Adds the numbers of `text`'s stems to `into`.
    fn add(&mut self, text: &str, into: &mut Vec<u32>) {
        for word in text.split_whitespace() {
            if let Some(known) = self.seen.get(word) {
                into.extend_from_slice(known);
                continue;
            }
            let numbers: Vec<u32> = self.words.stems(word).into_iter().map(|stem| self.number(stem)).collect();
            into.extend_from_slice(&numbers);
            self.seen.insert(word.to_string(), numbers);
        }
    }

    /// The number of `stem`, given it if it has none.
    fn number(&mut self, stem: String) -> u32 {
        if let Some(&number) = self.numbers.get(&stem) {
            return number;
        }
        let number = self.stems.len() as u32;
        self.numbers.insert(stem.clone(), number);
        self.stems.push(stem);
        number
    }
}

/// Calls `found` with the text a parameter schema gives a model: each property's
/// name, each description and title, each enumerated string, `depth` levels deep.
fn schema_words(schema: &Value, depth: usize, found: &mut impl FnMut(&str)) {
    let Some(schema) = schema.as_object() else { return };
    for key in ["description", "title"] {
        if let Some(text) = schema.get(key).and_then(Value::as_str) {
            found(text);
        }
    }
    for value in schema.get("enum").and_then(Value::as_array).into_iter().flatten() {
        if let Some(text) = value.as_str() {
            found(text);
        }
    }
    if depth == 0 {
        return;
    }
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (name, property) in properties {
            found(name);
            schema_words(property, depth - 1, found);
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(inner) = schema.get(key) {
            schema_words(inner, depth - 1, found);
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        for inner in schema.get(key).and_then(Value::as_array).into_iter().flatten() {
            schema_words(inner, depth - 1, found);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::{ServerTool, ToolSpec};
    use serde_json::json;

    fn tool(name: &str, description: &str, parameters: Value) -> ToolSpec {
        let mut spec = ToolSpec::for_server_tool("server", ServerTool::new(name, parameters, None));
        spec.description = description.to_string();
        spec
    }

    fn names(specs: &[ToolSpec], query: &str) -> Vec<String> {
        let index = SearchIndex::new(specs);
        index.search(query, 3).into_iter().map(|hit| specs[hit.tool].name.clone()).collect()
    }

    fn tools() -> Vec<ToolSpec> {
        let city = json!({"type": "object", "properties": {"city": {"type": "string", "description": "The city"}}});
        vec![
            tool("weather.forecast", "The weather in the coming days.", city.clone()),
            tool("get_current_time", "The time now in a time zone.", json!({"properties": {"zone": {}}})),
            tool(
                "send_email",
                "Sends an email message to a recipient.",
                json!({"properties": {"to": {}, "subject": {}}}),
            ),
            tool(
                "convert_units",
                "Converts a quantity between units.",
                json!({"properties": {"unit": {"enum": ["celsius", "fahrenheit"]}}}),
            ),
            tool("list_files", "Lists the files in a folder.", json!({})),
        ]
    }

    #[test]
    fn a_task_in_words_finds_the_tool_that_does_it() {
        let tools = tools();
        assert_eq!(names(&tools, "what will the weather be in Paris tomorrow")[0], "weather.forecast");
        assert_eq!(names(&tools, "get_weather_forecast")[0], "weather.forecast");
        assert_eq!(names(&tools, "email my boss")[0], "send_email");
        assert_eq!(names(&tools, "Fahrenheit to Celsius")[0], "convert_units");
        assert_eq!(names(&tools, "converting")[0], "convert_units");
        assert_eq!(names(&tools, "calc"), Vec::<String>::new());
        assert_eq!(names(&tools, "fold")[0], "list_files");
    }

    #[test]
    fn nothing_in_common_finds_nothing() {
        let tools = tools();
        assert!(names(&tools, "quantum chromodynamics").is_empty());
        assert!(names(&tools, "").is_empty());
        assert!(names(&tools, "the of to").is_empty());
        assert!(SearchIndex::new(&[]).search("weather", 5).is_empty());
        assert!(SearchIndex::new(&tools).search("weather", 0).is_empty());
    }

    #[test]
    fn results_are_ordered_and_limited() {
        let tools = tools();
        let index = SearchIndex::new(&tools);
        let found = index.search("time weather email files units", 3);
        assert_eq!(found.len(), 3);
        assert!(found.windows(2).all(|pair| pair[0].score >= pair[1].score));
    }

    #[test]
    fn coverage_says_how_much_of_the_query_a_tool_holds() {
        let tools = tools();
        let index = SearchIndex::new(&tools);
        let found = index.search("send email", 5);
        assert_eq!(found[0].coverage, 1.0);
        // A word no tool holds (a typo) weighs as much as the rarest word.
        let typo = index.search("send emial", 5);
        assert!(typo[0].coverage > 0.4 && typo[0].coverage < 0.6, "{typo:?}");
        // A word found only as the beginning of a longer one counts half.
        let prefix = index.search("fold", 5);
        assert_eq!(prefix[0].coverage, 0.5);
    }
}

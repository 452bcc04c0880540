//! The nearest-name hint for an unknown tool: a suggestion only, never dispatched.
//!
//! Python's `difflib.get_close_matches` (the reference's hint) compares characters
//! only, so it misses reordered words (`email_send`) and abbreviations (`db_query`).
//! Here a name is also compared word by word, where a word matches a typo of itself
//! (`wether`), its prefix (`calc`, `dir`) or an abbreviation keeping its first letter
//! (`db` for `database`). `tests/support/difflib_table.rs` holds the comparison table.

use crate::names::normalise;

/// How similar two names must be for a hint.
const CUTOFF: f64 = 0.5;

/// The closest name to `name` among `candidates`, if any is close enough.
pub fn nearest(name: &str, candidates: &[String]) -> Option<String> {
    let sent = Name::new(name);
    if sent.key.is_empty() {
        return None;
    }
    candidates
        .iter()
        .map(|candidate| (sent.similarity(&Name::new(bare(candidate))), candidate))
        .filter(|((best, _), _)| *best >= CUTOFF)
        .max_by(|(a, name_a), (b, name_b)| {
            a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)).then_with(|| name_b.cmp(name_a))
        })
        .map(|(_, candidate)| candidate.clone())
}

/// A qualified name's tool part: `units/convert` → `convert`.
fn bare(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

/// A name prepared for comparison: its normalised key and its lower-case words.
struct Name {
    key: String,
    words: Vec<String>,
}

impl Name {
    fn new(name: &str) -> Name {
        Name { key: normalise(name), words: words(name) }
    }

    /// (the best of the three measures, their sum as a tie-breaker).
    fn similarity(&self, other: &Name) -> (f64, f64) {
        let measures = [
            strsim::normalized_damerau_levenshtein(&self.key, &other.key),
            strsim::sorensen_dice(&self.key, &other.key),
            word_similarity(&self.words, &other.words),
        ];
        (measures.iter().copied().fold(0.0, f64::max), measures.iter().sum())
    }
}

/// Splits on `_`, `-`, `.`, spaces and lower-to-upper case changes, lower-cased.
fn words(name: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            previous_lower = false;
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            continue;
        }
        if c.is_uppercase() && previous_lower && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
        current.extend(c.to_lowercase());
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// Dice coefficient over words, each sent word matching at most one candidate word.
fn word_similarity(sent: &[String], candidate: &[String]) -> f64 {
    if sent.is_empty() || candidate.is_empty() {
        return 0.0;
    }
    let mut used = vec![false; candidate.len()];
    let mut matched = 0;
    for word in sent {
        if let Some(i) = (0..candidate.len()).find(|&i| !used[i] && words_match(word, &candidate[i])) {
            used[i] = true;
            matched += 1;
        }
    }
    2.0 * f64::from(matched) / (sent.len() + candidate.len()) as f64
}

/// Whether a sent word stands for a candidate word: a small typo, a prefix, or an
/// abbreviation that keeps the first letter and the order of letters.
fn words_match(sent: &str, candidate: &str) -> bool {
    sent == candidate
        || strsim::normalized_damerau_levenshtein(sent, candidate) >= 0.75
        || (sent.len() >= 2 && (candidate.starts_with(sent) || is_abbreviation(sent, candidate)))
}

fn is_abbreviation(short: &str, long: &str) -> bool {
    let mut long_chars = long.chars();
    short.chars().next() == long.chars().next() && short.chars().all(|c| long_chars.any(|l| l == c))
}

#[cfg(test)]
mod tests {
    use super::*;

    include!("../../tests/support/difflib_table.rs");

    #[test]
    fn words_split_on_separators_and_case() {
        assert_eq!(words("getWeather"), ["get", "weather"]);
        assert_eq!(words("functions.get_weather"), ["functions", "get", "weather"]);
        assert_eq!(words("WEB-search"), ["web", "search"]);
    }

    #[test]
    fn nothing_is_suggested_for_unrelated_names() {
        let tools = ["calculator".to_string(), "web_search".to_string()];
        assert_eq!(nearest("totally_made_up_tool", &tools), None);
        assert_eq!(nearest("", &tools), None);
        assert_eq!(nearest("calc", &tools).as_deref(), Some("calculator"));
    }

    /// Every row: the same suggestion as difflib where difflib found the tool meant,
    /// the tool meant (or difflib's own answer) where it did not.
    #[test]
    fn suggestions_are_at_least_as_good_as_difflib() {
        let tools: Vec<String> = TOOLS.iter().map(|t| t.to_string()).collect();
        let mut ours_right = 0;
        let mut difflib_right = 0;
        let mut worse = Vec::new();
        for &(sent, meant, difflib) in ROWS {
            let ours = nearest(sent, &tools);
            ours_right += usize::from(ours.as_deref() == Some(meant));
            difflib_right += usize::from(difflib == Some(meant));
            let as_good = ours.as_deref() == Some(meant) || (difflib != Some(meant) && ours.as_deref() == difflib);
            if !as_good {
                worse.push(format!("{sent}: ours {ours:?}, difflib {difflib:?}, meant {meant}"));
            }
        }
        assert!(worse.is_empty(), "worse than difflib on:\n{}", worse.join("\n"));
        assert!(ROWS.len() >= 50);
        println!("{} rows: ours right on {ours_right}, difflib right on {difflib_right}", ROWS.len());
        assert!(ours_right >= difflib_right);
    }
}

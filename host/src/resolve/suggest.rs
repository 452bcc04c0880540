//! The nearest-name hint for an unknown tool: a suggestion only, never dispatched.
//!
//! Python's `difflib.get_close_matches` (the reference's hint) compares characters
//! only, so it misses reordered words (`email_send`) and abbreviations (`db_query`).
//! Here a name is also compared word by word, where a word matches a typo of itself
//! (`wether`), its prefix (`calc`, `dir`) or an abbreviation keeping its first letter
//! (`db` for `database`). `host/testdata/difflib_table.rs` holds the comparison table.

use crate::tool::names::{normalise, unqualified};

/// How similar two names must be for a hint.
const CUTOFF: f64 = 0.5;
/// How similar a name must be to be listed among the nearest: below it, names
/// share no more than chance does (two unrelated names of ten letters align a few).
const NEAR: f64 = 0.3;

/// Candidate names prepared once, so that a hint over thousands of tools stays cheap:
/// their words are kept once in a vocabulary, so each sent word is compared with each
/// distinct word once per hint, not once per tool.
#[derive(Debug, Clone, Default)]
pub(crate) struct Candidates {
    candidates: Vec<Candidate>,
    /// Every distinct word of the candidates, once.
    vocabulary: Vec<Vec<char>>,
}

/// One candidate name, prepared.
#[derive(Debug, Clone)]
struct Candidate {
    /// The name as registered.
    name: String,
    prepared: Name,
    /// Its words, as indexes into the vocabulary.
    word_ids: Vec<usize>,
}

impl Candidates {
    /// Prepares `names` (qualified names are compared by their tool part).
    pub(crate) fn new<S: AsRef<str>>(names: &[S]) -> Candidates {
        let mut candidates = Candidates::default();
        let mut ids: std::collections::HashMap<Vec<char>, usize> = std::collections::HashMap::new();
        for name in names {
            let prepared = Name::new(unqualified(name.as_ref()));
            let word_ids = prepared
                .words
                .iter()
                .map(|word| {
                    *ids.entry(word.clone()).or_insert_with(|| {
                        candidates.vocabulary.push(word.clone());
                        candidates.vocabulary.len() - 1
                    })
                })
                .collect();
            candidates.candidates.push(Candidate { name: name.as_ref().to_string(), prepared, word_ids });
        }
        candidates
    }

    /// The closest candidate to `name`, if any is close enough.
    #[cfg(test)]
    fn nearest(&self, name: &str) -> Option<String> {
        self.hint_and_nearest(name, 0).0
    }

    /// The hint [`Candidates::nearest`] gives, and up to `count` candidates nearest to
    /// `name`, best first, that look at least a little like it (ties go to the name
    /// sorted first): for a message that cannot list every tool. One pass for both.
    pub(crate) fn hint_and_nearest(&self, name: &str, count: usize) -> (Option<String>, Vec<String>) {
        let ranked = self.ranked(name, count.max(1));
        let hint = ranked.first().filter(|(score, _)| *score >= CUTOFF).map(|(_, name)| name.clone());
        (hint, ranked.into_iter().take(count).map(|(_, name)| name).collect())
    }

    /// The `count` best candidates with their scores, best first, none below [`NEAR`].
    fn ranked(&self, name: &str, count: usize) -> Vec<(f64, String)> {
        let sent = Name::new(name);
        if sent.key.is_empty() || count == 0 {
            return Vec::new();
        }
        let mut scratch = Vec::new();
        // matches[w][v]: whether sent word w stands for vocabulary word v.
        let matches: Vec<Vec<bool>> = sent
            .words
            .iter()
            .map(|word| self.vocabulary.iter().map(|v| words_match(word, v, &mut scratch)).collect())
            .collect();
        // First the cheap measures for every candidate: the count-th best of them is a
        // floor the winners must reach, which lets the edit measure stop early or be skipped.
        let screenings: Vec<Screening> = self
            .candidates
            .iter()
            .map(|candidate| sent.screen(&candidate.prepared, word_similarity(&matches, &candidate.word_ids)))
            .collect();
        // Nothing below NEAR is kept, so nothing below it needs an exact measure.
        let screened_floor = count_th_best(screenings.iter().map(|s| s.dice.max(s.words)), count).max(NEAR);
        // The best so far, best first: ((score, tie-breaker), name).
        let mut best: Vec<((f64, f64), &String)> = Vec::with_capacity(count + 1);
        for (candidate, screening) in self.candidates.iter().zip(screenings) {
            let floor = match best.get(count - 1) {
                Some(((top, _), _)) => top.max(screened_floor),
                None => screened_floor,
            };
            let Some(score) = sent.similarity(&candidate.prepared, &screening, floor, &mut scratch) else { continue };
            let place = best.partition_point(|(other, other_name)| {
                other
                    .0
                    .total_cmp(&score.0)
                    .then(other.1.total_cmp(&score.1))
                    .then_with(|| candidate.name.cmp(other_name))
                    .is_gt()
            });
            if place < count {
                best.insert(place, (score, &candidate.name));
                best.truncate(count);
            }
        }
        best.into_iter().map(|((score, _), name)| (score, name.clone())).collect()
    }
}

/// The `count`-th largest of `scores` (0 when there are fewer).
fn count_th_best(scores: impl Iterator<Item = f64>, count: usize) -> f64 {
    let mut scores: Vec<f64> = scores.collect();
    if scores.len() < count {
        return 0.0;
    }
    let (_, nth, _) = scores.select_nth_unstable_by(count - 1, |a, b| b.total_cmp(a));
    *nth
}

/// A name prepared for comparison: its normalised key (as characters), its
/// sorted character bigrams, and its lower-case words.
#[derive(Debug, Clone)]
struct Name {
    key: Vec<char>,
    /// The key's characters, sorted (for the bag-distance bound).
    sorted: Vec<char>,
    bigrams: Vec<(char, char)>,
    words: Vec<Vec<char>>,
}

impl Name {
    fn new(name: &str) -> Name {
        let key: Vec<char> = normalise(name).chars().collect();
        let mut bigrams: Vec<(char, char)> = key.windows(2).map(|w| (w[0], w[1])).collect();
        bigrams.sort_unstable();
        let mut sorted = key.clone();
        sorted.sort_unstable();
        Name { key, sorted, bigrams, words: words(name).iter().map(|w| w.chars().collect()).collect() }
    }

    /// The measures that need no edit distance: bigram Dice, and the bigram bound
    /// on the edit distance (one edit, a swap included, breaks at most three bigrams,
    /// so d ≥ (longest − 1 − shared bigrams) / 3).
    fn screen(&self, other: &Name, words: f64) -> Screening {
        let shared = shared_bigrams(&self.bigrams, &other.bigrams);
        let dice = if self.bigrams.is_empty() || other.bigrams.is_empty() {
            0.0
        } else {
            2.0 * shared as f64 / (self.bigrams.len() + other.bigrams.len()) as f64
        };
        let longest = self.key.len().max(other.key.len()).max(1);
        let edit_lower = (longest - 1).saturating_sub(shared).div_ceil(3);
        Screening { dice, words, longest, edit_lower }
    }

    /// (the best of the three measures, their sum as a tie-breaker), or `None` when
    /// the best does not reach `floor` (the cutoff, or the worst kept candidate): the
    /// cheap measures and bounds on the edit measure are checked before computing it.
    fn similarity(
        &self,
        other: &Name,
        screening: &Screening,
        floor: f64,
        scratch: &mut Vec<usize>,
    ) -> Option<(f64, f64)> {
        let (dice, words, longest) = (screening.dice, screening.words, screening.longest);
        let bound = |d: usize| 1.0 - d as f64 / longest as f64;
        if dice.max(words).max(bound(screening.edit_lower)) < floor {
            return None;
        }
        // One edit changes at most one character on each side: d ≥ the bag distance.
        let from_bag = bag_distance(&self.sorted, &other.sorted);
        if dice.max(words).max(bound(from_bag)) < floor {
            return None;
        }
        // Below the floor the edit measure cannot decide anything: it may stop early.
        let edit = edit_similarity(&self.key, &other.key, floor, scratch);
        let best = edit.max(dice).max(words);
        (best >= floor).then_some((best, edit + dice + words))
    }
}

/// What the first, cheap pass over every candidate learns of one: the measures that
/// need no edit distance, and a bound on it.
struct Screening {
    dice: f64,
    words: f64,
    /// The longer key's length.
    longest: usize,
    /// A lower bound on the edit distance, from shared bigrams.
    edit_lower: usize,
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

/// 1 − (optimal string alignment distance / longer length): like Levenshtein, with
/// an adjacent swap (`raed` → `read`) as one edit. Written here over prepared
/// character slices, a reused scratch buffer and an early stop, because strsim's
/// versions take `&str`, allocate per call and always finish, which dominated hints
/// over 10,000 tools (and over their words: 10,000 tools may have as many distinct words).
///
/// Only values at or above `floor` are exact: once every path needs more edits than
/// `floor` allows, the computation stops and returns a value below `floor`.
fn edit_similarity(a: &[char], b: &[char], floor: f64, scratch: &mut Vec<usize>) -> f64 {
    let longest = a.len().max(b.len());
    if longest == 0 {
        return 1.0;
    }
    let allowed = ((1.0 - floor) * longest as f64).floor() as usize;
    // The distance is at least the length difference: skip pairs that cannot pass.
    if a.len().abs_diff(b.len()) * 2 > longest {
        return 1.0 - a.len().abs_diff(b.len()) as f64 / longest as f64;
    }
    let width = b.len() + 1;
    if scratch.len() < 3 * width {
        scratch.resize(3 * width, 0);
    }
    let (before, rest) = scratch[..3 * width].split_at_mut(width);
    let (mut previous, mut current) = rest.split_at_mut(width);
    let mut before = before;
    for (j, cell) in previous.iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        current[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (previous[j] + 1).min(current[j - 1] + 1).min(previous[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(before[j - 2] + 1);
            }
            current[j] = best;
        }
        // Distances along a path never decrease by more than a swap's worth, so once
        // two rows exceed the allowance the result is out of reach.
        if current.iter().zip(previous.iter()).all(|(c, p)| *c > allowed && *p > allowed) {
            return 1.0 - (allowed + 1) as f64 / longest as f64;
        }
        std::mem::swap(&mut before, &mut previous);
        std::mem::swap(&mut previous, &mut current);
    }
    1.0 - previous[b.len()] as f64 / longest as f64
}

/// The larger number of characters either sorted list has that the other lacks: a
/// lower bound on the edit distance of the strings they come from.
fn bag_distance(a: &[char], b: &[char]) -> usize {
    let (mut i, mut j, mut only_a, mut only_b) = (0, 0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => {
                only_a += 1;
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                only_b += 1;
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                i += 1;
                j += 1;
            }
        }
    }
    (only_a + a.len() - i).max(only_b + b.len() - j)
}

/// How many bigrams two sorted bigram lists share (a multiset intersection).
fn shared_bigrams(a: &[(char, char)], b: &[(char, char)]) -> usize {
    let (mut i, mut j, mut shared) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    shared
}

/// Dice coefficient over words, each sent word matching at most one candidate word;
/// `matches[w][v]` says whether sent word `w` matches vocabulary word `v`.
fn word_similarity(matches: &[Vec<bool>], candidate: &[usize]) -> f64 {
    if matches.is_empty() || candidate.is_empty() {
        return 0.0;
    }
    let mut used = [false; 64];
    let candidate = &candidate[..candidate.len().min(used.len())];
    let mut matched = 0;
    for sent_word in matches {
        if let Some(i) = (0..candidate.len()).find(|&i| !used[i] && sent_word[candidate[i]]) {
            used[i] = true;
            matched += 1;
        }
    }
    2.0 * f64::from(matched) / (matches.len() + candidate.len()) as f64
}

/// Whether a sent word stands for a candidate word: a small typo (optimal string
/// alignment, so a swap counts once), a prefix, or an abbreviation that keeps the
/// first letter and the order of letters. Computed once per distinct word.
fn words_match(sent: &[char], candidate: &[char], scratch: &mut Vec<usize>) -> bool {
    const TYPO: f64 = 0.75;
    sent == candidate
        || (sent.len() >= 2 && (candidate.starts_with(sent) || is_abbreviation(sent, candidate)))
        || edit_similarity(sent, candidate, TYPO, scratch) >= TYPO
}

fn is_abbreviation(short: &[char], long: &[char]) -> bool {
    let mut rest = long.iter();
    short.first() == long.first() && short.iter().all(|c| rest.any(|l| l == c))
}

#[cfg(test)]
mod tests {
    use super::*;

    include!("../../testdata/difflib_table.rs");

    #[test]
    fn words_split_on_separators_and_case() {
        assert_eq!(words("getWeather"), ["get", "weather"]);
        assert_eq!(edit_similarity(&['r', 'a', 'e', 'd'], &['r', 'e', 'a', 'd'], 0.0, &mut Vec::new()), 0.75);
        assert_eq!(words("functions.get_weather"), ["functions", "get", "weather"]);
        assert_eq!(words("WEB-search"), ["web", "search"]);
    }

    #[test]
    fn nothing_is_suggested_for_unrelated_names() {
        let tools = ["calculator", "web_search"];
        let tools = Candidates::new(&tools);
        assert_eq!(tools.nearest("totally_made_up_tool"), None);
        assert_eq!(tools.nearest(""), None);
        assert_eq!(tools.nearest("calc").as_deref(), Some("calculator"));
    }

    #[test]
    fn the_nearest_few_are_ranked_best_first_and_none_is_far() {
        let names = ["read_file", "write_file", "list_directory", "search_files", "web_search", "get_weather"];
        let tools = Candidates::new(&names);
        let (hint, nearest) = tools.hint_and_nearest("read_files", 3);
        assert_eq!(hint.as_deref(), Some("read_file"));
        assert_eq!(nearest, ["read_file", "search_files", "write_file"]);
        // Nothing close: no hint and no tool named.
        assert_eq!(tools.hint_and_nearest("zzz", 4), (None, vec![]));
        assert!(tools.hint_and_nearest("web", 0).1.is_empty());
        // Never more than asked, nor than look alike.
        let (_, files) = tools.hint_and_nearest("file", 100);
        assert!(["read_file", "write_file", "search_files"].iter().all(|name| files.contains(&name.to_string())));
        assert!(!files.contains(&"get_weather".to_string()) && files.len() < names.len(), "{files:?}");
    }

    /// Every row: the same suggestion as difflib where difflib found the tool meant,
    /// the tool meant (or difflib's own answer) where it did not.
    #[test]
    fn suggestions_are_at_least_as_good_as_difflib() {
        let tools = Candidates::new(&TOOLS);
        let mut ours_right = 0;
        let mut difflib_right = 0;
        let mut worse = Vec::new();
        for &(sent, meant, difflib) in ROWS {
            let ours = tools.nearest(sent);
            let (hint, nearest) = tools.hint_and_nearest(sent, 10);
            assert_eq!(hint, ours, "{sent}");
            assert!(nearest.len() <= 10 && nearest.first() == ours.as_ref().or(nearest.first()));
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

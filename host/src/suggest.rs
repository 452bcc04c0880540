//! The nearest-name hint for an unknown tool: a suggestion only, never dispatched.

use crate::names::normalise;

/// The closest name to `name` among `candidates`, if any is close enough.
///
/// Similarity is the Sørensen–Dice coefficient of character bigrams on the normalised
/// keys (robust to reordered words), or normalised Levenshtein similarity (robust to
/// typos), whichever is higher; the best candidate must reach 0.5.
pub fn nearest(name: &str, candidates: &[String]) -> Option<String> {
    let wanted = normalise(name);
    if wanted.is_empty() {
        return None;
    }
    candidates
        .iter()
        .map(|candidate| {
            let key = normalise(candidate.rsplit('/').next().unwrap_or(candidate));
            let score = strsim::sorensen_dice(&wanted, &key).max(strsim::normalized_levenshtein(&wanted, &key));
            (score, candidate)
        })
        .filter(|(score, _)| *score >= 0.5)
        .max_by(|a, b| a.0.total_cmp(&b.0).then_with(|| b.1.cmp(a.1)))
        .map(|(_, candidate)| candidate.clone())
}

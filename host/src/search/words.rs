//! Text to the words search compares: a tool's name split where it is joined
//! (`get_weather`, `getWeather`, `get-weather`, `weather.forecast`), descriptions and
//! queries split the same way, lower-cased, common English words left out, and each
//! word reduced to its stem (Snowball's English stemmer: "forecasts" and
//! "forecasting" are "forecast").

use rust_stemmers::{Algorithm, Stemmer};

/// Words too common to tell tools apart; a query made only of them finds nothing.
const STOP_WORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by",
    "can", "could", "do", "does", "for", "from", "had", "has", "have", "he", "her", "here", "his", "how", "i", "if",
    "in", "into", "is", "it", "its", "let", "may", "me", "might", "my", "of", "on", "or", "our", "please", "she",
    "should", "so", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this", "those", "to",
    "us", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with",
    "would", "you", "your",
];

/// Turns text into the stems search indexes and looks up.
pub(crate) struct Words {
    stemmer: Stemmer,
}

impl Default for Words {
    fn default() -> Words {
        Words { stemmer: Stemmer::create(Algorithm::English) }
    }
}

impl Words {
    /// The stems of `text`, in order (repeats kept: they count).
    pub(crate) fn stems(&self, text: &str) -> Vec<String> {
        let mut stems = Vec::new();
        for_each_word(text, |word| {
            if !STOP_WORDS.contains(&word) {
                stems.push(self.stemmer.stem(word).into_owned());
            }
        });
        stems
    }
}

/// Calls `found` with each word of `text`, lower-cased: runs of letters or of digits,
/// split where a lower-case letter meets an upper-case one (`getWeather`) and before
/// the last capital of a run of capitals followed by a lower-case letter
/// (`HTTPServer` is `http`, `server`).
fn for_each_word(text: &str, mut found: impl FnMut(&str)) {
    let chars: Vec<char> = text.chars().collect();
    let mut word = String::new();
    for (i, &c) in chars.iter().enumerate() {
        let previous = i.checked_sub(1).map(|p| chars[p]);
        let next = chars.get(i + 1).copied();
        if (!c.is_alphanumeric() || starts_word(previous, c, next)) && !word.is_empty() {
            found(&word);
            word.clear();
        }
        if c.is_alphanumeric() {
            word.extend(c.to_lowercase());
        }
    }
    if !word.is_empty() {
        found(&word);
    }
}

/// Whether `c`, between `previous` and `next`, begins a new word inside a run of
/// letters and digits.
fn starts_word(previous: Option<char>, c: char, next: Option<char>) -> bool {
    let Some(previous) = previous.filter(|p| p.is_alphanumeric()) else { return false };
    let camel = previous.is_lowercase() && c.is_uppercase();
    let acronym_end = previous.is_uppercase() && c.is_uppercase() && next.is_some_and(char::is_lowercase);
    let digits = previous.is_ascii_digit() != c.is_ascii_digit();
    camel || acronym_end || digits
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        let mut words = Vec::new();
        for_each_word(text, |word| words.push(word.to_string()));
        words
    }

    #[test]
    fn names_split_where_they_are_joined() {
        assert_eq!(words("get_weather"), ["get", "weather"]);
        assert_eq!(words("getWeatherForecast"), ["get", "weather", "forecast"]);
        assert_eq!(words("HTTPServer.listen-now"), ["http", "server", "listen", "now"]);
        assert_eq!(words("number_theory.gcd"), ["number", "theory", "gcd"]);
        assert_eq!(words("base64Encode"), ["base", "64", "encode"]);
        assert_eq!(words("mcp__github__create_issue"), ["mcp", "github", "create", "issue"]);
    }

    #[test]
    fn text_is_lower_cased_and_stemmed_without_common_words() {
        let words = Words::default();
        assert_eq!(words.stems("What is the Weather forecast for Paris?"), ["weather", "forecast", "pari"]);
        assert_eq!(words.stems("forecasts forecasting"), ["forecast", "forecast"]);
        assert_eq!(words.stems("Crée un fichier"), ["crée", "un", "fichier"]);
        assert!(words.stems("to the of").is_empty());
        assert!(words.stems("").is_empty());
    }
}

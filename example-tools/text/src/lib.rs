//! The `text` example tool: a text toolkit exported as an interface (a container of tools).

#![allow(
    missing_docs,
    reason = "the bindings toolhost_guest::generate! writes have no doc comments: a tool's docs are its WIT's"
)]

use std::collections::HashMap;

use exports::example::text::text::{Counts, Guest, MatchOptions};

toolhost_guest::generate!({ world: "text-tools" });

struct Text;

impl Guest for Text {
    fn word_count(text: String) -> Counts {
        Counts {
            words: text.split_whitespace().count() as u32,
            lines: text.lines().count() as u32,
            characters: text.chars().count() as u32,
            bytes: text.len() as u64,
        }
    }

    fn slugify(text: String, separator: Option<char>) -> String {
        let separator = separator.unwrap_or('-');
        let mut slug = String::new();
        let mut pending_separator = false;
        for c in text.chars().flat_map(char::to_lowercase).map(strip_accent) {
            if c.is_alphanumeric() {
                if pending_separator && !slug.is_empty() {
                    slug.push(separator);
                }
                pending_separator = false;
                slug.push(c);
            } else {
                pending_separator = true;
            }
        }
        slug
    }

    fn replace(text: String, pattern: String, replacement: String, options: MatchOptions) -> Result<String, String> {
        let mut source = if options.contains(MatchOptions::LITERAL) { regex::escape(&pattern) } else { pattern };
        if options.contains(MatchOptions::WHOLE_WORD) {
            source = format!(r"\b(?:{source})\b");
        }
        let regex = regex::RegexBuilder::new(&source)
            .case_insensitive(options.contains(MatchOptions::CASE_INSENSITIVE))
            .build()
            .map_err(|e| format!("invalid pattern: {e}"))?;
        let replaced = if options.contains(MatchOptions::FIRST_ONLY) {
            regex.replace(&text, replacement.as_str())
        } else {
            regex.replace_all(&text, replacement.as_str())
        };
        Ok(replaced.into_owned())
    }

    fn top_words(text: String, limit: u16) -> Vec<(String, u32)> {
        let mut counts: HashMap<String, u32> = HashMap::new();
        for word in text.split(|c: char| !c.is_alphanumeric() && c != '\'') {
            let word = word.trim_matches('\'').to_lowercase();
            if !word.is_empty() {
                *counts.entry(word).or_default() += 1;
            }
        }
        let mut ranked: Vec<(String, u32)> = counts.into_iter().collect();
        ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        ranked.truncate(usize::from(limit));
        ranked
    }

    fn char_at(text: String, index: u32) -> Option<char> {
        text.chars().nth(index as usize)
    }

    fn is_palindrome(text: String) -> bool {
        let letters: Vec<char> = text.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect();
        letters.iter().eq(letters.iter().rev())
    }
}

/// Drops the accent of common Latin letters (é → e); other characters pass unchanged.
///
/// A small table rather than a transliteration crate (deunicode), whose tables would
/// add hundreds of kilobytes to the component for letters a slug rarely meets.
fn strip_accent(c: char) -> char {
    const FROM: &str = "àáâãäåçèéêëìíîïñòóôõöùúûüýÿ";
    const TO: &str = "aaaaaaceeeeiiiinooooouuuuyy";
    FROM.chars().position(|f| f == c).and_then(|i| TO.chars().nth(i)).unwrap_or(c)
}

export!(Text);

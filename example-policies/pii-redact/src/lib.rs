//! Example policy: redacts personal data from what tools return before the model
//! sees it — email addresses (`[email]`), phone numbers written with a country code,
//! an area code in brackets, or as `555-123-4567` (`[phone]`), and card numbers, 13
//! to 19 digits that pass the Luhn check, in text or as a number (`[card]`). It looks
//! at results only, and lets every call run.

#![allow(missing_docs, reason = "the bindings wit-bindgen writes have no doc comments")]

toolhost_guest::wit_bindgen::generate!({
    path: "../../wit",
    world: "policy-component",
    runtime_path: "::toolhost_guest::wit_bindgen::rt",
});

use std::sync::LazyLock;

use exports::toolhost::tool::policy::{Call, Field, Guest, Scalar, Verdict};
use regex::{Captures, Regex};

/// What is redacted, in the order it is looked for (cards before phone numbers: a
/// card number's groups would read as one).
static PATTERNS: LazyLock<[(Regex, &str); 3]> = LazyLock::new(|| {
    let regex = |pattern: &str| Regex::new(pattern).expect("the patterns are valid");
    [
        (regex(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"), "[email]"),
        (regex(r"\b\d(?:[ -]?\d){12,18}\b"), "[card]"),
        (
            regex(
                r"\+\d{1,3}[ .-]?(?:\(\d{1,4}\)[ .-]?)?\d{2,4}(?:[ .-]?\d{2,4}){1,4}|\(\d{3}\) ?\d{3}[ .-]\d{4}|\b\d{3}[.-]\d{3}[.-]\d{4}\b",
            ),
            "[phone]",
        ),
    ]
});

struct PiiRedact;

impl Guest for PiiRedact {
    fn before(_call: Call) -> Verdict {
        Verdict::Allow
    }

    fn after(_call: Call, returned: Vec<Field>) -> Verdict {
        let rewrites: Vec<Field> = returned
            .into_iter()
            .filter_map(|field| {
                let clean = match &field.value {
                    Scalar::Text(text) => Scalar::Text(redact(text)?),
                    Scalar::Integer(n) if is_card_number(&n.to_string()) => Scalar::Text("[card]".into()),
                    _ => return None,
                };
                Some(Field { path: field.path, value: clean })
            })
            .collect();
        if rewrites.is_empty() { Verdict::Allow } else { Verdict::Rewrite(rewrites) }
    }
}

/// `text` with its personal data redacted, when it has any.
fn redact(text: &str) -> Option<String> {
    let mut current = text.to_string();
    for (pattern, label) in PATTERNS.iter() {
        let replaced = pattern.replace_all(&current, |found: &Captures<'_>| {
            let found = &found[0];
            if *label == "[card]" && !is_card_number(found) { found.to_string() } else { (*label).to_string() }
        });
        current = replaced.into_owned();
    }
    (current != text).then_some(current)
}

/// Whether the digits of `text` (13 to 19 of them) pass the Luhn check.
fn is_card_number(text: &str) -> bool {
    let digits: Vec<u32> = text.chars().filter_map(|c| c.to_digit(10)).collect();
    if !(13..=19).contains(&digits.len()) {
        return false;
    }
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| if i % 2 == 1 { if d * 2 > 9 { d * 2 - 9 } else { d * 2 } } else { d })
        .sum();
    sum.is_multiple_of(10)
}

export!(PiiRedact);

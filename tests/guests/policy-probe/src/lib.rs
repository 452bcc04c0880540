//! Test-only policy component. Before a call it looks at the argument `text` and
//! does what it names: `deny …` refuses, `loop` spins, `trap` panics, `flood`
//! answers with 100,000 rewrites, `huge` rewrites `text` to 4 MiB, `elsewhere`
//! rewrites a field that is not there, `number` and `boolean` rewrite `text` to one,
//! `count` refuses saying how many calls this instance has looked at, and text
//! holding an email address has it redacted. After a call it redacts email
//! addresses in the result's texts, refuses a result holding `sk-` (a secret's
//! prefix), and panics on one holding `trap after`.

#![allow(missing_docs, reason = "the bindings wit-bindgen writes have no doc comments")]

toolhost_guest::wit_bindgen::generate!({
    path: "../../../wit",
    world: "policy-component",
    runtime_path: "::toolhost_guest::wit_bindgen::rt",
});

use exports::toolhost::tool::policy::{Call, Field, Guest, Scalar, Verdict};

struct Probe;

/// The calls this instance has looked at before they ran.
static LOOKED_AT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

impl Guest for Probe {
    fn before(call: Call) -> Verdict {
        let looked_at = LOOKED_AT.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        let Some(text) = text_at(&call.arguments, "/text") else { return Verdict::Allow };
        match text.as_str() {
            "count" => Verdict::Deny(format!("This instance has looked at {looked_at} calls.")),
            "loop" => loop {
                std::hint::black_box(&call);
            },
            "trap" => panic!("the probe was told to trap"),
            "flood" => Verdict::Rewrite(
                (0..100_000).map(|i| Field { path: format!("/text{i}"), value: Scalar::Null }).collect(),
            ),
            "huge" => Verdict::Rewrite(vec![Field { path: "/text".into(), value: Scalar::Text("x".repeat(4 << 20)) }]),
            "elsewhere" => Verdict::Rewrite(vec![Field { path: "/nowhere".into(), value: Scalar::Null }]),
            "number" => Verdict::Rewrite(vec![Field { path: "/text".into(), value: Scalar::Integer(7) }]),
            "boolean" => Verdict::Rewrite(vec![Field { path: "/text".into(), value: Scalar::Boolean(true) }]),
            text if text.starts_with("deny ") => Verdict::Deny(format!("The probe refused: {}", &text[5..])),
            text => match redacted(text) {
                Some(clean) => Verdict::Rewrite(vec![Field { path: "/text".into(), value: Scalar::Text(clean) }]),
                None => Verdict::Allow,
            },
        }
    }

    fn after(_call: Call, returned: Vec<Field>) -> Verdict {
        let mut rewrites = Vec::new();
        for field in returned {
            let Scalar::Text(text) = &field.value else { continue };
            if text.contains("sk-") {
                return Verdict::Deny("The result held a secret, so it was withheld.".into());
            }
            if text.contains("trap after") {
                panic!("the probe was told to trap after the call");
            }
            if let Some(clean) = redacted(text) {
                rewrites.push(Field { path: field.path, value: Scalar::Text(clean) });
            }
        }
        if rewrites.is_empty() { Verdict::Allow } else { Verdict::Rewrite(rewrites) }
    }
}

/// The text at `path` among `fields`.
fn text_at(fields: &[Field], path: &str) -> Option<String> {
    fields.iter().find(|field| field.path == path).and_then(|field| match &field.value {
        Scalar::Text(text) => Some(text.clone()),
        _ => None,
    })
}

/// `text` with each word holding an `@` between other characters replaced by
/// `[email]`, when it has one.
fn redacted(text: &str) -> Option<String> {
    let is_email = |word: &str| word.split_once('@').is_some_and(|(user, host)| !user.is_empty() && host.contains('.'));
    if !text.split_whitespace().any(is_email) {
        return None;
    }
    let words: Vec<&str> = text.split(' ').map(|word| if is_email(word) { "[email]" } else { word }).collect();
    Some(words.join(" "))
}

export!(Probe);

//! Test-only guest with the reference measurements' `web_search` and `calculator`.

#![allow(
    missing_docs,
    reason = "the bindings toolhost_guest::generate! writes have no doc comments: a tool's docs are its WIT's"
)]

toolhost_guest::generate!({ world: "peer-search" });

/// The collection `web_search` searches.
const NOTES: [&str; 8] = [
    "Planets move in elliptical orbits with the Sun at one focus.",
    "A geostationary orbit takes exactly one sidereal day.",
    "The Moon's orbit is inclined about five degrees to the ecliptic.",
    "Comets on long orbits can take thousands of years to return.",
    "Jupiter has more than ninety known moons.",
    "Saturn's rings are mostly water ice.",
    "Hello from the observatory: the night is clear.",
    "Orbits decay when a satellite meets atmospheric drag.",
];

struct Peer;

impl Guest for Peer {
    fn web_search(query: String, limit: Option<u32>) -> Result<Vec<String>, String> {
        if query.trim().is_empty() {
            return Err("query must not be empty".into());
        }
        let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
        Ok(NOTES
            .iter()
            .filter(|note| {
                let note = note.to_lowercase();
                words.iter().all(|w| note.contains(w.trim_end_matches('s')))
            })
            .take(limit.unwrap_or(5) as usize)
            .map(|note| note.to_string())
            .collect())
    }

    fn calculator(expression: String) -> Result<i64, String> {
        let mut total: i64 = 0;
        let mut sign = 1;
        let mut number = String::new();
        for c in expression.chars().chain(std::iter::once('+')) {
            match c {
                '0'..='9' => number.push(c),
                '+' | '-' => {
                    if number.is_empty() {
                        return Err(format!("'{expression}' is not a sum of integers"));
                    }
                    let n: i64 = number.parse().map_err(|_| format!("'{number}' is too large"))?;
                    total = total.checked_add(sign * n).ok_or("the sum overflows")?;
                    number.clear();
                    sign = if c == '-' { -1 } else { 1 };
                }
                ' ' => {}
                other => return Err(format!("unexpected '{other}' in '{expression}'")),
            }
        }
        Ok(total)
    }
}

export!(Peer);

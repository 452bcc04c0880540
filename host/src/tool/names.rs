//! Name conventions: kebab-case WIT names to the snake_case the model sees, the
//! normalisation key that model-sent names are matched by, and the one rule every
//! stage matches a sent name by (exact, then separator style, then the one
//! normalised match).

/// The name a model sees for a WIT identifier: `get-weather` becomes `get_weather`.
pub(crate) fn snake_case(wit_name: &str) -> String {
    wit_name.replace('-', "_")
}

/// [`snake_case`] of every name.
pub(crate) fn snake_names<S: AsRef<str>>(wit_names: &[S]) -> Vec<String> {
    wit_names.iter().map(|name| snake_case(name.as_ref())).collect()
}

/// The key two names must share to be "the same name" after repair: lower case,
/// with `_`, `-` and whitespace removed, so `WebSearch`, `web-search` and `WEB_SEARCH`
/// all become `websearch`.
pub(crate) fn normalise(name: &str) -> String {
    name.chars().filter(|c| !matches!(c, '_' | '-') && !c.is_whitespace()).flat_map(char::to_lowercase).collect()
}

/// A qualified name's tool part: `units/convert` → `convert`.
pub(crate) fn unqualified(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

/// Renders names as a Python-style list, the inventory shape models already know:
/// `['a', 'b']`.
pub(crate) fn python_list<S: AsRef<str>>(names: &[S]) -> String {
    let length: usize = names.iter().map(|n| n.as_ref().len() + 4).sum();
    let mut list = String::with_capacity(length + 2);
    list.push('[');
    for (i, name) in names.iter().enumerate() {
        if i > 0 {
            list.push_str(", ");
        }
        list.push('\'');
        list.push_str(name.as_ref());
        list.push('\'');
    }
    list.push(']');
    list
}

/// How a name a model sent matched a set of names: only [`NameMatch::One`] may be acted on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NameMatch<T> {
    /// Nothing matched.
    None,
    /// Exactly one matched.
    One(T),
    /// Several matched: acting on any of them would be a guess.
    Several(Vec<T>),
}

impl<T> NameMatch<T> {
    /// Classifies the matches found: none, one, or several.
    pub(crate) fn of(matches: impl IntoIterator<Item = T>) -> NameMatch<T> {
        let mut matches = matches.into_iter();
        let Some(first) = matches.next() else { return NameMatch::None };
        match matches.next() {
            None => NameMatch::One(first),
            Some(second) => NameMatch::Several([first, second].into_iter().chain(matches).collect()),
        }
    }

    /// The one match, if there is exactly one.
    pub(crate) fn one(self) -> Option<T> {
        match self {
            NameMatch::One(found) => Some(found),
            NameMatch::None | NameMatch::Several(_) => None,
        }
    }
}

/// Which of `names` the name `sent` stands for, by index: the exact name; else the
/// name spelt with the other separator (`max-results` for `max_results`); else the
/// names sharing its normalisation key. The first step that finds anything decides,
/// so `NameMatch::Several` means only a guess could pick one.
pub(crate) fn match_name<'a, I>(names: I, sent: &str) -> NameMatch<usize>
where
    I: IntoIterator<Item = &'a str>,
    I::IntoIter: Clone,
{
    let names = names.into_iter().enumerate();
    let found = |same: &dyn Fn(&str) -> bool| NameMatch::of(names.clone().filter(|(_, n)| same(n)).map(|(i, _)| i));
    let exact = found(&|name| name == sent);
    if exact != NameMatch::None {
        return exact;
    }
    let styled = found(&|name| same_but_separators(name, sent));
    if styled != NameMatch::None {
        return styled;
    }
    let key = normalise(sent);
    if key.is_empty() {
        return NameMatch::None;
    }
    found(&|name| normalise(name) == key)
}

/// Whether two names are equal when `-` and `_` count as the same character.
fn same_but_separators(a: &str, b: &str) -> bool {
    let unify = |c: char| if c == '-' { '_' } else { c };
    a.len() == b.len() && a.chars().map(unify).eq(b.chars().map(unify))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalise_folds_case_separators_and_whitespace() {
        for name in
            ["WebSearch", "web-search", "WEB_SEARCH", "web search", "web_search", "web_search\n", "\tweb search"]
        {
            assert_eq!(normalise(name), "websearch", "{name:?}");
        }
    }

    #[test]
    fn snake_case_replaces_dashes() {
        assert_eq!(snake_case("utc-offset-hours"), "utc_offset_hours");
        assert_eq!(snake_names(&["a-b", "c"]), ["a_b", "c"]);
    }

    #[test]
    fn python_list_quotes_each_name() {
        assert_eq!(python_list(&["calculator", "web_search"]), "['calculator', 'web_search']");
        assert_eq!(python_list::<&str>(&[]), "[]");
    }

    #[test]
    fn unqualified_drops_the_component() {
        assert_eq!(unqualified("units/convert"), "convert");
        assert_eq!(unqualified("convert"), "convert");
    }

    #[test]
    fn a_name_matches_exactly_then_by_separator_style_then_uniquely_by_key() {
        let names = ["max_results", "max-results-per-page", "query"];
        assert_eq!(match_name(names, "query"), NameMatch::One(2));
        assert_eq!(match_name(names, "max-results"), NameMatch::One(0));
        assert_eq!(match_name(names, "MaxResultsPerPage"), NameMatch::One(1));
        assert_eq!(match_name(names, "limit"), NameMatch::None);
        assert_eq!(match_name(names, "  "), NameMatch::None);
        // Two names share the key: only their exact or separator spellings decide.
        let clashing = ["ab_c", "a_bc"];
        assert_eq!(match_name(clashing, "abc"), NameMatch::Several(vec![0, 1]));
        assert_eq!(match_name(clashing, "a-bc"), NameMatch::One(1));
    }
}

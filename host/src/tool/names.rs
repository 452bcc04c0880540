//! Name conventions: kebab-case WIT names to the snake_case the model sees, the
//! normalisation keys that model-sent names are matched by, the one form of a tool
//! name every model provider's API takes, and the one rule every stage matches a
//! sent name by (exact, then separator style, then the one normalised match).

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
    key_without(name, &['_', '-'])
}

/// The key two tool names must share: [`normalise`]'s, with `.` a separator too, so
/// `uber.ride`, `uber_ride` and `UberRide` are one name. (Only for tool names: in a
/// parameter's value, `1.5` and `15` are not the same.)
pub(crate) fn tool_key(name: &str) -> String {
    key_without(name, &['_', '-', '.'])
}

/// `name` in lower case without `separators` and white space.
fn key_without(name: &str, separators: &[char]) -> String {
    name.chars().filter(|c| !separators.contains(c) && !c.is_whitespace()).flat_map(char::to_lowercase).collect()
}

/// The longest function name every model provider takes (OpenAI's and Mistral's limit).
pub(crate) const PROVIDER_NAME_MAX: usize = 64;

/// `name` in the one form every provider's API takes as a function name,
/// `^[A-Za-z_][A-Za-z0-9_-]{0,63}$` (the narrowest of OpenAI's, Anthropic's, Gemini's
/// and Mistral's rules), changed only where it must be: a component qualifier's `/`
/// becomes `__` and any other character outside the pattern `_`; a name that starts
/// with neither a letter nor `_` gets a `_` before it; a longer name is cut and ends
/// in `_` and eight hex digits of its digest (see [`with_digest`]).
pub(crate) fn provider_name(name: &str) -> String {
    let mut rendered = String::with_capacity(name.len() + 1);
    if !name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        rendered.push('_');
    }
    for c in name.chars() {
        match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '_' | '-' => rendered.push(c),
            '/' => rendered.push_str("__"),
            _ => rendered.push('_'),
        }
    }
    if rendered.len() > PROVIDER_NAME_MAX {
        return with_digest(&rendered, name);
    }
    rendered
}

/// `rendered` cut to leave room for `_` and eight hex digits of the BLAKE3 digest of
/// `name`, which are appended: names that differ stay apart, and the same name always
/// gets the same form.
pub(crate) fn with_digest(rendered: &str, name: &str) -> String {
    let digest = blake3::hash(name.as_bytes()).to_hex();
    // `rendered` is ASCII, so any byte offset is a character boundary.
    let kept = &rendered[..rendered.len().min(PROVIDER_NAME_MAX - 9)];
    format!("{kept}_{}", &digest[..8])
}

/// Whether `name` is in the form [`provider_name`] makes.
#[cfg(test)]
fn is_provider_name(name: &str) -> bool {
    name.len() <= PROVIDER_NAME_MAX
        && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
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

/// A tool name pattern (`*` for any run of characters, `/` and `.` too; `?` for one):
/// how toolsets, access grants and a file's `include`/`exclude` match tool names.
pub(crate) fn name_pattern(pattern: &str) -> Result<globset::Glob, globset::Error> {
    globset::GlobBuilder::new(pattern).literal_separator(false).build()
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
    fn a_tool_key_also_takes_dots_as_separators() {
        for name in ["uber.ride", "uber_ride", "UberRide", "Uber-Ride", "uber ride"] {
            assert_eq!(tool_key(name), "uberride", "{name:?}");
        }
        assert_eq!(normalise("uber.ride"), "uber.ride");
    }

    #[test]
    fn provider_names_fit_every_providers_pattern_and_change_only_what_they_must() {
        assert_eq!(provider_name("get_weather"), "get_weather");
        assert_eq!(provider_name("web-search"), "web-search");
        assert_eq!(provider_name("uber.ride"), "uber_ride");
        assert_eq!(provider_name("version_api.VersionApi.get_version"), "version_api_VersionApi_get_version");
        assert_eq!(provider_name("units/convert"), "units__convert");
        assert_eq!(provider_name("3d.render"), "_3d_render");
        assert_eq!(provider_name("météo"), "m_t_o");
        let long = "a".repeat(40) + "." + &"b".repeat(39);
        let rendered = provider_name(&long);
        assert_eq!(rendered.len(), PROVIDER_NAME_MAX);
        assert!(rendered.starts_with(&"a".repeat(40)), "{rendered}");
        assert_ne!(rendered, provider_name(&(long.clone() + "c")), "cut names stay apart");
        for name in ["", "-x", "a".repeat(200).as_str(), "x/y.z", "é", "a b"] {
            assert!(is_provider_name(&provider_name(name)), "{name:?} -> {:?}", provider_name(name));
        }
        assert!(!is_provider_name("uber.ride"));
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

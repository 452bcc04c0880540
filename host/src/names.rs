//! Name conventions: kebab-case WIT names to the snake_case the model sees, and the
//! normalisation key that model-sent names are matched by.

/// The name a model sees for a WIT identifier: `get-weather` becomes `get_weather`.
pub fn snake_case(wit_name: &str) -> String {
    wit_name.replace('-', "_")
}

/// The key two names must share to be "the same name" after repair: lower case,
/// with `_`, `-` and spaces removed, so `WebSearch`, `web-search` and `WEB_SEARCH`
/// all become `websearch`.
pub fn normalise(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '_' | '-' | ' '))
        .flat_map(char::to_lowercase)
        .collect()
}

/// Renders names as a Python-style list, the inventory shape models already know:
/// `['a', 'b']`.
pub fn python_list<S: AsRef<str>>(names: &[S]) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalise_folds_case_and_separators() {
        for name in ["WebSearch", "web-search", "WEB_SEARCH", "web search", "web_search"] {
            assert_eq!(normalise(name), "websearch", "{name}");
        }
    }

    #[test]
    fn snake_case_replaces_dashes() {
        assert_eq!(snake_case("utc-offset-hours"), "utc_offset_hours");
    }

    #[test]
    fn python_list_quotes_each_name() {
        assert_eq!(python_list(&["calculator", "web_search"]), "['calculator', 'web_search']");
        assert_eq!(python_list::<&str>(&[]), "[]");
    }
}

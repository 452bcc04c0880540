//! A secret's value as the sandbox holds it: given to its component's calls as an
//! environment variable, shown by no `Debug`, and taken out of whatever the call writes
//! that the host passes on (log lines, captured output, error messages).

use std::borrow::Cow;

/// A secret's value. Its `Debug` shows no part of it.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Secret(String);

impl Secret {
    /// `value`, held as a secret.
    pub(crate) fn new(value: String) -> Secret {
        Secret(value)
    }

    /// The value itself, for the sandbox to hand over.
    pub(crate) fn value(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("[secret]")
    }
}

/// `text` with the value of each of `secrets` replaced by `[secret NAME]`.
pub(crate) fn redact<'t>(text: &'t str, secrets: &[(String, Secret)]) -> Cow<'t, str> {
    let mut text = Cow::Borrowed(text);
    for (name, secret) in secrets {
        if !secret.0.is_empty() && text.contains(&secret.0) {
            text = Cow::Owned(text.replace(&secret.0, &format!("[secret {name}]")));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_replaced_by_their_names_and_never_debug_printed() {
        let secrets = [("API_KEY".to_string(), Secret::new("k-123".into()))];
        assert_eq!(redact("sent k-123 twice: k-123", &secrets), "sent [secret API_KEY] twice: [secret API_KEY]");
        assert!(matches!(redact("nothing here", &secrets), Cow::Borrowed(_)));
        assert_eq!(format!("{secrets:?}"), "[(\"API_KEY\", [secret])]");
    }
}

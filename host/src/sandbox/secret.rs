//! A secret's value as the sandbox holds it: given to its component's calls as an
//! environment variable and through `wasi:config/store`, shown by no `Debug`, and
//! taken out of whatever the call writes that the host passes on (log lines, captured
//! output, error messages).

use std::borrow::Cow;
use std::sync::Arc;

use arc_swap::ArcSwap;

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

/// A component's secrets at one moment.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct SecretSet {
    /// (name, value): its calls' environment, its `wasi:config/store`, and what is
    /// taken out of what they write.
    pub(crate) values: Vec<(String, Secret)>,
    /// The secrets its manifest says it needs that are not set (its calls are refused,
    /// naming them).
    pub(crate) missing: Vec<String>,
}

impl SecretSet {
    /// The value of the secret `name`, if it is set.
    pub(crate) fn get(&self, name: &str) -> Option<&Secret> {
        self.values.iter().find(|(set, _)| set == name).map(|(_, secret)| secret)
    }
}

/// A component's secrets as they are set now, shared by every copy of its grants: a
/// secret set while the host runs is put here (`load::SecretSource`) and seen by the
/// component's next call.
#[derive(Clone, Default)]
pub(crate) struct SecretCell(Arc<ArcSwap<SecretSet>>);

impl SecretCell {
    /// A cell holding `set`.
    pub(crate) fn new(set: SecretSet) -> SecretCell {
        SecretCell(Arc::new(ArcSwap::from_pointee(set)))
    }

    /// The secrets as they are now.
    pub(crate) fn current(&self) -> Arc<SecretSet> {
        self.0.load_full()
    }

    /// Whether `set` is what the cell holds now (an instance made with an older one
    /// is not used).
    pub(crate) fn holds(&self, set: &Arc<SecretSet>) -> bool {
        Arc::ptr_eq(&self.0.load(), set)
    }

    /// Puts `set` in place of what the cell held.
    pub(crate) fn replace(&self, set: SecretSet) {
        self.0.store(Arc::new(set));
    }
}

impl std::fmt::Debug for SecretCell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.current().fmt(f)
    }
}

impl PartialEq for SecretCell {
    fn eq(&self, other: &SecretCell) -> bool {
        self.current() == other.current()
    }
}

impl Eq for SecretCell {}

/// Whether `name` can name a secret: a variable's name (letters, digits and `_`, not
/// starting with a digit), since calls see secrets as environment variables.
pub(crate) fn is_secret_name(name: &str) -> bool {
    name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
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

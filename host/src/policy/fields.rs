//! Values as a policy component sees them: every scalar inside a JSON value as a
//! field at its JSON Pointer (RFC 6901), and a policy's rewrite put back in place.

use serde_json::Value;

use crate::tool::json_len;

/// One scalar of a value and where it is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Field {
    /// Its JSON Pointer (`""` for a value that is a scalar itself).
    pub(crate) path: String,
    /// The scalar (never an array or an object).
    pub(crate) value: Value,
}

/// The scalars of `value`, in document order.
pub(crate) fn flatten(value: &Value) -> Vec<Field> {
    let mut fields = Vec::new();
    let mut path = String::new();
    walk(value, &mut path, &mut fields);
    fields
}

fn walk(value: &Value, path: &mut String, fields: &mut Vec<Field>) {
    let at = path.len();
    match value {
        Value::Object(map) => {
            for (key, item) in map {
                path.push('/');
                push_escaped(path, key);
                walk(item, path, fields);
                path.truncate(at);
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                path.push('/');
                path.push_str(&index.to_string());
                walk(item, path, fields);
                path.truncate(at);
            }
        }
        scalar => fields.push(Field { path: path.clone(), value: scalar.clone() }),
    }
}

/// `key` as a JSON Pointer token: `~` as `~0`, `/` as `~1`.
fn push_escaped(path: &mut String, key: &str) {
    for c in key.chars() {
        match c {
            '~' => path.push_str("~0"),
            '/' => path.push_str("~1"),
            c => path.push(c),
        }
    }
}

/// Why a rewrite cannot be applied (said in the host's log, never to the model).
#[derive(Debug, thiserror::Error, PartialEq)]
pub(crate) enum RewriteError {
    /// The path is not one of the value's fields.
    #[error("it rewrote {0:?}, which is not a field of the value it was given")]
    NoSuchField(String),
    /// The value put there is not a scalar.
    #[error("it put a list or an object at {0:?}")]
    NotAScalar(String),
    /// More rewrites than the value has fields.
    #[error("it rewrote {given} fields of a value that has {fields}")]
    TooMany { given: usize, fields: usize },
    /// The rewritten value outgrew its bound.
    #[error("the rewritten value is over {limit} bytes")]
    TooLarge { limit: usize },
}

/// `value` with each of `rewrites` put at its path; every path must be a scalar's
/// already there, and the result at most `limit` bytes of JSON.
pub(crate) fn rewrite(value: &Value, rewrites: Vec<Field>, limit: usize) -> Result<Value, RewriteError> {
    let fields = count_fields(value);
    if rewrites.len() > fields {
        return Err(RewriteError::TooMany { given: rewrites.len(), fields });
    }
    let mut rewritten = value.clone();
    for field in rewrites {
        if field.value.is_array() || field.value.is_object() {
            return Err(RewriteError::NotAScalar(field.path));
        }
        match rewritten.pointer_mut(&field.path) {
            Some(slot) if !slot.is_array() && !slot.is_object() => *slot = field.value,
            _ => return Err(RewriteError::NoSuchField(field.path)),
        }
    }
    if json_len(&rewritten) > limit {
        return Err(RewriteError::TooLarge { limit });
    }
    Ok(rewritten)
}

/// How many scalars `value` holds.
fn count_fields(value: &Value) -> usize {
    match value {
        Value::Object(map) => map.values().map(count_fields).sum(),
        Value::Array(items) => items.iter().map(count_fields).sum(),
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn scalars_are_fields_at_their_pointers_and_keys_are_escaped() {
        let value = json!({"a": {"b/c": [1, "x"], "d~": null}, "e": [], "f": true});
        let paths: Vec<(String, Value)> = flatten(&value).into_iter().map(|f| (f.path, f.value)).collect();
        assert_eq!(
            paths,
            vec![
                ("/a/b~1c/0".into(), json!(1)),
                ("/a/b~1c/1".into(), json!("x")),
                ("/a/d~0".into(), Value::Null),
                ("/f".into(), json!(true)),
            ]
        );
        assert_eq!(flatten(&json!("alone")), vec![Field { path: String::new(), value: json!("alone") }]);
    }

    #[test]
    fn a_rewrite_replaces_scalars_in_place_and_refuses_anything_else() {
        let value = json!({"path": "/etc/passwd", "lines": [1, 2]});
        let field = |path: &str, value: Value| Field { path: path.into(), value };
        let done = rewrite(&value, vec![field("/path", json!("notes.txt")), field("/lines/1", json!(5))], 1000);
        assert_eq!(done, Ok(json!({"path": "notes.txt", "lines": [1, 5]})));
        let refused = |rewrites, limit| rewrite(&value, rewrites, limit).unwrap_err();
        assert_eq!(refused(vec![field("/other", json!(1))], 1000), RewriteError::NoSuchField("/other".into()));
        assert_eq!(refused(vec![field("/lines", json!(1))], 1000), RewriteError::NoSuchField("/lines".into()));
        assert_eq!(refused(vec![field("/path", json!([1]))], 1000), RewriteError::NotAScalar("/path".into()));
        assert_eq!(refused(vec![field("/path", json!("x")); 4], 1000), RewriteError::TooMany { given: 4, fields: 3 });
        assert_eq!(refused(vec![field("/path", json!("x".repeat(100)))], 64), RewriteError::TooLarge { limit: 64 });
    }
}

//! Example policy: a file tool may reach only the folders its `ALLOW` setting names
//! (comma-separated, as the tool sees paths: `notes/,/workspace/docs`). Before a call
//! it checks every argument that names a path — a key holding `path` or `file`, or
//! one of `dir`, `directory`, `folder`, `from`, `to`, `source`, `destination` — and
//! refuses the call when one leads outside them (`..` included), saying which folders
//! are allowed. With no `ALLOW` set it refuses every path. Results pass untouched.

#![allow(missing_docs, reason = "the bindings wit-bindgen writes have no doc comments")]

toolhost_guest::wit_bindgen::generate!({
    path: "../../wit",
    world: "policy-component",
    runtime_path: "::toolhost_guest::wit_bindgen::rt",
});

use exports::toolhost::tool::policy::{Call, Field, Guest, Scalar, Verdict};

struct PathAllow;

impl Guest for PathAllow {
    fn before(call: Call) -> Verdict {
        let allowed = allowed_folders();
        for field in &call.arguments {
            let Scalar::Text(path) = &field.value else { continue };
            if !names_a_path(&field.path) {
                continue;
            }
            let inside = normal(path).is_some_and(|path| allowed.iter().any(|folder| is_within(&path, folder)));
            if !inside {
                return Verdict::Deny(refusal(path, &allowed));
            }
        }
        Verdict::Allow
    }

    fn after(_call: Call, _returned: Vec<Field>) -> Verdict {
        Verdict::Allow
    }
}

/// The folders `ALLOW` names, each as path segments.
fn allowed_folders() -> Vec<Vec<String>> {
    std::env::var("ALLOW")
        .unwrap_or_default()
        .split(',')
        .filter(|folder| !folder.trim().is_empty())
        .filter_map(|folder| normal(folder.trim()))
        .collect()
}

/// Whether the argument at JSON Pointer `pointer` names a path, by its key.
fn names_a_path(pointer: &str) -> bool {
    let key = pointer.rsplit('/').find(|segment| segment.parse::<usize>().is_err()).unwrap_or("").to_lowercase();
    key.contains("path")
        || key.contains("file")
        || ["dir", "directory", "folder", "from", "to", "source", "destination"].contains(&key.as_str())
}

/// `path` as segments with `.` and `..` resolved (a leading `/` kept as a first empty
/// segment); `None` when `..` leads above where it starts.
fn normal(path: &str) -> Option<Vec<String>> {
    let mut segments: Vec<String> = Vec::new();
    if path.starts_with('/') {
        segments.push(String::new());
    }
    let root = segments.len();
    for segment in path.split(['/', '\\']) {
        match segment {
            "" | "." => {}
            ".." if segments.len() > root => drop(segments.pop()),
            ".." => return None,
            segment => segments.push(segment.to_string()),
        }
    }
    Some(segments)
}

/// Whether `path` is `folder` or inside it.
fn is_within(path: &[String], folder: &[String]) -> bool {
    path.len() >= folder.len() && path.iter().zip(folder).all(|(a, b)| a == b)
}

/// What the model is told when `path` is outside `allowed`.
fn refusal(path: &str, allowed: &[Vec<String>]) -> String {
    if allowed.is_empty() {
        return format!("The path '{path}' cannot be used: this agent may not use any folder.");
    }
    let folders: Vec<String> = allowed.iter().map(|folder| format!("'{}/'", folder.join("/"))).collect();
    format!(
        "The path '{path}' is outside the folders this agent may use ({}); use a path inside one of them.",
        folders.join(", ")
    )
}

export!(PathAllow);

//! The `files` example tool: file access confined to the folder the host grants at `/workspace`.

#![allow(
    missing_docs,
    reason = "the bindings toolhost_guest::generate! writes have no doc comments: a tool's docs are its WIT's"
)]

use std::fs;
use std::io::Write;
use std::path::PathBuf;

use exports::example::files::files::{DirEntry, EntryKind, Guest, WriteMode};

toolhost_guest::generate!({ world: "files-tools" });

/// Where the host mounts the granted folder inside the sandbox.
const WORKSPACE: &str = "/workspace";

struct Files;

impl Guest for Files {
    fn read_file(path: String) -> Result<String, String> {
        fs::read_to_string(resolve(&path)?).map_err(|e| describe(&path, "read", &e))
    }

    fn write_file(path: String, contents: String, mode: WriteMode) -> Result<u64, String> {
        let full = resolve(&path)?;
        let mut options = fs::OpenOptions::new();
        match mode {
            WriteMode::Create => options.write(true).create_new(true),
            WriteMode::Overwrite => options.write(true).create(true).truncate(true),
            WriteMode::Append => options.append(true).create(true),
        };
        let mut file = options.open(&full).map_err(|e| describe(&path, "open", &e))?;
        file.write_all(contents.as_bytes()).map_err(|e| describe(&path, "write", &e))?;
        let size = file.metadata().map_err(|e| describe(&path, "inspect", &e))?.len();
        Ok(size)
    }

    fn list_dir(path: String) -> Result<Vec<DirEntry>, String> {
        let listing = fs::read_dir(resolve(&path)?).map_err(|e| describe(&path, "list", &e))?;
        let mut entries = Vec::new();
        for entry in listing {
            let entry = entry.map_err(|e| describe(&path, "list", &e))?;
            let kind = entry.file_type().map_err(|e| describe(&path, "list", &e))?;
            let size = if kind.is_file() { entry.metadata().map(|m| m.len()).unwrap_or(0) } else { 0 };
            entries.push(DirEntry {
                name: entry.file_name().to_string_lossy().into_owned(),
                kind: if kind.is_file() {
                    EntryKind::File
                } else if kind.is_dir() {
                    EntryKind::Directory
                } else if kind.is_symlink() {
                    EntryKind::Symlink
                } else {
                    EntryKind::Other
                },
                size,
            });
        }
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(entries)
    }
}

/// Maps a path the model gave to one under the granted folder; `..` may not climb out.
fn resolve(path: &str) -> Result<PathBuf, String> {
    let relative = path.strip_prefix(WORKSPACE).unwrap_or(path).trim_start_matches('/');
    let mut full = PathBuf::from(WORKSPACE);
    for part in relative.split('/').filter(|p| !p.is_empty() && *p != ".") {
        if part == ".." {
            return Err(format!("'{path}' leaves the granted folder: '..' is not allowed"));
        }
        full.push(part);
    }
    Ok(full)
}

fn describe(path: &str, action: &str, error: &std::io::Error) -> String {
    use std::io::ErrorKind::*;
    let reason = match error.kind() {
        NotFound => "it does not exist, or no folder was granted to this tool".to_string(),
        PermissionDenied | ReadOnlyFilesystem => "permission denied (the grant may be read-only)".to_string(),
        AlreadyExists => "it already exists (use mode overwrite or append)".to_string(),
        _ => error.to_string(),
    };
    format!("could not {action} '{path}': {reason}")
}

export!(Files);

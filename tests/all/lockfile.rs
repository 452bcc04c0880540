//! A plugin folder's `toolhost.lock`: a component pulled from a registry loads only
//! while its bytes (and its manifest's) are the ones locked; a changed file is
//! refused by name, and the host serves everything else.

use std::fs;
use std::path::Path;

use serde_json::json;
use sha2::{Digest, Sha256};
use toolhost::Host;

use crate::common;

fn digest_of(path: &Path) -> String {
    let hash = Sha256::digest(fs::read(path).expect("read"));
    format!("sha256:{}", hash.iter().map(|b| format!("{b:02x}")).collect::<String>())
}

/// A lock entry for `name` in `folder` as it is now (and for its manifest, if given).
fn entry(folder: &Path, name: &str, manifest: bool) -> String {
    let mut entry = format!(
        "[[component]]\nname = \"{name}\"\nreference = \"127.0.0.1:5000/tools/{name}:1.0.0\"\nsha256 = \"{}\"\n",
        digest_of(&folder.join(format!("{name}.wasm")))
    );
    if manifest {
        entry += &format!("manifest-sha256 = \"{}\"\n", digest_of(&folder.join(format!("{name}.toml"))));
    }
    entry
}

fn write_lock(folder: &Path, entries: &[String]) {
    fs::write(folder.join("toolhost.lock"), format!("version = 1\n\n{}", entries.join("\n"))).expect("lock");
}

fn host(folders: &[&Path]) -> Host {
    folders
        .iter()
        .fold(Host::builder(), |builder, folder| builder.plugin_dir(folder))
        .cache_dir(common::test_cache_dir())
        .build()
        .expect("host")
}

fn components(host: &Host) -> Vec<String> {
    let mut names: Vec<String> = host.tools().into_iter().map(|tool| tool.component).collect();
    names.sort();
    names.dedup();
    names
}

/// Swapping a pulled file for other code takes the component away until it matches
/// again: the previous version is not kept either, as it would be after a broken
/// rewrite, since the lock says what this folder must serve.
#[test]
fn a_component_loads_while_it_matches_its_lock_and_is_refused_by_name_once_changed() {
    let folder = common::plugins_with(&["calculator", "units", "dates"]);
    // dates is not locked: a file the user put there is trusted as it is.
    write_lock(folder.path(), &[entry(folder.path(), "calculator", false), entry(folder.path(), "units", false)]);
    let host = host(&[folder.path()]);
    assert_eq!(host.load_report().warnings, Vec::<String>::new());
    assert_eq!(components(&host), ["calculator", "dates", "units"]);

    let locked = digest_of(&folder.path().join("units.wasm"));
    fs::copy(common::plugins_dir().join("text.wasm"), folder.path().join("units.wasm")).expect("swap");
    host.reload().expect("reload");
    let found = digest_of(&folder.path().join("units.wasm"));
    let warnings = host.load_report().warnings;
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains(&format!(
            "units.wasm: its content does not match toolhost.lock (locked {locked}, found {found}): it changed \
             after it was pulled from 127.0.0.1:5000/tools/units:1.0.0, so it is not loaded; run `toolhost pull`"
        )),
        "{}",
        warnings[0]
    );
    assert_eq!(components(&host), ["calculator", "dates"]);
    assert_eq!(host.call("gcd", &json!({"a": 12, "b": 18})).expect("the others still serve"), json!(6));
}

#[test]
fn a_changed_lock_is_checked_again_on_reload() {
    let folder = common::plugins_with(&["calculator"]);
    let host = host(&[folder.path()]);
    assert_eq!(components(&host), ["calculator"]);
    let wrong = entry(folder.path(), "calculator", false)
        .replace(&digest_of(&folder.path().join("calculator.wasm")), &format!("sha256:{}", "0".repeat(64)));
    write_lock(folder.path(), &[wrong]);
    host.reload().expect("reload");
    assert!(components(&host).is_empty());
    assert!(host.load_report().warnings[0].contains("calculator.wasm: its content does not match toolhost.lock"));
}

#[test]
fn a_locked_manifest_that_changed_or_went_is_refused() {
    let folder = common::plugins_with(&["calculator"]);
    let manifest = folder.path().join("calculator.toml");
    fs::write(&manifest, "[tools.gcd]\ndescription = \"The greatest common divisor.\"\n").expect("manifest");
    write_lock(folder.path(), &[entry(folder.path(), "calculator", true)]);
    let host = host(&[folder.path()]);
    assert_eq!(host.tool("gcd").expect("gcd").description, "The greatest common divisor.");

    // A manifest grants folders and hosts: one swapped after the pull is refused too.
    fs::write(&manifest, "[grants]\nhttp = [\"*\"]\n").expect("swap");
    host.reload().expect("reload");
    assert!(host.load_report().warnings[0].contains("calculator.wasm: its manifest does not match toolhost.lock"));
    fs::remove_file(&manifest).expect("remove");
    host.reload().expect("reload");
    assert!(host.load_report().warnings[0].contains(", found no file)"), "{:?}", host.load_report().warnings);
    assert!(components(&host).is_empty());
}

#[test]
fn an_unusable_lock_refuses_its_own_folder_and_no_other() {
    let locked = common::plugins_with(&["calculator", "dates"]);
    let other = common::plugins_with(&["units"]);
    fs::write(locked.path().join("toolhost.lock"), "version = 1\n[[component]]\nname = 3\n").expect("lock");
    let host = host(&[locked.path(), other.path()]);
    assert_eq!(components(&host), ["units"]);
    let warnings = host.load_report().warnings;
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    for warning in &warnings {
        assert!(warning.contains("the plugin folder's toolhost.lock cannot be used ("), "{warning}");
        assert!(warning.contains("so no component of that folder is loaded: run `toolhost pull`"), "{warning}");
    }
}

//! The doors around the sandbox: a compile cache that cannot be used to swap or plant
//! code (entries bound to their component and engine and authenticated, folders that
//! others may write not used), and plugin-folder entries that are not regular files
//! or are too large skipped without blocking or reading them.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::json;
use toolhost::Host;

use crate::common;

fn cached(plugins: &Path, cache: &Path) -> Host {
    Host::builder().plugin_dir(plugins).cache_dir(cache).build().expect("host")
}

/// The cache's entries, sorted.
fn entries(cache: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = fs::read_dir(cache)
        .expect("cache folder")
        .map(|entry| entry.expect("entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "cwasm"))
        .collect();
    entries.sort();
    entries
}

/// The calculator and text tools still run their own code, under their own names.
fn serves_the_right_code(host: &Host) {
    assert_eq!(host.tool("evaluate").map(|t| t.component).as_deref(), Some("calculator"));
    assert_eq!(host.tool("slugify").map(|t| t.component).as_deref(), Some("text"));
    assert_eq!(host.call("evaluate", &json!({"expression": "2 * (3 + 4)"})), Ok(json!(14.0)));
    assert_eq!(host.call("slugify", &json!({"text": "Hello World"})), Ok(json!("hello-world")));
}

#[test]
fn swapped_cache_entries_are_compiled_again_never_run() {
    let (plugins, cache) = (common::plugins_with(&["calculator", "text"]), tempfile::tempdir().expect("cache"));
    assert_eq!(cached(plugins.path(), cache.path()).load_report().compiled(), 2);
    let [first, second] = <[PathBuf; 2]>::try_from(entries(cache.path())).expect("two entries");
    let (first_bytes, second_bytes) = (fs::read(&first).expect("entry"), fs::read(&second).expect("entry"));
    fs::write(&first, &second_bytes).expect("swap");
    fs::write(&second, &first_bytes).expect("swap");

    let host = cached(plugins.path(), cache.path());
    assert_eq!(host.load_report().compiled(), 2, "a swapped entry was taken");
    serves_the_right_code(&host);
    // The entries were written anew, and are good again.
    assert_eq!(cached(plugins.path(), cache.path()).load_report().compiled(), 0);
}

#[test]
fn an_entry_planted_from_another_cache_is_compiled_again() {
    let plugins = common::plugins_with(&["calculator", "text"]);
    let (ours, theirs) = (tempfile::tempdir().expect("cache"), tempfile::tempdir().expect("cache"));
    cached(plugins.path(), ours.path());
    cached(plugins.path(), theirs.path());
    // A perfect compile of the very same component, by another host with another key:
    // only the key tells it from ours.
    for (planted, victim) in entries(theirs.path()).iter().zip(entries(ours.path())) {
        assert_eq!(planted.file_name(), victim.file_name());
        fs::copy(planted, &victim).expect("plant");
    }
    let host = cached(plugins.path(), ours.path());
    assert_eq!(host.load_report().compiled(), 2, "a planted entry was taken");
    serves_the_right_code(&host);
}

#[test]
fn an_entry_for_another_engine_is_compiled_again() {
    let (plugins, cache) = (common::plugins_with(&["calculator"]), tempfile::tempdir().expect("cache"));
    cached(plugins.path(), cache.path());
    // The entry's header names the engine it was compiled for (after a 16-byte magic
    // and the component's 32-byte digest); another engine's entry differs there.
    let entry = entries(cache.path()).remove(0);
    let mut bytes = fs::read(&entry).expect("entry");
    bytes[16 + 32] ^= 0xff;
    fs::write(&entry, bytes).expect("write");
    let host = cached(plugins.path(), cache.path());
    assert_eq!(host.load_report().compiled(), 1);
    assert_eq!(host.call("evaluate", &json!({"expression": "1 + 1"})), Ok(json!(2.0)));
}

#[test]
fn a_cache_folder_others_may_write_is_not_used() {
    let plugins = common::plugins_with(&["calculator"]);
    for mode in [0o777, 0o770, 0o702] {
        let cache = tempfile::tempdir().expect("cache");
        fs::set_permissions(cache.path(), fs::Permissions::from_mode(mode)).expect("chmod");
        for _ in 0..2 {
            let host = cached(plugins.path(), cache.path());
            assert_eq!(host.load_report().compiled(), 1, "mode {mode:o}: the cache was used");
            let warnings = host.load_report().warnings;
            assert_eq!(warnings.len(), 1, "{warnings:#?}");
            assert_eq!(
                warnings[0],
                format!(
                    "the compile cache is not used, because {} can be written by other users (mode {mode:03o}): \
                     whoever can write there could make the host run their code. Use a folder only this user can \
                     write (`chmod 700` it), or another one (TOOLHOST_CACHE_DIR); components are compiled on every \
                     start meanwhile",
                    cache.path().display()
                )
            );
        }
        assert_eq!(fs::read_dir(cache.path()).expect("folder").count(), 0, "something was written there");
    }
}

#[test]
fn a_symlinked_cache_folder_is_not_used() {
    let plugins = common::plugins_with(&["calculator"]);
    let (real, links) = (tempfile::tempdir().expect("cache"), tempfile::tempdir().expect("folder"));
    let link = links.path().join("cache");
    std::os::unix::fs::symlink(real.path(), &link).expect("symlink");
    let host = cached(plugins.path(), &link);
    assert_eq!(host.load_report().compiled(), 1);
    let expected = format!(
        "the compile cache is not used, because {} is a symbolic link; name the folder it points to instead: ",
        link.display()
    );
    assert!(host.load_report().warnings[0].starts_with(&expected), "{:?}", host.load_report().warnings);
    assert_eq!(fs::read_dir(real.path()).expect("folder").count(), 0);
}

#[test]
fn a_cache_folder_of_another_user_is_private_to_them_but_may_be_shared_read_only() {
    let plugins = common::plugins_with(&["calculator", "text"]);
    let cache = tempfile::tempdir().expect("cache");
    cached(plugins.path(), cache.path());
    fs::set_permissions(cache.path(), fs::Permissions::from_mode(0o755)).expect("chmod");

    // Shared: read, never written, its key not needed.
    let shared = || Host::builder().plugin_dir(plugins.path()).shared_cache_dir(cache.path()).build().expect("host");
    let host = shared();
    assert_eq!((host.load_report().compiled(), host.load_report().warnings), (0, Vec::new()));
    serves_the_right_code(&host);

    let nobody = 65534;
    if std::os::unix::fs::chown(cache.path(), Some(nobody), Some(nobody)).is_err() {
        // Only root can give a folder away; CI runs as root and takes this path.
        eprintln!("not checked without root: a cache folder owned by another user");
        return;
    }
    for entry in fs::read_dir(cache.path()).expect("folder") {
        std::os::unix::fs::chown(entry.expect("entry").path(), Some(nobody), Some(nobody)).expect("chown");
    }
    let host = cached(plugins.path(), cache.path());
    assert_eq!(host.load_report().compiled(), 2, "another user's cache was used as our own");
    assert!(host.load_report().warnings[0].contains(&format!("belongs to another user (uid {nobody}, not 0)")));
    serves_the_right_code(&host);
    // The operator may vouch for another user's read-only cache explicitly.
    assert_eq!(shared().load_report().compiled(), 0);
    // Not one that others may write, though.
    fs::set_permissions(cache.path(), fs::Permissions::from_mode(0o757)).expect("chmod");
    let host = shared();
    assert_eq!(host.load_report().compiled(), 2);
    assert!(host.load_report().warnings[0].contains("can be written by other users (mode 757)"));
}

/// Builds a host over `folder` on another thread, failing (not hanging) when loading
/// does not finish within a minute.
fn build_within_a_minute(folder: &Path) -> Host {
    let (sender, outcome) = mpsc::channel();
    let folder = folder.to_path_buf();
    std::thread::spawn(move || {
        let host = Host::builder().plugin_dir(folder).cache_dir(common::test_cache_dir()).build();
        let _ = sender.send(host);
    });
    outcome.recv_timeout(Duration::from_secs(60)).expect("loading finished within a minute").expect("host")
}

#[test]
fn fifos_devices_huge_files_and_folders_named_wasm_are_skipped_without_blocking() {
    let plugins = common::plugins_with(&["calculator", "units"]);
    let folder = plugins.path();
    let mkfifo = |path: &Path| {
        let status = std::process::Command::new("mkfifo").arg(path).status().expect("mkfifo runs");
        assert!(status.success(), "mkfifo {}", path.display());
    };
    mkfifo(&folder.join("fifo.wasm"));
    mkfifo(&folder.join("units.toml"));
    std::os::unix::fs::symlink("/dev/zero", folder.join("zero.wasm")).expect("symlink");
    fs::File::create(folder.join("huge.wasm")).expect("create").set_len(1 << 30).expect("a sparse 1 GiB file");
    fs::create_dir(folder.join("folder.wasm")).expect("folder");

    let host = build_within_a_minute(folder);
    assert_eq!(host.call("gcd", &json!({"a": 12, "b": 18})), Ok(json!(6)));
    let mut warnings = host.load_report().warnings;
    warnings.sort();
    let at = |name: &str| folder.join(name).display().to_string();
    assert_eq!(
        warnings,
        [
            format!("skipped {}: cannot read it: it is a FIFO (named pipe), not a regular file", at("fifo.wasm")),
            format!("skipped {}: cannot read it: it is a folder, not a regular file", at("folder.wasm")),
            format!(
                "skipped {}: cannot read it: it is 1073741824 bytes, over the limit of 268435456 bytes",
                at("huge.wasm")
            ),
            format!(
                "skipped {}: cannot read its manifest {}: it is a FIFO (named pipe), not a regular file",
                at("units.wasm"),
                at("units.toml")
            ),
            format!("skipped {}: cannot read it: it is a character device, not a regular file", at("zero.wasm")),
        ]
    );

    // A reload (what the folder watcher runs) follows the same rules.
    mkfifo(&folder.join("later.wasm"));
    let (sender, reloaded) = mpsc::channel();
    let reloading = host.clone();
    std::thread::spawn(move || {
        let _ = sender.send(reloading.reload());
    });
    reloaded.recv_timeout(Duration::from_secs(60)).expect("the reload finished within a minute").expect("reload");
    assert!(host.load_report().warnings.iter().any(|w| w.contains("later.wasm: cannot read it: it is a FIFO")));
    assert_eq!(host.call("gcd", &json!({"a": 12, "b": 18})), Ok(json!(6)));
}

#[test]
fn the_component_size_limit_is_a_setting() {
    let plugins = common::plugins_with(&["calculator"]);
    let size = fs::metadata(plugins.path().join("calculator.wasm")).expect("built").len();
    let host =
        Host::builder().plugin_dir(plugins.path()).max_component_bytes(size - 1).no_cache().build().expect("host");
    assert!(host.tools().is_empty());
    assert!(
        host.load_report().warnings[0].ends_with(&format!("it is {size} bytes, over the limit of {} bytes", size - 1))
    );
    let host = Host::builder().plugin_dir(plugins.path()).max_component_bytes(size).no_cache().build().expect("host");
    assert_eq!(host.call("gcd", &json!({"a": 2, "b": 4})), Ok(json!(2)));
}

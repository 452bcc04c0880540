//! What the sandbox refuses, recorded as it happens, so that a call that then fails can
//! tell the model what was denied instead of the guest's libc guess ("Non-recoverable
//! error", "No such file or directory").
//!
//! The host replaces a few WASI functions with its own: host-name lookups and socket
//! creation (always refused), and opening a file (WASI's own, watched for refusals).
//! Paths outside every granted folder would never reach the host, so each call also
//! gets an empty, read-only folder at `/`: an open there is refused as "outside the
//! folders granted to this tool".

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use wasmtime::component::{Linker, Resource, Val};
use wasmtime_wasi::filesystem::{Descriptor, Dir, WasiFilesystemView};
use wasmtime_wasi::p2::bindings::filesystem::preopens;
use wasmtime_wasi::{FsPerms, OpenMode};
use wasmtime_wasi::p2::bindings::filesystem::types::{
    self as fs, DescriptorFlags, ErrorCode, HostDescriptor, OpenFlags, PathFlags,
};

use crate::sandbox::CallState;

/// The host-name lookup interface the host overrides so lookups are refused and recorded.
const NAME_LOOKUP_INTERFACE: &str = "wasi:sockets/ip-name-lookup@0.2.12";

/// The interface whose `open-at` the host watches.
const FILESYSTEM_TYPES: &str = "wasi:filesystem/types@0.2.12";

/// The interface that hands the guest its folders, the empty root among them.
const FILESYSTEM_PREOPENS: &str = "wasi:filesystem/preopens@0.2.12";

/// The one way out of the sandbox, for the messages.
const ONLY_HTTP: &str = "HTTP requests to allowed hosts are the only network access";

/// What the sandbox refused during one call, in words for the model. Shared between
/// the call's store and its HTTP hooks.
#[derive(Debug, Clone, Default)]
pub struct Denials(Arc<Mutex<Vec<Refusal>>>);

/// One refusal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// What was refused, naming the host, address or path.
    pub what: String,
    /// Whether it was a file opened, which language runtimes also do on their own
    /// (Python looks for its sources to print a traceback): such a refusal explains the
    /// tool's own error, but is not taken to explain a crash.
    pub file: bool,
}

impl Denials {
    /// Notes a refused network use (repeats are noted once).
    pub fn record(&self, what: String) {
        self.push(Refusal { what, file: false });
    }

    /// Notes a refused file open (repeats are noted once).
    pub fn record_file(&self, what: String) {
        self.push(Refusal { what, file: true });
    }

    fn push(&self, refusal: Refusal) {
        let mut list = self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if !list.contains(&refusal) {
            list.push(refusal);
        }
    }

    /// Everything refused so far, in order.
    pub fn take(&self) -> Vec<Refusal> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner()))
    }
}

/// The empty folder every call sees at `/`, so that paths outside the granted folders
/// reach the host and can be refused by name. Opened once; removed when dropped.
#[derive(Debug)]
pub struct EmptyRoot {
    path: PathBuf,
    folder: std::fs::File,
}

impl EmptyRoot {
    /// Makes a fresh empty folder under the system's temporary folder.
    pub fn create() -> std::io::Result<EmptyRoot> {
        let path = std::env::temp_dir().join(format!("toolhost-root-{}-{}", std::process::id(), unique()));
        std::fs::create_dir_all(&path)?;
        let folder = std::fs::File::open(&path)?;
        Ok(EmptyRoot { path, folder })
    }

    /// A read-only descriptor of the folder for one call (a duplicated handle: no path
    /// is looked up again).
    fn descriptor(&self) -> std::io::Result<Descriptor> {
        Ok(Descriptor::Dir(Dir::new(self.folder.try_clone()?, FsPerms::ReadOnly, OpenMode::READ, false)))
    }
}

impl Drop for EmptyRoot {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.path);
    }
}

/// A number unique within this process, for folder names.
fn unique() -> usize {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// Puts the host's versions of the watched WASI functions in `linker`.
pub fn install(linker: &mut Linker<CallState>) -> wasmtime::Result<()> {
    linker.allow_shadowing(true);
    refuse_sockets_and_lookups(linker)?;
    add_empty_root(linker)?;
    watch_file_opens(linker)?;
    linker.allow_shadowing(false);
    Ok(())
}

/// Replaces WASI's host-name lookup and socket creation with versions that refuse and
/// record what was asked for (WASI's own refuse without telling the host). Lookups
/// would let a tool send data out through DNS and sockets would reach any address, so
/// no manifest grants them: HTTP to allowed hosts is the only way out.
fn refuse_sockets_and_lookups(linker: &mut Linker<CallState>) -> wasmtime::Result<()> {
    linker.instance(NAME_LOOKUP_INTERFACE)?.func_new_async(
        "resolve-addresses",
        |mut store, _ty, params, results| {
            Box::new(async move {
                // The borrowed `network` handle must be released before the call returns.
                if let Some(Val::Resource(network)) = params.first() {
                    network.resource_drop_async(&mut store).await?;
                }
                if let Some(Val::String(name)) = params.get(1) {
                    store.data().denials.record(format!(
                        "a lookup of the host name '{name}' (tools may not resolve host names; {ONLY_HTTP})"
                    ));
                }
                results[0] = refused("permanent-resolver-failure");
                Ok(())
            })
        },
    )?;
    for (interface, function, protocol) in SOCKET_CONSTRUCTORS {
        linker.instance(interface)?.func_new(function, move |store, _ty, _params, results| {
            store
                .data()
                .denials
                .record(format!("opening a {protocol} socket (tools may not open sockets; {ONLY_HTTP})"));
            results[0] = refused("access-denied");
            Ok(())
        })?;
    }
    Ok(())
}

/// The functions that create sockets, by interface, and the protocol they open.
const SOCKET_CONSTRUCTORS: [(&str, &str, &str); 2] = [
    ("wasi:sockets/tcp-create-socket@0.2.12", "create-tcp-socket", "TCP"),
    ("wasi:sockets/udp-create-socket@0.2.12", "create-udp-socket", "UDP"),
];

/// The `err` of a `result<_, error-code>` from `wasi:sockets`.
fn refused(code: &str) -> Val {
    Val::Result(Err(Some(Box::new(Val::Enum(code.into())))))
}

/// WASI's `get-directories`, with the empty root added at `/` (unless a grant is there).
fn add_empty_root(linker: &mut Linker<CallState>) -> wasmtime::Result<()> {
    linker.instance(FILESYSTEM_PREOPENS)?.func_wrap("get-directories", |mut store, (): ()| {
        let state = store.data_mut();
        let root = state.empty_root.clone();
        let mut view = state.filesystem();
        let mut folders = preopens::Host::get_directories(&mut view)?;
        if let Some(root) = root.filter(|_| !folders.iter().any(|(_, path)| path == "/")) {
            let descriptor = view.table.push(root.descriptor()?)?;
            state.root_descriptors.push(descriptor.rep());
            folders.push((descriptor, "/".to_string()));
        }
        Ok((folders,))
    })
}

/// WASI's `open-at`, with refusals recorded: a path outside every granted folder (an
/// open in the empty root), a path leading out of a grant (`..`, a symlink) and a
/// write to a read-only grant.
fn watch_file_opens(linker: &mut Linker<CallState>) -> wasmtime::Result<()> {
    type Params = (Resource<Descriptor>, PathFlags, String, OpenFlags, DescriptorFlags);
    linker.instance(FILESYSTEM_TYPES)?.func_wrap_async(
        "[method]descriptor.open-at",
        |mut store, (dir, path_flags, path, open_flags, flags): Params| {
            Box::new(async move {
                let state = store.data_mut();
                if state.root_descriptors.contains(&dir.rep()) {
                    state.denials.record_file(format!(
                        "opening '/{path}' (it is outside the folders granted to this tool)"
                    ));
                    return Ok((Err(ErrorCode::Access),));
                }
                let writing = open_flags.intersects(OpenFlags::CREATE | OpenFlags::TRUNCATE)
                    || flags.intersects(DescriptorFlags::WRITE | DescriptorFlags::MUTATE_DIRECTORY);
                let denials = state.denials.clone();
                let mut view = state.filesystem();
                match HostDescriptor::open_at(&mut view, dir, path_flags, path.clone(), open_flags, flags).await {
                    Ok(file) => Ok((Ok(file),)),
                    Err(error) => {
                        let code = fs::Host::convert_error_code(&mut view, error)?;
                        if matches!(code, ErrorCode::NotPermitted | ErrorCode::Access) {
                            denials.record_file(describe_file_refusal(&path, writing));
                        }
                        Ok((Err(code),))
                    }
                }
            })
        },
    )
}

fn describe_file_refusal(path: &str, writing: bool) -> String {
    if writing {
        format!("writing '{path}' (the folder is read-only for this tool, or the path leads out of it)")
    } else {
        format!("opening '{path}' (the path leads out of the folder granted to this tool)")
    }
}

//! The WASI functions the host replaces with its own, so that what the sandbox denies
//! is seen, recorded in the call's denials and named to the model: host-name lookups
//! and socket creation (always denied), the folder list (with the empty root added at
//! `/`), and opening a file (WASI's own, watched for denials).

use wasmtime::component::{Linker, Resource, Val};
use wasmtime_wasi::filesystem::{Descriptor, WasiFilesystemView};
use wasmtime_wasi::p2::bindings::filesystem::preopens;
use wasmtime_wasi::p2::bindings::filesystem::types::{
    self as fs, DescriptorFlags, ErrorCode, HostDescriptor, OpenFlags, PathFlags,
};

use super::state::CallState;

/// The host-name lookup interface the host overrides so lookups are denied and recorded.
const NAME_LOOKUP_INTERFACE: &str = "wasi:sockets/ip-name-lookup@0.2.12";

/// The interface whose `open-at` the host watches.
const FILESYSTEM_TYPES: &str = "wasi:filesystem/types@0.2.12";

/// The interface that hands the guest its folders, the empty root among them.
const FILESYSTEM_PREOPENS: &str = "wasi:filesystem/preopens@0.2.12";

/// The one way out of the sandbox, for the messages.
const ONLY_HTTP: &str = "HTTP requests to allowed hosts are the only network access";

/// Puts the host's versions of the watched WASI functions in `linker`.
pub(crate) fn install(linker: &mut Linker<CallState>) -> wasmtime::Result<()> {
    linker.allow_shadowing(true);
    deny_sockets_and_lookups(linker)?;
    add_empty_root(linker)?;
    watch_file_opens(linker)?;
    linker.allow_shadowing(false);
    Ok(())
}

/// Replaces WASI's host-name lookup and socket creation with versions that deny and
/// record what was asked for (WASI's own deny without telling the host). Lookups
/// would let a tool send data out through DNS and sockets would reach any address, so
/// no manifest grants them: HTTP to allowed hosts is the only way out.
fn deny_sockets_and_lookups(linker: &mut Linker<CallState>) -> wasmtime::Result<()> {
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
                results[0] = denied("permanent-resolver-failure");
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
            results[0] = denied("access-denied");
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
fn denied(code: &str) -> Val {
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

/// WASI's `open-at`, with denials recorded: a path outside every granted folder (an
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
                    state
                        .denials
                        .record_file(format!("opening '/{path}' (it is outside the folders granted to this tool)"));
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
                            denials.record_file(describe_file_denial(&path, writing));
                        }
                        Ok((Err(code),))
                    }
                }
            })
        },
    )
}

fn describe_file_denial(path: &str, writing: bool) -> String {
    if writing {
        format!("writing '{path}' (the folder is read-only for this tool, or the path leads out of it)")
    } else {
        format!("opening '{path}' (the path leads out of the folder granted to this tool)")
    }
}

//! Loading: files → components ready to serve calls. A plugin folder is scanned
//! (`folder.rs`); each file is read, checked, compiled through the cache (`cache.rs`)
//! on a worker per core (`workers.rs`), linked, and introspected into tool specs
//! (`introspect.rs` over `types.rs`, with descriptions from the embedded WIT docs,
//! `docs.rs`, and from the manifest beside it, `manifest.rs`); a component pulled from
//! a registry must first match the folder's lock file (`lockfile.rs`); a component's
//! secrets are read from their folder (`secrets.rs`). A file that
//! cannot be loaded becomes a warning in the report (`report.rs`), never a reason to stop.

mod cache;
mod docs;
mod folder;
mod introspect;
mod lockfile;
mod manifest;
mod report;
mod secrets;
pub(crate) mod shaping;
mod types;
mod workers;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use wasmtime::component::{Component, InstancePre};

pub(crate) use cache::{Cache, CacheError, default_dir};
#[cfg(feature = "mcp-servers")]
pub(crate) use folder::SERVER_SUFFIX;
pub(crate) use folder::is_rest_api_file;
#[cfg(feature = "rest-apis")]
pub(crate) use folder::{MAX_DOCUMENT_BYTES, REST_API_SUFFIX};
pub(crate) use folder::{Version, fingerprint, plugin_files, server_fingerprint};
pub(crate) use introspect::{FoundTool, Offered, Offers};
#[cfg(any(feature = "oci", feature = "rest-apis"))]
pub(crate) use lockfile::sha256_digest;
#[cfg(feature = "rest-apis")]
pub(crate) use lockfile::{DocumentEntry, document_entry, record_document};
#[cfg(feature = "oci")]
pub(crate) use lockfile::{Entry as LockEntry, entries_in as lock_entries, record as record_lock_entry};
pub(crate) use manifest::Manifest;
#[cfg(feature = "oci")]
pub(crate) use manifest::path_for as manifest_path_for;
pub use report::{ComponentReport, LoadReport, Provenance};
pub(crate) use secrets::SecretSource;
pub use secrets::{SecretError, SecretStore};
pub(crate) use workers::{Progress, load_all};

use crate::error::LoadError;
use crate::runtime::{BASELINE_FROM_BYTES, Compiler, Precompiled, Runtime};
use crate::sandbox::CallState;
use crate::sys::{self, ReadError};

/// The largest component file loaded unless the builder says otherwise: 256 MiB (the
/// example Python tool, which carries its interpreter, is 18 MiB).
pub(crate) const DEFAULT_MAX_COMPONENT_BYTES: u64 = 256 << 20;

/// The largest manifest read: a manifest is a few lines of TOML.
pub(crate) const MAX_MANIFEST_BYTES: u64 = 1 << 20;

/// A component from a plugin folder, linked and introspected: ready to serve calls.
pub(crate) struct Plugin {
    /// Its name: the file name without `.wasm`.
    pub(crate) name: Arc<str>,
    /// Linked once, instantiated per call.
    pub(crate) pre: InstancePre<CallState>,
    /// Its tools.
    pub(crate) tools: Vec<FoundTool>,
    /// What it offers besides tools (resources, prompts).
    pub(crate) offers: Offers,
    /// The manifest beside it, if any.
    pub(crate) manifest: Option<Manifest>,
    /// The folder it was loaded from (relative manifest paths start there).
    pub(crate) folder: PathBuf,
}

/// One file loaded: the plugin, what loading it did, and the warnings about it.
pub(crate) struct LoadedFile {
    pub(crate) plugin: Plugin,
    pub(crate) report: ComponentReport,
    pub(crate) warnings: Vec<String>,
    /// The component's bytes, when it serves on baseline code and is to be optimized
    /// in the background.
    pub(crate) to_optimize: Option<Vec<u8>>,
}

/// Where [`load_file`] gets a component's native code.
#[derive(Clone, Copy)]
pub(crate) enum CodeFrom<'a> {
    /// The cache, else the compiler this says.
    Compile(Compiler),
    /// What the background optimizer compiled (only for the bytes it compiled).
    Precompiled(&'a Precompiled),
}

/// A component's native code, and how it was had.
struct Code {
    component: Component,
    /// Compiled now, not taken from the cache.
    compiled: bool,
    /// The baseline compiler's.
    baseline: bool,
}

/// Loads one component file of at most `max_bytes`: read, check, compile (or take
/// from `cache`), link, introspect, and apply its manifest.
pub(crate) fn load_file(
    runtime: &Runtime,
    path: &Path,
    cache: Option<&Cache>,
    max_bytes: u64,
    from: CodeFrom<'_>,
) -> Result<LoadedFile, LoadError> {
    let started = Instant::now();
    let bad = |reason: String| LoadError::Component { path: path.to_path_buf(), reason };
    let bytes = sys::read_regular_file(path, max_bytes).map_err(|error| unreadable(path, error))?;
    let refused =
        |error: lockfile::LockError| LoadError::Locked { path: path.to_path_buf(), reason: error.to_string() };
    let locked = lockfile::entry_for(path).map_err(refused)?;
    if let Some(locked) = &locked {
        locked.verify(path, &bytes).map_err(refused)?;
    }
    check_is_component(&bytes).map_err(|reason| bad(reason.to_string()))?;
    let manifest = Manifest::read_beside(path).map_err(|error| bad(error.to_string()))?;

    let Code { component, compiled, baseline } = code_for(runtime, &bytes, cache, from).map_err(bad)?;
    let pre = runtime.prepare(&component).map_err(|e| bad(format!("cannot be linked: {e}")))?;

    let name: Arc<str> = path.file_stem().map_or("component".into(), |s| s.to_string_lossy().into());
    let docs = docs::ComponentDocs::read(&bytes);
    let mut found = introspect::introspect(component.engine(), &name, &component, &docs);
    if let Some(manifest) = &manifest {
        found.warnings.extend(manifest.apply_to(&name, &mut found.tools).map_err(|error| bad(error.to_string()))?);
    }
    if found.tools.is_empty() && !found.offers.has(Offered::Resources) && !found.offers.has(Offered::Prompts) {
        if is_policy(&component) {
            return Err(bad("is a policy component, not a tool: give it to the host as a policy \
                 (`[[policy]]` in the configuration, or `HostBuilder::policy_component`)"
                .to_string()));
        }
        return Err(bad("exports no function usable as a tool".to_string()));
    }
    let report = ComponentReport {
        name: name.to_string(),
        path: path.to_path_buf(),
        tools: found.tools.len(),
        compiled,
        baseline,
        elapsed: started.elapsed(),
        provenance: match locked {
            Some(entry) => Provenance::Pulled { reference: entry.reference, signed_by: entry.signed_by },
            None => Provenance::Local,
        },
    };
    let folder = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let plugin = Plugin { name, pre, tools: found.tools, offers: found.offers, manifest, folder };
    let to_optimize = (baseline && matches!(from, CodeFrom::Compile(Compiler::Auto))).then_some(bytes);
    Ok(LoadedFile { plugin, report, warnings: found.warnings, to_optimize })
}

/// Whether `component` exports the `policy` interface (in any version).
fn is_policy(component: &Component) -> bool {
    let prefix = introspect::POLICY.trim_end_matches('*');
    component.component_type().exports(component.engine()).any(|(name, _)| name.starts_with(prefix))
}

/// `bytes` compiled by the optimizing compiler, or taken from `cache` (for code that
/// is not a plugin: a policy component); else why it is not a component.
pub(crate) fn optimized_code(runtime: &Runtime, bytes: &[u8], cache: Option<&Cache>) -> Result<Component, String> {
    check_is_component(bytes)?;
    code_for(runtime, bytes, cache, CodeFrom::Compile(Compiler::Optimizing)).map(|code| code.component)
}

/// The native code for `bytes`: optimized code from the cache, else what `from`
/// says. A component the baseline compiler cannot compile is optimized instead.
fn code_for(runtime: &Runtime, bytes: &[u8], cache: Option<&Cache>, from: CodeFrom<'_>) -> Result<Code, String> {
    let engine = runtime.engine();
    let compiler = match from {
        CodeFrom::Precompiled(precompiled) => {
            let component = precompiled.load(engine, bytes)?;
            return Ok(Code { component, compiled: true, baseline: false });
        }
        CodeFrom::Compile(compiler) => compiler,
    };
    if let Some(component) = cache.and_then(|cache| cache.load(engine, bytes)) {
        return Ok(Code { component, compiled: false, baseline: false });
    }
    let wants_baseline = match compiler {
        Compiler::Auto => bytes.len() >= BASELINE_FROM_BYTES,
        Compiler::Baseline => true,
        Compiler::Optimizing => false,
    };
    // The baseline engine is made only when first wanted.
    if wants_baseline && let Some(quick) = runtime.baseline_engine() {
        let quick_cache = cache.map(|cache| cache.for_engine(quick));
        if let Some(component) = quick_cache.as_ref().and_then(|cache| cache.load(quick, bytes)) {
            return Ok(Code { component, compiled: false, baseline: true });
        }
        match compile(quick, bytes, quick_cache.as_ref()) {
            Ok(component) => return Ok(Code { component, compiled: true, baseline: true }),
            Err(error) => tracing::info!("the baseline compiler cannot compile it ({error:#}); optimizing it now"),
        }
    }
    let component = compile(engine, bytes, cache).map_err(|e| format!("not a valid component: {e}"))?;
    Ok(Code { component, compiled: true, baseline: false })
}

/// The load error for a file that could not be read (or was not read: it is not a
/// regular file, or it is too large).
pub(crate) fn unreadable(path: &Path, error: ReadError) -> LoadError {
    match error {
        ReadError::Io(error) => LoadError::Read { path: path.to_path_buf(), error },
        other => LoadError::Component { path: path.to_path_buf(), reason: format!("cannot read it: {other}") },
    }
}

/// Compiles a component, and keeps the compiled form in the cache when there is one.
fn compile(engine: &wasmtime::Engine, bytes: &[u8], cache: Option<&Cache>) -> wasmtime::Result<Component> {
    let component = Component::new(engine, bytes)?;
    if let Some(cache) = cache {
        match component.serialize() {
            Ok(compiled) => cache.store(bytes, &compiled),
            Err(error) => tracing::warn!("cannot serialise a compiled component for the cache: {error}"),
        }
    }
    Ok(component)
}

/// Says what a file is when it is not a component, in words a tool author understands.
fn check_is_component(bytes: &[u8]) -> Result<(), &'static str> {
    const MAGIC: &[u8] = b"\0asm";
    if bytes.is_empty() {
        return Err("the file is empty");
    }
    if !bytes.starts_with(MAGIC) || bytes.len() < 8 {
        return Err("not a WebAssembly file");
    }
    if wasmparser::Parser::is_core_wasm(bytes) {
        return Err("a core WebAssembly module, not a component: build it for wasm32-wasip2 \
             (or wrap it with `wasm-tools component new`)");
    }
    Ok(())
}

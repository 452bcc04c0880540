//! Loading components: a plugin folder scanned, each file checked, compiled (in
//! parallel, through the cache), linked and introspected; a bad file becomes a warning.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use wasmtime::component::{Component, InstancePre};

use crate::cache::Cache;
use crate::docs::ComponentDocs;
use crate::error::LoadError;
use crate::introspect::{FoundTool, introspect};
use crate::manifest::Manifest;
use crate::runtime::Runtime;
use crate::sandbox::CallState;

/// A component ready to serve calls.
pub struct LoadedComponent {
    /// Its name: the file name without `.wasm`.
    pub name: Arc<str>,
    /// Linked once, instantiated per call.
    pub pre: InstancePre<CallState>,
    /// Its tools.
    pub tools: Vec<FoundTool>,
    /// The manifest beside it, if any.
    pub manifest: Option<Manifest>,
    /// The folder it was loaded from (relative manifest paths start there).
    pub folder: PathBuf,
}

/// What happened to one component while loading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComponentLoad {
    /// The component's name.
    pub name: String,
    /// The file it came from.
    pub path: PathBuf,
    /// How many tools it offers.
    pub tools: usize,
    /// Whether it was compiled now (`false`: taken from the cache).
    pub compiled: bool,
    /// How long loading it took.
    pub elapsed: Duration,
}

/// What a load did: the components that loaded, and one warning per problem.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadReport {
    /// Components that loaded, sorted by name.
    pub components: Vec<ComponentLoad>,
    /// Files skipped and functions left out, each naming the file and the reason.
    pub warnings: Vec<String>,
}

impl LoadReport {
    /// How many components had to be compiled (not found in the cache).
    pub fn compiled(&self) -> usize {
        self.components.iter().filter(|c| c.compiled).count()
    }
}

/// The `*.wasm` files of a folder, sorted.
pub fn wasm_files(dir: &Path) -> Result<Vec<PathBuf>, LoadError> {
    let entries = fs::read_dir(dir).map_err(|error| LoadError::PluginDir { path: dir.to_path_buf(), error })?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "wasm"))
        .collect();
    files.sort();
    Ok(files)
}

/// One file's outcome: the component, what loading it did, and its warnings.
pub type Loaded = Result<(LoadedComponent, ComponentLoad, Vec<String>), LoadError>;

/// Loads every file, compiling on as many threads as the machine has cores; the
/// outcomes come back in the order of `files`.
pub fn load_many(
    runtime: &Runtime,
    files: &[PathBuf],
    cache: Option<&Cache>,
    progress: Option<&(dyn Fn(usize, usize, &str) + Send + Sync)>,
) -> Vec<Loaded> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get()).min(files.len().max(1));
    let (next, finished) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let mut outcomes: Vec<(usize, Loaded)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        let Some(path) = files.get(index) else { break };
                        done.push((index, load_file(runtime, path, cache)));
                        let finished = finished.fetch_add(1, Ordering::Relaxed) + 1;
                        if let Some(progress) = progress {
                            let name = path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
                            progress(finished, files.len(), &name);
                        }
                    }
                    done
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect()
    });
    outcomes.sort_by_key(|(index, _)| *index);
    outcomes.into_iter().map(|(_, outcome)| outcome).collect()
}

/// What identifies one version of a component: the hash of its bytes and of its
/// manifest's, so that a rewrite is noticed whatever the file times say.
pub fn fingerprint(path: &Path) -> Option<[u8; 32]> {
    let mut hasher = blake3::Hasher::new();
    hasher.update(&fs::read(path).ok()?);
    if let Ok(manifest) = fs::read(crate::manifest::path_for(path)) {
        hasher.update(b"manifest");
        hasher.update(&manifest);
    }
    Some(*hasher.finalize().as_bytes())
}

/// Loads one component file.
pub fn load_file(
    runtime: &Runtime,
    path: &Path,
    cache: Option<&Cache>,
) -> Result<(LoadedComponent, ComponentLoad, Vec<String>), LoadError> {
    let started = Instant::now();
    let bad = |reason: String| LoadError::Component { path: path.to_path_buf(), reason };
    let bytes = fs::read(path).map_err(|error| LoadError::Read { path: path.to_path_buf(), error })?;
    check_is_component(&bytes).map_err(|reason| bad(reason.to_string()))?;
    let manifest = Manifest::read_beside(path).map_err(bad)?;

    let engine = runtime.engine();
    let cached = cache.and_then(|cache| cache.load(engine, &bytes));
    let compiled = cached.is_none();
    let component = match cached {
        Some(component) => component,
        None => compile(engine, &bytes, cache).map_err(|e| bad(format!("not a valid component: {e}")))?,
    };
    let pre = runtime.prepare(&component).map_err(|e| bad(format!("cannot be linked: {e}")))?;

    let name: Arc<str> = path.file_stem().map_or("component".into(), |s| s.to_string_lossy().into());
    let mut found = introspect(engine, &name, &component, &ComponentDocs::read(&bytes));
    if let Some(manifest) = &manifest {
        manifest.apply_to(&mut found.tools);
    }
    if found.tools.is_empty() {
        return Err(bad("exports no function usable as a tool".to_string()));
    }
    let load = ComponentLoad {
        name: name.to_string(),
        path: path.to_path_buf(),
        tools: found.tools.len(),
        compiled,
        elapsed: started.elapsed(),
    };
    let folder = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let component = LoadedComponent { name, pre, tools: found.tools, manifest, folder };
    Ok((component, load, found.warnings))
}

fn compile(engine: &wasmtime::Engine, bytes: &[u8], cache: Option<&Cache>) -> wasmtime::Result<Component> {
    let Some(cache) = cache else { return Component::new(engine, bytes) };
    let compiled = engine.precompile_component(bytes)?;
    cache.store(bytes, &compiled);
    // SAFETY: `compiled` was produced just now by this engine.
    unsafe { Component::deserialize(engine, &compiled) }
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

//! Reloading the plugin folders, on demand or when a watcher sees a change: only
//! new and changed files are loaded (off the calling path), unchanged components and
//! servers are kept, a file that fails to load leaves its previous version serving,
//! and the new snapshot replaces the old one whole. A server that says its tools
//! changed makes a new snapshot too (`relist`).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Weak};
use std::time::Duration;

use notify_debouncer_mini::notify::{RecommendedWatcher, RecursiveMode};
use notify_debouncer_mini::{DebounceEventResult, Debouncer, new_debouncer};

use super::HostCore;
use super::builder::annotate;
use super::optimize::Job;
use super::servers::ServedServer;
use super::snapshot::{ServedComponent, Snapshot};
use crate::error::LoadError;
use crate::invoke::Recipe;
use crate::load::{CodeFrom, LoadedFile, Version, fingerprint, load_all, load_file, plugin_files, server_fingerprint};
use crate::mutex::lock;

/// The running watcher of the plugin folders; dropping it stops watching.
pub(super) type Watcher = Debouncer<RecommendedWatcher>;

/// How long a plugin folder must be quiet before a change is loaded.
const WATCH_DEBOUNCE: Duration = Duration::from_millis(300);

/// Each component file with the version found there now (`None`: unreadable).
type Versions = Vec<(PathBuf, Option<Version>)>;

impl HostCore {
    /// Loads what changed since the current snapshot and swaps in the new one;
    /// returns whether anything changed.
    pub(super) fn reload(self: &Arc<Self>) -> Result<bool, LoadError> {
        let _one_at_a_time = lock(&self.reloading);
        let old = self.current.load_full();
        let (versions, server_versions) = self.scan()?;
        if old.holds_exactly(&versions, &server_versions) {
            return Ok(false);
        }
        let mut fresh = self.load_changed(&old, &versions);
        let mut components = Vec::new();
        let mut to_optimize = Vec::new();
        let mut warnings = self.standing_warnings.clone();
        for (path, version) in &versions {
            if let Some(kept) = old.unchanged(path, *version) {
                components.push(kept.kept());
                continue;
            }
            match fresh.remove(path) {
                Some(Ok(mut loaded)) => {
                    warnings.extend(loaded.warnings.iter().cloned());
                    let version = version.unwrap_or_default();
                    if let Some(bytes) = loaded.to_optimize.take() {
                        to_optimize.push(Job { source: path.clone(), version, bytes });
                    }
                    components.push(self.serve(loaded, path, version));
                }
                // What the lock refuses is not served in any version until it matches.
                Some(Err(error @ LoadError::Locked { .. })) => warnings.push(format!("skipped {error}")),
                Some(Err(error)) => match old.previous(path) {
                    Some(previous) => {
                        warnings.push(format!("kept the previous version: {error}"));
                        components.push(previous.kept());
                    }
                    None => warnings.push(format!("skipped {error}")),
                },
                None => warnings.push(format!("skipped {}: it was not loaded", path.display())),
            }
        }
        let servers = self.serve_servers(&old, &server_versions, &mut warnings);
        warnings.extend(servers.iter().flat_map(ServedServer::warnings));
        self.publish(Snapshot::new(old.generation + 1, components, servers, warnings));
        for job in to_optimize {
            self.optimizer.optimize(self, job);
        }
        Ok(true)
    }

    /// The servers of `versions`: kept when unchanged, else started (all at once,
    /// each on a thread of its own, since starting one can take seconds); one that
    /// cannot be started leaves its previous version serving, if there is one.
    fn serve_servers(
        self: &Arc<Self>,
        old: &Snapshot,
        versions: &Versions,
        warnings: &mut Vec<String>,
    ) -> Vec<ServedServer> {
        let started: Vec<Option<Result<ServedServer, String>>> = std::thread::scope(|scope| {
            let starting: Vec<_> = versions
                .iter()
                .map(|(path, version)| match old.unchanged_server(path, *version) {
                    Some(_) => None,
                    None => Some(scope.spawn(|| self.start_server(path, version.unwrap_or_default()))),
                })
                .collect();
            starting
                .into_iter()
                .map(|handle| handle.map(|h| h.join().unwrap_or_else(|_| Err("it panicked".into()))))
                .collect()
        });
        let mut servers = Vec::new();
        for ((path, version), outcome) in versions.iter().zip(started) {
            match (outcome, old.previous_server(path)) {
                (None, _) => servers.extend(old.unchanged_server(path, *version).cloned()),
                (Some(Ok(server)), _) => servers.push(server),
                (Some(Err(error)), Some(previous)) => {
                    warnings.push(format!("kept the previous version: {}: {error}", path.display()));
                    servers.push(previous.clone());
                }
                (Some(Err(error)), None) => warnings.push(format!("skipped {}: {error}", path.display())),
            }
        }
        servers
    }

    /// Starts the server of the file at `path`; when it says its tools changed, a new
    /// snapshot takes them. (It may say so while it starts, within this reload: the
    /// new snapshot is then made once the reload is done, on a thread of its own.)
    fn start_server(self: &Arc<Self>, path: &std::path::Path, version: Version) -> Result<ServedServer, String> {
        let core = Arc::downgrade(self);
        let source = path.to_path_buf();
        let relist = move || {
            let (core, source) = (core.clone(), source.clone());
            std::thread::spawn(move || {
                if let Some(core) = core.upgrade() {
                    core.relist(&source);
                }
            });
        };
        self.servers.start(path, version, self.settings.default_limits(), relist)
    }

    /// A new snapshot with the tools the server of `source` lists now.
    fn relist(&self, source: &std::path::Path) {
        let _one_at_a_time = lock(&self.reloading);
        let old = self.current.load_full();
        let servers = old.servers.iter().map(|s| if s.source == source { s.relisted() } else { s.clone() }).collect();
        let components = old.components.iter().map(ServedComponent::kept).collect();
        self.publish(Snapshot::new(old.generation + 1, components, servers, old.load_warnings.clone()));
    }

    /// The component files and the server files to load (the named ones, then each
    /// folder's `*.wasm` and `*.mcp.toml`, each once) with their current versions.
    fn scan(&self) -> Result<(Versions, Versions), LoadError> {
        let mut files = Vec::new();
        let mut server_files = Vec::new();
        for path in &self.settings.files {
            if !path.exists() {
                let error = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
                return Err(LoadError::Read { path: path.clone(), error });
            }
            files.push(path.clone());
        }
        for dir in &self.settings.plugin_dirs {
            let (components, servers) = plugin_files(dir)?;
            files.extend(components);
            server_files.extend(servers);
        }
        let mut seen = std::collections::HashSet::new();
        files.retain(|path| seen.insert(path.clone()));
        let limit = self.settings.component_limit();
        let components = files.into_iter().map(|path| (path.clone(), fingerprint(&path, limit))).collect();
        let servers = server_files.into_iter().map(|path| (path.clone(), server_fingerprint(&path))).collect();
        Ok((components, servers))
    }

    /// Loads every file whose version the old snapshot does not hold.
    fn load_changed(&self, old: &Snapshot, versions: &Versions) -> HashMap<PathBuf, Result<LoadedFile, LoadError>> {
        let changed: Vec<PathBuf> = versions
            .iter()
            .filter(|(path, version)| old.unchanged(path, *version).is_none())
            .map(|(p, _)| p.clone())
            .collect();
        let limit = self.settings.component_limit();
        let from = CodeFrom::Compile(self.settings.compiler);
        let load = |path: &std::path::Path| load_file(&self.runtime, path, self.cache.as_ref(), limit, from);
        let outcomes = load_all(&changed, load, self.settings.progress.as_deref());
        changed.into_iter().zip(outcomes).collect()
    }

    /// A freshly loaded component with the grants and limits its calls run with.
    pub(super) fn serve(&self, loaded: LoadedFile, source: &std::path::Path, version: Version) -> ServedComponent {
        let mut plugin = loaded.plugin;
        let (grants, limits, secrets) = self.settings.settings_for(&plugin);
        annotate(&mut plugin, &grants);
        let recipe = Recipe { component: plugin.name.clone(), pre: plugin.pre.clone(), grants: grants.clone(), limits };
        ServedComponent {
            warm: self.warmer.pool(&self.runtime, recipe),
            plugin: Arc::new(plugin),
            grants,
            secrets: Arc::new(secrets),
            limits,
            source: source.to_path_buf(),
            version,
            report: loaded.report,
        }
    }

    /// Makes `snapshot` current and tells the listeners (after the first load).
    fn publish(&self, snapshot: Snapshot) {
        for warning in &snapshot.warnings {
            tracing::warn!("{warning}");
        }
        let generation = snapshot.generation;
        #[cfg(feature = "semantic")]
        if let Some(embedder) = &self.embedder {
            embedder.embed(snapshot.registry.clone());
        }
        self.current.store(Arc::new(snapshot));
        if generation > 1 {
            tracing::info!("plugins reloaded (version {generation})");
            for listener in lock(&self.listeners).iter() {
                listener();
            }
        }
    }

    /// Starts a debounced watcher on the plugin folders that reloads on any change.
    pub(super) fn start_watching(core: &Arc<HostCore>) -> Result<(), LoadError> {
        let weak: Weak<HostCore> = Arc::downgrade(core);
        let handler = move |events: DebounceEventResult| {
            let Some(core) = weak.upgrade() else { return };
            match events {
                Ok(_) => {
                    if let Err(error) = core.reload() {
                        tracing::warn!("reload after a change in the plugin folder failed: {error}");
                    }
                }
                Err(error) => tracing::warn!("watching the plugin folder: {error}"),
            }
        };
        let watch_error = |path: &PathBuf, error: &dyn std::fmt::Display| LoadError::Watch {
            path: path.clone(),
            reason: error.to_string(),
        };
        let first = core.settings.plugin_dirs.first().cloned().unwrap_or_default();
        let mut debouncer = new_debouncer(WATCH_DEBOUNCE, handler).map_err(|e| watch_error(&first, &e))?;
        for dir in &core.settings.plugin_dirs {
            debouncer.watcher().watch(dir, RecursiveMode::NonRecursive).map_err(|e| watch_error(dir, &e))?;
        }
        *lock(&core.watcher) = Some(debouncer);
        Ok(())
    }
}

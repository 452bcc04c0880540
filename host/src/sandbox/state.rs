//! The store state of one call: exactly what the component is granted, under its
//! limits, with the guest's output captured and what the sandbox denied recorded.

use std::path::PathBuf;
use std::sync::Arc;

use wasmtime::ResourceLimiter;
use wasmtime::component::ResourceTable;
use wasmtime_wasi::{FsPerms, WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};
use wasmtime_wasi_http::{WasiHttpCtx, WasiHttpCtxView, WasiHttpView};

use super::capture::CapturedOutput;
use super::denials::Denials;
use super::http::HttpPolicy;
use super::root::EmptyRoot;
use super::{Attached, Grants, Limits, Reports, SecretSet};

/// A granted folder that could not be opened for a call.
#[derive(Debug, thiserror::Error)]
#[error("cannot grant directory {}: {error}", .path.display())]
pub(crate) struct GrantError {
    /// The folder on the host.
    path: PathBuf,
    /// Why it could not be opened.
    error: wasmtime::Error,
}

/// The store state of one call: WASI and HTTP contexts, resource table, limits,
/// captured output and what the sandbox denied.
pub(crate) struct CallState {
    wasi: WasiCtx,
    http: WasiHttpCtx,
    http_policy: HttpPolicy,
    table: ResourceTable,
    memory_limit: u64,
    /// Set when the guest asked for more memory than its limit allows.
    pub(crate) memory_exceeded: bool,
    /// Linear memory granted so far, over all its memories, in bytes.
    pub(crate) memory_bytes: u64,
    /// The guest's stdout.
    pub(crate) stdout: CapturedOutput,
    /// The guest's stderr (where a Rust guest's panic message goes).
    pub(crate) stderr: CapturedOutput,
    /// The component the call runs in, for tagging its log lines.
    pub(crate) component: Arc<str>,
    /// What the sandbox denied during the call.
    pub(crate) denials: Denials,
    /// The empty folder the guest is given at `/`, if any.
    pub(crate) empty_root: Option<Arc<EmptyRoot>>,
    /// The guest's handles of that folder (one each time it asked for its folders).
    pub(crate) root_descriptors: Vec<u32>,
    /// Where the call's progress and log lines go besides `tracing` (set when the
    /// call starts: the store may be made before it).
    pub(crate) reports: Reports,
    /// The content blocks the call added to its result, within its result limit.
    pub(crate) attached: Attached,
    /// The component's secrets as they were when the store was made: for its
    /// `wasi:config/store`, and to take out of what the call writes.
    pub(crate) secrets: Arc<SecretSet>,
}

impl CallState {
    /// A fresh state granting exactly `grants`, under `limits`.
    pub(crate) fn new(
        component: Arc<str>,
        grants: &Grants,
        limits: &Limits,
        empty_root: Option<&Arc<EmptyRoot>>,
    ) -> Result<CallState, GrantError> {
        let stdout = CapturedOutput::new(limits.output_bytes);
        let stderr = CapturedOutput::new(limits.output_bytes);
        let denials = Denials::default();
        let mut builder = WasiCtxBuilder::new();
        builder.stdout(stdout.clone()).stderr(stderr.clone());
        for (name, value) in &grants.env {
            builder.env(name, value);
        }
        let secrets = grants.secrets.current();
        for (name, secret) in &secrets.values {
            builder.env(name, secret.value());
        }
        for dir in &grants.dirs {
            let perms = if dir.read_only { FsPerms::ReadOnly } else { FsPerms::ReadWrite };
            builder
                .preopened_dir(&dir.host_path, &dir.guest_path, perms)
                .map_err(|error| GrantError { path: dir.host_path.clone(), error })?;
        }
        Ok(CallState {
            wasi: builder.build(),
            http: WasiHttpCtx::new(),
            http_policy: HttpPolicy::new(grants.http_hosts.clone(), denials.clone()),
            table: ResourceTable::new(),
            memory_limit: limits.memory_bytes,
            memory_exceeded: false,
            memory_bytes: 0,
            stdout,
            stderr,
            component,
            denials,
            empty_root: empty_root.cloned(),
            root_descriptors: Vec::new(),
            reports: Reports::default(),
            attached: Attached::within(limits.result_bytes),
            secrets,
        })
    }
}

impl WasiView for CallState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView { ctx: &mut self.wasi, table: &mut self.table }
    }
}

impl WasiHttpView for CallState {
    fn http(&mut self) -> WasiHttpCtxView<'_> {
        WasiHttpCtxView { ctx: &mut self.http, table: &mut self.table, hooks: &mut self.http_policy }
    }
}

impl ResourceLimiter for CallState {
    fn memory_growing(&mut self, current: usize, desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        let allowed = desired as u64 <= self.memory_limit;
        if allowed {
            self.memory_bytes += desired.saturating_sub(current) as u64;
        } else {
            self.memory_exceeded = true;
        }
        Ok(allowed)
    }

    fn table_growing(&mut self, _current: usize, desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        Ok(desired <= 100_000)
    }
}

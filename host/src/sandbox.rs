//! The sandbox one call runs in: what a component is granted (nothing by default),
//! the limits it runs under, and the per-call store state that enforces both.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use wasmtime::ResourceLimiter;
use wasmtime::component::ResourceTable;
use wasmtime_wasi::{FsPerms, WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};
use wasmtime_wasi_http::{WasiHttpCtx, WasiHttpCtxView, WasiHttpView};

use crate::capture::CapturedOutput;
use crate::network::{HostPattern, HttpPolicy};
use crate::refusals::{Denials, EmptyRoot};

/// Resource limits for one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Wall-clock time a call may take.
    pub time: Duration,
    /// Linear memory one instance may grow to, in bytes.
    pub memory_bytes: u64,
    /// Bytes of stdout and of stderr kept per call (more is dropped, never an error).
    pub output_bytes: usize,
    /// Size of the returned value, as JSON text, in bytes.
    pub result_bytes: usize,
}

impl Default for Limits {
    /// 10 s, 256 MiB of memory, 64 KiB of captured output, 1 MiB of result.
    fn default() -> Limits {
        Limits { time: Duration::from_secs(10), memory_bytes: 256 << 20, output_bytes: 64 << 10, result_bytes: 1 << 20 }
    }
}

/// A host directory a component may use, seen at `guest_path` inside the sandbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirGrant {
    /// The directory on the host.
    pub host_path: PathBuf,
    /// Where the guest sees it, e.g. `/workspace`.
    pub guest_path: String,
    /// Whether the guest may only read.
    pub read_only: bool,
}

/// What a component is granted beyond the empty default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Grants {
    /// Directories the component may use.
    pub dirs: Vec<DirGrant>,
    /// Environment variables the component sees, as (name, value).
    pub env: Vec<(String, String)>,
    /// Hosts the component may send HTTP requests to (shared: every call uses it).
    pub http_hosts: Arc<[HostPattern]>,
}

/// The store state of one call: WASI and HTTP contexts, resource table, limits,
/// captured output and what the sandbox refused.
pub struct CallState {
    wasi: WasiCtx,
    http: WasiHttpCtx,
    http_policy: HttpPolicy,
    table: ResourceTable,
    memory_limit: u64,
    /// Set when the guest asked for more memory than its limit allows.
    pub memory_exceeded: bool,
    /// The guest's stdout.
    pub stdout: CapturedOutput,
    /// The guest's stderr (where a Rust guest's panic message goes).
    pub stderr: CapturedOutput,
    /// The component the call runs in, for tagging its log lines.
    pub component: Arc<str>,
    /// What the sandbox refused during the call.
    pub denials: Denials,
    /// The empty folder the guest is given at `/`, if any.
    pub empty_root: Option<Arc<EmptyRoot>>,
    /// The guest's handles of that folder (one each time it asked for its folders).
    pub root_descriptors: Vec<u32>,
}

impl CallState {
    /// A fresh state granting exactly `grants`, under `limits`.
    pub fn new(
        component: Arc<str>,
        grants: &Grants,
        limits: &Limits,
        empty_root: Option<&Arc<EmptyRoot>>,
    ) -> Result<CallState, String> {
        let stdout = CapturedOutput::new(limits.output_bytes);
        let stderr = CapturedOutput::new(limits.output_bytes);
        let denials = Denials::default();
        let mut builder = WasiCtxBuilder::new();
        builder.stdout(stdout.clone()).stderr(stderr.clone());
        for (name, value) in &grants.env {
            builder.env(name, value);
        }
        for dir in &grants.dirs {
            let perms = if dir.read_only { FsPerms::ReadOnly } else { FsPerms::ReadWrite };
            builder
                .preopened_dir(&dir.host_path, &dir.guest_path, perms)
                .map_err(|e| format!("cannot grant directory {}: {e}", dir.host_path.display()))?;
        }
        Ok(CallState {
            wasi: builder.build(),
            http: WasiHttpCtx::new(),
            http_policy: HttpPolicy::new(grants.http_hosts.clone(), denials.clone()),
            table: ResourceTable::new(),
            memory_limit: limits.memory_bytes,
            memory_exceeded: false,
            stdout,
            stderr,
            component,
            denials,
            empty_root: empty_root.cloned(),
            root_descriptors: Vec::new(),
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
    fn memory_growing(&mut self, _current: usize, desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        let allowed = desired as u64 <= self.memory_limit;
        if !allowed {
            self.memory_exceeded = true;
        }
        Ok(allowed)
    }

    fn table_growing(&mut self, _current: usize, desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        Ok(desired <= 100_000)
    }
}

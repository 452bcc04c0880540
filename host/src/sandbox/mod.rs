//! The sandbox one call runs in: what a component is granted (nothing by default)
//! and the limits it runs under, and the machinery that holds a call to both:
//!
//! - `state.rs`: the per-call store state (WASI and HTTP contexts, memory limiter);
//! - `http.rs`: the HTTP allow list and the `wasi:http` hooks that enforce it;
//! - `shims.rs`: the WASI functions the host replaces (sockets, name lookups, file
//!   opens, the folder list) so that what is denied is seen and named;
//! - `denials.rs`: the log of what was denied during one call;
//! - `root.rs`: the empty folder every call sees at `/`;
//! - `capture.rs`: bounded capture of the guest's stdout and stderr;
//! - `reports.rs`: a call's progress and log lines on their way to its caller, and
//!   its questions (`asks.rs`: for the person, for the caller's model);
//! - `attached.rs`: the content blocks a call adds to its result;
//! - `secret.rs`: a component's secrets as they are set now, kept out of what the host
//!   passes on.
//!
//! # Where a call's limits come from, and where each is held
//!
//! A call runs under one [`Limits`], chosen when its plugin loads; the first of these
//! that is set wins:
//!
//! 1. the builder's limits for that component (`HostBuilder::component_limits`);
//! 2. its manifest's `[limits]` (`time_ms`, `memory_mb`, `output_kb`, `result_kb`;
//!    `load/manifest.rs`), each over
//! 3. the builder's limits for every component (`HostBuilder::limits`), else
//!    [`Limits::default`] (10 s, 256 MiB, 64 KiB, 1 MiB).
//!
//! An MCP server's tool (`remote/`) gets the builder's limits for every component
//! (3), with its file's `timeout_ms` taking the place of `time`; memory and output
//! are the server's own business, outside the sandbox.
//!
//! Each is held where the call passes it:
//!
//! - `time`: the store's epoch deadline, counted by the runtime's ticker
//!   (`invoke/mod.rs`, `invoke/warm.rs` for an instance made ahead); for async
//!   calls also a timer around the whole call; an MCP server's call is cut off by a
//!   timer in `remote/mod.rs`. Waiting for a turn does not count ([`crate::Capacity`]'s
//!   `queue_timeout` bounds that).
//! - `memory_bytes`: the store's resource limiter (`state.rs`) refuses growth past
//!   it. (Instances made ahead are bounded in all by `Prewarm::memory_bytes`,
//!   `invoke/warm.rs`.)
//! - `output_bytes`: the captured stdout and stderr (`capture.rs`): more is dropped.
//! - `result_bytes`: the JSON of the value and of the content blocks the call
//!   added (binary data counted as base64): blocks as they are added (`attached.rs`),
//!   the value as it is built (`invoke/outcome.rs`); an MCP server's answer in
//!   `remote/outcome.rs`.
//!
//! A limit that stops a call comes back as `ToolError::TimedOut`, `OutOfMemory` or
//! `ResultTooLarge`, in the model's terms (`invoke/outcome.rs`).

mod asks;
mod attached;
mod capture;
mod denials;
mod http;
mod reports;
mod root;
mod secret;
mod shims;
mod state;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

pub use asks::{Elicitation, ElicitationAnswer, Sampling, SamplingRole};
pub(crate) use attached::Attached;
pub(crate) use denials::Denial;
pub use http::{HttpHostPattern, HttpHostPatternError};
pub(crate) use reports::Reports;
pub use reports::{CallObserver, LogLevel, Progress};
pub(crate) use root::EmptyRoot;
pub(crate) use secret::{Secret, SecretCell, SecretSet, is_secret_name, redact};
pub(crate) use shims::install as install_shims;
pub(crate) use state::{CallState, GrantError};

/// Resource limits for one call. Start from `Limits::default()` and set fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Wall-clock time a call may take.
    pub time: Duration,
    /// Linear memory one instance may grow to, in bytes.
    pub memory_bytes: u64,
    /// Bytes of stdout and of stderr kept per call (more is dropped, never an error).
    pub output_bytes: usize,
    /// Size of the returned value and the content blocks added to it, as JSON text
    /// (binary data as base64), in bytes.
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
#[non_exhaustive]
pub struct DirGrant {
    /// The directory on the host.
    pub host_path: PathBuf,
    /// Where the guest sees it, e.g. `/workspace`.
    pub guest_path: String,
    /// Whether the guest may only read.
    pub read_only: bool,
}

/// What a component is granted beyond the empty default. Start from
/// `Grants::default()` and set fields.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Grants {
    /// Directories the component may use.
    pub dirs: Vec<DirGrant>,
    /// Environment variables the component sees, as (name, value).
    pub env: Vec<(String, String)>,
    /// Hosts the component may send HTTP requests to (shared: every call uses it).
    pub http_hosts: Arc<[HttpHostPattern]>,
    /// Its secrets (`HostBuilder::secrets_dir`) as they are set now: environment
    /// variables of its calls and their `wasi:config/store`, redacted from what they
    /// write.
    pub(crate) secrets: SecretCell,
}

impl DirGrant {
    /// The host directory `host_path`, seen at `guest_path`, read-only or not.
    pub fn new(host_path: impl Into<PathBuf>, guest_path: &str, read_only: bool) -> DirGrant {
        DirGrant { host_path: host_path.into(), guest_path: guest_path.to_string(), read_only }
    }
}

impl Grants {
    /// Adds everything `more` grants to these grants.
    pub fn extend(&mut self, more: &Grants) {
        self.dirs.extend(more.dirs.iter().cloned());
        self.env.extend(more.env.iter().cloned());
        if !more.http_hosts.is_empty() {
            self.http_hosts = self.http_hosts.iter().chain(more.http_hosts.iter()).cloned().collect();
        }
    }
}

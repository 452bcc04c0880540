//! The sandbox one call runs in: what a component is granted (nothing by default)
//! and the limits it runs under, and the machinery that holds a call to both:
//!
//! - `state.rs`: the per-call store state (WASI and HTTP contexts, memory limiter);
//! - `http.rs`: the HTTP allow list and the `wasi:http` hooks that enforce it;
//! - `shims.rs`: the WASI functions the host replaces (sockets, name lookups, file
//!   opens, the folder list) so that what is denied is seen and named;
//! - `denials.rs`: the log of what was denied during one call;
//! - `root.rs`: the empty folder every call sees at `/`;
//! - `capture.rs`: bounded capture of the guest's stdout and stderr.

mod capture;
mod denials;
mod http;
mod root;
mod shims;
mod state;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

pub(crate) use denials::Denial;
pub use http::{HostPattern, HostPatternError};
pub(crate) use root::EmptyRoot;
pub(crate) use shims::install as install_shims;
pub(crate) use state::{CallState, GrantError};

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

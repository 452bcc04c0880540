//! The profiles a server serves apart, each at `/mcp/NAME` over HTTP: which profile a
//! request's path names, and each profile's host, made once (a toolset, kept current
//! across reloads; per-caller access applies within it).

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

use crate::host::{Host, Profile};
use crate::mutex::lock;

/// The profiles by name, and the host each serves, made at its first request.
pub(crate) struct Profiles {
    named: BTreeMap<String, Profile>,
    hosts: Mutex<HashMap<String, Host>>,
}

impl Profiles {
    pub(crate) fn new(named: BTreeMap<String, Profile>) -> Profiles {
        let named = named.into_iter().map(|(name, profile)| (name.clone(), profile.named(&name))).collect();
        Profiles { named, hosts: Mutex::default() }
    }

    /// `host` as the profile `name` serves it; `None` when there is no such profile.
    pub(crate) fn host(&self, host: &Host, name: &str) -> Option<Host> {
        let profile = self.named.get(name)?;
        let mut hosts = lock(&self.hosts);
        if let Some(served) = hosts.get(name) {
            return Some(served.clone());
        }
        // Every pattern was checked when the profile was made.
        let served = profile.apply(host).unwrap_or_else(|error| {
            tracing::error!("the profile '{name}' does not read ({error}); it serves no tools");
            host.without_tools()
        });
        hosts.insert(name.to_string(), served.clone());
        Some(served)
    }
}

/// The profile a request's path names: `NAME` of `/mcp/NAME` (or of `/NAME`, the
/// path below the `/mcp` the MCP service is nested under); `None` for `/mcp` itself.
#[cfg(feature = "http")]
pub(crate) fn named_in(path: &str) -> Option<&str> {
    let below = path.strip_prefix("/mcp").unwrap_or(path);
    let name = below.strip_prefix('/').unwrap_or(below);
    (!name.is_empty()).then_some(name)
}

#[cfg(all(test, feature = "http"))]
mod tests {
    use super::named_in;

    #[test]
    fn a_path_names_its_profile() {
        assert_eq!(named_in("/mcp"), None);
        assert_eq!(named_in("/mcp/"), None);
        assert_eq!(named_in("/"), None);
        assert_eq!(named_in("/mcp/math"), Some("math"));
        assert_eq!(named_in("/math"), Some("math"));
        assert_eq!(named_in("/mcp/math/more"), Some("math/more"));
    }
}

//! The optional manifest beside a component (`<name>.toml` next to `<name>.wasm`):
//! what the component is granted and the limits it runs under.
//!
//! ```toml
//! [limits]
//! time_ms = 2000        # wall-clock time per call
//! memory_mb = 64        # linear memory per instance
//! output_kb = 64        # captured stdout / stderr kept per call
//! result_kb = 1024      # size of the returned JSON
//!
//! [[dirs]]
//! host = "data"         # relative to the manifest's folder, or absolute
//! guest = "/workspace"  # where the tool sees it
//! read_only = true      # default: true
//!
//! [env]
//! UNITS = "metric"      # environment variables the tool sees
//!
//! [network]             # hosts HTTP requests may go to (nothing else is reachable)
//! allow = ["api.example.com", "*.example.org", "127.0.0.1:8080"]
//!
//! hide = ["init"]       # exports that are toolchain plumbing, not tools
//!
//! [tools.greet]         # a tool's description, for toolchains that drop WIT docs
//! description = "Greets someone by name."
//! params = { name = "who to greet" }
//! ```

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::network::HostPattern;
use crate::sandbox::{DirGrant, Grants, Limits};

/// A component's manifest, as written.
#[derive(Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Limit overrides; absent fields keep the host's defaults.
    #[serde(default)]
    pub limits: LimitOverrides,
    /// Directories granted.
    #[serde(default)]
    pub dirs: Vec<DirEntry>,
    /// Environment variables granted, with their values.
    #[serde(default)]
    pub env: std::collections::BTreeMap<String, String>,
    /// Network access granted.
    #[serde(default)]
    pub network: NetworkEntry,
    /// Exported functions or interfaces that are not tools (toolchain plumbing).
    #[serde(default)]
    pub hide: Vec<String>,
    /// Descriptions by tool name (snake_case or WIT spelling); they win over WIT docs.
    #[serde(default)]
    pub tools: std::collections::BTreeMap<String, ToolDocs>,
}

/// A tool's description in a manifest.
#[derive(Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ToolDocs {
    /// What the tool does.
    pub description: Option<String>,
    /// What each parameter means, by name.
    #[serde(default)]
    pub params: std::collections::BTreeMap<String, String>,
}

/// Limits a manifest may override.
#[derive(Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LimitOverrides {
    /// Wall-clock time per call, in milliseconds.
    pub time_ms: Option<u64>,
    /// Linear memory per instance, in MiB.
    pub memory_mb: Option<u64>,
    /// Captured output kept per stream, in KiB.
    pub output_kb: Option<usize>,
    /// Result size, in KiB.
    pub result_kb: Option<usize>,
}

/// The network section of a manifest.
#[derive(Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct NetworkEntry {
    /// Host patterns HTTP requests may go to.
    #[serde(default)]
    pub allow: Vec<HostPattern>,
}

/// One directory grant in a manifest.
#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DirEntry {
    /// The host directory, relative to the manifest's folder or absolute.
    pub host: PathBuf,
    /// Where the guest sees it.
    pub guest: String,
    /// Whether the guest may only read (the default).
    #[serde(default = "yes")]
    pub read_only: bool,
}

fn yes() -> bool {
    true
}

/// The manifest path for a component file: same name, `.toml`.
pub fn path_for(component: &Path) -> PathBuf {
    component.with_extension("toml")
}

impl Manifest {
    /// Reads the manifest beside `component`; `Ok(None)` when there is none.
    pub fn read_beside(component: &Path) -> Result<Option<Manifest>, String> {
        let path = path_for(component);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => {
                return Err(format!("cannot read its manifest {}: {error}", path.display()));
            }
        };
        toml::from_str(&text)
            .map(Some)
            .map_err(|error| format!("its manifest {} is invalid: {}", path.display(), error.message()))
    }

    /// Applies the manifest's limits over `base`.
    pub fn limits(&self, base: Limits) -> Limits {
        let o = &self.limits;
        Limits {
            time: o.time_ms.map_or(base.time, Duration::from_millis),
            memory_bytes: o.memory_mb.map_or(base.memory_bytes, |mb| mb << 20),
            output_bytes: o.output_kb.map_or(base.output_bytes, |kb| kb << 10),
            result_bytes: o.result_kb.map_or(base.result_bytes, |kb| kb << 10),
        }
    }

    /// Applies `hide` and the `tools` descriptions to a component's tools.
    pub fn apply_to(&self, tools: &mut Vec<crate::introspect::FoundTool>) {
        let key = |name: &str| crate::names::normalise(name);
        let hidden: Vec<String> = self.hide.iter().map(|h| key(h)).collect();
        tools.retain(|t| {
            let interface = t.spec.interface.as_deref().map(key);
            !hidden.contains(&key(&t.spec.wit_name)) && !interface.is_some_and(|i| hidden.contains(&i))
        });
        for tool in tools.iter_mut() {
            let Some(docs) = self.tools.iter().find(|(name, _)| key(name) == key(&tool.spec.wit_name)).map(|(_, d)| d)
            else {
                continue;
            };
            if let Some(description) = &docs.description {
                tool.spec.description = description.clone();
            }
            for param in &mut tool.spec.params {
                if let Some((_, text)) = docs.params.iter().find(|(name, _)| key(name) == key(&param.name)) {
                    param.description = Some(text.clone());
                }
            }
        }
    }

    /// The grants, with relative host paths taken from `folder` (the manifest's folder).
    pub fn grants(&self, folder: &Path) -> Grants {
        Grants {
            dirs: self
                .dirs
                .iter()
                .map(|d| DirGrant {
                    host_path: folder.join(&d.host),
                    guest_path: d.guest.clone(),
                    read_only: d.read_only,
                })
                .collect(),
            env: self.env.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            http_hosts: self.network.allow.iter().cloned().collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_manifest_parses_and_applies() {
        let manifest: Manifest = toml::from_str(
            "[limits]\ntime_ms = 250\nmemory_mb = 8\n[[dirs]]\nhost = \"data\"\nguest = \"/workspace\"\n[env]\nA = \"1\"\n",
        )
        .expect("valid");
        let limits = manifest.limits(Limits::default());
        assert_eq!(limits.time, Duration::from_millis(250));
        assert_eq!(limits.memory_bytes, 8 << 20);
        assert_eq!(limits.output_bytes, Limits::default().output_bytes);
        let grants = manifest.grants(Path::new("/plugins"));
        assert_eq!(
            grants.dirs,
            [DirGrant { host_path: "/plugins/data".into(), guest_path: "/workspace".into(), read_only: true }]
        );
        assert_eq!(grants.env, [("A".to_string(), "1".to_string())]);
        assert!(grants.http_hosts.is_empty());
    }

    #[test]
    fn network_allow_patterns_are_checked_when_read() {
        let folder = tempfile::tempdir().expect("temp dir");
        let component = folder.path().join("tool.wasm");
        std::fs::write(path_for(&component), "[network]\nallow = [\"*.example.com\", \"127.0.0.1:8080\"]\n")
            .expect("write");
        let manifest = Manifest::read_beside(&component).expect("valid").expect("present");
        let grants = manifest.grants(folder.path());
        assert!(grants.http_hosts[0].matches("api.example.com", Some(443)));
        assert!(grants.http_hosts[1].matches("127.0.0.1", Some(8080)));

        std::fs::write(path_for(&component), "[network]\nallow = [\"https://example.com\"]\n").expect("write");
        let error = Manifest::read_beside(&component).expect_err("a URL is not a host pattern");
        assert!(error.contains("'https://example.com' is not a host pattern"), "{error}");
    }

    #[test]
    fn a_misspelt_key_is_an_error() {
        let error = toml::from_str::<Manifest>("[limits]\ntime = 5\n").expect_err("unknown key");
        assert!(error.message().contains("unknown field `time`"), "{}", error.message());
    }
}

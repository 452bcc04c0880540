//! The optional manifest beside a component (`<name>.toml` next to `<name>.wasm`):
//! what the component is granted and the limits it runs under.
//!
//! ```toml
//! hide = ["init"]       # exports that are toolchain plumbing, not tools
//! exclude = ["debug_*"] # tools not served, by pattern (or include = [...]: only these)
//! secrets = ["API_KEY"] # secrets its calls need (`toolhost secret set`): a call is
//!                       # refused, naming the command, while one is not set
//!
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
//! [tools.greet]         # a tool's description, for toolchains that drop WIT docs
//! title = "Greeter"     # a human-readable name (else made from the tool's name)
//! description = "Greets someone by name."
//! params = { name = "who to greet" }
//! idempotent = true     # hints that only narrow what the grants allow
//! destructive = false
//! task = "optional"     # over MCP, to a client that takes tasks: "optional" (a long
//!                       # call becomes a task), "required" (every call), "forbidden"
//! approval = true       # a person approves each call before it runs (`Approval`)
//! ```
//!
//! `[tools.NAME]` also shapes the tool as a model sees it (`shaping.rs`: `name`,
//! `append_description`, `defaults`, `fixed`), with the same keys as an MCP server's
//! file. A table or a parameter key naming nothing is an error with its line.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use super::MAX_MANIFEST_BYTES;
use super::introspect::FoundTool;
use super::shaping::{Choice, Lines, ToolTable, check_unique_names, unmatched_table};
use crate::sandbox::{DirGrant, Grants, HttpHostPattern, Limits};
use crate::sys::{ReadError, read_regular_file};
use crate::tool::ToolSpec;
use crate::tool::names::{NameMatch, match_name, python_list};

/// A component's manifest, as written.
#[derive(Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct Manifest {
    /// Limit overrides; absent fields keep the host's defaults.
    #[serde(default)]
    pub(crate) limits: LimitOverrides,
    /// Directories granted.
    #[serde(default)]
    pub(crate) dirs: Vec<DirEntry>,
    /// Environment variables granted, with their values.
    #[serde(default)]
    pub(crate) env: std::collections::BTreeMap<String, String>,
    /// Network access granted.
    #[serde(default)]
    pub(crate) network: NetworkEntry,
    /// The secrets its calls need (`toolhost secret set COMPONENT NAME`): a call
    /// without one is refused, naming it.
    #[serde(default)]
    pub(crate) secrets: Vec<String>,
    /// Exported functions or interfaces that are not tools (toolchain plumbing).
    #[serde(default)]
    pub(crate) hide: Vec<String>,
    /// Only the tools whose names match one of these patterns are served (all when empty).
    #[serde(default)]
    pub(crate) include: Vec<String>,
    /// Tools whose names match one of these patterns are not served.
    #[serde(default)]
    pub(crate) exclude: Vec<String>,
    /// Descriptions and shaping by tool name (snake_case or WIT spelling); they win
    /// over WIT docs.
    #[serde(default)]
    pub(crate) tools: std::collections::BTreeMap<String, ToolTable>,
    /// The file, and where it writes each key (for errors).
    #[serde(skip)]
    pub(crate) written: Written,
}

/// Where a manifest came from, and the lines of its keys.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Written {
    path: PathBuf,
    lines: Lines,
}

/// What a manifest is applied to: anything that holds a tool's spec.
pub(crate) trait HasSpec {
    /// The spec.
    fn spec(&self) -> &ToolSpec;
    /// The spec, to change.
    fn spec_mut(&mut self) -> &mut ToolSpec;
}

impl HasSpec for FoundTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }
    fn spec_mut(&mut self) -> &mut ToolSpec {
        &mut self.spec
    }
}

impl HasSpec for ToolSpec {
    fn spec(&self) -> &ToolSpec {
        self
    }
    fn spec_mut(&mut self) -> &mut ToolSpec {
        self
    }
}

/// The WIT name of a component's function (a manifest names functions by it).
fn wit_name(spec: &ToolSpec) -> &str {
    spec.wit_function().map_or(spec.name.as_str(), |function| function.wit_name.as_str())
}

/// The exported interface a component's function sits in, if any.
fn interface(spec: &ToolSpec) -> Option<&str> {
    spec.wit_function()?.interface.as_deref()
}

/// The warning for a manifest entry that names no tool (or parameter), or several.
fn unmatched_entry(component: &str, entry: &str, names: &[&str], found: NameMatch<usize>) -> String {
    let what = match found {
        NameMatch::Several(several) => {
            let several: Vec<&str> = several.into_iter().map(|i| names[i]).collect();
            format!("matches several: {}", python_list(&several))
        }
        _ => format!("names none of {}", python_list(names)),
    };
    format!("{component}: its manifest's {entry} {what}, so it was not applied")
}

/// Limits a manifest may override.
#[derive(Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct LimitOverrides {
    /// Wall-clock time per call, in milliseconds.
    pub(crate) time_ms: Option<u64>,
    /// Linear memory per instance, in MiB.
    pub(crate) memory_mb: Option<u64>,
    /// Captured output kept per stream, in KiB.
    pub(crate) output_kb: Option<usize>,
    /// Result size, in KiB.
    pub(crate) result_kb: Option<usize>,
}

/// The network section of a manifest.
#[derive(Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct NetworkEntry {
    /// Host patterns HTTP requests may go to.
    #[serde(default)]
    pub(crate) allow: Vec<HttpHostPattern>,
}

/// One directory grant in a manifest.
#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct DirEntry {
    /// The host directory, relative to the manifest's folder or absolute.
    pub(crate) host: PathBuf,
    /// Where the guest sees it.
    pub(crate) guest: String,
    /// Whether the guest may only read (the default).
    #[serde(default = "yes")]
    pub(crate) read_only: bool,
}

fn yes() -> bool {
    true
}

/// The manifest path for a component file: same name, `.toml`.
pub(crate) fn path_for(component: &Path) -> PathBuf {
    component.with_extension("toml")
}

/// A manifest that cannot be used: the component is not loaded rather than run with
/// the wrong grants.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ManifestError {
    /// The file exists but cannot be read (or is not a regular file, or is too large).
    #[error("cannot read its manifest {}: {error}", .path.display())]
    Read {
        /// The manifest.
        path: PathBuf,
        /// Why it cannot be read.
        error: ReadError,
    },
    /// The file is not a valid manifest (bad TOML, an unknown key, a bad value).
    #[error("its manifest {} is invalid: {message}", .path.display())]
    Invalid {
        /// The manifest.
        path: PathBuf,
        /// What is wrong, and where.
        message: String,
    },
}

impl Manifest {
    /// Reads the manifest beside `component`; `Ok(None)` when there is none.
    pub(crate) fn read_beside(component: &Path) -> Result<Option<Manifest>, ManifestError> {
        let path = path_for(component);
        let bytes = match read_regular_file(&path, MAX_MANIFEST_BYTES) {
            Ok(bytes) => bytes,
            Err(error) if error.is_not_found() => return Ok(None),
            Err(error) => return Err(ManifestError::Read { path, error }),
        };
        Manifest::parse(&path, &bytes).map(Some)
    }

    /// Reads a manifest's bytes; `path` is named in the error.
    pub(crate) fn parse(path: &Path, bytes: &[u8]) -> Result<Manifest, ManifestError> {
        let invalid = |message: String| ManifestError::Invalid { path: path.to_path_buf(), message };
        let text = std::str::from_utf8(bytes).map_err(|_| invalid("it is not UTF-8 text".into()))?;
        let mut manifest: Manifest = toml::from_str(text).map_err(|error| invalid(error.message().to_string()))?;
        Choice::new(&manifest.include, &manifest.exclude).map_err(invalid)?;
        manifest.written = Written { path: path.to_path_buf(), lines: Lines::of(text) };
        Ok(manifest)
    }

    /// Applies the manifest's limits over `base`.
    pub(crate) fn limits(&self, base: Limits) -> Limits {
        let o = &self.limits;
        Limits {
            time: o.time_ms.map_or(base.time, Duration::from_millis),
            memory_bytes: o.memory_mb.map_or(base.memory_bytes, |mb| mb << 20),
            output_bytes: o.output_kb.map_or(base.output_bytes, |kb| kb << 10),
            result_bytes: o.result_kb.map_or(base.result_bytes, |kb| kb << 10),
        }
    }

    /// Applies `hide`, `include`, `exclude` and the `tools` tables to the tools of
    /// `component`: the warnings (a `hide` entry naming no export, or several). A
    /// table must name exactly one tool (see `tool::names::match_name`), and every
    /// key of it one of its parameters: else the component is not loaded, and the
    /// error names the line, rather than the tool served unlike the file says.
    pub(crate) fn apply_to<T: HasSpec>(
        &self,
        component: &str,
        tools: &mut Vec<T>,
    ) -> Result<Vec<String>, ManifestError> {
        let invalid = |message: String| ManifestError::Invalid { path: self.written.path.clone(), message };
        let mut warnings = Vec::new();
        let hidden = self.hidden(component, &tools.iter().map(HasSpec::spec).collect::<Vec<_>>(), &mut warnings);
        let choice = Choice::new(&self.include, &self.exclude).map_err(invalid)?;
        let mut index = 0;
        tools.retain(|tool| {
            index += 1;
            !hidden[index - 1] && choice.serves(&tool.spec().name)
        });
        for (key, table) in &self.tools {
            let names: Vec<&str> = tools.iter().map(|t| wit_name(t.spec())).collect();
            match match_name(names.iter().copied(), key) {
                NameMatch::One(i) => table.apply(key, tools[i].spec_mut(), &self.written.lines).map_err(invalid)?,
                unmatched => return Err(invalid(unmatched_table(key, &names, &unmatched, &self.written.lines))),
            }
        }
        check_unique_names(&tools.iter().map(HasSpec::spec).collect::<Vec<_>>()).map_err(invalid)?;
        Ok(warnings)
    }

    /// Which of `specs` the `hide` list names, by function or by exported interface.
    fn hidden(&self, component: &str, specs: &[&ToolSpec], warnings: &mut Vec<String>) -> Vec<bool> {
        let mut names: Vec<&str> = specs.iter().map(|s| wit_name(s)).collect();
        names.extend(specs.iter().filter_map(|s| interface(s)));
        names.sort_unstable();
        names.dedup();
        let mut hidden = vec![false; specs.len()];
        for entry in &self.hide {
            let name = match match_name(names.iter().copied(), entry) {
                NameMatch::One(i) => names[i],
                unmatched => {
                    warnings.push(unmatched_entry(component, &format!("hide entry '{entry}'"), &names, unmatched));
                    continue;
                }
            };
            for (spec, hide) in specs.iter().zip(&mut hidden) {
                *hide |= wit_name(spec) == name || interface(spec) == Some(name);
            }
        }
        hidden
    }

    /// The grants, with relative host paths taken from `folder` (the manifest's folder).
    pub(crate) fn grants(&self, folder: &Path) -> Grants {
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
            ..Grants::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::TaskSupport;

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
        let error = Manifest::read_beside(&component).expect_err("a URL is not a host pattern").to_string();
        assert!(error.contains("'https://example.com' is not a host pattern"), "{error}");
    }

    #[test]
    fn a_misspelt_key_is_an_error() {
        let error = toml::from_str::<Manifest>("[limits]\ntime = 5\n").expect_err("unknown key");
        assert!(error.message().contains("unknown field `time`"), "{}", error.message());
    }

    fn spec(wit_name: &str, interface: Option<&str>, params: &[&str]) -> ToolSpec {
        let params = params
            .iter()
            .map(|p| crate::tool::ParamSpec { name: (*p).into(), ty: crate::tool::WitType::String, description: None })
            .collect();
        let function = crate::tool::WitFunction {
            interface: interface.map(Into::into),
            ..crate::tool::WitFunction::new(wit_name, params, None)
        };
        ToolSpec::for_function("weather", function)
    }

    #[test]
    fn a_description_goes_to_the_one_tool_and_parameter_it_names() {
        let manifest: Manifest = toml::from_str(
            "[tools.Get_Weather]\ndescription = \"Today's weather.\"\nparams = { City = \"where\", ab-c = \"?\" }\n",
        )
        .expect("valid");
        let mut weather = spec("get-weather", None, &["city", "ab_c", "a_bc"]);
        manifest.tools["Get_Weather"].apply("Get_Weather", &mut weather, &Lines::default()).expect("applies");
        assert_eq!(weather.description, "Today's weather.");
        let params = &weather.wit_function().expect("a component's tool").params;
        assert_eq!(params[0].description.as_deref(), Some("where"));
        // `ab-c` is `ab_c` spelt with the other separator, not a guess between the two.
        assert_eq!(params[1].description.as_deref(), Some("?"));
        assert_eq!(params[2].description, None);
    }

    #[test]
    fn a_hide_entry_naming_several_exports_or_none_is_a_warning_not_a_guess() {
        let manifest: Manifest = toml::from_str("hide = [\"abc\", \"nothing\", \"Exports\"]\n").expect("valid");
        let specs = [spec("ab-c", None, &[]), spec("a-bc", None, &[]), spec("init", Some("exports"), &[])];
        let mut warnings = Vec::new();
        let hidden = manifest.hidden("weather", &specs.iter().collect::<Vec<_>>(), &mut warnings);
        assert_eq!(hidden, [false, false, true]);
        assert_eq!(
            warnings,
            [
                "weather: its manifest's hide entry 'abc' matches several: ['a-bc', 'ab-c'], so it was not applied",
                "weather: its manifest's hide entry 'nothing' names none of ['a-bc', 'ab-c', 'exports', 'init'], so it was not applied",
            ]
        );
    }

    #[test]
    fn a_table_or_parameter_naming_nothing_is_an_error_with_its_line() {
        let text = "[tools.get_weather]\nparams = { city = \"where\" }\n\n[tools.get_wether]\ndescription = \"x\"\n";
        let manifest = Manifest::parse(Path::new("weather.toml"), text.as_bytes()).expect("valid");
        let mut tools = vec![spec("get-weather", None, &["city"])];
        let error = manifest.apply_to("weather", &mut tools).expect_err("no such tool").to_string();
        assert_eq!(
            error,
            "its manifest weather.toml is invalid: line 4: [tools.get_wether] names none of its tools (['get-weather'])"
        );
        let text = "# the weather\n[tools.get_weather]\ndefaults = { town = \"Oslo\" }\n";
        let manifest = Manifest::parse(Path::new("weather.toml"), text.as_bytes()).expect("valid");
        let error = manifest.apply_to("weather", &mut tools).expect_err("no such parameter").to_string();
        assert!(
            error.ends_with("line 3: [tools.get_weather] defaults names the parameter 'town', which it does not have (its parameters: ['city'])"),
            "{error}"
        );
    }

    #[test]
    fn a_tool_is_renamed_described_defaulted_and_fixed() {
        let text = "exclude = [\"debug*\"]\n[tools.get_weather]\nname = \"weather\"\nappend_description = \"Any city.\"\n\
                    defaults = { units = \"metric\" }\nfixed = { key = \"k-1\" }\n";
        let manifest = Manifest::parse(Path::new("weather.toml"), text.as_bytes()).expect("valid");
        let mut weather = spec("get-weather", None, &["city", "units", "key"]);
        weather.description = "Today's weather.".into();
        let mut tools = vec![weather, spec("debug-dump", None, &[])];
        assert!(manifest.apply_to("weather", &mut tools).expect("applies").is_empty());
        assert_eq!(tools.len(), 1, "debug-dump is excluded");
        let weather = &tools[0];
        assert_eq!(
            (weather.name.as_str(), weather.aliases.as_slice()),
            ("weather", ["get_weather".to_string()].as_slice())
        );
        assert_eq!(weather.description, "Today's weather.\n\nAny city.");
        let shown = weather.parameters_schema();
        assert_eq!(shown["required"], serde_json::json!(["city"]));
        assert_eq!(shown["properties"]["units"]["default"], "metric");
        assert!(shown["properties"].get("key").is_none());

        let text = "[tools.get_weather]\nfixed = { city = 5 }\n";
        let manifest = Manifest::parse(Path::new("weather.toml"), text.as_bytes()).expect("valid");
        let error =
            manifest.apply_to("weather", &mut vec![spec("get-weather", None, &["city"])]).expect_err("a number");
        assert!(error.to_string().contains("line 2: [tools.get_weather] fixed: 5 is not a value of 'city'"), "{error}");
    }

    #[test]
    fn a_tool_may_require_or_forbid_tasks_by_name() {
        let manifest: Manifest = toml::from_str("[tools.get_weather]\ntask = \"required\"\n").expect("valid");
        let mut weather = spec("get-weather", None, &[]);
        assert_eq!(weather.tasks, TaskSupport::Optional);
        manifest.tools["get_weather"].apply("get_weather", &mut weather, &Lines::default()).expect("applies");
        assert_eq!(weather.tasks, TaskSupport::Required);

        let error = toml::from_str::<Manifest>("[tools.x]\ntask = \"sometimes\"\n").expect_err("no such value");
        assert!(error.message().contains("unknown variant `sometimes`"), "{}", error.message());
    }
}

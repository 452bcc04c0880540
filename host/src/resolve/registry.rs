//! The registry: every loaded tool under a unique name, and the resolution of a
//! name a model sent to exactly one tool, or to a corrective error.
//!
//! Resolution, in order; only a unique match ever runs, a fuzzy match is only a hint:
//! 1. the exact registered name (surrounding whitespace ignored, as a repair);
//! 2. the normalisation key (case, `_`, `-` and whitespace ignored) of the name,
//!    matched against each tool's unqualified name;
//! 3. the same after stripping wrappers models add: `functions.`, `default_api.`,
//!    `tools.`, `tool.`, `mcp__<server>__`, or a `<component>/` / `<component>.`
//!    qualifier (which also restricts the match to that component).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use super::suggest::Candidates;
use crate::error::ToolError;
use crate::tool::ToolSpec;
use crate::tool::names::{NameMatch, normalise, python_list, unqualified};

/// Where a registered tool lives: the component's index and the tool's index in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ToolRef {
    /// Index of the component in the host's component list.
    pub(crate) component: usize,
    /// Index of the tool among the component's tools.
    pub(crate) tool: usize,
}

/// A name resolved to a tool; `repaired_from` says what was sent when it was not exact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The tool.
    pub(crate) tool: ToolRef,
    /// The registered name that was run.
    pub name: String,
    /// `Some(original)` when the name the model sent was repaired.
    pub repaired_from: Option<String>,
}

/// Prefixes models put before a tool's name.
const WRAPPERS: [&str; 4] = ["functions.", "default_api.", "tools.", "tool."];

/// How many wrappers may be stripped from one name.
const MAX_WRAPPERS: usize = 3;

/// Registered tools by name, with the index resolution needs.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    /// Specs by registered name, sorted.
    specs: BTreeMap<String, (ToolSpec, ToolRef)>,
    /// Normalised unqualified name → registered names sharing it, sorted.
    by_key: HashMap<String, Vec<String>>,
    /// The names prepared for the nearest-name hint.
    hints: Candidates,
    /// Every registered name, sorted, for the inventory in corrective messages.
    inventory: Arc<[String]>,
    /// Normalised component name → component name.
    components: HashMap<String, String>,
}

impl Registry {
    /// A registry of specs alone, for resolving names without running anything.
    ///
    /// ```
    /// use toolhost::{Registry, ToolSpec};
    ///
    /// let registry = Registry::from_specs([ToolSpec::new("web_search", "demo"), ToolSpec::new("calculator", "demo")]);
    /// assert_eq!(registry.resolve("WebSearch").map(|r| r.name), Ok("web_search".to_string()));
    /// ```
    pub fn from_specs(specs: impl IntoIterator<Item = ToolSpec>) -> Registry {
        Registry::new(specs.into_iter().enumerate().map(|(tool, spec)| (spec, ToolRef { component: 0, tool })))
    }

    /// Builds a registry. A name exported by several components is registered under
    /// `<component>/<name>` for each, so the bare name is ambiguous.
    pub(crate) fn new(tools: impl IntoIterator<Item = (ToolSpec, ToolRef)>) -> Registry {
        let mut by_bare: BTreeMap<String, Vec<(ToolSpec, ToolRef)>> = BTreeMap::new();
        for (spec, tool) in tools {
            by_bare.entry(spec.name.clone()).or_default().push((spec, tool));
        }
        let mut registry = Registry::default();
        for (bare, entries) in by_bare {
            let qualify = entries.len() > 1;
            for (mut spec, tool) in entries {
                if qualify {
                    spec.name = format!("{}/{}", spec.component, bare);
                }
                registry.insert(spec, tool);
            }
        }
        registry.index_names();
        registry
    }

    /// Prepares the hint candidates and the inventory once the names are final.
    fn index_names(&mut self) {
        let names = self.names();
        self.hints = Candidates::new(&names);
        self.inventory = names.into();
    }

    fn insert(&mut self, spec: ToolSpec, tool: ToolRef) {
        let key = normalise(unqualified(&spec.name));
        self.components.insert(normalise(&spec.component), spec.component.clone());
        let names = self.by_key.entry(key).or_default();
        names.push(spec.name.clone());
        names.sort();
        self.specs.insert(spec.name.clone(), (spec, tool));
    }

    /// The registry restricted to `names`; each name must be a registered name or
    /// repair to exactly one (see [`Registry::resolve`]).
    pub fn subset<S: AsRef<str>>(&self, names: &[S]) -> Result<Registry, ToolsetError> {
        let mut subset = Registry::default();
        for name in names {
            let name = name.as_ref();
            let resolved = self.resolve(name).map_err(|error| ToolsetError::from_resolution(name, error))?;
            let (spec, tool) = &self.specs[&resolved.name];
            if !subset.specs.contains_key(&spec.name) {
                subset.insert(spec.clone(), *tool);
            }
        }
        subset.index_names();
        Ok(subset)
    }

    /// Every tool's spec, sorted by name.
    pub fn specs(&self) -> impl Iterator<Item = &ToolSpec> {
        self.specs.values().map(|(spec, _)| spec)
    }

    /// The spec registered under exactly `name`.
    pub fn spec(&self, name: &str) -> Option<&ToolSpec> {
        self.specs.get(name).map(|(spec, _)| spec)
    }

    /// Every registered name, sorted.
    pub fn names(&self) -> Vec<String> {
        self.specs.keys().cloned().collect()
    }

    /// Resolves a model-sent name to exactly one tool, or says why it cannot.
    pub fn resolve(&self, name: &str) -> Result<Resolved, ToolError> {
        let trimmed = name.trim();
        if let Some((registered, tool)) = self.exact(trimmed) {
            let repaired_from = (trimmed != name).then(|| name.to_string());
            return Ok(Resolved { tool, name: registered.to_string(), repaired_from });
        }
        let mut current = trimmed;
        for _ in 0..=MAX_WRAPPERS {
            if let Some(resolution) = self.act_on(name, self.by_normalised_key(current, None)) {
                return resolution;
            }
            if let Some((component, rest)) = self.component_qualifier(current)
                && let Some(resolution) = self.act_on(name, self.by_normalised_key(rest, Some(component)))
            {
                return resolution;
            }
            match strip_wrapper(current) {
                Some(rest) => current = rest,
                None => break,
            }
        }
        Err(self.unknown(name, current))
    }

    /// The tool registered under `name`, or under `component/tool` when `name` is
    /// `component__tool`, the spelling models are shown (see [`ToolSpec::model_name`]).
    fn exact(&self, name: &str) -> Option<(&str, ToolRef)> {
        if let Some((registered, (_, tool))) = self.specs.get_key_value(name) {
            return Some((registered, *tool));
        }
        let (component, tool) = name.split_once("__")?;
        let (registered, (_, tool)) = self.specs.get_key_value(&format!("{component}/{tool}"))?;
        Some((registered, *tool))
    }

    /// What a match means for the name `sent`: run the one tool (repaired), refuse as
    /// ambiguous, or `None` to keep looking.
    fn act_on(&self, sent: &str, found: NameMatch<String>) -> Option<Result<Resolved, ToolError>> {
        match found {
            NameMatch::None => None,
            NameMatch::One(registered) => {
                tracing::debug!("Self-repaired tool name '{sent}' -> '{registered}'");
                let (_, tool) = &self.specs[&registered];
                Some(Ok(Resolved { tool: *tool, name: registered, repaired_from: Some(sent.to_string()) }))
            }
            NameMatch::Several(candidates) => {
                Some(Err(ToolError::AmbiguousTool { name: sent.to_string(), candidates }))
            }
        }
    }

    /// Tools whose unqualified name has the same normalisation key as `name`,
    /// optionally only those of one component.
    fn by_normalised_key(&self, name: &str, component: Option<&str>) -> NameMatch<String> {
        let key = normalise(name);
        if key.is_empty() {
            return NameMatch::None;
        }
        let candidates = self.by_key.get(&key).into_iter().flatten();
        NameMatch::of(
            candidates.filter(|registered| component.is_none_or(|c| self.specs[*registered].0.component == c)).cloned(),
        )
    }

    /// Splits `<component>/<rest>` or `<component>.<rest>` when the head names a
    /// component of a registered tool (compared by normalisation key).
    fn component_qualifier<'a>(&self, name: &'a str) -> Option<(&str, &'a str)> {
        let (head, rest) = name.split_once(['/', '.'])?;
        let component = self.components.get(&normalise(head))?;
        Some((component, rest))
    }

    /// The corrective error for a name that matches no tool; the hint is computed
    /// from `stripped`, the name without the wrappers that were recognised.
    pub fn unknown(&self, name: &str, stripped: &str) -> ToolError {
        let suggestion = self.hints.nearest(stripped);
        ToolError::UnknownTool { name: name.to_string(), suggestion, available_tools: self.inventory.clone() }
    }
}

/// One wrapper removed from the front of `name`, if it has one.
fn strip_wrapper(name: &str) -> Option<&str> {
    for wrapper in WRAPPERS {
        if name.len() > wrapper.len()
            && name.is_char_boundary(wrapper.len())
            && name[..wrapper.len()].eq_ignore_ascii_case(wrapper)
        {
            return Some(&name[wrapper.len()..]);
        }
    }
    let after_mcp = name.strip_prefix("mcp__")?;
    let (_server, rest) = after_mcp.split_once("__")?;
    (!rest.is_empty()).then_some(rest)
}

/// Why a toolset could not be built from a list of names.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolsetError {
    /// A listed name matches no tool.
    #[error("Unknown tool '{name}'.{}", .suggestion.as_ref().map(|s| format!(" Did you mean '{s}'?")).unwrap_or_default())]
    UnknownTool {
        /// The name as listed.
        name: String,
        /// The nearest tool name, if any is close.
        suggestion: Option<String>,
    },
    /// A listed name matches several tools.
    #[error("Tool '{name}' is ambiguous: it matches {}; list one of them by its exact name.", python_list(.candidates))]
    AmbiguousTool {
        /// The name as listed.
        name: String,
        /// Every matching tool.
        candidates: Vec<String>,
    },
}

impl ToolsetError {
    pub(crate) fn from_resolution(name: &str, error: ToolError) -> ToolsetError {
        match error {
            ToolError::AmbiguousTool { candidates, .. } => {
                ToolsetError::AmbiguousTool { name: name.to_string(), candidates }
            }
            ToolError::UnknownTool { suggestion, .. } => {
                ToolsetError::UnknownTool { name: name.to_string(), suggestion }
            }
            // `resolve` fails with nothing else.
            _ => ToolsetError::UnknownTool { name: name.to_string(), suggestion: None },
        }
    }
}

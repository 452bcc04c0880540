//! The registry: every loaded tool under a unique name, and the resolution of a
//! name a model sent to exactly one tool, or to a corrective error.

use std::collections::{BTreeMap, HashMap};

use crate::error::ToolError;
use crate::names::normalise;
use crate::spec::ToolSpec;

/// Where a registered tool lives: the component's index and the tool's index in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolRef {
    /// Index of the component in the host's component list.
    pub component: usize,
    /// Index of the tool among the component's tools.
    pub tool: usize,
}

/// A name resolved to a tool; `repaired` says how when the name was not exact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The tool.
    pub tool: ToolRef,
    /// The registered name that was run.
    pub name: String,
    /// `Some(original)` when the name the model sent was repaired.
    pub repaired_from: Option<String>,
}

/// Registered tools by name, with the indexes resolution needs.
#[derive(Debug, Default)]
pub struct Registry {
    /// Specs by registered name, sorted.
    specs: BTreeMap<String, (ToolSpec, ToolRef)>,
    /// Normalised key → registered names sharing it.
    by_key: HashMap<String, Vec<String>>,
    /// Bare names exported by several components → their qualified names.
    ambiguous: HashMap<String, Vec<String>>,
}

impl Registry {
    /// Builds a registry. A name exported by several components is registered under
    /// `<component>/<name>` for each, and the bare name is ambiguous.
    pub fn new(tools: impl IntoIterator<Item = (ToolSpec, ToolRef)>) -> Registry {
        let mut by_bare: BTreeMap<String, Vec<(ToolSpec, ToolRef)>> = BTreeMap::new();
        for (spec, tool) in tools {
            by_bare.entry(spec.name.clone()).or_default().push((spec, tool));
        }
        let mut registry = Registry::default();
        for (bare, entries) in by_bare {
            if entries.len() > 1 {
                let mut qualified = Vec::new();
                for (mut spec, tool) in entries {
                    spec.name = format!("{}/{}", spec.component, bare);
                    qualified.push(spec.name.clone());
                    registry.insert(spec, tool);
                }
                qualified.sort();
                registry.ambiguous.insert(bare, qualified);
            } else {
                let (spec, tool) = entries.into_iter().next().expect("one entry");
                registry.insert(spec, tool);
            }
        }
        registry
    }

    fn insert(&mut self, spec: ToolSpec, tool: ToolRef) {
        self.by_key.entry(normalise(&spec.name)).or_default().push(spec.name.clone());
        self.specs.insert(spec.name.clone(), (spec, tool));
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

    /// Resolves a model-sent name: exact, then unique after normalisation.
    pub fn resolve(&self, name: &str) -> Result<Resolved, ToolError> {
        if let Some((_, tool)) = self.specs.get(name) {
            return Ok(Resolved { tool: *tool, name: name.to_string(), repaired_from: None });
        }
        if let Some(candidates) = self.ambiguous.get(name) {
            return Err(ToolError::AmbiguousTool { name: name.to_string(), candidates: candidates.clone() });
        }
        let key = normalise(name);
        let mut candidates: Vec<String> = self.by_key.get(&key).cloned().unwrap_or_default();
        candidates.extend(self.ambiguous.iter().filter(|(bare, _)| normalise(bare) == key).flat_map(|(_, q)| q.clone()));
        candidates.sort();
        candidates.dedup();
        match candidates.as_slice() {
            [one] if !key.is_empty() => {
                tracing::debug!("Self-repaired tool name '{name}' -> '{one}'");
                let (_, tool) = &self.specs[one];
                Ok(Resolved { tool: *tool, name: one.clone(), repaired_from: Some(name.to_string()) })
            }
            [] | [_] => Err(self.unknown(name)),
            _ => Err(ToolError::AmbiguousTool { name: name.to_string(), candidates }),
        }
    }

    /// The corrective error for a name that matches no tool.
    pub fn unknown(&self, name: &str) -> ToolError {
        let available_tools = self.names();
        let suggestion = crate::suggest::nearest(name, &available_tools);
        ToolError::UnknownTool { name: name.to_string(), suggestion, available_tools }
    }
}

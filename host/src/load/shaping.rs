//! Tool shaping as a component's manifest and an MCP server's file write it, with the
//! same keys in both: `[tools.NAME]` gives a tool a new name (its own still
//! resolves), a title, a description that replaces or extends its own, notes on its
//! parameters, defaults the host fills in, and parameters fixed by the operator and
//! hidden from the model; `include` and `exclude` choose the tools by pattern. A table
//! or a key naming a tool or parameter that is not there is an error naming the
//! file's line, never a guess.
//!
//! ```toml
//! exclude = ["delete_*"]             # or include = ["get_*", "list_*"]
//!
//! [tools.get_forecast]
//! name = "weather"                   # what the model sees and calls
//! append_description = "Use it for any question about the weather."
//! params = { city = "a city name, in English" }
//! defaults = { units = "metric" }    # shown as optional, filled in when left out
//! fixed = { api_version = 2 }        # hidden from the model, always sent
//!
//! [tools.delete_forecast]
//! approval = true                    # a person approves each call before it runs
//! ```

use std::collections::BTreeMap;

use globset::{GlobSet, GlobSetBuilder};
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;
use toml::Spanned;

use crate::tool::names::{NameMatch, match_name, name_pattern, python_list};
use crate::tool::{TaskSupport, ToolOrigin, ToolSpec};

/// What a file says about one tool (`[tools.NAME]`).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ToolTable {
    /// The name the model sees and calls instead (the tool's own still resolves).
    pub(crate) name: Option<String>,
    /// A human-readable name, instead of the tool's own or one made from its name.
    pub(crate) title: Option<String>,
    /// What the tool does, instead of its own description.
    pub(crate) description: Option<String>,
    /// Added after the description (its own, or `description`).
    pub(crate) append_description: Option<String>,
    /// What each parameter means, by name.
    #[serde(default)]
    pub(crate) params: BTreeMap<String, String>,
    /// Values the host fills in for parameters the model leaves out.
    #[serde(default)]
    pub(crate) defaults: BTreeMap<String, Value>,
    /// Values the host always sends, for parameters the model is not shown.
    #[serde(default)]
    pub(crate) fixed: BTreeMap<String, Value>,
    /// That calling it twice with the same arguments changes nothing more (a claim
    /// that can only narrow what a component's grants allow).
    pub(crate) idempotent: Option<bool>,
    /// That what it changes is never destroyed (`false`; only narrows).
    pub(crate) destructive: Option<bool>,
    /// Whether its calls may go on as tasks over MCP.
    pub(crate) task: Option<TaskSupport>,
    /// That a person approves each of its calls before it runs.
    pub(crate) approval: Option<bool>,
}

/// The lines a file writes each tool's table and each parameter key of it on.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Lines {
    tools: BTreeMap<String, usize>,
    params: BTreeMap<(String, String), usize>,
}

/// The keys of a file, with where each is written.
#[derive(Deserialize)]
struct Keys {
    #[serde(default)]
    tools: BTreeMap<Spanned<String>, ToolKeys>,
}

/// The parameter keys of one tool's table, with where each is written.
#[derive(Deserialize)]
struct ToolKeys {
    #[serde(default)]
    params: BTreeMap<Spanned<String>, IgnoredAny>,
    #[serde(default)]
    defaults: BTreeMap<Spanned<String>, IgnoredAny>,
    #[serde(default)]
    fixed: BTreeMap<Spanned<String>, IgnoredAny>,
}

impl Lines {
    /// Where `text` (a file already read as valid) writes each key.
    pub(crate) fn of(text: &str) -> Lines {
        let line = |at: usize| text.get(..at).map_or(0, |before| before.matches('\n').count()) + 1;
        let Ok(keys) = toml::from_str::<Keys>(text) else { return Lines::default() };
        let mut lines = Lines::default();
        for (tool, table) in keys.tools {
            for key in table.params.keys().chain(table.defaults.keys()).chain(table.fixed.keys()) {
                lines.params.insert((tool.get_ref().clone(), key.get_ref().clone()), line(key.span().start));
            }
            lines.tools.insert(tool.get_ref().clone(), line(tool.span().start));
        }
        lines
    }

    /// `line N: ` for the table `[tools.TOOL]`, or for its key `PARAM`.
    fn at(&self, tool: &str, param: Option<&str>) -> String {
        let line = match param {
            Some(param) => self.params.get(&(tool.to_string(), param.to_string())),
            None => self.tools.get(tool),
        };
        line.map_or_else(String::new, |line| format!("line {line}: "))
    }
}

/// `include` and `exclude`: which tools of a file's component or server are served.
#[derive(Debug, Clone, Default)]
pub(crate) struct Choice {
    include: Option<GlobSet>,
    exclude: Option<GlobSet>,
}

impl Choice {
    /// The patterns as written; one that does not read is an error naming it.
    pub(crate) fn new(include: &[String], exclude: &[String]) -> Result<Choice, String> {
        let set = |key: &str, patterns: &[String]| -> Result<Option<GlobSet>, String> {
            if patterns.is_empty() {
                return Ok(None);
            }
            let mut set = GlobSetBuilder::new();
            for pattern in patterns {
                let glob = name_pattern(pattern)
                    .map_err(|error| format!("`{key}`: '{pattern}' is not a tool name pattern: {}", error.kind()))?;
                set.add(glob);
            }
            set.build().map(Some).map_err(|error| format!("`{key}`: {error}"))
        };
        Ok(Choice { include: set("include", include)?, exclude: set("exclude", exclude)? })
    }

    /// Whether the tool named `name` (the file's name for it) is served.
    pub(crate) fn serves(&self, name: &str) -> bool {
        self.include.as_ref().is_none_or(|include| include.is_match(name))
            && !self.exclude.as_ref().is_some_and(|exclude| exclude.is_match(name))
    }
}

impl ToolTable {
    /// Puts the table `[tools.KEY]` on `spec`: every parameter it names must be one of
    /// the tool's, every value a value of that parameter; else the error, with its line.
    pub(crate) fn apply(&self, key: &str, spec: &mut ToolSpec, lines: &Lines) -> Result<(), String> {
        if let Some(title) = &self.title {
            spec.title = title.clone();
        }
        if let Some(description) = &self.description {
            spec.description = description.clone();
        }
        if let Some(more) = &self.append_description {
            spec.description = match spec.description.trim_end() {
                "" => more.clone(),
                own => format!("{own}\n\n{more}"),
            };
        }
        // Claims: they narrow a component's grants' hints (see `ToolAnnotations`).
        spec.annotations.idempotent = self.idempotent.unwrap_or(spec.annotations.idempotent);
        spec.annotations.destructive = self.destructive.unwrap_or(spec.annotations.destructive);
        spec.tasks = self.task.unwrap_or(spec.tasks);
        spec.approval = self.approval.unwrap_or(spec.approval);
        self.note_params(key, spec, lines)?;
        self.shape_params(key, spec, lines)?;
        if let Some(name) = &self.name {
            rename(key, spec, name, lines)?;
        }
        Ok(())
    }

    /// Puts the notes of `params` on the parameters they name.
    fn note_params(&self, key: &str, spec: &mut ToolSpec, lines: &Lines) -> Result<(), String> {
        for (param, note) in &self.params {
            let name = parameter(key, spec, param, "params", lines)?;
            match &mut spec.origin {
                ToolOrigin::Component(function) => {
                    if let Some(found) = function.params.iter_mut().find(|p| p.name == name) {
                        found.description = Some(note.clone());
                    }
                }
                ToolOrigin::McpServer(tool) | ToolOrigin::RestApi(tool) => {
                    if let Some(Value::Object(property)) = tool.input_schema.pointer_mut(&format!("/properties/{name}"))
                    {
                        property.insert("description".into(), Value::String(note.clone()));
                    }
                }
            }
        }
        Ok(())
    }

    /// Records `defaults` and `fixed` on the spec, each checked against its parameter.
    fn shape_params(&self, key: &str, spec: &mut ToolSpec, lines: &Lines) -> Result<(), String> {
        for (kind, values) in [("defaults", &self.defaults), ("fixed", &self.fixed)] {
            for (param, value) in values {
                let name = parameter(key, spec, param, kind, lines)?;
                check_value(spec, &name, value)
                    .map_err(|why| format!("{}[tools.{key}] {kind}: {why}", lines.at(key, Some(param))))?;
                let shaping = &mut spec.shaping;
                if (kind == "defaults" && shaping.fixed.contains_key(&name)) || shaping.defaults.contains_key(&name) {
                    let at = lines.at(key, Some(param));
                    return Err(format!("{at}[tools.{key}] gives '{name}' both a default and a fixed value: keep one"));
                }
                let map = if kind == "defaults" { &mut shaping.defaults } else { &mut shaping.fixed };
                map.insert(name, value.clone());
            }
        }
        Ok(())
    }
}

/// The name of the tool's parameter `param` names (as the binder matches names),
/// or the error saying it names none.
fn parameter(key: &str, spec: &ToolSpec, param: &str, kind: &str, lines: &Lines) -> Result<String, String> {
    let names: Vec<String> = spec.own_parameters_schema()["properties"]
        .as_object()
        .map(|properties| properties.keys().cloned().collect())
        .unwrap_or_default();
    match match_name(names.iter().map(String::as_str), param) {
        NameMatch::One(i) => Ok(names[i].clone()),
        unmatched => {
            let what = match unmatched {
                NameMatch::Several(several) => {
                    format!(
                        "matches several of its parameters: {}",
                        python_list(&several.iter().map(|i| &names[*i]).collect::<Vec<_>>())
                    )
                }
                _ if names.is_empty() => "but it has no parameters".to_string(),
                _ => format!("which it does not have (its parameters: {})", python_list(&names)),
            };
            Err(format!("{}[tools.{key}] {kind} names the parameter '{param}', {what}", lines.at(key, Some(param))))
        }
    }
}

/// Whether `value` is one the tool's parameter `name` takes (its JSON Schema, strictly).
fn check_value(spec: &ToolSpec, name: &str, value: &Value) -> Result<(), String> {
    let schema = spec.own_parameters_schema();
    let Some(property) = schema.pointer(&format!("/properties/{name}")) else { return Ok(()) };
    let Ok(validator) = jsonschema::validator_for(property) else { return Ok(()) };
    match validator.iter_errors(value).next() {
        None => Ok(()),
        Some(error) => Err(format!("{value} is not a value of '{name}': {error}")),
    }
}

/// Gives `spec` the name `name` the model will see; its own name still resolves.
fn rename(key: &str, spec: &mut ToolSpec, name: &str, lines: &Lines) -> Result<(), String> {
    let fits = (1..=64).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b));
    if !fits {
        return Err(format!(
            "{}[tools.{key}] name '{name}' is not a tool name: use 1 to 64 letters, digits, '_', '-' and '.'",
            lines.at(key, None)
        ));
    }
    if name != spec.name {
        spec.aliases.push(std::mem::replace(&mut spec.name, name.to_string()));
    }
    Ok(())
}

/// The error for a table `[tools.KEY]` that names none of `names`, or several.
pub(crate) fn unmatched_table(key: &str, names: &[&str], found: &NameMatch<usize>, lines: &Lines) -> String {
    let what = match found {
        NameMatch::Several(several) => {
            format!(
                "matches several of its tools: {}",
                python_list(&several.iter().map(|i| names[*i]).collect::<Vec<_>>())
            )
        }
        _ => format!("names none of its tools ({})", python_list(names)),
    };
    format!("{}[tools.{key}] {what}", lines.at(key, None))
}

/// Refuses two tools of one file that would have the same name after renames.
pub(crate) fn check_unique_names(specs: &[&ToolSpec]) -> Result<(), String> {
    let mut seen = std::collections::BTreeSet::new();
    for spec in specs {
        if !seen.insert(spec.name.as_str()) {
            return Err(format!("two of its tools would be called '{}': rename one of them", spec.name));
        }
    }
    Ok(())
}

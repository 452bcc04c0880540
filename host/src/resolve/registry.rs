//! The registry: every loaded tool under a unique name, and the resolution of a
//! name a model sent to exactly one tool, or to a corrective error.
//!
//! Resolution, in order; only a unique match ever runs, a fuzzy match is only a hint:
//! 1. the exact registered name (surrounding whitespace ignored, as a repair), or
//!    the name a provider format showed for it (`uber_ride` for `uber.ride`, see
//!    [`Registry::provider_name`]);
//! 2. the tool-name key (case, `_`, `-`, `.` and whitespace ignored) of the whole
//!    name, matched against each tool's unqualified name;
//! 3. the same after stripping wrappers models add: `functions.`, `default_api.`,
//!    `tools.`, `tool.`, `mcp__<server>__`, or a `<component>/` / `<component>.`
//!    qualifier (which also restricts the match to that component). So when a name
//!    reads both as a tool's own dotted name and as `<component>.<tool>`, the tool's
//!    own name wins;
//! 4. a dropped namespace: the name (its key) is the last part or parts of a
//!    qualified name, split only where it is qualified (`.`, `/`, `::`, `__`), never
//!    at a `_` or `-` inside a part: `gcd` for `number_theory.gcd`, `Bar::baz` for
//!    `Foo::Bar::baz` (`id` never runs `get_user_id`).
//!
//! Provider names are given out once, when the registry is built: each tool's name
//! in the form every provider takes ([`provider_name`]); two tools whose forms
//! would be the same keep apart by a digest, with a warning naming both.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, OnceLock};

use super::suggest::Candidates;
use crate::error::ToolError;
use crate::search::{SearchIndex, ToolMatch};
use crate::tool::names::{NameMatch, normalise, provider_name, python_list, tool_key, unqualified, with_digest};
use crate::tool::{ToolFormat, ToolSpec};

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
    /// The key of each proper tail of a qualified name (`gcd` of
    /// `number_theory.gcd`) → registered names ending so, sorted.
    by_tail: HashMap<String, Vec<String>>,
    /// The names prepared for the nearest-name hint.
    hints: Candidates,
    /// The tools by the words of their names, descriptions and parameters; a tool
    /// is its position in `inventory`. Built when first searched: a host that never
    /// searches (nor meets an unknown name) does not pay for it at each load.
    search: OnceLock<SearchIndex>,
    /// The tools' vectors by an embedding model, or why they could not be made; made
    /// when first searched by meaning.
    #[cfg(feature = "semantic")]
    semantic: OnceLock<Result<crate::search::SemanticIndex, String>>,
    /// Every registered name, sorted, for the inventory in corrective messages.
    inventory: Arc<[String]>,
    /// Normalised component name → component name.
    components: HashMap<String, String>,
    /// Registered name → the name provider formats show (every tool has one).
    provider_names: HashMap<String, String>,
    /// Provider name → registered name, where the two differ.
    from_provider: HashMap<String, String>,
    /// What building the registry found a user should know (provider names that collided).
    warnings: Vec<String>,
    /// Whether any tool's file says a person approves its calls.
    approvals: bool,
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
        registry.give_provider_names();
        registry
    }

    /// Gives every tool its provider name: [`provider_name`] of its registered name,
    /// unless several tools would share one; then each that is not already spelt so
    /// gets it with a digest of its own name, and a warning names them all.
    fn give_provider_names(&mut self) {
        let mut by_form: BTreeMap<String, Vec<&str>> = BTreeMap::new();
        for name in self.specs.keys() {
            by_form.entry(provider_name(name)).or_default().push(name);
        }
        let mut given = Vec::with_capacity(self.specs.len());
        for (form, names) in by_form {
            if let [name] = names[..] {
                given.push((name.to_string(), form));
                continue;
            }
            let shown: Vec<(String, String)> = names
                .iter()
                .map(|name| (name.to_string(), if *name == form { form.clone() } else { with_digest(&form, name) }))
                .collect();
            self.warnings.push(format!(
                "the tools {} have the same name for model providers ('{form}'), so providers are shown {}; \
                 each stays callable by its registered name",
                python_list(&names),
                shown.iter().map(|(name, shown)| format!("'{shown}' for '{name}'")).collect::<Vec<_>>().join(", ")
            ));
            given.extend(shown);
        }
        for (name, shown) in given {
            self.name_for_providers(name, shown);
        }
    }

    /// Records `shown` as the provider name of the tool registered as `name`.
    fn name_for_providers(&mut self, name: String, shown: String) {
        if shown != name {
            self.from_provider.insert(shown.clone(), name.clone());
        }
        self.provider_names.insert(name, shown);
    }

    /// What building the registry found that a user should know: tools whose
    /// provider names would have been the same.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The name provider formats (OpenAI's, Anthropic's) show for the tool
    /// registered as `name`; a call by it resolves to the tool.
    ///
    /// ```
    /// use toolhost::{Registry, ToolSpec};
    ///
    /// let registry = Registry::from_specs([ToolSpec::new("uber.ride", "bfcl")]);
    /// assert_eq!(registry.provider_name("uber.ride"), Some("uber_ride"));
    /// assert_eq!(registry.resolve("uber_ride").map(|r| r.name), Ok("uber.ride".to_string()));
    /// ```
    pub fn provider_name(&self, name: &str) -> Option<&str> {
        self.provider_names.get(name).map(String::as_str)
    }

    /// Every tool's definition in `format`, sorted by registered name: named as
    /// [`Registry::provider_name`] says for a provider's format, by the registered
    /// name for MCP's.
    pub fn definitions(&self, format: ToolFormat) -> Vec<serde_json::Value> {
        self.specs().map(|spec| self.definition(spec, format)).collect()
    }

    /// `spec`'s definition in `format`, named as [`Registry::definitions`] names it.
    pub(crate) fn definition(&self, spec: &ToolSpec, format: ToolFormat) -> serde_json::Value {
        match (format, self.provider_name(&spec.name)) {
            (ToolFormat::Mcp, _) | (_, None) => spec.definition(format),
            (_, Some(shown)) => spec.definition_named(format, shown),
        }
    }

    /// Prepares the hint candidates and the inventory once the names are final.
    fn index_names(&mut self) {
        let names = self.names();
        self.hints = Candidates::new(&names);
        self.inventory = names.into();
        self.search = OnceLock::new();
        #[cfg(feature = "semantic")]
        {
            self.semantic = OnceLock::new();
        }
    }

    /// Whether any tool's file says a person approves each of its calls (nothing to
    /// look up per call when none does).
    pub(crate) fn asks_approval(&self) -> bool {
        self.approvals
    }

    fn insert(&mut self, spec: ToolSpec, tool: ToolRef) {
        let key = tool_key(unqualified(&spec.name));
        self.approvals |= spec.approval;
        self.components.insert(normalise(&spec.component), spec.component.clone());
        add_sorted(self.by_key.entry(key).or_default(), &spec.name);
        // A renamed tool's own name still reaches it, as a repair.
        for alias in &spec.aliases {
            self.from_provider.entry(alias.clone()).or_insert_with(|| spec.name.clone());
            add_sorted(self.by_key.entry(tool_key(alias)).or_default(), &spec.name);
        }
        for tail in tail_keys(unqualified(&spec.name)) {
            add_sorted(self.by_tail.entry(tail).or_default(), &spec.name);
        }
        self.specs.insert(spec.name.clone(), (spec, tool));
    }

    /// The tools that best fit `query` (a task in words, or a tool's name), best
    /// first, at most `limit` (see [`crate::Host::search_tools`]).
    pub fn search(&self, query: &str, limit: usize) -> Vec<ToolMatch> {
        let found = self.search_index().search(query, limit).into_iter();
        found.map(|hit| ToolMatch { name: self.inventory[hit.tool].clone(), score: hit.score }).collect()
    }

    /// [`Registry::search`], fused with a ranking by meaning by `model` (see
    /// [`crate::HostBuilder::embedding_model`]) once the tools' vectors are made
    /// ([`Registry::embed_tools`]; a registry whose every tool `model` embedded before
    /// has them at once). Until then, and if the model fails, by words alone: a search
    /// never waits for the tools to be embedded, only for the query.
    #[cfg(feature = "semantic")]
    pub fn search_by_meaning(
        &self,
        model: &crate::search::EmbeddingModel,
        query: &str,
        limit: usize,
    ) -> Vec<ToolMatch> {
        use crate::search::{FUSED_FROM, SemanticIndex, fuse};
        let mut lexical = self.search(query, limit.max(FUSED_FROM));
        let index = self.semantic.get().or_else(|| {
            let known = SemanticIndex::known(model, self.specs.values().map(|(spec, _)| spec))?;
            Some(self.semantic.get_or_init(|| Ok(known)))
        });
        let semantic = match index {
            Some(Ok(index)) => index.search(model, query, FUSED_FROM).map_err(|e| e.to_string()),
            Some(Err(error)) => Err(error.clone()),
            None => Err("the tools' vectors are still being made".to_string()),
        };
        match semantic {
            Ok(semantic) => fuse(&lexical, &semantic, limit),
            Err(error) => {
                tracing::debug!("searching by words alone: {error}");
                lexical.truncate(limit);
                lexical
            }
        }
    }

    /// Makes the vector of each tool by `model` that it has not made before (on this
    /// thread: seconds for a few dozen tools, minutes for thousands), so that
    /// [`Registry::search_by_meaning`] ranks by meaning too. A model that fails is an
    /// error, and the registry searches by words alone.
    #[cfg(feature = "semantic")]
    pub fn embed_tools(&self, model: &crate::search::EmbeddingModel) -> Result<(), crate::search::ModelError> {
        self.embedded(model).map(|_| ())
    }

    /// The tools' vectors by `model`, made now if they are not yet.
    #[cfg(feature = "semantic")]
    pub(crate) fn embedded(
        &self,
        model: &crate::search::EmbeddingModel,
    ) -> Result<&crate::search::SemanticIndex, crate::search::ModelError> {
        use crate::search::{ModelError, SemanticIndex};
        let index = self.semantic.get_or_init(|| {
            SemanticIndex::new(model, self.specs.values().map(|(spec, _)| spec)).map_err(|e| e.to_string())
        });
        index.as_ref().map_err(|error| ModelError::Failed(error.clone()))
    }

    /// The search index, built now if this is the registry's first search.
    fn search_index(&self) -> &SearchIndex {
        self.search.get_or_init(|| SearchIndex::new(self.specs.values().map(|(spec, _)| spec)))
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
                if let Some(shown) = self.provider_names.get(&spec.name) {
                    subset.name_for_providers(spec.name.clone(), shown.clone());
                }
            }
        }
        subset.index_names();
        Ok(subset)
    }

    /// Every tool's spec, sorted by name.
    pub fn specs(&self) -> impl Iterator<Item = &ToolSpec> {
        self.specs.values().map(|(spec, _)| spec)
    }

    /// How many tools it holds.
    pub fn len(&self) -> usize {
        self.specs.len()
    }

    /// Whether it holds no tool.
    pub fn is_empty(&self) -> bool {
        self.specs.is_empty()
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
            let repaired_from = (registered != name).then(|| name.to_string());
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
        if let Some(resolution) = self.act_on(name, self.by_dropped_namespace(current)) {
            return resolution;
        }
        Err(self.unknown(name, current))
    }

    /// Tools whose qualified name ends in `name`'s parts (compared by key): the
    /// model left out a namespace.
    fn by_dropped_namespace(&self, name: &str) -> NameMatch<String> {
        let key = namespace_key(name);
        if key.is_empty() {
            return NameMatch::None;
        }
        NameMatch::of(self.by_tail.get(&key).into_iter().flatten().cloned())
    }

    /// The tool registered under `name`; or whose provider name is `name`; or under
    /// `component/tool` when `name` is `component__tool`, the spelling MCP clients
    /// are shown (see [`ToolSpec::model_name`]).
    fn exact(&self, name: &str) -> Option<(&str, ToolRef)> {
        if let Some((registered, (_, tool))) = self.specs.get_key_value(name) {
            return Some((registered, *tool));
        }
        if let Some(registered) = self.from_provider.get(name) {
            return Some((registered, self.specs[registered].1));
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

    /// Tools whose unqualified name has the same tool-name key as `name`,
    /// optionally only those of one component.
    fn by_normalised_key(&self, name: &str, component: Option<&str>) -> NameMatch<String> {
        let key = tool_key(name);
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
        let (suggestion, by_spelling) = self.hints.hint_and_nearest(stripped, ToolError::NEAREST_TOOLS);
        let mut nearest_tools = self.fitting_words(stripped);
        for tool in by_spelling {
            if nearest_tools.len() < ToolError::NEAREST_TOOLS && !nearest_tools.contains(&tool) {
                nearest_tools.push(tool);
            }
        }
        ToolError::UnknownTool {
            name: name.to_string(),
            suggestion,
            available_tools: self.inventory.clone(),
            nearest_tools,
        }
    }

    /// The tools whose words hold most of `name`'s (a made-up name's words, as
    /// search reads them: `get_weather_forecast` → `weather.forecast`), best first.
    fn fitting_words(&self, name: &str) -> Vec<String> {
        let found = self.search_index().search(name, ToolError::NEAREST_TOOLS).into_iter();
        found.filter(|hit| hit.coverage >= FITS_WORDS).map(|hit| self.inventory[hit.tool].clone()).collect()
    }
}

/// The share of a made-up name's words (weighted by rarity) a tool must hold for its
/// message to name the tool first: a name that shares only its commonest word with a
/// tool (`get`) is compared by spelling alone.
const FITS_WORDS: f32 = 0.5;

/// `name` added to a sorted list of names, once.
fn add_sorted(names: &mut Vec<String>, name: &str) {
    if let Err(at) = names.binary_search_by(|n| n.as_str().cmp(name)) {
        names.insert(at, name.to_string());
    }
}

/// The parts of a qualified name: split at `.`, `/`, `::` and `__`, the separators
/// that qualify a name (a `_` or `-` inside a part does not).
fn qualified_parts(name: &str) -> Vec<&str> {
    let bytes = name.as_bytes();
    let (mut parts, mut start, mut i) = (Vec::new(), 0, 0);
    while i < bytes.len() {
        let width = match (bytes[i], bytes.get(i + 1)) {
            (b'.' | b'/', _) => 1,
            (b':', Some(b':')) | (b'_', Some(b'_')) => 2,
            _ => {
                i += 1;
                continue;
            }
        };
        parts.push(&name[start..i]);
        i += width;
        start = i;
    }
    parts.push(&name[start..]);
    parts.retain(|part| !part.is_empty());
    parts
}

/// The key a name's parts make together (each part's tool key, joined).
fn namespace_key(name: &str) -> String {
    qualified_parts(name).into_iter().map(tool_key).collect()
}

/// The keys of every proper tail of a qualified name's parts: `b.c` and `c` of `a.b.c`.
fn tail_keys(name: &str) -> Vec<String> {
    let parts = qualified_parts(name);
    (1..parts.len()).map(|from| parts[from..].iter().map(|part| tool_key(part)).collect()).collect()
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
    /// A pattern is not one (see [`crate::Host::toolset_matching`]).
    #[error("'{pattern}' is not a tool name pattern: {reason}")]
    BadPattern {
        /// The pattern as written.
        pattern: String,
        /// What is wrong with it.
        reason: String,
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

#[cfg(test)]
mod tests {
    use super::Registry;
    use crate::error::ToolError;
    use crate::tool::{ToolFormat, ToolSpec};

    fn registry(tools: &[(&str, &str)]) -> Registry {
        Registry::from_specs(tools.iter().map(|(name, component)| ToolSpec::new(name, component)))
    }

    fn resolved(registry: &Registry, name: &str) -> Result<(String, Option<String>), ToolError> {
        registry.resolve(name).map(|r| (r.name, r.repaired_from))
    }

    #[test]
    fn a_dotted_name_is_called_by_its_provider_name_and_with_dots_as_separators() {
        let tools = registry(&[("uber.ride", "bfcl"), ("version_api.VersionApi.get_version", "bfcl")]);
        assert_eq!(tools.provider_name("uber.ride"), Some("uber_ride"));
        for sent in ["uber_ride", "Uber.Ride", "uber-ride", "UberRide", "functions.uber_ride"] {
            assert_eq!(resolved(&tools, sent), Ok(("uber.ride".into(), Some(sent.into()))), "{sent}");
        }
        assert_eq!(resolved(&tools, "uber.ride"), Ok(("uber.ride".into(), None)));
        let version = "version_api.VersionApi.get_version";
        assert_eq!(resolved(&tools, "version_api_VersionApi_get_version").map(|r| r.0), Ok(version.into()));
        assert!(tools.warnings().is_empty());
    }

    #[test]
    fn a_dropped_namespace_runs_the_one_tool_it_ends_and_never_splits_inside_a_part() {
        let tools = registry(&[
            ("number_theory.gcd", "m"),
            ("math.lcm", "m"),
            ("stats.lcm", "m"),
            ("get_user_id", "u"),
            ("github__create_issue", "g"),
            ("Foo::Bar::baz", "r"),
            ("a.b.c_d", "x"),
        ]);
        for (sent, tool) in [
            ("gcd", "number_theory.gcd"),
            ("GCD", "number_theory.gcd"),
            ("theory.gcd", ""),
            ("functions.gcd", "number_theory.gcd"),
            ("create_issue", "github__create_issue"),
            ("createIssue", "github__create_issue"),
            ("baz", "Foo::Bar::baz"),
            ("Bar::baz", "Foo::Bar::baz"),
            ("bar.baz", "Foo::Bar::baz"),
            ("c_d", "a.b.c_d"),
            ("b_c_d", "a.b.c_d"),
            ("b.c_d", "a.b.c_d"),
            ("id", ""),
            ("user_id", ""),
            ("d", ""),
            ("issue", ""),
        ] {
            let found = resolved(&tools, sent);
            if tool.is_empty() {
                assert!(matches!(found, Err(ToolError::UnknownTool { .. })), "{sent}: {found:?}");
            } else {
                assert_eq!(found, Ok((tool.into(), Some(sent.into()))), "{sent}");
            }
        }
        let Err(ToolError::AmbiguousTool { candidates, .. }) = tools.resolve("lcm") else { panic!("ambiguous") };
        assert_eq!(candidates, ["math.lcm", "stats.lcm"]);
    }

    #[test]
    fn a_tools_own_name_comes_before_a_dropped_namespace() {
        let tools = registry(&[("gcd", "a"), ("number_theory.gcd", "b"), ("number_theory_gcd_v2", "c")]);
        assert_eq!(resolved(&tools, "gcd"), Ok(("gcd".into(), None)));
        assert_eq!(resolved(&tools, "Gcd"), Ok(("gcd".into(), Some("Gcd".into()))));
        assert_eq!(resolved(&tools, "number_theory_gcd").map(|r| r.0), Ok("number_theory.gcd".into()));
    }

    #[test]
    fn several_tools_matching_with_dots_as_separators_run_nothing() {
        let tools = registry(&[("a.b_c", "x"), ("a_b.c", "x")]);
        let Err(ToolError::AmbiguousTool { candidates, .. }) = tools.resolve("a_b_c") else { panic!("ambiguous") };
        assert_eq!(candidates, ["a.b_c", "a_b.c"]);
    }

    #[test]
    fn a_tools_own_dotted_name_wins_over_a_component_qualifier() {
        // `weather.get` reads as the tool of that name, or as `get` of component `weather`.
        let tools = registry(&[("weather_get", "other"), ("get", "weather"), ("put", "weather")]);
        assert_eq!(resolved(&tools, "weather.get").map(|r| r.0), Ok("weather_get".into()));
        assert_eq!(resolved(&tools, "weather.put").map(|r| r.0), Ok("put".into()));
        assert_eq!(resolved(&tools, "weather/get").map(|r| r.0), Ok("get".into()));
    }

    #[test]
    fn provider_names_that_would_collide_keep_apart_with_a_warning() {
        let tools = registry(&[("a.b", "x"), ("a_b", "y"), ("a/b", "z")]);
        assert_eq!(tools.provider_name("a_b"), Some("a_b"), "the tool already so spelt keeps its name");
        let dotted = tools.provider_name("a.b").expect("named").to_string();
        assert!(dotted.starts_with("a_b_") && dotted.len() == "a_b_".len() + 8, "{dotted}");
        assert_eq!(resolved(&tools, &dotted).map(|r| r.0), Ok("a.b".into()));
        assert_eq!(resolved(&tools, "a_b").map(|r| r.0), Ok("a_b".into()));
        assert_eq!(resolved(&tools, "a.b").map(|r| r.0), Ok("a.b".into()));
        assert_eq!(tools.warnings().len(), 1, "{:?}", tools.warnings());
        let warning = &tools.warnings()[0];
        assert!(
            warning.starts_with("the tools ['a.b', 'a_b'] have the same name for model providers ('a_b')"),
            "{warning}"
        );
        assert!(warning.contains(&format!("'{dotted}' for 'a.b'")), "{warning}");
        let shown: Vec<String> = tools
            .definitions(ToolFormat::OpenAiChat)
            .iter()
            .map(|d| d["function"]["name"].as_str().expect("named").to_string())
            .collect();
        assert_eq!(shown.len(), 3);
        assert!(shown.iter().all(|name| name.len() <= 64), "{shown:?}");
        let mut distinct = shown.clone();
        distinct.dedup();
        assert_eq!(distinct.len(), 3, "{shown:?}");
    }

    #[test]
    fn mcp_definitions_keep_the_registered_name() {
        let tools = registry(&[("uber.ride", "bfcl")]);
        assert_eq!(tools.definitions(ToolFormat::Mcp)[0]["name"], "uber.ride");
        assert_eq!(tools.definitions(ToolFormat::Anthropic)[0]["name"], "uber_ride");
        assert_eq!(tools.definitions(ToolFormat::OpenAiResponses)[0]["name"], "uber_ride");
    }

    #[test]
    fn a_toolset_keeps_the_provider_names_of_the_whole_registry() {
        let tools = registry(&[("a.b", "x"), ("a_b", "y")]);
        let subset = tools.subset(&["a.b"]).expect("a.b is a tool");
        assert_eq!(subset.provider_name("a.b"), tools.provider_name("a.b"));
        let shown = tools.provider_name("a.b").expect("named");
        assert_eq!(resolved(&subset, shown).map(|r| r.0), Ok("a.b".into()));
    }

    #[test]
    fn an_unknown_name_among_many_tools_lists_the_nearest_and_their_number() {
        let names: Vec<(String, String)> = (0..10_000)
            .map(|i| {
                (
                    format!("{}_{}_{i}", ["get", "list", "create", "delete"][i % 4], ["user", "repo", "issue"][i % 3]),
                    format!("c{}", i / 10),
                )
            })
            .collect();
        let pairs: Vec<(&str, &str)> = names.iter().map(|(n, c)| (n.as_str(), c.as_str())).collect();
        let tools = registry(&pairs);
        let Err(error) = tools.resolve("get_usr_9996") else { panic!("unknown") };
        let ToolError::UnknownTool { available_tools, nearest_tools, suggestion, .. } = &error else {
            panic!("{error}")
        };
        assert_eq!(available_tools.len(), 10_000, "the whole inventory stays in the fields");
        assert_eq!(suggestion.as_deref(), Some("get_user_9996"));
        assert_eq!(nearest_tools.len(), ToolError::NEAREST_TOOLS);
        assert_eq!(nearest_tools[0], "get_user_9996");
        let message = error.to_string();
        assert!(
            message.starts_with("Tool 'get_usr_9996' not found. Did you mean 'get_user_9996'? The nearest of the 10000 available tools: ['get_user_9996', "),
            "{message}"
        );
        assert!(message.len() < 400, "{} bytes: {message}", message.len());
        assert_eq!(error.to_json()["nearest_tools"].as_array().map(Vec::len), Some(ToolError::NEAREST_TOOLS));

        // A short inventory is still listed whole.
        let few = registry(&pairs[..ToolError::LISTED_TOOLS]);
        let message = few.resolve("nothing_like_it").map(|_| ()).unwrap_err().to_string();
        assert!(message.contains("Available tools: ['create_issue_"), "{message}");
        assert_eq!(message.matches('\'').count(), 2 * (ToolError::LISTED_TOOLS + 1), "{message}");
    }

    #[test]
    fn an_unknown_name_names_the_tools_that_fit_its_words_first_and_none_when_nothing_does() {
        let mut specs: Vec<ToolSpec> = (0..60).map(|i| ToolSpec::new(&format!("get_record_{i}"), "records")).collect();
        let mut forecast = ToolSpec::new("weather.forecast", "weather");
        forecast.description = "The weather forecast for a city in the coming days.".into();
        specs.push(forecast);
        specs.push(ToolSpec::new("get_weather_station", "weather"));
        let tools = Registry::from_specs(specs);
        let nearest = |name: &str| match tools.resolve(name) {
            Err(ToolError::UnknownTool { nearest_tools, suggestion, .. }) => (suggestion, nearest_tools),
            other => panic!("{other:?}"),
        };
        // By its words `weather.forecast` fits best; the station is spelt alike.
        let (_, found) = nearest("get_weather_forecast");
        assert_eq!(found[0], "weather.forecast", "{found:?}");
        assert!(found.contains(&"get_weather_station".to_string()), "{found:?}");
        // A typo of a common word and a rare one: spelling decides.
        assert_eq!(nearest("get_recrd_7").1[0], "get_record_7");
        // Nothing like it either way: no tool named, and the message says so.
        let (hint, found) = nearest("quantum_chromodynamics");
        assert_eq!((hint, found.len()), (None, 0));
        let message = tools.resolve("quantum_chromodynamics").map(|_| ()).unwrap_err().to_string();
        assert!(message.contains("None of the 62 available tools has a name or description like it"), "{message}");
    }
}

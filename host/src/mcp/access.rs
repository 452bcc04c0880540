//! Who is calling and which tools they may use: a [`Caller`] is what the face that
//! admitted a request knows of its sender (a static token's name, or an access
//! token's subject and scopes); [`Access`] maps grants (a scope, or a static token's
//! name) to the tools they open. A caller sees and calls only its tools: the others
//! are not listed, and a call of one is refused as an unknown tool whose message
//! names only the caller's own.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use crate::host::{Host, ToolsetError};
use crate::mutex::lock;

/// Who made a call, as the face that admitted it knows: `stdio` (the one client on
/// the pipe), a static token's name (`token` for the one token of `--token-file`),
/// an access token's subject, or `anonymous` (a server with no authorization).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Caller {
    name: String,
    grants: Vec<String>,
}

impl Caller {
    /// A caller known by `name`, granted what [`Access`] grants `name`.
    pub fn new(name: impl Into<String>) -> Caller {
        let name = name.into();
        Caller { grants: vec![name.clone()], name }
    }

    /// A caller known by `name` (an access token's subject) granted what
    /// [`Access`] grants each of `scopes` (the token's scopes).
    pub fn with_scopes(name: impl Into<String>, scopes: Vec<String>) -> Caller {
        Caller { name: name.into(), grants: scopes }
    }

    /// The name the audit log and the rate limits know the caller by.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What [`Access`] looks up for the caller: its scopes, or its name.
    pub fn grants(&self) -> &[String] {
        &self.grants
    }
}

/// Which tools each grant opens: tool names or patterns (`*` for any run of
/// characters: `github.*`, or `*` for all). A caller may use the tools of every
/// grant it holds; one holding none may use none.
///
/// ```
/// use toolhost::mcp::{Access, Caller};
///
/// let access = Access::new().grant("tools:math", &["evaluate", "gcd"])?.grant("ci", &["*"])?;
/// assert_eq!(access.patterns(&Caller::new("ci")), ["*"]);
/// assert!(access.patterns(&Caller::with_scopes("alice", vec!["email".into()])).is_empty());
/// # Ok::<(), toolhost::ToolsetError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Access {
    grants: BTreeMap<String, Vec<String>>,
}

impl Access {
    /// No grants yet: nobody may use any tool.
    pub fn new() -> Access {
        Access::default()
    }

    /// `grant` (a scope, or a static token's name) opens `tools` (names or patterns),
    /// besides what it opened before. A pattern that is none is an error naming it.
    pub fn grant<S: AsRef<str>>(mut self, grant: &str, tools: &[S]) -> Result<Access, ToolsetError> {
        let tools: Vec<String> = tools.iter().map(|tool| tool.as_ref().to_string()).collect();
        for tool in &tools {
            Host::check_pattern(tool)?;
        }
        self.grants.entry(grant.to_string()).or_default().extend(tools);
        Ok(self)
    }

    /// Every grant named, sorted (for `scopes_supported` in the server's metadata).
    pub fn grant_names(&self) -> impl Iterator<Item = &str> {
        self.grants.keys().map(String::as_str)
    }

    /// The names and patterns open to `caller`, sorted, without repeats.
    pub fn patterns(&self, caller: &Caller) -> Vec<String> {
        let mut patterns: Vec<String> =
            caller.grants.iter().filter_map(|grant| self.grants.get(grant)).flatten().cloned().collect();
        patterns.sort();
        patterns.dedup();
        patterns
    }
}

/// Views of which more are not kept (distinct sets of grants are few in practice;
/// past this many the cache starts over).
const MAX_VIEWS: usize = 1_000;

/// An [`Access`] over one host: each caller's view of it (a toolset of its
/// patterns, kept current across reloads), made once per distinct set of patterns.
pub(crate) struct CallerTools {
    access: Arc<Access>,
    views: Mutex<HashMap<ViewKey, Host>>,
}

/// A view's key: the profile viewed (none: all the tools) and the caller's patterns.
type ViewKey = (Option<String>, Vec<String>);

impl CallerTools {
    pub(crate) fn new(access: Arc<Access>) -> CallerTools {
        CallerTools { access, views: Mutex::new(HashMap::new()) }
    }

    /// `host` (all the tools, or those of `profile`) as `caller` may see it.
    pub(crate) fn host_for(&self, host: &Host, caller: &Caller, profile: Option<&str>) -> Host {
        let patterns = self.access.patterns(caller);
        if patterns.iter().any(|pattern| pattern == "*") {
            return host.clone();
        }
        let key = (profile.map(str::to_string), patterns);
        let mut views = lock(&self.views);
        if let Some(view) = views.get(&key) {
            return view.clone();
        }
        if views.len() >= MAX_VIEWS {
            views.clear();
        }
        // Every pattern was checked when granted.
        let view = host.toolset_matching(&key.1).unwrap_or_else(|error| {
            tracing::error!("a granted pattern does not read ({error}); the caller gets no tools");
            host.without_tools()
        });
        views.insert(key, view.clone());
        view
    }
}

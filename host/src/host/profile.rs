//! Profiles: named toolsets a server serves apart (over HTTP each at `/mcp/NAME`),
//! each the tools matching its patterns, optionally shown through a finder.

use super::{Disclosure, Host};
use crate::resolve::{ToolsetError, glob_set};

/// A named toolset: the tools whose registered names match its patterns, shown
/// as they are or through a finder ([`Profile::disclosing`]).
///
/// ```no_run
/// # let host = toolhost::Host::builder().plugin_dir("target/plugins").build()?;
/// use toolhost::{Disclosure, Profile};
///
/// let math = Profile::new(&["evaluate", "gcd", "convert"])?.disclosing(Disclosure::new(&["evaluate"])?);
/// let served = math.apply(&host)?;
/// assert!(served.tools().len() <= 3);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Profile {
    tools: Vec<String>,
    disclosure: Option<Disclosure>,
    name: Option<std::sync::Arc<str>>,
}

impl Profile {
    /// The tools whose registered names match one of `tools` (`*` for any run of
    /// characters, `?` for one). A pattern that does not read is an error naming it.
    pub fn new<S: AsRef<str>>(tools: &[S]) -> Result<Profile, ToolsetError> {
        glob_set(tools)?;
        let tools = tools.iter().map(|tool| tool.as_ref().to_string()).collect();
        Ok(Profile { tools, disclosure: None, name: None })
    }

    /// The same profile, named `name`: the calls of the host it makes are its calls,
    /// for the policies scoped to it (`PolicyScope::profiles`).
    #[must_use]
    pub fn named(self, name: &str) -> Profile {
        Profile { name: Some(name.into()), ..self }
    }

    /// The same tools, shown through `disclosure`'s core and finder.
    #[must_use]
    pub fn disclosing(self, disclosure: Disclosure) -> Profile {
        Profile { disclosure: Some(disclosure), ..self }
    }

    /// Whether `name` can name a profile (its path, `/mcp/NAME`): 1 to 64 letters,
    /// digits, `_` and `-`.
    pub fn valid_name(name: &str) -> bool {
        (1..=64).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    }

    /// The patterns, as given.
    pub fn tools(&self) -> &[String] {
        &self.tools
    }

    /// How the profile shows its tools, when through a finder.
    pub fn disclosure(&self) -> Option<&Disclosure> {
        self.disclosure.as_ref()
    }

    /// `host` as the profile serves it: a toolset of the matching tools (kept current
    /// across reloads), disclosing when the profile does.
    pub fn apply(&self, host: &Host) -> Result<Host, ToolsetError> {
        let mut toolset = host.toolset_matching(&self.tools)?;
        toolset.profile.clone_from(&self.name);
        Ok(match &self.disclosure {
            Some(disclosure) => toolset.disclosing(disclosure.clone()),
            None => toolset,
        })
    }
}

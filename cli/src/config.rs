//! `toolhost serve --config FILE`: every serve setting in one TOML file, under the
//! flags and environment variables (which still override it), and `toolhost config
//! check FILE`, which validates one without serving. An unknown key is an error
//! naming it; a secret is never written in the file, only named: `"${VARIABLE}"`, or
//! a file holding it (`token_file`). Relative paths are relative to the file's folder.
//!
//! ```toml
//! plugins = "plugins"
//! watch = true
//! compiler = "auto"            # or "optimizing", "baseline" (see toolhost::Compiler)
//!
//! [capacity]
//! max_concurrent_calls = 16
//!
//! [http]
//! address = "0.0.0.0:8080"
//! token = "${TOOLHOST_TOKEN}"
//! allow_hosts = ["tools.example.com"]
//!
//! [audit]
//! file = "audit.log"
//!
//! [auth]                       # OAuth 2.1 access tokens (MCP's authorization)
//! issuer = "https://login.example.com/realms/agents"
//! resource = "https://tools.example.com/mcp"
//! scopes = ["mcp"]
//!
//! [auth.tokens]                # more static tokens, by name
//! ci = "${CI_TOKEN}"
//! nightly = { file = "nightly.token" }
//!
//! [access]                     # a scope or a token's name = the tools it opens
//! "tools:math" = ["evaluate", "gcd"]
//! ci = ["*"]
//!
//! [metrics]                    # Prometheus, on an address of its own
//! address = "0.0.0.0:9464"
//!
//! [tracing]                    # a span per call, over OTLP
//! otlp_endpoint = "http://collector:4318"
//!
//! [disclosure]                 # list these and find_tools, which finds the rest
//! core = ["evaluate", "files.*"]
//! caller = "call_tool"         # optional: and a tool that calls what it found
//!
//! [profiles.math]              # served at /mcp/math (stdio: --profile math)
//! tools = ["evaluate", "gcd", "convert"]
//! disclose = ["evaluate"]      # optional: this profile lists these and find_tools
//!
//! [[policy]]                   # looks at calls before and after, in this order
//! component = "policies/pii-redact.wasm"
//! tools = ["files.*"]          # optional: only calls of these tools
//! callers = ["ci"]             # optional: only calls for these callers
//! profiles = ["math"]          # optional: only calls through these profiles
//! time_limit_ms = 1000         # optional: each look's limits (1 s, 64 MiB unless given)
//! memory_mb = 64
//! env = { ALLOW = "notes/" }   # optional: its settings (it is granted nothing else)
//! reuse = true                 # optional: its instances serve many calls (only for a
//!                              # policy that keeps nothing between them)
//!
//! [secrets.weather]            # given to that component's calls alone
//! API_KEY = "${WEATHER_KEY}"   # or { file = "/run/secrets/weather-key" }
//!
//! [approval]                   # a person says yes first (MCP elicitation)
//! destructive = true           # every tool whose hints say it may destroy something
//! tools = ["send_*"]           # and these
//! wait_s = 120
//! ```

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde::Deserialize;
use toolhost::mcp::Access;
use toolhost::mcp::http::OAuthOptions;
use toolhost::{Approval, Compiler, Disclosure, HostBuilder, PolicyComponent, PolicyScope, Profile};

/// The file's settings, as written (paths already made relative to the file's folder).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Config {
    /// The plugin folder.
    pub(crate) plugins: Option<PathBuf>,
    /// A shared, read-only compile cache.
    pub(crate) shared_cache: Option<PathBuf>,
    /// Reload when components change.
    pub(crate) watch: Option<bool>,
    /// Which compiler makes the code of a component not in the cache.
    #[serde(default, deserialize_with = "compiler_named")]
    pub(crate) compiler: Option<Compiler>,
    #[serde(default)]
    pub(crate) capacity: CapacityConfig,
    #[serde(default)]
    pub(crate) http: HttpConfig,
    #[serde(default)]
    pub(crate) audit: AuditConfig,
    #[serde(default)]
    pub(crate) rate_limits: RateLimitConfig,
    #[serde(default)]
    pub(crate) auth: AuthConfig,
    #[serde(default)]
    pub(crate) metrics: MetricsConfig,
    #[serde(default)]
    pub(crate) tracing: TracingConfig,
    /// `[access]`: a scope or a static token's name = the tools (names or patterns) it opens.
    #[serde(default)]
    pub(crate) access: Option<std::collections::BTreeMap<String, Vec<String>>>,
    /// `[disclosure]`: list a core of the tools and a finder of the rest.
    pub(crate) disclosure: Option<DisclosureConfig>,
    /// `[profiles.NAME]`: named toolsets, each served apart.
    #[serde(default)]
    pub(crate) profiles: BTreeMap<String, ProfileConfig>,
    /// `[[policy]]`: policy components, in chain order.
    #[serde(default, rename = "policy")]
    pub(crate) policies: Vec<PolicyConfig>,
    /// `[approval]`: the tools a person approves before each call.
    pub(crate) approval: Option<ApprovalConfig>,
    /// `[secrets.COMPONENT]`: a secret's name = `"${VARIABLE}"` or `{ file = "PATH" }`.
    #[serde(default)]
    pub(crate) secrets: BTreeMap<String, BTreeMap<String, Secret>>,
}

/// `[approval]`: which tools a person approves before each call (see `toolhost::Approval`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ApprovalConfig {
    /// Every tool whose hints say it may destroy something.
    #[serde(default)]
    pub(crate) destructive: bool,
    /// Tool name patterns.
    #[serde(default)]
    pub(crate) tools: Vec<String>,
    /// How long a call waits for the person.
    pub(crate) wait_s: Option<u64>,
}

/// What the file adds to the host: the policies in order, the approval, and the
/// secrets it names, read (no `Debug`: it holds their values).
#[derive(Clone, Default)]
pub(crate) struct HostSettings {
    pub(crate) policies: Vec<PolicyConfig>,
    pub(crate) approval: Option<ApprovalConfig>,
    /// (component, name, value).
    pub(crate) secrets: Vec<(String, String, String)>,
}

impl HostSettings {
    /// `builder` with the policies chained, the approval set and the secrets given.
    pub(crate) fn add_to(&self, builder: HostBuilder) -> HostBuilder {
        let builder = self.policies.iter().fold(builder, |builder, policy| policy.add_to(builder));
        let builder = self
            .secrets
            .iter()
            .fold(builder, |builder, (component, name, value)| builder.secret(component, name, value));
        let Some(approval) = &self.approval else { return builder };
        let mut asking = if approval.destructive { Approval::destructive_tools() } else { Approval::default() };
        asking = asking.tools(approval.tools.iter().cloned());
        if let Some(seconds) = approval.wait_s {
            asking = asking.wait(std::time::Duration::from_secs(seconds));
        }
        builder.approval(asking)
    }
}

/// `[[policy]]`: a policy component and the calls it looks at (see `toolhost::Policy`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PolicyConfig {
    /// The component file.
    pub(crate) component: PathBuf,
    /// Tool name patterns; none is every tool.
    #[serde(default)]
    pub(crate) tools: Vec<String>,
    /// Callers (token names, OAuth subjects); none is every caller.
    #[serde(default)]
    pub(crate) callers: Vec<String>,
    /// Profiles (`[profiles.NAME]`) whose calls it looks at; none is every call.
    #[serde(default)]
    pub(crate) profiles: Vec<String>,
    /// Each look's time limit.
    pub(crate) time_limit_ms: Option<u64>,
    /// Each look's memory limit.
    pub(crate) memory_mb: Option<u64>,
    /// Its settings, as environment variables (it is granted nothing else).
    #[serde(default)]
    pub(crate) env: BTreeMap<String, String>,
    /// Whether an instance serves later calls too (`PolicyComponent::reuse_instances`).
    #[serde(default)]
    pub(crate) reuse: bool,
}

impl PolicyConfig {
    /// `builder` with this policy chained after those before it.
    pub(crate) fn add_to(&self, builder: HostBuilder) -> HostBuilder {
        let mut limits = toolhost::DEFAULT_POLICY_LIMITS;
        if let Some(ms) = self.time_limit_ms {
            limits.time = std::time::Duration::from_millis(ms);
        }
        if let Some(mb) = self.memory_mb {
            limits.memory_bytes = mb.saturating_mul(1 << 20);
        }
        let scope = PolicyScope::every_call()
            .tools(self.tools.iter().cloned())
            .callers(self.callers.iter().cloned())
            .profiles(self.profiles.iter().cloned());
        let component = PolicyComponent::new(&self.component).scope(scope).limits(limits).reuse_instances(self.reuse);
        builder.policy_component(self.env.iter().fold(component, |component, (name, value)| component.env(name, value)))
    }

    /// Its line in `toolhost config check`'s summary.
    fn summary(&self) -> String {
        let some = |what: &str, names: &[String]| match names {
            [] => format!("every {what}"),
            names => format!("{what}s [{}]", names.join(", ")),
        };
        let profiles = match self.profiles.as_slice() {
            [] => String::new(),
            names => format!(" in profiles [{}]", names.join(", ")),
        };
        format!(
            "policy: {} for {} and {}{profiles}{}",
            self.component.display(),
            some("tool", &self.tools),
            some("caller", &self.callers),
            if self.reuse { ", its instances reused" } else { "" }
        )
    }
}

/// `[profiles.NAME]`: a named toolset (see `toolhost::Profile`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ProfileConfig {
    /// Tool name patterns.
    pub(crate) tools: Vec<String>,
    /// Show the profile's tools through a finder, listing these beside it.
    pub(crate) disclose: Option<Vec<String>>,
}

impl HttpConfig {
    /// The store's line of a summary: how it is reached, never its address (it may
    /// hold a password).
    fn store_summary(&self) -> Option<String> {
        let store = self.store.as_ref()?;
        let tls = match (store.starts_with("rediss://"), &self.store_ca, &self.store_cert) {
            (false, ..) => String::new(),
            (true, ca, cert) => format!(
                ", over TLS trusting {}{}",
                ca.as_ref().map_or("the system's authorities".into(), |ca| ca.display().to_string()),
                cert.as_ref().map_or(String::new(), |cert| format!(", showing {}", cert.display())),
            ),
        };
        Some(format!("store: shared with the other replicas{tls} (its address is not shown: it may hold a password)"))
    }
}

impl Config {
    /// The profiles, each checked: its name and patterns.
    pub(crate) fn profiles(&self) -> anyhow::Result<BTreeMap<String, Profile>> {
        let mut profiles = BTreeMap::new();
        for (name, written) in &self.profiles {
            if !Profile::valid_name(name) {
                bail!("[profiles.{name}]: a profile's name is its path (/mcp/NAME): use letters, digits, '_' and '-'");
            }
            let mut profile =
                Profile::new(&written.tools).with_context(|| format!("[profiles.{name}] tools"))?.named(name);
            if let Some(core) = &written.disclose {
                profile =
                    profile.disclosing(Disclosure::new(core).with_context(|| format!("[profiles.{name}] disclose"))?);
            }
            profiles.insert(name.clone(), profile);
        }
        Ok(profiles)
    }
}

/// `[disclosure]`: which tools clients are shown (see `toolhost::Disclosure`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DisclosureConfig {
    /// Tool name patterns listed beside the finder.
    #[serde(default)]
    pub(crate) core: Vec<String>,
    /// The finder's name (`find_tools` unless given).
    pub(crate) finder: Option<String>,
    /// A caller's name (`call_tool` is the usual), for clients that call only the tools listed.
    pub(crate) caller: Option<String>,
}

impl DisclosureConfig {
    /// The disclosure it describes; a pattern that does not read is an error naming it.
    pub(crate) fn disclosure(&self) -> anyhow::Result<Disclosure> {
        let mut disclosure = Disclosure::new(&self.core).context("[disclosure] core")?;
        if let Some(name) = &self.finder {
            disclosure = disclosure.finder_name(name);
        }
        if let Some(name) = &self.caller {
            disclosure = disclosure.caller(name);
        }
        Ok(disclosure)
    }
}

/// `compiler = "NAME"`: a compiler by the name the command line takes.
fn compiler_named<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Compiler>, D::Error> {
    let name = String::deserialize(deserializer)?;
    name.parse().map(Some).map_err(serde::de::Error::custom)
}

/// `[metrics]`: Prometheus metrics, on an address of their own.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct MetricsConfig {
    pub(crate) address: Option<SocketAddr>,
}

/// `[tracing]`: OpenTelemetry spans, exported over OTLP.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TracingConfig {
    pub(crate) otlp_endpoint: Option<String>,
}

/// `[auth]`: OAuth access tokens from an issuer, and static tokens by name.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AuthConfig {
    pub(crate) issuer: Option<String>,
    pub(crate) resource: Option<String>,
    pub(crate) jwks_uri: Option<String>,
    #[serde(default)]
    pub(crate) scopes: Vec<String>,
    pub(crate) leeway_seconds: Option<u64>,
    /// `[auth.tokens]`: a name = `"${VARIABLE}"` or `{ file = "PATH" }`.
    #[serde(default)]
    pub(crate) tokens: std::collections::BTreeMap<String, Secret>,
}

/// Where a secret is: a variable (`"${NAME}"`), or a file.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(crate) enum Secret {
    Variable(String),
    File { file: PathBuf },
}

impl Secret {
    /// The value, read now from its variable or file (surrounding whitespace dropped).
    fn read(&self) -> anyhow::Result<String> {
        match self {
            Secret::Variable(written) => variable(written),
            Secret::File { file } => std::fs::read_to_string(file)
                .with_context(|| format!("cannot read {}", file.display()))
                .map(|value| value.trim().to_string()),
        }
    }
}

/// `[rate_limits]`: per caller, calls of each tool and HTTP requests, a minute.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RateLimitConfig {
    pub(crate) calls_per_minute: Option<u32>,
    pub(crate) requests_per_minute: Option<u32>,
    /// `[rate_limits.tools]`: a tool's registered name = its calls a minute.
    #[serde(default)]
    pub(crate) tools: std::collections::BTreeMap<String, u32>,
}

/// `[audit]`: the audit log, a JSON line per call.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AuditConfig {
    /// Where (`"-"`: stderr).
    pub(crate) file: Option<PathBuf>,
    /// Whether the lines carry the arguments (secrets redacted).
    pub(crate) arguments: Option<bool>,
}

/// `[capacity]`: calls at once and waiting.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CapacityConfig {
    pub(crate) max_concurrent_calls: Option<usize>,
    pub(crate) max_queued_calls: Option<usize>,
    pub(crate) queue_timeout_ms: Option<u64>,
}

/// `[http]`: serving over streamable HTTP, and its guards.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct HttpConfig {
    pub(crate) address: Option<SocketAddr>,
    /// The bearer token, as `"${VARIABLE}"`: read from the environment at load.
    pub(crate) token: Option<String>,
    pub(crate) token_file: Option<PathBuf>,
    pub(crate) allow_unauthenticated: Option<bool>,
    #[serde(default)]
    pub(crate) allow_origins: Vec<String>,
    #[serde(default)]
    pub(crate) allow_hosts: Vec<String>,
    pub(crate) max_body_bytes: Option<usize>,
    pub(crate) max_concurrent_requests: Option<usize>,
    pub(crate) max_queued_requests: Option<usize>,
    pub(crate) max_connections: Option<usize>,
    pub(crate) max_connections_per_address: Option<usize>,
    pub(crate) io_timeout_ms: Option<u64>,
    pub(crate) shutdown_timeout_ms: Option<u64>,
    pub(crate) drain_ms: Option<u64>,
    pub(crate) tasks_after_ms: Option<u64>,
    /// `false`: never answer a call with a task.
    pub(crate) tasks: Option<bool>,
    pub(crate) poll_after_ms: Option<u64>,
    pub(crate) sse_retry_ms: Option<u64>,
    /// The store shared with other replicas: its address, or `"${VARIABLE}"` naming
    /// where it is (an address may hold a password).
    pub(crate) store: Option<String>,
    /// Serve the console at `/console`.
    pub(crate) console: Option<bool>,
    /// A `rediss://` store's authorities, client certificate and its key (PEM files).
    pub(crate) store_ca: Option<PathBuf>,
    pub(crate) store_cert: Option<PathBuf>,
    pub(crate) store_key: Option<PathBuf>,
}

impl Config {
    /// Reads and checks `file`: its keys, its secrets' variables and files.
    pub(crate) fn load(file: &Path) -> anyhow::Result<Config> {
        let text = std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
        let mut config: Config =
            toml::from_str(&text).with_context(|| format!("{} is not a valid config", file.display()))?;
        let folder = file.parent().unwrap_or(Path::new("."));
        config.resolve_paths(folder);
        config.http.token = match &config.http.token {
            Some(written) => Some(variable(written).with_context(|| format!("{}: [http] token", file.display()))?),
            None => None,
        };
        config.http.store = match &config.http.store {
            Some(written) if written.starts_with("${") => {
                Some(variable(written).with_context(|| format!("{}: [http] store", file.display()))?)
            }
            other => other.clone(),
        };
        if config.http.token.is_some() && config.http.token_file.is_some() {
            bail!("{}: [http] has both token and token_file: keep one", file.display());
        }
        if config.http.store_cert.is_some() != config.http.store_key.is_some() {
            bail!("{}: [http] store_cert and store_key go together: give both or neither", file.display());
        }
        if config.http.tasks == Some(false) && config.http.tasks_after_ms.is_some() {
            bail!("{}: [http] tasks = false and tasks_after_ms contradict each other: keep one", file.display());
        }
        config.check_auth().with_context(|| format!("{}: [auth] or [access]", file.display()))?;
        if let Some(disclosure) = &config.disclosure {
            disclosure.disclosure().with_context(|| file.display().to_string())?;
        }
        config.profiles().with_context(|| file.display().to_string())?;
        config.host_settings().with_context(|| file.display().to_string())?;
        for policy in &config.policies {
            if !policy.component.is_file() {
                bail!("{}: [[policy]] component {}: no such file", file.display(), policy.component.display());
            }
            if let Some(unknown) = policy.profiles.iter().find(|name| !config.profiles.contains_key(*name)) {
                let defined: Vec<&str> = config.profiles.keys().map(String::as_str).collect();
                bail!(
                    "{}: [[policy]] {}: no profile '{unknown}' (the [profiles] define {})",
                    file.display(),
                    policy.component.display(),
                    if defined.is_empty() { "none".to_string() } else { defined.join(", ") }
                );
            }
        }
        Ok(config)
    }

    /// What the file adds to the host (see [`HostSettings`]), its secrets read now.
    pub(crate) fn host_settings(&self) -> anyhow::Result<HostSettings> {
        let mut secrets = Vec::new();
        for (component, named) in &self.secrets {
            for (name, secret) in named {
                let value = secret.read().with_context(|| format!("[secrets.{component}] {name}"))?;
                secrets.push((component.clone(), name.clone(), value));
            }
        }
        Ok(HostSettings { policies: self.policies.clone(), approval: self.approval.clone(), secrets })
    }

    /// The static tokens by name, each read from its variable or file.
    pub(crate) fn named_tokens(&self) -> anyhow::Result<std::collections::BTreeMap<String, String>> {
        let read = |(name, secret): (&String, &Secret)| {
            Ok((name.clone(), secret.read().with_context(|| format!("the token '{name}'"))?))
        };
        self.auth.tokens.iter().map(read).collect()
    }

    /// The OAuth settings, if `[auth]` names an issuer.
    pub(crate) fn oauth(&self) -> anyhow::Result<Option<OAuthOptions>> {
        let auth = &self.auth;
        let (issuer, resource) = match (&auth.issuer, &auth.resource) {
            (Some(issuer), Some(resource)) => (issuer, resource),
            (None, None) if auth.jwks_uri.is_none() && auth.scopes.is_empty() && auth.leeway_seconds.is_none() => {
                return Ok(None);
            }
            _ => bail!("OAuth needs both issuer (the authorization server) and resource (this server's URI)"),
        };
        let mut options = OAuthOptions::new(issuer, resource);
        options.jwks_uri.clone_from(&auth.jwks_uri);
        options.scopes.clone_from(&auth.scopes);
        options.leeway = auth.leeway_seconds.map_or(options.leeway, std::time::Duration::from_secs);
        Ok(Some(options))
    }

    /// Which tools each grant opens, if `[access]` is there.
    pub(crate) fn access(&self) -> anyhow::Result<Option<Access>> {
        let Some(grants) = &self.access else { return Ok(None) };
        let mut access = Access::new();
        for (grant, tools) in grants {
            access = access.grant(grant, tools).with_context(|| format!("[access] {grant}"))?;
        }
        Ok(Some(access))
    }

    /// Fails on settings no server could start with: half an issuer, an unreadable
    /// token, a pattern that is none, an issuer that is not https.
    fn check_auth(&self) -> anyhow::Result<()> {
        let mut options = toolhost::mcp::http::HttpOptions::new(([127, 0, 0, 1], 0).into());
        options.named_tokens = self.named_tokens()?;
        options.oauth = self.oauth()?;
        self.access()?;
        options.check()?;
        Ok(())
    }

    fn resolve_paths(&mut self, folder: &Path) {
        let http = &mut self.http;
        let paths = [&mut self.plugins, &mut self.shared_cache, &mut http.token_file, &mut self.audit.file];
        let store_files = [&mut http.store_ca, &mut http.store_cert, &mut http.store_key];
        let secrets =
            self.auth.tokens.values_mut().chain(self.secrets.values_mut().flat_map(|named| named.values_mut()));
        let token_files = secrets.filter_map(|secret| match secret {
            Secret::File { file } => Some(file),
            Secret::Variable(_) => None,
        });
        let policies = self.policies.iter_mut().map(|policy| &mut policy.component);
        for path in paths.into_iter().chain(store_files).flatten().chain(token_files).chain(policies) {
            if path.is_relative() && path.as_os_str() != "-" {
                *path = folder.join(&*path);
            }
        }
    }

    /// What `toolhost config check` prints: the settings the file makes, secrets
    /// named by where they come from.
    pub(crate) fn summary(&self) -> String {
        let mut lines = Vec::new();
        let path = |p: &Option<PathBuf>| p.as_ref().map_or("(the default)".to_string(), |p| p.display().to_string());
        lines.push(format!("plugins: {}", path(&self.plugins)));
        if self.shared_cache.is_some() {
            lines.push(format!("shared cache: {}", path(&self.shared_cache)));
        }
        lines.push(format!("watch: {}", self.watch.unwrap_or(false)));
        lines.push(format!("compiler: {}", self.compiler.unwrap_or_default()));
        let http = &self.http;
        match http.address {
            Some(address) => {
                let token = match (&http.token, &http.token_file) {
                    (Some(_), _) => "from its variable".to_string(),
                    (None, Some(file)) => format!("from {}", file.display()),
                    (None, None) => "none".to_string(),
                };
                lines.push(format!("http: {address}, token {token}"));
            }
            None => lines.push("http: off (stdio)".to_string()),
        }
        lines.extend(http.store_summary());
        if http.console == Some(true) {
            lines.push("console: at /console, behind the same access as /mcp".into());
        }
        if let Some(address) = self.metrics.address {
            lines.push(format!("metrics: http://{address}/metrics"));
        }
        if let Some(endpoint) = &self.tracing.otlp_endpoint {
            lines.push(format!("spans: OTLP to {endpoint}"));
        }
        let limits = &self.rate_limits;
        if limits.calls_per_minute.is_some() || limits.requests_per_minute.is_some() || !limits.tools.is_empty() {
            let per = |n: Option<u32>| n.map_or("no limit".to_string(), |n| format!("{n} a minute"));
            let tools = limits.tools.iter().map(|(tool, n)| format!(", {tool} {n} a minute"));
            lines.push(format!(
                "rate limits per caller: calls of a tool {}{}; requests {}",
                per(limits.calls_per_minute),
                tools.collect::<String>(),
                per(limits.requests_per_minute)
            ));
        }
        if let Some(file) = &self.audit.file {
            let arguments = if self.audit.arguments.unwrap_or(false) { ", with arguments" } else { "" };
            lines.push(format!("audit log: {}{arguments}", file.display()));
        }
        if let (Some(issuer), Some(resource)) = (&self.auth.issuer, &self.auth.resource) {
            lines.push(format!("OAuth: tokens from {issuer} for {resource}, scopes needed: {:?}", self.auth.scopes));
        }
        if !self.auth.tokens.is_empty() {
            lines.push(format!("static tokens: {}", self.auth.tokens.keys().cloned().collect::<Vec<_>>().join(", ")));
        }
        for (grant, tools) in self.access.iter().flatten() {
            lines.push(format!("access: {grant} -> {}", tools.join(", ")));
        }
        lines.extend(self.shown_summary());
        lines.extend(self.host_settings_summary());
        lines.join("\n")
    }
}

impl Config {
    /// The lines of [`Config::summary`] on the policies, the approval and the secrets
    /// (named by where they come from, never shown).
    fn host_settings_summary(&self) -> Vec<String> {
        let mut lines: Vec<String> = self.policies.iter().map(PolicyConfig::summary).collect();
        if let Some(approval) = &self.approval {
            let destructive = if approval.destructive { "tools that may destroy something, " } else { "" };
            lines.push(format!("approval by a person: {destructive}tools [{}]", approval.tools.join(", ")));
        }
        for (component, named) in &self.secrets {
            let names: Vec<String> = named
                .iter()
                .map(|(name, secret)| match secret {
                    Secret::Variable(_) => format!("{name} (from its variable)"),
                    Secret::File { file } => format!("{name} (from {})", file.display()),
                })
                .collect();
            lines.push(format!("secrets of {component}: {}", names.join(", ")));
        }
        lines
    }

    /// The lines of [`Config::summary`] on which tools clients are shown.
    fn shown_summary(&self) -> Vec<String> {
        let mut lines = Vec::new();
        if let Some(disclosure) = &self.disclosure {
            let finder = disclosure.finder.as_deref().unwrap_or(toolhost::FINDER_NAME);
            let caller = disclosure.caller.as_ref().map(|caller| format!(", {caller}")).unwrap_or_default();
            lines.push(format!("listed: {finder}{caller} and the tools matching [{}]", disclosure.core.join(", ")));
        }
        for (name, profile) in &self.profiles {
            let shown = profile.disclose.as_ref().map(|core| format!(", listing find_tools and [{}]", core.join(", ")));
            lines.push(format!(
                "profile {name} (/mcp/{name}): [{}]{}",
                profile.tools.join(", "),
                shown.unwrap_or_default()
            ));
        }
        lines
    }
}

/// The secret `"${VARIABLE}"` names, read now; a secret written out is refused.
fn variable(written: &str) -> anyhow::Result<String> {
    let Some(variable) = written.strip_prefix("${").and_then(|rest| rest.strip_suffix('}')) else {
        bail!("a secret is not written in the config: name its variable (\"${{TOOLHOST_TOKEN}}\") or a file");
    };
    let value = std::env::var(variable).with_context(|| format!("the variable {variable} is not set"))?;
    if value.trim().is_empty() {
        bail!("the variable {variable} is empty");
    }
    Ok(value.trim().to_string())
}

/// What `toolhost serve` was given on its command line and in its environment, which
/// a config file fills in where they left a setting unset.
pub(crate) struct ServeSettings<'a> {
    pub(crate) plugins: &'a mut crate::Plugins,
    /// Whether the plugin folder came from a flag or TOOLHOST_PLUGINS (not the default).
    pub(crate) plugins_given: bool,
    pub(crate) watch: &'a mut bool,
    pub(crate) capacity: &'a mut crate::CapacityArgs,
    pub(crate) http: &'a mut crate::serve::HttpArgs,
    pub(crate) audit: &'a mut crate::serve::AuditArgs,
    pub(crate) rate_limits: &'a mut crate::serve::RateLimitArgs,
}

impl Config {
    /// Fills in `settings` where the flags and variables left a setting unset.
    pub(crate) fn apply(self, settings: ServeSettings<'_>) {
        let ServeSettings { plugins, plugins_given, watch, capacity, http, audit, rate_limits } = settings;
        rate_limits.calls_per_minute = rate_limits.calls_per_minute.or(self.rate_limits.calls_per_minute);
        rate_limits.requests_per_minute = rate_limits.requests_per_minute.or(self.rate_limits.requests_per_minute);
        rate_limits.tool_calls_per_minute = self.rate_limits.tools;
        audit.audit_log = audit.audit_log.take().or(self.audit.file);
        audit.audit_arguments = audit.audit_arguments || self.audit.arguments.unwrap_or(false);
        audit.otlp_endpoint = audit.otlp_endpoint.take().or(self.tracing.otlp_endpoint);
        if let (false, Some(folder)) = (plugins_given, self.plugins) {
            plugins.plugins = folder;
        }
        plugins.shared_cache = plugins.shared_cache.take().or(self.shared_cache);
        plugins.compiler = plugins.compiler.or(self.compiler);
        *watch = *watch || self.watch.unwrap_or(false);
        let file = self.capacity;
        capacity.max_concurrent_calls = capacity.max_concurrent_calls.or(file.max_concurrent_calls);
        capacity.max_queued_calls = capacity.max_queued_calls.or(file.max_queued_calls);
        capacity.queue_timeout_ms = capacity.queue_timeout_ms.or(file.queue_timeout_ms);
        http.metrics_addr = http.metrics_addr.or(self.metrics.address);
        apply_http(self.http, http);
    }

    /// Fills in which tools clients are shown: `[disclosure]` unless `--disclose` was
    /// given, and `[profiles]` (which have no flags).
    pub(crate) fn apply_shown(&self, shown: &mut crate::serve::Shown) -> anyhow::Result<()> {
        if shown.disclosure.is_none() {
            shown.disclosure = self.disclosure.as_ref().map(DisclosureConfig::disclosure).transpose()?;
        }
        shown.profiles = self.profiles()?;
        Ok(())
    }

    /// Hands `[auth]` and `[access]` to the HTTP settings (they have no flags).
    pub(crate) fn apply_auth(&self, http: &mut crate::serve::HttpArgs) -> anyhow::Result<()> {
        http.named_tokens = self.named_tokens()?;
        http.oauth = self.oauth()?;
        http.access = self.access()?.map(std::sync::Arc::new);
        Ok(())
    }
}

fn apply_http(file: HttpConfig, http: &mut crate::serve::HttpArgs) {
    http.http = http.http.or(file.address);
    // A token from a flag or TOOLHOST_TOKEN wins over the file's, whichever way given.
    if http.token_file.is_none() && std::env::var_os("TOOLHOST_TOKEN").is_none() {
        http.token_file = file.token_file;
        http.configured_token = file.token;
    }
    http.allow_unauthenticated = http.allow_unauthenticated || file.allow_unauthenticated.unwrap_or(false);
    if http.allow_origin.is_empty() {
        http.allow_origin = file.allow_origins;
    }
    if http.allow_host.is_empty() {
        http.allow_host = file.allow_hosts;
    }
    http.max_body_bytes = http.max_body_bytes.or(file.max_body_bytes);
    http.max_concurrent_requests = http.max_concurrent_requests.or(file.max_concurrent_requests);
    http.max_queued_requests = http.max_queued_requests.or(file.max_queued_requests);
    http.max_connections = http.max_connections.or(file.max_connections);
    http.max_connections_per_address = http.max_connections_per_address.or(file.max_connections_per_address);
    http.io_timeout_ms = http.io_timeout_ms.or(file.io_timeout_ms);
    http.shutdown_timeout_ms = http.shutdown_timeout_ms.or(file.shutdown_timeout_ms);
    http.drain_ms = http.drain_ms.or(file.drain_ms);
    http.poll_after_ms = http.poll_after_ms.or(file.poll_after_ms);
    http.sse_retry_ms = http.sse_retry_ms.or(file.sse_retry_ms);
    http.store = http.store.take().or(file.store);
    http.console = http.console || file.console.unwrap_or(false);
    http.store_ca = http.store_ca.take().or(file.store_ca);
    if http.store_cert.is_none() {
        (http.store_cert, http.store_key) = (file.store_cert, file.store_key);
    }
    // A flag's choice about tasks (either one) wins over the file's.
    if http.tasks_after_ms.is_none() && !http.no_tasks {
        http.tasks_after_ms = file.tasks_after_ms;
        http.no_tasks = file.tasks == Some(false);
    }
}

//! A `NAME.mcp.toml` file: how to start (stdio) or reach (streamable HTTP) one MCP
//! server, what of the host's environment it gets, and which of its tools are shown.
//!
//! ```toml
//! command = ["npx", "-y", "@modelcontextprotocol/server-everything"]
//! env = { LOG_LEVEL = "warn" }     # only these reach it, and PATH
//! cwd = "."                        # relative to this file
//! # or: url = "https://tools.example.com/mcp", headers = { Authorization = "Bearer ${TOKEN}" }
//! timeout_ms = 30000             # per call (default: the host's time limit)
//! start_timeout_ms = 60000       # to start (or reach) it and list its tools
//! hide = ["dangerous_tool"]
//! exclude = ["delete_*"]           # by pattern (or include = [...]: only these)
//! [tools.search]                   # the same keys as a component's manifest
//! name = "web_search"              # (see load/shaping.rs)
//! description = "…"
//! defaults = { count = 5 }
//! fixed = { safe_search = true }
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::load::SERVER_SUFFIX;
use crate::load::shaping::{Choice, Lines, ToolTable};
use crate::sys::read_regular_file;

/// How long starting a server and listing its tools may take, unless the file says
/// (`npx` may be fetching the package first).
const DEFAULT_START_TIMEOUT: Duration = Duration::from_secs(60);

/// The largest plugin file read: a few lines of TOML.
const MAX_FILE_BYTES: u64 = 1 << 20;

/// The file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    command: Option<Vec<String>>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    cwd: Option<PathBuf>,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    timeout_ms: Option<u64>,
    start_timeout_ms: Option<u64>,
    #[serde(default)]
    hide: Vec<String>,
    #[serde(default)]
    include: Vec<String>,
    #[serde(default)]
    exclude: Vec<String>,
    #[serde(default)]
    tools: BTreeMap<String, ToolTable>,
}

/// How the host talks to the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Transport {
    /// A child process, spoken to on its stdin and stdout.
    Stdio { program: String, args: Vec<String>, env: Vec<(String, String)>, cwd: PathBuf },
    /// A streamable HTTP endpoint.
    Http { url: String, headers: Vec<(String, String)> },
}

/// One server's file, read and checked, with `${VAR}`s filled in.
#[derive(Debug, Clone)]
pub(crate) struct ServerConfig {
    /// The file name without `.mcp.toml`: the component name its tools are listed under.
    pub(crate) name: String,
    pub(crate) transport: Transport,
    /// The longest a call may take; the host's time limit when unset.
    pub(crate) timeout: Option<Duration>,
    /// The longest starting (or reaching) it and listing its tools may take.
    pub(crate) start_timeout: Duration,
    /// Tools not to show, by the server's names for them.
    pub(crate) hide: Vec<String>,
    /// Which tools are served, by pattern.
    pub(crate) choice: Choice,
    /// Descriptions, titles and shaping, by the server's tool names.
    pub(crate) tools: BTreeMap<String, ToolTable>,
    /// The file, for errors.
    pub(crate) path: PathBuf,
    /// Where the file writes each tool's table and parameter keys.
    pub(crate) lines: Lines,
}

/// Why a server file cannot be used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ConfigError {
    #[error("cannot read it: {0}")]
    Read(String),
    #[error("not a valid MCP server file: {0}")]
    Toml(String),
    #[error("it must have exactly one of `command` (a server to start) and `url` (a server to reach)")]
    Endpoint,
    #[error("`command` must name the program to start (e.g. [\"npx\", \"-y\", \"@scope/server\"])")]
    EmptyCommand,
    #[error("`{0}` belongs with `command`: a server reached by `url` is not started by the host")]
    NotForUrl(&'static str),
    #[error("`headers` belongs with `url`: a started server is spoken to on its stdin")]
    HeadersWithoutUrl,
    #[error("`url` must start with http:// or https://, not {0:?}")]
    Url(String),
    #[error("`{0}` names the variable {1}, which the host's environment does not set")]
    MissingVariable(String, String),
    #[error("`{0}` has an unfinished `${{` (write a variable as ${{NAME}})")]
    UnfinishedVariable(String),
    #[error("{0}")]
    Choice(String),
}

impl ServerConfig {
    /// Reads and checks the server file at `path`; variables come from `lookup`
    /// (the host's environment: `std::env::var`), never from the plugin folder.
    pub(crate) fn read(path: &Path, lookup: impl Fn(&str) -> Option<String>) -> Result<ServerConfig, ConfigError> {
        let text = read_text(path).map_err(ConfigError::Read)?;
        let file: File = toml::from_str(&text).map_err(|e| ConfigError::Toml(e.message().to_string()))?;
        let folder = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let name =
            path.file_name().and_then(|n| n.to_str()).and_then(|n| n.strip_suffix(SERVER_SUFFIX)).unwrap_or("server");
        let transport = transport(&file, &folder, &lookup)?;
        Ok(ServerConfig {
            name: name.to_string(),
            transport,
            timeout: file.timeout_ms.map(Duration::from_millis),
            start_timeout: file.start_timeout_ms.map_or(DEFAULT_START_TIMEOUT, Duration::from_millis),
            hide: file.hide,
            choice: Choice::new(&file.include, &file.exclude).map_err(ConfigError::Choice)?,
            tools: file.tools,
            path: path.to_path_buf(),
            lines: Lines::of(&text),
        })
    }
}

/// A plugin file's text (a server's or a REST API's: a few lines of TOML), or why it
/// cannot be read.
pub(crate) fn read_text(path: &Path) -> Result<String, String> {
    let bytes = read_regular_file(path, MAX_FILE_BYTES).map_err(|e| e.to_string())?;
    String::from_utf8(bytes).map_err(|_| "it is not UTF-8 text".into())
}

/// How to reach the server, from the file's `command`, `env` and `cwd`, or its `url`
/// and `headers`.
fn transport(file: &File, folder: &Path, lookup: &impl Fn(&str) -> Option<String>) -> Result<Transport, ConfigError> {
    let expand = |field: &str, value: &str| expand(field, value, lookup);
    match (file.command.as_deref(), file.url.as_deref()) {
        (Some(command), None) => {
            if !file.headers.is_empty() {
                return Err(ConfigError::HeadersWithoutUrl);
            }
            let (program, args) =
                command.split_first().filter(|(p, _)| !p.is_empty()).ok_or(ConfigError::EmptyCommand)?;
            let args = args.iter().map(|arg| expand("command", arg)).collect::<Result<_, _>>()?;
            let env = file.env.iter().map(|(k, v)| Ok((k.clone(), expand(&format!("env.{k}"), v)?)));
            let cwd = file.cwd.as_deref().map_or_else(|| folder.to_path_buf(), |cwd| folder.join(cwd));
            Ok(Transport::Stdio {
                program: expand("command", program)?,
                args,
                env: env.collect::<Result<_, _>>()?,
                cwd,
            })
        }
        (None, Some(url)) => {
            if file.cwd.is_some() {
                return Err(ConfigError::NotForUrl("cwd"));
            }
            if !file.env.is_empty() {
                return Err(ConfigError::NotForUrl("env"));
            }
            let url = expand("url", url)?;
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(ConfigError::Url(url));
            }
            let headers = file.headers.iter().map(|(k, v)| Ok((k.clone(), expand(&format!("headers.{k}"), v)?)));
            Ok(Transport::Http { url, headers: headers.collect::<Result<_, _>>()? })
        }
        _ => Err(ConfigError::Endpoint),
    }
}

/// `value` with each `${NAME}` replaced by the host's variable `NAME`; a variable
/// the host does not set is an error rather than an empty string.
pub(crate) fn expand(
    field: &str,
    value: &str,
    lookup: &impl Fn(&str) -> Option<String>,
) -> Result<String, ConfigError> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after.find('}').ok_or_else(|| ConfigError::UnfinishedVariable(field.to_string()))?;
        let name = &after[..end];
        let found = lookup(name).ok_or_else(|| ConfigError::MissingVariable(field.to_string(), name.to_string()))?;
        out.push_str(&found);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<ServerConfig, ConfigError> {
        let folder = tempfile::tempdir().expect("a folder");
        let path = folder.path().join("everything.mcp.toml");
        std::fs::write(&path, text).expect("write");
        let lookup = |name: &str| (name == "TOKEN").then(|| "s3cret".to_string());
        ServerConfig::read(&path, lookup).map(|mut config| {
            if let Transport::Stdio { cwd, .. } = &mut config.transport {
                *cwd = cwd.strip_prefix(folder.path()).map(Path::to_path_buf).unwrap_or_default();
            }
            config
        })
    }

    #[test]
    fn a_stdio_server_file_is_read_with_its_environment_and_tools() {
        let config = read(
            "command = [\"npx\", \"-y\", \"@modelcontextprotocol/server-everything\"]\n\
             env = { LOG_LEVEL = \"warn\", KEY = \"${TOKEN}\" }\ncwd = \"sub\"\ntimeout_ms = 500\n\
             hide = [\"get-env\"]\n[tools.echo]\ndescription = \"Says it back.\"\n",
        )
        .expect("read");
        assert_eq!(config.name, "everything");
        assert_eq!(
            config.transport,
            Transport::Stdio {
                program: "npx".into(),
                args: vec!["-y".into(), "@modelcontextprotocol/server-everything".into()],
                env: vec![("KEY".into(), "s3cret".into()), ("LOG_LEVEL".into(), "warn".into())],
                cwd: PathBuf::from("sub"),
            }
        );
        assert_eq!(config.timeout, Some(Duration::from_millis(500)));
        assert_eq!(config.hide, ["get-env"]);
        assert_eq!(config.tools["echo"].description.as_deref(), Some("Says it back."));
    }

    #[test]
    fn an_http_server_file_fills_its_headers_from_the_hosts_environment() {
        let config =
            read("url = \"https://tools.example.com/mcp\"\nheaders = { Authorization = \"Bearer ${TOKEN}\" }\n");
        let expected = Transport::Http {
            url: "https://tools.example.com/mcp".into(),
            headers: vec![("Authorization".into(), "Bearer s3cret".into())],
        };
        assert_eq!(config.expect("read").transport, expected);
    }

    #[test]
    fn mistakes_are_refused_with_what_to_write() {
        let cases = [
            ("command = [\"x\"]\ncolour = 1\n", "unknown field `colour`"),
            ("", "exactly one of `command`"),
            ("command = [\"x\"]\nurl = \"http://a\"\n", "exactly one of `command`"),
            ("command = []\n", "must name the program"),
            ("url = \"ftp://a\"\n", "must start with http://"),
            ("url = \"http://a\"\ncwd = \".\"\n", "`cwd` belongs with `command`"),
            ("command = [\"x\"]\nheaders = { A = \"b\" }\n", "`headers` belongs with `url`"),
            ("url = \"http://a\"\nheaders = { A = \"${NOPE}\" }\n", "`headers.A` names the variable NOPE"),
            ("command = [\"x\", \"${TOKEN\"]\n", "unfinished `${`"),
        ];
        for (text, words) in cases {
            let error = read(text).expect_err(text).to_string();
            assert!(error.contains(words), "{text:?}: {error}");
        }
    }
}

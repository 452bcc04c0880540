//! A `NAME.openapi.toml` file: which OpenAPI document describes a REST API, where the
//! API is, how to sign its requests, which of its operations are tools, and how
//! they are shaped.
//!
//! ```toml
//! document = "petstore.yaml"           # beside this file; or an https:// URL (pinned in toolhost.lock)
//! base_url = "https://api.example.com/v3"   # else the document's first server
//! timeout_ms = 10000                   # per call (default: the host's time limit)
//! max_response_bytes = 1048576         # the largest answer read (default: the host's result limit)
//! allow_hosts = ["files.example.com"]  # redirects may go there too (the base URL's host always)
//! include = ["tag:pet", "getInventory"]  # by operation id, `tag:NAME`, `/path/*` or `GET /path/*`
//! exclude = ["DELETE /*"]
//!
//! [auth]                               # one of:
//! bearer = "${PETSTORE_TOKEN}"         # or { file = "token.txt" }
//! # api_key = { header = "api_key", value = "${KEY}" }     (or query = "key")
//! # client_credentials = { token_url = "https://login.example.com/token", client_id = "agent",
//! #                        client_secret = { file = "secret.txt" }, scopes = ["pets"] }
//!
//! [tools.getPetById]                   # the keys of a component's manifest (load/shaping.rs)
//! name = "get_pet"
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use globset::{Glob, GlobMatcher};
use serde::Deserialize;

use super::operations::Route;
use crate::load::REST_API_SUFFIX;
use crate::load::shaping::{Lines, ToolTable};
use crate::remote::{expand, read_text};
use crate::sys::read_regular_file;

/// The largest secret file read.
const MAX_SECRET_BYTES: u64 = 1 << 20;

/// The file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    document: String,
    base_url: Option<String>,
    timeout_ms: Option<u64>,
    max_response_bytes: Option<usize>,
    #[serde(default)]
    allow_hosts: Vec<String>,
    #[serde(default)]
    include: Vec<String>,
    #[serde(default)]
    exclude: Vec<String>,
    auth: Option<AuthFile>,
    #[serde(default)]
    tools: BTreeMap<String, ToolTable>,
}

/// `[auth]` as written: one way of signing requests.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AuthFile {
    bearer: Option<Secret>,
    api_key: Option<ApiKeyFile>,
    client_credentials: Option<ClientCredentialsFile>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ApiKeyFile {
    header: Option<String>,
    query: Option<String>,
    value: Secret,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ClientCredentialsFile {
    token_url: String,
    client_id: String,
    client_secret: Secret,
    #[serde(default)]
    scopes: Vec<String>,
}

/// A secret as written: text with `${VARIABLE}`s, or a file holding it.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Secret {
    Text(String),
    File { file: PathBuf },
}

/// Where the OpenAPI document is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DocumentAt {
    /// A file (the path is resolved against the API file's folder).
    File(PathBuf),
    /// An `http(s)://` URL, fetched at load.
    Url(String),
}

/// How requests are signed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Auth {
    /// `Authorization: Bearer TOKEN`.
    Bearer(String),
    /// A key in a header or a query parameter.
    ApiKey { place: KeyPlace, name: String, value: String },
    /// An OAuth access token got with the client credentials grant.
    ClientCredentials { token_url: String, client_id: String, client_secret: String, scopes: Vec<String> },
}

/// Where an API key goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeyPlace {
    Header,
    Query,
}

/// One API file, read and checked, with its secrets filled in.
#[derive(Debug, Clone)]
pub(crate) struct ApiConfig {
    /// The file name without `.openapi.toml`: the name its tools are listed under.
    pub(crate) name: String,
    pub(crate) document: DocumentAt,
    /// The base URL from the file, if it gives one.
    pub(crate) base_url: Option<String>,
    /// The longest a call may take; the host's time limit when unset.
    pub(crate) timeout: Option<Duration>,
    /// The largest answer read; the host's result limit when unset.
    pub(crate) max_response_bytes: Option<usize>,
    /// Hosts besides the base URL's that redirects may lead to.
    pub(crate) allow_hosts: Vec<String>,
    pub(crate) choice: OperationChoice,
    pub(crate) auth: Option<Auth>,
    /// Shaping, by the tools' names as made from the document.
    pub(crate) tools: BTreeMap<String, ToolTable>,
    /// The file, for errors.
    pub(crate) path: PathBuf,
    pub(crate) lines: Lines,
}

/// Why an API file cannot be used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ConfigError {
    #[error("cannot read it: {0}")]
    Read(String),
    #[error("not a valid REST API file: {0}")]
    Toml(String),
    #[error("`{0}` must start with http:// or https://, not {1:?}")]
    Url(&'static str, String),
    #[error("[auth] must say exactly one of `bearer`, `api_key` and `client_credentials`")]
    OneAuth,
    #[error("`api_key` must say exactly one of `header` and `query` (the name the key is sent under)")]
    KeyPlace,
    #[error("cannot read the secret file {0}: {1}")]
    SecretFile(String, String),
    #[error("{0}")]
    Variable(String),
    #[error("`{0}`: '{1}' is not an operation pattern: {2}")]
    Pattern(&'static str, String, String),
}

impl ApiConfig {
    /// Reads and checks the API file at `path`; variables come from `lookup` (the
    /// host's environment), secret files from beside it.
    pub(crate) fn read(path: &Path, lookup: impl Fn(&str) -> Option<String>) -> Result<ApiConfig, ConfigError> {
        let text = read_text(path).map_err(ConfigError::Read)?;
        let file: File = toml::from_str(&text).map_err(|e| ConfigError::Toml(e.message().to_string()))?;
        let folder = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let name =
            path.file_name().and_then(|n| n.to_str()).and_then(|n| n.strip_suffix(REST_API_SUFFIX)).unwrap_or("api");
        let fill =
            |field: &str, value: &str| expand(field, value, &lookup).map_err(|e| ConfigError::Variable(e.to_string()));
        let document = fill("document", &file.document)?;
        let document = if document.contains("://") {
            DocumentAt::Url(web_url("document", document)?)
        } else {
            DocumentAt::File(folder.join(document))
        };
        let base_url = file.base_url.as_deref().map(|url| fill("base_url", url)).transpose()?;
        let secret = |field: &str, secret: &Secret| match secret {
            Secret::Text(text) => fill(field, text),
            Secret::File { file } => read_secret_file(&folder.join(file)),
        };
        let auth = file.auth.as_ref().map(|auth| read_auth(auth, &secret)).transpose()?;
        Ok(ApiConfig {
            name: name.to_string(),
            document,
            base_url: base_url.map(|url| web_url("base_url", url)).transpose()?,
            timeout: file.timeout_ms.map(Duration::from_millis),
            max_response_bytes: file.max_response_bytes,
            allow_hosts: file.allow_hosts,
            choice: OperationChoice::new(&file.include, &file.exclude)?,
            auth,
            tools: file.tools,
            path: path.to_path_buf(),
            lines: Lines::of(&text),
        })
    }
}

/// `[auth]`, its secrets read by `secret`.
fn read_auth(
    auth: &AuthFile,
    secret: &impl Fn(&str, &Secret) -> Result<String, ConfigError>,
) -> Result<Auth, ConfigError> {
    match (&auth.bearer, &auth.api_key, &auth.client_credentials) {
        (Some(token), None, None) => Ok(Auth::Bearer(secret("auth.bearer", token)?)),
        (None, Some(key), None) => {
            let (place, name) = match (&key.header, &key.query) {
                (Some(header), None) => (KeyPlace::Header, header.clone()),
                (None, Some(query)) => (KeyPlace::Query, query.clone()),
                _ => return Err(ConfigError::KeyPlace),
            };
            Ok(Auth::ApiKey { place, name, value: secret("auth.api_key.value", &key.value)? })
        }
        (None, None, Some(grant)) => Ok(Auth::ClientCredentials {
            token_url: web_url("auth.client_credentials.token_url", grant.token_url.clone())?,
            client_id: grant.client_id.clone(),
            client_secret: secret("auth.client_credentials.client_secret", &grant.client_secret)?,
            scopes: grant.scopes.clone(),
        }),
        _ => Err(ConfigError::OneAuth),
    }
}

/// A secret file's content, surrounding whitespace dropped.
fn read_secret_file(path: &Path) -> Result<String, ConfigError> {
    let bytes = read_regular_file(path, MAX_SECRET_BYTES)
        .map_err(|e| ConfigError::SecretFile(path.display().to_string(), e.to_string()))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| ConfigError::SecretFile(path.display().to_string(), "it is not UTF-8 text".into()))?;
    Ok(text.trim().to_string())
}

/// `url` if it is an http or https URL.
fn web_url(field: &'static str, url: String) -> Result<String, ConfigError> {
    if url.starts_with("http://") || url.starts_with("https://") { Ok(url) } else { Err(ConfigError::Url(field, url)) }
}

/// One `include` or `exclude` entry.
#[derive(Debug, Clone)]
enum Pattern {
    /// `tag:NAME`: the operations with a tag that matches.
    Tag(GlobMatcher),
    /// `/path/*` or `GET /path/*`: by path, and method when given.
    Path(Option<String>, GlobMatcher),
    /// Anything else: the operation id or the tool's name.
    Name(GlobMatcher),
}

/// `include` and `exclude`: which operations are tools.
#[derive(Debug, Clone, Default)]
pub(crate) struct OperationChoice {
    include: Vec<Pattern>,
    exclude: Vec<Pattern>,
}

impl OperationChoice {
    /// The patterns as written; one that does not read is an error naming it.
    fn new(include: &[String], exclude: &[String]) -> Result<OperationChoice, ConfigError> {
        let read = |key: &'static str, patterns: &[String]| -> Result<Vec<Pattern>, ConfigError> {
            patterns
                .iter()
                .map(|written| Pattern::read(written).map_err(|why| ConfigError::Pattern(key, written.clone(), why)))
                .collect()
        };
        Ok(OperationChoice { include: read("include", include)?, exclude: read("exclude", exclude)? })
    }

    /// Whether the operation `route` is served (if it can be a tool).
    pub(crate) fn serves(&self, keys: &Route) -> bool {
        (self.include.is_empty() || self.include.iter().any(|p| p.matches(keys)))
            && !self.exclude.iter().any(|p| p.matches(keys))
    }
}

impl Pattern {
    fn read(written: &str) -> Result<Pattern, String> {
        let glob = |text: &str| Glob::new(text).map(|glob| glob.compile_matcher()).map_err(|e| e.kind().to_string());
        if let Some(tag) = written.strip_prefix("tag:") {
            return Ok(Pattern::Tag(glob(tag.trim())?));
        }
        if written.starts_with('/') {
            return Ok(Pattern::Path(None, glob(written)?));
        }
        if let Some((method, path)) = written.split_once(' ')
            && path.trim_start().starts_with('/')
        {
            return Ok(Pattern::Path(Some(method.to_ascii_uppercase()), glob(path.trim_start())?));
        }
        Ok(Pattern::Name(glob(written)?))
    }

    fn matches(&self, keys: &Route) -> bool {
        match self {
            Pattern::Tag(tag) => keys.tags.iter().any(|t| tag.is_match(t)),
            Pattern::Path(method, path) => {
                method.as_deref().is_none_or(|m| m.eq_ignore_ascii_case(&keys.method)) && path.is_match(&keys.path)
            }
            Pattern::Name(name) => {
                name.is_match(&keys.name) || keys.operation_id.as_ref().is_some_and(|id| name.is_match(id))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<ApiConfig, ConfigError> {
        let folder = tempfile::tempdir().expect("a folder");
        let path = folder.path().join("petstore.openapi.toml");
        std::fs::write(&path, text).expect("write");
        std::fs::write(folder.path().join("token.txt"), "  from-a-file\n").expect("write");
        let lookup = |name: &str| (name == "TOKEN").then(|| "s3cret".to_string());
        ApiConfig::read(&path, lookup)
    }

    #[test]
    fn a_file_is_read_with_its_secrets_from_the_environment_or_a_file() {
        let config = read(
            "document = \"petstore.yaml\"\nbase_url = \"http://127.0.0.1:4010\"\ntimeout_ms = 500\n\
             [auth]\napi_key = { header = \"api_key\", value = \"${TOKEN}\" }\n",
        )
        .expect("read");
        assert_eq!(config.name, "petstore");
        assert!(matches!(&config.document, DocumentAt::File(path) if path.ends_with("petstore.yaml")));
        assert_eq!(config.timeout, Some(Duration::from_millis(500)));
        let expected = Auth::ApiKey { place: KeyPlace::Header, name: "api_key".into(), value: "s3cret".into() };
        assert_eq!(config.auth, Some(expected));
        let config = read("document = \"https://x.example/openapi.json\"\n[auth]\nbearer = { file = \"token.txt\" }\n")
            .expect("read");
        assert_eq!(config.document, DocumentAt::Url("https://x.example/openapi.json".into()));
        assert_eq!(config.auth, Some(Auth::Bearer("from-a-file".into())));
    }

    #[test]
    fn operations_are_chosen_by_id_tag_path_and_method() {
        let config = read(
            "document = \"a.json\"\ninclude = [\"tag:pe*\", \"getInventory\", \"/store/*\"]\nexclude = [\"DELETE /*\"]\n",
        )
        .expect("read");
        let keys = |name: &str, method: &str, path: &str, tags: &[&str]| Route {
            name: name.to_string(),
            operation_id: Some(name.to_string()),
            method: method.to_string(),
            path: path.to_string(),
            tags: tags.iter().map(|t| (*t).to_string()).collect(),
        };
        let pet = &["pet"];
        assert!(config.choice.serves(&keys("getPetById", "GET", "/pet/{petId}", pet)));
        assert!(!config.choice.serves(&keys("deletePet", "DELETE", "/pet/{petId}", pet)));
        assert!(config.choice.serves(&keys("getInventory", "GET", "/inventory", &[])));
        assert!(config.choice.serves(&keys("placeOrder", "POST", "/store/order", &[])));
        assert!(!config.choice.serves(&keys("loginUser", "GET", "/user/login", &[])));
    }

    #[test]
    fn mistakes_are_refused_with_what_to_write() {
        let cases = [
            ("document = \"a.json\"\ncolour = 1\n", "unknown field `colour`"),
            ("base_url = \"http://a\"\n", "missing field `document`"),
            ("document = \"a.json\"\nbase_url = \"ftp://a\"\n", "`base_url` must start with http://"),
            ("document = \"a.json\"\n[auth]\nbearer = \"${NOPE}\"\n", "names the variable NOPE"),
            ("document = \"a.json\"\n[auth]\n", "exactly one of `bearer`"),
            ("document = \"a.json\"\n[auth]\napi_key = { value = \"k\" }\n", "one of `header` and `query`"),
            ("document = \"a.json\"\n[auth]\nbearer = { file = \"missing.txt\" }\n", "cannot read the secret file"),
            ("document = \"a.json\"\ninclude = [\"get[\"]\n", "`include`: 'get[' is not an operation pattern"),
        ];
        for (text, words) in cases {
            let error = read(text).expect_err(text).to_string();
            assert!(error.contains(words), "{text:?}: {error}");
        }
    }
}

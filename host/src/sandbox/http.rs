//! Which hosts a component may send HTTP requests to, and the `wasi:http` hooks that
//! hold every request to that list.
//!
//! Outgoing HTTP goes through `wasi:http` and is checked against the component's
//! allow list ([`HttpHostPattern`]s from its manifest); a denied request is recorded in
//! the call's [`Denials`] so the model hears which host was denied.

use std::fmt;
use std::sync::Arc;

use serde::Deserialize;
use wasmtime_wasi_http::{WasiBody, WasiHttpHooks};

use super::denials::Denials;

/// A host an HTTP request may go to: `api.example.com`, `*.example.com` (any
/// subdomain, not the bare domain) or either with a `:port`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub struct HttpHostPattern {
    /// The host name or address, lower-case; for a wildcard, the part after `*.`.
    host: String,
    /// Whether subdomains of `host` match instead of `host` itself.
    wildcard: bool,
    /// The one port allowed, or any port when `None`.
    port: Option<u16>,
}

impl HttpHostPattern {
    /// Reads a pattern such as `api.example.com`, `*.example.com:443` or `127.0.0.1`.
    ///
    /// # Errors
    /// When `text` is not a host pattern; the message says what to write.
    pub fn parse(text: &str) -> Result<HttpHostPattern, HttpHostPatternError> {
        let error = |hint| HttpHostPatternError { pattern: text.to_string(), hint };
        let (host, port) = split_port(text.trim()).ok_or_else(|| error(BAD_PORT))?;
        let (host, wildcard) = match host.strip_prefix("*.") {
            Some(rest) => (rest, true),
            None => (host, false),
        };
        let valid =
            !host.is_empty() && host.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ':'));
        if !valid {
            return Err(error(WHAT_TO_WRITE));
        }
        Ok(HttpHostPattern { host: host.to_ascii_lowercase(), wildcard, port })
    }

    /// Whether a request to `host` (without brackets) on `port` is allowed by this pattern.
    pub fn matches(&self, host: &str, port: Option<u16>) -> bool {
        let host = host.trim_start_matches('[').trim_end_matches(']').to_ascii_lowercase();
        let host_ok = if self.wildcard {
            host.strip_suffix(&self.host).is_some_and(|prefix| prefix.len() > 1 && prefix.ends_with('.'))
        } else {
            host == self.host
        };
        host_ok && self.port.is_none_or(|allowed| port == Some(allowed))
    }
}

impl TryFrom<String> for HttpHostPattern {
    type Error = HttpHostPatternError;

    fn try_from(text: String) -> Result<HttpHostPattern, HttpHostPatternError> {
        HttpHostPattern::parse(&text)
    }
}

/// Text that is not a [`HttpHostPattern`], with what to write instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{pattern}' is not a host pattern: {hint}")]
pub struct HttpHostPatternError {
    /// The text as given.
    pub pattern: String,
    /// What is wrong with it, or what to write.
    pub hint: &'static str,
}

const BAD_PORT: &str = "the port must be a number from 0 to 65535";
const WHAT_TO_WRITE: &str =
    "write a host name ('api.example.com'), a wildcard ('*.example.com') or an address, optionally with ':port'";

/// Splits `host[:port]` (IPv6 in brackets: `[::1]:8080`); `None` when the port is not a number.
fn split_port(text: &str) -> Option<(&str, Option<u16>)> {
    if let Some(rest) = text.strip_prefix('[') {
        let (host, after) = rest.split_once(']')?;
        return match after.strip_prefix(':') {
            Some(port) => Some((host, Some(port.parse().ok()?))),
            None if after.is_empty() => Some((host, None)),
            None => None,
        };
    }
    match text.rsplit_once(':') {
        // More than one colon and no brackets: a bare IPv6 address, no port.
        Some((host, _)) if host.contains(':') => Some((text, None)),
        Some((host, port)) => Some((host, Some(port.parse().ok()?))),
        None => Some((text, None)),
    }
}

impl fmt::Display for HttpHostPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let star = if self.wildcard { "*." } else { "" };
        match self.port {
            Some(port) => write!(f, "{star}{}:{port}", self.host),
            None => write!(f, "{star}{}", self.host),
        }
    }
}

/// The `wasi:http` hooks for a call: requests to allowed hosts are sent, others denied
/// with `HTTP-request-denied` and recorded.
pub(crate) struct HttpPolicy {
    allowed: Arc<[HttpHostPattern]>,
    denials: Denials,
}

impl HttpPolicy {
    /// A policy allowing exactly `allowed`, recording denials in `denials`.
    pub(crate) fn new(allowed: Arc<[HttpHostPattern]>, denials: Denials) -> HttpPolicy {
        HttpPolicy { allowed, denials }
    }

    fn allows(&self, uri: &http::Uri) -> bool {
        let Some(host) = uri.host() else { return false };
        let port = uri.port_u16().or_else(|| match uri.scheme_str() {
            Some("https") => Some(443),
            Some("http") => Some(80),
            _ => None,
        });
        self.allowed.iter().any(|pattern| pattern.matches(host, port))
    }

    fn describe_denial(&self, uri: &http::Uri) -> String {
        let host = uri.authority().map_or("(no host)", |a| a.as_str());
        let allowed = if self.allowed.is_empty() {
            "this tool may reach no hosts".to_string()
        } else {
            let list: Vec<String> = self.allowed.iter().map(|p| format!("'{p}'")).collect();
            format!("this tool may reach only {}", list.join(", "))
        };
        format!("an HTTP request to '{host}' ({allowed})")
    }
}

impl WasiHttpHooks for HttpPolicy {
    fn send_request(
        &mut self,
        request: http::Request<WasiBody>,
        options: Option<wasmtime_wasi_http::RequestOptions>,
        fut: Box<dyn Future<Output = Result<(), wasmtime_wasi_http::Error>> + Send>,
    ) -> Box<
        dyn Future<
                Output = wasmtime_wasi_http::Result<(
                    http::Response<WasiBody>,
                    Box<dyn Future<Output = Result<(), wasmtime_wasi_http::Error>> + Send>,
                )>,
            > + Send,
    > {
        if self.allows(request.uri()) {
            return wasmtime_wasi_http::default_hooks().send_request(request, options, fut);
        }
        self.denials.record(self.describe_denial(request.uri()));
        Box::new(std::future::ready(Err(wasmtime_wasi_http::Error::HttpRequestDenied)))
    }
}

#[cfg(test)]
mod tests {
    use super::HttpHostPattern;

    fn allows(pattern: &str, host: &str, port: Option<u16>) -> bool {
        HttpHostPattern::parse(pattern).expect("valid pattern").matches(host, port)
    }

    #[test]
    fn exact_names_match_themselves_on_any_port() {
        assert!(allows("api.example.com", "api.example.com", Some(443)));
        assert!(allows("API.Example.com", "api.EXAMPLE.com", Some(80)));
        assert!(!allows("api.example.com", "example.com", Some(443)));
        assert!(!allows("api.example.com", "api.example.com.evil.net", Some(443)));
    }

    #[test]
    fn wildcards_match_subdomains_only() {
        assert!(allows("*.example.com", "api.example.com", None));
        assert!(allows("*.example.com", "a.b.example.com", None));
        assert!(!allows("*.example.com", "example.com", None));
        assert!(!allows("*.example.com", "badexample.com", None));
    }

    #[test]
    fn ports_and_addresses() {
        assert!(allows("127.0.0.1:8080", "127.0.0.1", Some(8080)));
        assert!(!allows("127.0.0.1:8080", "127.0.0.1", Some(8081)));
        assert!(allows("[::1]:80", "[::1]", Some(80)));
        assert!(allows("::1", "::1", Some(1)));
    }

    #[test]
    fn bad_patterns_say_what_to_write() {
        for bad in ["", "*.", "exa mple.com", "host:http", "https://example.com"] {
            let error = HttpHostPattern::parse(bad).expect_err(bad).to_string();
            assert!(error.contains("host pattern"), "{error}");
        }
    }
}

//! One call of an operation as an HTTP request, and its answer in the model's terms:
//! arguments put in the path, query, headers, cookies and body; the plugin's
//! credentials added; redirects followed only to the hosts the plugin may reach; the
//! answer read up to the size limit. A 2xx JSON answer is the result (text is a
//! string, an image content); an error status is a message with the status and the
//! API's own words (bounded); a failure to reach the API says whether retrying helps.

use std::sync::Arc;
use std::time::{Duration, Instant};

use percent_encoding::{AsciiSet, CONTROLS, NON_ALPHANUMERIC, utf8_percent_encode};
use reqwest::header::{ACCEPT, CONTENT_TYPE, COOKIE, HeaderName, HeaderValue, RETRY_AFTER};
use reqwest::{StatusCode, Url};
use serde_json::Value;

use super::config::{Auth, KeyPlace};
use super::operations::{Argument, BodyKind, Operation, Place};
use crate::error::ToolError;
use crate::tool::{Content, Returned};

/// How much of an error answer's text the model is shown.
const MAX_ERROR_TEXT: usize = 2000;

/// How much of an error answer is read.
const MAX_ERROR_BYTES: usize = 64 * 1024;

/// How many redirects one call follows.
const MAX_REDIRECTS: usize = 5;

/// What a path parameter's value is escaped of: all but RFC 3986's unreserved.
const PATH_VALUE: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// What a cookie's value is escaped of: what would end it or start another (RFC 6265).
const COOKIE_VALUE: &AsciiSet = &CONTROLS.add(b' ').add(b'"').add(b',').add(b';').add(b'\\').add(b'%');

/// The hosts a plugin's requests may go to.
#[derive(Debug, Clone)]
pub(crate) struct AllowList {
    /// The base URL's host and port.
    base: (String, Option<u16>),
    /// `allow_hosts`: a host, `host:port`, or `*.domain`.
    more: Vec<String>,
}

impl AllowList {
    pub(crate) fn new(base: &Url, more: &[String]) -> AllowList {
        let host = base.host_str().unwrap_or_default().to_ascii_lowercase();
        AllowList {
            base: (host, base.port_or_known_default()),
            more: more.iter().map(|h| h.to_ascii_lowercase()).collect(),
        }
    }

    /// Whether a request may go to `url`.
    pub(crate) fn allows(&self, url: &Url) -> bool {
        let Some(host) = url.host_str().map(str::to_ascii_lowercase) else { return false };
        let port = url.port_or_known_default();
        if (host.as_str(), port) == (self.base.0.as_str(), self.base.1) {
            return true;
        }
        self.more.iter().any(|allowed| match allowed.strip_prefix("*.") {
            Some(domain) => host.ends_with(&format!(".{domain}")),
            None => match allowed.rsplit_once(':') {
                Some((name, p)) if p.parse::<u16>().ok().is_some() => {
                    name == host && port.map(|n| n.to_string()).as_deref() == Some(p)
                }
                _ => *allowed == host,
            },
        })
    }
}

/// A redirect to a host the plugin may not reach (the redirect policy's error).
#[derive(Debug, thiserror::Error)]
#[error("a redirect to {0}, a host this plugin may not reach")]
struct Outside(Url);

/// The HTTP side of one REST API: its client, base URL and credentials.
pub(crate) struct Sender {
    http: reqwest::Client,
    base: String,
    auth: Option<Auth>,
    /// A client-credentials access token and when it stops being used.
    token: tokio::sync::Mutex<Option<(String, Instant)>>,
    /// The API file's name, for messages.
    pub(crate) file: String,
}

/// Why a call failed, before it is a [`ToolError`] for one tool.
pub(crate) enum Failure {
    /// The API answered with an error status.
    Status {
        status: StatusCode,
        text: String,
        retry_after: Option<String>,
    },
    /// Something other than an answer: what, and whether retrying can help.
    Transport {
        reason: String,
        retry: bool,
    },
    TimedOut,
    TooLarge,
}

impl Sender {
    /// A sender for the API at `base` (no trailing `/` needed) that follows redirects
    /// only within `allow`.
    pub(crate) fn new(base: &str, allow: AllowList, auth: Option<Auth>, file: String) -> Result<Sender, String> {
        let allow = Arc::new(allow);
        let policy = reqwest::redirect::Policy::custom(move |attempt| {
            if attempt.previous().len() >= MAX_REDIRECTS {
                attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
            } else if allow.allows(attempt.url()) {
                attempt.follow()
            } else {
                let url = attempt.url().clone();
                attempt.error(Outside(url))
            }
        });
        let http = reqwest::Client::builder()
            .redirect(policy)
            .user_agent(concat!("toolhost/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| format!("cannot make its HTTP client: {e}"))?;
        Ok(Sender {
            http,
            base: base.trim_end_matches('/').to_string(),
            auth,
            token: tokio::sync::Mutex::new(None),
            file,
        })
    }

    /// Sends `operation` with bound `arguments` and reads the answer, all within `limit`.
    pub(crate) async fn send(
        &self,
        operation: &Operation,
        arguments: &Value,
        limit: Duration,
        max_bytes: usize,
    ) -> Result<Returned, Failure> {
        // A safe request whose kept-alive connection the server had closed is sent
        // once more, on a new connection (the server may have restarted meanwhile).
        let safe = matches!(operation.route.method.as_str(), "GET" | "HEAD" | "OPTIONS");
        let exchange = async {
            let mut attempts = 0;
            loop {
                attempts += 1;
                let request = self.request(operation, arguments).await?;
                match request.send().await {
                    Ok(response) => return answer(response, max_bytes).await,
                    Err(error) if safe && attempts == 1 && broken_connection(&error) => continue,
                    Err(error) => return Err(sent_error(error)),
                }
            }
        };
        tokio::time::timeout(limit, exchange).await.unwrap_or(Err(Failure::TimedOut))
    }

    /// The request for one call.
    async fn request(&self, operation: &Operation, arguments: &Value) -> Result<reqwest::RequestBuilder, Failure> {
        let empty = serde_json::Map::new();
        let arguments = arguments.as_object().unwrap_or(&empty);
        let value = |argument: &Argument| arguments.get(&argument.name).filter(|v| !v.is_null());
        let mut url = self.url(operation, &value)?;
        let mut headers = reqwest::header::HeaderMap::new();
        let mut cookies = Vec::new();
        let mut body = serde_json::Map::new();
        let mut whole_body = None;
        for argument in &operation.arguments {
            let Some(value) = value(argument) else { continue };
            match argument.place {
                Place::Path => {}
                Place::Query => {
                    url.query_pairs_mut().extend_pairs(pairs(argument, value));
                }
                Place::Header => {
                    let name = HeaderName::from_bytes(argument.wire.as_bytes())
                        .map_err(|e| header_error(&argument.wire, e))?;
                    let text = joined(argument, value);
                    headers.insert(name, HeaderValue::from_str(&text).map_err(|e| header_error(&argument.wire, e))?);
                }
                Place::Cookie => {
                    let text = joined(argument, value);
                    cookies.push(format!("{}={}", argument.wire, utf8_percent_encode(&text, COOKIE_VALUE)));
                }
                Place::Body => {
                    body.insert(argument.wire.clone(), value.clone());
                }
                Place::WholeBody => whole_body = Some(value.clone()),
            }
        }
        if !cookies.is_empty() {
            let text = cookies.join("; ");
            headers.insert(COOKIE, HeaderValue::from_str(&text).map_err(|e| header_error("Cookie", e))?);
        }
        self.sign(&mut url, &mut headers).await?;
        headers.insert(ACCEPT, HeaderValue::from_static("application/json, */*;q=0.8"));
        let method = reqwest::Method::from_bytes(operation.route.method.as_bytes()).map_err(|e| {
            Failure::Transport { reason: format!("has a method that is not HTTP's ({e})"), retry: false }
        })?;
        let request = self.http.request(method, url).headers(headers);
        let content = whole_body.or_else(|| (!body.is_empty()).then_some(Value::Object(body)));
        Ok(match (operation.body, content) {
            (Some(BodyKind::Json), Some(content)) => {
                request.header(CONTENT_TYPE, "application/json").body(content.to_string())
            }
            (Some(BodyKind::Form), Some(content)) => {
                let fields = form_fields(&content);
                let text = url::form_urlencoded::Serializer::new(String::new()).extend_pairs(fields).finish();
                request.header(CONTENT_TYPE, "application/x-www-form-urlencoded").body(text)
            }
            _ => request,
        })
    }

    /// The base URL and the operation's path, its path parameters put in, each one
    /// segment (escaped; `.` and `..`, which URLs read as dot segments even escaped,
    /// refused).
    fn url<'a>(&self, operation: &Operation, value: &impl Fn(&Argument) -> Option<&'a Value>) -> Result<Url, Failure> {
        let mut path = operation.route.path.clone();
        for argument in operation.arguments.iter().filter(|a| a.place == Place::Path) {
            let text = value(argument).map(|v| scalar_text(v, argument.as_json)).unwrap_or_default();
            if text == "." || text == ".." {
                let reason = format!("cannot take '{text}' as its path parameter '{}'", argument.wire);
                return Err(Failure::Transport { reason, retry: false });
            }
            path = path.replace(&format!("{{{}}}", argument.wire), &utf8_percent_encode(&text, PATH_VALUE).to_string());
        }
        Url::parse(&format!("{}{path}", self.base))
            .map_err(|e| Failure::Transport { reason: format!("has no usable URL for this call ({e})"), retry: false })
    }

    /// Adds the plugin's credentials to a request.
    async fn sign(&self, url: &mut Url, headers: &mut reqwest::header::HeaderMap) -> Result<(), Failure> {
        let bearer = match &self.auth {
            None => return Ok(()),
            Some(Auth::Bearer(token)) => token.clone(),
            Some(Auth::ApiKey { place: KeyPlace::Query, name, value }) => {
                url.query_pairs_mut().append_pair(name, value);
                return Ok(());
            }
            Some(Auth::ApiKey { place: KeyPlace::Header, name, value }) => {
                let name = HeaderName::from_bytes(name.as_bytes()).map_err(|e| header_error(name, e))?;
                headers.insert(name, HeaderValue::from_str(value).map_err(|e| header_error("the API key", e))?);
                return Ok(());
            }
            Some(Auth::ClientCredentials { .. }) => self.access_token().await?,
        };
        let value = HeaderValue::from_str(&format!("Bearer {bearer}")).map_err(|e| header_error("Authorization", e))?;
        headers.insert(reqwest::header::AUTHORIZATION, value);
        Ok(())
    }

    /// A client-credentials access token: the one got before while it lasts, else a new one.
    async fn access_token(&self) -> Result<String, Failure> {
        let Some(Auth::ClientCredentials { token_url, client_id, client_secret, scopes }) = &self.auth else {
            return Err(Failure::Transport { reason: "has no client credentials".into(), retry: false });
        };
        let mut held = self.token.lock().await;
        if let Some((token, until)) = held.as_ref()
            && Instant::now() < *until
        {
            return Ok(token.clone());
        }
        let mut form = vec![("grant_type", "client_credentials".to_string())];
        if !scopes.is_empty() {
            form.push(("scope", scopes.join(" ")));
        }
        let body = url::form_urlencoded::Serializer::new(String::new()).extend_pairs(form).finish();
        let refused = |why: String| Failure::Transport {
            reason: format!(
                "could not get an access token from {token_url} ({why}); check [auth.client_credentials] in {}",
                self.file
            ),
            retry: false,
        };
        let response = self
            .http
            .post(token_url)
            .basic_auth(client_id, Some(client_secret))
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await
            .map_err(|e| refused(e.to_string()))?;
        let status = response.status();
        let text = response.text().await.map_err(|e| refused(e.to_string()))?;
        if !status.is_success() {
            return Err(refused(format!("{status}: {}", bounded(&text))));
        }
        let answer: Value = serde_json::from_str(&text).map_err(|e| refused(format!("its answer is not JSON: {e}")))?;
        let token = answer
            .get("access_token")
            .and_then(Value::as_str)
            .ok_or_else(|| refused("its answer has no access_token".into()))?;
        // A token is used until 30 s before it expires (an hour when the answer does not say).
        let lasts = answer.get("expires_in").and_then(Value::as_u64).unwrap_or(3600).saturating_sub(30);
        *held = Some((token.to_string(), Instant::now() + Duration::from_secs(lasts)));
        Ok(token.to_string())
    }
}

/// The answer: a 2xx read as the result, any other status as the API's error.
async fn answer(mut response: reqwest::Response, max_bytes: usize) -> Result<Returned, Failure> {
    let status = response.status();
    let kind = response.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or_default().to_string();
    if !status.is_success() {
        let retry_after = response.headers().get(RETRY_AFTER).and_then(|v| v.to_str().ok()).map(str::to_string);
        let bytes = read(&mut response, MAX_ERROR_BYTES, true).await?;
        return Err(Failure::Status { status, text: error_text(&bytes), retry_after });
    }
    let bytes = read(&mut response, max_bytes, false).await?;
    if bytes.is_empty() {
        return Ok(Returned { value: serde_json::json!({"status": status.as_u16()}), content: Vec::new() });
    }
    let media = kind.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    if media.is_empty() || media == "application/json" || media.ends_with("+json") {
        return match serde_json::from_slice(&bytes) {
            Ok(value) => Ok(Returned { value, content: Vec::new() }),
            Err(_) if media.is_empty() => {
                Ok(Returned { value: Value::String(String::from_utf8_lossy(&bytes).into_owned()), content: Vec::new() })
            }
            Err(e) => {
                Err(Failure::Transport { reason: format!("answered with JSON that does not read ({e})"), retry: false })
            }
        };
    }
    if media.starts_with("image/") {
        return Ok(Returned { value: Value::Null, content: vec![Content::image(bytes, &media)] });
    }
    if media.starts_with("text/") || media.ends_with("+xml") || media == "application/xml" {
        return Ok(Returned {
            value: Value::String(String::from_utf8_lossy(&bytes).into_owned()),
            content: Vec::new(),
        });
    }
    Err(Failure::Transport {
        reason: format!("answered with {media}, which the host does not pass to a model"),
        retry: false,
    })
}

/// The body, up to `max` bytes: more is too large, or (`cut`) cut off there.
async fn read(response: &mut reqwest::Response, max: usize, cut: bool) -> Result<Vec<u8>, Failure> {
    if !cut && response.content_length().is_some_and(|length| length > max as u64) {
        return Err(Failure::TooLarge);
    }
    let mut bytes = Vec::new();
    loop {
        let chunk = response.chunk().await.map_err(|e| Failure::Transport {
            reason: format!("broke off its answer ({})", source_text(&e)),
            retry: true,
        })?;
        let Some(chunk) = chunk else { return Ok(bytes) };
        if bytes.len() + chunk.len() > max {
            if cut {
                bytes.extend_from_slice(&chunk[..max - bytes.len()]);
                return Ok(bytes);
            }
            return Err(Failure::TooLarge);
        }
        bytes.extend_from_slice(&chunk);
    }
}

/// An error answer's text for the model: JSON made compact, anything cut at
/// [`MAX_ERROR_TEXT`] characters.
fn error_text(bytes: &[u8]) -> String {
    let text = match serde_json::from_slice::<Value>(bytes) {
        Ok(json) => json.to_string(),
        Err(_) => String::from_utf8_lossy(bytes).trim().to_string(),
    };
    bounded(&text)
}

/// `text` cut at [`MAX_ERROR_TEXT`] characters, saying so.
fn bounded(text: &str) -> String {
    match text.char_indices().nth(MAX_ERROR_TEXT) {
        Some((at, _)) => format!("{}… (cut)", &text[..at]),
        None => text.to_string(),
    }
}

/// Why a request could not be sent or answered, from reqwest's error.
fn sent_error(error: reqwest::Error) -> Failure {
    if error.is_timeout() {
        return Failure::TimedOut;
    }
    if let Some(outside) = find_source::<Outside>(&error) {
        return Failure::Transport {
            reason: format!("redirected the call to {}, a host this plugin may not reach", outside.0),
            retry: false,
        };
    }
    if error.is_redirect() {
        return Failure::Transport {
            reason: format!("redirected the call too often ({})", source_text(&error)),
            retry: false,
        };
    }
    let host = error.url().and_then(Url::host_str).unwrap_or("its host").to_string();
    if error.is_connect() {
        return Failure::Transport {
            reason: format!("could not be reached at {host} ({})", source_text(&error)),
            retry: true,
        };
    }
    Failure::Transport { reason: format!("did not answer the request ({})", source_text(&error)), retry: true }
}

/// Whether a request failed on a connection that broke (rather than one that could
/// not be made, a time-out or a redirect refused).
fn broken_connection(error: &reqwest::Error) -> bool {
    !(error.is_connect() || error.is_timeout() || error.is_redirect() || error.is_builder())
}

/// The innermost message of an error's chain (reqwest's own says only "error sending request").
pub(super) fn source_text(error: &(dyn std::error::Error + 'static)) -> String {
    let mut inner = error;
    while let Some(next) = inner.source() {
        inner = next;
    }
    inner.to_string()
}

/// The error of type `E` in `error`'s chain, if there is one.
fn find_source<'a, E: std::error::Error + 'static>(error: &'a (dyn std::error::Error + 'static)) -> Option<&'a E> {
    let mut inner = Some(error);
    while let Some(at) = inner {
        if let Some(found) = at.downcast_ref::<E>() {
            return Some(found);
        }
        inner = at.source();
    }
    None
}

fn header_error(name: &str, error: impl std::fmt::Display) -> Failure {
    Failure::Transport { reason: format!("cannot send the header {name} ({error})"), retry: false }
}

/// A value as the text of a path, header or query item: a string as it is, JSON
/// for anything else (or always, for a parameter described by `content`).
fn scalar_text(value: &Value, as_json: bool) -> String {
    match value {
        Value::String(text) if !as_json => text.clone(),
        other => other.to_string(),
    }
}

/// A header's or cookie's value: an array's or object's items joined by commas.
fn joined(argument: &Argument, value: &Value) -> String {
    match value {
        Value::Array(items) if !argument.as_json => {
            items.iter().map(|v| scalar_text(v, false)).collect::<Vec<_>>().join(",")
        }
        Value::Object(fields) if !argument.as_json => {
            fields.iter().flat_map(|(k, v)| [k.clone(), scalar_text(v, false)]).collect::<Vec<_>>().join(",")
        }
        other => scalar_text(other, argument.as_json),
    }
}

/// A query parameter's `name=value` pairs, in OpenAPI's styles: `form` (exploded
/// or comma-separated) and `deepObject`.
fn pairs(argument: &Argument, value: &Value) -> Vec<(String, String)> {
    let name = argument.wire.clone();
    match value {
        _ if argument.as_json => vec![(name, value.to_string())],
        Value::Array(items) if argument.explode => {
            items.iter().map(|v| (name.clone(), scalar_text(v, false))).collect()
        }
        Value::Object(fields) if argument.deep => {
            fields.iter().map(|(k, v)| (format!("{name}[{k}]"), scalar_text(v, false))).collect()
        }
        Value::Object(fields) if argument.explode => {
            fields.iter().map(|(k, v)| (k.clone(), scalar_text(v, false))).collect()
        }
        other => vec![(name, joined(argument, other))],
    }
}

/// A form body's fields: an array's items each a field of the same name, an
/// object as JSON text.
fn form_fields(content: &Value) -> Vec<(String, String)> {
    let Value::Object(fields) = content else { return vec![("body".into(), content.to_string())] };
    let mut out = Vec::new();
    for (name, value) in fields {
        match value {
            Value::Array(items) => out.extend(items.iter().map(|v| (name.clone(), scalar_text(v, false)))),
            Value::Null => {}
            other => out.push((name.clone(), scalar_text(other, false))),
        }
    }
    out
}

impl Failure {
    /// The failure as the error of the tool `tool` of the API `api`.
    pub(crate) fn into_error(self, tool: &str, api: &str, limit: Duration, max_bytes: usize) -> ToolError {
        let failed = |status: Option<u16>, reason: String, retry: bool| ToolError::ApiFailed {
            tool: tool.to_string(),
            api: api.to_string(),
            status,
            reason,
            retry,
        };
        match self {
            Failure::TimedOut => ToolError::TimedOut { tool: tool.to_string(), limit },
            Failure::TooLarge => ToolError::ResultTooLarge { tool: tool.to_string(), limit_bytes: max_bytes as u64 },
            Failure::Transport { reason, retry } => failed(None, reason, retry),
            Failure::Status { status, text, retry_after } => {
                let code = status.as_u16();
                let said = if text.is_empty() { String::new() } else { format!(": {text}") };
                let (reason, retry) = match code {
                    401 | 403 => (format!("refused the plugin's credentials ({status}{said})"), false),
                    429 => {
                        let wait = retry_after.map(|after| format!("; it asks to wait {after} s")).unwrap_or_default();
                        (format!("has had too many calls ({status}{said}){wait}"), true)
                    }
                    502..=504 => (format!("could not answer now ({status}{said})"), true),
                    400..=499 => {
                        (format!("refused these arguments ({status}{said}); correct them and call again"), false)
                    }
                    _ => (format!("failed ({status}{said})"), false),
                };
                failed(Some(code), reason, retry)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_allow_list_holds_the_base_and_the_hosts_the_file_names() {
        let base = Url::parse("http://127.0.0.1:4010/v2").expect("url");
        let allow = AllowList::new(&base, &["files.example.com".into(), "*.cdn.example".into(), "localhost:9".into()]);
        let allows = |url: &str| allow.allows(&Url::parse(url).expect("url"));
        assert!(allows("http://127.0.0.1:4010/elsewhere"));
        assert!(!allows("http://127.0.0.1:4011/v2"));
        assert!(allows("https://files.example.com/x"));
        assert!(allows("https://a.cdn.example/x"));
        assert!(!allows("https://cdn.example.evil/x"));
        assert!(allows("http://localhost:9/x"));
        assert!(!allows("http://localhost:10/x"));
    }

    #[test]
    fn query_values_follow_openapis_styles() {
        let argument = |explode, deep| Argument {
            name: "status".into(),
            place: Place::Query,
            wire: "status".into(),
            explode,
            deep,
            as_json: false,
        };
        let list = serde_json::json!(["available", "sold"]);
        assert_eq!(pairs(&argument(true, false), &list).len(), 2);
        assert_eq!(pairs(&argument(false, false), &list), [("status".to_string(), "available,sold".to_string())]);
        let filter = serde_json::json!({"min": 1});
        assert_eq!(pairs(&argument(true, true), &filter), [("status[min]".to_string(), "1".to_string())]);
        assert_eq!(pairs(&argument(true, false), &serde_json::json!(3)), [("status".to_string(), "3".to_string())]);
    }

    #[test]
    fn error_text_is_compact_and_bounded() {
        assert_eq!(error_text(b"{ \"detail\" : \"Not Found\" }"), r#"{"detail":"Not Found"}"#);
        let long = "x".repeat(5000);
        assert!(error_text(long.as_bytes()).ends_with("… (cut)"));
        assert_eq!(error_text(long.as_bytes()).chars().count(), MAX_ERROR_TEXT + "… (cut)".chars().count());
    }
}

//! Who may send MCP requests: static bearer tokens, each known by a name, and OAuth
//! 2.1 access tokens as MCP's authorization spec has a resource server check them —
//! a JWT signed by a key the issuer publishes (its JWKS, found from its metadata,
//! RFC 8414 or OpenID discovery, cached and fetched again for a key it does not
//! hold), from that issuer, not expired, for this server (its audience, RFC 8707),
//! with the scopes every request needs. A refusal says what to do in
//! `WWW-Authenticate`, with the address of this server's Protected Resource Metadata
//! (RFC 9728), which `/.well-known/oauth-protected-resource` serves.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arc_swap::ArcSwap;
use axum::http::{HeaderMap, Uri, header};
use jsonwebtoken::jwk::{AlgorithmParameters, JwkSet};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::mcp::Caller;

/// How the server checks OAuth access tokens (MCP's authorization, OAuth 2.1): start
/// from [`OAuthOptions::new`] and set fields.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct OAuthOptions {
    /// The authorization server that issues the tokens (their `iss`), e.g.
    /// `https://login.example.com/realms/agents`. Its metadata names its keys.
    pub issuer: String,
    /// This server's resource URI as clients reach it, e.g.
    /// `https://tools.example.com/mcp`: the audience (`aud`) tokens must name.
    pub resource: String,
    /// Where the issuer's keys are, when its metadata should not be asked.
    pub jwks_uri: Option<String>,
    /// Scopes every request's token must carry (none by default).
    pub scopes: Vec<String>,
    /// How far a token's times may be off the server's clock (default 30 s).
    pub leeway: Duration,
}

impl OAuthOptions {
    /// Tokens from `issuer` for `resource`, with the defaults.
    pub fn new(issuer: impl Into<String>, resource: impl Into<String>) -> OAuthOptions {
        OAuthOptions {
            issuer: issuer.into(),
            resource: resource.into(),
            jwks_uri: None,
            scopes: Vec::new(),
            leeway: Duration::from_secs(30),
        }
    }
}

/// Why a request is not let in, in the terms of RFC 6750's `WWW-Authenticate`.
#[derive(Debug)]
pub(super) enum Refusal {
    /// No token at all (401, no error code).
    NoToken,
    /// A token that is not valid here (401, `invalid_token`).
    InvalidToken(String),
    /// A valid token without the scopes needed (403, `insufficient_scope`).
    InsufficientScope(String),
    /// The issuer's keys cannot be had, so no token can be checked (503).
    KeysUnavailable,
}

/// The ways in, ready to check requests.
pub(super) struct Authorizer {
    /// Each static token's digest (digests are compared, in constant time) and its caller.
    tokens: Vec<(blake3::Hash, Caller)>,
    oauth: Option<ResourceServer>,
}

impl Authorizer {
    /// From the server's options; `tokens` are `(name, token)`.
    pub(super) fn new(tokens: &BTreeMap<String, String>, oauth: Option<&OAuthOptions>) -> Authorizer {
        let tokens =
            tokens.iter().map(|(name, token)| (blake3::hash(token.trim().as_bytes()), Caller::new(name))).collect();
        Authorizer { tokens, oauth: oauth.map(ResourceServer::new) }
    }

    /// Whether requests must carry a token at all.
    pub(super) fn required(&self) -> bool {
        !self.tokens.is_empty() || self.oauth.is_some()
    }

    /// The address of this server's Protected Resource Metadata, with OAuth.
    pub(super) fn metadata_url(&self) -> Option<&str> {
        self.oauth.as_ref().map(|oauth| oauth.metadata_url.as_str())
    }

    /// The Protected Resource Metadata document (RFC 9728), with OAuth.
    pub(super) fn metadata(&self, scopes_supported: Vec<String>) -> Option<Value> {
        let oauth = self.oauth.as_ref()?;
        Some(json!({
            "resource": oauth.options.resource,
            "authorization_servers": [oauth.options.issuer],
            "bearer_methods_supported": ["header"],
            "scopes_supported": scopes_supported,
            "resource_name": "toolhost",
        }))
    }

    /// The scopes every request needs.
    pub(super) fn required_scopes(&self) -> &[String] {
        self.oauth.as_ref().map_or(&[], |oauth| &oauth.options.scopes)
    }

    /// Who sent a request with these headers, or why it is refused.
    pub(super) async fn admit(&self, headers: &HeaderMap) -> Result<Caller, Refusal> {
        let given = headers.get(header::AUTHORIZATION).and_then(|value| value.to_str().ok());
        let given = given.and_then(bearer_token).ok_or(Refusal::NoToken)?;
        let digest = blake3::hash(given.as_bytes());
        if let Some((_, caller)) = self.tokens.iter().find(|(token, _)| *token == digest) {
            return Ok(caller.clone());
        }
        match &self.oauth {
            Some(oauth) => oauth.verify(given).await,
            None => Err(Refusal::InvalidToken("the bearer token is not one this server knows".into())),
        }
    }

    /// The `WWW-Authenticate` value of a refusal.
    pub(super) fn challenge(&self, refusal: &Refusal) -> String {
        let mut parameters = Vec::new();
        match refusal {
            Refusal::NoToken | Refusal::KeysUnavailable => {}
            Refusal::InvalidToken(why) => {
                parameters.push(("error", "invalid_token".to_string()));
                parameters.push(("error_description", why.clone()));
            }
            Refusal::InsufficientScope(why) => {
                parameters.push(("error", "insufficient_scope".to_string()));
                parameters.push(("scope", self.required_scopes().join(" ")));
                parameters.push(("error_description", why.clone()));
            }
        }
        match self.metadata_url() {
            Some(url) => parameters.push(("resource_metadata", url.to_string())),
            None => parameters.push(("realm", "toolhost".to_string())),
        }
        let parameters: Vec<String> =
            parameters.iter().map(|(name, value)| format!("{name}=\"{}\"", value.replace(['"', '\\'], "'"))).collect();
        format!("Bearer {}", parameters.join(", "))
    }
}

/// The token of an `Authorization: Bearer …` value (the scheme in any case).
fn bearer_token(value: &str) -> Option<&str> {
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// The address of the Protected Resource Metadata of `resource` (RFC 9728 §3.1:
/// the well-known name between the host and the resource's path).
pub(super) fn metadata_url(resource: &str) -> Result<String, String> {
    let uri: Uri = resource.parse().map_err(|e| format!("the resource '{resource}' is not a URI: {e}"))?;
    let (Some(scheme), Some(authority)) = (uri.scheme_str(), uri.authority()) else {
        return Err(format!("the resource '{resource}' is not an absolute URI (https://host/mcp)"));
    };
    let path = uri.path().trim_end_matches('/');
    Ok(format!("{scheme}://{authority}/.well-known/oauth-protected-resource{path}"))
}

/// An issuer's URL fit to fetch from: https, or http on a loopback host (a test's
/// or a sidecar's authorization server).
pub(super) fn check_issuer_url(what: &str, url: &str) -> Result<(), String> {
    let uri: Uri = url.parse().map_err(|e| format!("the {what} '{url}' is not a URL: {e}"))?;
    let host = uri.host().unwrap_or_default().trim_start_matches('[').trim_end_matches(']');
    let loopback = host == "localhost" || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback());
    match uri.scheme_str() {
        Some("https") => Ok(()),
        Some("http") if loopback => Ok(()),
        _ => Err(format!("the {what} '{url}' must be an https URL (http only on a loopback host)")),
    }
}

/// Asked again for its keys at most this often, however many unknown keys come.
const MIN_REFETCH: Duration = Duration::from_secs(1);
/// Keys older than this are fetched again at the next token (kept if that fails).
const KEYS_MAX_AGE: Duration = Duration::from_secs(3600);
/// The largest metadata or key set read from the issuer.
const MAX_DOCUMENT_BYTES: usize = 1 << 20;
/// The signature algorithms taken: asymmetric only (a shared secret with the issuer
/// is no key it publishes, and `none` is no signature).
const ALGORITHMS: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// The OAuth side: the options, the issuer's keys as last fetched, and the client
/// that fetches them.
struct ResourceServer {
    options: OAuthOptions,
    metadata_url: String,
    client: reqwest::Client,
    keys: ArcSwap<Keys>,
    /// Held while fetching (one fetch at a time); when the last one started.
    fetching: tokio::sync::Mutex<Option<Instant>>,
}

/// The issuer's keys, by key id, and when they were fetched.
#[derive(Default)]
struct Keys {
    by_id: Vec<(Option<String>, DecodingKey)>,
    fetched: Option<Instant>,
}

impl Keys {
    /// The key a token names (or the only one, for a token naming none).
    fn find(&self, kid: Option<&str>) -> Option<&DecodingKey> {
        match kid {
            Some(kid) => self.by_id.iter().find(|(id, _)| id.as_deref() == Some(kid)).map(|(_, key)| key),
            None if self.by_id.len() == 1 => self.by_id.first().map(|(_, key)| key),
            None => None,
        }
    }

    fn fresh(&self) -> bool {
        self.fetched.is_some_and(|fetched| fetched.elapsed() < KEYS_MAX_AGE)
    }
}

/// The claims read from an access token (besides those `Validation` checks).
#[derive(Deserialize)]
struct Claims {
    sub: Option<String>,
    client_id: Option<String>,
    azp: Option<String>,
    /// RFC 9068 / RFC 8693: space-separated.
    scope: Option<String>,
    /// Some issuers' list (or string) of scopes.
    scp: Option<Scopes>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Scopes {
    Text(String),
    List(Vec<String>),
}

impl Claims {
    fn scopes(&self) -> Vec<String> {
        let listed = match &self.scp {
            Some(Scopes::List(list)) => list.clone(),
            Some(Scopes::Text(text)) => text.split_whitespace().map(String::from).collect(),
            None => Vec::new(),
        };
        let written = self.scope.iter().flat_map(|scope| scope.split_whitespace().map(String::from));
        let mut scopes: Vec<String> = written.chain(listed).collect();
        scopes.sort();
        scopes.dedup();
        scopes
    }

    /// Who the token speaks for: its subject, else the client it was issued to.
    fn caller_name(&self) -> String {
        let name = self.sub.as_ref().or(self.client_id.as_ref()).or(self.azp.as_ref());
        name.cloned().unwrap_or_else(|| "unnamed".into())
    }
}

impl ResourceServer {
    fn new(options: &OAuthOptions) -> ResourceServer {
        // aws-lc-rs, which rustls already brings; another crate may have chosen first.
        let _ = jsonwebtoken::crypto::aws_lc::DEFAULT_PROVIDER.install_default();
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .redirect(reqwest::redirect::Policy::limited(3))
            .build()
            .unwrap_or_default();
        ResourceServer {
            metadata_url: metadata_url(&options.resource).unwrap_or_default(),
            options: options.clone(),
            client,
            keys: ArcSwap::default(),
            fetching: tokio::sync::Mutex::new(None),
        }
    }

    /// The caller an access token speaks for, once it checks out.
    async fn verify(&self, token: &str) -> Result<Caller, Refusal> {
        let header = jsonwebtoken::decode_header(token)
            .map_err(|_| Refusal::InvalidToken("the bearer token is not a JWT access token".into()))?;
        if !ALGORITHMS.contains(&header.alg) {
            return Err(Refusal::InvalidToken(format!("tokens signed with {:?} are not taken", header.alg)));
        }
        let key = self.key(header.kid.as_deref()).await?;
        let claims = jsonwebtoken::decode::<Claims>(token, &key, &self.validation(header.alg))
            .map_err(|error| Refusal::InvalidToken(describe(error.kind())))?
            .claims;
        let scopes = claims.scopes();
        let missing: Vec<&String> = self.options.scopes.iter().filter(|needed| !scopes.contains(needed)).collect();
        if !missing.is_empty() {
            let missing: Vec<&str> = missing.iter().map(|scope| scope.as_str()).collect();
            return Err(Refusal::InsufficientScope(format!("the token lacks the scope {}", missing.join(" "))));
        }
        Ok(Caller::with_scopes(claims.caller_name(), scopes))
    }

    /// What a token must be: from the issuer, for this server, in time, signed with `alg`.
    fn validation(&self, alg: Algorithm) -> Validation {
        let mut validation = Validation::new(alg);
        validation.set_issuer(&[&self.options.issuer]);
        validation.set_audience(&[&self.options.resource]);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.validate_nbf = true;
        validation.leeway = self.options.leeway.as_secs();
        validation
    }

    /// The issuer's key named `kid`: from the cache while it is fresh, else fetched
    /// again — one fetch at a time, at most one a second (a token under a key that
    /// came out within the second waits for it), and none for a request that waited
    /// while another fetched.
    async fn key(&self, kid: Option<&str>) -> Result<DecodingKey, Refusal> {
        if let Some(key) = self.cached(kid) {
            return Ok(key);
        }
        let asked = Instant::now();
        let mut last_fetch = self.fetching.lock().await;
        if last_fetch.is_none_or(|started| started < asked) {
            if let Some(wait) = last_fetch.and_then(|started| MIN_REFETCH.checked_sub(started.elapsed())) {
                tokio::time::sleep(wait).await;
            }
            *last_fetch = Some(Instant::now());
            match self.fetch_keys().await {
                Ok(keys) => self.keys.store(Arc::new(keys)),
                // The keys held (if any) go on serving.
                Err(error) => tracing::warn!("cannot fetch the keys of the issuer {}: {error}", self.options.issuer),
            }
        }
        let keys = self.keys.load();
        if keys.by_id.is_empty() {
            return Err(Refusal::KeysUnavailable);
        }
        let key = keys.find(kid).cloned();
        key.ok_or_else(|| Refusal::InvalidToken("the token is signed with a key its issuer does not publish".into()))
    }

    /// The key `kid` names in the cache, while the cache is fresh.
    fn cached(&self, kid: Option<&str>) -> Option<DecodingKey> {
        let keys = self.keys.load();
        if !keys.fresh() {
            return None;
        }
        keys.find(kid).cloned()
    }

    /// The issuer's keys, from its JWKS (found from its metadata unless given).
    async fn fetch_keys(&self) -> Result<Keys, String> {
        let jwks_uri = match &self.options.jwks_uri {
            Some(uri) => uri.clone(),
            None => self.discover_jwks_uri().await?,
        };
        check_issuer_url("issuer's jwks_uri", &jwks_uri)?;
        let set: JwkSet = serde_json::from_value(self.get_json(&jwks_uri).await?)
            .map_err(|e| format!("{jwks_uri} is not a JWK set: {e}"))?;
        let by_id: Vec<(Option<String>, DecodingKey)> = set
            .keys
            .iter()
            // Public keys only: a symmetric key in a key set is a secret no one should take.
            .filter(|jwk| !matches!(jwk.algorithm, AlgorithmParameters::OctetKey(_)))
            .filter_map(|jwk| Some((jwk.common.key_id.clone(), DecodingKey::from_jwk(jwk).ok()?)))
            .collect();
        if by_id.is_empty() {
            return Err(format!("{jwks_uri} has no public key this server can use"));
        }
        tracing::info!("fetched {} key(s) of the issuer {}", by_id.len(), self.options.issuer);
        Ok(Keys { by_id, fetched: Some(Instant::now()) })
    }

    /// The `jwks_uri` of the issuer's metadata: OAuth's (RFC 8414) first, then
    /// OpenID Connect's, each checked to be the issuer's own.
    async fn discover_jwks_uri(&self) -> Result<String, String> {
        let mut tried = Vec::new();
        for url in metadata_urls(&self.options.issuer) {
            let metadata = match self.get_json(&url).await {
                Ok(metadata) => metadata,
                Err(error) => {
                    tried.push(error);
                    continue;
                }
            };
            if metadata["issuer"].as_str() != Some(self.options.issuer.as_str()) {
                return Err(format!(
                    "{url} names the issuer {} rather than {}",
                    metadata["issuer"], self.options.issuer
                ));
            }
            return match metadata["jwks_uri"].as_str() {
                Some(jwks_uri) => Ok(jwks_uri.to_string()),
                None => Err(format!("{url} names no jwks_uri")),
            };
        }
        Err(format!("no metadata found for the issuer: {}", tried.join("; ")))
    }

    /// A JSON document from `url`, within the size limit.
    async fn get_json(&self, url: &str) -> Result<Value, String> {
        let mut response = self.client.get(url).send().await.map_err(|e| format!("{url}: {e}"))?;
        if !response.status().is_success() {
            return Err(format!("{url}: {}", response.status()));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| format!("{url}: {e}"))? {
            if body.len() + chunk.len() > MAX_DOCUMENT_BYTES {
                return Err(format!("{url}: larger than {MAX_DOCUMENT_BYTES} bytes"));
            }
            body.extend_from_slice(&chunk);
        }
        serde_json::from_slice(&body).map_err(|e| format!("{url} is not JSON: {e}"))
    }
}

/// Where an issuer's metadata may be, in the order asked: RFC 8414's name inserted
/// before the issuer's path, then OpenID Connect's (inserted, then appended).
fn metadata_urls(issuer: &str) -> Vec<String> {
    let issuer = issuer.trim_end_matches('/');
    let (origin, path) = match issuer.find("://").and_then(|at| issuer[at + 3..].find('/').map(|slash| at + 3 + slash))
    {
        Some(slash) => issuer.split_at(slash),
        None => (issuer, ""),
    };
    let mut urls = vec![
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{origin}/.well-known/openid-configuration{path}"),
    ];
    if !path.is_empty() {
        urls.push(format!("{issuer}/.well-known/openid-configuration"));
    }
    urls
}

/// What is wrong with a token, in a few words for `error_description`.
fn describe(kind: &jsonwebtoken::errors::ErrorKind) -> String {
    use jsonwebtoken::errors::ErrorKind;
    match kind {
        ErrorKind::ExpiredSignature => "the token expired".into(),
        ErrorKind::ImmatureSignature => "the token is not valid yet".into(),
        ErrorKind::InvalidIssuer => "the token is from another issuer".into(),
        ErrorKind::InvalidAudience => "the token is not for this server (its audience)".into(),
        ErrorKind::InvalidSignature => "the token's signature does not check out".into(),
        ErrorKind::MissingRequiredClaim(claim) => format!("the token has no '{claim}' claim"),
        ErrorKind::InvalidAlgorithm => "the token's algorithm does not fit its key".into(),
        _ => "the token is not valid".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_metadata_url_puts_the_well_known_name_before_the_path() {
        assert_eq!(
            metadata_url("https://tools.example.com/mcp").unwrap(),
            "https://tools.example.com/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            metadata_url("https://tools.example.com/").unwrap(),
            "https://tools.example.com/.well-known/oauth-protected-resource"
        );
        assert!(metadata_url("/mcp").is_err());
    }

    #[test]
    fn issuer_metadata_is_looked_for_where_rfc_8414_and_openid_put_it() {
        assert_eq!(
            metadata_urls("https://login.example.com/realms/a"),
            [
                "https://login.example.com/.well-known/oauth-authorization-server/realms/a",
                "https://login.example.com/.well-known/openid-configuration/realms/a",
                "https://login.example.com/realms/a/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            metadata_urls("http://127.0.0.1:9000"),
            [
                "http://127.0.0.1:9000/.well-known/oauth-authorization-server",
                "http://127.0.0.1:9000/.well-known/openid-configuration",
            ]
        );
    }

    #[test]
    fn issuers_are_https_or_loopback() {
        assert!(check_issuer_url("issuer", "https://login.example.com").is_ok());
        assert!(check_issuer_url("issuer", "http://127.0.0.1:8080").is_ok());
        assert!(check_issuer_url("issuer", "http://localhost:8080").is_ok());
        assert!(check_issuer_url("issuer", "http://login.example.com").is_err());
    }

    #[test]
    fn scopes_come_from_scope_and_scp() {
        let claims: Claims = serde_json::from_value(json!({"scope": "a b", "scp": ["c", "a"]})).unwrap();
        assert_eq!(claims.scopes(), ["a", "b", "c"]);
        assert_eq!(claims.caller_name(), "unnamed");
    }

    #[test]
    fn the_bearer_scheme_is_read_in_any_case() {
        assert_eq!(bearer_token("Bearer abc"), Some("abc"));
        assert_eq!(bearer_token("bearer  abc "), Some("abc"));
        assert_eq!(bearer_token("Basic abc"), None);
        assert_eq!(bearer_token("Bearer "), None);
    }
}

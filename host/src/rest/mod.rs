//! REST APIs as plugins (cargo feature `rest-apis`). A `NAME.openapi.toml` file
//! (`config.rs`) names an OpenAPI 3.0 or 3.1 document (`document.rs`), a file or a
//! URL pinned in the lock file; each of its operations becomes a tool whose one
//! object of parameters merges the operation's path, query, header and cookie
//! parameters and its body (`operations.rs`). Calls are bound by the same JSON
//! Schema binder as an MCP server's tools, then sent as HTTP requests under the
//! plugin's time limit, response size limit and allowed hosts (`send.rs`).
//!
//! The host does not sandbox these APIs: they are reached with what the file grants.

mod config;
mod document;
mod operations;
mod send;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

pub(crate) use config::ApiConfig;
pub(crate) use document::Document;
pub(crate) use operations::operations;

use crate::bind::SchemaBinder;
use crate::error::ToolError;
use crate::load::shaping::{check_unique_names, unmatched_table};
use crate::load::{DocumentEntry, MAX_DOCUMENT_BYTES, document_entry, record_document, sha256_digest};
use crate::remote::RemoteRuntime;
use crate::sys::read_regular_file;
use crate::tool::names::{NameMatch, match_name};
use crate::tool::{Returned, ServerTool, ToolAnnotations, ToolSpec};
use config::DocumentAt;
use operations::Operation;
use send::{AllowList, Sender};

/// How long fetching a document from its URL may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(60);

/// One operation as the host serves it.
pub(crate) struct RestTool {
    pub(crate) spec: ToolSpec,
    /// Checks and repairs arguments against the operation's merged schema.
    pub(crate) binder: SchemaBinder,
    operation: Operation,
}

/// A REST API the host uses: its file, its tools, its HTTP client.
pub(crate) struct RestApi {
    config: ApiConfig,
    runtime: Arc<RemoteRuntime>,
    tools: Arc<Vec<RestTool>>,
    sender: Sender,
    /// Operations skipped, and what the file says that the document does not bear out.
    warnings: Vec<String>,
}

impl RestApi {
    /// Reads the document of `config` (fetching it when it is a URL) and makes its
    /// operations tools; an error says what to fix.
    pub(crate) fn load(config: ApiConfig, runtime: Arc<RemoteRuntime>) -> Result<Arc<RestApi>, String> {
        let bytes = match &config.document {
            DocumentAt::File(path) => read_regular_file(path, MAX_DOCUMENT_BYTES)
                .map_err(|e| format!("cannot read its document {}: {e}", path.display()))?,
            DocumentAt::Url(url) => fetch_pinned(&config, url, &runtime)?,
        };
        let doc = Document::read(&bytes).map_err(|e| format!("its document cannot be used: {e}"))?;
        let base = base_url(&config, &doc)?;
        let allow = AllowList::new(&base, &config.allow_hosts);
        let file = config.path.display().to_string();
        let sender = Sender::new(base.as_str(), allow, config.auth.clone(), file)?;
        let (operations, skipped) = operations(&doc);
        // Only the operations the file chose: one it leaves out says nothing.
        let chosen = skipped.iter().filter(|skipped| config.choice.serves(&skipped.route));
        let mut warnings: Vec<String> =
            chosen.map(|skipped| format!("{}: {}", config.name, skipped.warning())).collect();
        let mut tools: Vec<RestTool> = operations
            .into_iter()
            .filter(|op| config.choice.serves(&op.route))
            .map(|op| rest_tool(&config.name, op))
            .collect();
        if let Some(fault) = shape(&config, &mut tools).into_iter().next() {
            return Err(format!("{}: {fault}", config.path.display()));
        }
        warnings.extend(tools.iter().filter_map(|tool| {
            let why = tool.binder.unreadable()?;
            Some(format!("{}: tool '{}': {why}", config.name, tool.spec.name))
        }));
        Ok(Arc::new(RestApi { config, runtime, tools: Arc::new(tools), sender, warnings }))
    }

    /// The API's name: its file name without `.openapi.toml`.
    pub(crate) fn name(&self) -> &str {
        &self.config.name
    }

    /// Its tools.
    pub(crate) fn tools(&self) -> Arc<Vec<RestTool>> {
        self.tools.clone()
    }

    /// The operations skipped, each with why, and the schemas that could not be read.
    pub(crate) fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }

    /// The time a call may take: the file's `timeout_ms`, else the host's `time`.
    pub(crate) fn time_limit(&self, time: Duration) -> Duration {
        self.config.timeout.unwrap_or(time)
    }

    /// The largest answer read: the file's `max_response_bytes`, else the host's `result_bytes`.
    pub(crate) fn response_limit(&self, result_bytes: usize) -> usize {
        self.config.max_response_bytes.unwrap_or(result_bytes)
    }

    /// Calls tool number `index` (registered as `tool`) with bound `arguments`,
    /// blocking this thread until it answers or `limit` passes.
    pub(crate) fn call(
        self: &Arc<Self>,
        tool: &str,
        index: usize,
        arguments: Value,
        limit: Duration,
        result_bytes: usize,
    ) -> Result<Returned, ToolError> {
        futures::executor::block_on(self.call_async(tool, index, arguments, limit, result_bytes))
    }

    /// [`RestApi::call`] for async callers: the request runs on the plugins' runtime
    /// (reqwest needs tokio's); dropping this future abandons it there.
    pub(crate) async fn call_async(
        self: &Arc<Self>,
        tool: &str,
        index: usize,
        arguments: Value,
        limit: Duration,
        result_bytes: usize,
    ) -> Result<Returned, ToolError> {
        let api = self.clone();
        let (_caller, caller_gone) = tokio::sync::oneshot::channel::<()>();
        let exchange = async move {
            let operation = &api.tools.get(index)?.operation;
            let sent = api.sender.send(operation, &arguments, limit, result_bytes);
            match futures::future::select(std::pin::pin!(sent), caller_gone).await {
                futures::future::Either::Left((answer, _)) => Some(answer),
                futures::future::Either::Right(_) => None,
            }
        };
        let gone = || ToolError::ApiFailed {
            tool: tool.to_string(),
            api: self.name().to_string(),
            status: None,
            reason: "was stopped with the host".into(),
            retry: false,
        };
        let Some(task) = self.runtime.spawn(exchange) else { return Err(gone()) };
        match task.await {
            Ok(Some(Ok(returned))) => Ok(returned),
            Ok(Some(Err(failure))) => Err(failure.into_error(tool, self.name(), limit, result_bytes)),
            Ok(None) | Err(_) => Err(gone()),
        }
    }
}

/// One operation as the tool the host serves: its HTTP method's meaning as its
/// annotations (GET reads only; PUT and DELETE may be repeated; DELETE destroys).
fn rest_tool(api: &str, operation: Operation) -> RestTool {
    let binder = SchemaBinder::new(operation.input_schema.clone());
    let origin = ServerTool::new(&operation.route.label(), operation.input_schema.clone(), None);
    let spec = ToolSpec::for_rest_operation(api, &operation.route.name, origin);
    let worst = ToolAnnotations::default();
    let method = operation.route.method.as_str();
    let safe = matches!(method, "GET" | "HEAD" | "OPTIONS");
    let annotations = ToolAnnotations {
        read_only: safe,
        destructive: !safe && worst.destructive,
        idempotent: safe || matches!(method, "PUT" | "DELETE"),
        ..worst
    };
    let spec = ToolSpec {
        description: operation.description.clone(),
        title: operation.summary.clone().filter(|s| s.chars().count() <= 80).unwrap_or(spec.title),
        annotations,
        ..spec
    };
    RestTool { spec, binder, operation }
}

/// Puts the file's `[tools.NAME]` tables on `tools`; what does not fit.
fn shape(config: &ApiConfig, tools: &mut [RestTool]) -> Vec<String> {
    let mut faults = Vec::new();
    for (key, table) in &config.tools {
        let names: Vec<&str> = tools.iter().map(|tool| tool.operation.route.name.as_str()).collect();
        let applied = match match_name(names.iter().copied(), key) {
            NameMatch::One(i) => table.apply(key, &mut tools[i].spec, &config.lines),
            unmatched => Err(unmatched_table(key, &names, &unmatched, &config.lines)),
        };
        faults.extend(applied.err());
    }
    faults.extend(check_unique_names(&tools.iter().map(|tool| &tool.spec).collect::<Vec<_>>()).err());
    faults
}

/// The base URL: the file's, else the document's first server's (relative to the
/// document's URL when the document came from one, which is where a document with no
/// server says the API is).
fn base_url(config: &ApiConfig, doc: &Document) -> Result<reqwest::Url, String> {
    let fetched = matches!(config.document, DocumentAt::Url(_));
    let written = config.base_url.clone().or_else(|| doc.server_url()).or_else(|| fetched.then(|| "/".to_string()));
    let Some(written) = written else {
        return Err("its document names no server: give the API's address as `base_url`".into());
    };
    let parsed = match (&config.document, reqwest::Url::parse(&written)) {
        (_, Ok(url)) => url,
        (DocumentAt::Url(document), Err(_)) => reqwest::Url::parse(document)
            .and_then(|document| document.join(&written))
            .map_err(|e| format!("its server URL '{written}' does not read: {e}"))?,
        (DocumentAt::File(_), Err(_)) => {
            return Err(format!(
                "its document's server '{written}' is not a whole URL: give the API's address as `base_url`"
            ));
        }
    };
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(format!("its base URL '{parsed}' is not http or https"));
    }
    Ok(parsed)
}

/// The document at `url`, fetched now, and checked against (or else pinned in) the
/// lock file beside the API's file.
fn fetch_pinned(config: &ApiConfig, url: &str, runtime: &RemoteRuntime) -> Result<Vec<u8>, String> {
    let folder = config.path.parent().unwrap_or(Path::new("."));
    let pinned = document_entry(folder, &config.name).map_err(|e| e.to_string())?;
    let fetched = {
        let url = url.to_string();
        runtime.run(async move { fetch(&url).await }).ok_or("the host is shutting down")??
    };
    let digest = sha256_digest(&fetched);
    match pinned {
        Some(entry) if entry.url == url && entry.sha256 != digest => Err(format!(
            "its document at {url} changed since it was pinned in toolhost.lock (pinned {}, now {digest}): \
             check the change, then remove the document's entry from toolhost.lock to pin the new one",
            entry.sha256
        )),
        Some(entry) if entry.url == url => Ok(fetched),
        _ => {
            let entry = DocumentEntry { name: config.name.clone(), url: url.to_string(), sha256: digest };
            record_document(folder, entry).map_err(|e| format!("cannot pin its document: {e}"))?;
            tracing::info!("REST API '{}': its document at {url} is pinned in toolhost.lock", config.name);
            Ok(fetched)
        }
    }
}

/// The bytes at `url`, up to the largest document read.
async fn fetch(url: &str) -> Result<Vec<u8>, String> {
    let failed = |e: &dyn std::fmt::Display| format!("cannot fetch its document from {url}: {e}");
    let client = reqwest::Client::builder().timeout(FETCH_TIMEOUT).build().map_err(|e| failed(&e))?;
    let mut response = client.get(url).send().await.map_err(|e| failed(&send::source_text(&e)))?;
    if !response.status().is_success() {
        return Err(failed(&response.status()));
    }
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| failed(&send::source_text(&e)))? {
        bytes.extend_from_slice(&chunk);
        if bytes.len() as u64 > MAX_DOCUMENT_BYTES {
            return Err(failed(&format!("it is larger than {} MB", MAX_DOCUMENT_BYTES >> 20)));
        }
    }
    Ok(bytes)
}

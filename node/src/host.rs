//! `NativeHost`: the library's `Host` for Node.js. Loading and everything that may
//! wait on a tool return Promises and run on napi's tokio runtime, off the event
//! loop; a call runs there from its first wait on (see `dispatch`); what only reads
//! the registry answers at once.

use std::sync::Arc;
use std::task::{Context, Poll};

use napi::Env;
use napi::bindgen_prelude::{Either, PromiseRaw};
use napi_derive::napi;
use serde_json::{Map, Value, json};
use toolhost::{CallObserver, CallRequest, Disclosure, Extraction, Host};

use crate::cancel::Cancellation;
use crate::options::{self, HostOptions};
use crate::outcome::{Failure, error_json, failure, outcome_json, tool_format};

/// A set of sandboxed WebAssembly tools (see `lib/host.js`, which wraps it).
#[napi]
pub struct NativeHost {
    host: Host,
    /// Asks the person before a call that needs approval (the options' `approval`).
    observer: Option<Arc<dyn CallObserver>>,
}

/// Loads every component of `plugins` (folders and `.wasm` files) with `options`,
/// off the event loop; rejects with a `LoadError`.
#[napi]
pub async fn load_host(plugins: Vec<String>, options: Option<HostOptions>) -> Result<NativeHost, Failure> {
    let (builder, observer) = options::builder(plugins, options.unwrap_or_default())?;
    let loading = tokio::task::spawn_blocking(move || builder.build()).await;
    let loaded = loading.map_err(|e| failure("LoadError", &format!("loading stopped: {e}")))?;
    let host = loaded.map_err(|e| failure("LoadError", &e.to_string()))?;
    Ok(NativeHost { host, observer })
}

#[napi]
impl NativeHost {
    /// Every active tool, sorted by name, as `{name, providerName, component, title,
    /// description, parameters, result, annotations, sandboxed}`.
    #[napi]
    pub fn tools(&self) -> Vec<Value> {
        self.host.tools().iter().map(|spec| tool_json(spec, self.host.provider_name(&spec.name))).collect()
    }

    /// The tools a model is shown, as `tools` has them: every active tool, or a
    /// disclosing host's `find_tools`, its caller and its core.
    #[napi]
    pub fn shown_tools(&self) -> Vec<Value> {
        let provider_name = |spec: &toolhost::ToolSpec| {
            self.host.provider_name(&spec.name).unwrap_or_else(|| spec.name_in(toolhost::ToolFormat::OpenAiChat))
        };
        self.host.shown_tools().iter().map(|spec| tool_json(spec, Some(provider_name(spec)))).collect()
    }

    /// The active tool registered under exactly `name`, as `tools` has it, or null.
    #[napi]
    pub fn tool(&self, name: String) -> Option<Value> {
        self.host.tool(&name).map(|spec| tool_json(&spec, self.host.provider_name(&spec.name)))
    }

    /// The active tools that best fit `query` (a task in words, or a made-up tool
    /// name), best first, at most `limit`, as `tools` has them, each with its `score`.
    #[napi]
    pub fn search_tools(&self, query: String, limit: u32) -> Vec<Value> {
        let found = self.host.search_tools(&query, limit as usize).into_iter();
        let with_spec = found.filter_map(|found| self.host.tool(&found.name).map(|spec| (found, spec)));
        with_spec
            .map(|(found, spec)| {
                let mut tool = tool_json(&spec, self.host.provider_name(&spec.name));
                tool["score"] = Value::from(found.score);
                tool
            })
            .collect()
    }

    /// Runs `name` with `arguments` (a JSON value, or the text a model wrote when
    /// `text` is set), until it ends or `cancellation` fires: the outcome object, or
    /// a Promise of it.
    ///
    /// The call is polled once here, on the event loop's thread: a call that ends in
    /// that first poll (most do: a tool's code runs until it waits on the host or
    /// until its first epoch tick, 5 ms at most) answers at once, with none of the
    /// two thread hand-offs a Promise settled from napi's runtime takes (each wakes a
    /// parked thread: about 60 µs a call where the call itself takes 13 µs). A call
    /// still running goes on on the runtime, off the event loop.
    #[napi(ts_return_type = "any")]
    pub fn dispatch<'env>(
        &self,
        env: &'env Env,
        name: String,
        arguments: Value,
        text: bool,
        cancellation: Option<&Cancellation>,
    ) -> napi::Result<Either<Value, PromiseRaw<'env, Value>>> {
        let (host, cancelled, observer) = (self.host.clone(), Cancellation::fired(cancellation), self.observer.clone());
        let mut call = Box::pin(async move {
            let request = asking(host.request(&name), observer.as_ref()).cancel_on(cancelled);
            let outcome = match (text, arguments) {
                (true, Value::String(text)) => request.text(&text).run_async().await,
                (_, arguments) => request.arguments(&arguments).run_async().await,
            };
            Ok::<Value, napi::Error>(outcome_json(&outcome))
        });
        let first = napi::bindgen_prelude::within_runtime_if_available(|| {
            call.as_mut().poll(&mut Context::from_waker(std::task::Waker::noop()))
        });
        match first {
            Poll::Ready(outcome) => outcome.map(Either::A),
            Poll::Pending => env.spawn_future(call).map(Either::B),
        }
    }

    /// What a call of `name` with argument text `arguments` would run, repaired as
    /// the host repairs it, without running it: `{tool, providerName, arguments,
    /// repairs}`, or
    /// `{error}` when it cannot be repaired (for the AI SDK's repair hook).
    #[napi]
    pub fn repair_call(&self, name: String, arguments: String) -> Value {
        match self.host.repair_call(&name, &arguments) {
            Ok(repaired) => {
                let repairs: Vec<String> = repaired.repairs.iter().map(ToString::to_string).collect();
                let provider_name = self.host.provider_name(&repaired.tool);
                json!({"tool": repaired.tool, "providerName": provider_name, "arguments": repaired.arguments, "repairs": repairs})
            }
            Err(error) => json!({"error": error_json(&error)}),
        }
    }

    /// Every active tool's definition in `format` (`openai`, `openai-responses`,
    /// `anthropic`, `mcp`).
    #[napi]
    pub fn tool_definitions(&self, format: String) -> Result<Value, Failure> {
        Ok(self.host.tool_definitions(tool_format(&format)?))
    }

    /// The definitions in `format` within a budget (at most `most` tools and
    /// `max_bytes` of JSON, those fitting `task` first): `{tools, leftOut}`.
    #[napi]
    pub fn definitions(
        &self,
        format: String,
        most: Option<u32>,
        max_bytes: Option<u32>,
        task: Option<String>,
    ) -> Result<Value, Failure> {
        let mut request = self.host.definitions(tool_format(&format)?);
        if let Some(most) = most {
            request = request.most(most as usize);
        }
        if let Some(bytes) = max_bytes {
            request = request.max_bytes(bytes as usize);
        }
        if let Some(task) = &task {
            request = request.for_task(task);
        }
        let definitions = request.get();
        Ok(json!({"tools": definitions.tools, "leftOut": definitions.left_out}))
    }

    /// A host showing the tools matching `core` and `find_tools`, which returns the
    /// definitions it finds in `format` (and `caller`, when named, which calls any
    /// tool by name); every tool stays callable. Throws a `ToolsetError` for a
    /// pattern that does not read.
    #[napi]
    pub fn disclosing(&self, core: Vec<String>, format: String, caller: Option<String>) -> Result<NativeHost, Failure> {
        let mut disclosure = Disclosure::new(&core).map_err(|e| failure("ToolsetError", &e.to_string()))?;
        disclosure = disclosure.format(tool_format(&format)?);
        if let Some(name) = caller {
            disclosure = disclosure.caller(&name);
        }
        Ok(NativeHost { host: self.host.disclosing(disclosure), observer: self.observer.clone() })
    }

    /// A host whose tools are only `names`, sharing this one's components; throws a
    /// `ToolsetError` naming the nearest tool for a name that is none.
    #[napi]
    pub fn toolset(&self, names: Vec<String>) -> Result<NativeHost, Failure> {
        let host = self.host.toolset(&names).map_err(|e| failure("ToolsetError", &e.to_string()))?;
        Ok(NativeHost { host, observer: self.observer.clone() })
    }

    /// The tool calls a model wrote into `reply` (see `Host::extract_calls`).
    #[napi]
    pub fn extract_calls(&self, reply: String) -> NativeExtraction {
        let extraction = Arc::new(self.host.extract_calls(&reply));
        NativeExtraction { host: self.host.clone(), observer: self.observer.clone(), extraction }
    }

    /// Rescans the plugin folders now: whether anything changed; throws a `LoadError`.
    #[napi]
    pub async fn reload(&self) -> Result<bool, Failure> {
        let host = self.host.clone();
        let reloading = tokio::task::spawn_blocking(move || host.reload()).await;
        let reloaded = reloading.map_err(|e| failure("LoadError", &format!("the reload stopped: {e}")))?;
        reloaded.map_err(|e| failure("LoadError", &e.to_string()))
    }

    /// What the last load did (`{components, warnings}`).
    #[napi]
    pub fn load_report(&self) -> Value {
        serde_json::to_value(self.host.load_report()).unwrap_or_default()
    }

    /// The plugins' resources and resource templates, in MCP's shapes.
    #[napi]
    pub async fn list_resources(&self) -> Value {
        json!({
            "resources": self.host.list_resources().await,
            "resourceTemplates": self.host.list_resource_templates().await,
        })
    }

    /// The contents of the resource at `uri`, or `{error}`.
    #[napi]
    pub async fn read_resource(&self, uri: String) -> Value {
        match self.host.read_resource(&uri).await {
            Ok(contents) => json!({"contents": contents}),
            Err(error) => json!({"error": error_json(&error)}),
        }
    }

    /// The plugins' prompts, in MCP's shape.
    #[napi]
    pub async fn list_prompts(&self) -> Value {
        Value::Array(self.host.list_prompts().await)
    }

    /// The messages of prompt `name` with `arguments` (strings), or `{error}`.
    #[napi]
    pub async fn get_prompt(&self, name: String, arguments: Option<Map<String, Value>>) -> Value {
        match self.host.get_prompt(&name, &arguments.unwrap_or_default()).await {
            Ok(messages) => json!({"messages": messages}),
            Err(error) => json!({"error": error_json(&error)}),
        }
    }
}

/// The tool calls found in one reply, each runnable by its index.
#[napi]
pub struct NativeExtraction {
    host: Host,
    observer: Option<Arc<dyn CallObserver>>,
    extraction: Arc<Extraction>,
}

#[napi]
impl NativeExtraction {
    /// `{calls, rejected}`: the calls, each resolved to one tool, and what was
    /// written like a call but is not one (with `rejected`, its corrective error),
    /// each as `{name, tool, arguments, span, dialect, repairs}`.
    #[napi]
    pub fn found(&self) -> Value {
        serde_json::to_value(&*self.extraction).unwrap_or_default()
    }

    /// One line saying what was found (for logs).
    #[napi]
    pub fn summary(&self) -> String {
        self.extraction.summary()
    }

    /// Runs call number `index` as `dispatch` would; a rejected one comes back as its
    /// error, and nothing runs.
    #[napi]
    pub async fn dispatch(&self, index: u32) -> Result<Value, Failure> {
        let Some(call) = self.extraction.calls.get(index as usize).cloned() else {
            return Err(failure("RangeError", &format!("no call number {index} was found")));
        };
        let (host, observer) = (self.host.clone(), self.observer.clone());
        let running = tokio::task::spawn_blocking(move || asking(call.request(&host), observer.as_ref()).run()).await;
        let outcome = running.map_err(|e| failure("Error", &format!("the call stopped: {e}")))?;
        Ok(outcome_json(&outcome))
    }
}

/// `request`, asking approvals through `observer` when there is one.
fn asking<'a>(request: CallRequest<'a>, observer: Option<&Arc<dyn CallObserver>>) -> CallRequest<'a> {
    match observer {
        Some(observer) => request.observer(observer.clone()),
        None => request,
    }
}

/// A tool as `{name, providerName, component, title, description, parameters,
/// result, annotations, sandboxed}`.
fn tool_json(spec: &toolhost::ToolSpec, provider_name: Option<String>) -> Value {
    let mcp = spec.definition(toolhost::ToolFormat::Mcp);
    json!({
        "name": spec.name,
        "providerName": provider_name,
        "component": spec.component,
        "title": spec.title,
        "description": spec.description,
        "parameters": mcp["inputSchema"],
        "result": mcp.get("outputSchema").cloned().unwrap_or(Value::Null),
        "annotations": mcp["annotations"],
        "sandboxed": spec.wit_function().is_some(),
    })
}

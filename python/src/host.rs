//! `toolhost.Host`: the library's `Host` for Python. Every call converts its arguments
//! under the GIL, then releases it while the tool runs, so threads call in parallel.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;
use serde_json::Value;
use toolhost::{CallObserver, CallOutcome, CallRequest, Disclosure, ToolError};

use crate::approval::PyApproval;
use crate::convert::{self, Unsendable};
use crate::errors;
use crate::types::{PyCallOutcome, PyCapacity, PyExtractedCall, PyExtraction, PyLimits, PyTool};

/// A set of sandboxed WebAssembly tools, loaded from plugin folders or component files.
///
/// Safe to share between threads; each call runs in a fresh instance of its component.
#[pyclass(name = "Host", module = "toolhost", frozen)]
pub(crate) struct PyHost {
    host: toolhost::Host,
    /// Asks the person before a call that needs approval (`approval=`).
    observer: Option<Arc<dyn CallObserver>>,
}

/// Where the tools come from: one folder, or a list of folders and `.wasm` files.
#[derive(FromPyObject)]
enum Plugins {
    One(PathBuf),
    Many(Vec<PathBuf>),
}

#[pymethods]
impl PyHost {
    /// Loads every component in `plugins` (a folder, or a list of folders and `.wasm`
    /// files). Compiled components are cached in `cache_dir` (default
    /// `~/.cache/toolhost`; `cache=False` for none). With `watch=True` the folders are
    /// watched and changes load while the host serves. `limits` bound each call,
    /// `capacity` how many run at once. `compiler` ("auto", "optimizing" or
    /// "baseline") makes the code of a component not in the cache. `approval`
    /// (an `Approval`) asks a person before the calls of the tools it names. Raises
    /// `LoadError`.
    #[new]
    #[allow(clippy::too_many_arguments, reason = "each is one of Python's keyword arguments")]
    #[pyo3(signature = (
        plugins, *, cache_dir=None, cache=true, watch=false, limits=None, capacity=None, compiler="auto", approval=None
    ))]
    fn new(
        py: Python<'_>,
        plugins: Plugins,
        cache_dir: Option<PathBuf>,
        cache: bool,
        watch: bool,
        limits: Option<PyRef<'_, PyLimits>>,
        capacity: Option<PyRef<'_, PyCapacity>>,
        compiler: &str,
        approval: Option<PyRef<'_, PyApproval>>,
    ) -> PyResult<Self> {
        let compiler = compiler.parse().map_err(|e: toolhost::UnknownCompiler| PyValueError::new_err(e.to_string()))?;
        let mut builder = toolhost::Host::builder().watch(watch).compiler(compiler);
        let paths = match plugins {
            Plugins::One(path) => vec![path],
            Plugins::Many(paths) => paths,
        };
        for path in paths {
            builder = if path.is_file() { builder.component_file(path) } else { builder.plugin_dir(path) };
        }
        builder = match (cache, cache_dir) {
            (false, Some(_)) => return Err(PyValueError::new_err("cache=False and a cache_dir contradict each other")),
            (false, None) => builder.no_cache(),
            (true, Some(dir)) => builder.cache_dir(dir),
            (true, None) => builder,
        };
        if let Some(limits) = limits {
            builder = builder.limits(limits.limits);
        }
        if let Some(capacity) = capacity {
            builder = builder.capacity(capacity.capacity);
        }
        let mut observer: Option<Arc<dyn CallObserver>> = None;
        if let Some(approval) = approval {
            builder = builder.approval(approval.approval.clone());
            observer = Some(approval.asker.clone());
        }
        let host = py.detach(|| builder.build()).map_err(|e| errors::load_error(py, &e))?;
        Ok(PyHost { host, observer })
    }

    /// Every active tool, sorted by name.
    fn tools(&self) -> Vec<PyTool> {
        self.host.tools().into_iter().map(|spec| PyTool { spec }).collect()
    }

    /// The tools a model is shown: every active tool, or a disclosing host's
    /// `find_tools`, its caller if it has one, and its core. `functions()` gives these.
    fn shown_tools(&self) -> Vec<PyTool> {
        self.host.shown_tools().into_iter().map(|spec| PyTool { spec }).collect()
    }

    /// The active tool registered under exactly `name`, or None.
    fn tool(&self, name: &str) -> Option<PyTool> {
        self.host.tool(name).map(|spec| PyTool { spec })
    }

    /// The active tools that best fit `query` (a task in words, or a made-up tool
    /// name), best first, at most `limit`: matched by the words of each tool's name,
    /// description and parameters. Tools that share no word with it are left out.
    #[pyo3(signature = (query, limit=10))]
    fn search_tools(&self, query: &str, limit: usize) -> Vec<PyTool> {
        let found = self.host.search_tools(query, limit).into_iter();
        found.filter_map(|found| self.host.tool(&found.name)).map(|spec| PyTool { spec }).collect()
    }

    /// Calls a tool by the name a model sent, with the model's arguments (a dict;
    /// None for none). Returns the result as Python values; raises
    /// `ToolExecutionError` with the corrective message for the model.
    #[pyo3(signature = (name, arguments=None))]
    fn call<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        arguments: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let outcome = self.dispatch_json(py, name, arguments)?;
        match outcome.result {
            Ok(value) => convert::to_python(py, &value),
            Err(error) => Err(errors::tool_error(py, &error)),
        }
    }

    /// Calls a tool with the argument text a model wrote: strict JSON first, then a
    /// conservative repair (code fences, trailing commas, single quotes, unquoted
    /// keys, missing closing brackets).
    fn call_text<'py>(&self, py: Python<'py>, name: &str, arguments: &str) -> PyResult<Bound<'py, PyAny>> {
        match py.detach(|| self.asking(self.host.request(name)).text(arguments).run().result) {
            Ok(value) => convert::to_python(py, &value),
            Err(error) => Err(errors::tool_error(py, &error)),
        }
    }

    /// Like `call`, but returns a `CallOutcome` (which tool ran, the repaired name,
    /// the value or the error) instead of raising.
    #[pyo3(signature = (name, arguments=None))]
    fn dispatch(&self, py: Python<'_>, name: &str, arguments: Option<&Bound<'_, PyAny>>) -> PyResult<PyCallOutcome> {
        let outcome = self.dispatch_json(py, name, arguments)?;
        PyCallOutcome::new(py, outcome)
    }

    /// Like `call_text`, returning a `CallOutcome`.
    fn dispatch_text(&self, py: Python<'_>, name: &str, arguments: &str) -> PyResult<PyCallOutcome> {
        let outcome = py.detach(|| self.asking(self.host.request(name)).text(arguments).run());
        PyCallOutcome::new(py, outcome)
    }

    /// The resources the plugins offer (components exporting `toolhost:tool/resources`,
    /// MCP servers that have them): a pair of lists of dicts in MCP's shape, the
    /// resources (`uri`, `name`, `mimeType`, ...) and the templates (`uriTemplate`, ...).
    fn list_resources<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let host = self.host.clone();
        let (resources, templates) =
            wait(py, async move { (host.list_resources().await, host.list_resource_templates().await) })?;
        let pair =
            [convert::to_python(py, &Value::Array(resources))?, convert::to_python(py, &Value::Array(templates))?];
        Ok(pyo3::types::PyTuple::new(py, pair)?.into_any())
    }

    /// The contents of the resource at `uri` (dicts with `uri`, `mimeType` and `text` or
    /// base64 `blob`); raises `ToolExecutionError` when no plugin offers it or its
    /// plugin cannot read it.
    fn read_resource<'py>(&self, py: Python<'py>, uri: &str) -> PyResult<Bound<'py, PyAny>> {
        let (host, uri) = (self.host.clone(), uri.to_owned());
        match wait(py, async move { host.read_resource(&uri).await })? {
            Ok(contents) => convert::to_python(py, &Value::Array(contents)),
            Err(error) => Err(errors::tool_error(py, &error)),
        }
    }

    /// The prompts the plugins offer, as dicts in MCP's shape (`name`, `description`,
    /// `arguments`); a name two plugins share is qualified as `plugin.name`.
    fn list_prompts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let host = self.host.clone();
        let prompts = wait(py, async move { host.list_prompts().await })?;
        convert::to_python(py, &Value::Array(prompts))
    }

    /// The messages of prompt `name` with `arguments` (dicts: `role`, `content`);
    /// raises `ToolExecutionError` for an unknown prompt or what the prompt refuses.
    #[pyo3(signature = (name, arguments=None))]
    fn get_prompt<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        arguments: Option<std::collections::HashMap<String, String>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let arguments: serde_json::Map<String, Value> =
            arguments.unwrap_or_default().into_iter().map(|(key, value)| (key, Value::String(value))).collect();
        let (host, name) = (self.host.clone(), name.to_owned());
        match wait(py, async move { host.get_prompt(&name, &arguments).await })? {
            Ok(messages) => convert::to_python(py, &Value::Array(messages)),
            Err(error) => Err(errors::tool_error(py, &error)),
        }
    }

    /// `call` for asyncio: returns an awaitable; the tool runs on a worker thread, so
    /// the event loop is never blocked. Call it from a running event loop. Cancelling
    /// the awaitable (or the task awaiting it) stops the call: the tool's instance is
    /// dropped at its next epoch tick, or its MCP server told.
    #[pyo3(signature = (name, arguments=None))]
    fn call_async<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        arguments: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let asyncio = py.import("asyncio")?;
        let event_loop = asyncio.call_method0("get_running_loop")?;
        let future = event_loop.call_method0("create_future")?;
        let json = match arguments_json(arguments) {
            Ok(json) => json,
            Err(error) => {
                future.call_method1("set_exception", (unsendable_error(py, name, error).value(py),))?;
                return Ok(future);
            }
        };
        let (cancel, cancelled) = tokio::sync::oneshot::channel();
        future.call_method1("add_done_callback", (CancelOnDone(Mutex::new(Some(cancel))),))?;
        let (host, name, observer) = (self.host.clone(), name.to_owned(), self.observer.clone());
        let (event_loop, pending) = (event_loop.unbind(), future.clone().unbind());
        let pool = worker_pool()?;
        pool.spawn_blocking(move || {
            // The sender dropped unsent (the future settled, or was collected) is no
            // cancellation.
            let cancelled = async move {
                if cancelled.await.is_err() {
                    std::future::pending::<()>().await;
                }
            };
            let request = asking(host.request(&name), observer.as_ref()).arguments(&json).cancel_on(cancelled);
            let outcome = pool.block_on(request.run_async());
            Python::attach(|py| settle(py, &event_loop, &pending, outcome));
        });
        Ok(future)
    }

    /// Every active tool's definition in a model provider's format, as a list:
    /// `openai`, `openai-responses`, `anthropic` or `mcp`.
    #[pyo3(signature = (format="openai"))]
    fn tool_definitions<'py>(&self, py: Python<'py>, format: &str) -> PyResult<Bound<'py, PyAny>> {
        convert::to_python(py, &self.host.tool_definitions(convert::tool_format(format)?))
    }

    /// The definitions to hand a model in `format`, within a budget: at most `most`
    /// tools and `max_bytes` of JSON, those fitting `task` (words) first. Returns
    /// `(definitions, left_out)`: the list, and the names of the tools left out.
    #[pyo3(signature = (format="openai", most=None, max_bytes=None, task=None))]
    fn definitions<'py>(
        &self,
        py: Python<'py>,
        format: &str,
        most: Option<usize>,
        max_bytes: Option<usize>,
        task: Option<&str>,
    ) -> PyResult<(Bound<'py, PyAny>, Vec<String>)> {
        let mut request = self.host.definitions(convert::tool_format(format)?);
        if let Some(most) = most {
            request = request.most(most);
        }
        if let Some(bytes) = max_bytes {
            request = request.max_bytes(bytes);
        }
        if let Some(task) = task {
            request = request.for_task(task);
        }
        let definitions = request.get();
        Ok((convert::to_python(py, &definitions.tools)?, definitions.left_out))
    }

    /// A host that shows a model the tools matching `core` (name patterns) and
    /// `find_tools`, which searches the others by what they do and returns their
    /// definitions in `format`; every tool stays callable by its name. With `caller`
    /// (`"call_tool"`), one more tool calls any tool by name and arguments: for
    /// frameworks that run only the tools they were given. A pattern that does not
    /// read raises `ToolsetError`.
    #[pyo3(signature = (core, format="openai", finder=None, caller=None))]
    fn disclosing(
        &self,
        py: Python<'_>,
        core: Vec<String>,
        format: &str,
        finder: Option<&str>,
        caller: Option<&str>,
    ) -> PyResult<PyHost> {
        let mut disclosure = Disclosure::new(&core).map_err(|e| errors::toolset_error(py, &e))?;
        disclosure = disclosure.format(convert::tool_format(format)?);
        if let Some(name) = finder {
            disclosure = disclosure.finder_name(name);
        }
        if let Some(name) = caller {
            disclosure = disclosure.caller(name);
        }
        Ok(PyHost { host: self.host.disclosing(disclosure), observer: self.observer.clone() })
    }

    /// A host whose tools are only `names`; it shares this host's components. A name
    /// that is no tool's raises `ToolsetError` with the nearest name as a hint.
    fn toolset(&self, py: Python<'_>, names: Vec<String>) -> PyResult<PyHost> {
        let host = self.host.toolset(&names).map_err(|e| errors::toolset_error(py, &e))?;
        Ok(PyHost { host, observer: self.observer.clone() })
    }

    /// One plain Python function per tool shown (see `shown_tools`), with a signature built from the tool's
    /// parameters and a docstring from its description, for agent frameworks that
    /// take functions as tools. Calling one runs the tool; a failure raises
    /// `ToolExecutionError`, or with `errors="return"` comes back as its `to_dict()`.
    #[pyo3(signature = (errors="raise"))]
    fn functions<'py>(slf: &Bound<'py, Self>, errors: &str) -> PyResult<Bound<'py, PyList>> {
        let py = slf.py();
        let functions = py.import("toolhost._functions")?.call_method1("tool_functions", (slf, errors))?;
        Ok(functions.cast_into::<PyList>()?)
    }

    /// The tool calls a model wrote into its reply text (`<tool_call>` tags,
    /// `<|python_tag|>`, `[TOOL_CALLS]`, `<function=…>`, ReAct `Action:` lines, or the
    /// whole reply as one JSON object); run each with `dispatch_call`.
    fn extract_calls(&self, py: Python<'_>, reply: &str) -> PyResult<PyExtraction> {
        let extraction = py.detach(|| self.host.extract_calls(reply));
        PyExtraction::new(py, extraction)
    }

    /// Runs a call `extract_calls` found, as `dispatch` would; a rejected one comes
    /// back as its error, and nothing runs.
    fn dispatch_call(&self, py: Python<'_>, call: &Bound<'_, PyExtractedCall>) -> PyResult<PyCallOutcome> {
        let call = &call.get().call;
        let outcome = py.detach(|| self.asking(call.request(&self.host)).run());
        PyCallOutcome::new(py, outcome)
    }

    /// Rescans the plugin folders now; returns whether anything changed. Raises
    /// `LoadError` when a folder cannot be read.
    fn reload(&self, py: Python<'_>) -> PyResult<bool> {
        py.detach(|| self.host.reload()).map_err(|e| errors::load_error(py, &e))
    }

    /// What the last load did: `{"components": [...], "warnings": [...]}`, each
    /// component with `name`, `path`, `tools`, `compiled`, `elapsed_ms` and
    /// `provenance` (`{"kind": "local"}` or `{"kind": "pulled", "reference", "signed_by"}`).
    fn load_report<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::serialized_to_python(py, &self.host.load_report())
    }

    /// The warnings of the last load: files skipped, manifest entries not applied.
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.host.load_report().warnings
    }

    fn __len__(&self) -> usize {
        self.host.tools().len()
    }

    fn __contains__(&self, name: &str) -> bool {
        self.host.tool(name).is_some()
    }

    fn __repr__(&self) -> String {
        format!("Host({} tools)", self.host.tools().len())
    }
}

impl PyHost {
    /// Converts the arguments, then runs the call with the GIL released.
    fn dispatch_json(&self, py: Python<'_>, name: &str, arguments: Option<&Bound<'_, PyAny>>) -> PyResult<CallOutcome> {
        let json = arguments_json(arguments).map_err(|error| unsendable_error(py, name, error))?;
        Ok(py.detach(|| self.asking(self.host.request(name)).arguments(&json).run()))
    }

    /// `request`, asking through the host's `Approval` function when it has one.
    fn asking<'a>(&self, request: CallRequest<'a>) -> CallRequest<'a> {
        asking(request, self.observer.as_ref())
    }
}

/// `request`, asking approvals through `observer` when there is one.
fn asking<'a>(request: CallRequest<'a>, observer: Option<&Arc<dyn CallObserver>>) -> CallRequest<'a> {
    match observer {
        Some(observer) => request.observer(observer.clone()),
        None => request,
    }
}

/// The arguments as JSON; none at all is an empty object.
fn arguments_json(arguments: Option<&Bound<'_, PyAny>>) -> Result<Value, Unsendable> {
    match arguments {
        None => Ok(Value::Object(Default::default())),
        Some(arguments) => convert::to_json(arguments),
    }
}

/// A value that cannot be sent: a NaN is a model's slip (a corrective message), any
/// other is the program's `TypeError`.
fn unsendable_error(py: Python<'_>, name: &str, error: Unsendable) -> PyErr {
    match error {
        Unsendable::NotFinite { path, value } => {
            errors::tool_error(py, &ToolError::not_json(name, &path, &value.to_string()))
        }
        Unsendable::Type(error) => error,
    }
}

/// The done-callback of a `call_async` future: cancels the call when the future was
/// cancelled.
#[pyclass]
struct CancelOnDone(Mutex<Option<tokio::sync::oneshot::Sender<()>>>);

#[pymethods]
impl CancelOnDone {
    fn __call__(&self, future: &Bound<'_, PyAny>) -> PyResult<()> {
        if future.call_method0("cancelled")?.is_truthy()? {
            let sender = self.0.lock().map_or(None, |mut sender| sender.take());
            if let Some(sender) = sender {
                let _ = sender.send(());
            }
        }
        Ok(())
    }
}

/// Resolves an asyncio future from a worker thread, unless it was cancelled or its
/// loop has closed (then nobody is waiting for the result).
fn settle(py: Python<'_>, event_loop: &Py<PyAny>, future: &Py<PyAny>, outcome: CallOutcome) {
    let resolve = |method: &str, value: Bound<'_, PyAny>| -> PyResult<()> {
        let setter = py.import("toolhost._errors")?.getattr("settle_future")?;
        event_loop.bind(py).call_method1("call_soon_threadsafe", (setter, future, method, value))?;
        Ok(())
    };
    let value = match &outcome.result {
        Ok(value) => convert::to_python(py, value).map(|v| ("set_result", v)),
        Err(error) => errors::tool_error_value(py, error).map(|e| ("set_exception", e)),
    };
    let resolved = match value {
        Ok((method, value)) => resolve(method, value),
        Err(failure) => resolve("set_exception", failure.into_value(py).into_bound(py).into_any()),
    };
    // Only a closed loop fails here: nothing is waiting, so there is nobody to tell.
    drop(resolved);
}

/// Runs `future` on the worker pool and waits for it, the GIL released.
fn wait<T: Send + 'static>(py: Python<'_>, future: impl Future<Output = T> + Send + 'static) -> PyResult<T> {
    let pool = worker_pool()?;
    Ok(py.detach(|| pool.block_on(future)))
}

/// The threads `call_async` runs tools on: tokio's blocking pool, started once.
fn worker_pool() -> PyResult<&'static tokio::runtime::Handle> {
    static POOL: OnceLock<Result<tokio::runtime::Runtime, String>> = OnceLock::new();
    let runtime = POOL.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("toolhost-call")
            // A call's waits are timed (an approval's, a tool's time limit).
            .enable_time()
            .build()
            .map_err(|e| e.to_string())
    });
    match runtime {
        Ok(runtime) => Ok(runtime.handle()),
        Err(reason) => Err(PyRuntimeError::new_err(format!("toolhost: cannot start the call threads: {reason}"))),
    }
}

//! The values the Python `Host` hands out and takes: `Limits`, `Capacity`, `Tool`, `CallOutcome`,
//! `Extraction` and `ExtractedCall`, each a thin read-only view of the library's type.

use std::time::Duration;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use toolhost::{CallOutcome, ExtractedCall, Extraction, ToolSpec};

use crate::{convert, errors};

/// Resource limits for one call: time, memory, captured output and result size.
#[pyclass(name = "Limits", module = "toolhost", frozen, eq)]
#[derive(Clone, PartialEq)]
pub(crate) struct PyLimits {
    pub(crate) limits: toolhost::Limits,
}

#[pymethods]
impl PyLimits {
    /// Limits for each call; anything left out keeps the library's default
    /// (10 s, 256 MiB, 64 KiB of output, 1 MiB of result).
    #[new]
    #[pyo3(signature = (*, time_ms=None, memory_mb=None, output_kb=None, result_kb=None))]
    fn new(
        time_ms: Option<u64>,
        memory_mb: Option<u64>,
        output_kb: Option<usize>,
        result_kb: Option<usize>,
    ) -> PyResult<Self> {
        let mut limits = toolhost::Limits::default();
        if let Some(ms) = time_ms {
            limits.time = Duration::from_millis(positive(ms, "time_ms")?);
        }
        if let Some(mb) = memory_mb {
            limits.memory_bytes = positive(mb, "memory_mb")?.saturating_mul(1 << 20);
        }
        if let Some(kb) = output_kb {
            limits.output_bytes = kb.saturating_mul(1 << 10);
        }
        if let Some(kb) = result_kb {
            limits.result_bytes = (positive(kb as u64, "result_kb")? as usize).saturating_mul(1 << 10);
        }
        Ok(PyLimits { limits })
    }

    /// Wall-clock time a call may take, in milliseconds.
    #[getter]
    fn time_ms(&self) -> u128 {
        self.limits.time.as_millis()
    }

    /// Memory one call's instance may grow to, in bytes.
    #[getter]
    fn memory_bytes(&self) -> u64 {
        self.limits.memory_bytes
    }

    /// Bytes of stdout and of stderr kept per call.
    #[getter]
    fn output_bytes(&self) -> usize {
        self.limits.output_bytes
    }

    /// Largest result, as JSON text, in bytes.
    #[getter]
    fn result_bytes(&self) -> usize {
        self.limits.result_bytes
    }

    fn __repr__(&self) -> String {
        let l = &self.limits;
        format!(
            "Limits(time_ms={}, memory_bytes={}, output_bytes={}, result_bytes={})",
            l.time.as_millis(),
            l.memory_bytes,
            l.output_bytes,
            l.result_bytes
        )
    }
}

/// How many calls a host runs at once, and how many wait for a turn and how long.
#[pyclass(name = "Capacity", module = "toolhost", frozen, eq)]
#[derive(Clone, PartialEq)]
pub(crate) struct PyCapacity {
    pub(crate) capacity: toolhost::Capacity,
}

#[pymethods]
impl PyCapacity {
    /// Anything left out keeps the library's default (four calls per core at once,
    /// at least four; 1,024 waiting; 30 s of waiting each).
    #[new]
    #[pyo3(signature = (*, max_concurrent_calls=None, max_queued_calls=None, queue_timeout_ms=None))]
    fn new(
        max_concurrent_calls: Option<usize>,
        max_queued_calls: Option<usize>,
        queue_timeout_ms: Option<u64>,
    ) -> PyResult<Self> {
        let mut capacity = toolhost::Capacity::default();
        if let Some(calls) = max_concurrent_calls {
            capacity.max_concurrent_calls = positive(calls as u64, "max_concurrent_calls")? as usize;
        }
        if let Some(calls) = max_queued_calls {
            capacity.max_queued_calls = calls;
        }
        if let Some(ms) = queue_timeout_ms {
            capacity.queue_timeout = Duration::from_millis(ms);
        }
        Ok(PyCapacity { capacity })
    }

    /// Calls that run at the same time.
    #[getter]
    fn max_concurrent_calls(&self) -> usize {
        self.capacity.max_concurrent_calls
    }

    /// Calls that may wait for a turn; one more is refused as busy at once.
    #[getter]
    fn max_queued_calls(&self) -> usize {
        self.capacity.max_queued_calls
    }

    /// How long a call may wait for a turn, in milliseconds.
    #[getter]
    fn queue_timeout_ms(&self) -> u128 {
        self.capacity.queue_timeout.as_millis()
    }

    fn __repr__(&self) -> String {
        let c = &self.capacity;
        format!(
            "Capacity(max_concurrent_calls={}, max_queued_calls={}, queue_timeout_ms={})",
            c.max_concurrent_calls,
            c.max_queued_calls,
            c.queue_timeout.as_millis()
        )
    }
}

fn positive(value: u64, name: &str) -> PyResult<u64> {
    if value == 0 {
        return Err(PyValueError::new_err(format!("{name} must be at least 1")));
    }
    Ok(value)
}

/// One tool as the model sees it.
#[pyclass(name = "Tool", module = "toolhost", frozen)]
pub(crate) struct PyTool {
    pub(crate) spec: ToolSpec,
}

#[pymethods]
impl PyTool {
    /// The name the model calls it by.
    #[getter]
    fn name(&self) -> &str {
        &self.spec.name
    }

    /// The component (or MCP server) it belongs to.
    #[getter]
    fn component(&self) -> &str {
        &self.spec.component
    }

    /// What it does, for the model.
    #[getter]
    fn description(&self) -> &str {
        &self.spec.description
    }

    /// A human-readable name.
    #[getter]
    fn title(&self) -> &str {
        &self.spec.title
    }

    /// The JSON Schema of its arguments (an object schema), as a dict.
    #[getter]
    fn parameters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::to_python(py, &self.spec.parameters_schema())
    }

    /// The JSON Schema of its result, or None when it returns nothing.
    #[getter]
    fn result<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::to_python(py, &self.spec.result_schema().unwrap_or_default())
    }

    /// What it can touch, derived from its sandbox: `read_only`, `destructive`,
    /// `idempotent` and `open_world`, as MCP's tool annotations mean them.
    #[getter]
    fn annotations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::serialized_to_python(py, &self.spec.annotations)
    }

    /// Whether it runs in the host's sandbox (False for an MCP server's tool or a REST API's).
    #[getter]
    fn sandboxed(&self) -> bool {
        self.spec.sandboxed()
    }

    /// Its definition in a model provider's format (see `Host.tool_definitions`).
    fn definition<'py>(&self, py: Python<'py>, format: &str) -> PyResult<Bound<'py, PyAny>> {
        convert::to_python(py, &self.spec.definition(convert::tool_format(format)?))
    }

    fn __repr__(&self) -> String {
        format!("Tool(name={:?}, component={:?})", self.spec.name, self.spec.component)
    }
}

/// What a call did: which tool ran (after any repair), and its value or error.
#[pyclass(name = "CallOutcome", module = "toolhost", frozen)]
pub(crate) struct PyCallOutcome {
    /// The registered name of the tool that ran, or None when the name did not resolve.
    #[pyo3(get)]
    tool: Option<String>,
    /// The name the model sent, when it was repaired into `tool`.
    #[pyo3(get)]
    repaired_from: Option<String>,
    /// What the host changed to run the call, each in words (`name 'uber_ride' →
    /// 'uber.ride'`); empty when the call was right as sent.
    #[pyo3(get)]
    repairs: Vec<String>,
    /// The result as Python values (None when the call failed).
    #[pyo3(get)]
    value: Py<PyAny>,
    /// The `ToolExecutionError` (not raised), or None when the call succeeded.
    #[pyo3(get)]
    error: Option<Py<PyAny>>,
    /// The content blocks the tool added (images, audio, resources), each a dict in
    /// MCP's form (`{"type": "image", "data": base64, "mimeType": ...}`).
    #[pyo3(get)]
    content: Py<PyAny>,
    /// Whether a person approved the call before it ran (`Approval`).
    #[pyo3(get)]
    approved: bool,
    outcome: CallOutcome,
}

impl PyCallOutcome {
    pub(crate) fn new(py: Python<'_>, outcome: CallOutcome) -> PyResult<Self> {
        let (value, error) = match &outcome.result {
            Ok(value) => (convert::to_python(py, value)?.unbind(), None),
            Err(error) => (py.None(), Some(errors::tool_error_value(py, error)?.unbind())),
        };
        let repairs = outcome.repairs.iter().map(ToString::to_string).collect();
        let content = convert::to_python(py, &serde_json::to_value(&outcome.content).unwrap_or_default())?.unbind();
        let (tool, repaired_from) = (outcome.tool.clone(), outcome.repaired_from.clone());
        let approved = outcome.approved;
        Ok(PyCallOutcome { tool, repaired_from, repairs, value, error, content, approved, outcome })
    }
}

#[pymethods]
impl PyCallOutcome {
    /// Whether the call succeeded.
    #[getter]
    fn ok(&self) -> bool {
        self.error.is_none()
    }

    /// The result as `format`'s tool-result message carries it: `"mcp"` (content
    /// blocks), `"anthropic"` (`tool_result` content, with images), `"openai-responses"`
    /// (`function_call_output` output, with images), `"openai"` (text).
    fn tool_result<'py>(&self, py: Python<'py>, format: &str) -> PyResult<Bound<'py, PyAny>> {
        convert::to_python(py, &self.outcome.tool_result(convert::tool_format(format)?))
    }

    /// The value, or raises the error.
    fn unwrap(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match &self.error {
            Some(error) => Err(PyErr::from_value(error.bind(py).clone())),
            None => Ok(self.value.clone_ref(py)),
        }
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let shown = |object: &Py<PyAny>| object.bind(py).repr().map(|r| r.to_string()).unwrap_or_default();
        match &self.error {
            Some(error) => format!("CallOutcome(tool={:?}, error={})", self.tool, shown(error)),
            None => format!("CallOutcome(tool={:?}, value={})", self.tool, shown(&self.value)),
        }
    }
}

/// The tool calls a model wrote into its reply text (see `Host.extract_calls`).
#[pyclass(name = "Extraction", module = "toolhost", frozen)]
pub(crate) struct PyExtraction {
    /// The calls, each resolved to one tool, in the order written.
    #[pyo3(get)]
    calls: Vec<Py<PyExtractedCall>>,
    /// What was written like a call but is not one, each with its `error`.
    #[pyo3(get)]
    rejected: Vec<Py<PyExtractedCall>>,
    summary: String,
}

impl PyExtraction {
    pub(crate) fn new(py: Python<'_>, extraction: Extraction) -> PyResult<Self> {
        let wrap = |calls: Vec<ExtractedCall>| -> PyResult<Vec<Py<PyExtractedCall>>> {
            calls.into_iter().map(|call| Py::new(py, PyExtractedCall { call })).collect()
        };
        let summary = extraction.summary();
        Ok(PyExtraction { calls: wrap(extraction.calls)?, rejected: wrap(extraction.rejected)?, summary })
    }
}

#[pymethods]
impl PyExtraction {
    /// A line saying what was found, e.g. `2 calls, 1 rejected`.
    fn summary(&self) -> &str {
        &self.summary
    }

    fn __len__(&self) -> usize {
        self.calls.len()
    }

    fn __repr__(&self) -> String {
        format!("Extraction({})", self.summary)
    }
}

/// One call found in a reply; run it with `Host.dispatch_call`.
#[pyclass(name = "ExtractedCall", module = "toolhost", frozen)]
pub(crate) struct PyExtractedCall {
    pub(crate) call: ExtractedCall,
}

#[pymethods]
impl PyExtractedCall {
    /// The name as the model wrote it.
    #[getter]
    fn name(&self) -> &str {
        &self.call.name
    }

    /// The registered tool it resolves to, or None when its name does not resolve.
    #[getter]
    fn tool(&self) -> Option<&str> {
        self.call.tool.as_deref()
    }

    /// The arguments, as Python values.
    #[getter]
    fn arguments<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::to_python(py, &self.call.arguments)
    }

    /// Where in the reply it was written, as (start, end) offsets into its UTF-8 bytes.
    #[getter]
    fn span(&self) -> (usize, usize) {
        (self.call.span.start, self.call.span.end)
    }

    /// How it was written: the dialect's name (`tool_call_tag`, `harmony`, `kimi`, …;
    /// the README's table lists them).
    #[getter]
    fn dialect(&self) -> &'static str {
        self.call.dialect.name()
    }

    /// What was repaired to read it.
    #[getter]
    fn repairs(&self) -> Vec<String> {
        self.call.repairs.iter().map(ToString::to_string).collect()
    }

    /// Why it is not a call (a `ToolExecutionError`, not raised), or None.
    #[getter]
    fn error<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.call.rejected.as_ref().map(|error| errors::tool_error_value(py, error)).transpose()
    }

    /// The call as a dict, as the library serialises it.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::serialized_to_python(py, &self.call)
    }

    fn __repr__(&self) -> String {
        format!(
            "ExtractedCall(name={:?}, tool={:?}, arguments={})",
            self.call.name, self.call.tool, self.call.arguments
        )
    }
}

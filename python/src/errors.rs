//! The library's errors as the package's Python exceptions (defined in
//! `toolhost/_errors.py`, where they get their attributes and `to_dict()`).

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;
use toolhost::{LoadError, ToolError, ToolsetError};

use crate::convert;

/// A `toolhost.ToolExecutionError` for `error`: its `str()` is the corrective
/// message, its attributes the fields of `ToolError::to_json`.
pub(crate) fn tool_error(py: Python<'_>, error: &ToolError) -> PyErr {
    match tool_error_value(py, error) {
        Ok(exception) => PyErr::from_value(exception),
        Err(failure) => failure,
    }
}

/// The exception object itself, for `CallOutcome.error` (not raised).
pub(crate) fn tool_error_value<'py>(py: Python<'py>, error: &ToolError) -> PyResult<Bound<'py, PyAny>> {
    let details = convert::to_python(py, &error.to_json())?;
    exception_class(py, "ToolExecutionError")?.call1((error.to_string(), details))
}

/// A `toolhost.LoadError` for a host that could not be built or reloaded.
pub(crate) fn load_error(py: Python<'_>, error: &LoadError) -> PyErr {
    raise(py, "LoadError", error.to_string())
}

/// A `toolhost.ToolsetError` (a `ValueError`) for a toolset naming no single tool.
pub(crate) fn toolset_error(py: Python<'_>, error: &ToolsetError) -> PyErr {
    raise(py, "ToolsetError", error.to_string())
}

/// A `toolhost.RegistryError` for a pull or push that did not happen.
pub(crate) fn registry_error(py: Python<'_>, error: &toolhost::oci::RegistryError) -> PyErr {
    raise(py, "RegistryError", error.to_string())
}

fn raise(py: Python<'_>, class: &str, message: String) -> PyErr {
    match exception_class(py, class) {
        Ok(class) => PyErr::from_type(class, message),
        Err(failure) => failure,
    }
}

/// A class of `toolhost._errors`, imported once.
fn exception_class<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyType>> {
    static MODULE: PyOnceLock<Py<PyModule>> = PyOnceLock::new();
    let module = MODULE.get_or_try_init(py, || py.import("toolhost._errors").map(Bound::unbind))?;
    module.bind(py).getattr(name)?.cast_into::<PyType>().map_err(PyErr::from)
}

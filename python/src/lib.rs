//! `toolhost._native`: the toolhost library for Python, through PyO3. The package's
//! Python half (`toolhost/`) re-exports these classes and adds the exceptions and
//! `Host.functions()`'s signatures; nothing of the host is implemented twice.
//!
//! - `host`: the `Host` class (loading, calls, toolsets, definitions, extraction)
//! - `approval`: `Approval`, a person's yes asked through a Python function
//! - `types`: `Limits`, `Capacity`, `Tool`, `CallOutcome`, `Extraction`, `ExtractedCall`
//! - `convert`: Python values ↔ JSON
//! - `oci`: `pull` and `push`, components from and to OCI registries
//! - `errors`: the library's errors as the package's exceptions

mod approval;
mod convert;
mod errors;
mod host;
mod oci;
mod types;

use pyo3::prelude::*;

#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<host::PyHost>()?;
    module.add_class::<approval::PyApproval>()?;
    module.add_class::<types::PyLimits>()?;
    module.add_class::<types::PyCapacity>()?;
    module.add_class::<types::PyTool>()?;
    module.add_class::<types::PyCallOutcome>()?;
    module.add_class::<types::PyExtraction>()?;
    module.add_class::<types::PyExtractedCall>()?;
    module.add_function(wrap_pyfunction!(oci::pull, module)?)?;
    module.add_function(wrap_pyfunction!(oci::push, module)?)?;
    Ok(())
}

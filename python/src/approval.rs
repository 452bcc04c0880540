//! `toolhost.Approval`: a person's yes before a tool that changes things runs, asked
//! through a Python function the host calls with the tool's name and arguments.

use std::sync::Arc;
use std::time::Duration;

use futures::future::{BoxFuture, FutureExt as _};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBool;
use serde_json::{Value, json};
use toolhost::{CallObserver, Elicitation, ElicitationAnswer};

use crate::convert;

/// Which tools ask a person before each call, and the function that asks them.
///
/// `ask(tool, arguments)` gets the tool's name and its arguments (a dict, as the tool
/// will get them) and returns `True` to let the call run; anything else, an exception,
/// or no answer within `wait_s` seconds leaves it unrun, and the model is told so.
/// `ask` runs on a thread of its own, so it may block (on `input()`, a UI, a chat
/// message). The tools that ask: with `destructive=True` those whose hints say they
/// may destroy something, those whose names match `tools` (`"send_*"`), and those
/// whose manifest says `approval = true`.
#[pyclass(name = "Approval", module = "toolhost", frozen)]
pub(crate) struct PyApproval {
    pub(crate) approval: toolhost::Approval,
    pub(crate) asker: Arc<Asker>,
}

#[pymethods]
impl PyApproval {
    #[new]
    #[pyo3(signature = (ask, *, destructive=true, tools=Vec::new(), wait_s=120.0))]
    fn new(ask: &Bound<'_, PyAny>, destructive: bool, tools: Vec<String>, wait_s: f64) -> PyResult<Self> {
        if !ask.is_callable() {
            return Err(PyTypeError::new_err("ask must be a function taking (tool, arguments) and returning a bool"));
        }
        let wait = Duration::try_from_secs_f64(wait_s)
            .map_err(|_| PyValueError::new_err(format!("wait_s must be a number of seconds ≥ 0, not {wait_s}")))?;
        let approval = match destructive {
            true => toolhost::Approval::destructive_tools(),
            false => toolhost::Approval::default(),
        };
        let asker = Arc::new(Asker { ask: Arc::new(ask.clone().unbind()) });
        Ok(PyApproval { approval: approval.tools(tools).wait(wait), asker })
    }
}

/// The observer of a host's calls that asks the Python function.
pub(crate) struct Asker {
    ask: Arc<Py<PyAny>>,
}

impl CallObserver for Asker {
    fn approve(&self, tool: &str, arguments: &Value, _question: Elicitation) -> BoxFuture<'static, ElicitationAnswer> {
        let (ask, tool, arguments) = (self.ask.clone(), tool.to_string(), arguments.clone());
        let (answer, answered) = futures::channel::oneshot::channel();
        // A thread of its own: the function may wait on a person for longer than the
        // host waits, and the host's wait must still end the call in time.
        let asking = std::thread::Builder::new().name("toolhost-approval".into()).spawn(move || {
            let said = Python::attach(|py| ask_person(py, &ask, &tool, &arguments));
            let _ = answer.send(said);
        });
        match asking {
            Ok(_) => async move { answered.await.unwrap_or(ElicitationAnswer::Cancel) }.boxed(),
            Err(_) => futures::future::ready(ElicitationAnswer::Cancel).boxed(),
        }
    }
}

/// What `ask` said about `tool` with `arguments`: only `True` approves; an exception
/// is shown as Python shows an unraisable one, and dismisses the question.
fn ask_person(py: Python<'_>, ask: &Py<PyAny>, tool: &str, arguments: &Value) -> ElicitationAnswer {
    let said = convert::to_python(py, arguments).and_then(|arguments| ask.call1(py, (tool, arguments)));
    match said {
        Ok(said) if said.bind(py).is(PyBool::new(py, true)) => ElicitationAnswer::Accept(json!({"approve": true})),
        Ok(_) => ElicitationAnswer::Decline,
        Err(error) => {
            error.write_unraisable(py, Some(ask.bind(py)));
            ElicitationAnswer::Cancel
        }
    }
}

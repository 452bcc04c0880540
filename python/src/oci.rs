//! `toolhost.pull` and `toolhost.push`: the library's registry operations for Python,
//! run with the GIL released; a failure is a `toolhost.RegistryError`.

use std::path::PathBuf;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use toolhost::oci::{self, Credentials, RegistryError, RegistryOptions, SigningKey, VerifyingKey};

use crate::{convert, errors};

/// Pulls the component `reference` names into the folder `plugins` (recording it in
/// its `toolhost.lock`), or with no reference everything the lock names again. With
/// `keys` (paths of PEM public keys, as `cosign.pub`) only an artifact carrying a cosign
/// signature of one of them is pulled. Returns one dict per component: `name`, `path`,
/// `reference`, `artifact`, `sha256`, `bytes`, `manifest`, `signed_by`.
#[pyfunction]
#[pyo3(signature = (reference, plugins, *, keys=Vec::new(), insecure=false, username=None, password=None))]
pub(crate) fn pull<'py>(
    py: Python<'py>,
    reference: Option<String>,
    plugins: PathBuf,
    keys: Vec<PathBuf>,
    insecure: bool,
    username: Option<String>,
    password: Option<String>,
) -> PyResult<Bound<'py, PyAny>> {
    let outcome = py.detach(|| -> Result<Vec<oci::Pulled>, Failure> {
        let mut options = options(insecure, username, password);
        for key in &keys {
            options.keys.push(VerifyingKey::from_file(key)?);
        }
        block_on(oci::pull_into(&plugins, reference.as_deref(), &options))?.map_err(Failure::from)
    });
    let pulled = outcome.map_err(|failure| failure.raise(py))?;
    convert::serialized_to_python(py, &pulled)
}

/// Pushes the component `file` (with `NAME.toml` beside it, if any) to `reference`
/// once it loads as a tool component; with `sign` (a private key file, its password in
/// `key_password`) signs it as cosign does. Returns a dict: `reference`, `artifact`,
/// `sha256`, `tools`, `signed_by`.
#[pyfunction]
#[pyo3(signature = (file, reference, *, sign=None, key_password=None, insecure=false, username=None, password=None))]
#[allow(clippy::too_many_arguments)] // Python's keyword arguments.
pub(crate) fn push<'py>(
    py: Python<'py>,
    file: PathBuf,
    reference: String,
    sign: Option<PathBuf>,
    key_password: Option<String>,
    insecure: bool,
    username: Option<String>,
    password: Option<String>,
) -> PyResult<Bound<'py, PyAny>> {
    let outcome = py.detach(|| -> Result<oci::Pushed, Failure> {
        let mut options = options(insecure, username, password);
        if let Some(key) = &sign {
            let secret = key_password.unwrap_or_default();
            options.signing_key = Some(SigningKey::from_file(key, secret.as_bytes())?);
        }
        block_on(oci::push(&file, &reference, &options))?.map_err(Failure::from)
    });
    let pushed = outcome.map_err(|failure| failure.raise(py))?;
    convert::serialized_to_python(py, &pushed)
}

fn options(insecure: bool, username: Option<String>, password: Option<String>) -> RegistryOptions {
    let mut options = RegistryOptions::default();
    options.insecure = insecure;
    options.credentials = username.map(|username| Credentials::new(&username, &password.unwrap_or_default()));
    options
}

/// Why a pull or push did not happen.
enum Failure {
    Registry(RegistryError),
    Runtime(std::io::Error),
}

impl From<RegistryError> for Failure {
    fn from(error: RegistryError) -> Self {
        Failure::Registry(error)
    }
}

impl Failure {
    fn raise(self, py: Python<'_>) -> PyErr {
        match self {
            Failure::Registry(error) => errors::registry_error(py, &error),
            Failure::Runtime(error) => PyRuntimeError::new_err(format!("cannot start an async runtime: {error}")),
        }
    }
}

/// Runs `work` on a runtime of its own (a call from Python comes with none).
fn block_on<T>(work: impl Future<Output = T>) -> Result<T, Failure> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(Failure::Runtime)?;
    Ok(runtime.block_on(work))
}

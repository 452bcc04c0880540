//! Why a pull or a push did not happen: [`RegistryError`], and the OCI client's
//! errors put in its words.

use std::path::{Path, PathBuf};

use oci_client::Reference;
use oci_client::errors::{OciDistributionError, OciErrorCode};

/// Why a pull or a push did not happen.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// The reference cannot be parsed.
    #[error(
        "'{reference}' is not an OCI reference ({reason}): write it as registry/repository:tag or registry/repository@sha256:…"
    )]
    Reference {
        /// The reference as given.
        reference: String,
        /// Why not.
        reason: String,
    },
    /// The registry has no such repository, tag or digest.
    #[error("{reference} was not found in its registry (no such repository, tag or digest)")]
    NotFound {
        /// The reference.
        reference: String,
    },
    /// The registry refused the credentials, or asked for some.
    #[error(
        "{registry} refused access to {reference}: give credentials with --username and \
         --password-stdin, or log in with `docker login {registry}` (Docker's config.json is read)"
    )]
    Unauthorized {
        /// The registry.
        registry: String,
        /// The reference.
        reference: String,
    },
    /// The registry could not be reached.
    #[error("cannot reach the registry {registry}: {reason}")]
    Unreachable {
        /// The registry.
        registry: String,
        /// What failed.
        reason: String,
    },
    /// The artifact is not a WebAssembly component.
    #[error("{reference} is not a WebAssembly component artifact: {reason}")]
    NotWasm {
        /// The reference.
        reference: String,
        /// What it is instead.
        reason: String,
    },
    /// What was pulled is not what the registry or the lock file said it would be.
    #[error("{reference}: {reason}; nothing was written")]
    Digest {
        /// The reference.
        reference: String,
        /// Which digests differ.
        reason: String,
    },
    /// The registry answered with an error.
    #[error("{reference}: the registry answered: {reason}")]
    Registry {
        /// The reference.
        reference: String,
        /// What it said.
        reason: String,
    },
    /// A component that does not load is not pushed.
    #[error("{}: not pushed, it does not load as a tool component: {reason}", .path.display())]
    Check {
        /// The file.
        path: PathBuf,
        /// Why it does not load.
        reason: String,
    },
    /// The artifact is not signed with any of the keys given.
    #[error("{reference} is refused: {reason}; nothing was written")]
    Unsigned {
        /// The reference.
        reference: String,
        /// What signatures it has.
        reason: String,
    },
    /// A signing or verifying key cannot be used.
    #[error("the key {key} cannot be used: {reason}")]
    Key {
        /// The key's file (or what it is).
        key: String,
        /// Why not.
        reason: String,
    },
    /// Docker's `config.json` cannot be used.
    #[error("cannot use the credentials in {}: {reason}", .path.display())]
    Credentials {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The plugin folder, a file in it, or its lock file cannot be written or read.
    #[error("{}: {reason}", .path.display())]
    Folder {
        /// The file or folder.
        path: PathBuf,
        /// What failed.
        reason: String,
    },
}

/// The error for a plugin folder, or a file in it, that cannot be read or written.
pub(super) fn folder_error(path: &Path, error: impl std::fmt::Display) -> RegistryError {
    RegistryError::Folder { path: path.to_path_buf(), reason: error.to_string() }
}

/// A client error in the words of [`RegistryError`].
pub(super) fn classify(error: OciDistributionError, parsed: &Reference, reference: &str) -> RegistryError {
    let registry = parsed.resolve_registry().to_string();
    let reference = reference.to_string();
    match error {
        OciDistributionError::ImageManifestNotFoundError(_) => RegistryError::NotFound { reference },
        OciDistributionError::AuthenticationFailure(_) | OciDistributionError::UnauthorizedError { .. } => {
            RegistryError::Unauthorized { registry, reference }
        }
        OciDistributionError::RegistryError { envelope, .. } => {
            let codes: Vec<&OciErrorCode> = envelope.errors.iter().map(|e| &e.code).collect();
            if codes.iter().any(|c| {
                matches!(c, OciErrorCode::ManifestUnknown | OciErrorCode::NameUnknown | OciErrorCode::NotFound)
            }) {
                RegistryError::NotFound { reference }
            } else if codes.iter().any(|c| matches!(c, OciErrorCode::Unauthorized | OciErrorCode::Denied)) {
                RegistryError::Unauthorized { registry, reference }
            } else {
                RegistryError::Registry { reference, reason: envelope.to_string() }
            }
        }
        OciDistributionError::ServerError { code: 404, .. } => RegistryError::NotFound { reference },
        OciDistributionError::ServerError { code: 401 | 403, .. } => {
            RegistryError::Unauthorized { registry, reference }
        }
        OciDistributionError::RequestError(error) if error.is_connect() || error.is_timeout() => {
            RegistryError::Unreachable { registry, reason: error_chain(&error) }
        }
        OciDistributionError::DigestError(error) => RegistryError::Digest { reference, reason: error.to_string() },
        other => RegistryError::Registry { reference, reason: error_chain(&other) },
    }
}

/// An error with its sources, as one line.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

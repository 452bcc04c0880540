//! Tools from a registry: components pulled from any registry that speaks the OCI
//! distribution API into a plugin folder, each recorded with its digest in the
//! folder's `toolhost.lock` (which loading then enforces, `load/lockfile.rs`), and
//! pushed from a checked file in the CNCF Wasm layout (`artifact.rs`), signed and
//! verified as cosign signs and verifies (`sign.rs`). Credentials are found as
//! container tools keep them (`auth.rs`).
//!
//! ```no_run
//! # async fn run() -> Result<(), toolhost::registry::RegistryError> {
//! use toolhost::registry::{RegistryOptions, pull};
//!
//! let pulled = pull("ghcr.io/example/weather:1.2.0", "plugins".as_ref(), &RegistryOptions::default()).await?;
//! println!("{} ({}, {} bytes)", pulled.path.display(), pulled.sha256, pulled.bytes);
//! # Ok(())
//! # }
//! ```

mod artifact;
mod auth;
mod sign;

pub use sign::{SigningKey, VerifyingKey, generate_key_pair};

use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::task::{Context, Poll};

use oci_client::client::{ClientConfig, ClientProtocol};
use oci_client::errors::{OciDistributionError, OciErrorCode};
use oci_client::manifest::OciDescriptor;
use oci_client::{Client, Reference};

use crate::host::Host;
use crate::load::{
    DEFAULT_MAX_COMPONENT_BYTES, LockEntry, MAX_MANIFEST_BYTES, lock_entries, manifest_path_for, record_lock_entry,
};
use crate::sys::read_regular_file;

/// How to reach registries.
#[derive(Debug, Clone)]
pub struct RegistryOptions {
    /// Speak plain HTTP to any registry (without it, only to loopback ones).
    pub insecure: bool,
    /// A user name and password, instead of Docker's `config.json`.
    pub credentials: Option<Credentials>,
    /// Docker's `config.json` to read credentials from (default:
    /// `$DOCKER_CONFIG/config.json`, else `~/.docker/config.json`); `None` reads none.
    pub docker_config: Option<PathBuf>,
    /// The largest component pulled, in bytes (default 256 MiB, as loading allows).
    pub max_component_bytes: u64,
    /// Keys a pulled artifact must carry a cosign signature of (one is enough); none:
    /// unsigned artifacts are pulled, and recorded as unverified.
    pub keys: Vec<VerifyingKey>,
    /// The key a pushed artifact is signed with, in cosign's format.
    pub signing_key: Option<SigningKey>,
}

impl Default for RegistryOptions {
    fn default() -> Self {
        RegistryOptions {
            insecure: false,
            credentials: None,
            docker_config: auth::docker_config_path(),
            max_component_bytes: DEFAULT_MAX_COMPONENT_BYTES,
            keys: Vec::new(),
            signing_key: None,
        }
    }
}

/// A user name and password for a registry.
#[derive(Clone)]
pub struct Credentials {
    /// The user name.
    pub username: String,
    /// The password (or token).
    pub password: String,
}

impl std::fmt::Debug for Credentials {
    /// Never shows the password.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials").field("username", &self.username).finish_non_exhaustive()
    }
}

/// A component pulled into a plugin folder.
#[derive(Debug, Clone)]
pub struct Pulled {
    /// Its name: the file is `NAME.wasm`.
    pub name: String,
    /// The file written.
    pub path: PathBuf,
    /// The reference as asked for.
    pub reference: String,
    /// The digest of the artifact's OCI manifest (pull `repository@digest` for exactly it).
    pub artifact: String,
    /// The SHA-256 of the component's bytes.
    pub sha256: String,
    /// The component's size.
    pub bytes: u64,
    /// Whether a toolhost manifest (`NAME.toml`) came with it.
    pub manifest: bool,
    /// The fingerprints of the keys its signature was verified with (empty: unverified).
    pub signed_by: Vec<String>,
}

/// A component pushed to a registry.
#[derive(Debug, Clone)]
pub struct Pushed {
    /// The reference pushed to.
    pub reference: String,
    /// The digest of the artifact's OCI manifest.
    pub artifact: String,
    /// The SHA-256 of the component's bytes (its layer's digest).
    pub sha256: String,
    /// The tools it carries.
    pub tools: Vec<String>,
    /// The fingerprint of the key it was signed with, if it was.
    pub signed_by: Option<String>,
}

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

/// Pulls the component `reference` names into `folder` as `NAME.wasm` (NAME: the last
/// part of the repository), with the toolhost manifest beside it if the artifact has
/// one, and records it in the folder's `toolhost.lock`.
pub async fn pull(reference: &str, folder: &Path, options: &RegistryOptions) -> Result<Pulled, RegistryError> {
    let parsed = parse_reference(reference)?;
    let name = name_of(&parsed, reference)?;
    fetch(&parsed, reference, &name, folder, options, None).await
}

/// Pulls again exactly what `folder`'s `toolhost.lock` names, each by its artifact
/// digest, and checks each component against its locked SHA-256.
pub async fn pull_locked(folder: &Path, options: &RegistryOptions) -> Result<Vec<Pulled>, RegistryError> {
    let entries = lock_entries(folder).map_err(|error| folder_error(folder, error))?;
    let mut pulled = Vec::with_capacity(entries.len());
    for entry in &entries {
        let parsed = parse_reference(&entry.reference)?;
        let pinned = match &entry.artifact {
            Some(digest) => parsed.clone_with_digest(digest.clone()),
            None => parsed,
        };
        pulled.push(fetch(&pinned, &entry.reference, &entry.name, folder, options, Some(entry)).await?);
    }
    Ok(pulled)
}

/// Pushes the component `file` (with its manifest, `NAME.toml` beside it, if there is
/// one) to `reference`, after loading it as `toolhost check` does: a component that
/// does not load is not pushed.
pub async fn push(file: &Path, reference: &str, options: &RegistryOptions) -> Result<Pushed, RegistryError> {
    let parsed = parse_reference(reference)?;
    let Checked { wasm, manifest, about } = checked_component(file)?;
    let sha256 = crate::load::sha256_digest(&wasm);
    let (layers, config, image_manifest) = artifact::assemble(wasm, manifest, &about);
    let client = client(&parsed, options);
    let auth =
        auth::for_registry(parsed.resolve_registry(), options.credentials.as_ref(), options.docker_config.as_deref())?;
    client
        .push(&parsed, &layers, config, &auth, Some(image_manifest))
        .await
        .map_err(|error| classify(error, &parsed, reference))?;
    let artifact =
        client.fetch_manifest_digest(&parsed, &auth).await.map_err(|error| classify(error, &parsed, reference))?;
    if let Some(key) = &options.signing_key {
        sign::sign(&client, &parsed, reference, &artifact, key, &auth).await?;
    }
    let signed_by = options.signing_key.as_ref().map(|key| key.id().to_string());
    Ok(Pushed { reference: reference.to_string(), artifact, sha256, tools: about.tools, signed_by })
}

/// Fetches one component and its manifest, checks them (against `locked` when
/// re-pulling), and writes them and the lock entry.
async fn fetch(
    parsed: &Reference,
    reference: &str,
    name: &str,
    folder: &Path,
    options: &RegistryOptions,
    locked: Option<&LockEntry>,
) -> Result<Pulled, RegistryError> {
    let client = client(parsed, options);
    let auth =
        auth::for_registry(parsed.resolve_registry(), options.credentials.as_ref(), options.docker_config.as_deref())?;
    let (image_manifest, artifact) =
        client.pull_image_manifest(parsed, &auth).await.map_err(|error| classify(error, parsed, reference))?;
    let (component_layer, manifest_layer) = artifact::layers_of(&image_manifest)
        .map_err(|reason| RegistryError::NotWasm { reference: reference.to_string(), reason })?;
    // Checked before a layer is fetched: the signature names the manifest's digest,
    // which the client has checked the manifest against.
    let signed_by = if options.keys.is_empty() {
        locked.map(|entry| entry.signed_by.clone()).unwrap_or_default()
    } else {
        sign::verify(parsed, reference, &artifact, &options.keys, &auth, options.insecure).await?
    };
    let wasm = pull_layer(&client, parsed, reference, component_layer, options.max_component_bytes).await?;
    let manifest = match manifest_layer {
        Some(layer) => Some(pull_layer(&client, parsed, reference, layer, MAX_MANIFEST_BYTES).await?),
        None => None,
    };
    let sha256 = crate::load::sha256_digest(&wasm);
    let manifest_sha256 = manifest.as_deref().map(crate::load::sha256_digest);
    if let Some(locked) = locked.filter(|locked| locked.sha256 != sha256) {
        let reason = format!("the component's SHA-256 is {sha256}, and toolhost.lock says {}", locked.sha256);
        return Err(RegistryError::Digest { reference: reference.to_string(), reason });
    }
    std::fs::create_dir_all(folder).map_err(|error| folder_error(folder, error))?;
    let path = folder.join(format!("{name}.wasm"));
    if let Some(manifest) = &manifest {
        write(&folder.join(format!("{name}.toml")), manifest)?;
    }
    write(&path, &wasm)?;
    let entry = LockEntry {
        name: name.to_string(),
        reference: reference.to_string(),
        artifact: Some(artifact.clone()),
        sha256: sha256.clone(),
        manifest_sha256,
        signed_by: signed_by.clone(),
    };
    record_lock_entry(folder, entry).map_err(|error| folder_error(folder, error))?;
    Ok(Pulled {
        name: name.to_string(),
        path,
        reference: reference.to_string(),
        artifact,
        sha256,
        bytes: wasm.len() as u64,
        manifest: manifest.is_some(),
        signed_by,
    })
}

/// One layer's bytes, refused when it says (or turns out) to be larger than `limit`;
/// the client checks its digest.
async fn pull_layer(
    client: &Client,
    parsed: &Reference,
    reference: &str,
    layer: &OciDescriptor,
    limit: u64,
) -> Result<Vec<u8>, RegistryError> {
    let too_large = || RegistryError::NotWasm {
        reference: reference.to_string(),
        reason: format!("its {} layer is larger than {limit} bytes", layer.media_type),
    };
    if u64::try_from(layer.size).map_or(true, |size| size > limit) {
        return Err(too_large());
    }
    let mut out = Bounded { bytes: Vec::new(), limit, overflowed: false };
    match client.pull_blob(parsed, layer, &mut out).await {
        Ok(()) => Ok(out.bytes),
        Err(_) if out.overflowed => Err(too_large()),
        Err(error) => Err(classify(error, parsed, reference)),
    }
}

/// A buffer that fails a write past its limit (a registry sending more than it said).
struct Bounded {
    bytes: Vec<u8>,
    limit: u64,
    overflowed: bool,
}

impl tokio::io::AsyncWrite for Bounded {
    fn poll_write(mut self: Pin<&mut Self>, _: &mut Context<'_>, data: &[u8]) -> Poll<std::io::Result<usize>> {
        if (self.bytes.len() + data.len()) as u64 > self.limit {
            self.overflowed = true;
            return Poll::Ready(Err(std::io::Error::other("more bytes than the layer's size")));
        }
        self.bytes.extend_from_slice(data);
        Poll::Ready(Ok(data.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// A client for `reference`'s registry, over the protocol `protocol_for` gives.
fn client(reference: &Reference, options: &RegistryOptions) -> Client {
    Client::new(ClientConfig {
        protocol: protocol_for(reference, options.insecure),
        connect_timeout: Some(std::time::Duration::from_secs(10)),
        read_timeout: Some(std::time::Duration::from_secs(60)),
        ..ClientConfig::default()
    })
}

/// How to reach `reference`'s registry: HTTPS, but plain HTTP to a loopback registry
/// (or any, with `insecure`).
fn protocol_for(reference: &Reference, insecure: bool) -> ClientProtocol {
    let registry = reference.resolve_registry().to_string();
    if insecure {
        ClientProtocol::Http
    } else if is_loopback(&registry) {
        ClientProtocol::HttpsExcept(vec![registry])
    } else {
        ClientProtocol::Https
    }
}

/// Whether `registry` (`host[:port]`) is on this machine's loopback interface.
fn is_loopback(registry: &str) -> bool {
    let host = match registry.strip_prefix('[') {
        Some(bracketed) => bracketed.split(']').next().unwrap_or_default(),
        None => registry.rsplit_once(':').map_or(registry, |(host, _)| host),
    };
    host == "localhost" || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

fn parse_reference(reference: &str) -> Result<Reference, RegistryError> {
    reference
        .parse::<Reference>()
        .map_err(|error| RegistryError::Reference { reference: reference.to_string(), reason: error.to_string() })
}

/// The component's name: the repository's last part, which must make a plain file name.
fn name_of(parsed: &Reference, reference: &str) -> Result<String, RegistryError> {
    let name = parsed.repository().rsplit('/').next().unwrap_or_default();
    let plain = !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b));
    if !plain || name.starts_with('.') {
        let reason = format!("its repository's last part '{name}' cannot name a file");
        return Err(RegistryError::Reference { reference: reference.to_string(), reason });
    }
    Ok(name.to_string())
}

/// A component about to be pushed: its bytes, its manifest's, and what the artifact
/// says about it.
struct Checked {
    wasm: Vec<u8>,
    manifest: Option<Vec<u8>>,
    about: artifact::Description,
}

/// The component in `file`, if it loads with at least one tool and no warning.
fn checked_component(file: &Path) -> Result<Checked, RegistryError> {
    let refuse = |reason: String| RegistryError::Check { path: file.to_path_buf(), reason };
    let host = Host::builder().component_file(file).build().map_err(|error| refuse(error.to_string()))?;
    let report = host.load_report();
    if let Some(warning) = report.warnings.first() {
        return Err(refuse(warning.clone()));
    }
    let tools = host.tools();
    if tools.is_empty() {
        return Err(refuse("it has no tools".into()));
    }
    // Read as loading reads them: regular files, within the same bounds.
    let wasm = read_regular_file(file, DEFAULT_MAX_COMPONENT_BYTES).map_err(|error| refuse(error.to_string()))?;
    let manifest_path = manifest_path_for(file);
    let manifest = match read_regular_file(&manifest_path, MAX_MANIFEST_BYTES) {
        Ok(bytes) => Some(bytes),
        Err(error) if error.is_not_found() => None,
        Err(error) => return Err(refuse(format!("cannot read {}: {error}", manifest_path.display()))),
    };
    let (imports, exports) = world_of(&wasm);
    let description = match tools.as_slice() {
        [one] => one.description.lines().next().map(str::to_string),
        _ => None,
    };
    let about = artifact::Description {
        exports,
        imports,
        tools: tools.iter().map(|tool| tool.name.clone()).collect(),
        description,
    };
    Ok(Checked { wasm, manifest, about })
}

/// The component's imported and exported names, from its WIT world.
fn world_of(wasm: &[u8]) -> (Vec<String>, Vec<String>) {
    let Ok(wit_parser::decoding::DecodedWasm::Component(resolve, world)) = wit_parser::decoding::decode(wasm) else {
        return (Vec::new(), Vec::new());
    };
    let world = &resolve.worlds[world];
    let names = |items: &wit_parser::IndexMap<wit_parser::WorldKey, wit_parser::WorldItem>| {
        items.keys().map(|key| resolve.name_world_key(key)).collect::<Vec<_>>()
    };
    (names(&world.imports), names(&world.exports))
}

/// Writes a pulled file whole, or not at all.
fn write(path: &Path, bytes: &[u8]) -> Result<(), RegistryError> {
    crate::sys::write_private_atomically(path, bytes).map_err(|error| folder_error(path, error))
}

fn folder_error(path: &Path, error: impl std::fmt::Display) -> RegistryError {
    RegistryError::Folder { path: path.to_path_buf(), reason: error.to_string() }
}

/// A client error in the words of [`RegistryError`].
fn classify(error: OciDistributionError, parsed: &Reference, reference: &str) -> RegistryError {
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

//! Pulling: a component and its manifest fetched from a registry by reference, or
//! again by the digests the plugin folder's `toolhost.lock` records, checked (sizes,
//! digests, signatures), written whole and recorded in the lock.

use std::path::Path;
use std::pin::Pin;
use std::task::{Context, Poll};

use oci_client::manifest::OciDescriptor;
use oci_client::{Client, Reference};

use super::client::{client, name_of, parse_reference};
use super::error::{classify, folder_error};
use super::{Pulled, RegistryError, RegistryOptions, artifact, auth, sign};
use crate::load::{LockEntry, MAX_MANIFEST_BYTES, lock_entries, record_lock_entry};

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

/// Pulls what a pull command is given: with a `reference`, that one component
/// ([`pull`]); without, again exactly what `folder`'s `toolhost.lock` names
/// ([`pull_locked`]).
///
/// ```no_run
/// # async fn run() -> Result<(), toolhost::oci::RegistryError> {
/// use toolhost::oci::{RegistryOptions, pull_into};
///
/// for pulled in pull_into("plugins".as_ref(), None, &RegistryOptions::default()).await? {
///     println!("{} <- {}", pulled.path.display(), pulled.reference);
/// }
/// # Ok(())
/// # }
/// ```
pub async fn pull_into(
    folder: &Path,
    reference: Option<&str>,
    options: &RegistryOptions,
) -> Result<Vec<Pulled>, RegistryError> {
    match reference {
        Some(reference) => pull(reference, folder, options).await.map(|one| vec![one]),
        None => pull_locked(folder, options).await,
    }
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

/// Writes a pulled file whole, or not at all.
fn write(path: &Path, bytes: &[u8]) -> Result<(), RegistryError> {
    crate::sys::write_private_atomically(path, bytes).map_err(|error| folder_error(path, error))
}

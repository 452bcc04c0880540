//! Pushing: a component that loads as a tool component, with its manifest, to a
//! registry in the CNCF Wasm layout, signed when a key is given.

use std::path::Path;

use super::client::{client, parse_reference};
use super::error::classify;
use super::{Pushed, RegistryError, RegistryOptions, artifact, auth, sign};
use crate::host::Host;
use crate::load::{DEFAULT_MAX_COMPONENT_BYTES, MAX_MANIFEST_BYTES, manifest_path_for};
use crate::sys::read_regular_file;

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

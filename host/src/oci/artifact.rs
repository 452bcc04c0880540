//! The layout of a component as an OCI artifact, as the CNCF Wasm working group set it
//! down (and `wkg`, `oras` and other WebAssembly hosts read and write it): a config of
//! media type `application/vnd.wasm.config.v0+json` and one `application/wasm` layer.
//! toolhost adds its manifest (`NAME.toml`, grants and descriptions) as a second layer
//! of its own media type, which other clients pass over.

use std::collections::BTreeMap;

use oci_client::client::{Config, ImageLayer};
use oci_client::manifest::{OciDescriptor, OciImageManifest};
use serde::Serialize;

/// The config's media type.
pub(crate) const CONFIG_MEDIA_TYPE: &str = "application/vnd.wasm.config.v0+json";

/// The component layer's media type.
pub(crate) const WASM_MEDIA_TYPE: &str = "application/wasm";

/// The media type of the toolhost manifest layer.
pub(crate) const MANIFEST_MEDIA_TYPE: &str = "application/vnd.toolhost.manifest.v1+toml";

/// The annotation naming the component's tools, comma-separated.
pub(crate) const TOOLS_ANNOTATION: &str = "dev.toolhost.tools";

/// What a pushed artifact says about its component.
pub(crate) struct Description {
    /// The WIT world's exports (the tools' functions) and imports (interfaces).
    pub(crate) exports: Vec<String>,
    pub(crate) imports: Vec<String>,
    /// The tools' names.
    pub(crate) tools: Vec<String>,
    /// A one-line description, when the component's tools have one in common.
    pub(crate) description: Option<String>,
}

/// The config's JSON (the working group's fields; `component` from the WIT world).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WasmConfig<'a> {
    created: String,
    architecture: &'static str,
    os: &'static str,
    layer_digests: Vec<String>,
    component: ComponentInfo<'a>,
}

#[derive(Serialize)]
struct ComponentInfo<'a> {
    exports: &'a [String],
    imports: &'a [String],
}

/// The layers, config and manifest of a push: the component, then its manifest if any.
pub(crate) fn assemble(
    wasm: Vec<u8>,
    manifest: Option<Vec<u8>>,
    about: &Description,
) -> (Vec<ImageLayer>, Config, OciImageManifest) {
    let mut layers = vec![ImageLayer::new(wasm, WASM_MEDIA_TYPE.to_string(), None)];
    layers.extend(manifest.map(|bytes| ImageLayer::new(bytes, MANIFEST_MEDIA_TYPE.to_string(), None)));
    let config = WasmConfig {
        created: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        architecture: "wasm",
        os: "wasip2",
        layer_digests: layers.iter().map(ImageLayer::sha256_digest).collect(),
        component: ComponentInfo { exports: &about.exports, imports: &about.imports },
    };
    let data = serde_json::to_vec(&config).expect("the config is plain JSON");
    let config = Config { data: data.into(), media_type: CONFIG_MEDIA_TYPE.to_string(), annotations: None };
    let mut annotations = BTreeMap::from([(TOOLS_ANNOTATION.to_string(), about.tools.join(","))]);
    if let Some(description) = &about.description {
        annotations.insert("org.opencontainers.image.description".to_string(), description.clone());
    }
    let manifest = OciImageManifest::build(&layers, &config, Some(annotations));
    (layers, config, manifest)
}

/// The component layer and the manifest layer (if any) of a pulled artifact's manifest,
/// or why it is not a Wasm component artifact.
pub(crate) fn layers_of(manifest: &OciImageManifest) -> Result<(&OciDescriptor, Option<&OciDescriptor>), String> {
    let config = &manifest.config.media_type;
    let wasm: Vec<&OciDescriptor> = manifest.layers.iter().filter(|l| l.media_type == WASM_MEDIA_TYPE).collect();
    match wasm.as_slice() {
        [component] => {
            let toolhost = manifest.layers.iter().find(|l| l.media_type == MANIFEST_MEDIA_TYPE);
            Ok((component, toolhost))
        }
        [] if config != CONFIG_MEDIA_TYPE => Err(format!(
            "its config is {config} and it has no {WASM_MEDIA_TYPE} layer (a container image, or another \
             kind of artifact; a component's config is {CONFIG_MEDIA_TYPE})"
        )),
        [] => Err(format!("it has no {WASM_MEDIA_TYPE} layer")),
        more => Err(format!("it has {} {WASM_MEDIA_TYPE} layers, and a component artifact has one", more.len())),
    }
}

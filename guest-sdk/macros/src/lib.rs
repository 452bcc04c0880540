//! `toolhost-guest-macros`: embeds the doc comments of a tool's WIT in its component.
//!
//! wit-bindgen drops WIT doc comments when it builds a component, so the host would
//! show the model tools without descriptions. [`embed_docs!`] reads the crate's
//! `wit/` folder at build time and places the docs of every function of its package in
//! a `toolhost-docs` custom section, which the toolhost host reads.
//!
//! The section is JSON: `{"version": 1, "functions": {"<func>": "<doc>"},
//! "interfaces": {"<namespace:package/interface>": {"<func>": "<doc>"}}}`.

use std::path::PathBuf;
use std::str::FromStr;

use proc_macro::TokenStream;
use serde_json::{Map, Value, json};
use wit_parser::{Resolve, WorldItem, WorldKey};

/// Embeds the docs of the functions in `$CARGO_MANIFEST_DIR/wit` into the component.
/// Called for you by `toolhost_guest::generate!`.
#[proc_macro]
pub fn embed_docs(_input: TokenStream) -> TokenStream {
    match docs_section() {
        Ok(tokens) => tokens,
        Err(message) => TokenStream::from_str(&format!("compile_error!({message:?});")).expect("valid tokens"),
    }
}

fn docs_section() -> Result<TokenStream, String> {
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").map_err(|e| format!("CARGO_MANIFEST_DIR: {e}"))?;
    let wit_dir = PathBuf::from(manifest_dir).join("wit");
    let mut resolve = Resolve::default();
    let (package, files) =
        resolve.push_path(&wit_dir).map_err(|e| format!("cannot read the WIT in {}: {e:#}", wit_dir.display()))?;

    let mut functions = Map::new();
    for (_, world) in &resolve.packages[package].worlds {
        for (key, item) in &resolve.worlds[*world].exports {
            if let (WorldKey::Name(name), WorldItem::Function(f)) = (key, item)
                && let Some(doc) = &f.docs.contents
            {
                functions.insert(name.clone(), json!(doc));
            }
        }
    }
    let mut interfaces = Map::new();
    for (_, interface) in &resolve.packages[package].interfaces {
        let docs: Map<String, Value> = resolve.interfaces[*interface]
            .functions
            .iter()
            .filter_map(|(name, f)| Some((name.clone(), json!(f.docs.contents.as_ref()?))))
            .collect();
        if let Some(id) = resolve.id_of(*interface) {
            interfaces.insert(id, Value::Object(docs));
        }
    }
    let section = json!({ "version": 1, "functions": functions, "interfaces": interfaces }).to_string();

    // Reading the files through include_bytes! makes cargo rebuild when they change.
    let tracked: String = files
        .paths()
        .map(|path| format!("const _: &[u8] = include_bytes!({:?});\n", path.display().to_string()))
        .collect();
    let bytes: Vec<String> = section.bytes().map(|b| b.to_string()).collect();
    let code = format!(
        "{tracked}#[cfg(target_family = \"wasm\")]\n\
         #[unsafe(link_section = \"toolhost-docs\")]\n\
         #[used]\n\
         static __TOOLHOST_DOCS: [u8; {}] = [{}];\n",
        bytes.len(),
        bytes.join(",")
    );
    TokenStream::from_str(&code).map_err(|e| format!("generated invalid code: {e}"))
}

//! Entry points for the fuzz targets in `fuzz/` (cargo feature `fuzzing`): parsers
//! that are not public API, reached directly. Not for any other use.

use std::ops::Range;
use std::path::Path;

use crate::load::Manifest;
use crate::sandbox::Limits;
use crate::tool::{ParamSpec, ToolSpec, WitFunction, WitType};

/// Reads `bytes` as a manifest and, when it is one, applies every part of it (limits,
/// grants, `hide`, descriptions) to a fixed set of tools; returns the error's text
/// otherwise. Never panics, whatever the bytes.
pub fn manifest(bytes: &[u8]) -> Result<Vec<String>, String> {
    let manifest = Manifest::parse(Path::new("fuzz.toml"), bytes).map_err(|error| error.to_string())?;
    let limits = manifest.limits(Limits::default());
    let grants = manifest.grants(Path::new("/plugins"));
    let mut specs = sample_tools();
    let warnings = manifest.apply_to("fuzz", &mut specs).map_err(|error| error.to_string())?;
    let _ = (limits, grants);
    Ok(warnings)
}

/// The spans of the calls (found and rejected) that extraction reads in `reply`,
/// against a fixed set of tools. Never panics, whatever the text.
pub fn extract(reply: &str) -> Vec<Range<usize>> {
    let registry = crate::resolve::Registry::from_specs(sample_tools());
    let extraction = crate::extract::extract(&registry, reply);
    extraction.calls.iter().chain(&extraction.rejected).map(|call| call.span.clone()).collect()
}

/// Reads `bytes` as an OpenAPI document and makes its operations tools, each with
/// the binder of its schema; their names, or the document's error. Never panics,
/// whatever the bytes.
#[cfg(feature = "rest-apis")]
pub fn openapi(bytes: &[u8]) -> Result<Vec<String>, String> {
    let document = crate::rest::Document::read(bytes).map_err(|error| error.to_string())?;
    let (made, _skipped) = crate::rest::operations(&document);
    for operation in &made {
        let _ = crate::bind::SchemaBinder::new(operation.input_schema.clone()).unreadable();
    }
    Ok(made.into_iter().map(|operation| operation.route.name).collect())
}

/// Tools with names that collide after normalisation, an interface, and parameters.
fn sample_tools() -> Vec<ToolSpec> {
    let param = |name: &str, ty: WitType| ParamSpec { name: name.into(), ty, description: None };
    let tool = |wit_name: &str, interface: Option<&str>, params: Vec<ParamSpec>| {
        let function =
            WitFunction { interface: interface.map(str::to_string), ..WitFunction::new(wit_name, params, None) };
        ToolSpec::for_function("fuzz", function)
    };
    vec![
        tool("get-weather", None, vec![param("city", WitType::String), param("ab_c", WitType::U8)]),
        tool("ab-c", None, vec![param("a_bc", WitType::Bool)]),
        tool("a-bc", Some("exports"), Vec::new()),
        tool("init", Some("exports"), Vec::new()),
    ]
}

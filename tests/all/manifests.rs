//! A component's manifest (`NAME.toml` beside it): the grants and limits it sets,
//! the descriptions it gives tools and parameters, the exports it hides, and an
//! invalid one skipping its component with a warning.

use std::fs;
use std::time::Duration;

use serde_json::json;
use toolhost::{Host, ToolError};

use crate::common;

#[test]
fn a_manifest_beside_the_component_grants_and_limits() {
    let folder = tempfile::tempdir().expect("temporary folder");
    fs::copy(common::test_guest("hostile"), folder.path().join("hostile.wasm")).expect("copy");
    fs::create_dir(folder.path().join("shared")).expect("folder");
    fs::write(
        folder.path().join("hostile.toml"),
        "[limits]\ntime_ms = 150\n\n[[dirs]]\nhost = \"shared\"\nguest = \"/shared\"\nread_only = false\n\n[env]\nMODE = \"test\"\n",
    )
    .expect("manifest");
    let host = Host::builder().plugin_dir(folder.path()).cache_dir(common::test_cache_dir()).build().expect("host");
    assert_eq!(host.call("env_var", &json!({"name": "MODE"})), Ok(json!("test")));
    assert_eq!(host.call("write_path", &json!({"path": "/shared/out.txt", "contents": "written"})), Ok(json!(null)));
    assert_eq!(fs::read_to_string(folder.path().join("shared/out.txt")).expect("written"), "written");
    assert_eq!(
        host.call("spin", &json!({})),
        Err(ToolError::TimedOut { tool: "spin".into(), limit: Duration::from_millis(150) })
    );
}

#[test]
fn an_invalid_manifest_skips_its_component_with_a_warning() {
    let folder = tempfile::tempdir().expect("temporary folder");
    fs::copy(common::test_guest("hostile"), folder.path().join("hostile.wasm")).expect("copy");
    fs::copy(common::plugins_dir().join("calculator.wasm"), folder.path().join("calculator.wasm")).expect("copy");
    fs::write(folder.path().join("hostile.toml"), "[limits]\ntime = 5\n").expect("manifest");
    let host = Host::builder().plugin_dir(folder.path()).cache_dir(common::test_cache_dir()).build().expect("host");
    assert!(host.tools().iter().all(|t| t.component == "calculator"));
    let warnings = &host.load_report().warnings;
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].contains("hostile.toml is invalid: unknown field `time`"), "{warnings:?}");
}

#[test]
fn a_manifest_describes_tools_and_hides_plumbing() {
    let folder = tempfile::tempdir().expect("temporary folder");
    fs::copy(common::test_guest("mirror"), folder.path().join("mirror.wasm")).expect("copy");
    fs::write(
        folder.path().join("mirror.toml"),
        "hide = []\n\n[tools.echo]\ndescription = \"Mirrors a text.\"\nparams = { text = \"what to mirror\" }\n",
    )
    .expect("manifest");
    let host = Host::builder().plugin_dir(folder.path()).cache_dir(common::test_cache_dir()).build().expect("host");
    let echo = host.tool("echo").expect("listed");
    assert_eq!(echo.description, "Mirrors a text.");
    assert_eq!(echo.wit_function().expect("a function").params[0].description.as_deref(), Some("what to mirror"));

    fs::copy(common::test_guest("hostile"), folder.path().join("hostile.wasm")).expect("copy");
    fs::write(folder.path().join("hostile.toml"), "hide = [\"spin\", \"spin-with-imports\"]\n").expect("manifest");
    assert!(host.reload().expect("reloads"));
    let names: Vec<String> = host.tools().into_iter().map(|t| t.name).collect();
    assert!(names.contains(&"panic_with".to_string()), "{names:?}");
    assert!(!names.iter().any(|n| n.starts_with("spin")), "{names:?}");
    let error = host.call("spin", &json!({})).expect_err("hidden");
    assert!(matches!(error, ToolError::UnknownTool { .. }), "{error:?}");
}

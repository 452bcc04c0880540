//! Argument text as a model might write it, read (strictly, then repaired) and bound
//! to a tool's parameters: never a panic, and every refusal a corrective message that
//! names the tool.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use toolhost::{Field, ParamSpec, ToolError, ToolSpec, WitFunction, WitType, bind};

fn spec() -> &'static ToolSpec {
    static SPEC: OnceLock<ToolSpec> = OnceLock::new();
    SPEC.get_or_init(|| {
        let param = |name: &str, ty| ParamSpec { name: name.into(), ty, description: None };
        let filter = WitType::Record(vec![
            Field { name: "field-name".into(), ty: WitType::String },
            Field { name: "max-value".into(), ty: WitType::Option(Box::new(WitType::S64)) },
        ]);
        let params = vec![
            param("query", WitType::String),
            param("limit", WitType::Option(Box::new(WitType::U32))),
            param("mode", WitType::Enum(vec!["fast".into(), "thorough-search".into()])),
            param("filters", WitType::Option(Box::new(WitType::List(Box::new(filter))))),
        ];
        ToolSpec::for_function("fuzz", WitFunction::new("web-search", params, None))
    })
}

fuzz_target!(|text: &str| {
    let spec = spec();
    let outcome = bind::parse_arguments(spec, text).and_then(|value| bind::check_arguments(spec, &value));
    if let Err(error) = outcome {
        assert!(
            matches!(error, ToolError::InvalidArguments { .. } | ToolError::InvalidValue { .. }),
            "not an arguments error: {error:?}"
        );
        let message = error.to_string();
        assert!(message.contains("'web_search'"), "the message does not name the tool: {message}");
    }
});

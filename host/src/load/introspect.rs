//! Turns a compiled component's exports into tool specs: one per exported function,
//! interfaces expanded into their functions, WASI exports and unusable signatures left
//! out; the `toolhost:tool` interfaces a component exports for the host (resources,
//! prompts) kept apart as what it offers besides tools.

use wasmtime::Engine;
use wasmtime::component::types::{ComponentFunc, ComponentItem};
use wasmtime::component::{Component, ComponentExportIndex};

use super::docs::{ComponentDocs, FunctionDoc};
use super::types::wit_type;
use crate::tool::names::snake_case;
use crate::tool::{ParamSpec, ToolSpec, WitFunction, WitType};

/// A tool found in a component, with what is needed to call it.
#[derive(Debug, Clone)]
pub(crate) struct FoundTool {
    /// What the model is told about the tool.
    pub(crate) spec: ToolSpec,
    /// Where the function is in the component, for calling it.
    pub(crate) export: ComponentExportIndex,
}

/// What a component offers: its tools, its resources and prompts, and a warning for
/// each export left out.
#[derive(Debug, Default)]
pub(crate) struct Introspection {
    /// The usable tools, in export order.
    pub(crate) tools: Vec<FoundTool>,
    /// The functions of the `toolhost:tool` interfaces it exports for the host.
    pub(crate) offers: Offers,
    /// One line per function that cannot be a tool, saying why.
    pub(crate) warnings: Vec<String>,
}

/// An interface of the `toolhost:tool` package a component may export for the host
/// rather than as tools (`wit/toolhost.wit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Offered {
    /// `resources`: list, templates, read.
    Resources,
    /// `prompts`: list, get, complete.
    Prompts,
}

impl Offered {
    /// The interface's name in the package.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Offered::Resources => "resources",
            Offered::Prompts => "prompts",
        }
    }
}

/// One function of an [`Offered`] interface, with what is needed to call it.
#[derive(Debug, Clone)]
pub(crate) struct OfferedFn {
    pub(crate) interface: Offered,
    /// Its name in the interface (`list`, `read`, ...).
    pub(crate) name: String,
    pub(crate) export: ComponentExportIndex,
    pub(crate) result: Option<WitType>,
}

/// What a component offers besides tools.
#[derive(Debug, Clone, Default)]
pub(crate) struct Offers(Vec<OfferedFn>);

impl Offers {
    /// The function `name` of `interface`, when the component exports it.
    pub(crate) fn function(&self, interface: Offered, name: &str) -> Option<&OfferedFn> {
        self.0.iter().find(|function| function.interface == interface && function.name == name)
    }

    /// Whether the component exports `interface`.
    pub(crate) fn has(&self, interface: Offered) -> bool {
        self.0.iter().any(|function| function.interface == interface)
    }
}

/// Which offered interface an export is, by its name (any version of the package).
fn offered(export_name: &str) -> Option<Offered> {
    let interface = export_name.strip_prefix("toolhost:tool/")?;
    match interface.split('@').next()? {
        "resources" => Some(Offered::Resources),
        "prompts" => Some(Offered::Prompts),
        _ => None,
    }
}

/// Lists the tools of `component`, named `component_name`, with descriptions from `docs`.
pub(crate) fn introspect(
    engine: &Engine,
    component_name: &str,
    component: &Component,
    docs: &ComponentDocs,
) -> Introspection {
    let mut found = Introspection::default();
    let ty = component.component_type();
    for (export_name, item) in ty.exports(engine) {
        match item.ty {
            ComponentItem::ComponentFunc(func) => {
                let Some(export) = component.get_export_index(None, export_name) else { continue };
                let doc = docs.function(None, export_name);
                found.add(component_name, None, export_name, &func, export, doc);
            }
            ComponentItem::ComponentInstance(instance) => {
                if is_plumbing(export_name) {
                    continue;
                }
                let Some(instance_index) = component.get_export_index(None, export_name) else { continue };
                for (func_name, item) in instance.exports(engine) {
                    let ComponentItem::ComponentFunc(func) = item.ty else { continue };
                    let Some(export) = component.get_export_index(Some(&instance_index), func_name) else {
                        continue;
                    };
                    if let Some(interface) = offered(export_name) {
                        let result = func.results().next().map(|ty| wit_type(&ty));
                        found.offers.0.push(OfferedFn { interface, name: func_name.to_string(), export, result });
                        continue;
                    }
                    let doc = docs.function(Some(export_name), func_name);
                    found.add(component_name, Some(export_name), func_name, &func, export, doc);
                }
            }
            _ => {}
        }
    }
    found
}

/// A one-line description from the signature, for a function without docs.
fn generated_description(component: &str, function: &WitFunction) -> String {
    let params: Vec<String> = function.params.iter().map(|p| format!("{}: {}", p.name, p.ty)).collect();
    let result = function.result.as_ref().map(|r| format!(" -> {r}")).unwrap_or_default();
    format!(
        "Calls `{}({}){result}` in the {component} component (it has no description).",
        function.wit_name,
        params.join(", "),
    )
}

/// Exported interfaces that belong to the platform or to a toolchain rather than to
/// the tool author: WASI's (`wasi:*`), componentize-py's `exports` interface (its
/// `init` hook), and a policy component's `policy` (see [`POLICY`]). A manifest's
/// `hide` list covers what the next toolchain adds.
const PLUMBING: [&str; 3] = ["wasi:*", "exports", POLICY];

/// What a policy component exports (any version): its functions are not tools.
pub(crate) const POLICY: &str = "toolhost:tool/policy@*";

fn is_plumbing(export_name: &str) -> bool {
    PLUMBING.iter().any(|pattern| match pattern.strip_suffix('*') {
        Some(prefix) => export_name.starts_with(prefix),
        None => export_name == *pattern,
    })
}

impl Introspection {
    fn add(
        &mut self,
        component: &str,
        interface: Option<&str>,
        wit_name: &str,
        func: &ComponentFunc,
        export: ComponentExportIndex,
        doc: Option<&str>,
    ) {
        let params: Vec<(String, WitType)> =
            func.params().map(|(name, ty)| (name.to_string(), wit_type(&ty))).collect();
        let result = func.results().next().map(|ty| wit_type(&ty));
        let unusable = params
            .iter()
            .find_map(|(param, ty)| ty.unsupported_part().map(|what| format!("parameter '{param}' is a {what}")))
            .or_else(|| result.as_ref()?.unsupported_part().map(|what| format!("its result is a {what}")));
        if let Some(why) = unusable {
            self.warnings.push(format!(
                "{component}: function '{wit_name}' is not available as a tool: {why}, which a model cannot send or receive"
            ));
            return;
        }
        let param_names: Vec<&str> = params.iter().map(|(name, _)| name.as_str()).collect();
        let doc = doc.map(|d| FunctionDoc::parse(d, &param_names)).unwrap_or_default();
        let params = params
            .into_iter()
            .map(|(wit_param, ty)| ParamSpec {
                name: snake_case(&wit_param),
                description: doc.params.get(&wit_param).cloned(),
                ty,
            })
            .collect();
        let function =
            WitFunction { interface: interface.map(str::to_string), ..WitFunction::new(wit_name, params, result) };
        let description = match doc.description {
            none if none.is_empty() => generated_description(component, &function),
            description => description,
        };
        let spec = ToolSpec { description, ..ToolSpec::for_function(component, function) };
        self.tools.push(FoundTool { spec, export });
    }
}

#[cfg(test)]
mod tests {
    use super::{Offered, is_plumbing, offered};

    #[test]
    fn the_packages_resources_and_prompts_are_offers_in_any_version() {
        assert_eq!(offered("toolhost:tool/resources@0.2.0"), Some(Offered::Resources));
        assert_eq!(offered("toolhost:tool/prompts@0.3.1"), Some(Offered::Prompts));
        assert_eq!(offered("toolhost:tool/log@0.2.0"), None);
        assert_eq!(offered("example:tool/resources@0.2.0"), None);
    }

    #[test]
    fn wasi_and_componentize_py_exports_are_plumbing() {
        assert!(is_plumbing("wasi:cli/run@0.2.0"));
        assert!(is_plumbing("exports"));
        assert!(!is_plumbing("example:text/text"));
        assert!(!is_plumbing("exports-of-mine"));
    }
}

//! Tool shaping of parameters: what an operator sets for a tool's parameters before a
//! model sees it (`[tools.NAME]` in a component's manifest or an MCP server's file):
//! defaults the host fills in when the model leaves a parameter out (shown as
//! optional, with the default), and values fixed by the operator, hidden from the
//! model and always filled in.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::names::{NameMatch, match_name};

/// An operator's defaults and fixed values for a tool's parameters, by parameter name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ParamShaping {
    /// Used when the model leaves the parameter out; the model is shown the parameter
    /// as optional, with this default.
    pub defaults: BTreeMap<String, Value>,
    /// Always passed; the model is not shown the parameter, and is told it is none if
    /// it sends it.
    pub fixed: BTreeMap<String, Value>,
}

impl ParamShaping {
    /// Whether it changes nothing.
    pub fn is_empty(&self) -> bool {
        self.defaults.is_empty() && self.fixed.is_empty()
    }

    /// Whether the parameter `name` is hidden from the model (fixed).
    pub(crate) fn hides(&self, name: &str) -> bool {
        self.fixed.contains_key(name)
    }

    /// Whether the model may leave the parameter `name` out (it has a default).
    pub(crate) fn defaults(&self, name: &str) -> bool {
        self.defaults.contains_key(name)
    }

    /// `schema` (a tool's parameters) as the model is shown it: fixed parameters
    /// left out, defaults noted, neither required.
    pub(crate) fn shown(&self, mut schema: Value) -> Value {
        if self.is_empty() {
            return schema;
        }
        let Some(object) = schema.as_object_mut() else { return schema };
        if let Some(Value::Object(properties)) = object.get_mut("properties") {
            properties.retain(|name, _| !self.hides(name));
            for (name, value) in &self.defaults {
                if let Some(Value::Object(property)) = properties.get_mut(name) {
                    property.insert("default".into(), value.clone());
                }
            }
        }
        if let Some(Value::Array(required)) = object.get_mut("required") {
            required.retain(|name| name.as_str().is_none_or(|name| !self.hides(name) && !self.defaults(name)));
        }
        schema
    }

    /// The arguments the tool is called with: the model's, with each fixed value, and
    /// each default whose parameter the model left out (under any spelling the
    /// binder would take for it). A model that sends a fixed parameter gets the
    /// sentence saying it is none; arguments that are no object are left to the
    /// binder to refuse.
    pub(crate) fn fill(&self, tool: &str, arguments: &Value) -> Result<Value, String> {
        let mut given = match arguments {
            Value::Object(map) => map.clone(),
            Value::Null => Map::new(),
            _ => return Ok(arguments.clone()),
        };
        if let Some(key) =
            given.keys().find(|key| match_name(self.fixed.keys().map(String::as_str), key) != NameMatch::None)
        {
            return Err(format!(
                "'{key}' is not a parameter of '{tool}': the host sets it. Call '{tool}' again without '{key}'."
            ));
        }
        for (name, value) in &self.defaults {
            if match_name(given.keys().map(String::as_str), name) == NameMatch::None {
                given.insert(name.clone(), value.clone());
            }
        }
        given.extend(self.fixed.iter().map(|(name, value)| (name.clone(), value.clone())));
        Ok(Value::Object(given))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::ParamShaping;

    fn shaping() -> ParamShaping {
        ParamShaping {
            defaults: [("units".to_string(), json!("metric"))].into(),
            fixed: [("api_version".to_string(), json!(2))].into(),
        }
    }

    #[test]
    fn the_model_sees_defaults_as_optional_and_no_fixed_parameter() {
        let schema = json!({
            "type": "object",
            "properties": {"city": {"type": "string"}, "units": {"type": "string"}, "api_version": {"type": "integer"}},
            "required": ["city", "units", "api_version"]
        });
        let shown = shaping().shown(schema);
        assert_eq!(shown["required"], json!(["city"]));
        assert_eq!(shown["properties"]["units"]["default"], "metric");
        assert!(shown["properties"].get("api_version").is_none());
        assert_eq!(ParamShaping::default().shown(json!({"type": "object"})), json!({"type": "object"}));
    }

    #[test]
    fn the_host_fills_in_defaults_and_fixed_values_and_refuses_a_fixed_one_sent() {
        let filled = shaping().fill("weather", &json!({"city": "Oslo"})).unwrap();
        assert_eq!(filled, json!({"city": "Oslo", "units": "metric", "api_version": 2}));
        // A default's parameter sent under another spelling is the model's to give.
        let filled = shaping().fill("weather", &json!({"city": "Oslo", "Units": "imperial"})).unwrap();
        assert_eq!(filled, json!({"city": "Oslo", "Units": "imperial", "api_version": 2}));
        assert_eq!(shaping().fill("weather", &json!(null)).unwrap(), json!({"units": "metric", "api_version": 2}));
        let refused = shaping().fill("weather", &json!({"city": "Oslo", "apiVersion": 3})).unwrap_err();
        assert_eq!(
            refused,
            "'apiVersion' is not a parameter of 'weather': the host sets it. Call 'weather' again without 'apiVersion'."
        );
        assert_eq!(shaping().fill("weather", &json!("Oslo")).unwrap(), json!("Oslo"));
    }
}

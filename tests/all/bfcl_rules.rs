//! The Berkeley Function Calling Leaderboard's rules for whether calls answer a test
//! case (its AST checker, as its documentation and score files describe it; written
//! here, its code is not used): as many calls as answers, each answer met by its own
//! call (in any order for parallel cases); each call names the function, gives every
//! required parameter and no parameter the answer lacks, and each value is one of the
//! accepted ones for its declared type. Strings compare without case, spaces and
//! `,./-_*^`; an integer stands for a float, but not inside a list of floats; a
//! parameter left out must accept `""`. Java and JavaScript values are strings in the
//! language's syntax, read as their declared type before comparing (lists, maps and
//! objects, which that reading cannot settle, are not compared).

use serde_json::{Map, Value};

/// The language of a test case's functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Language {
    Python,
    Java,
    JavaScript,
}

impl Language {
    /// By the case's id (`simple_java_3`, `simple_javascript_7`, else Python).
    pub(crate) fn of(id: &str) -> Language {
        if id.starts_with("simple_javascript") {
            Language::JavaScript
        } else if id.starts_with("simple_java") {
            Language::Java
        } else {
            Language::Python
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Language::Python => "Python",
            Language::Java => "Java",
            Language::JavaScript => "JavaScript",
        }
    }
}

/// Whether `made` (each call's function and arguments) answers the case.
pub(crate) fn check(
    functions: &[Value],
    answer: &[(String, Map<String, Value>)],
    language: Language,
    made: &[(String, Value)],
) -> Result<(), String> {
    Rules { functions, language, types: true }.check(answer, made)
}

/// Whether `made` answers the case by its values alone, whatever the declared types
/// say (BFCL's answers do not always fit its own schemas: `0.85` for an integer).
pub(crate) fn check_values(
    functions: &[Value],
    answer: &[(String, Map<String, Value>)],
    language: Language,
    made: &[(String, Value)],
) -> Result<(), String> {
    Rules { functions, language, types: false }.check(answer, made)
}

/// The case's functions, its language, and whether declared types are checked.
struct Rules<'a> {
    functions: &'a [Value],
    language: Language,
    types: bool,
}

impl Rules<'_> {
    fn check(&self, answer: &[(String, Map<String, Value>)], made: &[(String, Value)]) -> Result<(), String> {
        if made.len() != answer.len() {
            return Err(format!("{} calls made, {} expected", made.len(), answer.len()));
        }
        let mut used = vec![false; made.len()];
        self.assign(answer, made, &mut used)
    }

    /// Each remaining answer matched to an unused call (backtracking: parallel cases
    /// answer in any order).
    fn assign(
        &self,
        answer: &[(String, Map<String, Value>)],
        made: &[(String, Value)],
        used: &mut [bool],
    ) -> Result<(), String> {
        let Some(((name, accepted), rest)) = answer.split_first() else { return Ok(()) };
        // A case of one function is checked against that function, whatever name its
        // answer is filed under (some of BFCL's 2024 answers name another).
        let only = (self.functions.len() == 1).then(|| &self.functions[0]);
        let function = self
            .functions
            .iter()
            .find(|f| f["name"] == **name)
            .or(only)
            .ok_or_else(|| format!("no function {name}"))?;
        let name = function["name"].as_str().unwrap_or(name);
        let mut why = format!("no call of {name}");
        for i in 0..made.len() {
            if used[i] {
                continue;
            }
            match self.call_meets(function, name, accepted, &made[i]) {
                Ok(()) => {
                    used[i] = true;
                    match self.assign(rest, made, used) {
                        Ok(()) => return Ok(()),
                        Err(later) => why = later,
                    }
                    used[i] = false;
                }
                Err(this) => why = this,
            }
        }
        Err(why)
    }

    /// Whether one call meets one answer.
    fn call_meets(
        &self,
        function: &Value,
        name: &str,
        accepted: &Map<String, Value>,
        (tool, arguments): &(String, Value),
    ) -> Result<(), String> {
        if tool != name {
            return Err(format!("{tool} called, {name} expected"));
        }
        let arguments = arguments.as_object().ok_or("arguments are not an object")?;
        let properties = function["parameters"]["properties"].as_object().ok_or("no properties")?;
        for required in function["parameters"]["required"].as_array().into_iter().flatten() {
            let required = required.as_str().unwrap_or_default();
            if !arguments.contains_key(required) {
                return Err(format!("{name}: required '{required}' missing"));
            }
        }
        let may_leave_out = |options: &Value| options.as_array().is_some_and(|o| o.contains(&Value::from("")));
        for (key, value) in arguments {
            let (Some(schema), Some(options)) = (properties.get(key), accepted.get(key)) else {
                return Err(format!("{name}: unexpected '{key}'"));
            };
            // An empty list or dict for a parameter that may be left out is taken as
            // left out (BFCL's 2024 checker accepted `ingredient_preference=[]` so).
            if is_empty(value) && may_leave_out(options) {
                continue;
            }
            let options = options.as_array().ok_or("accepted values are a list")?;
            if !self.value_meets(schema, value, options) {
                return Err(format!("{name}: '{key}' = {value} is not one of {options:?}"));
            }
        }
        for (key, options) in accepted {
            if !arguments.contains_key(key) && !may_leave_out(options) {
                return Err(format!("{name}: '{key}' left out"));
            }
        }
        Ok(())
    }

    /// Whether `value` for a parameter of `schema` (BFCL's) is one of `options`.
    fn value_meets(&self, schema: &Value, value: &Value, options: &[Value]) -> bool {
        let ty = schema["type"].as_str().unwrap_or("any");
        let value = match self.language {
            Language::Python => value.clone(),
            _ => match typed(ty, value) {
                Some(value) => value,
                None => return true,
            },
        };
        if self.types && !type_fits(ty, &schema["items"], &value) {
            return false;
        }
        options.iter().any(|option| same(&value, option))
    }
}

/// An empty array or object.
fn is_empty(value: &Value) -> bool {
    value.as_array().is_some_and(Vec::is_empty) || value.as_object().is_some_and(Map::is_empty)
}

/// A Java or JavaScript value (a string in the language's syntax) as the JSON value
/// it stands for, by the parameter's declared type; `None` for what is not compared.
/// A value that is not a string stands for its JSON text (`null` for `"null"`).
fn typed(ty: &str, value: &Value) -> Option<Value> {
    let text = match value {
        Value::String(text) => text.trim().to_string(),
        Value::Array(_) | Value::Object(_) => return Some(value.clone()),
        other => other.to_string(),
    };
    let unquoted =
        ['"', '\''].iter().find_map(|&q| text.strip_prefix(q).and_then(|t| t.strip_suffix(q))).unwrap_or(&text);
    match ty.to_ascii_lowercase().as_str() {
        "boolean" => text.parse::<bool>().ok().map(Value::Bool),
        "int" | "long" | "short" | "byte" | "integer" | "bigint" => {
            text.trim_end_matches(['L', 'l', 'n']).parse::<i64>().ok().map(Value::from)
        }
        "float" | "double" | "number" => {
            text.trim_end_matches(['f', 'F', 'd', 'D']).parse::<f64>().ok().map(Value::from)
        }
        "string" | "char" => Some(Value::String(unquoted.to_string())),
        "any" | "object" => Some(Value::String(unquoted.to_string())),
        _ => None,
    }
}

/// Whether `value` is of BFCL's type `ty` (an integer stands for a float, but not
/// inside a list: BFCL checks a list's items strictly).
fn type_fits(ty: &str, items: &Value, value: &Value) -> bool {
    match ty {
        "string" | "String" => value.is_string(),
        "integer" => value.is_i64() || value.is_u64(),
        "float" => value.is_number(),
        "boolean" => value.is_boolean(),
        "array" | "tuple" => {
            let item = items["type"].as_str().unwrap_or("any");
            value.as_array().is_some_and(|values| values.iter().all(|v| item_fits(item, v)))
        }
        "dict" => value.is_object(),
        _ => true,
    }
}

fn item_fits(ty: &str, value: &Value) -> bool {
    match ty {
        "float" => value.is_f64(),
        other => type_fits(other, &Value::Null, value),
    }
}

/// Whether two values are the same by BFCL's comparison: strings standardised,
/// numbers by value, lists item by item, a dict against a dict of accepted values.
fn same(value: &Value, option: &Value) -> bool {
    match (value, option) {
        (Value::String(a), Value::String(b)) => standard(a) == standard(b),
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        (Value::Array(a), Value::Array(b)) => a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same(a, b)),
        (Value::Object(given), Value::Object(accepted)) => dict_meets(given, accepted),
        _ => value == option,
    }
}

/// A dict against a dict whose values are lists of accepted values.
fn dict_meets(given: &Map<String, Value>, accepted: &Map<String, Value>) -> bool {
    let options = |value: &Value| value.as_array().cloned().unwrap_or_else(|| vec![value.clone()]);
    given.iter().all(|(key, value)| accepted.get(key).is_some_and(|a| options(a).iter().any(|o| same(value, o))))
        && accepted.iter().all(|(key, a)| given.contains_key(key) || options(a).contains(&Value::from("")))
}

/// A string as BFCL compares it: lower case, without spaces and `,./-_*^`, `'` as `"`.
fn standard(text: &str) -> String {
    text.chars()
        .filter(|c| !matches!(c, ' ' | ',' | '.' | '/' | '-' | '_' | '*' | '^'))
        .map(|c| if c == '\'' { '"' } else { c })
        .flat_map(char::to_lowercase)
        .collect()
}

//! Python values ↔ JSON values: what a Python caller passes becomes the JSON the host
//! binds, and a tool's JSON result becomes plain Python values; and a format name
//! becomes the `ToolFormat` it names.
//!
//! Written here rather than with `pythonize` because the host needs what that crate
//! does not give: the JSON path of a value that cannot be sent, a NaN refused rather
//! than turned into `None`, and an integer beyond 64 bits read as the float that JSON
//! text with the same digits would be.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyFrozenSet, PyInt, PyList, PySet, PyString, PyTuple};
use serde_json::{Map, Number, Value};

/// Why a Python value cannot be sent as JSON.
pub(crate) enum Unsendable {
    /// A float that JSON cannot carry (NaN or an infinity) at `path` (`a.b[2]`, empty
    /// at the top): a model's slip, so the caller gets a corrective message.
    NotFinite { path: String, value: f64 },
    /// A Python object with no JSON form: the program's own mistake, a `TypeError`.
    Type(PyErr),
}

/// `value` as JSON: dicts with string keys, lists, tuples, sets, str, int, float, bool
/// and None (and their subclasses, such as `enum.StrEnum` members).
pub(crate) fn to_json(value: &Bound<'_, PyAny>) -> Result<Value, Unsendable> {
    value_at(value, &mut String::new())
}

fn value_at(value: &Bound<'_, PyAny>, path: &mut String) -> Result<Value, Unsendable> {
    if value.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(flag) = value.cast::<PyBool>() {
        return Ok(Value::Bool(flag.is_true()));
    }
    if let Ok(int) = value.cast::<PyInt>() {
        return Ok(int_to_json(int));
    }
    if let Ok(float) = value.cast::<PyFloat>() {
        let number = float.value();
        return Number::from_f64(number)
            .map(Value::Number)
            .ok_or_else(|| Unsendable::NotFinite { path: path.clone(), value: number });
    }
    if let Ok(text) = value.cast::<PyString>() {
        return text.to_cow().map(|s| Value::String(s.into_owned())).map_err(Unsendable::Type);
    }
    if let Ok(dict) = value.cast::<PyDict>() {
        return dict_to_json(dict, path);
    }
    if value.is_instance_of::<PyList>()
        || value.is_instance_of::<PyTuple>()
        || value.is_instance_of::<PySet>()
        || value.is_instance_of::<PyFrozenSet>()
    {
        return items_to_json(value, path);
    }
    Err(Unsendable::Type(unsendable_type(value, path)))
}

/// An int as a JSON integer when it fits 64 bits, else as the nearest float.
fn int_to_json(int: &Bound<'_, PyInt>) -> Value {
    if let Ok(small) = int.extract::<i64>() {
        return Value::from(small);
    }
    if let Ok(large) = int.extract::<u64>() {
        return Value::from(large);
    }
    // Python's own float(int) never fails for an int: it is inf only past 1e308,
    // which JSON cannot carry either; then the text of the digits is the honest form.
    match int.extract::<f64>().ok().and_then(Number::from_f64) {
        Some(number) => Value::Number(number),
        None => Value::String(int.to_string()),
    }
}

fn dict_to_json(dict: &Bound<'_, PyDict>, path: &mut String) -> Result<Value, Unsendable> {
    let mut object = Map::with_capacity(dict.len());
    for (key, item) in dict.iter() {
        let Ok(key) = key.cast::<PyString>() else {
            let message =
                format!("toolhost: dictionary keys must be strings (at {}), got {}", shown(path), type_name(&key));
            return Err(Unsendable::Type(PyTypeError::new_err(message)));
        };
        let key = key.to_cow().map_err(Unsendable::Type)?.into_owned();
        let mark = path.len();
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(&key);
        let converted = value_at(&item, path);
        path.truncate(mark);
        object.insert(key, converted?);
    }
    Ok(Value::Object(object))
}

fn items_to_json(items: &Bound<'_, PyAny>, path: &mut String) -> Result<Value, Unsendable> {
    let mut array = Vec::new();
    for (index, item) in items.try_iter().map_err(Unsendable::Type)?.enumerate() {
        let item = item.map_err(Unsendable::Type)?;
        let mark = path.len();
        path.push_str(&format!("[{index}]"));
        let converted = value_at(&item, path);
        path.truncate(mark);
        array.push(converted?);
    }
    Ok(Value::Array(array))
}

fn unsendable_type(value: &Bound<'_, PyAny>, path: &str) -> PyErr {
    PyTypeError::new_err(format!(
        "toolhost: a value of type {} (at {}) cannot be sent to a tool; pass dict, list, tuple, set, str, int, \
         float, bool or None",
        type_name(value),
        shown(path)
    ))
}

fn type_name(value: &Bound<'_, PyAny>) -> String {
    value.get_type().name().map(|name| format!("'{name}'")).unwrap_or_else(|_| "unknown".into())
}

/// A path for a message: `'a.b[2]'`, or `the arguments` at the top.
fn shown(path: &str) -> String {
    if path.is_empty() { "the arguments".into() } else { format!("'{path}'") }
}

/// A value the library serialises (a load report, a pull's result) as plain Python
/// values, in the shape its JSON has.
pub(crate) fn serialized_to_python<'py>(py: Python<'py>, value: &impl serde::Serialize) -> PyResult<Bound<'py, PyAny>> {
    let json = serde_json::to_value(value).map_err(|e| PyValueError::new_err(format!("toolhost: {e}")))?;
    to_python(py, &json)
}

/// `value` as Python: None, bool, int, float, str, list and dict (keys in the JSON's order).
pub(crate) fn to_python<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(flag) => PyBool::new(py, *flag).to_owned().into_any(),
        Value::Number(number) => number_to_python(py, number)?,
        Value::String(text) => PyString::new(py, text).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_python(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(object) => {
            let dict = PyDict::new(py);
            for (key, item) in object {
                dict.set_item(key, to_python(py, item)?)?;
            }
            dict.into_any()
        }
    })
}

fn number_to_python<'py>(py: Python<'py>, number: &Number) -> PyResult<Bound<'py, PyAny>> {
    if let Some(small) = number.as_i64() {
        return Ok(small.into_pyobject(py)?.into_any());
    }
    if let Some(large) = number.as_u64() {
        return Ok(large.into_pyobject(py)?.into_any());
    }
    Ok(PyFloat::new(py, number.as_f64().unwrap_or(f64::NAN)).into_any())
}

/// A format name as `ToolFormat`, or a `ValueError` listing the names.
pub(crate) fn tool_format(name: &str) -> PyResult<toolhost::ToolFormat> {
    name.parse().map_err(|unknown: toolhost::UnknownFormat| PyValueError::new_err(unknown.to_string()))
}

//! wasmtime's view of a component's value types, converted into the host's own
//! [`WitType`], which the other stages use without knowing wasmtime.

use wasmtime::component::types::Type;

use crate::tool::{Case, Field, WitType};

/// Converts wasmtime's view of a component type into the host's.
pub(crate) fn wit_type(ty: &Type) -> WitType {
    let boxed = |t: &Type| Box::new(wit_type(t));
    match ty {
        Type::Bool => WitType::Bool,
        Type::S8 => WitType::S8,
        Type::U8 => WitType::U8,
        Type::S16 => WitType::S16,
        Type::U16 => WitType::U16,
        Type::S32 => WitType::S32,
        Type::U32 => WitType::U32,
        Type::S64 => WitType::S64,
        Type::U64 => WitType::U64,
        Type::Float32 => WitType::F32,
        Type::Float64 => WitType::F64,
        Type::Char => WitType::Char,
        Type::String => WitType::String,
        Type::List(list) => WitType::List(boxed(&list.ty())),
        Type::Option(option) => WitType::Option(boxed(&option.ty())),
        Type::Result(result) => {
            WitType::Result { ok: result.ok().as_ref().map(boxed), err: result.err().as_ref().map(boxed) }
        }
        Type::Record(record) => {
            WitType::Record(record.fields().map(|f| Field { name: f.name.to_string(), ty: wit_type(&f.ty) }).collect())
        }
        Type::Tuple(tuple) => WitType::Tuple(tuple.types().map(|t| wit_type(&t)).collect()),
        Type::Enum(e) => WitType::Enum(e.names().map(str::to_string).collect()),
        Type::Variant(variant) => WitType::Variant(
            variant.cases().map(|c| Case { name: c.name.to_string(), ty: c.ty.as_ref().map(wit_type) }).collect(),
        ),
        Type::Flags(flags) => WitType::Flags(flags.names().map(str::to_string).collect()),
        Type::Own(_) => WitType::Unsupported("own<resource>".into()),
        Type::Borrow(_) => WitType::Unsupported("borrow<resource>".into()),
        Type::Future(_) => WitType::Unsupported("future".into()),
        Type::Stream(_) => WitType::Unsupported("stream".into()),
        Type::ErrorContext => WitType::Unsupported("error-context".into()),
        Type::Map(_) => WitType::Unsupported("map".into()),
        Type::FixedLengthList(_) => WitType::Unsupported("fixed-length list".into()),
    }
}

//! The WIT value types a tool's parameters and results can have, independent of
//! wasmtime's type handles so that schemas and binding can be built and tested alone
//! (`load/introspect.rs` converts wasmtime's types into these).

use std::fmt;

/// A WIT value type, as far as a model can send or receive it.
#[derive(Debug, Clone, PartialEq)]
pub enum WitType {
    /// `bool`
    Bool,
    /// `s8`
    S8,
    /// `u8`
    U8,
    /// `s16`
    S16,
    /// `u16`
    U16,
    /// `s32`
    S32,
    /// `u32`
    U32,
    /// `s64`
    S64,
    /// `u64`
    U64,
    /// `f32`
    F32,
    /// `f64`
    F64,
    /// `char`: one Unicode scalar value.
    Char,
    /// `string`
    String,
    /// `list<T>`
    List(Box<WitType>),
    /// `option<T>`
    Option(Box<WitType>),
    /// `result<T, E>`, either side possibly empty.
    Result {
        /// The `ok` payload type, if any.
        ok: Option<Box<WitType>>,
        /// The `err` payload type, if any.
        err: Option<Box<WitType>>,
    },
    /// `record { ... }`: named fields, in declaration order.
    Record(Vec<Field>),
    /// `tuple<...>`
    Tuple(Vec<WitType>),
    /// `enum { ... }`: case names, as declared (kebab-case).
    Enum(Vec<String>),
    /// `variant { ... }`: cases with optional payloads.
    Variant(Vec<Case>),
    /// `flags { ... }`: flag names, as declared (kebab-case).
    Flags(Vec<String>),
    /// A type a model cannot send or receive (resources, futures, streams, maps…),
    /// with its WIT spelling.
    Unsupported(String),
}

/// One field of a record.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The field's WIT name (kebab-case).
    pub name: String,
    /// The field's type.
    pub ty: WitType,
}

/// One case of a variant.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// The case's WIT name (kebab-case).
    pub name: String,
    /// The payload type, if the case carries one.
    pub ty: Option<WitType>,
}

impl WitType {
    /// The first type inside this one (itself included) that a model cannot send.
    pub fn unsupported_part(&self) -> Option<&str> {
        match self {
            WitType::Unsupported(what) => Some(what),
            WitType::List(t) | WitType::Option(t) => t.unsupported_part(),
            WitType::Result { ok, err } => {
                ok.as_deref().and_then(WitType::unsupported_part).or(err.as_deref().and_then(WitType::unsupported_part))
            }
            WitType::Record(fields) => fields.iter().find_map(|f| f.ty.unsupported_part()),
            WitType::Tuple(types) => types.iter().find_map(WitType::unsupported_part),
            WitType::Variant(cases) => cases.iter().find_map(|c| c.ty.as_ref()?.unsupported_part()),
            _ => None,
        }
    }

    /// The inclusive range of an integer type, as `(min, max)`; `None` for other types.
    pub fn integer_range(&self) -> Option<(i128, i128)> {
        Some(match self {
            WitType::S8 => (i8::MIN.into(), i8::MAX.into()),
            WitType::U8 => (0, u8::MAX.into()),
            WitType::S16 => (i16::MIN.into(), i16::MAX.into()),
            WitType::U16 => (0, u16::MAX.into()),
            WitType::S32 => (i32::MIN.into(), i32::MAX.into()),
            WitType::U32 => (0, u32::MAX.into()),
            WitType::S64 => (i64::MIN.into(), i64::MAX.into()),
            WitType::U64 => (0, u64::MAX.into()),
            _ => return None,
        })
    }
}

/// Writes the type in WIT syntax, e.g. `list<tuple<string, u32>>`; records, enums,
/// variants and flags by their shape, since they are anonymous here.
impl fmt::Display for WitType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |f: &mut fmt::Formatter<'_>, items: &[String]| write!(f, "{}", items.join(", "));
        match self {
            WitType::Bool => write!(f, "bool"),
            WitType::S8 => write!(f, "s8"),
            WitType::U8 => write!(f, "u8"),
            WitType::S16 => write!(f, "s16"),
            WitType::U16 => write!(f, "u16"),
            WitType::S32 => write!(f, "s32"),
            WitType::U32 => write!(f, "u32"),
            WitType::S64 => write!(f, "s64"),
            WitType::U64 => write!(f, "u64"),
            WitType::F32 => write!(f, "f32"),
            WitType::F64 => write!(f, "f64"),
            WitType::Char => write!(f, "char"),
            WitType::String => write!(f, "string"),
            WitType::List(t) => write!(f, "list<{t}>"),
            WitType::Option(t) => write!(f, "option<{t}>"),
            WitType::Result { ok, err } => {
                let side = |t: &Option<Box<WitType>>| t.as_ref().map_or("_".to_string(), |t| t.to_string());
                write!(f, "result<{}, {}>", side(ok), side(err))
            }
            WitType::Record(fields) => {
                write!(f, "record {{ ")?;
                list(f, &fields.iter().map(|x| format!("{}: {}", x.name, x.ty)).collect::<Vec<_>>())?;
                write!(f, " }}")
            }
            WitType::Tuple(types) => {
                write!(f, "tuple<")?;
                list(f, &types.iter().map(ToString::to_string).collect::<Vec<_>>())?;
                write!(f, ">")
            }
            WitType::Enum(names) => write!(f, "enum {{ {} }}", names.join(", ")),
            WitType::Flags(names) => write!(f, "flags {{ {} }}", names.join(", ")),
            WitType::Variant(cases) => {
                let cases: Vec<String> = cases
                    .iter()
                    .map(|c| match &c.ty {
                        Some(t) => format!("{}({t})", c.name),
                        None => c.name.clone(),
                    })
                    .collect();
                write!(f, "variant {{ {} }}", cases.join(", "))
            }
            WitType::Unsupported(what) => write!(f, "{what}"),
        }
    }
}

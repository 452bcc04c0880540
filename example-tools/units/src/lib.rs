//! The `units` example tool: conversions between units of the same dimension.

#![allow(
    missing_docs,
    reason = "the bindings toolhost_guest::generate! writes have no doc comments: a tool's docs are its WIT's"
)]

toolhost_guest::generate!({ world: "units" });

use Dimension::{Length, Mass, Temperature, Time};

const ALL: [Unit; 18] = [
    Unit::Millimeter,
    Unit::Centimeter,
    Unit::Meter,
    Unit::Kilometer,
    Unit::Inch,
    Unit::Foot,
    Unit::Mile,
    Unit::Gram,
    Unit::Kilogram,
    Unit::Ounce,
    Unit::Pound,
    Unit::Celsius,
    Unit::Fahrenheit,
    Unit::Kelvin,
    Unit::Second,
    Unit::Minute,
    Unit::Hour,
    Unit::Day,
];

/// Symbol, dimension, and the linear map `base = value * scale + offset`.
fn facts(unit: Unit) -> (&'static str, Dimension, f64, f64) {
    match unit {
        Unit::Millimeter => ("mm", Length, 0.001, 0.0),
        Unit::Centimeter => ("cm", Length, 0.01, 0.0),
        Unit::Meter => ("m", Length, 1.0, 0.0),
        Unit::Kilometer => ("km", Length, 1000.0, 0.0),
        Unit::Inch => ("in", Length, 0.0254, 0.0),
        Unit::Foot => ("ft", Length, 0.3048, 0.0),
        Unit::Mile => ("mi", Length, 1609.344, 0.0),
        Unit::Gram => ("g", Mass, 0.001, 0.0),
        Unit::Kilogram => ("kg", Mass, 1.0, 0.0),
        Unit::Ounce => ("oz", Mass, 0.028_349_523_125, 0.0),
        Unit::Pound => ("lb", Mass, 0.453_592_37, 0.0),
        Unit::Celsius => ("°C", Temperature, 1.0, 273.15),
        Unit::Fahrenheit => ("°F", Temperature, 5.0 / 9.0, 273.15 - 32.0 * 5.0 / 9.0),
        Unit::Kelvin => ("K", Temperature, 1.0, 0.0),
        Unit::Second => ("s", Time, 1.0, 0.0),
        Unit::Minute => ("min", Time, 60.0, 0.0),
        Unit::Hour => ("h", Time, 3600.0, 0.0),
        Unit::Day => ("d", Time, 86400.0, 0.0),
    }
}

/// The WIT name of an enum case (its Debug form is `Unit::Meter`).
fn name(case: impl std::fmt::Debug) -> String {
    let debug = format!("{case:?}");
    debug.rsplit("::").next().unwrap_or(&debug).to_lowercase()
}

fn base_unit(dimension: Dimension) -> Unit {
    match dimension {
        Length => Unit::Meter,
        Mass => Unit::Kilogram,
        Temperature => Unit::Kelvin,
        Time => Unit::Second,
    }
}

fn round_to(value: f64, places: u8) -> Result<f64, String> {
    if places > 12 {
        return Err(format!("precision must be between 0 and 12 decimal places, got {places}"));
    }
    let factor = 10f64.powi(i32::from(places));
    Ok((value * factor).round() / factor)
}

struct Units;

impl Guest for Units {
    fn convert(value: f64, from: Unit, to: Unit, precision: Option<u8>) -> Result<f64, String> {
        let (_, from_dimension, from_scale, from_offset) = facts(from);
        let (_, to_dimension, to_scale, to_offset) = facts(to);
        if from_dimension != to_dimension {
            return Err(format!(
                "cannot convert {} ({}) to {} ({}): they measure different things",
                name(from),
                name(from_dimension),
                name(to),
                name(to_dimension)
            ));
        }
        let base = value * from_scale + from_offset;
        if from_dimension == Temperature && base < 0.0 {
            return Err(format!("{value} {} is below absolute zero", name(from)));
        }
        let converted = (base - to_offset) / to_scale;
        // Without a precision, 10 places hide floating-point noise (211.99999999999997).
        round_to(converted, precision.unwrap_or(10))
    }

    fn describe(unit: Unit) -> UnitInfo {
        let (symbol, dimension, _, _) = facts(unit);
        UnitInfo { symbol: symbol.into(), dimension, base_unit: base_unit(dimension) }
    }

    fn list_units(dimension: Option<Dimension>) -> Vec<Unit> {
        ALL.into_iter().filter(|&unit| dimension.is_none_or(|d| facts(unit).1 == d)).collect()
    }
}

export!(Units);

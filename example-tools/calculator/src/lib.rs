//! The `calculator` example tool: arithmetic expressions, percentages and statistics.

#![allow(
    missing_docs,
    reason = "the bindings toolhost_guest::generate! writes have no doc comments: a tool's docs are its WIT's"
)]

mod expression;
mod plot;

toolhost_guest::generate!({ world: "calculator" });

struct Calculator;

impl Guest for Calculator {
    fn evaluate(expression: String) -> Result<f64, String> {
        expression::evaluate(&expression)
    }

    fn percentage(part: f32, whole: f32) -> Result<f32, String> {
        if whole == 0.0 {
            return Err("whole must not be zero: a percentage of nothing is undefined".into());
        }
        Ok(part / whole * 100.0)
    }

    fn gcd(mut a: u64, mut b: u64) -> u64 {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    }

    fn factorial(n: u8) -> Result<u64, String> {
        (1..=u64::from(n))
            .try_fold(1u64, |acc, k| acc.checked_mul(k))
            .ok_or_else(|| format!("{n}! does not fit in 64 bits; the largest supported n is 20"))
    }

    fn plot(expression: String, first: f64, last: f64) -> Result<Vec<f64>, String> {
        plot::plot(&expression, first, last)
    }

    fn statistics(values: Vec<i64>) -> Option<Summary> {
        let min = *values.iter().min()?;
        let max = *values.iter().max()?;
        let sum: i128 = values.iter().map(|&v| i128::from(v)).sum();
        Some(Summary {
            count: values.len() as u32,
            sum: sum.clamp(i64::MIN.into(), i64::MAX.into()) as i64,
            min,
            max,
            mean: sum as f64 / values.len() as f64,
        })
    }
}

export!(Calculator);

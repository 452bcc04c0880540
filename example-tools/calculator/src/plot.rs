//! `plot`: an expression in `x` evaluated across a range, reported as it goes, and
//! drawn as an SVG line chart added to the result (the host's `progress`, `log` and
//! `content` services).

use toolhost_guest::{content, log, progress};

use crate::expression::evaluate_at;

/// Points evaluated across the range.
const POINTS: u32 = 101;
/// The chart's size in pixels.
const WIDTH: f64 = 400.0;
const HEIGHT: f64 = 200.0;

/// The expression's values at 101 evenly spaced points from `first` to `last`, with
/// the chart added as an image.
pub(crate) fn plot(expression: &str, first: f64, last: f64) -> Result<Vec<f64>, String> {
    if !(first.is_finite() && last.is_finite() && first < last) {
        return Err(format!("first must be less than last, both finite numbers (got {first} and {last})"));
    }
    log::info(&format!("plotting {expression} for x from {first} to {last}"));
    let step = (last - first) / f64::from(POINTS - 1);
    let mut values = Vec::with_capacity(POINTS as usize);
    for point in 0..POINTS {
        if point % 25 == 0 {
            progress::report(f64::from(point), Some(f64::from(POINTS)), Some("evaluating"));
        }
        let x = first + step * f64::from(point);
        values.push(evaluate_at(expression, Some(x)).map_err(|error| format!("at x = {x}: {error}"))?);
    }
    progress::report(f64::from(POINTS), Some(f64::from(POINTS)), Some("drawing"));
    content::image(line_chart(expression, &values).as_bytes(), "image/svg+xml");
    Ok(values)
}

/// The values as an SVG polyline scaled to the chart, under the expression as a title.
fn line_chart(title: &str, values: &[f64]) -> String {
    let low = values.iter().copied().fold(f64::INFINITY, f64::min);
    let high = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let span = if high > low { high - low } else { 1.0 };
    let last = values.len().saturating_sub(1).max(1) as f64;
    let points: Vec<String> = values
        .iter()
        .enumerate()
        .map(|(i, value)| format!("{:.1},{:.1}", WIDTH * i as f64 / last, 20.0 + HEIGHT * (high - value) / span))
        .collect();
    let title = title.replace('&', "&amp;").replace('<', "&lt;");
    format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{}"><text x="4" y="14" font-size="12">{title}</text><polyline fill="none" stroke="steelblue" points="{}"/></svg>"#,
        HEIGHT + 20.0,
        points.join(" ")
    )
}

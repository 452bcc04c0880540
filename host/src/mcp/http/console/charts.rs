//! The health page's charts, drawn as SVG in the page itself (no script, no chart
//! library fetched from anywhere): one bar per ten seconds over the last ten minutes.

use maud::{Markup, html};

/// The drawing's size, in its own units.
const WIDTH: f64 = 600.0;
const HEIGHT: f64 = 120.0;

/// A bar chart of `values` (oldest first), titled, its highest value in `unit`.
pub(super) fn bars(title: &str, values: &[f64], unit: &str) -> Markup {
    let highest = values.iter().copied().fold(0.0_f64, f64::max);
    let scale = if highest > 0.0 { HEIGHT / highest } else { 0.0 };
    let step = WIDTH / values.len().max(1) as f64;
    let label = format!("{title}: at most {} {unit} in the last ten minutes", round(highest));
    html! {
        figure.chart {
            figcaption { (title) span.muted { " — highest " (round(highest)) " " (unit) } }
            svg viewBox={ "0 0 " (WIDTH) " " (HEIGHT + 16.0) } role="img" aria-label=(label) {
                line x1="0" y1=(HEIGHT) x2=(WIDTH) y2=(HEIGHT) class="axis" {}
                @for (index, value) in values.iter().enumerate() {
                    @let height = value * scale;
                    rect x=(round(index as f64 * step + 1.0)) y=(round(HEIGHT - height))
                        width=(round((step - 2.0).max(1.0))) height=(round(height)) {}
                }
                text x="0" y=(HEIGHT + 14.0) class="muted" { "10 min ago" }
                text x=(WIDTH) y=(HEIGHT + 14.0) text-anchor="end" class="muted" { "now" }
            }
        }
    }
}

/// A number to two decimals at most, as a chart shows it.
fn round(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bar_is_drawn_per_value_the_highest_full_height() {
        let svg = bars("Calls a second", &[0.0, 2.0, 4.0], "calls/s").into_string();
        assert_eq!(svg.matches("<rect").count(), 3);
        assert!(svg.contains(r#"height="120""#) && svg.contains(r#"height="60""#), "{svg}");
        assert!(svg.contains("highest 4 calls/s"), "{svg}");
        let empty = bars("Calls a second", &[0.0; 60], "calls/s").into_string();
        assert!(!empty.contains("NaN") && !empty.contains("inf"), "{empty}");
    }
}

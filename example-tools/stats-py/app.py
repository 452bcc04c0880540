"""The stats example tool: descriptive statistics, written in Python.

Built into a WebAssembly component by componentize-py (see scripts/build-guests.sh);
`wit_world` is the module componentize-py generates from wit/stats.wit.
"""

import statistics

import wit_world
from componentize_py_types import Err
from wit_world.imports import content, log, progress

# How many values `histogram` counts between two progress reports.
_REPORT_EVERY = 10_000


def _need_values(values):
    if not values:
        raise Err("the list of values is empty: give at least one number")


class WitWorld(wit_world.WitWorld):
    def summarize(self, values):
        _need_values(values)
        return wit_world.Summary(
            count=len(values),
            mean=statistics.fmean(values),
            median=float(statistics.median(values)),
            minimum=min(values),
            maximum=max(values),
            stdev=statistics.stdev(values) if len(values) > 1 else 0.0,
        )

    def average(self, values, kind):
        _need_values(values)
        if kind == wit_world.AverageKind.MEAN:
            return statistics.fmean(values)
        if kind == wit_world.AverageKind.MEDIAN:
            return float(statistics.median(values))
        # Counted by hand: statistics.mode needs modules componentize-py leaves out
        # unless the app imports them itself.
        counts = {}
        for value in values:
            counts[value] = counts.get(value, 0) + 1
        return float(max(counts, key=counts.get))

    def percentile(self, values, percent):
        _need_values(values)
        if not 0.0 <= percent <= 100.0:
            raise Err(f"percent must be between 0 and 100, got {percent}")
        ordered = sorted(values)
        position = (len(ordered) - 1) * percent / 100.0
        lower = int(position)
        upper = min(lower + 1, len(ordered) - 1)
        return ordered[lower] + (ordered[upper] - ordered[lower]) * (position - lower)

    def ratio(self, numerator, denominator):
        return numerator / denominator

    def histogram(self, values, bins):
        _need_values(values)
        if not 1 <= bins <= 100:
            raise Err(f"bins must be between 1 and 100, got {bins}")
        low, high = min(values), max(values)
        width = (high - low) / bins or 1.0
        log.log(log.Level.INFO, f"counting {len(values)} values into {bins} bins of width {width:g}")
        counts = [0] * bins
        for done, value in enumerate(values):
            if done % _REPORT_EVERY == 0:
                progress.report(float(done), float(len(values)), "counting")
            counts[min(int((value - low) / width), bins - 1)] += 1
        progress.report(float(len(values)), float(len(values)), "counted")
        chart = _bar_chart(counts, f"{len(values)} values from {low:g} to {high:g}")
        content.add(content.Block_Image(content.Media(data=chart.encode(), mime_type="image/svg+xml")))
        return counts


def _bar_chart(counts, title):
    """The counts as an SVG bar chart, 400 by 200 pixels below a title."""
    tallest = max(counts) or 1
    bar = 400 / len(counts)
    bars = "".join(
        f'<rect x="{i * bar:.1f}" y="{220 - 200 * count / tallest:.1f}" width="{bar * 0.9:.1f}" '
        f'height="{200 * count / tallest:.1f}" fill="steelblue"/>'
        for i, count in enumerate(counts)
    )
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="220">'
        f'<text x="4" y="14" font-size="12">{title}</text>{bars}</svg>'
    )

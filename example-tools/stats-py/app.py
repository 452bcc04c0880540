"""The stats example tool: descriptive statistics, written in Python.

Built into a WebAssembly component by componentize-py (see scripts/build-guests.sh);
`wit_world` is the module componentize-py generates from wit/stats.wit.
"""

import statistics

import wit_world
from componentize_py_types import Err


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

"""Apache Otava's change points for the series in a JSON file, for the cross-check in
change_points_otava_test.cpp: reads {"window_len", "max_pvalue", "min_magnitude",
"series": [[...], ...]} from argv[1], writes per series to argv[2] {"otava": Otava's change
points, "both_neighbours": those of Otava with its merge re-testing both neighbours of a
dropped point (our documented departure, docs/history.md)}, each a list of {"index",
"pvalue", "mean_before", "mean_after"}. Where the two differ, Otava's merge went stale.
Runs in the venv scripts/otava-venv.sh makes (apache-otava from PyPI)."""
import json
import sys

import otava.analysis
from otava.analysis import TTestSignificanceTester, compute_change_points

OTAVA_MERGE = otava.analysis.merge


def merge_both_neighbours(change_points, series, max_pvalue, min_magnitude):
    """otava.analysis.merge (0.8.0) with one change: after a point is dropped, its left
    neighbour (whose segment after grew) and its right one are re-tested, where Otava
    re-tests the right one and the one after it."""
    tester = TTestSignificanceTester(max_pvalue)
    while change_points:
        weakest = max(change_points, key=lambda c: c.stats.pvalue)
        if weakest.stats.pvalue < max_pvalue:
            weakest = min(change_points, key=lambda c: c.stats.change_magnitude())
            if weakest.stats.change_magnitude() > min_magnitude:
                return change_points
        index = change_points.index(weakest)
        del change_points[index]
        intervals = tester.get_intervals(change_points)
        for neighbour in (index - 1, index):
            if 0 <= neighbour < len(change_points):
                change_points[neighbour] = tester.change_point(
                    change_points[neighbour].to_candidate(), series, intervals)
    return change_points


def change_points(values, request, merge):
    otava.analysis.merge = merge
    # A list, not an ndarray: Otava's windows slice only lists (change_point_divisive).
    points, _ = compute_change_points(
        list(values), window_len=request["window_len"], max_pvalue=request["max_pvalue"],
        min_magnitude=request["min_magnitude"])
    return [{"index": int(point.index), "pvalue": float(point.stats.pvalue),
             "mean_before": float(point.stats.mean_1), "mean_after": float(point.stats.mean_2)}
            for point in points]


def main():
    with open(sys.argv[1]) as source:
        request = json.load(source)
    found = [{"otava": change_points(values, request, OTAVA_MERGE),
              "both_neighbours": change_points(values, request, merge_both_neighbours)}
             for values in request["series"]]
    with open(sys.argv[2], "w") as sink:
        json.dump(found, sink)


if __name__ == "__main__":
    main()

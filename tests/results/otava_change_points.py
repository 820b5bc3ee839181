"""Apache Otava's change points for the series in a JSON file, for the cross-check in
change_points_otava_test.cpp: reads {"window_len", "max_pvalue", "min_magnitude",
"series": [[...], ...]} from argv[1], writes per series its change points to argv[2]: a list
of {"index", "pvalue", "mean_before", "mean_after"}.
Runs in the venv scripts/otava-venv.sh makes (apache-otava from PyPI)."""
import json
import sys

from otava.analysis import compute_change_points


def main():
    with open(sys.argv[1]) as source:
        request = json.load(source)
    found = []
    for values in request["series"]:
        # A list, not an ndarray: Otava's windows slice only lists (change_point_divisive).
        points, _ = compute_change_points(
            list(values), window_len=request["window_len"], max_pvalue=request["max_pvalue"],
            min_magnitude=request["min_magnitude"])
        found.append([{"index": int(point.index), "pvalue": float(point.stats.pvalue),
                       "mean_before": float(point.stats.mean_1),
                       "mean_after": float(point.stats.mean_2)} for point in points])
    with open(sys.argv[2], "w") as sink:
        json.dump(found, sink)


if __name__ == "__main__":
    main()

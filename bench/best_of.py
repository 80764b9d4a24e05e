#!/usr/bin/env python3
"""Best of N repetitions from Google Benchmark JSON (--benchmark_format=json).

On a shared machine other work only ever slows a run down, so the highest items_per_second of
the repetitions is the figure least disturbed by it. Prints a Markdown table row per benchmark.
Usage: bench/best_of.py results.json
"""
import collections
import json
import sys

best = collections.OrderedDict()
with open(sys.argv[1]) as f:
    for b in json.load(f)["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        name = b["run_name"]
        best[name] = max(best.get(name, 0.0), b["items_per_second"])
for name, value in best.items():
    print(f"| `{name}` | {value / 1e6:,.1f} |")

#!/usr/bin/env python3
"""Markdown tables from bench/ring_bench's JSON (--benchmark_format=json), one per waiting policy.

Every repetition carries `line_ns`, what one cache line cost to move between the two CPUs when it
started. This VM switches between a "near" placement of its two vCPUs (~30 ns) and a "far" one
(~150 ns), sometimes within a run, and at batch 1 that alone moves every ring ten-fold; so each
cell is the median of the repetitions measured in one placement, with their count.
Usage: bench/ring_table.py ring.json
"""
import collections
import json
import statistics
import sys

NEAR_LIMIT_NS = 80  # between the two clusters seen here (30-45 and 150-180)

cells = collections.defaultdict(list)  # (pauses, mode, ring) -> {batch: [M/s]}
with open(sys.argv[1]) as f:
    for b in json.load(f)["benchmarks"]:
        if b.get("run_type") != "iteration" or "line_ns" not in b:
            continue
        parts = dict(p.split(":") for p in b["run_name"].split("/") if ":" in p)
        ring = b["run_name"].split("/")[1]
        mode = "near" if b["line_ns"] < NEAR_LIMIT_NS else "far"
        key = (int(parts["pauses"]), mode, ring)
        cells.setdefault(key, collections.defaultdict(list))
        cells[key][int(parts["batch"])].append(b["items_per_second"] / 1e6)

batches = sorted({n for v in cells.values() for n in v})
for pauses in sorted({k[0] for k in cells}):
    print(f"\n{pauses} pause(s) per failed attempt, M descriptors/s (median, n repetitions):\n")
    print("| placement | ring | " + " | ".join(f"batch {n}" for n in batches) + " |")
    print("|---|---|" + "---|" * len(batches))
    for mode in ("near", "far"):
        for ring in ("ours", "libxdp", "naive", "rte_ring"):
            row = cells.get((pauses, mode, ring))
            if not row:
                continue
            out = [f"{statistics.median(row[n]):.0f} ({len(row[n])})" if row.get(n) else "-"
                   for n in batches]
            print(f"| {mode} | {ring} | " + " | ".join(out) + " |")

#!/usr/bin/env python3
"""Markdown tables from bench/ring_bench's JSON (--benchmark_format=json), one per waiting policy.

Every repetition carries `line_ns`, what one cache line cost to move between the two CPUs when it
started. A VM's host may switch between a "near" placement of its two vCPUs (~30 ns) and a "far"
one (~150 ns), sometimes within a run, and at batch 1 that alone moves every ring ten-fold; so
each cell is the median of the repetitions measured in one placement, with their count.
The one_core rows (both threads on one CPU: no line moves between CPUs, no `line_ns`) get a table
of their own, with each cell's lowest and highest repetition, since there the spread between
repetitions is as large as the differences between rings.
Usage: bench/ring_table.py ring.json [more.json ...]
"""
import collections
import json
import statistics
import sys

NEAR_LIMIT_NS = 80  # between the two clusters seen here (30-45 and 150-180)

RINGS = ("ours", "libxdp", "naive", "rte_ring")
cells = collections.defaultdict(list)  # (pauses, mode, ring) -> {batch: [M/s]}
one_core = {}  # ring -> {batch: [M/s]}
for name in sys.argv[1:]:
    with open(name) as f:
        for b in json.load(f)["benchmarks"]:
            if b.get("run_type") != "iteration":
                continue
            parts = dict(p.split(":") for p in b["run_name"].split("/") if ":" in p)
            ring = b["run_name"].split("/")[1]
            rate = b["items_per_second"] / 1e6
            if "/one_core/" in b["run_name"]:
                one_core.setdefault(ring, collections.defaultdict(list))
                one_core[ring][int(parts["batch"])].append(rate)
                continue
            if "line_ns" not in b:
                continue
            mode = "near" if b["line_ns"] < NEAR_LIMIT_NS else "far"
            key = (int(parts["pauses"]), mode, ring)
            cells.setdefault(key, collections.defaultdict(list))
            cells[key][int(parts["batch"])].append(rate)

batches = sorted({n for v in list(cells.values()) + list(one_core.values()) for n in v})
for pauses in sorted({k[0] for k in cells}):
    print(f"\n{pauses} pause(s) per failed attempt, M descriptors/s (median, n repetitions):\n")
    print("| placement | ring | " + " | ".join(f"batch {n}" for n in batches) + " |")
    print("|---|---|" + "---|" * len(batches))
    for mode in ("near", "far"):
        for ring in RINGS:
            row = cells.get((pauses, mode, ring))
            if not row:
                continue
            out = [f"{statistics.median(row[n]):.0f} ({len(row[n])})" if row.get(n) else "-"
                   for n in batches]
            print(f"| {mode} | {ring} | " + " | ".join(out) + " |")

if one_core:
    print("\nOne core (both threads on CPU 0, yielding), M descriptors/s "
          "(median [lowest-highest], n repetitions):\n")
    print("| ring | " + " | ".join(f"batch {n}" for n in batches) + " |")
    print("|---|" + "---|" * len(batches))
    for ring in RINGS:
        row = one_core.get(ring)
        if not row:
            continue
        out = [f"{statistics.median(row[n]):.0f} [{min(row[n]):.0f}-{max(row[n]):.0f}] ({len(row[n])})"
               if row.get(n) else "-" for n in batches]
        print(f"| {ring} | " + " | ".join(out) + " |")

#!/usr/bin/env python3
"""Summarise a bench raw log: best and median per (implementation, np, size).

The raw log holds "== LABEL np=NP round=R" headers, each followed by the
program's OSU-style lines ("SIZE AVG MIN MAX ITERS", microseconds) and
"# NAME: median X us; ..." lines; FAILED lines mark launches that failed.
Best = min over launches of the best iteration (the OSU Min column);
median = median over launches of each launch's median iteration.
"""
import os
import re
import statistics
import sys
from collections import OrderedDict


def main(path):
    runs = OrderedDict()
    key = None
    failed = []
    for line in open(path):
        m = re.match(r"== (.*) np=(\d+) round=(\d+)", line)
        if m:
            key = (m.group(1), int(m.group(2)))
            continue
        if line.startswith("FAILED") or "WRONG BYTES" in line:
            failed.append(line.strip())
            continue
        if key is None:
            continue
        m = re.match(r"^(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(\d+)\s*$", line)
        if m:
            size = int(m.group(1))
            runs.setdefault(key + (size,), {"best": [], "median": []})
            runs[key + (size,)]["best"].append(float(m.group(3)))
            cur = key + (size,)
            continue
        m = re.match(r"^# .*: median ([\d.]+) us", line)
        if m and key is not None:
            runs[cur]["median"].append(float(m.group(1)))
    # PHASEC_BENCH_UNIT=us: microseconds (small messages), else milliseconds.
    us = os.environ.get("PHASEC_BENCH_UNIT") == "us"
    unit, scale = ("us", 1.0) if us else ("ms", 1e3)
    sizes = sorted({k[2] for k in runs})
    multi = len(sizes) > 1
    print("| implementation | np |%s best (%s) | median (%s) | launches |" %
          (" size (bytes) |" if multi else "", unit, unit))
    print("|---|---|%s---|---|---|" % ("---|" if multi else ""))
    for (label, np, size), v in sorted(runs.items(),
                                       key=lambda kv: (kv[0][2], kv[0][1])):
        best = min(v["best"]) / scale
        med = (statistics.median(v["median"]) / scale if v["median"]
               else float("nan"))
        print("| %s | %d |%s %.3f | %.3f | %d |" % (
            label, np, (" %d |" % size) if multi else "", best, med,
            len(v["best"])))
    for f in failed:
        print("FAILED:", f)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))

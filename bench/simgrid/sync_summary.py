#!/usr/bin/env python3
"""Summarises bench/simgrid/sync.sh's tables: per operation, phasec's
schedule with and without barriers and the fastest SimGrid built-in on the
same platform (its setting), as % of the bandwidth bound.

usage: sync_summary.py OUT_DIR [--csv FILE]
"""
import argparse
import glob
import os
import re
import sys

from summary_table import print_markdown, write_csv

ROW = re.compile(r"^(\S+)\s+(phasec|stock)\s+(phased|builtin)\s+(\S+)\s+\S+\s+"
                 r"(\S+)\s+\S+\s+\S+\s+(\S+)")


def parse(path):
    """{operation: {"phasec": (t, pct), "best": (t, pct, setting, platform)}}
    of one table."""
    ops, op = {}, None
    for line in open(path):
        m = re.match(r"^operation (\S+):", line)
        if m:
            op = ops.setdefault(m.group(1), {})
            continue
        m = ROW.match(line)
        if not m or op is None:
            continue
        name, platform, kind, sim, pct, setting = m.groups()
        try:
            t = float(sim)
        except ValueError:
            continue  # skipped / failed / timeout
        if kind == "phased" and name == "phasec":
            op["phasec"] = (t, pct)
        elif (kind == "builtin" and platform == "phasec" and
              ("best" not in op or t < op["best"][0])):
            # Only phasec's platform: the stock TORUS has no injection
            # limit, so its rows can beat the one-port bound.
            op["best"] = (t, pct, setting, platform)
    return ops


def main(out, csv_path=None):
    rows = []
    for path in sorted(glob.glob(os.path.join(out, "*.txt"))):
        torus, part, size = os.path.basename(path)[:-4].split("-")
        ops = parse(path)
        for base in sorted({o.rsplit("_", 1)[0] for o in ops}):
            bar = ops.get(base + "_barrier", {}).get("phasec")
            none = ops.get(base + "_none", {}).get("phasec")
            best = ops.get(base + "_barrier", {}).get("best")
            rows.append([torus, base, size,
                         "%.4g s (%s)" % bar if bar else "-",
                         "%.4g s (%s)" % none if none else "-",
                         "%.4g s (%s) %s" % best[:3] if best else "-",
                         "%.2f" % (none[0] / best[0]) if none and best else "-"])
    head = ["torus", "op", "bytes", "phasec, barrier", "phasec, sync none",
            "best built-in", "none/best"]
    print_markdown(head, rows)
    write_csv(csv_path, head, rows)
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="sync.sh's OUT_DIR")
    parser.add_argument("--csv", help="also write the table as CSV here")
    args = parser.parse_args()
    sys.exit(main(args.out, args.csv))

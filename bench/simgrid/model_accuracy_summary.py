#!/usr/bin/env python3
"""Prints the table of model_accuracy.sh's runs: per example and operation
the simulated/model ratio and whether it is within 25% (issue 12's target).

Usage: model_accuracy_summary.py OUT_DIR [OUT_DIR2 ...]

With several directories (runs of different examples, or a rerun), an
example's rows come from the last directory that has it.
"""
import pathlib
import re
import sys

LINE = re.compile(r"^(\S+): simulated/model = ([0-9.]+) \(([-+0-9.]+)%\)$")


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__.strip())
    latest = {}
    for out in map(pathlib.Path, argv[1:]):
        found = sorted(out.glob("*.txt"))
        if not found:
            sys.exit(f"no runs in {out}")
        for run in found:
            latest[run.stem] = run
    runs = [latest[name] for name in sorted(latest)]
    print("| example | operation | simulated/model | deviation | within 25% |")
    print("|---|---|---|---|---|")
    within = total = 0
    for run in runs:
        text = run.read_text().splitlines()
        rows = [LINE.match(l) for l in text]
        for m in filter(None, rows):
            total += 1
            ok = abs(float(m.group(3))) <= 25
            within += ok
            print(f"| {run.stem} | {m.group(1)} | {float(m.group(2)):.3f} | "
                  f"{float(m.group(3)):+.1f}% | {'yes' if ok else 'no'} |")
        for l in text:
            if l.startswith("TIMEOUT") or l.startswith("FAILED"):
                print(f"| {run.stem} | (all) | - | - | {l.lower()} |")
    print(f"\n{within} of {total} simulated operations within 25%.")


if __name__ == "__main__":
    main(sys.argv)

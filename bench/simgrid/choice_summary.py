#!/usr/bin/env python3
"""Summarises bench/simgrid/choice.sh OUT_DIR: one row per machine, collective
and size with phasec's choice (from OUT/T-C-S.stats), its simulated time and
% of the bandwidth bound, the model's prediction, the fastest SimGrid
built-in on phasec's platform that ran (and, where the program checks it,
verified its result), and phasec / best. `met` is phasec / best <= 1.05
(issue 12's "at least as fast as the best built-in, within 5%").

usage: choice_summary.py OUT_DIR [OUT_DIR ...] [--csv FILE]

With several directories (e.g. a rerun of some cells after a change), a
cell's row comes from the last directory that has it, and the `run` column
says which (1 = the first directory).
"""
import argparse
import glob
import os
import re
import sys

from summary_table import print_markdown, write_csv

ROW = re.compile(r"^(\S+)\s+(phasec|stock)\s+(phased|relay|builtin)\s+(\S+)\s+"
                 r"\S+\s+(\S+)\s+(\S+)\s+\S+\s+(\S+)\s*(.*)$")
SIZES = {"8": "8 B", "256": "256 B", "4096": "4 KiB", "65536": "64 KiB",
         "1048576": "1 MiB"}


def parse(path):
    """(phasec (time, pct, model, note), best (time, pct, setting), reason)
    of one --compare table; reason is set when the operation did not run."""
    phasec, best, reason = None, None, None
    for line in open(path):
        if line.startswith("not run:"):
            reason = line.strip()
        m = ROW.match(line.rstrip("\n"))
        if not m:
            continue
        name, platform, kind, sim, pct, model, setting, note = m.groups()
        try:
            t = float(sim)
        except ValueError:
            continue  # failed / skipped / timeout: the table says why
        if platform != "phasec":
            # The stock TORUS has no injection limit: its rows can beat the
            # one-port bound phasec's platform (and the machine) has.
            continue
        if kind in ("phased", "relay") and name == "phasec":
            phasec = (t, pct, model, note.strip())
        elif kind == "builtin" and "wrong" not in note and (
                best is None or t < best[0]):
            best = (t, pct, setting.replace("smpi/", ""))
    return phasec, best, reason


def choice(stats):
    """phasec's chosen algorithm, phases and sync from --emit=schedule-stats."""
    if not os.path.exists(stats):
        return "?"
    text = open(stats).read()
    m = re.search(r"^  phasec\s+(.+?)\s+(\d+)\s+\S+\s+\S+", text, re.M)
    sync = re.search(r"machine, sync (\S+) \(used\)", text)
    if not m:
        return "?"
    return "%s, %s phases%s" % (m.group(1), m.group(2),
                                ", sync " + sync.group(1) if sync else "")


def key(path):
    torus, coll, size = os.path.basename(path)[:-4].rsplit("-", 2)
    return (torus != "4x4x4", coll, int(size))


def main(outs, csv_path=None):
    head = ["machine", "collective", "per pair", "phasec's choice",
            "phasec [s]", "%bound", "model [s]", "best built-in [s]",
            "phasec/best", "met"]
    if len(outs) > 1:
        head.append("run")
    cells = {}
    for i, out in enumerate(outs):
        for path in glob.glob(os.path.join(out, "*.txt")):
            cells[os.path.basename(path)] = (path, i + 1)
    rows = []
    for name in sorted(cells, key=key):
        path, run = cells[name]
        torus, coll, size = name[:-4].rsplit("-", 2)
        phasec, best, reason = parse(path)
        label = SIZES.get(size, size + " B")
        stem = path[:-4]
        if reason:
            row = [torus, coll, label, reason, "-", "-", "-", "-", "-",
                   "not run"]
        elif not phasec:
            row = [torus, coll, label, choice(stem + ".stats"),
                   "failed (see %s.log)" % os.path.basename(stem),
                   "-", "-", "-", "-", "no"]
        else:
            ratio = phasec[0] / best[0] if best else None
            row = [torus, coll, label, choice(stem + ".stats"),
                   "%.4g" % phasec[0], phasec[1], phasec[2],
                   "%.4g %s" % (best[0], best[2]) if best else "-",
                   "%.3f" % ratio if ratio else "-",
                   ("yes" if ratio <= 1.05 else "no") if ratio else "-"]
        if len(outs) > 1:
            row.append(str(run))
        rows.append(row)
    print_markdown(head, rows)
    met = sum(1 for r in rows if r[9] == "yes")
    ran = sum(1 for r in rows if r[9] in ("yes", "no"))
    print("\n%d of %d operations that ran: phasec within 5%% of the best "
          "built-in or faster" % (met, ran))
    write_csv(csv_path, head, rows)
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="+", help="choice.sh's OUT_DIR(s)")
    parser.add_argument("--csv", help="also write the table as CSV here")
    args = parser.parse_args()
    sys.exit(main(args.out, args.csv))

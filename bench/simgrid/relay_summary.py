#!/usr/bin/env python3
"""Summarise bench/simgrid/relay.sh OUT: one markdown table per torus and
collective, one row per size.

Columns: the bandwidth bound (phasec's cost model), phasec's choice
(--emit=schedule-stats) and its simulated time and bound/time, the fastest
named phasec algorithm, the fastest SimGrid built-in that ran and verified
its result, phasec/best built-in, and how many built-ins failed or were
skipped (their reasons are in OUT/T/C/S/auto.txt). Then the built-ins that
failed, with SimGrid's reason, once per (algorithm, reason).

Usage: relay_summary.py OUT_DIR [--csv FILE]
"""
import os
import re
import sys

ROW = re.compile(r"^(\S+)\s+phasec\s+(relay|builtin)\s+(\S+)\s+(\S+)\s+(\S+)"
                 r"(?:\s+(\S+)\s+(\S+)\s*(.*))?$")


def parse_table(path):
    """(bound, {name: (kind, status_or_time, note)}) of one --target=sim run."""
    bound, rows = None, {}
    if not os.path.exists(path):
        return bound, rows
    for line in open(path):
        m = re.search(r"bandwidth bound (\S+) s", line)
        if m:
            bound = float(m.group(1))
            continue
        if line.startswith("variant "):
            continue
        m = ROW.match(line.rstrip("\n"))
        if not m:
            continue
        name, kind, sim = m.group(1), m.group(2), m.group(3)
        rest = line.split(None, 3)[3] if len(line.split(None, 3)) > 3 else ""
        try:
            rows[name] = (kind, float(sim), rest.strip())
        except ValueError:
            # failed / skipped / timeout: the note is the last column, after
            # the wall time and the built-in's setting.
            note = re.split(r"\s+-\s+-\s+-\s+\S+\s+\S+\s+", rest,
                            maxsplit=1)
            rows[name] = (kind, sim, note[-1].strip())
    return bound, rows


def choice(stats):
    if not os.path.exists(stats):
        return "?"
    for line in open(stats):
        m = re.match(r"^  phasec\s+(.+?)\s+(\d+)\s+\S+\s+\S+", line)
        if m:
            return "%s, %s phases" % (m.group(1), m.group(2))
    return "?"


def algorithm(sched, fallback):
    """The `algorithm = X;` of a named run's .sched file."""
    if os.path.exists(sched):
        m = re.search(r"algorithm = (.*?);", open(sched).read())
        if m:
            return m.group(1)
    return fallback


def fmt(t):
    return "%.3e" % t if isinstance(t, float) else t


def main(out, csv=None):
    failures = {}
    csv_rows = []
    for torus in sorted(os.listdir(out)):
        tdir = os.path.join(out, torus)
        if not os.path.isdir(tdir):
            continue
        for coll in ("broadcast", "allreduce", "scan"):
            cdir = os.path.join(tdir, coll)
            if not os.path.isdir(cdir):
                continue
            print("\n%s torus %s (1 GB/s links, 1 us per link)\n" % (coll, torus))
            print("| bytes | bound (s) | phasec choice | phasec (s) | bound/phasec "
                  "| phasec, sync = none (s) | best named (s) "
                  "| best built-in (s) | phasec/best built-in "
                  "| built-ins ok/failed/skipped |")
            print("|---|---|---|---|---|---|---|---|---|---|")
            for size in sorted(os.listdir(cdir), key=int):
                d = os.path.join(cdir, size)
                bound, rows = parse_table(os.path.join(d, "auto.txt"))
                ours = rows.get("phasec")
                ok = {n: r for n, r in rows.items()
                      if r[0] == "builtin" and isinstance(r[1], float)}
                bad = {n: r for n, r in rows.items()
                       if r[0] == "builtin" and not isinstance(r[1], float)}
                nfail = sum(1 for r in bad.values() if r[1] != "skipped")
                nskip = len(bad) - nfail
                for n, r in bad.items():
                    failures.setdefault((coll, n, r[1], r[2]), []).append(
                        "%s/%s" % (torus, size))
                best = min(ok.items(), key=lambda kv: kv[1][1]) if ok else None
                named = []
                for f in sorted(os.listdir(d)):
                    if f.endswith(".txt") and f not in ("auto.txt",
                                                        "nosync.txt"):
                        _, nr = parse_table(os.path.join(d, f))
                        if "phasec" in nr and isinstance(nr["phasec"][1], float):
                            named.append((nr["phasec"][1], algorithm(
                                os.path.join(d, f[:-4] + ".sched"), f[:-4])))
                bn = min(named) if named else None
                t = ours[1] if ours and isinstance(ours[1], float) else None
                _, ns = parse_table(os.path.join(d, "nosync.txt"))
                tn = ns.get("phasec")
                tn = tn[1] if tn and isinstance(tn[1], float) else None
                print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %d/%d/%d |" % (
                    size, fmt(bound) if bound else "-",
                    choice(os.path.join(d, "auto.stats")),
                    fmt(t) if t else "failed",
                    "%.3g" % (bound / t) if t and bound else "-",
                    fmt(tn) if tn else "-",
                    "%s %s" % (bn[1], fmt(bn[0])) if bn else "-",
                    "%s %s" % (best[0], fmt(best[1][1])) if best else "-",
                    "%.3f" % (t / best[1][1]) if t and best else "-",
                    len(ok), nfail, nskip))
                csv_rows.append([torus, coll, size, bound, t, tn,
                                 best[0] if best else "",
                                 best[1][1] if best else "",
                                 bn[1] if bn else "", bn[0] if bn else ""])
    if failures:
        print("\nbuilt-ins that did not run (where, why):\n")
        for (coll, n, status, note), where in sorted(failures.items()):
            print("- %s %s: %s at %s: %s" % (coll, n, status, ", ".join(where),
                                            note))
    if csv:
        with open(csv, "w") as f:
            f.write("torus,collective,bytes,bound,phasec,phasec_nosync,best_builtin,"
                    "best_builtin_time,best_named,best_named_time\n")
            for r in csv_rows:
                f.write(",".join(str(x) for x in r) + "\n")
    return 0


if __name__ == "__main__":
    args = sys.argv[1:]
    csv = None
    if "--csv" in args:
        i = args.index("--csv")
        csv = args[i + 1]
        del args[i:i + 2]
    sys.exit(main(args[0], csv))

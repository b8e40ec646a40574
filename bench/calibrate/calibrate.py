#!/usr/bin/env python3
"""Turn bench/calibrate's raw log into a table, machine.sched and JSON.

The raw log (bench/common.sh's `run`) holds "== LABEL np=NP round=R"
headers, each followed by the probe lines of calib_mpi / calib_shmem /
calib_copy:

    probe=NAME np=P bytes=B n=N best_us=X median_us=Y iters=I

LABEL is the back end: mpi, shmem, copy, simgrid (this host's latency and
bandwidth), simgrid-1us (the barrier with 1 us links). For every quantity:
best = the least over launches of a launch's fastest iteration (the value
written to machine.sched: on a shared, noisy machine the fastest launch is
the one least disturbed), median = the median over launches of a launch's
median iteration, spread = the slowest launch's best / the fastest launch's
best (how much launches differ).

    calibrate.py sim-params LOG --backend=mpi
        prints "LATENCY_S BANDWIDTH_BPS" of the host, for the SimGrid
        platform run.sh simulates next;
    calibrate.py report LOG --out=DIR --backend=mpi --mode=quick|full
        prints the table and writes DIR/machine.sched and
        DIR/calibration.json.

Exits 1 with a message when a launch failed, a probe is missing or a
derived value is not positive.
"""
import argparse
import json
import math
import re
import socket
import statistics
import sys
import time
from collections import OrderedDict

PROBE = re.compile(
    r"^probe=(\S+) np=(\d+) bytes=(\d+) n=(\d+) best_us=([\d.]+) "
    r"median_us=([\d.]+) iters=(\d+)\s*$")
HEADER = re.compile(r"^== (\S+) np=(\d+) round=(\d+)")

# The machine properties run.sh writes, in order, with their units. The
# first four and the copy rates' first two exist in phasec's language
# (docs/language.md); copy_rate.gather and barrier_cost are issue 12's.
PROPERTIES = [("latency", "us"), ("bandwidth", "MB/s"), ("setup_cost", "us"),
              ("copy_rate.contiguous", "MB/s"), ("copy_rate.strided", "MB/s"),
              ("copy_rate.gather", "MB/s"), ("barrier_cost", "us")]


class CalibrationError(Exception):
    pass


def parse(path):
    """{(label, probe, np, n): [(bytes, best_us, median_us), ...]} and the
    failed launches."""
    runs = OrderedDict()
    failed = []
    label = None
    with open(path) as f:
        for line in f:
            if line.startswith("FAILED"):
                failed.append(line.strip())
                continue
            m = HEADER.match(line)
            if m:
                label = m.group(1)
                continue
            m = PROBE.match(line)
            if m and label:
                key = (label, m.group(1), int(m.group(2)), int(m.group(4)))
                runs.setdefault(key, []).append(
                    (int(m.group(3)), float(m.group(5)), float(m.group(6))))
    return runs, failed


class Stat:
    """One probe over its launches (microseconds per iteration)."""

    def __init__(self, runs, label, probe, np, n=1):
        key = (label, probe, np, n)
        if key not in runs:
            raise CalibrationError(
                "no result for %s %s at np=%d%s in the raw log (did every "
                "launch fail?)" % (label, probe, np,
                                   " n=%d" % n if n != 1 else ""))
        v = runs[key]
        self.bytes = v[0][0]
        self.bests = [b for _, b, _ in v]
        self.best = min(self.bests)
        self.median = statistics.median(m for _, _, m in v)
        self.spread = max(self.bests) / self.best if self.best > 0 else None
        self.launches = len(v)


def derive(runs, label, nps):
    """The communication quantities of one back end, as a dict of
    (best, median, spread, launches, unit, how)."""
    out = OrderedDict()
    lat = Stat(runs, label, "latency", 2)
    b1 = Stat(runs, label, "burst", 2, 1)
    burst_n = sorted(k[3] for k in runs
                     if k[:3] == (label, "burst", 2) and k[3] != 1)
    if not burst_n:
        raise CalibrationError("no burst of n > 1 messages for %s" % label)
    n = burst_n[-1]
    bn = Stat(runs, label, "burst", 2, n)
    bw = Stat(runs, label, "bandwidth", 2)

    def row(key, best, median, spread, launches, unit, how):
        out[key] = OrderedDict([("best", best), ("median", median),
                                ("spread", spread), ("launches", launches),
                                ("unit", unit), ("how", how)])

    row("one_way_8B", lat.best, lat.median, lat.spread, lat.launches, "us",
        "8-byte ping-pong, half a round trip")
    # Set-up: what one more message of a burst adds. Best-of T(n) and T(1)
    # each (the least disturbed of each); per-launch values give the spread.
    setup = (bn.best - b1.best) / (n - 1)
    per_launch = [(x - y) / (n - 1) for x, y in zip(bn.bests, b1.bests)]
    row("setup_cost", setup,
        (statistics.median(bn.bests) - statistics.median(b1.bests)) / (n - 1),
        # None: some launch's burst did not grow with n (no ratio).
        (max(per_launch) / min(per_launch)) if min(per_launch) > 0 else None,
        bn.launches, "us", "(T(%d) - T(1)) / %d, bursts of 8-byte messages"
        % (n, n - 1))
    # bytes per microsecond = MB/s (decimal, as the language's MB/s).
    row("bandwidth", bw.bytes / bw.best, bw.bytes / bw.median, bw.spread,
        bw.launches, "MB/s", "%d-byte ping-pong, bytes / one-way time"
        % bw.bytes)
    # The model charges a lone message setup_cost + hops x latency +
    # bytes / bandwidth; on this host a message takes one hop, so the rest
    # of the one-way time is the per-hop latency.
    hop = lat.best - setup - 8 / (bw.bytes / bw.best)
    row("latency", hop, None, None, lat.launches, "us",
        "one-way 8 B - setup_cost - 8 B / bandwidth (one hop)")
    for np in nps:
        bar = Stat(runs, label, "barrier", np, _barrier_k(runs, label, np))
        row("barrier_np%d" % np, bar.best, bar.median, bar.spread,
            bar.launches, "us", "per call, %d back to back%s"
            % (_barrier_k(runs, label, np),
               ", oversubscribed (2 cores)" if np > 2 and label != "simgrid"
               else ""))
    return out


def _barrier_k(runs, label, np):
    ks = [k[3] for k in runs if k[:3] == (label, "barrier", np)]
    if not ks:
        raise CalibrationError("no barrier result for %s at np=%d" % (label, np))
    return ks[0]


def copies(runs):
    out = OrderedDict()
    rates = {}
    for name in ["contiguous", "pack", "unpack", "gather", "scatter"]:
        s = Stat(runs, "copy", "copy." + name, 1)
        rates[name] = s
        out["copy_" + name] = OrderedDict([
            ("best", s.bytes / s.best), ("median", s.bytes / s.median),
            ("spread", s.spread), ("launches", s.launches), ("unit", "MB/s"),
            ("how", "%d bytes of 8-byte elements" % s.bytes)])
    return out, rates


def harmonic(a, b):
    """The one rate at which packing then unpacking the same bytes takes
    as long as at the two measured rates: a packed message pays both."""
    return 2 / (1 / a + 1 / b)


def fmt(x):
    """Four significant digits, never an exponent (the .sched lexer reads
    plain decimals)."""
    if not (x > 0 and math.isfinite(x)):
        raise CalibrationError("value %r is not a positive number" % x)
    digits = max(0, 3 - int(math.floor(math.log10(x))))
    return "%.*f" % (digits, x)


def host_values(runs, backend):
    comm = derive(runs, backend, [2, 4])
    cp, _ = copies(runs)
    values = OrderedDict([
        ("latency", comm["latency"]["best"]),
        ("bandwidth", comm["bandwidth"]["best"]),
        ("setup_cost", comm["setup_cost"]["best"]),
        ("copy_rate.contiguous", cp["copy_contiguous"]["best"]),
        ("copy_rate.strided", harmonic(cp["copy_pack"]["best"],
                                       cp["copy_unpack"]["best"])),
        ("copy_rate.gather", harmonic(cp["copy_gather"]["best"],
                                      cp["copy_scatter"]["best"])),
        ("barrier_cost", comm["barrier_np2"]["best"]),
    ])
    for name, v in values.items():
        if not (v > 0 and math.isfinite(v)):
            raise CalibrationError(
                "%s came out %s, not positive: %s" % (
                    name, "%.4g" % v,
                    "the 8-byte one-way time is not above the set-up cost "
                    "(one-way %.4g us, set-up %.4g us); the machine was too "
                    "noisy, run again" % (comm["one_way_8B"]["best"],
                                          comm["setup_cost"]["best"])
                    if name == "latency" else "the machine was too noisy or "
                    "a probe is broken; see the raw log"))
    return values


def cmd_sim_params(args):
    runs, failed = parse(args.log)
    if failed:
        raise CalibrationError("launches failed: " + "; ".join(failed))
    comm = derive(runs, args.backend, [2])
    print("%.6e %.6e" % (comm["latency"]["best"] * 1e-6,
                         comm["bandwidth"]["best"] * 1e6))


def cmd_report(args):
    runs, failed = parse(args.log)
    if failed:
        raise CalibrationError("launches failed (see %s): %s"
                               % (args.log, "; ".join(failed)))
    values = host_values(runs, args.backend)
    measured = OrderedDict()
    for label in ["mpi", "shmem", "simgrid"]:
        measured[label] = derive(runs, label, [2, 4])
    cp, _ = copies(runs)
    measured["copy"] = cp
    # SimGrid with 1 us links: the barrier in link latencies.
    sim_rounds = OrderedDict(
        (np, Stat(runs, "simgrid-1us", "barrier", np,
                  _barrier_k(runs, "simgrid-1us", np)).best / 1.0)
        for np in [2, 4])
    sim_latency_us = measured["simgrid"]["latency"]["best"]

    # The table: one row per back end and quantity, deterministic order.
    lines = ["| back end | quantity | best | unit | median | spread "
             "(slowest / fastest launch) | launches | how |",
             "|---|---|---|---|---|---|---|---|"]
    for label, rows in measured.items():
        for q, r in rows.items():
            med = "-" if r["median"] is None else "%.4g" % r["median"]
            spr = "-" if r["spread"] is None else "%.2fx" % r["spread"]
            lines.append("| %s | %s | %.4g | %s | %s | %s | %d | %s |" % (
                label, q, r["best"], r["unit"], med, spr, r["launches"],
                r["how"]))
    table = "\n".join(lines)
    print(table)
    print()
    print("load average (1, 5, 15 min) before -> after the measurements: %s"
          % args.load)
    print("SimGrid barrier (mvapich2_pair) with 1 us links: np=2 (mesh:2) "
          "%.3f us, np=4 (mesh:2x2) %.3f us: rounds x hops link latencies"
          % (sim_rounds[2], sim_rounds[4]))
    print()

    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    host = socket.gethostname()
    width = max(len(n) for n, _ in PROPERTIES)
    sched = [
        "// Generated by bench/calibrate/run.sh%s on %s at %s."
        % (" --quick" if args.mode == "quick" else "", host, stamp),
        "// Best of %d interleaved launches; %s's latency, bandwidth, "
        "setup_cost and" % (args.rounds, args.backend.upper()
                            if args.backend == "mpi" else "OpenSHMEM"),
        "// barrier_cost (np 2); copy rates of one core. Spreads and the "
        "other back ends:",
        "// calibration.json. copy_rate.gather and barrier_cost need "
        "issue 12's model.",
        "// Topology: this host is two ranks on two cores that share memory;"
        " mesh(2)",
        "// gives them the one hop between them.",
        "machine this_host {",
        "  topology = mesh(2);",
    ]
    for name, unit in PROPERTIES:
        sched.append("  %s = %s %s;" % (name.ljust(width), fmt(values[name]),
                                        unit))
    sched.append("}")
    with open(args.out + "/machine.sched", "w") as f:
        f.write("\n".join(sched) + "\n")

    doc = OrderedDict([
        ("generator", "bench/calibrate/run.sh"),
        ("host", host), ("date", stamp), ("mode", args.mode),
        ("rounds", args.rounds), ("backend", args.backend),
        ("load_average", args.load),
        ("machine", OrderedDict([("name", "this_host"),
                                 ("topology", "mesh(2)")])),
        ("properties", OrderedDict(
            (n, OrderedDict([("value", float(fmt(values[n]))), ("unit", u)]))
            for n, u in PROPERTIES)),
        ("measured", measured),
        ("simgrid", OrderedDict([
            ("platform", "phasec-sim mesh:2 (np 2) and mesh:2x2 (np 4), "
             "link latency and bandwidth of this host (measured.simgrid); "
             "the barrier again with 1 us links (barrier_latencies)"),
            ("latency_us", sim_latency_us),
            ("barrier_latencies", OrderedDict(
                ("np%d" % np, v) for np, v in sim_rounds.items()))])),
    ])
    with open(args.out + "/calibration.json", "w") as f:
        json.dump(doc, f, indent=2, allow_nan=False)
        f.write("\n")
    print("\n".join(sched))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("sim-params")
    s.add_argument("log")
    s.add_argument("--backend", choices=["mpi", "shmem"], default="mpi")
    r = sub.add_parser("report")
    r.add_argument("log")
    r.add_argument("--out", required=True)
    r.add_argument("--backend", choices=["mpi", "shmem"], default="mpi")
    r.add_argument("--mode", choices=["quick", "full"], required=True)
    r.add_argument("--rounds", type=int, required=True)
    r.add_argument("--load", default="",
                   help="load averages before -> after the measurements")
    args = p.parse_args()
    try:
        (cmd_sim_params if args.cmd == "sim-params" else cmd_report)(args)
    except CalibrationError as e:
        print("calibrate.py: error: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

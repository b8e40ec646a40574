#!/usr/bin/env python3
"""bench/simgrid/builtins.py - SimGrid's built-in MPI_Alltoall algorithms on a
directory written by `phasec-sim --emit-only` (or any phasec-sim run), each
under a wall-time limit and a memory cap, one at a time.

    builtins.py DIR --algos pair,ring,... [--platforms phasec,stock]
                [--timeout S] [--mem-gib G] [--extra=SMPIRUN_OPTIONS]
                [--label SUFFIX] --out PREFIX

Runs `sh DIR/run.sh builtin ALGO` (phasec's platform: phasec's routes and
injection ports) and `sh DIR/run.sh stock ALGO` (SimGrid's stock TORUS
cluster) for every algorithm and records, for every run, either the simulated
time and the percentage of the bandwidth bound, or exactly why it did not
finish: the wall-time limit, the memory cap, or SimGrid's own error text.

Why a watchdog and not `ulimit -v` / `prlimit --as`: SMPI_SHARED_MALLOC maps
one shared file many times (16 MiB of address space per rank and buffer), and
every simulated rank has its own stack, so a 512-rank run needs tens of GiB of
*address space* while its real memory is under 1 GiB; an address-space limit
kills runs that would fit (tested: `pair` at 512 ranks aborts under a 6 GiB
RLIMIT_AS, "Failed to allocate 16MiB of memory"). The watchdog instead sums
RssAnon (private, anonymous resident memory: what `new[]` of a collective's
temporary buffers costs) over every process of the run's session every 0.2 s
and kills the session above the cap.

Results are appended to PREFIX.csv as each run ends (a stopped bench keeps
what finished) and PREFIX.md is rewritten after each run. The bandwidth bound
comes from phasec's table (`bandwidth bound T s`, --bound-from FILE) or
--bound; for a torus of uniform blocks the bound of the stock platform's own
routes (ties always "+") is computed too (--torus DIMS --block BYTES --bw B).
"""

import argparse
import csv
import os
import re
import signal
import subprocess
import sys
import time

FIELDS = ["algorithm", "platform", "status", "simulated_s", "pct_bound",
          "pct_own_routes_bound", "wall_s", "peak_rss_anon_mib", "reason"]


def session_pids(sid):
    """Every process whose session id is `sid` (the run's setsid leader)."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        # Fields after the command name (which may hold spaces): state ppid
        # pgrp session ...
        rest = stat[stat.rfind(")") + 2:].split()
        if len(rest) > 3 and int(rest[3]) == sid:
            pids.append(int(entry))
    return pids


def rss_anon_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def kill_session(sid):
    for pid in session_pids(sid):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def run_capped(cmd, cwd, out_path, err_path, timeout, cap_kib, env):
    """Runs cmd in its own session; returns (status, rc, wall, peak_kib)."""
    start = time.monotonic()
    peak = 0
    status = "done"
    with open(out_path, "w") as out, open(err_path, "w") as err:
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=err, env=env,
                                start_new_session=True)
        while proc.poll() is None:
            # Sample often while the run starts (SMPI's start-up alone can be
            # over a tight cap, and a small run may end within a second),
            # then every 0.2 s.
            time.sleep(0.01 if time.monotonic() - start < 2 else 0.2)
            used = sum(rss_anon_kib(p) for p in session_pids(proc.pid))
            peak = max(peak, used)
            if cap_kib and used > cap_kib:
                status = "memory"
                kill_session(proc.pid)
                break
            if timeout and time.monotonic() - start > timeout:
                status = "timeout"
                kill_session(proc.pid)
                break
        rc = proc.wait()
        # smpirun runs the program as a child: make sure nothing outlives us.
        kill_session(proc.pid)
    return status, rc, time.monotonic() - start, peak


NOISE = re.compile(r"^\s*->|^Backtrace|^\s*$|Configuration change|"
                   r"^\./program --cfg|^Command exited")


def failure_reason(err_path, rc):
    """SimGrid's own error text: the first line that says what went wrong."""
    try:
        with open(err_path, errors="replace") as f:
            lines = [l.rstrip() for l in f if not NOISE.search(l)]
    except OSError:
        lines = []
    keys = ("CRITICAL", "error", "Error", "ERR", "Segmentation", "Aborted",
            "Assertion", "terminate", "Killed", "xbt_die")
    picked = [l for l in lines if any(k in l for k in keys)]
    text = picked[0] if picked else (lines[-1] if lines else "")
    # Drop the "[rank-0:0:(1) 0.000000] ./src/...: [root/CRITICAL]" prefix
    # clutter but keep the message.
    text = re.sub(r"^\[[^\]]*\]\s*", "", text)
    text = text.replace("|", "/")
    if len(text) > 200:
        text = text[:197] + "..."
    return f"exit code {rc}: {text}" if text else f"exit code {rc}"


def torus_own_routes_bound(dims, block, bw):
    """Bound of an all-to-all of uniform blocks on a torus with dimension
    order routes and every tie (distance k/2 on an even ring) sent "+", as
    SimGrid's TORUS zone routes: the busiest "+" link of a ring of k carries
    (R/k) * (1 + ... + floor(k/2)) blocks."""
    ranks = 1
    for k in dims:
        ranks *= k
    worst = 0
    for k in dims:
        worst = max(worst, ranks // k * sum(range(1, k // 2 + 1)))
    return worst * block / bw, worst


def write_markdown(path, rows, bound, own):
    with open(path, "w") as f:
        f.write(f"bandwidth bound {bound:.6g} s (phasec's routes, ties split)")
        if own:
            f.write(f"; stock TORUS routes (ties \"+\"): {own[0]:.6g} s "
                    f"({own[1]} blocks per link)")
        f.write("\n\n| algorithm | platform | simulated [s] | % bound | "
                "wall [s] | peak RssAnon [MiB] | result |\n"
                "|---|---|---:|---:|---:|---:|---|\n")
        for r in rows:
            pct = r["pct_bound"] and r["pct_bound"] + "%"
            if r["pct_own_routes_bound"]:
                pct += f" ({r['pct_own_routes_bound']}% of own routes)"
            f.write(f"| {r['algorithm']} | {r['platform']} | "
                    f"{r['simulated_s'] or '-'} | {pct or '-'} | "
                    f"{r['wall_s']} | {r['peak_rss_anon_mib']} | "
                    f"{r['status']}{': ' + r['reason'] if r['reason'] else ''}"
                    f" |\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--algos", required=True)
    ap.add_argument("--platforms", default="phasec,stock")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--mem-gib", type=float, default=6)
    ap.add_argument("--bound", type=float, default=0)
    ap.add_argument("--bound-from", default="")
    ap.add_argument("--torus", default="", help="e.g. 8x4x8x2")
    ap.add_argument("--block", type=int, default=0)
    ap.add_argument("--bw", type=float, default=0)
    ap.add_argument("--extra", default="",
                    help="more smpirun options (PHASEC_SIM_EXTRA), e.g. "
                    "--cfg=smpi/send-is-detached-thresh:32768")
    ap.add_argument("--label", default="",
                    help="appended to the algorithm's name in the tables")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    bound = args.bound
    if args.bound_from:
        with open(args.bound_from) as f:
            m = re.search(r"bandwidth bound ([0-9.eE+-]+) s", f.read())
        if not m:
            sys.exit(f"builtins.py: no 'bandwidth bound' in {args.bound_from}")
        bound = float(m.group(1))
    own = None
    if args.torus and args.block and args.bw:
        own = torus_own_routes_bound([int(k) for k in args.torus.split("x")],
                                     args.block, args.bw)
    platforms = [p for p in args.platforms.split(",") if p]
    if "stock" in platforms and not os.path.exists(
            os.path.join(args.dir, "stock-torus.xml")):
        platforms.remove("stock")

    env = dict(os.environ, PHASEC_SIM_TIMEOUT="0")
    if args.extra:
        env["PHASEC_SIM_EXTRA"] = args.extra
    rows = []
    with open(args.out + ".csv", "w", newline="") as f:
        csv.DictWriter(f, FIELDS).writeheader()
    for algo in [a for a in args.algos.split(",") if a]:
        for platform in platforms:
            mode = "builtin" if platform == "phasec" else "stock"
            tag = f"{platform}-capped-{algo}{args.label}"
            out_path = os.path.join(args.dir, f"out-{tag}.txt")
            err_path = os.path.join(args.dir, f"err-{tag}.txt")
            print(f"[bench] {platform}/{algo}{args.label} ...", file=sys.stderr, flush=True)
            status, rc, wall, peak = run_capped(
                ["sh", "run.sh", mode, algo], args.dir, out_path, err_path,
                args.timeout, int(args.mem_gib * 1024 * 1024), env)
            row = dict.fromkeys(FIELDS, "")
            row.update(algorithm=algo + args.label, platform=platform,
                       wall_s=f"{wall:.0f}", peak_rss_anon_mib=f"{peak / 1024:.0f}")
            sim = None
            with open(out_path, errors="replace") as f:
                m = re.search(r"PHASEC_SIM_TIME ([0-9.eE+-]+)", f.read())
                if m:
                    sim = float(m.group(1))
            if status == "timeout":
                row["reason"] = f"no result within {args.timeout:g} s of wall time"
            elif status == "memory":
                row["reason"] = (f"killed at {args.mem_gib:g} GiB of private "
                                 f"memory after {wall:.0f} s")
            elif rc == 0 and sim is not None:
                status = "ok"
                row["simulated_s"] = f"{sim:.5g}"
                if bound:
                    row["pct_bound"] = f"{100 * bound / sim:.1f}"
                if own and platform == "stock":
                    row["pct_own_routes_bound"] = f"{100 * own[0] / sim:.1f}"
            else:
                status = "failed"
                row["reason"] = failure_reason(err_path, rc)
            row["status"] = status
            rows.append(row)
            with open(args.out + ".csv", "a", newline="") as f:
                csv.DictWriter(f, FIELDS).writerow(row)
            write_markdown(args.out + ".md", rows, bound, own)
            print(f"[bench] {platform}/{algo}{args.label}: {status} {row['simulated_s']} "
                  f"{row['reason']} ({wall:.0f} s wall, {peak / 1024:.0f} MiB)",
                  file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()

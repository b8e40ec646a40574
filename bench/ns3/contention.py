#!/usr/bin/env python3
"""The data behind the cost model's contention term (issue 39): phasec's
all-to-all phases run through phasec-ns3 with barriers (`phasec`, phased)
and without (`ordered`: the same messages in phase order, no barriers,
what `sync = none` runs), on machines drawn at random (seeded) and at
block sizes and router buffers drawn with them.

usage: contention.py BUILD_DIR OUT.csv [--draws N] [--seed K] [--jobs J]
                     [--row SHAPE:BLOCK:BUFFER ...]

Every row is TOPOLOGY:BLOCK:BUFFER (e.g. torus4x4x4:4096:2); without --row
the generator draws --draws of them: torus, mesh or hypercube of 8-512
nodes, one dimension to four, odd extents included, blocks of 64 B to
16 KiB, buffers of 2 to 64 packets, at most 2^28 bytes of all-to-all in
all (about a minute of simulation). The machine is bench/ns3/aapc.sched's
(the T3D's links, barrier and packets; hop latency 2e-8 s). The CSV holds,
per row, both simulated times, the phase model's predictions (phasec-ns3's
`model` column), the fluid time and the contention term's inputs as
`--emit=schedule-stats` prints them: contention_fit.py fits the term to
them.
"""
import argparse
import concurrent.futures
import csv
import math
import os
import random
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCHED = os.path.join(HERE, "aapc.sched")
HOP = 2e-8
BLOCKS = [64, 256, 1024, 4096, 16384]
BUFFERS = [2, 4, 8, 16, 64]


def draw(rng):
    while True:
        kind = rng.choice(["torus", "torus", "mesh", "hypercube"])
        if kind == "hypercube":
            dims = [2] * rng.randint(3, 9)
        else:
            dims = [rng.randint(2, 9) for _ in range(rng.randint(1, 4))]
        nodes = math.prod(dims)
        if not 8 <= nodes <= 512:
            continue
        block = rng.choice(BLOCKS)
        if nodes * nodes * block > 1 << 28:
            continue
        shape = ("hypercube%d" % len(dims) if kind == "hypercube" else
                 kind + "x".join(str(d) for d in dims))
        return "%s:%d:%d" % (shape, block, rng.choice(BUFFERS))


def topology(shape):
    m = re.fullmatch(r"(torus|mesh)(\d+(?:x\d+)*)|hypercube(\d+)", shape)
    if not m:
        sys.exit("error: bad shape %r" % shape)
    if m.group(3):
        return "hypercube:" + m.group(3)
    return m.group(1) + ":" + m.group(2)


STATS = re.compile(r"contention without barriers: ([0-9.]+)x the fluid time "
                   r"\(drift ([0-9.]+) over (\d+) phases, ([0-9.]+) packets a "
                   r"message, (\d+)-packet buffers, ([0-9.]+) hops\)")


def contention_terms(build, topo, block):
    """The cost model's contention term and its inputs (schedule-stats)."""
    p = subprocess.run([os.path.join(build, "bin", "phasec"), SCHED,
                        "--topology=" + topo, "--define", "BLOCK=%d" % block,
                        "--emit=schedule-stats"],
                       capture_output=True, text=True, check=True)
    m = STATS.search(p.stdout)
    if not m:
        raise RuntimeError("no contention line in schedule-stats")
    return {"factor": float(m.group(1)), "drift": float(m.group(2)),
            "phases": int(m.group(3)), "packets": float(m.group(4)),
            "hops": float(m.group(6))}


def run(build, row, tmp):
    shape, block, buffer = row.split(":")
    out = os.path.join(tmp, row.replace(":", "_"))
    # The hop latency is the machine's, so that the model's terms and the
    # simulation see the same one (aapc.sched gives its barrier's cost).
    topo = "%s;latency=%g;buffer=%s" % (topology(shape), HOP, buffer)
    cmd = [os.path.join(build, "bin", "phasec"), SCHED, "--topology=" + topo,
           "--define", "BLOCK=" + block, "--target=ns3", "--ns3-links=direct",
           "--ns3-variants=phasec,ordered", "-o", out]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return row, None, p.stderr.strip().splitlines()[-1:]
    sim, model = {}, {}
    bound = nodes = None
    for line in p.stdout.splitlines():
        w = line.split()
        if len(w) == 7 and w[0] in ("phasec", "ordered"):
            sim[w[0]], model[w[0]] = float(w[2]), float(w[5])
        m = re.search(r"bound ([0-9.e+-]+) s$", line)
        if m:
            bound = float(m.group(1))
        m = re.match(r"wrote .*: (\d+) nodes", line)
        if m:
            nodes = int(m.group(1))
    subprocess.run(["rm", "-rf", out])
    f = contention_terms(build, topo, int(block))
    f.update(machine=shape, nodes=nodes, block=int(block), buffer=int(buffer),
             hop=HOP, bound=bound, sim_phased=sim["phasec"],
             sim_ordered=sim["ordered"], model_phased=model["phasec"],
             model_ordered=model["ordered"],
             # The fluid time: the ordered prediction without the term.
             fluid=model["ordered"] / f["factor"])
    return row, f, None


COLUMNS = ["machine", "nodes", "block", "buffer", "hop", "phases", "drift",
           "packets", "hops", "factor", "bound", "sim_phased", "sim_ordered",
           "model_phased", "model_ordered", "fluid"]
def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("build")
    ap.add_argument("out")
    ap.add_argument("--draws", type=int, default=40)
    ap.add_argument("--seed", type=int, default=39)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--row", action="append", default=[])
    args = ap.parse_args()
    rows = list(args.row)
    if not rows:
        rng = random.Random(args.seed)
        while len(rows) < args.draws:
            r = draw(rng)
            if r not in rows:
                rows.append(r)
    failed = 0
    with tempfile.TemporaryDirectory() as tmp, \
            open(args.out, "w", newline="") as out:
        w = csv.DictWriter(out, COLUMNS)
        w.writeheader()
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            for row, f, err in pool.map(lambda r: run(args.build, r, tmp),
                                        rows):
                if f is None:
                    print("error: %s: %s" % (row, " ".join(err)),
                          file=sys.stderr)
                    failed += 1
                    continue
                w.writerow({k: f[k] for k in COLUMNS})
                out.flush()
                print("%s: ordered/phased %.3f, ordered/fluid %.3f, model "
                      "factor %.3f" %
                      (row, f["sim_ordered"] / f["sim_phased"],
                       f["sim_ordered"] / f["fluid"], f["factor"]),
                      flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

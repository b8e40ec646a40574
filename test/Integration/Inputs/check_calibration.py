#!/usr/bin/env python3
"""Checks bench/calibrate/run.sh's output directory: DIR/machine.sched and
DIR/calibration.json.

    check_calibration.py DIR

- machine.sched has one `machine this_host { ... }` with topology = mesh(2)
  and every property of issue 12's list, each once, a positive plain
  decimal in the right unit;
- calibration.json has the same properties with the same values and units,
  and measurements of every back end (mpi, shmem, simgrid, copy);
- SimGrid's barrier, in link latencies, is what mvapich2_pair's rounds x
  hops predict on phasec's platforms: 1 at np 2 (mesh:2), 2 at np 4
  (mesh:2x2: each of the two rounds crosses one link), within 10%.
Prints "ok" or the problems, exit status 1.
"""
import json
import re
import sys

PROPERTIES = {"latency": "us", "bandwidth": "MB/s", "setup_cost": "us",
              "copy_rate.contiguous": "MB/s", "copy_rate.strided": "MB/s",
              "copy_rate.gather": "MB/s", "barrier_cost": "us"}


def main(d):
    errors = []
    text = open(d + "/machine.sched").read()
    body = re.search(r"^machine this_host \{\n(.*?)^\}\s*$", text, re.S | re.M)
    if not body:
        print("machine.sched: no 'machine this_host { ... }' block")
        return 1
    lines = [l.strip() for l in body.group(1).splitlines() if l.strip()]
    if "topology = mesh(2);" not in lines:
        errors.append("machine.sched: no 'topology = mesh(2);'")
    sched = {}
    for l in lines:
        if l.startswith("topology"):
            continue
        m = re.fullmatch(r"([a-z_.]+) *= (\d+(?:\.\d+)?) (us|MB/s);", l)
        if not m:
            errors.append("machine.sched: cannot read %r" % l)
            continue
        name, value, unit = m.group(1), float(m.group(2)), m.group(3)
        if name in sched:
            errors.append("machine.sched: %s twice" % name)
        sched[name] = (value, unit)
    for name, unit in PROPERTIES.items():
        if name not in sched:
            errors.append("machine.sched: no %s" % name)
        elif sched[name][1] != unit or not sched[name][0] > 0:
            errors.append("machine.sched: %s = %s %s, want a positive number "
                          "of %s" % (name, sched[name][0], sched[name][1], unit))
    for name in sched:
        if name not in PROPERTIES:
            errors.append("machine.sched: unexpected property %s" % name)

    js = json.load(open(d + "/calibration.json"))
    props = js.get("properties", {})
    for name, unit in PROPERTIES.items():
        p = props.get(name)
        if not p or p.get("unit") != unit or not p.get("value", 0) > 0:
            errors.append("calibration.json: property %s is %r" % (name, p))
        elif name in sched and abs(p["value"] - sched[name][0]) > 1e-9 * p["value"]:
            errors.append("calibration.json: %s = %s, machine.sched says %s"
                          % (name, p["value"], sched[name][0]))
    for backend in ["mpi", "shmem", "simgrid", "copy"]:
        rows = js.get("measured", {}).get(backend)
        if not rows:
            errors.append("calibration.json: no measurements of %s" % backend)
            continue
        for q, r in rows.items():
            if not r["best"] > 0:
                errors.append("calibration.json: %s %s best = %s"
                              % (backend, q, r["best"]))
    rounds = js.get("simgrid", {}).get("barrier_latencies", {})
    for np, want in [("np2", 1), ("np4", 2)]:
        got = rounds.get(np)
        if got is None or abs(got - want) > 0.1 * want:
            errors.append("SimGrid barrier at %s: %s link latencies, want %d "
                          "(mvapich2_pair rounds x hops)" % (np, got, want))
    for e in errors:
        print(e)
    if not errors:
        print("ok")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))

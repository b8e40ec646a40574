#!/usr/bin/env python3
"""Generate, compile, run and verify phasec MPI / OpenSHMEM programs.

Used by test/Integration/{MPI,SHMEM}_*.test. For every rank count of --nps
it runs `phasec-emit-test --emit=<backend> --main <args>` (where `{expr}` in
an argument is evaluated with `np` bound to the rank count, and `{sizes}`
becomes a deterministic np x np alltoallv size list), compiles the C file
with mpicc / oshcc and `pkg-config --cflags --libs phasec-runtime`, runs it
with the given launcher and -np, and requires exit status 0 and the
harness's "# OK: every byte verified" line. Prints one line per run and a
summary; exits 1 if anything failed.
"""
import os
import subprocess
import sys

import phasec_run_common as common


def main():
    ap = common.parser()
    ap.add_argument("--env", action="append", default=[])
    ap.add_argument("--expect-fail", action="store_true",
                    help="the program must exit non-zero (checker tests)")
    a = ap.parse_args()
    args = common.passed_on(a)
    env = dict(os.environ)
    for kv in a.env:
        k, v = kv.split("=", 1)
        env[k] = v
    failures = 0
    runs = 0
    for np in [int(x) for x in a.nps.split(",")]:
        cargs = [common.expand(x, np) for x in args]
        if not any(x.startswith("--ranks") or x.startswith("--machine")
                   for x in cargs):
            cargs.append("--ranks=%d" % np)
        src = "%s.np%d.c" % (a.tmp, np)
        exe = "%s.np%d" % (a.tmp, np)
        label = "%s np=%d %s" % (a.emit, np, " ".join(cargs))
        runs += 1
        r = subprocess.run(["phasec-emit-test", "--emit=" + a.emit, "--main",
                            "-o", src] + cargs, capture_output=True, text=True)
        if r.returncode:
            print("FAIL (emit) %s\n%s" % (label, r.stderr))
            failures += 1
            continue
        r = common.build_and_run(a, np, src, exe, label, timeout=240, env=env)
        if r is None:
            failures += 1
            continue
        ok = r.returncode == 0 and "# OK: every byte verified" in r.stdout
        if a.expect_fail:
            ok = r.returncode != 0 and "# FAILED:" in r.stdout
        print("%s %s" % ("ok" if ok else "FAIL (run, status %d)" %
                         r.returncode, label))
        sys.stdout.write("".join("  | " + l + "\n"
                                 for l in (r.stdout + r.stderr).splitlines()
                                 if l.startswith("phasec:") or
                                 l.startswith("# FAILED")
                                 or not ok))
        failures += 0 if ok else 1
    print("%d of %d runs %s" % (runs - failures, runs,
                                "failed as expected" if a.expect_fail
                                else "verified"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

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
import argparse
import os
import re
import shlex
import subprocess
import sys


def expand(arg, np):
    def repl(m):
        expr = m.group(1)
        if expr == "sizes":
            return ",".join(str((i * 7 + j * 3) % 11)
                            for i in range(np) for j in range(np))
        return str(eval(expr, {"np": np}))  # test-controlled input only
    return re.sub(r"\{([^}]*)\}", repl, arg)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--emit", choices=["mpi", "shmem"], required=True)
    ap.add_argument("--launcher", required=True)
    ap.add_argument("--nps", default="2,3,4,8")
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--env", action="append", default=[])
    ap.add_argument("--expect-fail", action="store_true",
                    help="the program must exit non-zero (checker tests)")
    ap.add_argument("rest", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    args = a.rest[1:] if a.rest and a.rest[0] == "--" else a.rest
    cc = "mpicc" if a.emit == "mpi" else "oshcc"
    flags = subprocess.run(["pkg-config", "--cflags", "--libs",
                            "phasec-runtime"], check=True,
                           capture_output=True, text=True).stdout.split()
    env = dict(os.environ)
    for kv in a.env:
        k, v = kv.split("=", 1)
        env[k] = v
    failures = 0
    runs = 0
    for np in [int(x) for x in a.nps.split(",")]:
        cargs = [expand(x, np) for x in args]
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
        r = subprocess.run([cc, "-O2", "-Wall", "-Wextra", "-Werror", src] +
                           flags + ["-o", exe], capture_output=True, text=True)
        if r.returncode:
            print("FAIL (compile) %s\n%s" % (label, r.stderr))
            failures += 1
            continue
        cmd = shlex.split(a.launcher) + ["-np", str(np), exe, "-i", "2",
                                         "-w", "1"]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=240, env=env)
        except subprocess.TimeoutExpired:
            print("FAIL (timeout) %s" % label)
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

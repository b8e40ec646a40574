#!/usr/bin/env python3
"""Compile an example .sched file with phasec --emit=mpi|shmem --main, run it
at several rank counts and report which operations verified every byte.

Used by test/Integration/{MPI,SHMEM}_examples.test. For every rank count of
--nps it runs `phasec EXAMPLE --emit=<backend> --main <args>` (where `{expr}`
in an argument is evaluated with `np` bound to the rank count; a
`--case=NP:ARGS` replaces the arguments for that rank count, for examples
whose shrinking is not a formula of np), compiles the C file with mpicc /
oshcc and `pkg-config --cflags --libs phasec-runtime`, runs it with the
launcher and -np, and requires exit status 0 and the harness's
"# OK: every byte verified". Prints, per run,

  ok <backend> np=<np> <example>: <op> <op> ...   (operations whose every
                                                   byte was verified)
  in place <backend> np=<np> <example>: <op> ...  (those also verified when
                                                   called in place)
  nonblocking <backend> np=<np> <example>: <op> ... (those also verified
                                                   through NAME_start/test/wait
                                                   and the persistent form)
  skipped <op>: <reason>                          (phasec's warnings for
                                                   operations it left out)

and a summary; exits 1 if anything failed. All operations of an example run
in one program (one launch per rank count).
"""
import os
import re
import shlex
import subprocess
import sys

import phasec_run_common as common


def main():
    ap = common.parser()
    ap.add_argument("--example", required=True)
    ap.add_argument("--case", action="append", default=[],
                    help="NP:ARGS, the phasec arguments for that rank count")
    a = ap.parse_args()
    args = common.passed_on(a)
    cases = {}
    for c in a.case:
        np, rest = c.split(":", 1)
        cases[int(np)] = shlex.split(rest)
    nps = sorted(cases) if cases else [int(x) for x in a.nps.split(",")]
    example = os.path.basename(a.example).rsplit(".", 1)[0]
    failures = 0
    skipped_seen = set()
    for np in nps:
        pargs = cases.get(np) or [common.expand(x, np) for x in args]
        src = "%s.np%d.c" % (a.tmp, np)
        exe = "%s.np%d" % (a.tmp, np)
        label = "%s np=%d %s" % (a.emit, np, example)
        r = subprocess.run(["phasec", a.example, "--emit=" + a.emit, "--main",
                            "-o", src] + pargs, capture_output=True, text=True)
        for m in re.finditer(r"warning: '([^']+)' is not (?:scheduled|emitted):"
                             r" (.*)", r.stderr):
            if m.group(1) not in skipped_seen:
                skipped_seen.add(m.group(1))
                print("skipped %s: %s" % (m.group(1), m.group(2)))
        if r.returncode:
            print("FAIL (phasec) %s %s\n%s" % (label, " ".join(pargs),
                                               r.stderr))
            failures += 1
            continue
        r = common.build_and_run(a, np, src, exe, label, timeout=300)
        if r is None:
            failures += 1
            continue
        nb = r"(?:, nonblocking and persistent)?$"
        verified = re.findall(r"^# (\S+): median .*; every (?:byte|result) "
                              r"verified(?:, also in place)?" + nb,
                              r.stdout, re.M)
        ok = r.returncode == 0 and "# OK: every byte verified" in r.stdout
        inplace = re.findall(r"^# (\S+): median .*; every byte verified, "
                             r"also in place" + nb, r.stdout, re.M)
        nonblocking = re.findall(r"^# (\S+): median .*; every byte verified"
                                 r"(?:, also in place)?, nonblocking and "
                                 r"persistent$", r.stdout, re.M)
        if ok:
            print("ok %s: %s" % (label, " ".join(verified)))
            if inplace:
                print("in place %s: %s" % (label, " ".join(inplace)))
            if nonblocking:
                print("nonblocking %s: %s" % (label, " ".join(nonblocking)))
        else:
            failures += 1
            print("FAIL (run, status %d) %s %s" % (r.returncode, label,
                                                   " ".join(pargs)))
            sys.stdout.write("".join("  | " + l + "\n" for l in
                                     (r.stdout + r.stderr).splitlines()))
    print("%d of %d runs verified" % (len(nps) - failures, len(nps)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

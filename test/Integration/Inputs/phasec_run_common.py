"""What phasec_example_run.py and phasec_gen_run.py share: their common
arguments, the `{expr}` expansion of per-rank-count arguments, and building
and running one generated program (compiled with mpicc / oshcc and
`pkg-config --cflags --libs phasec-runtime`, warnings as errors, run with the
launcher and -np)."""
import argparse
import functools
import re
import shlex
import subprocess


def parser():
    """The arguments both runners take; each adds its own."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--emit", choices=["mpi", "shmem"], required=True)
    ap.add_argument("--launcher", required=True)
    ap.add_argument("--nps", default="2,3,4,8")
    ap.add_argument("--tmp", required=True)
    ap.add_argument("rest", nargs=argparse.REMAINDER)
    return ap


def passed_on(a):
    """The arguments after `--`, for the generator."""
    return a.rest[1:] if a.rest and a.rest[0] == "--" else a.rest


def expand(arg, np):
    """`{expr}` evaluated with `np` bound to the rank count; `{sizes}` is a
    deterministic np x np alltoallv size list."""
    def repl(m):
        expr = m.group(1)
        if expr == "sizes":
            return ",".join(str((i * 7 + j * 3) % 11)
                            for i in range(np) for j in range(np))
        return str(eval(expr, {"np": np}))  # test-controlled input only
    return re.sub(r"\{([^}]*)\}", repl, arg)


@functools.lru_cache(maxsize=None)
def runtime_flags():
    return subprocess.run(["pkg-config", "--cflags", "--libs",
                           "phasec-runtime"], check=True,
                          capture_output=True, text=True).stdout.split()


def build_and_run(a, np, src, exe, label, timeout, env=None):
    """Compiles src into exe and runs it on np ranks (2 timed iterations, 1
    warm-up). Returns the run's CompletedProcess, or None after printing why
    there is none (the compile failed or the run timed out)."""
    cc = "mpicc" if a.emit == "mpi" else "oshcc"
    r = subprocess.run([cc, "-O2", "-Wall", "-Wextra", "-Werror", src] +
                       runtime_flags() + ["-o", exe],
                       capture_output=True, text=True)
    if r.returncode:
        print("FAIL (compile) %s\n%s" % (label, r.stderr))
        return None
    cmd = shlex.split(a.launcher) + ["-np", str(np), exe, "-i", "2", "-w", "1"]
    try:
        return subprocess.run(cmd, capture_output=True, text=True,
                              timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        print("FAIL (timeout) %s" % label)
        return None

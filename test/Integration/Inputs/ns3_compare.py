"""Checks phasec-ns3's output: the first variant (phasec's schedule, as
--emit=ns3 writes it) took less simulated time than variant SLOW (the run
is deterministic: this is the model's result, not a timing).
Usage: ns3_compare.py OUTPUT SLOW"""
import sys


def times(path):
    out = {}
    order = []
    with open(path) as f:
        for line in f:
            words = line.split()
            if words and words[0] == "variant":
                out[words[1]] = float(words[words.index("time") + 1])
                order.append(words[1])
    return out, order


def main():
    path, slow = sys.argv[1:3]
    t, order = times(path)
    if not order:
        sys.exit(f"error: no variant in {path}")
    fast = order[0]
    for name in (fast, slow):
        if name not in t:
            sys.exit(f"error: no variant {name} in {path}")
    if not t[fast] < t[slow]:
        sys.exit(f"error: {fast} took {t[fast]:.6e} s, not less than "
                 f"{slow}'s {t[slow]:.6e} s")
    print(f"{fast} {t[fast]:.6e} s < {slow} {t[slow]:.6e} s "
          f"(x{t[slow] / t[fast]:.3f})")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Draws machine shapes for bench/simgrid/choice.sh (issue 39: the choice
checked on machines nobody tuned for): torus, mesh, hypercube and PERCS of
8-64 ranks, one dimension to three, odd and non-power-of-two extents
included, from a seeded generator (the same seed draws the same machines).
Prints the shapes in choice.sh's spelling: torus6x6, mesh4x4x2, hypercube5,
percs1x2x4 (supernodes x drawers x nodes per drawer).

usage: random_machines.py --count N [--seed K]
"""
import argparse
import random


def draw(rng):
    while True:
        kind = rng.choice(["torus", "mesh", "hypercube", "percs"])
        if kind == "hypercube":
            return "hypercube%d" % rng.randint(3, 6)
        if kind == "percs":
            dims = [rng.randint(1, 3), rng.randint(1, 4), rng.randint(2, 8)]
        else:
            dims = [rng.randint(2, 9) for _ in range(rng.randint(1, 3))]
        ranks = 1
        for d in dims:
            ranks *= d
        if 8 <= ranks <= 64:
            return kind + "x".join(str(d) for d in dims)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--seed", type=int, default=39)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    seen = []
    while len(seen) < args.count:
        shape = draw(rng)
        if shape not in seen:
            seen.append(shape)
    print(" ".join(seen))


if __name__ == "__main__":
    main()

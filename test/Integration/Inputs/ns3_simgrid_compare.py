"""Checks that the ns-3 packet network with deep buffers agrees with
SimGrid's fluid run of the same machine (issue 16's check): the variant
NS3_VARIANT of `phasec --target=ns3`'s table against the `phasec` row of
`phasec --target=sim`'s, within TOLERANCE (a fraction). NS3_VARIANT "first"
is the table's first row (phasec's schedule; lit would rewrite its name).
Usage: ns3_simgrid_compare.py SIM_TABLE NS3_TABLE NS3_VARIANT TOLERANCE"""
import sys


def simulated(path, variant, column):
    with open(path) as f:
        for line in f:
            words = line.split()
            if len(words) > column and (words[0] == variant or (
                    variant == "first" and words[0] not in ("variant",)
                    and words[1] in ("phased", "ordered"))):
                return float(words[column])
    sys.exit(f"error: no row '{variant}' in {path}")


def main():
    sim_path, ns3_path, variant, tolerance = sys.argv[1:5]
    # SimGrid: "phasec platform kind simulated ..."; ns-3: "NAME mode simulated".
    sim = simulated(sim_path, "phasec", 3)
    ns3 = simulated(ns3_path, variant, 2)
    ratio = ns3 / sim
    print(f"ns-3 {variant} {ns3:.6e} s / SimGrid {sim:.6e} s = {ratio:.4f}")
    if abs(ratio - 1) > float(tolerance):
        sys.exit(f"error: ns-3 and SimGrid differ by {abs(ratio - 1):.2%}, "
                 f"more than {float(tolerance):.0%}")


if __name__ == "__main__":
    main()

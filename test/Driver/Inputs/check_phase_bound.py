"""Checks that a schedule JSON's lower_bound.phases, where present, is a
whole number no larger than the number of phases of the schedule itself: a
proven bound on the phase count can never exceed a schedule that exists.

usage: check_phase_bound.py FILE.json   (exit 1 and a message per violation)
"""
import json
import sys


def main(path):
    with open(path) as f:
        doc = json.load(f)
    ok = True
    for d in doc.get("operations") or [doc]:
        bound = (d.get("lower_bound") or {}).get("phases")
        if bound is None:
            continue
        phases = len(d["phases"])
        if bound != int(bound) or bound > phases:
            print(f"{d.get('operation')}: lower_bound.phases {bound} exceeds "
                  f"the schedule's {phases} phases", file=sys.stderr)
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))

"""Reads a `phasec --target=sim` table and checks that operation FAST's
phasec row simulated at least FACTOR times faster than operation SLOW's.

usage: sim_speedup.py TABLE SLOW FAST FACTOR

Prints "SLOW/FAST = R" and exits 1 if R < FACTOR or a row is missing.
"""
import re
import sys


def phasec_times(path):
    """{operation: simulated seconds of its phasec row}."""
    times, operation = {}, None
    for line in open(path):
        m = re.match(r"^operation (\S+):", line)
        if m:
            operation = m.group(1)
            continue
        m = re.match(r"^phasec\s+phasec\s+(?:phased|relay)\s+(\S+)\s", line)
        if m and operation:
            times[operation] = float(m.group(1))
    return times


def main(path, slow, fast, factor):
    times = phasec_times(path)
    for name in (slow, fast):
        if name not in times:
            print("error: no phasec row for operation %s" % name)
            return 1
    ratio = times[slow] / times[fast]
    print("%s/%s = %.2f" % (slow, fast, ratio))
    if ratio < factor:
        print("error: %s is not %.2f times faster than %s" % (fast, factor,
                                                              slow))
        return 1
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])))

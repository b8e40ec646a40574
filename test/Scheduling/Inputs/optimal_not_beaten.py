"""Reads `phasec --emit=schedule-stats` on stdin and fails if a schedule row
marked time-optimal is beaten by another row of the same operation (in the
bandwidth time column), or an operation's rows disagree on the bound they
are measured against: issue 39's "no schedule is printed time-optimal that
another printed one beats". Prints how many operations and rows it read."""

import re
import sys

ROW = re.compile(r"^  (.{14}) (\S.*?)\s+(\d+)\s+([0-9.e+-]+)\s+([0-9.]+|-)(.*)$")


def main():
    ops, rows, bad = 0, 0, []
    current, entries = None, []

    def finish():
        if current is None or not entries:
            return
        fastest = min(t for t, _, _ in entries)
        for time, label, optimal in entries:
            if optimal and time > fastest * (1 + 1e-6):
                bad.append(f"{current}: {label} is time-optimal at {time:e} s "
                           f"but another row takes {fastest:e} s")

    for line in sys.stdin:
        if line.startswith("operation "):
            finish()
            current, entries = line.split()[1], []
            ops += 1
            continue
        m = ROW.match(line.rstrip("\n"))
        if not m or current is None or m.group(1).startswith("schedule"):
            continue
        rows += 1
        entries.append((float(m.group(4)), m.group(2).strip(),
                        "time-optimal" in m.group(6)))
    finish()
    if bad:
        print("\n".join(bad))
        sys.exit(1)
    if ops == 0 or rows == 0:
        print("no operations read")
        sys.exit(1)
    print(f"{ops} operations, {rows} rows: no time-optimal row is beaten")


if __name__ == "__main__":
    main()

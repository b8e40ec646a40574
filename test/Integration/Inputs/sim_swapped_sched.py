"""Writes a phase table (program.c's SCHED.bin) whose receiver lists its
two receives from rank 0 in the wrong order, to show that the phased
program's byte check can fail: rank 0 sends rank 1 four bytes in phase 0
and the next four in phase 1; rank 1's records put phase 1 first, so each
message lands where the other was expected (8 wrong bytes). Only without
barriers: with them, a round takes the records of its own phase.

usage: sim_swapped_sched.py OUT RANKS
"""
import struct
import sys


def main(out, ranks):
    # (phase, peer, bytes, kind: 0 send, 1 receive) per rank.
    records = [[] for _ in range(ranks)]
    records[0] = [(0, 1, 4, 0), (1, 1, 4, 0)]
    records[1] = [(1, 0, 4, 1), (0, 0, 4, 1)]
    data = b"PHSIM001" + struct.pack("<3q", ranks, 2, 0)
    offset = 0
    for recs in records:
        data += struct.pack("<q", offset)
        offset += len(recs)
    data += struct.pack("<q", offset)
    for recs in records:
        for rec in recs:
            data += struct.pack("<4q", *rec)
    open(out, "wb").write(data)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], int(sys.argv[2]))

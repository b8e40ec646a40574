#!/usr/bin/env python3
"""Seed 004's PAPERS timing tables beside phasec's and Open MPI's times.

Usage: summary.py RAW_LOG

RAW_LOG is bench/papers/run.sh's log: launches headed `== LABEL np=N
round=R`, each printing `# NAME: median X us` lines. Prints one markdown
table per table of the seed (microseconds per call, 4 PEs): phasec's MPI
and OpenSHMEM functions and Open MPI's nearest collective (the best median
over the launches), then the seed's PAPERS1 and TTL_PAPERS rows (4 486DX33
PCs, 1995). A launch that failed verification is left out and named.
"""
import re
import sys

TYPES = ["int8", "int16", "int32", "int64", "f32", "f64"]
HEAD = ["8", "16", "32", "64", "Float", "Double"]

# (title, phasec name pattern, Open MPI name pattern, PAPERS1, TTL_PAPERS);
# {t} is the type; integer-only tables have four columns.
TABLES = [
    ("Table 3: putget", "p_putget_{t}", "allgather_{t}",
     [8.5, 15, 27, 62, 29, 63], [58, 111, 216, 434, 219, 467]),
    ("Table 4: gather", "p_gather_{t}", "allgather_{t}",
     [33, 53, 89, 194, 95, 199], [57, 110, 216, 439, 248, 444]),
    ("Table 5: reduceAdd", "p_reduce_add_{t}", "allreduce_add_{t}",
     [20, 33, 57, 128, 63, 131], [58, 112, 217, 438, 219, 444]),
    ("Table 6: reduceMul", "p_reduce_mul_{t}", "allreduce_mul_{t}",
     [21, 34, 58, 132, 63, 130], [60, 113, 218, 447, 222, 442]),
    ("Table 7: reduceMin", "p_reduce_min_{t}", "allreduce_min_{t}",
     [20, 33, 57, 127, 63, 131], [59, 112, 218, 442, 244, 475]),
    ("Table 8: reduceMax", "p_reduce_max_{t}", "allreduce_max_{t}",
     [20, 33, 57, 127, 63, 131], [59, 113, 218, 439, 297, 458]),
    ("Table 9: reduceAnd", "p_reduce_and_{t}", "allreduce_and_{t}",
     [9, 16, 29, 81], [16, 31, 59, 137]),
    ("Table 10: reduceOr", "p_reduce_or_{t}", "allreduce_or_{t}",
     [9, 16, 30, 81], [16, 30, 59, 137]),
    ("Table 11: bcastPut/Get", "p_bcast_{t}", "bcast_{t}",
     [9, 16, 30, 81, 30, 81], [16, 30, 59, 137, 59, 137]),
    ("Table 12: scanAdd", "p_scan_add_{t}", "scan_add_{t}",
     [35, 55, 91, 197, 97, 204], [63, 124, 227, 463, 245, 456]),
    ("Table 13: scanMul", "p_scan_mul_{t}", "scan_mul_{t}",
     [37, 57, 92, 205, 97, 200], [65, 116, 223, 454, 235, 466]),
    ("Table 14: scanAnd", "p_scan_and_{t}", "scan_and_{t}",
     [31, 61, 118, 245], [58, 114, 222, 481]),
    ("Table 15: scanOr", "p_scan_or_{t}", "scan_or_{t}",
     [34, 68, 131, 272], [67, 120, 244, 501]),
    ("Table 16: scanMin", "p_scan_min_{t}", "scan_min_{t}",
     [36, 56, 92, 198, 104, 206], [61, 114, 220, 442, 226, 465]),
    ("Table 17: scanMax", "p_scan_max_{t}", "scan_max_{t}",
     [36, 56, 92, 198, 102, 206], [61, 114, 220, 443, 225, 451]),
    ("Table 18: rank", "p_rank_{t}", "allgather_{t}",
     [37, 57, 93, 201, 103, 205], [63, 116, 222, 510, 228, 522]),
]
# Tables whose columns are operations, not types.
FIXED = [
    ("Table 2: low-level operations", ["Wait", "Waitvec", "Any", "All"],
     ["p_wait", "p_waitvec", "p_any", "p_all"],
     ["barrier", "allgather_int8", "allreduce_or_int8", "allreduce_and_int8"],
     [3.1, 3.2, 3.2, 3.3], [2.5, 6.3, 6.3, 6.3]),
    ("Table 19: group properties",
     ["Population", "Enumerate", "SelectFirst", "SelectOne"],
     ["p_population", "p_enumerate", "p_selectFirst", "p_selectOne"],
     [None, None, None, None], [0.5, 1, 0.7, 0.8], [0.5, 1, 0.7, 0.8]),
    ("Table 20: voting", ["Vote (and VoteCount)", "Match8 (and MatchCount8)"],
     ["p_vote", "p_match_int8"], ["allgather_int32", "allgather_int8"],
     [6.4, 26], [13, 50]),
]
LABELS = ["phasec MPI", "phasec SHMEM", "Open MPI"]


def parse(path):
    best, failed, label = {}, [], None
    block = []

    def close():
        if label is None:
            return
        text = "".join(block)
        if "# OK:" not in text:
            failed.append(label)
            return
        for m in re.finditer(r"^# (\S+): median ([0-9.]+) us", text, re.M):
            key = (label, m.group(1))
            v = float(m.group(2))
            best[key] = min(best.get(key, v), v)

    for line in open(path):
        m = re.match(r"^== (.*) np=\d+ round=\d+", line)
        if m:
            close()
            label, block = m.group(1), []
        else:
            block.append(line)
    close()
    return best, failed


def cell(v):
    if v is None:
        return "-"
    return "%.2f" % v if v < 10 else "%.1f" % v if v < 100 else "%.0f" % v


def main():
    best, failed = parse(sys.argv[1])
    for title, pat, mpi, p1, ttl in TABLES:
        n = len(p1)
        print("**%s** (us per call, 4 PEs)\n" % title)
        print("| | " + " | ".join(HEAD[:n]) + " |")
        print("|---" * (n + 1) + "|")
        for label in LABELS:
            name = mpi if label == "Open MPI" else pat
            row = [best.get((label, name.format(t=t))) for t in TYPES[:n]]
            shown = label + (" (nearest: MPI_%s)" % mpi.split("_")[0].capitalize()
                             if label == "Open MPI" else "")
            print("| %s | %s |" % (shown, " | ".join(cell(v) for v in row)))
        print("| seed: PAPERS1 | %s |" % " | ".join(cell(v) for v in p1))
        print("| seed: TTL_PAPERS | %s |\n" % " | ".join(cell(v) for v in ttl))
    for title, heads, ours, mpis, p1, ttl in FIXED:
        print("**%s** (us per call, 4 PEs)\n" % title)
        print("| | " + " | ".join(heads) + " |")
        print("|---" * (len(heads) + 1) + "|")
        for label in LABELS:
            names = mpis if label == "Open MPI" else ours
            row = [best.get((label, n)) if n else None for n in names]
            print("| %s | %s |" % (label, " | ".join(cell(v) for v in row)))
        print("| seed: PAPERS1 | %s |" % " | ".join(cell(v) for v in p1))
        print("| seed: TTL_PAPERS | %s |\n" % " | ".join(cell(v) for v in ttl))
    if failed:
        print("Launches that failed verification (left out): " +
              ", ".join(failed))


if __name__ == "__main__":
    main()

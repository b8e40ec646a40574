"""bench/simgrid/summary_table.py - the table output the *_summary.py scripts
share: a markdown table on stdout (what docs/performance.md quotes) and,
if asked, the same rows as CSV."""
import csv


def print_markdown(head, rows):
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print("| " + " | ".join(r) + " |")


def write_csv(path, head, rows):
    if not path:
        return
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(head)
        w.writerows(rows)

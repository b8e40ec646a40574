#!/usr/bin/env python3
"""Fits the cost model's contention term (compiler/lib/Scheduling/
ContentionModel.cpp) to the runs of contention.py and writes the fit with
its residuals as Markdown.

usage: contention_fit.py OUT.md DATA.csv... [--command TEXT]

The term: a direct schedule run without barriers (ns-3's `ordered`) takes
`factor` times the fluid time, with

    factor = 1 + (a + b * min(1, P / B) * h) * (1 - exp(-c * drift))

(P packets a message, B the router buffer, h the mean hops, drift the
phases' skews summed: ContentionModel.cpp says why). For every c on a grid
a and b are the least-squares fit of factor - 1 to sim_ordered / fluid - 1;
the c with the smallest error in log(factor / measured) wins. The table
gives every row's measured ratio, the fitted factor and the model's
prediction with the constants compiled in now (the CSV's `factor`), so a
stale constant shows. Pure Python: the machine has no numpy.
"""
import argparse
import csv
import math
import sys


def solve(rows_x, ys):
    """Least squares by the normal equations (two unknowns)."""
    k = len(rows_x[0])
    a = [[sum(x[i] * x[j] for x in rows_x) for j in range(k)] +
         [sum(x[i] * y for x, y in zip(rows_x, ys))] for i in range(k)]
    for c in range(k):
        p = max(range(c, k), key=lambda r: abs(a[r][c]))
        a[c], a[p] = a[p], a[c]
        if a[c][c] == 0:
            return [0.0] * k
        for r in range(k):
            if r != c:
                m = a[r][c] / a[c][c]
                a[r] = [u - m * v for u, v in zip(a[r], a[c])]
    return [a[i][k] / a[i][i] for i in range(k)]


def factor(a, b, c, row, deep=False):
    share = min(1.0, row["packets"] / row["buffer"])
    if deep:
        # The alternative: buffers that hold a message remove the whole
        # term, the sender's order included.
        return 1 + (a + b * row["hops"]) * share * \
            (1 - math.exp(-c * row["drift"]))
    return 1 + (a + b * share * row["hops"]) * \
        (1 - math.exp(-c * row["drift"]))


def fit(rows, deep=False):
    best = None
    for i in range(-30, 21):
        c = 10 ** (i / 10)
        xs, ys = [], []
        for r in rows:
            g = 1 - math.exp(-c * r["drift"])
            share = min(1.0, r["packets"] / r["buffer"])
            xs.append([g * share, g * share * r["hops"]] if deep else
                      [g, g * share * r["hops"]])
            ys.append(r["measured"] - 1)
        a, b = solve(xs, ys)
        err = [math.log(factor(a, b, c, r, deep) / r["measured"])
               for r in rows]
        rms = math.sqrt(sum(e * e for e in err) / len(err))
        if best is None or rms < best[0]:
            best = (rms, a, b, c)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("data", nargs="+")
    ap.add_argument("--command", default="")
    args = ap.parse_args()
    rows = []
    for path in args.data:
        with open(path) as f:
            for r in csv.DictReader(f):
                row = {k: r[k] for k in ("machine", "block")}
                for k in ("nodes", "buffer", "phases"):
                    row[k] = int(r[k])
                for k in ("drift", "packets", "hops", "factor", "fluid",
                          "sim_ordered", "sim_phased", "model_phased"):
                    row[k] = float(r[k])
                row["measured"] = row["sim_ordered"] / row["fluid"]
                rows.append(row)
    if not rows:
        sys.exit("error: no rows")
    rms, a, b, c = fit(rows)
    deep = fit(rows, deep=True)

    def within(pred_of, lo=0.8, hi=1.25):
        return sum(1 for r in rows if lo <= pred_of(r) / r["measured"] <= hi)

    # The choice the term is for: does the model pick the faster of
    # phased and ordered as ns-3 runs them?
    def right(r):
        ordered = r["fluid"] * r["factor"]
        return (ordered < r["model_phased"]) == \
            (r["sim_ordered"] < r["sim_phased"])

    lines = ["# The contention term, fitted", ""]
    if args.command:
        lines += ["`%s`" % args.command, ""]
    lines += [
        "%d runs of phasec's all-to-all phases through phasec-ns3 without "
        "barriers (`ordered`), each against the fluid time." % len(rows), "",
        "Fit: `factor = 1 + (%.3f + %.3f * min(1, P/B) * h) * "
        "(1 - exp(-%.3g * drift))`, rms log error %.3f." % (a, b, c, rms), "",
        "The alternative where buffers that hold a whole message remove the "
        "term altogether, `1 + (a + b * h) * min(1, P/B) * (1 - exp(-c * "
        "drift))`, fits %s: a %.3f, b %.3f, c %.3g, rms log error %.3f."
        % ("worse" if deep[0] > rms else "better", deep[1], deep[2], deep[3],
           deep[0]), "",
        "- fitted factor within 25%% of ns-3: %d of %d runs" %
        (within(lambda r: factor(a, b, c, r)), len(rows)),
        "- compiled-in factor (the CSV's, what phasec prints) within 25%%: "
        "%d of %d" % (within(lambda r: r["factor"]), len(rows)),
        "- the model picks the faster of phased and ordered as ns-3 runs "
        "them: %d of %d" % (sum(1 for r in rows if right(r)), len(rows)), "",
        "| machine | block (B) | buffer | phases | drift | packets | hops "
        "| ns-3 / fluid | fitted | compiled | fitted / ns-3 | sync ns-3 "
        "| sync model |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|"]
    for r in sorted(rows, key=lambda r: factor(a, b, c, r) / r["measured"]):
        f = factor(a, b, c, r)
        sim_sync = "none" if r["sim_ordered"] < r["sim_phased"] else "barrier"
        model_sync = ("none" if r["fluid"] * r["factor"] < r["model_phased"]
                      else "barrier")
        lines.append(
            "| %s | %s | %d | %d | %.2f | %.1f | %.2f | %.3f | %.3f | %.3f "
            "| %.3f | %s | %s |" %
            (r["machine"], r["block"], r["buffer"], r["phases"], r["drift"],
             r["packets"], r["hops"], r["measured"], f, r["factor"],
             f / r["measured"], sim_sync, model_sync))
    with open(args.out, "w") as out:
        out.write("\n".join(lines) + "\n")
    print("a %.3f b %.3f c %.3g rms %.3f" % (a, b, c, rms))


if __name__ == "__main__":
    main()

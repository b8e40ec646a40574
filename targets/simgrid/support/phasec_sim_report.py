#!/usr/bin/env python3
"""phasec SimGrid report: pictures from the CSVs phasec wrote, one HTML file.

Part of phasec. Copied into the report directory by `--report DIR` and run
there with /usr/bin/python3 (matplotlib, Agg backend). With --trace it first
turns SimGrid's Paje trace into link_timeline.csv: link utilisation over
time, aggregated over all links (mean and percentiles; not the raw trace).
"""
import argparse
import base64
import csv
import html
import io
import os
import sys


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def percentile(sorted_vals, q):
    if not sorted_vals:
        return 0.0
    i = min(len(sorted_vals) - 1, max(0, int(round(q * (len(sorted_vals) - 1)))))
    return sorted_vals[i]


def timeline_from_trace(trace, out_csv, bins=100):
    """Paje trace -> per-link bandwidth_used step functions -> for each of
    `bins` equal time slices, the mean/p10/p50/p90/max utilisation over the
    network links (utilisation = bandwidth used / bandwidth)."""
    aliases = {}          # variable type alias -> name
    containers = {}       # container alias -> (name, type)
    events = {}           # link container -> [(time, value)] of bandwidth_used
    capacity = {}         # link container -> bandwidth
    defs = {}             # event id -> (name, [field names])
    with open(trace) as f:
        cur = None
        for line in f:
            if line.startswith("%EventDef"):
                parts = line.split()
                cur = (parts[1], int(parts[2]), [])
                continue
            if line.startswith("%EndEventDef"):
                defs[str(cur[1])] = (cur[0], cur[2])
                cur = None
                continue
            if line.startswith("%"):
                if cur is not None:
                    fields = line[1:].split()
                    if fields:
                        cur[2].append(fields[0])
                continue
            toks = split_paje(line)
            if not toks or toks[0] not in defs:
                continue
            name, fields = defs[toks[0]]
            rec = dict(zip(fields, toks[1:]))
            if name == "PajeDefineVariableType":
                aliases[rec.get("Alias", rec.get("Name"))] = rec.get("Name")
            elif name == "PajeCreateContainer":
                containers[rec.get("Alias", rec.get("Name"))] = (rec.get("Name"), rec.get("Type"))
            elif name in ("PajeSetVariable", "PajeAddVariable", "PajeSubVariable"):
                var = aliases.get(rec.get("Type"), rec.get("Type"))
                cont = rec.get("Container")
                t = float(rec.get("Time", 0))
                v = float(rec.get("Value", 0))
                if var == "bandwidth" and name == "PajeSetVariable":
                    capacity[cont] = v
                elif var == "bandwidth_used":
                    lst = events.setdefault(cont, [])
                    prev = lst[-1][1] if lst else 0.0
                    if name == "PajeSetVariable":
                        nv = v
                    elif name == "PajeAddVariable":
                        nv = prev + v
                    else:
                        nv = prev - v
                    lst.append((t, nv))
    # Network links only (phasec's topology links are named L<id>_...).
    links = sorted(c for c in events
                   if containers.get(c, (c,))[0].startswith("L") and capacity.get(c, 0) > 0)
    end = 0.0
    for c in links:
        if events[c]:
            end = max(end, events[c][-1][0])
    # The timed call starts after a simulated second of sleep
    # (phasec_sim_start.h) that follows the barrier and the allreduce
    # agreeing on the start: the timeline begins where the links come back
    # to life after the longest idle stretch, and its times count from there.
    busy = []
    for c in links:
        ev = events[c]
        for i, (t, v) in enumerate(ev):
            t2 = ev[i + 1][0] if i + 1 < len(ev) else end
            if v > 0 and t2 > t:
                busy.append((t, t2))
    busy.sort()
    begin, gap, reach = 0.0, 0.0, 0.0
    for t, t2 in busy:
        if t - reach > gap:
            begin, gap = t, t - reach
        reach = max(reach, t2)
    rows = []
    if links and end > begin:
        width = (end - begin) / bins
        util = {c: [0.0] * bins for c in links}
        for c in links:
            ev = events[c]
            cap = capacity[c]
            for i, (t, v) in enumerate(ev):
                t2 = ev[i + 1][0] if i + 1 < len(ev) else end
                if v <= 0 or t2 <= t or t2 <= begin:
                    continue
                t, t2 = t - begin, t2 - begin
                b0 = int(max(0.0, t) / width)
                while b0 < bins:
                    lo, hi = b0 * width, (b0 + 1) * width
                    ov = min(hi, t2) - max(lo, t)
                    if ov > 0:
                        util[c][b0] += v / cap * ov / width
                    if hi >= t2:
                        break
                    b0 += 1
        for b in range(bins):
            vals = sorted(min(1.0, util[c][b]) for c in links)
            rows.append([(b + 0.5) * width, sum(vals) / len(vals), percentile(vals, 0.1),
                         percentile(vals, 0.5), percentile(vals, 0.9), vals[-1]])
    with open(out_csv, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["time_s", "mean", "p10", "p50", "p90", "max"])
        for r in rows:
            w.writerow(["%.6g" % x for x in r])
    return len(links)


def split_paje(line):
    out, cur, q = [], "", False
    for ch in line.strip():
        if ch == '"':
            q = not q
        elif ch in " \t" and not q:
            if cur:
                out.append(cur)
                cur = ""
        else:
            cur += ch
    if cur:
        out.append(cur)
    return out


def png(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    return base64.b64encode(buf.getvalue()).decode("ascii")


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--title", default="phasec simulation")
    ap.add_argument("--trace")
    ap.add_argument("--csv-only", action="store_true")
    a = ap.parse_args(argv)
    d = a.dir
    if a.trace:
        timeline_from_trace(a.trace, os.path.join(d, "link_timeline.csv"))
    if a.csv_only:
        return 0

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figs = []
    summary = read_csv(os.path.join(d, "summary.csv"))
    bound_path = os.path.join(d, "bound.csv")
    bound = read_csv(bound_path)[0] if os.path.exists(bound_path) else None
    bound_s = float(bound["bound_s"]) if bound else 0.0

    # 0. Every variant's simulated time against the proven lower bound.
    # SimGrid's stock platform is another machine (its own cluster): its
    # rows are drawn apart and not measured against this machine's bound.
    timed = [r for r in summary if r.get("sim_time_s")]
    if timed:
        fig, ax = plt.subplots(figsize=(8, 0.4 * len(timed) + 1.5))
        labels, times, colours, hatches = [], [], [], []
        for r in timed:
            stock = r["platform"] == "stock"
            labels.append("%s (%s)%s" % (r["variant"], r["kind"],
                                        " [stock platform]" if stock else ""))
            times.append(float(r["sim_time_s"]) * 1e3)
            colours.append("#bbbbbb" if stock else
                           ("#1f77b4" if r["kind"] == "phased" else "#ff7f0e"))
            hatches.append("//" if stock else "")
        y = list(range(len(timed)))
        bars = ax.barh(y, times, color=colours)
        for b, h in zip(bars, hatches):
            b.set_hatch(h)
        ax.set_yticks(y)
        ax.set_yticklabels(labels, fontsize=8)
        ax.invert_yaxis()
        if bound_s > 0:
            ax.axvline(bound_s * 1e3, color="k", ls="--", lw=1,
                       label="lower bound %.3g ms" % (bound_s * 1e3))
            ax.legend(loc="lower right", fontsize=8)
        ax.set_xlabel("simulated time (ms)")
        ax.set_title("Time of every variant against the lower bound")
        figs.append(("Every variant against the bound", png(fig)))
        plt.close(fig)

    # 1. Heat map: links x phases, links labelled class source->destination.
    rows = read_csv(os.path.join(d, "link_phase.csv"))
    if rows:
        phases = [k for k in rows[0].keys() if k.startswith("p")]
        order = sorted(range(len(rows)), key=lambda i: (rows[i]["class"], int(rows[i]["link"])))
        mat = [[float(rows[i][p]) for p in phases] for i in order]
        fig, ax = plt.subplots(figsize=(9, max(5, 0.18 * len(order) + 1)
                                        if len(order) <= 48 else 5))
        im = ax.imshow(mat, aspect="auto", interpolation="nearest", cmap="viridis", vmin=0, vmax=1)
        if len(order) <= 48:
            ax.set_yticks(range(len(order)))
            ax.set_yticklabels(["%s %s\u2192%s" % (rows[i]["class"], rows[i]["src"],
                                                   rows[i]["dst"]) for i in order],
                               fontsize=7)
        else:
            # Too many to name: mark where each link class starts.
            starts, last = [], None
            for pos, i in enumerate(order):
                if rows[i]["class"] != last:
                    starts.append((pos, rows[i]["class"]))
                    last = rows[i]["class"]
            ax.set_yticks([p for p, _ in starts])
            ax.set_yticklabels(["%s links from here" % c for _, c in starts], fontsize=7)
        ax.set_xlabel("phase")
        ax.set_ylabel("directed link (class source\u2192destination)")
        ax.set_title("Busy share of each directed link in each phase")
        fig.colorbar(im, ax=ax, label="busy share of the phase")
        figs.append(("Link-by-phase heat map", png(fig)))
        plt.close(fig)

    # 2. Throughput over routes.
    rt = read_csv(os.path.join(d, "route_throughput.csv"))
    fig, ax = plt.subplots(figsize=(7, 3.5))
    ax.bar([float(r["bin_lo"]) for r in rt], [int(r["routes"]) for r in rt], width=0.05, align="edge")
    ax.set_xlabel("route throughput / its slowest link's bandwidth")
    ax.set_ylabel("routes")
    ax.set_title("Throughput of each of the %d routes, as a share of its slowest link"
                 % sum(int(r["routes"]) for r in rt))
    figs.append(("Throughput over routes", png(fig)))
    plt.close(fig)

    # 3. Throughput over phases.
    pt = read_csv(os.path.join(d, "phase_throughput.csv"))
    vals = [float(r["per_node_Bps"]) / 1e6 for r in pt]
    fig, ax = plt.subplots(figsize=(7, 3.5))
    ax.hist(vals, bins=30)
    ax.set_xlabel("MB/s per node")
    ax.set_ylabel("phases")
    ax.set_title("Throughput per node in each of the %d phases" % len(vals))
    figs.append(("Throughput over phases", png(fig)))
    plt.close(fig)

    # 4. Link utilisation over time (from the trace).
    tl_path = os.path.join(d, "link_timeline.csv")
    if os.path.exists(tl_path):
        tl = read_csv(tl_path)
        if tl:
            t = [float(r["time_s"]) * 1e3 for r in tl]
            fig, ax = plt.subplots(figsize=(8, 3.5))
            ax.fill_between(t, [float(r["p10"]) for r in tl], [float(r["p90"]) for r in tl],
                            alpha=0.3, label="p10-p90")
            ax.plot(t, [float(r["mean"]) for r in tl], label="mean")
            ax.plot(t, [float(r["p50"]) for r in tl], label="median")
            ax.plot(t, [float(r["max"]) for r in tl], label="max", lw=0.8)
            ax.set_ylim(0, 1.05)
            ax.set_xlabel("simulated time (ms)")
            ax.set_ylabel("link utilisation")
            ax.set_title("Utilisation of the network's links over time")
            ax.legend(loc="lower right", fontsize=8)
            figs.append(("Link utilisation over time", png(fig)))
            plt.close(fig)

    out = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>%s</title>"
           "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
           "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}"
           "tr.stock td{color:#777;font-style:italic}</style></head><body>"
           % html.escape(a.title), "<h1>%s</h1>" % html.escape(a.title)]
    if bound:
        out.append("<p>Lower bound: <b>%s s</b> for %s bytes, proven from %s. "
                   "<i>%% of bound</i> is the bound over a variant's simulated time "
                   "(100%% = no schedule can be faster on this machine).</p>"
                   % (html.escape(bound["bound_s"]), html.escape(bound["total_bytes"]),
                      html.escape(bound["reason"] or "the link loads")))
    out.append("<h2>Variants</h2><table><tr>")
    cols = [("variant", "Variant"), ("platform", "Platform"), ("kind", "Kind"),
            ("status", "Status"), ("sim_time_s", "Simulated time (s)"),
            ("eff_bandwidth_Bps", "Effective bandwidth (B/s)"),
            ("pct_of_bound", "% of bound"), ("model_time_s", "Model time (s)"),
            ("phases", "Phases")]
    out.append("".join("<th>%s</th>" % html.escape(t) for _, t in cols) + "</tr>")
    stock_rows = 0
    for r in summary:
        stock = r.get("platform") == "stock"
        stock_rows += stock
        cells = []
        for c, _ in cols:
            v = r.get(c, "")
            if stock and c == "platform":
                v += " \u2020"
            cells.append("<td>%s</td>" % html.escape(v))
        out.append("<tr%s>" % (" class='stock'" if stock else "") + "".join(cells) + "</tr>")
    out.append("</table>")
    if stock_rows:
        out.append("<p>\u2020 On SimGrid's stock platform (its own cluster), a different "
                   "machine from the one above: its times are shown beside, not measured "
                   "against this machine's bound.</p>")
    for name, data in figs:
        out.append("<h2>%s</h2><img alt='%s' src='data:image/png;base64,%s'/>"
                   % (html.escape(name), html.escape(name), data))
    out.append("</body></html>\n")
    with open(os.path.join(d, "index.html"), "w") as f:
        f.write("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""phasec ns-3 report: seed 000's pictures from the packet level, one HTML.

Part of phasec. Copied into the report directory by `--target=ns3 --report
DIR` and run there after phasec-ns3 wrote its traces (phasec_ns3_net.h,
writeTrace) and phasec the table (summary.csv). matplotlib, Agg backend.

Pictures:
  every variant against the bound      summary.csv
  throughput over routes               NAME.routes.csv: every message's
                                       bytes / (last byte - first packet),
                                       seed 000's "over 262k routes"
  throughput over phases               NAME.phases.csv (phased variants):
                                       a phase's bytes per node of the
                                       exchange / its time, "over 512
                                       phases"
  link utilisation over time           NAME.links.csv: 100 slices, mean and
                                       p10-p90 over all links
each also as a PNG beside index.html (bound, routes, phases, links.png).
The seed's names: "AAPC in hell" (no phases: the conventional loop) and
"heaven" (congestion-free phases: phasec's); its "purgatory" (phases that
still collide) is closest to the greedy baseline's phases here.
"""
import argparse
import base64
import csv
import html
import io
import os
import sys

# What the seed calls each variant (seed 000's slides), where it has a name.
SEED_NAMES = {
    "loop": "AAPC in hell: no phases, each node loops through its destinations",
    "posted": "no phases, every message posted at once (NIC interleaves)",
    "ordered": "phasec's messages in phase order, no barriers",
    "linear_shift": "phased, the linear shift split until no link is shared",
    "xor": "phased, the xor pattern split until no link is shared",
    "greedy": "phased, links packed greedily: ports shared (purgatory-like)",
    "pairwise": "MPI's pairwise exchange (shift steps, no barriers)",
    "phasec": "AAPC in heaven: phasec's congestion-free phases",
}


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def png(fig, path):
    """The figure as PNG: written to `path` and returned as base64."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    with open(path, "wb") as f:
        f.write(buf.getvalue())
    return base64.b64encode(buf.getvalue()).decode("ascii")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", required=True)
    ap.add_argument("--title", default="ns-3")
    ap.add_argument("--command", default="")
    args = ap.parse_args(argv)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    summary = read_csv(os.path.join(args.dir, "summary.csv"))
    names = [r["variant"] for r in summary]
    figures = []

    def add(title, caption, fig, name):
        figures.append((title, caption,
                        png(fig, os.path.join(args.dir, name + ".png"))))
        plt.close(fig)

    def per_variant(kind):
        """NAME.KIND.csv's rows for every variant that has one."""
        out = {}
        for n in names:
            path = os.path.join(args.dir, n + "." + kind + ".csv")
            if os.path.exists(path):
                out[n] = read_csv(path)
        return out

    # Every variant against the bound.
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(summary) + 1))
    pct = [float(r["bound_pct"]) for r in summary]
    colors = ["tab:green" if n == "phasec" else
              "tab:red" if n in ("loop", "posted") else "tab:gray"
              for n in names]
    ax.barh(range(len(names)), pct, color=colors)
    ax.set_yticks(range(len(names)))
    ax.set_yticklabels(names)
    ax.invert_yaxis()
    ax.axvline(100, color="black", lw=1)
    ax.set_xlabel("% of the lower bound (simulated)")
    for i, p in enumerate(pct):
        ax.text(p + 1, i, f"{p:.1f}%", va="center", fontsize=8)
    ax.set_xlim(0, 110)
    add("Every variant against the bound",
        "Simulated time of each variant as a share of the proven lower "
        "bound (summary.csv).", fig, "bound")

    def histograms(data, what, title, xlabel):
        """One histogram per variant, on a common axis."""
        top = max([max(v) for v in data.values() if v] + [1e-9])
        fig, axes = plt.subplots(len(data), 1, sharex=True,
                                 figsize=(7, 1.6 * len(data) + 0.6),
                                 squeeze=False)
        for ax, (n, tp) in zip(axes[:, 0], data.items()):
            ax.hist(tp, bins=40, range=(0, top * 1.02),
                    color="tab:green" if n == "phasec" else "tab:blue")
            ax.set_title(title(n, tp), fontsize=9, loc="left")
            ax.set_ylabel(what)
        axes[-1, 0].set_xlabel(xlabel)
        return fig

    def throughput(rows, per=1):
        """MB/s of each row: its bytes / per / (end - start)."""
        return [int(r["bytes"]) / per / dt / 1e6 for r in rows
                for dt in [float(r["end"]) - float(r["start"])] if dt > 0]

    # Throughput over routes.
    route_rows = per_variant("routes")
    routes = {n: throughput(rows) for n, rows in route_rows.items()}
    if routes:
        add("Throughput over routes",
            "Seed 000's \"throughput distribution over routes\": one count "
            "per message (NAME.routes.csv).",
            histograms(routes, "routes",
                       lambda n, tp: f"{n}: {SEED_NAMES.get(n, n)} (mean "
                                     f"{sum(tp) / max(len(tp), 1):.1f} MB/s)",
                       "route throughput (MB/s): a message's bytes / (its "
                       "last byte - its first packet)"),
            "routes")

    # Throughput over phases (phased variants), per node of the exchange as
    # the seed's MB/s per node: a phase where few nodes send counts as the
    # slow phase it is.
    phases = {n: throughput(rows,
                            len({r["src"] for r in route_rows[n]}) or 1)
              for n, rows in per_variant("phases").items()
              if n in route_rows}
    if phases:
        add("Throughput over phases",
            "Seed 000's \"throughput distribution over phases\" "
            "(NAME.phases.csv; phased variants only).",
            histograms(phases, "phases",
                       lambda n, tp: f"{n}: {len(tp)} phases",
                       "phase throughput (MB/s per node): bytes / nodes / "
                       "the phase's time"),
            "phases")

    # Link utilisation over time.
    links = per_variant("links")
    if links:
        fig, axes = plt.subplots(len(links), 1, sharex=True, sharey=True,
                                 figsize=(7, 1.6 * len(links) + 0.6),
                                 squeeze=False)
        for ax, (n, rows) in zip(axes[:, 0], links.items()):
            t = [(float(r["t0"]) + float(r["t1"])) / 2 * 1e3 for r in rows]
            ax.fill_between(t, [float(r["p10"]) for r in rows],
                            [float(r["p90"]) for r in rows],
                            color="tab:blue", alpha=0.25, label="p10-p90")
            ax.plot(t, [float(r["mean"]) for r in rows], color="tab:blue",
                    label="mean")
            ax.plot(t, [float(r["max"]) for r in rows], color="tab:gray",
                    ls=":", label="max")
            ax.set_ylim(0, 1.05)
            ax.set_title(n, fontsize=9, loc="left")
            ax.set_ylabel("busy")
        axes[0, 0].legend(fontsize=7, loc="lower right")
        axes[-1, 0].set_xlabel("simulated time (ms); a panel ends where its "
                               "variant does")
        add("Link utilisation over time",
            "Share of each 1/100 of the run every link spends serialising "
            "packets: mean, p10-p90 and max over all links (NAME.links.csv).",
            fig, "links")

    out = ["<!DOCTYPE html>", "<html><head><meta charset='utf-8'>",
           f"<title>{html.escape(args.title)}</title>",
           "<style>body{font-family:sans-serif;max-width:60em;margin:auto}"
           "table{border-collapse:collapse}td,th{padding:2px 8px;"
           "border-bottom:1px solid #ddd;text-align:right}"
           "td:first-child,th:first-child{text-align:left}</style>",
           "</head><body>", f"<h1>{html.escape(args.title)}</h1>"]
    if args.command:
        out.append(f"<p>Produced by <code>{html.escape(args.command)}</code>"
                   "</p>")
    out.append("<table><tr><th>variant</th><th>mode</th><th>simulated (s)"
               "</th><th>% of bound</th><th>model (s)</th><th>sim / model"
               "</th></tr>")
    for r in summary:
        out.append("<tr>" + "".join(
            f"<td>{html.escape(r[k])}</td>" for k in
            ("variant", "mode", "simulated_s", "bound_pct", "model_s",
             "sim_over_model")) + "</tr>")
    out.append("</table>")
    for title, caption, data in figures:
        out.append(f"<h2>{html.escape(title)}</h2><p>{html.escape(caption)}"
                   f"</p><img src='data:image/png;base64,{data}'>")
    out.append("</body></html>")
    with open(os.path.join(args.dir, "index.html"), "w") as f:
        f.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

# SPDX-License-Identifier: GPL-2.0
"""FCT slowdown of rdmaflow's messages, per algorithm and size bin.

tools/rdmaflow writes one CSV per client, a row per message:

    msg,src,dst,qp,size,arrival_ns,post_ns,done_ns

A message's FCT is done - arrival: from its (scheduled) arrival, waits
for a QP at the sender included, to the completion of its last WR at
the sender.  Its ideal FCT is what it would take alone on an idle
fabric of the same path:

    ideal = base_rtt(path) + size * 8 * wire / line_rate

base_rtt is the idle fabric's completion time of a message of a few
bytes on that path (rdmaflow --ping measures it: the propagation,
per-hop store-and-forward of one packet and the two stacks, there and
back); one number, or one per hop count (a column `hops` in the
messages then says each one's).  `wire` is the bytes on the wire per
byte of payload (headers; 1 to ignore them), line_rate in bit/s.  The
slowdown is FCT / ideal, taken as 1 when below (as the HPCC simulator's
analysis does: a measured base RTT has its own spread).

Size bins, as the HPCC paper's figures (fct_analysis.py of its
simulator): by size quantiles, each bin the same share of the messages
(sizes pooled over every algorithm, so that the bins are the same for
all), a bin (lo, hi] labelled by its largest size hi; or fixed edges.
Per algorithm and bin: the number of completed messages and the 50th,
95th and 99th percentiles of their slowdown (linear interpolation
between order statistics, pandas' default).

    msgs = fct.read(["h1.csv", "h2.csv"], algo="dcqcn")
    s = fct.slowdown(msgs, 100e6, 250e-6)
    t = fct.table(s, fct.quantile_edges(s["size"], 10))
    fct.plot(t, "fct.png", "title")
"""

import math

COLUMNS = ("msg", "src", "dst", "qp", "size", "arrival_ns", "post_ns",
           "done_ns")
TABLE = ("algo", "bin", "size_lo", "size_hi", "count", "p50", "p95",
         "p99")
PCTS = (("p50", 0.50), ("p95", 0.95), ("p99", 0.99))
PCT_NAMES = {"p50": "median", "p95": "95th percentile",
             "p99": "99th percentile"}


def read(paths, algo=None):
    """The messages of rdmaflow CSVs @paths as one DataFrame, with
    fct_s (NaN for a message that did not complete), completed, and
    algo when given.  ValueError naming the file for a CSV that is not
    rdmaflow's."""
    import pandas as pd

    frames = []
    for p in paths:
        df = pd.read_csv(p)
        if tuple(df.columns) != COLUMNS:
            raise ValueError("%s: columns %s, not rdmaflow's %s"
                             % (p, ",".join(df.columns), ",".join(COLUMNS)))
        frames.append(df)
    if not frames:
        raise ValueError("no rdmaflow CSV")
    df = pd.concat(frames, ignore_index=True)
    df["completed"] = df["done_ns"].notna()
    df["fct_s"] = (df["done_ns"] - df["arrival_ns"]) / 1e9
    if algo is not None:
        df["algo"] = algo
    return df


def ideal_fct(size, line_bps, base_rtt, hops=None, wire=1.0):
    """The ideal FCT (s) of messages of @size bytes (a number or a
    Series): @base_rtt seconds, or {hop count: seconds} looked up by
    @hops (a number or Series), plus the serialisation of size * @wire
    bytes at @line_bps."""
    if isinstance(base_rtt, dict):
        if hops is None:
            raise ValueError("a base RTT per hop count needs each "
                             "message's hops")
        if hasattr(hops, "map"):
            base = hops.map(base_rtt)
            missing = sorted(set(hops[base.isna()]))
            if missing:
                raise ValueError("no base RTT for hop count(s) %s" %
                                 ", ".join(str(h) for h in missing))
        else:
            if hops not in base_rtt:
                raise ValueError("no base RTT for hop count %s" % hops)
            base = base_rtt[hops]
    else:
        base = float(base_rtt)
    return base + size * 8.0 * wire / float(line_bps)


def slowdown(df, line_bps, base_rtt, wire=1.0):
    """@df's completed messages with ideal_s and slowdown (FCT over the
    ideal, at least 1) and slowdown_raw (not clamped)."""
    d = df[df["completed"]].copy()
    hops = d["hops"] if "hops" in d.columns else None
    d["ideal_s"] = ideal_fct(d["size"], line_bps, base_rtt, hops, wire)
    d["slowdown_raw"] = d["fct_s"] / d["ideal_s"]
    d["slowdown"] = d["slowdown_raw"].clip(lower=1.0)
    return d


def quantile_edges(sizes, nbins):
    """Edges [e0, e1, ..., en] of @nbins bins of about equal numbers of
    the message sizes @sizes: e0 below the smallest size, ek the size
    at quantile k/n (the nearest order statistic below it), en the
    largest.  Equal sizes never straddle an edge, so a distribution with
    few distinct sizes gets fewer bins."""
    import numpy as np

    s = np.sort(np.asarray(sizes, dtype=float))
    if not len(s):
        raise ValueError("no sizes to bin")
    if nbins < 1:
        raise ValueError("nbins %d < 1" % nbins)
    edges = [s[0] - 1]
    for k in range(1, nbins):
        e = s[max(0, int(math.ceil(k * len(s) / nbins)) - 1)]
        if e > edges[-1] and e < s[-1]:
            edges.append(e)
    edges.append(s[-1])
    return [float(e) for e in edges]


def table(df, edges):
    """The FCT table: one row per (algo, bin) with messages, columns
    TABLE: bin 1..n, the bin's sizes (size_lo, size_hi] in bytes, count
    of its completed messages, p50/p95/p99 of their slowdown.  @df is
    slowdown()'s; without an algo column all rows are algo "-"."""
    import pandas as pd

    d = df.copy()
    if "algo" not in d.columns:
        d["algo"] = "-"
    d["bin"] = pd.cut(d["size"], edges, labels=False, right=True)
    if d["bin"].isna().any():
        out = d[d["bin"].isna()]["size"]
        raise ValueError("sizes outside the bins' edges %g..%g: %s"
                         % (edges[0], edges[-1],
                            ", ".join(str(x) for x in out.head(3))))
    rows = []
    for algo in pd.unique(d["algo"]):
        da = d[d["algo"] == algo]
        for b, g in sorted(da.groupby("bin"), key=lambda t: t[0]):
            b = int(b)
            r = {"algo": algo, "bin": b + 1, "size_lo": edges[b],
                 "size_hi": edges[b + 1], "count": len(g)}
            for name, q in PCTS:
                r[name] = float(g["slowdown"].quantile(q))
            rows.append(r)
    return pd.DataFrame(rows, columns=TABLE)


def overall(df):
    """One row per algo over all completed messages: count, p50, p95,
    p99 of the slowdown (bin 0, size_lo and size_hi the extremes)."""
    import pandas as pd

    d = df.copy()
    if "algo" not in d.columns:
        d["algo"] = "-"
    rows = []
    for algo in pd.unique(d["algo"]):
        g = d[d["algo"] == algo]
        r = {"algo": algo, "bin": 0, "size_lo": float(g["size"].min()),
             "size_hi": float(g["size"].max()), "count": len(g)}
        for name, q in PCTS:
            r[name] = float(g["slowdown"].quantile(q))
        rows.append(r)
    return pd.DataFrame(rows, columns=TABLE)


def tidy_rows(tab, tot=None):
    """(metric, value, unit, algo) rows of the tables @tab (per bin) and
    @tot (overall()'s): slowdown_pNN.bK and messages.bK per bin, with
    bin_max.bK its largest size; .all for the whole run."""
    rows = []
    for _, r in tab.iterrows():
        sfx = "b%d" % r["bin"]
        rows.append(("bin_max." + sfx, float(r["size_hi"]), "bytes",
                     r["algo"]))
        rows.append(("messages." + sfx, int(r["count"]), "messages",
                     r["algo"]))
        for name, _ in PCTS:
            rows.append(("slowdown_%s.%s" % (name, sfx),
                         round(float(r[name]), 4), "1", r["algo"]))
    if tot is not None:
        for _, r in tot.iterrows():
            rows.append(("messages.all", int(r["count"]), "messages",
                         r["algo"]))
            for name, _ in PCTS:
                rows.append(("slowdown_%s.all" % name,
                             round(float(r[name]), 4), "1", r["algo"]))
    return rows


def plot(tab, path, plot_title):
    """Slowdown against message size: three panels (p50, p95, p99), x the
    bins' largest sizes (log), y the slowdown (log), one line per
    algorithm in the lab's colours.  Writes the PNG @path."""
    from matplotlib import ticker

    from . import plots

    plt = plots.plt
    with plt.rc_context(plots.STYLE):
        fig, axes = plt.subplots(1, 3, figsize=(12, 4), sharex=True)
        for ax, (name, _) in zip(axes, PCTS):
            for algo in tab["algo"].unique():
                t = tab[tab["algo"] == algo].sort_values("bin")
                kw = {"color": plots.ALGO_COLORS[algo]} \
                    if algo in plots.ALGO_COLORS else {}
                ax.plot(t["size_hi"], t[name], marker="o", markersize=3,
                        label=algo, **kw)
            ax.axhline(1, color="black", linewidth=0.8, linestyle=":")
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.yaxis.set_major_formatter(ticker.FormatStrFormatter("%g"))
            lo, hi = ax.get_ylim()
            # minor labels only within about a decade, where the major
            # ticks are too few to read a value
            ax.yaxis.set_minor_formatter(
                ticker.FormatStrFormatter("%g") if hi / lo < 20 else
                ticker.NullFormatter())
            ax.set_xlabel("message size, largest of the bin (bytes)")
            ax.set_title(PCT_NAMES[name])
        axes[0].set_ylabel("FCT slowdown (FCT / ideal)")
        axes[0].legend(loc="best")
        fig.suptitle(plot_title, fontsize=10)
        fig.tight_layout()
        fig.savefig(path)
        plt.close(fig)
    return path

# SPDX-License-Identifier: GPL-2.0
"""Plots of DCB lab results, one style for all (matplotlib, Agg).

Every plot has a title naming the scenario and its parameters, axes with
units, and a legend.  Colours follow the algorithm, so a figure of dcqcn
looks the same in every scenario.
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ALGO_COLORS = {"none": "#7f7f7f", "dcqcn": "#1f77b4", "pcn": "#ff7f0e",
               "ldcp": "#2ca02c", "line-rate": "#000000"}
STYLE = {
    "figure.figsize": (8, 4.5),
    "figure.dpi": 100,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.titlesize": 10,
    "axes.labelsize": 10,
    "legend.fontsize": 8,
    "lines.linewidth": 1.4,
}


def title(scenario, what, params, keys):
    """"SCENARIO: WHAT", and "k1=v1, k2=v2" below it for the @keys present
    in @params."""
    kv = ", ".join("%s=%s" % (k, params[k]) for k in keys
                   if params.get(k) not in (None, ""))
    return "%s: %s%s" % (scenario, what, "\n" + kv if kv else "")


def _finish(fig, ax, path, plot_title, ylabel):
    """Title, y label, y axis from 0 and legend of every plot; then the
    PNG @path is written and the figure closed."""
    ax.set_title(plot_title)
    ax.set_ylabel(ylabel)
    ax.set_ylim(bottom=0)
    ax.legend(loc="best")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)

def series(path, lines, plot_title, ylabel, xlabel="time (s)",
           hline=None, hline_label=None):
    """Write the PNG @path: @lines is [(label, xs, ys)] (or with a fourth
    element, a colour); a dashed black @hline at that level.  Returns the
    title it used."""
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots()
        for ln in lines:
            kw = {"color": ln[3]} if len(ln) > 3 else {}
            ax.plot(ln[1], ln[2], label=ln[0], **kw)
        if hline is not None:
            ax.axhline(hline, color="black", linestyle="--", linewidth=1,
                       label=hline_label)
        ax.set_xlabel(xlabel)
        _finish(fig, ax, path, plot_title, ylabel)
    return plot_title


def bars(path, groups, series, plot_title, ylabel):
    """Write the PNG @path: clustered bars, one cluster per label of
    @groups, one bar per (label, values) of @series, values in @groups'
    order (None: no bar).  Returns the title it used."""
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots()
        n = max(len(series), 1)
        width = 0.8 / n
        for k, (label, values) in enumerate(series):
            xs = [i - 0.4 + width * (k + 0.5) for i in range(len(groups))]
            pts = [(x, v) for x, v in zip(xs, values) if v is not None]
            if pts:
                ax.bar([p[0] for p in pts], [p[1] for p in pts], width,
                       label=label)
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels(groups)
        _finish(fig, ax, path, plot_title, ylabel)
    return plot_title

# SPDX-License-Identifier: GPL-2.0
"""DCQCN's rate timeline from the rxe_cc_dcqcn tracepoint.

The trace CSV (scripts/lib/rxe.sh, dcqcn_trace_csv) has no header and one
event per line: "t_s,qpn,rc_mbps,rt_mbps,alpha,ev,dev".  The QP list
(dcqcn_trace_qps) names the QPs to draw, one per line: "label qpn [dev]";
without a device, every device's events of that QPN belong to it.

Standard library only, apart from plot(), so that the parsing is tested
without matplotlib.
"""


def read_qps(path):
    """[(label, qpn, dev or None)] of the QP list @path."""
    out = []
    with open(path) as f:
        for n, ln in enumerate(f, 1):
            v = ln.split()
            if not v:
                continue
            if len(v) not in (2, 3) or not v[1].isdigit():
                raise ValueError("%s:%d: expected 'label qpn [dev]', got %r"
                                 % (path, n, ln.rstrip("\n")))
            out.append((v[0], int(v[1]), v[2] if len(v) == 3 else None))
    return out


def read_trace(path, qps):
    """{label: ([t_s], [rc_mbps], [rt_mbps], [alpha])} of the trace @path
    for the QPs @qps (read_qps); a QP with no event has empty lists."""
    out = {q[0]: ([], [], [], []) for q in qps}
    with open(path) as f:
        for n, ln in enumerate(f, 1):
            v = ln.rstrip("\n").split(",")
            if len(v) != 7:
                raise ValueError("%s:%d: expected 7 fields, got %d"
                                 % (path, n, len(v)))
            try:
                qpn = int(v[1])
                row = [float(x) for x in v[0:1] + v[2:5]]
            except ValueError:
                raise ValueError("%s:%d: not a number in %r"
                                 % (path, n, ln.rstrip("\n"))) from None
            for label, q, dev in qps:
                if q == qpn and (dev is None or dev == v[6]):
                    for k in range(4):
                        out[label][k].append(row[k])
    return out


def plot(trace, qps, png, plot_title, share=None):
    """Write @png: R_C (solid) and R_T (dotted) of each QP of @qps (top)
    and alpha (bottom), from the trace @trace; @share, a dashed fair-share
    level in Mbit/s.  Returns @png, or None when no QP has an event."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from . import plots

    series = read_trace(trace, qps)
    if not any(s[0] for s in series.values()):
        return None
    with plt.rc_context(plots.STYLE):
        fig, (top, bottom) = plt.subplots(2, 1, sharex=True,
                                          figsize=(8, 6))
        for k, (label, _, _) in enumerate(qps):
            t, rc, rt, alpha = series[label]
            if not t:
                continue
            color = "C%d" % k
            top.step(t, rc, where="post", color=color,
                     label="%s R_C" % label)
            top.step(t, rt, where="post", color=color, linestyle=":",
                     label="%s R_T" % label)
            bottom.step(t, alpha, where="post", color=color, label=label)
        if share:
            top.axhline(share, color="black", linestyle="--", linewidth=1,
                        label="fair share")
        top.set_title(plot_title)
        top.set_ylabel("rate (Mbit/s)")
        top.set_ylim(bottom=0)
        top.legend(loc="best")
        bottom.set_xlabel("time (s)")
        bottom.set_ylabel("alpha")
        bottom.set_ylim(0, 1.05)
        bottom.legend(loc="best")
        fig.tight_layout()
        fig.savefig(png)
        plt.close(fig)
    return png

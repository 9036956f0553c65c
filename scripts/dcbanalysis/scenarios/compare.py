# SPDX-License-Identifier: GPL-2.0
"""compare (make demo): cmp_incast, cmp_burst and cmp_converge run by
dcblab into DIR/NAME/, each with its own summary.tsv; their rows keep
their own scenario names."""

import os

from . import cmp


def analyze(d, params):
    out = []
    for name in params.get("scenarios", "").split(","):
        path = os.path.join(d, name, "summary.tsv")
        if name in cmp.COLUMNS and os.path.exists(path):
            out += cmp.rows(name, path)
    return out


def plot(d, params):
    """The plots of the comparison scenarios, as DIR/NAME-*.png (the
    names compare's copies of plots drawn in the guest have)."""
    out = []
    for name, fn in (("cmp_incast", cmp.plot_incast),
                     ("cmp_burst", cmp.plot_burst),
                     ("cmp_converge", cmp.plot_converge)):
        if name in params.get("scenarios", "").split(","):
            out += fn(os.path.join(d, name), params, name + "-", d)
    return out

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
    """cmp_incast's plots, as DIR/cmp_incast-queue.png and -fct.png (the
    other scenarios' plots are drawn in the guest and copied so)."""
    if "cmp_incast" not in params.get("scenarios", "").split(","):
        return []
    return cmp.plot_incast(os.path.join(d, "cmp_incast"), params,
                           "cmp_incast-")

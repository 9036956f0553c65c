# SPDX-License-Identifier: GPL-2.0
"""cmp_burst: summary.tsv, one row per algorithm, and the plots
(scenarios/cmp.py)."""

from .cmp import analyzer, plot_burst

analyze = analyzer("cmp_burst")


def plot(d, params):
    return plot_burst(d, params)

# SPDX-License-Identifier: GPL-2.0
"""cmp_converge: summary.tsv, one row per algorithm, and the plots
(scenarios/cmp.py)."""

from .cmp import analyzer, plot_converge

analyze = analyzer("cmp_converge")


def plot(d, params):
    return plot_converge(d, params)

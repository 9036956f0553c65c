# SPDX-License-Identifier: GPL-2.0
"""cmp_incast: summary.tsv, one row per algorithm, and the plots
(scenarios/cmp.py)."""

from .cmp import analyzer, plot_incast

analyze = analyzer("cmp_incast")


def plot(d, params):
    return plot_incast(d, params)

# SPDX-License-Identifier: GPL-2.0
"""cmp_burst: summary.tsv, one row per algorithm (scenarios/cmp.py)."""

from .cmp import analyzer

analyze = analyzer("cmp_burst")

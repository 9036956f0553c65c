# SPDX-License-Identifier: GPL-2.0
"""cmp_incast: summary.tsv, one row per algorithm (scenarios/cmp.py)."""

from .cmp import analyzer

analyze = analyzer("cmp_incast")

# SPDX-License-Identifier: GPL-2.0
"""parking_lot: summary.tsv, one row per algorithm (scenarios/cmp.py)."""

from .cmp import analyzer

analyze = analyzer("parking_lot")

# SPDX-License-Identifier: GPL-2.0
"""Fairness measures."""


def jain(values):
    """Jain's index (sum x)^2 / (n sum x^2) of @values: 1 when all are
    equal, 1/n when one takes everything; None when nothing was sent
    (the index does not apply)."""
    xs = [float(v) for v in values]
    sq = sum(x * x for x in xs)
    if not xs or sq == 0:
        return None
    return sum(xs) ** 2 / (len(xs) * sq)

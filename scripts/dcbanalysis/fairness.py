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


def sender_rows(rx, total_row=True):
    """Rows of the senders' received rates @rx ({name: Mbit/s}):
    goodput.NAME, goodput.all (unless not @total_row), share.NAME and
    Jain's index, the ones that apply."""
    rows = [("goodput." + n, v, "Mbit/s") for n, v in rx.items()]
    total = sum(rx.values())
    if total_row:
        rows.append(("goodput.all", total, "Mbit/s"))
    if total > 0:
        rows += [("share." + n, v / total, "1") for n, v in rx.items()]
    j = jain(rx.values())
    if j is not None:
        rows.append(("jain", j, "1"))
    return rows

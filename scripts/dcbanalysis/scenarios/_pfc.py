# SPDX-License-Identifier: GPL-2.0
"""Readers the PFC experiments share (pfc_incast, pfc_tree,
pfc_unfair): ports.tsv (label, netns:dev) and the dcbmon.csv series of
those ports."""

import csv
import os


def _tsv(path):
    with open(path, newline="") as f:
        return [r for r in csv.reader(f, delimiter="\t") if r]


def ports(d):
    """{label: "netns:dev"} of ports.tsv, in its order."""
    return {r[0]: r[1] for r in _tsv(os.path.join(d, "ports.tsv"))}


def series(d, want, key, band):
    """{label: (t_s, values)} of dcbmon.csv's @key of @band ("all": the
    totals) at the ports @want ({label: "netns:dev"})."""
    by_port = {v: k for k, v in want.items()}
    out = {k: ([], []) for k in want}
    with open(os.path.join(d, "dcbmon.csv"), newline="") as f:
        for r in csv.DictReader(f):
            label = by_port.get(r["netns"] + ":" + r["dev"])
            if label is None or r["band"] != str(band):
                continue
            out[label][0].append(int(r["t_ms"]) / 1000)
            out[label][1].append(float(r[key]))
    return out

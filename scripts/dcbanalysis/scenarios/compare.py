# SPDX-License-Identifier: GPL-2.0
"""compare (make demo): cmp_incast, cmp_burst and cmp_converge run by
dcblab into DIR/NAME/, each with its own files; their rows keep their
own scenario names.  An experiment of the Python layer (all three)
brings its analyze() and plot(), run on DIR/NAME with the knobs of
DIR/NAME/params.txt; a bash scenario named in `scenarios` leaves
summary.tsv (cmp.py)."""

import os
import shutil

from . import cmp


def _experiment(d, name):
    """The dcbnet experiment @name with the knobs it ran with in @d/NAME,
    or None when @name is a bash scenario."""
    from dcbnet import experiment

    if name not in experiment.names():
        return None
    from ..analyze import params
    _, knobs = params(os.path.join(d, name))
    cls = experiment.get(name)
    return cls({k: v for k, v in knobs.items()
                if k in {q.name for q in cls.PARAMS}})


def analyze(d, params):
    out = []
    for name in params.get("scenarios", "").split(","):
        path = os.path.join(d, name)
        if not os.path.isdir(path):
            continue
        exp = _experiment(d, name)
        if exp is not None:
            out += [r + (name,) for r in exp.analyze(path)]
        elif name in cmp.COLUMNS and \
                os.path.exists(os.path.join(path, "summary.tsv")):
            out += cmp.rows(name, os.path.join(path, "summary.tsv"))
    return out


def plot(d, params):
    """The plots of the comparison scenarios, as DIR/NAME-*.png (the
    names compare's copies of plots drawn in the guest have)."""
    out = []
    for name in params.get("scenarios", "").split(","):
        if not os.path.isdir(os.path.join(d, name)):
            continue
        exp = _experiment(d, name)
        if exp is None:
            continue
        for f in exp.plot(os.path.join(d, name)):
            dst = os.path.join(d, "%s-%s" % (name, os.path.basename(f)))
            shutil.copyfile(f, dst)
            out.append(dst)
    return out

# SPDX-License-Identifier: GPL-2.0
"""Per-scenario analysers: the files a run left -> tidy rows.

A module here named after a scenario defines analyze(run_dir, params),
returning (metric, value, unit[, algo[, scenario]]) tuples for one run;
params are the knobs in force (params.txt).  A module may also define
plot(run_dir, params), drawing the run's figures on the host
(plots.py).  A scenario without a module reports no metrics.
"""

import importlib


def _module(scenario):
    try:
        return importlib.import_module("." + scenario, __name__)
    except ModuleNotFoundError as e:
        if e.name and e.name.endswith("." + scenario):
            return None
        raise


def analyzer(scenario):
    """The analyze() of @scenario, or None."""
    mod = _module(scenario)
    return getattr(mod, "analyze", None)


def plotter(scenario):
    """The plot(run_dir, params) of @scenario (returning the files it
    wrote), or None."""
    mod = _module(scenario)
    return getattr(mod, "plot", None)

# SPDX-License-Identifier: GPL-2.0
"""Per-scenario analysers: the files a run left -> tidy rows.

A module here named after a scenario defines analyze(run_dir, params),
returning (metric, value, unit[, algo[, scenario]]) tuples for one run;
params are the knobs in force (params.txt).  A module may also define
plot(run_dir, params), drawing the run's figures on the host
(plots.py).  An experiment of the Python layer (dcbnet.experiments)
brings its own analyze() and plot(); a scenario with neither reports no
metrics.
"""

import importlib


class _Experiment:
    """analyze() and plot() of a dcbnet experiment, in this interface."""

    def __init__(self, cls):
        self.cls = cls

    def analyze(self, run_dir, params):
        return self.cls(params).analyze(run_dir)

    def plot(self, run_dir, params):
        return self.cls(params).plot(run_dir) or []


def _module(scenario):
    try:
        return importlib.import_module("." + scenario, __name__)
    except ModuleNotFoundError as e:
        if not (e.name and e.name.endswith("." + scenario)):
            raise
    from dcbnet import experiment
    if scenario in experiment.names():
        return _Experiment(experiment.get(scenario))
    return None


def analyzer(scenario):
    """The analyze() of @scenario, or None."""
    mod = _module(scenario)
    return getattr(mod, "analyze", None)


def plotter(scenario):
    """The plot(run_dir, params) of @scenario (returning the files it
    wrote), or None."""
    mod = _module(scenario)
    return getattr(mod, "plot", None)

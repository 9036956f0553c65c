# SPDX-License-Identifier: GPL-2.0
"""Per-scenario analysers: the files a run left -> tidy rows.

A module here named after a scenario defines analyze(run_dir, params),
returning (metric, value, unit[, algo[, scenario]]) tuples for one run;
params are the knobs in force (params.txt).  Scenarios without a module report no
metrics (yet).
"""

import importlib


def analyzer(scenario):
    """The analyze() of @scenario, or None."""
    try:
        mod = importlib.import_module("." + scenario, __name__)
    except ModuleNotFoundError as e:
        if e.name and e.name.endswith("." + scenario):
            return None
        raise
    return mod.analyze

# SPDX-License-Identifier: GPL-2.0
"""compare: the side-by-side comparison of the congestion-control
algorithms (`make demo`): the experiments cmp_incast, cmp_burst and
cmp_converge one after the other, each with every algorithm of `algos`,
each into its own folder (OUT/NAME) and on its own network.  A failing
experiment is reported and the others go on.

Its rows are every experiment's, named by the experiment in the
scenario column; its plots are theirs, as OUT/NAME-FILE.png.
"""

import os
import shutil
import traceback

from ..experiment import Experiment, Param, get, log


class Compare(Experiment):
    NAME = "compare"
    DESCRIPTION = ("issue 6 comparison: cmp_incast, cmp_burst, cmp_converge "
                   "x none/dcqcn/pcn/ldcp, one table + plots")
    PARAMS = (
        Param("scenarios", "cmp_incast,cmp_burst,cmp_converge",
              "experiments to run, in this order"),
        Param("algos", "none,dcqcn,pcn,ldcp", "settings (passed to the "
              "experiments that have an algos knob)"),
        Param("incast_args", "", "extra key=value for cmp_incast "
              "(comma-separated)"),
        Param("burst_args", "", "extra key=value for cmp_burst "
              "(comma-separated)"),
        Param("converge_args", "", "extra key=value for cmp_converge "
              "(comma-separated)"),
        Param("duration", 900, "time budget (s) of the whole comparison: "
              "only sizes dcblab's guest timeout (10 x duration + 240 per "
              "run)"),
    )
    ARGS = {"cmp_incast": "incast_args", "cmp_burst": "burst_args",
            "cmp_converge": "converge_args"}

    def experiments(self):
        """[(name, its Experiment with the knobs this comparison gives
        it)]."""
        out = []
        for name in self.p["scenarios"].split(","):
            if not name:
                continue
            cls = get(name)
            knobs = {}
            if "algos" in {q.name for q in cls.PARAMS}:
                knobs["algos"] = self.p["algos"]
            extra = self.p.get(self.ARGS.get(name, ""), "")
            for kv in extra.split(","):
                if kv:
                    k, eq, v = kv.partition("=")
                    if not eq:
                        raise ValueError("%s: want key=value, not '%s'"
                                         % (self.ARGS[name], kv))
                    knobs[k] = v
            out.append((name, cls(knobs)))
        return out

    def run(self, out):
        """Each experiment in turn; status.tsv says how each ended."""
        with open(os.path.join(out, "status.tsv"), "w") as st:
            for name, exp in self.experiments():
                log("compare: %s" % name)
                try:
                    exp.run(os.path.join(out, name))
                    st.write("%s\tok\n" % name)
                except Exception:
                    traceback.print_exc()
                    log("compare: %s failed: the others go on" % name)
                    st.write("%s\tfailed\n" % name)
                st.flush()

    def analyze(self, out):
        rows = []
        for name, exp in self.experiments():
            try:
                rows += [r + (name,) for r in
                         exp.analyze(os.path.join(out, name))]
            except FileNotFoundError as e:
                log("compare: %s left out: %s" % (name, e))
        return rows

    def plot(self, out):
        files = []
        for name, exp in self.experiments():
            d = os.path.join(out, name)
            if not os.path.isdir(d):
                continue
            for f in exp.plot(d):
                dst = os.path.join(out, "%s-%s" % (name, os.path.basename(f)))
                shutil.copyfile(f, dst)
                files.append(dst)
        return files

# SPDX-License-Identifier: GPL-2.0
"""dcqcn_params: the DCQCN paper's parameter study (section 5: Fig. 11,
the strawman parameters against its own, and Fig. 12, g and R_AI under
2:1 and 16:1 incasts) on soft-RoCE at the lab's defaults.  The paper made
these figures with its fluid model; selftests/unit/dcqcn/model -f makes
them at 40 Gb/s (dcqcn.rst, "The paper's parameter analyses").  Here the
real rdma_rxe, DCQCN module and sch_dcb switch run them.

cmp_incast's topology (as many senders as the largest incast), traffic
and analysis (cmp_incast.Incast): PFC on RoCE's band 3, RED on the
bottleneck toward r.  One run per (incast, setting), named N-SETTING:

  paper     DCQCN's defaults, derived from the line rate and the base
            RTT (rxe_cc.rst, "The rule"; g = 1/256)
  g16       the same with g = 1/16 (dce_tcp_g 960)
  ai4       the same with R_AI and R_HAI four times larger
  strawman  QCN's and DCTCP's recommendations the paper starts from,
            scaled by the rule as DCQCN's own timer is (T = 1.5 ms x the
            derived T / 55 us; the byte counter firing 50 times per T at
            line rate, as 150 KB does at 40 Gb/s; g = 1/16; cut-off
            marking at 40 KB x the lab's Kmax / the paper's 200 KB: step
            k 4 KB)
  pfc-only  no ECN marking and rxe's algorithm none: the baseline, the
            queue PFC alone holds

Every knob a setting may change is written, "auto" where the setting
keeps the derived default: a written knob stays set across re-selection
of the algorithm (rxe_cc.rst), so one setting's values would otherwise
leak into the next run.
"""

import os

from ..experiment import Param
from ._knobs import pool
from .cmp_incast import Incast, queue_kb, red_opts

SETTINGS = ("paper", "g16", "ai4", "strawman", "pfc-only")
KNOBS = ("rpg_time_reset", "rpg_byte_reset", "dce_tcp_g", "rpg_ai_rate",
         "rpg_hai_rate")


def _times(k, factor, div=1):
    """A knob value: the host's current (derived) dcqcn/@k x factor / div."""
    return lambda h: int(h.getCc("dcqcn/" + k)) * factor // div


class DcqcnParams(Incast):
    NAME = "dcqcn_params"
    DESCRIPTION = ("DCQCN section 5 (Fig. 11, 12): strawman, g and R_AI "
                   "under 2:1 and 16:1 RDMA incasts: queue, Jain, PAUSE")
    PARAMS = (
        Param("settings", ",".join(SETTINGS), "settings to run per incast, "
              "in this order"),
        Param("incasts", "2,16", "incasts to run (N senders to one "
              "receiver), in this order"),
    ) + tuple({"iters": Param("iters", 100, "ib_write_bw -n: writes per "
                              "sender"),
               "buffer": pool("4mb", "above the headroom its 17 ports "
                              "reserve"),
               }.get(q.name, q) for q in Incast.PARAMS
              if q.name != "senders") + (
        Param("strawman_k", "4kb", "strawman: DCTCP cut-off marking "
              "threshold (40 KB x 20 KB / 200 KB)"),
    )
    TITLE_KEYS = ("rate", "iters", "size", "red")

    def incasts(self):
        out = []
        for n in self.p["incasts"].split(","):
            if not n.isdigit() or int(n) < 1:
                raise ValueError("incasts: '%s' is not a number of senders"
                                 % n)
            out.append(int(n))
        return out

    def settings(self):
        return ["%d-%s" % (n, s) for n in self.incasts()
                for s in self.p["settings"].split(",") if s]

    def hosts_needed(self):
        return max(self.incasts())

    def flows(self, name):
        return self.senders[:int(name.split("-", 1)[0])]

    def modules(self):
        return ["dcqcn"]

    def setting(self, name):
        s = name.split("-", 1)[1]
        if s not in SETTINGS:
            raise ValueError("unknown setting '%s' (%s)"
                             % (s, ", ".join(SETTINGS)))
        sw = "%s %s" % (self.base_opts(), self.pfc_opts())
        ecn = red_opts(self.p["red"])
        cc = [("dcqcn/" + k, "auto") for k in KNOBS]
        if s == "g16":
            cc.append(("dcqcn/dce_tcp_g", 960))
        elif s == "ai4":
            cc += [("dcqcn/" + k, _times(k, 4))
                   for k in ("rpg_ai_rate", "rpg_hai_rate")]
        elif s == "strawman":
            mbps = self.mbps()
            # T: 1.5 ms x T / 55 us; B: line rate x T / 50 (bytes)
            cc += [("dcqcn/rpg_time_reset", _times("rpg_time_reset", 1500,
                                                   55)),
                   ("dcqcn/rpg_byte_reset", _times("rpg_time_reset", mbps,
                                                   8 * 50)),
                   ("dcqcn/dce_tcp_g", 960)]
            ecn = "ecn step k %s" % self.p["strawman_k"]
        algo = "dcqcn"
        if s == "pfc-only":
            algo, cc, ecn = "none", [], "ecn off"
        return {"algo": algo, "cc": cc, "switch": sw,
                "bottleneck": "%s %s" % (sw, ecn), "info": {}}

    def plot(self, out):
        """queue-N.png per incast (the bottleneck's backlog of every
        setting) and jain.png (Jain's index per setting and incast)."""
        from dcbanalysis import plots

        files = []
        settings = [s for s in self.p["settings"].split(",") if s]
        for n in self.incasts():
            lines = []
            for s in settings:
                path = os.path.join(out, "%d-%s" % (n, s), "queue.csv")
                if os.path.exists(path):
                    lines.append((s,) + queue_kb(path))
            if lines:
                f = os.path.join(out, "queue-%d.png" % n)
                plots.series(f, lines, self.title(
                    "%d:1 incast, bottleneck backlog per setting" % n),
                    "backlog (KB)",
                    xlabel="time since the first packet (s)")
                files.append(f)
        jain = {r[3]: r[1] for r in self.analyze(out) if r[0] == "jain"}
        if jain:
            series = [("%d:1" % n, [jain.get("%d-%s" % (n, s))
                                    for s in settings])
                      for n in self.incasts()]
            f = os.path.join(out, "jain.png")
            plots.bars(f, settings, series, self.title(
                "Jain's index of the senders' rates"), "Jain's index")
            files.append(f)
        return files

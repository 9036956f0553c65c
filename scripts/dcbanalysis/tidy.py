# SPDX-License-Identifier: GPL-2.0
"""The one schema of every result: a tidy CSV, one measured value per row.

    scenario,algo,run,metric,value,unit
    pfc_unfair,line-rate,1,goodput.h1,4.71,Mbit/s

scenario
    the dcblab scenario (or test) that measured it.
algo
    how the senders' rate was controlled: an rxe_cc algorithm (none,
    dcqcn, pcn, ldcp), a TCP congestion control (cubic, dctcp), or
    ``line-rate`` for senders offering a fixed rate (UDP, pktgen).  A
    scenario that compares switch settings names the setting here
    instead (dcqcn_buffer: paper, static, ecn-late with dcqcn, pfc-only
    with none).
run
    1..N with ``dcblab run --repeat N``.
metric
    a name from METRICS, optionally followed by ``.`` and what it is
    about (a flow, host or port): ``goodput.h1``, ``drops.sw1-r``; a
    sweep adds ``@KNOB=VALUE``, the step it was measured at:
    ``goodput.F0@f1=8``.
value
    a finite number in ``unit``.  A metric that does not apply to a run
    is left out; it is never written as NaN, ``-`` or 0.
unit
    the metric's unit, as in METRICS.
"""

import csv
import math
import os

COLUMNS = ("scenario", "algo", "run", "metric", "value", "unit")

# name: (unit, meaning).  One meaning per name: a new quantity gets a new
# name, never a second meaning for an old one.
METRICS = {
    # throughput
    "goodput": ("Mbit/s", "payload rate received, over the whole run"),
    "flow_rate": ("Mbit/s", "a flow's payload rate from its first to its "
                  "last packet"),
    "rate_late": ("Mbit/s", "a flow's payload rate over the second half "
                  "of the run"),
    "rate_pre": ("Mbit/s", "a long flow's payload rate before the burst"),
    "rate_burst": ("Mbit/s", "a long flow's payload rate during the burst"),
    "rate_post": ("Mbit/s", "a long flow's payload rate after the burst"),
    "burst_rate": ("Mbit/s", "the burst's payload rate while it lasted"),
    "total_rate": ("Mbit/s", "all flows' payload over the time any sent"),
    "share": ("1", "a sender's goodput over the sum of all senders'"),
    "victim_keep": ("1", "the victim flow's rate during the burst over "
                    "its rate before"),
    "victim_share": ("1", "the victim flow's rate beside the incast over "
                     "its rate alone"),
    "long_rate_incast": ("Mbit/s", "the long flow's IPv4 bytes per "
                         "second while the incast ran (from a capture)"),
    "rate_alone": ("Mbit/s", "a flow's payload rate when it runs alone"),
    "victim_rate": ("Mbit/s", "the victim flow's bytes on the wire "
                    "(headers included) per second over a window: .alone "
                    "or .incast"),
    "h1_ratio": ("1", "h1's rate over the mean of h2..h4 (DCQCN Fig. 3: "
                 "about 3 under PFC alone)"),
    "flow_rate_p10": ("Mbit/s", "10th percentile of the run's flow_rate "
                      "values (linear interpolation)"),
    "line_share": ("1", "a flow's rate over the line rate"),
    "utilisation": ("1", "a link's payload rate over its line rate"),
    "wire_rate": ("Mbit/s", "a port's bytes on the wire (with the shaper's "
                  "overhead) per second while it had a backlog"),
    "jain": ("1", "Jain's index of the per-flow rates of the run"),
    "jain_late": ("1", "Jain's index of the flows still sending in the "
                  "second half, each at its rate there"),
    "jain_post": ("1", "Jain's index of the long flows after the burst"),
    "jain_window_min": ("1", "lowest Jain's index of the per-flow rates "
                        "over the windows of the run's second half"),
    "jain_window_median": ("1", "median Jain's index of the per-flow "
                           "rates over the windows of the second half"),
    "low_share": ("1", "the slowest flow's rate over the fair share (all "
                  "flows' total / N) in the second half, from a capture"),
    "ip_rate_late": ("Mbit/s", "all flows' IPv4 bytes per second over the "
                     "second half of the run, from a capture"),
    # time
    "fct": ("s", "flow completion time: first to last packet of a flow"),
    "fct_max": ("s", "the longest flow completion time of the run"),
    "incast_time": ("s", "from the first packet of an incast's small "
                    "flows to the last (all of them complete)"),
    "fct_median": ("s", "median flow completion time of the run's small "
                   "flows"),
    "fct_p90": ("s", "90th percentile of the small flows' completion "
                "times"),
    "active": ("s", "from the first to the last packet of any flow"),
    "burst_time": ("s", "from the burst's first to its last packet"),
    "recovery": ("s", "burst end until both long flows are within 20 % "
                 "of half the pre-burst aggregate for 1 s"),
    "recovery_share": ("s", "burst end until both long flows are within "
                       "20 % of half their current sum for 1 s"),
    "converge": ("s", "until the sum of the senders' rates is at most "
                 "1.1 x the line rate (from the rate tracepoints)"),
    "converge_periods": ("periods", "converge in the algorithm's periods"),
    "drain": ("s", "from the queue passing the drain level to falling "
              "back to it after its first peak"),
    "settle": ("s", "until the queue's 1 s mean stays below the drain "
               "level"),
    "duration": ("s", "seconds of traffic the run was asked for"),
    "window": ("s", "length of the measurement window a run's rates and "
               "counts are over"),
    "busy": ("s", "time a port had a backlog at both ends of a sample "
             "interval (what wire_rate is measured over)"),
    # queues
    "queue_mean": ("KB", "mean backlog of a port, sampled by dcbmon"),
    "queue_p99": ("KB", "99th percentile of a port's sampled backlog"),
    "queue_mean_late": ("KB", "mean backlog over the second half"),
    "queue_p99_late": ("KB", "99th percentile over the second half"),
    "queue_p50_late": ("KB", "median backlog over the second half"),
    "queue_max_late": ("KB", "largest sampled backlog over the second "
                       "half"),
    "queue_samples_late": ("samples", "dcbmon samples of the second half "
                           "the queue_*_late values are over"),
    "queue_peak0": ("KB", "the first peak of the bottleneck's backlog"),
    "queue_max": ("KB", "largest backlog of a port, sampled by dcbmon"),
    "above_kmax": ("1", "fraction of samples with the backlog above Kmax"),
    "pool_peak": ("KB", "highest occupancy of a switch's shared buffer "
                  "pool"),
    "ingress_peak": ("KB", "most bytes charged to one (ingress port, "
                     "band) of a switch"),
    "xoff_low": ("KB", "the lowest XOFF in force: the static one, or "
                 "beta (B - R - s) / 8 at the pool's peak s"),
    "kmin": ("KB", "RED's Kmin at the bottleneck"),
    "kmin_bound": ("KB", "DCQCN section 4's largest Kmin that marks "
                   "before PFC pauses, for the pool in force"),
    # counters
    "ecn_marked": ("packets", "packets CE-marked by the switches"),
    "marked_share": ("1", "packets CE-marked over packets enqueued at a "
                     "port"),
    "drops": ("packets", "packets the switches dropped (tail, WRED and "
              "headroom)"),
    "drops_all": ("packets", "packets lost anywhere: every sch_dcb drop "
                  "counter, pool drops, the devices' rx/tx_dropped, "
                  "the kernel's receive backlog (softnet) and the ARP "
                  "queue (neigh)"),
    "drops_tail": ("packets", "tail drops of the switches"),
    "drops_wred": ("packets", "WRED drops of the switches"),
    "headroom_drops": ("packets", "packets dropped at full headroom"),
    "pause_tx": ("frames", "PFC PAUSE frames the switches sent"),
    "pause_rx": ("frames", "PFC PAUSE frames the hosts' NICs (or a "
                 "switch's port) received"),
    "resume_tx": ("frames", "PFC RESUME frames (pause time 0) the "
                  "switches sent"),
    "paused_us": ("us", "time the hosts' NICs (or a switch's port) were "
                  "held by PAUSE frames"),
    "wire_pause": ("frames", "802.1Qbb PAUSE frames of the expected band "
                   "and pause time in a capture (decoded by tshark)"),
    "wire_resume": ("frames", "802.1Qbb frames of the expected band with "
                    "pause time 0 in a capture"),
    "wire_other": ("frames", "MAC control frames in a capture that are "
                   "neither"),
    "pause_late": ("frames", "PFC PAUSE frames the switches sent in the "
                   "second half of the traffic"),
    "pause_rate": ("1/s", "PFC PAUSE frames sent per second of traffic"),
    "paused_share": ("1", "share of the time a port was held by PAUSE "
                     "frames it received"),
    "pause_vs_pfc_only": ("1", "PAUSE frames over those of the same "
                          "run's PFC-only configuration"),
    "gbn_retries": ("retries", "go-back-N retries of the senders "
                    "(completer_retry_err)"),
    "oos_requests": ("packets", "out-of-sequence requests at the "
                     "receiver (out_of_seq_request)"),
    "cnp_rx": ("packets", "CNPs a sender's rxe received"),
    "flows_failed": ("flows", "flows that ended with an error"),
    "flows_seen": ("flows", "flows (RC connections) with packets in a "
                   "capture at the receiver"),
    "capture_dropped": ("packets", "packets a capture lost (the "
                        "kernel's count, tcpdump's report)"),
    "procs_failed": ("processes", "traffic processes (each carrying one "
                     "or more flows) that ended with an error"),
    "datagrams_sent": ("datagrams", "UDP datagrams the senders sent"),
    "datagrams_received": ("datagrams", "UDP datagrams the receiver "
                           "counted"),
    "datagrams_lost": ("datagrams", "datagrams sent and not received"),
    "cpu_busy": ("%", "the guest kernel's busy share during the traffic "
                 "(the CPU guard)"),
    "completed": ("1", "the fraction of the requested transfers that "
                  "completed"),
    # workloads (rdmaflow, dcbanalysis.fct): .bK a size bin, .all all
    "slowdown_p50": ("1", "median FCT slowdown (FCT over the ideal FCT "
                     "on an idle fabric, at least 1) of the messages of a "
                     "size bin (.bK) or of all (.all)"),
    "slowdown_p95": ("1", "95th percentile of the FCT slowdown of a size "
                     "bin's messages (.bK) or of all (.all)"),
    "slowdown_p99": ("1", "99th percentile of the FCT slowdown of a size "
                     "bin's messages (.bK) or of all (.all)"),
    "messages": ("messages", "messages that completed, of a size bin "
                 "(.bK) or all (.all)"),
    "messages_incomplete": ("messages", "messages issued that did not "
                            "complete"),
    "bin_max": ("bytes", "the largest message size of a size bin (.bK); "
                "the bin holds the sizes above the previous bin's"),
    "base_rtt": ("us", "median completion time of a 1-byte message on "
                 "the idle fabric (rdmaflow --ping): the ideal FCT's "
                 "constant part"),
    "size_scale": ("1", "the factor the CDF's flow sizes were scaled "
                   "by (rdmaflow --scale)"),
    "offered_load": ("1", "the messages' bytes arrived per second over "
                     "the senders' line rates"),
    # fabrics (dcbnet.fabric)
    "build_time": ("s", "building and starting the network (Mininet)"),
    "stop_time": ("s", "stopping the network (Mininet)"),
    "traffic_time": ("s", "from the clients' start to their end"),
    "spine_bytes": ("bytes", "bytes sch_dcb dequeued on all ports of a "
                    "spine"),
    "spine_share": ("1", "a spine's bytes over all spines' bytes"),
    "ecmp_min_share": ("1", "the lowest spine_share of the run"),
    "uplink_share": ("1", "bytes a leaf dequeued toward one spine over "
                     "all its uplinks' bytes"),
    "link_util": ("1", "bytes a link carried one way (headers included) "
                  "over its rate times the traffic's time"),
    "multipath_routes": ("routes", "the fewest multipath routes of a "
                         "leaf"),
    "payload_bytes": ("bytes", "payload a pair's QPs were asked to write"),
    "delivered_bytes": ("bytes", "bytes the receiver's switch port "
                        "dequeued toward it (headers included)"),
    "delivered_min": ("1", "the lowest delivered_bytes over "
                      "payload_bytes"),
    "iterations_min": ("iterations", "the fewest iterations a perftest "
                       "client reported"),
    "qps": ("QPs", "QPs whose numbers perftest printed"),
    "udp_sports": ("ports", "distinct UDP source ports rxe derives from "
                   "the numbers of one pair's QPs (the fewest of any "
                   "pair)"),
    "capture_qps": ("QPs", "QPs of the first pair seen in the capture"),
    "capture_sports": ("ports", "distinct UDP source ports of those QPs' "
                       "packets in the capture"),
    "capture_sports_per_qp": ("ports", "the most UDP source ports one QP "
                              "used"),
    "sports_predicted": ("ports", "captured source ports equal to the "
                         "ones derived from the QP numbers"),
}


class SchemaError(ValueError):
    """A row that does not fit the schema."""


def base_metric(name):
    """The METRICS key of @name ("goodput.h1" -> "goodput")."""
    return name.split(".", 1)[0]


def check_row(row):
    """Raise SchemaError unless @row (a dict of COLUMNS) fits the schema."""
    missing = [c for c in COLUMNS if c not in row]
    if missing:
        raise SchemaError("missing column(s) %s" % ", ".join(missing))
    for c in ("scenario", "algo", "metric", "unit"):
        if not str(row[c]):
            raise SchemaError("empty %s" % c)
    base = base_metric(row["metric"])
    if base not in METRICS:
        raise SchemaError("unknown metric '%s' (add it to METRICS with "
                          "its unit and meaning)" % row["metric"])
    unit = METRICS[base][0]
    if str(row["unit"]) != unit:
        raise SchemaError("metric '%s' is in %s, not '%s'" %
                          (row["metric"], unit, row["unit"]))
    try:
        run = int(row["run"])
    except (TypeError, ValueError):
        raise SchemaError("run '%s' is not an integer" % row["run"])
    if run < 1:
        raise SchemaError("run %d < 1" % run)
    try:
        value = float(row["value"])
    except (TypeError, ValueError):
        raise SchemaError("%s: value '%s' is not a number" %
                          (row["metric"], row["value"]))
    if not math.isfinite(value):
        raise SchemaError("%s: value %s is not finite (leave the row out "
                          "instead)" % (row["metric"], row["value"]))


def append(path, rows):
    """Append @rows (dicts of COLUMNS) to the CSV @path, with a header
    when the file is new.  Every row is checked first; nothing is written
    when one fails."""
    rows = list(rows)
    for r in rows:
        check_row(r)
    new = not os.path.exists(path) or os.path.getsize(path) == 0
    with open(path, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
        if new:
            w.writeheader()
        for r in rows:
            w.writerow({c: r[c] for c in COLUMNS})


def check_file(path):
    """Check every row of the CSV @path; return the number of rows."""
    with open(path, newline="") as f:
        rd = csv.DictReader(f)
        if tuple(rd.fieldnames or ()) != COLUMNS:
            raise SchemaError("%s: header %s, expected %s" %
                              (path, ",".join(rd.fieldnames or ()),
                               ",".join(COLUMNS)))
        n = 0
        for n, row in enumerate(rd, 1):
            try:
                check_row(row)
            except SchemaError as e:
                raise SchemaError("%s:%d: %s" % (path, n + 1, e))
    return n


def find(paths):
    """The results.csv of each of @paths (a file, or a results folder:
    one results.csv holds every run of a folder)."""
    out = []
    for p in paths:
        f = p if os.path.isfile(p) else os.path.join(p, "results.csv")
        if not os.path.isfile(f):
            raise FileNotFoundError("no results.csv in %s" % p)
        out.append(f)
    return out


def load(paths):
    """The rows of every results.csv under @paths as one pandas DataFrame."""
    import pandas as pd

    files = find(paths)
    for f in files:
        check_file(f)
    frames = [pd.read_csv(f) for f in files]
    return pd.concat(frames, ignore_index=True)

# SPDX-License-Identifier: GPL-2.0
"""metadata.json: what a results folder was measured on and with.

An experiment keeps what only the running topology can tell (the rxe_cc
knobs and the qdiscs of every namespace, read before the namespaces go
away) in RAW files (dcbnet.experiment.Experiment.keep_raw), where dcblab
adds dcblab.json (dcbnet/cli.py, write_metadata); build() adds what
this process can see itself and writes one JSON document:

    dcblab     scenario, knobs, repeat count, command, start/end times
    git        revision (git describe --dirty) and commit
    kernel     release and version string
    machine    how it ran: in dcblab's qemu guest or not, the accelerator
               (tcg, kvm for any hypervisor, or none), the clock (see
               clock()), vCPUs, CPU model, memory, load average here and
               on the host that started the guest, and the guest's CPU
               busy share during each traffic phase (the CPU guard)
    modules    srcversion, version and GNU build ID of our modules that
               are loaded
    rxe_cc     every cc/ knob of every rxe device, per namespace
    qdiscs     `tc -j -s qdisc show` of every namespace at the end (a dcb
               root qdisc with "bands", its bands' counters)
    tools      versions of the tools and packages the runs used
"""

import json
import os
import platform
import struct
import subprocess
import time

OUR_MODULES = ("sch_dcb", "rdma_rxe", "rxe_cc_dcqcn", "rxe_cc_pcn",
               "rxe_cc_ldcp", "rxe_cc_fixed")
PACKAGES = ("iproute2", "iperf3", "perftest", "rdma-core", "ibverbs-utils",
            "rdmacm-utils", "qemu-system-x86", "python3-pandas",
            "python3-matplotlib")


def _read(path, default=None):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


def _run(cmd, cwd=None):
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True,
                           timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return p.stdout.strip() if p.returncode == 0 else None


def _loadavg(text):
    if not text:
        return None
    try:
        return [float(x) for x in text.split()[:3]]
    except ValueError:
        return None


def clock(env=None):
    """The clock the numbers were measured on, from scripts/vm-run's
    DCBLAB_CLOCK: {"kind": "virtual", "icount_shift": 0, "vcpus": 1} for
    a guest in virtual time (qemu icount: its time counts instructions),
    {"kind": "real", "accel": "tcg"|"kvm", "vcpus": N} for a real-time
    guest, {"kind": "real", "accel": "native"} outside dcblab's guest."""
    env = os.environ if env is None else env
    words = env.get("DCBLAB_CLOCK", "").split()
    if not words:
        return {"kind": "real", "accel": "native", "vcpus": os.cpu_count()}
    out = {"kind": words[0]}
    for w in words[1:]:
        k, sep, v = w.partition("=")
        if not sep:
            out["accel"] = k
        elif k == "shift":
            out["icount_shift"] = int(v)
        elif k == "vcpus":
            out["vcpus"] = int(v)
    return out


def cpu_guard(path):
    """The CPU guard's lines (label, busy %) in PATH, or []."""
    rows = []
    for ln in (_read(path, "") or "").splitlines():
        label, _, busy = ln.rpartition("\t")
        if label and busy.isdigit():
            rows.append({"phase": label, "busy_pct": int(busy)})
    return rows


def machine():
    cpuinfo = _read("/proc/cpuinfo", "")
    model = next((ln.split(":", 1)[1].strip() for ln in cpuinfo.splitlines()
                  if ln.startswith("model name")), None)
    flags = next((ln.split(":", 1)[1].split() for ln in cpuinfo.splitlines()
                  if ln.startswith("flags")), [])
    if model and "QEMU TCG" in model:
        accel = "tcg"
    elif "hypervisor" in flags:
        accel = "kvm"
    else:
        accel = "none"
    mem = next((int(ln.split()[1]) for ln in _read("/proc/meminfo", "")
                .splitlines() if ln.startswith("MemTotal:")), None)
    return {
        "dcblab_guest": os.environ.get("DCBLAB_VM") == "1",
        "accelerator": accel,
        "clock": clock(),
        "vcpus": os.cpu_count(),
        "cpu_model": model,
        "mem_kb": mem,
        "loadavg": _loadavg(_read("/proc/loadavg")),
        "host_loadavg": _loadavg(os.environ.get("DCBLAB_HOST_LOADAVG")),
    }


def build_id(note_path):
    """The GNU build ID (hex) in an ELF note file, or None."""
    try:
        with open(note_path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    off = 0
    while off + 12 <= len(data):
        namesz, descsz, ntype = struct.unpack_from("<III", data, off)
        name_end = off + 12 + ((namesz + 3) & ~3)
        desc = data[name_end:name_end + descsz]
        if len(desc) < descsz or not descsz:
            return None		# truncated
        if ntype == 3 and data[off + 12:off + 12 + namesz].rstrip(b"\0") == b"GNU":
            return desc.hex()
        off = name_end + ((descsz + 3) & ~3)
    return None


def modules():
    out = {}
    for m in OUR_MODULES:
        d = "/sys/module/" + m
        if os.path.isdir(d):
            out[m] = {"srcversion": _read(d + "/srcversion"),
                      "version": _read(d + "/version"),
                      "build_id": build_id(d + "/notes/.note.gnu.build-id")}
    return out


def tools():
    out = {"python3": platform.python_version()}
    q = _run(["dpkg-query", "-W", "-f=${Package} ${Version}\\n"] +
             list(PACKAGES))
    for ln in (q or "").splitlines():
        name, _, ver = ln.partition(" ")
        if ver:
            out[name] = ver
    tc = _run(["tc", "-V"])
    if tc:
        out["tc"] = tc
    return out


def raw_knobs(path):
    """{device: {knob: value}} from `grep -r . /sys/class/infiniband/*/cc`
    output ("/sys/class/infiniband/DEV/cc/[ALGO/]KNOB:VALUE")."""
    out = {}
    for ln in (_read(path, "") or "").splitlines():
        p, sep, val = ln.partition(":")
        parts = p.split("/")
        if not sep or len(parts) < 7 or parts[5] != "cc":
            continue
        dev, knob = parts[4], "/".join(parts[6:])
        out.setdefault(dev, {})[knob] = val
    return out


def build(out_dir, raw_dir, repo):
    """The metadata document of @out_dir from @raw_dir's files."""
    doc = {}
    info = _read(os.path.join(raw_dir, "dcblab.json"))
    doc["dcblab"] = json.loads(info) if info else {}
    doc["git"] = {
        "revision": _run(["git", "describe", "--always", "--dirty"], repo),
        "commit": _run(["git", "rev-parse", "HEAD"], repo),
    }
    doc["kernel"] = {"release": platform.release(),
                     "version": platform.version()}
    doc["machine"] = machine()
    doc["machine"]["cpu_guard"] = cpu_guard(os.path.join(out_dir, "cpu-guard.tsv"))
    doc["modules"] = modules()
    doc["rxe_cc"] = {}
    doc["qdiscs"] = {}
    for f in sorted(os.listdir(raw_dir)):
        path = os.path.join(raw_dir, f)
        if f.startswith("knobs-") and f.endswith(".txt"):
            knobs = raw_knobs(path)
            if knobs:
                doc["rxe_cc"][f[6:-4]] = knobs
        elif f.startswith("qdisc-") and f.endswith(".json"):
            try:
                doc["qdiscs"][f[6:-5]] = json.loads(_read(path) or "[]")
            except ValueError:
                doc["qdiscs"][f[6:-5]] = {"unparsable": _read(path)}
    doc["tools"] = tools()
    doc["written"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return doc


def _dump(doc, path):
    with open(path + ".tmp", "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(path + ".tmp", path)
    return path


def write(out_dir, raw_dir, repo):
    return _dump(build(out_dir, raw_dir, repo),
                 os.path.join(out_dir, "metadata.json"))


def merge(out_dir, repeat, guests):
    """OUT_DIR/metadata.json, written by the first of GUESTS guests that
    shared REPEAT runs (dcblab's run_guests), made the whole run's: the
    total repeat count, the number of guests and the CPU guard of every
    part (OUT_DIR/cpu-guard.tsv, which dcblab has added up)."""
    path = os.path.join(out_dir, "metadata.json")
    with open(path) as f:
        doc = json.load(f)
    doc.setdefault("dcblab", {})["repeat"] = repeat
    doc["dcblab"]["guests"] = guests
    doc.setdefault("machine", {})["cpu_guard"] = cpu_guard(
        os.path.join(out_dir, "cpu-guard.tsv"))
    return _dump(doc, path)

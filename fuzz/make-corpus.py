#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the seed corpora fuzz/corpus/TARGET/ from real inputs.

    make-corpus.py [CAPTURE_DIR [JSON_DIR]]

Sources: the recorded /proc and /sys files of tests/fixtures; the unit
examples of the documentation; CAPTURE_DIR/*.c2s and *.s2c, control
connections recorded with capture-iperf3.py (iperf3 3.12 and engpass
clients against `engpass net server`, engpass against `iperf3 -s`); and
JSON_DIR/*.json, documents written by `engpass ... --json`. Targets whose
first byte picks a parser get that byte in front of each file. Existing
corpus files are kept; run from anywhere.
"""
import glob
import hashlib
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "..", "tests", "fixtures")


def put(target, data, name=None):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    name = name or hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def text(s):
    return s.encode() if isinstance(s, str) else s


def units():
    ex = [
        (0, ["4K", "60KiB", "1M", "2G", "1.5M", "500kB", "4096", "18446744073709551615",
             "0.999999999999999999T", "16777215T"]),
        (1, ["200K/s", "500KB/s", "1.5MiB/s", "1Gbit/s", "100Mbps", "1000", "1bit/s"]),
        (2, ["500ms", "5s", "2m", "1h", "250us", "10ns", "1.5s", "10"]),
        (3, ["0", "0,2", "1-3", "0-1,3", "0-1023"]),
        (4, ["0-3", "3"]),
        (5, ["-12", "0", "42", "-9223372036854775808"]),
        (6, ["1", "18446744073709551615"]),
    ]
    for sel, items in ex:
        for s in items:
            put("units", bytes([sel]) + text(s))


def proc():
    sel = {"stat": 0, "diskstats": 1, "net_dev": 2, "meminfo": 3, "vmstat": 4,
           "pressure": 5, "pid_stat": 6, "pid_status": 7, "mountinfo": 11, "mounts": 11}
    for path in glob.glob(os.path.join(FIX, "proc", "*", "*")):
        base = os.path.basename(path).split(".")[0]
        base = "pressure" if base.startswith("pressure") else base
        if base in sel and os.path.isfile(path):
            put("proc", bytes([sel[base]]) + open(path, "rb").read())
    for s in ["0-3,8,10-11", "0", "", "0-1023"]:
        put("proc", bytes([8]) + text(s))
    for path in glob.glob(os.path.join(FIX, "sysinfo", "*", "sys", "block", "*", "queue", "scheduler")):
        put("proc", bytes([9]) + open(path, "rb").read())
    put("proc", bytes([9]) + b"mq-deadline kyber [bfq] none\n")
    # mountinfo NUL cgroup: a cgroup v1/v2 hybrid and pure v2 (Debian 12 with systemd).
    put("proc", bytes([10]) + text(
        "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
        "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
        "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"
        "\0" "9:name=systemd:/\n4:memory:/docker/abc\n1:cpu:/\n0::/\n"))
    put("proc", bytes([10]) + text(
        "22 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n"
        "26 21 0:23 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate\n"
        "\0" "0::/user.slice/user-0.slice/session-1.scope\n"))
    # The cgroup parsers (selector 12, then the order of cgroup_text() in fuzz_proc.c).
    cg = {"cgroup": 0, "cpu.max": 1, "blkio.throttle.read_bps_device": 2, "io.max": 3, "cpu.stat": 4,
          "memory.events": 4, "memory.oom_control": 4, "blkio.throttle.io_service_bytes": 5,
          "blkio.throttle.io_serviced": 5, "io.stat": 6, "memory.max": 7, "memory.limit_in_bytes": 7}
    for path in glob.glob(os.path.join(FIX, "cgroup", "**", "*"), recursive=True):
        base = os.path.basename(path)
        if base in cg and os.path.isfile(path):
            put("proc", bytes([12, cg[base]]) + open(path, "rb").read())


def sysinfo():
    # The order of files[] in fuzz_sysinfo.c.
    files = ["proc/cpuinfo", "proc/meminfo", "proc/swaps", "proc/self/mounts", "proc/self/cgroup",
             "proc/stat", "proc/self/mountinfo", "sys/devices/system/cpu/online",
             "sys/fs/cgroup/cgroup.controllers", "sys/fs/cgroup/system.slice/engpass.service/memory.max",
             "sys/block/sda/queue/scheduler", "sys/block/sda/size", "sys/class/net/eth0/speed",
             "proc/sys/kernel/osrelease"]
    for i, f in enumerate(files):
        for box in ["x86", "mips", "v1limit", "v2root"]:
            p = os.path.join(FIX, "sysinfo", box, f)
            if os.path.isfile(p):
                put("sysinfo", bytes([i]) + open(p, "rb").read())
    # mountinfo: the fixtures have only mounts; these are lines of a Debian 12 box.
    put("sysinfo", bytes([6]) + text(
        "22 27 0:21 / /proc rw,relatime - proc proc rw\n"
        "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard\n"
        "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
        "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"
        "45 27 8:17 / /mnt/usb\\040stick rw,sync,relatime shared:5 - vfat /dev/sdb1 rw,fmask=0022\n"))


def args():
    ex = [
        (0, [["--size", "4K", "--time=5s", "-p", "0-1", "pos"], ["-s4K", "-fq", "--mode", "rand"],
             ["--num", "-5", "--rate", "1Gbit/s", "--name", "x", "--", "--size"], ["-b", "1M", "-n1000"]]),
        (1, [["audio,video,x,gaming", "none,video,burn+write"], ["custom"], ["audio", "compile,memload"]]),
        (2, [["fdatasync=8"], ["fsync=1"], ["none"], ["end"], ["osync"], ["odsync"]]),
        (3, [["0.25x,0.5x,1x"], ["32M,85M,128M"], ["1.5x,64M"]]),
    ]
    for sel, items in ex:
        for argv in items:
            put("args", bytes([sel]) + b"\0".join(text(a) for a in argv))


def frames(data):
    """The length-framed JSON messages inside a recorded byte stream."""
    out, i = [], 0
    while i + 4 < len(data):
        n = struct.unpack(">I", data[i:i + 4])[0]
        if 0 < n <= len(data) - i - 4 and data[i + 4:i + 5] == b"{" and data[i + 3 + n:i + 4 + n] == b"}":
            out.append(data[i + 4:i + 4 + n])
            i += 4 + n
        else:
            i += 1
    return out


def iperf3(capdir):
    for path in sorted(glob.glob(os.path.join(capdir, "*.c2s"))):
        data = open(path, "rb").read()
        put("iperf3_control", data)
        msgs = frames(data)
        if msgs:
            put("iperf3_params", msgs[0])
        for m in msgs[1:]:
            put("iperf3_results", m)
    for path in sorted(glob.glob(os.path.join(capdir, "*.s2c"))):
        for m in frames(open(path, "rb").read()):
            put("iperf3_results", m)


def load_json(jsondir):
    for path in sorted(glob.glob(os.path.join(jsondir, "*.json"))):
        data = open(path, "rb").read()
        if data:  # a command that failed wrote nothing
            put("load_json", data)


units()
proc()
sysinfo()
args()
if len(sys.argv) > 1:
    iperf3(sys.argv[1])
if len(sys.argv) > 2:
    load_json(sys.argv[2])

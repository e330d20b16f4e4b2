#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the seed corpora fuzz/corpus/TARGET/ from real inputs.

    make-corpus.py [CAPTURE_DIR [JSON_DIR]]
    make-corpus.py --qdisc-dump NAME TC_COMMAND...   (internal, see qdisc_kernel())

Sources: the recorded /proc and /sys files of tests/fixtures; the unit
examples of the documentation; CAPTURE_DIR/*.c2s and *.s2c, control
connections recorded with capture-iperf3.py (iperf3 3.12 and engpass
clients against `engpass net server`, engpass against `iperf3 -s`); and
JSON_DIR/*.json, documents written by `engpass ... --json`; rtnetlink
qdisc and class dumps built here message by message, and, as root with
unshare(1) and tc(8), dumped by the kernel from lo in a network namespace
of their own; sock_diag replies recorded by
tests/fixtures/sockdiag/capture.py. Targets whose
first byte picks a parser get that byte in front of each file. Existing
corpus files are kept; run from anywhere.
"""
import glob
import hashlib
import os
import shutil
import socket
import struct
import subprocess
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
    # The heat values of core/kernel/thermal.c (0xf2): temperatures, trip points, counters, states.
    for path in glob.glob(os.path.join(FIX, "thermal", "**", "*"), recursive=True):
        base = os.path.basename(path)
        if os.path.isfile(path) and (base in ("temp", "cur_state", "max_state") or base.endswith("_input")
                                     or base.endswith("_temp") or base.endswith("_count")
                                     or base.endswith("_max") or base.endswith("_crit")):
            put("proc", bytes([0xf2]) + open(path, "rb").read())
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


# rtnetlink as the kernel lays it out (linux/netlink.h, linux/rtnetlink.h,
# linux/pkt_sched.h, linux/gen_stats.h), native byte order.
NLMSG_ERROR, NLMSG_DONE = 2, 3
RTM_NEWQDISC, RTM_GETQDISC, RTM_NEWTCLASS, RTM_GETTCLASS = 36, 38, 40, 42
TCA_KIND, TCA_OPTIONS, TCA_STATS, TCA_STATS2 = 1, 2, 3, 7
TCA_STATS_BASIC, TCA_STATS_QUEUE = 1, 3
TC_H_ROOT = 0xFFFFFFFF


def nla(atype, payload):
    n = 4 + len(payload)
    return struct.pack("=HH", n, atype) + payload + b"\0" * (-n % 4)


def nlmsg(mtype, payload, flags=2, seq=1):
    n = 16 + len(payload)
    return struct.pack("=IHHII", n, mtype, flags, seq, 0) + payload + b"\0" * (-n % 4)


def tcmsg(mtype, ifindex, handle, parent, kind, *attrs):
    head = struct.pack("=BBHiIII", 0, 0, 0, ifindex, handle, parent, 0)
    return nlmsg(mtype, head + nla(TCA_KIND, kind.encode() + b"\0") + b"".join(attrs))


def ratespec(rate):
    return struct.pack("=BBHhHI", 0, 1, 0, -1, 0, rate)


def stats(nbytes, packets, qlen, backlog, drops, requeues, overlimits):
    basic = struct.pack("=QI4x", nbytes, packets)
    queue = struct.pack("=IIIII", qlen, backlog, drops, requeues, overlimits)
    old = struct.pack("=QIIIIIII4x", nbytes, packets, drops, overlimits, 0, 0, qlen, backlog)
    return nla(TCA_STATS2, nla(TCA_STATS_BASIC, basic) + nla(TCA_STATS_QUEUE, queue)) + nla(TCA_STATS, old)


def qdisc():
    done = nlmsg(NLMSG_DONE, struct.pack("=i", 0))
    tbf_opt = ratespec(12500000) + ratespec(0) + struct.pack("=III", 100000, 2000, 0)
    tbf = tcmsg(RTM_NEWQDISC, 1, 0x80090000, TC_H_ROOT, "tbf",
                nla(TCA_OPTIONS, nla(1, tbf_opt)), stats(1000, 10, 0, 0, 0, 0, 3))
    tbf64 = tcmsg(RTM_NEWQDISC, 1, 0x10000, TC_H_ROOT, "tbf",
                  nla(TCA_OPTIONS, nla(1, ratespec(0xFFFFFFFF) + ratespec(0) + struct.pack("=III", 1, 2, 0))
                      + nla(4, struct.pack("=Q", 5000000000))))  # TCA_TBF_RATE64
    htb_q = tcmsg(RTM_NEWQDISC, 1, 0x10000, TC_H_ROOT, "htb",
                  nla(TCA_OPTIONS, nla(2, struct.pack("=IIIII", 3, 10, 0x10, 0, 0))  # TCA_HTB_INIT
                      + nla(5, struct.pack("=I", 1000))))  # TCA_HTB_DIRECT_QLEN
    htb_opt = ratespec(1250000) + ratespec(6250000) + struct.pack("=IIIII", 1600, 1600, 1500, 0, 0)
    htb_c = tcmsg(RTM_NEWTCLASS, 1, 0x10010, 0x10000, "htb",
                  nla(TCA_OPTIONS, nla(1, htb_opt)), stats(5000, 5, 1, 1500, 2, 0, 7))
    htb_c64 = tcmsg(RTM_NEWTCLASS, 1, 0x10020, 0x10000, "htb",
                    nla(TCA_OPTIONS, nla(1, htb_opt) + nla(6, struct.pack("=Q", 6250000000))  # TCA_HTB_RATE64
                        + nla(7, struct.pack("=Q", 12500000000))))  # TCA_HTB_CEIL64
    cake = tcmsg(RTM_NEWQDISC, 1, 0x80010000, TC_H_ROOT, "cake",
                 nla(TCA_OPTIONS, nla(2, struct.pack("=Q", 2500000))  # TCA_CAKE_BASE_RATE64
                     + nla(3, struct.pack("=I", 1))))  # TCA_CAKE_DIFFSERV_MODE
    fq = tcmsg(RTM_NEWQDISC, 1, 0, TC_H_ROOT, "fq_codel",
               nla(TCA_OPTIONS, nla(1, struct.pack("=I", 4999)) + nla(2, struct.pack("=I", 10240))),
               stats(123456789012, 4242, 3, 4500, 17, 2, 9))
    other_if = tcmsg(RTM_NEWQDISC, 2, 0x10000, TC_H_ROOT, "tbf", nla(TCA_OPTIONS, nla(1, tbf_opt)))
    error = nlmsg(NLMSG_ERROR, struct.pack("=i", -1) + nlmsg(RTM_GETQDISC, b"\0" * 20)[:16])
    seeds = {
        "tbf": tbf + done, "tbf_rate64": tbf64, "htb": htb_q + htb_c + htb_c64 + done,
        "cake": cake + done, "fq_codel": fq + done, "mixed": other_if + fq + tbf + cake + done,
        "error": tbf + error, "cut": (htb_q + htb_c)[:-6],
    }
    for name, data in seeds.items():
        put("qdisc", data, "crafted-" + name)
    qdisc_kernel()


def qdisc_kernel():
    """Dumps recorded from the kernel: each setup in a network namespace of its own."""
    if os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("tc"):
        return
    setups = {
        "tbf": ["qdisc add dev lo root tbf rate 100mbit burst 32k latency 50ms"],
        "htb": ["qdisc add dev lo root handle 1: htb default 10",
                "class add dev lo parent 1: classid 1:1 htb rate 200mbit",
                "class add dev lo parent 1:1 classid 1:10 htb rate 10mbit ceil 50mbit",
                "qdisc add dev lo parent 1:10 handle 10: pfifo limit 100"],
        "tbf_rate64": ["qdisc add dev lo root tbf rate 40gbit burst 10m latency 50ms"],
    }
    for name, cmds in setups.items():
        subprocess.run(["unshare", "-n", sys.executable, os.path.abspath(__file__), "--qdisc-dump", name] + cmds,
                       check=False)


def qdisc_dump(name, cmds):
    """In the new namespace: set lo up with CMDS, send a little traffic, write the dumps."""
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    for c in cmds:
        if subprocess.run(["tc"] + c.split(), stderr=subprocess.DEVNULL, check=False).returncode:
            return
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for _ in range(5):
        u.sendto(b"x" * 100, ("127.0.0.1", 9))
    u.close()
    nl = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)  # NETLINK_ROUTE
    nl.bind((0, 0))
    ifindex = socket.if_nametoindex("lo")
    for seq, (what, mtype) in enumerate([("qdisc", RTM_GETQDISC), ("class", RTM_GETTCLASS)], 1):
        nl.send(nlmsg(mtype, struct.pack("=BBHiIII", 0, 0, 0, ifindex, 0, 0, 0), flags=0x301, seq=seq))
        part = 0
        while True:
            data = nl.recv(65536)
            put("qdisc", data, "kernel-%s-%s-%d" % (name, what, part))
            part += 1
            off, done = 0, False
            while off + 16 <= len(data):
                n, t = struct.unpack_from("=IH", data, off)
                done |= t in (NLMSG_DONE, NLMSG_ERROR)
                off += (n + 3) & ~3 if n >= 16 else len(data)
            if done:
                break
    nl.close()


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


def fdres():
    # The fabricated /proc of tests/fixtures/fdres (selectors of fuzz_fdres.c):
    # the link texts of its fd/N symlinks, its net files and fdinfo texts.
    # The real-* seeds were read from a live process's /proc and are kept as they are.
    sel = {"tcp": 1, "udp": 1, "tcp6": 2, "udp6": 2, "unix": 3}
    for path in sorted(glob.glob(os.path.join(FIX, "fdres", "proc", "*", "fd", "*"))):
        put("fdres", bytes([0]) + os.readlink(path).encode())
    for path in sorted(glob.glob(os.path.join(FIX, "fdres", "proc", "*", "net", "*"))):
        if os.path.isfile(path):
            put("fdres", bytes([sel[os.path.basename(path)]]) + open(path, "rb").read())
    for path in sorted(glob.glob(os.path.join(FIX, "fdres", "proc", "*", "fdinfo", "*"))):
        if os.path.isfile(path):
            put("fdres", bytes([4]) + open(path, "rb").read())


def sockdiag():
    # The sock_diag replies recorded by tests/fixtures/sockdiag/capture.py
    # (and the ones it derives: old tcp_info lengths, cut and bad messages),
    # each under its own name.
    for path in sorted(glob.glob(os.path.join(FIX, "sockdiag", "*.bin"))):
        put("sockdiag", open(path, "rb").read(), os.path.basename(path)[:-4])


def load_json(jsondir):
    for path in sorted(glob.glob(os.path.join(jsondir, "*.json"))):
        data = open(path, "rb").read()
        if data:  # a command that failed wrote nothing
            put("load_json", data)


if len(sys.argv) > 2 and sys.argv[1] == "--qdisc-dump":
    qdisc_dump(sys.argv[2], sys.argv[3:])
    sys.exit(0)
units()
proc()
sysinfo()
args()
qdisc()
fdres()
sockdiag()
if len(sys.argv) > 1:
    iperf3(sys.argv[1])
if len(sys.argv) > 2:
    load_json(sys.argv[2])

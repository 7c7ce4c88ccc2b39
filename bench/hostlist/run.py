#!/usr/bin/env python3
"""Hostlist expansion benchmark: cres_hostlist_expand against `scontrol show hostnames` and
against TensorFlow's Python expander, side by side in one run.

For three shapes of compressed hostlist at 1,000, 10,000 and 100,000 hosts it measures

  ours      bench/hostlist/expand_bench.c: cres_hostlist_expand in-process, into a buffer large
            enough, repeated for --seconds; the median time of one call
  scontrol  one `scontrol show hostnames LIST` process, spawn to exit, output read through a
            pipe (what TensorFlow's resolver did before 2020); the median of --repeat runs
  TF        bench/hostlist/tf_way.py: the rules of TensorFlow's current Python expander
            (one bracket group, at the end of a name), in-process; the median of one call

checks that all three give the same hosts in the same order (where they accept the list),
prints a Markdown table and writes it to build/bench/hostlist.md.

usage: python3 bench/hostlist/run.py [--sizes 1000,10000,100000] [--repeat 5] [--seconds 0.3]
                                     [--bench-bin PATH] [--out FILE] [--json FILE]
Needs gcc, libjsmn-dev and scontrol (Debian: slurm-client; no daemon, the script writes a
two-line slurm.conf for it). Standard library only. Takes about 20 s.
"""
import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import tf_way  # noqa: E402

ARG_MAX_STRLEN = 131072  # Linux's limit on one argument or environment string (MAX_ARG_STRLEN)


def fail(msg):
    raise SystemExit("bench/hostlist: " + msg)


# ---------------------------------------------------------------------------------------
# The lists

def grid(n):
    """Racks of nodes written as one name with two groups: rack[001-100]-n[0001-1000]."""
    racks = {1000: 10, 10000: 100, 100000: 100}.get(n, 10)
    per = n // racks
    return "rack[%s-%s]-n[%s-%s]" % ("1".zfill(3), str(racks).zfill(3), "1".zfill(4), str(per).zfill(4))


def per_rack(n):
    """The same racks as Slurm itself prints them: rack001-n[0001-1000],rack002-n[0001-1000],..."""
    racks = {1000: 10, 10000: 100, 100000: 100}.get(n, 10)
    per = n // racks
    return ",".join("rack%03d-n[0001-%04d]" % (r, per) for r in range(1, racks + 1))


def singles(n):
    """Every other node of a partition, so every host is a range of its own: n[00001,00003,...]."""
    return "n[" + ",".join("%05d" % i for i in range(1, 2 * n, 2)) + "]"


SHAPES = [("rack[..]-n[..] (two groups)", grid),
          ("rackNNN-n[..],... (Slurm's output)", per_rack),
          ("n[a,b,c,...] (single numbers)", singles)]


# ---------------------------------------------------------------------------------------
# Measuring

def build_driver(out):
    os.makedirs(os.path.dirname(out), exist_ok=True)
    cmd = ["gcc", "-std=c99", "-O2", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-I" + ROOT,
           os.path.join(HERE, "expand_bench.c"), "-o", out]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        fail("building the driver failed:\n%s\n%s" % (" ".join(cmd), p.stderr))


def ours(driver, path, seconds):
    p = subprocess.run([driver, path, str(seconds)], capture_output=True, text=True)
    if p.returncode != 0:
        fail("%s: %s" % (driver, p.stderr.strip()))
    fields = dict(kv.split("=") for kv in p.stdout.split())
    hosts = subprocess.run([driver, path, "--print"], capture_output=True, text=True, check=True).stdout
    return float(fields["median_us"]), int(fields["calls"]), hosts.split("\n")[:-1]


def scontrol_run(scontrol, env, text, repeat):
    """Median wall seconds of one `scontrol show hostnames TEXT`, and its hosts."""
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        p = subprocess.run([scontrol, "show", "hostnames", text], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        times.append(time.perf_counter() - t0)
        if p.returncode != 0 or p.stderr:
            fail("scontrol failed on a %d-byte list: %s" % (len(text), p.stderr.strip()[:300]))
        out = p.stdout
    return statistics.median(times), out.split("\n")[:-1]


def tf_run(text, seconds):
    """Median seconds of one tf_way.expand_hostlist call (None when it rejects the list)."""
    try:
        hosts = tf_way.expand_hostlist(text)
    except ValueError:
        return None, None
    times, started = [], time.perf_counter()
    while len(times) < 3 or time.perf_counter() - started < seconds:
        t0 = time.perf_counter()
        tf_way.expand_hostlist(text)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), hosts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--repeat", type=int, default=5, help="scontrol runs per list (median)")
    ap.add_argument("--seconds", type=float, default=0.3, help="time spent on in-process repeats per list")
    ap.add_argument("--bench-bin", help="a built bench/hostlist/expand_bench.c (default: build it)")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "bench", "hostlist.md"))
    ap.add_argument("--json", metavar="FILE",
                    help="also write the results (seconds; null where a way cannot) and the report as JSON")
    args = ap.parse_args()
    started = time.perf_counter()
    sizes = [int(s) for s in args.sizes.split(",")]

    scontrol = shutil.which("scontrol")
    if not scontrol:
        fail("scontrol not found: install Slurm's client (Debian: apt-get install slurm-client)")
    driver = args.bench_bin
    if not driver:
        driver = os.path.join(ROOT, "build", "bench", "expand_bench")
        build_driver(driver)

    rows = []
    with tempfile.TemporaryDirectory(prefix="cres-bench-hostlist-") as tmp:
        conf = os.path.join(tmp, "slurm.conf")
        with open(conf, "w") as f:  # all `show hostnames` needs; no daemon is contacted
            f.write("ClusterName=bench\nSlurmctldHost=localhost\n")
        env = dict(os.environ, SLURM_CONF=conf)
        version = subprocess.run([scontrol, "--version"], env=env, capture_output=True, text=True).stdout.strip()
        start_s, _ = scontrol_run(scontrol, env, "n1", args.repeat)
        for label, make in SHAPES:
            for n in sizes:
                text = make(n)
                path = os.path.join(tmp, "list.txt")
                with open(path, "w") as f:
                    f.write(text)
                our_us, calls, our_hosts = ours(driver, path, args.seconds)
                if len(our_hosts) != n:
                    fail("%s at %d: we expanded %d hosts" % (label, n, len(our_hosts)))
                if len(text) < ARG_MAX_STRLEN:
                    sc_s, sc_hosts = scontrol_run(scontrol, env, text, args.repeat if n < 100000 else max(3, args.repeat // 2))
                    if sc_hosts != our_hosts:
                        fail("%s at %d: scontrol and we disagree" % (label, n))
                else:
                    sc_s = None  # execve refuses an argument this long (E2BIG)
                tf_s, tf_hosts = tf_run(text, args.seconds)
                if tf_hosts is not None and tf_hosts != our_hosts:
                    fail("%s at %d: TF's way and we disagree" % (label, n))
                rows.append((label, n, len(text), our_us, calls, sc_s, tf_s))

    lines = ["# Hostlist expansion: cres_hostlist_expand vs scontrol vs TF's Python expander", "",
             "%s, %s, %s, Python %s. ours: median of one in-process call (%s s of calls per list); "
             "scontrol: median wall time of one process (%d runs; 3 at 100,000 hosts); TF: median "
             "of one in-process call of bench/hostlist/tf_way.py." %
             (version, platform.machine(), platform.system(), platform.python_version(), args.seconds,
              args.repeat), "",
             "| list | hosts | list bytes | ours µs | scontrol ms | scontrol / ours | TF's Python µs | TF / ours |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for label, n, size, our_us, calls, sc_s, tf_s in rows:
        sc = "%.1f" % (sc_s * 1e3) if sc_s is not None else "n/a (argument > 128 KiB)"
        ratio = "%.0fx" % (sc_s * 1e6 / our_us) if sc_s is not None else "-"
        tf = "%.0f" % (tf_s * 1e6) if tf_s is not None else "rejects it"
        tf_ratio = "%.0fx" % (tf_s * 1e6 / our_us) if tf_s is not None else "-"
        lines.append("| %s | %s | %s | %.1f | %s | %s | %s | %s |" %
                     (label, format(n, ","), format(size, ","), our_us, sc, ratio, tf, tf_ratio))
    lines += ["", "scontrol start-up alone (`scontrol show hostnames n1`): %.1f ms." % (start_s * 1e3),
              "All three give the same hosts in the same order wherever they accept the list.",
              "Total run time %.0f s." % (time.perf_counter() - started)]
    report = "\n".join(lines) + "\n"
    print(report)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        f.write(report)
    if args.json:
        import json
        data = {"bench": "hostlist", "markdown": report,
                "rows": [{"list": label, "n": n, "list_bytes": size, "ours_s": our_us / 1e6,
                          "scontrol_s": sc_s, "tf_s": tf_s}
                         for label, n, size, our_us, calls, sc_s, tf_s in rows]}
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(data, f, indent=1)


if __name__ == "__main__":
    main()

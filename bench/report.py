#!/usr/bin/env python3
"""Collects the benchmarks' results into docs/: every table into docs/benchmarks.md (one file,
written anew) and a log-log plot of resolve time against cluster size, ours against the peers,
into docs/resolve_time.png (gnuplot, Debian package gnuplot-nox).

usage: python3 bench/report.py [--run] [--results build/bench] [--docs docs]

--run (what `make bench` does) first runs every benchmark with --json into --results, with the
sizes of RUNS below (several sizes each, for the plot; about 4 minutes on 2 cores), going on
past a failing one and exiting 1 at the end when one failed. Without --run it collects what is
there: k8s.json (bench/k8s/run.py), gce.json (bench/gce/run.py), hostlist.json
(bench/hostlist/run.py), footprint.json (bench/footprint/run.py) and startup.json
(bench/k8s/startup/run.py, which --run leaves to `make bench-startup`); a missing one is left
out and named. Standard library only.
"""
import argparse
import datetime
import json
import math
import os
import platform
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BENCHES = [  # file, what it is, how to run it alone
    ("k8s.json", "Kubernetes", "python3 bench/k8s/run.py"),
    ("gce.json", "GCE", "python3 bench/gce/run.py"),
    ("hostlist.json", "Slurm hostlists", "python3 bench/hostlist/run.py"),
    ("footprint.json", "Footprint", "python3 bench/footprint/run.py"),
    # not run by --run (11 to 20 minutes on 2 cores): `make bench-startup` writes it
    ("startup.json", "Start-up (make bench-startup)", "python3 bench/k8s/startup/run.py"),
]
RUNS = [  # what --run runs: file, script, its options (besides --json)
    ("k8s.json", "bench/k8s/run.py", ["--sizes", "100,1000,5000,10000"]),
    ("gce.json", "bench/gce/run.py", ["--sizes", "10,100,300,1000"]),
    ("hostlist.json", "bench/hostlist/run.py", []),
    ("footprint.json", "bench/footprint/run.py", []),
]
SLURM_SHAPE = "Slurm's output"  # the hostlist shape plotted: the one every peer accepts


def fail(msg):
    raise SystemExit("bench/report: " + msg)


def run_all(results):
    """Runs every benchmark; -> (the names of those that failed, seconds taken)."""
    started, failed = datetime.datetime.now().timestamp(), []
    os.makedirs(results, exist_ok=True)
    for name, script, opts in RUNS:
        out = os.path.join(results, name)
        if os.path.exists(out):
            os.unlink(out)  # never report an old run's numbers as this one's
        cmd = [sys.executable, os.path.join(ROOT, script)] + opts + ["--json", out]
        print("== %s" % " ".join([script] + opts), file=sys.stderr, flush=True)
        if subprocess.run(cmd, cwd=ROOT).returncode != 0:
            failed.append(script)
            print("== %s FAILED" % script, file=sys.stderr, flush=True)
    return failed, datetime.datetime.now().timestamp() - started


def load(results):
    data = {}
    for name, _, _ in BENCHES:
        path = os.path.join(results, name)
        if os.path.exists(path):
            with open(path) as f:
                data[name] = json.load(f)
    return data


def demote(markdown):
    """Each bench's '# Title' becomes '## Title' under the file's own title."""
    return "\n".join("#" + line if line.startswith("#") else line
                     for line in markdown.rstrip("\n").split("\n"))


# ---------------------------------------------------------------- the plot

def series(data):
    """-> [(panel title, x label, [(curve title, [(x, seconds)], style)])]."""
    panels = []
    k8s = data.get("k8s.json")
    if k8s:
        rows = k8s["sizes"]
        panels.append(("Kubernetes (fake API server)", "pods", [
            ("ours: cluster-resolve", [(r["n"], r["ours_s"]) for r in rows], "ours"),
            ("TF's way: python3-kubernetes", [(r["n"], r["tf_s"]) for r in rows], "tf"),
            ("curl, one unpaged list (floor)", [(r["n"], r["floor_s"]) for r in rows], "floor")]))
    gce = data.get("gce.json")
    if gce:
        rows = gce["sizes"]
        panels.append(("GCE instance group (%g ms per request)" % (gce["delay_s"] * 1000),
                       "instances", [
                           ("ours: cluster-resolve", [(r["n"], r["ours_s"]) for r in rows], "ours"),
                           ("TF's way: 1 list + 1 GET per instance",
                            [(r["n"], r["tf_s"]) for r in rows], "tf")]))
    hl = data.get("hostlist.json")
    if hl:
        rows = [r for r in hl["rows"] if SLURM_SHAPE in r["list"]] or hl["rows"]
        panels.append(("Slurm hostlist expansion (Slurm's own form)", "hosts", [
            ("ours: cres_hostlist_expand", [(r["n"], r["ours_s"]) for r in rows], "ours"),
            ("scontrol show hostnames (process)",
             [(r["n"], r["scontrol_s"]) for r in rows if r["scontrol_s"] is not None], "peer2"),
            ("TF's Python expander",
             [(r["n"], r["tf_s"]) for r in rows if r["tf_s"] is not None], "tf")]))
    return panels


STYLES = {  # line colour, point type, dash type
    "ours": ("#1b7837", 7, 1), "tf": ("#c51b7d", 5, 1), "peer2": ("#2166ac", 9, 1),
    "floor": ("#888888", 6, 2)}


def count_label(x):
    return format(int(x), ",")


def time_label(s):
    for unit, scale in (("s", 1), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if s >= scale * 0.999:
            return "%g %s" % (round(s / scale, 6), unit)
    return "%g s" % s


def ticks(lo, hi, label):
    """Powers of ten in [lo, hi] with readable labels, for gnuplot's `set xtics (...)`."""
    out, p = [], 10.0 ** math.floor(math.log10(lo))
    while p <= hi:
        if p >= lo:
            out.append("'%s' %g" % (label(p), p))
        p *= 10
    return ", ".join(out)


def plot(panels, png, workdir):
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        fail("gnuplot not found (Debian: apt-get install gnuplot-nox; `make bench` installs it "
             "when run as root)")
    os.makedirs(workdir, exist_ok=True)
    script = ["set terminal pngcairo size %d,560 font 'sans,11' noenhanced" % (520 * len(panels)),
              "set output '%s'" % png,
              "set multiplot layout 1,%d title 'Resolve time against cluster size "
              "(log-log; lower is better)' font 'sans,14'" % len(panels),
              "set logscale xy", "set grid xtics ytics mxtics mytics lc rgb '#dddddd'",
              "set key top left box opaque samplen 2 spacing 1.1 font 'sans,9'",
              "set ylabel 'median wall time'",
              "set bmargin 4"]
    for p, (title, xlabel, curves) in enumerate(panels):
        xs = [x for _, pts, _ in curves for x, _ in pts]
        ys = [y for _, pts, _ in curves for _, y in pts if y > 0]
        script += ["set title '%s'" % title.replace("'", "''"), "set xlabel '%s'" % xlabel,
                   "set xrange [%g:%g]" % (min(xs) / 1.6, max(xs) * 1.6),
                   "set yrange [%g:%g]" % (min(ys) / 3, max(ys) * 12),
                   "set xtics (%s)" % ticks(min(xs) / 1.6, max(xs) * 1.6, count_label),
                   "set ytics (%s)" % ticks(min(ys) / 3, max(ys) * 12, time_label)]
        plots = []
        for c, (name, pts, style) in enumerate(curves):
            if not pts:
                continue
            path = os.path.join(workdir, "panel%d-%d.dat" % (p, c))
            with open(path, "w") as f:
                f.write("".join("%d %.9g\n" % (x, y) for x, y in pts))
            colour, pt, dt = STYLES[style]
            plots.append("'%s' using 1:2 with linespoints lw 2 pt %d ps 1.2 dt %d lc rgb '%s' "
                         "title '%s'" % (path, pt, dt, colour, name.replace("'", "''")))
        script.append("plot " + ", \\\n     ".join(plots))
    script.append("unset multiplot")
    gp = os.path.join(workdir, "resolve_time.gp")
    with open(gp, "w") as f:
        f.write("\n".join(script) + "\n")
    p = subprocess.run([gnuplot, gp], capture_output=True, text=True)
    if p.returncode:
        fail("gnuplot failed (%s):\n%s" % (gp, p.stderr[-2000:]))


# ---------------------------------------------------------------- the Markdown

def markdown(data, args, png_rel):
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip() or "unknown"
    dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--",
                            "cluster_resolver.h"], capture_output=True, text=True).stdout.strip()
    lines = ["# Benchmarks", "",
             "Written by `make bench` (%s, commit %s%s, %s %s, %d CPUs%s). Each benchmark runs "
             "us and the peer side by side in one run, on the same machine and the same "
             "generated data; the sections below are their reports as printed, and "
             "bench/*/README.md say what each measures. Run one alone with the command under "
             "its title." % (now, commit, ", cluster_resolver.h modified" if dirty else "",
                             platform.system(), platform.machine(), os.cpu_count(),
                             "; all benchmarks: %.0f s" % args.elapsed if args.elapsed else ""),
             "", "![resolve time](%s)" % png_rel, "",
             "The plot: Kubernetes and GCE are the time from starting `cluster-resolve` to its "
             "exit against a fake API server on this machine (TF's way likewise, under Python); "
             "the Slurm panel is one in-process `cres_hostlist_expand` call against one "
             "`scontrol show hostnames` process and one call of TF's Python expander, for the "
             "hostlist shape Slurm itself prints (`rack001-n[0001-0100],...`).", ""]
    missing = []
    for name, what, cmd in BENCHES:
        if name not in data:
            missing.append(what)
            continue
        opts = next((o for f, _, o in RUNS if f == name), [])
        lines += [demote(data[name]["markdown"]), "", "Run alone: `%s`" % " ".join([cmd] + opts), ""]
    if missing:
        lines += ["Not in this run (failed or not run): %s." % ", ".join(missing), ""]
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--results", default=os.path.join(ROOT, "build", "bench"))
    ap.add_argument("--docs", default=os.path.join(ROOT, "docs"))
    ap.add_argument("--run", action="store_true", help="run every benchmark first")
    args = ap.parse_args(argv)
    args.elapsed, failed = None, []
    if args.run:
        failed, args.elapsed = run_all(args.results)
    data = load(args.results)
    if not data:
        fail("no results in %s: run the benchmarks with --json first (make bench)" % args.results)
    os.makedirs(args.docs, exist_ok=True)
    png = os.path.join(args.docs, "resolve_time.png")
    panels = series(data)
    if panels:
        plot(panels, png, os.path.join(args.results, "plot"))
    md = os.path.join(args.docs, "benchmarks.md")
    with open(md, "w") as f:
        f.write(markdown(data, args, os.path.relpath(png, args.docs)))
    print("written: %s%s" % (os.path.relpath(md, ROOT),
                             ", " + os.path.relpath(png, ROOT) if panels else ""), file=sys.stderr)
    if failed:
        print("bench/report: failed: %s" % ", ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

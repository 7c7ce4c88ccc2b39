"""What the benchmark runners share: the environment for their children, tool versions, the
machine's CPU and load, medians and time formatting, the --sizes option, and writing the
reports. Standard library only."""
import json
import os
import statistics
import subprocess
import sys


def child_env():
    """The environment for every child: no proxy between us and 127.0.0.1."""
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
    return env


def first_line(cmd):
    """The first line a command prints (a version, say), or "unavailable"."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        return (p.stdout or p.stderr).strip().splitlines()[0]
    except (OSError, IndexError, subprocess.SubprocessError):
        return "unavailable"


def cpu_model():
    """The CPU's model name from /proc/cpuinfo, or "unknown CPU"."""
    try:
        with open("/proc/cpuinfo") as f:
            return next(ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name"))
    except (OSError, StopIteration):
        return "unknown CPU"


def load_average():
    return " ".join("%.2f" % x for x in os.getloadavg())


def med(runs, key="wall"):
    return statistics.median(r[key] for r in runs)


def fmt_s(seconds):
    return "%.3f s" % seconds if seconds < 10 else "%.1f s" % seconds


def parse_sizes(ap, text, example):
    """--sizes "8,1000,..." as positive numbers; an error through the parser otherwise."""
    try:
        sizes = [int(s) for s in text.split(",") if s.strip()]
    except ValueError:
        ap.error("--sizes wants numbers like " + example)
    if not sizes or min(sizes) < 1:
        ap.error("--sizes must be positive")
    return sizes


def _make_parent(path):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)


def save_report(path, text):
    """The Markdown report to stdout and to path (--out)."""
    sys.stdout.write(text)
    _make_parent(path)
    with open(path, "w") as f:
        f.write(text)
    print("\nwritten to %s" % path, file=sys.stderr)


def save_json(path, obj):
    """--json: the numbers and the report, for bench/report.py."""
    _make_parent(path)
    with open(path, "w") as f:
        json.dump(obj, f, indent=1)

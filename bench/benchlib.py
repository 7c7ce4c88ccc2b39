"""What the benchmark runners share: the environment for their children, tool versions,
medians and time formatting, and the --sizes option. Standard library only."""
import os
import statistics
import subprocess


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

#!/usr/bin/env python3
"""One resolve of a very large pod list, by the current CLI and by the CLI at an older revision.

It generates N (default 100,000) Running pods of the Indexed Job `trainer` in namespace
`default` (tests/k8s/make_pods.py, compact, in a child process; cached in build/bench/ as
bench/k8s/run.py caches them: pods-N.json, about 520 MB at 100,000 pods, a minute to make),
serves them with one tests/fake_api.py (under /usr/bin/python3, loopback, port file, request
log with --log-bytes) and runs, --repeat times alternating (baseline, current, baseline, ...):

  cluster-resolve k8s --server URL --namespace default --job worker=job-name=trainer
                  --format spec --resolve-timeout-ms 600000

`current` is examples/cluster-resolve.c with the working tree's cluster_resolver.h, built into
build/bench/current/; `baseline` is both files as they were at --baseline REV (git show), built
into build/bench/baseline/ with the same command as the Makefile's. The default REV is the
parent of the commit whose message starts "kubernetes list: a pod is one allocation".

Each process runs under build/bench/rusage_exec (bench/k8s/rusage_exec.c, built as run.py
builds it), so its peak RSS and CPU are its own. Reported per CLI: peak RSS (largest of the
runs), CPU user + system (median), wall (median), the requests it made and the body bytes the
fake sent (from the fake's log), and the peak RSS of the same CLI at 100 pods, the fixed base
(libcurl, OpenSSL, shared libraries), so the cost per pod shows. Every run must print the N
pod IPs in completion-index order, and every run of both CLIs the same bytes. --gzip adds a
second round against the fake's --gzip. The table is printed and written to
build/bench/big_list.md (--out).

usage: python3 bench/k8s/big_list.py [--pods 100000] [--repeat 3] [--baseline REV] [--gzip]
                                     [--out build/bench/big_list.md]
Standard library only. Needs cc, git, libcurl, libyaml and libcrypto headers, /usr/bin/python3.
"""
import argparse
import json
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run as k8s_bench  # noqa: E402  (bench/k8s/run.py: the pod cache and the measuring Runner)
from benchlib import cpu_model, first_line, fmt_s, load_average, med, save_report  # noqa: E402

ROOT = k8s_bench.ROOT
BENCH_DIR = k8s_bench.BENCH_DIR
SYSTEM_PYTHON = k8s_bench.SYSTEM_PYTHON
HEADER, CLI_SRC = "cluster_resolver.h", os.path.join("examples", "cluster-resolve.c")
CFLAGS = ["-std=c99", "-O2", "-Wall", "-Wextra", "-Wpedantic", "-Werror"]
LIBS = ["-lcurl", "-lyaml", "-lcrypto"]
SELECTOR, PAGE = "job-name=trainer", 500
BASELINE_GREP = "^kubernetes list: a pod is one allocation"
SMALL = 100  # the pod count whose peak RSS is the process's fixed base
TARGET_RSS_MIB, TARGET_CPU_S = 24.0, 2.0  # DESIGN.md, for 100,000 pods in one resolve
MiB = 1024.0


def fail(msg):
    raise SystemExit("bench/k8s/big_list: " + msg)


def git(*args):
    p = subprocess.run(["git", "-C", ROOT] + list(args), capture_output=True, text=True)
    if p.returncode:
        fail("git %s: %s" % (" ".join(args), p.stderr.strip()))
    return p.stdout


# ---------------------------------------------------------------- the two CLIs

def default_baseline():
    """The parent of the commit that made a pod one allocation."""
    found = git("log", "--format=%H", "--grep", BASELINE_GREP, "-n1").strip()
    if not found:
        fail("no commit whose message starts %r: name one with --baseline REV" % BASELINE_GREP[1:])
    return found + "^"


def short(rev):
    return git("rev-parse", "--short", rev + "^{commit}").strip()


def compile_cli(src, exe, header):
    """Builds exe from src and checks, from the compiler's dependency list, that src was
    compiled against exactly `header`."""
    cc = os.environ.get("CC") or "cc"
    deps = subprocess.run([cc, "-std=c99", "-MM", src] + ["-I", os.path.dirname(header)],
                          capture_output=True, text=True)
    used = [os.path.realpath(d) for d in deps.stdout.replace("\\\n", " ").split()[1:]
            if os.path.basename(d) == HEADER]
    if deps.returncode or used != [os.path.realpath(header)]:
        fail("%s does not include %s (dependencies: %s)" % (src, header, deps.stdout.strip()
                                                            or deps.stderr.strip()))
    tmp_exe = "%s.%d.tmp" % (exe, os.getpid())
    p = subprocess.run([cc] + CFLAGS + ["-I", os.path.dirname(header), src, "-o", tmp_exe] + LIBS,
                       capture_output=True, text=True)
    if p.returncode:
        fail("building %s failed:\n%s" % (exe, p.stderr[-3000:]))
    os.replace(tmp_exe, exe)
    return exe


def build_current():
    out = os.path.join(BENCH_DIR, "current")
    os.makedirs(out, exist_ok=True)
    dirty = subprocess.run(["git", "-C", ROOT, "diff", "--quiet", "HEAD", "--", HEADER, CLI_SRC])
    label = short("HEAD") + (" + working tree" if dirty.returncode else "")
    exe = compile_cli(os.path.join(ROOT, CLI_SRC), os.path.join(out, "cluster-resolve"),
                      os.path.join(ROOT, HEADER))
    return {"name": "current", "rev": label, "exe": exe}


def build_baseline(rev):
    """Both files at rev, laid out as in the repository (build/bench/baseline/cluster_resolver.h
    and build/bench/baseline/examples/cluster-resolve.c), so the CLI's own include line
    ("../cluster_resolver.h") finds the old header; -I build/bench/baseline covers an include
    without the "../"."""
    out = os.path.join(BENCH_DIR, "baseline")
    os.makedirs(os.path.join(out, "examples"), exist_ok=True)
    for path in (HEADER, CLI_SRC):
        text = git("show", "%s:%s" % (rev, path))
        with open(os.path.join(out, path), "w") as f:
            f.write(text)
    with open(os.path.join(out, CLI_SRC)) as f:
        include = re.search(r'^#include\s+"([^"]*%s)"' % re.escape(HEADER), f.read(), re.M)
    if not include:
        fail("%s at %s has no #include of %s" % (CLI_SRC, rev, HEADER))
    exe = compile_cli(os.path.join(out, CLI_SRC), os.path.join(out, "cluster-resolve"),
                      os.path.join(out, HEADER))
    subject = git("log", "-1", "--format=%s", rev + "^{commit}").strip()
    return {"name": "baseline", "rev": short(rev), "exe": exe, "subject": subject,
            "include": include.group(1)}


# ---------------------------------------------------------------- the fake API server

def Fake(pods_path, tmp, gzip):
    """run.py's fake, logging each request's body bytes, gzip on or off."""
    extra = ["--log-bytes"] + (["--gzip"] if gzip else [])
    return k8s_bench.Fake(pods_path, tmp, False, extra=extra, start_within=900, lifetime=14400)


def resolve_cmd(exe, url):
    return [exe, "k8s", "--server", url, "--namespace", "default", "--job", "worker=" + SELECTOR,
            "--format", "spec", "--resolve-timeout-ms", "600000"]


def one_round(n, clis, runner, tmp, repeat, gzip, problems, warm_up=True):
    """Serves n pods and runs each CLI `repeat` times, alternating; -> {name: [runs]} and
    facts about the round. Each run records its rusage, the requests and bytes it cost, and
    whether its spec is right."""
    pods_path, meta, made = k8s_bench.cached_pods(n)
    expected = {"worker": meta["expected"]}
    what = "%s pods%s" % (f"{n:,}", ", gzip" if gzip else "")
    print("... %s: %sstarting the fake" % (what, "pods generated, " if made else ""),
          file=sys.stderr, flush=True)
    fake = Fake(pods_path, tmp, gzip)
    print("    fake up in %.1f s" % fake.startup, file=sys.stderr, flush=True)
    runs = {c["name"]: [] for c in clis}
    first_spec = {}
    try:
        def measured(cli):
            before = len(fake.requests())
            r = runner.run(resolve_cmd(cli["exe"], fake.url), timeout=900)
            reqs = fake.requests()[before:]
            r["requests"] = len(reqs)
            r["bytes"] = sum(q.get("bytes") or 0 for q in reqs)
            r["statuses"] = sorted({q.get("status") for q in reqs}, key=str)
            if r["rc"] != 0:
                problems.append("%s (%s), %s: exit %d: %s" % (
                    cli["name"], cli["rev"], what, r["rc"], r["err"].strip()[-500:]))
                r["right"] = False
            else:
                try:
                    r["right"] = json.loads(r["out"]) == expected
                except ValueError:
                    r["right"] = False
                if not r["right"]:
                    problems.append("%s (%s), %s: the spec is not the %s pod IPs in "
                                    "completion-index order" % (cli["name"], cli["rev"], what,
                                                                f"{n:,}"))
            first_spec.setdefault(cli["name"], r["out"])
            r["same"] = r["out"] == first_spec[clis[0]["name"]]
            del r["out"]
            return r

        if warm_up:  # not counted: the fake's first answers and the page cache
            for cli in clis:
                measured(cli)
        for _ in range(repeat):
            for cli in clis:
                r = measured(cli)
                runs[cli["name"]].append(r)
                print("    %-8s wall %.3f s, CPU %.3f s, peak RSS %.1f MiB, %d requests" % (
                    cli["name"], r["wall"], r["cpu"], r["rss_kib"] / MiB, r["requests"]),
                    file=sys.stderr, flush=True)
    finally:
        err = fake.stop()
    if err:
        print("warning: fake_api.py (%s) wrote to stderr:\n%s" % (what, err[-2000:]),
              file=sys.stderr)
    if len(set(first_spec.values())) > 1:
        problems.append("%s: the two CLIs printed different specs" % what)
    for name, rs in runs.items():
        if not all(r["same"] for r in rs):
            problems.append("%s: %s printed a spec different from %s's" % (
                what, name, clis[0]["name"]))
    return {"n": n, "gzip": gzip, "runs": runs, "list_bytes": meta["file_bytes"],
            "fake_startup": fake.startup, "generated": made}


# ---------------------------------------------------------------- report

def peak_mib(runs):
    return max(r["rss_kib"] for r in runs) / MiB


def spec_check(rs, n):
    if all(r["right"] and r["same"] for r in rs):
        return "identical, %s in index order" % f"{n:,}"
    return "**WRONG or different**"


def machine_facts():
    cpu = cpu_model()
    fake_python = SYSTEM_PYTHON if os.path.exists(SYSTEM_PYTHON) else sys.executable
    return "%d CPUs, %s; %s %s; %s; %s; fake under %s (%s)" % (
        os.cpu_count(), cpu, platform.system(), platform.release(), first_line(["cc", "--version"]),
        first_line(["curl-config", "--version"]), fake_python, first_line([fake_python, "--version"]))


def report(args, clis, rounds, small, problems, elapsed, load_start):
    n = args.pods
    lines = ["# One resolve of %s pods: the current CLI and the CLI at %s" % (
        f"{n:,}", clis[0]["rev"]), ""]
    lines += ["- baseline: `%s` %s" % (clis[0]["rev"], clis[0]["subject"][:100]),
              "- current: `%s`" % clis[1]["rev"],
              "- command: `cluster-resolve k8s --server URL --namespace default --job "
              "worker=job-name=trainer --format spec --resolve-timeout-ms 600000` against "
              "`tests/fake_api.py` (pages of %d, so %s requests), %d runs each, alternating "
              "(baseline first), after one uncounted run of each" % (
                  PAGE, f"{max(1, math.ceil(n / PAGE)):,}", args.repeat),
              "- peak RSS: the largest `ru_maxrss` of the runs (via bench/k8s/rusage_exec); "
              "CPU: user + system, median; wall: spawn to reap, median; requests and body "
              "bytes sent: from the fake's log (`--log-bytes`)",
              "- machine: " + machine_facts(),
              ""]
    lines += ["| CLI | list | pods | peak RSS | peak RSS at %d pods | per pod above it "
              "| CPU (user+sys) | wall | requests | MB sent | spec |" % SMALL,
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for rnd in rounds:
        for cli in clis:
            rs = rnd["runs"][cli["name"]]
            base = peak_mib(small["runs"][cli["name"]])
            per_pod = (peak_mib(rs) - base) * MiB * 1024 / (n - SMALL) if n > SMALL else 0
            reqs = sorted({r["requests"] for r in rs})
            lines.append("| %s `%s` | %s | %s | %.1f MiB | %.1f MiB | %.0f B | %s | %s | %s "
                         "| %.1f | %s |" % (
                             cli["name"], cli["rev"], "gzip" if rnd["gzip"] else "plain",
                             f"{n:,}", peak_mib(rs), base, per_pod, fmt_s(med(rs, "cpu")),
                             fmt_s(med(rs)), "/".join(str(x) for x in reqs),
                             med(rs, "bytes") / 1e6, spec_check(rs, n)))
    lines += [""]
    cur = rounds[0]["runs"]["current"]
    rss, cpu = peak_mib(cur), med(cur, "cpu")
    lines += ["- Targets for %s pods in one resolve (plain list): peak RSS at most %.0f MiB "
              "(%s KiB): %s KiB (%.2f MiB; smallest run %.2f MiB), %s; CPU under %.0f s: %.3f s "
              "(median; largest %.3f s), %s." % (
                  f"{n:,}", TARGET_RSS_MIB, f"{int(TARGET_RSS_MIB * MiB):,}",
                  f"{max(r['rss_kib'] for r in cur):,}", rss,
                  min(r["rss_kib"] for r in cur) / MiB,
                  "met" if rss <= TARGET_RSS_MIB else "**not met**",
                  TARGET_CPU_S, cpu, max(r["cpu"] for r in cur),
                  "met" if cpu < TARGET_CPU_S else "**not met**")]
    for cli in clis:
        for rnd in rounds:
            rs = rnd["runs"][cli["name"]]
            lines.append("- %s%s, every run (peak RSS MiB / CPU s / wall s): %s" % (
                cli["name"], ", gzip" if rnd["gzip"] else "", "; ".join(
                    "%.1f / %.3f / %.3f" % (r["rss_kib"] / MiB, r["cpu"], r["wall"]) for r in rs)))
    lines += ["- List: %s bytes (`build/bench/pods-%d.json`, compact%s); the fake took %s to "
              "load it and start." % (
                  f"{rounds[0]['list_bytes']:,}", n,
                  ", generated in this run" if rounds[0]["generated"] else ", cached",
                  " and ".join("%.0f s%s" % (r["fake_startup"], " (gzip)" if r["gzip"] else "")
                               for r in rounds))]
    if problems:
        lines += ["- **Problems:** " + p for p in problems]
    else:
        lines += ["- Checks: every run of both CLIs printed the same bytes: the %s pod IPs "
                  "in completion-index order." % f"{n:,}"]
    lines += ["- Whole run: %.0f s; load average at the start %s, at the end %s." % (
        elapsed, load_start, load_average())]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- main

def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pods", type=int, default=100000, help="pods in the list (100000)")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each CLI (3)")
    ap.add_argument("--baseline", metavar="REV",
                    help="the older revision (default: the parent of the commit whose message "
                    "starts 'kubernetes list: a pod is one allocation')")
    ap.add_argument("--gzip", action="store_true", help="a second round against the fake's --gzip")
    ap.add_argument("--out", default=os.path.join(BENCH_DIR, "big_list.md"),
                    help="where the Markdown report goes (build/bench/big_list.md)")
    args = ap.parse_args(argv)
    if args.pods <= SMALL:
        ap.error("--pods must be over %d" % SMALL)
    if args.repeat < 1:
        ap.error("--repeat must be positive")
    return args


def main(argv=None):
    args = parse_args(argv)
    started, load_start = time.perf_counter(), load_average()
    os.makedirs(BENCH_DIR, exist_ok=True)
    rev = args.baseline or default_baseline()
    clis = [build_baseline(rev), build_current()]
    print("built baseline %s and current %s" % (clis[0]["rev"], clis[1]["rev"]),
          file=sys.stderr, flush=True)
    tmp = tempfile.mkdtemp(prefix="bench-big-list-")
    problems, rounds = [], []
    try:
        runner = k8s_bench.Runner(tmp)
        small = one_round(SMALL, clis, runner, tmp, args.repeat, False, problems)
        for gzip in ((False, True) if args.gzip else (False,)):
            rounds.append(one_round(args.pods, clis, runner, tmp, args.repeat, gzip, problems))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    text = report(args, clis, rounds, small, problems, time.perf_counter() - started, load_start)
    save_report(args.out, text)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

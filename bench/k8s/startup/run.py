#!/usr/bin/env python3
"""Start-up benchmark: every pod of a job resolves its members at once, against an API server
that limits them as API Priority and Fairness does. Listing pods (TF's way, `--members list`)
against naming them from the own Job and JobSet (`--members job`).

For each size N and shape (an Indexed Job of N pods; a JobSet of two Jobs of N/2 pods) it
generates the objects (tests/k8s/make_pods.py, cached in build/bench/startup/), and for each
mode starts one bench/k8s/startup/fake_apf.py (tests/fake_api.py behind a seat limit, a
bounded queue and 429 + Retry-After) and runs the CLI once per pod, K at a time, each with
that pod's HOSTNAME and JOB_COMPLETION_INDEX:

  build/cluster-resolve k8s --server URL --namespace default --job worker=job-name=<its Job>
      --follow-jobset --address dns --members list|job --format spec --resolve-timeout-ms B

  list        --members list, the fake without --gzip
  list+gzip   --members list, the fake with --gzip (bodies over 128 KiB gzipped)
  job         --members job
  TF's way    bench/k8s/tf_way.py (python3-kubernetes, one unpaged list per pod), at the
              sizes of --tf-sizes (default: the smallest)

It reports per cell the requests, 429s and bytes the fake sent (its --log-bytes log), p50 and
p99 of the time from spawn to exit with the spec, CPU per pod (ru_utime + ru_stime from
wait4), failures, and whether every pod printed the same spec, equal to the expected DNS
names in order. The report goes to stdout and build/bench/startup.md, the plot to
docs/startup.png (gnuplot).

usage: python3 bench/k8s/startup/run.py [--sizes 256,1024,4096] [--shapes indexed,jobset]
           [--modes list,list+gzip,job] [--concurrency 64] [--seats 24] [--queue-places 300]
           [--queue-length Q] [--wait 15] [--no-apf] [--resolve-timeout-ms 600000]
           [--tf-sizes 256] [--skip N:SHAPE:MODE,...] [--all] [--cli PATH] [--out FILE]
           [--json FILE] [--plot FILE | --no-plot]
Standard library only. Builds build/cluster-resolve with make when it is missing.
"""
import argparse
import hashlib
import json
import math
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))
from benchlib import (child_env, cpu_model, first_line, load_average, parse_sizes,  # noqa: E402
                      save_json, save_report)

MAKE_PODS = os.path.join(ROOT, "tests", "k8s", "make_pods.py")
FAKE_APF = os.path.join(HERE, "fake_apf.py")
FAKE = os.path.join(ROOT, "tests", "fake_api.py")
TF_WAY = os.path.join(os.path.dirname(HERE), "tf_way.py")
DATA_DIR = os.path.join(ROOT, "build", "bench", "startup")
SYSTEM_PYTHON = "/usr/bin/python3"

NAMESPACE, NAME, PORT, DOMAIN = "default", "trainer", "8470", "cluster.local"
RJOBS = ("driver", "workers")  # the JobSet's two replicated jobs, 1 replica of N/2 pods each
INDEX_KEY = "batch.kubernetes.io/job-completion-index"
SHAPES = ("indexed", "jobset")
MODES = ("list", "list+gzip", "job")
TF_MODE = "TF's way"
# The default run leaves out the costliest cells (about 15 minutes more on 2 cores; --all
# runs them): the list is O(N^2) bytes, and at 4,096 pods gzip makes the fake compress 21 MB
# per pod, the JobSet's list reads 1.5 lists per pod.
DEFAULT_SKIP = ("4096:indexed:list+gzip", "4096:jobset:list", "4096:jobset:list+gzip")
# APF's queues for one flow: handSize 6 queues of queueLengthLimit 50 (workload-low)
FLOW_QUEUE_PLACES = 6 * 50
GENERATE_VERSION = "1"


def fail(msg):
    raise SystemExit("bench/k8s/startup: " + msg)


# ---------------------------------------------------------------- objects (made in a child)

def generator_digest():
    """Changes with make_pods.py and with GENERATE_VERSION (bump it when generate() changes)."""
    with open(MAKE_PODS, "rb") as f:
        return hashlib.sha256(f.read() + GENERATE_VERSION.encode()).hexdigest()[:16]


def generate(shape, n, out_dir):
    """Child mode: the pods, Jobs (and JobSet) of one shape and size, and meta.json: the pods
    in start order (hostname, completion index, Job), the expected spec (DNS names in the
    list's order) and TF's expected addresses (pod IPs)."""
    sys.path.insert(0, os.path.dirname(MAKE_PODS))
    import make_pods
    os.makedirs(out_dir, exist_ok=True)
    if shape == "indexed":
        pods = make_pods.make_pods(n, NAME, NAMESPACE, indexed=True)
        jobs = [make_pods.make_job(NAME, NAMESPACE, completions=n, pods=pods)]
        jobsets = None
        selector = "job-name=" + NAME
    else:
        rjobs = [(RJOBS[0], 1, n // 2), (RJOBS[1], 1, n - n // 2)]
        pods = make_pods.make_jobset_pods(NAME, rjobs, NAMESPACE)
        jobs = make_pods.make_jobset_jobs(NAME, rjobs, NAMESPACE, pods)
        jobsets = [make_pods.make_jobset(NAME, rjobs, NAMESPACE, pods)]
        selector = "jobset.sigs.k8s.io/jobset-name=" + NAME
    # make_pods returns them in the list's order: Job by Job (job-global-index), by index
    members, ips = [], []
    for p in pods:
        spec, meta = p["spec"], p["metadata"]
        members.append({"hostname": spec["hostname"], "index": int(meta["annotations"][INDEX_KEY]),
                        "job": meta["labels"]["job-name"]})
        ips.append("%s:%s" % (p["status"]["podIP"], PORT))
    expected = ["%s.%s.%s.svc.%s:%s" % (spec["hostname"], spec["subdomain"], NAMESPACE, DOMAIN,
                                        PORT) for spec in (p["spec"] for p in pods)]
    make_pods.dump(make_pods.pod_list(pods), os.path.join(out_dir, "pods.json"), compact=True)
    with open(os.path.join(out_dir, "jobs.json"), "w") as f:
        json.dump(make_pods.job_list(jobs), f, separators=(",", ":"))
    if jobsets:
        with open(os.path.join(out_dir, "jobsets.json"), "w") as f:
            json.dump(make_pods.jobset_list(jobsets), f, separators=(",", ":"))
    meta = {"generator": generator_digest(), "shape": shape, "n": n, "members": members,
            "expected": expected, "tf_expected": ips, "tf_selector": selector,
            "pods_bytes": os.path.getsize(os.path.join(out_dir, "pods.json"))}
    tmp = os.path.join(out_dir, "meta.json.tmp")
    with open(tmp, "w") as f:
        json.dump(meta, f)
    os.replace(tmp, os.path.join(out_dir, "meta.json"))


def objects(shape, n):
    """(directory, meta) of one shape and size, made once per version of make_pods.py."""
    out_dir = os.path.join(DATA_DIR, "%s-%d" % (shape, n))
    try:
        with open(os.path.join(out_dir, "meta.json")) as f:
            meta = json.load(f)
        if meta["generator"] == generator_digest():
            return out_dir, meta
    except (OSError, ValueError, KeyError):
        pass
    subprocess.run([sys.executable, os.path.abspath(__file__), "--generate", shape, str(n),
                    out_dir], check=True)
    with open(os.path.join(out_dir, "meta.json")) as f:
        return out_dir, json.load(f)


# ---------------------------------------------------------------- the fake API server

class Fake:
    """One fake_apf.py for one cell: the objects of one shape and size, a request log with
    bytes, --gzip or not, the APF model's figures."""

    def __init__(self, data_dir, tmp, gzip, apf):
        self.dir = tempfile.mkdtemp(prefix="fake-", dir=tmp)
        port_file = os.path.join(self.dir, "port")
        self.log = os.path.join(self.dir, "requests.jsonl")
        self.stats_path = os.path.join(self.dir, "apf.json")
        self.err_path = os.path.join(self.dir, "stderr")
        python = SYSTEM_PYTHON if os.path.exists(SYSTEM_PYTHON) else sys.executable
        cmd = [python, FAKE_APF, "--port-file", port_file, "--log", self.log, "--log-bytes",
               "--max-seconds", "7200", "--pods", os.path.join(data_dir, "pods.json"),
               "--jobs", os.path.join(data_dir, "jobs.json")]
        if os.path.exists(os.path.join(data_dir, "jobsets.json")):
            cmd += ["--jobsets", os.path.join(data_dir, "jobsets.json")]
        if gzip:
            cmd.append("--gzip")
        if apf:
            cmd += ["--apf-seats", str(apf["seats"]), "--apf-queue-length",
                    str(apf["queue_length"]), "--apf-wait", str(apf["wait_s"]),
                    "--apf-stats", self.stats_path]
        self.err = open(self.err_path, "wb")
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=self.err,
                                     stdin=subprocess.DEVNULL, env=child_env())
        started = time.perf_counter()
        while not os.path.exists(port_file):
            if self.proc.poll() is not None:
                fail("fake_apf.py exited with %s: %s" % (self.proc.returncode, self._stderr()))
            if time.perf_counter() - started > 300:
                self.stop()
                fail("fake_apf.py did not start within 300 s")
            time.sleep(0.02)
        with open(port_file) as f:
            self.url = "http://127.0.0.1:%d" % int(f.read())

    def _stderr(self):
        with open(self.err_path, "rb") as f:
            return f.read().decode(errors="replace").strip()

    def stop(self):
        """Stops this fake (our own child, by its pid); -> (its stderr, its APF stats)."""
        self.cpu = None
        if self.proc.returncode is None:
            self.proc.terminate()
            deadline = time.perf_counter() + 120
            while True:  # wait4 with a timeout, for the fake's CPU time
                pid, status, ru = os.wait4(self.proc.pid, os.WNOHANG)
                if pid:
                    self.proc.returncode = os.waitstatus_to_exitcode(status)
                    self.cpu = ru.ru_utime + ru.ru_stime
                    break
                if time.perf_counter() > deadline:
                    self.proc.kill()
                    deadline = float("inf")
                time.sleep(0.02)
        self.err.close()
        stats = None
        if os.path.exists(self.stats_path):
            with open(self.stats_path) as f:
                stats = json.load(f)
        return self._stderr(), stats

    def traffic(self):
        """Requests, 429s and body bytes sent, from the log (complete once the clients are
        gone: each line is written before its response)."""
        requests = rejected = sent = 0
        statuses = {}
        with open(self.log) as f:
            for line in f:
                if not line.strip():
                    continue
                r = json.loads(line)
                requests += 1
                statuses[r["status"]] = statuses.get(r["status"], 0) + 1
                rejected += r["status"] == 429
                sent += r.get("bytes") or 0
        return {"requests": requests, "rejected": rejected, "bytes": sent,
                "statuses": {str(k): v for k, v in sorted(statuses.items(), key=str)}}


# ---------------------------------------------------------------- the pods

class Pods:
    """Runs one command per pod, K at a time, from spawn (posix_spawn) to reap (wait4 of any
    child: blocking, so a pod's end is seen when it happens). Output goes to files."""

    def __init__(self, tmp, fake, limit_s):
        self.dir = tempfile.mkdtemp(prefix="pods-", dir=tmp)
        self.fake = fake
        self.limit_s = limit_s
        self.running = {}  # pid -> (index, start)
        self.lock = threading.Lock()
        self.killed = set()
        self.stop = threading.Event()

    def _watchdog(self):
        """Kills (by pid, our own children only) a pod still running limit_s after its
        spawn: the resolve bound plus a margin. A killed pod is a failure in the report."""
        while not self.stop.wait(1.0):
            now = time.perf_counter()
            with self.lock:
                late = [pid for pid, (_, start) in self.running.items()
                        if now - start > self.limit_s and pid not in self.killed]
                for pid in late:
                    self.killed.add(pid)
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass

    def run(self, count, k, command_of, check):
        """command_of(i) -> (argv, env); check(i, out bytes) -> None or why it is wrong.
        -> (per-pod results in pod order, seconds from the first spawn to the last reap)."""
        results = [None] * count
        watchdog = threading.Thread(target=self._watchdog, daemon=True)
        watchdog.start()
        started = time.perf_counter()
        nxt = 0
        try:
            while nxt < count or self.running:
                while nxt < count and len(self.running) < k:
                    self._spawn(nxt, *command_of(nxt))
                    nxt += 1
                pid, status, ru = os.wait4(-1, 0)
                end = time.perf_counter()
                with self.lock:
                    entry = self.running.pop(pid, None)
                    killed = pid in self.killed
                if entry is None:
                    if pid == self.fake.proc.pid:
                        self.fake.proc.returncode = os.waitstatus_to_exitcode(status)
                        fail("the fake API server exited (%s) during the run: %s" % (
                            self.fake.proc.returncode, self.fake._stderr()[-2000:]))
                    continue
                i, start = entry
                results[i] = self._result(i, end - start, status, ru, killed, check)
        finally:
            self.stop.set()
            with self.lock:
                for pid in self.running:
                    os.kill(pid, signal.SIGKILL)
            for pid in list(self.running):
                os.waitpid(pid, 0)
        return results, time.perf_counter() - started

    def _spawn(self, i, argv, env):
        out, err = self._paths(i)
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
        actions = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                   (os.POSIX_SPAWN_OPEN, 1, out, flags, 0o644),
                   (os.POSIX_SPAWN_OPEN, 2, err, flags, 0o644)]
        with self.lock:
            start = time.perf_counter()
            pid = os.posix_spawn(argv[0], argv, env, file_actions=actions)
            self.running[pid] = (i, start)

    def _paths(self, i):
        return os.path.join(self.dir, "%d.out" % i), os.path.join(self.dir, "%d.err" % i)

    def _result(self, i, wall, status, ru, killed, check):
        out_path, err_path = self._paths(i)
        with open(out_path, "rb") as f:
            out = f.read()
        with open(err_path, "rb") as f:
            err = f.read().decode(errors="replace")
        os.unlink(out_path)
        os.unlink(err_path)
        rc = os.waitstatus_to_exitcode(status)
        why = None
        if killed:
            why = "killed by the runner after %.0f s (no exit)" % self.limit_s
        elif rc != 0:
            why = "exit %d: %s" % (rc, err.strip().splitlines()[-1] if err.strip() else "")
        else:
            why = check(i, out)
        return {"wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "rc": rc, "why": why,
                "stderr": err[-4000:] if why else ""}


def spec_checker(expected):
    """check(i, out) for the CLI: the first output is parsed and compared with the expected
    spec; every other must be the same bytes (so every pod printed the identical spec)."""
    state = {"first": None}

    def check(i, out):
        if state["first"] is not None:
            if out == state["first"]:
                return None
        try:
            got = json.loads(out)
        except ValueError:
            return "stdout is not JSON: %r" % out[:200]
        if got != {"worker": expected}:
            workers = got.get("worker") if isinstance(got, dict) else None
            if isinstance(workers, list) and len(workers) == len(expected):
                bad = next(j for j, (a, b) in enumerate(zip(workers, expected)) if a != b)
                return "member %d is %r, expected %r" % (bad, workers[bad], expected[bad])
            return "not the %d expected members (got %s)" % (
                len(expected), "%d" % len(workers) if isinstance(workers, list) else repr(got)[:200])
        if state["first"] is None:
            state["first"] = out
            return None
        return "the expected spec, but not byte for byte the first pod's output"
    return check


def tf_checker(expected):
    """check(i, out) for tf_way.py: N addresses, the expected pod IPs (TF lists pod IPs, not
    DNS names), in the same order in every pod."""
    want = set(expected)
    state = {"first": None}

    def check(i, out):
        lines = out.decode(errors="replace").splitlines()
        try:
            addresses = json.loads(lines[1])["addresses"]
        except (IndexError, ValueError, KeyError):
            return "unexpected output: %r" % out[:200]
        if len(addresses) != len(expected) or set(addresses) != want:
            return "%d addresses, not the %d expected pod IPs" % (len(addresses), len(expected))
        if state["first"] is None:
            state["first"] = addresses
        elif addresses != state["first"]:
            return "the pod IPs in another order than the first pod's"
        return None
    return check


# ---------------------------------------------------------------- one cell

def apf_figures(args, n):
    """The APF model's figures for a run of n pods (None: --no-apf)."""
    if args.no_apf:
        return None
    q = args.queue_length if args.queue_length is not None else \
        max(1, round(args.queue_places * args.concurrency / n))
    return {"seats": args.seats, "queue_length": q, "wait_s": args.wait}


def run_cell(n, shape, mode, args, tmp):
    data_dir, meta = objects(shape, n)
    members = meta["members"]
    apf = apf_figures(args, n)
    fake = Fake(data_dir, tmp, mode == "list+gzip", apf)
    env_base = child_env()
    bound_s = args.resolve_timeout_ms / 1000.0
    if mode == TF_MODE:
        def command_of(i):
            return ([SYSTEM_PYTHON, TF_WAY, fake.url, meta["tf_selector"], PORT], env_base)
        check = tf_checker(meta["tf_expected"])
    else:
        members_flag = "job" if mode == "job" else "list"

        def command_of(i):
            m = members[i]
            env = dict(env_base, HOSTNAME=m["hostname"], JOB_COMPLETION_INDEX=str(m["index"]))
            return ([args.cli, "k8s", "--server", fake.url, "--namespace", NAMESPACE,
                     "--job", "worker=job-name=" + m["job"], "--follow-jobset",
                     "--address", "dns", "--members", members_flag, "--format", "spec",
                     "--resolve-timeout-ms", str(args.resolve_timeout_ms)], env)
        check = spec_checker(meta["expected"])
    pods = Pods(tmp, fake, bound_s + 60)
    try:
        results, elapsed = pods.run(n, args.concurrency, command_of, check)
    finally:
        err, stats = fake.stop()
    if err:
        print("warning: the fake at %d pods (%s, %s) wrote to stderr:\n%s" % (
            n, shape, mode, err[-2000:]), file=sys.stderr)
    traffic = fake.traffic()
    shutil.rmtree(fake.dir, ignore_errors=True)
    shutil.rmtree(pods.dir, ignore_errors=True)
    ok = [r for r in results if not r["why"]]
    failed = [dict(r, pod=members[i]["hostname"]) for i, r in enumerate(results) if r["why"]]
    walls = sorted(r["wall"] for r in ok)
    return {
        "n": n, "shape": shape, "mode": mode, "apf": apf, "apf_stats": stats,
        "elapsed": elapsed, "pods": n, "resolved": len(ok), "failed": len(failed),
        "failures": [{"pod": f["pod"], "wall": f["wall"], "why": f["why"],
                      "stderr": f["stderr"]} for f in failed[:5]],
        "failed_with_time_left": sum(1 for f in failed if f["wall"] < bound_s - 1.0),
        "same_spec": not failed,
        "p50": percentile(walls, 50), "p99": percentile(walls, 99),
        "max": walls[-1] if walls else None,
        "cpu": statistics.mean(r["cpu"] for r in results),
        "server_cpu": fake.cpu, "over_default_bound": sum(1 for w in walls if w > 60.0),
        **traffic}


def percentile(sorted_values, p):
    """The nearest-rank percentile (None without values)."""
    if not sorted_values:
        return None
    rank = max(1, math.ceil(p / 100.0 * len(sorted_values)))
    return sorted_values[rank - 1]


# ---------------------------------------------------------------- report

def fmt_t(s):
    if s is None:
        return "-"
    return "%.0f ms" % (s * 1000) if s < 1 else ("%.2f s" % s if s < 10 else "%.1f s" % s)


def fmt_bytes(b):
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if b >= scale:
            return "%.*f %s" % (1 if b < 100 * scale else 0, b / scale, unit)
    return "%d B" % b


SHAPE_TITLE = {"indexed": "Indexed Job", "jobset": "JobSet (2 Jobs)"}


def cell_row(c):
    same = "yes" if c["same_spec"] else "**no** (%d failed)" % c["failed"]
    fails = "%d" % c["failed"] if not c["failed"] else "**%d**" % c["failed"]
    return "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
        f"{c['n']:,}", SHAPE_TITLE[c["shape"]], c["mode"], f"{c['requests']:,}",
        f"{c['rejected']:,}", fmt_bytes(c["bytes"]), fmt_bytes(c["bytes"] / c["n"]),
        fmt_t(c["p50"]), fmt_t(c["p99"]), fmt_t(c["cpu"]), fails, same)


def find(cells, n, shape, mode):
    return next((c for c in cells if (c["n"], c["shape"], c["mode"]) == (n, shape, mode)), None)


def targets(cells, args):
    """-> Markdown lines: each target the project states, met or not, with the numbers."""
    lines = []
    # 1. job mode's bytes per pod: independent of N, at most 16 KB
    for shape in SHAPES:
        per_pod = [(c["n"], c["bytes"] / c["n"]) for c in cells
                   if c["shape"] == shape and c["mode"] == "job"]
        if not per_pod:
            continue
        hi, lo = max(b for _, b in per_pod), min(b for _, b in per_pod)
        ok = hi <= 16 * 1024 and (len(per_pod) < 2 or hi <= lo * 1.05)
        lines.append("- job mode's API bytes per pod independent of N and at most 16 KB (%s): "
                     "**%s** (%s)" % (SHAPE_TITLE[shape], "met" if ok else "not met", ", ".join(
                         "%s at %s pods" % (fmt_bytes(b), f"{n:,}") for n, b in per_pod)))
    # 2. at 1,024 pods, at least 100x fewer bytes in total than the list
    for shape in SHAPES:
        job = find(cells, 1024, shape, "job")
        for mode, what in (("list", "the list"), ("list+gzip", "the gzipped list")):
            other = find(cells, 1024, shape, mode)
            if not job or not other:
                continue
            ratio = other["bytes"] / job["bytes"]
            lines.append("- at 1,024 pods, at least 100x fewer bytes in total than %s (%s): "
                         "**%s** (%.0fx: %s against %s)" % (
                             what, SHAPE_TITLE[shape], "met" if ratio >= 100 else "not met",
                             ratio, fmt_bytes(job["bytes"]), fmt_bytes(other["bytes"])))
    # 3. with the seat limit, every pod of 4,096 resolves in both modes, none gives up early
    big = [c for c in cells if c["n"] == 4096 and c["mode"] != TF_MODE]
    if big and not args.no_apf:
        ok = all(c["failed"] == 0 for c in big) and \
            {c["mode"] == "job" for c in big} == {True, False}
        lines.append("- with the seat limit on, every pod of 4,096 resolves in both modes and none "
                     "gives up while time is left in its bound: **%s** (%s)" % (
                         "met" if ok else "not met", "; ".join(
                             "%s %s: %d of %d resolved, %d gave up with time left" % (
                                 SHAPE_TITLE[c["shape"]], c["mode"], c["resolved"], c["n"],
                                 c["failed_with_time_left"]) for c in big)))
        if not any(c["mode"] != "job" for c in big):
            lines.append("  (the list was not run at 4,096 pods)")
    # 4. job mode's p99 at least 10x lower than the list's
    for c in cells:
        if c["mode"] != "job" or c["p99"] is None:
            continue
        parts, oks = [], []
        for m in ("list", "list+gzip"):
            other = find(cells, c["n"], c["shape"], m)
            if other and other["p99"] is not None:
                ratio = other["p99"] / c["p99"]
                parts.append("%.0fx lower than %s" % (ratio, m))
                oks.append(ratio >= 10)
        if parts:
            lines.append("- job mode's p99 at least 10x lower than the list's (%s, %s pods): "
                         "**%s** (%s)" % (SHAPE_TITLE[c["shape"]], f"{c['n']:,}",
                                          "met" if all(oks) else "not met", "; ".join(parts)))
    return lines


def report(cells, args, facts, elapsed, skipped, image=None):
    """The Markdown report; image: the plot's path relative to where the text goes."""
    lines = ["# Start-up: every pod of a job resolves at once (list vs job mode, with APF)", ""]
    lines += ["![start-up](%s)" % image, ""] if image else []
    lines += facts + [""]
    lines += ["| pods | shape | mode | requests | 429s | bytes sent | bytes per pod | p50 "
              "| p99 | CPU per pod | failed | every pod the same, expected spec |",
              "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    lines += [cell_row(c) for c in cells]
    lines += ["", "Targets:", ""] + targets(cells, args) + [""]
    lines += ["Where the time goes, per cell: from the first spawn to the last exit; the fake "
              "API server's CPU; pods slower than the CLI's default bound (60 s); the APF "
              "model's queue length, requests by seats, rejections (queue full, waited too "
              "long), the longest wait in its queue and the Retry-After values it sent:", "",
              "| pods | shape | mode | all pods done | fake's CPU | pods over 60 s | queue "
              "| requests x seats | 429: queue full | 429: waited too long | longest wait "
              "| Retry-After sent |",
              "|---:|---|---|---:|---:|---:|---:|---|---:|---:|---:|---|"]
    for c in cells:
        st = c["apf_stats"] or {}
        ra = ", ".join("%s s x%d" % (k, v) for k, v in sorted(
            st.get("retry_after_sent", {}).items(), key=lambda kv: int(kv[0])))
        lines.append("| %s | %s | %s | %s | %s | %d | %s | %s | %s | %s | %s | %s |" % (
            f"{c['n']:,}", SHAPE_TITLE[c["shape"]], c["mode"], fmt_t(c["elapsed"]),
            fmt_t(c["server_cpu"]), c["over_default_bound"],
            st.get("queue_length", "-"), ", ".join("%s x%s" % (f"{v:,}", k) for k, v in sorted(
                st.get("seats_by_request", {}).items(), key=lambda kv: int(kv[0]))) or "-",
            f"{st['rejected_queue_full']:,}" if st else "-",
            f"{st['rejected_wait_timeout']:,}" if st else "-",
            fmt_t(st["longest_wait_s"]) if st else "-", ra or "-"))
    lines.append("")
    fails = [c for c in cells if c["failures"]]
    for c in fails:
        lines.append("Failures at %s pods, %s, %s (first %d of %d):" % (
            f"{c['n']:,}", SHAPE_TITLE[c["shape"]], c["mode"], len(c["failures"]), c["failed"]))
        lines.append("")
        for f in c["failures"]:
            lines.append("- %s after %s: %s" % (f["pod"], fmt_t(f["wall"]), f["why"]))
        lines.append("")
    lines += ["- Every cell: the time of each pod from spawn to exit (p50, p99: nearest rank, "
              "over the pods that resolved); CPU: user + system of the pod's process (wait4), "
              "the mean; bytes: response bodies as sent (after gzip), summed over the fake's "
              "request log, 429 answers included; requests and 429s from the same log."]
    lines.append("- K pods share the machine's %d CPUs here, so a pod's time includes waiting "
                 "for a CPU behind the others, about K x (CPU per pod) / CPUs: on a cluster each "
                 "pod has a node of its own. The list's 429s and its p99 come from the seat "
                 "limit; the p99 of job mode and of the list at 256 pods, from the CPUs." %
                 os.cpu_count())
    if skipped:
        lines.append("- Not run (the default leaves out the costliest cells; `--all` runs "
                     "them): %s." % ", ".join("%s pods %s %s" % (f"{n:,}", SHAPE_TITLE[s], m)
                                              for n, s, m in skipped))
    lines.append("- Whole run: %.0f s; load average at the end %s." % (elapsed, load_average()))
    return "\n".join(lines) + "\n"


def machine_facts(args):
    cpu = cpu_model()
    fake_python = SYSTEM_PYTHON if os.path.exists(SYSTEM_PYTHON) else sys.executable
    k8s = first_line([SYSTEM_PYTHON, "-c", "import kubernetes; print(kubernetes.__version__)"])
    commit = first_line(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"])
    dirty = first_line(["git", "-C", ROOT, "status", "--porcelain", "--", "cluster_resolver.h"])
    out = ["- run: %s, commit %s%s" % (
        time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), commit,
        ", cluster_resolver.h modified" if dirty not in ("", "unavailable") else ""),
        "- machine: %d CPUs, %s; %s %s; load average at start %s" % (
            os.cpu_count(), cpu, platform.system(), platform.release(), load_average()),
        "- pods: %d at a time (`--concurrency`), each one run of `%s k8s ... --members "
        "list|job --address dns --follow-jobset --format spec --resolve-timeout-ms %d` with "
        "its HOSTNAME and JOB_COMPLETION_INDEX (default retries); TF's way: "
        "`bench/k8s/tf_way.py` under %s, python3-kubernetes %s" % (
            args.concurrency, os.path.relpath(args.cli, ROOT), args.resolve_timeout_ms,
            SYSTEM_PYTHON, k8s),
        "- shapes: an Indexed Job `trainer` of N pods; a JobSet `trainer` of two replicated "
        "jobs, `driver` and `workers`, 1 replica of N/2 pods each (objects from "
        "tests/k8s/make_pods.py; about 5.2 KB a pod)",
        "- fake API server: `bench/k8s/startup/fake_apf.py` (tests/fake_api.py) under %s (%s); "
        "list+gzip: with `--gzip`" % (fake_python, first_line([fake_python, "--version"]))]
    if args.no_apf:
        out.append("- APF: off (`--no-apf`)")
    else:
        q = ("%d" % args.queue_length if args.queue_length is not None else
             "%d x K / N (%s)" % (args.queue_places, ", ".join(
                 "%d at %s pods" % (apf_figures(args, n)["queue_length"], f"{n:,}")
                 for n in args.sizes)))
        out.append("- APF model: %d seats; a LIST costs ceil(stored pods / 100) seats, 1 to 10; "
                   "a GET 1; queue %s requests, wait at most %g s; 429 with APF's Retry-After "
                   "(1 s, doubled up to 32 s under sustained drops)" % (args.seats, q, args.wait))
    return out


# ---------------------------------------------------------------- the plot

MODE_STYLE = {"list": ("#c51b7d", 5), "list+gzip": ("#e08214", 9), "job": ("#1b7837", 7),
              TF_MODE: ("#2166ac", 11)}


def plot(cells, png, workdir):
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        print("warning: gnuplot not found (Debian: gnuplot-nox; `make bench-startup` installs "
              "it when run as root): no plot", file=sys.stderr)
        return False
    os.makedirs(workdir, exist_ok=True)
    curves = []
    for shape in SHAPES:
        for mode in MODES + (TF_MODE,):
            pts = sorted((c["n"], c["p99"], c["bytes"]) for c in cells
                         if c["shape"] == shape and c["mode"] == mode and c["p99"])
            if pts:
                curves.append((shape, mode, pts))
    if not curves:
        return False
    xs = [x for _, _, pts in curves for x, _, _ in pts]
    script = ["set terminal pngcairo size 1100,640 font 'sans,11' noenhanced",
              "set output '%s'" % png,
              "set multiplot layout 1,2 title 'All pods of a job resolving at once, %s at a "
              "time, against a fake API server with a seat limit (log-log; lower is better)' "
              "font 'sans,12'" % cells[0].get("k", ""),
              "set logscale xy", "set grid xtics ytics mxtics mytics lc rgb '#dddddd'",
              "set key below box samplen 2 spacing 1.1 font 'sans,9' maxrows 4",
              "set xlabel 'pods' offset 0,0.9", "set bmargin 7",
              "set xrange [%g:%g]" % (min(xs) / 1.5, max(xs) * 1.5),
              "set xtics (%s)" % ", ".join("'%s' %d" % (f"{x:,}", x) for x in sorted(set(xs)))]
    for panel, (title, ylabel, col, fmt) in enumerate((
            ("p99 time from spawn to spec", "seconds", 2, "%g s"),
            ("bytes the API server sent, all pods", "bytes", 3, "%.0s %cB"))):
        script += ["set title '%s'" % title, "set ylabel '%s'" % ylabel,
                   "set format y '%s'" % fmt]
        plots = []
        for c, (shape, mode, pts) in enumerate(curves):
            path = os.path.join(workdir, "p%d-%d.dat" % (panel, c))
            with open(path, "w") as f:
                f.write("".join("%d %.9g %.9g\n" % p for p in pts))
            colour, pt = MODE_STYLE[mode]
            plots.append("'%s' using 1:%d with linespoints lw 2 pt %d ps 1.2 dt %d lc rgb '%s' "
                         "title '%s'" % (path, col, pt, 1 if shape == "indexed" else 2, colour,
                                         ("%s, %s" % (SHAPE_TITLE[shape], mode)).replace("'", "''")))
        script.append("plot " + ", \\\n     ".join(plots))
    script.append("unset multiplot")
    gp = os.path.join(workdir, "startup.gp")
    with open(gp, "w") as f:
        f.write("\n".join(script) + "\n")
    p = subprocess.run([gnuplot, gp], capture_output=True, text=True)
    if p.returncode:
        fail("gnuplot failed (%s):\n%s" % (gp, p.stderr[-2000:]))
    return True


# ---------------------------------------------------------------- main

def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="256,1024,4096", help="pod counts, comma-separated")
    ap.add_argument("--shapes", default=",".join(SHAPES), help="indexed, jobset")
    ap.add_argument("--modes", default=",".join(MODES), help="list, list+gzip, job")
    ap.add_argument("--concurrency", "-k", type=int, default=64, metavar="K",
                    help="pods running at once (default 64)")
    ap.add_argument("--seats", type=int, default=24, help="the priority level's seats (24)")
    ap.add_argument("--queue-places", type=int, default=FLOW_QUEUE_PLACES,
                    help="queue places of the flow when all N pods start at once; the fake's "
                         "queue holds this x K / N (default 300: 6 queues of 50)")
    ap.add_argument("--queue-length", type=int, help="a fixed queue length instead")
    ap.add_argument("--wait", type=float, default=15.0, help="longest wait in the queue (15 s)")
    ap.add_argument("--no-apf", action="store_true", help="the fake without the seat limit")
    ap.add_argument("--resolve-timeout-ms", type=int, default=600000,
                    help="each pod's resolve bound (default 600000)")
    ap.add_argument("--tf-sizes", help="sizes at which TF's way runs (default: the smallest; "
                                      "'none': never)")
    ap.add_argument("--tf-shapes", default="indexed",
                    help="shapes TF's way runs for (default indexed: it lists N pods either way)")
    ap.add_argument("--skip", default=",".join(DEFAULT_SKIP),
                    help="cells N:SHAPE:MODE not to run (default: %s)" % ",".join(DEFAULT_SKIP))
    ap.add_argument("--all", action="store_true", help="run every cell (--skip '')")
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "cluster-resolve"))
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "bench", "startup.md"))
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    ap.add_argument("--plot", default=os.path.join(ROOT, "docs", "startup.png"))
    ap.add_argument("--no-plot", action="store_true")
    ap.add_argument("--generate", nargs=3, metavar=("SHAPE", "N", "DIR"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.generate:
        return args
    args.sizes = sorted(set(parse_sizes(ap, args.sizes, "256,1024")))
    args.shapes = [s.strip() for s in args.shapes.split(",") if s.strip()]
    args.modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if not args.shapes or set(args.shapes) - set(SHAPES):
        ap.error("--shapes: some of %s" % ", ".join(SHAPES))
    if set(args.modes) - set(MODES):
        ap.error("--modes: some of %s" % ", ".join(MODES))
    if "jobset" in args.shapes and any(n < 2 for n in args.sizes):
        ap.error("a JobSet of two Jobs needs at least 2 pods")
    if args.concurrency < 1 or args.seats < 0 or args.wait <= 0 or args.resolve_timeout_ms < 1:
        ap.error("--concurrency, --wait and --resolve-timeout-ms must be positive")
    if args.tf_sizes is None:
        args.tf_sizes = [args.sizes[0]]
    elif args.tf_sizes.strip() == "none":
        args.tf_sizes = []
    else:
        args.tf_sizes = parse_sizes(ap, args.tf_sizes, "256")
    args.tf_shapes = [s.strip() for s in args.tf_shapes.split(",") if s.strip()]
    if set(args.tf_shapes) - set(SHAPES):
        ap.error("--tf-shapes: some of %s" % ", ".join(SHAPES))
    skip = "" if args.all else args.skip
    args.skip = set()
    for item in (s.strip() for s in skip.split(",") if s.strip()):
        parts = item.split(":")
        if len(parts) != 3 or not parts[0].isdigit():
            ap.error("--skip wants N:SHAPE:MODE, got %r" % item)
        args.skip.add((int(parts[0]), parts[1], parts[2]))
    args.cli = os.path.abspath(args.cli)
    args.plot_in_report = False
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.generate:
        generate(args.generate[0], int(args.generate[1]), args.generate[2])
        return 0
    started = time.perf_counter()
    if not os.path.exists(args.cli):
        if args.cli != os.path.join(ROOT, "build", "cluster-resolve"):
            fail("no such file: %s" % args.cli)
        subprocess.run(["make", "-C", ROOT, "--no-print-directory", "build/cluster-resolve"],
                       check=True)
    if args.tf_sizes and subprocess.run([SYSTEM_PYTHON, "-c", "import kubernetes"],
                                        capture_output=True).returncode:
        fail("%s cannot import kubernetes (Debian: apt-get install python3-kubernetes), "
             "which TF's way needs; --tf-sizes none runs without it" % SYSTEM_PYTHON)
    facts = machine_facts(args)
    plan, skipped = [], []
    for n in args.sizes:
        for shape in args.shapes:
            modes = [m for m in MODES if m in args.modes]
            tf = n in args.tf_sizes and shape in args.tf_shapes
            for mode in modes + ([TF_MODE] if tf else []):
                (skipped if (n, shape, mode) in args.skip else plan).append((n, shape, mode))
    tmp = tempfile.mkdtemp(prefix="bench-startup-")
    cells = []
    try:
        for n, shape, mode in plan:
            print("... %s pods, %s, %s" % (f"{n:,}", shape, mode), file=sys.stderr, flush=True)
            c = run_cell(n, shape, mode, args, tmp)
            c["k"] = args.concurrency
            cells.append(c)
            print("    %.1f s: %d of %d resolved; %s requests, %s 429s, %s; p50 %s, p99 %s; "
                  "CPU %s a pod" % (c["elapsed"], c["resolved"], n, f"{c['requests']:,}",
                                    f"{c['rejected']:,}", fmt_bytes(c["bytes"]), fmt_t(c["p50"]),
                                    fmt_t(c["p99"]), fmt_t(c["cpu"])),
                  file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if not args.no_plot and cells:
        os.makedirs(os.path.dirname(os.path.abspath(args.plot)), exist_ok=True)
        args.plot_in_report = plot(cells, os.path.abspath(args.plot),
                                   os.path.join(ROOT, "build", "bench", "startup-plot"))
    elapsed = time.perf_counter() - started
    plot_path = os.path.abspath(args.plot)

    def image(where):
        return os.path.relpath(plot_path, where) if args.plot_in_report else None
    save_report(args.out, report(cells, args, facts, elapsed, skipped,
                                 image(os.path.dirname(os.path.abspath(args.out)))))
    if args.json:  # bench/report.py puts this text into docs/benchmarks.md
        text = report(cells, args, facts, elapsed, skipped, image(os.path.join(ROOT, "docs")))
        save_json(args.json, {"bench": "startup", "cells": cells, "markdown": text})
    return 1 if any(c["failed"] for c in cells) else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Kubernetes resolve benchmark: cluster-resolve against TensorFlow's way, side by side.

For each size N (default 100, 1000, 10000) it generates N realistic Running pods of the
Indexed Job `trainer` in namespace `default` (tests/k8s/make_pods.py, cached in build/bench/),
starts one tests/fake_api.py serving them (loopback, port file, request log) and measures,
each --repeat times, interleaved:

  ours        build/cluster-resolve k8s --server URL --namespace default
                  --job worker=job-name=trainer --format spec        (pages of 500, the default)
  TF's way    bench/k8s/tf_way.py under /usr/bin/python3 with Debian's python3-kubernetes:
                  list_pod_for_all_namespaces(label_selector="job-name=trainer"), one unpaged
                  call, sorted by name, "<podIP>:8470"
  floor       curl -s -o /dev/null URL: the single unpaged list (the transfer floor), and the
                  same pages our run asked for, taken from the fake's request log (how long
                  the fake takes to serve them)

It reports the median wall time and the largest peak RSS of each, the requests each made
(from the fake's log), and checks that both give the same addresses (ours in completion-index
order, TF's as a set). The table is printed and written to build/bench/k8s.md.

usage: python3 bench/k8s/run.py [--sizes 100,1000,10000] [--repeat 3] [--tf-slow 10]
                                [--nodelay] [--cli build/cluster-resolve] [--out build/bench/k8s.md]
                                [--json FILE]
Standard library only. Builds build/cluster-resolve with make when it is missing.
"""
import argparse
import hashlib
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from urllib.parse import urlencode

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
from benchlib import (child_env, cpu_model, first_line, fmt_s, load_average, med,  # noqa: E402
                      parse_sizes, save_json, save_report)
MAKE_PODS = os.path.join(ROOT, "tests", "k8s", "make_pods.py")
FAKE = os.path.join(ROOT, "tests", "fake_api.py")
FAKE_NODELAY = os.path.join(HERE, "fake_nodelay.py")
TF_WAY = os.path.join(HERE, "tf_way.py")
RUSAGE_SRC = os.path.join(HERE, "rusage_exec.c")
BENCH_DIR = os.path.join(ROOT, "build", "bench")

JOB, NAMESPACE, SELECTOR, PORT, PAGE = "trainer", "default", "job-name=trainer", "8470", 500
INDEX_KEY = "batch.kubernetes.io/job-completion-index"
SYSTEM_PYTHON = "/usr/bin/python3"
MiB = 1024.0


def fail(msg):
    raise SystemExit("bench/k8s: " + msg)
# ---------------------------------------------------------------- pods (generated in a child)

def generate(n, path):
    """Child mode: writes the PodList to path and its facts to path's .meta.json."""
    sys.path.insert(0, os.path.dirname(MAKE_PODS))
    import make_pods
    pods = make_pods.make_pods(n, JOB, NAMESPACE, indexed=True)
    by_index = sorted(pods, key=lambda p: int(p["metadata"]["annotations"][INDEX_KEY]))
    expected = ["%s:%s" % (p["status"]["podIP"], PORT) for p in by_index]
    make_pods.dump(make_pods.pod_list(pods), path, compact=True)
    meta = {"count": n, "generator": generator_digest(), "file_bytes": os.path.getsize(path),
            "expected": expected}
    with open(meta_path(path) + ".tmp", "w") as f:
        json.dump(meta, f)
    os.replace(meta_path(path) + ".tmp", meta_path(path))


def generator_digest():
    with open(MAKE_PODS, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


def meta_path(path):
    return path[:-len(".json")] + ".meta.json"


def cached_pods(n):
    """(path, meta) of N pods, generated once per version of make_pods.py. The generation
    runs in a child so this process stays small (see rusage_exec.c)."""
    path = os.path.join(BENCH_DIR, "pods-%d.json" % n)
    try:
        with open(meta_path(path)) as f:
            meta = json.load(f)
        if meta["generator"] == generator_digest() and meta["count"] == n and \
                os.path.getsize(path) == meta["file_bytes"]:
            return path, meta, False
    except (OSError, ValueError, KeyError):
        pass
    subprocess.run([sys.executable, os.path.abspath(__file__), "--generate", str(n), path],
                   check=True)
    with open(meta_path(path)) as f:
        return path, json.load(f), True


# ---------------------------------------------------------------- running and measuring

class Runner:
    """Runs a command and measures wall time (perf_counter around the run), peak RSS and CPU
    time of exactly that command."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.trampoline = self._build_trampoline()
        self.env = child_env()

    def _build_trampoline(self):
        exe = os.path.join(BENCH_DIR, "rusage_exec")
        if os.path.exists(exe) and os.path.getmtime(exe) >= os.path.getmtime(RUSAGE_SRC):
            return exe
        cc = os.environ.get("CC") or "cc"
        tmp_exe = "%s.%d.tmp" % (exe, os.getpid())
        p = subprocess.run([cc, "-std=c99", "-O2", "-Wall", "-Wextra", RUSAGE_SRC, "-o", tmp_exe],
                           capture_output=True, text=True)
        if p.returncode == 0:
            os.replace(tmp_exe, exe)
            return exe
        print("warning: could not build %s (%s); measuring peak RSS with os.wait4() from this "
              "process, so no value below this process's own RSS can show" %
              (exe, p.stderr.strip()[:200]), file=sys.stderr)
        return None

    def run(self, cmd, timeout=600):
        """-> dict(wall, rss_kib, cpu, rc, out, err)."""
        out_path = os.path.join(self.tmp, "stdout")
        err_path = os.path.join(self.tmp, "stderr")
        ru_path = os.path.join(self.tmp, "rusage")
        if os.path.exists(ru_path):
            os.unlink(ru_path)
        full = [self.trampoline, ru_path] + cmd if self.trampoline else cmd
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            start = time.perf_counter()
            proc = subprocess.Popen(full, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                    env=self.env)
            deadline = start + timeout
            while True:  # os.wait4 with a timeout
                pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
                if pid:
                    break
                if time.perf_counter() > deadline:
                    proc.kill()
                    proc.wait()
                    fail("timed out after %d s: %s" % (timeout, " ".join(cmd)))
                time.sleep(0.0005)
            wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        rss, cpu = ru.ru_maxrss, ru.ru_utime + ru.ru_stime
        if self.trampoline and os.path.exists(ru_path):
            with open(ru_path) as f:
                kib, user, system = f.read().split()
            rss, cpu = int(kib), float(user) + float(system)
        with open(out_path, "rb") as f:
            stdout = f.read().decode()
        with open(err_path, "rb") as f:
            stderr = f.read().decode()
        return {"wall": wall, "rss_kib": rss, "cpu": cpu, "rc": proc.returncode,
                "out": stdout, "err": stderr}


class Fake:
    """One tests/fake_api.py serving the pods of one size, with a request log."""

    def __init__(self, pods_path, tmp, nodelay, extra=(), start_within=300, lifetime=3600):
        """extra: more fake_api.py options; start_within: seconds it may take to load the pods
        (a 520 MB list takes about a minute); lifetime: its --max-seconds."""
        self.dir = tempfile.mkdtemp(prefix="fake-", dir=tmp)
        port_file = os.path.join(self.dir, "port")
        self.log = os.path.join(self.dir, "requests.jsonl")
        self.err_path = os.path.join(self.dir, "stderr")
        python = SYSTEM_PYTHON if os.path.exists(SYSTEM_PYTHON) else sys.executable
        cmd = [python, FAKE_NODELAY if nodelay else FAKE, "--port-file", port_file,
               "--pods", pods_path, "--log", self.log, "--max-seconds", str(lifetime)] + list(extra)
        self.err = open(self.err_path, "wb")
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=self.err,
                                     stdin=subprocess.DEVNULL, env=child_env())
        started = time.perf_counter()
        while not os.path.exists(port_file):
            if self.proc.poll() is not None:
                fail("fake_api.py exited with %s: %s" % (self.proc.returncode, self._stderr()))
            if time.perf_counter() - started > start_within:
                self.stop()
                fail("fake_api.py did not start within %d s" % start_within)
            time.sleep(0.02)
        self.startup = time.perf_counter() - started
        with open(port_file) as f:
            self.url = "http://127.0.0.1:%d" % int(f.read())

    def _stderr(self):
        with open(self.err_path, "rb") as f:
            return f.read().decode(errors="replace").strip()

    def requests(self):
        """Every request logged so far (written before each response, so complete once the
        client that made them has exited)."""
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            return [json.loads(line) for line in f if line.strip()]

    def stop(self):
        """Stops this fake (our own child, by its pid); returns what it wrote to stderr."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.err.close()
        return self._stderr()


# ---------------------------------------------------------------- one size

def unpaged_url(base):
    return base + "/api/v1/pods?" + urlencode({"labelSelector": SELECTOR})


def curl_config(base, logged, path):
    """A curl config fetching exactly the logged requests (same path and query, so the same
    continue tokens) over one connection, bodies to /dev/null."""
    with open(path, "w") as f:
        for r in logged:
            query = urlencode(r["query"], doseq=True)
            f.write('url = "%s%s%s"\noutput = "/dev/null"\n' %
                    (base, r["path"], "?" + query if query else ""))
    return path


def bench_size(n, args, runner, tmp, notes):
    pods_path, meta, made = cached_pods(n)
    expected = meta["expected"]
    pages = max(1, math.ceil(n / PAGE))
    fake = Fake(pods_path, tmp, args.nodelay)
    res = {"n": n, "generated": made, "fake_startup": fake.startup, "ours": [], "tf": [],
           "floor": [], "paged": [], "tf_inner": []}
    try:
        ours_cmd = [args.cli, "k8s", "--server", fake.url, "--namespace", NAMESPACE,
                    "--job", "worker=" + SELECTOR, "--format", "spec"]
        tf_cmd = [SYSTEM_PYTHON, TF_WAY, fake.url, SELECTOR, PORT]
        floor_cmd = ["curl", "-s", "-o", "/dev/null", "-w", "%{size_download}",
                     unpaged_url(fake.url)]

        def measured(cmd, what):
            """Runs cmd; -> (result, the requests it made)."""
            before = len(fake.requests())
            r = runner.run(cmd)
            if r["rc"] != 0:
                fail("%s failed at %d pods (exit %d): %s" % (what, n, r["rc"], r["err"][-2000:]))
            return r, fake.requests()[before:]

        # warm-up (not counted): the fake's first answers, and the pages our run asks for
        r, _ = measured(floor_cmd, "curl")
        res["list_bytes"] = int(r["out"])
        _, ours_pages = measured(ours_cmd, "cluster-resolve")
        paged_cfg = curl_config(fake.url, ours_pages, os.path.join(fake.dir, "pages.curl"))
        paged_cmd = ["curl", "-s", "-K", paged_cfg]

        for rep in range(args.repeat):
            r, reqs = measured(ours_cmd, "cluster-resolve")
            got = json.loads(r["out"])
            if got != {"worker": expected}:
                fail("ours at %d pods: not the %d addresses in completion-index order "
                     "(got %d)" % (n, n, len(got.get("worker", []))))
            if len(reqs) != pages:
                fail("ours at %d pods made %d requests, expected %d" % (n, len(reqs), pages))
            r["requests"] = len(reqs)
            r["addresses"] = got["worker"]
            res["ours"].append(r)

            r, reqs = measured(paged_cmd, "curl (paged)")
            if len(reqs) != pages:
                fail("curl replaying our pages made %d requests" % len(reqs))
            res["paged"].append(r)

            r, reqs = measured(floor_cmd, "curl (unpaged)")
            res["floor"].append(r)

            slow = [t["wall"] for t in res["tf"] if t["wall"] >= args.tf_slow]
            if rep == 0 or not slow:
                r, reqs = measured(tf_cmd, "TF's way (python3-kubernetes)")
                lines = r["out"].splitlines()
                inner = json.loads(lines[1])
                if int(lines[0]) != n or inner["count"] != n:
                    fail("TF's way at %d pods printed count %s" % (n, lines[0]))
                theirs = inner.pop("addresses")
                if set(theirs) != set(expected) or len(theirs) != n:
                    fail("TF's way at %d pods: a different set of addresses" % n)
                if set(theirs) != set(res["ours"][-1]["addresses"]):
                    fail("ours and TF's way disagree at %d pods" % n)
                if len(reqs) != 1:
                    fail("TF's way at %d pods made %d requests, expected 1" % (n, len(reqs)))
                r["requests"] = len(reqs)
                res["tf"].append(r)
                res["tf_inner"].append(inner)
        if len(res["tf"]) < args.repeat:
            notes.append("TF's way at %s pods ran %s, not %d times: a run took %.1f s "
                         "(>= --tf-slow %g s)." % (
                             f"{n:,}", "once" if len(res["tf"]) == 1 else
                             "%d times" % len(res["tf"]), args.repeat, max(
                                 t["wall"] for t in res["tf"]), args.tf_slow))
    finally:
        err = fake.stop()
    if err:
        print("warning: fake_api.py at %d pods wrote to stderr:\n%s" % (n, err[-2000:]),
              file=sys.stderr)
    return res


# ---------------------------------------------------------------- report
def peak(runs):
    return max(r["rss_kib"] for r in runs) / MiB

def fmt_runs(runs, repeat):
    return "" if len(runs) == repeat else " (%d run%s)" % (len(runs), "" if len(runs) == 1 else "s")


def machine_facts(args, load):
    cpu = cpu_model()
    k8s = first_line([SYSTEM_PYTHON, "-c", "import kubernetes; print(kubernetes.__version__)"])
    fake_python = SYSTEM_PYTHON if os.path.exists(SYSTEM_PYTHON) else sys.executable
    return [
        "- machine: %d CPUs (`nproc`: %s), %s; %s %s; load average at start %s" % (
            os.cpu_count(), first_line(["nproc"]), cpu, platform.system(), platform.release(),
            load),
        "- runner: %s %s; fake API server: `tests/fake_api.py` under %s (%s)%s" % (
            sys.executable, platform.python_version(), fake_python,
            first_line([fake_python, "--version"]),
            ", with TCP_NODELAY (`--nodelay`)" if args.nodelay else
            ", as is (Python's http.server: Nagle on)"),
        "- TF's way: %s (%s), python3-kubernetes %s" % (
            SYSTEM_PYTHON, first_line([SYSTEM_PYTHON, "--version"]), k8s),
        "- ours: `%s` (%s, `-O2`, bundled libcurl transport)" % (
            os.path.relpath(args.cli, ROOT), first_line(["gcc", "--version"])),
        "- curl: %s" % first_line(["curl", "--version"]),
        "- each measurement repeated %d times: median wall time, largest peak RSS "
        "(`ru_maxrss` of exactly that process, via bench/k8s/rusage_exec); TF's way is "
        "repeated only while a run takes under %g s (`--tf-slow`)" % (args.repeat, args.tf_slow),
    ]


def report(results, args, notes, elapsed, facts):
    lines = ["# Kubernetes resolve: cluster-resolve vs TensorFlow's way", ""]
    lines += facts + [""]
    lines += [
        "| pods | list bytes | ours: time | ours: peak RSS | ours: requests "
        "| TF's way (python3-kubernetes): time | TF's way: peak RSS | TF's way: requests "
        "| speed-up |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        ours, tf = r["ours"], r["tf"]
        lines.append("| %s | %s | %s | %.1f MiB | %d | %s%s | %.1f MiB | %d | %.0fx |" % (
            f"{r['n']:,}", f"{r['list_bytes']:,}", fmt_s(med(ours)), peak(ours),
            ours[0]["requests"], fmt_s(med(tf)), fmt_runs(tf, args.repeat), peak(tf),
            tf[0]["requests"], med(tf) / med(ours)))
    lines += ["", "Where the time goes (medians):", "",
              "| pods | transfer floor: curl, 1 unpaged list | fake serving our pages: curl, "
              "same URLs | ours: wall | ours: CPU | TF's way: import | TF's way: list call "
              "| TF's way: sort + build | TF's way: CPU |",
              "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        inner = r["tf_inner"]
        lines.append("| %s | %s | %s (%d req.) | %s | %s | %s | %s | %s | %s |" % (
            f"{r['n']:,}", fmt_s(med(r["floor"])), fmt_s(med(r["paged"])),
            r["ours"][0]["requests"], fmt_s(med(r["ours"])), fmt_s(med(r["ours"], "cpu")),
            fmt_s(med(inner, "import_s")), fmt_s(med(inner, "list_s")),
            fmt_s(med(inner, "sort_s")), fmt_s(med(r["tf"], "cpu"))))
    lines += [""]
    lines += ["- All answers checked: ours = the N pod IPs in completion-index order; TF's way "
              "= the same set (sorted by name); requests counted in the fake's log."]
    lines += ["- " + n for n in notes]
    lines += ["- Whole run: %.0f s; load average at the end %s." % (elapsed, load_average())]
    return "\n".join(lines) + "\n"


def write_json(path, results, text):
    """--json: per size the median wall times (s), peak RSS (MiB) and requests, and the report."""
    rows = [{"n": r["n"], "list_bytes": r["list_bytes"],
             "ours_s": med(r["ours"]), "ours_rss_mib": peak(r["ours"]),
             "ours_requests": r["ours"][0]["requests"], "ours_runs": len(r["ours"]),
             "tf_s": med(r["tf"]), "tf_rss_mib": peak(r["tf"]), "tf_runs": len(r["tf"]),
             "floor_s": med(r["floor"]), "paged_s": med(r["paged"])} for r in results]
    save_json(path, {"bench": "k8s", "sizes": rows, "markdown": text})


# ---------------------------------------------------------------- main

def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="100,1000,10000", help="pod counts, comma-separated")
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement (median)")
    ap.add_argument("--tf-slow", type=float, default=10.0, metavar="SECONDS",
                    help="repeat TF's way only while a run takes less (default 10; 0 = once)")
    ap.add_argument("--nodelay", action="store_true",
                    help="serve with TCP_NODELAY, as kube-apiserver (Go) does")
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "cluster-resolve"))
    ap.add_argument("--out", default=os.path.join(BENCH_DIR, "k8s.md"),
                    help="where the Markdown report goes (default build/bench/k8s.md)")
    ap.add_argument("--json", metavar="FILE",
                    help="also write the results (medians, seconds) and the report as JSON")
    ap.add_argument("--generate", nargs=2, metavar=("N", "PATH"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    args.sizes = parse_sizes(ap, args.sizes, "100,1000")
    if args.repeat < 1:
        ap.error("--repeat must be positive")
    args.cli = os.path.abspath(args.cli)
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.generate:
        generate(int(args.generate[0]), args.generate[1])
        return 0
    started = time.perf_counter()
    facts = machine_facts(args, load_average())
    os.makedirs(BENCH_DIR, exist_ok=True)
    if not os.path.exists(args.cli):
        if args.cli != os.path.join(ROOT, "build", "cluster-resolve"):
            fail("no such file: %s" % args.cli)
        subprocess.run(["make", "-C", ROOT, "--no-print-directory", "build/cluster-resolve"],
                       check=True)
    for tool in ("curl", SYSTEM_PYTHON):
        if not shutil.which(tool):
            fail("needs %s" % tool)
    if subprocess.run([SYSTEM_PYTHON, "-c", "import kubernetes"], capture_output=True).returncode:
        fail("%s cannot import kubernetes (Debian: apt-get install python3-kubernetes)" %
             SYSTEM_PYTHON)
    tmp = tempfile.mkdtemp(prefix="bench-k8s-")
    notes, results = [], []
    try:
        runner = Runner(tmp)
        for n in args.sizes:
            print("... %s pods" % f"{n:,}", file=sys.stderr, flush=True)
            results.append(bench_size(n, args, runner, tmp, notes))
            r = results[-1]
            print("    %sfake up in %.1f s; wall times (s): ours %s; curl, our pages %s; "
                  "curl, unpaged %s; TF's way %s" % (
                      "pods generated, " if r["generated"] else "", r["fake_startup"],
                      *(" ".join("%.3f" % x["wall"] for x in r[k])
                        for k in ("ours", "paged", "floor", "tf"))),
                  file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    text = report(results, args, notes, time.perf_counter() - started, facts)
    save_report(args.out, text)
    if args.json:
        write_json(args.json, results, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""GCE resolve benchmark: cluster-resolve gce against TensorFlow's way, side by side.

For each size N (default 10, 100, 1000) it generates N realistic RUNNING instances of one zonal
instance group (tests/gcp/make_gcp.py: full Instance resources, about 3.4 KB each), starts one
tests/gcp/fake_gcp.py serving them (Compute Engine API and metadata server, bearer token,
request log) with a fault that delays EVERY request by --delay seconds (default 5 ms, a stand-in
for the round trip to compute.googleapis.com), and measures, each --repeat times, interleaved:

  ours      build/cluster-resolve gce --project P --zone Z --instance-group G
                --compute-url URL/compute/v1 --metadata-url URL --token-file F --format spec
            (1 listInstances page + 1 zone list page per 500 instances, plus the metadata
            instance/name lookup for the own task)
  TF's way  bench/gce/tf_way.py: TF's GCEClusterResolver pattern over plain HTTP (one POST
            listInstances per page with orderBy=name, one GET per instance, sort the
            "ip:port" strings)

It reports the requests each made (counted in the fake's log) and the median wall time, checks
both answers (ours: every address in natural instance-name order; TF's: the same set, sorted as
strings), prints a Markdown table and writes it to build/bench/gce.md. Exit status 1 when the
target (at 1,000 instances: at least 50x fewer requests and 50x less wall time) is missed.

usage: python3 bench/gce/run.py [--sizes 10,100,1000] [--repeat 3] [--delay 0.005]
                                [--cli build/cluster-resolve] [--out build/bench/gce.md]
                                [--json FILE]
Standard library only. Runs `make build/cluster-resolve` first (unless --cli is given).
"""
import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
from benchlib import (child_env, cpu_model, fmt_s, load_average, med,  # noqa: E402
                      parse_sizes, save_json, save_report)
sys.path.insert(0, os.path.join(ROOT, "tests", "gcp"))
import make_gcp  # noqa: E402
from harness import Fake, TOKEN  # noqa: E402

TF_WAY = os.path.join(HERE, "tf_way.py")
DEFAULT_CLI = os.path.join(ROOT, "build", "cluster-resolve")
PROJECT, ZONE, GROUP, PORT = "bench-project", "us-east1-d", "tf-workers", 8470
TARGET_AT, TARGET_X = 1000, 50


def fail(msg):
    raise SystemExit("bench/gce: " + msg)
def timed(cmd, env):
    start = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    return time.perf_counter() - start, p


def bench_size(n, args, tmp, env):
    insts = make_gcp.make_instances(n, GROUP, project=PROJECT, zone=ZONE)
    doc = make_gcp.compute_doc([make_gcp.make_group(GROUP, insts, project=PROJECT, zone=ZONE)],
                               insts, project=PROJECT)
    expected = make_gcp.expected_addresses(insts, PORT)
    meta = {"project/project-id": PROJECT, "instance/zone": "projects/42/zones/" + ZONE,
            "instance/name": insts[0]["name"],
            "instance/service-accounts/default/token": {"access_token": TOKEN,
                                                        "expires_in": 3599,
                                                        "token_type": "Bearer"}}
    token_file = os.path.join(tmp, "token")
    with open(token_file, "w") as f:
        f.write(TOKEN + "\n")
    fake = Fake(tmp, "--compute", doc, "--metadata", meta, "--bearer", TOKEN,
                "--faults", [{"path": "/", "delay": args.delay}], secrets=False)
    ours_cmd = [args.cli, "gce", "--project", PROJECT, "--zone", ZONE, "--instance-group", GROUP,
                "--compute-url", fake.compute_url, "--metadata-url", fake.url,
                "--token-file", token_file, "--format", "spec"]
    tf_cmd = [sys.executable, TF_WAY, fake.compute_url, PROJECT, ZONE, GROUP, str(PORT),
              token_file]
    res = {"n": n, "ours": [], "tf": [], "json_bytes": len(json.dumps(insts))}
    try:
        for rep in range(args.repeat + 1):  # the first round warms up and is not counted
            before = len(fake.requests())
            wall, p = timed(ours_cmd, env)
            reqs = fake.requests()[before:]
            if p.returncode != 0:
                fail("ours failed at %d instances (exit %d): %s" % (n, p.returncode, p.stderr[-2000:]))
            if json.loads(p.stdout) != {"worker": expected}:
                fail("ours at %d instances: not the %d addresses in natural name order" % (n, n))
            ours = {"wall": wall, "requests": len(reqs),
                    "compute": sum(r["path"].startswith("/compute/") for r in reqs)}

            before = len(fake.requests())
            wall, p = timed(tf_cmd, env)
            reqs = fake.requests()[before:]
            if p.returncode != 0:
                fail("TF's way failed at %d instances: %s" % (n, p.stderr[-2000:]))
            lines = p.stdout.splitlines()
            inner = json.loads(lines[1])
            if int(lines[0]) != n or inner["addresses"] != sorted(expected):
                fail("TF's way at %d instances: not the same addresses" % n)
            if inner["requests"] != len(reqs):
                fail("TF's way counted %d requests, the fake logged %d" % (inner["requests"], len(reqs)))
            tf = {"wall": wall, "requests": len(reqs), "list_s": inner["list_s"],
                  "get_s": inner["get_s"]}
            if rep:
                res["ours"].append(ours)
                res["tf"].append(tf)
    finally:
        fake.stop()
    for side in ("ours", "tf"):
        if len({r["requests"] for r in res[side]}) != 1:
            fail("%s at %d instances: the request count changed between runs: %s" % (
                side, n, [r["requests"] for r in res[side]]))
    return res
def report(results, args, elapsed, facts):
    lines = ["# GCE resolve: cluster-resolve vs TensorFlow's way", ""] + facts + [""]
    lines += ["| instances | ours: requests | TF's way: requests | fewer requests "
              "| ours: time | TF's way: time | less time |",
              "|---:|---:|---:|---:|---:|---:|---:|"]
    verdict = None
    for r in results:
        ours_req, tf_req = r["ours"][0]["requests"], r["tf"][0]["requests"]
        req_x, time_x = tf_req / ours_req, med(r["tf"]) / med(r["ours"])
        lines.append("| %s | %d (%d Compute + %d metadata) | %d | %.0fx | %s | %s | %.0fx |" % (
            "{:,}".format(r["n"]), ours_req, r["ours"][0]["compute"],
            ours_req - r["ours"][0]["compute"], tf_req, req_x, fmt_s(med(r["ours"])),
            fmt_s(med(r["tf"])), time_x))
        if r["n"] == TARGET_AT:
            verdict = (req_x, time_x)
    lines += ["", "TF's way, where its time goes (medians): " + "; ".join(
        "%s instances: list %s, per-instance GETs %s" % ("{:,}".format(r["n"]),
                                                          fmt_s(med(r["tf"], "list_s")),
                                                          fmt_s(med(r["tf"], "get_s")))
        for r in results) + ".", ""]
    if verdict:
        met = verdict[0] >= TARGET_X and verdict[1] >= TARGET_X
        lines.append("Target (at %s instances, at least %dx fewer requests and %dx less wall "
                     "time): %s (%.0fx fewer requests, %.0fx less time)." % (
                         "{:,}".format(TARGET_AT), TARGET_X, TARGET_X,
                         "met" if met else "MISSED", verdict[0], verdict[1]))
    lines += ["", "- Answers checked on every run: ours = the N addresses in natural instance-name "
              "order; TF's way = the same addresses sorted as strings. Requests counted in the "
              "fake's log; the request counts are the same on every run.",
              "- Whole run: %.0f s." % elapsed]
    return "\n".join(lines) + "\n", verdict


def machine_facts(args):
    cpu = cpu_model()
    return [
        "- machine: %d CPUs, %s; %s %s; load average at start %s" % (
            os.cpu_count(), cpu, platform.system(), platform.release(),
            load_average()),
        "- fake: `tests/gcp/fake_gcp.py` (one zonal group of full Instance resources from "
        "`tests/gcp/make_gcp.py`, TCP_NODELAY) under %s %s, every request delayed %g ms "
        "(a fault on path `/`)" % (sys.executable, platform.python_version(), args.delay * 1000),
        "- ours: `%s` (`-O2`, bundled libcurl transport, one keep-alive connection), token "
        "from `--token-file`" % os.path.relpath(args.cli, ROOT),
        "- TF's way: `bench/gce/tf_way.py` under the same Python: GCEClusterResolver's calls "
        "over http.client on one keep-alive connection, without googleapiclient (a lower bound "
        "for TF's time)",
        "- %d timed runs per size after one warm-up round, interleaved; median wall time "
        "(process spawn to exit)" % args.repeat,
    ]


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="10,100,1000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--delay", type=float, default=0.005, help="seconds added to every request")
    ap.add_argument("--cli")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "bench", "gce.md"))
    ap.add_argument("--json", metavar="FILE",
                    help="also write the results (medians, seconds) and the report as JSON")
    args = ap.parse_args(argv)
    args.sizes = parse_sizes(ap, args.sizes, "10,100")
    if args.repeat < 1 or args.delay < 0:
        ap.error("--repeat must be positive, --delay not negative")
    return args


def main(argv=None):
    args = parse_args(argv)
    started = time.perf_counter()
    if args.cli is None:
        args.cli = DEFAULT_CLI
        subprocess.run(["make", "-C", ROOT, "--no-print-directory", "build/cluster-resolve"],
                       check=True, stdout=subprocess.DEVNULL)
    args.cli = os.path.abspath(args.cli)
    if not os.access(args.cli, os.X_OK):
        fail("no such program: %s" % args.cli)
    facts = machine_facts(args)
    tmp = tempfile.mkdtemp(prefix="bench-gce-")
    env = child_env()
    results = []
    try:
        for n in args.sizes:
            print("... %s instances" % "{:,}".format(n), file=sys.stderr, flush=True)
            results.append(bench_size(n, args, tmp, env))
            r = results[-1]
            print("    wall times (s): ours %s; TF's way %s" % (
                " ".join("%.3f" % x["wall"] for x in r["ours"]),
                " ".join("%.3f" % x["wall"] for x in r["tf"])), file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    text, verdict = report(results, args, time.perf_counter() - started, facts)
    save_report(args.out, text)
    if args.json:
        rows = [{"n": r["n"], "ours_s": med(r["ours"]), "ours_requests": r["ours"][0]["requests"],
                 "tf_s": med(r["tf"]), "tf_requests": r["tf"][0]["requests"]} for r in results]
        save_json(args.json, {"bench": "gce", "delay_s": args.delay, "sizes": rows, "markdown": text})
    if verdict and (verdict[0] < TARGET_X or verdict[1] < TARGET_X):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

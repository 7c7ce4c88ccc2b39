#!/usr/bin/env python3
"""Pod lists with and without gzip, side by side in one run: the bytes the API server sends
and the CPU our CLI spends (user + system, median of --repeat runs) resolving one Indexed Job.
The fake API server (tests/fake_api.py) compresses, as kube-apiserver does, bodies over
128 KiB when the client accepts gzip (--gzip); without --gzip it sends them plain whatever the
client asks. Our CLI (the bundled curl transport) always asks.

usage: python3 bench/k8s/gzip.py [--pods 5000] [--repeat 5] [--cli build/cluster-resolve]
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "k8s"))
import make_pods  # noqa: E402


def serve(pods_path, tmp, gzip):
    d = tempfile.mkdtemp(dir=tmp)
    port_file, log = os.path.join(d, "port"), os.path.join(d, "log.jsonl")
    proc = subprocess.Popen([sys.executable, os.path.join(ROOT, "tests", "fake_api.py"), "--port-file",
                             port_file, "--log", log, "--log-bytes", "--pods", pods_path] +
                            (["--gzip"] if gzip else []), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while not os.path.exists(port_file):
        if proc.poll() is not None:
            sys.exit("fake_api.py exited")
        time.sleep(0.01)
    with open(port_file) as f:
        return proc, "http://127.0.0.1:%s" % f.read().strip(), log


def measure(cli, url, repeat):
    cpu = []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        p = subprocess.run([cli, "k8s", "--server", url, "--job", "worker=job-name=trainer", "--format",
                            "spec"], capture_output=True, text=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if p.returncode:
            sys.exit("cluster-resolve failed: " + p.stderr)
        cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return sorted(cpu)[len(cpu) // 2], p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pods", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "cluster-resolve"))
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="bench-gzip-")
    path = os.path.join(tmp, "pods.json")
    make_pods.dump(make_pods.pod_list(make_pods.make_pods(args.pods, "trainer", "default", indexed=True)),
                   path, compact=True)
    rows, specs = [], []
    for gzip in (False, True):
        proc, url, log = serve(path, tmp, gzip)
        cpu, spec = measure(args.cli, url, args.repeat)
        proc.terminate()
        proc.wait()
        with open(log) as f:
            sent = sum(json.loads(line)["bytes"] for line in f) / args.repeat
        rows.append((gzip, sent, cpu))
        specs.append(spec)
    assert specs[0] == specs[1], "gzip changed the answer"
    print("| %d pods, one resolve | bytes sent | CLI CPU (median of %d) |" % (args.pods, args.repeat))
    print("|---|---:|---:|")
    for gzip, sent, cpu in rows:
        print("| %s | %.1f MB | %.3f s |" % ("gzip" if gzip else "plain", sent / 1e6, cpu))
    print("gzip: %.1fx fewer bytes, CPU %+.0f%%" % (rows[0][1] / rows[1][1], (rows[1][2] / rows[0][2] - 1) * 100))


if __name__ == "__main__":
    main()

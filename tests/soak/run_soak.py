#!/usr/bin/env python3
"""make soak-test: long-running use (tests/soak/soak.c), built plain and with ASan.

  - Kubernetes: one resolver resolves 1,500 times against the fake API server (HTTPS, bearer
    token, 200 real-shaped pods of the selected Job among 260, two pages per resolve);
  - an environment backend: 40,000 create / resolve / master / launch info / free cycles of
    auto over a 64-task Slurm step.
Each run fails when a resolve is wrong, when the library leaves an allocation behind, when the
open descriptors after 100 resolves are not the same at the end, or when the resident set grew
by more than 1 MiB (ASan: 4 MiB, below). Under ASan the leak checker runs at exit too. The plain
and the ASan run of each workload go side by side (two cores), each with its own fake server.

usage: run_soak.py PLAIN_BINARY ASAN_BINARY [K8S_RESOLVES ENV_RESOLVES]
"""
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(TESTS, "k8s"))
sys.path.insert(0, os.path.join(TESTS, "gcp"))
import harness  # noqa: E402  (tests/gcp: Fake starts a fake server)
import make_pods  # noqa: E402

TOKEN = "soak-test-token-51c2"
PODS = 200
# ASan keeps freed blocks in a quarantine (to catch uses after free) and a stack trace of every
# allocation site it meets; the first would grow the resident set by 256 MiB, the second by
# about 90 KiB per 1,000 resolves here (measured; flat with it off, as in the plain build), so
# both are off and the leak checker, which needs neither, judges. A leak report then has no
# stack: rerun with malloc_context_size=30 to see where.
ASAN_OPTIONS = "detect_leaks=1:quarantine_size_mb=0:thread_local_quarantine_size_kb=0:malloc_context_size=0"


def pods_file(tmp):
    """The selected Indexed Job (PODS pods) and another Job's 60 pods in one namespace."""
    pods = make_pods.make_pods(PODS, "trainer", "default", indexed=True, start_ip="10.60.0.10")
    pods += make_pods.make_pods(60, "evaluator", "default", start_ip="10.61.0.10")
    path = os.path.join(tmp, "pods.json")
    make_pods.dump(make_pods.pod_list(pods), path, compact=True)
    return path


def start(argvs, env_for):
    return [subprocess.Popen(a, env=env_for(a), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for a in argvs]


def finish(procs, limit):
    """(argv, rc, out, err) of each process; kills all past `limit` seconds."""
    deadline = time.time() + limit
    done = []
    for p in procs:
        try:
            out, err = p.communicate(timeout=max(1, deadline - time.time()))
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            out, err = p.communicate()
            err += "\n(killed after %d s)" % limit
        done.append((p.args, p.returncode, out, err))
    return done


def main():
    plain, asan = (os.path.abspath(b) for b in sys.argv[1:3])
    k8s_n, env_n = (sys.argv[3:5] if len(sys.argv) > 4 else ("1500", "40000"))
    tmp = tempfile.mkdtemp(prefix="cres-soak-")
    subprocess.run(["bash", os.path.join(TESTS, "gen_certs.sh"), os.path.join(tmp, "certs")], check=True,
                   stdout=subprocess.DEVNULL)
    token = harness.write(tmp, "token", TOKEN + "\n")
    pods = pods_file(tmp)
    fakes = [harness.Fake(tmp, "--pods", pods, "--bearer", TOKEN, script=harness.FAKE_API, secrets=False,
                          certs=os.path.join(tmp, "certs")) for _ in range(2)]

    def env_for(argv):
        if argv[0] != asan:
            return dict(os.environ)
        return dict(os.environ, ASAN_OPTIONS=ASAN_OPTIONS)

    started = time.time()
    results = []
    try:
        results += finish(start([[b, "k8s", k8s_n, "https://localhost:%d" % f.port,
                                  os.path.join(tmp, "certs", "ca.pem"), token, "job-name=trainer", str(PODS)]
                                 for b, f in ((plain, fakes[0]), (asan, fakes[1]))], env_for), 900)
        results += finish(start([[b, "env", env_n] for b in (plain, asan)], env_for), 300)
    finally:
        logs = [f.stop() for f in fakes]
        harness.shutil.rmtree(tmp, ignore_errors=True)
    failed = 0
    for argv, rc, out, err in results:
        name = "%s %s (%s)" % (argv[1], argv[2], "ASan" if argv[0] == asan else "plain")
        print(out.rstrip())
        if rc != 0 or err.strip():
            failed += 1
            print("FAIL %s: exit %s\n%s" % (name, rc, err.strip()[-3000:]))
        else:
            print("ok   " + name)
    for log in logs:
        continued = sum(1 for r in log if r["query"].get("continue"))
        if continued * 2 != len(log):
            failed += 1
            print("FAIL the fake answered %d requests, %d of them continued pages: want two pages a resolve"
                  % (len(log), continued))
    print("soak-test: %d failed, %.0f s" % (failed, time.time() - started))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

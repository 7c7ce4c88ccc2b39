#!/usr/bin/env python3
"""make thread-test: tests/threads/test_threads.c built with ThreadSanitizer, run against the
fake Kubernetes API (HTTPS, bearer token) and the fake Google metadata and Compute servers.

It writes each thread's fixture (its own Indexed Job of 2-4 real-shaped pods, its own GCE
instance group of 2-4 instances, the own pod and instance, and the cluster each must give) and
the kubeconfig files with their exec plugin (kubeconfigs()), starts the two fakes, runs the
program, and passes only when the program exits 0, TSan reported nothing, and both fakes saw
the requests of every thread (each thread's selector and group; each selector also through
the kubeconfig's server name, 127.0.0.1, with the token, from the plugin or the file).
Then the control: the same program sharing its union without the lock must make TSan report
a data race in the library, or TSan was not watching.

usage: run_threads.py TEST_THREADS_BINARY [ROUNDS]      (ROUNDS default 25)
"""
import json
import os
import subprocess
import sys
import tempfile
import time
from urllib.parse import unquote

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(TESTS, "k8s"))
sys.path.insert(0, os.path.join(TESTS, "gcp"))
import harness  # noqa: E402  (tests/gcp: Fake starts fake_gcp.py)
import make_gcp  # noqa: E402
import make_pods  # noqa: E402

THREADS = 8
TOKEN = "thread-test-token-7d1f0c"
PROJECT, ZONE = "test-project", "us-east1-d"


def pods_fixture(tmp):
    """Every thread's Indexed Job in one PodList; writes k8s-<t>.txt for each thread."""
    pods = []
    for t in range(THREADS):
        count = 2 + t % 3
        job = "trainer%d" % t
        mine = make_pods.make_pods(count, job, "default", indexed=True, start_ip="10.%d.0.10" % (20 + t))
        pods += mine
        own = t % count
        spec = {"worker": ["10.%d.0.%d:8470" % (20 + t, 10 + i) for i in range(count)]}
        write_case(tmp, "k8s", t, "job-name=" + job, "%s-%d" % (job, own), own, spec)
    path = os.path.join(tmp, "pods.json")
    make_pods.dump(make_pods.pod_list(pods), path, compact=True)
    return path


def compute_fixture(tmp):
    """Every thread's instance group in one Compute document; writes gce-<t>.txt."""
    groups, instances = [], []
    for t in range(THREADS):
        name = "group%d" % t
        mine = make_gcp.make_instances(2 + t % 3, name, project=PROJECT, zone=ZONE, start=10 * t)
        groups.append(make_gcp.make_group(name, mine, project=PROJECT, zone=ZONE))
        instances += mine
        ordered = sorted(mine, key=lambda i: make_gcp.natural_key(i["name"]))
        own = t % len(mine)
        write_case(tmp, "gce", t, name, ordered[own]["name"], own,
                   {"worker": make_gcp.expected_addresses(mine)})
    return make_gcp.compute_doc(groups, instances, project=PROJECT)


def write_case(tmp, kind, t, name, own, index, spec):
    with open(os.path.join(tmp, "%s-%d.txt" % (kind, t)), "w") as f:
        f.write("%s\n%s\n%d\n%s\n" % (name, own, index, json.dumps(spec)))


# The exec plugin of the kubeconfig's exec users, run by the library's default exec hook.
PLUGIN = r"""#!/bin/sh
# Prints the token of $TOKEN_FILE (the kubeconfig's exec.env) as an ExecCredential, already
# expired when $1 is "expired"; says on stderr whose environment it got ($CRES_THREAD: the
# thread's variables, through the library's env_list hook).
read -r token < "$TOKEN_FILE" || exit 3
case "$KUBERNETES_EXEC_INFO" in *'"interactive":false'*) ;; *) echo "no KUBERNETES_EXEC_INFO" >&2; exit 4 ;; esac
expiry=
[ "$1" = expired ] && expiry=', "expirationTimestamp": "2000-01-01T00:00:00Z"'
echo "plugin ran for thread $CRES_THREAD" >&2
printf '{"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential", "status": {"token": "%s"%s}}\n' \
    "$token" "$expiry"
"""
EXEC_V1 = "client.authentication.k8s.io/v1"


def exec_user(tmp, *args):
    return {"exec": {"apiVersion": EXEC_V1, "command": "./plugin.sh", "args": list(args),
                     "env": [{"name": "TOKEN_FILE", "value": os.path.join(tmp, "token")}],
                     "provideClusterInfo": True, "interactiveMode": "Never"}}


def kubeconfigs(tmp, port):
    """kubeconfig.json, which every thread reads, the kubeconfig-<t>.json of the threads with
    t % 4 of 2 or 3, and plugin.sh (what test_threads.c's header describes)."""
    def context(name, user):
        return {"name": name, "context": {"cluster": "fake", "user": user, "namespace": "default"}}
    shared = {"apiVersion": "v1", "kind": "Config", "current-context": "token",
              "clusters": [{"name": "fake", "cluster": {"server": "https://127.0.0.1:%d" % port,
                                                        "certificate-authority": "ca.pem"}}],
              "users": [{"name": "token-user", "user": {"token": TOKEN}},
                        {"name": "exec-user", "user": exec_user(tmp, "shared")}],
              "contexts": [context("token", "token-user"), context("exec", "exec-user")]}
    with open(os.path.join(tmp, "kubeconfig.json"), "w") as f:
        json.dump(shared, f, indent=1)
    for t in range(THREADS):
        if t % 4 < 2:
            continue
        own = {"apiVersion": "v1", "kind": "Config", "current-context": "thread-%d" % t,
               "contexts": [context("thread-%d" % t, "token-user" if t % 4 == 2 else "thread-%d" % t)],
               "users": [] if t % 4 == 2 else [{"name": "thread-%d" % t, "user": exec_user(tmp, "expired")}]}
        with open(os.path.join(tmp, "kubeconfig-%d.json" % t), "w") as f:
            json.dump(own, f, indent=1)
    plugin = os.path.join(tmp, "plugin.sh")
    with open(plugin, "w") as f:
        f.write(PLUGIN)
    os.chmod(plugin, 0o755)


def metadata():
    return {"project/project-id": PROJECT, "instance/zone": "projects/123456789012/zones/" + ZONE,
            "instance/service-accounts/default/token":
                {"access_token": TOKEN, "expires_in": 3599, "token_type": "Bearer"}}


def requests(log):
    with open(log) as f:
        return [json.loads(line) for line in f if line.strip()]


def main():
    binary = os.path.abspath(sys.argv[1])
    rounds = sys.argv[2] if len(sys.argv) > 2 else "25"
    tmp = tempfile.mkdtemp(prefix="cres-threads-")
    subprocess.run(["bash", os.path.join(TESTS, "gen_certs.sh"), os.path.join(tmp, "certs")], check=True,
                   stdout=subprocess.DEVNULL)
    os.symlink(os.path.join(tmp, "certs", "ca.pem"), os.path.join(tmp, "ca.pem"))
    with open(os.path.join(tmp, "token"), "w") as f:
        f.write(TOKEN + "\n")
    k8s = harness.Fake(tmp, "--pods", pods_fixture(tmp), "--bearer", TOKEN, script=harness.FAKE_API,
                       certs=os.path.join(tmp, "certs"))
    gce = harness.Fake(tmp, "--compute", compute_fixture(tmp), "--metadata", metadata(), "--bearer", TOKEN,
                       "--page-cap", "2")
    with open(os.path.join(tmp, "k8s_url"), "w") as f:
        f.write("https://localhost:%d\n" % k8s.port)
    with open(os.path.join(tmp, "gce_url"), "w") as f:
        f.write(gce.url + "\n")
    kubeconfigs(tmp, k8s.port)
    env = dict(os.environ, TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1")
    started = time.time()
    try:
        p = subprocess.run([binary, rounds, tmp], env=env, capture_output=True, text=True, timeout=600)
        took = time.time() - started
        control = subprocess.run([binary, rounds, tmp, "unlocked"], env=env, capture_output=True, text=True,
                                 timeout=600)
    finally:
        k8s_log, gce_log = k8s.stop(), gce.stop()
        harness.shutil.rmtree(tmp, ignore_errors=True)
    sys.stdout.write(p.stdout)
    problems = []
    if "ThreadSanitizer" in p.stderr or "WARNING:" in p.stderr:
        problems.append("ThreadSanitizer reported:\n" + p.stderr[-6000:])
    elif p.returncode != 0 or p.stderr:
        problems.append("exit %d\n%s" % (p.returncode, p.stderr[-3000:]))
    selectors = {unquote(r["query"].get("labelSelector", [""])[0]) for r in k8s_log}
    groups = {r["path"].split("/")[-2] for r in gce_log if r["path"].endswith("/listInstances")}
    want_sel = {"job-name=trainer%d" % t for t in range(THREADS)}
    want_groups = {"group%d" % t for t in range(THREADS)}
    if selectors != want_sel or groups != want_groups:
        problems.append("the fakes saw selectors %s and groups %s" % (sorted(selectors), sorted(groups)))
    by_kubeconfig = [r for r in k8s_log if r["headers"].get("host") == "127.0.0.1:%d" % k8s.port]
    kube_sel = {unquote(r["query"].get("labelSelector", [""])[0]) for r in by_kubeconfig}
    kube_auth = {r["headers"].get("authorization") for r in by_kubeconfig}
    if kube_sel != want_sel or kube_auth != {"Bearer " + TOKEN}:
        problems.append("through the kubeconfig files the fake saw selectors %s with %s" %
                        (sorted(kube_sel), sorted(map(str, kube_auth))))
    if control.returncode != 66 or "WARNING: ThreadSanitizer: data race" not in control.stderr \
            or "cres_" not in control.stderr:
        problems.append("the control (a union shared without its lock) got no data race report from TSan: "
                        "exit %d\n%s" % (control.returncode, control.stderr[-2000:]))
    pages = sum(1 for r in k8s_log if r["query"].get("continue"))
    if not pages:
        problems.append("no pod list was paged")
    print("thread-test: %d threads x %s rounds in %.1f s; the fakes answered %d Kubernetes requests "
          "(%d continued pages) and %d Google requests" %
          (THREADS, rounds, took, len(k8s_log), pages, len(gce_log)))
    for problem in problems:
        print("FAIL " + problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

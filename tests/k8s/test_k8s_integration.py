#!/usr/bin/env python3
"""End-to-end tests of the Kubernetes backend: the built cluster-resolve (bundled libcurl
transport) against tests/fake_api.py over HTTP and HTTPS, with real-shaped Pod objects, request
logs, auth and scripted faults; and Debian's python3-kubernetes client listing the same pods,
which must agree with us. JobSets too, and auto inside a JobSet's pod: that runs the CLI with
the service account's files mounted in a mount namespace of its own (root and unshare; else
the test says it is skipped). Members named from the own Job and JobSet (--members job, auto's
default in an Indexed Job's pod) against Jobs and JobSets of make_pods.py: the requests, the
fallbacks to the list, and the same answer as the list's.

usage: test_k8s_integration.py BUILD_DIR      (holding cluster-resolve)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CLI = os.path.join(sys.argv[1] if len(sys.argv) > 1 else "build", "cluster-resolve")
FAKE = os.path.join(ROOT, "tests", "fake_api.py")
PODS = os.path.join(HERE, "fixtures", "pods_small.json")
JOBSET = os.path.join(HERE, "fixtures", "jobset.json")  # JobSet js: see make_pods.jobset_fixture
TMP = tempfile.mkdtemp(prefix="k8s-it-")
TOKEN = "s3cr3t-token-value"
sys.path.insert(0, HERE)
import make_pods  # noqa: E402  (tests/k8s/make_pods.py: real-shaped Pods, Jobs and JobSets)


class Fake:
    """One fake API server; stop() ends it and returns the logged requests."""

    def __init__(self, *args, tls=False):
        self.dir = tempfile.mkdtemp(dir=TMP)
        self.port_file = os.path.join(self.dir, "port")
        self.log = os.path.join(self.dir, "log.jsonl")
        cmd = [sys.executable, FAKE, "--port-file", self.port_file, "--log", self.log, "--max-seconds", "120"]
        if tls:
            cmd += ["--cert", os.path.join(TMP, "certs", "server.pem"), "--key", os.path.join(TMP, "certs", "server.key")]
        self.proc = subprocess.Popen(cmd + [str(a) for a in args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.time() + 10
        while not os.path.exists(self.port_file):
            assert self.proc.poll() is None, self.proc.stderr.read().decode()
            assert time.time() < deadline, "fake_api did not start"
            time.sleep(0.01)
        with open(self.port_file) as f:
            self.port = int(f.read())
        self.url = f"{'https' if tls else 'http'}://127.0.0.1:{self.port}"

    def requests(self):
        """The requests logged so far (each is logged before its response is sent)."""
        with open(self.log) as f:
            return [json.loads(line) for line in f]

    def stop(self):
        self.proc.terminate()
        _, err = self.proc.communicate(timeout=10)
        assert self.proc.returncode == 0 and not err, err.decode()
        return self.requests()


def write(name, content):
    path = os.path.join(TMP, name)
    with open(path, "w") as f:
        f.write(content if isinstance(content, str) else json.dumps(content))
    return path


def cli(args, env=None):
    e = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    e.update(env or {})
    start = time.time()
    p = subprocess.run([CLI] + [str(a) for a in args], env=e, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr, time.time() - start


def resolve(fake, *args, env=None):
    """Runs the k8s backend against fake; returns the spec JSON (must succeed)."""
    code, out, err, _ = cli(["k8s", "--server", fake.url, "--format", "spec"] + list(args), env)
    assert code == 0, f"exit {code}: {err}"
    assert err == "", err
    return json.loads(out)


def fails(fake, code, words, *args, env=None, server=None):
    got, out, err, took = cli(["k8s", "--server", server or fake.url] + list(args), env)
    assert got == code, f"exit {got}, want {code}: {err}"
    assert out == "" and err.count("\n") == 1, (out, err)
    for w in words:
        assert w in err, f"{w!r} not in {err!r}"
    return err, took


TRAINER = ["10.4.0.10:8470", "10.4.0.11:8470", "10.4.0.12:8470"]


# ---- listing ------------------------------------------------------------------------------

def test_lists_one_namespace_over_http():
    f = Fake("--pods", PODS)
    assert resolve(f, "--job", "worker=job-name=trainer") == {"worker": TRAINER}
    log = f.stop()
    assert len(log) == 1
    assert log[0]["path"] == "/api/v1/namespaces/default/pods"
    assert log[0]["query"] == {"labelSelector": ["job-name=trainer"], "limit": ["500"]}
    assert log[0]["headers"]["accept"] == "application/json" and "authorization" not in log[0]["headers"]


def test_agrees_with_python_kubernetes():
    """Debian's python3-kubernetes lists the same pods from the fake: the Running, not
    terminating ones in completion-index order are exactly our tasks."""
    f = Fake("--pods", PODS)
    code = (
        "import json, sys\n"
        "from kubernetes import client\n"
        "c = client.Configuration(); c.host = sys.argv[1]\n"
        "api = client.CoreV1Api(client.ApiClient(c))\n"
        "pods = api.list_namespaced_pod('default', label_selector='job-name=trainer').items\n"
        "live = [p for p in pods if p.status.phase == 'Running' and not p.metadata.deletion_timestamp]\n"
        "live.sort(key=lambda p: int(p.metadata.annotations['batch.kubernetes.io/job-completion-index']))\n"
        "print(json.dumps([p.status.pod_ip + ':8470' for p in live]))\n")
    p = subprocess.run(["/usr/bin/python3", "-c", code, f.url], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    theirs = json.loads(p.stdout)
    ours = resolve(f, "--job", "worker=job-name=trainer")
    f.stop()
    assert ours == {"worker": theirs} and len(theirs) == 3, (ours, theirs)


def test_pages_with_limit_and_continue():
    f = Fake("--pods", PODS)
    assert resolve(f, "--job", "worker=job-name=trainer", "--page-size", "1") == {"worker": TRAINER}
    log = f.stop()
    assert all(r["query"]["limit"] == ["1"] for r in log)
    assert "continue" not in log[0]["query"] and all("continue" in r["query"] for r in log[1:])
    assert len(log) >= 4, len(log)  # 4 pods of job trainer in namespace default, one per page


def test_one_connection_serves_every_page():
    """The curl transport keeps its connection for all the requests of a resolve."""
    f = Fake("--pods", PODS)
    p = subprocess.run(["strace", "-f", "-e", "trace=connect", CLI, "k8s", "--server", f.url, "--job",
                        "worker=job-name=trainer", "--page-size", "1", "--format", "spec"],
                       capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, ASAN_OPTIONS="detect_leaks=0"))  # LeakSanitizer cannot run under ptrace
    assert p.returncode == 0 and json.loads(p.stdout) == {"worker": TRAINER}, p.stderr
    connects = [line for line in p.stderr.splitlines() if f"htons({f.port})" in line]
    assert len(f.stop()) >= 4 and len(connects) == 1, connects


def test_asks_for_gzip_and_reads_it():
    """The curl transport asks for gzip; the API server (here the fake's --gzip) compresses a
    list page over 128 KiB: the same members, a fraction of the bytes."""
    pods = make_pods.make_pods(300, "big", "default", indexed=True, start_ip="10.70.0.10")
    path = os.path.join(TMP, "big.json")
    make_pods.dump(make_pods.pod_list(pods), path, compact=True)
    want = {"worker": ["10.70.%d.%d:8470" % divmod(10 + i, 256) for i in range(300)]}
    sizes = []
    for gz in ([], ["--gzip"]):
        f = Fake("--pods", path, "--log-bytes", *gz)
        assert resolve(f, "--job", "worker=job-name=big") == want
        log = f.stop()
        assert all("gzip" in r["headers"].get("accept-encoding", "") for r in log), log[0]["headers"]
        sizes.append(sum(r["bytes"] for r in log))
    assert sizes[1] * 5 < sizes[0], sizes  # pod JSON compresses well over 5x


def test_restarts_after_410_gone():
    faults = write("gone.json", [{"path": "/api/v1/", "query": "continue=", "times": 1, "status": 410}])
    f = Fake("--pods", PODS, "--faults", faults)
    assert resolve(f, "--job", "worker=job-name=trainer", "--page-size", "2") == {"worker": TRAINER}
    log = f.stop()
    assert [r["status"] for r in log] == [200, 410, 200, 200], [r["status"] for r in log]


def test_several_selectors_and_jobs_with_own_task():
    f = Fake("--pods", PODS)
    spec = resolve(f, "--job", "worker=job-name=trainer", "--job", "worker=job-name in (trainer)",
                   "--job", "ps=job-name=ps")
    assert spec == {"ps": ["10.4.1.11:8470", "10.4.1.10:8470"], "worker": TRAINER}, spec
    code, out, err, _ = cli(["k8s", "--server", f.url, "--job", "worker=job-name=trainer", "--job", "ps=job-name=ps"],
                            {"HOSTNAME": "trainer-1"})  # an Indexed Job pod's hostname, not its name
    assert code == 0, err
    doc = json.loads(out)
    assert doc["task"] == {"type": "worker", "index": 1} and doc["rpc_layer"] == "grpc", doc
    code, out, err, _ = cli(["k8s", "--server", f.url, "--job", "ps=job-name=ps", "--format", "master"],
                            {"HOSTNAME": "ps-mbn89"})
    assert (code, out) == (0, "grpc://10.4.1.10:8470\n"), (code, out, err)
    # launch info: ranks chief first, then jobs by name (ps 0-1, worker 2-4); every pod its own
    # host; the master is rank 0, ps's first pod
    code, out, err, _ = cli(["k8s", "--server", f.url, "--job", "worker=job-name=trainer", "--job", "ps=job-name=ps",
                             "--format", "launch"], {"HOSTNAME": "trainer-1"})
    assert code == 0, err
    assert json.loads(out) == {"world_size": 5, "rank": 3, "local_rank": 0, "local_world_size": 1,
                               "node_rank": 3, "num_nodes": 5, "master_addr": "10.4.1.11",
                               "master_port": 8470}, out
    f.stop()


def test_all_namespaces_and_address_kinds():
    f = Fake("--pods", PODS)
    spec = resolve(f, "--job", "worker=job-name=trainer", "--all-namespaces")
    assert sorted(spec["worker"]) == sorted(TRAINER + ["10.4.2.10:8470"]), spec
    assert resolve(f, "--job", "ps=job-name=ps", "--address", "host-ip") == {"ps": ["10.128.0.11:8470", "10.128.0.10:8470"]}
    dns = resolve(f, "--job", "w=job-name=trainer", "--address", "dns", "--cluster-domain", "corp.example", "--port", "2222")
    assert dns == {"w": [f"trainer-{i}.trainer.default.svc.corp.example:2222" for i in range(3)]}, dns
    assert resolve(f, "--job", "none=job-name=nobody") == {"none": []}
    log = f.stop()
    assert log[0]["path"] == "/api/v1/pods"


# ---- HTTPS, in-cluster configuration, auth -------------------------------------------------

def incluster_env(f):
    return {"KUBERNETES_SERVICE_HOST": "127.0.0.1", "KUBERNETES_SERVICE_PORT": str(f.port)}


def test_in_cluster_https_with_token_and_ca():
    f = Fake("--pods", PODS, "--bearer", TOKEN, tls=True)
    token = write("token", TOKEN + "\n")
    ca = os.path.join(TMP, "certs", "ca.pem")
    code, out, err, _ = cli(["k8s", "--token-file", token, "--ca-file", ca, "--job", "worker=job-name=trainer",
                             "--format", "spec", "--verbose"], incluster_env(f))
    assert code == 0, err
    assert json.loads(out) == {"worker": TRAINER}
    assert TOKEN not in err and TOKEN not in out  # never logged
    log = f.stop()
    assert log[0]["headers"]["authorization"] == "Bearer <redacted>"


def test_long_token_is_sent_whole():
    # projected service-account tokens (JWTs) can pass 1 KB; the header carries all of it
    long_token = "eyJhbGciOiJSUzI1NiJ9." + "x" * 3000 + ".sig"
    f = Fake("--pods", PODS, "--bearer", long_token)
    assert resolve(f, "--token-file", write("long-token", long_token), "--job", "worker=job-name=trainer") == \
        {"worker": TRAINER}
    f.stop()


def test_token_file_from_a_pipe():
    # --token-file /dev/stdin < file, or a process substitution: a pipe has no size to ask
    f = Fake("--pods", PODS, "--bearer", TOKEN)
    p = subprocess.run([CLI, "k8s", "--server", f.url, "--token-file", "/dev/stdin", "--job", "worker=job-name=trainer",
                        "--format", "spec"], input=TOKEN + "\n", env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and json.loads(p.stdout) == {"worker": TRAINER}, (p.returncode, p.stderr)
    assert [r["status"] for r in f.stop()] == [200]


def test_tls_is_verified():
    f = Fake("--pods", PODS, tls=True)
    other = os.path.join(TMP, "certs", "other-ca.pem")
    fails(f, 4, ["certificate"], "--ca-file", other, "--retries", "0")
    fails(f, 4, ["certificate"], "--retries", "0")  # the system store does not know the test CA
    f.stop()


def test_wrong_token_is_401_with_advice():
    f = Fake("--pods", PODS, "--bearer", TOKEN, tls=True)
    token = write("bad-token", "not-the-token")
    err, _ = fails(None, 4, ["401 Unauthorized", "token"], "--token-file", token, "--ca-file",
                   os.path.join(TMP, "certs", "ca.pem"), server=f.url)
    assert "not-the-token" not in err
    f.stop()


def test_forbidden_is_403_with_rbac_hint():
    f = Fake("--pods", PODS, "--forbid-token", TOKEN, tls=True)
    fails(None, 4, ["403 Forbidden", "pods is forbidden", 'verbs ["list"]'], "--token-file", write("tok", TOKEN),
          "--ca-file", os.path.join(TMP, "certs", "ca.pem"), server=f.url)
    f.stop()


def test_not_found_is_reported():
    f = Fake("--pods", PODS)
    fails(None, 4, ["HTTP 404"], server=f.url + "/no/such/prefix")
    f.stop()


# ---- JobSets ----------------------------------------------------------------------------------

JS_SELECTOR = "jobset.sigs.k8s.io/jobset-name=js"
# JobSet js: replicated jobs workers then driver, 2 Jobs of 2 pods each; make_pods gives rank r
# the IP 10.4.3.(10 + r), so this is the order of job-global-index, then completion index
# (natural name order would put js-driver-* first)
JS_ORDER = [f"10.4.3.{10 + r}:8470" for r in range(8)]


class Skip(Exception):
    pass


def test_jobset_ordered_by_global_index():
    """Two Jobs of a JobSet both have completion index 0 (and 1): that is the JobSet's order,
    not a replacement. python3-kubernetes, sorting the same pods by their labels, agrees."""
    f = Fake("--pods", JOBSET)
    code = (
        "import json, sys\n"
        "from kubernetes import client\n"
        "c = client.Configuration(); c.host = sys.argv[1]\n"
        "api = client.CoreV1Api(client.ApiClient(c))\n"
        "pods = api.list_namespaced_pod('default', label_selector=sys.argv[2]).items\n"
        "live = [p for p in pods if p.status.phase == 'Running' and not p.metadata.deletion_timestamp]\n"
        "key = lambda p: (int(p.metadata.labels['jobset.sigs.k8s.io/job-global-index']),\n"
        "                 int(p.metadata.labels['batch.kubernetes.io/job-completion-index']))\n"
        "print(json.dumps([p.status.pod_ip + ':8470' for p in sorted(live, key=key)]))\n")
    p = subprocess.run(["/usr/bin/python3", "-c", code, f.url, JS_SELECTOR], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout) == JS_ORDER, p.stdout
    assert resolve(f, "--job", "worker=" + JS_SELECTOR) == {"worker": JS_ORDER}
    assert resolve(f, "--job", "worker=" + JS_SELECTOR, "--page-size", "3") == {"worker": JS_ORDER}
    # launch info of js-driver-0-1 (rank 5): one pod a node, the master global rank 0's pod
    code, out, err, _ = cli(["k8s", "--server", f.url, "--job", "worker=" + JS_SELECTOR, "--format", "launch"],
                            {"HOSTNAME": "js-driver-0-1"})
    assert code == 0, err
    assert json.loads(out) == {"world_size": 8, "rank": 5, "local_rank": 0, "local_world_size": 1, "node_rank": 5,
                               "num_nodes": 8, "master_addr": "10.4.3.10", "master_port": 8470}, out
    # a selector that mixes a JobSet with a plain Indexed Job is refused, not interleaved
    fails(f, 3, ['job "worker" mixes pod', "(no JobSet)", '(JobSet "js" in default)'],
          "--job", "worker=job-name in (solo, js-workers-0)")
    f.stop()


def test_follow_jobset_from_one_job():
    """--follow-jobset: the job's own Job lists the own pod (by spec.hostname), whose labels name
    JobSet js; the job becomes the whole JobSet, listed by its label, and --verbose says so."""
    f = Fake("--pods", JOBSET)
    code, out, err, _ = cli(["k8s", "--server", f.url, "--job", "worker=job-name=js-workers-1", "--follow-jobset",
                             "--format", "spec", "--verbose"], {"HOSTNAME": "js-workers-1-1"})
    assert code == 0, err
    assert json.loads(out) == {"worker": JS_ORDER}, out
    assert 'the own pod "js-workers-1-1-' in err and 'belongs to JobSet "js"; resolving the whole JobSet' in err, err
    log = f.stop()
    assert [r["query"]["labelSelector"] for r in log] == [["job-name=js-workers-1"], [JS_SELECTOR]], log


def need_mount_namespace():
    if os.geteuid() != 0 or not shutil.which("unshare") or \
            subprocess.run(["unshare", "--mount", "true"], capture_output=True).returncode != 0:
        raise Skip("needs root and unshare --mount to put the service account's files in place")


def in_pod(f, args, env):
    """Runs the CLI as inside a pod: the service variables pointing at the fake, and the service
    account's token, ca.crt and namespace at /var/run/secrets/kubernetes.io/serviceaccount/,
    put there in a mount namespace of the CLI's own (unshare, as root), so the machine's /run is
    untouched."""
    sa = tempfile.mkdtemp(dir=TMP)
    shutil.copy(os.path.join(TMP, "certs", "ca.pem"), os.path.join(sa, "ca.crt"))
    write(os.path.join(sa, "token"), TOKEN + "\n")
    write(os.path.join(sa, "namespace"), "default")
    setup = ("mount -t tmpfs tmpfs /var/run && mkdir -p /var/run/secrets/kubernetes.io && "
             "cp -r \"$0\" /var/run/secrets/kubernetes.io/serviceaccount && exec \"$@\"")
    e = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "KUBERNETES_SERVICE_HOST": "127.0.0.1",
         "KUBERNETES_SERVICE_PORT": str(f.port)}
    e.update(env)
    p = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", setup, sa, CLI] + args,
                       env=e, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def test_auto_inside_a_jobset_pod():
    """Auto in pod js-workers-1-1 of JobSet js (HOSTNAME and JOB_COMPLETION_INDEX name only its
    Job, js-workers-1) resolves the whole JobSet over in-cluster HTTPS; in a plain Indexed
    Job's pod it stays with the Job. This fake serves no Jobs: auto's members JOB gets 404 for
    the own Job, says so, and the pod list answers (pod IPs)."""
    need_mount_namespace()
    f = Fake("--pods", JOBSET, "--bearer", TOKEN, tls=True)
    code, out, err = in_pod(f, ["--format", "launch", "--verbose"],
                            {"HOSTNAME": "js-workers-1-1", "JOB_COMPLETION_INDEX": "1"})
    assert code == 0, err
    assert json.loads(out) == {"world_size": 8, "rank": 3, "local_rank": 0, "local_world_size": 1, "node_rank": 3,
                               "num_nodes": 8, "master_addr": "10.4.3.10", "master_port": 8470}, out
    assert 'auto: using the kubernetes backend: KUBERNETES_SERVICE_HOST and JOB_COMPLETION_INDEX (an Indexed Job); ' \
           'job "worker" = job-name=js-workers-1, or the whole JobSet when the own pod is in one; ' \
           'members named from the Job, else listed\n' in err, err
    assert 'kubernetes: job "worker": listing pods, since getting jobs "js-workers-1": not found (404)\n' in err, err
    assert 'belongs to JobSet "js"; resolving the whole JobSet (' + JS_SELECTOR + ")" in err, err
    assert TOKEN not in err and TOKEN not in out
    code, out, err = in_pod(f, ["--format", "spec", "--verbose"], {"HOSTNAME": "solo-1", "JOB_COMPLETION_INDEX": "1"})
    assert code == 0, err
    assert json.loads(out) == {"worker": ["10.4.5.10:8470", "10.4.5.11:8470"]}, out
    assert 'listing pods, since getting jobs "solo": not found (404)' in err, err
    assert 'the own pod "solo-1-' in err and "belongs to no JobSet" in err, err
    log = f.stop()
    pods = ("/api/v1/namespaces/default/pods", 200)
    assert [(r["path"], r["status"]) for r in log] == [
        ("/apis/batch/v1/namespaces/default/jobs/js-workers-1", 404), pods, pods,
        ("/apis/batch/v1/namespaces/default/jobs/solo", 404), pods], log
    assert [r["query"].get("labelSelector") for r in log] == [None, ["job-name=js-workers-1"], [JS_SELECTOR], None,
                                                              ["job-name=solo"]], log
    assert all(r["headers"]["authorization"] == "Bearer <redacted>" for r in log), log


# ---- members named from the own Job (--members job) ----------------------------------------
#
# In an Indexed Job's pod, one GET of the own Job (and of its JobSet) names every member
# "<hostname>.<subdomain>.<ns>.svc.cluster.local:PORT", in the list's order; any unmet condition
# is logged and the pod list answers.

def dns(host, subdomain, namespace="default", port=8470):
    return f"{host}.{subdomain}.{namespace}.svc.cluster.local:{port}"


def indexed_job(name, count, namespace="default", **pod_options):
    """An Indexed Job of make_pods: its pods, the Job, and its members in order as (hostname,
    Job, completion index)."""
    pods = make_pods.make_pods(count, name, namespace, indexed=True, **pod_options)
    return {"ns": namespace, "pods": pods, "jobs": [make_pods.make_job(name, namespace, count, pods=pods)],
            "jobsets": [], "jobset": None, "subdomain": name,
            "members": [(f"{name}-{i}", name, i) for i in range(count)]}


def jobset(name, rjobs, namespace="default", subdomain=None, **pod_options):
    """JobSet name of make_pods: its pods, Jobs, the JobSet and its members in job-global-index
    order. subdomain: its spec.network.subdomain, which kubernetes-sigs/jobset's constructJob
    gives every Job's pod template (GetSubdomain), so the pods have it too (make_jobset_pods
    always gives them the JobSet's name: set here)."""
    pods = make_pods.make_jobset_pods(name, rjobs, namespace, **pod_options)
    for p in pods if subdomain else ():
        p["spec"]["subdomain"] = subdomain
    return {"ns": namespace, "pods": pods, "jobs": make_pods.make_jobset_jobs(name, rjobs, namespace, pods,
                                                                               subdomain=subdomain),
            "jobsets": [make_pods.make_jobset(name, rjobs, namespace, pods, subdomain=subdomain)],
            "jobset": name, "subdomain": subdomain or name,
            "members": [(f"{name}-{r}-{j}-{i}", f"{name}-{r}-{j}", i) for r, replicas, n in rjobs
                        for j in range(replicas) for i in range(n)]}


def serve(name, *shapes, pods=()):
    """Writes the shapes' pods (and more pods), Jobs and JobSets as the API server lists them;
    returns fake_api.py's options serving them."""
    pods = list(pods) + [p for sh in shapes for p in sh["pods"]]
    jobs = [j for sh in shapes for j in sh["jobs"]]
    jobsets = [j for sh in shapes for j in sh["jobsets"]]
    return ["--pods", write(name + "-pods.json", make_pods.pod_list(pods)),
            "--jobs", write(name + "-jobs.json", make_pods.job_list(jobs)),
            "--jobsets", write(name + "-jobsets.json", make_pods.jobset_list(jobsets))]


JS_RJOBS = [("workers", 2, 2), ("driver", 2, 2)]  # JobSet js of jobset.json (make_pods.jobset_fixture)
JS_DNS = [dns(f"js-{r}-{j}-{i}", "js") for r, replicas, n in JS_RJOBS for j in range(replicas) for i in range(n)]
TRAINER5_DNS = [dns(f"trainer-{i}", "trainer") for i in range(5)]
_SERVED = {}


def pod_world():
    """fake_api.py options (files written once) for: jobset.json's pods (JobSet js, Indexed Job
    solo, JobSet other) with the Jobs and JobSet of js and solo's Job; Indexed Job trainer of 5
    pods; Indexed Job pend of 3 Pending pods; and one Job or JobSet for each condition under
    which members JOB must leave the answer to the list (see test_job_fallbacks_answer_as_the_list)."""
    if "world" in _SERVED:
        return _SERVED["world"]
    with open(JOBSET) as f:
        fixture = json.load(f)["items"]
    js = {"pods": [], "jobs": make_pods.make_jobset_jobs("js", JS_RJOBS, "default", fixture),
          "jobsets": [make_pods.make_jobset("js", JS_RJOBS, "default", fixture)]}
    solo = {"pods": [], "jobs": [make_pods.make_job("solo", "default", 2, pods=fixture)], "jobsets": []}
    trainer = indexed_job("trainer", 5, start_ip="10.4.6.10")
    pend = indexed_job("pend", 3, phase="Pending")
    # make_job's Indexed Job with completionMode NonIndexed (batch/v1's default when unset), its
    # pods as an Indexed Job's, so HOSTNAME and JOB_COMPLETION_INDEX look right
    nonidx = indexed_job("nonidx", 3, start_ip="10.4.7.10")
    nonidx["jobs"][0]["spec"]["completionMode"] = "NonIndexed"
    # an elastic Indexed Job: 4 completions, 2 at a time (make_job's parallelism)
    elastic = indexed_job("elastic", 2, start_ip="10.4.8.10")
    elastic["jobs"] = [make_pods.make_job("elastic", "default", 4, parallelism=2, pods=elastic["pods"])]
    # an Indexed Job whose pod template sets no subdomain: the Job controller sets the pods'
    # hostname only, so they have no DNS name (spec.subdomain deleted from the Job and its pods)
    nosub = indexed_job("nosub", 3, start_ip="10.4.9.10")
    del nosub["jobs"][0]["spec"]["template"]["spec"]["subdomain"]
    for p in nosub["pods"]:
        del p["spec"]["subdomain"]
    # JobSet jsoff with spec.network.enableDNSHostnames false: constructJob then leaves the
    # template's subdomain as the replicated job gives it (here "jsoff", set by the user), and
    # the JobSet makes no headless Service for it
    jsoff = jobset("jsoff", [("w", 2, 2)], start_ip="10.4.10.10")
    jsoff["jobsets"][0]["spec"]["network"]["enableDNSHostnames"] = False
    _SERVED["world"] = serve("world", js, solo, trainer, pend, nonidx, elastic, nosub, jsoff, pods=fixture)
    return _SERVED["world"]


def test_auto_names_members_from_the_own_job():
    """Auto in an Indexed Job's pod (trainer-3) names the members from one GET of its Job, by
    DNS, in index order; in a JobSet's pod (js-driver-0-1) from the Job and the JobSet: the
    whole JobSet in job-global-index order. In-cluster HTTPS with the service account's token;
    auto with --members list lists the pods."""
    need_mount_namespace()
    f = Fake(*pod_world(), "--bearer", TOKEN, tls=True)
    trainer = {"HOSTNAME": "trainer-3", "JOB_COMPLETION_INDEX": "3"}
    code, out, err = in_pod(f, ["--format", "launch", "--verbose"], trainer)
    assert code == 0, err
    assert json.loads(out) == {"world_size": 5, "rank": 3, "local_rank": 0, "local_world_size": 1, "node_rank": 3,
                               "num_nodes": 5, "master_addr": "trainer-0.trainer.default.svc.cluster.local",
                               "master_port": 8470}, out
    assert 'job "worker" = job-name=trainer, or the whole JobSet when the own pod is in one; members named from ' \
           'the Job, else listed\n' in err, err
    assert 'kubernetes: job "worker": 5 members named from Job "trainer" (subdomain "trainer")\n' in err, err
    assert "listing pods" not in err and TOKEN not in err
    log = f.requests()
    assert [(r["method"], r["path"], r["status"]) for r in log] == [
        ("GET", "/apis/batch/v1/namespaces/default/jobs/trainer", 200)], log
    assert log[0]["headers"]["authorization"] == "Bearer <redacted>" and log[0]["query"] == {}, log
    code, out, err = in_pod(f, ["--format", "spec"], trainer)
    assert (code, json.loads(out)) == (0, {"worker": TRAINER5_DNS}), (code, out, err)
    assert len(f.requests()) == 2
    # a JobSet's pod: its Job, then its JobSet
    driver = {"HOSTNAME": "js-driver-0-1", "JOB_COMPLETION_INDEX": "1"}
    code, out, err = in_pod(f, ["--format", "launch", "--verbose"], driver)
    assert code == 0, err
    assert json.loads(out) == {"world_size": 8, "rank": 5, "local_rank": 0, "local_world_size": 1, "node_rank": 5,
                               "num_nodes": 8, "master_addr": "js-workers-0-0.js.default.svc.cluster.local",
                               "master_port": 8470}, out
    assert 'kubernetes: job "worker": 8 members named from JobSet "js" (subdomain "js")\n' in err, err
    assert [(r["path"], r["status"]) for r in f.requests()[2:]] == [
        ("/apis/batch/v1/namespaces/default/jobs/js-driver-0", 200),
        ("/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets/js", 200)]
    code, out, err = in_pod(f, ["--format", "tfconfig"], driver)
    assert code == 0, err
    assert json.loads(out) == {"cluster": {"worker": JS_DNS}, "task": {"type": "worker", "index": 5},
                               "rpc_layer": "grpc", "environment": ""}, out
    assert len(f.requests()) == 6
    # --members list: the pods' IPs, listed, no Job read
    code, out, err = in_pod(f, ["--format", "spec", "--members", "list", "--verbose"], trainer)
    assert code == 0, err
    assert json.loads(out) == {"worker": [f"10.4.6.{10 + i}:8470" for i in range(5)]}, out
    assert "; members listed\n" in err and "members named" not in err, err
    log = f.stop()[6:]
    assert [(r["path"], r["query"]["labelSelector"]) for r in log] == [
        ("/api/v1/namespaces/default/pods", ["job-name=trainer"])], log


def k8s_members(f, members, host, index, job, *args, ns="default", env=None):
    """cluster-resolve k8s in pod host (index: its JOB_COMPLETION_INDEX) of Job job, with
    --members members and --follow-jobset as auto gives them; returns (code, out, err)."""
    e = {"HOSTNAME": host, "JOB_COMPLETION_INDEX": str(index)}
    e.update(env or {})
    code, out, err, _ = cli(["k8s", "--server", f.url, "--namespace", ns, "--job", "worker=job-name=" + job,
                             "--follow-jobset", "--members", members] + list(args), e)
    return code, out, err


def test_forbidden_job_or_jobset_falls_back_to_the_list():
    """A role without "get" on jobs (or on jobsets): members JOB says so (403) and the pod list
    answers, exactly as --members list does."""
    want = {"cluster": {"worker": JS_ORDER}, "task": {"type": "worker", "index": 5}, "rpc_layer": "grpc",
            "environment": ""}
    job, jobset = "/apis/batch/v1/namespaces/default/jobs/js-driver-0", \
        "/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets/js"
    pods = ("/api/v1/namespaces/default/pods", 200)
    for forbid, gets, named in [("jobs:get", [(job, 403)], 'jobs "js-driver-0"'),
                                ("jobsets:get", [(job, 200), (jobset, 403)], 'jobsets "js"')]:
        f = Fake(*pod_world(), "--forbid", forbid)
        pod = ("js-driver-0-1", 1, "js-driver-0")
        code, out, err = k8s_members(f, "job", *pod, "--verbose")
        assert code == 0 and json.loads(out) == want, (code, out, err)
        assert f'kubernetes: job "worker": listing pods, since getting {named}: forbidden (403: the role grants no ' \
               '"get" on it)\n' in err, err
        log = f.requests()
        assert [(r["path"], r["status"]) for r in log] == gets + [pods, pods], log
        assert [r["query"].get("labelSelector") for r in log[-2:]] == [["job-name=js-driver-0"], [JS_SELECTOR]], log
        assert k8s_members(f, "list", *pod) == (0, out, ""), out
        log = f.stop()[len(log):]
        assert [r["query"]["labelSelector"] for r in log] == [["job-name=js-driver-0"], [JS_SELECTOR]], log


def test_job_fallbacks_answer_as_the_list():
    """Each condition members JOB cannot name the members under (the objects of pod_world)
    is logged in plain words, and the answer and exit code are the pod list's."""
    f = Fake(*pod_world())
    for host, index, job, why in [
            ("nonidx-1", 1, "nonidx", 'Job "nonidx" is not Indexed (completionMode "NonIndexed")'),
            ("elastic-1", 1, "elastic", 'Job "elastic": parallelism 2 != completions 4'),
            ("nosub-2", 2, "nosub", 'Job "nosub" has no subdomain (spec.template.spec.subdomain)'),
            ("jsoff-w-1-0", 0, "jsoff-w-1",
             'JobSet "jsoff" has DNS hostnames off (spec.network.enableDNSHostnames false)'),
            ("trainer-1", 1, "solo", 'the selector names Job "solo", this pod\'s Job is "trainer"')]:
        seen = len(f.requests())
        code, out, err = k8s_members(f, "job", host, index, job, "--verbose")
        assert f'kubernetes: job "worker": listing pods, since {why}\n' in err, err
        assert "members named" not in err, err
        gets = [] if job == "solo" else ["/apis/batch/v1/namespaces/default/jobs/" + job]  # the selector's: no GET
        gets += ["/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets/jsoff"] if job.startswith("jsoff") else []
        asked = [r["path"] for r in f.requests()[seen:] if not r["path"].endswith("/pods")]
        assert asked == gets, asked
        listed = k8s_members(f, "list", host, index, job)
        assert (code, out) == listed[:2], (job, code, out, err, listed)
        assert code == 0 and ".svc." not in out, (code, out)
    # what the list gave: the pod IPs in index order, the JobSet's whole
    assert json.loads(k8s_members(f, "job", "nosub-2", 2, "nosub", "--format", "launch")[1])["rank"] == 2
    assert json.loads(k8s_members(f, "job", "jsoff-w-1-0", 0, "jsoff-w-1", "--format", "spec")[1]) == {
        "worker": [f"10.4.10.{10 + i}:8470" for i in range(4)]}
    f.stop()


def test_pending_pods_are_members():
    """Members JOB names Pending pods too (they get their DNS names when they run): exit 0 at
    once, where the list says the pods are not ready (exit 5)."""
    f = Fake(*pod_world())
    code, out, err = k8s_members(f, "job", "pend-0", 0, "pend", "--format", "spec")
    assert (code, err) == (0, ""), (code, err)
    assert json.loads(out) == {"worker": [dns(f"pend-{i}", "pend") for i in range(3)]}, out
    code, out, err = k8s_members(f, "list", "pend-0", 0, "pend", "--format", "spec", "--address", "dns")
    assert code == 5 and out == "" and "is Pending, not Running" in err, (code, out, err)
    f.stop()


def test_members_option_errors():
    f = Fake("--pods", PODS)
    for args, code, words in [
            (["k8s", "--server", f.url, "--members", "foo"], 2, ["--members foo is not one of list|job"]),
            (["--members", "Job"], 2, ["--members Job is not one of list|job"]),  # auto's
            (["k8s", "--server", f.url, "--members", "job", "--address", "host-ip"], 2,
             ["--members JOB names pods of the own namespace by DNS name", "--address HOST_IP need --members LIST"]),
            (["k8s", "--server", f.url, "--members", "job", "--all-namespaces"], 2, ["--all-namespaces"]),
            (["k8s", "--server", f.url, "--members", "job", "--job", "a=job-name=a", "--job", "b=job-name=b"], 2,
             ['--members JOB gives one job, the own Job\'s; --job names "a" and "b"'])]:
        got, out, err, _ = cli(args, {"HOSTNAME": "trainer-1", "JOB_COMPLETION_INDEX": "1"})
        assert (got, out) == (code, ""), (args, got, out, err)
        assert err.startswith("cluster-resolve: ") and err.count("\n") == 1, err
        for w in words:
            assert w in err, (w, err)
    assert f.stop() == []  # refused before any request


def test_named_members_equal_the_listed_dns_names():
    """With every pod Running, members JOB answers what the list with --address dns and
    --follow-jobset answers, for the first, a middle and the last pod: Indexed Jobs of 1, 5 (in
    namespace team-a) and 600 pods (two list pages), JobSets of two and three replicated jobs
    (one in team-a), one with spec.network.subdomain."""
    shapes = [indexed_job("one", 1, start_ip="10.5.0.10"),
              indexed_job("five", 5, "team-a", start_ip="10.5.1.10"),
              indexed_job("big", 600, start_ip="10.6.0.10"),
              jobset("jsa", [("workers", 2, 3), ("ps", 3, 1)], start_ip="10.5.2.10"),
              jobset("jsb", [("a", 3, 2), ("b", 2, 2), ("c", 2, 1)], "team-a", start_ip="10.5.3.10"),
              jobset("jsn", [("workers", 3, 2), ("eval", 2, 1)], subdomain="net", start_ip="10.5.4.10")]
    f = Fake(*serve("equal", *shapes))
    for sh in shapes:
        want = [dns(host, sh["subdomain"], sh["ns"]) for host, _, _ in sh["members"]]
        n, js = len(want), sh["jobset"]
        for rank in sorted({0, n // 2, n - 1}):
            host, job, index = sh["members"][rank]
            origin = f'JobSet "{js}"' if js else f'Job "{job}"'
            gets = [f"/apis/batch/v1/namespaces/{sh['ns']}/jobs/{job}"]
            gets += [f"/apis/jobset.x-k8s.io/v1alpha2/namespaces/{sh['ns']}/jobsets/{js}"] if js else []
            tf, launch = [], []
            for members, more in [("job", []), ("list", ["--address", "dns"])]:
                seen = len(f.requests())
                code, out, err = k8s_members(f, members, host, index, job, "--verbose", *more, ns=sh["ns"])
                assert code == 0, (host, members, err)
                tf.append(json.loads(out))
                if members == "job":  # named, from one GET of the Job (and one of the JobSet)
                    assert f'kubernetes: job "worker": {n} members named from {origin} (subdomain ' \
                           f'"{sh["subdomain"]}")\n' in err, err
                    assert [r["path"] for r in f.requests()[seen:]] == gets, f.requests()[seen:]
                code, out, err = k8s_members(f, members, host, index, job, "--format", "launch", *more, ns=sh["ns"])
                assert code == 0, (host, members, err)
                launch.append(json.loads(out))
            assert tf[0] == tf[1] and tf[0]["cluster"] == {"worker": want}, (host, tf)
            assert tf[0]["task"] == {"type": "worker", "index": rank}, (host, tf)
            assert launch[0] == launch[1] and (launch[0]["rank"], launch[0]["world_size"]) == (rank, n), (host, launch)
            assert launch[0]["master_addr"] == want[0].rsplit(":", 1)[0], (host, launch)
    f.stop()


# ---- readiness ------------------------------------------------------------------------------

def test_pending_pod_is_not_ready():
    f = Fake("--pods", PODS)
    fails(f, 5, ['pod "eval-8cgnq" (namespace default) is Pending, not Running'], "--job", "e=job-name=eval")
    err, took = fails(f, 5, ["after waiting", "Pending"], "--job", "e=job-name=eval", "--wait", "2")
    assert 1.5 < took < 10, took
    f.stop()


# ---- faults -------------------------------------------------------------------------------

def test_retries_503_honouring_retry_after():
    faults = write("busy.json", [{"path": "/api/", "times": 1, "status": 503, "headers": {"Retry-After": "1"}}])
    f = Fake("--pods", PODS, "--faults", faults)
    start = time.time()
    assert resolve(f, "--job", "worker=job-name=trainer") == {"worker": TRAINER}
    assert time.time() - start >= 0.9
    assert [r["status"] for r in f.stop()] == [503, 200]


def test_retry_after_forms():
    # blanks before the seconds are skipped; an HTTP date counts as no Retry-After (the
    # library's own backoff, well under a second); more than an hour is an hour, past any bound
    for value, low, high in ((" \t1", 0.9, 5), ("Wed, 21 Oct 2015 07:28:00 GMT", 0, 0.9)):
        faults = write("after.json", [{"path": "/api/", "times": 1, "status": 503, "headers": {"Retry-After": value}}])
        f = Fake("--pods", PODS, "--faults", faults)
        start = time.time()
        assert resolve(f, "--job", "worker=job-name=trainer") == {"worker": TRAINER}
        assert low <= time.time() - start < high, (value, time.time() - start)
        assert [r["status"] for r in f.stop()] == [503, 200], value
    faults = write("after.json", [{"path": "/api/", "times": 1, "status": 503, "headers": {"Retry-After": "99999"}}])
    f = Fake("--pods", PODS, "--faults", faults)
    err, took = fails(f, 4, ["HTTP 503"], "--job", "worker=job-name=trainer", "--resolve-timeout-ms", "3000")
    assert took < 2.5, took
    assert [r["status"] for r in f.stop()] == [503]


def test_gives_up_after_retries():
    faults = write("down.json", [{"path": "/api/", "status": 500}])
    f = Fake("--pods", PODS, "--faults", faults)
    fails(f, 4, ["HTTP 500"], "--retries", "2")
    assert len(f.stop()) == 3


def test_broken_transfers_fail_cleanly():
    for i, (fault, words) in enumerate([({"truncate": 100}, []), ({"lie_length": 50}, []), ({"drop": True}, []),
                                        ({"status": 200, "body": "{\"items\": [tru"}, ["invalid JSON at offset"]),
                                        ({"status": 200, "body": {"items": {"a": 1}}}, ['"items" is not a list'])]):
        f = Fake("--pods", PODS, "--faults", write(f"fault{i}.json", [dict(path="/api/", **fault)]))
        fails(f, 4, ["kubernetes"] + words, "--retries", "0", "--job", "worker=job-name=trainer")
        f.stop()


def test_oversized_body_stops_at_the_cap():
    f = Fake("--pods", PODS, "--faults", write("big.json", [{"path": "/api/", "oversize": 3000000, "chunked": True}]))
    fails(f, 3, ["larger than the limit of 1000000 bytes"], "--max-response-bytes", "1000000", "--retries", "0")
    f.stop()


def test_silent_server_is_bounded_by_the_timeout():
    f = Fake("--pods", PODS, "--faults", write("hang.json", [{"path": "/api/", "hang": True}]))
    err, took = fails(f, 4, ["no complete answer within 1000 ms"], "--timeout-ms", "1000", "--retries", "0")
    assert took < 5, took
    f.stop()


def test_slow_drip_is_bounded_by_the_resolve_timeout():
    # every page arrives well inside --timeout-ms, but pages of one pod add up past the resolve's bound
    f = Fake("--pods", PODS, "--faults", write("slow.json", [{"path": "/api/", "delay": 0.4}]))
    err, took = fails(f, 4, ["resolve_timeout_ms"], "--page-size", "1", "--timeout-ms", "2000",
                      "--resolve-timeout-ms", "600", "--job", "worker=job-name=trainer")
    assert took < 5, took
    assert 1 <= len(f.stop()) <= 3


def test_endless_continue_is_bounded():
    f = Fake("--pods", PODS, "--faults", write("loop.json", [{"path": "/api/", "continue_forever": True}]))
    fails(f, 4, ["continue token"], "--page-size", "1")
    assert len(f.stop()) <= 1000


def main():
    subprocess.run(["bash", os.path.join(ROOT, "tests", "gen_certs.sh"), os.path.join(TMP, "certs")], check=True,
                   stdout=subprocess.DEVNULL)
    tests = [(n, fn) for n, fn in sorted(globals().items()) if n.startswith("test_") and callable(fn)]
    failed = skipped = 0
    try:
        for name, fn in tests:
            start = time.time()
            try:
                fn()
                print(f"ok   {name} ({time.time() - start:.1f} s)")
            except Skip as e:  # cannot run on this machine: said, not hidden
                skipped += 1
                print(f"skip {name}: {e}")
            except Exception as e:  # report each failure, then fail the run
                failed += 1
                print(f"FAIL {name}: {type(e).__name__}: {e}")
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    print(f"{len(tests) - failed - skipped} passed, {skipped} skipped, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Proves that tests/fake_api.py is shaped like the Kubernetes API and that its faults do what
they say: Debian's python3-kubernetes client lists, pages and reads pods through it (plain HTTP
and in-cluster HTTPS with a bearer token and a test CA), and every fault action is checked with
http.client. Also checks tests/k8s/make_pods.py (deterministic, realistic) and
tests/gen_certs.sh (fast, idempotent). Every server is stopped with SIGTERM and must exit 0
with nothing on stderr.

usage: [FAKE_API_PYTHON=python] /usr/bin/python3 tests/k8s/test_fake_api.py [NAME_SUBSTRING...]
Needs python3-kubernetes (Debian) and openssl. Prints one line per test, then "N passed, M failed".
"""
import base64
import gzip
import hashlib
import http.client
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
FAKE = os.path.join(TESTS, "fake_api.py")
GEN_CERTS = os.path.join(TESTS, "gen_certs.sh")
FIXTURE = os.path.join(HERE, "fixtures", "pods_small.json")
JOBSET_FIXTURE = os.path.join(HERE, "fixtures", "jobset.json")
# Servers run under the first python3 on PATH (pyenv 3.11 here) unless FAKE_API_PYTHON says
# otherwise; the in-cluster test always runs its server under Debian's /usr/bin/python3.
PATH_PY = os.environ.get("FAKE_API_PYTHON") or shutil.which("python3") or "/usr/bin/python3"
SYSTEM_PY = "/usr/bin/python3"
INDEX = "batch.kubernetes.io/job-completion-index"
JOBSET = "jobset.sigs.k8s.io/jobset-name"
GLOBAL = "jobset.sigs.k8s.io/job-global-index"
sys.path.insert(0, HERE)
import make_pods  # noqa: E402
sys.path.insert(0, TESTS)
import fake_api as FAKE_API  # noqa: E402  (only for oversize_body; servers run as processes)

try:
    from kubernetes import client
    from kubernetes.client.exceptions import ApiException
    from kubernetes.config.incluster_config import InClusterConfigLoader
except ImportError:
    sys.exit("test_fake_api: needs Debian's python3-kubernetes under /usr/bin/python3 "
             "(apt-get install -y --no-install-recommends python3-kubernetes)")

TMP = tempfile.mkdtemp(prefix="test_fake_api.")
CERTS = os.path.join(TMP, "certs")
ALL_TESTS = []


def test(fn):
    ALL_TESTS.append(fn)
    return fn


# ---------------------------------------------------------------- the fake server

class Fake:
    """One fake_api.py process. Use as a context manager; on exit it is stopped with SIGTERM
    and must exit 0 with an empty stderr (no tracebacks, whatever the clients did)."""
    count = 0

    def __init__(self, *args, routes=None, faults=None, pods=None, tls=False, python=PATH_PY,
                 max_seconds=120):
        Fake.count += 1
        self.dir = os.path.join(TMP, "fake%d" % Fake.count)
        os.makedirs(self.dir)
        self.tls = tls
        self.log_path = self._path("requests.jsonl")
        argv = [python, FAKE, "--port-file", self._path("port"), "--log", self.log_path,
                "--max-seconds", str(max_seconds)] + list(args)
        if routes is not None:
            argv += ["--routes", self._write("routes.json", routes)]
        if faults is not None:
            argv += ["--faults", self._write("faults.json", faults)]
        if pods is not None:
            argv += ["--pods", pods]
        if tls:
            argv += ["--cert", os.path.join(CERTS, "server.pem"),
                     "--key", os.path.join(CERTS, "server.key")]
        self.argv = argv

    def _path(self, name):
        return os.path.join(self.dir, name)

    def _write(self, name, obj):
        with open(self._path(name), "w") as f:
            json.dump(obj, f)
        return self._path(name)

    def start(self):
        self.stderr = open(self._path("stderr"), "w+")
        self.proc = subprocess.Popen(self.argv, stdout=subprocess.DEVNULL, stderr=self.stderr)
        deadline = time.time() + 10
        while not os.path.exists(self._path("port")):
            if self.proc.poll() is not None or time.time() > deadline:
                raise AssertionError("fake_api did not start: " + self.errors())
            time.sleep(0.01)
        with open(self._path("port")) as f:
            self.port = int(f.read())
        self.url = "%s://127.0.0.1:%d" % ("https" if self.tls else "http", self.port)
        return self

    def errors(self):
        self.stderr.seek(0)
        return self.stderr.read()

    def stop(self):
        """SIGTERM; returns (exit status, stderr)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        err = self.errors()
        self.stderr.close()
        return code, err

    def log(self):
        with open(self.log_path) as f:
            return [json.loads(line) for line in f]

    def __enter__(self):
        return self.start()

    def __exit__(self, kind, exc, tb):
        code, err = self.stop()
        if kind is None:
            check(code == 0 and err == "", "server exit %s, stderr: %r" % (code, err[-2000:]))


def check(cond, message="check failed"):
    if not cond:
        raise AssertionError(message)


def equal(got, want, what="value"):
    check(got == want, "%s: got %r, want %r" % (what, got, want))


# ---------------------------------------------------------------- HTTP helpers

def tls_context(ca="ca.pem"):
    return ssl.create_default_context(cafile=os.path.join(CERTS, ca))


def connect(fake, timeout=5, ca="ca.pem", host="127.0.0.1"):
    if fake.tls:
        return http.client.HTTPSConnection(host, fake.port, timeout=timeout,
                                           context=tls_context(ca))
    return http.client.HTTPConnection(host, fake.port, timeout=timeout)


def request(fake, path, method="GET", headers=None, timeout=5, body=None, **kw):
    """One request on a fresh connection: (status, headers dict (lower-case), body bytes)."""
    conn = connect(fake, timeout, **kw)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        body = resp.read()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, body
    finally:
        conn.close()


def get_json(fake, path, want_status=200, **kw):
    status, _, body = request(fake, path, **kw)
    equal(status, want_status, "status of GET " + path)
    return json.loads(body)


def raw_response(fake, path, timeout=5):
    """Sends a request over a plain socket and returns every byte until the server closes."""
    with socket.create_connection(("127.0.0.1", fake.port), timeout=timeout) as s:
        s.sendall(b"GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % path.encode())
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return data
            data += chunk


def split_response(data):
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, body


def status_object(body, code, reason):
    obj = json.loads(body)
    equal((obj.get("kind"), obj.get("apiVersion"), obj.get("status")),
          ("Status", "v1", "Failure"), "Status shape")
    equal((obj.get("code"), obj.get("reason")), (code, reason), "Status code/reason")
    return obj


# ---------------------------------------------------------------- fixture expectations

def fixture_pods():
    with open(FIXTURE) as f:
        return json.load(f)["items"]


def expected(namespace=None, job=None, keep=lambda pod: True):
    """(name, podIP) of the fixture's pods, in the API server's order (key "<ns>/<name>")."""
    pods = [p for p in fixture_pods()
            if namespace in (None, p["metadata"]["namespace"])
            and job in (None, p["metadata"]["labels"].get("job-name")) and keep(p)]
    pods.sort(key=lambda p: p["metadata"]["namespace"] + "/" + p["metadata"]["name"])
    return [(p["metadata"]["name"], p["status"].get("podIP")) for p in pods]


def names_ips(pod_list):
    return [(p.metadata.name, p.status.pod_ip) for p in pod_list.items]


def json_names(obj):
    return [p["metadata"]["name"] for p in obj["items"]]


# ---------------------------------------------------------------- python3-kubernetes

def plain_api(fake):
    cfg = client.Configuration()
    cfg.host = fake.url
    return client.CoreV1Api(client.ApiClient(cfg))


@contextmanager
def service_env(port):
    saved = {k: os.environ.get(k) for k in ("KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT")}
    os.environ.update(KUBERNETES_SERVICE_HOST="127.0.0.1", KUBERNETES_SERVICE_PORT=str(port))
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def incluster_api(fake, token):
    """What a pod does: in-cluster config from the service env, token file and CA file."""
    token_file = os.path.join(fake.dir, "token")
    with open(token_file, "w") as f:
        f.write(token)
    cfg = client.Configuration()
    with service_env(fake.port):
        InClusterConfigLoader(token_filename=token_file,
                              cert_filename=os.path.join(CERTS, "ca.pem")).load_and_set(cfg)
    equal(cfg.host, "https://127.0.0.1:%d" % fake.port, "in-cluster host")
    return client.CoreV1Api(client.ApiClient(cfg))


def api_error(call):
    try:
        call()
    except ApiException as e:
        return e
    raise AssertionError("no ApiException")


@test
def k8s_list_namespaced_pod_http():
    with Fake(pods=FIXTURE) as fake:
        pods = plain_api(fake).list_namespaced_pod("default", label_selector="job-name=trainer")
        equal(names_ips(pods), expected("default", "trainer"), "default/trainer pods")
        check(len(pods.items) == 4 and pods.metadata.resource_version, "4 pods and a list RV")
        terminating = [p.metadata.name for p in pods.items if p.metadata.deletion_timestamp]
        equal(len(terminating), 1, "terminating pods")
        hostnames = sorted(p.spec.hostname for p in pods.items)
        equal(hostnames, ["trainer-0", "trainer-1", "trainer-1", "trainer-2"], "hostnames")
        req = fake.log()[-1]
        equal((req["path"], req["query"]), ("/api/v1/namespaces/default/pods",
                                            {"labelSelector": ["job-name=trainer"]}), "request")


@test
def k8s_list_pod_for_all_namespaces_http():
    with Fake(pods=FIXTURE) as fake:
        api = plain_api(fake)
        pods = api.list_pod_for_all_namespaces(label_selector="job-name=trainer")
        equal(names_ips(pods), expected(None, "trainer"), "trainer pods, all namespaces")
        equal([p.metadata.namespace for p in pods.items][-1], "other", "last namespace")
        everything = api.list_pod_for_all_namespaces()
        equal(len(everything.items), len(fixture_pods()), "all pods")
        equal(names_ips(api.list_namespaced_pod("nosuchns")), [], "unknown namespace")


@test
def k8s_selectors():
    def job(p):
        return p["metadata"]["labels"]["job-name"]

    def index(p):
        return p["metadata"]["labels"].get(INDEX)
    cases = [  # (labelSelector, fieldSelector, expected pods)
        ("job-name in (ps, eval)", None, expected(keep=lambda p: job(p) in ("ps", "eval"))),
        ("job-name notin (trainer)", None, expected(keep=lambda p: job(p) != "trainer")),
        ("!" + INDEX, None, expected(keep=lambda p: index(p) is None)),
        (INDEX + ",job-name==trainer", None, expected(None, "trainer")),
        ("job-name=trainer," + INDEX + "!=1", None,
         expected(None, "trainer", keep=lambda p: index(p) != "1")),
        ("job-name=trainer", "status.phase=Running,metadata.namespace=default",
         expected("default", "trainer")),
        (None, "status.phase=Pending", expected(None, "eval")),
        (None, "status.podIP=10.4.0.11", [n for n in expected() if n[1] == "10.4.0.11"]),
        (None, "metadata.name!=" + expected()[0][0], expected()[1:]),
    ]
    check(len(cases[0][2]) == 3 and len(cases[7][2]) == 1, "the fixture has the expected shape")
    with Fake(pods=FIXTURE) as fake:
        api = plain_api(fake)
        for labels, fields, want in cases:
            kw = {k: v for k, v in (("label_selector", labels), ("field_selector", fields)) if v}
            equal(names_ips(api.list_pod_for_all_namespaces(**kw)), want, "selector %s" % kw)


@test
def k8s_paging_limit_and_continue():
    with Fake(pods=FIXTURE) as fake:
        api = plain_api(fake)
        seen, token, pages, rvs = [], None, 0, set()
        while True:
            kw = {"_continue": token} if token else {}
            page = api.list_pod_for_all_namespaces(limit=2, **kw)
            pages += 1
            seen += names_ips(page)
            rvs.add(page.metadata.resource_version)
            token = page.metadata._continue
            if not token:
                break
            check(page.metadata.remaining_item_count == len(fixture_pods()) - len(seen),
                  "remainingItemCount %s" % page.metadata.remaining_item_count)
        equal(seen, expected(), "all pages together")
        equal(pages, 4, "pages of 2 for 8 pods")
        equal(len(rvs), 1, "one resourceVersion for the whole list")
        sel = api.list_namespaced_pod("default", label_selector="job-name=trainer", limit=2)
        equal(names_ips(sel), expected("default", "trainer")[:2], "first filtered page")
        check(sel.metadata._continue and sel.metadata.remaining_item_count is None,
              "filtered pages carry no remainingItemCount (as the real server)")


@test
def k8s_read_pod_and_404():
    with Fake(pods=FIXTURE) as fake:
        api = plain_api(fake)
        name, ip = expected("default", "trainer")[0]
        pod = api.read_namespaced_pod(name, "default")
        equal((pod.kind, pod.api_version, pod.status.pod_ip), ("Pod", "v1", ip), "read pod")
        e = api_error(lambda: api.read_namespaced_pod("missing", "default"))
        equal(e.status, 404, "missing pod")
        equal(json.loads(e.body)["message"], 'pods "missing" not found', "404 message")
        e = api_error(lambda: api.read_namespaced_pod(name, "other"))
        equal(e.status, 404, "pod in another namespace")


@test
def k8s_jobset_list_and_get_by_name_not_hostname():
    """A JobSet's pods by its label, one Job of it by two; a pod read by its name. An Indexed
    Job pod's hostname is not its name: GET pods/<hostname> is a 404, which is why the
    resolver finds the own pod in a list (403 when the token may not get pods at all)."""
    with open(JOBSET_FIXTURE) as f:
        pods = json.load(f)["items"]
    js = sorted(p["metadata"]["name"] for p in pods if p["metadata"]["labels"].get(JOBSET) == "js")
    with Fake(pods=JOBSET_FIXTURE) as fake:
        api = plain_api(fake)
        got = api.list_namespaced_pod("default", label_selector=JOBSET + "=js")
        equal([p.metadata.name for p in got.items], js, "JobSet js, all its Jobs")
        equal(len(js), 9, "8 pods and a terminating one")
        one = api.list_namespaced_pod("default", label_selector="%s=js,%s=1" % (JOBSET, GLOBAL))
        equal(sorted({p.metadata.labels["job-name"] for p in one.items}), ["js-workers-1"], "one Job")
        own = [p for p in got.items if p.spec.hostname == "js-workers-1-1"][0]
        pod = api.read_namespaced_pod(own.metadata.name, "default")
        equal((pod.metadata.labels[JOBSET], pod.metadata.labels[GLOBAL], pod.spec.subdomain),
              ("js", "1", "js"), "read by name")
        e = api_error(lambda: api.read_namespaced_pod("js-workers-1-1", "default"))
        equal(e.status, 404, "GET by hostname")
        equal(status_object(e.body, 404, "NotFound")["message"], 'pods "js-workers-1-1" not found',
              "404 message")
    with Fake("--forbid-token", "viewer", pods=JOBSET_FIXTURE, tls=True) as fake:
        e = api_error(lambda: incluster_api(fake, "viewer").read_namespaced_pod(own.metadata.name, "default"))
        msg = status_object(e.body, 403, "Forbidden")["message"]
        check(msg.startswith('pods "%s" is forbidden' % own.metadata.name) and 'cannot get resource "pods"' in msg,
              msg)


@test
def k8s_incluster_https_bearer():
    with Fake("--bearer", "s3cret-token", pods=FIXTURE, tls=True, python=SYSTEM_PY) as fake:
        api = incluster_api(fake, "s3cret-token")
        pods = api.list_namespaced_pod("default", label_selector="job-name=trainer")
        equal(names_ips(pods), expected("default", "trainer"), "pods over HTTPS")
        pods = api.list_pod_for_all_namespaces(label_selector="job-name=ps")
        equal(names_ips(pods), expected(None, "ps"), "ps pods over HTTPS")
        req = fake.log()[-1]
        equal(req["headers"]["authorization"], "bearer <redacted>", "logged (lower-case scheme)")
        with open(fake.log_path) as f:
            check("s3cret-token" not in f.read(), "token leaked into the log")


@test
def k8s_wrong_token_401():
    with Fake("--bearer", "right", pods=FIXTURE, tls=True) as fake:
        e = api_error(lambda: incluster_api(fake, "wrong").list_namespaced_pod("default"))
        equal(e.status, 401, "wrong token")
        status_object(e.body, 401, "Unauthorized")
        status, _, body = request(fake, "/api/v1/pods")
        equal(status, 401, "no token")
        status, _, _ = request(fake, "/api/v1/pods", headers={"Authorization": "BEARER right"})
        equal(status, 200, "scheme is case-insensitive")


@test
def k8s_forbidden_403():
    with Fake("--bearer", "right", "--forbid-token", "viewer", pods=FIXTURE, tls=True) as fake:
        api = incluster_api(fake, "viewer")
        e = api_error(lambda: api.list_namespaced_pod("default"))
        equal(e.status, 403, "forbidden token")
        msg = status_object(e.body, 403, "Forbidden")["message"]
        equal(msg, 'pods is forbidden: User "system:serviceaccount:default:default" cannot list '
                   'resource "pods" in API group "" in the namespace "default"', "RBAC message")
        msg = json.loads(api_error(lambda: api.list_pod_for_all_namespaces()).body)["message"]
        check(msg.endswith('cannot list resource "pods" in API group "" at the cluster scope'), msg)
        msg = json.loads(api_error(lambda: api.read_namespaced_pod("p", "ns")).body)["message"]
        check(msg.startswith('pods "p" is forbidden') and 'cannot get resource' in msg, msg)


@test
def k8s_discovery_documents():
    """With --pods the fake answers kubectl's discovery requests: /version, /api, /apis,
    /api/v1 as legacy documents, and /api and /apis aggregated when Accept asks for an
    apidiscovery version the --server-version serves (tests/clients/ runs real kubectl)."""
    v2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
    beta = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"
    accept = {"Accept": ",".join([v2, beta, "application/json"])}
    with Fake("--bearer", "right", "--forbid-token", "viewer", "--server-version", "v1.27.4",
              pods=FIXTURE, tls=True) as fake:
        auth = {"Authorization": "Bearer right"}
        equal({k: v for k, v in get_json(fake, "/version", headers=auth).items()
               if k in ("major", "minor", "gitVersion")},
              {"major": "1", "minor": "27", "gitVersion": "v1.27.4"}, "/version")
        equal(get_json(fake, "/api", headers=auth)["versions"], ["v1"], "APIVersions")
        equal(get_json(fake, "/apis", headers=auth)["kind"], "APIGroupList", "/apis")
        pods = [r for r in get_json(fake, "/api/v1", headers=auth)["resources"]
                if r["name"] == "pods"]
        equal((pods[0]["kind"], pods[0]["namespaced"], "list" in pods[0]["verbs"]),
              ("Pod", True, True), "APIResourceList pods")
        status, headers, body = request(fake, "/api", headers=dict(auth, **accept))
        equal((status, headers["content-type"]), (200, beta), "1.27 serves v2beta1 only")
        doc = json.loads(body)
        equal((doc["kind"], doc["apiVersion"]), ("APIGroupDiscoveryList",
                                                 "apidiscovery.k8s.io/v2beta1"), "aggregated")
        equal(doc["items"][0]["versions"][0]["resources"][0]["resource"], "pods", "core pods")
        equal(request(fake, "/api", headers={"Authorization": "Bearer wrong"})[0], 401,
              "a wrong token is refused before discovery")
        equal(request(fake, "/api", headers={"Authorization": "Bearer viewer"})[0], 200,
              "discovery is open to every authenticated user")
        equal(request(fake, "/api/v1/pods", headers={"Authorization": "Bearer viewer"})[0],
              403, "but pods are not")
    with Fake("--server-version", "v1.32.4", pods=FIXTURE) as fake:
        status, headers, _ = request(fake, "/apis", headers=accept)
        equal((status, headers["content-type"]), (200, v2), "1.30+ serves v2 first")
    with Fake("--server-version", "v1.26.3", pods=FIXTURE) as fake:
        status, headers, body = request(fake, "/api", headers=accept)
        equal((headers["content-type"], json.loads(body)["kind"]),
              ("application/json", "APIVersions"), "1.26 has no aggregated discovery")
    with Fake(routes={"/x": {}}) as fake:
        equal(request(fake, "/version")[0], 404, "no discovery without --pods")


@test
def k8s_expired_continue_410():
    with Fake("--pods-resource-version-expire", "1", pods=FIXTURE) as fake:
        api = plain_api(fake)
        p1 = api.list_pod_for_all_namespaces(limit=2)
        p2 = api.list_pod_for_all_namespaces(limit=2, _continue=p1.metadata._continue)
        e = api_error(lambda: api.list_pod_for_all_namespaces(
            limit=2, _continue=p2.metadata._continue))
        equal(e.status, 410, "a token 2 pages old with expire=1")
        gone = status_object(e.body, 410, "Expired")
        check(gone["message"].startswith("The provided continue parameter is too old to display a "
                                         "consistent list result. You can start a new list "
                                         "without the continue parameter"), gone["message"])
        rest = api.list_pod_for_all_namespaces(limit=10, _continue=gone["metadata"]["continue"])
        equal(names_ips(p1) + names_ips(p2) + names_ips(rest), expected(),
              "the inconsistent token from the 410 continues the list")
        again = api.list_pod_for_all_namespaces(limit=2)
        equal(names_ips(again), expected()[:2], "a fresh list works")


# ---------------------------------------------------------------- Jobs and JobSets

# the JobSet fixture's Jobs and JobSets (tests/k8s/make_pods.py, status counted from its pods)
JOBSETS = [("js", [("workers", 2, 2), ("driver", 2, 2)]), ("other", [("slice", 2, 1)])]
JOB_OBJECTS = {}


def job_objects():
    """{"jobs": [Job], "jobsets": [JobSet], "jobs_file", "jobsets_file"} made once: the Jobs of
    JobSets js and other and the Indexed Job solo (a JobList file), and the two JobSets (a
    plain list file)."""
    if not JOB_OBJECTS:
        with open(JOBSET_FIXTURE) as f:
            pods = json.load(f)["items"]
        jobs = [j for name, rjobs in JOBSETS
                for j in make_pods.make_jobset_jobs(name, rjobs, "default", pods)]
        jobs.append(make_pods.make_job("solo", "default", completions=2, pods=pods))
        jobsets = [make_pods.make_jobset(name, rjobs, "default", pods) for name, rjobs in JOBSETS]
        JOB_OBJECTS.update(jobs=jobs, jobsets=jobsets,
                           jobs_file=os.path.join(TMP, "jobs.json"),
                           jobsets_file=os.path.join(TMP, "jobsets.json"))
        make_pods.dump(make_pods.job_list(jobs), JOB_OBJECTS["jobs_file"])
        make_pods.dump(jobsets, JOB_OBJECTS["jobsets_file"])
    return JOB_OBJECTS


def job_fake(*args, **kw):
    """A Fake with --jobs and --jobsets (the objects of job_objects())."""
    objs = job_objects()
    return Fake("--jobs", objs["jobs_file"], "--jobsets", objs["jobsets_file"], *args, **kw)


def job_named(name):
    return [j for j in job_objects()["jobs"] if j["metadata"]["name"] == name][0]


def jobset_named(name):
    return [j for j in job_objects()["jobsets"] if j["metadata"]["name"] == name][0]


def bare(obj):
    """An object as a built-in list item: without kind and apiVersion."""
    return {k: v for k, v in obj.items() if k not in ("kind", "apiVersion")}


def object_key(obj):
    return obj["metadata"]["namespace"] + "/" + obj["metadata"]["name"]


@test
def jobs_get_list_select_page_and_404():
    """GET a Job: the object as given, kind and apiVersion in front; JobLists with label and
    field selectors and pages, items without kind; a 404 Status worded as kube-apiserver's."""
    jobs = job_objects()["jobs"]
    with job_fake() as fake:
        status, headers, body = request(fake, "/apis/batch/v1/namespaces/default/jobs/js-workers-1")
        equal((status, headers["content-type"]), (200, "application/json"), "GET a Job")
        check(body.startswith(b'{"kind":"Job","apiVersion":"batch/v1","metadata":'), body[:60])
        equal(json.loads(body), job_named("js-workers-1"), "the Job as given")
        page = get_json(fake, "/apis/batch/v1/namespaces/default/jobs?labelSelector=" +
                        "jobset.sigs.k8s.io%2Fjobset-name%3Djs")
        equal((page["kind"], page["apiVersion"]), ("JobList", "batch/v1"), "JobList")
        want = sorted((bare(j) for j in jobs if j["metadata"]["name"].startswith("js-")),
                      key=object_key)
        equal(page["items"], want, "JobSet js's Jobs, in key order, without kind")
        every = get_json(fake, "/apis/batch/v1/jobs")["items"]
        equal([object_key(j) for j in every], sorted(object_key(j) for j in jobs), "all Jobs")
        first = get_json(fake, "/apis/batch/v1/jobs?limit=3")
        equal((len(first["items"]), first["metadata"]["remainingItemCount"]), (3, 4), "page 1")
        rest = get_json(fake, "/apis/batch/v1/jobs?limit=10&continue=" +
                        first["metadata"]["continue"])
        equal(first["items"] + rest["items"], every, "pages together")
        equal(get_json(fake, "/apis/batch/v1/jobs?fieldSelector=status.successful%3D0&"
                             "labelSelector=job-name%3Dsolo")["items"], [bare(job_named("solo"))],
              "status.successful and a label")
        equal(get_json(fake, "/apis/batch/v1/jobs?fieldSelector=metadata.name%3Dsolo")["items"],
              [bare(job_named("solo"))], "metadata.name")
        status, _, body = request(fake, "/apis/batch/v1/jobs?fieldSelector=status.phase%3DX")
        equal(status, 400, "a pod field is no Job field")
        status, _, body = request(fake, "/apis/batch/v1/namespaces/default/jobs/trainer")
        gone = status_object(body, 404, "NotFound")
        equal((gone["message"], gone["details"]),
              ('jobs.batch "trainer" not found', {"name": "trainer", "group": "batch",
                                                  "kind": "jobs"}), "404 Status")
        equal(request(fake, "/apis/batch/v1/namespaces/other/jobs/solo")[0], 404, "namespace")
        equal(request(fake, "/api/v1/pods")[0], 404, "no pods without --pods")
        status, _, body = request(fake, "/apis/batch/v1/namespaces/default/jobs", method="POST",
                                  body=b"{}")
        equal(status_object(body, 405, "MethodNotAllowed")["details"],
              {"group": "batch", "kind": "jobs"}, "405 details")


@test
def jobs_namespace_defaults_and_kind_added():
    """Objects without metadata.namespace land in "default"; a Job given without kind and
    apiVersion gets them in a GET; a JobSet in a list gets them too; a bad file exits 2."""
    path = os.path.join(TMP, "bare_jobs.json")
    with open(path, "w") as f:
        json.dump([{"metadata": {"name": "a"}, "spec": {"completions": 1}},
                   {"kind": "Job", "metadata": {"name": "b", "namespace": "ml"}}], f)
    sets = os.path.join(TMP, "bare_jobsets.json")
    with open(sets, "w") as f:
        json.dump({"items": [{"metadata": {"name": "s"}, "spec": {"z": 1, "a": 2}}]}, f)
    with Fake("--jobs", path, "--jobsets", sets) as fake:
        equal(get_json(fake, "/apis/batch/v1/namespaces/default/jobs/a"),
              {"kind": "Job", "apiVersion": "batch/v1",
               "metadata": {"name": "a", "namespace": "default"}, "spec": {"completions": 1}},
              "defaults")
        equal([j["metadata"]["name"] for j in get_json(fake, "/apis/batch/v1/jobs")["items"]],
              ["a", "b"], "both")
        status, _, body = request(fake, "/apis/jobset.x-k8s.io/v1alpha2/jobsets")
        equal(body, b'{"apiVersion":"jobset.x-k8s.io/v1alpha2","items":[{"apiVersion":'
                    b'"jobset.x-k8s.io/v1alpha2","kind":"JobSet","metadata":{"name":"s",'
                    b'"namespace":"default"},"spec":{"a":2,"z":1}}],"kind":"JobSetList",'
                    b'"metadata":{"continue":"","resourceVersion":"1000"}}', "a CR list")
    bad = os.path.join(TMP, "bad_jobs.json")
    with open(bad, "w") as f:
        json.dump([{"metadata": {"namespace": "x"}}], f)
    p = subprocess.run([PATH_PY, FAKE, "--port-file", os.path.join(TMP, "nope"), "--jobs", bad],
                       capture_output=True, text=True, timeout=10)
    equal((p.returncode, p.stderr.strip()),
          (2, "fake_api: %s: Job #0 has no metadata.name" % bad), "bad --jobs file")


@test
def jobsets_get_list_and_404():
    """JobSets as apiextensions-apiserver serves a custom resource: whole objects with sorted
    keys, a JobSetList with "continue", pages, and 404 'jobsets.jobset.x-k8s.io "x" not
    found'."""
    base = "/apis/jobset.x-k8s.io/v1alpha2"
    with job_fake() as fake:
        status, _, body = request(fake, base + "/namespaces/default/jobsets/js")
        equal(json.loads(body), jobset_named("js"), "the JobSet as given")
        equal(body, json.dumps(jobset_named("js"), separators=(",", ":"),
                               sort_keys=True).encode(), "keys sorted")
        listed = get_json(fake, base + "/namespaces/default/jobsets")
        equal((listed["kind"], listed["apiVersion"], listed["metadata"]["continue"]),
              ("JobSetList", "jobset.x-k8s.io/v1alpha2", ""), "JobSetList")
        equal(listed["items"], job_objects()["jobsets"], "items whole, in key order")
        one = get_json(fake, base + "/jobsets?limit=1")
        check(one["metadata"]["continue"] and one["metadata"]["remainingItemCount"] == 1, one)
        equal([j["metadata"]["name"] for j in
               get_json(fake, base + "/jobsets?fieldSelector=metadata.name%3Dother")["items"]],
              ["other"], "fieldSelector")
        status, _, body = request(fake, base + "/namespaces/default/jobsets/nope")
        gone = status_object(body, 404, "NotFound")
        equal((gone["message"], gone["details"]),
              ('jobsets.jobset.x-k8s.io "nope" not found',
               {"name": "nope", "group": "jobset.x-k8s.io", "kind": "jobsets"}), "404")
        equal(request(fake, base + "/namespaces/default/jobsets?fieldSelector=spec.x%3D1")[0],
              400, "custom resources select on metadata only")


@test
def jobs_discovery_groups():
    """With --jobs and --jobsets, /apis lists batch and jobset.x-k8s.io (legacy and aggregated
    v2, v2beta1), /apis/GROUP and /apis/GROUP/VERSION answer; /api/v1 lists pods only with
    --pods; discovery is open to a token --forbid denies."""
    v2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
    with job_fake("--server-version", "v1.29.2", "--forbid", "jobs:*") as fake:
        groups = get_json(fake, "/apis")["groups"]
        equal([(g["name"], g["preferredVersion"]["groupVersion"]) for g in groups],
              [("batch", "batch/v1"), ("jobset.x-k8s.io", "jobset.x-k8s.io/v1alpha2")], "/apis")
        status, headers, body = request(fake, "/apis", headers={"Accept": v2 + ",application/json"})
        equal(headers["content-type"], "application/json", "1.29 has no apidiscovery v2")
        beta = v2.replace("v=v2", "v=v2beta1")
        status, headers, body = request(fake, "/apis", headers={"Accept": beta})
        doc = json.loads(body)
        equal((headers["content-type"], doc["apiVersion"]), (beta, "apidiscovery.k8s.io/v2beta1"),
              "aggregated")
        res = {i["metadata"]["name"]: i["versions"][0]["resources"][0] for i in doc["items"]}
        equal((res["batch"]["resource"], res["batch"]["responseKind"], res["batch"]["scope"],
               res["batch"]["categories"]), ("jobs", {"group": "", "version": "", "kind": "Job"},
                                             "Namespaced", ["all"]), "jobs")
        equal((res["jobset.x-k8s.io"]["singularResource"], res["jobset.x-k8s.io"]["responseKind"],
               "shortNames" in res["jobset.x-k8s.io"]),
              ("jobset", {"group": "jobset.x-k8s.io", "version": "v1alpha2", "kind": "JobSet"},
               False), "jobsets: a custom resource names its group")
        equal(get_json(fake, "/apis/batch")["preferredVersion"],
              {"groupVersion": "batch/v1", "version": "v1"}, "APIGroup")
        jobs = get_json(fake, "/apis/batch/v1")
        equal([(r["name"], r["kind"], r.get("storageVersionHash")) for r in jobs["resources"]],
              [("jobs", "Job", "mudhfqk/qZY="), ("jobs/status", "Job", None)],
              "APIResourceList (kube-apiserver's hash for batch/v1 Job)")
        sets = get_json(fake, "/apis/jobset.x-k8s.io/v1alpha2")["resources"]
        equal((sets[0]["name"], sets[0]["singularName"], sets[0]["verbs"][:3],
               sets[0]["storageVersionHash"]),
              ("jobsets", "jobset", ["delete", "deletecollection", "get"], "KpiKgyjBCag="),
              "the CRD discovery controller's order and hash")
        equal(get_json(fake, "/api/v1")["resources"], [], "no pods without --pods")
        equal(request(fake, "/apis/batch/v2")[0], 404, "an unserved version")
        equal(request(fake, "/apis/batch/v1/jobs")[0], 403, "but --forbid jobs:* holds")
    with Fake(pods=FIXTURE) as fake:
        equal(get_json(fake, "/apis")["groups"], [], "--pods alone: no groups")
        equal(request(fake, "/apis/batch/v1")[0], 404, "and no batch")


@test
def forbid_resource_verb_403():
    """--forbid RESOURCE:VERB: the RBAC denial for that verb only, for any authenticated
    caller, with the group in the message and details; 401 still comes first."""
    with job_fake("--bearer", "tok", "--forbid", "jobs:get", "--forbid",
                  "jobsets.jobset.x-k8s.io:list", "--forbid", "jobs:watch", tls=True) as fake:
        auth = {"Authorization": "Bearer tok"}
        status, _, body = request(fake, "/apis/batch/v1/namespaces/default/jobs/trainer",
                                  headers=auth)
        denied = status_object(body, 403, "Forbidden")
        equal((denied["message"], denied["details"]),
              ('jobs.batch "trainer" is forbidden: User "system:serviceaccount:default:default" '
               'cannot get resource "jobs" in API group "batch" in the namespace "default"',
               {"name": "trainer", "group": "batch", "kind": "jobs"}), "get denied")
        equal(request(fake, "/apis/batch/v1/namespaces/default/jobs", headers=auth)[0], 200,
              "list allowed")
        status, _, body = request(fake, "/apis/batch/v1/jobs?watch=true", headers=auth)
        equal(json.loads(body)["message"].split(": ", 1)[1],
              'User "system:serviceaccount:default:default" cannot watch resource "jobs" in API '
              'group "batch" at the cluster scope', "watch")
        status, _, body = request(fake, "/apis/jobset.x-k8s.io/v1alpha2/namespaces/ml/jobsets",
                                  headers=auth)
        equal(json.loads(body)["message"],
              'jobsets.jobset.x-k8s.io is forbidden: User "system:serviceaccount:default:default" '
              'cannot list resource "jobsets" in API group "jobset.x-k8s.io" in the namespace '
              '"ml"', "a qualified RESOURCE")
        equal(request(fake, "/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets/js",
                      headers=auth)[0], 200, "get allowed")
        equal(request(fake, "/apis/batch/v1/namespaces/default/jobs/trainer")[0], 401,
              "no token: 401 first")
    with Fake("--forbid", "pods:list", pods=FIXTURE) as fake:
        equal(request(fake, "/api/v1/namespaces/default/pods")[0], 403, "no auth option: denied")
        pod = expected("default", "trainer")[0][0]
        equal(request(fake, "/api/v1/namespaces/default/pods/" + pod)[0], 200, "get allowed")
        e = api_error(lambda: plain_api(fake).list_namespaced_pod("default"))
        equal(json.loads(e.body)["message"],
              'pods is forbidden: User "system:serviceaccount:default:default" cannot list '
              'resource "pods" in API group "" in the namespace "default"', "pods as before")
    for bad in ("jobs", "jobs:read", ":get"):
        p = subprocess.run([PATH_PY, FAKE, "--port-file", os.path.join(TMP, "nope"),
                            "--forbid", bad], capture_output=True, text=True, timeout=10)
        check(p.returncode == 2 and "--forbid wants RESOURCE:VERB" in p.stderr, p.stderr)


def batch_api(fake):
    cfg = client.Configuration()
    cfg.host = fake.url
    return client.ApiClient(cfg)


@test
def k8s_client_reads_jobs_and_jobsets():
    """Debian's python3-kubernetes: BatchV1Api reads and lists Jobs (its own models), and
    CustomObjectsApi reads and lists JobSets (plain dicts: the objects as given); a 404 is an
    ApiException with the Status."""
    with job_fake() as fake:
        api_client = batch_api(fake)
        batch = client.BatchV1Api(api_client)
        job = batch.read_namespaced_job("js-driver-1", "default")
        want = job_named("js-driver-1")
        equal((job.kind, job.metadata.uid, job.spec.completion_mode, job.spec.completions,
               job.spec.template.spec.subdomain, job.spec.template.spec.hostname,
               job.status.active, job.metadata.owner_references[0].kind),
              ("Job", want["metadata"]["uid"], "Indexed", 2, "js", None, 2, "JobSet"), "Job")
        equal(api_client.sanitize_for_serialization(job)["metadata"]["labels"],
              want["metadata"]["labels"], "labels")
        listed = batch.list_namespaced_job("default", label_selector=JOBSET + "=js," + GLOBAL + "=2")
        equal([j.metadata.name for j in listed.items], ["js-driver-0"], "job-global-index 2")
        equal(len(batch.list_job_for_all_namespaces(limit=100).items), 7, "all Jobs")
        e = api_error(lambda: batch.read_namespaced_job("nope", "default"))
        equal((e.status, json.loads(e.body)["message"]), (404, 'jobs.batch "nope" not found'),
              "404")
        custom = client.CustomObjectsApi(api_client)
        got = custom.get_namespaced_custom_object("jobset.x-k8s.io", "v1alpha2", "default",
                                                  "jobsets", "js")
        equal(got, jobset_named("js"), "the JobSet as given")
        equal([(r["name"], r["replicas"]) for r in got["spec"]["replicatedJobs"]],
              [("workers", 2), ("driver", 2)], "replicated jobs")
        listed = custom.list_namespaced_custom_object("jobset.x-k8s.io", "v1alpha2", "default",
                                                      "jobsets")
        equal([j["metadata"]["name"] for j in listed["items"]], ["js", "other"], "JobSetList")
        e = api_error(lambda: custom.get_namespaced_custom_object(
            "jobset.x-k8s.io", "v1alpha2", "default", "jobsets", "nope"))
        equal(json.loads(e.body)["reason"], "NotFound", "404")


KUBECTL = shutil.which("kubectl")


def kubectl(fake, *args, token="tok"):
    """kubectl (Google's dispatcher on this image) against an HTTPS fake with the test CA, a
    fresh HOME and cache (so discovery is asked, not cached): CompletedProcess."""
    home = tempfile.mkdtemp(dir=TMP)
    cmd = [KUBECTL, "--server", fake.url, "--certificate-authority",
           os.path.join(CERTS, "ca.pem"), "--token", token, "--cache-dir",
           os.path.join(home, "cache"), "--request-timeout", "20s"] + list(args)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
                          env={"HOME": home, "PATH": os.environ.get("PATH", "/usr/bin:/bin")})


def kubectl_json(fake, *args):
    """kubectl ... -o json, managed fields shown (kubectl hides them by default)."""
    p = kubectl(fake, *(args + ("--show-managed-fields",)))
    check(p.returncode == 0, "kubectl %s: %s" % (" ".join(args), p.stderr.strip()))
    return json.loads(p.stdout)


@test
def kubectl_agrees_on_jobs_and_jobsets():
    """Real kubectl over HTTPS with the test CA, through the fake's discovery (aggregated for
    1.32, legacy for 1.26): get job X and get jobs -l SEL return the objects, get
    jobsets.jobset.x-k8s.io and get jobset NAME resolve the custom resource, a --forbid get and
    an unknown Job print kube-apiserver's errors."""
    check(KUBECTL, "kubectl is on the machine image (google-cloud-cli's); not on PATH here")
    with job_fake("--bearer", "tok", "--forbid", "jobs:get", tls=True) as fake:
        got = kubectl_json(fake, "get", "jobsets.jobset.x-k8s.io", "-n", "default", "-o", "json")
        equal(got["items"], job_objects()["jobsets"], "get jobsets.jobset.x-k8s.io -n default")
        equal(kubectl_json(fake, "get", "jobset", "other", "-o", "json"), jobset_named("other"),
              "get jobset other (singular, through discovery)")
        got = kubectl_json(fake, "get", "jobs", "-l", JOBSET + "=other", "-o", "json")
        equal(got["items"], [job_named("other-slice-0"), job_named("other-slice-1")],
              "get jobs -l: kubectl puts kind and apiVersion back on the items")
        p = kubectl(fake, "get", "job", "solo", "-n", "default", "-o", "json")
        equal((p.returncode, p.stderr.strip()),
              (1, 'Error from server (Forbidden): jobs.batch "solo" is forbidden: User '
                  '"system:serviceaccount:default:default" cannot get resource "jobs" in API '
                  'group "batch" in the namespace "default"'), "a forbidden get")
        reqs = [r for r in fake.log() if r["path"].startswith("/apis/batch/v1")]
        equal([(r["path"], r["query"]) for r in reqs][:1],
              [("/apis/batch/v1/namespaces/default/jobs",
                {"labelSelector": [JOBSET + "=other"], "limit": ["500"],
                 "timeout": ["20s"]})], "kubectl's list")
    with job_fake("--server-version", "v1.26.3", tls=True) as fake:
        equal(kubectl_json(fake, "get", "job", "js-workers-0", "-n", "default", "-o", "json"),
              job_named("js-workers-0"), "get job js-workers-0 (legacy discovery)")
        p = kubectl(fake, "get", "job", "x", "-o", "json")
        equal((p.returncode, p.stderr.strip()),
              (1, 'Error from server (NotFound): jobs.batch "x" not found'), "a 404")
        asked = [r["path"] for r in fake.log() if r["status"] == 200]
        check("/apis/batch/v1" in asked and "/apis/jobset.x-k8s.io/v1alpha2" in asked, asked)


# ---------------------------------------------------------------- TLS, routes, headers, log

@test
def tls_ca_mismatch_and_hostnames():
    with Fake(routes={"/": {"hello": "tls"}}, tls=True) as fake:
        equal(get_json(fake, "/"), {"hello": "tls"}, "verified via 127.0.0.1")
        equal(get_json(fake, "/", host="localhost"), {"hello": "tls"}, "verified via localhost")
        try:
            request(fake, "/", ca="other-ca.pem")
            raise AssertionError("an unrelated CA was accepted")
        except ssl.SSLCertVerificationError as e:
            check("certificate verify failed" in str(e), str(e))


@test
def tls_stalled_client_does_not_block():
    with Fake(routes={"/": {"ok": True}}, tls=True) as fake:
        stalled = [socket.create_connection(("127.0.0.1", fake.port)) for _ in range(3)]
        t = time.time()
        equal(get_json(fake, "/", timeout=2), {"ok": True}, "answer beside stalled handshakes")
        check(time.time() - t < 1, "took %.2f s" % (time.time() - t))
        for s in stalled:
            s.close()


@test
def routes_static():
    routes = {"/computeMetadata/v1/instance/name": "vm-0",
              "/v1/x?a=1": {"query": "exact"},
              "/v1/x": {"query": "none"},
              "POST /v1/x": {"status": 201, "body": {"created": True}},
              "/files/*": {"status": 200, "body": {"prefix": "short"}, "headers": {"X-Route": "p"}},
              "/files/deep/*": {"prefix": "long"},
              "/busy": {"status": 429, "body": {"slow": "down"}, "headers": {"Retry-After": "2"}}}
    with Fake(routes=routes) as fake:
        status, headers, body = request(fake, "/computeMetadata/v1/instance/name")
        equal((status, headers["content-type"].split(";")[0], body),
              (200, "text/plain", b"vm-0"), "text route")
        equal(get_json(fake, "/v1/x?a=1"), {"query": "exact"}, "route with query")
        equal(get_json(fake, "/v1/x?b=2"), {"query": "none"}, "route without query")
        equal(get_json(fake, "/v1/x", method="POST", body=b'{"a":1}', want_status=201),
              {"created": True}, "POST")
        equal(fake.log()[-1]["body"], '{"a":1}', "request body logged")
        status, headers, body = request(fake, "/files/a/b")
        equal((status, headers["x-route"], json.loads(body)),
              (200, "p", {"prefix": "short"}), "prefix route")
        equal(get_json(fake, "/files/deep/z"), {"prefix": "long"}, "longest prefix")
        status, headers, _ = request(fake, "/busy")
        equal((status, headers["retry-after"]), (429, "2"), "status route")
        status_object(request(fake, "/nothing/here")[2], 404, "NotFound")


@test
def require_header_400():
    with Fake("--require-header", "Metadata-Flavor: Google",
              routes={"/computeMetadata/v1/project/project-id": "proj"}) as fake:
        path = "/computeMetadata/v1/project/project-id"
        status, _, body = request(fake, path)
        equal(status, 400, "missing header")
        status_object(body, 400, "BadRequest")
        equal(request(fake, path, headers={"Metadata-Flavor": "Other"})[0], 400, "wrong value")
        equal(request(fake, path, headers={"metadata-flavor": "Google"})[2], b"proj", "with header")


@test
def pods_bad_requests_400():
    with Fake(pods=FIXTURE) as fake:
        bad = ["/api/v1/pods?continue=abc",
               "/api/v1/pods?continue=" + base64.urlsafe_b64encode(b'{"v":"x","rv":1}').decode(),
               "/api/v1/pods?labelSelector=job-name+in+(a,b",
               "/api/v1/pods?labelSelector=job-name%3D%3D%3Dx",
               "/api/v1/pods?labelSelector=bad%20key%3Dx",
               "/api/v1/pods?fieldSelector=spec.containers%3Dx",
               "/api/v1/pods?limit=ten"]
        for path in bad:
            status, _, body = request(fake, path)
            equal(status, 400, path)
            status_object(body, 400, "BadRequest")
        status, _, body = request(fake, "/api/v1/namespaces/default/pods", method="POST")
        equal(status, 405, "POST to a list")


@test
def pods_continue_semantics():
    with Fake(pods=FIXTURE) as fake:
        base = "/api/v1/namespaces/default/pods?labelSelector=job-name%3Deval&limit=1"
        first = get_json(fake, base)
        equal(json_names(first), [expected(None, "eval")[0][0]], "first page")
        token = first["metadata"]["continue"]
        decoded = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
        equal(sorted(decoded), ["rv", "start", "v"], "token fields")
        equal((decoded["v"], decoded["start"]),
              ("meta.k8s.io/v1", json_names(first)[0] + "\x00"), "token")
        check("remainingItemCount" not in first["metadata"], "no count on a filtered list")
        last = get_json(fake, base + "&continue=" + token)
        equal((last["items"], "continue" in last["metadata"]), ([], False),
              "a filtered list can end with an empty page, as on a real server")
        equal(last["metadata"]["resourceVersion"], first["metadata"]["resourceVersion"], "same RV")
        full = get_json(fake, "/api/v1/pods?limit=8")
        check("continue" not in full["metadata"], "an exactly full last page has no continue")
        equal((full["kind"], full["apiVersion"]), ("PodList", "v1"), "list kind")
        check(all("kind" not in p for p in full["items"]), "items have no kind (as real lists)")


@test
def request_log_format():
    with Fake("--bearer", "tok", pods=FIXTURE) as fake:
        request(fake, "/api/v1/pods?labelSelector=a%3Db&limit=5&limit=6&x=",
                headers={"Authorization": "Bearer tok", "X-Custom": "v"})
        rec = fake.log()[0]
        equal(sorted(rec), ["headers", "method", "path", "query", "status", "time"], "fields")
        equal(rec["query"], {"labelSelector": ["a=b"], "limit": ["5", "6"], "x": [""]}, "query")
        equal(rec["headers"]["authorization"], "Bearer <redacted>", "redacted")
        equal((rec["headers"]["x-custom"], rec["status"], rec["method"]), ("v", 200, "GET"), "rest")
        check(abs(rec["time"] - time.time()) < 30, "time is epoch seconds")
    with Fake("--bearer", "tok", "--log-secrets", pods=FIXTURE) as fake:
        request(fake, "/api/v1/pods", headers={"Authorization": "Bearer tok"})
        equal(fake.log()[0]["headers"]["authorization"], "Bearer tok", "--log-secrets")


@test
def log_bytes_counts_body_bytes_sent():
    """--log-bytes: each line's "bytes" is the body as sent (gzipped when gzipped, the part of
    a truncated one, none to HEAD); without the option the line has no such key."""
    pods = os.path.join(TMP, "pods_60b.json")
    make_pods.dump(make_pods.pod_list(make_pods.make_pods(60, "big", "default")), pods)
    faults = [{"path": "/api/v1/pods", "query": "cut=1", "truncate": 100}]
    with Fake("--log-bytes", "--gzip", faults=faults, pods=pods) as fake:
        _, _, plain = request(fake, "/api/v1/pods")
        _, headers, packed = request(fake, "/api/v1/pods", headers={"Accept-Encoding": "gzip"})
        equal(headers.get("content-encoding"), "gzip", "gzipped")
        request(fake, "/api/v1/pods", method="HEAD")
        status, _, missing = request(fake, "/api/v1/namespaces/default/pods/nope")
        try:
            request(fake, "/api/v1/pods?cut=1")
        except http.client.IncompleteRead:
            pass
        log = fake.log()
        equal([r["bytes"] for r in log], [len(plain), len(packed), 0, len(missing), 100],
              "body bytes sent")
        check(len(packed) * 3 < len(plain), "gzip counted after compression")
        equal(list(log[0])[-1], "bytes", "the last key")
    with Fake(pods=pods) as fake:
        request(fake, "/api/v1/pods?limit=1")
        check("bytes" not in fake.log()[0], "no bytes without --log-bytes")


@test
def chunked_and_gzip_options():
    pods = os.path.join(TMP, "pods_60.json")
    make_pods.dump(make_pods.pod_list(make_pods.make_pods(60, "big", "default")), pods)
    with Fake("--chunked", "--gzip", pods=pods) as fake:
        status, headers, body = request(fake, "/api/v1/pods")
        equal((headers.get("transfer-encoding"), "content-length" in headers),
              ("chunked", False), "chunked")
        equal(len(json.loads(body)["items"]), 60, "chunked body decodes")
        status, headers, body = request(fake, "/api/v1/pods", headers={"Accept-Encoding": "gzip"})
        equal(headers.get("content-encoding"), "gzip", "gzip above 128 KiB")
        equal(len(json.loads(gzip.decompress(body))["items"]), 60, "gzip body decodes")
        status, headers, body = request(fake, "/api/v1/pods?limit=1",
                                        headers={"Accept-Encoding": "gzip"})
        check("content-encoding" not in headers, "small bodies are not compressed")


@test
def concurrent_requests():
    with Fake(pods=FIXTURE) as fake:
        results = []

        def worker():
            results.append(get_json(fake, "/api/v1/pods?labelSelector=job-name%3Dps")["items"])
        threads = [threading.Thread(target=worker) for _ in range(20)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        equal([len(r) for r in results], [2] * 20, "20 parallel lists")


@test
def sigterm_and_max_seconds():
    fake = Fake(pods=FIXTURE).start()
    conn = connect(fake)
    conn.request("GET", "/api/v1/pods")  # a keep-alive connection stays open
    conn.getresponse().read()
    t = time.time()
    code, err = fake.stop()
    equal((code, err), (0, ""), "SIGTERM with an open connection")
    check(time.time() - t < 2, "stopped in %.2f s" % (time.time() - t))
    conn.close()
    t = time.time()
    fake = Fake(pods=FIXTURE, max_seconds=0.5).start()
    equal(fake.proc.wait(5), 0, "exit after --max-seconds")
    check(time.time() - t < 3, "max-seconds took %.2f s" % (time.time() - t))
    equal(fake.stop()[1], "", "stderr after max-seconds")


# ---------------------------------------------------------------- faults

@test
def fault_status_retry_after():
    faults = [{"path": "/api/v1/pods", "times": 1, "status": 503, "headers": {"Retry-After": "1"}},
              {"path": "/x", "status": 500, "body": "plain text"},
              {"path": "/raw", "status": 200, "raw": '{"n": "\u00ff\u00c0"}'}]
    with Fake(faults=faults, pods=FIXTURE) as fake:
        status, headers, body = request(fake, "/api/v1/pods")
        equal((status, headers.get("retry-after")), (503, "1"), "503 with Retry-After")
        status_object(body, 503, "ServiceUnavailable")
        equal(request(fake, "/api/v1/pods")[0], 200, "times: 1 is used up")
        status, _, body = request(fake, "/x")
        equal((status, body), (500, b"plain text"), "custom body")
        status, headers, body = request(fake, "/raw")
        equal((status, body, headers["content-type"]), (200, b'{"n": "\xff\xc0"}', "application/json"),
              "raw bytes, not UTF-8")
        equal([r.get("fault") for r in fake.log()], ["status", None, "status", "status"], "log")


@test
def fault_delay():
    with Fake(faults=[{"path": "/api/v1/pods", "delay": 0.5}], pods=FIXTURE) as fake:
        t = time.time()
        obj = get_json(fake, "/api/v1/pods")
        elapsed = time.time() - t
        check(0.5 <= elapsed < 2, "delayed %.2f s" % elapsed)
        equal(len(obj["items"]), 8, "normal body after the delay")
        try:
            request(fake, "/api/v1/pods", timeout=0.2)
            raise AssertionError("no client timeout")
        except socket.timeout:
            pass


@test
def fault_truncate():
    with Fake(faults=[{"path": "/api/v1/pods", "truncate": 100}], pods=FIXTURE) as fake:
        status, headers, body = split_response(raw_response(fake, "/api/v1/pods"))
        equal(len(body), 100, "bytes sent")
        check(int(headers["content-length"]) > 30000, "full Content-Length declared")
        try:
            request(fake, "/api/v1/pods")
            raise AssertionError("truncation not noticed")
        except http.client.IncompleteRead as e:
            equal(len(e.partial), 100, "partial")


@test
def fault_lie_length():
    with Fake(faults=[{"path": "/api/v1/pods", "lie_length": 10}], pods=FIXTURE) as fake:
        status, headers, body = split_response(raw_response(fake, "/api/v1/pods"))
        equal(int(headers["content-length"]), len(body) + 10, "declared 10 more than sent")
        json.loads(body)
        try:
            request(fake, "/api/v1/pods")
            raise AssertionError("short body not noticed")
        except http.client.IncompleteRead as e:
            equal(e.expected, 10, "missing bytes")


@test
def fault_oversize():
    size = 5 * 1024 * 1024 + 7
    faults = [{"path": "/api/v1/pods", "query": "chunked", "oversize": size, "chunked": True},
              {"path": "/api/v1/pods", "oversize": size}]
    with Fake(faults=faults, pods=FIXTURE) as fake:
        status, headers, body = request(fake, "/api/v1/pods")
        equal((status, int(headers["content-length"]), len(body)), (200, size, size), "sized")
        obj = json.loads(body)
        equal(obj["kind"], "PodList", "valid JSON PodList")
        check(len(obj["items"]) > 50000, "many filler items")
        status, headers, body = request(fake, "/api/v1/pods?chunked=1")
        equal((headers.get("transfer-encoding"), len(body)), ("chunked", size), "chunked")
        json.loads(body)
        for small in (2, 50, 83, 84, 200):
            gen = b"".join(FAKE_API.oversize_body(small))
            equal(len(gen), small, "oversize_body(%d)" % small)
            json.loads(gen)


@test
def fault_drip():
    faults, routes = [{"path": "/slow", "drip": 2000}], {"/slow": {"x": "y" * 1000}}
    with Fake(faults=faults, routes=routes) as fake:
        t = time.time()
        obj = get_json(fake, "/slow")
        elapsed = time.time() - t
        equal(obj, {"x": "y" * 1000}, "dripped body")
        check(0.4 < elapsed < 2, "1 KB at 2 KB/s took %.2f s" % elapsed)


@test
def fault_drop():
    faults = [{"path": "/reset", "drop": "reset"}, {"path": "/", "drop": True}]
    with Fake(faults=faults, routes={"/": {}}) as fake:
        try:
            request(fake, "/")
            raise AssertionError("a response arrived")
        except http.client.RemoteDisconnected:
            pass
        try:
            request(fake, "/reset")
            raise AssertionError("a response arrived")
        except (ConnectionResetError, http.client.RemoteDisconnected):
            pass
        equal([(r["status"], r["fault"]) for r in fake.log()], [(None, "drop")] * 2, "log")


def hang_once(tls):
    with Fake(faults=[{"path": "/hang", "hang": True}], routes={"/ok": {"ok": 1}}, tls=tls) as fake:
        t = time.time()
        try:
            request(fake, "/hang", timeout=0.5)
            raise AssertionError("a hung request was answered")
        except socket.timeout:
            pass
        check(time.time() - t < 1.5, "client timeout")
        equal(get_json(fake, "/ok", timeout=2), {"ok": 1}, "other requests still served")
        equal(fake.log()[0]["fault"], "hang", "logged")
        waiting = connect(fake, timeout=5)  # still hanging when the server is stopped
        waiting.request("GET", "/hang")
        t = time.time()
    check(time.time() - t < 2, "SIGTERM with a hung request took %.2f s" % (time.time() - t))
    waiting.close()


@test
def fault_hang():
    hang_once(tls=False)
    hang_once(tls=True)


@test
def client_disconnect_mid_body_is_quiet():
    faults = [{"path": "/big", "oversize": 20 * 1024 * 1024}, {"path": "/slow", "drip": 100}]
    with Fake(faults=faults, routes={"/slow": {"x": "y" * 500}}) as fake:
        for path in ("/big", "/slow", "/big"):
            with socket.create_connection(("127.0.0.1", fake.port)) as s:
                s.sendall(b"GET %s HTTP/1.1\r\nHost: x\r\n\r\n" % path.encode())
                s.recv(100)
        time.sleep(0.3)  # the server notices the broken pipes; __exit__ checks stderr
        equal(len(fake.log()), 3, "requests logged")


@test
def fault_continue_forever():
    faults = [{"path": "/api/v1/", "continue_forever": True}]
    with Fake(faults=faults, pods=FIXTURE) as fake:
        path, tokens, pages = "/api/v1/namespaces/default/pods?limit=2", set(), []
        url = path
        for _ in range(5):
            page = get_json(fake, url)
            token = page["metadata"].get("continue")
            check(token, "a continue token on every page")
            tokens.add(token)
            pages.append(json_names(page))
            url = path + "&continue=" + token
        equal(len(tokens), 1, "the same token, forever")
        check(all(p == pages[0] for p in pages), "the same page again and again")
        empty = get_json(fake, "/api/v1/namespaces/nowhere/pods")
        check(empty["metadata"].get("continue") and empty["items"] == [], "even when empty")


@test
def fault_query_filter():
    faults = [{"path": "/api/v1/pods", "query": "continue=", "status": 500, "times": 1},
              {"path": "/api/v1/pods", "query": "job-name=ps", "method": "GET", "status": 429}]
    with Fake(faults=faults, pods=FIXTURE) as fake:
        first = get_json(fake, "/api/v1/pods?limit=3")
        nxt = "/api/v1/pods?limit=3&continue=" + first["metadata"]["continue"]
        equal(request(fake, nxt)[0], 500, "the continue request fails once")
        equal(len(get_json(fake, nxt)["items"]), 3, "the retry succeeds")
        equal(request(fake, "/api/v1/pods?labelSelector=job-name%3Dps")[0], 429, "decoded query")


# ---------------------------------------------------------------- make_pods.py and gen_certs.sh

@test
def make_pods_fixture_is_reproducible():
    out = os.path.join(TMP, "fixtures")
    subprocess.run([PATH_PY, os.path.join(HERE, "make_pods.py"), "--write-fixtures", out],
                   check=True)
    equal(sorted(os.listdir(out)), sorted(make_pods.FIXTURES), "fixture files")
    for name in make_pods.FIXTURES:
        with open(os.path.join(HERE, "fixtures", name), "rb") as a, open(os.path.join(out, name), "rb") as b:
            check(a.read() == b.read(), "regenerated %s differs from the checked-in one" % name)
    pods = fixture_pods()
    sizes = [len(json.dumps(p, separators=(",", ":"))) for p in pods]
    check(all(3000 <= s <= 6000 for s in sizes), "compact pod sizes %s" % sizes)
    by = {(p["metadata"]["namespace"], p["metadata"]["labels"]["job-name"]): p for p in pods}
    equal(sorted(by), [("default", "eval"), ("default", "ps"), ("default", "trainer"),
                       ("other", "trainer")], "jobs")
    equal(by[("default", "eval")]["status"]["phase"], "Pending", "eval is Pending")
    check("podIP" not in by[("default", "eval")]["status"], "a Pending pod has no IP")


def check_pod_shape(pod):
    meta, spec, status = pod["metadata"], pod["spec"], pod["status"]
    for key in ("name", "generateName", "namespace", "uid", "resourceVersion", "creationTimestamp",
                "labels", "annotations", "ownerReferences", "managedFields"):
        check(key in meta, "metadata." + key)
    for key in ("controller-uid", "job-name", "batch.kubernetes.io/controller-uid"):
        check(key in meta["labels"], "label " + key)
    if "podIP" in status:  # Multus' network-status annotation: JSON text with the pod IPs
        notes = [json.loads(v) for v in meta["annotations"].values() if v[:1] in "[{"]
        check(notes and status["podIP"] in json.dumps(notes), "an annotation holding JSON text")
    check(isinstance(meta["managedFields"][0]["fieldsV1"]["f:metadata"], dict), "fieldsV1")
    c = spec["containers"][0]
    for key in ("image", "ports", "env", "resources", "volumeMounts"):
        check(key in c, "container." + key)
    for key in ("nodeName", "serviceAccountName", "volumes", "tolerations"):
        check(key in spec, "spec." + key)
    check(all(cond["status"] in ("True", "False") and cond["lastTransitionTime"]
              for cond in status["conditions"]), "conditions")
    for key in ("phase", "hostIP", "hostIPs", "startTime", "containerStatuses"):
        check(key in status, "status." + key)


@test
def make_pods_module_and_cli():
    pods = make_pods.make_pods(12, "worker", "ml", indexed=True, start_ip="10.9.0.250",
                               pending_names=["3"], terminating_names=["worker-4"],
                               no_ip_names=["5"])
    equal(pods, make_pods.make_pods(12, "worker", "ml", indexed=True, start_ip="10.9.0.250",
                                    pending_names=["3"], terminating_names=["worker-4"],
                                    no_ip_names=["5"]), "deterministic")
    for i, pod in enumerate(pods):
        check_pod_shape(pod)
        name = pod["metadata"]["name"]
        check(name.startswith("worker-%d-" % i) and len(name) == len("worker-%d-" % i) + 5, name)
        equal(pod["spec"]["hostname"], "worker-%d" % i, "hostname")
        equal(pod["metadata"]["annotations"][INDEX], str(i), "completion index annotation")
    equal(pods[11]["status"]["podIP"], "10.9.1.5", "IPs count up across octets")
    equal((pods[3]["status"]["phase"], "podIP" in pods[3]["status"]), ("Pending", False), "pending")
    check("deletionTimestamp" in pods[4]["metadata"], "terminating")
    equal((pods[5]["status"]["phase"], "podIP" in pods[5]["status"]), ("Running", False), "no IP")
    plain = make_pods.make_pods(2, "ps", "default")
    check(all(len(p["metadata"]["name"]) == len("ps-") + 5 and "hostname" not in p["spec"]
              for p in plain), "plain Job names")
    out = os.path.join(TMP, "v6.json")
    subprocess.run([PATH_PY, os.path.join(HERE, "make_pods.py"), "--count", "2", "--job", "w",
                    "--namespace", "ns", "--ipv6", "--dual-stack", "--out", out], check=True)
    with open(out) as f:
        v6 = json.load(f)
    equal([p["status"]["podIPs"] for p in v6["items"]][0][0]["ip"].count(":") > 1, True, "IPv6")
    equal(len(v6["items"][0]["status"]["podIPs"]), 2, "dual stack")


@test
def make_pods_jobset():
    """A JobSet's pods as its controller and the Job controller label them: Jobs
    <js>-<rjob>-<i> in the order of the replicated jobs, job-global-index counting them over
    the whole JobSet, completion indices from 0 in each Job; the JobSet's keys alike as labels
    and annotations; hostname <job>-<pod>, subdomain the JobSet's name."""
    args = ("js", [("workers", 2, 3), ("driver", 1, 2)], "ml")
    pods = make_pods.make_jobset_pods(*args, restarts=2, start_ip="10.9.0.10")
    equal(pods, make_pods.make_jobset_pods(*args, restarts=2, start_ip="10.9.0.10"), "deterministic")
    rows = []
    for n, pod in enumerate(pods):
        check_pod_shape(pod)
        meta, labels = pod["metadata"], pod["metadata"]["labels"]
        job = labels["job-name"]
        keys = {k: v for k, v in labels.items() if k.startswith("jobset.sigs.k8s.io/")}
        equal({k: meta["annotations"][k] for k in keys}, keys, "JobSet annotations = labels")
        equal(len(keys), 8, "JobSet keys")
        equal(keys["jobset.sigs.k8s.io/job-key"], hashlib.sha1(("ml/" + job).encode()).hexdigest(), "job-key")
        check(meta["name"].startswith(pod["spec"]["hostname"] + "-") and
              len(meta["name"]) == len(pod["spec"]["hostname"]) + 6, meta["name"])
        equal(pod["spec"]["hostname"], "%s-%s" % (job, labels[INDEX]), "hostname")
        equal(pod["spec"]["subdomain"], "js", "subdomain")
        equal(pod["status"]["podIP"], "10.9.0.%d" % (10 + n), "IPs in JobSet order")
        rows.append((job, keys[GLOBAL], keys["jobset.sigs.k8s.io/job-index"],
                     keys["jobset.sigs.k8s.io/replicatedjob-replicas"], labels[INDEX]))
        equal((keys["jobset.sigs.k8s.io/global-replicas"], keys["jobset.sigs.k8s.io/restart-attempt"]),
              ("3", "2"), "global replicas, restarts")
    equal(rows, [("js-workers-0", "0", "0", "2", "0"), ("js-workers-0", "0", "0", "2", "1"),
                 ("js-workers-0", "0", "0", "2", "2"), ("js-workers-1", "1", "1", "2", "0"),
                 ("js-workers-1", "1", "1", "2", "1"), ("js-workers-1", "1", "1", "2", "2"),
                 ("js-driver-0", "2", "0", "1", "0"), ("js-driver-0", "2", "0", "1", "1")], "Jobs and indices")
    out = os.path.join(TMP, "js.json")
    subprocess.run([PATH_PY, os.path.join(HERE, "make_pods.py"), "--jobset", "js", "--replicated-job",
                    "workers:2:3", "--replicated-job", "driver:1:2", "--namespace", "ml", "--restarts", "2",
                    "--start-ip", "10.9.0.10", "--out", out], check=True)
    with open(out) as f:
        equal(json.load(f), make_pods.pod_list(pods), "the CLI makes the same pods")


@test
def make_pods_jobs_and_jobsets_match_their_pods():
    """make_job/make_jobset_jobs/make_jobset: the objects the pods belong to (the pods'
    ownerReference uid, template labels a subset of the pods' labels, the pods' subdomain, no
    template hostname), statuses counted from the pods, JobSet v0.8.2's defaults; the CLI's
    --jobs-out and --jobset-out write the same."""
    rjobs = [("workers", 2, 3), ("driver", 1, 2)]
    pods = make_pods.make_jobset_pods("js", rjobs, "ml", restarts=1,
                                      pending_names=["js-workers-1-2"],
                                      terminating_names=["js-driver-0-1"])
    jobs = make_pods.make_jobset_jobs("js", rjobs, "ml", pods, restarts=1)
    equal(jobs, make_pods.make_jobset_jobs("js", rjobs, "ml", pods, restarts=1), "deterministic")
    equal([j["metadata"]["name"] for j in jobs], ["js-workers-0", "js-workers-1", "js-driver-0"],
          "Jobs in JobSet order")
    jobset = make_pods.make_jobset("js", rjobs, "ml", pods, restarts=1)
    for job in jobs:
        mine = [p for p in pods if p["metadata"]["labels"]["job-name"] == job["metadata"]["name"]]
        tmpl = job["spec"]["template"]
        for pod in mine:
            equal(pod["metadata"]["ownerReferences"][0]["uid"], job["metadata"]["uid"], "owner")
            labels = pod["metadata"]["labels"]
            equal({k: labels[k] for k in tmpl["metadata"]["labels"]}, tmpl["metadata"]["labels"],
                  "template labels on the pod")
            equal(pod["spec"]["subdomain"], tmpl["spec"]["subdomain"], "subdomain")
            equal(pod["spec"]["hostname"], "%s-%s" % (job["metadata"]["name"], labels[INDEX]),
                  "hostname <job>-<index>")
        check("hostname" not in tmpl["spec"], "the Job controller sets hostnames, not templates")
        keys = {k: v for k, v in job["metadata"]["labels"].items()}
        equal(keys, {k: v for k, v in mine[0]["metadata"]["labels"].items()
                     if k.startswith(make_pods.JOBSET)}, "the JobSet's keys on the Job")
        equal(job["metadata"]["annotations"], keys, "as annotations too")
        equal(job["metadata"]["ownerReferences"][0]["uid"], jobset["metadata"]["uid"], "JobSet owns")
        equal((job["spec"]["completionMode"], job["spec"]["suspend"],
               job["spec"]["manualSelector"], job["spec"]["podReplacementPolicy"]),
              ("Indexed", False, False, "TerminatingOrFailed"), "defaults")
    equal([(j["status"].get("active"), j["status"]["ready"], j["status"]["terminating"])
           for j in jobs], [(3, 3, 0), (3, 2, 0), (1, 1, 1)], "active, ready, terminating")
    equal(jobset["spec"]["network"], {"enableDNSHostnames": True,
                                      "publishNotReadyAddresses": True}, "webhook defaults")
    equal([(r["name"], r["replicas"], r["template"]["spec"]["parallelism"],
            r["template"]["spec"]["completionMode"]) for r in jobset["spec"]["replicatedJobs"]],
          [("workers", 2, 3, "Indexed"), ("driver", 1, 2, "Indexed")], "replicated jobs")
    equal(jobset["status"], {"restarts": 1, "replicatedJobsStatus": [
        {"name": "workers", "ready": 1, "succeeded": 0, "failed": 0, "active": 2, "suspended": 0},
        {"name": "driver", "ready": 0, "succeeded": 0, "failed": 0, "active": 1, "suspended": 0}]},
        "JobSet status from its Jobs")
    done = make_pods.make_pods(3, "trainer", "ml", indexed=True, phase="Succeeded")
    job = make_pods.make_job("trainer", "ml", completions=3, pods=done)
    equal(([c["type"] for c in job["status"]["conditions"]], job["status"]["succeeded"],
           job["status"]["completedIndexes"], "active" in job["status"]),
          (["SuccessCriteriaMet", "Complete"], 3, "0-2", False), "a complete Job")
    equal((job["metadata"]["labels"], job["spec"]["template"]["spec"]["subdomain"]),
          (job["spec"]["template"]["metadata"]["labels"], "trainer"),
          "a plain Job's labels are its template's (SetDefaults_Job)")
    finished = make_pods.make_jobset_pods("f", [("w", 1, 1)], "ml", phase="Succeeded")
    equal(make_pods.make_jobset("f", [("w", 1, 1)], "ml", finished)["status"]["terminalState"],
          "Completed", "a completed JobSet")
    equal(make_pods._index_ranges([0, 1, 2, 5, 7, 8]), "0-2,5,7,8", "completedIndexes")
    jobs_out, set_out = os.path.join(TMP, "js_jobs.json"), os.path.join(TMP, "js_set.json")
    subprocess.run([PATH_PY, os.path.join(HERE, "make_pods.py"), "--jobset", "js",
                    "--replicated-job", "workers:2:3", "--replicated-job", "driver:1:2",
                    "--namespace", "ml", "--restarts", "1", "--out", os.path.join(TMP, "p.json"),
                    "--jobs-out", jobs_out, "--jobset-out", set_out], check=True)
    plain = make_pods.make_jobset_pods("js", rjobs, "ml", restarts=1)
    with open(jobs_out) as f, open(set_out) as g:
        equal((json.load(f), json.load(g)),
              (make_pods.job_list(make_pods.make_jobset_jobs("js", rjobs, "ml", plain, 1)),
               make_pods.jobset_list([make_pods.make_jobset("js", rjobs, "ml", plain, 1)])),
              "the CLI writes the same objects")


@test
def gen_certs_fast_and_idempotent():
    d = os.path.join(TMP, "certs2")
    t = time.time()
    subprocess.run(["bash", GEN_CERTS, d], check=True)
    first = time.time() - t
    check(first < 2, "gen_certs took %.2f s" % first)
    before = {f: os.stat(os.path.join(d, f)).st_mtime_ns for f in os.listdir(d)}
    subprocess.run(["bash", GEN_CERTS, d], check=True)
    equal({f: os.stat(os.path.join(d, f)).st_mtime_ns for f in os.listdir(d)}, before, "untouched")
    equal(sorted(before), ["ca.key", "ca.pem", "elsewhere.key", "elsewhere.pem", "other-ca.key", "other-ca.pem",
                           "server.key", "server.pem"], "files")
    for name, wants in (("server", ("IP Address:127.0.0.1", "IP Address:0:0:0:0:0:0:0:1", "DNS:localhost")),
                        ("elsewhere", ("DNS:elsewhere.invalid",))):
        pem = os.path.join(d, name + ".pem")
        san = subprocess.run(["openssl", "x509", "-in", pem, "-noout", "-ext", "subjectAltName"],
                             capture_output=True, text=True, check=True)
        for want in wants:
            check(want in san.stdout, "%s: SAN %s missing: %s" % (name, want, san.stdout))
        check(name != "elsewhere" or "127.0.0.1" not in san.stdout, "elsewhere.pem must not name 127.0.0.1")
        good = subprocess.run(["openssl", "verify", "-CAfile", os.path.join(d, "ca.pem"), pem], capture_output=True)
        check(good.returncode == 0, "%s.pem is signed by the test CA" % name)
    bad = subprocess.run(["openssl", "verify", "-CAfile", os.path.join(d, "other-ca.pem"),
                          os.path.join(d, "server.pem")], capture_output=True)
    check(bad.returncode != 0, "the unrelated CA must not verify the server certificate")


# ---------------------------------------------------------------- runner

def main(patterns):
    started = time.time()
    subprocess.run(["bash", GEN_CERTS, CERTS], check=True)
    passed = failed = 0
    try:
        for fn in ALL_TESTS:
            if patterns and not any(p in fn.__name__ for p in patterns):
                continue
            t = time.time()
            try:
                fn()
                passed += 1
                print("PASS %-40s %.2f s" % (fn.__name__, time.time() - t), flush=True)
            except Exception as e:  # a failing test reports and the run goes on
                failed += 1
                print("FAIL %-40s %s: %s" % (fn.__name__, type(e).__name__, e), flush=True)
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    print("fake_api servers run under %s and %s; total %.1f s" % (PATH_PY, SYSTEM_PY,
                                                                   time.time() - started))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

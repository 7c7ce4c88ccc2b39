#!/usr/bin/env python3
"""Proves the fake API servers are faithful, with the real clients on this machine image:
Google's kubectl (its dispatcher /usr/bin/kubectl and the kubectl.1.27, 1.32 and 1.33 builds it
picks by the server's /version) reads tests/fake_api.py, and gcloud (google-cloud-cli 528) reads
tests/gcp/fake_gcp.py, as they read a real API server, Compute Engine and Cloud TPU: discovery,
label selectors, paging (each client's own page requests, checked in the fake's request log),
bearer tokens, TLS with the throw-away test CA, and Google's and Kubernetes' error answers. Each
test also runs our cluster-resolve on the same fake and checks that it finds exactly the members
the real client sees (the Running, not terminating pods; the RUNNING instances of a group; a
TPU's network endpoints), in the same order, and fails where the real client fails.

usage: python3 tests/clients/test_real_clients.py BUILD_DIR [NAME_SUBSTRING...]
       (BUILD_DIR holds cluster-resolve). Prints "ok/FAIL name" lines, then "N passed, N failed".
Needs kubectl and gcloud from Google's packages (the image's google-cloud-cli 528, kubectl
1:528); a missing client fails the tests that need it, saying what is missing.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
ROOT = os.path.dirname(TESTS)
sys.path[:0] = [os.path.join(TESTS, "gcp"), os.path.join(TESTS, "k8s")]
import harness  # noqa: E402
from harness import TOKEN  # noqa: E402
import make_gcp as mg  # noqa: E402
import make_pods  # noqa: E402

ARGS = sys.argv[1:]
BUILD = ARGS.pop(0) if ARGS and os.path.isdir(ARGS[0]) else os.path.join(ROOT, "build", "san")
CLI = os.path.join(BUILD, "cluster-resolve")
TMP = tempfile.mkdtemp(prefix="real-clients.")
CERTS = os.path.join(TMP, "certs")
CA = os.path.join(CERTS, "ca.pem")
FAKE_API = os.path.join(TESTS, "fake_api.py")
KUBECTL = "/usr/bin/kubectl"                       # Google's dispatcher (kubectl 1:528)
SDK_BIN = "/usr/lib/google-cloud-sdk/bin"          # its kubectl.1.NN builds
GCLOUD = "/usr/bin/gcloud"
TOKEN_FILE = harness.write(TMP, "token", TOKEN + "\n")
WRONG_FILE = harness.write(TMP, "wrong-token", "ya29.not-the-token\n")
VIEWER = "viewer-token-without-rbac"
INDEX = make_pods.INDEX_KEY
P, Z, R = "test-project", "us-east1-d", "us-east1"
TPU_ZONE = "us-central2-b"
TESTS_RUN = []


def test(fn):
    TESTS_RUN.append((fn.__name__, fn))
    return fn


def Server(script, *args, tls=False):
    """One fake (tests/fake_api.py or tests/gcp/fake_gcp.py), HTTPS with the test CA's server
    certificate when tls; stopped by run_tests after a failed test."""
    return harness.Fake(TMP, *args, script=script, certs=CERTS if tls else None)


def natural_key(name):
    """cluster_resolver.h's natural order (README "Kubernetes": worker-2 before worker-10):
    characters compare as bytes, digit runs as numbers; names equal that way by strcmp."""
    parts = [(0x30, int(run)) if run.isdigit() else (ord(run), 0)
             for run in re.findall(r"\d+|\D", name)]
    return parts, name


def tool(path, what):
    assert os.access(path, os.X_OK), "%s is missing: %s (Google's google-cloud-cli / kubectl " \
        "packages of the machine image)" % (path, what)


def cli(args):
    """cluster-resolve ARGS -> (exit code, stdout, stderr)."""
    p = subprocess.run([CLI] + [str(a) for a in args], capture_output=True, text=True, timeout=60,
                       env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
    return p.returncode, p.stdout, p.stderr


def ours(args):
    """Our members: cluster-resolve ARGS --format spec, which must succeed."""
    code, out, err = cli(list(args) + ["--format", "spec"])
    assert code == 0 and err == "", "cluster-resolve exit %d: %s" % (code, err.strip())
    return json.loads(out)


def ours_fail(args, code, words):
    got, out, err = cli(args)
    assert got == code and out == "", "cluster-resolve exit %d, want %d: %s" % (got, code, err)
    for w in words:
        assert w in err, "%r not in %r" % (w, err)
    assert TOKEN not in err and "not-the-token" not in err, "a token leaked: " + err
    return err


# ======================================================================== Kubernetes

def pods_fixture():
    """Real-shaped pods (tests/k8s/make_pods.py) of namespace ml: an Indexed Job trainer of 12
    pods (index 3 replaced: its old pod is terminating), a plain Job ps of 3 and a Job eval with
    a Pending pod; in namespace default, 2 more pods of ps and 2 of trainer."""
    pods = (make_pods.make_pods(12, "trainer", "ml", indexed=True, start_ip="10.4.0.10")
            + make_pods.make_pods(1, "trainer", "ml", indexed=True, first_index=3, attempt=1,
                                  start_ip="10.4.0.9", terminating_names=["3"])
            + make_pods.make_pods(3, "ps", "ml", start_ip="10.4.1.10")
            + make_pods.make_pods(2, "eval", "ml", start_ip="10.4.3.10", pending_names=["1"])
            + make_pods.make_pods(2, "ps", "default", start_ip="10.4.2.20")
            + make_pods.make_pods(2, "trainer", "default", indexed=True, start_ip="10.4.2.10"))
    return make_pods.pod_list(pods)


PODS = None


def k8s_fake(version, *extra):
    """tests/fake_api.py over HTTPS with the bearer token, reporting Kubernetes `version`."""
    global PODS
    PODS = PODS or harness.write(TMP, "pods.json", pods_fixture())
    return Server(FAKE_API, "--pods", PODS, "--bearer", TOKEN, "--forbid-token", VIEWER,
                  "--server-version", version, *extra, tls=True)


def kubectl(fake, *args, token=TOKEN):
    """Google's kubectl dispatcher against the fake, with a fresh HOME and cache (so discovery
    is asked, not cached): -> CompletedProcess."""
    tool(KUBECTL, "kubectl")
    home = tempfile.mkdtemp(dir=TMP)
    cmd = [KUBECTL, "--server", fake.url, "--certificate-authority", CA, "--token", token,
           "--cache-dir", os.path.join(home, "cache"), "--request-timeout", "30s"] + list(args)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60,
                          env={"HOME": home, "PATH": os.environ.get("PATH", "/usr/bin:/bin")})


def kubectl_pods(fake, selector, chunk, where):
    """kubectl get pods -l SELECTOR --chunk-size N -o json (where: --namespace/-A args)."""
    p = kubectl(fake, "get", "pods", "-l", selector, "--chunk-size", str(chunk), "-o", "json",
                *where)
    assert p.returncode == 0, "kubectl: %s" % p.stderr.strip()
    doc = json.loads(p.stdout)
    assert doc["kind"] == "List" and all(i["kind"] == "Pod" for i in doc["items"]), doc["kind"]
    return doc["items"]


def members(items, port=8470):
    """What a resolve must answer from the pods kubectl printed: the Running pods without a
    deletionTimestamp, by completion index when every one has it, else by name (naturally)."""
    live = [p for p in items if p["status"].get("phase") == "Running"
            and not p["metadata"].get("deletionTimestamp")]
    notes = [p["metadata"].get("annotations", {}) for p in live]
    if live and all(INDEX in n for n in notes):
        live.sort(key=lambda p: (int(p["metadata"]["annotations"][INDEX]),
                                 natural_key(p["metadata"]["name"]), p["metadata"]["namespace"]))
    else:
        live.sort(key=lambda p: (natural_key(p["metadata"]["name"]), p["metadata"]["namespace"]))
    return ["%s:%d" % (p["status"]["podIP"], port) for p in live]


def k8s_ours(fake, selector, page, where):
    return ours(["k8s", "--server", fake.url, "--ca-file", CA, "--token-file", TOKEN_FILE,
                 "--job", "worker=" + selector, "--page-size", page] + where)


def kubectl_requests(log, minor):
    """The requests of kubectl 1.<minor> (its User-Agent) and of its dispatcher."""
    mine = [r for r in log if r["headers"].get("user-agent", "").startswith(
        ("kubectl/v1.%d." % minor, "kubectl-dispatcher/"))]
    assert mine, "no request from kubectl 1.%d: the dispatcher picked another build (%s)" % (
        minor, sorted({r["headers"].get("user-agent", "")[:20] for r in log}))
    return mine


def check_kubectl_pages(reqs, selector, chunk, items):
    """kubectl's list: limit=N on every page, continue tokens from the second on, the bearer
    token on every request, and as many pages as the fake's etcd-like paging makes."""
    pages = [r for r in reqs if r["path"].endswith("/pods")]
    assert all(r["headers"].get("authorization") == "Bearer " + TOKEN for r in reqs), reqs
    assert all(r["query"]["limit"] == [str(chunk)] and r["query"]["labelSelector"] == [selector]
               for r in pages), [r["query"] for r in pages]
    assert "continue" not in pages[0]["query"] and all("continue" in r["query"]
                                                       for r in pages[1:]), pages
    assert len(pages) >= -(-len(items) // chunk) >= 2, (len(pages), len(items))
    return pages


def check_discovery(reqs, aggregated):
    """The dispatcher's /version, then /api and /apis; /api/v1 only without aggregation."""
    paths = [r["path"] for r in reqs]
    assert paths[0] == "/version" and {"/api", "/apis"} <= set(paths), paths
    asked = reqs[paths.index("/api")]["headers"]["accept"]
    assert "as=APIGroupDiscoveryList" in asked, asked
    assert ("/api/v1" in paths) != bool(aggregated), paths


@test
def kubectl_1_32_equality_selector_aggregated_discovery_pages():
    """kubectl 1.32 against a "v1.32.4" fake: aggregated discovery (apidiscovery v2), then
    `get pods -l job-name=trainer --chunk-size 5` in pages; we see the same 12 members in
    completion-index order (the terminating replaced pod dropped)."""
    f = k8s_fake("v1.32.4")
    items = kubectl_pods(f, "job-name=trainer", 5, ["--namespace", "ml"])
    want = members(items)
    assert len(items) == 13 and len(want) == 12, (len(items), want)
    assert k8s_ours(f, "job-name=trainer", 5, ["--namespace", "ml"]) == {"worker": want}
    reqs = kubectl_requests(f.stop(), 32)
    check_discovery(reqs, aggregated=True)
    pages = check_kubectl_pages(reqs, "job-name=trainer", 5, items)
    assert all(r["path"] == "/api/v1/namespaces/ml/pods" for r in pages), pages


@test
def kubectl_1_27_set_based_selector_v2beta1_discovery():
    """kubectl 1.27 (the dispatcher's pick for a 1.27 server) with apidiscovery v2beta1 and
    `-l 'job-name in (trainer,ps)'`: indexed and plain pods together, so by name, naturally."""
    tool(os.path.join(SDK_BIN, "kubectl.1.27"), "kubectl 1.27")
    f = k8s_fake("v1.27.16")
    selector = "job-name in (trainer,ps)"
    items = kubectl_pods(f, selector, 4, ["--namespace", "ml"])
    want = members(items)
    assert len(want) == 15, want
    assert k8s_ours(f, selector, 4, ["--namespace", "ml"]) == {"worker": want}
    reqs = kubectl_requests(f.stop(), 27)
    check_discovery(reqs, aggregated=True)
    check_kubectl_pages(reqs, selector, 4, items)


@test
def kubectl_1_33_not_equal_selector():
    """kubectl 1.33 and `-l 'job-name!=eval,!batch.kubernetes.io/job-completion-index'`
    (inequality and absence): the plain Job's pods only, by name."""
    tool(os.path.join(SDK_BIN, "kubectl.1.33"), "kubectl 1.33")
    f = k8s_fake("v1.33.1")
    selector = "job-name!=eval,!" + INDEX
    items = kubectl_pods(f, selector, 2, ["--namespace", "ml"])
    want = members(items)
    assert len(want) == 3 and all(p["metadata"]["labels"]["job-name"] == "ps" for p in items)
    assert k8s_ours(f, selector, 2, ["--namespace", "ml"]) == {"worker": want}
    check_kubectl_pages(kubectl_requests(f.stop(), 33), selector, 2, items)


@test
def kubectl_legacy_discovery_all_namespaces():
    """A "v1.26.3" fake has no aggregated discovery: kubectl (1.32, the dispatcher's fallback)
    reads APIVersions, APIGroupList and the APIResourceList of /api/v1, then
    `get pods -A -l job-name=ps` through /api/v1/pods; the same 5 members, by name."""
    f = k8s_fake("v1.26.3")
    items = kubectl_pods(f, "job-name=ps", 2, ["--all-namespaces"])
    want = members(items)
    assert len(want) == 5 and {p["metadata"]["namespace"] for p in items} == {"ml", "default"}
    assert k8s_ours(f, "job-name=ps", 2, ["--all-namespaces"]) == {"worker": want}
    reqs = kubectl_requests(f.stop(), 32)
    check_discovery(reqs, aggregated=False)
    pages = check_kubectl_pages(reqs, "job-name=ps", 2, items)
    assert all(r["path"] == "/api/v1/pods" for r in pages), pages


@test
def kubectl_sees_pending_pod_we_are_not_ready():
    """kubectl lists Job eval's Pending pod like any other; we refuse to resolve (exit 5)
    naming it."""
    f = k8s_fake("v1.32.4")
    items = kubectl_pods(f, "job-name=eval", 500, ["--namespace", "ml"])
    pending = [p["metadata"]["name"] for p in items if p["status"]["phase"] == "Pending"]
    assert len(items) == 2 and len(pending) == 1, items
    ours_fail(["k8s", "--server", f.url, "--ca-file", CA, "--token-file", TOKEN_FILE,
               "--namespace", "ml", "--job", "worker=job-name=eval"], 5,
              ['pod "%s" (namespace ml) is Pending' % pending[0]])
    f.stop()


@test
def wrong_token_fails_kubectl_and_us():
    """A refused token: kubectl fails as against a real cluster ("You must be logged in to the
    server (the server has asked for the client to provide credentials)", what client-go
    says for a 401 on discovery: the same words in real-cluster reports such as
    flanksource/mission-control#1779 and k3s-io/k3s#12220), and so do we: exit 4 saying the
    token was refused."""
    f = k8s_fake("v1.32.4")
    p = kubectl(f, "get", "pods", "-n", "ml", "-o", "json", token="not-the-token")
    assert p.returncode == 1 and p.stdout == "", (p.returncode, p.stdout)
    assert "error: You must be logged in to the server (the server has asked for the client " \
           "to provide credentials)" in p.stderr, p.stderr
    ours_fail(["k8s", "--server", f.url, "--ca-file", CA, "--token-file", WRONG_FILE,
               "--namespace", "ml", "--job", "worker=job-name=trainer"], 4,
              ["401 Unauthorized", "token was refused"])
    log = f.stop()
    assert log and all(r["status"] == 401 for r in log), [(r["path"], r["status"]) for r in log]


@test
def forbidden_token_fails_kubectl_and_us():
    """A token without RBAC for pods: discovery still answers (every authenticated user may
    read it), the list is 403; kubectl prints the API server's message, we quote it too and
    name the rule needed (exit 4)."""
    f = k8s_fake("v1.32.4")
    p = kubectl(f, "get", "pods", "-n", "ml", "-o", "json", token=VIEWER)
    message = 'pods is forbidden: User "system:serviceaccount:default:default" cannot list ' \
              'resource "pods" in API group "" in the namespace "ml"'
    assert p.returncode == 1 and "Error from server (Forbidden): " + message in p.stderr, \
        p.stderr
    err = ours_fail(["k8s", "--server", f.url, "--ca-file", CA, "--token-file",
                     harness.write(TMP, "viewer", VIEWER), "--namespace", "ml",
                     "--job", "worker=job-name=trainer"], 4, ["403 Forbidden", 'verbs ["list"]'])
    assert message[:60] in err, err
    log = f.stop()
    assert {r["status"] for r in log if r["path"] in ("/api", "/apis")} == {200}, log
    assert {r["status"] for r in log if r["path"].endswith("/pods")} == {403}, log


# ======================================================================== Google Cloud

def gcloud(fake, *args, token_file=TOKEN_FILE, api="compute"):
    """gcloud with a fresh configuration, no prompts, no metadata server probe, the token from
    a file and the API's endpoint overridden to the fake (its CA trusted when HTTPS)."""
    tool(GCLOUD, "gcloud")
    conf = tempfile.mkdtemp(dir=TMP)
    env = {"HOME": conf, "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "CLOUDSDK_CONFIG": conf, "CLOUDSDK_CORE_DISABLE_PROMPTS": "1",
           "CLOUDSDK_CORE_CHECK_GCE_METADATA": "false",
           "CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK": "1",
           "CLOUDSDK_CORE_DISABLE_USAGE_REPORTING": "true",
           "CLOUDSDK_AUTH_ACCESS_TOKEN_FILE": token_file}
    if api == "compute":
        env["CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE"] = fake.url + "/compute/v1/"
    else:
        env["CLOUDSDK_API_ENDPOINT_OVERRIDES_TPU"] = fake.url + "/"
    if fake.url.startswith("https:"):
        env["CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE"] = CA
    return subprocess.run([GCLOUD] + list(args) + ["--project", P], capture_output=True,
                          text=True, timeout=60, env=env)


def gcloud_json(fake, *args, api="compute"):
    p = gcloud(fake, *args, "--format=json", api=api)
    assert p.returncode == 0, "gcloud: %s" % p.stderr.strip()
    return json.loads(p.stdout)


def by_gcloud(log):
    """gcloud's requests (its User-Agent), each carrying our bearer token."""
    mine = [r for r in log if r["headers"].get("user-agent", "").startswith("google-cloud-sdk")
            or r.get("batch_part")]
    outer = [r for r in mine if not r.get("batch_part")]
    assert outer and all(r["headers"].get("authorization") == "Bearer " + TOKEN
                         for r in outer), [r["headers"].get("authorization") for r in outer]
    return mine


def check_paged(reqs, path_end, pages):
    """At least `pages` requests (one listing) to lists ending in path_end: the first of each
    list without a pageToken, every later one with one."""
    lists = [r for r in reqs if r["path"].endswith(path_end)]
    seen = set()
    for r in lists:
        assert ("pageToken" in r["query"]) == (r["path"] in seen), (r["path"], r["query"])
        seen.add(r["path"])
    assert len(lists) >= pages, (path_end, len(lists), pages)
    return lists


GCE_META = {"project/project-id": P, "instance/zone": "projects/123456789012/zones/" + Z,
            "instance/name": "login-vm", "instance/service-accounts/default/token":
            {"access_token": TOKEN, "expires_in": 3599, "token_type": "Bearer"}}


def gce_fake(group, insts, others, tls=False, **where):
    doc = mg.compute_doc([mg.make_group(group, insts, named_ports=[("grpc", 8470)], **where)],
                         insts + others)
    return Server(harness.FAKE_GCP, "--compute", doc, "--metadata", GCE_META, "--bearer", TOKEN,
                  "--page-cap", "3", tls=tls)


def gce_ours(fake, group, where):
    args = ["gce", "--compute-url", fake.url + "/compute/v1", "--metadata-url", fake.url,
            "--instance-group", group, "--project", P, "--token-file", TOKEN_FILE] + where
    if fake.url.startswith("https:"):
        args += ["--ca-file", CA]
    return ours(args)


def gcloud_members(fake, group, where, zones):
    """The group's RUNNING members as gcloud sees them: list-instances, then the zones'
    instances filtered to RUNNING; "networkIP:8470" in natural name order."""
    listed = gcloud_json(fake, "compute", "instance-groups", "list-instances", group, *where)
    running = {r["instance"].rsplit("/", 1)[1] for r in listed if r["status"] == "RUNNING"}
    insts = gcloud_json(fake, "compute", "instances", "list", "--zones", ",".join(zones),
                        "--filter=status=RUNNING")
    ips = {i["name"]: i["networkInterfaces"][0]["networkIP"] for i in insts}
    assert running <= set(ips), (running, sorted(ips))
    return listed, ["%s:8470" % ips[n] for n in sorted(running, key=natural_key)]


@test
def gcloud_zonal_group_pages_same_members():
    """gcloud lists a zonal group of 11 (w-3 TERMINATED, w-8 STOPPING) and the zone's RUNNING
    instances (3 more VMs outside the group) page by page (--page-cap 3); we see the same 9
    members, w-2 before w-10."""
    statuses = {"w-3": "TERMINATED", "w-8": "STOPPING"}
    insts = mg.make_instances(11, "workers", zone=Z, names="w", statuses=statuses)
    others = mg.make_instances(3, "batch", zone=Z, start=100)
    f = gce_fake("workers", insts, others, zone=Z)
    listed, want = gcloud_members(f, "workers", ["--zone", Z], [Z])
    assert {r["status"] for r in listed} == {"RUNNING", "TERMINATED", "STOPPING"}, listed
    assert want == mg.expected_addresses(insts) and len(want) == 9, want
    assert gce_ours(f, "workers", ["--zone", Z]) == {"worker": want}
    reqs = by_gcloud(f.stop())
    check_paged(reqs, "/instanceGroups/workers/listInstances", 4)
    zone_lists = check_paged(reqs, "/zones/%s/instances" % Z, 4)
    # gcloud 528 rewrites --filter=status=RUNNING into the API's own syntax (its request log)
    assert all(r["query"]["filter"] == ["status eq RUNNING"] for r in zone_lists), zone_lists


@test
def gcloud_regional_group_over_https_batch_same_members():
    """A regional group of 12 over three zones, over HTTPS with the test CA: gcloud's
    list-instances --region; its instances list of the three zones, which gcloud 528 sends as
    Compute batch requests (POST /batch/compute/v1, follow-up pages in a second batch: seen
    in its request log); and its instances list without --zones (aggregated/instances, the
    label filter applied by gcloud). We (--region, --ca-file) see the same members."""
    insts = mg.make_instances(12, "rw", region=R, names="w", statuses={"w-5": "TERMINATED"})
    f = gce_fake("rw", insts, [], tls=True, region=R)
    zones = sorted({i["zone"].rsplit("/", 1)[1] for i in insts})
    _, want = gcloud_members(f, "rw", ["--region", R], zones)
    assert want == mg.expected_addresses(insts) and len(want) == 11, want
    everywhere = gcloud_json(f, "compute", "instances", "list",
                             "--filter=labels.group=rw AND status=RUNNING")
    assert sorted("%s:8470" % i["networkInterfaces"][0]["networkIP"] for i in everywhere) == \
        sorted(want), everywhere
    assert gce_ours(f, "rw", ["--region", R]) == {"worker": want}
    reqs = by_gcloud(f.stop())
    check_paged(reqs, "/regions/%s/instanceGroups/rw/listInstances" % R, 3)
    assert len([r for r in reqs if r["path"] == "/batch/compute/v1"]) >= 2, reqs
    parts = [r for r in reqs if r.get("batch_part")]
    assert {r["path"].split("/")[6] for r in parts} == set(zones), parts
    assert any("pageToken" in r["query"] for r in parts), parts
    check_paged(reqs, "/aggregated/instances", 4)


@test
def gcloud_and_we_report_a_refused_compute_token():
    """A refused token: gcloud's list parses Google's 401 error body and warns with its
    message ("Some requests did not succeed", exit 0: gcloud's lists report failed requests
    as warnings); we fail with exit 4 and the 401. (gcloud 528's instance-groups
    list-instances prints [] with exit 0 and no word of the 401: its errors list is checked
    before the request generator runs, so it is not used here.)"""
    insts = mg.make_instances(2, "workers", zone=Z, names="w")
    f = gce_fake("workers", insts, [], zone=Z)
    p = gcloud(f, "compute", "instances", "list", "--zones", Z, "--format=json",
               token_file=WRONG_FILE)
    assert "Request had invalid authentication credentials" in p.stderr, p.stderr
    assert json.loads(p.stdout or "null") == [], p.stdout
    ours_fail(["gce", "--compute-url", f.url + "/compute/v1", "--metadata-url", f.url,
               "--instance-group", "workers", "--project", P, "--zone", Z, "--token-file",
               WRONG_FILE, "--retries", "0"], 4, ["401"])
    log = f.stop()
    assert all(r["status"] == 401 for r in log if r["path"].startswith("/compute/")), log


def tpu_fake(nodes, tls=False, cap="1"):
    return Server(harness.FAKE_GCP, "--tpu-nodes", mg.tpu_nodes_doc(nodes), "--bearer", TOKEN,
                  "--page-cap", cap, tls=tls)


def tpu_ours(fake, name, version):
    args = ["tpu", "--tpu-url", fake.url, "--tpu", name, "--project", P, "--zone", TPU_ZONE,
            "--token-file", TOKEN_FILE, "--api-version", version]
    if fake.url.startswith("https:"):
        args += ["--ca-file", CA]
    return ours(args)


def endpoints(node):
    return ["%s:%d" % (e["ipAddress"], e.get("port") or 8470) for e in node["networkEndpoints"]]


@test
def gcloud_tpu_vm_v2_over_https_same_endpoints():
    """`gcloud compute tpus tpu-vm describe` (Cloud TPU API v2) over HTTPS: the TPU VM's 8
    network endpoints in API order; ours (--api-version v2, --ca-file) are the same."""
    node = mg.make_tpu_node("pod-32", zone=TPU_ZONE, endpoints=8)
    f = tpu_fake([node], tls=True)
    seen = gcloud_json(f, "compute", "tpus", "tpu-vm", "describe", "pod-32", "--zone", TPU_ZONE,
                       api="tpu")
    assert seen["state"] == "READY" and seen["serviceAccount"]["email"], seen
    assert tpu_ours(f, "pod-32", "v2") == {"worker": endpoints(seen)} and len(endpoints(seen)) == 8
    reqs = by_gcloud(f.stop())
    assert [r["path"] for r in reqs] == ["/v2/projects/%s/locations/%s/nodes/pod-32"
                                         % (P, TPU_ZONE)], reqs


@test
def gcloud_tpu_node_v1_same_endpoints():
    """`gcloud compute tpus describe` (Cloud TPU API v1) of a TPU node, and of a TPU VM,
    which v1 answers in its own shape (serviceAccount an email: gcloud rejects v2's object);
    ours with --api-version v1 agree on both."""
    old = mg.make_tpu_node("v3-node", zone=TPU_ZONE, api="v1", endpoints=2)
    vm = mg.make_tpu_node("v4-vm", zone=TPU_ZONE, endpoints=4)
    f = tpu_fake([old, vm])
    for node in (old, vm):
        name = node["name"].rsplit("/", 1)[1]
        seen = gcloud_json(f, "compute", "tpus", "describe", name, "--zone", TPU_ZONE, api="tpu")
        assert isinstance(seen["serviceAccount"], str), seen
        assert endpoints(seen) == endpoints(node), (seen, node)
        assert tpu_ours(f, name, "v1") == {"worker": endpoints(seen)}
    reqs = by_gcloud(f.stop())
    assert all(r["path"].startswith("/v1/") for r in reqs), reqs


@test
def gcloud_tpu_vm_list_pages_same_endpoints():
    """`gcloud compute tpus tpu-vm list` pages through ListNodes (--page-cap 1: a page a node,
    nextPageToken/pageToken); every node it lists resolves to the endpoints it shows."""
    nodes = [mg.make_tpu_node("slice-%d" % i, zone=TPU_ZONE, endpoints=i + 1) for i in range(3)]
    f = tpu_fake(nodes)
    seen = gcloud_json(f, "compute", "tpus", "tpu-vm", "list", "--zone", TPU_ZONE, api="tpu")
    assert [n["name"] for n in seen] == [n["name"] for n in nodes], seen
    for node in seen:
        assert tpu_ours(f, node["name"].rsplit("/", 1)[1], "v2") == {"worker": endpoints(node)}
    check_paged(by_gcloud(f.stop()), "/locations/%s/nodes" % TPU_ZONE, 3)


@test
def gcloud_and_we_report_a_refused_tpu_token():
    """A refused token on the TPU API: gcloud fails with Google's UNAUTHENTICATED error as
    it read it from the fake; we fail with exit 4 and the 401."""
    f = tpu_fake([mg.make_tpu_node("t", zone=TPU_ZONE)])
    p = gcloud(f, "compute", "tpus", "tpu-vm", "describe", "t", "--zone", TPU_ZONE,
               token_file=WRONG_FILE, api="tpu")
    assert p.returncode == 1 and "UNAUTHENTICATED: Request had invalid authentication " \
        "credentials" in p.stderr, p.stderr
    ours_fail(["tpu", "--tpu-url", f.url, "--tpu", "t", "--project", P, "--zone", TPU_ZONE,
               "--token-file", WRONG_FILE, "--retries", "0"], 4, ["401"])
    assert {r["status"] for r in f.stop()} == {401}


if __name__ == "__main__":
    if not os.access(CLI, os.X_OK):
        sys.exit("test_real_clients: %s is missing (build cluster-resolve into %s)" % (CLI, BUILD))
    subprocess.run(["bash", os.path.join(TESTS, "gen_certs.sh"), CERTS], check=True,
                   stdout=subprocess.DEVNULL)
    sys.exit(harness.run_tests(TESTS_RUN, TMP, ARGS))

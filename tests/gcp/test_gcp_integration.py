#!/usr/bin/env python3
"""End-to-end tests of the GCE and Cloud TPU backends: the built cluster-resolve (bundled libcurl
transport) against tests/gcp/fake_gcp.py over HTTP (metadata server, Compute Engine, Cloud TPU),
with full Instance and Node resources from tests/gcp/make_gcp.py. Each test starts its fakes,
runs the CLI, and checks the output, the exit code, the message and the fake's request log.

TensorFlow's cases (from its gce, tpu and tpu client tests) are named G1..G9, P1..P21,
C2..C13 where they apply. Differences from TF that these tests hold us to: tasks in natural
instance-name order (TF sorts "ip:port" strings); an empty group is an empty job (TF: KeyError);
one group list page + one zone list page per resolve (TF: one GET per instance); task_type may
differ from the job name (TF's G9 forbids resetting it); master honours --rpc-layer (TF always
grpc://); IPv6 endpoints are bracketed; TPU VMs resolve from TPU_WORKER_* or metadata.

usage: test_gcp_integration.py [BUILD_DIR] [NAME_SUBSTRING...]   (BUILD_DIR holds cluster-resolve;
       default build/san). Prints "ok/FAIL name" lines, then "N passed, N failed".
"""
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import harness  # noqa: E402
from harness import ROOT, TOKEN, Fake, free_port  # noqa: E402
import make_gcp as mg  # noqa: E402
from fake_gcp import parse_fields  # noqa: E402

ARGS = sys.argv[1:]
BUILD = ARGS.pop(0) if ARGS and os.path.isdir(ARGS[0]) else os.path.join(ROOT, "build", "san")
CLI = os.path.join(BUILD, "cluster-resolve")
TMP = tempfile.mkdtemp(prefix="gcp-it-")
TOKEN_FILE = harness.write(TMP, "token", TOKEN + "\n")
P, Z, R = "test-project", "us-east1-d", "us-east1"
TPU_ZONE = "us-central1-c"
N_TPU = "projects/test-project/locations/us-central1-c/nodes/test-tpu-1"
TOKEN_PATH = "/computeMetadata/v1/instance/service-accounts/default/token"
TOKEN_JSON = {"access_token": TOKEN, "expires_in": 3599, "token_type": "Bearer"}
LIST_FIELDS = "items(name,networkInterfaces(networkIP)),nextPageToken"


def metadata(instance_name=None):
    """A GCE VM's metadata: project, zone, token, ...; instance/name only when given."""
    doc = {"project/project-id": P, "project/numeric-project-id": "123456789012",
           "instance/zone": "projects/123456789012/zones/" + Z,
           "instance/id": "4520031799277581759", "instance/hostname": "login.c.test-project.internal",
           "instance/network-interfaces/0/ip": "10.128.1.2",
           "instance/service-accounts/default/email": "123456789012-compute@developer.gserviceaccount.com",
           "instance/service-accounts/default/token": TOKEN_JSON}
    if instance_name:
        doc["instance/name"] = instance_name
    return doc


TPU_META = dict(metadata(), **{"instance/zone": "projects/123456789012/zones/" + TPU_ZONE})


# ---- running the CLI ----

def run(args, env=None):
    e = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    e.update(env or {})
    start = time.time()
    p = subprocess.run([CLI] + [str(a) for a in args], env=e, capture_output=True, text=True,
                       timeout=60)
    return p.returncode, p.stdout, p.stderr, time.time() - start


def ok(args, env=None):
    code, out, err, _ = run(args, env)
    assert code == 0, "exit %d: %s" % (code, err.strip())
    assert err == "", err
    return out


def spec(args, env=None):
    return json.loads(ok(list(args) + ["--format", "spec"], env))


def master(args, env=None):
    out = ok(list(args) + ["--format", "master"], env)
    assert out.endswith("\n") and out.count("\n") == 1, repr(out)
    return out[:-1]


def tfconfig(args, env=None):
    return json.loads(ok(list(args) + ["--format", "tfconfig"], env))


def fails(args, code, words, env=None, secret=TOKEN):
    got, out, err, took = run(args, env)
    assert got == code, "exit %d, want %d: %s" % (got, code, err.strip())
    assert out == "" and err.count("\n") == 1, (out, err)
    for w in words:
        assert w.lower() in err.lower(), "%r not in %r" % (w, err)
    assert secret not in err, "the token leaked into the message"
    return err, took


# ---- fixtures ----

def compute_fake(groups, *extra, instances=None, meta=None):
    """A fake with these groups [(name, instances, zone or None, region or None)], the
    instances (all the groups' unless given), metadata and --bearer TOKEN."""
    made, insts = [], []
    for name, members, zone, region in groups:
        made.append(mg.make_group(name, members, zone=zone, region=region,
                                  named_ports=[("grpc", 8470)]))
        insts += [i for i in members if i not in insts]
    doc = mg.compute_doc(made, instances if instances is not None else insts)
    return Fake(TMP, "--compute", doc, "--metadata", meta or metadata(), "--bearer", TOKEN, *extra)


def tf_instances(mapping, zone=Z):
    return [mg.make_instance(name, ip, zone=zone, group="g", seq=n)
            for n, (name, ip) in enumerate(mapping)]


DEFAULT = [("gce-instance-1", "10.123.45.67")]
THREE = [("instance1", "10.1.2.3"), ("instance2", "10.2.3.4"), ("instance3", "10.3.4.5")]


def gce(fake, group="test-instance-group", project=P, zone=Z, region=None, token=True,
        meta_url=None):
    a = ["gce", "--compute-url", fake.compute_url, "--instance-group", group,
         "--metadata-url", meta_url or fake.url]
    if project:
        a += ["--project", project]
    if region:
        a += ["--region", region]
    elif zone:
        a += ["--zone", zone]
    if token:
        a += ["--token-file", TOKEN_FILE]
    return a


def compute_calls(log):
    return [r for r in log if r["path"].startswith("/compute/")]


def metadata_calls(log):
    return [r for r in log if r["path"].startswith("/computeMetadata/")]


def group_pages(log):
    return [r for r in compute_calls(log) if r["path"].endswith("/listInstances")]


def zone_pages(log):
    return [r for r in compute_calls(log) if r["path"].endswith("/instances")]


def check_contract(log, token=TOKEN):
    """Every Compute/TPU call has the bearer token, every metadata call Metadata-Flavor;
    group lists are POSTs with instanceState RUNNING and maxResults=500; zone lists filter
    RUNNING, ask for names and networkIPs only, and page with maxResults=500."""
    for r in log:
        if r["path"].startswith("/computeMetadata/"):
            assert r["headers"].get("metadata-flavor") == "Google", r
        else:
            assert r["headers"].get("authorization") == "Bearer " + token, r
    for r in group_pages(log):
        assert r["method"] == "POST" and json.loads(r["body"]) == {"instanceState": "RUNNING"}, r
        assert r["query"]["maxResults"] == ["500"], r
    for r in zone_pages(log):
        assert r["method"] == "GET" and r["query"]["filter"] == ['status = "RUNNING"'], r
        assert r["query"]["maxResults"] == ["500"], r
        tree = parse_fields(r["query"]["fields"][0])
        assert "name" in tree["items"] and "networkIP" in str(tree["items"]["networkInterfaces"])
        assert "nextPageToken" in tree, r
    for pages in (group_pages(log), zone_pages(log)):
        first = {}
        for r in pages:  # a list starts without a token
            first.setdefault(r["path"], r)
        assert all("pageToken" not in r["query"] for r in first.values()), pages


TESTS = []


def test(fn):
    TESTS.append((fn.__name__, fn))
    return fn


# ======================================================================== GCE

@test
def gce_g1_one_instance():
    f = compute_fake([("test-instance-group", tf_instances(DEFAULT), Z, None)])
    assert spec(gce(f)) == {"worker": ["10.123.45.67:8470"]}
    log = f.stop()
    check_contract(log)
    assert [r["path"] for r in compute_calls(log)] == [
        "/compute/v1/projects/test-project/zones/us-east1-d/instanceGroups/test-instance-group/"
        "listInstances", "/compute/v1/projects/test-project/zones/us-east1-d/instances"]
    assert not [r for r in log if r["path"] == TOKEN_PATH]  # --token-file given


@test
def gce_g2_master_of_own_task():
    meta = metadata(instance_name="gce-instance-1")
    f = compute_fake([("test-instance-group", tf_instances(DEFAULT), Z, None)], meta=meta)
    assert master(gce(f)) == "grpc://10.123.45.67:8470"
    doc = tfconfig(gce(f))
    assert doc["task"] == {"type": "worker", "index": 0} and doc["rpc_layer"] == "grpc", doc
    assert master(gce(f) + ["--task-type", "worker", "--task-id", "0"]) == "grpc://10.123.45.67:8470"
    check_contract(f.stop())


@test
def gce_g3_master_of_a_task_with_rpc_layer():
    f = compute_fake([("test-instance-group", tf_instances(THREE), Z, None)])
    got = master(gce(f) + ["--task-type", "worker", "--task-id", "2", "--rpc-layer", "test"])
    assert got == "test://10.3.4.5:8470", got
    f.stop()


@test
def gce_g4_job_name_task_and_rpc_layer():
    f = compute_fake([("test-instance-group", tf_instances(THREE), Z, None)])
    args = gce(f) + ["--job-name", "testworker", "--task-type", "testworker", "--task-id", "1",
                     "--rpc-layer", "test"]
    assert master(args) == "test://10.2.3.4:8470"
    doc = tfconfig(args)
    assert doc["cluster"] == {"testworker": ["10.1.2.3:8470", "10.2.3.4:8470", "10.3.4.5:8470"]}
    assert doc["task"] == {"type": "testworker", "index": 1} and doc["rpc_layer"] == "test", doc
    f.stop()


@test
def gce_g5_empty_job_name_is_refused():
    """TF's G5 uses task_type='' as a job name; our ClusterSpec refuses empty job names."""
    f = compute_fake([("test-instance-group", tf_instances(THREE), Z, None)])
    code, out, err, _ = run(gce(f) + ["--job-name", ""])
    assert code in (2, 3) and out == "" and "job" in err.lower(), (code, out, err)
    f.stop()


@test
def gce_g6_custom_job_and_port():
    f = compute_fake([("test-instance-group", tf_instances(DEFAULT), Z, None)])
    assert spec(gce(f) + ["--job-name", "custom", "--port", "2222"]) == {
        "custom": ["10.123.45.67:2222"]}
    f.stop()


@test
def gce_g7_three_instances():
    f = compute_fake([("test-instance-group", tf_instances(THREE), Z, None)])
    assert spec(gce(f)) == {"worker": ["10.1.2.3:8470", "10.2.3.4:8470", "10.3.4.5:8470"]}
    f.stop()


@test
def gce_g8_union_members_of_three_groups_in_one_zone():
    """TF's G8 unions three GCE resolvers; the CLI resolves one group per run (the union
    itself is the library's cres_union_resolver). Each run takes only its own group's
    members from a zone list that holds all eight instances."""
    w1 = tf_instances(THREE)
    w2 = tf_instances([("instance4", "10.4.5.6"), ("instance5", "10.5.6.7"),
                       ("instance6", "10.6.7.8")])
    ps = tf_instances([("ps1", "10.100.1.2"), ("ps2", "10.100.2.3")])
    f = compute_fake([("worker1", w1, Z, None), ("worker2", w2, Z, None), ("ps", ps, Z, None)])
    union = {}
    for group, job, port in (("worker1", "worker", 8470), ("worker2", "worker", 8470),
                             ("ps", "ps", 2222)):
        got = spec(gce(f, group) + ["--job-name", job, "--port", str(port)])
        for name, tasks in got.items():
            union.setdefault(name, []).extend(tasks)
    assert union == {"ps": ["10.100.1.2:2222", "10.100.2.3:2222"],
                     "worker": ["10.1.2.3:8470", "10.2.3.4:8470", "10.3.4.5:8470",
                                "10.4.5.6:8470", "10.5.6.7:8470", "10.6.7.8:8470"]}, union
    log = f.stop()
    assert len(compute_calls(log)) == 6
    check_contract(log)


@test
def gce_g9_task_type_may_differ_from_job():
    # TF's G9 gives a task type that is not the job's; its master() of that task then fails.
    # Here a task given must be in the cluster: exit 3 naming it, and the job's own task works.
    f = compute_fake([("test-instance-group", tf_instances(THREE), Z, None)])
    fails(gce(f) + ["--job-name", "testworker", "--task-type", "foobar", "--task-id", "0"], 3,
          ['the task given, "foobar" 0, is not in the cluster'])
    doc = tfconfig(gce(f) + ["--job-name", "testworker", "--task-type", "testworker", "--task-id", "0"])
    assert doc["task"] == {"type": "testworker", "index": 0} and list(doc["cluster"]) == ["testworker"]
    f.stop()


@test
def gce_empty_group_is_an_empty_job():
    f = compute_fake([("empty", [], Z, None)], instances=tf_instances(THREE))
    assert spec(gce(f, "empty")) == {"worker": []}
    log = f.stop()
    assert len(compute_calls(log)) == 1, compute_calls(log)  # no zone to list


@test
def gce_natural_name_order_not_ip_order():
    insts = mg.make_instances(12, "w", zone=Z, names="w")
    want = mg.expected_addresses(insts)
    by_ip = sorted(want)
    by_string_name = ["%s:8470" % i["networkInterfaces"][0]["networkIP"]
                      for i in sorted(insts, key=lambda i: i["name"])]
    assert want != by_ip and want != by_string_name  # the fixture tells the three apart
    f = compute_fake([("workers", insts, Z, None)])
    assert spec(gce(f, "workers")) == {"worker": want}
    f.stop()


@test
def gce_pages_through_both_lists():
    """7 running members (2 more not running) and 3 running non-members in the zone, 2 items a
    page: 4 group pages and 5 zone pages, each token handed back."""
    members = mg.make_instances(9, "workers", zone=Z, names="w",
                                statuses={"w-4": "TERMINATED", "w-8": "STOPPING"})
    others = mg.make_instances(3, "other", zone=Z, start=100)
    f = compute_fake([("workers", members, Z, None)], "--page-cap", "2",
                     instances=members + others)
    assert spec(gce(f, "workers")) == {"worker": mg.expected_addresses(members)}
    log = f.stop()
    check_contract(log)
    assert (len(group_pages(log)), len(zone_pages(log))) == (4, 5), [r["path"] for r in log]
    tokens = [r["query"]["pageToken"][0] for r in zone_pages(log)[1:]]
    assert len(set(tokens)) == 4 and all("+" in t or "/" in t or "=" in t for t in tokens), tokens


@test
def gce_requests_constant_in_group_size():
    for n in (10, 300):
        insts = mg.make_instances(n, "workers", zone=Z)
        f = compute_fake([("workers", insts, Z, None)])
        assert spec(gce(f, "workers")) == {"worker": mg.expected_addresses(insts)}
        log = f.stop()
        check_contract(log)
        assert (len(group_pages(log)), len(zone_pages(log))) == (1, 1), (n, len(log))


@test
def gce_pages_of_500_at_1201_instances():
    insts = mg.make_instances(1201, "big", zone=Z)
    f = compute_fake([("big", insts, Z, None)])
    assert spec(gce(f, "big")) == {"worker": mg.expected_addresses(insts)}
    log = f.stop()
    check_contract(log)
    assert (len(group_pages(log)), len(zone_pages(log))) == (3, 3)


@test
def gce_full_instance_resources_when_fields_is_ignored():
    insts = mg.make_instances(40, "workers", zone=Z, statuses={"workers-1": "TERMINATED"})
    others = mg.make_instances(5, "other", zone=Z, start=200)
    f = compute_fake([("workers", insts, Z, None)], "--ignore-fields", "--page-cap", "16",
                     instances=insts + others)
    assert spec(gce(f, "workers")) == {"worker": mg.expected_addresses(insts)}
    f.stop()


@test
def gce_regional_group_across_three_zones():
    insts = mg.make_instances(9, "workers", region=R, names="w")
    assert len({i["zone"] for i in insts}) == 3
    f = compute_fake([("workers", insts, None, R)])
    assert spec(gce(f, "workers", zone=None, region=R)) == {"worker": mg.expected_addresses(insts)}
    log = f.stop()
    check_contract(log)
    assert [r["path"] for r in group_pages(log)] == [
        "/compute/v1/projects/test-project/regions/us-east1/instanceGroups/workers/listInstances"]
    assert sorted(r["path"] for r in zone_pages(log)) == [
        "/compute/v1/projects/test-project/zones/us-east1-%s/instances" % z for z in "bcd"]


@test
def gce_regional_members_joined_by_zone_and_name():
    """Instance names are unique per zone only: a RUNNING non-member "w-1" in us-east1-c must
    not lend its address to the member "w-1" of us-east1-b."""
    members = [mg.make_instance("w-1", "10.142.0.11", zone="us-east1-b", group="workers"),
               mg.make_instance("w-2", "10.142.0.12", zone="us-east1-c", group="workers"),
               mg.make_instance("w-3", "10.142.0.13", zone="us-east1-d", group="workers")]
    stranger = mg.make_instance("w-1", "10.142.0.99", zone="us-east1-c")
    f = compute_fake([("workers", members, None, R)], instances=members + [stranger])
    got = spec(gce(f, "workers", zone=None, region=R))
    assert got == {"worker": ["10.142.0.11:8470", "10.142.0.12:8470", "10.142.0.13:8470"]}, got
    f.stop()


@test
def gce_format_master_resolves_once():
    """--format master asks the API once, like every other format (not once more for the
    master and once more for its length)."""
    insts = tf_instances(THREE)
    f = compute_fake([("test-instance-group", insts, Z, None)], meta=metadata(instance_name="instance2"))
    assert master(gce(f)) == "grpc://10.2.3.4:8470"
    log = f.stop()
    assert (len(group_pages(log)), len(zone_pages(log))) == (1, 1), [r["path"] for r in log]


@test
def gcp_base_urls_may_end_in_a_slash():
    """Google's discovery documents give root URLs ending in "/"."""
    f = compute_fake([("test-instance-group", tf_instances(DEFAULT), Z, None)])
    args = ["gce", "--compute-url", f.compute_url + "/", "--metadata-url", f.url + "/",
            "--instance-group", "test-instance-group"]
    assert spec(args) == {"worker": ["10.123.45.67:8470"]}
    log = f.stop()
    assert not [r for r in log if "//" in r["path"]], [r["path"] for r in log]
    g = tpu_fake([tf_node()])
    assert spec(["tpu", "--tpu", "test-tpu-1", "--tpu-url", g.url + "/", "--metadata-url",
                 g.url + "/"]) == {"worker": ["10.1.2.3:8470"]}
    log = g.stop()
    assert not [r for r in log if "//" in r["path"]], [r["path"] for r in log]


@test
def gce_token_from_metadata_once_per_resolve():
    insts = mg.make_instances(5, "workers", zone=Z, names="w")
    f = compute_fake([("workers", insts, Z, None)], "--page-cap", "2")
    assert spec(gce(f, "workers", token=False)) == {"worker": mg.expected_addresses(insts)}
    log = f.stop()
    check_contract(log)
    assert len([r for r in log if r["path"] == TOKEN_PATH]) == 1
    assert len(compute_calls(log)) == 6  # 3 group pages + 3 zone pages, one token


@test
def gce_own_task_from_metadata_instance_name():
    insts = mg.make_instances(5, "workers", zone=Z, names="w")
    f = compute_fake([("workers", insts, Z, None)], meta=metadata(instance_name="w-3"))
    doc = tfconfig(gce(f, "workers"))
    assert doc["cluster"] == {"worker": mg.expected_addresses(insts)}
    assert doc["task"] == {"type": "worker", "index": 2}, doc
    w3 = next(i for i in insts if i["name"] == "w-3")["networkInterfaces"][0]["networkIP"]
    assert master(gce(f, "workers")) == "grpc://%s:8470" % w3
    w1 = mg.expected_addresses(insts)[0].rsplit(":", 1)[0]
    assert json.loads(ok(gce(f, "workers") + ["--format", "launch"])) == {
        "world_size": 5, "rank": 2, "local_rank": 0, "local_world_size": 1, "node_rank": 2,
        "num_nodes": 5, "master_addr": w1, "master_port": 8470}
    log = f.stop()
    check_contract(log)
    assert [r for r in log if r["path"] == "/computeMetadata/v1/instance/name"]


@test
def gce_no_task_when_not_a_member():
    f = compute_fake([("workers", mg.make_instances(3, "workers", zone=Z), Z, None)],
                     meta=metadata(instance_name="login-node"))
    doc = tfconfig(gce(f, "workers"))
    assert "task" not in doc and len(doc["cluster"]["worker"]) == 3, doc
    f.stop()


@test
def gce_project_and_zone_from_metadata():
    insts = mg.make_instances(3, "workers", zone=Z)
    f = compute_fake([("workers", insts, Z, None)])
    dead = "127.0.0.1:%d" % free_port()
    base = ["gce", "--compute-url", f.compute_url, "--instance-group", "workers"]
    want = {"worker": mg.expected_addresses(insts)}
    assert spec(base + ["--metadata-url", f.url]) == want
    assert spec(base, {"GCE_METADATA_HOST": f.host}) == want
    assert spec(base, {"GCE_METADATA_IP": f.host}) == want
    assert spec(base, {"GCE_METADATA_HOST": f.host, "GCE_METADATA_IP": dead}) == want  # HOST wins
    log = f.stop()
    check_contract(log)
    assert {r["path"] for r in group_pages(log)} == {
        "/compute/v1/projects/test-project/zones/us-east1-d/instanceGroups/workers/listInstances"}
    paths = [r["path"] for r in metadata_calls(log)]
    assert paths.count("/computeMetadata/v1/project/project-id") == 4
    assert paths.count("/computeMetadata/v1/instance/zone") == 4
    assert paths.count(TOKEN_PATH) == 4


@test
def gce_off_google_cloud_fails_fast():
    dead = "127.0.0.1:%d" % free_port()
    base = ["gce", "--compute-url", "http://%s/compute/v1" % dead, "--instance-group", "g"]
    for args, env in ((base + ["--metadata-url", "http://" + dead], None),
                      (base, {"GCE_METADATA_HOST": dead}),
                      (base + ["--project", P, "--zone", Z, "--metadata-url", "http://" + dead],
                       None)):  # no token file: the token needs the metadata server
        _, took = fails(args, 3, ["not on Google Cloud"], env)
        assert took < 5, took


@test
def gce_silent_metadata_server_is_bounded():
    """A network that swallows packets to the metadata server (no refusal): a short timeout,
    whatever --timeout-ms says for the API."""
    f = Fake(TMP, "--metadata", metadata(), "--faults", [{"path": "/computeMetadata/", "hang": True}])
    _, took = fails(["gce", "--compute-url", f.compute_url, "--instance-group", "g",
                     "--metadata-url", f.url], 3, ["not on Google Cloud"])
    assert took < 10, took
    f.stop()


@test
def gce_member_stopped_between_the_two_lists_is_not_ready():
    """The group list still names w-2 as RUNNING, the zone list (a moment later) no longer
    does: the cluster is not ready, and the message names the instance."""
    insts = mg.make_instances(3, "workers", zone=Z, names="w", statuses={"w-2": "STOPPING"})
    answer = {"kind": "compute#instanceGroupsListInstances", "items": [
        {"instance": i["selfLink"], "status": "RUNNING"} for i in insts]}
    route = "POST /compute/v1/projects/%s/zones/%s/instanceGroups/workers/listInstances*" % (P, Z)
    f = compute_fake([("workers", insts, Z, None)], "--routes", {route: answer})
    fails(gce(f, "workers"), 5, ["w-2"])
    f.stop()


@test
def gce_wrong_token_is_401():
    f = compute_fake([("workers", mg.make_instances(2, "workers", zone=Z), Z, None)])
    bad = harness.write(TMP, "bad-token", "ya29.not-the-token")
    args = gce(f, "workers", token=False) + ["--token-file", bad, "--retries", "0"]
    fails(args, 4, ["401"], secret="ya29.not-the-token")
    f.stop()


@test
def gce_forbidden_403_names_the_permission():
    insts = mg.make_instances(2, "workers", zone=Z)
    doc = mg.compute_doc([mg.make_group("workers", insts, zone=Z)], insts)
    f = Fake(TMP, "--compute", doc, "--metadata", metadata(), "--forbid-token", TOKEN)
    fails(gce(f, "workers") + ["--retries", "0"], 4, ["403", "compute.instanceGroups.list"])
    f.stop()


@test
def gce_unknown_group_is_404():
    f = compute_fake([("workers", mg.make_instances(2, "workers", zone=Z), Z, None)])
    fails(gce(f, "nope") + ["--retries", "0"], 4, ["404", "nope", "not found"])
    fails(gce(f, "workers", project="other-project") + ["--retries", "0"], 4, ["404"])
    f.stop()


@test
def gce_malformed_and_truncated_json():
    insts = mg.make_instances(3, "workers", zone=Z)
    group = "/compute/v1/projects/test-project/zones/us-east1-d/instanceGroups/"
    zone = "/compute/v1/projects/test-project/zones/us-east1-d/instances"
    cases = [{"path": group, "status": 200, "body": '{"items": [{"instance": tru'},
             {"path": group, "truncate": 40},
             {"path": group, "status": 200, "body": {"items": {"instance": "x"}}},
             {"path": zone, "status": 200, "body": '{"items": [{"name": "w-1", "networkInt'},
             {"path": zone, "truncate": 10},
             {"path": zone, "status": 200, "body": "[]"},
             {"path": "/computeMetadata/", "status": 200, "body": '{"access_token": '}]
    for n, fault in enumerate(cases):
        f = compute_fake([("workers", insts, Z, None)], "--faults", [fault])
        fails(gce(f, "workers", token=not fault["path"].startswith("/computeMetadata/")) +
              ["--retries", "0"], 4, [])
        f.stop()


@test
def gce_instance_without_network_interfaces():
    insts = mg.make_instances(4, "workers", zone=Z, names="w", no_network=("w-2",))
    f = compute_fake([("workers", insts, Z, None)])
    fails(gce(f, "workers"), 4, ["w-2"])
    f.stop()


@test
def gce_endless_page_token_is_bounded():
    insts = mg.make_instances(3, "workers", zone=Z)
    for path in ("/compute/v1/projects/test-project/zones/us-east1-d/instanceGroups/",
                 "/compute/v1/projects/test-project/zones/us-east1-d/instances"):
        f = compute_fake([("workers", insts, Z, None)], "--faults",
                         [{"path": path, "continue_forever": True}], "--page-cap", "1")
        _, took = fails(gce(f, "workers"), 4, ["page"])
        log = f.stop()
        assert 2 <= len(compute_calls(log)) <= 1001 and took < 30, (len(log), took)


@test
def gce_retries_503():
    insts = mg.make_instances(3, "workers", zone=Z)
    f = compute_fake([("workers", insts, Z, None)], "--faults",
                     [{"path": "/compute/", "times": 1, "status": 503}])
    assert spec(gce(f, "workers")) == {"worker": mg.expected_addresses(insts)}
    assert [r["status"] for r in compute_calls(f.stop())] == [503, 200, 200]


# ======================================================================== Cloud TPU

def tpu_fake(nodes, *extra, meta=None):
    return Fake(TMP, "--tpu-nodes", mg.tpu_nodes_doc(nodes), "--metadata", meta or TPU_META,
                "--bearer", TOKEN, *extra)


def tpu(fake, name="test-tpu-1", project=P, zone=TPU_ZONE, token=True, meta=True):
    a = ["tpu", "--tpu-url", fake.url]
    if name is not None:
        a += ["--tpu", name]
    if project:
        a += ["--project", project]
    if zone:
        a += ["--zone", zone]
    if token:
        a += ["--token-file", TOKEN_FILE]
    if meta:
        a += ["--metadata-url", fake.url]
    return a


def tf_node(ips=("10.1.2.3",), api="v1", **kw):
    return mg.make_tpu_node("test-tpu-1", zone=TPU_ZONE, api=api, ips=list(ips), **kw)


FOUR = ["10.2.3.4", "10.2.3.5", "10.2.3.6", "10.2.3.7"]


def tpu_calls(log):
    return [r for r in log if not r["path"].startswith("/computeMetadata/")]


@test
def tpu_p1_no_name_anywhere():
    f = tpu_fake([tf_node()])
    fails(tpu(f, name=None), 3, ["TPU"])
    assert tpu_calls(f.stop()) == []


@test
def tpu_p3_v1_node_with_only_the_deprecated_ip_and_port():
    node = tf_node()
    del node["networkEndpoints"]  # TF's mock node: ipAddress and port only
    f = tpu_fake([node])
    args = tpu(f) + ["--api-version", "v1"]
    assert spec(args) == {"worker": ["10.1.2.3:8470"]}
    assert master(args) == "grpc://10.1.2.3:8470"
    f.stop()


@test
def tpu_p4_creating_is_not_ready():
    f = tpu_fake([tf_node(state="CREATING")])
    fails(tpu(f), 5, ["CREATING", "test-tpu-1"])
    f.stop()


@test
def tpu_p5_p7_coordinator_address():
    f = tpu_fake([tf_node(["10.2.3.4"], api="v2")])
    args = tpu(f) + ["--coordinator-name", "coordinator", "--coordinator-address", "10.128.1.5:10203"]
    assert spec(args) == {"coordinator": ["10.128.1.5:10203"], "worker": ["10.2.3.4:8470"]}
    assert master(args) == "grpc://10.2.3.4:8470"
    f.stop()


@test
def tpu_p6_unknown_node_is_404():
    f = tpu_fake([tf_node()])
    fails(tpu(f, "nonexistent-tpu") + ["--retries", "0"], 4, ["nonexistent-tpu", "404"])
    f.stop()


@test
def tpu_p8_p9_p15_four_endpoints():
    f = tpu_fake([tf_node(FOUR, api="v2")])
    want = {"worker": [ip + ":8470" for ip in FOUR]}
    assert spec(tpu(f, project=None, zone=None)) == want  # project and zone from metadata
    assert spec(tpu(f)) == want
    assert master(tpu(f)) == "grpc://10.2.3.4:8470"
    assert master(tpu(f) + ["--task-type", "worker", "--task-id", "3"]) == "grpc://10.2.3.7:8470"
    log = f.stop()
    check_contract(log)
    assert {r["path"] for r in tpu_calls(log)} == {"/v2/" + N_TPU}


@test
def tpu_p12_c12_grpc_name_makes_no_request():
    f = tpu_fake([tf_node()])
    args = tpu(f, "grpc://10.1.2.3:8470", project=None, zone=None, token=False)
    assert master(args) == "grpc://10.1.2.3:8470"
    assert spec(args) == {"worker": ["10.1.2.3:8470"]}
    assert f.stop() == []


@test
def tpu_format_master_resolves_once():
    f = tpu_fake([tf_node(FOUR, api="v2")])
    assert master(tpu(f)) == "grpc://10.2.3.4:8470"
    calls = tpu_calls(f.stop())
    assert len(calls) == 1, "%d node GETs" % len(calls)


@test
def tpu_p13_p14_kube_endpoints_env():
    f = tpu_fake([tf_node()])
    args = tpu(f, None, project=None, zone=None, token=False)
    one = {"KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS": "grpc://10.120.27.5:8470"}
    assert master(args, one) == "grpc://10.120.27.5:8470"
    assert spec(args, one) == {"worker": ["10.120.27.5:8470"]}
    ips = ["10.120.27.%d" % i for i in (5, 6, 7, 8)]
    four = {"KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS": ",".join("grpc://%s:8470" % ip for ip in ips),
            "TPU_NAME": "test-tpu-1"}  # the endpoints win over TPU_NAME
    assert master(args, four) == "grpc://10.120.27.5:8470"
    assert spec(args, four) == {"worker": [ip + ":8470" for ip in ips]}
    assert f.stop() == []


@test
def tpu_p21_local_without_a_tpu_vm_is_empty():
    f = tpu_fake([tf_node()])
    args = tpu(f, "local", project=None, zone=None, token=False)
    assert spec(args) == {}
    assert master(args) == ""
    assert tpu_calls(f.stop()) == []


@test
def tpu_c2_to_c6_grpc_endpoint_lists():
    f = tpu_fake([tf_node()])
    for name, want in (("grpc://1.2.3.4:1234", ["1.2.3.4:1234"]),
                       ("grpc://1.2.3.4:2000", ["1.2.3.4:2000"]),
                       ("grpc://1.2.3.4:2000,grpc://5.6.7.8:1234", ["1.2.3.4:2000", "5.6.7.8:1234"]),
                       ("grpc://1.2.3.4:2000,grpc://5.6.7.8", ["1.2.3.4:2000", "5.6.7.8:8470"]),
                       # TF's parser cases without the scheme (TF would send these to the API)
                       ("1.2.3.4:1234", ["1.2.3.4:1234"]),
                       ("1.2.3.4:2000,5.6.7.8:1234", ["1.2.3.4:2000", "5.6.7.8:1234"]),
                       ("1.2.3.4:2000,grpc://5.6.7.8", ["1.2.3.4:2000", "5.6.7.8:8470"])):
        assert spec(tpu(f, name, project=None, zone=None, token=False)) == {"worker": want}, name
    assert f.stop() == []


@test
def tpu_c9_node_without_state_is_not_ready():
    node = tf_node()
    del node["state"]
    f = tpu_fake([node])
    fails(tpu(f), 5, ["test-tpu-1"])
    f.stop()


@test
def tpu_c10_name_from_tpu_name_env_project_zone_from_metadata():
    node = mg.make_tpu_node("tpu_name", zone=TPU_ZONE, ips=["10.1.2.3"])
    f = tpu_fake([node])
    args = ["tpu", "--tpu-url", f.url]
    env = {"TPU_NAME": "tpu_name", "GCE_METADATA_HOST": f.host}
    assert spec(args, env) == {"worker": ["10.1.2.3:8470"]}
    log = f.stop()
    check_contract(log)
    assert [r["path"] for r in tpu_calls(log)] == [
        "/v2/projects/test-project/locations/us-central1-c/nodes/tpu_name"]
    paths = [r["path"] for r in metadata_calls(log)]
    assert {"/computeMetadata/v1/project/project-id", "/computeMetadata/v1/instance/zone",
            TOKEN_PATH} <= set(paths) and paths.count(TOKEN_PATH) == 1, paths


@test
def tpu_c11_name_from_flag():
    node = mg.make_tpu_node("tpu_name", zone=TPU_ZONE, ips=["10.1.2.3"])
    f = tpu_fake([node])
    assert spec(tpu(f, "tpu_name", project=None, zone=None, token=False)) == {
        "worker": ["10.1.2.3:8470"]}
    log = f.stop()
    check_contract(log)
    assert [r["path"] for r in tpu_calls(log)] == [
        "/v2/projects/test-project/locations/us-central1-c/nodes/tpu_name"]


@test
def tpu_c13_project_and_zone_given_no_metadata():
    node = mg.make_tpu_node("tpu_name", project="project", zone="zone", ips=["10.1.2.3"])
    f = tpu_fake([node])
    assert spec(tpu(f, "tpu_name", project="project", zone="zone")) == {"worker": ["10.1.2.3:8470"]}
    log = f.stop()
    assert metadata_calls(log) == [] and [r["path"] for r in log] == [
        "/v2/projects/project/locations/zone/nodes/tpu_name"]
    check_contract(log)


@test
def tpu_ready_healthy_and_health_absent():
    f = tpu_fake([tf_node(FOUR, api="v2"),
                  mg.make_tpu_node("nohealth", zone=TPU_ZONE, ips=["10.9.0.2"], health=None)])
    assert spec(tpu(f)) == {"worker": [ip + ":8470" for ip in FOUR]}
    assert spec(tpu(f, "nohealth")) == {"worker": ["10.9.0.2:8470"]}
    check_contract(f.stop())


@test
def tpu_preempted_and_terminated_will_not_recover():
    for state in ("PREEMPTED", "TERMINATED"):
        f = tpu_fake([tf_node(api="v2", state=state)])
        fails(tpu(f), 5, [state, "not recover"])
        f.stop()


@test
def tpu_unhealthy_unless_allowed():
    f = tpu_fake([tf_node(api="v2", health="UNHEALTHY_MAINTENANCE")])
    fails(tpu(f), 5, ["UNHEALTHY_MAINTENANCE"])
    assert spec(tpu(f) + ["--allow-unhealthy"]) == {"worker": ["10.1.2.3:8470"]}
    f.stop()


@test
def tpu_v1_and_v2_paths():
    f = tpu_fake([tf_node(FOUR, api="v1")])
    want = {"worker": [ip + ":8470" for ip in FOUR]}
    assert spec(tpu(f) + ["--api-version", "v1"]) == want
    assert spec(tpu(f) + ["--api-version", "v2"]) == want
    assert spec(tpu(f)) == want
    log = f.stop()
    assert [r["path"] for r in tpu_calls(log)] == ["/v1/" + N_TPU, "/v2/" + N_TPU, "/v2/" + N_TPU]
    check_contract(log)


@test
def tpu_config_env():
    node = mg.make_tpu_node("cfg-tpu", project="cfg-project", zone="europe-west4-a",
                            ips=["10.164.0.9"])
    f = tpu_fake([node])
    env = {"TPU_CONFIG": json.dumps({"tpu_node_name": "cfg-tpu", "project": "cfg-project",
                                     "zone": "europe-west4-a"})}
    assert spec(tpu(f, None, project=None, zone=None), env) == {"worker": ["10.164.0.9:8470"]}
    log = f.stop()
    assert [r["path"] for r in log] == ["/v2/projects/cfg-project/locations/europe-west4-a/nodes/cfg-tpu"]


@test
def tpu_local_vm_from_env():
    f = tpu_fake([tf_node()])
    hosts = ["t1v-n-7f3c2a1b-w-%d" % i for i in range(4)]
    env = {"TPU_WORKER_HOSTNAMES": ",".join(hosts), "TPU_WORKER_ID": "2"}
    args = tpu(f, "local", project=None, zone=None, token=False)
    doc = tfconfig(args, env)
    assert doc["cluster"] == {"worker": [h + ":8470" for h in hosts]}, doc
    assert doc["task"] == {"type": "worker", "index": 2}, doc
    assert master(args, env) == "grpc://t1v-n-7f3c2a1b-w-2:8470"
    assert master(args + ["--rpc-layer", "grpc+verbs"], env) == "grpc+verbs://t1v-n-7f3c2a1b-w-2:8470"
    assert json.loads(ok(args + ["--format", "launch"], env)) == {
        "world_size": 4, "rank": 2, "local_rank": 0, "local_world_size": 1, "node_rank": 2,
        "num_nodes": 4, "master_addr": hosts[0], "master_port": 8482}  # JAX's coordinator port
    # GKE multislice: this slice is slice 1 of 3, so worker 2 is rank 1 x 4 + 2 = 6 of 12, and
    # the spec formats have no answer (shape: GKE's TPU multislice docs, JAX cloud_tpu_cluster.py)
    ms = dict(env, MEGASCALE_NUM_SLICES="3", MEGASCALE_SLICE_ID="1",
              MEGASCALE_COORDINATOR_ADDRESS="js-slice-0-0.js")
    assert json.loads(ok(args + ["--format", "launch"], ms)) == {
        "world_size": 12, "rank": 6, "local_rank": 0, "local_world_size": 1, "node_rank": 6,
        "num_nodes": 12, "master_addr": "js-slice-0-0.js", "master_port": 8482}
    assert ok(args + ["--format", "jax"], ms) == (
        "export JAX_COORDINATOR_ADDRESS=js-slice-0-0.js:8482\nexport JAX_NUM_PROCESSES=12\n"
        "export JAX_PROCESS_ID=6\n")
    fails(args + ["--format", "tfconfig"], 3, ["MEGASCALE_NUM_SLICES", "needs every address"], ms)
    assert tpu_calls(f.stop()) == []


@test
def tpu_local_vm_from_metadata_attributes():
    ips = ["10.130.0.2", "10.130.0.3", "10.130.0.4", "10.130.0.5"]
    for value in (",".join(ips),
                  ",".join("t1v-n-7f3c2a1b-w-%d:%s:%s" % (i, "5a9c%04d" % i, ip)
                           for i, ip in enumerate(ips))):
        meta = dict(TPU_META, **{"instance/attributes/worker-network-endpoints": value,
                                 "instance/attributes/agent-worker-number": "3",
                                 "instance/attributes/accelerator-type": "v4-32"})
        f = tpu_fake([tf_node()], meta=meta)
        args = tpu(f, "local", project=None, zone=None, token=False)
        doc = tfconfig(args)
        assert doc["cluster"] == {"worker": [ip + ":8470" for ip in ips]}, (value, doc)
        assert doc["task"] == {"type": "worker", "index": 3}, doc
        assert master(args) == "grpc://10.130.0.5:8470"
        log = f.stop()
        assert tpu_calls(log) == [] and metadata_calls(log), log
        check_contract(log)


@test
def tpu_ipv6_endpoints_are_bracketed():
    f = tpu_fake([mg.make_tpu_node("v6", zone=TPU_ZONE, ips=["fd20:a4f:1::2", "fd20:a4f:1::3"])])
    args = tpu(f, "grpc://[fd00::2]:8470,grpc://[fd00::3]", project=None, zone=None, token=False)
    assert spec(args) == {"worker": ["[fd00::2]:8470", "[fd00::3]:8470"]}
    assert master(args) == "grpc://[fd00::2]:8470"
    assert spec(tpu(f, "v6")) == {"worker": ["[fd20:a4f:1::2]:8470", "[fd20:a4f:1::3]:8470"]}
    f.stop()


@test
def tpu_master_honours_rpc_layer():
    f = tpu_fake([tf_node(FOUR, api="v2")])
    assert master(tpu(f, "grpc://10.1.2.3:8470", project=None, zone=None, token=False) +
                  ["--rpc-layer", "test"]) == "test://10.1.2.3:8470"
    assert master(tpu(f) + ["--rpc-layer", "test"]) == "test://10.2.3.4:8470"
    f.stop()


@test
def tpu_64_endpoints_in_api_order_with_their_ports():
    ips = ["10.130.%d.%d" % (i % 3, 200 - i) for i in range(64)]
    ports = [8470] * 64
    ports[5], ports[6] = 8471, None  # a port of its own; no port: 8470
    f = tpu_fake([mg.make_tpu_node("pod", zone=TPU_ZONE, ips=ips, ports=ports)])
    want = ["%s:%d" % (ip, 8470 if p is None else p) for ip, p in zip(ips, ports)]
    assert spec(tpu(f, "pod")) == {"worker": want}
    f.stop()


@test
def tpu_auth_errors():
    f = tpu_fake([tf_node()])
    bad = harness.write(TMP, "bad-tpu-token", "ya29.wrong")
    fails(tpu(f, token=False) + ["--token-file", bad, "--retries", "0"], 4, ["401"],
          secret="ya29.wrong")
    f.stop()
    g = Fake(TMP, "--tpu-nodes", mg.tpu_nodes_doc([tf_node()]), "--forbid-token", TOKEN)
    fails(tpu(g) + ["--retries", "0"], 4, ["403", "tpu.nodes.get"])
    g.stop()


@test
def tpu_off_google_cloud_fails_fast():
    dead = "127.0.0.1:%d" % free_port()
    args = ["tpu", "--tpu", "test-tpu-1", "--tpu-url", "http://" + dead]
    for extra, env in ((["--metadata-url", "http://" + dead], None),
                       ([], {"GCE_METADATA_HOST": dead})):
        _, took = fails(args + extra, 3, ["not on Google Cloud"], env)
        assert took < 5, took


if __name__ == "__main__":
    if not os.access(CLI, os.X_OK):
        sys.exit("test_gcp_integration: %s is missing (make %s)" % (CLI, CLI))
    sys.exit(harness.run_tests(TESTS, TMP, ARGS))

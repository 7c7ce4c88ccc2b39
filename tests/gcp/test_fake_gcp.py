#!/usr/bin/env python3
"""Proves tests/gcp/fake_gcp.py answers like the Google endpoints it stands in for (metadata
server, Compute Engine instance groups and instances, Cloud TPU nodes: paths, paging, filters,
partial responses, Google's error bodies, auth; the OAuth 2.0 token endpoint's refresh-token
and JWT-bearer grants and IAM Credentials' generateAccessToken) and that tests/gcp/make_gcp.py
is deterministic and realistic. Talks to the fake with http.client (JWTs signed with the
openssl command and keys made at run time), and with python3-google-auth 1.5.1 (Debian's
/usr/bin/python3), a real client of the token endpoint; no cluster-resolve involved.

usage: python3 tests/gcp/test_fake_gcp.py [NAME_SUBSTRING...]
"""
import base64
import http.client
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from urllib.parse import quote, urlencode

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import harness  # noqa: E402
from harness import TOKEN, Fake  # noqa: E402
import make_gcp as mg  # noqa: E402
import fake_gcp  # noqa: E402

TMP = tempfile.mkdtemp(prefix="fake-gcp-test.")
P, Z = "test-project", "us-east1-d"
AUTH = {"Authorization": "Bearer " + TOKEN}
FLAVOR = {"Metadata-Flavor": "Google"}
RUNNING_FILTER = 'status = "RUNNING"'
PARTIAL = "items(name,networkInterfaces(networkIP)),nextPageToken"


def request(fake, method, path, headers=None, body=None):
    """-> (status, headers dict (lower-case names), body bytes)."""
    conn = http.client.HTTPConnection("127.0.0.1", fake.port, timeout=10)
    try:
        data = json.dumps(body).encode() if isinstance(body, (dict, list)) else body
        hdrs = dict(headers or {})
        if data is not None:
            hdrs.setdefault("Content-Type", "application/json")
        conn.request(method, path, body=data, headers=hdrs)
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        conn.close()


def call(fake, method, path, want=200, headers=None, body=None):
    status, hdrs, data = request(fake, method, path, dict(AUTH, **(headers or {})), body)
    assert status == want, "%s %s: %d, want %d: %s" % (method, path, status, want, data[:300])
    return json.loads(data) if "json" in hdrs.get("content-type", "") else data.decode()


def group_doc(count=7, names="w", zone=Z, statuses=None, extra=0, region=None):
    insts = mg.make_instances(count, "workers", zone=None if region else zone, region=region,
                              names=names, statuses=statuses)
    others = mg.make_instances(extra, "other", zone=zone, start=500) if extra else []
    group = mg.make_group("workers", insts, zone=None if region else zone, region=region,
                          named_ports=[("grpc", 8470)])
    return mg.compute_doc([group], insts + others), insts, others


def list_path(group="workers", query=None, where="zones/" + Z):
    q = {"maxResults": "500"}
    q.update(query or {})
    return "/compute/v1/projects/%s/%s/instanceGroups/%s/listInstances?%s" % (
        P, where, group, urlencode(q, quote_via=quote))


def zone_path(query=None, zone=Z):
    return "/compute/v1/projects/%s/zones/%s/instances?%s" % (P, zone,
                                                              urlencode(query or {},
                                                                        quote_via=quote))


def google_error(body, code, status=None, message=None):
    err = body["error"]
    assert err["code"] == code, body
    if status:
        assert err["status"] == status, body
    if message:
        assert message in err["message"], (message, body)
    return err


TESTS = []


def test(fn):
    TESTS.append((fn.__name__, fn))
    return fn


# ---- metadata server ----

META = {"project/project-id": P, "project/numeric-project-id": "123456789012",
        "instance/zone": "projects/123456789012/zones/" + Z, "instance/name": "w-3",
        "instance/service-accounts/default/token": {"access_token": TOKEN, "expires_in": 3599,
                                                    "token_type": "Bearer"},
        "instance/attributes/agent-worker-number": "1",
        "instance/attributes/worker-network-endpoints": "10.130.0.2,10.130.0.3"}


@test
def metadata_values_flavor_and_404():
    f = Fake(TMP, "--metadata", META, "--bearer", TOKEN)
    status, hdrs, body = request(f, "GET", "/computeMetadata/v1/project/project-id", FLAVOR)
    assert (status, body) == (200, P.encode()), (status, body)  # no newline, no token needed
    assert hdrs["metadata-flavor"] == "Google" and hdrs["content-type"] == "application/text"
    status, hdrs, body = request(f, "GET", "/computeMetadata/v1/instance/service-accounts/"
                                 "default/token", FLAVOR)
    assert status == 200 and json.loads(body)["access_token"] == TOKEN
    assert hdrs["content-type"] == "application/json"
    assert request(f, "GET", "/computeMetadata/v1/project/project-id")[0] == 400
    assert request(f, "GET", "/computeMetadata/v1/project/project-id",
                   {"Metadata-Flavor": "google"})[0] == 400
    assert request(f, "GET", "/computeMetadata/v1/project/project-id",
                   dict(FLAVOR, **{"X-Forwarded-For": "1.2.3.4"}))[0] == 403
    status, hdrs, body = request(f, "GET", "/computeMetadata/v1/instance/attributes/nope", FLAVOR)
    assert status == 404 and b"Error 404" in body and hdrs["metadata-flavor"] == "Google"
    status, hdrs, _ = request(f, "GET", "/computeMetadata/v1/instance/attributes", FLAVOR)
    assert status == 301 and hdrs["location"] == "/computeMetadata/v1/instance/attributes/"
    status, _, body = request(f, "GET", "/computeMetadata/v1/instance/attributes/", FLAVOR)
    assert body == b"agent-worker-number\nworker-network-endpoints\n", body
    status, _, body = request(f, "GET", "/computeMetadata/v1/instance/?recursive=true", FLAVOR)
    tree = json.loads(body)
    assert tree["attributes"]["agent-worker-number"] == "1" and tree["name"] == "w-3", tree
    status, _, body = request(f, "GET", "/computeMetadata/v1/instance/name?alt=json", FLAVOR)
    assert json.loads(body) == "w-3"
    status, _, body = request(f, "GET", "/computeMetadata/v1/", FLAVOR)
    assert body == b"instance/\nproject/\n", body
    log = f.stop()
    assert all(r["path"].startswith("/computeMetadata/") for r in log) and len(log) == 11


# ---- Compute Engine ----

@test
def compute_list_instances_pages_and_state():
    doc, insts, _ = group_doc(7, statuses={"w-4": "TERMINATED", "w-6": "STAGING"})
    f = Fake(TMP, "--compute", doc, "--bearer", TOKEN, "--page-cap", "2")
    seen, token, pages = [], None, 0
    while True:
        q = {"pageToken": token} if token else {}
        page = call(f, "POST", list_path(query=q), body={"instanceState": "RUNNING"})
        pages += 1
        assert page["kind"] == "compute#instanceGroupsListInstances", page
        assert page["selfLink"].startswith("https://www.googleapis.com/compute/v1/projects/")
        for item in page["items"]:
            assert item["status"] == "RUNNING" and item["namedPorts"] == [
                {"name": "grpc", "port": 8470}], item
            assert item["instance"].startswith("https://www.googleapis.com/compute/v1/projects/"
                                               "test-project/zones/us-east1-d/instances/")
            seen.append(item["instance"].rsplit("/", 1)[1])
        token = page.get("nextPageToken")
        if not token:
            break
        assert set("+/=") & set(token) or pages > 1, token  # a token that needs encoding
    assert pages == 3 and seen == sorted(["w-1", "w-2", "w-3", "w-5", "w-7"]), (pages, seen)
    everyone = call(f, "POST", list_path(query={"maxResults": "10"}), body={})
    assert len(everyone["items"]) == 2  # --page-cap wins over maxResults
    all_states = call(f, "POST", list_path(query={"maxResults": "0"}), body={"instanceState": "ALL"})
    assert [i["status"] for i in all_states["items"]] == ["RUNNING", "RUNNING"]
    f.stop()


@test
def compute_page_token_checks_and_errors():
    doc, _, _ = group_doc(3)
    f = Fake(TMP, "--compute", doc, "--bearer", TOKEN, "--page-cap", "1")
    page = call(f, "POST", list_path(), body={"instanceState": "RUNNING"})
    token = page["nextPageToken"]
    raw = "/compute/v1/projects/%s/zones/%s/instanceGroups/workers/listInstances?pageToken=%s" % (
        P, Z, token)  # not encoded: "+" reads as a space
    if "+" in token:
        err = call(f, "POST", raw, 400, body={"instanceState": "RUNNING"})
        google_error(err, 400, "INVALID_ARGUMENT", "Invalid value for field 'pageToken'")
    other = call(f, "GET", zone_path({"pageToken": token}), 400)   # another list's token
    google_error(other, 400, message="Invalid page token")
    changed = call(f, "POST", list_path(query={"pageToken": token}), 400, body={})  # ALL != RUNNING
    google_error(changed, 400)
    google_error(call(f, "POST", list_path(query={"maxResults": "501"}), 400, body={}), 400,
                 message="Must be less than or equal to 500")
    google_error(call(f, "POST", list_path(), 400, body={"instanceState": "FOO"}), 400,
                 message="instanceState")
    google_error(call(f, "POST", list_path(), 400, body=b"{nope"), 400,
                 message="Invalid JSON payload")
    google_error(call(f, "POST", list_path("nope"), 404, body={}), 404, "NOT_FOUND",
                 "The resource 'projects/test-project/zones/us-east1-d/instanceGroups/nope' "
                 "was not found")
    google_error(call(f, "POST", list_path().replace(P, "other-project"), 404, body={}), 404,
                 message="The resource 'projects/other-project' was not found")
    google_error(call(f, "GET", list_path(), 405), 405)
    group = call(f, "GET", "/compute/v1/projects/%s/zones/%s/instanceGroups/workers" % (P, Z))
    assert group["kind"] == "compute#instanceGroup" and "instances" not in group, group
    google_error(call(f, "GET", zone_path(zone="nowhere"), 400), 400, message="Unknown zone")
    status, hdrs, body = request(f, "GET", "/compute/v1/projects/%s/global/nothing" % P, AUTH)
    assert status == 404 and hdrs["content-type"].startswith("text/html"), (status, body)
    f.stop()


@test
def compute_empty_group_and_regional():
    empty = mg.compute_doc([mg.make_group("empty", [], zone=Z)], [])
    doc, insts, _ = group_doc(6, region="us-east1")
    doc["instanceGroups"] += empty["instanceGroups"]
    f = Fake(TMP, "--compute", doc, "--bearer", TOKEN)
    page = call(f, "POST", list_path("empty"), body={"instanceState": "RUNNING"})
    assert "items" not in page and "nextPageToken" not in page, page
    page = call(f, "POST", list_path(where="regions/us-east1"), body={"instanceState": "RUNNING"})
    zones = sorted({i["instance"].split("/zones/")[1].split("/")[0] for i in page["items"]})
    assert zones == ["us-east1-b", "us-east1-c", "us-east1-d"] and len(page["items"]) == 6
    google_error(call(f, "POST", list_path(where="regions/us-west1"), 404, body={}), 404)
    f.stop()


@test
def compute_zone_list_filter_fields_and_get():
    doc, insts, others = group_doc(5, statuses={"w-2": "STOPPING"}, extra=3)
    f = Fake(TMP, "--compute", doc, "--bearer", TOKEN, "--page-cap", "3")
    names, token, pages = [], None, 0
    while True:
        q = {"filter": RUNNING_FILTER, "fields": PARTIAL, "maxResults": "500"}
        if token:
            q["pageToken"] = token
        page = call(f, "GET", zone_path(q))
        pages += 1
        assert set(page) <= {"items", "nextPageToken"}, page
        for item in page["items"]:
            assert item == {"name": item["name"], "networkInterfaces": [
                {"networkIP": item["networkInterfaces"][0]["networkIP"]}]}, item
            names.append(item["name"])
        token = page.get("nextPageToken")
        if not token:
            break
    want = sorted(i["name"] for i in insts + others if i["status"] == "RUNNING")
    assert names == want and pages == 3, (names, want, pages)
    full = call(f, "GET", zone_path({"maxResults": "2"}))
    assert full["kind"] == "compute#instanceList" and full["items"][0]["kind"] == "compute#instance"
    assert full["id"] == "projects/test-project/zones/us-east1-d/instances" and "nextPageToken" in full
    one = call(f, "GET", zone_path({"filter": 'name = "w-3"'}))
    assert [i["name"] for i in one["items"]] == ["w-3"]
    two = call(f, "GET", zone_path({"filter": '(status = "RUNNING") (name eq "w-[13]")'}))
    assert [i["name"] for i in two["items"]] == ["w-1", "w-3"], two
    three = call(f, "GET", zone_path({"filter": '(name = "w-1") OR (name = "w-5")'}))
    assert [i["name"] for i in three["items"]] == ["w-1", "w-5"]
    assert "items" not in call(f, "GET", zone_path({"filter": "status = PROVISIONING"}))
    google_error(call(f, "GET", zone_path({"filter": "status === x"}), 400), 400,
                 message="Invalid list filter expression")
    google_error(call(f, "GET", zone_path({"fields": "items(name"}), 400), 400,
                 message="Invalid field selection")
    inst = call(f, "GET", "/compute/v1/projects/%s/zones/%s/instances/w-3" % (P, Z))
    assert inst == next(i for i in insts if i["name"] == "w-3")
    part = call(f, "GET", "/compute/v1/projects/%s/zones/%s/instances/w-3?fields=%s" % (
        P, Z, quote("networkInterfaces/networkIP,name")))
    assert set(part) == {"networkInterfaces", "name"}, part
    google_error(call(f, "GET", "/compute/v1/projects/%s/zones/%s/instances/w-99" % (P, Z), 404),
                 404, message="The resource 'projects/test-project/zones/us-east1-d/instances/"
                              "w-99' was not found")
    f.stop()
    g = Fake(TMP, "--compute", doc, "--ignore-fields")
    page = call(g, "GET", zone_path({"filter": RUNNING_FILTER, "fields": PARTIAL}))
    assert page["items"][0]["kind"] == "compute#instance" and page["kind"] == "compute#instanceList"
    g.stop()


@test
def google_auth_errors():
    doc, _, _ = group_doc(2)
    node = mg.make_tpu_node("t1", zone="us-central2-b")
    f = Fake(TMP, "--compute", doc, "--tpu-nodes", mg.tpu_nodes_doc([node]), "--metadata", META,
             "--bearer", TOKEN)
    status, hdrs, body = request(f, "POST", list_path(), None, b"{}")
    err = google_error(json.loads(body), 401, "UNAUTHENTICATED", "missing required authentication")
    assert status == 401 and err["errors"][0]["reason"] == "required"
    assert hdrs["www-authenticate"] == 'Bearer realm="https://accounts.google.com/"'
    status, hdrs, body = request(f, "POST", list_path(), {"Authorization": "Bearer wrong"}, b"{}")
    google_error(json.loads(body), 401, "UNAUTHENTICATED", "invalid authentication credentials")
    assert 'error="invalid_token"' in hdrs["www-authenticate"]
    tpu = "/v2/projects/test-project/locations/us-central2-b/nodes/t1"
    status, _, body = request(f, "GET", tpu, {"Authorization": "Bearer wrong"})
    assert status == 401 and json.loads(body)["error"]["status"] == "UNAUTHENTICATED"
    assert request(f, "GET", "/computeMetadata/v1/instance/name", FLAVOR)[0] == 200
    f.stop()
    g = Fake(TMP, "--compute", doc, "--tpu-nodes", mg.tpu_nodes_doc([node]), "--forbid-token", TOKEN)
    err = google_error(call(g, "POST", list_path(), 403, body={}), 403, "PERMISSION_DENIED")
    assert err["message"] == ("Required 'compute.instanceGroups.list' permission for "
                              "'projects/test-project/zones/us-east1-d/instanceGroups/workers'")
    assert err["errors"][0] == {"message": err["message"], "domain": "global", "reason": "forbidden"}
    err = google_error(call(g, "GET", zone_path(), 403), 403)
    assert err["message"] == "Required 'compute.instances.list' permission for 'projects/test-project'"
    err = google_error(call(g, "GET", tpu, 403), 403, "PERMISSION_DENIED")
    assert "Permission 'tpu.nodes.get' denied on resource '//tpu.googleapis.com/projects/" \
           "test-project/locations/us-central2-b/nodes/t1'" in err["message"], err
    assert err["details"][0]["metadata"]["permission"] == "tpu.nodes.get"
    g.stop()


# ---- Cloud TPU ----

@test
def tpu_nodes_v1_v2_and_404():
    v2 = mg.make_tpu_node("vm", zone="us-central2-b", endpoints=4)
    v1 = mg.make_tpu_node("node", zone="us-central1-c", api="v1")
    f = Fake(TMP, "--tpu-nodes", [v2, v1])
    for version in ("v2", "v2alpha1"):
        got = call(f, "GET", "/%s/projects/test-project/locations/us-central2-b/nodes/vm" % version)
        assert got == v2 and len(got["networkEndpoints"]) == 4
    # v1's Node: serviceAccount is the email, no accessConfig, no v2-only fields (gcloud's
    # tpu_v1_messages.py; gcloud rejects an object there)
    got = call(f, "GET", "/v1/projects/test-project/locations/us-central2-b/nodes/vm")
    assert got["serviceAccount"] == v2["serviceAccount"]["email"], got
    assert got["tensorflowVersion"] == v2["runtimeVersion"] and "runtimeVersion" not in got
    assert got["network"] == v2["networkConfig"]["network"] and "networkConfig" not in got
    assert got["networkEndpoints"] == [{"ipAddress": e["ipAddress"], "port": e["port"]}
                                       for e in v2["networkEndpoints"]]
    assert "id" not in got and "apiVersion" not in got, got  # v1's enum has no V2
    got = call(f, "GET", "/v1/projects/test-project/locations/us-central1-c/nodes/node")
    assert got["ipAddress"] == got["networkEndpoints"][0]["ipAddress"] and got["port"] == "8470"
    assert got["serviceAccount"] == v1["serviceAccount"] and got["apiVersion"] == "V1"
    got = call(f, "GET", "/v2/projects/test-project/locations/us-central1-c/nodes/node")
    assert got["serviceAccount"] == {"email": v1["serviceAccount"]}, got
    assert got["runtimeVersion"] == v1["tensorflowVersion"] and "ipAddress" not in got
    err = call(f, "GET", "/v2/projects/test-project/locations/us-central1-c/nodes/nope", 404)
    google_error(err, 404, "NOT_FOUND", "Resource 'projects/test-project/locations/us-central1-c/"
                                        "nodes/nope' was not found")
    assert err["error"]["details"][0]["resourceName"].endswith("/nodes/nope")
    listed = call(f, "GET", "/v2/projects/test-project/locations/us-central2-b/nodes")
    assert listed == {"nodes": [v2]}
    f.stop()


@test
def tpu_node_list_pages():
    nodes = [mg.make_tpu_node("n%d" % i, zone="us-central2-b") for i in range(5)]
    f = Fake(TMP, "--tpu-nodes", nodes, "--page-cap", "2")
    where = "/v2/projects/test-project/locations/us-central2-b/nodes"
    names, token, pages = [], None, 0
    while True:
        query = {"pageSize": "3"} if token is None else {"pageSize": "3", "pageToken": token}
        got = call(f, "GET", where + "?" + urlencode(query))
        names += [n["name"].rsplit("/", 1)[1] for n in got["nodes"]]
        pages += 1
        token = got.get("nextPageToken")
        if not token:
            break
    assert names == ["n%d" % i for i in range(5)] and pages == 3, (names, pages)
    google_error(call(f, "GET", where + "?pageToken=nope", 400), 400, "INVALID_ARGUMENT")
    assert call(f, "GET", where.replace("us-central2-b", "us-east1-d")) == {}
    f.stop()


@test
def compute_aggregated_instances_pages():
    """gcloud's `instances list` without --zones: aggregated/instances, one list over zones."""
    doc, insts, _ = group_doc(5, region="us-east1", statuses={"w-2": "TERMINATED"})
    f = Fake(TMP, "--compute", doc, "--bearer", TOKEN, "--page-cap", "2")
    path = "/compute/v1/projects/%s/aggregated/instances" % P
    seen, token, pages = [], None, 0
    while True:
        query = {"filter": RUNNING_FILTER, "includeAllScopes": "True"}
        if token:
            query["pageToken"] = token
        got = call(f, "GET", path + "?" + urlencode(query, quote_via=quote))
        assert got["kind"] == "compute#instanceAggregatedList", got
        for scope, found in sorted(got["items"].items()):
            assert ("instances" in found) != ("warning" in found), found
            seen += [(scope, i["name"]) for i in found.get("instances", [])]
        pages += 1
        token = got.get("nextPageToken")
        if not token:
            break
    want = sorted(("zones/" + i["zone"].rsplit("/", 1)[1], i["name"]) for i in insts
                  if i["status"] == "RUNNING")
    assert seen == want and pages == 2, (seen, pages)
    google_error(call(f, "GET", path.replace(P, "nope"), 404), 404)
    f.stop()


@test
def compute_batch_requests_and_unknown_paths():
    """gcloud lists several zones in one POST /batch/compute/v1 (multipart/mixed)."""
    doc, insts, _ = group_doc(4, region="us-east1")
    f = Fake(TMP, "--compute", doc, "--bearer", TOKEN)
    parts = []
    for n, zone in enumerate(("us-east1-b", "us-east1-c", "not_a_zone")):
        parts.append("--XyZ\r\nContent-Type: application/http\r\nContent-ID: <id+%d>\r\n\r\n"
                     "GET %s HTTP/1.1\r\naccept: application/json\r\n\r\n\r\n"
                     % (n, zone_path({"maxResults": "500"}, zone=zone)))
    body = ("".join(parts) + "--XyZ--\r\n").encode()
    status, hdrs, data = request(f, "POST", "/batch/compute/v1", dict(
        AUTH, **{"Content-Type": 'multipart/mixed; boundary="XyZ"'}), body)
    assert status == 200 and hdrs["content-type"].startswith("multipart/mixed; boundary="), hdrs
    boundary = hdrs["content-type"].split("boundary=")[1]
    answers = data.decode().split("--" + boundary)[1:-1]
    assert len(answers) == 3 and "Content-ID: <response-id+0>" in answers[0], answers
    firsts = [a.split("\r\n\r\n", 1)[1] for a in answers]
    assert firsts[0].startswith("HTTP/1.1 200 OK") and firsts[2].startswith("HTTP/1.1 400 "), \
        [a[:40] for a in firsts]
    listed = json.loads(firsts[1].split("\r\n\r\n", 1)[1])
    assert [i["name"] for i in listed["items"]] == [i["name"] for i in insts
                                                    if i["zone"].endswith("us-east1-c")]
    log = f.requests()
    assert [r.get("batch_part") for r in log] == [True, True, True, None], log
    status, _, _ = request(f, "POST", "/batch/compute/v1", {"Content-Type": 'multipart/mixed; '
                                                            'boundary="XyZ"'}, body)
    assert status == 401
    status, hdrs, body = request(f, "GET", "/no/such/api")  # Google's 404 page, not a Status
    assert status == 404 and hdrs["content-type"].startswith("text/html"), (status, body)
    f.stop()


# ---- faults and the log ----

@test
def faults_and_log_on_google_routes():
    doc, _, _ = group_doc(3)
    faults = [{"path": "/compute/", "method": "POST", "times": 1, "status": 503},
              {"path": "/compute/v1/projects/test-project/zones/us-east1-d/instances",
               "continue_forever": True},
              {"path": "/computeMetadata/", "times": 1, "delay": 0.2}]
    f = Fake(TMP, "--compute", doc, "--metadata", META, "--faults", faults, "--page-cap", "2")
    google_error(call(f, "POST", list_path(), 503, body={"instanceState": "RUNNING"}), 503,
                 "UNAVAILABLE")
    call(f, "POST", list_path(), body={"instanceState": "RUNNING"})
    first = call(f, "GET", zone_path({"maxResults": "2"}))
    second = call(f, "GET", zone_path({"maxResults": "2", "pageToken": first["nextPageToken"]}))
    assert first["items"] == second["items"] and second["nextPageToken"] == first["nextPageToken"]
    t = time.time()
    assert request(f, "GET", "/computeMetadata/v1/instance/name", FLAVOR)[0] == 200
    assert time.time() - t >= 0.19
    log = f.stop()
    assert [r["status"] for r in log] == [503, 200, 200, 200, 200], log
    assert log[0]["fault"] == "status" and log[1]["body"] == '{"instanceState": "RUNNING"}'
    assert log[1]["headers"]["authorization"] == "Bearer " + TOKEN  # --log-secrets in harness
    assert log[1]["query"] == {"maxResults": ["500"]}


# ---- OAuth 2.0 token endpoint and IAM Credentials (Application Default Credentials) ----

SA = "trainer@test-project.iam.gserviceaccount.com"
TARGET = "tpu-runner@test-project.iam.gserviceaccount.com"
CLOUD = "https://www.googleapis.com/auth/cloud-platform"
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
FORM = {"Content-Type": "application/x-www-form-urlencoded"}
KEYS = {}


def key(name):
    """A test RSA key (made once per run with openssl): (private key path, public key PEM)."""
    if name not in KEYS:
        KEYS[name] = harness.rsa_key(TMP, name)
    return KEYS[name]


def oauth_doc(**extra):
    doc = {"refresh_tokens": {"1//0refresh-a": {"client_id": "cid-a.apps.googleusercontent.com",
                                                "client_secret": "secret-a",
                                                "access_token": ["ya29.user-1", "ya29.user-2"]},
                              "1//0refresh-b": {"client_id": "cid-b", "client_secret": "secret-b",
                                                "access_token": "ya29.user-b"}},
           "service_accounts": {SA: {"public_key": key("sa")[1], "private_key_id": "kid-1",
                                     "access_token": "ya29.c.sa-token"}},
           "impersonation": {TARGET: {"sources": ["ya29.c.sa-token", "ya29.user-1"],
                                      "access_token": "ya29.c.impersonated",
                                      "delegates": ["projects/-/serviceAccounts/mid@x"]}},
           "revoked": ["ya29.user-1"]}
    doc.update(extra)
    return doc


def oauth_fake(*extra, doc=None, secrets=True):
    d, _, _ = group_doc(2)
    node = mg.make_tpu_node("t1", zone="us-central2-b")
    return Fake(TMP, "--oauth", doc or oauth_doc(), "--compute", d, "--tpu-nodes",
                mg.tpu_nodes_doc([node]), *extra, secrets=secrets, python=harness.SYSTEM_PYTHON)


def b64url(data):
    data = data if isinstance(data, bytes) else json.dumps(data).encode()
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def jwt(key_path, header=None, **claims):
    """An RS256 JWT signed with openssl (the key at key_path); claims over the defaults."""
    now = int(time.time())
    body = {"iss": SA, "scope": CLOUD, "aud": None, "iat": now, "exp": now + 3600}
    body.update(claims)
    body = {k: v for k, v in body.items() if v is not None}
    signed = b64url(header or {"alg": "RS256", "typ": "JWT", "kid": "kid-1"}) + "." + b64url(body)
    sig = subprocess.run(["openssl", "dgst", "-sha256", "-sign", key_path], input=signed.encode(),
                         capture_output=True, check=True, timeout=30).stdout
    return signed + "." + b64url(sig)


def grant(fake, form, headers=FORM, want=200):
    status, hdrs, data = request(fake, "POST", "/token", headers, urlencode(form).encode())
    body = json.loads(data)
    assert status == want, (status, body)
    if status != 200:
        assert set(body) == {"error", "error_description"}, body
    assert hdrs["content-type"].startswith("application/json"), hdrs
    return body


def refused(fake, form, status, error, description, headers=FORM):
    body = grant(fake, form, headers, status)
    assert body == {"error": error, "error_description": description}, body


def bearer(token):
    return {"Authorization": "Bearer " + token}


def refresh_form(rt="1//0refresh-a", cid="cid-a.apps.googleusercontent.com", secret="secret-a"):
    return {"grant_type": "refresh_token", "client_id": cid, "client_secret": secret,
            "refresh_token": rt}


@test
def oauth_refresh_token_grant():
    f = oauth_fake()
    first = grant(f, refresh_form())
    assert first["access_token"] == "ya29.user-1" and first["expires_in"] == 3599 and \
        first["token_type"] == "Bearer" and CLOUD in first["scope"].split(), first
    assert grant(f, refresh_form())["access_token"] == "ya29.user-2"   # the next of the list
    assert grant(f, refresh_form())["access_token"] == "ya29.user-2"   # the last one again
    assert grant(f, refresh_form("1//0refresh-b", "cid-b", "secret-b"))["access_token"] == \
        "ya29.user-b"
    refused(f, refresh_form(secret="wrong"), 401, "invalid_client", "Unauthorized")
    refused(f, refresh_form(cid="nobody"), 401, "invalid_client",
            "The OAuth client was not found.")
    refused(f, refresh_form(rt="1//0revoked"), 400, "invalid_grant",
            "Token has been expired or revoked.")
    refused(f, refresh_form(rt="1//0refresh-b"), 400, "invalid_grant",  # another client's
            "Token has been expired or revoked.")
    form = refresh_form()
    del form["client_secret"]
    refused(f, form, 400, "invalid_request", "Missing required parameter: client_secret")
    refused(f, dict(refresh_form(), grant_type="password"), 400, "unsupported_grant_type",
            "Invalid grant_type: password")
    body = grant(f, refresh_form(), {"Content-Type": "application/json"}, 400)
    assert body["error"] == "invalid_request" and "x-www-form-urlencoded" in \
        body["error_description"], body
    status, _, data = request(f, "POST", "/token", FORM,
                              (urlencode(refresh_form()) + "&client_id=x").encode())
    assert status == 400 and "client_id" in json.loads(data)["error_description"]
    assert request(f, "GET", "/token")[0] == 405
    log = f.stop()
    notes = [r["oauth"] for r in log if r["path"] == "/token" and "oauth" in r]
    assert notes[0] == {"grant_type": "refresh_token", "issued": "ya29.user-1",
                        "client_id": "cid-a.apps.googleusercontent.com"}, notes[0]
    assert [n.get("error") for n in notes[4:8]] == ["invalid_client", "invalid_client",
                                                    "invalid_grant", "invalid_grant"], notes
    assert "refresh_token=1%2F%2F0refresh-a" in log[0]["body"]   # --log-secrets (harness)
    g = oauth_fake(secrets=False)
    grant(g, refresh_form())
    rec = g.stop()[0]
    assert "secret-a" not in json.dumps(rec) and "refresh-a" not in json.dumps(rec) and \
        "ya29.user-1" not in json.dumps(rec), rec
    assert "client_id=cid-a" in rec["body"] and rec["oauth"]["issued"] == "<redacted>", rec


@test
def oauth_jwt_bearer_grant_verifies_signature_and_claims():
    f = oauth_fake()
    url = f.url + "/token"
    sa_key, other_key = key("sa")[0], key("other")[0]
    ok_jwt = jwt(sa_key, aud=url)
    body = grant(f, {"grant_type": JWT_BEARER, "assertion": ok_jwt})
    assert body["access_token"] == "ya29.c.sa-token" and body["token_type"] == "Bearer", body
    # the audience Google always takes (today's google-auth and gcloud send it)
    assert grant(f, {"grant_type": JWT_BEARER, "assertion": jwt(
        sa_key, aud="https://oauth2.googleapis.com/token")})["access_token"] == "ya29.c.sa-token"
    bad_sig = "Invalid JWT Signature."
    now = int(time.time())
    cases = [
        (jwt(other_key, aud=url), 400, "invalid_grant", bad_sig),                 # another key
        (jwt(sa_key, {"alg": "RS256", "typ": "JWT", "kid": "kid-2"}, aud=url), 400,
         "invalid_grant", bad_sig),
        (ok_jwt[:-4] + ("AAAA" if not ok_jwt.endswith("AAAA") else "BBBB"), 400,
         "invalid_grant", bad_sig),
        (jwt(sa_key, iss="nobody@x.iam.gserviceaccount.com", aud=url), 400, "invalid_grant",
         "Invalid grant: account not found"),
        (jwt(sa_key, {"alg": "HS256", "typ": "JWT", "kid": "kid-1"}, aud=url), 400,
         "invalid_grant", "Invalid JWT header: want alg RS256 and typ JWT"),
        (jwt(sa_key, aud="http://127.0.0.1:1/token"), 400, "invalid_grant",
         "Invalid JWT: Failed audience check. The expected value was %s but the actual value "
         "was http://127.0.0.1:1/token" % url),
        (jwt(sa_key, aud=url, exp=now + 3599), 400, "invalid_grant", fake_gcp.JWT_TIMEFRAME),
        (jwt(sa_key, aud=url, iat=now - 400, exp=now + 3200), 400, "invalid_grant",
         fake_gcp.JWT_TIMEFRAME),
        (jwt(sa_key, aud=url, scope="https://www.googleapis.com/auth/compute.readonly"), 400,
         "invalid_scope", "Invalid OAuth scope or ID token audience provided."),
        (jwt(sa_key, aud=url, scope=None, target_audience="https://x"), 400,
         "invalid_request", "The fake issues no ID tokens (a JWT with target_audience)"),
        ("not.a.jwt!", 400, "invalid_grant",
         "Invalid JWT: not a signed JWT (header.claims.signature, base64url)"),
    ]
    for assertion, status, error, description in cases:
        refused(f, {"grant_type": JWT_BEARER, "assertion": assertion}, status, error, description)
    log = f.stop()
    notes = [r["oauth"] for r in log if "oauth" in r]
    assert notes[0]["verified"] is True and notes[0]["issued"] == "ya29.c.sa-token"
    assert notes[0]["jwt_header"] == {"alg": "RS256", "typ": "JWT", "kid": "kid-1"}
    assert set(notes[0]["jwt_claims"]) == {"iss", "scope", "aud", "iat", "exp"}
    assert notes[0]["jwt_claims"]["aud"] == url and "signature" not in json.dumps(notes[0])
    assert [n["verified"] for n in notes[2:]] == [False, False, False, False, False, True, True,
                                                  True, True, True, False], notes


@test
def oauth_issued_tokens_authenticate_compute_and_tpu():
    f = oauth_fake("--bearer", TOKEN)
    tpu = "/v2/projects/test-project/locations/us-central2-b/nodes/t1"
    body = {"instanceState": "RUNNING"}
    # a token on the list but not issued yet does not authenticate
    assert request(f, "GET", tpu, bearer("ya29.c.sa-token"))[0] == 401
    grant(f, {"grant_type": JWT_BEARER, "assertion": jwt(key("sa")[0], aud=f.url + "/token")})
    call(f, "POST", list_path(), headers=bearer("ya29.c.sa-token"), body=body)
    call(f, "GET", tpu, headers=bearer("ya29.c.sa-token"))
    call(f, "GET", tpu)  # --bearer still does
    assert grant(f, refresh_form())["access_token"] == "ya29.user-1"  # issued, but revoked
    status, hdrs, data = request(f, "POST", list_path(), bearer("ya29.user-1"), body)
    google_error(json.loads(data), 401, "UNAUTHENTICATED", "invalid authentication credentials")
    assert 'error="invalid_token"' in hdrs["www-authenticate"]
    status, _, data = request(f, "GET", tpu, bearer("ya29.user-1"))
    assert status == 401 and json.loads(data)["error"]["details"][0]["reason"] == \
        "ACCESS_TOKEN_EXPIRED"
    assert grant(f, refresh_form())["access_token"] == "ya29.user-2"
    call(f, "GET", tpu, headers=bearer("ya29.user-2"))
    call(f, "POST", list_path(), headers=dict(bearer("ya29.user-2"),
                                             **{"x-goog-user-project": "billing-p"}), body=body)
    log = f.stop()
    assert log[-1]["headers"]["x-goog-user-project"] == "billing-p", log[-1]
    g = oauth_fake()  # --oauth alone: authentication required, no token is a 401
    assert request(g, "GET", tpu)[0] == 401
    g.stop()


def generate(fake, token, body, target=TARGET, want=200):
    path = "/v1/projects/-/serviceAccounts/%s:generateAccessToken" % target
    status, _, data = request(fake, "POST", path, bearer(token) if token else {}, body)
    answer = json.loads(data)
    assert status == want, (status, answer)
    return answer


@test
def iam_generate_access_token():
    f = oauth_fake()
    grant(f, {"grant_type": JWT_BEARER, "assertion": jwt(key("sa")[0], aud=f.url + "/token")})
    grant(f, refresh_form("1//0refresh-b", "cid-b", "secret-b"))
    want = {"delegates": ["projects/-/serviceAccounts/mid@x"], "scope": [CLOUD],
            "lifetime": "3600s"}
    t = time.time()
    answer = generate(f, "ya29.c.sa-token", want)
    assert answer["accessToken"] == "ya29.c.impersonated", answer
    expire = answer["expireTime"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", expire), expire
    import calendar
    seconds = calendar.timegm(time.strptime(expire, "%Y-%m-%dT%H:%M:%SZ"))
    assert abs(seconds - (t + 3600)) < 5, (expire, t)
    call(f, "GET", "/v2/projects/test-project/locations/us-central2-b/nodes/t1",
         headers=bearer("ya29.c.impersonated"))
    denied = ("Permission 'iam.serviceAccounts.getAccessToken' denied on resource (or it may "
              "not exist).")
    google_error(generate(f, None, want, want=401), 401, "UNAUTHENTICATED")
    google_error(generate(f, "ya29.never-issued", want, want=401), 401, "UNAUTHENTICATED")
    google_error(generate(f, "ya29.user-b", want, want=403), 403, "PERMISSION_DENIED", denied)
    google_error(generate(f, "ya29.c.sa-token", want, "nobody@x", 403), 403, "PERMISSION_DENIED",
                 denied)
    google_error(generate(f, "ya29.c.sa-token", dict(want, delegates=[]), want=403), 403,
                 "PERMISSION_DENIED", denied)
    google_error(generate(f, "ya29.c.sa-token", dict(want, lifetime="7200s"), want=400), 400,
                 "INVALID_ARGUMENT")
    google_error(generate(f, "ya29.c.sa-token", dict(want, scope=[]), want=400), 400,
                 "INVALID_ARGUMENT", "Scope required.")
    google_error(generate(f, "ya29.c.sa-token", b"delegates=x", want=400), 400,
                 "INVALID_ARGUMENT")
    path = "/v1/projects/-/serviceAccounts/%s:generateAccessToken" % TARGET.replace("@", "%40")
    status, _, data = request(f, "POST", path, bearer("ya29.c.sa-token"), want)  # %40 decoded
    assert status == 200 and json.loads(data)["accessToken"] == "ya29.c.impersonated", data
    log = f.stop()
    iam = [r["iam"] for r in log if "iam" in r]
    assert iam[0] == {"target": TARGET, "source": "serviceAccount:" + SA, "body": want,
                      "issued": "ya29.c.impersonated"}, iam[0]
    assert iam[3]["source"] == "user:cid-b" and "issued" not in iam[3], iam[3]


GOOGLE_AUTH_CLIENT = r'''
import json, sys
import google.auth, google.auth.exceptions, google.oauth2.credentials
import google.auth.transport.requests as transport
info = json.load(open(sys.argv[1]))
creds, project = google.auth.default(scopes=["https://www.googleapis.com/auth/cloud-platform"])
if info["type"] == "authorized_user":  # 1.5.1 would ask Google's endpoint, whatever token_uri says
    creds = google.oauth2.credentials.Credentials(
        None, refresh_token=info["refresh_token"], token_uri=info["token_uri"],
        client_id=info["client_id"], client_secret=info["client_secret"])
try:
    creds.refresh(transport.Request())
    print(json.dumps({"token": creds.token, "project": project}))
except google.auth.exceptions.RefreshError as e:
    print(json.dumps({"error": str(e)}))
'''


def google_auth(path):
    """python3-google-auth 1.5.1 (Debian's /usr/bin/python3) refreshing the credentials of
    the ADC file at path: {"token", "project"} or {"error"}."""
    env = {"PATH": "/usr/bin:/bin", "GOOGLE_APPLICATION_CREDENTIALS": path, "HOME": TMP,
           "NO_PROXY": "*"}
    p = subprocess.run([harness.SYSTEM_PYTHON, "-c", GOOGLE_AUTH_CLIENT, path], env=env,
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


@test
def google_auth_obtains_tokens_from_the_fake():
    """google-auth 1.5.1, a real client of Google's token endpoint, gets its tokens from the
    fake: a service account's JWT (verified) and an authorized user's refresh token; the fake's
    invalid_grant reaches it as Google's would."""
    f = oauth_fake()
    url = f.url + "/token"
    with open(key("sa")[0]) as k:
        sa = {"type": "service_account", "project_id": "sa-project", "private_key_id": "kid-1",
              "private_key": k.read(), "client_email": SA, "client_id": "1234",
              "token_uri": url}
    assert google_auth(harness.write(TMP, "ga-sa.json", sa)) == {"token": "ya29.c.sa-token",
                                                                 "project": "sa-project"}
    user = {"type": "authorized_user", "client_id": "cid-b", "client_secret": "secret-b",
            "refresh_token": "1//0refresh-b", "token_uri": url}
    assert google_auth(harness.write(TMP, "ga-user.json", user))["token"] == "ya29.user-b"
    bad = google_auth(harness.write(TMP, "ga-bad.json", dict(user, refresh_token="1//0gone")))
    assert "invalid_grant" in bad["error"] and "expired or revoked" in bad["error"], bad
    log = f.stop()
    notes = [r["oauth"] for r in log]
    assert notes[0]["verified"] and notes[0]["jwt_claims"]["aud"] == url, notes[0]
    assert notes[0]["jwt_claims"]["exp"] - notes[0]["jwt_claims"]["iat"] == 3600
    assert [n.get("error") for n in notes] == [None, None, "invalid_grant"], notes


@test
def oauth_bad_configuration_is_refused_at_start():
    for doc, words in (({"refresh_tokens": {"1//x": {"client_id": "c"}}}, "client_secret"),
                       ({"service_accounts": {SA: {"private_key_id": "k",
                                                   "access_token": "t"}}}, "public_key"),
                       ({"service_accounts": {SA: {"public_key": "junk", "private_key_id": "k",
                                                   "access_token": "t"}}}, "public_key"),
                       ({"impersonation": {TARGET: {"access_token": "t"}}}, "sources"),
                       ({"refresh_tokens": {"1//x": {"client_id": "c", "client_secret": "s"}}},
                        "access_token"),
                       ({"tokens": {}}, "want a JSON object")):
        try:
            Fake(TMP, "--oauth", doc, python=harness.SYSTEM_PYTHON)
            raise AssertionError("accepted %r" % doc)
        except AssertionError as e:
            assert "exited" in str(e) and words in str(e), e


# ---- make_gcp ----

@test
def make_gcp_is_deterministic_and_realistic():
    a = mg.make_instances(20, "tf", region="us-east1")
    b = mg.make_instances(20, "tf", region="us-east1")
    assert a == b and len({i["name"] for i in a}) == 20
    assert all(len(i["name"]) == len("tf-") + 4 for i in a)
    ips = [i["networkInterfaces"][0]["networkIP"] for i in a]
    assert len(set(ips)) == 20 and all(ip.startswith("10.142.0.") for ip in ips)
    assert {i["zone"].rsplit("/", 1)[1] for i in a} == {"us-east1-b", "us-east1-c", "us-east1-d"}
    inst = a[0]
    for key in ("id", "creationTimestamp", "machineType", "status", "networkInterfaces", "disks",
                "metadata", "serviceAccounts", "scheduling", "labels", "fingerprint", "selfLink"):
        assert key in inst, key
    assert inst["selfLink"] == "%s/instances/%s" % (inst["zone"], inst["name"])
    assert 2500 < len(json.dumps(inst)) < 5000
    w = mg.make_instances(12, "w", zone=Z, names="w")
    assert [i["name"] for i in w][:3] == ["w-1", "w-2", "w-3"]
    assert sorted(["w-10", "w-2", "w-1"], key=mg.natural_key) == ["w-1", "w-2", "w-10"]
    assert mg.expected_addresses(w)[0] == w[0]["networkInterfaces"][0]["networkIP"] + ":8470"
    node = mg.make_tpu_node("big", endpoints=64)
    assert node["acceleratorType"] == "v4-512" and len(node["networkEndpoints"]) == 64
    assert len({e["ipAddress"] for e in node["networkEndpoints"]}) == 64
    six = mg.make_tpu_node("v6", ipv6=True, endpoints=2)
    assert all(":" in e["ipAddress"] for e in six["networkEndpoints"])
    assert "health" not in mg.make_tpu_node("h", health=None)
    out = subprocess.run([sys.executable, os.path.join(HERE, "make_gcp.py"), "group", "--name", "g",
                          "--count", "3", "--zone", Z, "--names", "w", "--status", "w-2=TERMINATED",
                          "--compact"], capture_output=True, text=True, check=True).stdout
    doc = json.loads(out)
    assert [i["status"] for i in doc["instances"]] == ["RUNNING", "TERMINATED", "RUNNING"]
    assert doc["instanceGroups"][0]["instances"] == [i["selfLink"] for i in doc["instances"]]
    fake_gcp.ComputeStore(doc)  # loads
    out = subprocess.run([sys.executable, os.path.join(HERE, "make_gcp.py"), "tpu", "--name", "n",
                          "--api", "v1", "--endpoints", "4"], capture_output=True, text=True,
                         check=True).stdout
    assert list(json.loads(out)) == ["projects/test-project/locations/us-central2-b/nodes/n"]


@test
def fields_and_filter_parsers():
    tree = fake_gcp.parse_fields("items(name,networkInterfaces(networkIP)),nextPageToken")
    assert tree == {"items": {"name": None, "networkInterfaces": {"networkIP": None}},
                    "nextPageToken": None}, tree
    assert fake_gcp.parse_fields("a/b/c,a/d") == {"a": {"b": {"c": None}, "d": None}}
    for bad in ("items(", "a,,b", "a)", ""):
        try:
            fake_gcp.parse_fields(bad)
            raise AssertionError("accepted %r" % bad)
        except ValueError:
            pass
    obj = {"items": [{"name": "a", "x": 1, "networkInterfaces": [{"networkIP": "1", "y": 2}]}],
           "kind": "k"}
    assert fake_gcp.select_fields(obj, tree) == {
        "items": [{"name": "a", "networkInterfaces": [{"networkIP": "1"}]}]}
    running = fake_gcp.parse_filter('status = "RUNNING"')
    assert running({"status": "RUNNING"}) and not running({"status": "STOPPED"})
    assert fake_gcp.parse_filter("labels.role = worker")({"labels": {"role": "worker"}})
    assert fake_gcp.parse_filter("scheduling.preemptible = false")(
        {"scheduling": {"preemptible": False}})
    assert fake_gcp.parse_filter("name != w-1")({"name": "w-2"})
    assert fake_gcp.parse_filter("name = w-*")({"name": "w-2"})
    assert fake_gcp.parse_filter("networkInterfaces.networkIP = 10.0.0.1")(
        {"networkInterfaces": [{"networkIP": "10.0.0.1"}]})
    assert base64.b64decode(fake_gcp.encode_page_token("k", 5))[:2] == fake_gcp.TOKEN_MAGIC


if __name__ == "__main__":
    sys.exit(harness.run_tests(TESTS, TMP, sys.argv[1:]))

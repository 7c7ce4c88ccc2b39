#!/usr/bin/env python3
"""Kubeconfig exec credential plugins, with the real cloud tools of the machine image, offline:
the kubeconfig files `aws eks update-kubeconfig` and `gcloud container clusters
get-credentials` write against fakes of their cluster APIs (tests/kubeconfig/fake_clouds.py),
used as written by Google's kubectl and by our cluster-resolve against tests/fake_api.py over
HTTPS (the test CA of tests/gen_certs.sh). The plugins are the real ones: `aws eks get-token`
(a presigned STS GetCallerIdentity URL, signed locally with dummy keys) and
gke-gcloud-auth-plugin (the token of CLOUDSDK_AUTH_ACCESS_TOKEN_FILE through `gcloud config
config-helper`). Both clients must send the plugin's bearer token and see the same members; both
must fail when the plugin is missing or fails (ours: exit 3, naming the plugin or quoting its
last stderr line); ours must never print a token, not even under --verbose.

usage: python3 tests/kubeconfig/test_cloud_plugins.py BUILD_DIR [NAME_SUBSTRING...]
       (BUILD_DIR holds cluster-resolve). Prints "ok/FAIL name" lines, then "N passed, N failed".
Needs the image's aws CLI (aws-cli 1.x under pyenv: /root/.pyenv/shims/aws), google-cloud-cli
(gcloud, gke-gcloud-auth-plugin) and Google's kubectl; a missing tool fails the tests that need
it, saying what is missing. All traffic stays on 127.0.0.1: the cloud APIs' endpoints are
overridden, the EC2 and GCE metadata servers are never asked (AWS_EC2_METADATA_DISABLED,
gcloud's core/check_gce_metadata and metrics/environment), and gcloud's usage reporting and
update checks are off in its scratch configuration.
"""
import base64
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from urllib.parse import parse_qs, urlsplit

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
ROOT = os.path.dirname(TESTS)
sys.path[:0] = [HERE, os.path.join(TESTS, "gcp"), os.path.join(TESTS, "k8s")]
import harness  # noqa: E402
import make_pods  # noqa: E402
import fake_clouds  # noqa: E402

ARGS = sys.argv[1:]
BUILD = ARGS.pop(0) if ARGS and os.path.isdir(ARGS[0]) else os.path.join(ROOT, "build", "san")
CLI = os.path.join(BUILD, "cluster-resolve")
TMP = tempfile.mkdtemp(prefix="cloud-plugins.")
CERTS = os.path.join(TMP, "certs")
CA = os.path.join(CERTS, "ca.pem")
FAKE_API = os.path.join(TESTS, "fake_api.py")
FAKE_CLOUDS = os.path.join(HERE, "fake_clouds.py")
KUBECTL = "/usr/bin/kubectl"                       # Google's dispatcher (kubectl 1:528)
# `kubectl config view` through the dispatcher would run the exec plugin and ask the server's
# /version first (to pick a build): a build of its own only reads the files
KUBECTL_BUILD = "/usr/lib/google-cloud-sdk/bin/kubectl.1.32"
GCLOUD = "/usr/bin/gcloud"
GKE_PLUGIN = "gke-gcloud-auth-plugin"
AWS = shutil.which("aws") or "/root/.pyenv/shims/aws"   # a pyenv shim: bash + `pyenv exec`
SYSTEM_PATH = "/usr/bin:/bin"
EMPTY_BIN = os.path.join(TMP, "empty-bin")         # a PATH with nothing on it

NAME = "trainer-cluster"
SELECTOR = "job-name=trainer"
EKS_REGION = "eu-west-1"          # the cluster's region; AWS_DEFAULT_REGION is another one
OTHER_REGION = "us-east-1"
ACCOUNT = "210987654321"
ARN = "arn:aws:eks:%s:%s:cluster/%s" % (EKS_REGION, ACCOUNT, NAME)
KEY_ID, SECRET = "AKIAFAKECRESTEST0001", "fake/secret+key/for/cluster-resolver/0001"
PROFILE, PROFILE_KEY_ID, PROFILE_SECRET = "ml-team", "AKIAFAKECRESTEST0002", "fake/secret/0002"
TOKEN_PREFIX = "k8s-aws-v1."
PROJECT, ZONE = "test-project", "europe-west4-a"
GKE_CONTEXT = "gke_%s_%s_%s" % (PROJECT, ZONE, NAME)
GKE_TOKEN = "ya29.c.fake-gke-plugin-token_0123456789"
CACHED_TOKEN = "ya29.c.fake-token-from-the-plugin-cache_42"
INSTALL_HINT = "Install gke-gcloud-auth-plugin for use with kubectl by following"
NO_CREDENTIALS = "Unable to locate credentials"
TESTS_RUN = []


def test(fn):
    TESTS_RUN.append((fn.__name__, fn))
    return fn


def tool(path, what):
    assert path and os.access(path, os.X_OK), "%s is missing: %s" % (path, what)


def run(cmd, env, timeout=60):
    """A tool without a shell, stdin /dev/null (no terminal: exec plugins run non-interactive)."""
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout,
                          env=env, stdin=subprocess.DEVNULL)


SECRETS = re.compile(r"(k8s-aws-v1\.|ya29\.|X-Amz-Signature=)[\w.%-]+")


def shown(text, limit=3000):
    """Process output fit for an assertion message: tokens (and signatures) redacted."""
    return SECRETS.sub(r"\1<redacted>", (text or "").strip())[:limit]


def scratch(name):
    return tempfile.mkdtemp(prefix=name + ".", dir=TMP)


# ======================================================================== pods and members

def natural_key(name):
    """cluster_resolver.h's natural order (README "Kubernetes": worker-2 before worker-10)."""
    parts = [(0x30, int(run_)) if run_.isdigit() else (ord(run_), 0)
             for run_ in re.findall(r"\d+|\D", name)]
    return parts, name


def pods_fixture():
    """Namespace default (the written contexts name none): Indexed Job trainer of 6 pods
    (index 2 replaced: its old pod terminating), Job ps of 2 and a Pending pod of Job eval; 2
    more trainer pods in namespace ml, which a list of default must not show."""
    pods = (make_pods.make_pods(6, "trainer", "default", indexed=True, start_ip="10.4.0.10")
            + make_pods.make_pods(1, "trainer", "default", indexed=True, first_index=2,
                                  attempt=1, start_ip="10.4.0.40", terminating_names=["2"])
            + make_pods.make_pods(2, "ps", "default", start_ip="10.4.1.10")
            + make_pods.make_pods(1, "eval", "default", pending_names=["0"])
            + make_pods.make_pods(2, "trainer", "ml", indexed=True, start_ip="10.4.2.10"))
    return make_pods.pod_list(pods)


def members(items, port=8470):
    """What a resolve must answer from the pods kubectl printed: the Running pods without a
    deletionTimestamp, by completion index when every one has it, else by name (naturally)."""
    live = [p for p in items if p["status"].get("phase") == "Running"
            and not p["metadata"].get("deletionTimestamp")]
    key = make_pods.INDEX_KEY
    if live and all(key in p["metadata"].get("annotations", {}) for p in live):
        live.sort(key=lambda p: (int(p["metadata"]["annotations"][key]),
                                 natural_key(p["metadata"]["name"])))
    else:
        live.sort(key=lambda p: natural_key(p["metadata"]["name"]))
    return ["%s:%d" % (p["status"]["podIP"], port) for p in live]


PODS = None


def k8s_fake(*auth):
    """tests/fake_api.py over HTTPS with the test CA's server certificate (a fresh log)."""
    global PODS
    PODS = PODS or harness.write(TMP, "pods.json", pods_fixture())
    return harness.Fake(TMP, "--pods", PODS, *auth, script=FAKE_API, certs=CERTS)


def cloud_fake(k8s, *args):
    """fake_clouds.py answering the cluster whose API is `k8s`, with the test CA."""
    return harness.Fake(TMP, "--cluster", NAME, "--endpoint", k8s.host, "--ca-file", CA, *args,
                        script=FAKE_CLOUDS)


# ======================================================================== environments

def aws_env(home, creds=True, **extra):
    """The aws CLI's environment: a fresh HOME, empty config and credential files (so
    nothing of the machine's ~/.aws is read), dummy keys (creds), a default region other
    than the cluster's, and never the EC2 metadata server. PYENV_VERSION is left out: set
    to another Python, the shim fails ("pyenv: aws: command not found", exit 127)."""
    empty = harness.write(home, "empty", "")
    env = {"HOME": home, "PATH": os.path.dirname(AWS) + ":" + SYSTEM_PATH,
           "AWS_CONFIG_FILE": empty, "AWS_SHARED_CREDENTIALS_FILE": empty,
           "AWS_DEFAULT_REGION": OTHER_REGION, "AWS_EC2_METADATA_DISABLED": "true"}
    if creds:
        env.update(AWS_ACCESS_KEY_ID=KEY_ID, AWS_SECRET_ACCESS_KEY=SECRET)
    env.update(extra)
    return env


def gcloud_config(cloud):
    """A scratch CLOUDSDK_CONFIG: usage reporting, update checks, survey prompts and the GCE
    metadata probe off (metrics/environment set: else gcloud asks the metadata server whether
    it runs on GCE, to name its environment, and caches the answer in a file "gce"), then
    the container API's endpoint set to the fake with `gcloud config set`. active_config
    must be written too: without it gcloud's first run replaces config_default."""
    conf = scratch("gcloud-config")
    os.makedirs(os.path.join(conf, "configurations"))
    harness.write(conf, "active_config", "default")
    harness.write(conf, os.path.join("configurations", "config_default"),
                  "[core]\ndisable_usage_reporting = true\ncheck_gce_metadata = false\n\n"
                  "[component_manager]\ndisable_update_check = true\n\n"
                  "[metrics]\nenvironment = cluster-resolver-tests\n\n"
                  "[survey]\ndisable_prompts = true\n")
    tool(GCLOUD, "gcloud (google-cloud-cli)")
    p = run([GCLOUD, "config", "set", "api_endpoint_overrides/container", cloud.url + "/"],
            gcloud_env(scratch("home"), conf))
    assert p.returncode == 0, "gcloud config set: %s" % shown(p.stderr)
    return conf


def gcloud_env(home, conf, path=SYSTEM_PATH, **extra):
    """gcloud's and the plugin's environment (the plugin runs `gcloud config config-helper`
    with it): the scratch configuration and the token file."""
    token_file = os.path.join(TMP, "gke-token")
    if not os.path.exists(token_file):
        harness.write(TMP, "gke-token", GKE_TOKEN + "\n")
    env = {"HOME": home, "PATH": path, "CLOUDSDK_CONFIG": conf,
           "CLOUDSDK_CORE_DISABLE_PROMPTS": "1", "CLOUDSDK_AUTH_ACCESS_TOKEN_FILE": token_file}
    env.update(extra)
    return env


# ======================================================================== writers

def view(path):
    """The kubeconfig as kubectl reads it (JSON; the writers write YAML)."""
    tool(KUBECTL_BUILD, "kubectl 1.32 (Google's kubectl package)")
    home = scratch("home")
    p = run([KUBECTL_BUILD, "config", "view", "--raw", "-o", "json", "--kubeconfig", path],
            {"HOME": home, "PATH": SYSTEM_PATH})
    assert p.returncode == 0, "kubectl config view: %s" % shown(p.stderr)
    return json.loads(p.stdout)


def only(doc, kind):
    assert len(doc[kind]) == 1, [e["name"] for e in doc[kind]]
    return doc[kind][0]


def check_cluster(doc, name, k8s):
    """The cluster entry points at our Kubernetes fake with the test CA, inline."""
    cluster = only(doc, "clusters")
    assert cluster["name"] == name, cluster["name"]
    assert cluster["cluster"]["server"] == k8s.url, cluster["cluster"]["server"]
    with open(CA, "rb") as f:
        ca = f.read()
    assert base64.b64decode(cluster["cluster"]["certificate-authority-data"]) == ca


def aws_write(k8s, cloud, profile=False):
    """`aws eks update-kubeconfig` against the fake EKS -> (kubeconfig path, its JSON view).
    With profile, AWS_PROFILE names a profile of the config files (and the written user
    carries it in exec.env); else the keys are in the environment."""
    tool(AWS, "the aws CLI (aws-cli, pyenv)")
    home = scratch("home")
    path = os.path.join(scratch("eks"), "config")
    env = profile_env(home, AWS_PROFILE=PROFILE) if profile else aws_env(home)
    p = run([AWS, "eks", "update-kubeconfig", "--name", NAME, "--region", EKS_REGION,
             "--endpoint-url", cloud.url, "--kubeconfig", path], env)
    assert p.returncode == 0, "aws eks update-kubeconfig: %s" % shown(p.stderr)
    assert p.stdout.strip() == "Added new context %s to %s" % (ARN, path), shown(p.stdout)
    doc = view(path)
    assert doc["current-context"] == ARN and only(doc, "contexts") == {
        "name": ARN, "context": {"cluster": ARN, "user": ARN}}, doc["contexts"]
    check_cluster(doc, ARN, k8s)
    user = only(doc, "users")
    assert user["name"] == ARN, user["name"]
    exe = user["user"]["exec"]
    assert exe["command"] == "aws" and exe["apiVersion"] == \
        "client.authentication.k8s.io/v1beta1", (exe["command"], exe["apiVersion"])
    assert exe["args"] == ["--region", EKS_REGION, "eks", "get-token", "--cluster-name", NAME,
                           "--output", "json"], exe["args"]
    want_env = [{"name": "AWS_PROFILE", "value": PROFILE}] if profile else None
    assert exe["env"] == want_env, exe["env"]
    assert not exe.get("provideClusterInfo") and not exe.get("installHint"), exe
    reqs = cloud.stop()
    assert [(r["method"], r["path"], r["status"]) for r in reqs] == [
        ("GET", "/clusters/" + NAME, 200)], [(r["method"], r["path"], r["status"]) for r in reqs]
    scope = reqs[0]["headers"]["authorization"].split("Credential=")[1].split(",")[0]
    assert scope.split("/")[0] == (PROFILE_KEY_ID if profile else KEY_ID) and \
        scope.endswith("/%s/eks/aws4_request" % EKS_REGION), scope
    return path, doc


def profile_env(home, **extra):
    """Keys only in profile ml-team of the shared files: no AWS_ACCESS_KEY_ID, no default
    profile. AWS_PROFILE is set only when given (the writer's run)."""
    env = aws_env(home, creds=False, **extra)
    env["AWS_CONFIG_FILE"] = harness.write(home, "aws-config", "[profile %s]\nregion = %s\n"
                                           % (PROFILE, OTHER_REGION))
    env["AWS_SHARED_CREDENTIALS_FILE"] = harness.write(
        home, "aws-credentials", "[%s]\naws_access_key_id = %s\naws_secret_access_key = %s\n"
        % (PROFILE, PROFILE_KEY_ID, PROFILE_SECRET))
    return env


def gke_write(k8s, cloud, conf):
    """`gcloud container clusters get-credentials` against the fake GKE -> (kubeconfig path,
    its JSON view). gcloud has no --kubeconfig: it writes the first file of $KUBECONFIG."""
    home = scratch("home")
    path = os.path.join(scratch("gke"), "config")
    p = run([GCLOUD, "container", "clusters", "get-credentials", NAME, "--zone", ZONE,
             "--project", PROJECT], gcloud_env(home, conf, KUBECONFIG=path))
    assert p.returncode == 0, "gcloud get-credentials: %s" % shown(p.stderr)
    assert "kubeconfig entry generated for %s." % NAME in p.stderr, shown(p.stderr)
    doc = view(path)
    assert doc["current-context"] == GKE_CONTEXT and only(doc, "contexts") == {
        "name": GKE_CONTEXT, "context": {"cluster": GKE_CONTEXT, "user": GKE_CONTEXT}}
    check_cluster(doc, GKE_CONTEXT, k8s)
    user = only(doc, "users")
    exe = user["user"]["exec"]
    assert user["name"] == GKE_CONTEXT and exe["command"] == GKE_PLUGIN, (user["name"], exe)
    assert exe["apiVersion"] == "client.authentication.k8s.io/v1beta1", exe["apiVersion"]
    assert exe["provideClusterInfo"] is True and exe["installHint"].startswith(INSTALL_HINT), exe
    assert not exe.get("args") and not exe.get("env"), exe
    reqs = cloud.stop()
    asked = [(r["method"], r["path"], r["status"]) for r in reqs]
    assert asked == [("GET", "/v1/projects/%s/locations/%s/clusters/%s" % (PROJECT, ZONE, NAME),
                      200)], asked
    assert bearer(reqs[0]) == GKE_TOKEN, "gcloud did not send the token of its token file"
    assert reqs[0]["headers"]["user-agent"].startswith("google-cloud-sdk gcloud/"), \
        reqs[0]["headers"]["user-agent"]
    return path, doc


# ======================================================================== the two clients

def kubectl(env, flags=()):
    """kubectl [flags] get pods -l job-name=trainer -o json with the kubeconfig of env, a
    fresh discovery cache: -> CompletedProcess."""
    tool(KUBECTL, "kubectl (Google's kubectl package)")
    cache = os.path.join(scratch("kube-cache"), "cache")
    return run([KUBECTL] + list(flags) + ["get", "pods", "-l", SELECTOR, "-o", "json",
                                          "--cache-dir", cache, "--request-timeout", "30s"], env)


def kubectl_members(env):
    p = kubectl(env)
    assert p.returncode == 0, "kubectl: %s" % shown(p.stderr)
    items = json.loads(p.stdout)["items"]
    want = members(items)
    assert len(items) == 7 and len(want) == 6, (len(items), want)
    return want


def ours(env, *extra):
    """cluster-resolve k8s --job worker=job-name=trainer --format spec [extra]."""
    return run([CLI, "k8s", "--job", "worker=" + SELECTOR, "--format", "spec"] + list(extra),
               env)


def ours_members(env, want, *extra):
    p = ours(env, *extra)
    assert p.returncode == 0, "cluster-resolve exit %d: %s" % (p.returncode, shown(p.stderr))
    assert json.loads(p.stdout) == {"worker": want}, shown(p.stdout)
    return p


def new_requests(fake, seen):
    """The fake's requests since the `seen` ones (each client runs to its end first)."""
    log = fake.requests()
    return log[len(seen):], log


def bearer(request):
    value = request["headers"].get("authorization") or ""
    return value[len("Bearer "):] if value.startswith("Bearer ") else None


def check_eks_token(token, key_id, secret):
    """`aws eks get-token`'s token: "k8s-aws-v1." + base64url (unpadded) of a presigned
    STS GetCallerIdentity URL of the cluster's region, signed a moment ago with key_id over
    header x-k8s-aws-id = the cluster name (what the EKS authenticator sends on to STS)."""
    assert token and token.startswith(TOKEN_PREFIX), "not an EKS token: %r" % (token or "")[:11]
    payload = token[len(TOKEN_PREFIX):]
    assert re.fullmatch(r"[A-Za-z0-9_-]+", payload), "the payload is not unpadded base64url"
    url = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)).decode()
    parts = urlsplit(url)
    query = parse_qs(parts.query)
    assert (parts.scheme, parts.netloc, parts.path) == (
        "https", "sts.%s.amazonaws.com" % EKS_REGION, "/"), (parts.scheme, parts.netloc)
    assert query["Action"] == ["GetCallerIdentity"] and query["Version"] == ["2011-06-15"]
    assert query["X-Amz-Algorithm"] == ["AWS4-HMAC-SHA256"], query["X-Amz-Algorithm"]
    scope = query["X-Amz-Credential"][0].split("/")
    assert scope[0] == key_id, "signed with another access key than " + key_id
    assert scope[2:] == [EKS_REGION, "sts", "aws4_request"], scope[2:]
    assert query["X-Amz-SignedHeaders"] == ["host;x-k8s-aws-id"], query["X-Amz-SignedHeaders"]
    assert query["X-Amz-Expires"] == ["60"], query["X-Amz-Expires"]
    signed = datetime.strptime(query["X-Amz-Date"][0], "%Y%m%dT%H%M%SZ")
    age = datetime.now(timezone.utc).replace(tzinfo=None) - signed
    assert -120 < age.total_seconds() < 600, "signed at %s" % signed
    assert fake_clouds.presigned_url_ok(url, secret, {"x-k8s-aws-id": NAME}), \
        "the presigned URL is not signed with the dummy key over x-k8s-aws-id: " + NAME


def check_bearers(reqs, who, token=None, key_id=KEY_ID, secret=SECRET):
    """Every request of one client carries a bearer token: `token`, else a valid EKS one.
    Returns the distinct tokens (a client may run the plugin more than once: the kubectl
    dispatcher runs it for its /version request, then the build it picks runs it again)."""
    assert reqs, "%s sent no request" % who
    tokens = {bearer(r) for r in reqs}
    assert None not in tokens, "%s sent a request without a bearer token: %s" % (
        who, [r["path"] for r in reqs if bearer(r) is None])
    for t in tokens:
        if token is None:
            check_eks_token(t, key_id, secret)
        else:
            assert t == token, "%s sent another token than the plugin's" % who
    assert any(r["path"] == "/api/v1/namespaces/default/pods" and r["status"] == 200
               and r["query"].get("labelSelector") == [SELECTOR] for r in reqs), \
        "%s did not list the pods: %s" % (who, [(r["path"], r["status"]) for r in reqs])
    return tokens


def check_quiet(err, tokens, path):
    """--verbose stderr: names the kubeconfig file and the exec credential, shows no token
    (nor a long piece of one, nor an EKS token's signature)."""
    for t in tokens:
        pieces = [t, t[-24:]]
        if t.startswith(TOKEN_PREFIX):
            payload = t[len(TOKEN_PREFIX):]
            url = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)).decode()
            pieces += [payload[:24], parse_qs(urlsplit(url).query)["X-Amz-Signature"][0]]
        assert not any(p in err for p in pieces), "--verbose printed a token (or part of one)"
    assert "exec" in err and path in err, "--verbose names neither the exec credential nor " \
        "the kubeconfig %s: %s" % (path, shown(err))


def both_clients(k8s, env, path, token=None, key_id=KEY_ID, secret=SECRET):
    """kubectl, then ours (plain, then --verbose), with the same environment (each a fresh
    HOME): the same members, each request with the plugin's token."""
    kenv = dict(env, HOME=scratch("home"))
    want = kubectl_members(kenv)
    reqs, seen = new_requests(k8s, [])
    check_bearers(reqs, "kubectl", token, key_id, secret)
    ours_members(dict(env, HOME=scratch("home")), want)
    reqs, seen = new_requests(k8s, seen)
    check_bearers(reqs, "cluster-resolve", token, key_id, secret)
    p = ours_members(dict(env, HOME=scratch("home")), want, "--verbose")
    reqs, seen = new_requests(k8s, seen)
    check_quiet(p.stderr, check_bearers(reqs, "cluster-resolve --verbose", token, key_id, secret)
                | ({token} if token else set()), path)
    return k8s.stop()


# ======================================================================== failures

def exec_last_stderr_line(exe, env):
    """Runs a kubeconfig's exec entry as a client does (no shell, KUBERNETES_EXEC_INFO) and
    returns the last non-empty line of its stderr (it must fail)."""
    info = {"apiVersion": exe["apiVersion"], "kind": "ExecCredential",
            "spec": {"interactive": False}}
    env = dict(env, KUBERNETES_EXEC_INFO=json.dumps(info))
    env.update({e["name"]: e["value"] for e in exe.get("env") or []})
    p = run([shutil.which(exe["command"], path=env["PATH"])] + exe["args"], env)
    lines = [line.strip() for line in p.stderr.splitlines() if line.strip()]
    assert p.returncode != 0 and p.stdout == "" and lines, (p.returncode, shown(p.stdout))
    return lines[-1]


def ours_fail(env, code, words, k8s):
    """Ours fails with `code` before any request, saying `words` on stderr."""
    seen = k8s.requests()
    p = ours(env)
    assert not SECRETS.search(p.stderr) and GKE_TOKEN not in p.stderr, "a token leaked"
    assert p.returncode == code and p.stdout == "", "cluster-resolve exit %d, want %d: %s" % (
        p.returncode, code, shown(p.stderr))
    for w in words:  # a plain string, or a compiled pattern (a short name as a word)
        found = w.search(p.stderr) if hasattr(w, "search") else w in p.stderr
        assert found, "%r not in %r" % (getattr(w, "pattern", w), shown(p.stderr))
    reqs, _ = new_requests(k8s, seen)
    assert not reqs, "cluster-resolve asked the API without a credential: %s" % [
        r["path"] for r in reqs]
    return p.stderr


# ======================================================================== tests: EKS

@test
def aws_update_kubeconfig_then_kubectl_and_we_send_the_eks_token():
    """`aws eks update-kubeconfig --endpoint-url` against the fake EKS (DescribeCluster,
    SigV4-signed with the dummy keys, checked by the fake) writes user exec {command aws,
    args [--region eu-west-1 eks get-token --cluster-name N --output json], v1beta1, no env}
    and the server https://<fake k8s>; kubectl and we run `aws eks get-token`, each request
    carries a valid k8s-aws-v1 token, and we list the same 6 members; --verbose names the file
    and the exec credential and prints no token."""
    k8s = k8s_fake()
    path, _ = aws_write(k8s, cloud_fake(k8s, "--eks-region", EKS_REGION, "--eks-account", ACCOUNT,
                                        "--eks-access-key", KEY_ID, "--eks-secret-key", SECRET))
    both_clients(k8s, aws_env(scratch("home"), KUBECONFIG=path), path)


@test
def aws_profile_reaches_get_token_through_exec_env():
    """With AWS_PROFILE=ml-team, update-kubeconfig writes exec env [{AWS_PROFILE: ml-team}].
    kubectl and we then run get-token in an environment without AWS_PROFILE and without
    default keys: only the exec entry's env selects the profile, whose key signs every token."""
    k8s = k8s_fake()
    cloud = cloud_fake(k8s, "--eks-region", EKS_REGION, "--eks-account", ACCOUNT,
                       "--eks-access-key", PROFILE_KEY_ID, "--eks-secret-key", PROFILE_SECRET)
    home = scratch("home")
    path, _ = aws_write(k8s, cloud, profile=True)
    env = profile_env(home, KUBECONFIG=path)
    assert "AWS_PROFILE" not in env and "AWS_ACCESS_KEY_ID" not in env
    both_clients(k8s, env, path, key_id=PROFILE_KEY_ID, secret=PROFILE_SECRET)


@test
def aws_get_token_echoes_exec_info_v1():
    """The written user moved to client.authentication.k8s.io/v1 (interactiveMode Never, as
    v1 requires), in a JSON kubeconfig: get-token answers the apiVersion it reads from
    KUBERNETES_EXEC_INFO (v1beta1 without it), and a client must refuse an ExecCredential of
    another apiVersion than the kubeconfig's (client-go does), so kubectl and we
    succeed only when each passes KUBERNETES_EXEC_INFO with v1."""
    k8s = k8s_fake()
    _, doc = aws_write(k8s, cloud_fake(k8s, "--eks-region", EKS_REGION, "--eks-account",
                                       ACCOUNT, "--eks-access-key", KEY_ID))
    exe = only(doc, "users")["user"]["exec"]
    exe.update(apiVersion="client.authentication.k8s.io/v1", interactiveMode="Never")
    del exe["env"]
    path = harness.write(scratch("eks-v1"), "config.json", doc)
    both_clients(k8s, aws_env(scratch("home"), KUBECONFIG=path), path)


@test
def aws_get_token_without_credentials_fails_both():
    """No keys at all (no AWS_ACCESS_KEY_ID, empty config and credential files, no EC2
    metadata server): get-token exits 255 ("Unable to locate credentials"); kubectl fails
    passing aws's stderr through; we exit 3 quoting aws's last stderr line, asking nothing."""
    k8s = k8s_fake()
    path, doc = aws_write(k8s, cloud_fake(k8s, "--eks-region", EKS_REGION, "--eks-account",
                                          ACCOUNT, "--eks-access-key", KEY_ID))
    env = aws_env(scratch("home"), creds=False, KUBECONFIG=path)
    last = exec_last_stderr_line(only(doc, "users")["user"]["exec"], env)
    assert NO_CREDENTIALS in last, last
    p = kubectl(dict(env, HOME=scratch("home")))
    assert p.returncode == 1 and p.stdout == "", (p.returncode, shown(p.stdout))
    assert NO_CREDENTIALS in p.stderr and "getting credentials" in p.stderr, shown(p.stderr)
    assert not any(bearer(r) for r in k8s.requests()), "kubectl sent a token"
    ours_fail(dict(env, HOME=scratch("home")), 3, [last], k8s)
    k8s.stop()


@test
def aws_missing_from_path_fails_both():
    """PATH without aws: kubectl fails ("executable aws not found"); we exit 3 naming aws."""
    k8s = k8s_fake()
    path, _ = aws_write(k8s, cloud_fake(k8s, "--eks-region", EKS_REGION, "--eks-account",
                                        ACCOUNT, "--eks-access-key", KEY_ID))
    env = aws_env(scratch("home"), KUBECONFIG=path, PATH=EMPTY_BIN)
    p = kubectl(env)
    assert p.returncode == 1 and "executable aws not found" in p.stderr, shown(p.stderr)
    ours_fail(dict(env, HOME=scratch("home")), 3, [re.compile(r"\baws\b")], k8s)
    k8s.stop()


# ======================================================================== tests: GKE

@test
def gcloud_get_credentials_then_kubectl_and_we_send_the_gcloud_token():
    """`gcloud container clusters get-credentials` against the fake GKE (its endpoint set with
    `gcloud config set api_endpoint_overrides/container`) writes user exec {command
    gke-gcloud-auth-plugin, provideClusterInfo true, installHint, v1beta1} and the server
    https://<endpoint>; kubectl and we run the plugin (which runs `gcloud config
    config-helper`): every request carries the token of CLOUDSDK_AUTH_ACCESS_TOKEN_FILE and we
    list the same members; --verbose prints no token. gcloud never probes the GCE metadata
    server (no "gce" file in its configuration)."""
    k8s = k8s_fake("--bearer", GKE_TOKEN)
    cloud = cloud_fake(k8s, "--gke-project", PROJECT, "--gke-location", ZONE,
                       "--gke-token", GKE_TOKEN)
    conf = gcloud_config(cloud)
    path, _ = gke_write(k8s, cloud, conf)
    log = both_clients(k8s, gcloud_env(scratch("home"), conf, KUBECONFIG=path), path,
                       token=GKE_TOKEN)
    assert {r["status"] for r in log} == {200}, [(r["path"], r["status"]) for r in log]
    assert not os.path.exists(os.path.join(conf, "gce")), "gcloud asked the GCE metadata server"
    assert not os.path.exists(os.path.join(os.path.dirname(path),
                                           "gke_gcloud_auth_plugin_cache")), \
        "the plugin cached a token without expiry"


@test
def gke_plugin_cache_beside_kubeconfig_wins():
    """gke-gcloud-auth-plugin first reads gke_gcloud_auth_plugin_cache in the directory of
    the kubeconfig ($KUBECONFIG's first file): a token cached for the current context, not
    about to expire, is answered without asking gcloud. kubectl and we (passing our
    environment to the plugin) both send the cached token."""
    k8s = k8s_fake("--bearer", CACHED_TOKEN)
    cloud = cloud_fake(k8s, "--gke-project", PROJECT, "--gke-location", ZONE)
    conf = gcloud_config(cloud)
    path, _ = gke_write(k8s, cloud, conf)
    expiry = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 3600))
    harness.write(os.path.dirname(path), "gke_gcloud_auth_plugin_cache", {
        "current_context": GKE_CONTEXT, "access_token": CACHED_TOKEN, "token_expiry": expiry,
        "extra_args": ""})
    both_clients(k8s, gcloud_env(scratch("home"), conf, KUBECONFIG=path), path,
                 token=CACHED_TOKEN)


@test
def gke_plugin_missing_from_path_fails_both():
    """PATH without gke-gcloud-auth-plugin: kubectl fails showing the installHint gcloud
    wrote; we exit 3 naming the plugin, asking nothing."""
    k8s = k8s_fake("--bearer", GKE_TOKEN)
    cloud = cloud_fake(k8s, "--gke-project", PROJECT, "--gke-location", ZONE)
    conf = gcloud_config(cloud)
    path, _ = gke_write(k8s, cloud, conf)
    env = gcloud_env(scratch("home"), conf, EMPTY_BIN, KUBECONFIG=path)
    p = kubectl(env)
    assert p.returncode == 1 and p.stdout == "", (p.returncode, shown(p.stdout))
    assert "executable %s not found" % GKE_PLUGIN in p.stderr and INSTALL_HINT in p.stderr, \
        shown(p.stderr)
    ours_fail(dict(env, HOME=scratch("home")), 3, [GKE_PLUGIN], k8s)
    k8s.stop()


# ======================================================================== both clouds

def same_members(k8s, other, env, flags, token=None):
    """kubectl and ours with the same kubeconfig flags: the same members from `k8s`, with
    the plugin's token (an EKS one when token is None); the `other` fake asked nothing."""
    asked = len(other.requests())
    seen = k8s.requests()
    p = kubectl(dict(env, HOME=scratch("home")), flags)
    assert p.returncode == 0, "kubectl %s: %s" % (" ".join(flags), shown(p.stderr))
    want = members(json.loads(p.stdout)["items"])
    reqs, seen = new_requests(k8s, seen)
    check_bearers(reqs, "kubectl " + " ".join(flags), token)
    ours_members(dict(env, HOME=scratch("home")), want, *flags)
    reqs, _ = new_requests(k8s, seen)
    check_bearers(reqs, "cluster-resolve " + " ".join(flags), token)
    assert len(other.requests()) == asked, "a client asked the other cluster"


@test
def both_clouds_kubeconfig_list_context_and_explicit_file():
    """The EKS and GKE files in one $KUBECONFIG list (EKS first, so its current-context
    wins): without flags both clients use EKS; with --context gke_... both use GKE (its
    plugin, its server); with KUBECONFIG=the EKS file and --kubeconfig the GKE file, that
    file only. Each time the other cluster's API is asked nothing."""
    eks_k8s, gke_k8s = k8s_fake(), k8s_fake("--bearer", GKE_TOKEN)
    eks_path, _ = aws_write(eks_k8s, cloud_fake(eks_k8s, "--eks-region", EKS_REGION,
                                                "--eks-account", ACCOUNT))
    cloud = cloud_fake(gke_k8s, "--gke-project", PROJECT, "--gke-location", ZONE)
    conf = gcloud_config(cloud)
    gke_path, _ = gke_write(gke_k8s, cloud, conf)
    env = gcloud_env(scratch("home"), conf)
    env.update(aws_env(env["HOME"]), KUBECONFIG=eks_path + ":" + gke_path)
    same_members(eks_k8s, gke_k8s, env, [])
    same_members(gke_k8s, eks_k8s, env, ["--context", GKE_CONTEXT], GKE_TOKEN)
    same_members(gke_k8s, eks_k8s, dict(env, KUBECONFIG=eks_path), ["--kubeconfig", gke_path],
                 GKE_TOKEN)
    eks_k8s.stop()
    gke_k8s.stop()


if __name__ == "__main__":
    if not os.access(CLI, os.X_OK):
        sys.exit("test_cloud_plugins: %s is missing (build cluster-resolve into %s)"
                 % (CLI, BUILD))
    os.makedirs(EMPTY_BIN)
    subprocess.run(["bash", os.path.join(TESTS, "gen_certs.sh"), CERTS], check=True,
                   stdout=subprocess.DEVNULL)
    sys.exit(harness.run_tests(TESTS_RUN, TMP, ARGS))

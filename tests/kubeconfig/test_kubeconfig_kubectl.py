#!/usr/bin/env python3
"""Differential tests of kubeconfig handling: for every case, the real kubectl (Google's
dispatcher /usr/bin/kubectl, which runs the kubectl.1.NN build matching the server's /version)
and our `cluster-resolve k8s` read the same kubeconfig (YAML as kubectl writes it, hand-edited
YAML, JSON) in the same scrubbed environment, and must send the same things to the HTTPS fake
API server (tests/fake_api.py): for each pod-list request the namespace (from the path), the
Authorization header, the client certificate's subject, the impersonation headers and the TLS
SNI. Discovery (/version, /api, /apis), which only kubectl does, is not compared. Our CLI must
then list exactly the Running, not terminating pods kubectl printed. Exec credential plugins
(small Python scripts written here) record what they saw (argv, environment,
KUBERNETES_EXEC_INFO, stdin, working directory); kubectl's record and ours must be the same.
Where kubectl refuses a kubeconfig, our CLI must exit 3 with one stderr line naming the file
and the field; where kubectl silently does something else (a context naming an undefined
cluster falls back to http://localhost:8080), we refuse on purpose, and those cases say so.

usage: python3 tests/kubeconfig/test_kubeconfig_kubectl.py BUILD_DIR [NAME_SUBSTRING...]
       (BUILD_DIR holds cluster-resolve). Prints "ok/FAIL name" lines, then "N passed, N failed".
Needs kubectl from Google's packages (the machine image's kubectl 1:528 with the kubectl.1.27 to
1.33 builds) and openssl. Tokens are never printed: requests are compared, and shown, with the
Authorization value replaced by its scheme and a SHA-256 fingerprint.
"""
import base64
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
ROOT = os.path.dirname(TESTS)
sys.path[:0] = [os.path.join(TESTS, "gcp"), os.path.join(TESTS, "k8s"),
                os.path.join(TESTS, "clients")]
import harness  # noqa: E402
import test_real_clients as real  # noqa: E402  (members(), pods_fixture(): the same oracle)
shutil.rmtree(real.TMP, ignore_errors=True)  # its import made a scratch directory; not needed

ARGS = sys.argv[1:]
BUILD = ARGS.pop(0) if ARGS and os.path.isdir(ARGS[0]) else os.path.join(ROOT, "build", "san")
CLI = os.path.abspath(os.path.join(BUILD, "cluster-resolve"))  # the clients run elsewhere
TMP = tempfile.mkdtemp(prefix="kubeconfig-kubectl.")
CERTS = os.path.join(TMP, "certs")
CA = os.path.join(CERTS, "ca.pem")
FAKE_API = os.path.join(TESTS, "fake_api.py")
PROXIES = os.path.join(HERE, "proxies.py")
KUBECTL = "/usr/bin/kubectl"                      # Google's dispatcher (kubectl 1:528)
SDK_BIN = "/usr/lib/google-cloud-sdk/bin"         # its kubectl.1.NN builds
PATH = "/usr/bin:/bin"                             # the scrubbed PATH of both clients
SELECTOR = "job-name=trainer"
EXEC_V1 = "client.authentication.k8s.io/v1"
EXEC_V1BETA1 = "client.authentication.k8s.io/v1beta1"
EXEC_KEY = "client.authentication.k8s.io/exec"   # the cluster extension exec plugins get

# credentials the main fake accepts (never printed: see fingerprint())
TOKEN = "kc-token-alpha.0123456789abcdef"
TOKEN_FILE_TOKEN = "kc-token-bravo.fedcba9876543210"
OTHER_TOKEN = "kc-token-charlie.00112233445566"
EXEC_TOKEN = "kc-token-exec.ffeeddccbbaa9988"
USER, PASSWORD = "alice", "pa55:w0rd-with-colon"
# an OIDC id-token kubectl's oidc provider uses as it is: a JWT whose exp (2100) has not passed
OIDC_TOKEN = ".".join(base64.urlsafe_b64encode(json.dumps(part).encode()).decode().rstrip("=")
                      for part in ({"alg": "RS256", "typ": "JWT"},
                                   {"iss": "https://issuer.test", "sub": "alice", "aud": "k8s",
                                    "exp": 4102444800, "iat": 1700000000})) + ".c2lnbmF0dXJl"
SECRETS = (TOKEN, TOKEN_FILE_TOKEN, OTHER_TOKEN, EXEC_TOKEN, PASSWORD, OIDC_TOKEN)
JANE = "CN=jane,O=ml-team"            # tests/gen_certs.sh --client-certs: client.pem
EXEC_USER = "CN=exec-user,O=plugins"  # client2.pem, handed out by an exec plugin

TESTS_RUN = []


def test(fn):
    TESTS_RUN.append((fn.__name__, fn))
    return fn


# ======================================================================== servers

SHARED = {}   # fakes and proxies kept for the whole run (one per distinct server config)
PODS = None


def pods_file():
    """tests/clients/test_real_clients.py's pods: in namespace ml an Indexed Job trainer of 12
    Running pods (plus a terminating replaced one), in namespace default 2 trainer pods."""
    global PODS
    PODS = PODS or harness.write(TMP, "pods.json", real.pods_fixture())
    return PODS


def fixture_members(namespace):
    """The answer straight from the fixture (not through kubectl): the trainer pods of
    `namespace` that are Running and not terminating, in resolve order."""
    with open(pods_file()) as f:
        items = json.load(f)["items"]
    return real.members([p for p in items if p["metadata"]["namespace"] == namespace
                         and p["metadata"]["labels"].get("job-name") == "trainer"])


def shared_fake(name, *args, tls=True, cert="server"):
    """One tests/fake_api.py with the fixture's pods, started on first use and kept (taken
    off harness.LIVE, which run_tests empties after every test); logs with --log-secrets."""
    if name not in SHARED:
        extra = ["--cert", os.path.join(CERTS, cert + ".pem"),
                 "--key", os.path.join(CERTS, cert + ".key")] if tls else []
        fake = harness.Fake(TMP, "--pods", pods_file(), *(extra + list(args)), script=FAKE_API)
        harness.LIVE.remove(fake)
        if tls:
            fake.url = "https://127.0.0.1:%d" % fake.port
        SHARED[name] = fake
    return SHARED[name]


def main_fake(version="v1.32.4"):
    """HTTPS with server.pem (127.0.0.1), and every credential of the cases: the tokens, the
    basic user, and client certificates signed by the test CA."""
    return shared_fake("main-" + version, "--bearer", TOKEN, "--bearer", TOKEN_FILE_TOKEN,
                       "--bearer", OTHER_TOKEN, "--bearer", EXEC_TOKEN, "--bearer", OIDC_TOKEN,
                       "--basic", USER + ":" + PASSWORD, "--client-ca", CA,
                       "--server-version", version)


def elsewhere_fake():
    """HTTPS with elsewhere.pem, valid for elsewhere.invalid only (not for 127.0.0.1)."""
    return shared_fake("elsewhere", "--bearer", TOKEN, "--client-ca", CA, cert="elsewhere")


def plain_fake():
    """Plain HTTP, no authentication required: whatever credentials arrive are logged."""
    return shared_fake("plain", tls=False)


class Proxy:
    """tests/kubeconfig/proxies.py KIND (http or socks5), kept for the whole run."""

    def __init__(self, kind, tmp=None):
        self.dir = tempfile.mkdtemp(dir=tmp or TMP)
        port_file = os.path.join(self.dir, "port")
        self.log = os.path.join(self.dir, "log.jsonl")
        self.proc = subprocess.Popen([sys.executable, PROXIES, kind, "--port-file", port_file,
                                      "--log", self.log, "--max-seconds", "300"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        deadline = time.time() + 20
        while not os.path.exists(port_file):
            assert self.proc.poll() is None and time.time() < deadline, \
                "proxies.py %s did not start: %s" % (kind, self.proc.stderr.read().decode())
            time.sleep(0.005)
        with open(port_file) as f:
            self.port = int(f.read())

    def records(self):
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            return [json.loads(line) for line in f if line.endswith("\n")]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        _, err = self.proc.communicate(timeout=20)
        assert self.proc.returncode == 0 and not err, "proxies.py: rc %s: %s" % (
            self.proc.returncode, err.decode())


def proxy(kind):
    if "proxy-" + kind not in SHARED:
        SHARED["proxy-" + kind] = Proxy(kind)
    return SHARED["proxy-" + kind]


# ======================================================================== kubeconfig files

YAML_WORDS = {"y", "yes", "n", "no", "true", "false", "on", "off", "null", "~"}
PLAIN = re.compile(r"[A-Za-z_/][A-Za-z0-9_./:@+=-]*\Z")


def yaml_scalar(value):
    """A scalar as sigs.k8s.io/yaml would leave it readable: plain when that is unambiguous
    (YAML 1.1 included: "n" and "on" are booleans there), else double-quoted (JSON)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    if value == {}:
        return "{}"
    if value == []:
        return "[]"
    text = str(value)
    if PLAIN.match(text) and text.lower() not in YAML_WORDS and ": " not in text \
            and not text.endswith(":"):
        return text
    return json.dumps(text)


def yaml_lines(obj, indent):
    """Block YAML the way kubectl writes it: keys sorted, a sequence at its parent's indent
    ("clusters:\\n- cluster:"), empty maps as {}."""
    pad, lines = " " * indent, []
    for key in sorted(obj):
        value = obj[key]
        if isinstance(value, dict) and value:
            lines.append("%s%s:" % (pad, key))
            lines += yaml_lines(value, indent + 2)
        elif isinstance(value, list) and value:
            lines.append("%s%s:" % (pad, key))
            for item in value:
                if isinstance(item, dict) and item:
                    sub = yaml_lines(item, indent + 2)
                    lines.append(pad + "- " + sub[0][indent + 2:])
                    lines += sub[1:]
                else:
                    lines.append(pad + "- " + yaml_scalar(item))
        else:
            lines.append("%s%s: %s" % (pad, key, yaml_scalar(value)))
    return lines


def to_yaml(obj):
    return "\n".join(yaml_lines(obj, 0)) + "\n"


def kubeconfig(clusters=(), users=(), contexts=(), current=""):
    """A Config object; clusters/users/contexts are (name, body) pairs, in file order."""
    return {"apiVersion": "v1", "kind": "Config", "preferences": {},
            "clusters": [{"name": n, "cluster": c} for n, c in clusters],
            "users": [{"name": n, "user": u} for n, u in users],
            "contexts": [{"name": n, "context": c} for n, c in contexts],
            "current-context": current}


def simple(server, user, namespace="ml", cluster_extra=None, current="ctx"):
    """One cluster ("c", the fake at `server` with the test CA by absolute path unless
    cluster_extra says otherwise), one user ("u": the `user` dict), one context ("ctx")."""
    body = {"server": server}
    if server.startswith("https:"):
        body["certificate-authority"] = CA
    body.update(cluster_extra or {})
    body = {k: v for k, v in body.items() if v is not None}
    ctx = {"cluster": "c", "user": "u"}
    if namespace:
        ctx["namespace"] = namespace
    return kubeconfig([("c", body)], [("u", user)], [("ctx", ctx)], current)


def b64(data):
    if isinstance(data, str):
        data = data.encode()
    return base64.b64encode(data).decode()


def read_cert(name):
    with open(os.path.join(CERTS, name)) as f:
        return f.read()


def cut_line(pem):
    """PEM whose last body line is gone: still base64, but the DER inside is cut short (a
    copy cut at a line break)."""
    lines = pem.strip().split("\n")
    return "\n".join(lines[:-2] + lines[-1:]) + "\n"


def cut_chars(pem):
    """PEM whose last body line lost 5 characters: no longer base64 (a copy cut mid-line)."""
    lines = pem.strip().split("\n")
    lines[-2] = lines[-2][:-5]
    return "\n".join(lines) + "\n"


# ======================================================================== one case

POD_LIST = re.compile(r"/api/v1/(?:namespaces/([^/]+)/)?pods")


def fingerprint(value):
    """An Authorization value as it may be shown: its scheme and a hash of the rest."""
    if value is None:
        return None
    scheme, _, rest = value.partition(" ")
    return "%s #%s" % (scheme, hashlib.sha256(rest.encode()).hexdigest()[:12])


def bearer(token):
    return fingerprint("Bearer " + token)


def basic(user, password):
    return fingerprint("Basic " + b64("%s:%s" % (user, password)))


def facts(rec):
    """What is compared of one pod-list request: namespace (None: all namespaces), the
    Authorization value (fingerprinted), the client certificate's subject, the impersonation
    headers (groups as a list, in order) and the SNI the client sent."""
    h = rec["headers"]
    groups = h.get("impersonate-group")
    groups = groups if isinstance(groups, list) else [groups] if groups is not None else []
    return {"namespace": POD_LIST.fullmatch(rec["path"]).group(1),
            "authorization": fingerprint(h.get("authorization")),
            "client_subject": rec.get("client_subject"),
            "impersonate-user": h.get("impersonate-user"), "impersonate-group": groups,
            "impersonate-uid": h.get("impersonate-uid"), "sni": rec.get("sni")}


def pod_lists(records):
    return [r for r in records if r["method"] == "GET" and POD_LIST.fullmatch(r["path"])]


def the_one(requests, who):
    """The facts every pod-list request of `who` shares (they must all agree)."""
    assert requests, "%s sent no pod-list request" % who
    seen = [facts(r) for r in requests]
    assert all(f == seen[0] for f in seen), "%s's pod lists differ: %s" % (who, seen)
    return seen[0]


def secrets():
    """The tokens and the password, and the test private keys as their PEM body lines and as
    the start of their base64 (client-key-data)."""
    found = list(SECRETS)
    for name in ("client.key", "client2.key"):
        path = os.path.join(CERTS, name)
        if os.path.exists(path):
            pem = read_cert(name)
            found += [line for line in pem.splitlines() if len(line) >= 32 and "-----" not in line]
            found.append(b64(pem)[:40])
    return found


def no_secret(text, what):
    for s in secrets():
        assert s not in text, "a credential leaked into %s" % what


class Case:
    """A scratch directory for one test: home/ (HOME), work/ (the working directory of both
    clients: never the kubeconfig's directory, so relative paths must be resolved against
    the file), and files written into it."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(dir=TMP)
        self.home = self.mkdir("home")
        self.work = self.mkdir("work")
        self.cache = os.path.join(self.dir, "kubectl-cache")

    def mkdir(self, rel):
        path = os.path.join(self.dir, rel)
        os.makedirs(path, exist_ok=True)
        return path

    def write(self, rel, content, mode=None):
        path = os.path.join(self.dir, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if isinstance(content, dict):
            content = to_yaml(content)
        with open(path, "w", newline="") as f:
            f.write(content)
        if mode is not None:
            os.chmod(path, mode)
        return path

    def copy_cert(self, name, rel_dir="."):
        """Copies CERTS/name into the case (rel_dir/name); returns that relative path."""
        rel = os.path.normpath(os.path.join(rel_dir, name))
        self.mkdir(os.path.dirname(rel) or ".")
        shutil.copy(os.path.join(CERTS, name), os.path.join(self.dir, rel))
        return rel

    def env(self, kubeconfig=None, path=PATH):
        """The scrubbed environment: PATH, HOME, and KUBECONFIG when given ("" is kept)."""
        env = {"PATH": path, "HOME": self.home}
        if kubeconfig is not None:
            env["KUBECONFIG"] = kubeconfig
        return env


def run(argv, env, cwd):
    return subprocess.run(argv, capture_output=True, text=True, timeout=60, env=env, cwd=cwd,
                          stdin=subprocess.DEVNULL)


def kubectl(case, env, flags=()):
    """kubectl get pods -l SELECTOR -o json with the case's flags, a fresh cache."""
    real.tool(KUBECTL, "kubectl")
    shutil.rmtree(case.cache, ignore_errors=True)
    return run([KUBECTL, "get", "pods", "-l", SELECTOR, "-o", "json", "--cache-dir", case.cache,
                "--request-timeout", "20s"] + list(flags), env, case.work)


def ours(case, env, flags=(), verbose=False):
    """cluster-resolve k8s FLAGS --job worker=SELECTOR --format spec; verbose: every log line
    on stderr too (where no_secret then looks)."""
    return run([CLI, "k8s"] + list(flags) + ["--job", "worker=" + SELECTOR, "--format", "spec"]
               + (["--verbose"] if verbose else []), env, case.work)


class Result:
    pass


def same(case, fake, env, flags=(), namespace="ml", between=None):
    """Runs kubectl, then ours, with the same environment and flags against `fake`. Both must
    succeed and agree on what they sent with their pod lists; ours must resolve exactly the
    Running, not terminating pods kubectl printed (and the fixture holds) in `namespace`.
    between(), when given, runs after kubectl and before ours.
    -> Result: facts (the pod-list requests' shared facts), kubectl and ours (requests)."""
    before = len(fake.requests())
    k = kubectl(case, env, flags)
    no_secret(k.stdout + k.stderr, "kubectl's output")
    assert k.returncode == 0, "kubectl exit %d: %s" % (k.returncode, k.stderr.strip()[-800:])
    items = json.loads(k.stdout)["items"]
    middle = len(fake.requests())
    if between:
        between()
    o = ours(case, env, flags, verbose=True)
    no_secret(o.stdout + o.stderr, "our output and log")
    assert o.returncode == 0, "cluster-resolve exit %d: %s" % (o.returncode, o.stderr.strip())
    log = fake.requests()
    kreqs, oreqs = pod_lists(log[before:middle]), pod_lists(log[middle:])
    kfacts, ofacts = the_one(kreqs, "kubectl"), the_one(oreqs, "cluster-resolve")
    assert kfacts == ofacts, "pod lists differ:\n  kubectl %s\n  ours    %s" % (kfacts, ofacts)
    assert kfacts["namespace"] == namespace, (kfacts, namespace)
    want = real.members(items)
    assert want == fixture_members(namespace), "kubectl saw %s" % want
    got = json.loads(o.stdout)
    assert got == {"worker": want}, "ours %s, kubectl's pods %s" % (got, want)
    res = Result()
    res.facts, res.kubectl, res.ours = kfacts, kreqs, oreqs
    return res


def expect(res, authorization=None, client_subject=None, user=None, groups=(), uid=None,
           sni=None):
    """The facts a case must have produced (namespace is checked by same())."""
    want = {"namespace": res.facts["namespace"], "authorization": authorization,
            "client_subject": client_subject, "impersonate-user": user,
            "impersonate-group": list(groups), "impersonate-uid": uid, "sni": sni}
    assert res.facts == want, "sent %s, want %s" % (res.facts, want)


def both_fail(case, env, file, words, flags=(), kubectl_says=None, fake=None):
    """kubectl must fail (non-zero); ours must exit 3 with nothing on stdout and exactly one
    stderr line naming `file` and every one of `words` (the field, a name), sending no pod
    list. kubectl_says: words of kubectl's own message (documented finding)."""
    fake = fake or main_fake()
    k = kubectl(case, env, flags)
    no_secret(k.stdout + k.stderr, "kubectl's output")
    assert k.returncode != 0, "kubectl accepted it"
    for w in kubectl_says or ():
        assert w in k.stderr, "kubectl said %r, not %r" % (k.stderr.strip()[-600:], w)
    middle = len(fake.requests())
    o = ours(case, env, flags)
    no_secret(o.stdout + o.stderr, "our output")
    lines = o.stderr.strip().splitlines()
    assert o.returncode == 3 and o.stdout == "" and len(lines) == 1, \
        "cluster-resolve exit %d (want 3), stdout %r, stderr %r" % (o.returncode, o.stdout[:200],
                                                                    o.stderr[-800:])
    for w in [file] + list(words):
        assert w in lines[0], "%r not in our message %r" % (w, lines[0])
    v = ours(case, env, flags, verbose=True)  # and every log line of the failing run
    no_secret(v.stdout + v.stderr, "our log")
    assert not pod_lists(fake.requests()[middle:]), "we listed pods anyway"
    return k.stderr


# ======================================================================== where the file is

@test
def default_file_in_home():
    """No KUBECONFIG: both read $HOME/.kube/config (context namespace ml, a token)."""
    c = Case()
    c.write("home/.kube/config", simple(main_fake().url, {"token": TOKEN}))
    expect(same(c, main_fake(), c.env()), bearer(TOKEN))


@test
def kubeconfig_env_one_file():
    """KUBECONFIG names one file (outside HOME); HOME has another config that must not be
    read (its user's token differs)."""
    c = Case()
    c.write("home/.kube/config", simple(main_fake().url, {"token": OTHER_TOKEN}))
    path = c.write("conf/one.yaml", simple(main_fake().url, {"token": TOKEN}))
    expect(same(c, main_fake(), c.env(path)), bearer(TOKEN))


@test
def kubeconfig_env_empty_means_home():
    """KUBECONFIG="" (set but empty) means $HOME/.kube/config, as if unset."""
    c = Case()
    c.write("home/.kube/config", simple(main_fake().url, {"token": TOKEN}, namespace="default"))
    expect(same(c, main_fake(), c.env(""), namespace="default"), bearer(TOKEN))


@test
def kubeconfig_flag_beats_env():
    """--kubeconfig F: that file only; $KUBECONFIG (another user) and HOME are not read."""
    c = Case()
    env = c.env(c.write("env.yaml", simple(main_fake().url, {"token": OTHER_TOKEN})))
    c.write("home/.kube/config", simple(main_fake().url, {"token": OTHER_TOKEN}))
    flag = c.write("flag/config", simple(main_fake().url, {"token": TOKEN}))
    expect(same(c, main_fake(), env, ["--kubeconfig", flag]), bearer(TOKEN))


@test
def kubeconfig_flag_missing_file_fails():
    """--kubeconfig naming a missing file is an error (kubectl: "stat F: no such file"),
    even with a usable $KUBECONFIG; ours exits 3 naming the file."""
    c = Case()
    env = c.env(c.write("env.yaml", simple(main_fake().url, {"token": TOKEN})))
    missing = os.path.join(c.dir, "nowhere", "config")
    both_fail(c, env, missing, [], ["--kubeconfig", missing], ["no such file"])


# ======================================================================== merging a list

@test
def merge_first_file_wins_whole_entries():
    """KUBECONFIG=a:b, both defining cluster "c", user "u" and context "ctx" differently: a's
    entries win whole, none of b's extra fields is merged into them: not b's context
    namespace (a's ctx has none: namespace default), not b's impersonation or token, not
    b's server, insecure-skip-tls-verify or tls-server-name. current-context comes from b,
    the only file that sets it."""
    c = Case()
    a = c.write("a/config", kubeconfig([("c", {"server": main_fake().url,
                                                "certificate-authority": CA})],
                                       [("u", {"token": TOKEN})],
                                       [("ctx", {"cluster": "c", "user": "u"})]))
    b = c.write("b/config", kubeconfig(
        [("c", {"server": "https://127.0.0.1:9", "insecure-skip-tls-verify": True,
                "tls-server-name": "elsewhere.invalid"})],
        [("u", {"token": OTHER_TOKEN, "as": "mallory", "as-groups": ["evil"]})],
        [("ctx", {"cluster": "c", "user": "u", "namespace": "ml"})], "ctx"))
    expect(same(c, main_fake(), c.env(a + ":" + b), namespace="default"), bearer(TOKEN))


@test
def merge_first_current_context_wins():
    """Two files set current-context: the first file's (namespace default, token) wins over
    the second's (namespace ml, another token)."""
    c = Case()
    cl = [("c", {"server": main_fake().url, "certificate-authority": CA})]
    a = c.write("a.yaml", kubeconfig(cl, [("ua", {"token": TOKEN})],
                                     [("first", {"cluster": "c", "user": "ua",
                                                 "namespace": "default"})], "first"))
    b = c.write("b.yaml", kubeconfig(cl, [("ub", {"token": OTHER_TOKEN})],
                                     [("second", {"cluster": "c", "user": "ub",
                                                  "namespace": "ml"})], "second"))
    expect(same(c, main_fake(), c.env(a + ":" + b), namespace="default"), bearer(TOKEN))


@test
def merge_empty_current_context_is_unset():
    """current-context: "" in the first file counts as unset: the second file's applies."""
    c = Case()
    cl = [("c", {"server": main_fake().url, "certificate-authority": CA})]
    a = c.write("a.yaml", kubeconfig(cl, [("ua", {"token": OTHER_TOKEN})],
                                     [("first", {"cluster": "c", "user": "ua"})], ""))
    b = c.write("b.yaml", kubeconfig([], [("ub", {"token": TOKEN})],
                                     [("second", {"cluster": "c", "user": "ub",
                                                  "namespace": "ml"})], "second"))
    assert 'current-context: ""' in open(a).read()
    expect(same(c, main_fake(), c.env(a + ":" + b)), bearer(TOKEN))


@test
def merge_skips_missing_files_and_empty_names():
    """KUBECONFIG=":missing::real:missing2:": empty names and missing files are skipped."""
    c = Case()
    real_file = c.write("real.yaml", simple(main_fake().url, {"token": TOKEN}))
    missing = os.path.join(c.dir, "missing.yaml")
    value = ":%s::%s:%s:" % (missing, real_file, os.path.join(c.dir, "nope", "config"))
    expect(same(c, main_fake(), c.env(value)), bearer(TOKEN))


@test
def merge_empty_file_and_null_sections():
    """An empty file and a file as kubectl writes an empty config (clusters: null, contexts:
    null, users: null, current-context: "") come first in the list and change nothing."""
    c = Case()
    empty = c.write("empty.yaml", "")
    nulls = c.write("nulls.yaml", "apiVersion: v1\nclusters: null\ncontexts: null\n"
                                  "current-context: \"\"\nkind: Config\npreferences: {}\n"
                                  "users: null\n")
    real_file = c.write("real.yaml", simple(main_fake().url, {"token": TOKEN}))
    expect(same(c, main_fake(), c.env(":".join([empty, nulls, real_file]))), bearer(TOKEN))


@test
def merge_relative_paths_per_file():
    """Relative paths resolve against the directory of the file that defined the stanza:
    a/config's cluster has certificate-authority: certs/ca.pem (a/certs/), b/config's user
    has client-certificate/-key: tls/client.pem (b/tls/)."""
    c = Case()
    ca = c.copy_cert("ca.pem", "a/certs")
    cert, key = c.copy_cert("client.pem", "b/tls"), c.copy_cert("client.key", "b/tls")
    a = c.write("a/config", kubeconfig([("c", {"server": main_fake().url,
                                                "certificate-authority":
                                                    os.path.relpath(ca, "a")})]))
    b = c.write("b/config", kubeconfig(
        [], [("u", {"client-certificate": os.path.relpath(cert, "b"),
                    "client-key": os.path.relpath(key, "b")})],
        [("ctx", {"cluster": "c", "user": "u", "namespace": "ml"})], "ctx"))
    expect(same(c, main_fake(), c.env(a + ":" + b)), client_subject=JANE)


# ======================================================================== context, namespace

def two_contexts(fake):
    """Contexts "ml-ctx" (namespace ml, the token) and "other" (no namespace, basic auth);
    current-context ml-ctx."""
    return kubeconfig([("c", {"server": fake.url, "certificate-authority": CA})],
                      [("tok", {"token": TOKEN}),
                       ("pw", {"username": USER, "password": PASSWORD})],
                      [("ml-ctx", {"cluster": "c", "user": "tok", "namespace": "ml"}),
                       ("other", {"cluster": "c", "user": "pw"})], "ml-ctx")


@test
def context_flag_selects_context():
    """--context other: that context's user (basic auth) and, with no namespace in it,
    namespace default."""
    c = Case()
    env = c.env(c.write("config", two_contexts(main_fake())))
    expect(same(c, main_fake(), env, ["--context", "other"], namespace="default"),
           basic(USER, PASSWORD))


@test
def context_namespace_used():
    """The current context's namespace (ml) is the namespace listed."""
    c = Case()
    env = c.env(c.write("config", two_contexts(main_fake())))
    expect(same(c, main_fake(), env, namespace="ml"), bearer(TOKEN))


@test
def namespace_flag_beats_context():
    """--namespace default wins over the context's namespace ml."""
    c = Case()
    env = c.env(c.write("config", two_contexts(main_fake())))
    expect(same(c, main_fake(), env, ["--namespace", "default"], namespace="default"),
           bearer(TOKEN))


@test
def no_namespace_means_default():
    """A context without namespace lists namespace default."""
    c = Case()
    env = c.env(c.write("config", simple(main_fake().url, {"token": TOKEN}, namespace=None)))
    expect(same(c, main_fake(), env, namespace="default"), bearer(TOKEN))


# ======================================================================== cluster fields

@test
def cluster_certificate_authority_relative():
    """certificate-authority: pki/ca.pem, relative to the kubeconfig's directory (the
    clients run elsewhere)."""
    c = Case()
    rel = c.copy_cert("ca.pem", "kube/pki")
    env = c.env(c.write("kube/config", simple(main_fake().url, {"token": TOKEN}, cluster_extra={
        "certificate-authority": os.path.relpath(rel, "kube")})))
    expect(same(c, main_fake(), env), bearer(TOKEN))


@test
def cluster_certificate_authority_data():
    """certificate-authority-data: the CA's PEM, base64."""
    c = Case()
    env = c.env(c.write("config", simple(main_fake().url, {"token": TOKEN}, cluster_extra={
        "certificate-authority": None, "certificate-authority-data": b64(read_cert("ca.pem"))})))
    expect(same(c, main_fake(), env), bearer(TOKEN))


@test
def cluster_certificate_authority_bundle_as_kubectl_reads_it():
    """A CA file as people assemble them: a comment line, a certificate cut short, an
    unrelated CA, the test CA, CR LF line ends. kubectl skips what it cannot use and trusts
    the rest (Go's AppendCertsFromPEM); so do we."""
    c = Case()
    text = ("# CA bundle of the ml clusters\n" + cut_line(read_cert("other-ca.pem")) +
            read_cert("other-ca.pem") + read_cert("ca.pem")).replace("\n", "\r\n")
    c.write("kube/ca-bundle.pem", text)
    env = c.env(c.write("kube/config", simple(main_fake().url, {"token": TOKEN}, cluster_extra={
        "certificate-authority": "ca-bundle.pem"})))
    expect(same(c, main_fake(), env), bearer(TOKEN))


@test
def cluster_certificate_authority_empty_file():
    """certificate-authority naming an empty file: kubectl reads it as no CA of its own and
    verifies with the system's, which do not know the test CA ("x509: certificate signed by
    unknown authority"); so do we: the TLS handshake fails (exit 4), not the kubeconfig, and
    no pod list is sent."""
    c = Case()
    c.write("kube/empty.pem", "")
    path = c.write("kube/config", simple(main_fake().url, {"token": TOKEN}, cluster_extra={
        "certificate-authority": "empty.pem"}))
    before = len(main_fake().requests())
    k = kubectl(c, c.env(path))
    assert k.returncode != 0 and "certificate signed by unknown authority" in k.stderr, \
        k.stderr.strip()[-600:]
    o = ours(c, c.env(path))
    assert o.returncode == 4 and "certificate" in o.stderr and "PEM" not in o.stderr, \
        "cluster-resolve exit %d: %s" % (o.returncode, o.stderr.strip()[-600:])
    assert not pod_lists(main_fake().requests()[before:]), "a pod list was sent"


@test
def cluster_insecure_skip_tls_verify():
    """insecure-skip-tls-verify: true and no CA: the server certificate is not checked."""
    c = Case()
    env = c.env(c.write("config", simple(main_fake().url, {"token": TOKEN}, cluster_extra={
        "certificate-authority": None, "insecure-skip-tls-verify": True})))
    expect(same(c, main_fake(), env), bearer(TOKEN))


@test
def cluster_tls_server_name():
    """tls-server-name: elsewhere.invalid against https://127.0.0.1:PORT serving a certificate
    valid only for elsewhere.invalid: both verify against that name and send it as SNI; the
    Host header stays 127.0.0.1:PORT. (Without it kubectl fails: "x509: cannot validate
    certificate for 127.0.0.1 because it doesn't contain any IP SANs".)"""
    c = Case()
    fake = elsewhere_fake()
    env = c.env(c.write("config", simple(fake.url, {"token": TOKEN}, cluster_extra={
        "tls-server-name": "elsewhere.invalid"})))
    res = same(c, fake, env)
    expect(res, bearer(TOKEN), sni="elsewhere.invalid")
    hosts = {r["headers"].get("host") for r in res.kubectl + res.ours}
    assert hosts == {fake.host}, hosts


@test
def cluster_server_by_host_name_sends_sni():
    """server: https://localhost:PORT (server.pem names localhost): both send SNI localhost
    (to https://127.0.0.1 neither sends any: an IP address is no server name) and a Host
    header localhost:PORT."""
    c = Case()
    fake = main_fake()
    url = "https://localhost:%d" % fake.port
    env = c.env(c.write("config", simple(url, {"token": TOKEN})))
    res = same(c, fake, env)
    expect(res, bearer(TOKEN), sni="localhost")
    hosts = {r["headers"].get("host") for r in res.kubectl + res.ours}
    assert hosts == {"localhost:%d" % fake.port}, hosts


def through_proxy(kind, scheme):
    c = Case()
    px = proxy(kind)
    before = len(px.records())
    env = c.env(c.write("config", simple(main_fake().url, {"token": TOKEN}, cluster_extra={
        "proxy-url": "%s://127.0.0.1:%d" % (scheme, px.port)})))
    res = same(c, main_fake(), env)
    expect(res, bearer(TOKEN))
    tunnels = px.records()[before:]
    assert tunnels and all(t["target"] == main_fake().host and t["result"] == "ok"
                           for t in tunnels), tunnels
    return tunnels


@test
def cluster_proxy_url_http_connect():
    """proxy-url: http://127.0.0.1:P (an HTTP CONNECT proxy): both tunnel through it to the
    server (kubectl opens one tunnel per connection, the dispatcher's /version included)."""
    through_proxy("http", "http")


@test
def cluster_proxy_url_socks5():
    """proxy-url: socks5://127.0.0.1:P: both connect through the SOCKS5 proxy, which logs
    the server (kubectl asks for the IPv4 address, not a name) as the target."""
    tunnels = through_proxy("socks5", "socks5")
    assert {t["address_type"] for t in tunnels[:1]} == {"ipv4"}, tunnels


@test
def http_server_gets_no_credentials():
    """A plain http:// server: kubectl sends no Authorization there (finding: the token is
    dropped; a fake that requires one answers 401 and kubectl fails "You must be logged in to
    the server"); ours must not send it either. The fake here requires nothing."""
    c = Case()
    fake = plain_fake()
    env = c.env(c.write("config", simple(fake.url, {"token": TOKEN})))
    expect(same(c, fake, env))


@test
def http_server_gets_impersonation_but_no_token():
    """A plain http:// server with a token and impersonation: kubectl drops the token but still
    sends Impersonate-User and Impersonate-Group (they are not credentials); so must we."""
    c = Case()
    fake = plain_fake()
    env = c.env(c.write("config", simple(fake.url, {"token": TOKEN, "as": "jane",
                                                    "as-groups": ["dev", "ops"]})))
    expect(same(c, fake, env), user="jane", groups=("dev", "ops"))


@test
def http_server_gets_no_basic_auth():
    """The same for a username and password: no Basic credentials to an http:// server."""
    c = Case()
    fake = plain_fake()
    env = c.env(c.write("config", simple(fake.url, {"username": USER, "password": PASSWORD})))
    expect(same(c, fake, env))


# ======================================================================== user fields

@test
def user_auth_provider_oidc_id_token():
    """auth-provider oidc with a current id-token (and the issuer and client kubectl's provider
    requires): both send it as the bearer token, neither refreshes it."""
    c = Case()
    env = c.env(c.write("config", simple(main_fake().url, {"auth-provider": {
        "name": "oidc", "config": {"idp-issuer-url": "https://issuer.test", "client-id": "k8s",
                                   "id-token": OIDC_TOKEN}}})))
    expect(same(c, main_fake(), env), bearer(OIDC_TOKEN))


@test
def user_token():
    """user.token: "Authorization: Bearer TOKEN"."""
    c = Case()
    env = c.env(c.write("config", simple(main_fake().url, {"token": TOKEN})))
    expect(same(c, main_fake(), env), bearer(TOKEN))


@test
def user_token_file_relative():
    """user.tokenFile: secrets/token relative to the kubeconfig's directory; a trailing
    newline in the file is not part of the token."""
    c = Case()
    c.write("kube/secrets/token", TOKEN_FILE_TOKEN + "\n")
    env = c.env(c.write("kube/config", simple(main_fake().url, {"tokenFile": "secrets/token"})))
    expect(same(c, main_fake(), env), bearer(TOKEN_FILE_TOKEN))


@test
def user_token_and_token_file():
    """token AND tokenFile both set. Finding (kubectl 1.27 to 1.33 on this machine, each
    build run directly): the tokenFile's token is sent, not `token`, as client-go's current
    godoc says ("the last successfully read value takes precedence over Token"; the older
    godoc said token wins). Ours must do the same."""
    c = Case()
    c.write("token", TOKEN_FILE_TOKEN)
    env = c.env(c.write("config", simple(main_fake().url,
                                         {"token": OTHER_TOKEN, "tokenFile": "token"})))
    expect(same(c, main_fake(), env), bearer(TOKEN_FILE_TOKEN))


@test
def token_file_wins_with_kubectl_1_27():
    """The same against a server reporting v1.27.16: the dispatcher runs its kubectl.1.27
    build (as "kubectl": the pod list's User-Agent is kubectl/v1.27.16, where the dispatcher's
    own requests say kubectl/v1.32.4), which also sends the tokenFile's token."""
    real.tool(os.path.join(SDK_BIN, "kubectl.1.27"), "kubectl 1.27")
    c = Case()
    fake = main_fake("v1.27.16")
    c.write("token", TOKEN_FILE_TOKEN)
    env = c.env(c.write("config", simple(fake.url, {"token": OTHER_TOKEN, "tokenFile": "token"})))
    res = same(c, fake, env)
    expect(res, bearer(TOKEN_FILE_TOKEN))
    agents = {r["headers"].get("user-agent", "").split(" ")[0] for r in res.kubectl}
    assert agents == {"kubectl/v1.27.16"}, agents


@test
def user_client_certificate_files_relative():
    """client-certificate / client-key as relative paths: the fake sees CN=jane,O=ml-team
    and no Authorization."""
    c = Case()
    cert, key = c.copy_cert("client.pem", "kube/me"), c.copy_cert("client.key", "kube/me")
    env = c.env(c.write("kube/config", simple(main_fake().url, {
        "client-certificate": os.path.relpath(cert, "kube"),
        "client-key": os.path.relpath(key, "kube")})))
    expect(same(c, main_fake(), env), client_subject=JANE)


@test
def user_client_certificate_data():
    """client-certificate-data / client-key-data (base64 PEM)."""
    c = Case()
    env = c.env(c.write("config", simple(main_fake().url, {
        "client-certificate-data": b64(read_cert("client.pem")),
        "client-key-data": b64(read_cert("client.key"))})))
    expect(same(c, main_fake(), env), client_subject=JANE)


@test
def user_client_key_sec1():
    """client-key-data holding the key as "EC PRIVATE KEY" (SEC 1, as kubeadm and openssl ec
    write it) instead of PKCS #8 "PRIVATE KEY": both use it."""
    c = Case()
    sec1 = subprocess.run(["openssl", "ec", "-in", os.path.join(CERTS, "client.key")],
                          capture_output=True, text=True, check=True).stdout
    assert sec1.startswith("-----BEGIN EC PRIVATE KEY-----"), sec1[:40]
    env = c.env(c.write("config", simple(main_fake().url, {
        "client-certificate-data": b64(read_cert("client.pem")), "client-key-data": b64(sec1)})))
    expect(same(c, main_fake(), env), client_subject=JANE)


@test
def user_basic_auth():
    """username / password (the password has a colon): "Authorization: Basic ..."."""
    c = Case()
    env = c.env(c.write("config", simple(main_fake().url,
                                         {"username": USER, "password": PASSWORD})))
    expect(same(c, main_fake(), env), basic(USER, PASSWORD))


@test
def user_impersonation():
    """as / as-groups (two, in order) / as-uid with a token: Impersonate-User,
    Impersonate-Group twice, Impersonate-Uid."""
    c = Case()
    env = c.env(c.write("config", simple(main_fake().url, {
        "token": TOKEN, "as": "bob@example.com", "as-groups": ["ml-admins", "system:masters"],
        "as-uid": "1234-abcd"})))
    expect(same(c, main_fake(), env), bearer(TOKEN), user="bob@example.com",
           groups=["ml-admins", "system:masters"], uid="1234-abcd")


@test
def user_impersonation_with_client_certificate():
    """as / as-groups (one) with a client certificate: the certificate authenticates, the
    headers ask to impersonate."""
    c = Case()
    env = c.env(c.write("config", simple(main_fake().url, {
        "client-certificate": os.path.join(CERTS, "client.pem"),
        "client-key": os.path.join(CERTS, "client.key"),
        "as": "system:serviceaccount:ml:trainer", "as-groups": ["system:serviceaccounts"]})))
    expect(same(c, main_fake(), env), client_subject=JANE,
           user="system:serviceaccount:ml:trainer", groups=["system:serviceaccounts"])


@test
def user_empty_impersonation_without_as():
    """as-groups: [], as-uid: "" and as-user-extra: {} without as ask for nothing: kubectl
    sends the token and no Impersonate-* header; so do we."""
    c = Case()
    env = c.env(c.write("config", simple(main_fake().url, {
        "token": TOKEN, "as-groups": [], "as-uid": "", "as-user-extra": {}})))
    expect(same(c, main_fake(), env), bearer(TOKEN))


# ======================================================================== written by kubectl

def kubectl_config(case, env, *args):
    p = run([KUBECTL, "config"] + list(args), env, case.work)
    assert p.returncode == 0, "kubectl config %s: %s" % (args[0], p.stderr.strip())


@test
def written_by_kubectl_config_commands():
    """A file made by kubectl itself: set-cluster --server --certificate-authority
    --embed-certs, set-credentials --token, set-context --cluster --user --namespace,
    use-context (into a fresh KUBECONFIG file)."""
    c = Case()
    path = os.path.join(c.dir, "generated", "config")
    os.makedirs(os.path.dirname(path))
    env = c.env(path)
    kubectl_config(c, env, "set-cluster", "dev", "--server", main_fake().url,
                   "--certificate-authority", CA, "--embed-certs=true")
    kubectl_config(c, env, "set-credentials", "jane", "--token", TOKEN)
    kubectl_config(c, env, "set-context", "dev-ml", "--cluster", "dev", "--user", "jane",
                   "--namespace", "ml")
    kubectl_config(c, env, "use-context", "dev-ml")
    with open(path) as f:
        text = f.read()
    assert "certificate-authority-data:" in text and "current-context: dev-ml" in text, \
        "kubectl wrote an unexpected file"
    expect(same(c, main_fake(), env), bearer(TOKEN))


@test
def json_kubeconfig_from_config_view():
    """JSON, as `kubectl config view --raw --flatten -o json` writes it: the CA and the
    client certificate and key (relative paths in the YAML) are inlined as -data, so the
    JSON works after the files are gone."""
    c = Case()
    ca, cert, key = (c.copy_cert(n, "src") for n in ("ca.pem", "client.pem", "client.key"))
    src = c.write("src/config", simple(main_fake().url, {
        "client-certificate": os.path.relpath(cert, "src"),
        "client-key": os.path.relpath(key, "src")},
        cluster_extra={"certificate-authority": os.path.relpath(ca, "src")}))
    p = run([KUBECTL, "config", "view", "--raw", "--flatten", "-o", "json"], c.env(src), c.work)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert "client-certificate-data" in doc["users"][0]["user"], sorted(doc["users"][0]["user"])
    shutil.rmtree(os.path.join(c.dir, "src"))
    path = c.write("json/config.json", p.stdout)
    expect(same(c, main_fake(), c.env(path)), client_subject=JANE)


# ======================================================================== YAML details

@test
def yaml_comments_crlf_document_start():
    """Hand-edited YAML: a leading "---", comments (whole-line and after values, a "#"
    inside a quoted string), CRLF line endings, indented sequences ("  - name:")."""
    c = Case()
    text = """---
# cluster access for the ml team
apiVersion: v1   # always v1
kind: Config
clusters:
  - name: "c#1"   # a '#' inside quotes is not a comment
    cluster:
      server: %s
      certificate-authority: %s
users:
  - name: u
    user:
      # the token below is a test value
      token: %s
contexts:
  - name: ctx
    context:
      cluster: "c#1"
      user: u
      namespace: ml   # the team's namespace
current-context: ctx
""" % (main_fake().url, CA, TOKEN)
    path = c.write("config", text.replace("\n", "\r\n"))
    expect(same(c, main_fake(), c.env(path)), bearer(TOKEN))


@test
def yaml_flow_style_and_quoting():
    """Flow style ({...} and [...]), single- and double-quoted and plain strings, a quoted
    key, and an as-groups list in flow style."""
    c = Case()
    text = """apiVersion: 'v1'
kind: "Config"
clusters: [{name: c, cluster: {server: '%s', "certificate-authority": "%s"}}]
users: [{name: 'u', user: {token: "%s", as: 'o''brien', 'as-groups': [team-a, "team b"]}}]
contexts:
- {name: ctx, context: {cluster: c, user: u, namespace: 'ml'}}
current-context: 'ctx'
preferences: {}
""" % (main_fake().url, CA, TOKEN)
    path = c.write("config", text)
    expect(same(c, main_fake(), c.env(path)), bearer(TOKEN), user="o'brien",
           groups=["team-a", "team b"])


@test
def yaml_json_subset_document():
    """The whole file one JSON object (JSON is YAML), with the keys in another order than
    kubectl's and the user before the cluster."""
    c = Case()
    doc = {"current-context": "ctx", "users": [{"user": {"token": TOKEN}, "name": "u"}],
           "contexts": [{"context": {"namespace": "ml", "user": "u", "cluster": "c"},
                         "name": "ctx"}],
           "clusters": [{"cluster": {"certificate-authority": CA, "server": main_fake().url},
                         "name": "c"}]}
    path = c.write("config.json", json.dumps(doc, indent=1))
    expect(same(c, main_fake(), c.env(path)), bearer(TOKEN))


# ======================================================================== validation errors

def bad(case, user=None, cluster_extra=None, **kw):
    return case.write("config", simple(main_fake().url, user or {"token": TOKEN},
                                       cluster_extra=cluster_extra, **kw))


@test
def invalid_ca_file_and_data():
    """certificate-authority and certificate-authority-data both set: kubectl fails ("...
    are both specified for c. certificate-authority-data will override."); ours exit 3."""
    c = Case()
    path = bad(c, cluster_extra={"certificate-authority-data": b64(read_cert("ca.pem"))})
    both_fail(c, c.env(path), path, ["certificate-authority"],
              kubectl_says=["certificate-authority-data and certificate-authority are both "
                            "specified"])


@test
def invalid_client_certificate_file_and_data():
    """client-certificate and client-certificate-data both set: kubectl fails ("client-cert-
    data and client-cert are both specified for u"); ours names client-certificate."""
    c = Case()
    path = bad(c, {"client-certificate": os.path.join(CERTS, "client.pem"),
                   "client-certificate-data": b64(read_cert("client.pem")),
                   "client-key": os.path.join(CERTS, "client.key")})
    both_fail(c, c.env(path), path, ["client-certificate"],
              kubectl_says=["client-cert-data and client-cert are both specified"])


@test
def invalid_client_key_file_and_data():
    """client-key and client-key-data both set: kubectl fails; ours names client-key."""
    c = Case()
    path = bad(c, {"client-certificate": os.path.join(CERTS, "client.pem"),
                   "client-key": os.path.join(CERTS, "client.key"),
                   "client-key-data": b64(read_cert("client.key"))})
    both_fail(c, c.env(path), path, ["client-key"],
              kubectl_says=["client-key-data and client-key are both specified"])


@test
def invalid_client_certificate_without_key():
    """A client certificate without a key: kubectl fails ("client-key-data or client-key
    must be specified for u to use the clientCert authentication method"); ours names
    client-key."""
    c = Case()
    path = bad(c, {"client-certificate": os.path.join(CERTS, "client.pem")})
    both_fail(c, c.env(path), path, ["client-key"],
              kubectl_says=["client-key-data or client-key must be specified"])


@test
def invalid_client_key_without_certificate():
    """A client key without a certificate: kubectl's validation lets it pass and ignores
    the key, so it has no credential at all: the fake answers 401 and kubectl then asks
    for a username on its closed stdin and fails ("Please enter Username: error: EOF").
    We refuse the half pair on purpose (exit 3, naming client-certificate)."""
    c = Case()
    path = bad(c, {"client-key": os.path.join(CERTS, "client.key")})
    both_fail(c, c.env(path), path, ["client-certificate"], kubectl_says=["EOF"])


@test
def invalid_context_flag_names_missing_context():
    """--context naming a context no file defines: kubectl fails ("context was not found
    for specified context: nope"); ours names the context."""
    c = Case()
    path = bad(c)
    both_fail(c, c.env(path), path, ["context", "nope"], ["--context", "nope"],
              kubectl_says=["context was not found for specified context: nope"])


@test
def invalid_current_context_names_nothing():
    """current-context naming an undefined context: kubectl fails the same way; ours names
    current-context and the missing name."""
    c = Case()
    path = bad(c, current="ghost")
    both_fail(c, c.env(path), path, ["current-context", "ghost"],
              kubectl_says=["context was not found for specified context: ghost"])


@test
def invalid_token_and_basic_auth():
    """token together with username/password: kubectl fails ("more than one authentication
    method found for u; found [token basicAuth], only one is allowed"); ours names token."""
    c = Case()
    path = bad(c, {"token": TOKEN, "username": USER, "password": PASSWORD})
    both_fail(c, c.env(path), path, ["token"],
              kubectl_says=["more than one authentication method found"])


@test
def invalid_exec_without_api_version():
    """exec without apiVersion: kubectl fails ("apiVersion must be specified for u to use
    exec authentication plugin"); ours names apiVersion."""
    c = Case()
    path = bad(c, {"exec": {"command": "/bin/true", "interactiveMode": "Never"}})
    both_fail(c, c.env(path), path, ["apiVersion"],
              kubectl_says=["apiVersion must be specified"])


@test
def invalid_exec_v1alpha1():
    """exec apiVersion client.authentication.k8s.io/v1alpha1, no longer accepted: kubectl
    fails ('exec plugin: invalid apiVersion "client.authentication.k8s.io/v1alpha1"');
    ours names apiVersion."""
    c = Case()
    path = bad(c, {"exec": {"command": "/bin/true", "interactiveMode": "Never",
                            "apiVersion": "client.authentication.k8s.io/v1alpha1"}})
    both_fail(c, c.env(path), path, ["apiVersion"], kubectl_says=["invalid apiVersion"])


@test
def invalid_exec_v1_without_interactive_mode():
    """exec v1 without interactiveMode (required for v1, defaulted only for v1beta1):
    kubectl fails ("interactiveMode must be specified for u to use exec authentication
    plugin"); ours names interactiveMode."""
    c = Case()
    path = bad(c, {"exec": {"command": "/bin/true", "apiVersion": EXEC_V1}})
    both_fail(c, c.env(path), path, ["interactiveMode"],
              kubectl_says=["interactiveMode must be specified"])


@test
def invalid_exec_with_auth_provider():
    """exec together with auth-provider: kubectl fails ("authProvider cannot be provided in
    combination with an exec plugin for u"); ours names auth-provider."""
    c = Case()
    path = bad(c, {"exec": {"command": "/bin/true", "apiVersion": EXEC_V1BETA1},
                   "auth-provider": {"name": "oidc", "config": {"client-id": "x"}}})
    both_fail(c, c.env(path), path, ["auth-provider"],
              kubectl_says=["authProvider cannot be provided in combination with an exec"])


@test
def invalid_unreadable_certificate_authority():
    """certificate-authority naming a file that cannot be read (absent; we run as root, so
    a mode-000 file would be readable): kubectl fails ("unable to read certificate-authority
    PATH for c due to open PATH: no such file or directory"); ours names the field."""
    c = Case()
    path = bad(c, cluster_extra={"certificate-authority": "missing-ca.pem"})
    both_fail(c, c.env(path), path, ["certificate-authority"],
              kubectl_says=["unable to read certificate-authority"])


@test
def invalid_unreadable_token_file():
    """tokenFile naming a missing file: kubectl fails ("open PATH: no such file or
    directory", without naming the field); ours names tokenFile."""
    c = Case()
    path = bad(c, {"tokenFile": "no-such-token"})
    both_fail(c, c.env(path), path, ["tokenFile"], kubectl_says=["no such file or directory"])


@test
def invalid_auth_provider_gcp():
    """auth-provider gcp: kubectl fails ("The gcp auth plugin has been removed. Please use
    the "gke-gcloud-auth-plugin" kubectl/client-go credential plugin instead."); ours names
    auth-provider."""
    c = Case()
    path = bad(c, {"auth-provider": {"name": "gcp", "config": {"cmd-path": "gcloud"}}})
    both_fail(c, c.env(path), path, ["auth-provider"],
              kubectl_says=["The gcp auth plugin has been removed"])


@test
def invalid_insecure_with_ca():
    """insecure-skip-tls-verify: true with a CA: kubectl fails ("specifying a root
    certificates file with the insecure flag is not allowed"); ours names
    insecure-skip-tls-verify."""
    c = Case()
    path = bad(c, cluster_extra={"insecure-skip-tls-verify": True})
    both_fail(c, c.env(path), path, ["insecure-skip-tls-verify"],
              kubectl_says=["specifying a root certificates file with the insecure flag"])


@test
def invalid_impersonation_without_as():
    """as-groups, as-uid or as-user-extra without as: kubectl fails ("requesting uid, groups
    or user-extra for u without impersonating a user"); ours exits 3 naming the field."""
    for field, value in (("as-groups", ["ml-admins"]), ("as-uid", "1234-abcd"),
                         ("as-user-extra", {"reason": ["audit"]})):
        c = Case()
        path = bad(c, {"token": TOKEN, field: value})
        both_fail(c, c.env(path), path, ['user "u"', '"%s" is set without "as"' % field],
                  kubectl_says=["requesting uid, groups or user-extra for u without "
                                "impersonating a user"])


@test
def invalid_certificate_authority_not_pem():
    """certificate-authority naming a file that holds no certificate kubectl can use: plain
    text, a private key (a block of the wrong type), the CA cut short by a line, and the same
    cut CA as certificate-authority-data. kubectl fails at load ("unable to load root
    certificates: unable to parse bytes as PEM block", "... no valid certificate authority
    data seen", "... failed to parse certificate: x509: malformed certificate", naming no
    file); ours exits 3 naming the field and the file."""
    for name, text, kubectl_words, our_words in (
            ("notes.txt", "ask the platform team for the CA\n", "unable to parse bytes as PEM block",
             "names a file with no PEM CERTIFICATE block"),
            ("key.pem", read_cert("client.key"), "no valid certificate authority data seen",
             "names a file with no PEM CERTIFICATE block"),
            ("cut.pem", cut_line(read_cert("ca.pem")), "x509: malformed certificate",
             "names a file with a malformed PEM CERTIFICATE block")):
        c = Case()
        ca = c.write("kube/" + name, text)
        path = c.write("kube/config", simple(main_fake().url, {"token": TOKEN}, cluster_extra={
            "certificate-authority": name}))
        both_fail(c, c.env(path), path, ['"certificate-authority" ' + our_words, ca],
                  kubectl_says=["unable to load root certificates", kubectl_words])
    c = Case()
    path = bad(c, cluster_extra={"certificate-authority": None,
                                 "certificate-authority-data": b64(cut_line(read_cert("ca.pem")))})
    both_fail(c, c.env(path), path,
              ['"certificate-authority-data" holds a malformed PEM CERTIFICATE block'],
              kubectl_says=["x509: malformed certificate"])


@test
def invalid_client_certificate_not_pem():
    """client-certificate naming the key file (the inputs switched), and client-certificate-
    data cut inside a line (no longer base64): kubectl fails ("tls: failed to find
    certificate PEM data in certificate input, but did find a private key; PEM inputs may
    have been switched" when it connects, for a file; "tls: failed to find any PEM data in
    certificate input" at load, for data); ours exits 3 at create naming the field."""
    key = os.path.join(CERTS, "client.key")
    c = Case()
    path = bad(c, {"client-certificate": key, "client-key": key})
    both_fail(c, c.env(path), path, ['"client-certificate" names a file with no PEM CERTIFICATE '
                                     'block', key],
              kubectl_says=["did find a private key; PEM inputs may have been switched"])
    c = Case()
    path = bad(c, {"client-certificate-data": b64(cut_chars(read_cert("client.pem"))),
                   "client-key-data": b64(read_cert("client.key"))})
    both_fail(c, c.env(path), path, ['"client-certificate-data" holds no PEM CERTIFICATE block'],
              kubectl_says=["failed to find any PEM data in certificate input"])


@test
def invalid_client_key_not_pem():
    """client-key-data holding the certificate, client-key naming an empty file, and the key
    cut short by a line: kubectl fails ("tls: found a certificate rather than a key in the
    PEM for the private key", "tls: failed to find any PEM data in key input", "tls: failed
    to parse private key"); ours exits 3 at create naming the field."""
    cert = read_cert("client.pem")
    c = Case()
    path = bad(c, {"client-certificate-data": b64(cert), "client-key-data": b64(cert)})
    both_fail(c, c.env(path), path, ['"client-key-data" holds no PEM PRIVATE KEY block'],
              kubectl_says=["found a certificate rather than a key"])
    for name, text, kubectl_words, our_words in (
            ("empty.key", "", "failed to find any PEM data in key input",
             "names a file with no PEM PRIVATE KEY block"),
            ("cut.key", cut_line(read_cert("client.key")), "failed to parse private key",
             "names a file with a malformed PEM PRIVATE KEY block")):
        c = Case()
        key = c.write("kube/" + name, text)
        path = c.write("kube/config", simple(main_fake().url, {
            "client-certificate": os.path.join(CERTS, "client.pem"), "client-key": name}))
        both_fail(c, c.env(path), path, ['"client-key" ' + our_words, key],
                  kubectl_says=[kubectl_words])


@test
def invalid_proxy_url_scheme():
    """proxy-url ftp://...: kubectl fails ("invalid 'proxy-url' ... unsupported scheme "ftp",
    must be http, https, or socks5"); ours names proxy-url."""
    c = Case()
    path = bad(c, cluster_extra={"proxy-url": "ftp://127.0.0.1:21"})
    both_fail(c, c.env(path), path, ["proxy-url"], kubectl_says=["unsupported scheme"])


@test
def invalid_yaml():
    """A file that is not YAML (an unclosed flow sequence): kubectl fails ('error loading
    config file "PATH": yaml: ...'); ours names the file."""
    c = Case()
    path = c.write("config", "clusters:\n- name: c\n  cluster: {server: [\n")
    both_fail(c, c.env(path), path, [], kubectl_says=["error loading config file"])


# ---- where kubectl silently does something else, and we refuse on purpose

@test
def differ_context_names_undefined_cluster():
    """A context naming a cluster no file defines. kubectl silently falls back to
    http://localhost:8080 (and fails to connect there). We differ on purpose: exit 3 naming
    the cluster, before any connection."""
    c = Case()
    path = c.write("config", kubeconfig([("c", {"server": main_fake().url,
                                                "certificate-authority": CA})],
                                        [("u", {"token": TOKEN})],
                                        [("ctx", {"cluster": "ghost-cluster", "user": "u"})],
                                        "ctx"))
    both_fail(c, c.env(path), path, ["cluster", "ghost-cluster"], kubectl_says=["localhost:8080"])


@test
def differ_context_names_undefined_user():
    """A context naming a user no file defines. kubectl silently goes on without
    credentials (the fake answers 401; kubectl then prompts for a username and fails on
    EOF). We differ on purpose: exit 3 naming the user."""
    c = Case()
    path = c.write("config", kubeconfig([("c", {"server": main_fake().url,
                                                "certificate-authority": CA})],
                                        [("u", {"token": TOKEN})],
                                        [("ctx", {"cluster": "c", "user": "ghost-user"})],
                                        "ctx"))
    both_fail(c, c.env(path), path, ["user", "ghost-user"], kubectl_says=["EOF"])


@test
def differ_no_current_context():
    """Contexts but no current-context (and no --context): kubectl silently uses
    http://localhost:8080. We differ on purpose: exit 3 naming current-context."""
    c = Case()
    path = bad(c, current="")
    both_fail(c, c.env(path), path, ["current-context"], kubectl_says=["localhost:8080"])


# ======================================================================== exec plugins

PLUGIN = r'''#!{python}
# A test exec credential plugin: appends what it saw as one JSON line to $PLUGIN_LOG, then
# prints an ExecCredential of the apiVersion KUBERNETES_EXEC_INFO asked for.
import json, os, stat, sys
raw = os.environ.get("KUBERNETES_EXEC_INFO")
info = json.loads(raw) if raw else None
try:
    mode = os.fstat(0).st_mode
    stdin = "tty" if os.isatty(0) else "devnull" if stat.S_ISCHR(mode) else \
        "pipe" if stat.S_ISFIFO(mode) else "file"
except OSError:
    stdin = "closed"
env = dict(os.environ)
env.pop("KUBERNETES_EXEC_INFO", None)
record = {{"argv0": os.path.basename(sys.argv[0]), "args": sys.argv[1:], "env": env,
          "exec_info": info, "stdin": stdin, "cwd": os.getcwd()}}
with open(os.environ["PLUGIN_LOG"], "a") as f:
    f.write(json.dumps(record, sort_keys=True) + "\n")
status = {status}
version = info["apiVersion"] if info else "{fallback}"
print(json.dumps({{"apiVersion": version, "kind": "ExecCredential", "status": status}}))
'''


def write_plugin(case, rel, status, fallback=EXEC_V1):
    """An executable plugin at case/rel whose shebang is this Python's absolute path (the
    clients run it under a scrubbed PATH); `status` is the ExecCredential status it prints."""
    return case.write(rel, PLUGIN.format(python=sys.executable, status=repr(status),
                                         fallback=fallback), mode=0o755)


def plugin_lines(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f]


def normalized(rec):
    """A plugin record as compared. One thing only one client may set is dropped: kubectl
    sends spec.cluster "config": null when the cluster has no client.authentication.k8s.io/exec
    extension; null and absent are the same to a plugin. Nothing else is ignored (LC_CTYPE,
    which Python adds to its own environment, PEP 538, is there alike in both runs)."""
    rec = json.loads(json.dumps(rec))
    cluster = ((rec.get("exec_info") or {}).get("spec") or {}).get("cluster")
    if isinstance(cluster, dict) and cluster.get("config", 0) is None:
        del cluster["config"]
    return rec


def differences(a, b, path="", width=90):
    """Where two JSON values differ: "path: A | B" lines, long values cut in the middle."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b))
                for d in differences(a.get(k, "<absent>"), b.get(k, "<absent>"),
                                     "%s.%s" % (path, k), width)]
    if a == b:
        return []

    def cut(v):
        text = json.dumps(v)
        return text if len(text) <= width else text[:width // 3] + "..." + text[-width // 2:]
    return ["%s: %s | %s" % (path or ".", cut(a), cut(b))]


def same_exec(case, env, log, flags=()):
    """same() for an exec user, then the plugin's records: kubectl ran it, so did we, and
    every run of ours saw what kubectl's runs saw (normalized()): argv, the whole
    environment, KUBERNETES_EXEC_INFO (parsed), stdin, working directory.
    -> (Result, kubectl's record)."""
    mark = []
    res = same(case, main_fake(), env, flags,
               between=lambda: mark.append(len(plugin_lines(log))))
    records = [normalized(r) for r in plugin_lines(log)]
    theirs, mine = records[:mark[0]], records[mark[0]:]
    assert theirs, "kubectl did not run the plugin"
    assert mine, "ours did not run the plugin"
    assert all(r == theirs[0] for r in theirs), "kubectl's plugin runs differ"
    for rec in mine:
        assert rec == theirs[0], "the plugin saw differently (kubectl | ours):\n  " + \
            "\n  ".join(differences(theirs[0], rec))
    return res, theirs[0]


def exec_user(command, version=EXEC_V1, **extra):
    body = {"command": command, "apiVersion": version}
    if version == EXEC_V1:
        body["interactiveMode"] = "Never"
    body.update(extra)
    return {"exec": body}


@test
def exec_v1_token_relative_command_args_env():
    """A v1 plugin printing a token, `command: ./bin/creds` (relative with a slash: resolved
    against the kubeconfig's directory, not the working directory), two args (one with a
    space), env entries (one overriding a variable the clients inherited). The plugin sees
    the same argv, environment, KUBERNETES_EXEC_INFO ({"apiVersion": v1, "kind":
    "ExecCredential", "spec": {"interactive": false}}, no cluster), stdin and directory."""
    c = Case()
    log = os.path.join(c.dir, "plugin.jsonl")
    write_plugin(c, "kube/bin/creds", {"token": EXEC_TOKEN})
    path = c.write("kube/config", simple(main_fake().url, exec_user(
        "./bin/creds", args=["--cluster", "ml prod"],
        env=[{"name": "PLUGIN_LOG", "value": log}, {"name": "SHADOWED", "value": "kubeconfig"},
             {"name": "EMPTY", "value": ""}])))
    env = dict(c.env(path), SHADOWED="inherited")
    res, rec = same_exec(c, env, log)
    expect(res, bearer(EXEC_TOKEN))
    assert rec["args"] == ["--cluster", "ml prod"] and rec["argv0"] == "creds", rec
    assert rec["env"]["SHADOWED"] == "kubeconfig" and rec["env"]["EMPTY"] == "", rec["env"]
    assert rec["exec_info"] == {"apiVersion": EXEC_V1, "kind": "ExecCredential",
                                "spec": {"interactive": False}}, rec["exec_info"]
    assert rec["cwd"] == c.work, rec["cwd"]


@test
def exec_v1beta1_client_certificate():
    """A v1beta1 plugin (no interactiveMode: IfAvailable; stdin is no terminal, so
    "interactive": false) printing clientCertificateData/clientKeyData (client2.pem/key):
    the fake sees CN=exec-user,O=plugins and no Authorization."""
    c = Case()
    log = os.path.join(c.dir, "plugin.jsonl")
    plugin = write_plugin(c, "plugins/cert-plugin", {
        "clientCertificateData": read_cert("client2.pem"),
        "clientKeyData": read_cert("client2.key")}, fallback=EXEC_V1BETA1)
    path = c.write("config", simple(main_fake().url, exec_user(
        plugin, EXEC_V1BETA1, env=[{"name": "PLUGIN_LOG", "value": log}])))
    res, rec = same_exec(c, c.env(path), log)
    expect(res, client_subject=EXEC_USER)
    assert rec["exec_info"]["apiVersion"] == EXEC_V1BETA1 and \
        rec["exec_info"]["spec"] == {"interactive": False}, rec["exec_info"]


@test
def exec_info_provide_cluster_info():
    """provideClusterInfo: true: KUBERNETES_EXEC_INFO's spec.cluster carries the server, the
    CA (certificate-authority read from its relative file, base64 as
    certificate-authority-data) and the cluster extension client.authentication.k8s.io/exec
    as "config"; the plugin echoes the apiVersion it was given."""
    c = Case()
    log = os.path.join(c.dir, "plugin.jsonl")
    plugin = write_plugin(c, "bin/info-plugin", {"token": EXEC_TOKEN})
    ca = c.copy_cert("ca.pem", "pki")
    extension = {"audience": "ml-cluster", "scopes": ["read", "list"], "depth": 2}
    path = c.write("config", simple(main_fake().url, exec_user(
        plugin, provideClusterInfo=True, env=[{"name": "PLUGIN_LOG", "value": log}]),
        cluster_extra={"certificate-authority": ca,
                       "extensions": [{"name": EXEC_KEY, "extension": extension},
                                      {"name": "example.com/other", "extension": {"x": "y"}}]}))
    res, rec = same_exec(c, c.env(path), log)
    expect(res, bearer(EXEC_TOKEN))
    assert rec["exec_info"] == {"apiVersion": EXEC_V1, "kind": "ExecCredential", "spec": {
        "interactive": False, "cluster": {
            "server": main_fake().url, "certificate-authority-data": b64(read_cert("ca.pem")),
            "config": extension}}}, rec["exec_info"]


@test
def exec_bare_command_from_path():
    """`command: kube-creds`, a bare name: found through PATH (the case's bin directory
    first), not in the kubeconfig's directory (where a decoy of that name would print a
    token the fake refuses)."""
    c = Case()
    log = os.path.join(c.dir, "plugin.jsonl")
    write_plugin(c, "tools/kube-creds", {"token": EXEC_TOKEN})
    write_plugin(c, "kube/kube-creds", {"token": "decoy-token-that-fails"})
    path = c.write("kube/config", simple(main_fake().url, exec_user(
        "kube-creds", env=[{"name": "PLUGIN_LOG", "value": log}])))
    env = c.env(path, path=os.path.join(c.dir, "tools") + ":" + PATH)
    res, rec = same_exec(c, env, log)
    expect(res, bearer(EXEC_TOKEN))
    assert rec["env"]["PATH"] == env["PATH"], rec["env"]


@test
def exec_gke_style_nulls_and_folded_hint():
    """A user as gcloud/kubectl write a GKE one: v1beta1, `args: null`, `env: null`, a
    folded multi-line plain installHint, interactiveMode: IfAvailable, provideClusterInfo:
    true, a bare command in PATH. PLUGIN_LOG comes from the clients' environment."""
    c = Case()
    log = os.path.join(c.dir, "plugin.jsonl")
    write_plugin(c, "sdk/bin/gke-gcloud-auth-plugin", {"token": EXEC_TOKEN},
                 fallback=EXEC_V1BETA1)
    text = """apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: %s
    server: %s
  name: gke_proj_us-central1_ml
contexts:
- context:
    cluster: gke_proj_us-central1_ml
    namespace: ml
    user: gke_proj_us-central1_ml
  name: gke_proj_us-central1_ml
current-context: gke_proj_us-central1_ml
kind: Config
preferences: {}
users:
- name: gke_proj_us-central1_ml
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      args: null
      command: gke-gcloud-auth-plugin
      env: null
      installHint: Install gke-gcloud-auth-plugin for use with kubectl by following
        https://cloud.google.com/kubernetes-engine/docs/how-to/cluster-access-for-kubectl#install_plugin
      interactiveMode: IfAvailable
      provideClusterInfo: true
""" % (b64(read_cert("ca.pem")), main_fake().url)
    path = c.write("config", text)
    env = dict(c.env(path, path=os.path.join(c.dir, "sdk", "bin") + ":" + PATH), PLUGIN_LOG=log)
    res, rec = same_exec(c, env, log)
    expect(res, bearer(EXEC_TOKEN))
    assert rec["args"] == [] and rec["exec_info"]["apiVersion"] == EXEC_V1BETA1, rec
    assert rec["exec_info"]["spec"]["cluster"]["server"] == main_fake().url, rec["exec_info"]


@test
def exec_expiry_in_1970_is_still_used():
    """A credential whose expirationTimestamp is 1970-01-01T00:00:00Z: already expired, yet
    the request it was fetched for carries it, in both clients (that ours no longer keeps
    it for later resolves is test_kubeconfig.c's exec_expiry_times)."""
    c = Case()
    log = os.path.join(c.dir, "plugin.jsonl")
    write_plugin(c, "kube/creds", {"token": EXEC_TOKEN,
                                   "expirationTimestamp": "1970-01-01T00:00:00Z"})
    path = c.write("kube/config", simple(main_fake().url, exec_user(
        "./creds", env=[{"name": "PLUGIN_LOG", "value": log}])))
    res, _ = same_exec(c, c.env(path), log)
    expect(res, bearer(EXEC_TOKEN))


@test
def invalid_exec_expiry_without_offset():
    """A plugin whose expirationTimestamp has a fraction but no offset
    ("2099-01-01T00:00:00.5", a local time): kubectl fails parsing it (Go's time.RFC3339);
    ours exits 3 naming the plugin and the field (it once took the time as UTC)."""
    c = Case()
    log = os.path.join(c.dir, "plugin.jsonl")
    write_plugin(c, "creds", {"token": EXEC_TOKEN, "expirationTimestamp": "2099-01-01T00:00:00.5"})
    path = bad(c, exec_user("./creds", env=[{"name": "PLUGIN_LOG", "value": log}]))
    both_fail(c, c.env(path), "exec plugin", ["./creds", "expirationTimestamp", "2099-01-01T00:00:00.5",
                                              "RFC 3339"],
              kubectl_says=["2099-01-01T00:00:00.5"])


@test
def invalid_exec_command_not_found():
    """An exec command found nowhere: kubectl fails ("exec: executable no-such-plugin not
    found", then the installHint); ours exits 3 naming the command."""
    c = Case()
    path = bad(c, exec_user("no-such-plugin", EXEC_V1BETA1,
                            installHint="install no-such-plugin from the test suite"))
    both_fail(c, c.env(path), path, ["no-such-plugin"],
              kubectl_says=["executable no-such-plugin not found",
                            "install no-such-plugin from the test suite"])


@test
def invalid_exec_interactive_always_without_terminal():
    """interactiveMode: Always with no terminal on stdin: kubectl fails before running the
    plugin ("exec plugin cannot support interactive mode: standard input is not a
    terminal"); ours exits 3 naming interactiveMode, and neither runs the plugin."""
    c = Case()
    log = os.path.join(c.dir, "plugin.jsonl")
    plugin = write_plugin(c, "bin/p", {"token": EXEC_TOKEN})
    path = bad(c, exec_user(plugin, interactiveMode="Always",
                            env=[{"name": "PLUGIN_LOG", "value": log}]))
    both_fail(c, c.env(path), path, ["interactiveMode"],
              kubectl_says=["standard input is not a terminal"])
    assert not plugin_lines(log), "the plugin ran"


# ======================================================================== last

@test
def servers_exit_cleanly():
    """The shared fakes and proxies stop on SIGTERM with exit 0 and nothing on stderr
    (always run, whatever the name filter)."""
    while SHARED:
        _, server = SHARED.popitem()
        server.stop()


def kill_leftovers():
    """Our own children still running after the run (a test failed mid-way): killed by
    their process objects."""
    for server in SHARED.values():
        if server.proc.poll() is None:
            server.proc.kill()
            server.proc.communicate()


if __name__ == "__main__":
    if not os.access(CLI, os.X_OK):
        sys.exit("test_kubeconfig_kubectl: %s is missing (build cluster-resolve into %s)"
                 % (CLI, BUILD))
    subprocess.run(["bash", os.path.join(TESTS, "gen_certs.sh"), CERTS, "--client-certs"],
                   check=True, stdout=subprocess.DEVNULL)
    patterns = ARGS + ["servers_exit_cleanly"] if ARGS else ARGS
    try:
        status = harness.run_tests(TESTS_RUN, TMP, patterns)
    finally:
        kill_leftovers()
    sys.exit(status)

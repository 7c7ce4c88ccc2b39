#!/usr/bin/env python3
"""Hostile HTTP answers against every HTTP backend: the built cluster-resolve (bundled libcurl
transport) against tests/gcp/fake_gcp.py (which serves Kubernetes pods as well), one case per
(backend endpoint, attack):

  endpoints  the Kubernetes pod list, the GCE group list and zone instance list, the Cloud TPU
             node, and the metadata server's access token (GCE without a token file)
  attacks    a redirect to another host (nothing reaches it, the token least of all); a
             trusted certificate for another name; a body that never ends (chunked, or with an
             enormous Content-Length); a Content-Length that lies; a slow drip that keeps each
             request inside --timeout-ms but the resolve past --resolve-timeout-ms; nesting
             100,000 deep; numbers out of range where they are skipped (the answer stands) and
             where they are read (named in the error); invalid UTF-8 in a member's name.

A credentials file's token endpoint (tpu --credentials) and generateAccessToken get attacks of
their own: a redirect to another host, a lying Content-Length, an HTML page with 200, an
access_token with a blank, a control character or CR LF, or 10 MB long, an expires_in of -5,
1e400, a string and other non-lifetimes, an expireTime that is no RFC 3339 time; each must be a
clean non-zero exit with one line on stderr showing no refresh token, client secret or token.

The bodies of the byte-level attacks are the endpoint's real answer, fetched from the fake by
replaying the request the CLI made on a clean run, then altered. The metadata server is plain
HTTP by Google's design (a link-local address), so its certificate case does not apply and its
redirect is sent over HTTP. Each case checks the exit code, the message (one line, naming the
problem, never the token), the time taken, and what the servers saw.

usage: test_hostile_http.py [BUILD_DIR] [NAME_SUBSTRING...]   (BUILD_DIR holds cluster-resolve;
       default build/san). Prints "ok/FAIL name" lines, then "N passed, N failed".
"""
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from urllib.parse import urlencode

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "gcp"))
import harness  # noqa: E402
from harness import ROOT, TOKEN, Fake  # noqa: E402
import make_gcp as mg  # noqa: E402

ARGS = sys.argv[1:]
BUILD = ARGS.pop(0) if ARGS and os.path.isdir(ARGS[0]) else os.path.join(ROOT, "build", "san")
CLI = os.path.join(BUILD, "cluster-resolve")
TMP = tempfile.mkdtemp(prefix="hostile-")
CERTS = os.path.join(TMP, "certs")
CA = os.path.join(CERTS, "ca.pem")
TOKEN_FILE = harness.write(TMP, "token", TOKEN + "\n")
PODS = os.path.join(HERE, "k8s", "fixtures", "pods_small.json")
P, Z, TPU_ZONE = "test-project", "us-east1-d", "us-central1-c"
DEEP = 100000
RESOLVE_MS = 700    # the slow-drip cases' bound on a whole resolve
BIG_NUMBERS = '"big": 1e999999999, "huge": -123456789012345678901234567890, "tiny": 1e-999999999, '
BAD_UTF8 = "\u00c0\u00af"   # sent as the bytes C0 AF: an overlong "/", invalid UTF-8


# ---- the endpoints under attack ----

class Endpoint:
    """One answer a backend needs: the fake's arguments, the CLI's, the path the faults aim at,
    a name inside the answer (to corrupt) and, when the backend reads a number there, the text
    of that number, what to put instead and words of the error. `tls`: the server may be
    HTTPS; `first`: this answer is the first request of its server's connection."""

    def __init__(self, name, fake_args, cli_args, path, member, number=None, tls=True, first=True):
        self.name, self.fake_args, self.cli_args = name, fake_args, cli_args
        self.path, self.member, self.number, self.tls, self.first = path, member, number, tls, first

    def fake(self, *more, tls=False, cert="server"):
        certs = ["--cert", os.path.join(CERTS, cert + ".pem"), "--key", os.path.join(CERTS, cert + ".key")]
        f = Fake(TMP, *(self.fake_args() + list(more) + (certs if tls else [])))
        if tls:
            f.url = f.url.replace("http://", "https://")
        return f

    def args(self, fake, tls=False):
        return self.cli_args(fake.url) + (["--ca-file", CA] if tls else [])


def k8s_endpoint():
    return Endpoint("kubernetes pod list", lambda: ["--pods", PODS, "--bearer", TOKEN],
                    lambda url: ["k8s", "--server", url, "--token-file", TOKEN_FILE, "--namespace", "default",
                                 "--job", "worker=job-name=trainer"],
                    "/api/v1/namespaces/default/pods", "trainer-0-pkwzt",
                    number=('"batch.kubernetes.io/job-completion-index":"0"',
                            '"batch.kubernetes.io/job-completion-index":"99999999999999999999"',
                            "is out of range (0 to 2147483647)"))


INSTANCES = mg.make_instances(3, "workers", zone=Z, names="w")
COMPUTE = mg.compute_doc([mg.make_group("workers", INSTANCES, zone=Z)], INSTANCES)
METADATA = {"project/project-id": P, "instance/zone": "projects/123456789012/zones/" + Z,
            "instance/name": "w-2",
            "instance/service-accounts/default/token": {"access_token": TOKEN, "expires_in": 3599,
                                                        "token_type": "Bearer"}}


def gce_fake_args():
    return ["--compute", COMPUTE, "--metadata", METADATA, "--bearer", TOKEN]


def gce_args(url, token=True, metadata=False):
    a = ["gce", "--compute-url", url + "/compute/v1", "--instance-group", "workers", "--project", P, "--zone", Z]
    return a + (["--token-file", TOKEN_FILE] if token else []) + (["--metadata-url", url] if metadata else [])


def gce_endpoints():
    zone = "/compute/v1/projects/%s/zones/%s/" % (P, Z)
    return [Endpoint("gce group list", gce_fake_args, gce_args, zone + "instanceGroups/workers/listInstances", "w-1"),
            Endpoint("gce instance list", gce_fake_args, gce_args, zone + "instances", "w-1", first=False),
            Endpoint("metadata token", gce_fake_args, lambda url: gce_args(url, token=False, metadata=True),
                     "/computeMetadata/v1/instance/service-accounts/default/token", TOKEN, tls=False)]


NODE = mg.make_tpu_node("test-tpu-1", zone=TPU_ZONE, endpoints=4)


def tpu_endpoint():
    ip = NODE["networkEndpoints"][0]["ipAddress"]
    return Endpoint("tpu node", lambda: ["--tpu-nodes", mg.tpu_nodes_doc([NODE]), "--bearer", TOKEN],
                    lambda url: ["tpu", "--tpu-url", url, "--tpu", "test-tpu-1", "--project", P, "--zone", TPU_ZONE,
                                 "--token-file", TOKEN_FILE],
                    "/v2/projects/%s/locations/%s/nodes/test-tpu-1" % (P, TPU_ZONE), ip,
                    number=('"port":8470', '"port":99999999999999999999', "port 99999999999999999999 is not 1 to 65535"))


ENDPOINTS = [k8s_endpoint()] + gce_endpoints() + [tpu_endpoint()]


# ---- running the CLI ----

def run(args):
    start = time.time()
    p = subprocess.run([CLI] + [str(a) for a in args] + ["--format", "spec"], capture_output=True, text=True,
                       errors="replace", timeout=120, env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
    return p.returncode, p.stdout, p.stderr, time.time() - start


def fails(ep, args, code, words, within=10):
    got, out, err, took = run(args)
    assert got == code, "%s: exit %d, want %d: %s" % (ep.name, got, code, err.strip())
    assert out == "" and err.count("\n") == 1, (out, err)
    for w in words:
        assert w.lower() in err.lower(), "%s: %r not in %r" % (ep.name, w, err)
    assert TOKEN not in err, "the token leaked into the message"
    assert took < within, "%s: took %.1f s" % (ep.name, took)
    return err


def hits(log, ep):
    return [r for r in log if r["path"].startswith(ep.path)]


# ---- the real answers, fetched once per endpoint ----

BASELINE = {}


def baseline(ep):
    """(spec, body): the clean run's spec, and the endpoint's answer to the request it made."""
    if ep.name not in BASELINE:
        f = ep.fake()
        code, out, err, _ = run(ep.args(f))
        assert code == 0, "%s: the clean run failed: %s" % (ep.name, err)
        request = hits(f.requests(), ep)[0]
        url = f.url + request["path"] + ("?" + urlencode(request["query"], doseq=True) if request["query"] else "")
        headers = {"Authorization": "Bearer " + TOKEN, "Metadata-Flavor": "Google", "Content-Type": "application/json"}
        data = request["body"].encode() if request.get("body") else None
        with urllib.request.urlopen(urllib.request.Request(url, data, headers, method=request["method"])) as r:
            body = r.read().decode("latin-1")
        f.stop()
        BASELINE[ep.name] = (json.loads(out), body)
    return BASELINE[ep.name]


def raw_answer(ep, body):
    """A fake whose endpoint answers these bytes (a str of code points below 256)."""
    return ep.fake("--faults", [{"path": ep.path, "status": 200, "raw": body}])


# ---- the attacks ----

TESTS = []


def attack(applies=lambda ep: True):
    """Registers the test once for each endpoint it applies to."""
    def register(fn):
        for ep in filter(applies, ENDPOINTS):
            TESTS.append(("%s: %s" % (fn.__name__, ep.name), lambda ep=ep: fn(ep)))
        return fn
    return register


@attack()
def redirect_to_another_host_is_not_followed(ep):
    other = ep.fake(tls=ep.tls)
    f = ep.fake("--faults", [{"path": ep.path, "status": 302, "headers": {"Location": other.url + ep.path}}],
                tls=ep.tls)
    fails(ep, ep.args(f, tls=ep.tls) + ["--retries", "0"], 4, ["302"])
    assert len(hits(f.stop(), ep)) == 1
    assert other.stop() == [], "%s: the redirect was followed" % ep.name


@attack(lambda ep: ep.tls and ep.first)  # the handshake fails before any request
def trusted_certificate_for_another_name_is_refused(ep):
    f = ep.fake(tls=True, cert="elsewhere")
    fails(ep, ep.args(f, tls=True) + ["--retries", "0"], 4, ["certificate", "127.0.0.1"])
    assert f.stop() == [], "%s: a request went out over the mismatched connection" % ep.name


@attack()
def body_that_never_ends_stops_at_the_cap(ep):
    for chunked in (True, False):   # no length, or a declared terabyte
        f = ep.fake("--faults", [{"path": ep.path, "oversize": 1 << 40, "chunked": chunked}])
        fails(ep, ep.args(f) + ["--max-response-bytes", "1000000", "--retries", "0"], 3,
              ["larger than the limit of 1000000 bytes"])
        f.stop()


@attack()
def content_length_that_lies_fails(ep):
    f = ep.fake("--faults", [{"path": ep.path, "lie_length": 50}])
    fails(ep, ep.args(f) + ["--retries", "0"], 4, ["50 bytes remaining"])
    f.stop()


@attack()
def slow_drip_is_bounded_by_the_resolve_timeout(ep):
    """Each answer starts after 0.3 s and comes at 100 bytes/s: inside --timeout-ms, but the
    resolve's bound ends it (retries included)."""
    f = ep.fake("--faults", [{"path": ep.path, "delay": 0.3, "drip": 100}])
    fails(ep, ep.args(f) + ["--timeout-ms", "30000", "--resolve-timeout-ms", RESOLVE_MS], 4,
          ["resolve_timeout_ms"], within=RESOLVE_MS / 1000 + 2)
    assert 1 <= len(hits(f.stop(), ep)) <= 2


@attack()
def deep_nesting_is_refused(ep):
    _, body = baseline(ep)
    f = raw_answer(ep, '{"deep": ' + "[" * DEEP + "]" * DEEP + ", " + body.lstrip()[1:])
    fails(ep, ep.args(f) + ["--retries", "0"], 3, ["nested deeper than the limit of 128"])
    f.stop()


@attack()
def numbers_out_of_range_are_skipped_or_named(ep):
    spec, body = baseline(ep)
    f = raw_answer(ep, "{" + BIG_NUMBERS + body.lstrip()[1:])
    code, out, err, _ = run(ep.args(f))
    assert code == 0 and json.loads(out) == spec, "%s: numbers nobody reads changed the answer: %s" % (ep.name, err)
    f.stop()
    if ep.number:
        old, new, words = ep.number
        assert old in body, (ep.name, old)
        f = raw_answer(ep, body.replace(old, new))
        fails(ep, ep.args(f) + ["--retries", "0"], 4, [words])
        f.stop()


@attack()
def invalid_utf8_in_a_name_is_refused(ep):
    _, body = baseline(ep)
    assert ep.member in body, (ep.name, ep.member)
    f = raw_answer(ep, body.replace(ep.member, ep.member[:3] + BAD_UTF8 + ep.member[3:], 1))
    fails(ep, ep.args(f) + ["--retries", "0"], 4, ["invalid UTF-8"])
    f.stop()


# ---- the token endpoint of a credentials file, and generateAccessToken ----
# tpu --credentials with an authorized_user file whose token_uri is the fake's OAuth token
# endpoint (an impersonated one for generateAccessToken); the fake's answers there replaced.
# Each run must end in a clean non-zero exit (no sanitizer report), one line on stderr, and
# no refresh token, client secret or access token shown.

REFRESH_TOKEN = "1//0gHostileRefreshToken-abcdefXYZ_0123"
CLIENT_ID = "32555940559.apps.googleusercontent.com"
CLIENT_SECRET = "GOCSPX-hostile-client-secret-0001"
ISSUED = "ya29.a0Hostile-issued-access-token_4567"
ANSWERED = "ya29.a0Hostile-answered-access-token_89"   # what the replaced answers hold
SECRETS = (REFRESH_TOKEN, CLIENT_SECRET, ISSUED, ANSWERED, TOKEN)
IAM_PATH = "/v1/projects/-/serviceAccounts/trainer@%s.iam.gserviceaccount.com:generateAccessToken" % P
OAUTH = {"refresh_tokens": {REFRESH_TOKEN: {"client_id": CLIENT_ID, "client_secret": CLIENT_SECRET,
                                            "access_token": ISSUED}},
         "impersonation": {"trainer@%s.iam.gserviceaccount.com" % P: {"sources": [ISSUED],
                                                                     "access_token": ANSWERED}}}


def token_fake(*faults):
    """The fake: a TPU node, the token endpoint and generateAccessToken; faults in order (each
    once when they say "times": 1)."""
    return Fake(TMP, "--tpu-nodes", mg.tpu_nodes_doc([NODE]), "--oauth", OAUTH,
                *(["--faults", list(faults)] if faults else []))


def credentials(fake, impersonated=False):
    user = {"client_id": CLIENT_ID, "client_secret": CLIENT_SECRET, "refresh_token": REFRESH_TOKEN,
            "token_uri": fake.url + "/token", "type": "authorized_user"}
    doc = user if not impersonated else {
        "delegates": [], "service_account_impersonation_url": fake.url + IAM_PATH, "source_credentials": user,
        "type": "impersonated_service_account"}
    return harness.write(TMP, "adc-%d.json" % fake.port, doc)


def token_args(fake, impersonated=False):
    return ["tpu", "--tpu-url", fake.url, "--tpu", "test-tpu-1", "--project", P, "--zone", TPU_ZONE,
            "--credentials", credentials(fake, impersonated), "--retries", "0"]


def token_fails(args, code, words, within=10):
    """A clean failure: exit `code` (or one of a tuple), one line on stderr with every one of
    `words`, nothing on stdout, no secret, no sanitizer report, within `within` seconds."""
    got, out, err, took = run(args)
    assert got in (code if isinstance(code, tuple) else (code,)), "exit %d, want %s: %s" % (got, code, err.strip()[-600:])
    assert out == "" and err.count("\n") == 1 and err.startswith("cluster-resolve: "), (out, err[-600:])
    for w in words:
        assert w.lower() in err.lower(), "%r not in %r" % (w, err)
    assert not [s for s in SECRETS if s in err], "a secret shown: %r" % err
    assert took < within, "took %.1f s" % took
    return err


def token_test(fn):
    TESTS.append((fn.__name__.replace("_", " ") + ": token endpoint", fn))
    return fn


@token_test
def token_endpoint_redirect_is_not_followed():
    """A 302 to another host: not followed (the refresh token would go with it), exit 4 saying
    redirect; the other host sees nothing, the TPU API is not asked."""
    other = token_fake()
    f = token_fake({"path": "/token", "status": 302, "headers": {"Location": other.url + "/token"}})
    token_fails(token_args(f), 4, ["token endpoint", "302", "redirect"])
    assert [r["path"] for r in f.stop()] == ["/token"]
    assert other.stop() == [], "the redirect was followed"


@token_test
def token_endpoint_content_length_that_lies_fails():
    f = token_fake({"path": "/token", "lie_length": 50})
    token_fails(token_args(f), 4, ["/token", "50 bytes remaining"])
    assert [r["path"] for r in f.stop()] == ["/token"]


@token_test
def token_endpoint_html_with_200_is_unexpected():
    """A captive portal's sign-in page with 200: not a token."""
    f = token_fake({"path": "/token", "status": 200, "times": 1, "headers": {"Content-Type": "text/html"},
                    "raw": "<!DOCTYPE html><html><head><title>Sign in</title></head><body>Sign in to continue"
                           "</body></html>"})
    token_fails(token_args(f), 4, ["token endpoint", "JSON"])
    assert [r["path"] for r in f.stop()] == ["/token"]


def raw_token_answers(bodies):
    """One fake answering these token bodies with 200, one a run, in order."""
    return token_fake(*[{"path": "/token", "status": 200, "times": 1, "raw": b} for b in bodies])


@token_test
def token_endpoint_access_token_not_one_word_is_refused():
    """An access_token with a space, a tab, a CR LF (a header injection), a NUL or a DEL: never
    put in a header."""
    bodies = [json.dumps({"access_token": ANSWERED[:10] + t + ANSWERED[10:], "expires_in": 3599,
                          "token_type": "Bearer"}) for t in (" ", "\t", "\r\nX-Injected: 1", "\u0000", "\u007f")]
    f = raw_token_answers(bodies)
    for _ in bodies:
        token_fails(token_args(f), 4, ["token endpoint"])
    assert [r["path"] for r in f.stop()] == ["/token"] * len(bodies), "the TPU API was asked"


@token_test
def token_endpoint_access_token_of_10_mb_fails_cleanly():
    """A 200 whose access_token is 10 MB of token characters: a clean failure naming the token
    endpoint's answer (exit 4, or 3 for a limit), not a crash, not "out of memory" (exit 1) when
    a 10 MB header line is refused further down."""
    f = raw_token_answers([json.dumps({"access_token": "ya29." + "A" * (10 << 20), "expires_in": 3599})])
    err = token_fails(token_args(f), (3, 4), ["token endpoint"], within=30)
    assert len(err) < 1000, "a message of %d bytes" % len(err)
    f.stop()


@token_test
def token_endpoint_bad_expires_in_is_refused():
    """expires_in of -5, 0, 1e400, a string, a fraction, null or an object: refused, the API not
    asked (a token of unknown life would be kept wrongly)."""
    texts = ["-5", "0", "1e400", '"3599"', "3599.5", "null", "{}"]
    f = raw_token_answers(['{"access_token": "%s", "expires_in": %s, "token_type": "Bearer"}' % (ANSWERED, t)
                           for t in texts])
    for t in texts:
        token_fails(token_args(f), 4, ["expires_in"])
    assert [r["path"] for r in f.stop()] == ["/token"] * len(texts), "the TPU API was asked"


@token_test
def generate_access_token_bad_expire_time_is_refused():
    """An impersonated file: the refresh grant, then generateAccessToken answering 200 with an
    expireTime that is no RFC 3339 time: refused, the API not asked."""
    times = ['"tomorrow"', '"2024-13-45T99:99:99Z"', "3600", '""', '"2030-01-01 00:00:00"', "null"]
    f = token_fake(*[{"path": IAM_PATH, "status": 200, "times": 1,
                      "raw": '{"accessToken": "%s", "expireTime": %s}' % (ANSWERED, t)} for t in times])
    for t in times:
        token_fails(token_args(f, impersonated=True), 4, ["generateAccessToken"])
    assert [r["path"] for r in f.stop()] == ["/token", IAM_PATH] * len(times), "the TPU API was asked"


@token_test
def token_uri_that_only_looks_local_is_refused():
    """http:// is allowed to this machine only (the refresh token crosses the wire in clear):
    user info before the host ("http://localhost:80@host/") or a DNS name that starts like a
    loopback address ("http://127.x.invalid/") is another machine, refused before any request
    (exit 3 naming the field), as is the same trick in service_account_impersonation_url; so is
    a token_uri shorter than a scheme (the check must not read past its end)."""
    f = token_fake()
    user = {"client_id": CLIENT_ID, "client_secret": CLIENT_SECRET, "refresh_token": REFRESH_TOKEN,
            "type": "authorized_user"}
    files = [(dict(user, token_uri=uri), "token_uri") for uri in (
        "http://localhost:80@%s/token" % f.host, "http://127.0.0.1@%s/token" % f.host, "http://127.oauth2.invalid/token",
        "x")]
    files.append(({"delegates": [], "service_account_impersonation_url": "http://localhost:80@%s%s" % (f.host, IAM_PATH),
                   "source_credentials": dict(user, token_uri=f.url + "/token"), "type": "impersonated_service_account"},
                  "service_account_impersonation_url"))
    for n, (doc, field) in enumerate(files):
        args = token_args(f)
        args[args.index("--credentials") + 1] = harness.write(TMP, "looks-local-%d.json" % n, doc)
        token_fails(args, 3, [field, "https://"])
    assert f.stop() == [], "a request went out"


def main():
    subprocess.run(["bash", os.path.join(ROOT, "tests", "gen_certs.sh"), CERTS], check=True, stdout=subprocess.DEVNULL)
    return harness.run_tests(TESTS, TMP, ARGS)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Google Application Default Credentials for the gce and tpu backends, end to end: the built
cluster-resolve against tests/gcp/fake_gcp.py serving Google's OAuth 2.0 token endpoint, IAM
Credentials' generateAccessToken, Compute Engine and Cloud TPU over HTTP on 127.0.0.1 (a
loopback token_uri may be http://), with credential files as gcloud and the Cloud Console
write them: authorized_user, service_account (an RSA key made by openssl at run time, never
committed) and impersonated_service_account from either. No metadata server unless a test
says so (GCE_METADATA_HOST names a closed port): off Google Cloud.

Each test checks the resolved spec, the exit code and message, and the requests the fake
logged: the token requests (form fields, the JWT's header and claims, verified against the
account's public key), the generateAccessToken body, the Authorization and x-goog-user-project
of every Compute and TPU request. Every run of our CLI has --verbose, and every line it prints
is searched for each refresh token, client secret, access token, base64 line of the private
key and anything like a JWT (eyJ...): none may appear.

The oracles: python3-google-auth 1.5.1 (Debian's /usr/bin/python3) refreshes the same files
against the same fake and must get the token our CLI sent, and for a service account make a
JWT with the same header and claims; gcloud (the image's google-cloud-cli) activates the same
service-account key against the fake's token endpoint and must list the same instances and TPU
endpoints as our CLI. A missing tool is a failure, never a skip.

Choices where the contract leaves room (our CLI is held to them): --verbose names the
credential file's path and its account (client_email; client_id for authorized_user; for
impersonated_service_account the target's email or the source's account); a project found
nowhere off Google Cloud is exit 3 with a message naming --project; a 403 from
generateAccessToken is exit 4 (an HTTP error status, as README's exit codes have it; the
contract makes only the token endpoint's refusals exit 3) with Google's message.

usage: test_google_adc.py [BUILD_DIR] [NAME_SUBSTRING...]   (BUILD_DIR holds cluster-resolve;
       default build/san). Prints "ok/FAIL name (time)" lines, then "N passed, N failed".
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from urllib.parse import parse_qs

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import harness  # noqa: E402
from harness import ROOT, Fake, free_port  # noqa: E402
import make_gcp as mg  # noqa: E402

ARGS = sys.argv[1:]
BUILD = ARGS.pop(0) if ARGS and os.path.isdir(ARGS[0]) else os.path.join(ROOT, "build", "san")
CLI = os.path.join(BUILD, "cluster-resolve")
TMP = tempfile.mkdtemp(prefix="google-adc-")
P, Z, TPU_ZONE, TPU = "test-project", "us-east1-d", "us-central2-b", "adc-tpu"
CLOUD = "https://www.googleapis.com/auth/cloud-platform"
LOGIN_HINT = "gcloud auth application-default login"
DEAD = "127.0.0.1:%d" % free_port()          # no metadata server: off Google Cloud

# the accounts the fake knows, and the secrets our CLI must never print
CLIENT_ID = "764086051850-adc0test.apps.googleusercontent.com"
CLIENT_SECRET = "d-FL95Q19q7MQmFpd7hHD0Ty"
REFRESH = "1//0gADC-refresh-token-Lk9sYw7Qp3RrT2vX"
USER_TOKEN = "ya29.a0AfB_user-access-token-7c1f"
SA = "trainer@sa-project.iam.gserviceaccount.com"
KID = "5f0c3b8e2a1d47c69e8b7a6d5c4b3a2918f7e6d5"
SA_TOKEN = "ya29.c.b0Aaek-sa-access-token-91d2"
TARGET = "tpu-runner@test-project.iam.gserviceaccount.com"
DELEGATES = ["projects/-/serviceAccounts/relay@test-project.iam.gserviceaccount.com"]
IMP_TOKEN = "ya29.c.impersonated-access-token-3e8a"
META_TOKEN = "ya29.c.metadata-server-token-0b7d"
FILE_TOKEN = "ya29.token-file-token-5a6b"
FRESH = "ya29.second-access-token-after-401"
KEY_PATH, KEY_PUBLIC = harness.rsa_key(TMP, "sa")
with open(KEY_PATH) as _f:
    KEY_PEM = _f.read()
KEY_LINES = [line for line in KEY_PEM.splitlines() if line and not line.startswith("-----")]
SECRETS = [REFRESH, CLIENT_SECRET, USER_TOKEN, SA_TOKEN, IMP_TOKEN, META_TOKEN, FILE_TOKEN,
           FRESH] + KEY_LINES
JWT_LIKE = re.compile(r"eyJ[A-Za-z0-9_-]+\.")
TOKEN_FILE = harness.write(TMP, "token", FILE_TOKEN + "\n")

INSTANCES = mg.make_instances(5, "workers", zone=Z, names="w", statuses={"w-4": "TERMINATED"})
OTHERS = mg.make_instances(2, "batch", zone=Z, start=100)
GCE_WANT = {"worker": mg.expected_addresses(INSTANCES)}
NODE = mg.make_tpu_node(TPU, zone=TPU_ZONE, endpoints=4)
TPU_WANT = {"worker": ["%s:%d" % (e["ipAddress"], e.get("port") or 8470)
                       for e in NODE["networkEndpoints"]]}


# ---- the fake and the credential files ----

def oauth_doc(user_tokens=(USER_TOKEN,), sa_tokens=(SA_TOKEN,), revoked=(), public=KEY_PUBLIC):
    return {"refresh_tokens": {REFRESH: {"client_id": CLIENT_ID, "client_secret": CLIENT_SECRET,
                                         "access_token": list(user_tokens)}},
            "service_accounts": {SA: {"public_key": public, "private_key_id": KID,
                                      "access_token": list(sa_tokens)}},
            "impersonation": {TARGET: {"sources": [USER_TOKEN, SA_TOKEN],
                                       "access_token": IMP_TOKEN, "delegates": DELEGATES}},
            "revoked": list(revoked)}


def fake(*extra, doc=None, nodes=None):
    """The token endpoint, IAM Credentials, Compute (group "workers": w-1..w-5, w-4
    TERMINATED, and two VMs outside it) and Cloud TPU (adc-tpu, 4 endpoints) in one fake."""
    compute = mg.compute_doc([mg.make_group("workers", INSTANCES, zone=Z,
                                            named_ports=[("grpc", 8470)])], INSTANCES + OTHERS)
    return Fake(TMP, "--oauth", doc or oauth_doc(), "--compute", compute, "--tpu-nodes",
                mg.tpu_nodes_doc(nodes or [NODE]), *extra, python=harness.SYSTEM_PYTHON)


def user_info(f, **extra):
    """An authorized_user file as `gcloud auth application-default login` writes it."""
    info = {"account": "", "client_id": CLIENT_ID, "client_secret": CLIENT_SECRET,
            "refresh_token": REFRESH, "type": "authorized_user", "universe_domain":
            "googleapis.com", "token_uri": f.url + "/token"}
    info.update(extra)
    return {k: v for k, v in info.items() if v is not None}


def sa_info(f, **extra):
    """A service-account key file as the Cloud Console and `gcloud iam service-accounts keys
    create` write it."""
    info = {"type": "service_account", "project_id": P, "private_key_id": KID,
            "private_key": KEY_PEM, "client_email": SA, "client_id": "104237823940112359836",
            "auth_uri": "https://accounts.google.com/o/oauth2/auth",
            "token_uri": f.url + "/token",
            "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
            "client_x509_cert_url": "https://www.googleapis.com/robot/v1/metadata/x509/"
                                    "trainer%40sa-project.iam.gserviceaccount.com",
            "universe_domain": "googleapis.com"}
    info.update(extra)
    return {k: v for k, v in info.items() if v is not None}


def impersonated_info(f, source, **extra):
    """An impersonated_service_account file as `gcloud auth application-default login
    --impersonate-service-account` writes it, the source credentials inside."""
    info = {"delegates": DELEGATES, "service_account_impersonation_url":
            f.url + "/v1/projects/-/serviceAccounts/%s:generateAccessToken" % TARGET,
            "source_credentials": source, "type": "impersonated_service_account"}
    info.update(extra)
    return {k: v for k, v in info.items() if v is not None}


def save(info, name=None, where=None):
    """The file in a directory of its own (or `where`): its path."""
    d = where or tempfile.mkdtemp(dir=TMP)
    os.makedirs(d, exist_ok=True)
    return harness.write(d, name or "credentials.json", info)


def gcloud_dir(info):
    """A gcloud configuration directory holding application_default_credentials.json."""
    d = tempfile.mkdtemp(dir=TMP)
    save(info, "application_default_credentials.json", d)
    return d


# ---- running the CLI ----

def home():
    return tempfile.mkdtemp(dir=TMP)  # an empty HOME: never this machine's gcloud files


def run(args, env=None):
    """Our CLI with --verbose and an environment of PATH, an empty HOME, no metadata server and
    `env` (a None value unsets); -> (exit code, stdout, stderr). No line of stderr may hold a
    secret or a JWT."""
    e = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home(),
         "GCE_METADATA_HOST": DEAD}
    e.update(env or {})
    e = {k: v for k, v in e.items() if v is not None}
    p = subprocess.run([CLI] + [str(a) for a in args] + ["--verbose"], env=e,
                       capture_output=True, text=True, timeout=60)
    for line in p.stderr.splitlines() + p.stdout.splitlines():
        for secret in SECRETS:
            assert secret not in line, "a secret (%s...) in: %s" % (secret[:8], line)
        assert not JWT_LIKE.search(line), "a JWT in: %s" % line
    return p.returncode, p.stdout, p.stderr


def spec(args, env=None):
    code, out, err = run(list(args) + ["--format", "spec"], env)
    assert code == 0, "exit %d: %s" % (code, err.strip())
    return json.loads(out), err


def fails(args, code, words, env=None):
    got, out, err = run(args, env)
    assert got == code, "exit %d, want %d: %s" % (got, code, err.strip())
    assert out == "", out
    for w in words:
        assert w.lower() in err.lower(), "%r not in %r" % (w, err)
    return err


def gce(f, *extra, project=P, zone=Z):
    a = ["gce", "--compute-url", f.compute_url, "--instance-group", "workers"]
    a += ["--project", project] if project else []
    a += ["--zone", zone] if zone else []
    return a + list(extra)


def tpu(f, *extra, project=P, zone=TPU_ZONE):
    a = ["tpu", "--tpu-url", f.url, "--tpu", TPU]
    a += ["--project", project] if project else []
    a += ["--zone", zone] if zone else []
    return a + list(extra)


def since(f, mark):
    """The fake's log lines after the first `mark` ones (what one run asked)."""
    return f.requests()[mark:]


def token_calls(log):
    return [r for r in log if r["path"] == "/token"]


def iam_calls(log):
    return [r for r in log if r["path"].endswith(":generateAccessToken")]


def api_calls(log):
    return [r for r in log if r["path"].startswith("/compute/") or
            re.match(r"/v[12]\w*/projects/[^-]", r["path"])]


def check_api(log, token, quota=None):
    """Every Compute and TPU request: Bearer token, x-goog-user-project iff quota."""
    calls = api_calls(log)
    assert calls, log
    for r in calls:
        assert r["headers"].get("authorization") == "Bearer " + token, \
            (r["path"], r["headers"].get("authorization"))
        assert r["headers"].get("x-goog-user-project") == quota, (r["path"], r["headers"])
    return calls


def check_refresh_grant(r):
    assert r["method"] == "POST" and r["status"] == 200, r
    assert r["headers"]["content-type"].split(";")[0] == "application/x-www-form-urlencoded", r
    form = parse_qs(r["body"], keep_blank_values=True)
    assert form == {"grant_type": ["refresh_token"], "client_id": [CLIENT_ID],
                    "client_secret": [CLIENT_SECRET], "refresh_token": [REFRESH]}, form


def check_jwt_grant(f, r):
    """Our JWT: header and claims exactly as google-auth makes them, verified by the fake."""
    assert r["method"] == "POST" and r["status"] == 200, r
    assert r["headers"]["content-type"].split(";")[0] == "application/x-www-form-urlencoded", r
    form = parse_qs(r["body"], keep_blank_values=True)
    assert set(form) == {"grant_type", "assertion"} and \
        form["grant_type"] == ["urn:ietf:params:oauth:grant-type:jwt-bearer"], form
    note = r["oauth"]
    assert note["verified"] is True and "error" not in note, note
    assert note["jwt_header"] == {"alg": "RS256", "typ": "JWT", "kid": KID}, note
    claims = note["jwt_claims"]
    assert set(claims) == {"iss", "scope", "aud", "iat", "exp"}, claims
    assert claims["iss"] == SA and claims["scope"] == CLOUD, claims
    assert claims["aud"] == f.url + "/token", claims  # the file's token_uri, exactly
    assert claims["exp"] - claims["iat"] == 3600 and abs(claims["iat"] - r["time"]) < 60, claims
    return note


def check_generate(r, source_token):
    assert r["method"] == "POST" and r["status"] == 200, r
    assert r["path"] == "/v1/projects/-/serviceAccounts/%s:generateAccessToken" % TARGET, r
    assert r["headers"]["authorization"] == "Bearer " + source_token, r["headers"]
    assert r["headers"]["content-type"].split(";")[0] == "application/json", r["headers"]
    assert json.loads(r["body"]) == {"delegates": DELEGATES, "scope": [CLOUD],
                                     "lifetime": "3600s"}, r["body"]


TESTS = []


def test(fn):
    TESTS.append((fn.__name__, fn))
    return fn


# ======================================================================== credential types
# Each type: a GCE and a TPU resolve from each place a credential file can be: only
# $GOOGLE_APPLICATION_CREDENTIALS; only gcloud's well-known file under $CLOUDSDK_CONFIG; only
# the one under $HOME/.config/gcloud (CLOUDSDK_CONFIG unset); only --credentials.

def places(info):
    """(name, extra args, env, path our CLI must name) for each place of the file."""
    path = save(info)
    conf = gcloud_dir(info)
    h = home()
    save(info, "application_default_credentials.json", os.path.join(h, ".config", "gcloud"))
    return [("GOOGLE_APPLICATION_CREDENTIALS", [], {"GOOGLE_APPLICATION_CREDENTIALS": path},
             path),
            ("CLOUDSDK_CONFIG", [], {"CLOUDSDK_CONFIG": conf},
             os.path.join(conf, "application_default_credentials.json")),
            ("HOME", [], {"HOME": h},
             os.path.join(h, ".config", "gcloud", "application_default_credentials.json")),
            ("--credentials", ["--credentials", path], {}, path)]


def each_place(f, info, check, accounts):
    """Resolves the group and the TPU with the file in each place; `check(log of one run)`;
    the verbose lines name the file and one of the accounts."""
    for name, extra, env, path in places(info):
        for args, want in ((gce(f, *extra), GCE_WANT), (tpu(f, *extra), TPU_WANT)):
            mark = len(f.requests())
            got, err = spec(args, env)
            assert got == want, (name, args[0], got)
            assert path in err, "%s: the verbose lines do not name %s: %s" % (name, path, err)
            if name == "GOOGLE_APPLICATION_CREDENTIALS":
                assert name in err, err
            assert any(a in err for a in accounts), (name, accounts, err)
            log = since(f, mark)
            try:
                check(log)
            except AssertionError as e:
                raise AssertionError("%s, %s: %s" % (name, args[0], e))
            assert not [r for r in log if r["path"].startswith("/computeMetadata/")], log


@test
def authorized_user_everywhere():
    f = fake()

    def check(log):
        tokens = token_calls(log)
        assert len(tokens) == 1, tokens
        check_refresh_grant(tokens[0])
        assert not iam_calls(log)
        check_api(log, USER_TOKEN)
    each_place(f, user_info(f), check, [CLIENT_ID])
    f.stop()


@test
def service_account_everywhere():
    f = fake()

    def check(log):
        tokens = token_calls(log)
        assert len(tokens) == 1, tokens
        check_jwt_grant(f, tokens[0])
        check_api(log, SA_TOKEN)
    each_place(f, sa_info(f), check, [SA])
    f.stop()


@test
def impersonated_from_authorized_user_everywhere():
    f = fake()

    def check(log):
        tokens, iam = token_calls(log), iam_calls(log)
        assert len(tokens) == 1 and len(iam) == 1, log
        check_refresh_grant(tokens[0])
        check_generate(iam[0], USER_TOKEN)
        assert log.index(tokens[0]) < log.index(iam[0])
        check_api(log, IMP_TOKEN)
    source = {k: v for k, v in user_info(f).items() if k != "universe_domain"}
    each_place(f, impersonated_info(f, source), check, [TARGET, CLIENT_ID])
    f.stop()


@test
def impersonated_from_service_account_everywhere():
    f = fake()

    def check(log):
        tokens, iam = token_calls(log), iam_calls(log)
        assert len(tokens) == 1 and len(iam) == 1, log
        check_jwt_grant(f, tokens[0])
        check_generate(iam[0], SA_TOKEN)
        check_api(log, IMP_TOKEN)
    each_place(f, impersonated_info(f, sa_info(f)), check, [TARGET, SA])
    f.stop()


@test
def credential_file_wins_over_a_metadata_server():
    """A metadata server is there and serves another token: the file's token reaches the
    API, the metadata server's token endpoint is never asked. Zone from the metadata server
    (no --zone); project from the file's project_id, not the metadata server's."""
    meta = {"project/project-id": "metadata-project", "instance/zone":
            "projects/99/zones/" + Z, "instance/name": "login-vm",
            "instance/service-accounts/default/token":
            {"access_token": META_TOKEN, "expires_in": 3599, "token_type": "Bearer"}}
    f = fake("--metadata", meta, "--bearer", META_TOKEN)
    path = save(sa_info(f))
    env = {"GOOGLE_APPLICATION_CREDENTIALS": path, "GCE_METADATA_HOST": f.host}
    assert spec(gce(f, project=None, zone=None), env)[0] == GCE_WANT
    log = f.stop()
    assert len(token_calls(log)) == 1
    check_jwt_grant(f, token_calls(log)[0])
    calls = check_api(log, SA_TOKEN)
    assert all("/projects/%s/" % P in r["path"] for r in calls), [r["path"] for r in calls]
    asked = [r["path"] for r in log if r["path"].startswith("/computeMetadata/")]
    assert "/computeMetadata/v1/instance/zone" in asked, asked
    assert not [p for p in asked if "/service-accounts/" in p], asked


# ======================================================================== the chain

@test
def token_file_wins_over_every_credential_file():
    f = fake("--bearer", FILE_TOKEN)  # a wrong choice shows in the log, not as a 401
    path = save(sa_info(f))
    env = {"GOOGLE_APPLICATION_CREDENTIALS": path, "CLOUDSDK_CONFIG": gcloud_dir(user_info(f))}
    for args in (gce(f, "--token-file", TOKEN_FILE),
                 gce(f, "--token-file", TOKEN_FILE, "--credentials", save(user_info(f)))):
        mark = len(f.requests())
        assert spec(args, env)[0] == GCE_WANT, args
        log = since(f, mark)
        assert not token_calls(log) and not iam_calls(log), log
        check_api(log, FILE_TOKEN)
    f.stop()


@test
def credentials_flag_then_env_then_well_known_file():
    """--credentials over $GOOGLE_APPLICATION_CREDENTIALS over gcloud's file; an empty
    $GOOGLE_APPLICATION_CREDENTIALS is unset."""
    f = fake()
    user, sa = save(user_info(f)), save(sa_info(f))
    conf = gcloud_dir(impersonated_info(f, sa_info(f)))
    cases = [(["--credentials", user], {"GOOGLE_APPLICATION_CREDENTIALS": sa,
                                        "CLOUDSDK_CONFIG": conf}, USER_TOKEN),
             ([], {"GOOGLE_APPLICATION_CREDENTIALS": sa, "CLOUDSDK_CONFIG": conf}, SA_TOKEN),
             ([], {"GOOGLE_APPLICATION_CREDENTIALS": "", "CLOUDSDK_CONFIG": conf}, IMP_TOKEN)]
    for extra, env, token in cases:
        mark = len(f.requests())
        assert spec(tpu(f, *extra), env)[0] == TPU_WANT, (extra, env)
        check_api(since(f, mark), token)
    f.stop()


@test
def cloudsdk_config_hides_home():
    """With CLOUDSDK_CONFIG set (and no file there), $HOME/.config/gcloud is not read: on to
    the metadata server, which is not there: exit 3, and no token request."""
    f = fake()
    h = home()
    save(user_info(f), "application_default_credentials.json",
         os.path.join(h, ".config", "gcloud"))
    empty = tempfile.mkdtemp(dir=TMP)
    fails(gce(f), 3, [], {"HOME": h, "CLOUDSDK_CONFIG": empty})
    fails(tpu(f), 3, [], {"HOME": h, "CLOUDSDK_CONFIG": empty})
    assert spec(tpu(f), {"HOME": h})[0] == TPU_WANT  # the same HOME is read without it
    log = f.stop()
    assert len(token_calls(log)) == 1 and len(api_calls(log)) == 1, log


@test
def missing_env_file_is_exit_3_naming_it():
    f = fake()
    missing = os.path.join(TMP, "no-such-dir", "key.json")
    conf = gcloud_dir(user_info(f))  # not a fallback for a named file that is missing
    for args in (gce(f), tpu(f)):
        fails(args, 3, [missing], {"GOOGLE_APPLICATION_CREDENTIALS": missing,
                                   "CLOUDSDK_CONFIG": conf})
        fails(args + ["--credentials", missing], 3, [missing])
    assert f.stop() == []


# ======================================================================== project and zone

@test
def project_chain():
    """--project, then GOOGLE_CLOUD_PROJECT, CLOUDSDK_CORE_PROJECT, the file's project_id,
    its quota_project_id: one TPU of the same name in each project, told apart by address and
    by the path the fake saw."""
    projects = ["flag-project", "env-project", "sdk-project", "file-project", "quota-project"]
    nodes = [mg.make_tpu_node(TPU, project=p, zone=TPU_ZONE, ips=["10.9.%d.2" % n])
             for n, p in enumerate(projects)]
    f = fake(nodes=nodes)
    full = save(sa_info(f, project_id="file-project", quota_project_id="quota-project"))
    quota_only = save(sa_info(f, project_id=None, quota_project_id="quota-project"))
    env = {"GOOGLE_CLOUD_PROJECT": "env-project", "CLOUDSDK_CORE_PROJECT": "sdk-project",
           "GOOGLE_APPLICATION_CREDENTIALS": full}
    cases = [(["--project", "flag-project"], env, "flag-project"),
             ([], env, "env-project"),
             ([], dict(env, GOOGLE_CLOUD_PROJECT=None), "sdk-project"),
             ([], dict(env, GOOGLE_CLOUD_PROJECT=None, CLOUDSDK_CORE_PROJECT=None),
              "file-project"),
             ([], {"GOOGLE_APPLICATION_CREDENTIALS": quota_only}, "quota-project")]
    for extra, env_, project in cases:
        mark = len(f.requests())
        n = projects.index(project)
        assert spec(tpu(f, *extra, project=None), env_)[0] == {"worker": ["10.9.%d.2:8470" % n]}
        calls = check_api(since(f, mark), SA_TOKEN, quota="quota-project")
        assert [r["path"] for r in calls] == ["/v2/projects/%s/locations/%s/nodes/%s"
                                              % (project, TPU_ZONE, TPU)], calls
    # no project anywhere, no metadata server
    nowhere = save(user_info(f))
    fails(tpu(f, project=None), 3, ["--project"], {"GOOGLE_APPLICATION_CREDENTIALS": nowhere})
    fails(gce(f, project=None), 3, ["--project"], {"GOOGLE_APPLICATION_CREDENTIALS": nowhere})
    f.stop()


@test
def zone_absent_off_cloud_is_exit_3_naming_zone():
    f = fake()
    env = {"GOOGLE_APPLICATION_CREDENTIALS": save(sa_info(f))}
    fails(gce(f, zone=None), 3, ["--zone"], env)
    fails(tpu(f, zone=None), 3, ["--zone"], env)
    assert api_calls(f.stop()) == []


# ======================================================================== headers and tokens

@test
def user_project_header_exactly_when_quota_project_id():
    f = fake()
    cases = [(user_info(f), USER_TOKEN, None),
             (user_info(f, quota_project_id="billing-user"), USER_TOKEN, "billing-user"),
             (sa_info(f), SA_TOKEN, None),
             (sa_info(f, quota_project_id="billing-sa"), SA_TOKEN, "billing-sa"),
             (impersonated_info(f, user_info(f)), IMP_TOKEN, None),
             (impersonated_info(f, user_info(f), quota_project_id="billing-imp"), IMP_TOKEN,
              "billing-imp")]
    for info, token, quota in cases:
        for args, want in ((gce(f), GCE_WANT), (tpu(f), TPU_WANT)):
            mark = len(f.requests())
            assert spec(args, {"GOOGLE_APPLICATION_CREDENTIALS": save(info)})[0] == want
            check_api(since(f, mark), token, quota)
    f.stop()


@test
def token_fetched_once_per_resolve():
    """4 RUNNING members at 2 a page and 6 RUNNING VMs in the zone: 2 group pages and 3 zone
    pages, one token (one grant, and one generateAccessToken when impersonating)."""
    f = fake("--page-cap", "2")
    for info, grants, generates, token in ((user_info(f), 1, 0, USER_TOKEN),
                                           (sa_info(f), 1, 0, SA_TOKEN),
                                           (impersonated_info(f, sa_info(f)), 1, 1, IMP_TOKEN)):
        mark = len(f.requests())
        assert spec(gce(f), {"GOOGLE_APPLICATION_CREDENTIALS": save(info)})[0] == GCE_WANT
        log = since(f, mark)
        calls = check_api(log, token)
        assert [r["path"].rsplit("/", 1)[1] for r in calls] == ["listInstances"] * 2 + \
            ["instances"] * 3, [r["path"] for r in log]
        assert (len(token_calls(log)), len(iam_calls(log))) == (grants, generates), log
    f.stop()


@test
def a_401_fetches_a_new_token_once():
    """The API refuses the first token (revoked under us): one new grant, the request again
    with the new token, success. Both tokens refused: exit 4 after one new grant."""
    for kind in ("user", "sa"):
        for revoked, code in (([USER_TOKEN, SA_TOKEN], 0), ([USER_TOKEN, SA_TOKEN, FRESH], 4)):
            for backend, want in ((gce, GCE_WANT), (tpu, TPU_WANT)):
                # a fake each: its token lists start again (first token, then FRESH)
                f = fake(doc=oauth_doc((USER_TOKEN, FRESH), (SA_TOKEN, FRESH), revoked))
                info = user_info(f) if kind == "user" else sa_info(f)
                first = USER_TOKEN if kind == "user" else SA_TOKEN
                env = {"GOOGLE_APPLICATION_CREDENTIALS": save(info)}
                if code == 0:
                    assert spec(backend(f), env)[0] == want
                else:
                    fails(backend(f, "--retries", "0"), 4, ["401"], env)
                log = f.stop()
                calls = api_calls(log)
                tokens = token_calls(log)
                assert len(tokens) == 2 and all(r["status"] == 200 for r in tokens), log
                assert calls[0]["headers"]["authorization"] == "Bearer " + first
                assert calls[0]["status"] == 401 and calls[1]["path"] == calls[0]["path"]
                assert all(r["headers"]["authorization"] == "Bearer " + FRESH
                           for r in calls[1:]), calls
                assert log.index(tokens[1]) < log.index(calls[1])
                if code == 0:
                    assert all(r["status"] == 200 for r in calls[1:]), calls
                else:
                    assert len(calls) == 2 and calls[1]["status"] == 401, calls


# ======================================================================== refusals

def refusals(cases, hint=LOGIN_HINT):
    """Each file against a fake whose service account has another public key: exit 3 with
    the token endpoint's error_description and the gcloud command that fixes it (a new login,
    or for a key a new key)."""
    f = fake(doc=oauth_doc(public=harness.rsa_key(TMP, "another")[1]))  # the key is not ours
    for make, description in cases:
        for args in (gce(f), tpu(f)):
            fails(args, 3, [description, hint],
                  {"GOOGLE_APPLICATION_CREDENTIALS": save(make(f))})
    log = f.stop()
    assert api_calls(log) == [] and iam_calls(log) == [], log
    return log


@test
def refused_user_credentials_are_exit_3_with_the_description():
    gone = "1//0gRevoked-refresh-token"
    log = refusals([(lambda f: user_info(f, refresh_token=gone),
                     "Token has been expired or revoked."),
                    (lambda f: user_info(f, client_secret="wrong-client-secret"), "Unauthorized"),
                    (lambda f: impersonated_info(f, user_info(f, refresh_token=gone)),
                     "Token has been expired or revoked.")])
    assert [r["status"] for r in token_calls(log)] == [400, 400, 401, 401, 400, 400], log


@test
def refused_service_account_key_is_exit_3_with_the_description():
    log = refusals([(sa_info, "Invalid JWT Signature."),
                    (lambda f: impersonated_info(f, sa_info(f)), "Invalid JWT Signature.")],
                   hint="gcloud iam service-accounts keys create")
    assert [r["oauth"]["verified"] for r in token_calls(log)] == [False] * 4, log


@test
def impersonation_refused_is_exit_4_with_googles_message():
    f = fake()
    info = impersonated_info(f, user_info(f), service_account_impersonation_url=f.url +
                             "/v1/projects/-/serviceAccounts/other@x.iam.gserviceaccount.com:"
                             "generateAccessToken")
    fails(gce(f), 4, ["403", "Permission 'iam.serviceAccounts.getAccessToken' denied"],
          {"GOOGLE_APPLICATION_CREDENTIALS": save(info)})
    log = f.stop()
    assert [r["status"] for r in iam_calls(log)] == [403] and api_calls(log) == [], log


@test
def unsupported_types_fail_before_any_request():
    f = fake()
    external = {"type": "external_account", "audience": "//iam.googleapis.com/projects/1/"
                "locations/global/workloadIdentityPools/pool/providers/gh",
                "subject_token_type": "urn:ietf:params:oauth:token-type:jwt",
                "token_url": f.url + "/token",
                "credential_source": {"file": "/var/run/token"}}
    external_user = {"type": "external_account_authorized_user",
                     "audience": "//iam.googleapis.com/locations/global/workforcePools/p/"
                     "providers/q", "client_id": CLIENT_ID, "client_secret": CLIENT_SECRET,
                     "refresh_token": REFRESH, "token_url": f.url + "/token",
                     "token_info_url": f.url + "/v1/introspect"}
    other = dict(user_info(f), type="gdch_service_account_v2")
    for info in (external, external_user, other):
        path = save(info)
        for args, env in ((gce(f), {"GOOGLE_APPLICATION_CREDENTIALS": path}),
                          (tpu(f, "--credentials", path), {}),
                          (tpu(f), {"CLOUDSDK_CONFIG": gcloud_dir(info)})):
            fails(args, 3, [info["type"], "--token-file"], env)
    assert f.stop() == []


# ======================================================================== oracles

GOOGLE_AUTH_CLIENT = r'''
import json, sys
import google.auth, google.oauth2.credentials
import google.auth.transport.requests as transport
info = json.load(open(sys.argv[1]))
creds, project = google.auth.default(scopes=["https://www.googleapis.com/auth/cloud-platform"])
if info["type"] == "authorized_user":
    # 1.5.1's from_authorized_user_info sends the refresh to Google's own endpoint whatever
    # token_uri says; the same class, given the file's token_uri
    creds = google.oauth2.credentials.Credentials(
        None, refresh_token=info["refresh_token"], token_uri=info["token_uri"],
        client_id=info["client_id"], client_secret=info["client_secret"])
creds.refresh(transport.Request())
print(json.dumps({"token": creds.token, "project": project}))
'''


def google_auth(path):
    """python3-google-auth 1.5.1's ADC (google.auth.default, $GOOGLE_APPLICATION_CREDENTIALS)
    refreshing the file at path. (1.5.1 knows authorized_user and service_account files only:
    impersonated_service_account files came in later releases, so they have no oracle here.)"""
    assert os.access(harness.SYSTEM_PYTHON, os.X_OK), "missing " + harness.SYSTEM_PYTHON
    env = {"PATH": "/usr/bin:/bin", "HOME": home(), "GOOGLE_APPLICATION_CREDENTIALS": path,
           "NO_PROXY": "*"}
    p = subprocess.run([harness.SYSTEM_PYTHON, "-c", GOOGLE_AUTH_CLIENT, path], env=env,
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, "google-auth: %s" % p.stderr.strip()[-800:]
    return json.loads(p.stdout)


@test
def oracle_google_auth_gets_the_token_we_send():
    f = fake()
    for info, kind in ((user_info(f), "authorized_user"), (sa_info(f), "service_account")):
        path = save(info)
        mark = len(f.requests())
        theirs = google_auth(path)
        their_log = since(f, mark)
        mark = len(f.requests())
        assert spec(gce(f), {"GOOGLE_APPLICATION_CREDENTIALS": path})[0] == GCE_WANT
        our_log = since(f, mark)
        sent = check_api(our_log, theirs["token"])[0]["headers"]["authorization"]
        assert sent == "Bearer " + theirs["token"], (kind, sent)
        assert len(token_calls(their_log)) == 1 and len(token_calls(our_log)) == 1
        theirs_req, ours_req = token_calls(their_log)[0], token_calls(our_log)[0]
        assert set(parse_qs(theirs_req["body"])) == set(parse_qs(ours_req["body"])), kind
        if kind == "authorized_user":
            check_refresh_grant(theirs_req)
            check_refresh_grant(ours_req)
            continue
        assert theirs["project"] == P
        a, b = theirs_req["oauth"], check_jwt_grant(f, ours_req)
        assert a["verified"] is True
        assert a["jwt_header"] == b["jwt_header"], (a["jwt_header"], b["jwt_header"])
        ca, cb = a["jwt_claims"], b["jwt_claims"]
        assert set(ca) == set(cb), (ca, cb)
        assert all(ca[k] == cb[k] for k in ("iss", "aud", "scope")), (ca, cb)
        assert ca["exp"] - ca["iat"] == cb["exp"] - cb["iat"] == 3600, (ca, cb)
    f.stop()


GCLOUD = "gcloud"


def gcloud(f, conf, *args):
    exe = shutil.which(GCLOUD)
    assert exe, "gcloud is not installed (google-cloud-cli): this test needs it"
    env = {"HOME": conf, "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "CLOUDSDK_CONFIG": conf, "CLOUDSDK_CORE_DISABLE_PROMPTS": "1",
           "CLOUDSDK_CORE_CHECK_GCE_METADATA": "false",
           "CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK": "1",
           "CLOUDSDK_CORE_DISABLE_USAGE_REPORTING": "true",
           "CLOUDSDK_AUTH_TOKEN_HOST": f.url + "/token",
           "CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE": f.url + "/compute/v1/",
           "CLOUDSDK_API_ENDPOINT_OVERRIDES_TPU": f.url + "/"}
    p = subprocess.run([exe] + list(args), capture_output=True, text=True, timeout=120, env=env)
    assert p.returncode == 0, "gcloud %s: %s" % (" ".join(args[:3]), p.stderr.strip())
    return p.stdout


@test
def oracle_gcloud_sees_what_we_see_with_the_same_key():
    """gcloud activates the service-account key (its JWT grant at the fake's token endpoint,
    the signature verified; today's google-auth in gcloud sends the audience
    https://oauth2.googleapis.com/token whatever token_uri says, which Google and the fake
    take), then lists the group's instances and describes the TPU VM with the token it got;
    we resolve the same members and endpoints with the same key file."""
    f = fake()
    key = save(sa_info(f))
    conf = tempfile.mkdtemp(dir=TMP)
    gcloud(f, conf, "auth", "activate-service-account", "--key-file", key)
    listed = json.loads(gcloud(f, conf, "compute", "instance-groups", "list-instances",
                               "workers", "--zone", Z, "--project", P, "--format=json"))
    node = json.loads(gcloud(f, conf, "compute", "tpus", "tpu-vm", "describe", TPU, "--zone",
                             TPU_ZONE, "--project", P, "--format=json"))
    gcloud_log = f.requests()
    by_name = {i["name"]: i for i in INSTANCES}
    running = sorted((r["instance"].rsplit("/", 1)[1] for r in listed
                      if r["status"] == "RUNNING"), key=mg.natural_key)
    seen = ["%s:8470" % by_name[n]["networkInterfaces"][0]["networkIP"] for n in running]
    endpoints = ["%s:%d" % (e["ipAddress"], e.get("port") or 8470)
                 for e in node["networkEndpoints"]]
    env = {"GOOGLE_APPLICATION_CREDENTIALS": key}
    assert spec(gce(f), env)[0] == {"worker": seen} == GCE_WANT, seen
    assert spec(tpu(f), env)[0] == {"worker": endpoints} == TPU_WANT, endpoints
    log = f.stop()
    ours = log[len(gcloud_log):]
    grants = [r for r in token_calls(gcloud_log) if r["status"] == 200]
    assert grants and all(r["oauth"]["verified"] and r["oauth"]["jwt_header"]["kid"] == KID
                          and r["oauth"]["jwt_claims"]["iss"] == SA for r in grants), grants
    assert all(CLOUD in r["oauth"]["jwt_claims"]["scope"].split() for r in grants), grants
    check_api(gcloud_log, SA_TOKEN)  # gcloud sent the token the fake issued for the key
    check_api(ours, SA_TOKEN)        # and so did we
    check_jwt_grant(f, token_calls(ours)[0])


if __name__ == "__main__":
    if not os.access(CLI, os.X_OK):
        sys.exit("test_google_adc: %s is missing (make %s)" % (CLI, CLI))
    sys.exit(harness.run_tests(TESTS, TMP, ARGS))

#!/usr/bin/env python3
"""Exec credential plugins of our own, run by the CLI (the default exec hook: posix_spawnp, no
shell) against the HTTPS fake API server, for what the real cloud plugins never do on demand:
a credential that expires in the middle of a resolve (its expirationTimestamp is checked before
every request, so the next page goes out with a fresh token), a 401 that a second run of the
plugin fixes, and a 401 that it does not (the plugin runs twice, not more). Each plugin counts
its runs in a file; the fake's request log shows which token each request carried.

usage: python3 tests/kubeconfig/test_exec_plugins.py BUILD_DIR [NAME_SUBSTRING...]
Prints "ok/FAIL name" lines, then "N passed, N failed".
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
ROOT = os.path.dirname(TESTS)
sys.path[:0] = [os.path.join(TESTS, "gcp"), os.path.join(TESTS, "k8s")]
import harness  # noqa: E402
import make_pods  # noqa: E402

ARGS = sys.argv[1:]
BUILD = ARGS.pop(0) if ARGS and os.path.isdir(ARGS[0]) else os.path.join(ROOT, "build", "san")
CLI = os.path.abspath(os.path.join(BUILD, "cluster-resolve"))
TMP = tempfile.mkdtemp(prefix="exec-plugins.")
CERTS = os.path.join(TMP, "certs")
FAKE_API = os.path.join(TESTS, "fake_api.py")
TESTS_RUN = []
EXEC_V1 = "client.authentication.k8s.io/v1"

# The plugin: run N prints token "tok-N"; with LIFETIME set, an expirationTimestamp LIFETIME
# seconds ahead (RFC 3339, whole seconds, as the cloud plugins write it).
PLUGIN = """#!%s
import datetime, json, os, sys
count_file = os.environ["COUNT_FILE"]
n = int(open(count_file).read()) + 1 if os.path.exists(count_file) else 1
open(count_file, "w").write(str(n))
status = {"token": "tok-%%d" %% n}
if os.environ.get("LIFETIME"):
    at = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=float(os.environ["LIFETIME"]))
    status["expirationTimestamp"] = at.strftime("%%Y-%%m-%%dT%%H:%%M:%%SZ")
info = json.loads(os.environ["KUBERNETES_EXEC_INFO"])
print(json.dumps({"apiVersion": info["apiVersion"], "kind": "ExecCredential", "status": status}))
""" % sys.executable


def test(fn):
    TESTS_RUN.append((fn.__name__, fn))
    return fn


def setup_case(name, lifetime=None):
    """A directory with the plugin and a kubeconfig whose user runs it; -> (dir, kubeconfig
    path template needing the server URL, count file)."""
    d = os.path.join(TMP, name)
    os.makedirs(d)
    plugin = harness.write(d, "plugin.py", PLUGIN)
    os.chmod(plugin, 0o755)
    env = [{"name": "COUNT_FILE", "value": os.path.join(d, "count")}]
    if lifetime:
        env.append({"name": "LIFETIME", "value": str(lifetime)})
    return d, env


def kubeconfig(d, server, env):
    doc = {"apiVersion": "v1", "kind": "Config", "current-context": "c",
           "clusters": [{"name": "k", "cluster": {"server": server,
                                                  "certificate-authority": os.path.join(CERTS, "ca.pem")}}],
           "contexts": [{"name": "c", "context": {"cluster": "k", "user": "u", "namespace": "ml"}}],
           "users": [{"name": "u", "user": {"exec": {"apiVersion": EXEC_V1, "command": "./plugin.py",
                                                     "interactiveMode": "Never", "env": env}}}]}
    return harness.write(d, "config", json.dumps(doc))


def pods_file():
    pods = make_pods.make_pods(12, "trainer", "ml", indexed=True, start_ip="10.4.0.10")
    return harness.write(TMP, "pods.json", json.dumps(make_pods.pod_list(pods)))


def run(config, *extra):
    p = subprocess.run([CLI, "k8s", "--job", "worker=job-name=trainer", "--format", "spec"] + list(extra),
                       capture_output=True, text=True, timeout=60,
                       env={"PATH": "/usr/bin:/bin", "HOME": TMP, "KUBECONFIG": config})
    return p.returncode, p.stdout, p.stderr


def tokens(requests):
    return [r["headers"].get("authorization") for r in requests if r["path"].endswith("/pods")]


def runs(d):
    with open(os.path.join(d, "count")) as f:
        return int(f.read())


@test
def expiry_passing_mid_resolve_runs_the_plugin_before_the_next_page():
    """Pages of 5 of 12 pods; the second page takes 5.5 s (a delay fault), and the credential
    lives 4 s (3 to 4 s once cut to whole seconds, far more than the second page needs to be
    asked): pages 1 and 2 go with tok-1, page 3, asked after the expiry, with tok-2. The fake
    takes both tokens."""
    d, env = setup_case("expiry", lifetime=4)
    faults = [{"path": "/api/v1/", "query": "continue=", "times": 1, "delay": 5.5}]
    fake = harness.Fake(TMP, "--pods", pods_file(), "--bearer", "tok-1", "--bearer", "tok-2",
                        "--faults", faults, script=FAKE_API, certs=CERTS)
    code, out, err = run(kubeconfig(d, fake.url, env), "--page-size", "5")
    log = fake.stop()
    assert code == 0, err
    assert len(json.loads(out)["worker"]) == 12, out
    assert tokens(log) == ["Bearer tok-1", "Bearer tok-1", "Bearer tok-2"], tokens(log)
    assert runs(d) == 2, runs(d)
    assert "tok-" not in err


@test
def a_401_runs_the_plugin_once_more():
    """The fake takes only tok-2: the first request (tok-1) gets 401, the plugin runs again and
    the request is repeated with tok-2."""
    d, env = setup_case("401")
    fake = harness.Fake(TMP, "--pods", pods_file(), "--bearer", "tok-2", script=FAKE_API,
                        certs=CERTS)
    code, out, err = run(kubeconfig(d, fake.url, env), "--verbose")
    log = fake.stop()
    assert code == 0, err
    assert len(json.loads(out)["worker"]) == 12, out
    assert tokens(log) == ["Bearer tok-1", "Bearer tok-2"], tokens(log)
    assert [r["status"] for r in log] == [401, 200], log
    assert runs(d) == 2 and "running the exec plugin again" in err, err
    assert "tok-1" not in err and "tok-2" not in err, "a token in the log"


@test
def a_second_401_is_the_answer():
    """No token of the plugin's is accepted: two runs, two requests, then exit 4 naming 401."""
    d, env = setup_case("401-twice")
    fake = harness.Fake(TMP, "--pods", pods_file(), "--bearer", "never-given", script=FAKE_API,
                        certs=CERTS)
    code, out, err = run(kubeconfig(d, fake.url, env))
    log = fake.stop()
    assert code == 4 and out == "" and "401" in err, (code, err)
    assert tokens(log) == ["Bearer tok-1", "Bearer tok-2"], tokens(log)
    assert runs(d) == 2


if __name__ == "__main__":
    subprocess.run(["bash", os.path.join(TESTS, "gen_certs.sh"), CERTS], check=True)
    sys.exit(harness.run_tests(TESTS_RUN, TMP, ARGS))

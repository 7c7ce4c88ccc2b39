"""Shared pieces of the GCP tests: start and stop tests/gcp/fake_gcp.py, write fixture files,
run a list of test functions printing "ok/FAIL name" and "N passed, N failed". Stdlib only."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FAKE_GCP = os.path.join(HERE, "fake_gcp.py")
FAKE_API = os.path.join(ROOT, "tests", "fake_api.py")
TOKEN = "ya29.c.fake-access-token_0123456789"
SYSTEM_PYTHON = "/usr/bin/python3"   # Debian's, with python3-cryptography and python3-google-auth
LIVE = []   # fakes not stopped yet: run_tests ends them after a failed test


class Fake:
    """One fake_gcp.py process (our child; script=FAKE_API for the Kubernetes one) with a
    request log; stop() ends it and returns the logged requests. `args` are its options; dicts
    and lists among them are written to JSON files first (so Fake(tmp, "--compute", doc)
    works). certs: a tests/gen_certs.sh directory, to serve HTTPS with its server.pem. python:
    the interpreter (default this one's; SYSTEM_PYTHON for --oauth with service accounts,
    whose JWTs the fake verifies with python3-cryptography)."""

    def __init__(self, tmp, *args, secrets=True, script=FAKE_GCP, certs=None, python=None):
        self.dir = tempfile.mkdtemp(dir=tmp)
        self.port_file = os.path.join(self.dir, "port")
        self.log = os.path.join(self.dir, "log.jsonl")
        cmd = [python or sys.executable, script, "--port-file", self.port_file, "--log", self.log,
               "--max-seconds", "300"] + (["--log-secrets"] if secrets else [])
        if certs:
            cmd += ["--cert", os.path.join(certs, "server.pem"), "--key", os.path.join(certs, "server.key")]
        for n, a in enumerate(args):
            if isinstance(a, (dict, list)):
                path = os.path.join(self.dir, "arg%d.json" % n)
                with open(path, "w") as f:
                    json.dump(a, f)
                a = path
            cmd.append(str(a))
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     stdin=subprocess.DEVNULL)
        LIVE.append(self)
        deadline = time.time() + 20
        while not os.path.exists(self.port_file):
            if self.proc.poll() is not None:
                raise AssertionError("%s exited: %s" % (os.path.basename(script), self.proc.stderr.read().decode()))
            if time.time() > deadline:
                self.proc.kill()
                raise AssertionError(os.path.basename(script) + " did not start")
            time.sleep(0.005)
        with open(self.port_file) as f:
            self.port = int(f.read())
        self.url = "%s://127.0.0.1:%d" % ("https" if certs else "http", self.port)
        self.host = "127.0.0.1:%d" % self.port
        self.compute_url = self.url + "/compute/v1"

    def requests(self):
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:  # whole lines only: a live server may be writing one
            return [json.loads(line) for line in f if line.endswith("\n")]

    def stop(self):
        if self in LIVE:
            LIVE.remove(self)
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            _, err = self.proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _, err = self.proc.communicate()
        assert self.proc.returncode == 0 and not err, "fake_gcp: rc %s: %s" % (
            self.proc.returncode, err.decode())
        return self.requests()


def write(tmp, name, content):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(content if isinstance(content, str) else json.dumps(content))
    return path


def rsa_key(tmp, name):
    """A throw-away RSA key made now (openssl genpkey, 2048 bits; never committed): (the path
    of its private key, PKCS#8 PEM as service-account key files hold it; its public key PEM)."""
    path = os.path.join(tmp, name + ".pem")
    subprocess.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048",
                    "-out", path], check=True, capture_output=True, timeout=60)
    public = subprocess.run(["openssl", "pkey", "-in", path, "-pubout"], check=True,
                            capture_output=True, text=True, timeout=60).stdout
    return path, public


def free_port():
    """A loopback port nobody listens on (bound, then closed)."""
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def run_tests(tests, tmp, patterns=(), cleanup=None):
    """Runs each (name, fn) whose name contains one of the patterns (all when none); prints
    one line each and the summary; after each test ends the fakes it left running (and calls
    `cleanup`, for other children); removes tmp; returns the exit status."""
    chosen = [(n, fn) for n, fn in tests if not patterns or any(p in n for p in patterns)]
    failed = 0
    started = time.time()
    try:
        for name, fn in chosen:
            t = time.time()
            try:
                fn()
                print("ok   %s (%.1f s)" % (name, time.time() - t), flush=True)
            except Exception as e:  # report each failure, then fail the run
                failed += 1
                where = traceback.extract_tb(e.__traceback__)[-1]
                print("FAIL %s: %s: %s [line %d]" % (name, type(e).__name__, e, where.lineno),
                      flush=True)
            while LIVE:  # the fakes a failed test left running (our children)
                fake = LIVE.pop()
                fake.proc.kill()
                fake.proc.communicate()
            if cleanup:
                cleanup()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("(%.1f s)" % (time.time() - started))
    print("%d passed, %d failed" % (len(chosen) - failed, failed))
    return 1 if failed else 0

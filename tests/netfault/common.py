"""Shared pieces of the network-fault tests: start and stop tests/netfault/proxy.py and the fake
servers (through tests/gcp/harness.py, whose run_tests runs them), read the proxy's log. Stdlib
only. Every process started here is our child and is ended by its own handle."""
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PROXY = os.path.join(HERE, "proxy.py")
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "gcp"))
import harness  # noqa: E402  (tests/gcp: Fake starts a fake server)
LIVE = []   # processes not stopped yet: run_tests ends them after each test


def wait_for_port(proc, port_file, what, seconds=20):
    deadline = time.time() + seconds
    while not os.path.exists(port_file):
        if proc.poll() is not None:
            raise AssertionError("%s exited: %s" % (what, proc.stderr.read().decode(errors="replace")))
        if time.time() > deadline:
            raise AssertionError("%s did not start" % what)
        time.sleep(0.005)
    with open(port_file) as f:
        return int(f.read())


class Proxy:
    """One proxy.py process in front of 127.0.0.1:upstream with this plan (a list of rules);
    stop() ends it (SIGTERM, exit 0 required) and returns its log records."""

    def __init__(self, tmp, upstream, plan, live=LIVE):
        self.dir = tempfile.mkdtemp(dir=tmp, prefix="proxy-")
        self.port_file = os.path.join(self.dir, "port")
        self.log_path = os.path.join(self.dir, "log.jsonl")
        self.plan = plan
        cmd = [sys.executable, PROXY, "--upstream", str(upstream), "--port-file", self.port_file,
               "--log", self.log_path, "--plan-json", json.dumps(plan), "--max-seconds", "120"]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        if live is not None:
            live.append(self.proc)
        try:
            self.port = wait_for_port(self.proc, self.port_file, "proxy.py")
        except AssertionError:
            self.kill()
            raise
        self.url = "http://127.0.0.1:%d" % self.port

    def log(self):
        if not os.path.exists(self.log_path):
            return []
        with open(self.log_path) as f:
            return [json.loads(line) for line in f if line.strip()]

    def stop(self):
        stop_process(self.proc, "proxy.py")
        return self.log()

    def kill(self):
        if self.proc in LIVE:
            LIVE.remove(self.proc)
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.communicate()


def Server(tmp, script, *args):
    """One fake server process (tests/fake_api.py or tests/gcp/fake_gcp.py) with a request log,
    as tests/gcp/harness.py starts them; a group of tests shares it; stop() ends it (exit 0
    and nothing on stderr required)."""
    return harness.Fake(tmp, *args, script=script)


def stop_process(proc, what):
    """SIGTERM, then wait; it must exit 0 with nothing on stderr."""
    if proc in LIVE:
        LIVE.remove(proc)
    if proc.poll() is None:
        proc.terminate()
    try:
        _, err = proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise AssertionError("%s did not stop on SIGTERM" % what)
    err = (err or b"").decode(errors="replace")
    assert proc.returncode == 0 and not err, "%s: exit %s: %s" % (what, proc.returncode, err)


def actions(log, *names):
    return [r for r in log if r["action"] in names]


def kill_live():
    while LIVE:
        proc = LIVE.pop()
        if proc.poll() is None:
            proc.kill()
        proc.communicate()

#!/usr/bin/env python3
"""Network faults, end to end: the built cluster-resolve (ASan+UBSan, the bundled libcurl
transport) against the fake servers with tests/netfault/proxy.py in between, one case per
(endpoint, fault). The hostile-answer matrix (tests/test_hostile_http.py) sends bad answers
over a good socket; here the answers are good and the network is not.

Endpoints (each its own fake server, the proxy in front of what it names):
  k8s      tests/fake_api.py: 8 pods of an Indexed Job in pages of 2 (4 requests)
  gce-api  tests/gcp/fake_gcp.py: the Compute API (3 group-list pages, 3 zone-list pages with
           --page-cap 2); the metadata server (project, zone, token, instance name) direct
  gce-md   the same, the proxy in front of the metadata server, Compute direct
  tpu-api  the Cloud TPU API node and the metadata server, both through the proxy (one
           connection: 3 metadata answers, then the node); faults aimed at the node request
  tpu-md   the proxy in front of the metadata server only, the TPU API direct
  tpu-token  tpu with --credentials: an authorized_user file whose token_uri is the proxy in
           front of the fake's OAuth token endpoint; the TPU API direct. Its own cases (below
           the generic ones): the token answer reset before its first byte or 10 bytes in
           (always: exit 4 after one retry; once: retried, exact), stalled for ever (exit 4
           after one --timeout-ms, not retried), refused (exit 4); every failure names the
           token endpoint's URL and shows no refresh token, client secret or access token

Faults (proxy.py rules) and what each case demands. "Right answer": exit 0 and exactly the
clean run's TF_CONFIG (no proxy); "fails": exit 4 (the metadata server: exit 3 where it never
answered, as documented), empty stdout, one line on stderr naming the fault, within the
resolve bound plus MARGIN_S. Every run has a hard timeout (a hang fails), a sanitizer report
fails, and what the fake server saw is checked against the clean run's requests.
  passthrough            no fault: right answer, one connection for every request
  reset-once             RST 10 bytes into a later answer's body: retried, right answer, that
                         request seen twice
  reset-at-zero-once     RST when the server has answered, before a byte reaches the client
  reset-always           RST on every answer: fails "Connection reset", after its retries
  close-once / -always   FIN 10 bytes into the body: retried / fails "transfer closed"
  close-between-answers  FIN on every second request of a connection (a server that closes
                         idle keep-alive connections): right answer though "always"
  stall-once             silence 10 bytes into a later body, for ever: fails "no complete
                         answer within 1000 ms" after one --timeout-ms, NOT retried (the
                         documented contract for a server that accepted and went silent)
  stall-short-once       silence for 0.4 s (inside --timeout-ms): right answer
  stall-always           0.4 s of silence before every answer, --resolve-timeout-ms 1000: fails
                         "resolve_timeout_ms" where three or more answers stall, else right
  refuse-once            a later request ends in FIN and the port refuses for a while (0.5 s;
                         0.1 s for the metadata server, which gets one retry after 250 ms):
                         right answer, the request sent once after the port came back
  refuse-always          no listening socket at all: fails "Couldn't connect" (the metadata
                         server: exit 3 "not on Google Cloud", documented)
  blackhole-once/-always as refuse, but SYNs are dropped, so connect() times out (--timeout-ms
                         700): documented as a connection error that is retried
  vanish-once            between answers every connection is reset and the port refuses for a
                         while, then comes back (the server's state intact): right answer, each
                         page fetched exactly once and with the same continue/page token
  vanish-always          the same on every second request of a connection: fails within
                         --resolve-timeout-ms 1200 where pages keep vanishing (k8s, gce-api),
                         else right
  md-silent-first        the metadata server's first answer never comes: exit 3 "not on Google
                         Cloud" (documented)
  md-gone-after-answers, md-silent-after-answers, own-name-lost: the metadata server fails
                         after it has answered in this resolve: fails, exit 4, naming the fault

usage: test_netfaults.py BUILD_DIR [NAME_SUBSTRING...]   (BUILD_DIR holds cluster-resolve)
  Prints "ok NAME (x.x s)" or "FAIL NAME: why" per case, then a summary; exits 1 on any
  failure. NETFAULT_JOBS (default 5): endpoints tested at once.
"""
import base64
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlencode

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [HERE, os.path.join(ROOT, "tests", "gcp"), os.path.join(ROOT, "tests", "k8s")]
import make_gcp as mg  # noqa: E402
import make_pods as mp  # noqa: E402
from common import Proxy, Server, actions  # noqa: E402

ARGS = sys.argv[1:]
if not ARGS or not os.path.isfile(os.path.join(ARGS[0], "cluster-resolve")):
    sys.exit("usage: test_netfaults.py BUILD_DIR [NAME_SUBSTRING...]")
CLI = os.path.join(ARGS.pop(0), "cluster-resolve")
JOBS = int(os.environ.get("NETFAULT_JOBS", "5"))
TMP = tempfile.mkdtemp(prefix="netfault-")
TOKEN = "ya29.c.netfault-access-token_0123456789"
P, Z, TPU_ZONE = "test-project", "us-east1-d", "us-central1-c"

TIMEOUT_MS = 1000        # --timeout-ms: a silent answer costs this much
BOUND_MS = 5000          # --resolve-timeout-ms, unless a case bounds tighter
MARGIN_S = 1.0           # a failure comes within the bound plus this (process start and exit)
HARD_S = 15              # past the bound, a run is a hang
BODY_CUT = 10            # faults act this many bytes into an answer's body
API_OUTAGE_S = 0.5       # a refusal or vanish of an API: retries at +0.25 (refused), +0.75 (back)
MD_OUTAGE_S = 0.1        # ... of the metadata server, whose one retry comes at +0.25
STALL_S = 0.4            # a stall that ends inside --timeout-ms
STALL_BOUND_MS = 1000    # three stalled answers do not fit
BLACKHOLE_TIMEOUT_MS = 700   # connect timeout, shorter than the kernel's 1 s SYN retransmit
BLACKHOLE_S = 0.5        # over before the retry (+0.7 s timeout +0.25 s wait)
VANISH_BOUND_MS = 1200   # pages that keep vanishing (0.75 s each) do not fit
CONNECT_WORDS = ["Couldn't connect", "Could not connect", "Connection refused"]
SANITIZER = re.compile(r"Sanitizer|runtime error:|==\d+==ERROR")


class Fatal(Exception):
    """A hang, a crash or a sanitizer report: fails a case even when a failure is expected."""


# ---- the endpoints ----

def key(rec):
    """A request as the fake logged it: method, path, query. A Kubernetes continue token holds
    the list's resourceVersion, which moves on with every page the fake serves, so it is
    compared by where it continues from (snapshots() gives the resourceVersions)."""
    query = dict(rec["query"])
    if "continue" in query:
        query["continue"] = [decode_continue(t)["start"] for t in query["continue"]]
    return rec["method"], rec["path"], json.dumps(query, sort_keys=True)


def decode_continue(token):
    return json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))


def snapshots(records):
    """The resourceVersions of the list snapshots a run's continue tokens came from."""
    return {decode_continue(t)["rv"] for r in records for t in r["query"].get("continue", [])}


def line(k):
    query = json.loads(k[2])
    return k[1] + ("?" + urlencode(query, doseq=True) if query else "")


class Endpoint:
    """One backend with the proxy in front of one of its servers. `cli(fake_url, proxy_url)`
    gives the CLI's arguments; `proxied(path)` which requests go through the proxy; `target`
    the request-line text once-faults aim at (a later request on the first connection);
    `scope` the text always-faults are limited to (None: every request through the proxy);
    `metadata`: the proxy fronts the metadata server (2 s, one retry, exit 3 when it never
    answers)."""

    def __init__(self, name, backend, fake_args, cli, proxied, target, scope=None, metadata=False, env=None):
        self.name, self.backend, self.fake_args, self.cli = name, backend, fake_args, cli
        self.proxied, self.target, self.scope, self.metadata = proxied, target, scope, metadata
        self.env = env or {}
        self.fake = None
        self.outage_s = MD_OUTAGE_S if metadata else API_OUTAGE_S

    def start(self):
        """The fake server, and the clean run straight to it: the answer every case compares."""
        script = os.path.join(ROOT, "tests", "fake_api.py" if self.backend == "kubernetes" else "gcp/fake_gcp.py")
        self.fake = Server(TMP, script, *self.fake_args())
        code, self.clean_out, err, _ = cli(self.cli(self.fake.url, self.fake.url), self.env, BOUND_MS)
        assert code == 0 and err == "" and self.clean_out.startswith('{"cluster"'), (code, err)
        self.clean = [key(r) for r in self.fake.requests()]
        self.in_proxy = [k for k in self.clean if self.proxied(k[1])]
        assert len(self.in_proxy) >= 3, self.clean

    def in_scope(self, k):
        return self.proxied(k[1]) and (self.scope is None or self.scope in line(k))

    def is_target(self, k):
        return self.proxied(k[1]) and self.target in line(k)

    def with_repeat(self, pred, times):
        """The clean requests with the first one matching pred sent `times` times."""
        i = next(n for n, k in enumerate(self.clean) if pred(k))
        return self.clean[:i] + [self.clean[i]] * times + self.clean[i + 1:]

    def up_to(self, pred, times):
        """The clean requests before the first one matching pred, then it `times` times."""
        i = next(n for n, k in enumerate(self.clean) if pred(k))
        return self.clean[:i] + [self.clean[i]] * times

    def stop(self):
        if self.fake:
            self.fake.stop()


def k8s_endpoint():
    pods = mp.pod_list(mp.make_pods(8, "trainer", "default", indexed=True))
    return Endpoint("k8s", "kubernetes", lambda: ["--pods", pods],
                    lambda fake, proxy: ["k8s", "--server", proxy, "--namespace", "default",
                                         "--job", "worker=job-name=trainer", "--page-size", "2"],
                    lambda path: True, "continue=", env={"HOSTNAME": "trainer-2"})


def metadata_doc(zone, name):
    return {"project/project-id": P, "instance/zone": "projects/123456789012/zones/" + zone, "instance/name": name,
            "instance/service-accounts/default/token": {"access_token": TOKEN, "expires_in": 3599,
                                                        "token_type": "Bearer"}}


def gce_endpoint(name, through_metadata):
    insts = mg.make_instances(5, "workers", zone=Z, names="w")
    doc = mg.compute_doc([mg.make_group("workers", insts, zone=Z)], insts)
    fake_args = ["--compute", doc, "--metadata", metadata_doc(Z, "w-3"), "--bearer", TOKEN, "--page-cap", "2"]

    def args(fake, proxy):
        compute, md = (fake, proxy) if through_metadata else (proxy, fake)
        return ["gce", "--instance-group", "workers", "--compute-url", compute + "/compute/v1", "--metadata-url", md]
    if through_metadata:
        return Endpoint(name, "gce", lambda: fake_args, args, lambda path: path.startswith("/computeMetadata/"),
                        "/token", metadata=True)
    return Endpoint(name, "gce", lambda: fake_args, args, lambda path: path.startswith("/compute/"), "pageToken=")


def tpu_endpoint(name, through_metadata):
    node = mg.make_tpu_node("test-tpu-1", zone=TPU_ZONE, endpoints=4)
    fake_args = ["--tpu-nodes", mg.tpu_nodes_doc([node]), "--metadata", metadata_doc(TPU_ZONE, "t1"), "--bearer", TOKEN]

    def args(fake, proxy):
        return ["tpu", "--tpu", "test-tpu-1", "--tpu-url", fake if through_metadata else proxy, "--metadata-url", proxy]
    if through_metadata:
        return Endpoint(name, "tpu", lambda: fake_args, args, lambda path: path.startswith("/computeMetadata/"),
                        "/token", metadata=True)
    return Endpoint(name, "tpu", lambda: fake_args, args, lambda path: True, "/nodes/", scope="/nodes/")


ENDPOINTS = [k8s_endpoint(), gce_endpoint("gce-api", False), gce_endpoint("gce-md", True),
             tpu_endpoint("tpu-api", False), tpu_endpoint("tpu-md", True)]


# ---- one run through a proxy ----

def cli(args, env, bound_ms):
    e = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    e.update(env)
    hard = bound_ms / 1000 + HARD_S
    start = time.time()
    try:
        p = subprocess.run([CLI] + [str(a) for a in args], capture_output=True, text=True, errors="replace",
                           timeout=hard, env=e, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise Fatal("the CLI hung: no exit within %.0f s (killed)" % hard)
    if SANITIZER.search(p.stderr):
        raise Fatal("sanitizer report: %s" % p.stderr.strip()[:2000])
    if p.returncode < 0:
        raise Fatal("the CLI died of signal %d: %s" % (-p.returncode, p.stderr.strip()[:500]))
    return p.returncode, p.stdout, p.stderr, time.time() - start


class Run:
    """One CLI run through a fresh proxy with this plan, then what the client, the proxy and
    the fake server saw; the methods check them."""

    def __init__(self, ep, plan, retries=1, timeout_ms=TIMEOUT_MS, bound_ms=BOUND_MS, verbose=False):
        self.ep, self.bound_ms = ep, bound_ms
        before = len(ep.fake.requests())
        proxy = Proxy(TMP, ep.fake.port, plan, live=None)
        try:
            args = ep.cli(ep.fake.url, proxy.url) + ["--timeout-ms", timeout_ms, "--retries", retries,
                                                     "--resolve-timeout-ms", bound_ms]
            self.code, self.out, self.err, self.took = cli(args + (["--verbose"] if verbose else []), ep.env, bound_ms)
        except BaseException:
            proxy.kill()
            raise
        self.log = proxy.stop()
        records = ep.fake.requests()[before:]
        self.seen = [key(r) for r in records]
        self.snapshots = snapshots(records)

    def why(self):
        return "exit %d after %.2f s; stdout %r; stderr %r" % (self.code, self.took, self.out[:200], self.err[-600:])

    def succeeds(self, min_s=0):
        """Exactly the clean run's answer; stderr only log lines (--verbose), none an error."""
        assert self.code == 0 and self.out == self.ep.clean_out, "not the clean answer: " + self.why()
        bad = [s for s in self.err.splitlines() if not re.match(r"cluster-resolve: (debug|info|warn): ", s)]
        assert not bad, "stderr: %r" % bad
        assert self.took >= min_s, "took %.2f s, less than %.2f s: the fault did not hold it" % (self.took, min_s)
        assert self.took < self.bound_ms / 1000 + MARGIN_S, "past the bound: " + self.why()
        return self

    def fails(self, code, words, min_s=0):
        """Exit `code`, nothing on stdout, one line on stderr with one of `words`, within the
        resolve bound plus MARGIN_S (and not before min_s)."""
        assert self.code == code, "exit %d, want %d: %s" % (self.code, code, self.why())
        assert self.out == "", "a partial answer: " + self.why()
        assert self.err.count("\n") == 1 and self.err.startswith("cluster-resolve: "), self.why()
        assert any(w.lower() in self.err.lower() for w in words), "none of %r in %r" % (words, self.err)
        assert TOKEN not in self.err, "the token leaked"
        assert self.took < self.bound_ms / 1000 + MARGIN_S, "past the bound: " + self.why()
        assert self.took >= min_s, "took %.2f s, less than %.2f s: %s" % (self.took, min_s, self.why())
        return self

    def fired(self, action, count=None):
        """The proxy did it (count times, or at least once)."""
        n = len(actions(self.log, action))
        assert n == count if count is not None else n >= 1, "proxy %s %d times: %s" % (action, n, self.log)
        return self

    def came_back(self, action):
        """After the outage the port listened again and every later connection came after it."""
        at = actions(self.log, action)[0]["time"]
        back = [r["time"] for r in actions(self.log, "listen") if r["time"] > at]
        assert back, "the port never came back: %s" % self.log
        later = [r["time"] for r in actions(self.log, "accept") if r["time"] > at]
        assert later and min(later) >= back[0], "a connection during the outage: %s" % self.log
        return self

    def saw(self, expected):
        """The server saw these requests, and every continue token came from one list (the
        list went on where it stopped: no restart)."""
        assert self.seen == expected, "the server saw %s, want %s" % (
            [line(k) for k in self.seen], [line(k) for k in expected])
        assert len(self.snapshots) <= 1, "continue tokens of several lists: %s" % self.snapshots
        return self

    def saw_a_prefix(self):
        """The server saw the clean requests in order, none twice, some left out."""
        assert self.seen == self.ep.clean[:len(self.seen)] and len(self.seen) < len(self.ep.clean), \
            [line(k) for k in self.seen]
        assert len(self.snapshots) <= 1, "continue tokens of several lists: %s" % self.snapshots
        return self

    def warned(self, words):
        """The library logged a retry after this error (proof the retry was its own)."""
        retries = [s for s in self.err.splitlines() if " warn: " in s and "retrying" in s]
        assert any(w.lower() in s.lower() for s in retries for w in words), \
            "no retry after %r in %r" % (words, self.err[-1500:])
        return self


def rule(fault, match=None, **more):
    r = {"fault": fault}
    if match is not None:
        r["match"] = match
    r.update(more)
    return r


def into_body(fault, match=None, **more):
    return rule(fault, match, after=BODY_CUT, **{"from": "body"}, **more)


# ---- the cases ----

TESTS = []   # (endpoint, name, fn)


def case(applies=lambda ep: True):
    """Registers fn(ep) for each endpoint it applies to, as "<endpoint>/<fault>"."""
    def register(fn):
        for ep in ENDPOINTS:
            if applies(ep):
                TESTS.append((ep, "%s/%s" % (ep.name, fn.__name__.replace("_", "-")), fn))
        return fn
    return register


@case()
def passthrough(ep):
    """No fault: the proxy is transparent, and one kept-alive connection carries every request."""
    r = Run(ep, []).succeeds().saw(ep.clean)
    assert len(actions(r.log, "accept")) == 1 and len(actions(r.log, "request")) == len(ep.in_proxy), r.log


@case()
def reset_once(ep):
    """RST 10 bytes into a later answer's body, once: the library retries (its own retry, on a
    new connection), the answer is exact, and the server saw that request twice."""
    Run(ep, [into_body("reset", ep.target)], verbose=True).succeeds().fired("reset", 1) \
        .saw(ep.with_repeat(ep.is_target, 2)).warned(["Connection reset by peer"])


@case()
def reset_at_zero_once(ep):
    """RST once the server has answered, before a byte reaches the client, on a kept-alive
    connection: a request lost in flight; sent again, the answer is exact."""
    Run(ep, [rule("reset", ep.target)]).succeeds().fired("reset", 1).saw(ep.with_repeat(ep.is_target, 2))


@case()
def reset_always(ep):
    """Every answer reset 10 bytes into its body: after its one retry the resolve fails, exit 4,
    naming the reset; the server saw that request twice and nothing after it."""
    r = Run(ep, [into_body("reset", ep.scope, times="always")])
    r.fails(4, ["Connection reset by peer"]).fired("reset", 2).saw(ep.up_to(ep.in_scope, 2))


@case()
def close_once(ep):
    """FIN 10 bytes into a later answer's body, once: retried, exact."""
    Run(ep, [into_body("close", ep.target)], verbose=True).succeeds().fired("close", 1) \
        .saw(ep.with_repeat(ep.is_target, 2)).warned(["transfer closed"])


@case()
def close_always(ep):
    """Every answer cut by FIN 10 bytes into its body: fails, exit 4, "transfer closed with N
    bytes remaining to read", after one retry."""
    r = Run(ep, [into_body("close", ep.scope, times="always")])
    r.fails(4, ["transfer closed with"]).fired("close", 2).saw(ep.up_to(ep.in_scope, 2))


@case()
def close_between_answers(ep):
    """A server that closes a connection on its second request (FIN, nothing sent), always:
    normal HTTP; each request is sent again on a new connection and the answer is exact."""
    r = Run(ep, [rule("close", request=2, times="always")]).succeeds().fired("close")
    collapsed = [k for n, k in enumerate(r.seen) if n == 0 or k != r.seen[n - 1]]
    assert collapsed == ep.clean and len(r.seen) == len(ep.clean) + len(ep.in_proxy) - 1, \
        [line(k) for k in r.seen]


@case()
def stall_once(ep):
    """A server that goes silent 10 bytes into a later answer, for ever: one --timeout-ms, then
    exit 4 "no complete answer within 1000 ms" ("timed out"); NOT retried (documented)."""
    r = Run(ep, [into_body("stall", ep.target)])
    r.fails(4, ["no complete answer within %d ms" % TIMEOUT_MS], min_s=TIMEOUT_MS / 1000)
    assert "timed out" in r.err, r.err
    r.fired("stall", 1).saw(ep.up_to(ep.is_target, 1))


@case()
def stall_short_once(ep):
    """Silence for 0.4 s inside a later answer (inside --timeout-ms): slow, but exact."""
    Run(ep, [into_body("stall", ep.target, seconds=STALL_S)]).succeeds(min_s=STALL_S) \
        .fired("stall", 1).fired("resume", 1).saw(ep.clean)


@case()
def stall_always(ep):
    """0.4 s of silence before every answer, each inside --timeout-ms, with
    --resolve-timeout-ms 1000: where three or more answers stall, the resolve's bound ends it
    (exit 4, "resolve_timeout_ms"), no request retried; where fewer do, exact."""
    r = Run(ep, [rule("stall", ep.scope, seconds=STALL_S, times="always")], bound_ms=STALL_BOUND_MS)
    stalled = [k for k in ep.clean if ep.in_scope(k)]
    if len(stalled) * STALL_S > STALL_BOUND_MS / 1000:
        r.fails(4, ["resolve_timeout_ms"]).fired("stall").saw_a_prefix()
    else:
        r.succeeds(min_s=len(stalled) * STALL_S).saw(ep.clean)


@case()
def refuse_once(ep):
    """A later request ends in FIN without an answer and the port refuses connections for a
    while (a server restarting; 0.5 s, the metadata server 0.1 s): retried until it is back;
    exact, and that request reached the server once, after the outage."""
    r = Run(ep, [rule("refuse", ep.target, seconds=ep.outage_s)], retries=2, verbose=True)
    r.succeeds().fired("refuse", 1).came_back("refuse").saw(ep.clean)
    if not ep.metadata:  # the API's outage outlasts the first retry: the client was refused
        r.warned(CONNECT_WORDS)


@case()
def refuse_always(ep):
    """No listening socket at all (tpu-api: from the node request on): fails after one retry,
    exit 4 "Couldn't connect"; the metadata server never answering is exit 3 "not on Google
    Cloud" (documented). Nothing in scope reached the server."""
    plan = [rule("refuse", times="always")] if ep.scope is None else [rule("refuse", ep.scope, seconds=None)]
    r = Run(ep, plan)
    if ep.metadata:
        r.fails(3, ["not on Google Cloud"])
    else:
        r.fails(4, CONNECT_WORDS)
    r.fired("refuse", 1).saw(ep.up_to(ep.in_scope, 0))


@case()
def blackhole_once(ep):
    """A later request ends in FIN and SYNs are dropped for 0.5 s (a firewall, a host going
    away): the new connection's connect() times out (--timeout-ms 700), a connection error,
    retried (documented); the retry after the outage gets the exact answer."""
    r = Run(ep, [rule("blackhole", ep.target, seconds=BLACKHOLE_S)], timeout_ms=BLACKHOLE_TIMEOUT_MS, verbose=True)
    r.succeeds().fired("blackhole", 1).came_back("blackhole").saw(ep.clean).warned(["timed out"])


@case()
def blackhole_always(ep):
    """SYNs dropped for ever (tpu-api: from the node request on): each connect() times out
    (--timeout-ms 700) and is retried once: fails after 0.7 + 0.25 + 0.7 s, exit 4 "timed out"
    (the metadata server: exit 3 "not on Google Cloud", documented)."""
    plan = [rule("blackhole", times="always")] if ep.scope is None else [rule("blackhole", ep.scope, seconds=None)]
    r = Run(ep, plan, timeout_ms=BLACKHOLE_TIMEOUT_MS)
    two_tries = 2 * BLACKHOLE_TIMEOUT_MS / 1000 + 0.25
    if ep.metadata:
        r.fails(3, ["not on Google Cloud"], min_s=two_tries)
    else:
        r.fails(4, ["timed out"], min_s=two_tries)
    r.fired("blackhole", 1).saw(ep.up_to(ep.in_scope, 0))


@case()
def vanish_once(ep):
    """Between answers the server vanishes: every connection reset, the port refusing for a
    while (0.5 s; the metadata server 0.1 s), then back with its state intact. The resolve
    retries until it is back and the answer is exact; the server saw each request exactly once,
    in the clean order: the page after the vanish was fetched with the same continue/page
    token, the list not restarted nor a page skipped."""
    r = Run(ep, [rule("vanish", ep.scope, seconds=ep.outage_s)], retries=2, verbose=True)
    r.succeeds().fired("vanish", 1).came_back("vanish").saw(ep.clean)
    assert actions(r.log, "vanish")[0]["reset"], r.log
    if not ep.metadata:
        r.warned(CONNECT_WORDS)


@case()
def vanish_always(ep):
    """The server vanishes on every second request of a connection (0.5 s; metadata 0.1 s) with
    --resolve-timeout-ms 1200. A page list that keeps vanishing costs 0.75 s a page: fails
    within the bound, exit 4, naming the refusal or the bound, never a partial list (k8s,
    gce-api). The metadata server's short outages and the TPU node (asked once per
    connection) are absorbed: exact."""
    r = Run(ep, [rule("vanish", ep.scope, seconds=ep.outage_s, times="always")], retries=2, bound_ms=VANISH_BOUND_MS)
    r.fired("vanish")
    if ep.scope is None and not ep.metadata:
        # the last try meets the port refusing, the bound, or (under load, its retry landing
        # on a kept-alive connection just as it vanishes again) the reset a vanish starts with
        r.fails(4, CONNECT_WORDS + ["resolve_timeout_ms", "Connection reset"]).saw_a_prefix()
    else:
        r.succeeds().saw(ep.clean)


@case(lambda ep: ep.metadata)
def md_silent_first(ep):
    """The metadata server accepts the first lookup and never answers: exit 3 "not on Google
    Cloud" after one --timeout-ms (documented: no status line means off Google Cloud)."""
    r = Run(ep, [rule("stall", conn=1, request=1)])
    r.fails(3, ["not on Google Cloud"], min_s=TIMEOUT_MS / 1000).fired("stall", 1)
    r.saw(ep.up_to(ep.in_scope, 1))


@case(lambda ep: ep.metadata)
def md_gone_after_answers(ep):
    """The metadata server answers, then vanishes for 2 s (longer than a lookup's one retry):
    the resolve fails, but the server was demonstrably there: exit 4 naming the refusal, not
    "not on Google Cloud"."""
    r = Run(ep, [rule("vanish", seconds=2.0)])
    r.fired("vanish", 1).fails(4, CONNECT_WORDS)


@case(lambda ep: ep.metadata)
def md_silent_after_answers(ep):
    """The metadata server answers, then goes silent on the token lookup: a silent server is
    a timeout (documented): exit 4 "timed out", not "not on Google Cloud"."""
    r = Run(ep, [rule("stall", ep.target)])
    r.fired("stall", 1).fails(4, ["no complete answer", "timed out"], min_s=TIMEOUT_MS / 1000)


@case(lambda ep: ep.metadata and ep.backend == "gce")
def own_name_lost(ep):
    """Every instance/name answer reset right after its headers (the metadata server gave the
    token a moment before): the own task cannot be known, so the resolve must fail (exit 4,
    "Connection reset"), never print a TF_CONFIG without its task."""
    r = Run(ep, [rule("reset", "/instance/name", after=0, times="always", **{"from": "body"})])
    r.fired("reset").fails(4, ["Connection reset by peer"])


# ---- the token endpoint of a credentials file ----
# An authorized_user file whose token_uri goes through the proxy to the fake's OAuth token
# endpoint (POST /token, a refresh grant); the Cloud TPU API direct, taking the token the
# endpoint issued. The fault hits the one token request: a failure must be exit 4 naming the
# token endpoint's URL, never an answer, and never show the refresh token, the client secret
# or the access token.

REFRESH_TOKEN = "1//0gNetfaultRefreshToken-abcdefXYZ_0123"
CLIENT_ID = "32555940559.apps.googleusercontent.com"
CLIENT_SECRET = "GOCSPX-netfault-client-secret-01"
FILE_TOKEN = "ya29.a0Netfault-file-access-token_4567"
SECRETS = (REFRESH_TOKEN, CLIENT_SECRET, FILE_TOKEN, TOKEN)


class TokenEndpoint(Endpoint):
    """tpu with --credentials: the proxy in front of the token endpoint only. cli() writes the
    credentials file for the URL it is given (the clean run: the fake itself)."""

    def __init__(self):
        node = mg.make_tpu_node("test-tpu-1", zone=TPU_ZONE, endpoints=4)
        oauth = {"refresh_tokens": {REFRESH_TOKEN: {"client_id": CLIENT_ID, "client_secret": CLIENT_SECRET,
                                                    "access_token": FILE_TOKEN}}}
        Endpoint.__init__(self, "tpu-token", "tpu", lambda: ["--tpu-nodes", mg.tpu_nodes_doc([node]), "--oauth", oauth],
                          self.args, lambda path: path == "/token", "/token")
        self.token_uri = None

    def args(self, fake, proxy):
        self.token_uri = proxy + "/token"
        path = os.path.join(TMP, "adc-%s.json" % proxy.rsplit(":", 1)[1])
        with open(path, "w") as f:
            json.dump({"client_id": CLIENT_ID, "client_secret": CLIENT_SECRET, "refresh_token": REFRESH_TOKEN,
                       "token_uri": self.token_uri, "type": "authorized_user"}, f)
        return ["tpu", "--tpu", "test-tpu-1", "--project", P, "--zone", TPU_ZONE, "--tpu-url", fake,
                "--credentials", path]

    def start(self):
        script = os.path.join(ROOT, "tests", "gcp", "fake_gcp.py")
        self.fake = Server(TMP, script, *self.fake_args())
        code, self.clean_out, err, _ = cli(self.cli(self.fake.url, self.fake.url), self.env, BOUND_MS)
        assert code == 0 and err == "" and self.clean_out.startswith('{"cluster"'), (code, err)
        self.clean = [key(r) for r in self.fake.requests()]
        self.in_proxy = [k for k in self.clean if self.proxied(k[1])]
        assert len(self.in_proxy) == 1 and len(self.clean) == 2, self.clean


TOKEN_EP = TokenEndpoint()


def token_case(fn):
    TESTS.append((TOKEN_EP, "tpu-token/%s" % fn.__name__.replace("_", "-"), fn))
    return fn


def token_fails(r, ep, words, min_s=0):
    """Exit 4 naming the token endpoint's URL and one of `words`, no secret shown, and the
    Cloud TPU API never asked."""
    r.fails(4, words, min_s=min_s)
    assert ep.token_uri in r.err, "the token endpoint's URL %s is not named: %r" % (ep.token_uri, r.err)
    assert not [s for s in SECRETS if s in r.err + r.out], "a secret shown: %r" % r.err
    assert all(k[1] == "/token" for k in r.seen), "the API was asked: %s" % [line(k) for k in r.seen]
    return r


@token_case
def reset_before_answer(ep):
    """RST when the token endpoint has answered, before a byte reaches the client, always: one
    retry, then exit 4 "Connection reset" naming the token endpoint."""
    r = Run(ep, [rule("reset", "/token", times="always")])
    token_fails(r, ep, ["Connection reset by peer"]).fired("reset", 2)
    assert r.seen == [ep.in_proxy[0]] * 2, [line(k) for k in r.seen]


@token_case
def reset_mid_answer(ep):
    """RST 10 bytes into the token answer's body, always: exit 4 after one retry."""
    r = Run(ep, [into_body("reset", "/token", times="always")])
    token_fails(r, ep, ["Connection reset by peer"]).fired("reset", 2)


@token_case
def reset_once_is_retried(ep):
    """RST 10 bytes into the token answer once: the grant is sent again on a new connection and
    the answer is exact; no secret in any --verbose line."""
    r = Run(ep, [into_body("reset", "/token")], verbose=True).succeeds().fired("reset", 1)
    assert r.seen[:2] == [ep.in_proxy[0]] * 2 and r.seen[2:] == ep.clean[1:], [line(k) for k in r.seen]
    assert not [s for s in SECRETS if s in r.err], "a secret in the log: %r" % r.err


@token_case
def stall_mid_answer(ep):
    """The token endpoint goes silent 10 bytes into its answer, for ever: one --timeout-ms, not
    retried, exit 4 "no complete answer" naming the token endpoint."""
    r = Run(ep, [into_body("stall", "/token")])
    token_fails(r, ep, ["no complete answer within %d ms" % TIMEOUT_MS], min_s=TIMEOUT_MS / 1000).fired("stall", 1)


@token_case
def refused(ep):
    """Nobody listens at the token endpoint: one retry, exit 4 "Couldn't connect" naming it;
    nothing reached the fake."""
    r = Run(ep, [rule("refuse", times="always")])
    token_fails(r, ep, CONNECT_WORDS).fired("refuse", 1)
    assert r.seen == [], [line(k) for k in r.seen]


# ---- running them ----

PRINT = threading.Lock()


def run_case(name, fn, ep):
    """(outcome, text): outcome "ok" or "FAIL"."""
    t = time.time()
    try:
        fn(ep)
    except AssertionError as e:
        return "FAIL", "%s: %s [line %d]" % (name, e, failing_line(e))
    except Exception as e:  # Fatal: hang, crash, sanitizer; or the harness broke
        return "FAIL", "%s: %s: %s [line %d]" % (name, type(e).__name__, e, failing_line(e))
    return "ok", "%s (%.1f s)" % (name, time.time() - t)


def failing_line(e):
    frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__]
    return frames[-1].lineno if frames else 0


def run_endpoint(ep, cases, results):
    """Starts the endpoint's fake, runs its cases one after another, stops the fake."""
    try:
        ep.start()
    except Exception as e:
        for name, _ in cases:
            report(results, "FAIL", "%s: the clean run failed: %s" % (name, e))
        ep.stop()
        return
    try:
        for name, fn in cases:
            report(results, *run_case(name, fn, ep))
    finally:
        try:
            ep.stop()
        except AssertionError as e:
            report(results, "FAIL", "%s: the fake server: %s" % (ep.name, e))


def report(results, outcome, text):
    with PRINT:
        results.append(outcome)
        print("%-4s %s" % (outcome, text), flush=True)


def main():
    chosen = [(ep, name, fn) for ep, name, fn in TESTS if not ARGS or any(p in name for p in ARGS)]
    groups = [(ep, [(n, fn) for e, n, fn in chosen if e is ep]) for ep in ENDPOINTS + [TOKEN_EP]]
    groups = [(ep, cases) for ep, cases in groups if cases]
    results, started = [], time.time()
    try:
        with ThreadPoolExecutor(max_workers=max(1, JOBS)) as pool:
            for f in [pool.submit(run_endpoint, ep, cases, results) for ep, cases in groups]:
                f.result()
    finally:
        for ep, _ in groups:
            if ep.fake and ep.fake.proc.poll() is None:
                ep.fake.proc.kill()
                ep.fake.proc.communicate()
        shutil.rmtree(TMP, ignore_errors=True)
    failed = results.count("FAIL")
    print("%d passed, %d failed (%.1f s)" % (results.count("ok"), failed, time.time() - started))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Checks the servers the kubeconfig tests stand on, with the standard library as the client:
tests/fake_api.py's authentication options (repeated --bearer, --basic, --client-ca) and its
TLS log fields ("sni", "client_subject", repeated headers as lists), and
tests/kubeconfig/proxies.py (HTTP CONNECT and SOCKS5: tunnels, refusals, the log, SIGTERM).
The positive paths are also exercised by real kubectl in test_kubeconfig_kubectl.py; this file
covers what kubectl never does (wrong credentials, refused targets, odd requests).

usage: python3 tests/kubeconfig/test_servers.py [NAME_SUBSTRING...]
Prints "ok/FAIL name" lines, then "N passed, N failed".
"""
import base64
import http.client
import json
import os
import shutil
import socket
import ssl
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
sys.path[:0] = [os.path.join(TESTS, "gcp"), HERE]
import harness  # noqa: E402
import test_kubeconfig_kubectl as kk  # noqa: E402  (its Proxy class)
shutil.rmtree(kk.TMP, ignore_errors=True)  # its import made a scratch directory; not needed

TMP = tempfile.mkdtemp(prefix="kubeconfig-servers.")
CERTS = os.path.join(TMP, "certs")
FAKE_API = os.path.join(TESTS, "fake_api.py")
PODS = os.path.join(TESTS, "k8s", "fixtures", "pods_small.json")
TOKEN1, TOKEN2, FORBIDDEN = "tok-one", "tok-two", "tok-forbidden"
TESTS_RUN = []


STARTED = []  # the proxies started (our children): a failed test's are killed after it


def Proxy(kind):
    px = kk.Proxy(kind, TMP)
    STARTED.append(px)
    return px


def kill_proxies():
    while STARTED:
        px = STARTED.pop()
        if px.proc.poll() is None:
            px.proc.kill()
        px.proc.communicate()


def test(fn):
    TESTS_RUN.append((fn.__name__, fn))
    return fn


def cert(name):
    return os.path.join(CERTS, name)


def fake(*args, tls=True):
    return harness.Fake(TMP, "--pods", PODS, *args, script=FAKE_API, certs=CERTS if tls else None)


def tls_context(client=None, ca="ca.pem"):
    ctx = ssl.create_default_context(cafile=cert(ca))
    if client:
        ctx.load_cert_chain(cert(client + ".pem"), cert(client + ".key"))
    return ctx


def get(f, path="/api/v1/namespaces/default/pods", headers=(), host="127.0.0.1", ctx=None,
        server_hostname=None):
    """GET over a fresh connection -> status. headers: (name, value) pairs, repeats kept."""
    if f.url.startswith("https:"):
        ctx = ctx or tls_context()
        conn = http.client.HTTPSConnection(host, f.port, timeout=10, context=ctx)
        if server_hostname:  # connect to `host`, but verify and send SNI for this name
            sock = socket.create_connection((host, f.port), timeout=10)
            conn.sock = ctx.wrap_socket(sock, server_hostname=server_hostname)
    else:
        conn = http.client.HTTPConnection(host, f.port, timeout=10)
    conn.putrequest("GET", path, skip_accept_encoding=True)
    for name, value in headers:
        conn.putheader(name, value)
    conn.endheaders()
    resp = conn.getresponse()
    resp.read()
    conn.close()
    return resp.status


def last(f):
    return f.requests()[-1]


def basic(user, password):
    return ("Authorization", "Basic " + base64.b64encode(
        ("%s:%s" % (user, password)).encode()).decode())


# ======================================================================== fake_api.py

@test
def repeated_bearer_any_token():
    """--bearer twice: either token authenticates, another is 401; --forbid-token still 403;
    --log-secrets off: the log keeps the scheme only."""
    f = harness.Fake(TMP, "--pods", PODS, "--bearer", TOKEN1, "--bearer", TOKEN2,
                     "--forbid-token", FORBIDDEN, script=FAKE_API, secrets=False)
    codes = [get(f, headers=[("Authorization", "Bearer " + t)])
             for t in (TOKEN1, TOKEN2, "nope", FORBIDDEN)]
    assert codes == [200, 200, 401, 403], codes
    assert get(f) == 401
    assert last(f)["headers"].get("authorization") is None
    log = f.stop()
    assert log[0]["headers"]["authorization"] == "Bearer <redacted>", log[0]["headers"]


@test
def basic_auth():
    """--basic USER:PASS (twice; a password with a colon): the right pair is 200, a wrong
    password, an unknown user or a malformed value 401; a --bearer token still works."""
    f = fake("--basic", "alice:pa:ss", "--basic", "bob:x", "--bearer", TOKEN1)
    codes = [get(f, headers=[h]) for h in (basic("alice", "pa:ss"), basic("bob", "x"),
                                           basic("alice", "pa"), basic("carol", "x"),
                                           ("Authorization", "Basic %%%"),
                                           ("Authorization", "Bearer " + TOKEN1))]
    assert codes == [200, 200, 401, 401, 401, 200], codes
    f.stop()


@test
def client_certificate_authenticates():
    """--client-ca ca.pem: a verified client certificate authenticates without a bearer and
    the log names its subject; no certificate and no token is 401 with client_subject null;
    a token alone still works; a certificate not for client use (server.pem: serverAuth
    only) fails the handshake."""
    f = fake("--client-ca", cert("ca.pem"), "--bearer", TOKEN1)
    assert get(f, ctx=tls_context("client")) == 200
    assert last(f)["client_subject"] == "CN=jane,O=ml-team", last(f)
    assert get(f, ctx=tls_context("client2"), headers=[("Authorization", "Bearer bad")]) == 200
    assert last(f)["client_subject"] == "CN=exec-user,O=plugins", last(f)
    assert get(f) == 401 and last(f)["client_subject"] is None, last(f)
    assert get(f, headers=[("Authorization", "Bearer " + TOKEN1)]) == 200
    try:
        get(f, ctx=tls_context("server"))
        raise AssertionError("a server certificate was taken as a client certificate")
    except (ssl.SSLError, ConnectionError):
        pass
    f.stop()


@test
def client_ca_alone_requires_a_certificate():
    """--client-ca without --bearer/--basic: authentication is still required (401 without
    a certificate)."""
    f = fake("--client-ca", cert("ca.pem"))
    assert get(f) == 401 and get(f, ctx=tls_context("client")) == 200
    f.stop()


@test
def sni_logged():
    """"sni" on every HTTPS request line: the name the client sent (localhost, or
    elsewhere.invalid through tls-server-name-like verification), null for an IP address;
    no client_subject field without --client-ca."""
    f = fake()
    assert get(f, host="localhost") == 200
    assert last(f)["sni"] == "localhost", last(f)
    assert get(f) == 200 and last(f)["sni"] is None and "client_subject" not in last(f)
    f.stop()
    g = harness.Fake(TMP, "--pods", PODS, "--cert", cert("elsewhere.pem"), "--key",
                     cert("elsewhere.key"), script=FAKE_API)
    g.url = "https://127.0.0.1:%d" % g.port
    assert get(g, server_hostname="elsewhere.invalid") == 200
    assert last(g)["sni"] == "elsewhere.invalid" and last(g)["headers"]["host"] == g.host
    g.stop()


@test
def plain_http_log_unchanged_and_repeated_headers():
    """Plain HTTP: no sni or client_subject field (the log line is as before); a header sent
    twice is logged as the list of its values, once as a string."""
    f = fake(tls=False)
    get(f, headers=[("Impersonate-Group", "a"), ("Impersonate-Group", "b c"),
                    ("Impersonate-User", "bob")])
    rec = last(f)
    assert sorted(rec) == ["headers", "method", "path", "query", "status", "time"], sorted(rec)
    assert rec["headers"]["impersonate-group"] == ["a", "b c"], rec["headers"]
    assert rec["headers"]["impersonate-user"] == "bob", rec["headers"]
    f.stop()


@test
def bad_options():
    """--client-ca needs --cert; --basic needs USER:PASS: usage errors (exit 2)."""
    for args in (["--client-ca", cert("ca.pem")], ["--basic", "nocolon"]):
        p = subprocess.run([sys.executable, FAKE_API, "--port-file", os.path.join(TMP, "x")] +
                           args, capture_output=True, text=True, timeout=30)
        assert p.returncode == 2 and "usage" in p.stderr, (args, p.returncode, p.stderr)


# ======================================================================== proxies.py

def proxy_log_since(px, n):
    return px.records()[n:]


@test
def http_connect_tunnel():
    """CONNECT 127.0.0.1:PORT: "200 Connection established", then TLS to the fake through
    the tunnel; one log line with the target."""
    px, f = Proxy("http"), fake("--bearer", TOKEN1)
    conn = http.client.HTTPSConnection("127.0.0.1", px.port, timeout=10, context=tls_context())
    conn.set_tunnel("127.0.0.1", f.port)
    conn.request("GET", "/api/v1/pods", headers={"Authorization": "Bearer " + TOKEN1})
    resp = conn.getresponse()
    assert resp.status == 200 and json.loads(resp.read())["kind"] == "PodList"
    conn.close()
    assert px.records() == [dict(px.records()[0], kind="http", target=f.host,
                                 address_type="authority", result="ok")], px.records()
    f.stop()
    px.stop()


def raw_http(port, data):
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(data)
        out = b""
        while True:
            part = s.recv(4096)
            if not part:
                return out.decode("latin-1")
            out += part


@test
def http_proxy_refusals():
    """GET (not CONNECT) is 405; a target off loopback is 403 (no connection tried); a
    closed loopback port is 502; each is logged with its result."""
    px = Proxy("http")
    closed = harness.free_port()
    assert raw_http(px.port, b"GET http://127.0.0.1/ HTTP/1.1\r\nHost: x\r\n\r\n") \
        .startswith("HTTP/1.1 405")
    assert raw_http(px.port, b"CONNECT 10.1.2.3:443 HTTP/1.1\r\n\r\n").startswith("HTTP/1.1 403")
    assert raw_http(px.port, b"CONNECT example.com:443 HTTP/1.1\r\n\r\n") \
        .startswith("HTTP/1.1 403")
    assert raw_http(px.port, b"CONNECT 127.0.0.1:%d HTTP/1.1\r\n\r\n" % closed) \
        .startswith("HTTP/1.1 502")
    results = [(r["target"], r["result"].split(":")[0]) for r in px.records()]
    assert results == [("http://127.0.0.1/", "bad request"), ("10.1.2.3:443", "not loopback"),
                       ("example.com:443", "not loopback"),
                       ("127.0.0.1:%d" % closed, "connect failed")], results
    px.stop()


def socks5(port, atyp, addr, dest_port, methods=b"\x00", command=1):
    """A SOCKS5 handshake -> (socket, method reply, request reply code or None)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(b"\x05" + bytes([len(methods)]) + methods)
    method = s.recv(2)
    if method != b"\x05\x00":
        return s, method, None
    s.sendall(bytes([5, command, 0, atyp]) + addr + struct.pack("!H", dest_port))
    reply = s.recv(4)
    rest = {1: 4, 4: 16}.get(reply[3], 0) + 2 if len(reply) == 4 else 0
    s.recv(rest)
    return s, method, reply[1]


@test
def socks5_tunnels_ipv4_and_localhost():
    """SOCKS5 CONNECT to 127.0.0.1 (IPv4) and to the domain name localhost: reply 0, then
    HTTP through the tunnel; the log has the targets and address types."""
    px, f = Proxy("socks5"), fake(tls=False)
    for atyp, addr in ((1, socket.inet_aton("127.0.0.1")), (3, b"\x09localhost")):
        s, method, code = socks5(px.port, atyp, addr, f.port)
        assert (method, code) == (b"\x05\x00", 0), (method, code)
        s.sendall(b"GET /version HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while True:
            part = s.recv(4096)
            if not part:
                break
            data += part
        s.close()
        assert data.startswith(b"HTTP/1.1 200") and b"gitVersion" in data, data[:200]
    got = [(r["target"], r["address_type"], r["result"]) for r in px.records()]
    assert got == [(f.host, "ipv4", "ok"), ("localhost:%d" % f.port, "domain", "ok")], got
    f.stop()
    px.stop()


@test
def socks5_refusals():
    """No acceptable method (only username/password offered): 0xFF; BIND: reply 7; a name
    other than localhost: reply 2, not looked up; an unknown address type: reply 8."""
    px = Proxy("socks5")
    s, method, _ = socks5(px.port, 1, b"\x7f\x00\x00\x01", 80, methods=b"\x02")
    assert method == b"\x05\xff", method
    s.close()
    s, _, code = socks5(px.port, 1, b"\x7f\x00\x00\x01", 80, command=2)
    assert code == 7, code
    s.close()
    s, _, code = socks5(px.port, 3, b"\x0bexample.com", 443)
    assert code == 2, code
    s.close()
    s, _, code = socks5(px.port, 9, b"", 80)
    assert code == 8, code
    s.close()
    got = [(r["target"], r["result"]) for r in px.records()]
    assert got[:2] == [("127.0.0.1:80", "unsupported command 2"),
                       ("example.com:443", "not loopback")], got
    assert got[2][1] == "unsupported address type 9", got
    px.stop()


@test
def proxy_stops_with_open_tunnel_and_by_max_seconds():
    """SIGTERM with a tunnel open: exit 0, nothing on stderr, quickly; --max-seconds ends it
    by itself."""
    px, f = Proxy("socks5"), fake(tls=False)
    s, _, code = socks5(px.port, 1, socket.inet_aton("127.0.0.1"), f.port)
    assert code == 0
    t = time.time()
    px.stop()
    assert time.time() - t < 3, time.time() - t
    s.close()
    f.stop()
    p = subprocess.run([sys.executable, kk.PROXIES, "http", "--port-file",
                        os.path.join(TMP, "p"), "--max-seconds", "0.3"],
                       capture_output=True, text=True, timeout=10)
    assert p.returncode == 0 and p.stderr == "", (p.returncode, p.stderr)


if __name__ == "__main__":
    subprocess.run(["bash", os.path.join(TESTS, "gen_certs.sh"), CERTS, "--client-certs"],
                   check=True, stdout=subprocess.DEVNULL)
    sys.exit(harness.run_tests(TESTS_RUN, TMP, sys.argv[1:], cleanup=kill_proxies))

#!/usr/bin/env python3
"""Self-test of tests/netfault/proxy.py: each fault does what its docstring says, seen from
plain sockets on both sides. The upstream is a small in-process HTTP/1.1 server (keep-alive,
Content-Length, answers without a Date so every byte is known in advance) that records the
requests it got; the proxy runs as a child process, as the network-fault tests run it.

usage: test_proxy.py [NAME_SUBSTRING...]   Prints "ok/FAIL name" lines and a summary; exits 1
       on any failure.
"""
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from common import PROXY, Proxy, actions, harness, kill_live, stop_process  # noqa: E402

TMP = tempfile.mkdtemp(prefix="netfault-proxy-")
SIZE = 3000          # the body of GET /<anything>; GET /size/N answers N bytes


def body(n):
    return bytes(b"0123456789abcdefghijklmnopqrstuvwxyz"[i % 36] for i in range(n))


def answer(n=SIZE):
    """The exact bytes the upstream sends for a body of n bytes."""
    return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % n + body(n)


class Upstream(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    seen = []

    def log_message(self, fmt, *args):
        pass

    def do_GET(self):
        Upstream.seen.append(self.path)
        n = int(self.path.rsplit("/", 1)[1]) if self.path.startswith("/size/") else SIZE
        self.send_response_only(200)
        self.send_header("Content-Length", str(n))
        self.end_headers()
        self.wfile.write(body(n))


class Server(ThreadingHTTPServer):
    daemon_threads = True
    errors = []   # what ended the upstream's connections abnormally

    def handle_error(self, request, client_address):
        Server.errors.append(type(sys.exc_info()[1]).__name__)


SERVER = Server(("127.0.0.1", 0), Upstream)
UP = SERVER.server_address[1]


# ---- a client made of plain sockets ----

def connect(port, timeout=5):
    return socket.create_connection(("127.0.0.1", port), timeout=timeout)


def refused(port):
    try:
        connect(port).close()
    except ConnectionRefusedError:
        return True
    return False


def unanswered(port, seconds=0.5):
    """connect() neither succeeds nor is refused: it times out (the SYN was dropped)."""
    try:
        connect(port, timeout=seconds).close()
    except socket.timeout:
        return True
    return False


def port_taken(port):
    """Nobody else can bind the port (the proxy holds it, even while it refuses)."""
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
    except OSError:
        return True
    finally:
        s.close()
    return False


def ask(sock, path="/page"):
    sock.sendall(b"GET %s HTTP/1.1\r\nHost: test\r\n\r\n" % path.encode())


def read_answer(sock):
    """One whole answer (headers and Content-Length body), as bytes."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, "EOF inside the headers after %r" % data
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    length = int([h for h in head.split(b"\r\n") if h.lower().startswith(b"content-length:")][0].split(b":")[1])
    while len(rest) < length:
        chunk = sock.recv(65536)
        assert chunk, "EOF inside the body"
        rest += chunk
    return head + b"\r\n\r\n" + rest


def read_exactly(sock, n, timeout=3.0):
    sock.settimeout(timeout)
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        assert chunk, "EOF after %d bytes" % len(data)
        data += chunk
    return data


def read_to_end(sock, timeout=3.0):
    """Everything until the connection ends: (bytes, "eof" | "reset" | "open")."""
    sock.settimeout(timeout)
    data = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            return data, "reset"
        except socket.timeout:
            return data, "open"
        if not chunk:
            return data, "eof"
        data += chunk


def started(plan):
    Upstream.seen, Server.errors = [], []
    return Proxy(TMP, UP, plan)


def upstream_saw(error, seconds=3):
    """The upstream server's side of a connection ended with this exception."""
    deadline = time.time() + seconds
    while error not in Server.errors and time.time() < deadline:
        time.sleep(0.01)
    return error in Server.errors


# ---- the tests ----

TESTS = []


def test(fn):
    TESTS.append((fn.__name__, fn))
    return fn


@test
def passthrough_keeps_one_connection():
    """Without a plan every byte passes both ways, requests are counted per connection, and
    the port file holds the port (written atomically: no temporary file is left)."""
    p = started([])
    s = connect(p.port)
    for path in ("/a", "/size/10", "/b"):
        ask(s, path)
        assert read_answer(s) == (answer(10) if "size" in path else answer()), path
    s.close()
    log = p.stop()
    assert sorted(os.listdir(p.dir)) == ["log.jsonl", "port"], os.listdir(p.dir)
    assert [(r["conn"], r["request"], r["line"]) for r in actions(log, "request")] == [
        (1, 1, "GET /a HTTP/1.1"), (1, 2, "GET /size/10 HTTP/1.1"), (1, 3, "GET /b HTTP/1.1")]
    assert actions(log, "listen")[0]["port"] == p.port and log[-1]["action"] == "stop"


@test
def reset_after_n_bytes_sends_rst_to_both_sides():
    """The client gets exactly the first 100 bytes of the answer, then ECONNRESET; the
    upstream connection is reset too (the server sees its socket die); once: the next
    connection is untouched."""
    p = started([{"fault": "reset", "after": 100}])
    s = connect(p.port)
    ask(s)
    data, how = read_to_end(s)
    assert (data, how) == (answer()[:100], "reset"), (len(data), how)
    s = connect(p.port)
    ask(s)
    assert read_answer(s) == answer()
    log = p.stop()
    assert [(r["conn"], r["request"], r["forwarded"]) for r in actions(log, "reset")] == [(1, 1, 100)]
    assert Upstream.seen == ["/page", "/page"]
    assert upstream_saw("ConnectionResetError"), Server.errors


@test
def reset_counted_from_the_body_and_at_zero():
    """"from": "body" counts after the header block; "after": 0 resets as soon as the server
    answers, so the client gets nothing though the server did answer."""
    p = started([{"fault": "reset", "after": 7, "from": "body", "request": 1},
                 {"fault": "reset", "request": 2}])
    s = connect(p.port)
    ask(s)
    head = answer().index(b"\r\n\r\n") + 4
    assert read_to_end(s) == (answer()[:head + 7], "reset")
    s = connect(p.port)
    ask(s)
    read_answer(s)
    ask(s, "/second")
    assert read_to_end(s) == (b"", "reset")
    p.stop()
    assert Upstream.seen == ["/page", "/page", "/second"]


@test
def reset_always_hits_every_match():
    """"always" resets every matching answer; "conn" and "match" narrow the matches."""
    p = started([{"fault": "reset", "after": 5, "times": "always", "match": "/bad"},
                 {"fault": "reset", "conn": 3}])
    for n in range(3):
        s = connect(p.port)
        ask(s, "/bad")
        assert read_to_end(s) == (answer()[:5], "reset"), n
    s = connect(p.port)
    ask(s, "/good")
    assert read_answer(s) == answer()
    log = p.stop()
    assert [r["conn"] for r in actions(log, "reset")] == [1, 2, 3]


@test
def close_after_n_bytes_sends_fin():
    """The client gets exactly N bytes and then a clean end of stream (FIN), not a reset."""
    p = started([{"fault": "close", "after": 250}])
    s = connect(p.port)
    ask(s)
    assert read_to_end(s) == (answer()[:250], "eof")
    log = p.stop()
    assert actions(log, "close")[0]["forwarded"] == 250
    assert "ConnectionResetError" not in Server.errors, Server.errors


@test
def close_after_a_whole_answer_is_a_normal_close():
    """A close at exactly the answer's length: the whole answer, then FIN; a request sent on
    the closed connection is reset like one sent to a closed socket."""
    p = started([{"fault": "close", "after": len(answer()), "times": "always"}])
    s = connect(p.port)
    ask(s)
    assert read_answer(s) == answer()
    s.settimeout(3)
    assert s.recv(10) == b""
    p.stop()


@test
def stall_for_seconds_then_resumes():
    """After 50 bytes nothing moves for the stall's 0.5 s; then the rest arrives, exact."""
    p = started([{"fault": "stall", "after": 50, "seconds": 0.5}])
    s = connect(p.port)
    t = time.time()
    ask(s)
    first = read_exactly(s, 50)
    assert first == answer()[:50] and time.time() - t < 0.4, (first, time.time() - t)
    s.settimeout(0.2)
    try:
        more = s.recv(65536)
    except socket.timeout:
        more = b""
    assert more == b"", "bytes past the stall point: %r" % more
    rest = read_answer_after(s, first)
    assert rest == answer() and time.time() - t >= 0.45, time.time() - t
    log = p.stop()
    assert [r["action"] for r in actions(log, "stall", "resume")] == ["stall", "resume"]


def read_answer_after(sock, first):
    data = first
    sock.settimeout(5)
    while len(data) < len(answer()):
        chunk = sock.recv(65536)
        assert chunk, "EOF after %d bytes" % len(data)
        data += chunk
    return data


@test
def stall_forever_keeps_the_connection_open():
    """A stall without seconds: 50 bytes, then silence with the connection open (no EOF, no
    reset) for as long as we wait."""
    p = started([{"fault": "stall", "after": 50}])
    s = connect(p.port)
    ask(s)
    assert read_to_end(s, timeout=1.0) == (answer()[:50], "open")
    log = p.stop()
    assert len(actions(log, "stall")) == 1 and not actions(log, "resume")


@test
def refuse_from_the_start_then_same_port():
    """A refusal from the start: connect() gets ECONNREFUSED for the window, then the same
    port accepts and forwards."""
    p = started([{"fault": "refuse", "seconds": 0.6}])
    assert refused(p.port) and port_taken(p.port)
    time.sleep(0.8)
    s = connect(p.port)
    ask(s)
    assert read_answer(s) == answer()
    log = p.stop()
    assert [r["action"] for r in log[:2]] == ["refuse", "listen"] and log[1]["port"] == p.port
    assert log[1]["time"] - log[0]["time"] >= 0.55


@test
def refuse_always_never_listens():
    p = started([{"fault": "refuse", "times": "always"}])
    assert refused(p.port)
    time.sleep(0.5)
    assert refused(p.port)
    log = p.stop()
    assert not actions(log, "listen")


@test
def refuse_on_a_request_closes_it_and_refuses():
    """A refusal on the second request: that request is not forwarded, its connection ends
    with FIN and no answer, new connections are refused for the window, then accepted."""
    p = started([{"fault": "refuse", "request": 2, "seconds": 0.6}])
    s = connect(p.port)
    ask(s, "/one")
    read_answer(s)
    ask(s, "/two")
    assert read_to_end(s) == (b"", "eof")
    assert refused(p.port)
    time.sleep(0.8)
    s = connect(p.port)
    ask(s, "/three")
    assert read_answer(s) == answer()
    p.stop()
    assert Upstream.seen == ["/one", "/three"]


@test
def blackhole_drops_syns_then_lets_them_in():
    """A blackhole from the start: connect() gets no answer at all (neither accepted nor
    refused) until the outage ends, then the same port accepts and forwards."""
    p = started([{"fault": "blackhole", "seconds": 1.0}])
    assert unanswered(p.port, 0.4) and port_taken(p.port)
    time.sleep(0.8)
    s = connect(p.port)
    ask(s)
    assert read_answer(s) == answer()
    log = p.stop()
    assert [r["action"] for r in log[:2]] == ["blackhole", "listen"] and log[1]["port"] == p.port


@test
def blackhole_on_a_request_and_always():
    """On the second request: no answer, FIN, then new connections hang for the window;
    "always" from the start: they hang for as long as we try."""
    p = started([{"fault": "blackhole", "request": 2, "seconds": 30}])
    s = connect(p.port)
    ask(s, "/one")
    read_answer(s)
    ask(s, "/two")
    assert read_to_end(s) == (b"", "eof")
    assert unanswered(p.port)
    p.stop()
    assert Upstream.seen == ["/one"]
    p = started([{"fault": "blackhole", "times": "always"}])
    assert unanswered(p.port) and unanswered(p.port)
    assert not actions(p.stop(), "listen")


@test
def vanish_resets_everything_between_answers():
    """Vanish fires on a request after an answer on its connection (never on a first one):
    that request is not forwarded, every open connection is reset, the port refuses for the
    window, then comes back; once: a later second request passes."""
    p = started([{"fault": "vanish", "seconds": 0.6}])
    a, b = connect(p.port), connect(p.port)
    for s in (a, b):
        ask(s, "/first")
        read_answer(s)
    ask(a, "/again")
    assert read_to_end(a) == (b"", "reset")
    assert read_to_end(b) == (b"", "reset")
    assert refused(p.port)
    time.sleep(0.8)
    c = connect(p.port)
    for path in ("/back", "/more"):
        ask(c, path)
        assert read_answer(c) == answer()
    log = p.stop()
    v = actions(log, "vanish")
    assert len(v) == 1 and v[0]["reset"] == [1, 2] and (v[0]["conn"], v[0]["request"]) == (1, 2)
    assert Upstream.seen == ["/first", "/first", "/back", "/more"]


@test
def vanish_always_fires_on_every_second_request():
    p = started([{"fault": "vanish", "seconds": 0.3, "times": "always"}])
    for n in range(2):
        s = connect(p.port)
        ask(s)
        read_answer(s)
        ask(s)
        assert read_to_end(s) == (b"", "reset"), n
        time.sleep(0.5)
    log = p.stop()
    assert len(actions(log, "vanish")) == 2


@test
def sigterm_stops_it_with_exit_0_and_bad_plans_are_refused():
    p = started([{"fault": "stall"}])
    s = connect(p.port)
    ask(s)
    time.sleep(0.2)
    stop_process(p.proc, "proxy.py")  # with a stalled connection open
    assert read_to_end(s) == (b"", "reset")
    bad = subprocess.run([sys.executable, PROXY, "--upstream", str(UP), "--port-file", os.path.join(TMP, "x"),
                          "--plan-json", '[{"fault": "melt"}]'], capture_output=True, text=True, timeout=30)
    assert bad.returncode == 2 and "bad fault" in bad.stderr, bad


def main():
    threading.Thread(target=SERVER.serve_forever, daemon=True).start()
    try:
        return harness.run_tests(TESTS, TMP, sys.argv[1:], cleanup=kill_live)
    finally:
        SERVER.shutdown()
        SERVER.server_close()


if __name__ == "__main__":
    sys.exit(main())

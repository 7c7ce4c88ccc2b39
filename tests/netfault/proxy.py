#!/usr/bin/env python3
"""A fault-injecting TCP proxy for the network-fault tests: it listens on 127.0.0.1 (port 0,
written atomically to --port-file), forwards every connection to 127.0.0.1:--upstream (one of
the fake servers), and applies a scripted plan of network faults. Standard library only; one
thread (select), so a fault acts at once on every socket it touches. The port file appears
once the port is in its planned state (listening, or in an outage planned from the start).

usage: proxy.py --upstream PORT --port-file F [--plan PLAN.json | --plan-json TEXT]
                [--log LOG.jsonl] [--max-seconds N]

The plan is a JSON list of rules; the first rule that matches and has uses left applies.
  {"fault": "reset" | "close" | "stall" | "refuse" | "blackhole" | "vanish",
   "times": "once" | "always",   once (default): the first matching occurrence only
   "conn": N,                    only the N-th accepted connection (1-based)
   "request": N,                 only the N-th request on its connection (1-based)
   "match": "TEXT",              only requests whose request line ("GET /path?query HTTP/1.1")
                                 contains TEXT
   "after": N, "from": "answer" | "body",
                                 forward N bytes of the answer to the matched request (counted
                                 from its first byte, or from the end of its header block),
                                 then act; 0 (default): act when the answer's first bytes
                                 arrive (the server did answer; the client gets nothing)
   "seconds": S}                 how long a stall or an outage (refuse, blackhole, vanish) lasts
                                 (null: for ever)
A request starts when the client sends bytes after the server has sent some on that
connection (or first); the proxy reads its request line, never the rest of HTTP.
  reset    after N bytes toward the client: TCP RST to both sides (SO_LINGER 0, then close)
  close    after N bytes toward the client: a clean close (FIN) to both sides
  stall    after N bytes toward the client: forward nothing more for S seconds (or ever),
           keeping both connections open; then the held bytes follow
  refuse   without conn/request/match: the port refuses connections (no listening socket:
           connect() gets ECONNREFUSED) from the start for S seconds ("always": for ever),
           then accepts again on the same port. With them: the matched request is not
           forwarded, its connection is closed (FIN), and the port refuses for S seconds.
  blackhole  as refuse, but connection attempts get no answer at all (the SYN is dropped, as
           by a firewall: the listening socket's accept queue is held full), so connect()
           times out instead of being refused; a SYN retried after the outage gets through.
  vanish   on a request after the first answer on its connection (the server had answered,
           the client asks again: "between pages"): the request is not forwarded, every open
           connection is reset (RST, both sides) and the port refuses for S seconds, then
           comes back on the same port (the upstream server stays up, its state intact).
The port stays bound to this process while it refuses (a socket bound with SO_REUSEADDR that
never listens holds it), so nobody else can take it and it comes back unchanged.

--log LOG.jsonl: one JSON line per event, flushed as it happens: {"time", "action", ...}
  listen {port} | accept {conn} | request {conn, request, line} | reset, close, stall {conn,
  request, rule, forwarded: answer bytes the client got} | resume {conn} | refuse, blackhole
  {rule, seconds} (from the start, or {conn, request} too) | vanish {conn, request, rule, seconds,
  reset: [the connections reset]} | upstream-error {conn, error} | listen-error | stop.
SIGTERM or SIGINT: close everything, exit 0; so does --max-seconds (default 300).
"""
import argparse
import heapq
import json
import os
import select
import signal
import socket
import struct
import sys
import time

FAULTS = ("reset", "close", "stall", "refuse", "blackhole", "vanish")
OUTAGES = ("refuse", "blackhole")
LINE_MAX = 8192          # a request line longer than this is matched on what came
HEAD_MAX = 65536         # an answer's header block is looked for in this many bytes
RECV = 65536
CLOSING_SECONDS = 10     # a cleanly closed client gets this long to hang up


class Rule:
    """One entry of the plan, checked and with its use count."""

    def __init__(self, index, spec):
        unknown = set(spec) - {"fault", "times", "conn", "request", "match", "after", "from", "seconds"}
        if unknown or spec.get("fault") not in FAULTS:
            raise ValueError("rule %d: bad fault or keys %s" % (index, sorted(unknown)))
        if spec.get("times", "once") not in ("once", "always") or spec.get("from", "answer") not in ("answer", "body"):
            raise ValueError("rule %d: times is once|always, from is answer|body" % index)
        self.index, self.fault = index, spec["fault"]
        self.always = spec.get("times", "once") == "always"
        self.conn, self.request, self.match = spec.get("conn"), spec.get("request"), spec.get("match")
        self.after, self.body = int(spec.get("after", 0)), spec.get("from") == "body"
        self.seconds = spec.get("seconds")
        self.used = 0

    def at_start(self):
        """An outage from the start: a refuse or blackhole rule without filters."""
        return self.fault in OUTAGES and self.conn is None and self.request is None and self.match is None

    def matches(self, conn, line):
        if self.at_start() or (self.used and not self.always):
            return False
        if self.conn is not None and self.conn != conn.number:
            return False
        if self.request is not None and self.request != conn.requests:
            return False
        if self.fault == "vanish" and conn.requests < 2:  # only after an answer on this connection
            return False
        return self.match is None or self.match in line


class Watch:
    """A fault waiting for its byte count on one connection's answer stream."""

    def __init__(self, rule, request):
        self.rule, self.request = rule, request
        self.seen = 0
        self.head = bytearray()
        self.limit = None if rule.body else rule.after

    def cut(self, data):
        """How many bytes of `data` go out before the fault acts; None: all, no action yet."""
        start = self.seen
        self.seen += len(data)
        if self.limit is None and len(self.head) < HEAD_MAX:
            self.head += data
            end = self.head.find(b"\r\n\r\n")
            if end >= 0:
                self.limit = end + 4 + self.rule.after
        if self.limit is None or self.seen < self.limit:
            return None
        return self.limit - start


class Conn:
    """One client connection and its upstream connection."""

    def __init__(self, proxy, number, client, upstream):
        self.proxy, self.number, self.client, self.upstream = proxy, number, client, upstream
        self.requests = 0
        self.spoke = True            # the server answered since the last request began
        self.line = bytearray()      # the start of a request, until its line is whole
        self.to_up, self.to_client = bytearray(), bytearray()
        self.watch = None
        self.held = None             # bytes a stall keeps back (None: not stalled)
        self.then = None             # what to do once to_client is sent
        self.closing = None          # when a cleanly closed client is given up on
        self.dead = False

    # -- what select() should watch

    def wants(self, readers, writers):
        if self.dead:
            return
        if self.client:
            readers.append(self.client)
            if self.to_client:
                writers.append(self.client)
        if self.upstream:
            if self.held is None and self.then is None and not self.closing:
                readers.append(self.upstream)
            if self.to_up:
                writers.append(self.upstream)

    # -- client to server

    def from_client(self):
        data = self._recv(self.client)
        if data is None:
            return
        if not data or self.closing:  # the client hung up, or spoke after our FIN: we are done
            self.shut(reset=bool(data))
            return
        if self.spoke or self.line:
            self.line += data
            if b"\r\n" not in self.line and len(self.line) < LINE_MAX:
                return
            data, self.line = bytes(self.line), bytearray()
            self.requests += 1
            self.spoke = False
            line = data.split(b"\r\n", 1)[0].decode("latin-1")
            self.proxy.log("request", conn=self.number, request=self.requests, line=line)
            if not self.proxy.on_request(self, line):
                return  # the fault took the request
        self.to_up += data
        self.flush(self.upstream, self.to_up)

    # -- server to client

    def from_upstream(self):
        data = self._recv(self.upstream)
        if data is None:
            return
        if not data:  # the server closed: pass the answer on, then close
            self.then = lambda: self.shut()
            self.flush(self.client, self.to_client)
            return
        self.spoke = True
        cut = self.watch.cut(data) if self.watch else None
        if cut is None:
            self.to_client += data
        else:
            self.to_client += data[:cut]
            rest, watch, self.watch = data[cut:], self.watch, None
            self.then = lambda: self.act(watch, rest)
        self.flush(self.client, self.to_client)

    def act(self, watch, rest):
        """The watched fault, now that its bytes have reached the client."""
        rule = watch.rule
        forwarded = min(watch.seen, watch.limit)
        self.proxy.log(rule.fault, conn=self.number, request=watch.request, rule=rule.index, forwarded=forwarded)
        if rule.fault == "reset":
            self.shut(reset=True)
        elif rule.fault == "close":
            self.close_cleanly()
        else:  # stall
            self.held = bytearray(rest)
            if rule.seconds is not None:
                self.proxy.later(float(rule.seconds), self.resume)

    def resume(self):
        if self.dead or self.held is None:
            return
        self.proxy.log("resume", conn=self.number)
        self.to_client += self.held
        self.held = None
        self.flush(self.client, self.to_client)

    # -- sockets

    def _recv(self, sock):
        try:
            return sock.recv(RECV)
        except (BlockingIOError, InterruptedError):
            return None
        except OSError:  # reset by the peer: the other side gets a reset too
            self.shut(reset=True)
            return None

    def flush(self, sock, buf):
        if self.dead or sock is None:
            return
        try:
            while buf:
                sent = sock.send(buf)
                del buf[:sent]
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self.shut(reset=True)
            return
        if sock is self.client and not buf and self.then:
            then, self.then = self.then, None
            then()

    def writable(self, sock):
        self.flush(sock, self.to_client if sock is self.client else self.to_up)

    def close_cleanly(self):
        """FIN to both: the upstream is closed; the client gets our FIN and CLOSING_SECONDS to
        hang up (data from it after that gets a reset, as from a closed socket)."""
        _close(self.upstream, reset=False)
        self.upstream = None
        try:
            self.client.shutdown(socket.SHUT_WR)
        except OSError:
            self.shut(reset=True)
            return
        self.closing = time.monotonic() + CLOSING_SECONDS
        self.proxy.later(CLOSING_SECONDS, lambda: self.shut(reset=True))

    def shut(self, reset=False):
        if self.dead:
            return
        self.dead = True
        _close(self.client, reset)
        _close(self.upstream, reset)
        self.client = self.upstream = None
        self.proxy.conns.pop(self.number, None)


def _close(sock, reset):
    if sock is None:
        return
    try:
        if reset:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        else:  # unread bytes would turn close() into a reset
            while sock.recv(RECV):
                pass
    except OSError:
        pass
    sock.close()


class Proxy:
    def __init__(self, upstream, rules, log_path):
        self.upstream, self.rules = upstream, rules
        self.log_file = open(log_path, "a", buffering=1) if log_path else None
        self.hold = socket.socket(socket.AF_INET, socket.SOCK_STREAM)  # keeps the port ours
        self.hold.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.hold.bind(("127.0.0.1", 0))
        self.port = self.hold.getsockname()[1]
        self.listener = None
        self.outages = 0             # refusals and blackholes under way; listening when 0
        self.hole = None             # (listening socket with a full queue, the connection filling it)
        self.conns = {}
        self.accepted = 0
        self.timers, self.seq = [], 0
        self.stopping = False
        self.wake_r, self.wake_w = socket.socketpair()
        self.wake_r.setblocking(False)
        self.wake_w.setblocking(False)

    def log(self, action, **fields):
        if self.log_file:
            rec = {"time": round(time.time(), 6), "action": action}
            rec.update(fields)
            self.log_file.write(json.dumps(rec) + "\n")

    def later(self, seconds, fn):
        self.seq += 1
        heapq.heappush(self.timers, (time.monotonic() + seconds, self.seq, fn))

    # -- the listening socket

    def listen(self):
        if self.listener or self.stopping or self.outages:
            return
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(("127.0.0.1", self.port))
            s.listen(128)
        except OSError as e:  # not expected: the port is held; try again shortly
            s.close()
            self.log("listen-error", port=self.port, error=str(e))
            self.later(0.05, self.listen)
            return
        s.setblocking(False)
        self.listener = s
        self.log("listen", port=self.port)

    def go_down(self, kind, seconds):
        """An outage of `seconds` (None: for ever). refuse: no listening socket, so connect()
        is refused; blackhole: a listening socket whose accept queue one connection of ours
        keeps full, so the kernel drops SYNs and connect() hangs."""
        if self.listener:
            self.listener.close()  # connections not yet accepted are reset by the kernel
            self.listener = None
        if kind == "blackhole" and not self.hole:
            self.hole = self._full_queue()
        self.outages += 1
        if seconds is not None:
            self.later(float(seconds), self._outage_over)

    def _full_queue(self):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", self.port))
        s.listen(0)  # room for one connection, never accepted
        filler = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        filler.setblocking(False)
        filler.connect_ex(("127.0.0.1", self.port))
        select.select([], [filler], [], 2.0)  # the handshake is done by the kernel at once
        return s, filler

    def _outage_over(self):
        self.outages -= 1
        if self.outages:
            return
        if self.hole:
            for s in self.hole:
                _close(s, reset=True)
            self.hole = None
        self.listen()

    def accept(self):
        try:
            client, _ = self.listener.accept()
        except (BlockingIOError, InterruptedError):
            return
        self.accepted += 1
        number = self.accepted
        self.log("accept", conn=number)
        try:
            upstream = socket.create_connection(("127.0.0.1", self.upstream), timeout=5)
        except OSError as e:
            self.log("upstream-error", conn=number, error=str(e))
            _close(client, reset=True)
            return
        for s in (client, upstream):
            s.setblocking(False)
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.conns[number] = Conn(self, number, client, upstream)

    # -- faults

    def on_request(self, conn, line):
        """Applies the first matching rule to a new request; False when the request must not
        be forwarded."""
        if conn.watch:  # one fault at a time on a connection
            return True
        rule = next((r for r in self.rules if r.matches(conn, line)), None)
        if rule is None:
            return True
        rule.used += 1
        if rule.fault in ("reset", "close", "stall"):
            conn.watch = Watch(rule, conn.requests)
            return True
        seconds = rule.seconds
        if rule.fault in OUTAGES:
            self.log(rule.fault, conn=conn.number, request=conn.requests, rule=rule.index, seconds=seconds)
            self.go_down(rule.fault, seconds)
            conn.close_cleanly()
        else:  # vanish: the port goes first, so no reconnection slips in
            victims = sorted(self.conns)
            self.log("vanish", conn=conn.number, request=conn.requests, rule=rule.index, seconds=seconds,
                     reset=victims)
            self.go_down("refuse", seconds)
            for n in victims:
                self.conns[n].shut(reset=True)
        return False

    # -- the loop

    def run(self, max_seconds, ready):
        """Listens (or starts the outages planned from the start), calls ready(port), then
        serves until stopped."""
        at_start = [r for r in self.rules if r.at_start()]
        for r in at_start:
            r.used += 1
            self.log(r.fault, rule=r.index, seconds=None if r.always else r.seconds)
            self.go_down(r.fault, None if r.always else r.seconds)
        if not at_start:
            self.listen()
        ready(self.port)  # only now: a client that reads the port finds it in its planned state
        self.later(max_seconds, self.stop)
        while not self.stopping:
            self._turn()
        self._close_all()

    def _turn(self):
        readers, writers = [self.wake_r], []
        if self.listener:
            readers.append(self.listener)
        for c in list(self.conns.values()):
            c.wants(readers, writers)
        timeout = max(0.0, self.timers[0][0] - time.monotonic()) if self.timers else 1.0
        readable, writable, _ = select.select(readers, writers, [], min(timeout, 1.0))
        for s in readable:
            if s is self.wake_r:
                self._drain_wake()
            elif s is self.listener:
                self.accept()
            else:
                self._dispatch(s, read=True)
        for s in writable:
            self._dispatch(s, read=False)
        now = time.monotonic()
        while self.timers and self.timers[0][0] <= now:
            heapq.heappop(self.timers)[2]()

    def _dispatch(self, sock, read):
        for c in list(self.conns.values()):
            if c.dead:
                continue
            if sock is c.client:
                c.from_client() if read else c.writable(sock)
                return
            if sock is c.upstream:
                c.from_upstream() if read else c.writable(sock)
                return

    def _drain_wake(self):
        try:
            while self.wake_r.recv(64):
                pass
        except (BlockingIOError, InterruptedError):
            pass

    def stop(self):
        self.stopping = True

    def _close_all(self):
        for c in list(self.conns.values()):
            c.shut(reset=True)
        if self.listener:
            self.listener.close()
        for s in self.hole or ():
            _close(s, reset=True)
        self.hold.close()
        self.log("stop")
        if self.log_file:
            self.log_file.close()


def load_plan(opts):
    if opts.plan:
        with open(opts.plan) as f:
            spec = json.load(f)
    else:
        spec = json.loads(opts.plan_json or "[]")
    if not isinstance(spec, list):
        raise ValueError("the plan is a JSON list of rules")
    return [Rule(i, r) for i, r in enumerate(spec)]


def write_port(path, port):
    tmp = "%s.%d.tmp" % (path, os.getpid())
    with open(tmp, "w") as f:
        f.write("%d\n" % port)
    os.replace(tmp, path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--upstream", type=int, required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--plan")
    ap.add_argument("--plan-json")
    ap.add_argument("--log")
    ap.add_argument("--max-seconds", type=float, default=300)
    opts = ap.parse_args(argv)
    try:
        rules = load_plan(opts)
        proxy = Proxy(opts.upstream, rules, opts.log)
    except (OSError, ValueError) as e:
        print("proxy: %s" % e, file=sys.stderr)
        return 2

    def on_signal(signum, frame):
        proxy.stop()
        try:
            proxy.wake_w.send(b"x")
        except OSError:
            pass

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    proxy.run(opts.max_seconds, lambda port: write_port(opts.port_file, port))
    return 0


if __name__ == "__main__":
    sys.exit(main())

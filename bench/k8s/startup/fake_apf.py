#!/usr/bin/env python3
"""tests/fake_api.py behind a model of API Priority and Fairness (APF): a seat budget, a
bounded queue with a wait limit, and 429 + Retry-After, as kube-apiserver answers an
overloaded priority level. Every option of the fake is accepted unchanged; these are added:

  --apf-seats S          seats of the priority level (0 = no APF: the fake as it is)
  --apf-queue-length Q   requests that may wait at once; one more -> 429 at once
  --apf-wait SECONDS     longest wait in the queue; then 429 (kube-apiserver: 15 s)
  --apf-stats FILE       on exit, a JSON object: admitted, queued, rejected (queue full,
                         wait timed out), the longest wait, the Retry-After values sent

What it models (sources in bench/k8s/startup/README.md):
- Every request of the job's pods is one flow of one priority level (workload-low: the pods
  share a service account, and FlowSchema service-accounts distinguishes flows by user).
- Seats a request occupies while it is served, from kube-apiserver's work estimator
  (apiserver pkg/util/flowcontrol/request): a GET of one object 1; a LIST
  ceil(objects / 100), at least 1 and at most 10, where objects is what the server counts,
  not what the selector matches: the resource's stored count for a first page (served from
  the watch cache), stored count + limit for a continue page with a selector (served from
  etcd). A request wider than the level runs alone.
- Queuing: one FIFO. A request is admitted when it heads the queue and its seats are free
  (the head blocks the rest, as APF's dispatcher does not skip a wide request); it is
  rejected when Q requests already wait, or when it has waited --apf-wait seconds.
- Rejection: 429, body "Too many requests, please try again later.\\n" (text/plain, as Go's
  http.Error writes it), Retry-After from the dropped-requests tracker of APF: 1 s at the
  start; when a new second begins, it doubles (at most 32) if at least 3 x Retry-After
  requests were dropped in the last Retry-After seconds and the last increase is at least
  Retry-After seconds old, else it drops by 1 (down to 1) when fewer than Retry-After were.
- Seats are held from admission until the response has been written (for a large body, until
  the client has read all but the socket buffers).
The rejected requests are logged in the fake's --log like any other (status 429, bytes).
"""
import collections
import json
import math
import os
import sys
import threading
import time
from urllib.parse import parse_qs, urlsplit

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "tests"))
import fake_api  # noqa: E402

MIN_SEATS, MAX_LIST_SEATS, OBJECTS_PER_SEAT = 1, 10, 100.0
MAX_RETRY_AFTER = 32
REJECT_BODY = b"Too many requests, please try again later.\n"


class RetryAfter:
    """The priority level's Retry-After in seconds, adjusted by the rate of dropped requests
    (the rules in the module's docstring). Seconds are whole seconds of time.time()."""

    def __init__(self, now=time.time):
        self.now = now
        self.value = 1
        self.raised_at = 0          # the second of the last increase (0: never)
        self.current = None         # the second being counted, and its drops
        self.count = 0
        self.history = collections.deque()  # (second, drops) of earlier seconds

    def drop(self):
        """Records one dropped request; -> the Retry-After to send with it."""
        second = int(self.now())
        if second != self.current:
            if self.current is not None:
                self.history.append((self.current, self.count))
                while self.history and second - self.history[0][0] > MAX_RETRY_AFTER:
                    self.history.popleft()
            self.current, self.count = second, 0
            self._adjust(second)
        self.count += 1
        return self.value

    def _adjust(self, second):
        window = sum(n for s, n in self.history if second - s <= self.value and s < second)
        if second - self.raised_at >= self.value and window >= 3 * self.value:
            self.value = min(2 * self.value, MAX_RETRY_AFTER)
            self.raised_at = second
        elif window < self.value and self.value > 1:
            self.value -= 1


class Waiter:
    __slots__ = ("seats", "event", "admitted")

    def __init__(self, seats):
        self.seats, self.event, self.admitted = seats, threading.Event(), False


class PriorityLevel:
    """Seats, a FIFO queue with a length limit and a wait limit, and the Retry-After."""

    def __init__(self, seats, queue_length, wait_s):
        self.seats, self.queue_length, self.wait_s = seats, queue_length, wait_s
        self.free = seats
        self.queue = collections.deque()
        self.lock = threading.Lock()
        self.retry_after = RetryAfter()
        self.stats = {"seats": seats, "queue_length": queue_length, "wait_s": wait_s,
                      "admitted": 0, "admitted_after_queueing": 0, "rejected_queue_full": 0,
                      "rejected_wait_timeout": 0, "longest_wait_s": 0.0,
                      "seats_by_request": {}, "retry_after_sent": {}}

    def acquire(self, seats):
        """-> (admitted, seconds waited, Retry-After when rejected)."""
        seats = min(seats, self.seats)
        start = time.monotonic()
        with self.lock:
            key = str(seats)
            self.stats["seats_by_request"][key] = self.stats["seats_by_request"].get(key, 0) + 1
            if not self.queue and self.free >= seats:
                self.free -= seats
                self.stats["admitted"] += 1
                return True, 0.0, None
            if len(self.queue) >= self.queue_length:
                return False, 0.0, self._reject("rejected_queue_full")
            w = Waiter(seats)
            self.queue.append(w)
        w.event.wait(self.wait_s)
        waited = time.monotonic() - start
        with self.lock:
            self.stats["longest_wait_s"] = max(self.stats["longest_wait_s"], waited)
            if w.admitted:
                self.stats["admitted"] += 1
                self.stats["admitted_after_queueing"] += 1
                return True, waited, None
            self.queue.remove(w)
            self._dispatch()  # it may have blocked the requests behind it
            return False, waited, self._reject("rejected_wait_timeout")

    def release(self, seats):
        with self.lock:
            self.free += min(seats, self.seats)
            self._dispatch()

    def _dispatch(self):
        while self.queue and self.queue[0].seats <= self.free:
            w = self.queue.popleft()
            self.free -= w.seats
            w.admitted = True
            w.event.set()

    def _reject(self, why):
        self.stats[why] += 1
        value = self.retry_after.drop()
        sent = self.stats["retry_after_sent"]
        sent[str(value)] = sent.get(str(value), 0) + 1
        return value


def request_seats(srv, method, path, query):
    """Seats of one request, as kube-apiserver's work estimator counts them."""
    for store in (srv.pods, srv.jobs, srv.jobsets):
        if store is None:
            continue
        m = store.resource.path.fullmatch(path)
        if not m or method != "GET":
            continue
        namespace, name = m.groups()
        if name is not None:
            return MIN_SEATS  # a GET of one object
        stored = len(store.keys)
        objects = stored
        limit = fake_api._int_param(query, "limit")
        if fake_api._param(query, "continue") and (fake_api._param(query, "labelSelector") or
                                                   fake_api._param(query, "fieldSelector")):
            objects = stored + (min(limit, stored) if limit else stored)
        return max(MIN_SEATS, min(MAX_LIST_SEATS, math.ceil(objects / OBJECTS_PER_SEAT)))
    return MIN_SEATS


class ApfHandler(fake_api.Handler):
    def _apf_dispatch(self):
        level = self.server.apf
        if level is None:
            return fake_api.Handler._dispatch(self)
        url = urlsplit(self.path)
        try:
            query = parse_qs(url.query, keep_blank_values=True)
            seats = request_seats(self.server, self.command, url.path, query)
        except fake_api.ReplyError:
            seats = MIN_SEATS  # a bad parameter: the fake answers 400 itself
        admitted, _, retry_after = level.acquire(seats)
        if not admitted:
            return self._reject(retry_after)
        try:
            return fake_api.Handler._dispatch(self)
        finally:
            level.release(seats)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _apf_dispatch

    def _reject(self, retry_after):
        """429 with Retry-After, logged and sent as the fake sends any reply."""
        self.started = time.time()
        self.url = urlsplit(self.path)
        self.request_body = self._read_body()
        reply = fake_api.Reply(429, REJECT_BODY, {"Retry-After": str(retry_after),
                                                  "X-Content-Type-Options": "nosniff"},
                               "text/plain; charset=utf-8")
        body, headers = self._encode(reply)
        self.sent_bytes = self._body_bytes(body, {})
        self.server.log.write(self, 429)
        self._send_encoded(429, body, headers, {})


def extend(ap):
    ap.add_argument("--apf-seats", type=int, default=0)
    ap.add_argument("--apf-queue-length", type=int, default=50)
    ap.add_argument("--apf-wait", type=float, default=15.0)
    ap.add_argument("--apf-stats")


def main(argv=None):
    opts = fake_api.parse_args(argv, extend=extend, description=__doc__.split("\n")[0])
    if opts.apf_seats < 0 or opts.apf_queue_length < 0 or opts.apf_wait <= 0:
        print("fake_apf: --apf-seats and --apf-queue-length must not be negative, --apf-wait "
              "must be positive", file=sys.stderr)
        return 2
    try:
        srv = fake_api.build_server(opts, handler=ApfHandler)
    except (OSError, ValueError, KeyError) as e:
        print("fake_apf: %s" % e, file=sys.stderr)
        return 2
    srv.apf = PriorityLevel(opts.apf_seats, opts.apf_queue_length, opts.apf_wait) \
        if opts.apf_seats else None
    try:
        return fake_api.serve(srv, opts)
    finally:
        if opts.apf_stats and srv.apf is not None:
            with srv.apf.lock:
                text = json.dumps(srv.apf.stats, sort_keys=True)
            tmp = "%s.%d.tmp" % (opts.apf_stats, os.getpid())
            with open(tmp, "w") as f:
                f.write(text + "\n")
            os.replace(tmp, opts.apf_stats)


if __name__ == "__main__":
    sys.exit(main())

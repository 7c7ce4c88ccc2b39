#!/usr/bin/env python3
"""Fake JSON API server for the integration tests: static routes, a Kubernetes pod API that
pages like the real one (and Jobs and JobSets alike), bearer-token, basic and
client-certificate auth, RBAC-style denials, and injectable faults. Standard library only;
runs under the pyenv `python3` and Debian's `/usr/bin/python3`. Binds 127.0.0.1 only, port 0.

usage: fake_api.py --port-file F [options]
  --port-file F          write the chosen port to F (atomically) once listening [required]
  --cert PEM --key PEM   serve HTTPS (the handshake runs in the handler thread)
  --bearer TOKEN         require "Authorization: Bearer TOKEN" (scheme case-insensitive);
                         missing or wrong -> 401 Status. Repeatable: any listed token
                         authenticates (tests/gcp/fake_gcp.py heeds the first only)
  --basic USER:PASS      repeatable; "Authorization: Basic base64(USER:PASS)" authenticates
  --client-ca PEM        (with --cert) ask every client for an optional certificate and verify
                         it against PEM (a certificate that does not verify fails the
                         handshake); a request over a connection with a verified client
                         certificate is authenticated, bearer or not, as by kube-apiserver's
                         x509 authenticator. Any of --bearer, --basic and --client-ca makes
                         authentication required: none of them -> 401 Status
  --forbid-token TOKEN   this token authenticates but is not authorized -> 403 Status with an
                         RBAC-style message ("pods is forbidden: User ... cannot list ...")
  --forbid RESOURCE:VERB repeatable; an authenticated request for that verb on that resource
                         (any credential, or none when no auth option is given) -> 403 Status
                         as kube-apiserver's RBAC denial words it, for the user --forbid-token
                         names: 'jobs.batch "trainer" is forbidden: User "system:serviceaccount:
                         default:default" cannot get resource "jobs" in API group "batch" in
                         the namespace "default"', reason Forbidden, details {name, group,
                         kind}. RESOURCE is the plural ("jobs", "jobsets", "pods") or qualified
                         by its group ("jobs.batch"); VERB one of get, list, watch (a list with
                         ?watch=true), create, update, patch, delete, deletecollection, or *.
                         e.g. --forbid jobs:get --forbid pods:list. Discovery is never denied
  --require-header 'Name: value'   repeatable; missing or different -> 400 Status
  --routes ROUTES.json   {"[METHOD ]/path[?query]": BODY | {"status": N, "body": BODY,
                         "headers": {...}}}; a key ending in * is a prefix route. A string BODY
                         is sent as text/plain, anything else as JSON.
  --pods PODS.json       a JSON list of Pods or a PodList: serves GET /api/v1/pods and
                         /api/v1/namespaces/NS/pods with labelSelector, fieldSelector, limit
                         and continue (see PodStore), /api/v1/namespaces/NS/pods/NAME (the
                         Pod by its metadata.name, else a 404 Status; never by hostname),
                         and the discovery documents kubectl reads first: GET /version, /api
                         (APIVersions), /apis (APIGroupList: no groups without --jobs or
                         --jobsets), /api/v1
                         (APIResourceList: pods); /api and /apis answer the aggregated
                         APIGroupDiscoveryList when Accept asks for a version the server's
                         release serves (apidiscovery v2beta1 from 1.27, v2 from 1.30)
  --jobs JOBS.json       a JSON list of Jobs or a JobList: serves GET /apis/batch/v1/jobs and
                         /apis/batch/v1/namespaces/NS/jobs (a JobList; labelSelector,
                         fieldSelector metadata.name, metadata.namespace, status.successful,
                         limit and continue, paged as pods are), and .../namespaces/NS/jobs/NAME
                         (the Job, else 404 'jobs.batch "NAME" not found', reason NotFound,
                         details {name, group "batch", kind "jobs"}). Each object is served as
                         given: a GET adds kind and apiVersion in front, list items go without
                         them (as kube-apiserver's); metadata.namespace defaults to "default"
                         only when absent. Discovery (as for --pods, which is then optional)
                         adds the group batch (v1: jobs and jobs/status) to /apis, both legacy
                         and aggregated, and serves /apis/batch and /apis/batch/v1
  --jobsets JOBSETS.json a JSON list of JobSets or a JobSetList: the custom resource of
                         kubernetes-sigs/jobset as apiextensions-apiserver serves it, at
                         /apis/jobset.x-k8s.io/v1alpha2[/namespaces/NS]/jobsets[/NAME] (paged
                         as above; fieldSelector metadata.name and metadata.namespace; 404
                         'jobsets.jobset.x-k8s.io "NAME" not found'); every object and list
                         whole (kind and apiVersion added when missing) with its keys sorted,
                         a list's metadata with "continue" even when empty. Discovery adds the
                         group jobset.x-k8s.io (v1alpha2: jobsets and jobsets/status, the CRD
                         discovery controller's verbs and storageVersionHash)
  --server-version vX.Y.Z   the release /version reports and discovery follows (v1.32.4)
  --pods-resource-version-expire N
                         a continue token whose list began more than N list pages ago (pages
                         served to anyone) -> 410 Gone, reason Expired, as after etcd compaction
  --faults FAULTS.json   a list of faults (below)
  --log LOG.jsonl        one JSON line per request, written before the response is sent:
                         time, method, path, query (dict of lists), headers (lower-case names;
                         a header sent more than once has the list of its values, in order),
                         status (null when no response is sent), fault (when one was applied),
                         body (the request body's first 4 KiB, when there is one);
                         over HTTPS also "sni" (the server name the client sent in its TLS
                         ClientHello, or null), and with --client-ca "client_subject" (the
                         verified client certificate's subject as "CN=jane,O=ml-team", in the
                         certificate's order, or null)
  --log-secrets          log the Authorization value as sent (default "<scheme> <redacted>")
  --log-bytes            each log line also has "bytes": how many bytes of response body the
                         server sends (after gzip when gzipped; chunk framing not counted; 0
                         for HEAD, drop and hang, n for a truncate fault, the size of an
                         oversize one); written, like the line, before the body is sent
  --chunked              send bodies over 2 KiB with Transfer-Encoding: chunked (Go's habit)
  --gzip                 gzip bodies over 128 KiB when the client accepts gzip (kube-apiserver)
  --max-seconds N        exit by itself after N seconds (default 600)
Order of checks per request: fault, auth (401, then 403 for --forbid-token and --forbid;
discovery is never 403), required headers (400), routes, discovery, pods, jobs, jobsets, 404.
Unknown paths get a 404 Status. SIGTERM/SIGINT stop the server with exit status 0.

Faults: [{"path": "/api/v1/", "query": "continue=", "method": "GET", "times": 1, ACTION...}]
  "path" is a prefix; "query" (optional) a substring of the raw or URL-decoded query; "method"
  optional; "times" how often it fires (default: always). The first fault that matches and has
  uses left applies. Actions ("delay" combines with any other):
    {"status": 503, "body": ..., "headers": {"Retry-After": "1"}}  answer with that status
                                   (default body: a Status with the real reason for the code)
    {"status": 200, "raw": "..."}  a body of bytes, not text: each character is one byte
                                   (U+0000..U+00FF), so "\u00ff" sends 0xFF; JSON content type
    {"delay": 1.5}                 sleep, then answer normally
    {"truncate": n}                Content-Length of the full body, send n bytes, close
    {"lie_length": n}              Content-Length n bytes larger than the body, send it, close
    {"oversize": bytes}            200 with a valid JSON PodList of exactly that size, streamed
                                   (add "chunked": true to omit the Content-Length)
    {"drip": bytes_per_second}     send the normal response slowly
    {"drop": true}                 close the connection without a response ("reset": RST)
    {"hang": true}                 never answer; return when the client goes away
    {"continue_forever": true}     pod lists (and Job, JobSet lists) always carry a continue
                                   token to the same page
                                   (tests/gcp/fake_gcp.py: Google lists a nextPageToken)
Subclass servers (tests/gcp/fake_gcp.py) reuse parse_args(extend=), build_server(handler=),
serve() and Handler._route/_fault_reply.
"""
import argparse
import base64
import binascii
import bisect
import gzip
import hashlib
import json
import os
import re
import select
import signal
import socket
import socketserver
import ssl
import struct
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote_plus, urlsplit

USER = "system:serviceaccount:default:default"
CHUNKED_ABOVE = 2048           # Go's net/http switches to chunked after this much output
GZIP_ABOVE = 128 * 1024        # kube-apiserver's compression threshold
HANDSHAKE_SECONDS = 10
IDLE_SECONDS = 120             # an idle keep-alive connection is closed after this long
CONTINUE_VERSION = "meta.k8s.io/v1"
EXPIRED_MESSAGE = (
    "The provided continue parameter is too old to display a consistent list result. You can "
    "start a new list without the continue parameter, or use the continue token in this "
    "response to retrieve the remainder of the results. Continuing with the provided token "
    "results in an inconsistent list - objects that were created, modified, or deleted between "
    "the time the first chunk was returned and now may show up in the list.")
REASONS = {400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound",
           405: "MethodNotAllowed", 409: "Conflict", 410: "Expired", 429: "TooManyRequests",
           500: "InternalError", 503: "ServiceUnavailable", 504: "Timeout"}
MESSAGES = {401: "Unauthorized", 404: "the server could not find the requested resource",
            410: EXPIRED_MESSAGE, 429: "Too many requests, please try again later.",
            500: "Internal error occurred: fake fault",
            503: "the server is currently unable to handle the request",
            504: "Timeout: request did not complete within the allotted timeout"}


def dumps(obj):
    """Compact JSON, as the API server writes it."""
    return json.dumps(obj, separators=(",", ":"))


class Reply:
    """One HTTP response: status, headers and a body in bytes."""

    def __init__(self, status, body=b"", headers=None, content_type="application/json"):
        self.status = status
        self.body = body
        self.headers = dict(headers or {})
        if content_type:
            self.headers.setdefault("Content-Type", content_type)

    @classmethod
    def of(cls, status, body, headers=None):
        """A str body is text/plain; anything else is encoded as JSON."""
        if isinstance(body, str):
            return cls(status, body.encode(), headers, "text/plain; charset=utf-8")
        return cls(status, dumps(body).encode(), headers)


class ReplyError(Exception):
    """Carries an error Reply out of nested code."""

    def __init__(self, reply):
        super().__init__(reply.status)
        self.reply = reply


def status_reply(code, message=None, reason=None, details=None, metadata=None, headers=None):
    """A Kubernetes `Status` object (what every API error carries)."""
    body = {"kind": "Status", "apiVersion": "v1", "metadata": metadata or {},
            "status": "Failure", "message": message or MESSAGES.get(code, "fake error"),
            "reason": reason or REASONS.get(code, "Unknown")}
    if details:
        body["details"] = details
    body["code"] = code
    return Reply.of(code, body, headers)


# ---------------------------------------------------------------- selectors

SELECTOR_TOKEN = re.compile(r"\s*(==|!=|=|!|\(|\)|,|<|>|[^\s=!(),<>]+)")
LABEL_NAME = re.compile(r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?")
LABEL_PREFIX = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")


class SelectorError(ValueError):
    pass


def _tokens(text):
    out, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = SELECTOR_TOKEN.match(text, pos)
        if not m:
            raise SelectorError("unexpected character at %d" % pos)
        out.append(m.group(1))
        pos = m.end()
    return out


def _check_key(key):
    prefix, _, name = key.rpartition("/")
    if not (LABEL_NAME.fullmatch(name) and len(name) <= 63):
        raise SelectorError('invalid label key "%s"' % key)
    if prefix and not (LABEL_PREFIX.fullmatch(prefix) and len(prefix) <= 253):
        raise SelectorError('invalid label key "%s": bad prefix' % key)
    return key


def _check_value(value):
    if value and not (LABEL_NAME.fullmatch(value) and len(value) <= 63):
        raise SelectorError('invalid label value: "%s"' % value)
    return value


class _TokenStream:
    def __init__(self, tokens):
        self.tokens, self.pos = tokens, 0

    def peek(self):
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, expected=None):
        tok = self.peek()
        if tok is None or (expected and tok != expected):
            raise SelectorError("found '%s', expected: %s" % (tok or "", expected or "identifier"))
        self.pos += 1
        return tok

    def value(self):
        """A label value, which may be empty ("k=" and "k in (a,)")."""
        if self.peek() in (None, ",", ")"):
            return ""
        return _check_value(self.take())


def _requirement(ts):
    """One requirement: (key, op, values). op: exists, !, =, !=, in, notin, <, >."""
    if ts.peek() == "!":
        ts.take()
        return _check_key(ts.take()), "!", ()
    key = _check_key(ts.take())
    op = ts.peek()
    if op in (None, ","):
        return key, "exists", ()
    ts.take()
    if op in ("=", "==", "!="):
        return key, "!=" if op == "!=" else "=", (ts.value(),)
    if op in ("<", ">"):
        num = ts.take()
        if not num.isdigit():
            raise SelectorError("for '%s', '%s' is not a valid integer" % (op, num))
        return key, op, (int(num),)
    if op in ("in", "notin"):
        ts.take("(")
        values = [ts.value()]
        while ts.peek() == ",":
            ts.take()
            values.append(ts.value())
        ts.take(")")
        return key, op, tuple(values)
    raise SelectorError("found '%s', expected: in, notin, =, ==, !=, gt, lt" % op)


def parse_label_selector(text):
    """Kubernetes label selector syntax -> list of requirements (AND)."""
    ts = _TokenStream(_tokens(text or ""))
    reqs = []
    while ts.peek() is not None:
        reqs.append(_requirement(ts))
        if ts.peek() is not None:
            ts.take(",")
            if ts.peek() is None:
                raise SelectorError("found '', expected: identifier after ','")
    return reqs


def labels_match(reqs, labels):
    for key, op, values in reqs:
        has, value = key in labels, labels.get(key)
        if op == "exists":
            ok = has
        elif op == "!":
            ok = not has
        elif op in ("=", "in"):
            ok = has and value in values
        elif op in ("!=", "notin"):
            ok = not has or value not in values
        else:
            ok = has and value.isdigit() and (int(value) < values[0] if op == "<"
                                              else int(value) > values[0])
        if not ok:
            return False
    return True


def _get(obj, *path):
    for p in path:
        obj = obj.get(p) if isinstance(obj, dict) else None
    return obj


# the fields the real API server lets you select pods by
POD_FIELDS = {
    "metadata.name": lambda p: _get(p, "metadata", "name"),
    "metadata.namespace": lambda p: _get(p, "metadata", "namespace"),
    "spec.nodeName": lambda p: _get(p, "spec", "nodeName"),
    "spec.restartPolicy": lambda p: _get(p, "spec", "restartPolicy"),
    "spec.schedulerName": lambda p: _get(p, "spec", "schedulerName"),
    "spec.serviceAccountName": lambda p: _get(p, "spec", "serviceAccountName"),
    "spec.hostNetwork": lambda p: "true" if _get(p, "spec", "hostNetwork") else "false",
    "status.phase": lambda p: _get(p, "status", "phase"),
    "status.podIP": lambda p: _get(p, "status", "podIP"),
    "status.nominatedNodeName": lambda p: _get(p, "status", "nominatedNodeName"),
}


# the fields of every object (generic.ObjectMetaFieldsSet), all a custom resource has unless
# its CRD declares selectableFields (JobSet's does not)
META_FIELDS = {
    "metadata.name": lambda o: _get(o, "metadata", "name"),
    "metadata.namespace": lambda o: _get(o, "metadata", "namespace"),
}
# Jobs add status.successful (pkg/registry/batch/job/strategy.go JobToSelectableFields)
JOB_FIELDS = dict(META_FIELDS, **{
    "status.successful": lambda j: str(_get(j, "status", "succeeded") or 0),
})


def parse_field_selector(text, fields=POD_FIELDS):
    """"a=b,c!=d" -> [(field, op, value)]; only the fields in `fields` (POD_FIELDS)."""
    reqs = []
    for term in filter(None, (text or "").split(",")):
        m = re.fullmatch(r"\s*([^=!\s]+)\s*(==|=|!=)\s*(.*?)\s*", term)
        if not m:
            raise SelectorError("invalid selector: '%s'; can't understand '%s'" % (text, term))
        field, op, value = m.groups()
        if field not in fields:
            raise SelectorError('field label not supported: %s' % field)
        reqs.append((field, "!=" if op == "!=" else "=", value))
    return reqs


def fields_match(reqs, pod, fields=POD_FIELDS):
    for field, op, value in reqs:
        actual = fields[field](pod) or ""
        if (actual == value) != (op == "="):
            return False
    return True


# ---------------------------------------------------------------- resources

BUILTIN_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]
# apiextensions-apiserver's own order (customresource_discovery_controller.go)
CRD_VERBS = ["delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"]


def dumps_sorted(obj):
    """Compact JSON with sorted keys: how apiextensions-apiserver writes a custom resource (an
    unstructured object, a Go map, which encoding/json writes in key order)."""
    return json.dumps(obj, separators=(",", ":"), sort_keys=True)


class Resource:
    """One resource the fake serves: its group, version and names, the fields a list may
    select on, and whether it is built in (kube-apiserver: list items carry no kind and
    apiVersion) or a custom resource (apiextensions-apiserver: every object carries both, keys
    sorted, lists too). Discovery documents and error messages are derived from it."""

    def __init__(self, group, version, plural, singular, kind, fields, builtin=True,
                 short_names=(), categories=()):
        self.group, self.version, self.plural, self.singular = group, version, plural, singular
        self.kind, self.list_kind, self.fields, self.builtin = kind, kind + "List", fields, builtin
        self.short_names, self.categories = list(short_names), list(categories)
        self.group_version = group + "/" + version if group else version
        self.qualified = plural + "." + group if group else plural  # schema.GroupResource
        self.prefix = "/apis/" + self.group_version if group else "/api/" + version
        self.path = re.compile(re.escape(self.prefix) + r"/(?:namespaces/([^/]+)/)?" +
                               re.escape(plural) + r"(?:/([^/]+))?")
        # discovery.StorageVersionHash: the first 8 bytes of sha256("group/version/kind")
        self.storage_hash = base64.b64encode(hashlib.sha256(
            ("%s/%s/%s" % (group, version, kind)).encode()).digest()[:8]).decode()

    def details(self, name=None):
        """A Status's details (metav1.StatusDetails: name, group, kind; empty ones left out)."""
        out = {"name": name} if name else {}
        if self.group:
            out["group"] = self.group
        out["kind"] = self.plural
        return out

    def item(self, obj):
        """An object as the store keeps it: a built-in one without kind and apiVersion (as list
        items are), a custom one with both (added when missing)."""
        rest = {k: v for k, v in obj.items() if k not in ("kind", "apiVersion")}
        if self.builtin:
            return rest
        return dict({"apiVersion": obj.get("apiVersion") or self.group_version,
                     "kind": obj.get("kind") or self.kind}, **rest)

    def encode(self, item):
        return (dumps(item) if self.builtin else dumps_sorted(item)).encode()

    def verbs(self):
        return list(BUILTIN_VERBS if self.builtin else CRD_VERBS)

    def legacy_entries(self):
        """Its entries in GET <prefix> (APIResourceList): the resource, then its status."""
        entry = {"name": self.plural, "singularName": self.singular, "namespaced": True,
                 "kind": self.kind, "verbs": self.verbs()}
        if self.short_names:
            entry["shortNames"] = list(self.short_names)
        if self.categories:
            entry["categories"] = list(self.categories)
        entry["storageVersionHash"] = self.storage_hash
        status = {"name": self.plural + "/status", "singularName": "", "namespaced": True,
                  "kind": self.kind, "verbs": ["get", "patch", "update"]}
        return [entry, status]

    def aggregated_entry(self):
        """Its entry in an aggregated APIGroupDiscoveryList (apidiscovery v2beta1 and v2):
        built-in kinds name no group or version (kube-apiserver's aggregated_v2.json), custom
        ones name both (the CRD discovery controller)."""
        kind = {"group": "", "version": "", "kind": self.kind} if self.builtin else \
            {"group": self.group, "version": self.version, "kind": self.kind}
        entry = {"resource": self.plural, "responseKind": kind, "scope": "Namespaced",
                 "singularResource": self.singular, "verbs": self.verbs()}
        if self.short_names:
            entry["shortNames"] = list(self.short_names)
        if self.categories:
            entry["categories"] = list(self.categories)
        entry["subresources"] = [{"subresource": "status", "responseKind": dict(kind),
                                  "verbs": ["get", "patch", "update"]}]
        return entry


POD = Resource("", "v1", "pods", "pod", "Pod", POD_FIELDS, short_names=["po"],
               categories=["all"])
JOB = Resource("batch", "v1", "jobs", "job", "Job", JOB_FIELDS, categories=["all"])
# the JobSet CRD (kubernetes-sigs/jobset config/components/crd/bases/
# jobset.x-k8s.io_jobsets.yaml): namespaced, no shortNames or categories, a status subresource
JOBSET = Resource("jobset.x-k8s.io", "v1alpha2", "jobsets", "jobset", "JobSet", META_FIELDS,
                  builtin=False)


# ---------------------------------------------------------------- pods

class ContinueError(ValueError):
    pass


def encode_continue(rv, start):
    """The apiserver's token: base64url (no padding) of {"v", "rv", "start"}."""
    raw = dumps({"v": CONTINUE_VERSION, "rv": rv, "start": start}).encode()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def decode_continue(token):
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        data = json.loads(raw)
    except (binascii.Error, ValueError) as e:
        raise ContinueError("continue key is not valid: %s" % e)
    if not isinstance(data, dict) or data.get("v") != CONTINUE_VERSION:
        raise ContinueError("continue key is not valid: server does not recognize this "
                            "encoded version")
    rv, start = data.get("rv"), data.get("start")
    if not isinstance(rv, int) or rv == 0:
        raise ContinueError("continue key is not valid: incorrect encoded start "
                            "resourceVersion (version %s)" % CONTINUE_VERSION)
    if not isinstance(start, str) or not start:
        raise ContinueError("continue key is not valid: encoded start key empty")
    if start.startswith("/") or ".." in start.split("/"):
        raise ContinueError("continue key is not valid: invalid start key")
    return rv, start


def _load_pods(path):
    """(pods, list resourceVersion) from a JSON list of Pods or a PodList."""
    with open(path) as f:
        data = json.load(f)
    items = data.get("items") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise ValueError("%s: want a list of Pods or a PodList" % path)
    for n, pod in enumerate(items):
        if not (_get(pod, "metadata", "name") and _get(pod, "metadata", "namespace")):
            raise ValueError("%s: pod #%d has no metadata.name and metadata.namespace" % (path, n))
    list_rv = _get(data, "metadata", "resourceVersion") if isinstance(data, dict) else None
    return items, int(list_rv or 0)


def _load_objects(path, resource):
    """(objects, list resourceVersion) from a JSON list of objects or a list object (a JobList,
    a JobSetList): each needs metadata.name; metadata.namespace defaults to "default" when
    absent (the object is otherwise kept as given)."""
    with open(path) as f:
        data = json.load(f)
    items = data.get("items") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise ValueError("%s: want a list of %ss or a %s" % (path, resource.kind,
                                                          resource.list_kind))
    out = []
    for n, obj in enumerate(items):
        if not (isinstance(obj, dict) and _get(obj, "metadata", "name")):
            raise ValueError("%s: %s #%d has no metadata.name" % (path, resource.kind, n))
        if not _get(obj, "metadata", "namespace"):
            obj = dict(obj, metadata=dict(obj["metadata"], namespace="default"))
        out.append(obj)
    list_rv = _get(data, "metadata", "resourceVersion") if isinstance(data, dict) else None
    return out, int(list_rv or 0)


class PodStore:
    """Pods kept in etcd key order ("<namespace>/<name>"), listed in pages the way
    kube-apiserver's etcd3 storage does: a page is full (limit matching items) before it gets
    a continue token, and it gets one when any key (matching or not) follows its last item, so
    a filtered list may end with an empty page. Every list page served counts as one write to
    the cluster (the resourceVersion moves on), which is what --pods-resource-version-expire
    measures a token's age in. With resource=JOB or JOBSET it keeps and pages Jobs or JobSets
    the same way (each store counts its own pages)."""

    def __init__(self, pods, list_rv=0, expire_pages=None, resource=None):
        self.resource = resource = resource or POD
        rows = []
        for pod in pods:
            pod = resource.item(pod)
            meta = pod["metadata"]
            rows.append((meta["namespace"] + "/" + meta["name"], pod, resource.encode(pod)))
        rows.sort(key=lambda r: r[0])
        self.keys = [r[0] for r in rows]
        self.pods = [r[1] for r in rows]
        self.encoded = [r[2] for r in rows]
        item_rvs = [int(_get(p, "metadata", "resourceVersion") or 0) for p in self.pods]
        self.base_rv = max(item_rvs + [list_rv, 1000])
        self.expire_pages = expire_pages
        self.pages_served = 0
        self.lock = threading.Lock()

    def _scope(self, namespace):
        """[lo, hi) of the keys under /<namespace>/ (or all keys) and the key prefix."""
        if namespace is None:
            return 0, len(self.keys), ""
        prefix = namespace + "/"
        return (bisect.bisect_left(self.keys, prefix),
                bisect.bisect_left(self.keys, namespace + "0"), prefix)  # "0" follows "/"

    def _snapshot(self, token, prefix):
        """(resourceVersion to report, first key) for a request; raises ReplyError (400, 410)."""
        with self.lock:
            current = self.base_rv + self.pages_served
            self.pages_served += 1
        if not token:
            return current, prefix
        try:
            rv, start = decode_continue(token)
        except ContinueError as e:
            raise ReplyError(status_reply(400, str(e)))
        if rv == -1:  # the "inconsistent" token handed out with a 410
            return current, prefix + start
        if self.expire_pages is not None and current - rv > self.expire_pages:
            retry = encode_continue(-1, start)
            raise ReplyError(status_reply(410, metadata={"continue": retry}))
        return rv, prefix + start

    def list(self, namespace, query, forever=False):
        """A PodList Reply for GET /api/v1[/namespaces/NS]/pods (a JobList, a JobSetList)."""
        table = self.resource.fields
        labels = parse_label_selector(_param(query, "labelSelector"))
        fields = parse_field_selector(_param(query, "fieldSelector"), table)
        limit = _int_param(query, "limit")
        lo, hi, prefix = self._scope(namespace)
        rv, start_key = self._snapshot(_param(query, "continue"), prefix)
        first = max(lo, bisect.bisect_left(self.keys, start_key))
        picked, i = [], first
        while i < hi and not (limit and len(picked) >= limit):
            if labels_match(labels, _get(self.pods[i], "metadata", "labels") or {}) \
                    and fields_match(fields, self.pods[i], table):
                picked.append(i)
            i += 1
        meta = {"resourceVersion": str(rv)}
        more = limit and len(picked) >= limit and picked[-1] + 1 < hi
        if forever:
            start = self.keys[first][len(prefix):] if first < hi else "\x00"
            meta["continue"] = encode_continue(rv, start)
        elif more:
            meta["continue"] = encode_continue(rv, self.keys[picked[-1]][len(prefix):] + "\x00")
            if not labels and not fields:
                meta["remainingItemCount"] = hi - picked[-1] - 1
        return self._page(meta, picked)

    def _page(self, meta, picked):
        res = self.resource
        items = b",".join(self.encoded[i] for i in picked)
        if not res.builtin:  # an UnstructuredList: keys sorted, "continue" always there
            meta = dict({"continue": ""}, **meta)
            head = '{"apiVersion":"%s","items":[' % res.group_version
            tail = '],"kind":"%s","metadata":%s}' % (res.list_kind, dumps_sorted(meta))
            return Reply(200, b"".join([head.encode(), items, tail.encode()]))
        head = '{"kind":"%s","apiVersion":"%s","metadata":%s,"items":[' % (
            res.list_kind, res.group_version, dumps(meta))
        body = b"".join([head.encode(), items, b"]}"])
        return Reply(200, body)

    def get(self, namespace, name):
        res = self.resource
        key = namespace + "/" + name
        i = bisect.bisect_left(self.keys, key)
        if i == len(self.keys) or self.keys[i] != key:
            return status_reply(404, '%s "%s" not found' % (res.qualified, name),
                                details=res.details(name))
        if not res.builtin:  # kept whole, kind and apiVersion included
            return Reply(200, self.encoded[i])
        head = '{"kind":"%s","apiVersion":"%s"' % (res.kind, res.group_version)
        body = self.encoded[i]
        return Reply(200, head.encode() + (b"," + body[1:] if body != b"{}" else b"}"))


def _param(query, name):
    values = query.get(name)
    return values[0] if values else ""


def _int_param(query, name):
    text = _param(query, name)
    if not text:
        return 0
    try:
        return max(0, int(text))
    except ValueError:
        raise ReplyError(status_reply(400, 'invalid value for "%s": %s' % (name, text)))


POD_PATH = POD.path


def pods_reply(store, method, path, query, forever):
    """The pod endpoints (the store's resource's: Jobs, JobSets), or None when the path is not
    one of them."""
    m = store.resource.path.fullmatch(path)
    if not m:
        return None
    namespace, name = m.groups()
    if name is not None and namespace is None:
        return None
    if method != "GET":
        return status_reply(405, "the server does not allow this method on the requested "
                                 "resource", details=store.resource.details())
    if name is not None:
        return store.get(namespace, name)
    try:
        return store.list(namespace, query, forever)
    except SelectorError as e:
        return status_reply(400, "unable to parse requirement: %s" % e)


# ---------------------------------------------------------------- discovery

# What kubectl asks before it lists anything (kubectl 1.27..1.33 on this machine, request logs):
# GET /version (Google's kubectl dispatcher picks the kubectl.1.NN build matching the server's
# minor version from it), then /api and /apis, then /api/v1 when discovery is not aggregated.
# The documents follow kube-apiserver's own fixtures (kubernetes/kubernetes api/discovery/:
# api.json, api__v1.json, apis.json, apis__batch.json, apis__batch__v1.json,
# aggregated_v2.json); the fake advertises only what it serves: pods with --pods, the group
# batch (jobs) with --jobs, jobset.x-k8s.io (jobsets, as the CRD discovery controller of
# apiextensions-apiserver lists a custom resource) with --jobsets. A real server lists every
# group and resource it has. Without aggregated discovery kubectl also asks /apis/GROUP/VERSION.
DISCOVERY_PATHS = ("/version", "/api", "/apis", "/api/v1")
AGGREGATED = "APIGroupDiscoveryList"
POD_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]


def parse_server_version(text):
    """"v1.32.4" -> (1, 32, "v1.32.4"); raises ValueError."""
    m = re.fullmatch(r"v?(\d+)\.(\d+)\.(\d+)", text or "")
    if not m:
        raise ValueError("--server-version: want v1.MINOR.PATCH, got %r" % text)
    return int(m.group(1)), int(m.group(2)), "v%s.%s.%s" % m.groups()


def aggregated_versions(minor):
    """The apidiscovery.k8s.io versions a kube-apiserver of 1.<minor> serves at /api and /apis
    (KEP-3352: beta, v2beta1, on by default from 1.27; v2 from 1.30, beside v2beta1)."""
    if minor >= 30:
        return ("v2", "v2beta1")
    return ("v2beta1",) if minor >= 27 else ()


def negotiate_discovery(accept, minor):
    """The first media range of Accept the server can produce: an apidiscovery version for an
    aggregated document, else None (plain application/json: the legacy documents)."""
    for media in (accept or "application/json").split(","):
        params = dict(p.strip().partition("=")[::2] for p in media.split(";")[1:])
        if params.get("as") == AGGREGATED and params.get("g") == "apidiscovery.k8s.io":
            if params.get("v") in aggregated_versions(minor):
                return params["v"]
            continue
        if media.split(";")[0].strip() in ("application/json", "*/*", "application/*"):
            return None
    return None


def _pod_resource_legacy():
    """The pods entry of GET /api/v1 (api/discovery/api__v1.json)."""
    return {"name": "pods", "singularName": "pod", "namespaced": True, "kind": "Pod",
            "verbs": POD_VERBS, "shortNames": ["po"], "categories": ["all"],
            "storageVersionHash": "xPOwRZ+Yhw8="}


def _pod_resource_aggregated():
    """The pods entry of the aggregated core group (api/discovery/aggregated_v2.json's shape)."""
    kind = {"group": "", "version": "", "kind": "Pod"}
    return {"resource": "pods", "responseKind": kind, "scope": "Namespaced",
            "singularResource": "pod", "verbs": POD_VERBS, "shortNames": ["po"],
            "categories": ["all"],
            "subresources": [{"subresource": "status", "responseKind": kind,
                              "verbs": ["get", "patch", "update"]}]}


def discovery_paths(served):
    """The discovery documents of the served resources: /version, /api, /apis, /api/v1, and
    /apis/GROUP and /apis/GROUP/VERSION of each served group."""
    paths = list(DISCOVERY_PATHS)
    for res in served:
        if res.group:
            paths += ["/apis/" + res.group, res.prefix]
    return paths


def _groups(served):
    """The served API groups, built-in ones first (as /apis lists them): [(group, version,
    [resources])]."""
    out = []
    for res in sorted((r for r in served if r.group), key=lambda r: not r.builtin):
        if out and out[-1][0] == res.group:
            out[-1][2].append(res)
        else:
            out.append((res.group, res.version, [res]))
    return out


def _group_version(group, version):
    return {"groupVersion": group + "/" + version, "version": version}


def _legacy_group(group, version):
    """An APIGroup (apis__batch.json's shape) without its kind and apiVersion."""
    return {"name": group, "versions": [_group_version(group, version)],
            "preferredVersion": _group_version(group, version)}


def group_discovery_reply(served, path):
    """GET /apis/GROUP (APIGroup) and /apis/GROUP/VERSION (APIResourceList) of a served group;
    None for other paths."""
    for group, version, resources in _groups(served):
        if path == "/apis/" + group:
            return Reply.of(200, dict({"kind": "APIGroup", "apiVersion": "v1"},
                                      **_legacy_group(group, version)))
        if path == "/apis/%s/%s" % (group, version):
            entries = [e for res in resources for e in res.legacy_entries()]
            return Reply.of(200, {"kind": "APIResourceList", "apiVersion": "v1",
                                  "groupVersion": group + "/" + version, "resources": entries})
    return None


def _aggregated_groups(served):
    """The served groups as items of an aggregated /apis (aggregated_v2.json's shape)."""
    return [{"metadata": {"name": group, "creationTimestamp": None},
             "versions": [{"version": version, "freshness": "Current",
                           "resources": [r.aggregated_entry() for r in resources]}]}
            for group, version, resources in _groups(served)]


def discovery_reply(server_version, method, path, headers, host, served=None):
    """GET /version, /api, /apis, /api/v1 (and the served groups' /apis/GROUP[/VERSION]) as
    kube-apiserver answers them; None for other paths. served: the Resources served (pods
    only when not given)."""
    served = (POD,) if served is None else tuple(served)
    if path not in discovery_paths(served):
        return None
    if method not in ("GET", "HEAD"):
        return status_reply(405, "the server does not allow this method on the requested "
                                 "resource")
    major, minor, git = server_version
    if path == "/version":  # k8s.io/apimachinery/pkg/version.Info
        return Reply.of(200, {"major": str(major), "minor": str(minor), "gitVersion": git,
                              "gitCommit": "0" * 40, "gitTreeState": "clean",
                              "buildDate": "2026-01-01T00:00:00Z", "goVersion": "go1.23.6",
                              "compiler": "gc", "platform": "linux/amd64"})
    pods = [_pod_resource_legacy()] if POD in served else []
    if path == "/api/v1":
        return Reply.of(200, {"kind": "APIResourceList", "groupVersion": "v1",
                              "resources": pods})
    if path not in DISCOVERY_PATHS:
        return group_discovery_reply(served, path)
    version = negotiate_discovery(headers.get("Accept"), minor)
    if version:
        core = {"metadata": {"creationTimestamp": None},  # the legacy group: no name
                "versions": [{"version": "v1", "freshness": "Current",
                              "resources": [_pod_resource_aggregated()] if pods else []}]}
        items = _aggregated_groups(served) if path == "/apis" else [core]
        doc = {"kind": AGGREGATED, "apiVersion": "apidiscovery.k8s.io/" + version,
               "metadata": {}, "items": items}
        media = "application/json;g=apidiscovery.k8s.io;v=%s;as=%s" % (version, AGGREGATED)
        return Reply(200, dumps(doc).encode(), {"Vary": "Accept"}, media)
    if path == "/api":
        return Reply.of(200, {"kind": "APIVersions", "versions": ["v1"],
                              "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0",
                                                              "serverAddress": host}]},
                        {"Vary": "Accept"})
    return Reply.of(200, {"kind": "APIGroupList", "apiVersion": "v1",
                          "groups": [_legacy_group(g, v) for g, v, _ in _groups(served)]},
                    {"Vary": "Accept"})


# ---------------------------------------------------------------- routes, auth, faults

def _split_route_key(key):
    method, sep, rest = key.partition(" ")
    return (method.upper(), rest) if sep and rest.startswith("/") else (None, key)


class Routes:
    """Static routes: exact "METHOD /p?q", "/p?q", "METHOD /p", "/p", then the longest prefix."""

    def __init__(self, table):
        if not isinstance(table, dict):
            raise ValueError("routes: want a JSON object")
        self.exact, self.prefixes = {}, []
        for key, value in table.items():
            method, target = _split_route_key(key)
            if target.endswith("*"):
                self.prefixes.append((len(target), method, target[:-1], value))
            else:
                self.exact[(method, target)] = value
        self.prefixes.sort(key=lambda p: -p[0])

    def lookup(self, method, path, raw_query):
        full = path + "?" + raw_query if raw_query else path
        for key in ((method, full), (None, full), (method, path), (None, path)):
            if key in self.exact:
                return route_reply(self.exact[key])
        for _, m, prefix, value in self.prefixes:
            if m in (None, method) and full.startswith(prefix):
                return route_reply(value)
        return None


def route_reply(value):
    keys = set(value) if isinstance(value, dict) else set()
    if keys and keys <= {"status", "body", "headers"} and isinstance(value.get("status"), int):
        return Reply.of(value["status"], value.get("body", ""), value.get("headers"))
    return Reply.of(200, value)


RESOURCE_PATH = re.compile(
    r"/(?:api/[^/]+|apis/([^/]+)/[^/]+)(?:/namespaces/([^/]+))?/([^/]+)(?:/([^/]+))?")


VERB_WORDS = ("get", "list", "watch", "create", "update", "patch", "delete", "deletecollection")


def request_verb(method, name, query=None):
    """The authorizer's verb for a request (k8s.io/apiserver RequestInfoFactory): a GET of a
    collection is list, or watch with ?watch=true or 1 (only when query is given)."""
    verb = {"GET": "get", "POST": "create", "PUT": "update", "PATCH": "patch",
            "DELETE": "delete"}.get(method, method.lower())
    if name is None:
        verb = {"get": "list", "delete": "deletecollection"}.get(verb, verb)
        if verb == "list" and query and _param(query, "watch") in ("true", "1"):
            verb = "watch"
    return verb


def forbidden_reply(method, path, query=None):
    """403 worded like the RBAC authorizer's (responsewriters.Forbidden: apierrors.NewForbidden
    names the resource with its group, "jobs.batch", as details name the group)."""
    m = RESOURCE_PATH.fullmatch(path)
    verb = request_verb(method, "", query)
    if not m:
        return status_reply(403, 'forbidden: User "%s" cannot %s path "%s"' % (USER, verb, path))
    group, namespace, resource, name = m.groups()
    verb = request_verb(method, name, query)
    scope = ('in the namespace "%s"' % namespace) if namespace else "at the cluster scope"
    qualified = resource + "." + group if group else resource
    what = '%s "%s"' % (qualified, name) if name else qualified
    message = '%s is forbidden: User "%s" cannot %s resource "%s" in API group "%s" %s' % (
        what, USER, verb, resource, group or "", scope)
    details = {"name": name} if name else {}
    if group:
        details["group"] = group
    details["kind"] = resource
    return status_reply(403, message, details=details)


def parse_forbid(texts):
    """--forbid RESOURCE:VERB values -> [(resource, verb)]; raises ValueError."""
    rules = []
    for text in texts or ():
        resource, sep, verb = text.partition(":")
        if not (sep and resource and (verb in VERB_WORDS or verb == "*")):
            raise ValueError("--forbid wants RESOURCE:VERB (VERB one of %s or *), got %r" % (
                ", ".join(VERB_WORDS), text))
        rules.append((resource, verb))
    return rules


def rbac_reply(rules, method, path, query):
    """403 for a request that a --forbid rule denies (RESOURCE is "jobs" or "jobs.batch"), else
    None. Only resource requests (paths RESOURCE_PATH matches) are denied."""
    m = RESOURCE_PATH.fullmatch(path) if rules else None
    if not m:
        return None
    group, _, resource, name = m.groups()
    verb = request_verb(method, name, query)
    names = (resource, resource + "." + group) if group else (resource,)
    for res, want in rules:
        if res in names and want in (verb, "*"):
            return forbidden_reply(method, path, query)
    return None


def _basic_credentials(value):
    """"USER:PASS" from a Basic credential (base64), else None."""
    try:
        return base64.b64decode(value.strip(), validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return None


def auth_reply(opts, headers, method, path, discovery=False, client_subject=None):
    """401/403 for a bad or forbidden credential, else None. A request authenticates with a
    --bearer token (or the --forbid-token), a --basic user and password, or a verified client
    certificate (client_subject, with --client-ca); when none of those options is given,
    every request does. Discovery is never 403 for a token that authenticates: RBAC's
    system:discovery and system:public-info-viewer roles let every authenticated user read
    it."""
    scheme, _, credential = (headers.get("Authorization") or "").strip().partition(" ")
    token = credential.strip() if scheme.lower() == "bearer" else None
    bearers = getattr(opts, "bearers", None) or ([opts.bearer] if opts.bearer else [])
    basics = getattr(opts, "basic", None) or []
    client_ca = getattr(opts, "client_ca", None)
    if opts.forbid_token and token == opts.forbid_token and not discovery:
        return forbidden_reply(method, path)
    if not (bearers or basics or client_ca):
        return None
    if token and token in bearers + [opts.forbid_token]:
        return None
    if scheme.lower() == "basic" and basics and _basic_credentials(credential) in basics:
        return None
    if client_ca and client_subject is not None:
        return None
    return status_reply(401)


def header_reply(required, headers):
    for name, value in required:
        if headers.get(name) != value:
            return status_reply(400, 'missing or wrong header "%s" (want "%s")' % (name, value))
    return None


ACTIONS = ("status", "truncate", "lie_length", "oversize", "drip", "drop", "hang",
           "continue_forever", "delay")
FAULT_KEYS = set(ACTIONS) | {"path", "query", "method", "times", "body", "raw", "headers", "chunked"}


class Faults:
    def __init__(self, specs):
        self.specs, self.left = [], []
        if not isinstance(specs, list) or not all(isinstance(s, dict) for s in specs):
            raise ValueError("faults: want a JSON list of objects")
        for spec in specs:
            unknown = set(spec) - FAULT_KEYS
            if unknown or "path" not in spec or not set(spec) & set(ACTIONS):
                raise ValueError("bad fault %s (unknown keys %s)" % (dumps(spec), sorted(unknown)))
            self.specs.append(spec)
            self.left.append(spec.get("times"))
        self.lock = threading.Lock()

    def take(self, method, path, raw_query):
        """The first matching fault with uses left (one use is consumed), or None."""
        with self.lock:
            for i, spec in enumerate(self.specs):
                if self.left[i] == 0 or not path.startswith(spec["path"]):
                    continue
                if spec.get("method") and spec["method"].upper() != method:
                    continue
                want = spec.get("query")
                if want and want not in raw_query and want not in unquote_plus(raw_query):
                    continue
                if self.left[i] is not None:
                    self.left[i] -= 1
                return spec
        return None


def fault_name(fault):
    return next((a for a in ACTIONS if a in fault and a != "delay"), "delay")


# ---------------------------------------------------------------- request log

def tls_facts(srv, conn):
    """The log's TLS fields of a connection: {"sni": ...} over HTTPS, and "client_subject"
    too with --client-ca; {} over plain HTTP."""
    if not getattr(srv, "tls", None):
        return {}
    facts = {"sni": getattr(conn, "sni", None)}
    if getattr(srv.opts, "client_ca", None):
        facts["client_subject"] = getattr(conn, "client_subject", None)
    return facts


# the attribute names of getpeercert()'s subject, as RFC 4514 abbreviates them
RDN_NAMES = {"commonName": "CN", "organizationName": "O", "organizationalUnitName": "OU",
             "countryName": "C", "stateOrProvinceName": "ST", "localityName": "L",
             "domainComponent": "DC", "userId": "UID"}


def subject_text(cert):
    """getpeercert()'s subject -> "CN=jane,O=ml-team" (the certificate's order); None when
    there is no verified certificate."""
    if not cert or not cert.get("subject"):
        return None
    return ",".join("%s=%s" % (RDN_NAMES.get(name, name), value)
                    for rdn in cert["subject"] for name, value in rdn)


class RequestLog:
    def __init__(self, path, secrets):
        self.file = open(path, "a", buffering=1) if path else None
        self.secrets = secrets
        self.lock = threading.Lock()

    def _headers(self, headers):
        out = {}
        for name, value in headers.items():
            name = name.lower()
            if name == "authorization" and not self.secrets:
                value = value.strip().partition(" ")[0] + " <redacted>"
            if name in out:  # sent more than once (Impersonate-Group): every value, in order
                value = (out[name] if isinstance(out[name], list) else [out[name]]) + [value]
            out[name] = value
        return out

    def write(self, handler, status, fault=None):
        if not self.file:
            return
        rec = {"time": round(handler.started, 6), "method": handler.command,
               "path": handler.url.path,
               "query": parse_qs(handler.url.query, keep_blank_values=True),
               "headers": self._headers(handler.headers), "status": status}
        if fault:
            rec["fault"] = fault_name(fault)
        if handler.request_body:
            rec["body"] = handler.request_body[:4096].decode("utf-8", "replace")
        rec.update(tls_facts(handler.server, handler.connection))
        if getattr(handler.server.opts, "log_bytes", False):
            rec["bytes"] = getattr(handler, "sent_bytes", None)
        self.append(rec)

    def append(self, rec):
        """One JSON line, written whole, unless the log is closed (the server is stopping)."""
        with self.lock:
            if self.file:
                self.file.write(json.dumps(rec) + "\n")

    def write_part(self, handler, method, url, headers, status, body=b""):
        """One request inside a batch request (tests/gcp/fake_gcp.py): a line like a
        request's, with "batch_part": true, the part's own headers, and the batch request's
        time; written before the batch request's own line."""
        if not self.file:
            return
        rec = {"time": round(handler.started, 6), "method": method, "path": url.path,
               "query": parse_qs(url.query, keep_blank_values=True),
               "headers": self._headers(headers), "status": status, "batch_part": True}
        if body:
            rec["body"] = body[:4096].decode("utf-8", "replace")
        self.append(rec)

    def close(self):
        with self.lock:
            if self.file:
                self.file.close()
                self.file = None


# ---------------------------------------------------------------- HTTP

# client disconnects, resets, timeouts and failed TLS handshakes (ssl.SSLError is an OSError)
QUIET_ERRORS = (OSError, EOFError)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # TCP_NODELAY, as Go (kube-apiserver) sets on every connection
    timeout = IDLE_SECONDS

    def log_message(self, fmt, *args):  # the JSON log replaces the stderr log
        pass

    def send_response(self, code, message=None):
        """Status line and Date, but no Server header (kube-apiserver sends none)."""
        self.send_response_only(code, message)
        self.send_header("Date", self.date_time_string())

    def handle_one_request(self):
        try:
            super().handle_one_request()
        except QUIET_ERRORS:  # the client went away; nothing to report
            self.close_connection = True

    def _dispatch(self):
        self.started = time.time()
        self.url = urlsplit(self.path)
        self.request_body = self._read_body()
        srv = self.server
        fault = srv.faults.take(self.command, self.url.path, self.url.query)
        if fault and fault.get("delay"):
            time.sleep(float(fault["delay"]))
        if fault and self._special_fault(fault):
            return
        if fault and "status" in fault:
            reply = self._fault_reply(fault)
        else:
            reply = self._normal_reply(bool(fault and fault.get("continue_forever")))
        body, headers = self._encode(reply)
        self.sent_bytes = self._body_bytes(body, fault or {})
        srv.log.write(self, reply.status, fault)
        self._send_encoded(reply.status, body, headers, fault or {})

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _dispatch

    def _read_body(self):
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = 0
            self.close_connection = True
        return self.rfile.read(length) if length > 0 else b""

    def _fault_reply(self, fault):
        """The reply of a "status" fault (a subclass may shape the default body)."""
        return fault_reply(fault)

    def _normal_reply(self, forever):
        try:
            reply = self._route(forever)
        except ReplyError as e:
            reply = e.reply
        reply.headers.setdefault("Audit-Id", str(uuid.uuid4()))
        reply.headers.setdefault("Cache-Control", "no-cache, private")
        return reply

    def _route(self, forever):
        """auth, required headers, static routes, discovery and the pod, Job and JobSet APIs,
        else 404."""
        srv, method, path = self.server, self.command, self.url.path
        stores = [st for st in (srv.pods, getattr(srv, "jobs", None),
                                getattr(srv, "jobsets", None)) if st is not None]
        served = [st.resource for st in stores]
        discovery = bool(served) and path in discovery_paths(served)
        query = parse_qs(self.url.query, keep_blank_values=True)
        reply = auth_reply(srv.opts, self.headers, method, path, discovery,
                           getattr(self.connection, "client_subject", None))
        if reply is None and not discovery:
            reply = rbac_reply(getattr(srv, "forbid", None), method, path, query)
        reply = reply or header_reply(srv.required, self.headers)
        if reply is None and srv.routes:
            reply = srv.routes.lookup(method, path, self.url.query)
        if reply is None and discovery:
            reply = discovery_reply(srv.server_version, method, path, self.headers,
                                    "%s:%d" % self.server.server_address[:2], served)
        for store in stores:
            if reply is None:
                reply = pods_reply(store, method, path, query, forever)
        return reply or status_reply(404, details={"causes": [
            {"reason": "UnexpectedServerResponse", "message": "404 page not found"}]})

    # -- faults that replace the response entirely

    def _special_fault(self, fault):
        self.sent_bytes = int(fault["oversize"]) if "oversize" in fault else 0
        if fault.get("drop"):
            self.server.log.write(self, None, fault)
            self._drop(fault["drop"] == "reset")
        elif fault.get("hang"):
            self.server.log.write(self, None, fault)
            self._hang()
        elif "oversize" in fault:
            self.server.log.write(self, 200, fault)
            self._oversize(int(fault["oversize"]), bool(fault.get("chunked")))
        else:
            return False
        self.close_connection = True
        return True

    def _drop(self, reset):
        if reset:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                       struct.pack("ii", 1, 0))  # close sends RST
        self.connection.close()

    def _hang(self):
        """Answer nothing until the client hangs up or the server stops."""
        sock = self.connection
        sock.settimeout(0.2)
        while not self.server.stopping.is_set():
            readable, _, _ = select.select([sock], [], [], 0.2)
            if not readable:
                continue
            try:
                if not sock.recv(4096):
                    return
            except (socket.timeout, ssl.SSLWantReadError):
                continue
            except QUIET_ERRORS:
                return

    def _oversize(self, size, chunked):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(size))
        self.end_headers()
        for piece in oversize_body(size):
            self._write(piece, chunked)
        if chunked:
            self.wfile.write(b"0\r\n\r\n")

    # -- sending a reply, honestly or not

    def _send(self, reply, fault):
        body, headers = self._encode(reply)
        self._send_encoded(reply.status, body, headers, fault)

    def _encode(self, reply):
        """(body, headers) as they go out: gzipped with --gzip when the body is over
        GZIP_ABOVE and the client accepts gzip."""
        body, headers = reply.body, dict(reply.headers)
        if self.server.opts.gzip and len(body) > GZIP_ABOVE and \
                "gzip" in (self.headers.get("Accept-Encoding") or ""):
            body = gzip.compress(body, 1)
            headers["Content-Encoding"] = "gzip"
        return body, headers

    def _body_bytes(self, body, fault):
        """How many bytes of the (encoded) body the reply sends: none to HEAD, n of a truncate
        fault's body, else all of it (chunk framing not counted)."""
        if self.command == "HEAD":
            return 0
        if "truncate" in fault:
            return len(body[:int(fault["truncate"])])
        return len(body)

    def _send_encoded(self, status, body, headers, fault):
        chunked = False
        length = len(body)
        if "truncate" in fault:
            body = body[:int(fault["truncate"])]
        elif "lie_length" in fault:
            length += int(fault["lie_length"])
        elif self.server.opts.chunked and len(body) > CHUNKED_ABOVE and "drip" not in fault:
            chunked = True
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Transfer-Encoding" if chunked else "Content-Length",
                         "chunked" if chunked else str(length))
        self.end_headers()
        if self.command == "HEAD":
            return
        if "drip" in fault:
            self._drip(body, float(fault["drip"]))
        else:
            self._write(body, chunked)
        if chunked:
            self.wfile.write(b"0\r\n\r\n")
        if "truncate" in fault or "lie_length" in fault:
            self.wfile.flush()
            self.close_connection = True

    def _write(self, data, chunked, piece=64 * 1024):
        for at in range(0, len(data), piece):
            part = data[at:at + piece]
            if chunked:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
            else:
                self.wfile.write(part)

    def _drip(self, body, rate):
        step = max(1, int(rate / 20))
        for at in range(0, len(body), step):
            self.wfile.write(body[at:at + step])
            self.wfile.flush()
            time.sleep(step / rate)


def fault_reply(fault):
    code = int(fault["status"])
    if "raw" in fault:
        return Reply(code, fault["raw"].encode("latin-1"), fault.get("headers"))
    if "body" in fault:
        return Reply.of(code, fault["body"], fault.get("headers"))
    return status_reply(code, headers=fault.get("headers"))


def oversize_body(size, piece=64 * 1024):
    """Yields exactly `size` bytes of a valid PodList whose items are small filler pods."""
    head = b'{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":['
    tail = b"]}"
    if size < len(head) + len(tail):
        yield (b"{" + b" " * (size - 2) + b"}") if size >= 2 else b" " * size
        return
    item = b'{"metadata":{"name":"filler-%09d","namespace":"default"}}'
    item_len = len(item % 0) + 1  # with the comma
    room = size - len(head) - len(tail)
    count = (room + 1) // item_len
    yield head
    per_piece = max(1, piece // item_len)
    for start in range(0, count, per_piece):
        stop = min(count, start + per_piece)
        yield b",".join(item % n for n in range(start, stop)) + (b"," if stop < count else b"")
    yield b" " * (room - (count * item_len - 1 if count else 0)) + tail


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def server_bind(self):  # HTTPServer's version does a reverse DNS lookup; not needed
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = self.server_address[:2]

    def finish_request(self, request, client_address):
        """Runs in the handler thread, so a TLS handshake never blocks accept()."""
        if not self.tls:
            return super().finish_request(request, client_address)
        request.settimeout(HANDSHAKE_SECONDS)
        with self.tls.wrap_socket(request, server_side=True) as conn:
            conn.settimeout(None)
            conn.client_subject = subject_text(conn.getpeercert()) \
                if getattr(self.opts, "client_ca", None) else None
            self.RequestHandlerClass(conn, client_address, self)

    def handle_error(self, request, client_address):
        if isinstance(sys.exc_info()[1], QUIET_ERRORS) or self.stopping.is_set():
            return  # a client went away, or a request was cut short by the shutdown
        super().handle_error(request, client_address)


# ---------------------------------------------------------------- main

def parse_args(argv, extend=None, description=None):
    """Options; `extend(parser)` adds a subclass server's own options."""
    ap = argparse.ArgumentParser(description=description or __doc__.split("\n")[0])
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--cert")
    ap.add_argument("--key")
    ap.add_argument("--bearer", dest="bearers", action="append", default=[])
    ap.add_argument("--basic", action="append", default=[])
    ap.add_argument("--client-ca")
    ap.add_argument("--forbid-token")
    ap.add_argument("--forbid", action="append", default=[], metavar="RESOURCE:VERB")
    ap.add_argument("--require-header", action="append", default=[])
    ap.add_argument("--routes")
    ap.add_argument("--pods")
    ap.add_argument("--pods-resource-version-expire", type=int)
    ap.add_argument("--jobs")
    ap.add_argument("--jobsets")
    ap.add_argument("--faults")
    ap.add_argument("--log")
    ap.add_argument("--log-secrets", action="store_true")
    ap.add_argument("--log-bytes", action="store_true")
    ap.add_argument("--chunked", action="store_true")
    ap.add_argument("--gzip", action="store_true")
    ap.add_argument("--max-seconds", type=float, default=600)
    ap.add_argument("--server-version", default="v1.32.4")
    if extend:
        extend(ap)
    opts = ap.parse_args(argv)
    opts.bearer = opts.bearers[0] if opts.bearers else None  # what one-token servers read
    if bool(opts.cert) != bool(opts.key):
        ap.error("--cert and --key go together")
    if opts.client_ca and not opts.cert:
        ap.error("--client-ca needs --cert and --key")
    for b in opts.basic:
        if ":" not in b:
            ap.error("--basic wants USER:PASS, got %r" % b)
    try:
        parse_server_version(opts.server_version)
    except ValueError as e:
        ap.error(str(e))
    for h in opts.require_header:
        if ":" not in h:
            ap.error("--require-header wants 'Name: value', got %r" % h)
    try:
        parse_forbid(opts.forbid)
    except ValueError as e:
        ap.error(str(e))
    return opts


def load_json(path, default):
    if not path:
        return default
    with open(path) as f:
        try:
            return json.load(f)
        except ValueError as e:
            raise ValueError("%s: %s" % (path, e))


def build_server(opts, handler=None):
    srv = Server(("127.0.0.1", 0), handler or Handler)
    srv.opts = opts
    srv.stopping = threading.Event()
    srv.required = [tuple(s.strip() for s in h.split(":", 1)) for h in opts.require_header]
    srv.server_version = parse_server_version(opts.server_version)
    srv.routes = Routes(load_json(opts.routes, {})) if opts.routes else None
    srv.pods = None
    if opts.pods:
        items, list_rv = _load_pods(opts.pods)
        srv.pods = PodStore(items, list_rv, opts.pods_resource_version_expire)
    srv.jobs = srv.jobsets = None
    if getattr(opts, "jobs", None):
        srv.jobs = PodStore(*_load_objects(opts.jobs, JOB), resource=JOB)
    if getattr(opts, "jobsets", None):
        srv.jobsets = PodStore(*_load_objects(opts.jobsets, JOBSET), resource=JOBSET)
    srv.forbid = parse_forbid(getattr(opts, "forbid", None))
    srv.faults = Faults(load_json(opts.faults, []))
    srv.log = RequestLog(opts.log, opts.log_secrets)
    srv.tls = None
    if opts.cert:
        srv.tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        srv.tls.load_cert_chain(opts.cert, opts.key)
        srv.tls.sni_callback = _remember_sni
        if getattr(opts, "client_ca", None):
            srv.tls.verify_mode = ssl.CERT_OPTIONAL
            srv.tls.load_verify_locations(opts.client_ca)
    return srv


def _remember_sni(conn, server_name, context):
    """SSLContext.sni_callback: keeps the name the client asked for on its connection (an
    SSLSocket here), where the request log reads it; None when the client sent no SNI."""
    conn.sni = server_name
    return None


def write_port(path, port):
    tmp = "%s.%d.tmp" % (path, os.getpid())
    with open(tmp, "w") as f:
        f.write("%d\n" % port)
    os.replace(tmp, path)




def main(argv=None):
    opts = parse_args(argv)
    try:
        srv = build_server(opts)
    except (OSError, ValueError, KeyError) as e:
        print("fake_api: %s" % e, file=sys.stderr)
        return 2
    return serve(srv, opts)


def serve(srv, opts):
    """Writes the port file, serves until SIGTERM/SIGINT or --max-seconds; returns 0."""
    def stop(signum, frame):
        # shutdown() from another thread: serve_forever() then returns by itself. (Raising
        # SystemExit here instead could land in a garbage-collection callback, where Python
        # ignores it, and the server would live on until killed.)
        threading.Thread(target=srv.shutdown, daemon=True).start()
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    timer = threading.Timer(opts.max_seconds, srv.shutdown)
    timer.daemon = True
    timer.start()
    write_port(opts.port_file, srv.server_address[1])
    try:
        srv.serve_forever(poll_interval=0.1)
    finally:
        srv.stopping.set()
        srv.server_close()
        srv.log.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

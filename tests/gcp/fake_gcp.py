#!/usr/bin/env python3
"""Fake Google Cloud endpoints for the GCE and Cloud TPU tests: a GCE metadata server, the
Compute Engine API (instance groups and instances, paged like the real one), the Cloud TPU
API (v1 and v2 nodes), and Google's OAuth 2.0 token endpoint with IAM Credentials'
generateAccessToken (Application Default Credentials). Built on tests/fake_api.py: every option of that server (port file,
--bearer, --forbid-token, --require-header, --routes, --faults, --log, TLS, ...) works here
too, with Google's error JSON instead of Kubernetes' Status on the Google routes. Standard
library only (python3-cryptography too with --oauth service accounts, whose JWT signatures
the fake verifies: run it with /usr/bin/python3 then); binds 127.0.0.1 only, port 0.

usage: fake_gcp.py --port-file F [fake_api.py options] [--metadata META.json]
                   [--compute COMPUTE.json] [--tpu-nodes NODES.json] [--page-cap N]
                   [--ignore-fields] [--oauth OAUTH.json]
  --metadata META.json   {"<path>": TEXT | JSON, ...}, paths relative to /computeMetadata/v1/
                         ("project/project-id", "instance/zone", "instance/name",
                         "instance/service-accounts/default/token", "instance/attributes/X").
                         GET /computeMetadata/v1/<path> needs "Metadata-Flavor: Google" (400
                         otherwise; the real server says 403) and no X-Forwarded-For (403). TEXT
                         is sent as is (no newline added), JSON as JSON; ?alt=json wraps TEXT as a
                         JSON string. A directory without its "/" is a 301 to it; with it, the
                         child names one a line (sub-directories end in "/"), or with
                         ?recursive=true a JSON tree. Unknown paths: 404 (an HTML page, as the
                         real server). The answers carry "Metadata-Flavor: Google".
  --compute COMPUTE.json {"project": P, "instances": [Instance...], "instanceGroups":
                         [InstanceGroup + "instances": [member...]]}. An instance's project, zone
                         and name come from its selfLink (else "project", the "zone" URL and
                         "name"); a member is an instance URL, ".../zones/Z/instances/N" or a
                         bare name in the group's zone (or, regional, in one of the region's
                         zones). tests/gcp/make_gcp.py writes these. Served under /compute/v1/:
      POST projects/P/zones/Z/instanceGroups/G/listInstances      body {"instanceState":
      POST projects/P/regions/R/instanceGroups/G/listInstances          "ALL" | "RUNNING"}
           items [{"instance": selfLink, "status", "namedPorts"?}], absent when empty
      GET  projects/P/zones/Z/instanceGroups/G, projects/P/regions/R/instanceGroups/G
      GET  projects/P/zones/Z/instances              an InstanceList of full Instances
      GET  projects/P/zones/Z/instances/NAME         one Instance
      GET  projects/P/aggregated/instances           {"items": {"zones/Z": {"instances":
           [...]} or {"warning": NO_RESULTS_ON_PAGE}}} over every zone, paged as one list
      POST /batch/compute/v1 (not under /compute/)  a multipart/mixed batch of the requests
           above (gcloud lists several zones so), answered part by part
      Lists take maxResults (0-500, default 500), pageToken (opaque; base64 with "+", "/" and
      "=", so a client must URL-encode it; a token from another list is a 400), orderBy (name
      or "creationTimestamp desc"), filter (`status = "RUNNING"`, `name != x`, `name eq re`,
      `(a) (b)`, `(a) AND (b)`, `(a) OR (b)`; others are a 400); every GET and list takes
      fields (partial response: `items(name,networkInterfaces(networkIP)),nextPageToken`).
      Items are in name order (the API's default). An unknown project or group is a 404
      "The resource '...' was not found"; an unknown path a 404 HTML page.
  --tpu-nodes NODES.json {"projects/P/locations/Z/nodes/N": Node, ...} or a list of Nodes
                         (full "name"). GET /{v1,v2,v1alpha1,v2alpha1}/projects/P/locations/Z/
                         nodes/N answers the Node in that version's shape (v1: serviceAccount
                         an email string, tensorflowVersion, network, endpoints without
                         accessConfig; v2: serviceAccount {email, scope}, runtimeVersion,
                         networkConfig; fields of the other version left out), .../nodes the
                         list {"nodes": [...], "nextPageToken"} (pageSize, pageToken); unknown:
                         404 NOT_FOUND with a ResourceInfo.
  --page-cap N           at most N items a list page whatever maxResults or pageSize says (the
                         API may answer fewer than asked), so small fixtures page
  --ignore-fields        answer full resources whatever fields asks (a client must cope)
  --oauth OAUTH.json     the accounts of the token endpoint and of IAM Credentials:
      {"refresh_tokens": {REFRESH_TOKEN: {"client_id": C, "client_secret": S,
                                          "access_token": T | [T1, T2, ...], "scope"?: S}},
       "service_accounts": {EMAIL: {"public_key": PEM | "public_key_file": PATH,
                                    "private_key_id": KID, "access_token": T | [T1, ...]}},
       "impersonation": {TARGET_EMAIL: {"sources": [ACCESS_TOKEN...], "access_token": T | [..],
                                        "delegates"?: [...]}},
       "revoked": [ACCESS_TOKEN...]}
      Each grant of a credential answers the next token of its list (the last one again
      once the list is used up). A token the fake issued authenticates on the Compute and TPU
      routes (besides --bearer) unless "revoked" lists it: then 401 as for a wrong token (so
      access_token [T1, T2] with revoked [T1] is a token that expires under the client: its
      first request is a 401, the next grant gives T2).
      POST /token (the files' token_uri: http://127.0.0.1:PORT/token), Content-Type
           application/x-www-form-urlencoded (else 400 invalid_request), each parameter once:
        grant_type=refresh_token&client_id&client_secret&refresh_token: an unknown client_id
           is 401 invalid_client "The OAuth client was not found.", a wrong client_secret 401
           invalid_client "Unauthorized", an unknown refresh token (or another client's) 400
           invalid_grant "Token has been expired or revoked."
        grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=JWT: checked in this
           order, each failure a 400 {"error", "error_description"}: header alg RS256 and typ
           JWT; iss a registered service account ("Invalid grant: account not found"); kid its
           private_key_id and the RS256 signature verifying with its public key ("Invalid JWT
           Signature."); aud this endpoint's URL exactly or https://oauth2.googleapis.com/token
           (which Google takes too, and today's google-auth and gcloud send whatever the
           token_uri); iat within 300 s of now and exp == iat + 3600, as google-auth makes them
           (Google takes a shorter life too; "Invalid JWT: Token must be a short-lived token
           (60 minutes) and in a reasonable timeframe. ..."); scope, space-separated, holding
           https://www.googleapis.com/auth/cloud-platform (else invalid_scope). A JWT asking for
           an ID token (target_audience, no scope; gcloud's activate-service-account sends one
           and gets on without it) is a 400 invalid_request: the fake issues access tokens only.
        A grant answers {"access_token", "expires_in": 3599, "scope", "token_type": "Bearer"}.
      POST /v1/projects/-/serviceAccounts/EMAIL:generateAccessToken (the files'
           service_account_impersonation_url, path of iamcredentials.googleapis.com):
           "Authorization: Bearer T" with T a token this fake issued (else 401
           UNAUTHENTICATED), listed in the target's sources (else, or for an unknown target,
           403 PERMISSION_DENIED "Permission 'iam.serviceAccounts.getAccessToken' denied on
           resource (or it may not exist)."); a JSON body {"delegates": [...] (absent: [];
           must equal the target's "delegates", default [], else 403), "scope": [... with
           cloud-platform], "lifetime": "3600s"} (else 400 INVALID_ARGUMENT) -> {"accessToken",
           "expireTime": now + 1 h, RFC 3339 in UTC ("...Z")}.
      The log line of a token request adds "oauth": {grant_type, client_id (refresh grant),
      jwt_header and jwt_claims (decoded; not the signature), verified (the signature checked
      against the account's key), error (the error code, when refused), issued (the access
      token)}; of a generateAccessToken request "iam": {target, source (the account the
      bearer token was issued to), body (the parsed JSON), issued}. Without --log-secrets a
      token request's client_secret, refresh_token and assertion and the tokens issued are
      logged as "<redacted>". Every request's headers are logged (x-goog-user-project too).
Auth (--bearer, --forbid-token) applies to the Compute and TPU routes, not to the metadata
server: 401 UNAUTHENTICATED (WWW-Authenticate: Bearer ...), 403 PERMISSION_DENIED naming the
permission ("Required 'compute.instanceGroups.list' permission for 'projects/p/zones/z/
instanceGroups/g'", "Permission 'tpu.nodes.get' denied on resource '//tpu.googleapis.com/...'
(or it may not exist)."). A "status" fault without a body answers Google's error JSON there.
The fault {"continue_forever": true} makes Compute lists always carry a nextPageToken to the
same page. Request log, faults and shutdown: as tests/fake_api.py. Sockets get TCP_NODELAY.

As a module: `from fake_gcp import ComputeStore, TpuStore, MetadataStore, parse_fields,
select_fields, parse_filter` (used by the tests of this fake).
"""
import base64
import binascii
import email
import json
import os
import re
import sys
import threading
import time
import zlib
from http import HTTPStatus
from urllib.parse import parse_qs, unquote, urlsplit

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import fake_api as base  # noqa: E402

COMPUTE_ROOT = "https://www.googleapis.com/compute/v1/"
METADATA_PREFIX = "/computeMetadata/v1"
MAX_RESULTS = 500
TOKEN_MAGIC = b"\xfb\xff"   # base64 "+/...": a token a client must percent-encode
GOOGLE_JSON = "application/json; charset=UTF-8"
STATUS_NAMES = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
                404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED", 409: "ABORTED",
                429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 502: "UNAVAILABLE",
                503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED"}
COMPUTE_REASONS = {400: "invalid", 401: "authError", 403: "forbidden", 404: "notFound",
                   405: "httpMethodNotAllowed", 409: "conflict", 429: "rateLimitExceeded",
                   500: "backendError", 502: "badGateway", 503: "backendError",
                   504: "backendError"}
DEFAULT_MESSAGES = {400: "Bad Request", 401: "Request had invalid authentication credentials.",
                    404: "Not Found", 429: "Quota exceeded, please try again later.",
                    500: "Internal error encountered.", 502: "Bad Gateway",
                    503: "The service is currently unavailable.",
                    504: "The request timed out. Please try again."}
AUTH_HELP = ("Expected OAuth 2 access token, login cookie or other valid authentication "
             "credential. See https://developers.google.com/identity/sign-in/web/"
             "devconsole-project.")
HTML_404 = ("<!DOCTYPE html>\n<html lang=en>\n  <meta charset=utf-8>\n  <title>Error 404 (Not "
            "Found)!!1</title>\n  <p><b>404.</b> <ins>That\u2019s an error.</ins>\n  <p>The "
            "requested URL <code>%s</code> was not found on this server.  <ins>That\u2019s all "
            "we know.</ins>\n")


# ---------------------------------------------------------------- error bodies

def compute_error(code, message=None, reason=None, headers=None, extra=None):
    """Compute Engine's error body: {"error": {code, message, errors: [...], status}}."""
    message = message or DEFAULT_MESSAGES.get(code, "Error")
    item = {"message": message, "domain": "global",
            "reason": reason or COMPUTE_REASONS.get(code, "error")}
    item.update(extra or {})
    body = {"error": {"code": code, "message": message, "errors": [item],
                      "status": STATUS_NAMES.get(code, "UNKNOWN")}}
    return base.Reply(code, base.dumps(body).encode(), headers, GOOGLE_JSON)


def tpu_error(code, message=None, details=None, headers=None):
    """A one-platform API's error body (tpu.googleapis.com): code, message, status, details."""
    body = {"error": {"code": code, "message": message or DEFAULT_MESSAGES.get(code, "Error"),
                      "status": STATUS_NAMES.get(code, "UNKNOWN")}}
    if details:
        body["error"]["details"] = details
    return base.Reply(code, base.dumps(body).encode(), headers, GOOGLE_JSON)


def google_json(obj, status=200):
    return base.Reply(status, base.dumps(obj).encode(), None, GOOGLE_JSON)


def html_404(path):
    return base.Reply(404, (HTML_404 % path).encode(), None, "text/html; charset=UTF-8")


def bad_request(field, value, why):
    return base.ReplyError(compute_error(
        400, "Invalid value for field '%s': '%s'. %s" % (field, value, why)))


# ---------------------------------------------------------------- fields= (partial responses)

FIELD_NAME = re.compile(r"[A-Za-z_*][A-Za-z0-9_*@.-]*")


def _merge(tree, name, sub):
    if name in tree and tree[name] is None or sub is None:
        tree[name] = None
    else:
        tree.setdefault(name, {})
        for k, v in sub.items():
            _merge(tree[name], k, v)


def parse_fields(text):
    """"a,b/c,d(e,f(g))" -> {"a": None, "b": {"c": None}, "d": {"e": None, "f": {"g": None}}}
    (None = the whole value). Raises ValueError on a syntax error."""
    pos = 0

    def selection():
        nonlocal pos
        tree = {}
        while True:
            path = []
            while True:
                m = FIELD_NAME.match(text, pos)
                if not m:
                    raise ValueError("Invalid field selection %s" % text)
                path.append(m.group(0))
                pos = m.end()
                if pos < len(text) and text[pos] == "/":
                    pos += 1
                    continue
                break
            sub = None
            if pos < len(text) and text[pos] == "(":
                pos += 1
                sub = selection()
                if pos >= len(text) or text[pos] != ")":
                    raise ValueError("Invalid field selection %s" % text)
                pos += 1
            for name in reversed(path[1:]):
                sub = {name: sub}
            _merge(tree, path[0], sub)
            if pos < len(text) and text[pos] == ",":
                pos += 1
                continue
            return tree

    text = text.replace(" ", "")
    tree = selection()
    if pos != len(text):
        raise ValueError("Invalid field selection %s" % text)
    return tree


def select_fields(obj, tree):
    """The parts of obj the tree selects; lists are selected item by item."""
    if tree is None:
        return obj
    if isinstance(obj, list):
        return [select_fields(o, tree) for o in obj]
    if not isinstance(obj, dict):
        return obj
    out = {}
    for key, value in obj.items():
        if key in tree:
            out[key] = select_fields(value, tree[key])
        elif "*" in tree:
            out[key] = select_fields(value, tree["*"])
    return out


# ---------------------------------------------------------------- filter=

COMPARISON = re.compile(
    r"\s*([A-Za-z_][A-Za-z0-9_.]*)\s*(!=|=|:|<=|>=|<|>|\beq\b|\bne\b)\s*"
    r"(\"(?:[^\"\\]|\\.)*\"|'[^']*'|[^\s()]+)\s*$")


def _comparison(text):
    m = COMPARISON.match(text)
    if not m:
        raise ValueError(text)
    field, op, value = m.groups()
    if value[:1] in "\"'" and value[-1:] == value[:1] and len(value) >= 2:
        value = value[1:-1]
        if m.group(3)[0] == '"':
            value = re.sub(r"\\(.)", r"\1", value)
    if op in ("eq", "ne"):
        try:
            re.compile(value)
        except re.error:
            raise ValueError(text)
    return field, op, value


def _split_groups(text):
    """"(a) AND (b) (c)" -> ["a", "AND", "b", "c"]; a plain comparison -> [text]."""
    text = text.strip()
    if not text.startswith("("):
        return [text]
    out, pos = [], 0
    while pos < len(text):
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            break
        if text[pos] == "(":
            depth, start = 0, pos
            while pos < len(text):
                depth += {"(": 1, ")": -1}.get(text[pos], 0)
                pos += 1
                if depth == 0:
                    break
            if depth:
                raise ValueError(text)
            out.append(("group", text[start + 1:pos - 1]))
        else:
            m = re.match(r"(AND|OR)\b", text[pos:])
            if not m:
                raise ValueError(text)
            out.append(m.group(1))
            pos += m.end()
    return out


def parse_filter(text):
    """Compute's list filter -> a predicate on a resource dict. Raises ValueError."""
    if not text or not text.strip():
        return lambda obj: True
    parts = _split_groups(text)
    if len(parts) == 1 and isinstance(parts[0], str):
        field, op, value = _comparison(parts[0])
        return lambda obj: _matches(obj, field, op, value)
    # OR of ANDs; whitespace between groups is AND
    alternatives, current, expect_group = [], [], True
    for part in parts:
        if isinstance(part, tuple):
            current.append(parse_filter(part[1]))
            expect_group = False
        elif expect_group:
            raise ValueError(text)
        elif part == "OR":
            alternatives.append(current)
            current, expect_group = [], True
        else:
            expect_group = True
    if expect_group:
        raise ValueError(text)
    alternatives.append(current)
    return lambda obj: any(all(p(obj) for p in conj) for conj in alternatives)


def _values(obj, field):
    """Every value at a dotted path (lists fan out); scalars as the API prints them."""
    found = [obj]
    for part in field.split("."):
        nxt = []
        for o in found:
            if isinstance(o, list):
                o = [x.get(part) for x in o if isinstance(x, dict)]
                nxt.extend(v for v in o if v is not None)
            elif isinstance(o, dict) and part in o:
                nxt.append(o[part])
        found = [x for v in nxt for x in (v if isinstance(v, list) else [v])]
    return ["true" if v is True else "false" if v is False else str(v) for v in found
            if not isinstance(v, (dict, list))]


def _matches(obj, field, op, value):
    vals = _values(obj, field)
    if op in ("=", ":"):
        pattern = re.escape(value).replace(r"\*", ".*")
        return any(re.fullmatch(pattern, v) for v in vals) if op == "=" or "*" in value \
            else any(value in v for v in vals)
    if op == "!=":
        return not any(v == value for v in vals)
    if op == "eq":
        return any(re.fullmatch(value, v) for v in vals)
    if op == "ne":
        return not any(re.fullmatch(value, v) for v in vals)
    key = (lambda v: (0, float(v), "")) if re.fullmatch(r"-?\d+(\.\d+)?", value) else \
        (lambda v: (1, 0.0, v))
    try:
        return any({"<": key(v) < key(value), ">": key(v) > key(value),
                    "<=": key(v) <= key(value), ">=": key(v) >= key(value)}[op] for v in vals)
    except ValueError:
        return False


# ---------------------------------------------------------------- paging

def encode_page_token(list_key, offset):
    raw = TOKEN_MAGIC + base.dumps({"k": zlib.crc32(list_key.encode()), "o": offset}).encode()
    return base64.b64encode(raw).decode()


def decode_page_token(token, list_key):
    try:
        raw = base64.b64decode(token, validate=True)
        if not raw.startswith(TOKEN_MAGIC):
            raise ValueError("magic")
        data = json.loads(raw[len(TOKEN_MAGIC):])
        if data["k"] != zlib.crc32(list_key.encode()) or not isinstance(data["o"], int) \
                or data["o"] < 0:
            raise ValueError("another list")
        return data["o"]
    except (binascii.Error, ValueError, KeyError, TypeError):
        raise bad_request("pageToken", token, "Invalid page token.")


def _param(query, name, default=""):
    values = query.get(name)
    return values[-1] if values else default


def page_of(items, query, list_key, page_cap, forever):
    """(page items, nextPageToken or None) for maxResults/pageToken."""
    text = _param(query, "maxResults")
    try:
        size = int(text) if text else MAX_RESULTS
    except ValueError:
        raise bad_request("maxResults", text, "Must be an integer.")
    if size < 0:
        raise bad_request("maxResults", text, "Must be greater than or equal to 0.")
    if size > MAX_RESULTS:
        raise bad_request("maxResults", text, "Must be less than or equal to %d." % MAX_RESULTS)
    size = size or MAX_RESULTS
    if page_cap:
        size = min(size, page_cap)
    token = _param(query, "pageToken")
    start = decode_page_token(token, list_key) if token else 0
    page = items[start:start + size]
    if forever:
        return page, encode_page_token(list_key, start)
    more = start + size < len(items)
    return page, encode_page_token(list_key, start + size) if more else None


def ordered(items, query, name_of):
    order = _param(query, "orderBy")
    if order in ("", "name"):
        return sorted(items, key=name_of)
    if order == "creationTimestamp desc":
        return sorted(items, key=lambda i: i.get("creationTimestamp", ""), reverse=True)
    raise bad_request("orderBy", order, "Sorting by '%s' is not supported." % order)


def filtered(items, query):
    text = _param(query, "filter")
    try:
        keep = parse_filter(text)
    except ValueError:
        raise bad_request("filter", text, "Invalid list filter expression.")
    return [i for i in items if keep(i)]


def with_fields(obj, query, ignore):
    text = _param(query, "fields")
    if not text or ignore:
        return obj
    try:
        return select_fields(obj, parse_fields(text))
    except ValueError as e:
        raise base.ReplyError(compute_error(400, str(e), "invalidParameter"))


# ---------------------------------------------------------------- Compute Engine

INSTANCE_REF = re.compile(r"(?:projects/([^/]+)/)?zones/([^/]+)/instances/([^/?#]+)$")
ZONE_NAME = re.compile(r"[a-z]+-[a-z]+[0-9]+-[a-z]")
COMPUTE_PATH = re.compile(
    r"/compute/v1/projects/([^/]+)(?:/(zones|regions)/([^/]+)/"
    r"(?:instanceGroups/([^/]+)(/listInstances)?|(instances)(?:/([^/]+))?))?")


AGGREGATED_PATH = re.compile(r"/compute/v1/projects/([^/]+)/aggregated/instances")


def last_segment(url):
    return (url or "").rstrip("/").rsplit("/", 1)[-1]


class ComputeStore:
    """Instances and instance groups of one or more projects, listed like Compute Engine."""

    def __init__(self, doc, page_cap=None, ignore_fields=False):
        if not isinstance(doc, dict):
            raise ValueError("compute: want a JSON object with instances and instanceGroups")
        self.page_cap, self.ignore_fields = page_cap, ignore_fields
        self.instances = {}     # (project, zone, name) -> Instance
        self.by_zone = {}       # (project, zone) -> [Instance] in name order
        self.groups = {}        # (project, "zones"|"regions", location, name) -> (group, keys)
        default_project = doc.get("project")
        for n, inst in enumerate(doc.get("instances") or []):
            m = INSTANCE_REF.search(inst.get("selfLink") or "")
            project, zone, name = m.groups() if m else (None, None, None)
            project = project or default_project
            zone = zone or last_segment(inst.get("zone"))
            name = name or inst.get("name")
            if not (project and zone and name):
                raise ValueError("compute: instance #%d has no project, zone and name" % n)
            self.instances[(project, zone, name)] = inst
            self.by_zone.setdefault((project, zone), []).append(inst)
        for zone_list in self.by_zone.values():
            zone_list.sort(key=lambda i: i.get("name", ""))
        for n, group in enumerate(doc.get("instanceGroups") or []):
            self._add_group(n, group, default_project)
        self.projects = {k[0] for k in self.instances} | {k[0] for k in self.groups}
        if default_project:
            self.projects.add(default_project)

    def _add_group(self, n, group, default_project):
        m = re.search(r"projects/([^/]+)/", group.get("selfLink") or "")
        project = m.group(1) if m else group.get("project", default_project)
        if group.get("zone"):
            kind, location = "zones", last_segment(group["zone"])
        elif group.get("region"):
            kind, location = "regions", last_segment(group["region"])
        else:
            raise ValueError("compute: instance group #%d has neither zone nor region" % n)
        keys = [self._member(project, kind, location, ref, group.get("name"))
                for ref in group.get("instances") or []]
        resource = {k: v for k, v in group.items() if k not in ("instances", "project")}
        self.groups[(project, kind, location, group.get("name"))] = (resource, keys)

    def _member(self, project, kind, location, ref, group_name):
        m = INSTANCE_REF.search(ref)
        if m:
            key = (m.group(1) or project, m.group(2), m.group(3))
            if key in self.instances:
                return key
        else:
            zones = [location] if kind == "zones" else \
                [z for (p, z) in self.by_zone if p == project and z.startswith(location + "-")]
            found = [(project, z, ref) for z in zones if (project, z, ref) in self.instances]
            if len(found) == 1:
                return found[0]
        raise ValueError("compute: group %s: member %s is not one of the instances" %
                         (group_name, ref))

    # -- routes

    def reply(self, method, path, query, body, forever):
        """The reply for a /compute/v1/ path (a 404 page for paths the API does not have)."""
        m = AGGREGATED_PATH.fullmatch(path)
        if m:
            return self._aggregated(m.group(1), method, query, forever)
        m = COMPUTE_PATH.fullmatch(path)
        if not m:
            return html_404(path)
        project, kind, location, group, list_instances, instances, name = m.groups()
        if project not in self.projects:
            return compute_error(404, "The resource 'projects/%s' was not found" % project)
        if kind is None or (instances and kind != "zones"):
            return html_404(path)
        want = "POST" if list_instances else "GET"
        if method != want:
            return compute_error(405, "Method %s is not allowed on %s" % (method, path))
        if kind == "zones" and not ZONE_NAME.fullmatch(location):
            raise bad_request("zone", location, "Unknown zone.")
        if group:
            return self._group(project, kind, location, group, list_instances, query, body,
                               forever)
        if name:
            inst = self.instances.get((project, location, name))
            if inst is None:
                return compute_error(404, "The resource 'projects/%s/zones/%s/instances/%s' "
                                          "was not found" % (project, location, name))
            return google_json(with_fields(inst, query, self.ignore_fields))
        return self._zone_list(project, location, query, forever)

    def _group(self, project, kind, location, name, list_instances, query, body, forever):
        found = self.groups.get((project, kind, location, name))
        resource_name = "projects/%s/%s/%s/instanceGroups/%s" % (project, kind, location, name)
        if found is None:
            return compute_error(404, "The resource '%s' was not found" % resource_name)
        group, keys = found
        if not list_instances:
            return google_json(with_fields(group, query, self.ignore_fields))
        state = self._instance_state(body)
        items = []
        for key in keys:
            inst = self.instances[key]
            if state == "RUNNING" and inst.get("status") != "RUNNING":
                continue
            item = {"instance": inst.get("selfLink") or
                    "%sprojects/%s/zones/%s/instances/%s" % ((COMPUTE_ROOT,) + key),
                    "status": inst.get("status")}
            if group.get("namedPorts"):
                item["namedPorts"] = group["namedPorts"]
            items.append(item)
        items = ordered(filtered(items, query), query, lambda i: last_segment(i["instance"]))
        list_key = "%s %s %s %s" % (resource_name, state, _param(query, "filter"),
                                    _param(query, "orderBy"))
        page, token = page_of(items, query, list_key, self.page_cap, forever)
        answer = {"kind": "compute#instanceGroupsListInstances",
                  "id": resource_name, "items": page, "nextPageToken": token,
                  "selfLink": COMPUTE_ROOT + resource_name + "/listInstances"}
        return google_json(with_fields(_compact(answer), query, self.ignore_fields))

    @staticmethod
    def _instance_state(body):
        try:
            req = json.loads(body.decode("utf-8")) if body.strip() else {}
        except (UnicodeDecodeError, ValueError) as e:
            raise base.ReplyError(compute_error(400, "Invalid JSON payload received. %s" % e,
                                                "parseError"))
        if not isinstance(req, dict):
            raise base.ReplyError(compute_error(400, "Invalid JSON payload received. Expected "
                                                     "an object.", "parseError"))
        state = req.get("instanceState", "ALL")
        if state not in ("ALL", "RUNNING"):
            raise bad_request("resource.instanceState", state,
                              "Value must be one of [ALL, RUNNING].")
        return state

    def _zone_list(self, project, zone, query, forever):
        items = ordered(filtered(self.by_zone.get((project, zone), []), query), query,
                        lambda i: i.get("name", ""))
        resource_name = "projects/%s/zones/%s/instances" % (project, zone)
        list_key = "%s %s %s" % (resource_name, _param(query, "filter"), _param(query, "orderBy"))
        page, token = page_of(items, query, list_key, self.page_cap, forever)
        answer = {"kind": "compute#instanceList", "id": resource_name, "items": page,
                  "nextPageToken": token, "selfLink": COMPUTE_ROOT + resource_name}
        return google_json(with_fields(_compact(answer), query, self.ignore_fields))

    def _aggregated(self, project, method, query, forever):
        """GET projects/P/aggregated/instances (gcloud's `compute instances list` without
        --zones): the project's instances of every zone, filtered and paged as one list in
        zone, then name order, grouped by "zones/Z"; a zone with none on the page carries the
        API's NO_RESULTS_ON_PAGE warning (the real API lists every zone of the world so; the
        fake knows only the zones of its instances)."""
        if project not in self.projects:
            return compute_error(404, "The resource 'projects/%s' was not found" % project)
        if method != "GET":
            return compute_error(405, "Method %s is not allowed" % method)
        zones = sorted(z for (p, z) in self.by_zone if p == project)
        rows = filtered([dict(i, _zone=z) for z in zones for i in self.by_zone[(project, z)]],
                        query)
        resource_name = "projects/%s/aggregated/instances" % project
        list_key = "%s %s" % (resource_name, _param(query, "filter"))
        page, token = page_of(rows, query, list_key, self.page_cap, forever)
        scopes = {"zones/" + z: {"warning": {
            "code": "NO_RESULTS_ON_PAGE", "message": "There are no results for scope "
            "'zones/%s' on this page." % z, "data": [{"key": "scope", "value": "zones/" + z}]}}
            for z in zones}
        for row in page:
            scope = scopes["zones/" + row["_zone"]]
            scope.pop("warning", None)
            scope.setdefault("instances", []).append({k: v for k, v in row.items()
                                                      if k != "_zone"})
        answer = {"kind": "compute#instanceAggregatedList", "id": resource_name,
                  "items": scopes, "nextPageToken": token,
                  "selfLink": COMPUTE_ROOT + resource_name}
        return google_json(with_fields(_compact(answer), query, self.ignore_fields))

    @staticmethod
    def permission(method, path):
        """(permission, resource) a 403 names for this request."""
        m = AGGREGATED_PATH.fullmatch(path)
        if m:
            return "compute.instances.list", "projects/%s" % m.group(1)
        m = COMPUTE_PATH.fullmatch(path)
        if not m:
            return "compute.projects.get", path.replace("/compute/v1/", "", 1)
        project, kind, location, group, list_instances, instances, name = m.groups()
        if group:
            verb = "list" if list_instances else "get"
            return ("compute.instanceGroups." + verb,
                    "projects/%s/%s/%s/instanceGroups/%s" % (project, kind, location, group))
        if name:
            return ("compute.instances.get",
                    "projects/%s/zones/%s/instances/%s" % (project, location, name))
        if instances:
            return "compute.instances.list", "projects/%s" % project
        return "compute.projects.get", "projects/%s" % project


def _compact(answer):
    """An empty list or a null token is left out, as the API does."""
    return {k: v for k, v in answer.items() if v not in (None, [])}


# ---------------------------------------------------------------- Cloud TPU

TPU_PATH = re.compile(r"/(v1|v2|v1alpha1|v2alpha1)/projects/([^/]+)/locations/([^/]+)"
                      r"/nodes(?:/([^/]+))?")
TPU_GET = "google.cloud.tpu.%s.Tpu.GetNode"


# The Node message of each Cloud TPU API version: its fields, the values of its enums, and the
# type of serviceAccount (a string in v1, an object {email, scope} in v2), as gcloud 528 has
# them (googlecloudsdk/generated_clients/apis/tpu/VERSION/tpu_VERSION_messages.py, generated from
# the API's discovery documents). gcloud rejects a v1 Node whose serviceAccount is an object
# ("Expected type <class 'str'> for field serviceAccount").
_V1_NODE = {"acceleratorType", "apiVersion", "cidrBlock", "createTime", "description", "health",
            "healthDescription", "ipAddress", "labels", "modelBasePath", "modelConfigFile",
            "modelName", "name", "network", "networkEndpoints", "platformConfigFile", "port",
            "schedulingConfig", "serviceAccount", "state", "symptoms", "tensorflowVersion",
            "useServiceNetworking"}
_V2_NODE = {"acceleratorConfig", "acceleratorType", "apiVersion", "cidrBlock", "createTime",
            "dataDisks", "description", "health", "healthDescription", "id", "labels",
            "metadata", "multisliceNode", "name", "networkConfig", "networkConfigs",
            "networkEndpoints", "queuedResource", "runtimeVersion", "schedulingConfig",
            "serviceAccount", "shieldedInstanceConfig", "state", "symptoms", "tags",
            "upcomingMaintenance"}
_API_VERSIONS = ("V1_ALPHA1", "V1", "V2_ALPHA1")
_V1_HEALTH = ("HEALTHY", "DEPRECATED_UNHEALTHY", "TIMEOUT", "UNHEALTHY_TENSORFLOW",
              "UNHEALTHY_MAINTENANCE")
NODE_SCHEMAS = {
    "v1": {"fields": _V1_NODE, "endpoint": {"ipAddress", "port"}, "account": "email",
           "scheduling": {"preemptible", "reserved"},
           "enums": {"apiVersion": _API_VERSIONS, "health": _V1_HEALTH}},
    "v2": {"fields": _V2_NODE, "endpoint": {"ipAddress", "port", "accessConfig"},
           "account": "object", "scheduling": {"preemptible", "reserved", "spot"},
           "enums": {"apiVersion": _API_VERSIONS + ("V2",), "health": _V1_HEALTH[:1] +
                     _V1_HEALTH[2:]}},
}
NODE_SCHEMAS["v1alpha1"] = NODE_SCHEMAS["v1"]
# (v2alpha1: v2's enums; gcloud's v2alpha1 messages predate the V2 value)
NODE_SCHEMAS["v2alpha1"] = dict(NODE_SCHEMAS["v2"], fields=_V2_NODE | {
    "autocheckpointEnabled", "bootDiskConfig"}, scheduling={
    "preemptible", "provisioningModel", "reservationName", "reserved", "spot",
    "terminationTimestamp"})


def node_as(node, version):
    """A stored Node (v1- or v2-shaped, as make_gcp.py writes them) in the shape of API
    `version`: the version's fields only, serviceAccount a string (v1) or {email, scope} (v2),
    v1's tensorflowVersion/network and v2's runtimeVersion/networkConfig.network carried over
    when the other is missing, enum values the version does not have left out."""
    schema = NODE_SCHEMAS[version]
    node = dict(node)
    account = node.get("serviceAccount")
    if schema["account"] == "email" and isinstance(account, dict):
        node["serviceAccount"] = account.get("email", "")
    elif schema["account"] == "object" and isinstance(account, str):
        node["serviceAccount"] = {"email": account}
    if version.startswith("v1"):
        node.setdefault("tensorflowVersion", node.get("runtimeVersion"))
        node.setdefault("network", (node.get("networkConfig") or {}).get("network"))
    else:
        node.setdefault("runtimeVersion", node.get("tensorflowVersion"))
        if node.get("network") and "networkConfig" not in node:
            node["networkConfig"] = {"network": node["network"]}
    out = {k: v for k, v in node.items() if k in schema["fields"] and v is not None}
    if "networkEndpoints" in out:
        out["networkEndpoints"] = [{k: v for k, v in ep.items() if k in schema["endpoint"]}
                                   for ep in out["networkEndpoints"]]
    if isinstance(out.get("schedulingConfig"), dict):
        out["schedulingConfig"] = {k: v for k, v in out["schedulingConfig"].items()
                                   if k in schema["scheduling"]}
    for field, values in schema["enums"].items():
        if field in out and out[field] not in values:
            del out[field]
    return out


class TpuStore:
    """Cloud TPU nodes by full name. One Node answers on every API version, in that version's
    shape (node_as); the list pages (pageSize, pageToken, --page-cap) like ListNodes."""

    def __init__(self, doc, page_cap=None):
        if isinstance(doc, list):
            doc = {node.get("name"): node for node in doc}
        if not isinstance(doc, dict):
            raise ValueError("tpu-nodes: want an object keyed by full node name, or a list")
        self.page_cap = page_cap
        self.nodes = {}
        for name, node in doc.items():
            if not (name and re.fullmatch(r"projects/[^/]+/locations/[^/]+/nodes/[^/]+", name)):
                raise ValueError("tpu-nodes: %r is not projects/P/locations/Z/nodes/N" % name)
            self.nodes[name] = node

    def reply(self, method, path, query):
        m = TPU_PATH.fullmatch(path)
        if not m:
            return html_404(path)
        version, project, location, node = m.groups()
        if method != "GET":
            return tpu_error(405, "Method not allowed")
        if node is None:
            return self._list(version, project, location, query)
        name = "projects/%s/locations/%s/nodes/%s" % (project, location, node)
        found = self.nodes.get(name)
        if found is None:
            return tpu_error(404, "Resource '%s' was not found" % name, [
                {"@type": "type.googleapis.com/google.rpc.ResourceInfo", "resourceName": name}])
        return google_json(node_as(found, version))

    def _list(self, version, project, location, query):
        """ListNodesResponse {nodes, nextPageToken}; an empty list is {}."""
        prefix = "projects/%s/locations/%s/nodes/" % (project, location)
        nodes = [node_as(v, version) for k, v in sorted(self.nodes.items())
                 if k.startswith(prefix)]
        text = _param(query, "pageSize") or "0"
        if not re.fullmatch(r"\d+", text):
            return tpu_error(400, "Invalid value at 'page_size' (TYPE_INT32), \"%s\"" % text)
        size = int(text) or len(nodes) or 1
        if self.page_cap:
            size = min(size, self.page_cap)
        token = _param(query, "pageToken")
        start = 0
        if token:
            try:
                start = decode_page_token(token, prefix)
            except base.ReplyError:
                return tpu_error(400, "Invalid page token.")
        answer = {"nodes": nodes[start:start + size]}
        if start + size < len(nodes):
            answer["nextPageToken"] = encode_page_token(prefix, start + size)
        return google_json(_compact(answer))

    @staticmethod
    def permission(method, path):
        m = TPU_PATH.fullmatch(path)
        if not m:
            return "tpu.nodes.get", path.lstrip("/")
        version, project, location, node = m.groups()
        if node is None:
            return "tpu.nodes.list", "projects/%s/locations/%s" % (project, location)
        return "tpu.nodes.get", "projects/%s/locations/%s/nodes/%s" % (project, location, node)


# ---------------------------------------------------------------- metadata server

METADATA_HEADERS = {"Metadata-Flavor": "Google", "Server": "Metadata Server for VM",
                    "X-XSS-Protection": "0", "X-Frame-Options": "SAMEORIGIN"}


class MetadataStore:
    """Values by path below /computeMetadata/v1/."""

    def __init__(self, doc):
        if not isinstance(doc, dict):
            raise ValueError("metadata: want a JSON object {path: value}")
        self.values = {k.strip("/"): v for k, v in doc.items()}

    def _children(self, directory):
        prefix = directory + "/" if directory else ""
        names = set()
        for key in self.values:
            if key.startswith(prefix):
                head, sep, _ = key[len(prefix):].partition("/")
                names.add(head + sep)
        return sorted(names)

    def _tree(self, directory):
        prefix = directory + "/" if directory else ""
        tree = {}
        for key, value in self.values.items():
            if key.startswith(prefix):
                node, parts = tree, key[len(prefix):].split("/")
                for part in parts[:-1]:
                    node = node.setdefault(part, {})
                node[parts[-1]] = value
        return tree

    def reply(self, path, query, headers):
        if headers.get("Metadata-Flavor") != "Google":
            return self._text(400, "Missing required header \"Metadata-Flavor\": \"Google\"\n")
        if headers.get("X-Forwarded-For"):
            return self._text(403, "Request with X-Forwarded-For header is not allowed\n")
        if path != METADATA_PREFIX and not path.startswith(METADATA_PREFIX + "/"):
            return self._html_404(path)
        key = path[len(METADATA_PREFIX):].strip("/")
        is_dir_path = path.endswith("/") or path == METADATA_PREFIX
        if not is_dir_path and key in self.values:
            value = self.values[key]
            if isinstance(value, str) and _param(query, "alt") != "json":
                return self._text(200, value)
            return base.Reply(200, base.dumps(value).encode(), dict(METADATA_HEADERS),
                              "application/json")
        children = self._children(key)
        if not children:
            return self._html_404(path)
        if not is_dir_path:
            return base.Reply(301, b"", dict(METADATA_HEADERS, Location=path + "/"), None)
        if _param(query, "recursive") == "true":
            return base.Reply(200, base.dumps(self._tree(key)).encode(),
                              dict(METADATA_HEADERS), "application/json")
        return self._text(200, "".join(c + "\n" for c in children))

    @staticmethod
    def _text(status, text):
        return base.Reply(status, text.encode(), dict(METADATA_HEADERS), "application/text")

    @staticmethod
    def _html_404(path):
        reply = html_404(path)
        reply.headers.update(METADATA_HEADERS)
        return reply


# ---------------------------------------------------------------- batch requests

BATCH_PATH = "/batch/compute/v1"


def parse_batch(content_type, body):
    """A multipart/mixed batch body -> [(Content-ID, method, target, headers, body)], each part
    an application/http request ("GET /compute/v1/...?q HTTP/1.1", headers, blank line, body),
    as https://cloud.google.com/compute/docs/api/how-tos/batch describes and gcloud sends it.
    Raises ValueError."""
    if not content_type.lower().startswith("multipart/mixed"):
        raise ValueError("Content-Type %r is not multipart/mixed" % content_type)
    msg = email.message_from_bytes(b"Content-Type: " + content_type.encode("latin-1") +
                                   b"\r\n\r\n" + body)
    if not msg.is_multipart():
        raise ValueError("no boundary")
    out = []
    for part in msg.get_payload():
        raw = part.get_payload(decode=True) or b""
        head, _, data = raw.replace(b"\r\n", b"\n").partition(b"\n\n")
        lines = head.decode("latin-1").split("\n")
        request_line = lines[0].split()
        if len(request_line) < 2:
            raise ValueError("bad request line %r" % lines[0])
        headers = {}
        for line in lines[1:]:
            name, sep, value = line.partition(":")
            if sep:
                headers[name.strip().lower()] = value.strip()
        out.append((part.get("Content-ID", ""), request_line[0].upper(), request_line[1],
                    headers, data))
    if not out:
        raise ValueError("no parts")
    return out


def _phrase(status):
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


def batch_reply(answers):
    """[(Content-ID, Reply)] -> one multipart/mixed Reply, each answer an application/http
    part with Content-ID <response-ID> (Google's batch answer)."""
    boundary = "batch_" + base64.urlsafe_b64encode(os.urandom(12)).decode()
    out = []
    for content_id, reply in answers:
        rid = "<response-%s>" % content_id.strip().strip("<>") if content_id else ""
        out.append(("--%s\r\nContent-Type: application/http\r\n%s\r\n" % (
            boundary, "Content-ID: %s\r\n" % rid if rid else "")).encode())
        head = ["HTTP/1.1 %d %s" % (reply.status, _phrase(reply.status))]
        head += ["%s: %s" % kv for kv in reply.headers.items()]
        head.append("Content-Length: %d" % len(reply.body))
        out.append(("\r\n".join(head) + "\r\n\r\n").encode() + reply.body + b"\r\n")
    out.append(("--%s--\r\n" % boundary).encode())
    return base.Reply(200, b"".join(out), None, "multipart/mixed; boundary=" + boundary)


# ---------------------------------------------------------------- OAuth 2.0 and IAM Credentials

OAUTH_TOKEN_PATH = "/token"
IAM_PATH = re.compile(r"/v1/projects/-/serviceAccounts/([^/]+):generateAccessToken")
CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform"
GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token"   # an audience Google always takes
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
FORM = "application/x-www-form-urlencoded"
OAUTH_JSON = "application/json; charset=utf-8"
JWT_LIFETIME = 3600
JWT_SKEW = 300
JWT_TIMEFRAME = ("Invalid JWT: Token must be a short-lived token (60 minutes) and in a "
                 "reasonable timeframe. Check your iat and exp values in the JWT claim.")
IAM_DENIED = ("Permission 'iam.serviceAccounts.getAccessToken' denied on resource (or it may "
              "not exist).")


def oauth_error(status, error, description):
    """The token endpoint's error answer: {"error": CODE, "error_description": TEXT}."""
    body = {"error": error, "error_description": description}
    return base.Reply(status, base.dumps(body).encode(),
                      {"Cache-Control": "no-cache, no-store, max-age=0, must-revalidate",
                       "Pragma": "no-cache"}, OAUTH_JSON)


def _b64url(text):
    text = text.encode("ascii") if isinstance(text, str) else text
    return base64.urlsafe_b64decode(text + b"=" * (-len(text) % 4))


def _rfc3339(seconds):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def _tokens(value, where):
    tokens = [value] if isinstance(value, str) else value
    if not (isinstance(tokens, list) and tokens and all(isinstance(t, str) and t
                                                        for t in tokens)):
        raise ValueError("oauth: %s: access_token wants a token or a list of tokens" % where)
    return tokens


class OAuthStore:
    """The accounts of --oauth: refresh tokens, service accounts (public keys, to verify their
    JWTs), impersonation targets and revoked tokens; the access tokens issued so far."""

    def __init__(self, doc, token_url):
        if not isinstance(doc, dict) or set(doc) - {"refresh_tokens", "service_accounts",
                                                    "impersonation", "revoked"}:
            raise ValueError("oauth: want a JSON object with refresh_tokens, service_accounts, "
                             "impersonation and revoked")
        self.token_url = token_url
        self.lock = threading.Lock()
        self.issued = {}        # access token -> the account it was issued to
        self.used = {}          # credential -> grants answered (the next token of its list)
        self.refresh = {}
        for rt, entry in (doc.get("refresh_tokens") or {}).items():
            if not all(isinstance(entry.get(k), str) for k in ("client_id", "client_secret")):
                raise ValueError("oauth: refresh token %s... wants client_id and client_secret"
                                 % rt[:6])
            self.refresh[rt] = dict(entry, access_token=_tokens(entry.get("access_token"),
                                                                entry["client_id"]))
        self.clients = {e["client_id"]: e["client_secret"] for e in self.refresh.values()}
        self.accounts = {}
        for who, entry in (doc.get("service_accounts") or {}).items():
            pem = entry.get("public_key")
            if pem is None and entry.get("public_key_file"):
                with open(entry["public_key_file"]) as f:
                    pem = f.read()
            if not pem or not isinstance(entry.get("private_key_id"), str):
                raise ValueError("oauth: service account %s wants public_key (or "
                                 "public_key_file) and private_key_id" % who)
            self.accounts[who] = dict(entry, access_token=_tokens(entry.get("access_token"),
                                                                    who),
                                        key=_load_public_key(pem, who))
        self.targets = {}
        for who, entry in (doc.get("impersonation") or {}).items():
            sources = entry.get("sources")
            if not isinstance(sources, list) or not all(isinstance(s, str) for s in sources):
                raise ValueError("oauth: impersonation of %s wants sources (access tokens)"
                                 % who)
            self.targets[who] = dict(entry, access_token=_tokens(entry.get("access_token"),
                                                                   who))
        self.revoked = set(doc.get("revoked") or [])

    def _issue(self, credential, tokens, account):
        with self.lock:
            n = self.used.get(credential, 0)
            self.used[credential] = n + 1
            token = tokens[min(n, len(tokens) - 1)]
            self.issued[token] = account
        return token

    def accepts(self, token):
        """Whether the Compute and TPU APIs take this bearer token."""
        with self.lock:
            return token in self.issued and token not in self.revoked

    # -- POST /token

    def token(self, method, headers, body):
        """(Reply, what the log records) for a request to the token endpoint."""
        note = {}
        if method != "POST":
            return oauth_error(405, "invalid_request", "Method %s is not allowed; POST the "
                                                       "token request" % method), note
        ctype = (headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype != FORM:
            return oauth_error(400, "invalid_request", "Content-Type must be %s, not %r"
                               % (FORM, ctype)), note
        try:
            form = parse_qs(body.decode("utf-8"), keep_blank_values=True, strict_parsing=True)
        except (UnicodeDecodeError, ValueError):
            return oauth_error(400, "invalid_request", "The request body is not a form"), note
        twice = sorted(k for k, v in form.items() if len(v) > 1)
        if twice:
            return oauth_error(400, "invalid_request", "Parameter given more than once: %s"
                               % twice[0]), note
        form = {k: v[0] for k, v in form.items()}
        note["grant_type"] = form.get("grant_type")
        if form.get("grant_type") == "refresh_token":
            return self._refresh_grant(form, note), note
        if form.get("grant_type") == JWT_BEARER:
            return self._jwt_grant(form, note), note
        if "grant_type" not in form:
            return oauth_error(400, "invalid_request", "Missing required parameter: "
                                                       "grant_type"), note
        return oauth_error(400, "unsupported_grant_type", "Invalid grant_type: %s"
                           % form["grant_type"]), note

    def _granted(self, token, scope, note):
        note["issued"] = token
        body = {"access_token": token, "expires_in": 3599, "scope": scope,
                "token_type": "Bearer"}
        return base.Reply(200, json.dumps(body, indent=2).encode(),
                          {"Cache-Control": "no-cache, no-store, max-age=0, must-revalidate",
                           "Pragma": "no-cache"}, OAUTH_JSON)

    def _refresh_grant(self, form, note):
        note["client_id"] = form.get("client_id")
        for name in ("client_id", "client_secret", "refresh_token"):
            if not form.get(name):
                note["error"] = "invalid_request"
                return oauth_error(400, "invalid_request",
                                   "Missing required parameter: " + name)
        client_id = form["client_id"]
        if client_id not in self.clients:
            note["error"] = "invalid_client"
            return oauth_error(401, "invalid_client", "The OAuth client was not found.")
        if form["client_secret"] != self.clients[client_id]:
            note["error"] = "invalid_client"
            return oauth_error(401, "invalid_client", "Unauthorized")
        entry = self.refresh.get(form["refresh_token"])
        if entry is None or entry["client_id"] != client_id:
            note["error"] = "invalid_grant"
            return oauth_error(400, "invalid_grant", "Token has been expired or revoked.")
        token = self._issue(form["refresh_token"], entry["access_token"], "user:" + client_id)
        scope = entry.get("scope") or "%s openid https://www.googleapis.com/auth/userinfo." \
                                      "email" % CLOUD_PLATFORM
        return self._granted(token, scope, note)

    def _jwt_grant(self, form, note):
        note["verified"] = False
        assertion = form.get("assertion")
        if not assertion:
            note["error"] = "invalid_request"
            return oauth_error(400, "invalid_request", "Missing required parameter: assertion")
        parts = assertion.split(".")
        try:
            if len(parts) != 3:
                raise ValueError("not three parts")
            header, claims = (json.loads(_b64url(p)) for p in parts[:2])
            signature = _b64url(parts[2])
            if not isinstance(header, dict) or not isinstance(claims, dict):
                raise ValueError("not objects")
        except (ValueError, binascii.Error, UnicodeDecodeError):
            note["error"] = "invalid_grant"
            return oauth_error(400, "invalid_grant", "Invalid JWT: not a signed JWT "
                                                     "(header.claims.signature, base64url)")
        note["jwt_header"], note["jwt_claims"] = header, claims
        why = self._jwt_problem(parts, header, claims, signature, note)
        if why:
            note["error"] = why[1]
            return oauth_error(400, why[1], why[0])
        account = self.accounts[claims["iss"]]
        token = self._issue("sa:" + claims["iss"], account["access_token"],
                            "serviceAccount:" + claims["iss"])
        return self._granted(token, claims["scope"], note)

    def _jwt_problem(self, parts, header, claims, signature, note):
        """(error_description, error) of the first check the JWT fails, else None."""
        if header.get("alg") != "RS256" or header.get("typ") != "JWT":
            return "Invalid JWT header: want alg RS256 and typ JWT", "invalid_grant"
        account = self.accounts.get(claims.get("iss"))
        if account is None:
            return "Invalid grant: account not found", "invalid_grant"
        if header.get("kid") != account["private_key_id"]:
            return "Invalid JWT Signature.", "invalid_grant"
        if not _rs256_verifies(account["key"], (parts[0] + "." + parts[1]).encode("ascii"),
                               signature):
            return "Invalid JWT Signature.", "invalid_grant"
        note["verified"] = True
        if claims.get("aud") not in (self.token_url, GOOGLE_TOKEN_URL):
            return ("Invalid JWT: Failed audience check. The expected value was %s but the "
                    "actual value was %s" % (self.token_url, claims.get("aud")),
                    "invalid_grant")
        iat, exp = claims.get("iat"), claims.get("exp")
        if "target_audience" in claims and "scope" not in claims:
            return ("The fake issues no ID tokens (a JWT with target_audience)",
                    "invalid_request")
        if not (isinstance(iat, int) and isinstance(exp, int)) or \
                abs(iat - time.time()) > JWT_SKEW or exp - iat != JWT_LIFETIME:
            return JWT_TIMEFRAME, "invalid_grant"
        scope = claims.get("scope")
        if not isinstance(scope, str) or CLOUD_PLATFORM not in scope.split():
            return "Invalid OAuth scope or ID token audience provided.", "invalid_scope"
        return None

    # -- POST /v1/projects/-/serviceAccounts/EMAIL:generateAccessToken

    def generate(self, method, path, headers, body):
        """(Reply, what the log records) for IAM Credentials' generateAccessToken."""
        target = unquote(IAM_PATH.fullmatch(path).group(1))
        note = {"target": target}
        if method != "POST":
            return tpu_error(405, "Method %s is not allowed" % method), note
        scheme, _, token = (headers.get("Authorization") or "").strip().partition(" ")
        token = token.strip() if scheme.lower() == "bearer" else None
        with self.lock:
            note["source"] = self.issued.get(token)
        if note["source"] is None:
            return tpu_error(401, "Request had invalid authentication credentials. " +
                             AUTH_HELP, headers={"WWW-Authenticate": 'Bearer realm="https://'
                                                 'accounts.google.com/"'}), note
        entry = self.targets.get(target)
        if entry is None or token not in entry["sources"]:
            return tpu_error(403, IAM_DENIED), note
        ctype = (headers.get("Content-Type") or "").split(";")[0].strip().lower()
        try:
            req = json.loads(body.decode("utf-8"))
            if ctype != "application/json" or not isinstance(req, dict):
                raise ValueError("not a JSON object")
        except (UnicodeDecodeError, ValueError):
            return tpu_error(400, "Invalid JSON payload received."), note
        note["body"] = req
        delegates = req.get("delegates", [])
        scope = req.get("scope")
        if set(req) - {"delegates", "scope", "lifetime"}:
            return tpu_error(400, "Invalid JSON payload received. Unknown name %r"
                             % sorted(set(req) - {"delegates", "scope", "lifetime"})[0]), note
        if not isinstance(scope, list) or not scope:
            return tpu_error(400, "Scope required."), note
        if CLOUD_PLATFORM not in scope:
            return tpu_error(400, "The fake wants the scope %s" % CLOUD_PLATFORM), note
        if req.get("lifetime") != "3600s":
            return tpu_error(400, "The fake wants lifetime \"3600s\", not %r"
                             % req.get("lifetime")), note
        if not isinstance(delegates, list) or delegates != entry.get("delegates", []):
            return tpu_error(403, IAM_DENIED), note
        issued = self._issue("impersonate:" + target, entry["access_token"],
                             "serviceAccount:" + target)
        note["issued"] = issued
        return google_json({"accessToken": issued,
                            "expireTime": _rfc3339(time.time() + JWT_LIFETIME)}), note


def _load_public_key(pem, who):
    try:
        from cryptography.hazmat.primitives.serialization import load_pem_public_key
    except ImportError:
        raise ValueError("oauth: verifying %s's JWTs needs python3-cryptography (run the fake "
                         "with /usr/bin/python3)" % who)
    try:
        return load_pem_public_key(pem.encode())
    except ValueError as e:
        raise ValueError("oauth: %s: public_key: %s" % (who, e))


def _rs256_verifies(key, signed, signature):
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding
    try:
        key.verify(signature, signed, padding.PKCS1v15(), hashes.SHA256())
        return True
    except (InvalidSignature, ValueError, TypeError):
        return False


class GcpLog(base.RequestLog):
    """fake_api's request log with what the token endpoint and generateAccessToken add to a
    request's line ("oauth", "iam"); without --log-secrets the secrets of a token request's body
    and the tokens issued are "<redacted>"."""

    def __init__(self, path, secrets):
        super().__init__(path, secrets)
        self.local = threading.local()

    def write(self, handler, status, fault=None):
        self.local.extra = getattr(handler, "log_extra", None)
        handler.log_extra = None  # a keep-alive connection's next request starts without
        try:
            super().write(handler, status, fault)
        finally:
            self.local.extra = None

    def append(self, rec):
        extra = getattr(self.local, "extra", None)
        if extra:
            extra = json.loads(json.dumps(extra))  # a copy to redact
            rec = dict(rec, **extra)
            if not self.secrets:
                for note in extra.values():
                    if "issued" in note:
                        note["issued"] = "<redacted>"
                if "oauth" in extra and rec.get("body"):
                    form = parse_qs(rec["body"], keep_blank_values=True)
                    rec["body"] = "&".join(
                        "%s=%s" % (k, "<redacted>" if k in ("client_secret", "refresh_token",
                                                           "assertion") else v[0])
                        for k, v in form.items())
        super().append(rec)


# ---------------------------------------------------------------- HTTP

def google_auth_reply(opts, headers, api, method, path, oauth=None):
    """401/403 worded like Google's for a missing, wrong or forbidden token; else None. With
    --oauth, the tokens it issued (and not revoked) authenticate too, besides --bearer."""
    scheme, _, token = (headers.get("Authorization") or "").strip().partition(" ")
    token = token.strip() if scheme.lower() == "bearer" else None
    service = "compute.googleapis.com" if api == "compute" else "tpu.googleapis.com"
    if opts.forbid_token and token == opts.forbid_token:
        if api == "compute":
            perm, resource = ComputeStore.permission(method, path)
            return compute_error(403, "Required '%s' permission for '%s'" % (perm, resource),
                                 "forbidden")
        perm, resource = TpuStore.permission(method, path)
        return tpu_error(403, "Permission '%s' denied on resource '//%s/%s' (or it may not "
                              "exist)." % (perm, service, resource), [
            {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason":
             "IAM_PERMISSION_DENIED", "domain": "iam.googleapis.com",
             "metadata": {"permission": perm, "resource": resource}}])
    accepted = token and (token == opts.bearer or (oauth and oauth.accepts(token)))
    if (opts.bearer or oauth) and not accepted:
        missing = not token
        message = ("Request is missing required authentication credential. " if missing else
                   "Request had invalid authentication credentials. ") + AUTH_HELP
        challenge = 'Bearer realm="https://accounts.google.com/"' + \
            ("" if missing else ', error="invalid_token"')
        hdrs = {"WWW-Authenticate": challenge}
        if api == "compute":
            return compute_error(401, message, "required" if missing else "authError", hdrs,
                                 {"message": "Login Required." if missing else
                                  "Invalid Credentials", "location": "Authorization",
                                  "locationType": "header"})
        return tpu_error(401, message, [
            {"@type": "type.googleapis.com/google.rpc.ErrorInfo",
             "reason": "CREDENTIALS_MISSING" if missing else "ACCESS_TOKEN_EXPIRED",
             "domain": "googleapis.com", "metadata": {"service": service}}], hdrs)
    return None


class GcpHandler(base.Handler):
    """fake_api's handler with the metadata server, Compute and Cloud TPU in front. Its
    sockets have TCP_NODELAY, as Google's front ends answer: with Nagle's algorithm on (Python's
    default) a client waits for the kernel's delayed ACK (about 40 ms) on many answers."""

    disable_nagle_algorithm = True

    def _api(self):
        """"metadata", "compute", "tpu", None (fake_api's own routes and pods) or "unknown" (a
        path nobody serves: Google's HTML 404, not a Kubernetes Status) for this request."""
        srv, path = self.server, self.url.path
        if srv.metadata is not None and path.startswith("/computeMetadata/"):
            return "metadata"
        if srv.oauth is not None and (path == OAUTH_TOKEN_PATH or IAM_PATH.fullmatch(path)):
            return "oauth"
        if srv.compute is not None and (path.startswith("/compute/") or path == BATCH_PATH):
            return "compute"
        if srv.tpu is not None and TPU_PATH.match(path):
            return "tpu"
        if srv.pods is None and not (srv.routes and
                                     srv.routes.lookup(self.command, path, self.url.query)):
            return "unknown"
        return None

    def _route(self, forever):
        api = self._api()
        if api is None:
            return super()._route(forever)
        if api == "unknown":
            return html_404(self.url.path)
        srv, method, path = self.server, self.command, self.url.path
        query = parse_qs(self.url.query, keep_blank_values=True)
        if api == "metadata":
            reply = srv.routes.lookup(method, path, self.url.query) if srv.routes else None
            return reply or srv.metadata.reply(path, query, self.headers)
        if api == "oauth":
            if path == OAUTH_TOKEN_PATH:
                reply, note = srv.oauth.token(method, self.headers, self.request_body)
                self.log_extra = {"oauth": note}
            else:
                reply, note = srv.oauth.generate(method, path, self.headers, self.request_body)
                self.log_extra = {"iam": note}
            return reply
        reply = google_auth_reply(srv.opts, self.headers, api, method, path, srv.oauth)
        for name, value in srv.required if reply is None else ():
            if self.headers.get(name) != value:
                reply = compute_error(400, 'missing or wrong header "%s" (want "%s")'
                                      % (name, value), "required")
                break
        if reply is None and srv.routes:
            reply = srv.routes.lookup(method, path, self.url.query)
        if reply is None and path == BATCH_PATH:
            reply = self._batch()
        if reply is None and api == "compute":
            reply = srv.compute.reply(method, path, query, self.request_body, forever)
        if reply is None:
            reply = srv.tpu.reply(method, path, query)
        return reply

    def _batch(self):
        """POST /batch/compute/v1: each request of the multipart/mixed body answered by the
        Compute routes (authorized by the batch request's token), each logged as a request of
        its own ("batch_part": true), the answers in one multipart/mixed reply."""
        if self.command != "POST":
            return compute_error(405, "Method %s is not allowed on %s" % (self.command,
                                                                         BATCH_PATH))
        try:
            parts = parse_batch(self.headers.get("Content-Type") or "", self.request_body)
        except ValueError as e:
            return compute_error(400, "Failed to parse batch request: %s" % e, "parseError")
        answers = []
        for content_id, method, target, headers, body in parts:
            url = urlsplit(target)
            query = parse_qs(url.query, keep_blank_values=True)
            try:
                reply = self.server.compute.reply(method, url.path, query, body, False) \
                    if url.path.startswith("/compute/") else html_404(url.path)
            except base.ReplyError as e:
                reply = e.reply
            self.server.log.write_part(self, method, url, headers, reply.status, body)
            answers.append((content_id, reply))
        return batch_reply(answers)

    def _normal_reply(self, forever):
        if self._api() is None:
            return super()._normal_reply(forever)
        try:
            return self._route(forever)
        except base.ReplyError as e:
            return e.reply

    def _fault_reply(self, fault):
        api = self._api()
        if api in (None, "unknown") or "body" in fault or "raw" in fault:
            return super()._fault_reply(fault)
        code = int(fault["status"])
        if api == "metadata":
            reply = MetadataStore._text(code, "fake fault %d\n" % code)
        elif api == "oauth" and self.url.path == OAUTH_TOKEN_PATH:
            reply = oauth_error(code, "fake_fault", "fake fault %d" % code)
        elif api == "compute":
            reply = compute_error(code)
        else:
            reply = tpu_error(code)
        reply.headers.update(fault.get("headers") or {})
        return reply


def add_options(ap):
    ap.add_argument("--metadata")
    ap.add_argument("--compute")
    ap.add_argument("--tpu-nodes")
    ap.add_argument("--page-cap", type=int)
    ap.add_argument("--ignore-fields", action="store_true")
    ap.add_argument("--oauth")


def build_server(opts):
    srv = base.build_server(opts, GcpHandler)
    srv.log.close()  # the same file, with what the OAuth routes add to a request's line
    srv.log = GcpLog(opts.log, opts.log_secrets)
    srv.oauth = None
    if opts.oauth:
        srv.oauth = OAuthStore(base.load_json(opts.oauth, {}), "%s://127.0.0.1:%d%s" % (
            "https" if opts.cert else "http", srv.server_address[1], OAUTH_TOKEN_PATH))
    srv.metadata = MetadataStore(base.load_json(opts.metadata, {})) if opts.metadata else None
    srv.compute = ComputeStore(base.load_json(opts.compute, {}), opts.page_cap,
                               opts.ignore_fields) if opts.compute else None
    srv.tpu = TpuStore(base.load_json(opts.tpu_nodes, {}), opts.page_cap) \
        if opts.tpu_nodes else None
    return srv


def main(argv=None):
    opts = base.parse_args(argv, add_options, __doc__.split("\n")[0])
    try:
        srv = build_server(opts)
    except (OSError, ValueError, KeyError) as e:
        print("fake_gcp: %s" % e, file=sys.stderr)
        return 2
    return base.serve(srv, opts)


if __name__ == "__main__":
    sys.exit(main())

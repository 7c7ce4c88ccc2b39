#!/usr/bin/env python3
"""Fake cloud control planes for the real kubeconfig writers: Amazon EKS DescribeCluster (what
`aws eks update-kubeconfig` asks) and Google Kubernetes Engine clusters.get (what `gcloud
container clusters get-credentials` asks), both answering one cluster whose Kubernetes API is
--endpoint (a tests/fake_api.py over HTTPS) with --ca-file as its CA. Built on
tests/fake_api.py: its port file, --log, --faults, --max-seconds and SIGTERM handling (exit 0)
work here too. Standard library only; plain HTTP on 127.0.0.1, port 0.

usage: fake_clouds.py --port-file F --cluster NAME --endpoint HOST:PORT --ca-file PEM
                      [fake_api.py options] [EKS options] [GKE options]
  --cluster NAME          the one cluster both APIs know
  --endpoint HOST:PORT    its Kubernetes API. GKE answers it as is (gcloud writes
                          "https://" + it); EKS answers "https://HOST:PORT" (aws writes it as is)
  --ca-file PEM           its CA certificate; both answer the file's bytes in base64
EKS (rest-json, botocore's model botocore/data/eks/2017-11-01/service-2.json):
  GET /clusters/NAME      DescribeCluster -> 200 {"cluster": Cluster}; another name -> 404
                          ResourceNotFoundException "No cluster found for name: X."
  --eks-region R (us-west-2)  --eks-account ID (123456789012): the cluster's ARN
                          arn:aws:eks:R:ID:cluster/NAME (aws takes get-token's --region from it)
  --eks-status S (ACTIVE) --eks-version V (1.32)
  --eks-access-key AKID   require a SigV4 Authorization header for service "eks" in region R
                          with this access key (else 403 as EKS: MissingAuthenticationToken,
                          UnrecognizedClient, InvalidSignature)
  --eks-secret-key KEY    ... and check its signature with this secret key
GKE (container.googleapis.com v1, gcloud's googlecloudsdk/generated_clients/apis/container/v1/
container_v1_messages.py):
  GET /v1/projects/P/locations/L/clusters/NAME and /v1/projects/P/zones/L/clusters/NAME
                          clusters.get -> 200 Cluster; else 404 NOT_FOUND as Google words it
  GET /v1/projects/P/locations/L/clusters (L may be "-": every location)
                          clusters.list -> {"clusters": [...]} (gcloud asks it after a 404)
  --gke-project P (test-project) --gke-location L (us-central1-a) --gke-status S (RUNNING)
  --gke-version V (1.32.4-gke.1106006)
  --gke-token TOKEN       require "Authorization: Bearer TOKEN" (else 401 UNAUTHENTICATED)
Anything else: fake_api.py's routes (--routes) and its 404.

As a module: sigv4_signature(), canonical_request() and presigned_url_ok() (the tests check
`aws eks get-token`'s presigned STS URL with them).
"""
import base64
import hashlib
import hmac
import os
import re
import sys
from urllib.parse import quote, unquote, urlsplit

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(os.path.dirname(HERE), "gcp"), os.path.dirname(HERE)]
import fake_api as base  # noqa: E402
import fake_gcp  # noqa: E402  (Google's one-platform error body: tpu_error, AUTH_HELP)

EKS_PATH = re.compile(r"/clusters/([^/]+)")
GKE_PATH = re.compile(r"/v1/projects/([^/]+)/(locations|zones)/([^/]+)/clusters(?:/([^/]+))?")
AMZ_DATE = "%Y%m%dT%H%M%SZ"
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()


# ---------------------------------------------------------------- AWS Signature Version 4

def sigv4_signature(secret, amz_date, region, service, canonical):
    """The hex signature of a canonical request (AWS SigV4: HMAC-SHA256 chain over the date,
    region, service and "aws4_request", then over the string to sign)."""
    scope = "/".join([amz_date[:8], region, service, "aws4_request"])
    to_sign = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope,
                         hashlib.sha256(canonical.encode()).hexdigest()])
    key = ("AWS4" + secret).encode()
    for part in (amz_date[:8], region, service, "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    return hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()


def canonical_request(method, path, raw_query, headers, signed, payload_hash):
    """SigV4's canonical request. raw_query: the query as sent (already percent-encoded), its
    pairs sorted as sent; headers: {lower-case name: value}; signed: the signed names."""
    pairs = sorted(tuple(p.partition("=")[::2]) for p in raw_query.split("&") if p)
    lines = [method, quote(unquote(path) or "/", safe="/~"),
             "&".join("%s=%s" % kv for kv in pairs)]
    lines += ["%s:%s" % (n, " ".join(str(headers.get(n, "")).split())) for n in signed]
    return "\n".join(lines + ["", ";".join(signed), payload_hash])


def presigned_url_ok(url, secret, headers):
    """Whether a SigV4 presigned GET url (X-Amz-* query parameters) carries the signature
    `secret` makes over it and `headers` (lower-case name -> value, besides host). This is
    how an EKS token binds the cluster name: header x-k8s-aws-id is signed, not sent in the
    url."""
    parts = urlsplit(url)
    raw = [p for p in parts.query.split("&") if p and not p.startswith("X-Amz-Signature=")]
    fields = {k: unquote(v) for k, _, v in (p.partition("=") for p in parts.query.split("&"))}
    scope = fields.get("X-Amz-Credential", "").split("/")
    if len(scope) != 5 or "X-Amz-Signature" not in fields:
        return False
    signed = fields.get("X-Amz-SignedHeaders", "").split(";")
    values = dict(headers, host=parts.netloc)
    canonical = canonical_request("GET", parts.path, "&".join(raw), values, signed,
                                  EMPTY_SHA256)
    want = sigv4_signature(secret, fields.get("X-Amz-Date", ""), scope[2], scope[3], canonical)
    return hmac.compare_digest(want, fields.get("X-Amz-Signature", ""))


# ---------------------------------------------------------------- EKS

def eks_error(status, kind, message, extra=None):
    """A rest-json error as EKS sends it: the type in x-amzn-ErrorType, {"message"} body."""
    body = {"message": message}
    body.update(extra or {})
    return base.Reply(status, base.dumps(body).encode(),
                      {"x-amzn-ErrorType": kind, "x-amzn-RequestId": request_id()},
                      "application/json")


def request_id():
    return "%08x-%04x-4%03x-a%03x-%012x" % tuple(
        int.from_bytes(os.urandom(6), "big") % (1 << b) for b in (32, 16, 12, 12, 48))


AUTH_FIELDS = re.compile(r"(Credential|SignedHeaders|Signature)=([^,\s]+)")


def eks_auth_reply(opts, handler):
    """403 as EKS answers an unsigned, foreign or badly signed request; else None."""
    if not opts.eks_access_key:
        return None
    value = handler.headers.get("Authorization") or ""
    if not value.startswith("AWS4-HMAC-SHA256 "):
        return eks_error(403, "MissingAuthenticationTokenException", "Missing Authentication Token")
    fields = dict(AUTH_FIELDS.findall(value))
    scope = fields.get("Credential", "").split("/")
    if len(scope) != 5 or scope[0] != opts.eks_access_key:
        return eks_error(403, "UnrecognizedClientException",
                         "The security token included in the request is invalid.")
    if scope[2] != opts.eks_region or scope[3] != "eks":
        return eks_error(403, "InvalidSignatureException",
                         "Credential should be scoped to a valid region.")
    if opts.eks_secret_key:
        headers = {k.lower(): v for k, v in handler.headers.items()}
        payload = headers.get("x-amz-content-sha256") or \
            hashlib.sha256(handler.request_body).hexdigest()
        signed = fields.get("SignedHeaders", "").split(";")
        canonical = canonical_request(handler.command, handler.url.path, handler.url.query,
                                      headers, signed, payload)
        want = sigv4_signature(opts.eks_secret_key, headers.get("x-amz-date", ""),
                               scope[2], "eks", canonical)
        if not hmac.compare_digest(want, fields.get("Signature", "")):
            return eks_error(403, "InvalidSignatureException",
                             "The request signature we calculated does not match the signature "
                             "you provided. Check your AWS Secret Access Key and signing "
                             "method. Consult the service documentation for details.")
    return None


def eks_cluster(opts, ca_data):
    """DescribeCluster's "cluster": the members of shape Cluster in botocore's
    botocore/data/eks/2017-11-01/service-2.json (aws-cli 1.45.11 / botocore 1.43.11) that a
    real ACTIVE cluster answers; createdAt is a Timestamp, which rest-json sends as epoch
    seconds (as in that model's examples-1.json DescribeCluster example)."""
    name, region, account = opts.cluster, opts.eks_region, opts.eks_account
    digest = hashlib.sha256(("%s/%s/%s" % (account, region, name)).encode()).hexdigest()
    return {
        "name": name,
        "arn": "arn:aws:eks:%s:%s:cluster/%s" % (region, account, name),
        "createdAt": 1767225600.123,
        "version": opts.eks_version,
        "endpoint": "https://" + opts.endpoint,
        "roleArn": "arn:aws:iam::%s:role/eks-cluster-role" % account,
        "resourcesVpcConfig": {
            "subnetIds": ["subnet-0a1b2c3d4e5f60718", "subnet-0f1e2d3c4b5a69788"],
            "securityGroupIds": [], "clusterSecurityGroupId": "sg-0123456789abcdef0",
            "vpcId": "vpc-0123456789abcdef0", "endpointPublicAccess": True,
            "endpointPrivateAccess": True, "publicAccessCidrs": ["0.0.0.0/0"]},
        "kubernetesNetworkConfig": {"serviceIpv4Cidr": "172.20.0.0/16", "ipFamily": "ipv4",
                                    "elasticLoadBalancing": {"enabled": False}},
        "logging": {"clusterLogging": [{"types": ["api", "audit", "authenticator",
                                                  "controllerManager", "scheduler"],
                                        "enabled": False}]},
        "identity": {"oidc": {"issuer": "https://oidc.eks.%s.amazonaws.com/id/%s"
                              % (region, digest[:32].upper())}},
        "status": opts.eks_status,
        "certificateAuthority": {"data": ca_data},
        "platformVersion": "eks.12",
        "tags": {},
        "health": {"issues": []},
        "accessConfig": {"authenticationMode": "API_AND_CONFIG_MAP"},
        "upgradePolicy": {"supportType": "STANDARD"},
    }


def eks_reply(srv, handler):
    m = EKS_PATH.fullmatch(handler.url.path)
    reply = eks_auth_reply(srv.opts, handler)
    if reply:
        return reply
    if handler.command != "GET" or not m:
        return eks_error(404, "UnknownOperationException", "Unknown operation")
    name = unquote(m.group(1))
    if name != srv.opts.cluster:
        return eks_error(404, "ResourceNotFoundException",
                         "No cluster found for name: %s." % name, {"clusterName": name})
    return base.Reply(200, base.dumps({"cluster": eks_cluster(srv.opts, srv.ca_data)}).encode(),
                      {"x-amzn-RequestId": request_id()}, "application/json")


# ---------------------------------------------------------------- GKE

def gke_cluster(opts, ca_data):
    """A zonal Standard cluster as clusters.get answers it: fields of message Cluster (and
    MasterAuth, ControlPlaneEndpointsConfig, ...) in gcloud 528's
    googlecloudsdk/generated_clients/apis/container/v1/container_v1_messages.py, with valid
    enum values. get-credentials reads name, zone, endpoint (IP endpoints enabled, so not
    the DNS one), masterAuth.clusterCaCertificate and status."""
    p, loc, name = opts.gke_project, opts.gke_location, opts.cluster
    host = opts.endpoint
    link = "https://container.googleapis.com/v1/projects/%s/zones/%s/clusters/%s" % (p, loc, name)
    digest = hashlib.sha256(("%s/%s/%s" % (p, loc, name)).encode()).hexdigest()
    pool_link = link + "/nodePools/default-pool"
    return {
        "name": name,
        "nodeConfig": {"machineType": "e2-standard-4", "diskSizeGb": 100,
                       "oauthScopes": ["https://www.googleapis.com/auth/cloud-platform"],
                       "imageType": "COS_CONTAINERD", "serviceAccount": "default",
                       "diskType": "pd-balanced"},
        "masterAuth": {"clusterCaCertificate": ca_data},
        "loggingService": "logging.googleapis.com/kubernetes",
        "monitoringService": "monitoring.googleapis.com/kubernetes",
        "network": "default",
        "clusterIpv4Cidr": "10.4.0.0/14",
        "subnetwork": "default",
        "nodePools": [{"name": "default-pool", "config": {"machineType": "e2-standard-4",
                                                          "diskSizeGb": 100},
                       "initialNodeCount": 3, "locations": [loc], "selfLink": pool_link,
                       "version": opts.gke_version, "status": "RUNNING",
                       "podIpv4CidrSize": 24}],
        "locations": [loc],
        "labelFingerprint": "a9dc16a7",
        "legacyAbac": {},
        "ipAllocationPolicy": {"useIpAliases": True, "clusterIpv4Cidr": "10.4.0.0/14",
                               "servicesIpv4Cidr": "34.118.224.0/20", "stackType": "IPV4"},
        "databaseEncryption": {"state": "DECRYPTED"},
        "shieldedNodes": {"enabled": True},
        "releaseChannel": {"channel": "REGULAR"},
        "selfLink": link,
        "zone": loc,
        "endpoint": host,
        "initialClusterVersion": opts.gke_version,
        "currentMasterVersion": opts.gke_version,
        "currentNodeVersion": opts.gke_version,
        "createTime": "2026-01-01T00:00:00+00:00",
        "status": opts.gke_status,
        "servicesIpv4Cidr": "34.118.224.0/20",
        "currentNodeCount": 3,
        "location": loc,
        "id": digest[:32],
        "etag": digest[32:48],
        "controlPlaneEndpointsConfig": {
            "dnsEndpointConfig": {"endpoint": "gke-%s-%s.%s.gke.goog" % (digest[:32], p, loc),
                                  "allowExternalTraffic": False},
            "ipEndpointsConfig": {"enabled": True, "enablePublicEndpoint": True,
                                  "globalAccess": False, "publicEndpoint": host.split(":")[0],
                                  "privateEndpoint": "10.128.0.2"}},
    }


def google_error(code, message, details=None, headers=None):
    return fake_gcp.tpu_error(code, message, details, headers)


def gke_auth_reply(opts, headers):
    """401 as Google's front end answers a missing or wrong token; else None."""
    if not opts.gke_token:
        return None
    scheme, _, token = (headers.get("Authorization") or "").strip().partition(" ")
    token = token.strip() if scheme.lower() == "bearer" else None
    if token == opts.gke_token:
        return None
    missing = not token
    message = ("Request is missing required authentication credential. " if missing else
               "Request had invalid authentication credentials. ") + fake_gcp.AUTH_HELP
    return google_error(401, message, [
        {"@type": "type.googleapis.com/google.rpc.ErrorInfo",
         "reason": "CREDENTIALS_MISSING" if missing else "ACCESS_TOKEN_TYPE_UNSUPPORTED",
         "domain": "googleapis.com", "metadata": {"service": "container.googleapis.com",
                                                  "method": "google.container.v1."
                                                            "ClusterManager.GetCluster"}}],
        {"WWW-Authenticate": 'Bearer realm="https://accounts.google.com/"'})


def gke_reply(srv, handler):
    reply = gke_auth_reply(srv.opts, handler.headers)
    if reply:
        return reply
    project, kind, loc, name = GKE_PATH.fullmatch(handler.url.path).groups()
    opts = srv.opts
    if handler.command != "GET":
        return google_error(405, "Method %s is not allowed" % handler.command)
    here = project == opts.gke_project and loc in (opts.gke_location, "-")
    if name is None:
        clusters = [gke_cluster(opts, srv.ca_data)] if here else []
        return fake_gcp.google_json({"clusters": clusters} if clusters else {})
    if here and loc != "-" and unquote(name) == opts.cluster:
        return fake_gcp.google_json(gke_cluster(opts, srv.ca_data))
    what = "projects/%s/%s/%s/clusters/%s" % (project, kind, loc, unquote(name))
    return google_error(404, "Not found: %s." % what, [
        {"@type": "type.googleapis.com/google.rpc.ResourceInfo", "resourceName": what}])


# ---------------------------------------------------------------- HTTP

class CloudHandler(base.Handler):
    """fake_api's handler with EKS and GKE in front; everything else is fake_api's."""

    def _api(self):
        path = self.url.path
        if EKS_PATH.fullmatch(path) or path.startswith("/clusters"):
            return "eks"
        if GKE_PATH.fullmatch(path):
            return "gke"
        return None

    def _route(self, forever):
        api = self._api()
        if api == "eks":
            return eks_reply(self.server, self)
        if api == "gke":
            return gke_reply(self.server, self)
        return super()._route(forever)

    def _normal_reply(self, forever):
        if self._api() is None:
            return super()._normal_reply(forever)
        try:
            return self._route(forever)
        except base.ReplyError as e:
            return e.reply


def add_options(ap):
    ap.add_argument("--cluster", required=True)
    ap.add_argument("--endpoint", required=True)
    ap.add_argument("--ca-file", required=True)
    ap.add_argument("--eks-region", default="us-west-2")
    ap.add_argument("--eks-account", default="123456789012")
    ap.add_argument("--eks-status", default="ACTIVE")
    ap.add_argument("--eks-version", default="1.32")
    ap.add_argument("--eks-access-key")
    ap.add_argument("--eks-secret-key")
    ap.add_argument("--gke-project", default="test-project")
    ap.add_argument("--gke-location", default="us-central1-a")
    ap.add_argument("--gke-status", default="RUNNING")
    ap.add_argument("--gke-version", default="1.32.4-gke.1106006")
    ap.add_argument("--gke-token")


def build_server(opts):
    srv = base.build_server(opts, CloudHandler)
    with open(opts.ca_file, "rb") as f:
        srv.ca_data = base64.b64encode(f.read()).decode()
    return srv


def main(argv=None):
    opts = base.parse_args(argv, add_options, __doc__.split("\n")[0])
    try:
        srv = build_server(opts)
    except (OSError, ValueError) as e:
        print("fake_clouds: %s" % e, file=sys.stderr)
        return 2
    return base.serve(srv, opts)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""TensorFlow's way of resolving a GCE instance group, as GCEClusterResolver.cluster_spec()
does it through googleapiclient, over plain HTTP with the standard library (so without the
0.3-1 s that importing googleapiclient and building the discovery client adds: a lower bound
for TF's time):

  1. POST {compute}/projects/P/zones/Z/instanceGroups/G/listInstances?orderBy=name&alt=json
     body {"instanceState": "RUNNING"}, again with &pageToken=T while the answer has a
     nextPageToken (no maxResults: the API's 500 a page);
  2. for EACH item: GET {compute}/projects/P/zones/Z/instances/<last segment of item.instance>
     ?alt=json, address networkInterfaces[0].networkIP + ":" + port;
  3. sort the "ip:port" strings.

One keep-alive connection for every request (httplib2 keeps its connection too), the bearer
token from a file on each request.

usage: tf_way.py COMPUTE_URL PROJECT ZONE GROUP PORT TOKEN_FILE
Prints the number of addresses, then one JSON line {"count", "requests", "list_s", "get_s",
"addresses"}.
"""
import http.client
import json
import sys
import time
from urllib.parse import quote, urlencode, urlsplit


def main():
    compute, project, zone, group, port, token_file = sys.argv[1:7]
    with open(token_file) as f:
        token = f.read().strip()
    url = urlsplit(compute)
    conn = (http.client.HTTPSConnection if url.scheme == "https" else http.client.HTTPConnection)(
        url.hostname, url.port, timeout=60)
    headers = {"Authorization": "Bearer " + token, "Accept": "application/json",
               "Content-Type": "application/json"}
    requests = 0

    def call(method, path, query, body=None):
        nonlocal requests
        conn.request(method, "%s%s?%s" % (url.path.rstrip("/"), path, urlencode(query, quote_via=quote)),
                     body=body, headers=headers)
        resp = conn.getresponse()
        data = resp.read()
        requests += 1
        if resp.status != 200:
            raise RuntimeError("HTTP %d for %s: %s" % (resp.status, path, data[:300]))
        return json.loads(data)

    t0 = time.perf_counter()
    names, page_token = [], None
    list_path = "/projects/%s/zones/%s/instanceGroups/%s/listInstances" % (project, zone, group)
    while True:
        query = {"orderBy": "name", "alt": "json"}
        if page_token:
            query["pageToken"] = page_token
        page = call("POST", list_path, query, json.dumps({"instanceState": "RUNNING"}))
        names += [item["instance"].split("/")[-1] for item in page["items"]]  # KeyError if empty, as TF
        page_token = page.get("nextPageToken")
        if not page_token:
            break
    t1 = time.perf_counter()
    workers = []
    for name in names:
        inst = call("GET", "/projects/%s/zones/%s/instances/%s" % (project, zone, name),
                    {"alt": "json"})
        workers.append("%s:%s" % (inst["networkInterfaces"][0]["networkIP"], port))
    workers.sort()
    t2 = time.perf_counter()
    print(len(workers))
    print(json.dumps({"count": len(workers), "requests": requests, "list_s": t1 - t0,
                      "get_s": t2 - t1, "addresses": workers}))


if __name__ == "__main__":
    main()

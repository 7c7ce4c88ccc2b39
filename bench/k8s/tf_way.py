#!/usr/bin/python3
"""TensorFlow's way of resolving a Kubernetes cluster, as KubernetesClusterResolver does it:
one unpaged list_pod_for_all_namespaces(label_selector=...) through the official client
(here Debian's python3-kubernetes), pods sorted by metadata.name, every pod must be Running,
then "<ip>:<port>" per pod.

usage: /usr/bin/python3 tf_way.py SERVER_URL [SELECTOR] [PORT]

TF writes status.host_ip; this takes status.pod_ip instead (the same work) so that its answer
can be compared with cluster-resolve's default --address pod-ip.

Prints the number of addresses on the first line (so the work cannot be skipped), then one
JSON line: {"count", "import_s", "list_s", "sort_s", "addresses"}.
"""
import json
import sys
import time

t0 = time.perf_counter()
from kubernetes import client  # noqa: E402  (the import is part of what is timed)

t1 = time.perf_counter()


def main():
    server = sys.argv[1]
    selector = sys.argv[2] if len(sys.argv) > 2 else "job-name=trainer"
    port = sys.argv[3] if len(sys.argv) > 3 else "8470"
    conf = client.Configuration()
    conf.host = server
    api = client.CoreV1Api(client.ApiClient(conf))
    t2 = time.perf_counter()
    ret = api.list_pod_for_all_namespaces(label_selector=selector)
    t3 = time.perf_counter()
    addresses = []
    for pod in sorted(ret.items, key=lambda p: p.metadata.name):
        if pod.status.phase != "Running":
            raise RuntimeError("pod %s is %s, not Running" % (pod.metadata.name, pod.status.phase))
        addresses.append("%s:%s" % (pod.status.pod_ip, port))
    t4 = time.perf_counter()
    print(len(addresses))
    print(json.dumps({"count": len(addresses), "import_s": t1 - t0, "setup_s": t2 - t1,
                      "list_s": t3 - t2, "sort_s": t4 - t3, "addresses": addresses}))


if __name__ == "__main__":
    main()

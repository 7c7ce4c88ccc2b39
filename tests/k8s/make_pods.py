#!/usr/bin/env python3
"""Generates realistic Kubernetes Pod objects for a Job's pods, shaped like what an API server
returns (labels, annotations with JSON text inside, ownerReferences, managedFields, full spec and
status), about 4 KB each. Output is deterministic: names, uids and hashes derive from the inputs.

usage:
  make_pods.py --count N --job NAME --namespace NS [--indexed] [--phase Running]
               [--ipv6] [--dual-stack] [--start-ip 10.4.0.10] [--first-index 0] [--attempt 0]
               [--pending-names a,b] [--terminating-names x] [--no-ip-names y]
               [--out FILE] [--compact]
  make_pods.py --jobset NAME --replicated-job RJOB:REPLICAS:PODS [--replicated-job ...]
               [--restarts N] [--namespace NS] [the options above but --count and --job]
  make_pods.py --write-fixtures DIR     re-creates the fixture set (tests/k8s/fixtures/)

Prints (or writes to --out) a PodList. Entries of the --*-names lists may be a pod name,
"<job>-<index>" or the bare index. Names: "<job>-<5 chars>" for a plain Job and
"<job>-<index>-<5 chars>" (hostname "<job>-<index>", subdomain "<job>") for an Indexed Job.
--attempt changes the 5 characters, uid and IP hashes, as a replacement pod would.

A JobSet (kubernetes-sigs/jobset) makes one Indexed Job "<jobset>-<rjob>-<i>" per replica of
each replicated job, in the order given, so its pods are "<jobset>-<rjob>-<i>-<pod>-<5 chars>",
hostname "<jobset>-<rjob>-<i>-<pod>", subdomain the JobSet's name, and carry the JobSet's
labels and annotations besides the Job's (see jobset_keys()). IPs count up in that order.

As a module (stdlib only):
  from make_pods import make_pods, make_jobset_pods, pod_list
  pods = make_pods(3, "trainer", "default", indexed=True)    # list of Pod dicts
  pods = make_jobset_pods("js", [("workers", 2, 2), ("driver", 1, 4)], "default")
"""
import argparse
import hashlib
import ipaddress
import json
import os
import sys
import uuid
from datetime import datetime, timedelta, timezone

NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"  # the alphabet Kubernetes uses for generateName
BASE_TIME = datetime(2026, 1, 15, 9, 30, 0, tzinfo=timezone.utc)
IMAGE = "tensorflow/tensorflow:2.15.0"
CONTAINER = "tensorflow"
NODE_COUNT = 4
DEFAULT_START_IP = {4: "10.4.0.10", 6: "fd00:10:4::a"}
INDEX_KEY = "batch.kubernetes.io/job-completion-index"
JOBSET = "jobset.sigs.k8s.io/"
SA_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"


# ---- deterministic "random" values ----

def _digest(*parts):
    return hashlib.sha256("\0".join(str(p) for p in parts).encode()).digest()


def _suffix(*parts):
    return "".join(NAME_ALPHABET[b % len(NAME_ALPHABET)] for b in _digest("name", *parts)[:5])


def _uid(*parts):
    return str(uuid.UUID(bytes=_digest("uid", *parts)[:16], version=4))


def _hex(*parts):
    return _digest("hex", *parts).hex()


def _resource_version(*parts):
    return str(41_000_000 + int.from_bytes(_digest("rv", *parts)[:4], "big") % 9_000_000)


def _time(seconds):
    return (BASE_TIME + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


# ---- pieces of a pod ----

def jobset_keys(js):
    """What the JobSet controller puts on a Job's pod template, as labels and as annotations
    alike (kubernetes-sigs/jobset: the keys in api/jobset/v1alpha2/jobset_types.go, the values
    in pkg/controllers/jobset_controller.go labelAndAnnotateObject, globalJobIndex,
    globalReplicas and jobHashKey, restart-attempt from pkg/constants)."""
    return {JOBSET + "jobset-name": js["name"], JOBSET + "replicatedjob-name": js["rjob"],
            JOBSET + "restart-attempt": str(js["restarts"]),
            JOBSET + "replicatedjob-replicas": str(js["rjob_replicas"]),
            JOBSET + "global-replicas": str(js["global_replicas"]),
            JOBSET + "job-index": str(js["job_index"]),
            JOBSET + "job-key": hashlib.sha1(js["namespaced_job"].encode()).hexdigest(),
            JOBSET + "job-global-index": str(js["global_index"])}


def _labels(pod):
    labels = {"batch.kubernetes.io/controller-uid": pod["job_uid"]}
    if pod["indexed"]:
        labels[INDEX_KEY] = str(pod["index"])
    labels.update({"batch.kubernetes.io/job-name": pod["job"],
                   "controller-uid": pod["job_uid"], "job-name": pod["job"]})
    if pod["jobset"]:
        labels.update(jobset_keys(pod["jobset"]))
    return dict(sorted(labels.items()))  # as the API server writes maps: keys sorted


def _network_status(ips):
    """Multus' annotation: JSON text (indented, with newlines) that repeats the pod IPs."""
    return json.dumps([{"name": "k8s-pod-network", "ips": ips, "default": True}], indent=4)


def _controller_annotations(pod):
    notes = {}
    if pod["indexed"]:
        notes[INDEX_KEY] = str(pod["index"])
    if pod["jobset"]:
        notes.update(jobset_keys(pod["jobset"]))
    return notes


def _annotations(pod):
    notes = _controller_annotations(pod)
    if pod["pod_ips"]:
        notes["k8s.v1.cni.cncf.io/network-status"] = _network_status(pod["pod_ips"])
    return dict(sorted(notes.items()))


def _controller_fields(pod):
    labels = {"f:" + k: {} for k in _labels(pod)}
    container = {".": {}, "f:args": {}, "f:env": {}, "f:image": {}, "f:name": {},
                 "f:ports": {".": {}, 'k:{"containerPort":%d,"protocol":"TCP"}' % pod["port"]: {}},
                 "f:resources": {}}
    spec = {"f:containers": {'k:{"name":"%s"}' % CONTAINER: container},
            "f:dnsPolicy": {}, "f:restartPolicy": {}, "f:schedulerName": {},
            "f:tolerations": {}, "f:volumes": {}}
    if pod["indexed"]:
        spec.update({"f:hostname": {}, "f:subdomain": {}})
    meta = {"f:finalizers": {".": {}, 'v:"batch.kubernetes.io/job-tracking"': {}},
            "f:generateName": {}, "f:labels": dict({".": {}}, **labels),
            "f:ownerReferences": {".": {}, 'k:{"uid":"%s"}' % pod["job_uid"]: {}}}
    if pod["indexed"]:
        meta["f:annotations"] = dict({".": {}}, **{"f:" + k: {} for k in _controller_annotations(pod)})
    return {"f:metadata": meta, "f:spec": spec}


def _kubelet_fields(pod):
    fields = {".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:status": {},
              "f:type": {}}
    conditions = {'k:{"type":"Ready"}': fields}
    status = {"f:conditions": conditions, "f:containerStatuses": {}, "f:hostIP": {},
              "f:hostIPs": {}, "f:phase": {}, "f:startTime": {}}
    if pod["pod_ips"]:
        status["f:podIP"] = {}
        status["f:podIPs"] = dict({".": {}}, **{'k:{"ip":"%s"}' % ip: {".": {}, "f:ip": {}}
                                                for ip in pod["pod_ips"]})
    return {"f:status": status}


def _managed_fields(pod):
    return [
        {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "v1",
         "time": _time(pod["t0"]), "fieldsType": "FieldsV1", "fieldsV1": _controller_fields(pod)},
        {"manager": "kubelet", "operation": "Update", "apiVersion": "v1",
         "time": _time(pod["t0"] + 14), "fieldsType": "FieldsV1", "fieldsV1": _kubelet_fields(pod),
         "subresource": "status"},
    ]


def _metadata(pod):
    meta = {"name": pod["name"], "generateName": pod["generate_name"],
            "namespace": pod["namespace"], "uid": pod["uid"],
            "resourceVersion": _resource_version(pod["uid"]),
            "creationTimestamp": _time(pod["t0"])}
    if pod["terminating"]:
        meta["deletionTimestamp"] = _time(pod["t0"] + 900)
        meta["deletionGracePeriodSeconds"] = 30
    meta.update({
        "labels": _labels(pod),
        "annotations": _annotations(pod),
        "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": pod["job"],
                             "uid": pod["job_uid"], "controller": True,
                             "blockOwnerDeletion": True}],
        "finalizers": ["batch.kubernetes.io/job-tracking"],
        "managedFields": _managed_fields(pod),
    })
    return meta


def _env(pod):
    def field(path):
        return {"fieldRef": {"apiVersion": "v1", "fieldPath": path}}
    env = [{"name": "TF_CPP_MIN_LOG_LEVEL", "value": "2"}]
    if pod["indexed"]:  # the Job controller injects this one for Indexed Jobs
        env.append({"name": "JOB_COMPLETION_INDEX",
                    "valueFrom": field("metadata.annotations['%s']" % INDEX_KEY)})
    return env


def _container(pod):
    resources = {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"}
    return {"name": CONTAINER, "image": pod["image"],
            "args": ["--job-name=" + pod["job"], "--port=%d" % pod["port"]],
            "ports": [{"name": "grpc", "containerPort": pod["port"], "protocol": "TCP"}],
            "env": _env(pod),
            "resources": {"limits": dict(resources), "requests": dict(resources)},
            "volumeMounts": [{"name": pod["token_volume"], "readOnly": True, "mountPath": SA_DIR}],
            "terminationMessagePath": "/dev/termination-log",
            "terminationMessagePolicy": "File", "imagePullPolicy": "IfNotPresent"}


def _volumes(pod):
    projected = {"sources": [
        {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
        {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
        {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {
            "apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}}], "defaultMode": 420}
    return [{"name": pod["token_volume"], "projected": projected}]


def _tolerations():
    return [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
             "tolerationSeconds": 300},
            {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute",
             "tolerationSeconds": 300}]


def _spec(pod):
    spec = {"volumes": _volumes(pod), "containers": [_container(pod)],
            "restartPolicy": "Never", "terminationGracePeriodSeconds": 30,
            "dnsPolicy": "ClusterFirst", "serviceAccountName": "default",
            "serviceAccount": "default", "nodeName": pod["node"], "securityContext": {}}
    if pod["indexed"]:  # a JobSet's subdomain is its own name (GetSubdomain's default)
        spec["hostname"] = "%s-%d" % (pod["job"], pod["index"])
        spec["subdomain"] = pod["jobset"]["name"] if pod["jobset"] else pod["job"]
    spec.update({"schedulerName": "default-scheduler", "tolerations": _tolerations(),
                 "priority": 0, "enableServiceLinks": True,
                 "preemptionPolicy": "PreemptLowerPriority"})
    return spec


def _conditions(pod, ready):
    def cond(kind, ok, seconds, reason=None):
        c = {"type": kind, "status": "True" if ok else "False", "lastProbeTime": None,
             "lastTransitionTime": _time(pod["t0"] + seconds)}
        if reason and not ok:
            c["reason"] = reason
            c["message"] = "containers with unready status: [%s]" % CONTAINER
        return c
    started = pod["phase"] not in ("Pending",)
    return [cond("PodReadyToStartContainers", started, 3),
            cond("Initialized", True, 1),
            cond("Ready", ready, 14, "ContainersNotReady"),
            cond("ContainersReady", ready, 14, "ContainersNotReady"),
            cond("PodScheduled", True, 1)]


def _container_state(pod):
    phase = pod["phase"]
    if phase == "Pending":
        return {"waiting": {"reason": "ContainerCreating"}}
    if phase in ("Succeeded", "Failed"):
        code = 0 if phase == "Succeeded" else 1
        return {"terminated": {"exitCode": code, "reason": "Completed" if code == 0 else "Error",
                               "startedAt": _time(pod["t0"] + 12),
                               "finishedAt": _time(pod["t0"] + 3600),
                               "containerID": "containerd://" + _hex(pod["uid"], "container")}}
    return {"running": {"startedAt": _time(pod["t0"] + 12)}}


def _pulled_image(image):
    """How the kubelet reports an image: with its registry ("docker.io/..." by default)."""
    first = image.split("/")[0]
    if "/" in image and ("." in first or ":" in first or first == "localhost"):
        return image
    return "docker.io/" + (image if "/" in image else "library/" + image)


def _container_status(pod, ready):
    phase = pod["phase"]
    image = _pulled_image(pod["image"])
    st = {"name": CONTAINER, "state": _container_state(pod), "lastState": {}, "ready": ready,
          "restartCount": 0, "image": image}
    if phase == "Pending":
        st.update({"imageID": "", "started": False})
        return st
    st["imageID"] = image.rsplit(":", 1)[0] + "@sha256:" + _hex(image)
    st["containerID"] = "containerd://" + _hex(pod["uid"], "container")
    st["started"] = phase == "Running"
    return st


def _status(pod):
    ready = pod["phase"] == "Running"
    status = {"phase": pod["phase"], "conditions": _conditions(pod, ready),
              "hostIP": pod["host_ip"], "hostIPs": [{"ip": pod["host_ip"]}]}
    if pod["pod_ips"]:
        status["podIP"] = pod["pod_ips"][0]
        status["podIPs"] = [{"ip": ip} for ip in pod["pod_ips"]]
    status.update({"startTime": _time(pod["t0"] + 1),
                   "containerStatuses": [_container_status(pod, ready)],
                   "qosClass": "Guaranteed"})
    return status


# ---- whole pods ----

def _chosen(names, pod_name, job, index):
    return bool({pod_name, "%s-%d" % (job, index), str(index)} & set(names or ()))


def _pod_ips(offset, ipv6, dual_stack, start_ip):
    family = 6 if ipv6 else 4
    first = ipaddress.ip_address(start_ip or DEFAULT_START_IP[family])
    ips = [str(first + offset)]
    if dual_stack:
        other = ipaddress.ip_address(DEFAULT_START_IP[10 - family])
        ips.append(str(other + offset))
    return ips


def _host_ip(node, ipv6):
    return "fd00:10:128::%x" % (10 + node) if ipv6 else "10.128.0.%d" % (10 + node)


def _facts(job, namespace, index, offset, opts):
    """The handful of values every part of one pod is built from."""
    indexed = opts["indexed"]
    stem = "%s-%d-" % (job, index) if indexed else job + "-"
    name = stem + _suffix(namespace, job, index, opts["attempt"])
    phase = opts["phase"]
    if _chosen(opts["pending_names"], name, job, index):
        phase = "Pending"
    node = int.from_bytes(_digest("node", namespace, name)[:2], "big") % NODE_COUNT
    ips = _pod_ips(offset, opts["ipv6"], opts["dual_stack"], opts["start_ip"])
    if phase == "Pending" or _chosen(opts["no_ip_names"], name, job, index):
        ips = []
    uid = _uid(namespace, name)
    return {"name": name, "generate_name": stem, "namespace": namespace, "job": job,
            "job_uid": _uid(namespace, "job", job), "uid": uid, "index": index,
            "indexed": indexed, "phase": phase, "pod_ips": ips,
            "terminating": _chosen(opts["terminating_names"], name, job, index),
            "node": "gpu-pool-1-node-%d" % node, "host_ip": _host_ip(node, opts["ipv6"]),
            "t0": 60 * opts["attempt"] + index, "image": opts["image"], "port": opts["port"],
            "token_volume": "kube-api-access-" + _suffix(uid, "volume"),
            "jobset": opts.get("jobset")}


def make_pod(facts):
    return {"metadata": _metadata(facts), "spec": _spec(facts), "status": _status(facts)}


def make_pods(count, job, namespace, indexed=False, phase="Running", ipv6=False,
              dual_stack=False, start_ip=None, pending_names=(), terminating_names=(),
              no_ip_names=(), first_index=0, attempt=0, image=IMAGE, port=2222):
    """Returns `count` Pod dicts (as PodList items: no kind/apiVersion) of one Job."""
    opts = dict(indexed=indexed, phase=phase, ipv6=ipv6, dual_stack=dual_stack,
                start_ip=start_ip, pending_names=pending_names,
                terminating_names=terminating_names, no_ip_names=no_ip_names,
                attempt=attempt, image=image, port=port)
    return [make_pod(_facts(job, namespace, first_index + i, i, opts)) for i in range(count)]


def make_jobset_pods(name, replicated_jobs, namespace="default", restarts=0, phase="Running",
                     ipv6=False, dual_stack=False, start_ip=None, pending_names=(),
                     terminating_names=(), no_ip_names=(), attempt=0, image=IMAGE, port=2222):
    """The pods of JobSet `name`: replicated_jobs is [(rjob, replicas, pods per Job)] in the
    JobSet's spec order, which is the order of job-global-index. The --*-names lists name pods
    as for make_pods (a pod name, "<job>-<index>" with the Job's full name, or an index)."""
    total = sum(replicas for _, replicas, _ in replicated_jobs)
    pods, global_index, offset = [], 0, 0
    for rjob, replicas, parallelism in replicated_jobs:
        for job_index in range(replicas):
            job = "%s-%s-%d" % (name, rjob, job_index)
            js = {"name": name, "rjob": rjob, "job_index": job_index, "restarts": restarts,
                  "global_index": global_index, "rjob_replicas": replicas,
                  "global_replicas": total, "namespaced_job": namespace + "/" + job}
            opts = dict(indexed=True, phase=phase, ipv6=ipv6, dual_stack=dual_stack,
                        start_ip=start_ip, pending_names=pending_names,
                        terminating_names=terminating_names, no_ip_names=no_ip_names,
                        attempt=attempt, image=image, port=port, jobset=js)
            pods += [make_pod(_facts(job, namespace, i, offset + i, opts)) for i in range(parallelism)]
            global_index += 1
            offset += parallelism
    return pods


def pod_key(pod):
    """The order a real API server lists pods in: by etcd key "<namespace>/<name>"."""
    return pod["metadata"]["namespace"] + "/" + pod["metadata"]["name"]


def pod_list(pods, resource_version=None):
    """Wraps pods in a PodList, sorted as the API server sorts them."""
    if resource_version is None:
        resource_version = max([int(p["metadata"]["resourceVersion"]) for p in pods] + [0]) + 1
    return {"kind": "PodList", "apiVersion": "v1",
            "metadata": {"resourceVersion": str(resource_version)},
            "items": sorted(pods, key=pod_key)}


# ---- the checked-in fixture set ----

def small_fixture():
    """pods_small.json: 3 Running pods of Indexed Job trainer (default), 2 of Job ps (default),
    1 of trainer in namespace other, 1 Pending pod of Job eval, and a terminating replaced
    pod of trainer (index 1, attempt 1)."""
    pods = (make_pods(3, "trainer", "default", indexed=True, start_ip="10.4.0.10")
            + make_pods(2, "ps", "default", start_ip="10.4.1.10")
            + make_pods(1, "trainer", "other", indexed=True, start_ip="10.4.2.10")
            + make_pods(1, "eval", "default", pending_names=["0"])
            + make_pods(1, "trainer", "default", indexed=True, first_index=1, attempt=1,
                        start_ip="10.4.0.9", terminating_names=["1"]))
    return pod_list(pods)


def jobset_fixture():
    """jobset.json: JobSet js (default) with replicated jobs workers then driver, 2 Jobs of 2
    pods each (job-global-index 0-1 workers', 2-3 driver's, so natural name order is not the
    JobSet's order, and every Job has completion indices 0 and 1), with a terminating
    replaced pod of js-workers-1 index 0; JobSet other (2 Jobs of 1 pod); and the plain
    Indexed Job solo (2 pods), all Running."""
    pods = (make_jobset_pods("js", [("workers", 2, 2), ("driver", 2, 2)], "default",
                             start_ip="10.4.3.10")
            + make_jobset_pods("js", [("workers", 2, 2)], "default", start_ip="10.4.3.30",
                               attempt=1, terminating_names=["js-workers-1-0"])[2:3]
            + make_jobset_pods("other", [("slice", 2, 1)], "default", start_ip="10.4.4.10")
            + make_pods(2, "solo", "default", indexed=True, start_ip="10.4.5.10"))
    return pod_list(pods)


FIXTURES = {"pods_small.json": small_fixture, "jobset.json": jobset_fixture}


def dump(obj, path=None, compact=False):
    text = (json.dumps(obj, separators=(",", ":")) if compact else json.dumps(obj, indent=1)) + "\n"
    if path is None:
        sys.stdout.write(text)
        return
    if os.path.exists(path) and not os.path.isfile(path):  # /dev/stdout, a pipe: never replace it
        with open(path, "w") as f:
            f.write(text)
        return
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def write_fixtures(directory):
    os.makedirs(directory, exist_ok=True)
    for name, build in FIXTURES.items():
        dump(build(), os.path.join(directory, name))


def _names(text):
    return [n for n in (text or "").split(",") if n]


def _replicated_job(ap, text):
    """"workers:2:4" -> ("workers", 2, 4)."""
    parts = text.split(":")
    if len(parts) != 3 or not parts[0] or not all(p.isdigit() for p in parts[1:]):
        ap.error("--replicated-job wants RJOB:REPLICAS:PODS, got %r" % text)
    return parts[0], int(parts[1]), int(parts[2])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int)
    ap.add_argument("--job")
    ap.add_argument("--jobset")
    ap.add_argument("--replicated-job", action="append", default=[], metavar="RJOB:REPLICAS:PODS")
    ap.add_argument("--restarts", type=int, default=0)
    ap.add_argument("--namespace", default="default")
    ap.add_argument("--indexed", action="store_true")
    ap.add_argument("--phase", default="Running",
                    choices=["Running", "Pending", "Succeeded", "Failed", "Unknown"])
    ap.add_argument("--ipv6", action="store_true")
    ap.add_argument("--dual-stack", action="store_true")
    ap.add_argument("--start-ip")
    ap.add_argument("--first-index", type=int, default=0)
    ap.add_argument("--attempt", type=int, default=0)
    ap.add_argument("--pending-names")
    ap.add_argument("--terminating-names")
    ap.add_argument("--no-ip-names")
    ap.add_argument("--out")
    ap.add_argument("--compact", action="store_true", help="no indentation (for big lists)")
    ap.add_argument("--write-fixtures", metavar="DIR")
    a = ap.parse_args(argv)
    if a.write_fixtures:
        write_fixtures(a.write_fixtures)
        return 0
    common = dict(phase=a.phase, ipv6=a.ipv6, dual_stack=a.dual_stack, start_ip=a.start_ip,
                  pending_names=_names(a.pending_names),
                  terminating_names=_names(a.terminating_names),
                  no_ip_names=_names(a.no_ip_names), attempt=a.attempt)
    if a.jobset:
        rjobs = [_replicated_job(ap, r) for r in a.replicated_job]
        if not rjobs:
            ap.error("--jobset needs --replicated-job RJOB:REPLICAS:PODS")
        pods = make_jobset_pods(a.jobset, rjobs, a.namespace, restarts=a.restarts, **common)
    elif a.count is None or not a.job:
        ap.error("--count and --job are required (or --jobset, or --write-fixtures DIR)")
    else:
        pods = make_pods(a.count, a.job, a.namespace, indexed=a.indexed,
                         first_index=a.first_index, **common)
    dump(pod_list(pods), a.out, a.compact)
    return 0


if __name__ == "__main__":
    sys.exit(main())

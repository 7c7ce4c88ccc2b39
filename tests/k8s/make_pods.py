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
  --jobs-out FILE (either form) also writes the pods' Job(s) as a JobList, --jobset-out FILE
  (with --jobset) the JobSet as a JobSetList: objects for fake_api.py --jobs and --jobsets

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
  job = make_job("trainer", "default", completions=3, pods=trainer_pods)  # status from pods
  jobset = make_jobset("js", [("workers", 2, 2), ("driver", 1, 4)], "default", pods=js_pods)
  jobs = make_jobset_jobs("js", [("workers", 2, 2), ("driver", 1, 4)], "default", js_pods)
  job_list(jobs), jobset_list([jobset])    # for fake_api.py --jobs and --jobsets
The Job and JobSet shapes, and where they come from, are described above make_job().
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


# ---- the Jobs and JobSets the pods above belong to ----
#
# Shapes (field order as kube-apiserver writes its Go structs; what each controller writes):
# - A Job as kube-apiserver 1.32 returns it: batch/v1 defaulting (completionMode, suspend,
#   backoffLimit 6, manualSelector false, podReplacementPolicy TerminatingOrFailed), the
#   registry's generated selector and the four controller-uid/job-name template labels, the
#   template's labels copied to a Job created without labels (SetDefaults_Job), PodSpec and
#   Container defaults in the template; status as the Job controller (pkg/controller/job)
#   writes it: active and ready (non-terminal pods without deletionTimestamp), terminating,
#   succeeded, failed, completedIndexes, startTime, uncountedTerminatedPods {}, and when done
#   SuccessCriteriaMet + Complete (1.31+: the interim condition first).
# - A JobSet and its Jobs as kubernetes-sigs/jobset v0.8.2 writes them, commit
#   bba74dba625a36c5566494ebef90b8c806132672 (2025-07-09; the release whose label set
#   jobset_keys() above reproduces: v0.9.0 added jobset-uid and the group-* keys): the webhook's
#   defaults (pkg/webhooks/jobset_webhook.go Default: completionMode Indexed, successPolicy All,
#   startupPolicy AnyOrder, network.enableDNSHostnames and publishNotReadyAddresses true;
#   replicas defaults to 1 in the CRD schema), constructJob and labelAndAnnotateObject
#   (pkg/controllers/jobset_controller.go: the JobSet keys as labels and annotations on the
#   Job and its pod template, the template's subdomain GetSubdomain(js): network.subdomain,
#   else the JobSet's name; suspend false; the JobSet as controller owner), and
#   calculateReplicatedJobStatuses (replicatedJobsStatus; Go map order there, spec order
#   here). Types: api/jobset/v1alpha2/jobset_types.go at that commit.
# Pod hostnames are "<job>-<index>" (the Job controller sets them; a template has none), so in
# a JobSet "<jobset>-<rjob>-<jobindex>-<podindex>".
JOBSET_COMMIT = "bba74dba625a36c5566494ebef90b8c806132672"  # kubernetes-sigs/jobset v0.8.2
JOBSET_API = "jobset.x-k8s.io/v1alpha2"
JOB_LABELS = ("batch.kubernetes.io/controller-uid", "batch.kubernetes.io/job-name",
              "controller-uid", "job-name")


# the merge keys of the lists _fields_v1 meets (the rest are atomic)
LIST_KEYS = {"containers": ("name",), "env": ("name",), "ports": ("containerPort", "protocol"),
             "ownerReferences": ("uid",), "replicatedJobs": ("name",),
             "replicatedJobsStatus": ("name",), "conditions": ("type",)}


def _fields_v1(obj, name=None):
    """A managedFields fieldsV1 set naming every field of obj; the elements of a list with a
    merge key (LIST_KEYS) as 'k:{"key":value}'."""
    if isinstance(obj, dict):
        return {"f:" + k: _fields_v1(v, k) for k, v in obj.items()}
    keys = LIST_KEYS.get(name)
    if keys and isinstance(obj, list):
        return {"k:" + json.dumps({k: x[k] for k in keys}, separators=(",", ":")):
                dict({".": {}}, **_fields_v1(x)) for x in obj}
    return {}


def _job_template_container(job, image, port, defaulted=True):
    """The container of a Job's pod template: the pods' container without what admission and
    the Job controller add to a pod (the service account token mount, JOB_COMPLETION_INDEX);
    with the API server's Container defaults unless it sits in a JobSet (a custom resource:
    only the CRD schema's defaults, such as a port's protocol)."""
    resources = {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"}
    c = {"name": CONTAINER, "image": image, "args": ["--job-name=" + job, "--port=%d" % port],
         "ports": [{"name": "grpc", "containerPort": port, "protocol": "TCP"}],
         "env": [{"name": "TF_CPP_MIN_LOG_LEVEL", "value": "2"}],
         "resources": {"limits": dict(resources), "requests": dict(resources)}}
    if defaulted:
        c.update({"terminationMessagePath": "/dev/termination-log",
                  "terminationMessagePolicy": "File", "imagePullPolicy": "IfNotPresent"})
    return c


def _job_pods(pods, job, namespace):
    return [p for p in pods or () if p["metadata"]["namespace"] == namespace
            and (p["metadata"].get("labels") or {}).get("job-name") == job]


def _index_ranges(indexes):
    """[0, 1, 2, 5] -> "0-2,5" (the Job controller's completedIndexes: three or more in a row as
    a range, two as "a,b")."""
    out, run = [], []
    for i in sorted(set(indexes)) + [None]:
        if run and (i is None or i != run[-1] + 1):
            out.append("%d-%d" % (run[0], run[-1]) if len(run) > 2 else
                       ",".join(str(r) for r in run))
            run = []
        if i is not None:
            run.append(i)
    return ",".join(out)


def _pod_ready(pod):
    return any(c["type"] == "Ready" and c["status"] == "True"
               for c in pod["status"].get("conditions") or ())


def _job_status(pods, completions, indexed, backoff_limit, t_start):
    """A Job's status from its pods, as the Job controller counts them."""
    finished = ("Succeeded", "Failed")
    live = [p for p in pods if p["status"]["phase"] not in finished]
    active = [p for p in live if not p["metadata"].get("deletionTimestamp")]
    terminating = len(live) - len(active)
    done = [p for p in pods if p["status"]["phase"] == "Succeeded"]
    failed = len(pods) - len(live) - len(done)
    if indexed:
        indexes = [int(p["metadata"]["annotations"][INDEX_KEY]) for p in done]
        succeeded = len(set(indexes))
    else:
        indexes, succeeded = [], len(done)
    status = {}
    conditions, end = [], None
    if succeeded >= completions:
        end = max([_pod_finished_at(p) for p in done] + [t_start]) + 1
        message = "Reached expected number of succeeded pods"
        conditions = [("SuccessCriteriaMet", "CompletionsReached", message),
                      ("Complete", "CompletionsReached", message)]
    elif failed > backoff_limit:
        end = max([_pod_finished_at(p) for p in pods if p["status"]["phase"] == "Failed"]
                  + [t_start]) + 1
        message = "Job has reached the specified backoff limit"
        conditions = [("FailureTarget", "BackoffLimitExceeded", message),
                      ("Failed", "BackoffLimitExceeded", message)]
    if conditions:
        status["conditions"] = [{"type": kind, "status": "True", "lastProbeTime": _time(end),
                                 "lastTransitionTime": _time(end), "reason": reason,
                                 "message": message} for kind, reason, message in conditions]
    status["startTime"] = _time(t_start)
    if end is not None and conditions[-1][0] == "Complete":
        status["completionTime"] = _time(end)
    if active and end is None:
        status["active"] = len(active)
    if succeeded:
        status["succeeded"] = succeeded
    if failed:
        status["failed"] = failed
    status["terminating"] = terminating
    if indexes:
        status["completedIndexes"] = _index_ranges(indexes)
    status["uncountedTerminatedPods"] = {}
    status["ready"] = 0 if end is not None else sum(1 for p in active if _pod_ready(p))
    return status


def _pod_finished_at(pod):
    """Seconds after BASE_TIME at which a finished pod's container ended."""
    for st in pod["status"].get("containerStatuses") or ():
        ended = (st.get("state") or {}).get("terminated", {}).get("finishedAt")
        if ended:
            t = datetime.strptime(ended, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
            return int((t - BASE_TIME).total_seconds())
    return 0


def make_job(job, namespace="default", completions=1, parallelism=None, indexed=True,
             pods=None, image=IMAGE, port=2222, backoff_limit=6, _jobset=None):
    """The Job `job` as GET /apis/batch/v1/namespaces/NS/jobs/NAME returns it (with kind and
    apiVersion), matching the pods make_pods() makes for it: the same uid (their
    ownerReference), template labels and container, subdomain "<job>" when indexed. Its
    status is counted from `pods` (any pod list: those labelled job-name=<job> in the
    namespace are its own); pods=None counts `parallelism` Running, Ready pods of make_pods()."""
    parallelism = completions if parallelism is None else parallelism
    if pods is None:
        pods = make_pods(parallelism, job, namespace, indexed=indexed, image=image, port=port)
    uid = _uid(namespace, "job", job)
    t0 = -2  # created two seconds before its first pod
    js = _jobset
    job_labels = {"batch.kubernetes.io/controller-uid": uid, "batch.kubernetes.io/job-name": job,
                  "controller-uid": uid, "job-name": job}
    template_labels = dict(job_labels, **(jobset_keys(js) if js else {}))
    template_meta = {"creationTimestamp": None, "labels": dict(sorted(template_labels.items()))}
    if js:
        template_meta["annotations"] = dict(sorted(jobset_keys(js).items()))
    pod_spec = {"containers": [_job_template_container(job, image, port)],
                "restartPolicy": "Never", "terminationGracePeriodSeconds": 30,
                "dnsPolicy": "ClusterFirst", "securityContext": {}}
    if indexed:
        pod_spec["subdomain"] = js["subdomain"] if js else job
    pod_spec["schedulerName"] = "default-scheduler"
    spec = {"parallelism": parallelism, "completions": completions,
            "backoffLimit": backoff_limit,
            "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}},
            "manualSelector": False,
            "template": {"metadata": template_meta, "spec": pod_spec},
            "completionMode": "Indexed" if indexed else "NonIndexed", "suspend": False,
            "podReplacementPolicy": "TerminatingOrFailed"}
    status = _job_status(_job_pods(pods, job, namespace), completions, indexed, backoff_limit,
                         t0)
    meta = {"name": job, "namespace": namespace, "uid": uid,
            "resourceVersion": _resource_version(uid, "job", _canonical(status)),
            "generation": 1, "creationTimestamp": _time(t0)}
    if js:  # the JobSet's keys, and the JobSet as its controller
        meta["labels"] = dict(sorted(jobset_keys(js).items()))
        meta["annotations"] = dict(sorted(jobset_keys(js).items()))
        meta["ownerReferences"] = [{"apiVersion": JOBSET_API, "kind": "JobSet",
                                    "name": js["name"], "uid": js["uid"], "controller": True,
                                    "blockOwnerDeletion": True}]
    else:  # created without labels: SetDefaults_Job copies the template's
        meta["labels"] = dict(sorted(job_labels.items()))
    creator = {"apiVersion": "batch/v1", "spec": {k: spec[k] for k in
                                                 ("parallelism", "completions", "template")}}
    if indexed:
        creator["spec"]["completionMode"] = "Indexed"
    if js:
        creator["metadata"] = {"labels": meta["labels"], "annotations": meta["annotations"],
                               "ownerReferences": meta["ownerReferences"]}
        creator["spec"]["suspend"] = False
    meta["managedFields"] = [
        {"manager": "manager" if js else "kubectl-create", "operation": "Update",
         "apiVersion": "batch/v1", "time": _time(t0), "fieldsType": "FieldsV1",
         "fieldsV1": _fields_v1({k: v for k, v in creator.items() if k != "apiVersion"})},
        {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "batch/v1",
         "time": _time(t0 + 15), "fieldsType": "FieldsV1",
         "fieldsV1": _fields_v1({"status": status}), "subresource": "status"}]
    return {"kind": "Job", "apiVersion": "batch/v1", "metadata": meta, "spec": spec,
            "status": status}


def _canonical(obj):
    """obj as one string (a resourceVersion that changes when the status does)."""
    return json.dumps(obj, sort_keys=True)


def _jobset_facts(name, namespace, replicated_jobs, restarts, subdomain):
    """Per Job of the JobSet, in spec order: (rjob, job index, Job name, pods per Job, the facts
    jobset_keys() and make_job() read)."""
    total = sum(replicas for _, replicas, _ in replicated_jobs)
    out, global_index = [], 0
    for rjob, replicas, parallelism in replicated_jobs:
        for job_index in range(replicas):
            job = "%s-%s-%d" % (name, rjob, job_index)
            out.append((rjob, job_index, job, parallelism, {
                "name": name, "rjob": rjob, "job_index": job_index, "restarts": restarts,
                "global_index": global_index, "rjob_replicas": replicas,
                "global_replicas": total, "namespaced_job": namespace + "/" + job,
                "uid": _uid(namespace, "jobset", name), "subdomain": subdomain or name}))
            global_index += 1
    return out


def make_jobset_jobs(name, replicated_jobs, namespace="default", pods=None, restarts=0,
                     image=IMAGE, port=2222, subdomain=None):
    """The Jobs of JobSet `name` (replicated_jobs as for make_jobset_pods), in the JobSet's
    order, as GET returns each; their statuses counted from `pods` (None: every Job's pods
    Running and Ready, as make_jobset_pods makes them). subdomain: the JobSet's
    network.subdomain (make_jobset_pods's pods always have the JobSet's name)."""
    if pods is None:
        pods = make_jobset_pods(name, replicated_jobs, namespace, restarts=restarts,
                                image=image, port=port)
    return [make_job(job, namespace, completions=n, parallelism=n, indexed=True, pods=pods,
                     image=image, port=port, _jobset=js)
            for _, _, job, n, js in _jobset_facts(name, namespace, replicated_jobs, restarts,
                                                  subdomain)]


def make_jobset(name, replicated_jobs, namespace="default", pods=None, restarts=0,
                image=IMAGE, port=2222, subdomain=None):
    """JobSet `name` as GET /apis/jobset.x-k8s.io/v1alpha2/namespaces/NS/jobsets/NAME returns
    it: replicated_jobs [(rjob, replicas, pods per Job)] as for make_jobset_pods, each a
    template of an Indexed Job with completions = parallelism = pods per Job; the webhook's
    defaults; status.replicatedJobsStatus counted from its Jobs (make_jobset_jobs with the same
    pods), and Completed when every Job is. subdomain: spec.network.subdomain (unset: the
    JobSet's name, which make_jobset_pods's pods use)."""
    jobs = make_jobset_jobs(name, replicated_jobs, namespace, pods, restarts, image, port,
                            subdomain)
    rjobs = []
    for rjob, replicas, parallelism in replicated_jobs:
        container = _job_template_container("%s-%s-0" % (name, rjob), image, port,
                                            defaulted=False)
        rjobs.append({"name": rjob, "replicas": replicas, "template": {
            "metadata": {}, "spec": {
                "parallelism": parallelism, "completions": parallelism,
                "completionMode": "Indexed",
                "template": {"metadata": {}, "spec": {"containers": [container],
                                                      "restartPolicy": "Never"}}}}})
    network = {"enableDNSHostnames": True}
    if subdomain:
        network["subdomain"] = subdomain
    network["publishNotReadyAddresses"] = True
    spec = {"replicatedJobs": rjobs, "network": network, "successPolicy": {"operator": "All"},
            "startupPolicy": {"startupPolicyOrder": "AnyOrder"}}
    counts = {rjob: dict(ready=0, succeeded=0, failed=0, active=0, suspended=0)
              for rjob, _, _ in replicated_jobs}
    for job in jobs:
        c = counts[job["metadata"]["labels"][JOBSET + "replicatedjob-name"]]
        st, want = job["status"], min(job["spec"]["parallelism"], job["spec"]["completions"])
        ended = {x["type"] for x in st.get("conditions") or () if x["status"] == "True"}
        if "Complete" in ended:
            c["succeeded"] += 1
        elif "Failed" in ended:
            c["failed"] += 1
        else:
            c["ready"] += (st.get("succeeded", 0) + st.get("ready", 0)) >= want
            c["active"] += st.get("active", 0) > 0
    status = {}
    uid = _uid(namespace, "jobset", name)
    t0 = -3  # created before its Jobs
    if all(c["succeeded"] == replicas for (rjob, replicas, _), c in
           zip(replicated_jobs, counts.values())):
        status["conditions"] = [{"type": "Completed", "status": "True",
                                 "lastTransitionTime": max(
                                     j["status"]["completionTime"] for j in jobs),
                                 "reason": "AllJobsCompleted",
                                 "message": "jobset completed successfully"}]
    if restarts:
        status["restarts"] = restarts
    if "conditions" in status:
        status["terminalState"] = "Completed"
    status["replicatedJobsStatus"] = [dict({"name": rjob}, **counts[rjob])
                                      for rjob, _, _ in replicated_jobs]
    meta = {"creationTimestamp": _time(t0), "generation": 1,
            "managedFields": [
                {"apiVersion": JOBSET_API, "fieldsType": "FieldsV1",
                 "fieldsV1": _fields_v1({"spec": {"replicatedJobs": rjobs}}),
                 "manager": "kubectl-create", "operation": "Update", "time": _time(t0)},
                {"apiVersion": JOBSET_API, "fieldsType": "FieldsV1",
                 "fieldsV1": _fields_v1({"status": status}), "manager": "manager",
                 "operation": "Update", "subresource": "status", "time": _time(t0 + 16)}],
            "name": name, "namespace": namespace,
            "resourceVersion": _resource_version(uid, "jobset", _canonical(status)),
            "uid": uid}
    return {"apiVersion": JOBSET_API, "kind": "JobSet", "metadata": meta, "spec": spec,
            "status": status}


def job_list(jobs, resource_version=None):
    """A JobList as kube-apiserver lists Jobs: sorted by "<namespace>/<name>", items without
    kind and apiVersion."""
    items = [{k: v for k, v in j.items() if k not in ("kind", "apiVersion")}
             for j in sorted(jobs, key=pod_key)]
    if resource_version is None:
        resource_version = max([int(j["metadata"]["resourceVersion"]) for j in jobs] + [0]) + 1
    return {"kind": "JobList", "apiVersion": "batch/v1",
            "metadata": {"resourceVersion": str(resource_version)}, "items": items}


def jobset_list(jobsets, resource_version=None):
    """A JobSetList as apiextensions-apiserver lists JobSets (items whole, sorted by key)."""
    if resource_version is None:
        resource_version = max([int(j["metadata"]["resourceVersion"]) for j in jobsets]
                               + [0]) + 1
    return {"apiVersion": JOBSET_API, "items": sorted(jobsets, key=pod_key),
            "kind": "JobSetList",
            "metadata": {"continue": "", "resourceVersion": str(resource_version)}}


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
    ap.add_argument("--jobs-out", metavar="FILE", help="also write the Job(s) as a JobList")
    ap.add_argument("--jobset-out", metavar="FILE", help="(--jobset) also write the JobSet "
                    "as a JobSetList")
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
        if a.jobs_out:
            dump(job_list(make_jobset_jobs(a.jobset, rjobs, a.namespace, pods, a.restarts)),
                 a.jobs_out, a.compact)
        if a.jobset_out:
            dump(jobset_list([make_jobset(a.jobset, rjobs, a.namespace, pods, a.restarts)]),
                 a.jobset_out, a.compact)
    elif a.count is None or not a.job:
        ap.error("--count and --job are required (or --jobset, or --write-fixtures DIR)")
    else:
        pods = make_pods(a.count, a.job, a.namespace, indexed=a.indexed,
                         first_index=a.first_index, **common)
        if a.jobs_out:  # completions: every index the pods cover
            completions = a.first_index + a.count if a.indexed else a.count
            dump(job_list([make_job(a.job, a.namespace, completions, a.count, a.indexed,
                                    pods)]), a.jobs_out, a.compact)
    if a.jobset_out and not a.jobset:
        ap.error("--jobset-out goes with --jobset")
    dump(pod_list(pods), a.out, a.compact)
    return 0


if __name__ == "__main__":
    sys.exit(main())

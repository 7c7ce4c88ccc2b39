#!/usr/bin/env python3
"""Generates realistic Google Cloud resources for tests/gcp/fake_gcp.py: full Compute Engine
Instance resources (about 3 KB each: id, zone and machineType URLs, status, networkInterfaces
with networkIP, network/subnetwork URLs and accessConfigs, fingerprints, disks, metadata items,
serviceAccounts with scopes, scheduling, labels, tags, timestamps, selfLink...) of the members of
an instance group, zonal or regional (spread over the region's zones as a regional managed group
does), the InstanceGroup itself, and Cloud TPU Node resources (v2 TPU VMs and v1 TPU nodes, 1 to
64 network endpoints). Everything is deterministic: names, ids, addresses and hashes derive
from the inputs.

usage:
  make_gcp.py group --name G --count N [--project P] [--zone Z | --region R]
                    [--names suffix|w] [--status NAME=STATUS]... [--named-port grpc:8470]
                    [--out FILE] [--compact]
      prints a COMPUTE.json ({"project", "instances", "instanceGroups"}) for fake_gcp --compute.
      Names: "<group>-<4 chars>" (a managed group's) or, with --names w, "w-1".."w-N" (to test
      natural order); addresses are handed out in creation order from the region's default
      subnet (us-east1: 10.142.0.2, ...), creation order being a fixed shuffle of the names.
  make_gcp.py tpu --name N [--endpoints K] [--api v1|v2] [--project P] [--zone Z]
                  [--state READY] [--health HEALTHY|none] [--ipv6] [--out FILE] [--compact]
      prints a NODES.json ({"projects/P/locations/Z/nodes/N": Node}) for fake_gcp --tpu-nodes.

As a module (stdlib only):
  from make_gcp import make_instance, make_instances, make_group, compute_doc, make_tpu_node
  insts = make_instances(10, "workers", zone="us-east1-d")
  doc = compute_doc([make_group("workers", insts, zone="us-east1-d")], insts)
  natural_key("w-10"), expected_addresses(insts, 8470)   # what a resolve should answer
"""
import argparse
import base64
import hashlib
import ipaddress
import json
import random
import re
import sys
from datetime import datetime, timedelta, timezone

COMPUTE = "https://www.googleapis.com/compute/v1/"
PROJECT = "test-project"
PROJECT_NUMBER = "123456789012"
BASE_TIME = datetime(2026, 1, 15, 1, 30, 0, tzinfo=timezone(timedelta(hours=-8)))
NAME_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"
# the default (auto mode) VPC's subnet of each region
SUBNETS = {"us-central1": "10.128.0.0/20", "europe-west1": "10.132.0.0/20",
           "us-west1": "10.138.0.0/20", "asia-east1": "10.140.0.0/20",
           "us-east1": "10.142.0.0/20", "asia-northeast1": "10.146.0.0/20",
           "asia-southeast1": "10.148.0.0/20", "us-east4": "10.150.0.0/20",
           "europe-west4": "10.164.0.0/20", "us-west4": "10.182.0.0/20"}
REGION_ZONES = {"us-central1": ["us-central1-a", "us-central1-b", "us-central1-c",
                                "us-central1-f"],
                "us-east1": ["us-east1-b", "us-east1-c", "us-east1-d"],
                "europe-west4": ["europe-west4-a", "europe-west4-b", "europe-west4-c"]}
SCOPES = ["https://www.googleapis.com/auth/devstorage.read_only",
          "https://www.googleapis.com/auth/logging.write",
          "https://www.googleapis.com/auth/monitoring.write",
          "https://www.googleapis.com/auth/servicecontrol",
          "https://www.googleapis.com/auth/service.management.readonly",
          "https://www.googleapis.com/auth/trace.append"]
STARTUP_SCRIPT = ("#! /bin/bash\n# start the TensorFlow server of this worker\nset -euo pipefail\n"
                  "echo \"starting worker on $(hostname) \\u2013 \\\"tf\\\"\" >> /var/log/tf.log\n"
                  "python3 -m trainer.server --port=8470 \\\n  --log_dir=\"gs://bucket/logs\"\n")


# ---- deterministic "random" values ----

def _digest(*parts):
    return hashlib.sha256("\0".join(str(p) for p in parts).encode()).digest()


def _id(*parts):
    return str(int.from_bytes(_digest("id", *parts)[:8], "big") >> 1)


def _fingerprint(*parts):
    return base64.b64encode(_digest("fp", *parts)[:8]).decode()


def _suffix(*parts, length=4):
    return "".join(NAME_ALPHABET[b % len(NAME_ALPHABET)] for b in _digest("name", *parts)[:length])


def _timestamp(seconds):
    t = BASE_TIME + timedelta(seconds=seconds)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03d" % (seconds * 37 % 1000) + "-08:00"


def _external_ip(*parts):
    d = _digest("nat", *parts)
    return "34.%d.%d.%d" % (d[0] % 160 + 60, d[1], d[2] % 254 + 1)


def region_of(zone):
    return zone.rsplit("-", 1)[0]


def natural_key(name):
    """"w-10" after "w-2": digit runs compare as numbers."""
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", name) if p]


def subnet_ip(region, n):
    """The n-th usable address (n from 0) of the region's default subnet: .2 upwards."""
    net = ipaddress.ip_network(SUBNETS.get(region, "10.%d.0.0/20" % (
        200 + _digest("region", region)[0] % 50)))
    return str(net.network_address + 2 + n)


# ---- Compute Engine ----

def make_instance(name, ip, project=PROJECT, zone="us-east1-d", status="RUNNING", group=None,
                  seq=0, machine_type="n2-standard-8", network_interfaces=True,
                  group_scope=None):
    """One full Instance resource. network_interfaces=False leaves networkInterfaces out;
    group_scope ("zones/Z" or "regions/R") is where the managing group lives."""
    region = region_of(zone)
    zone_url = "%sprojects/%s/zones/%s" % (COMPUTE, project, zone)
    key = (project, zone, name)
    inst = {
        "kind": "compute#instance",
        "id": _id(*key),
        "creationTimestamp": _timestamp(seq),
        "name": name,
        "description": "",
        "tags": {"items": ["tf-worker", "allow-grpc"], "fingerprint": _fingerprint("tags", *key)},
        "machineType": "%s/machineTypes/%s" % (zone_url, machine_type),
        "status": status,
        "zone": zone_url,
        "canIpForward": False,
        "networkInterfaces": [{
            "kind": "compute#networkInterface",
            "network": "%sprojects/%s/global/networks/default" % (COMPUTE, project),
            "subnetwork": "%sprojects/%s/regions/%s/subnetworks/default" % (COMPUTE, project,
                                                                           region),
            "networkIP": ip,
            "name": "nic0",
            "accessConfigs": [{"kind": "compute#accessConfig", "type": "ONE_TO_ONE_NAT",
                               "name": "External NAT", "natIP": _external_ip(*key),
                               "networkTier": "PREMIUM"}],
            "fingerprint": _fingerprint("nic", *key),
            "stackType": "IPV4_ONLY",
        }],
        "disks": [{
            "kind": "compute#attachedDisk", "type": "PERSISTENT", "mode": "READ_WRITE",
            "source": "%s/disks/%s" % (zone_url, name), "deviceName": "persistent-disk-0",
            "index": 0, "boot": True, "autoDelete": True,
            "licenses": [COMPUTE + "projects/debian-cloud/global/licenses/debian-12-bookworm"],
            "interface": "SCSI",
            "guestOsFeatures": [{"type": "UEFI_COMPATIBLE"}, {"type": "VIRTIO_SCSI_MULTIQUEUE"},
                                {"type": "GVNIC"}, {"type": "SEV_CAPABLE"}],
            "diskSizeGb": "100", "architecture": "X86_64",
        }],
        "metadata": {
            "kind": "compute#metadata",
            "fingerprint": _fingerprint("metadata", *key),
            "items": ([{"key": "instance-template", "value":
                        "projects/%s/global/instanceTemplates/%s-template" % (PROJECT_NUMBER,
                                                                              group)},
                       {"key": "created-by", "value": "projects/%s/%s/instanceGroupManagers/%s"
                        % (PROJECT_NUMBER, group_scope or "zones/" + zone, group)}]
                      if group else []) +
                     [{"key": "enable-oslogin", "value": "TRUE"},
                      {"key": "startup-script", "value": STARTUP_SCRIPT}],
        },
        "serviceAccounts": [{"email": "%s-compute@developer.gserviceaccount.com" % PROJECT_NUMBER,
                             "scopes": SCOPES}],
        "selfLink": "%s/instances/%s" % (zone_url, name),
        "scheduling": {"onHostMaintenance": "MIGRATE", "automaticRestart": True,
                       "preemptible": False, "provisioningModel": "STANDARD"},
        "cpuPlatform": "Intel Cascade Lake",
        "labels": dict({"app": "tensorflow", "role": "worker"},
                       **({"group": group} if group else {})),
        "labelFingerprint": _fingerprint("labels", *key),
        "startRestricted": False,
        "deletionProtection": False,
        "shieldedInstanceConfig": {"enableSecureBoot": False, "enableVtpm": True,
                                   "enableIntegrityMonitoring": True},
        "shieldedInstanceIntegrityPolicy": {"updateAutoLearnPolicy": True},
        "fingerprint": _fingerprint("instance", *key),
        "lastStartTimestamp": _timestamp(seq + 40),
        "satisfiesPzi": True,
        "keyRevocationActionType": "NONE",
    }
    if status in ("TERMINATED", "STOPPED", "SUSPENDED"):
        inst["lastStopTimestamp"] = _timestamp(seq + 600)
    if not network_interfaces:
        del inst["networkInterfaces"]
    return inst


def make_instances(count, group, project=PROJECT, zone=None, region=None, names="suffix",
                   statuses=None, start=0, no_network=()):
    """`count` Instances of a group: zonal (zone=) or spread round-robin over the zones of a
    region (region=). names: "suffix" ("<group>-<4 chars>"), "w" ("w-1".."w-N") or a list.
    statuses: {name: STATUS} for members that are not RUNNING. start: the first subnet slot.
    no_network: names whose instance has no networkInterfaces."""
    if (zone is None) == (region is None):
        raise ValueError("make_instances: give a zone or a region")
    zones = [zone] if zone else REGION_ZONES.get(region) or ["%s-%s" % (region, z)
                                                             for z in "bcd"]
    if isinstance(names, list):
        name_list = list(names)
    elif names == "w":
        name_list = ["w-%d" % (i + 1) for i in range(count)]
    else:
        name_list, seen = [], set()
        for i in range(count):
            attempt = 0
            while True:
                n = "%s-%s" % (group, _suffix(project, group, i, attempt))
                if n not in seen:
                    break
                attempt += 1
            seen.add(n)
            name_list.append(n)
    if len(name_list) != count:
        raise ValueError("make_instances: %d names for %d instances" % (len(name_list), count))
    order = list(range(count))
    random.Random(int.from_bytes(_digest("order", project, group, count)[:8], "big")).shuffle(order)
    statuses = statuses or {}
    out = []
    for i, name in enumerate(name_list):
        z = zones[i % len(zones)]
        out.append(make_instance(name, subnet_ip(region_of(z), start + order[i]), project, z,
                                 statuses.get(name, "RUNNING"), group, seq=order[i],
                                 network_interfaces=name not in no_network,
                                 group_scope="zones/" + zone if zone else "regions/" + region))
    return out


def make_group(name, instances, project=PROJECT, zone=None, region=None, named_ports=None):
    """An InstanceGroup resource (as a managed group's) plus the fake's "instances" list."""
    if (zone is None) == (region is None):
        raise ValueError("make_group: give a zone or a region")
    loc = "zones/" + zone if zone else "regions/" + region
    net_region = region or region_of(zone)
    group = {
        "kind": "compute#instanceGroup",
        "id": _id("group", project, loc, name),
        "creationTimestamp": _timestamp(0),
        "name": name,
        "description": "This instance group is controlled by Instance Group Manager '%s'. To "
                       "modify instances in this group, use the Instance Group Manager API: "
                       "https://cloud.google.com/compute/docs/reference/latest/"
                       "instanceGroupManagers" % name,
        "network": "%sprojects/%s/global/networks/default" % (COMPUTE, project),
        "fingerprint": "42WmSpB8rSM=",
        "selfLink": "%sprojects/%s/%s/instanceGroups/%s" % (COMPUTE, project, loc, name),
        "size": len(instances),
        "subnetwork": "%sprojects/%s/regions/%s/subnetworks/default" % (COMPUTE, project,
                                                                       net_region),
        "instances": [i["selfLink"] for i in instances],
    }
    if zone:
        group["zone"] = "%sprojects/%s/zones/%s" % (COMPUTE, project, zone)
    else:
        group["region"] = "%sprojects/%s/regions/%s" % (COMPUTE, project, region)
    if named_ports:
        group["namedPorts"] = [{"name": n, "port": p} for n, p in named_ports]
    return group


def compute_doc(groups, instances, project=PROJECT):
    """The COMPUTE.json document fake_gcp.py --compute reads."""
    return {"project": project, "instances": list(instances), "instanceGroups": list(groups)}


def expected_addresses(instances, port=8470):
    """The RUNNING instances' "networkIP:port" in natural name order."""
    running = [i for i in instances if i["status"] == "RUNNING"]
    running.sort(key=lambda i: natural_key(i["name"]))
    return ["%s:%d" % (i["networkInterfaces"][0]["networkIP"], port) for i in running]


# ---- Cloud TPU ----

def make_tpu_node(name, project=PROJECT, zone="us-central2-b", endpoints=1, api="v2",
                  state="READY", health="HEALTHY", ipv6=False, ips=None, ports=None,
                  symptoms=None):
    """A Cloud TPU Node as GET .../nodes/NAME answers it: a v2 TPU VM (v4-<8 x endpoints>) or
    a v1 TPU node (v3-<8 x endpoints>, with the deprecated ipAddress/port too). health=None
    leaves health out; ips/ports override the endpoints' addresses (a port None: no port)."""
    if not 1 <= endpoints <= 64 and ips is None:
        raise ValueError("make_tpu_node: 1 to 64 endpoints")
    full = "projects/%s/locations/%s/nodes/%s" % (project, zone, name)
    region = region_of(zone)
    if ips is None:
        if ipv6:
            ips = [str(ipaddress.ip_address("fd20:a4f:%x::" % (_digest(full)[0]) + "2") + i)
                   for i in range(endpoints)]
        elif api == "v1":
            ips = [str(ipaddress.ip_address("10.240.%d.2" % (_digest(full)[0] % 200)) + i)
                   for i in range(endpoints)]
        else:
            ips = [str(ipaddress.ip_address("10.130.%d.2" % (_digest(full)[0] % 200)) + i)
                   for i in range(endpoints)]
    ports = ports if ports is not None else [8470] * len(ips)
    eps = []
    for i, (ip, port) in enumerate(zip(ips, ports)):
        ep = {"ipAddress": ip}
        if port is not None:
            ep["port"] = port
        if api != "v1":
            ep["accessConfig"] = {"externalIp": _external_ip(full, i)}
        eps.append(ep)
    created = (BASE_TIME + timedelta(hours=8)).strftime("%Y-%m-%dT%H:%M:%S") + ".123456789Z"
    node = {"name": full, "description": "TensorFlow workers"}
    if api == "v1":
        node.update({
            "acceleratorType": "v3-%d" % (8 * len(ips)),
            "ipAddress": ips[0] if ips else "",
            "port": str(ports[0]) if ports and ports[0] is not None else "8470",
            "state": state,
            "tensorflowVersion": "2.12.0",
            "network": "projects/%s/global/networks/default" % project,
            "cidrBlock": "10.240.%d.0/29" % (_digest(full)[0] % 200),
            "serviceAccount": "service-%s@cloud-tpu.iam.gserviceaccount.com" % PROJECT_NUMBER,
            "createTime": created,
            "schedulingConfig": {"preemptible": False},
            "networkEndpoints": eps,
            "health": health,
            "id": _id("tpu", full),
            "apiVersion": "V1",
            "useServiceNetworking": False,
            "symptoms": list(symptoms or []),
        })
    else:
        chips = 4 * len(ips)
        node.update({
            "acceleratorType": "v4-%d" % (8 * len(ips)),
            "state": state,
            "health": health,
            "runtimeVersion": "tpu-ubuntu2204-base",
            "networkConfig": {"network": "projects/%s/global/networks/default" % project,
                              "subnetwork": "projects/%s/regions/%s/subnetworks/default"
                                            % (project, region),
                              "enableExternalIps": True},
            "serviceAccount": {"email": "%s-compute@developer.gserviceaccount.com"
                                        % PROJECT_NUMBER,
                               "scope": ["https://www.googleapis.com/auth/cloud-platform"]},
            "createTime": created,
            "schedulingConfig": {},
            "networkEndpoints": eps,
            "id": _id("tpu", full),
            "apiVersion": "V2",
            "symptoms": list(symptoms or []),
            "tags": ["tpu-vm"],
            "labels": {"app": "tensorflow"},
            "metadata": {"startup-script": STARTUP_SCRIPT},
            "shieldedInstanceConfig": {},
            "acceleratorConfig": {"type": "V4", "topology": "2x2x%d" % max(1, chips // 4)},
        })
    if health is None:
        del node["health"]
    if not eps:
        del node["networkEndpoints"]
    return node


def tpu_nodes_doc(nodes):
    """The NODES.json document fake_gcp.py --tpu-nodes reads."""
    return {n["name"]: n for n in nodes}


# ---- command line ----

def dump(obj, path=None, compact=False):
    text = json.dumps(obj, separators=(",", ":")) if compact else json.dumps(obj, indent=2)
    if path:
        with open(path, "w") as f:
            f.write(text + "\n")
    else:
        sys.stdout.write(text + "\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    g = sub.add_parser("group")
    g.add_argument("--name", required=True)
    g.add_argument("--count", type=int, required=True)
    g.add_argument("--project", default=PROJECT)
    where = g.add_mutually_exclusive_group()
    where.add_argument("--zone")
    where.add_argument("--region")
    g.add_argument("--names", choices=["suffix", "w"], default="suffix")
    g.add_argument("--status", action="append", default=[], metavar="NAME=STATUS")
    g.add_argument("--named-port", action="append", default=[], metavar="NAME:PORT")
    t = sub.add_parser("tpu")
    t.add_argument("--name", required=True)
    t.add_argument("--endpoints", type=int, default=1)
    t.add_argument("--api", choices=["v1", "v2"], default="v2")
    t.add_argument("--project", default=PROJECT)
    t.add_argument("--zone", default="us-central2-b")
    t.add_argument("--state", default="READY")
    t.add_argument("--health", default="HEALTHY")
    t.add_argument("--ipv6", action="store_true")
    for p in (g, t):
        p.add_argument("--out")
        p.add_argument("--compact", action="store_true")
    a = ap.parse_args(argv)
    if a.what == "group":
        zone = a.zone if a.zone or a.region else "us-east1-d"
        statuses = dict(s.split("=", 1) for s in a.status)
        ports = [(p.rsplit(":", 1)[0], int(p.rsplit(":", 1)[1])) for p in a.named_port]
        insts = make_instances(a.count, a.name, a.project, zone, a.region, a.names, statuses)
        doc = compute_doc([make_group(a.name, insts, a.project, zone, a.region, ports)], insts,
                          a.project)
    else:
        node = make_tpu_node(a.name, a.project, a.zone, a.endpoints, a.api, a.state,
                             None if a.health == "none" else a.health, a.ipv6)
        doc = tpu_nodes_doc([node])
    dump(doc, a.out, a.compact)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Runs cluster-resolve on a case, alone in a clean environment, and judges its output
against the properties. A violation is (kind, key, text): kind names the property, key what
broke it (the variable, the field), text says what was printed against what is right.

Properties of an exit-0 `--format launch` answer:
  range        0 <= rank < world_size (a node's launcher, torch: rank and local_rank null, the
               node's numbers given), local_rank < local_world_size, node_rank < num_nodes,
               no count above world_size, a port in 1..65535; coordinator-only sources:
               nodes holding blocks of consecutive ranks, one at least each
  contradicts  every size, rank and count the chosen backend reads equals the answer
  answered     no answer when a variable read rules every answer out (not a number, a rank
               past its size, a file not of its format)
  master       master_addr is the host of rank 0, as the source names it, or the coordinator
               the environment names (MASTER_ADDR, MASTER_PORT, JAX_COORDINATOR_ADDRESS);
               port likewise
  explicit     every size or rank variable set (WORLD_SIZE, RANK, LOCAL_RANK, ...) equals the
               answer, whatever the backend (not torch's own, nor local's)
  auto-order   auto chose the backend its documented order gives
  verbose      --verbose answers the same
  tfconfig     --format tfconfig (some cases) names the same members, or exits 3 for a
               coordinator-only source
  whole        (the same cases) --format torchrun and coordinator print a whole answer (the
               coordinator with its port; MASTER_ADDR, MASTER_PORT, WORLD_SIZE and RANK, not
               empty, launch's) or refuse, exit 3, for a reason launch shows (no rank, no
               port); --format master exits 0
  options      (the same cases, under auto) --port 9000 means what it means with the backend
               auto picks named: the same answer, or exit 2 both ways
and of every failure: exit 3, nothing on stdout, one stderr line that names a variable or a
file (error-line, error-names). Companion variables (model.COMPANIONS) give doubts, not
violations.
"""
import json
import os
import re
import shutil
import subprocess

from model import COORDINATOR_ONLY, auto_choice, companion_values, expectations, source_doubts
from sources import split_address

# GCE_METADATA_HOST: a TPU case without worker lists asks the metadata server; this one
# refuses at once, so no case depends on the machine being a Google Cloud VM.
GUARD = {"GCE_METADATA_HOST": "127.0.0.1:1"}
KEYS = ["world_size", "rank", "local_rank", "local_world_size", "node_rank", "num_nodes",
        "master_addr", "master_port"]
VARIABLE = re.compile(r"[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]|VC_<TASK>_HOSTS")
SHORT_NAMES = {"NSLOTS", "NHOSTS", "HOSTNAME"}  # variables without a '_' in their names
OPTIONS = ("--hostfile", "--resource-config")
TIMED_OUT = -1000  # an exit code no process has


class Runner:
    """Writes a case's files into its own directory and runs the CLI there."""

    def __init__(self, cli, workdir):
        self.cli, self.workdir = os.path.abspath(cli), os.path.abspath(workdir)
        self.base = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **GUARD}
        for name in ("ASAN_OPTIONS", "UBSAN_OPTIONS"):
            if name in os.environ:
                self.base[name] = os.environ[name]

    def prepare(self, case, name):
        folder = os.path.join(self.workdir, name)
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        for file, text in case["files"].items():
            with open(os.path.join(folder, file), "w") as f:
                f.write(text)
        return folder

    def run(self, case, folder, fmt="launch", verbose=False):
        place = lambda v: re.sub(r"@([\w.]+)", lambda m: os.path.join(folder, m.group(1)), v)
        env = dict(self.base)
        env.update({k: place(v) for k, v in case["env"].items()})
        args = [self.cli] + [place(a) for a in case["args"]] + ["--format", fmt]
        try:
            p = subprocess.run(args + (["--verbose"] if verbose else []), env=env, cwd=folder,
                               capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            return TIMED_OUT, "", "no answer within 60 s\n"
        return p.returncode, p.stdout, p.stderr


class Verdict:
    def __init__(self, code, out, err):
        self.code, self.out, self.err = code, out, err
        self.backend, self.answer, self.read, self.pinned = None, None, [], []
        self.violations, self.doubts = [], []

    def add(self, kind, key, text):
        self.violations.append((kind, key, text))


# ---- failures ------------------------------------------------------------------------------

def names_a_source(line, case, folder):
    words = set(re.findall(r"[A-Za-z0-9_]+", line))
    return (VARIABLE.search(line) or words & (set(case["env"]) | SHORT_NAMES) or folder in line
            or any(f in line for f in case["files"]) or any(o in line for o in OPTIONS))


def judge_failure(v, case, folder):
    if v.code != 3:
        v.add("exit", str(v.code), "exit %d, not 3 (environment)" % v.code)
    if v.out:
        v.add("error-line", "stdout", "a failure printed %r on stdout" % v.out[:80])
    if not (v.err.startswith("cluster-resolve: ") and v.err.count("\n") == 1
            and v.err.endswith("\n")):
        v.add("error-line", "lines", "stderr is not one line: %r" % v.err[:300])
    elif not names_a_source(v.err, case, folder):
        v.add("error-names", message_key(v.err),
              "the line names no variable or file: %r" % v.err.strip())


def message_key(line):
    """A failure's line without its numbers and quoted values: the same fault, the same key."""
    text = re.sub(r'"[^"]*"|\([^)]*\)|[0-9]+', "_", line.strip()[len("cluster-resolve: "):])
    return text[:60]


# ---- answers -------------------------------------------------------------------------------

def parse_answer(out):
    try:
        a = json.loads(out)
    except ValueError:
        return None
    ints = all(a.get(k) is None or type(a.get(k)) is int for k in KEYS if k != "master_addr")
    if not isinstance(a, dict) or sorted(a) != sorted(KEYS) or not ints:
        return None
    return a if isinstance(a["master_addr"], str) else None


def below(v, a, low, high, what):
    if a[low] is not None and a[high] is not None and not a[low] < a[high]:
        v.add("range", what, "%s %d is not below %s %d" % (low, a[low], high, a[high]))


def judge_range(v, a):
    w = a["world_size"]
    launcher = a["rank"] is None and a["local_rank"] is None and None not in (
        a["node_rank"], a["num_nodes"])  # a node's torchrun (torch): no rank of its own
    if (w is None and not launcher) or (w is not None and w < 1) or (
            a["rank"] is None and not launcher) or (a["rank"] or 0) < 0:
        v.add("range", "rank", "world_size %r, rank %r" % (w, a["rank"]))
        return
    below(v, a, "rank", "world_size", "rank<world_size")
    below(v, a, "local_rank", "local_world_size", "local_rank<local_world_size")
    below(v, a, "node_rank", "num_nodes", "node_rank<num_nodes")
    for field in ("local_rank", "node_rank", "local_world_size", "num_nodes"):
        n = a[field]
        if n is not None and (n < 0 or (w is not None and n > w) or
                              (field.endswith(("size", "nodes")) and n < 1)):
            v.add("range", field, "%s %d with world_size %r" % (field, n, w))
    if not a["master_addr"] or (a["master_port"] is not None and not 0 < a["master_port"] < 65536):
        v.add("range", "master", "master %r port %r" % (a["master_addr"], a["master_port"]))


def judge_blocks(v, a):
    """Coordinator-only sources: nodes hold blocks of consecutive ranks, one at least each."""
    if None in (a["rank"], a["local_rank"], a["node_rank"]):
        return
    first = a["rank"] - a["local_rank"]  # the own node's first rank
    if first < a["node_rank"] or (a["node_rank"] == 0 and first != 0):
        v.add("range", "blocks", "rank %d as local rank %d on node %d" %
              (a["rank"], a["local_rank"], a["node_rank"]))
    elif a["local_world_size"] is not None and a["num_nodes"] is not None and (
            first + a["local_world_size"] + a["num_nodes"] - a["node_rank"] - 1 > a["world_size"]):
        v.add("range", "blocks", "node %d of %d holding %d ranks from rank %d of %d" %
              (a["node_rank"], a["num_nodes"], a["local_world_size"], first, a["world_size"]))


def judge_model(v, a, x):
    if x.fail:
        v.add("answered", x.fail[0], "answered though %s rule every answer out" % ", ".join(x.fail))
    for field, pins in x.fields.items():
        for value, because in pins:
            if a[field] is not None and a[field] != value:
                v.add("contradicts", "%s:%s" % (field, because),
                      "%s %d, but %s says %d" % (field, a[field], because, value))
    for host, because in x.master:
        if a["master_addr"] != host:
            v.add("master", because, "master_addr %r, but %s names %r" % (a["master_addr"],
                                                                           because, host))
    for port, because in x.port:
        if a["master_port"] is not None and a["master_port"] != port:
            v.add("port", because, "master_port %r, but %s gives %d" % (a["master_port"],
                                                                        because, port))


def judge_doubts(v, a, case):
    for field, value, var in companion_values(v.backend, case):
        if field == "alone":
            v.doubts.append(("alone", var, "one task alone while %s is set" % var))
        elif a[field] is not None and a[field] != value:
            v.doubts.append(("companion", "%s:%s" % (field, var),
                             "%s %d, but %s (not read) says %d" % (field, a[field], var, value)))
    for var, text in source_doubts(v.backend, case):
        v.doubts.append(("source", var, text))


# ---- the chosen backend and the other formats ----------------------------------------------

def chosen_backend(v, runner, case, folder):
    """The backend named on the command line, else the one --verbose says auto took."""
    if case["args"]:
        return case["args"][0]
    code, out, err = runner.run(case, folder, verbose=True)
    m = re.search(r"auto: using the (\S+) backend", err)
    if code != 0 or out != v.out or not m:
        v.add("verbose", "", "--verbose gave exit %d and %r" % (code, out[:120]))
        return None
    if m.group(1) != auto_choice(case):
        v.add("auto-order", m.group(1), "auto chose %s, its documented order gives %s" %
              (m.group(1), auto_choice(case)))
    return m.group(1)


def coordinator_only(backend, case):
    slices = case["env"].get("MEGASCALE_NUM_SLICES", "")
    return backend in COORDINATOR_ONLY or (backend == "tpu" and slices.isdigit()
                                           and int(slices) > 1)


def tf_members(doc):
    """The addresses of a TF_CONFIG in global rank order, and the own task's rank."""
    jobs = sorted(doc["cluster"].items(), key=lambda j: (j[0] != "chief", j[0]))
    ranks, addresses = {}, []
    for name, tasks in jobs:
        items = enumerate(tasks) if isinstance(tasks, list) else sorted(
            (int(k), t) for k, t in tasks.items())
        for index, address in items:
            ranks[(name, index)] = len(addresses)
            addresses.append(address)
    task = doc.get("task", {})
    return addresses, ranks.get((task.get("type"), task.get("index")))


def judge_tfconfig(v, runner, case, folder):
    code, out, err = runner.run(case, folder, fmt="tfconfig")
    if coordinator_only(v.backend, case):
        if code != 3 or out or err.count("\n") != 1:
            v.add("tfconfig", "incomplete", "a coordinator-only source gave exit %d" % code)
        return
    try:
        addresses, rank = tf_members(json.loads(out))
        hosts = [split_address(a)[0] for a in addresses]
    except (ValueError, KeyError, TypeError, AttributeError):
        v.add("tfconfig", "output", "exit %d, %r" % (code, (out or err)[:160]))
        return
    a = v.answer
    env = case["env"]
    # a coordinator the environment names is launch's, not the cluster's rank 0
    named = v.backend not in ("torch", "local") and any(
        env.get(n, "").strip() for n in ("MASTER_ADDR",) + (
            ("JAX_COORDINATOR_ADDRESS",) if v.backend != "jax" else ()))
    said = (len(addresses), rank, len(set(hosts)), None if named else hosts[0] if hosts else None)
    want = (a["world_size"], a["rank"], a["num_nodes"] or len(set(hosts)),
            None if named else a["master_addr"])
    if code != 0 or said != want:
        v.add("tfconfig", "members", "tfconfig says %s, launch %s" % (said, want))


def exports_of(text):
    out = {}
    for line in text.splitlines():
        m = re.fullmatch(r"export ([A-Z_]+)=(.*)", line)
        if not m:
            return None
        value = m.group(2)
        out[m.group(1)] = value[1:-1].replace("'\\''", "'") if value.startswith("'") else value
    return out


def judge_whole(v, runner, case, folder):
    """The per-process formats print a whole answer or refuse for a reason launch shows."""
    a = v.answer
    code, out, err = runner.run(case, folder, fmt="torchrun")
    need = ("MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK")
    if code == 0:
        got = exports_of(out)
        want = {"MASTER_ADDR": a["master_addr"], "MASTER_PORT": str(a["master_port"]),
                "WORLD_SIZE": str(a["world_size"]), "RANK": str(a["rank"])}
        if got is None or any(not got.get(n) for n in need) or any(got[n] != want[n] for n in need):
            v.add("whole", "torchrun", "torchrun printed %r; launch says %s" % (out[:200], want))
    elif code != 3 or (a["rank"] is not None and a["master_port"] is not None):
        v.add("whole", "torchrun", "torchrun exit %d (%s) where launch answered whole" %
              (code, err.strip()[:160]))
    code, out, err = runner.run(case, folder, fmt="coordinator")
    host = a["master_addr"]
    if code == 0:
        want = "%s:%s\n" % ("[%s]" % host if ":" in host else host, a["master_port"])
        if a["master_port"] is None or out != want:
            v.add("whole", "coordinator", "coordinator printed %r, launch says %r" % (out, want))
    elif code != 3 or a["master_port"] is not None:
        v.add("whole", "coordinator", "coordinator exit %d (%s) with a port in launch" %
              (code, err.strip()[:160]))
    code, out, err = runner.run(case, folder, fmt="master")
    if code != 0 or out.count("\n") != 1:
        v.add("whole", "master", "master exit %d, %r" % (code, (out or err)[:160]))


def judge_options(v, runner, case, folder):
    """Under auto, --port 9000 as with the picked backend named."""
    if case["args"] or not v.backend:
        return
    ported = dict(case, args=["--port", "9000"])
    named = dict(case, args=[v.backend, "--port", "9000"])
    got, want = runner.run(ported, folder), runner.run(named, folder)
    if got[0] != want[0] or got[1] != want[1] or (got[0] == 2) != (want[0] == 2):
        v.add("options", v.backend, "auto --port 9000: exit %d %r; %s --port 9000: exit %d %r" %
              (got[0], (got[1] or got[2])[:120], v.backend, want[0], (want[1] or want[2])[:120]))


def judge(runner, case, folder):
    """Runs --format launch (and what it takes to judge it) and returns the Verdict."""
    v = Verdict(*runner.run(case, folder))
    if v.code != 0:
        judge_failure(v, case, folder)
        return v
    v.answer = parse_answer(v.out)
    if v.answer is None:
        v.add("shape", "", "not a launch answer: %r" % v.out[:160])
        return v
    judge_range(v, v.answer)
    v.backend = chosen_backend(v, runner, case, folder)
    if v.backend:
        x = expectations(v.backend, case)
        v.read = [n for n in x.env.read if n in case["env"]]
        v.pinned = [f for f, pins in x.fields.items() if pins] + (["master"] if x.master else [])
        judge_model(v, v.answer, x)
        if coordinator_only(v.backend, case):
            judge_blocks(v, v.answer)
        judge_doubts(v, v.answer, case)
        if case.get("tfconfig"):
            judge_tfconfig(v, runner, case, folder)
            judge_whole(v, runner, case, folder)
            judge_options(v, runner, case, folder)
    return v

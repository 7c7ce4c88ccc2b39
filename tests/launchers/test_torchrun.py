#!/usr/bin/env python3
"""The torch backend and the torchrun formats under real torchrun (Debian's python3-torch 1.13,
`/usr/bin/python3 -m torch.distributed.run`): torchrun's workers run build/cluster-resolve,
whose auto backend must pick torch from TORCHELASTIC_RUN_ID and answer exactly what torchrun
told them; `--format torchrun --exec` starts a PyTorch gloo group inside torchrun; under the
lab's Slurm (tests/slurm/start-slurm.sh, SLURM_CONF), `srun` starts one torchrun per node from
`--format torchrun-node --exec` (PET_NNODES, PET_NODE_RANK, PET_MASTER_ADDR, PET_MASTER_PORT),
and torchrun inside srun still wins over Slurm; a Kubeflow PyTorchJob pod with nprocPerNode 2
starts its torchrun the same way. Each worker writes its own report file
(tests/launchers/rank_report.py, tests/launchers/torch_allreduce.py), never to a shared stdout.

torchrun on Python 3.11 crashes in Std.from_str unless given --redirects and --tee
(/work/shared/reference/envs.md); --monitor_interval 0.2 lets it notice its workers' exit
after 0.2 s instead of 5.

usage: test_torchrun.py [CLI] [-k WORD]      (CLI default build/cluster-resolve)
"""
import json
import os
import random
import shlex
import socket
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lab  # noqa: E402

CLI = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 and not sys.argv[1].startswith("-") \
    else os.path.join(lab.ROOT, "build", "cluster-resolve")
TORCH_SCRIPT = os.path.join(lab.ROOT, "tests", "launchers", "torch_allreduce.py")
SRUN = ["srun", "--time=2", "--kill-on-bad-exit=0"]
LAUNCH_KEYS = {"world_size", "rank", "local_rank", "local_world_size", "node_rank", "num_nodes",
               "master_addr", "master_port"}

# Besides what lab.clean_env drops: what an outer torchrun (or a forced backend) would leak.
_DROP = ("TORCHELASTIC_", "PET_", "GROUP_RANK", "GROUP_WORLD_SIZE", "ROLE_", "LOCAL_",
         "NODE_RANK", "CLUSTER_RESOLVER_", "PYTHON_EXEC", "OMP_NUM_THREADS")


def env(**extra):
    e = {k: v for k, v in lab.clean_env().items() if not k.startswith(_DROP)}
    e.update({k: str(v) for k, v in extra.items()})
    return e


# ---- ports --------------------------------------------------------------------------------
# A port picked free now can be taken before torchrun binds it. Outgoing connections and
# bind(0) (gloo's pairs, TCPStore clients, srun) take theirs from the kernel's ephemeral range
# only, so a port outside that range can be lost only to another explicit bind; and no port is
# handed out twice by this process.
_given = set()


def _free_everywhere(port):
    """port can be bound now on 0.0.0.0 and :: (TCPStore listens on every address)."""
    for family, addr in ((socket.AF_INET, "0.0.0.0"), (socket.AF_INET6, "::")):
        try:
            s = socket.socket(family, socket.SOCK_STREAM)
        except OSError:
            continue   # no IPv6 here
        try:
            s.bind((addr, port))
        except OSError:
            return False
        finally:
            s.close()
    return True


def quiet_port():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            low, high = (int(w) for w in f.read().split())
    except (OSError, ValueError):
        low, high = 32768, 60999
    candidates = [r for r in (range(10000, low), range(high + 1, 65536)) if len(r) > 1000]
    if not candidates:
        return lab.free_ports(1)   # the ephemeral range is nearly everything: the best we can do
    rng = random.SystemRandom()
    for _ in range(200):
        port = rng.choice(rng.choice(candidates))
        if port not in _given and _free_everywhere(port):
            _given.add(port)
            return port
    raise AssertionError("no free port outside the ephemeral range")


# ---- torchrun -----------------------------------------------------------------------------

def torchrun(log_dir, *flags):
    """The torchrun command line up to the script: Debian's python, the Python 3.11 workaround,
    logs under log_dir, a short monitor interval."""
    return [lab.PY, "-m", "torch.distributed.run", "--redirects", "1", "--tee", "1",
            "--log_dir", log_dir, "--monitor_interval", "0.2"] + list(flags)


def temp_dir(prefix):
    d = tempfile.TemporaryDirectory(prefix=prefix)
    os.chmod(d.name, 0o777)   # Slurm's steps write into it too
    return d


def tail(text, lines=40):
    return "\n".join(text.splitlines()[-lines:])


def torchrun_reports(prefix, port, *commands, want=2, env_=None):
    """Runs `PREFIX torchrun --nnodes=1 --nproc_per_node=2 --master_port PORT --no_python
    rank_report.py DIR COMMANDS` and returns the reports sorted by torchrun's RANK."""
    with temp_dir("cres-torchrun-log-") as logs:
        argv = list(prefix) + torchrun(logs, "--nnodes=1", "--nproc_per_node=2",
                                       "--master_port", str(port), "--no_python")
        rc, out, err, reps = lab.launch(argv, *commands, env=env_ or env(), timeout=90)
    assert rc == 0, f"{shlex.join(argv)} exited {rc}:\n{tail(out)}\n{tail(err)}"
    assert len(reps) == want, f"{len(reps)} workers reported, want {want}:\n{tail(out)}\n{tail(err)}"
    for r in reps:
        assert "RANK" in r["env"], f"a worker without torchrun's RANK: {r['env']}"
    return sorted(reps, key=lambda r: int(r["env"]["RANK"]))


def torchrun_env(rep, port, world=2):
    """What torchrun told this worker, checked against what the test asked torchrun for (so a
    broken harness is not blamed on the CLI)."""
    e = rep["env"]
    want = {"WORLD_SIZE": str(world), "LOCAL_WORLD_SIZE": "2", "GROUP_RANK": "0",
            "GROUP_WORLD_SIZE": "1", "MASTER_PORT": str(port)}
    got = {k: e.get(k) for k in want}
    assert got == want and "TORCHELASTIC_RUN_ID" in e, f"torchrun's own variables: {e}, want {want}"
    return e


def launch_info(run, who):
    assert run["rc"] == 0, f"{who}: {shlex.join(run['argv'])} exited {run['rc']}: {run['err'].strip()}"
    lines = run["out"].splitlines()
    assert len(lines) == 1, f"{who}: --format launch printed {len(lines)} lines, want 1: {run['out']!r}"
    try:
        doc = json.loads(lines[0])
    except ValueError as e:
        raise AssertionError(f"{who}: --format launch is not JSON ({e}): {run['out']!r}")
    assert set(doc) == LAUNCH_KEYS, f"{who}: launch keys {sorted(doc)}, want {sorted(LAUNCH_KEYS)}"
    return doc


def want_launch(e):
    """The launch info torchrun's variables e mean."""
    return {"world_size": int(e["WORLD_SIZE"]), "rank": int(e["RANK"]),
            "local_rank": int(e["LOCAL_RANK"]), "local_world_size": int(e["LOCAL_WORLD_SIZE"]),
            "node_rank": int(e["GROUP_RANK"]), "num_nodes": int(e["GROUP_WORLD_SIZE"]),
            "master_addr": e["MASTER_ADDR"], "master_port": int(e["MASTER_PORT"])}


def want_torchrun(e):
    return {k: e[k] for k in ("MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK", "LOCAL_RANK",
                              "LOCAL_WORLD_SIZE", "GROUP_RANK", "GROUP_WORLD_SIZE")}


def exports_of(run, who):
    assert run["rc"] == 0, f"{who}: {shlex.join(run['argv'])} exited {run['rc']}: {run['err'].strip()}"
    return lab.exports(run["out"])


def in_the_lab():
    """The srun scenarios need the lab's Slurm and node names (make launcher-test)."""
    assert os.environ.get("SLURM_CONF"), "SLURM_CONF must name the lab's slurm.conf (make launcher-test)"
    for n in ("node1", "node2", "node3", "node4"):
        try:
            socket.gethostbyname(n)
        except OSError:
            raise AssertionError(f"{n} does not resolve: tests/launchers/launcher-test.sh adds "
                                 "the lab's node names to /etc/hosts while it runs")


# ---- scenarios ----------------------------------------------------------------------------

def test_torchrun_formats():
    """torchrun --nnodes=1 --nproc_per_node=2: auto picks torch and every coordinator format
    says exactly what torchrun said; tfconfig needs every address and torchrun-node one task
    per node, and each says so (exit 3)."""
    port = quiet_port()
    reps = torchrun_reports([], port,
                            [CLI, "--format", "launch"],
                            [CLI, "--verbose", "--format", "launch"],
                            [CLI, "torch", "--format", "launch"],
                            [CLI, "--format", "master"],
                            [CLI, "--format", "torchrun"],
                            [CLI, "--format", "torchrun-node"],
                            [CLI, "--format", "tfconfig"])
    assert [int(r["env"]["RANK"]) for r in reps] == [0, 1], [r["env"] for r in reps]
    for rep in reps:
        e = torchrun_env(rep, port)
        who = f"torchrun rank {e['RANK']}"
        runs = rep["runs"]
        want = want_launch(e)
        assert want["local_rank"] == want["rank"], e
        got = launch_info(runs[0], who)
        assert got == want, f"{who}: --format launch\n  got  {got}\n  want {want} (torchrun's variables)"
        verbose = runs[1]
        assert launch_info(verbose, who) == want, f"{who}: --verbose changed the answer: {verbose['out']}"
        assert "auto: using the torch backend" in verbose["err"], (
            f"{who}: auto did not say it picked torch:\n{verbose['err']}")
        assert launch_info(runs[2], who) == want, f"{who}: the torch backend: {runs[2]['out']}"
        m = runs[3]
        assert (m["rc"], m["out"]) == (0, f"{e['MASTER_ADDR']}:{e['MASTER_PORT']}\n"), (
            f"{who}: --format master exited {m['rc']}: {m['out']!r} {m['err'].strip()}, "
            f"want {e['MASTER_ADDR']}:{e['MASTER_PORT']}")
        got = exports_of(runs[4], who)
        assert got == want_torchrun(e), f"{who}: --format torchrun\n  got  {got}\n  want {want_torchrun(e)}"
        # a worker of two on its node: a torchrun per node would start one per worker
        lab.fails(runs[5], 3, "this node runs 2 tasks", "one task per node")
        assert runs[5]["out"] == "", f"{who}: --format torchrun-node printed {runs[5]['out']!r} and failed"
        lab.fails(runs[6], 3, "needs every address", r"\blaunch\b")
        assert runs[6]["out"] == "", f"{who}: --format tfconfig printed {runs[6]['out']!r} and failed"


def test_torchrun_gloo_exec():
    """Inside torchrun, `--format torchrun --exec` hands the gloo group torchrun's own
    rendezvous (its agent's store at MASTER_ADDR:MASTER_PORT): the all-reduce sums to 3."""
    port = quiet_port()
    with temp_dir("cres-torchrun-log-") as logs:
        argv = torchrun(logs, "--nnodes=1", "--nproc_per_node=2", "--master_port", str(port),
                        "--no_python", CLI, "--format", "torchrun", "--exec", "--",
                        lab.PY, TORCH_SCRIPT)
        got = lab.torch_allreduce(argv, 2, env(GLOO_SOCKET_IFNAME="lo"), timeout=90)
    assert [g["rank"] for g in got] == [0, 1], got
    for g in got:
        e = g["env"]
        assert g["sum"] == 3.0 and g["world_size"] == 2, g
        want = {"RANK": str(g["rank"]), "LOCAL_RANK": str(g["rank"]), "WORLD_SIZE": "2",
                "LOCAL_WORLD_SIZE": "2", "GROUP_RANK": "0", "MASTER_PORT": str(port)}
        assert {k: e.get(k) for k in want} == want, f"rank {g['rank']}: {e}, want {want}"


def test_srun_torchrun_per_node():
    """srun -N2 --ntasks-per-node=1 runs `cluster-resolve --format torchrun-node --exec --
    torchrun --nproc_per_node=2`: Slurm's two tasks become torchrun's two nodes (static
    rendezvous at node1 (rank 0's node) and Slurm's port base), four ranks whose all-reduce
    sums to 10. Both torchruns run on this machine (node1 and node2 are 127.0.0.1), so the
    rendezvous port is a free one passed as auto's --port (Slurm's --port-base), not 8888."""
    in_the_lab()
    port = quiet_port()
    with temp_dir("cres-torchrun-log-") as logs:
        argv = SRUN + ["-N2", "--ntasks-per-node=1", CLI, "--port", str(port),
                       "--format", "torchrun-node", "--exec", "--"] + \
            torchrun(logs, "--nproc_per_node=2", TORCH_SCRIPT)
        got = lab.torch_allreduce(argv, 4, env(GLOO_SOCKET_IFNAME="lo"), timeout=90)
    assert [g["rank"] for g in got] == [0, 1, 2, 3], got
    nodes = {}
    for g in got:
        e = g["env"]
        nodes.setdefault(e.get("GROUP_RANK"), set()).add(e.get("SLURMD_NODENAME"))
    assert set(nodes) == {"0", "1"} and all(len(v) == 1 for v in nodes.values()) \
        and nodes["0"] != nodes["1"], f"torchrun's nodes and Slurm's: {nodes}"
    (master,) = nodes["0"]
    for g in got:
        e = g["env"]
        assert g["sum"] == 10.0 and g["world_size"] == 4, g
        node_rank = int(e["GROUP_RANK"])
        want = {"WORLD_SIZE": "4", "RANK": str(g["rank"]), "GROUP_RANK": e["SLURM_PROCID"],
                "LOCAL_RANK": str(g["rank"] - 2 * node_rank), "LOCAL_WORLD_SIZE": "2",
                "GROUP_WORLD_SIZE": "2", "MASTER_ADDR": master, "MASTER_PORT": str(port),
                # what the CLI told torchrun
                "PET_NNODES": "2", "PET_NODE_RANK": e["SLURM_PROCID"],
                "PET_MASTER_ADDR": master, "PET_MASTER_PORT": str(port)}
        assert {k: e.get(k) for k in want} == want, (
            f"rank {g['rank']}:\n  got  { {k: e.get(k) for k in want} }\n  want {want}")


def test_kubeflow_pytorchjob_pod_starts_its_torchrun():
    """A PyTorchJob pod of one replica with nprocPerNode 2, as the training operator writes it
    (kubeflow/training-operator pkg/controller.v1/pytorch/envvar.go at 2856aa0: WORLD_SIZE =
    replicas x nprocPerNode, RANK = PET_NODE_RANK = the replica, PET_NNODES, PET_NPROC_PER_NODE,
    MASTER_* and PET_MASTER_*; the master address here this machine's): the pod's process is
    its node's torchrun, so `--format torchrun-node --exec torchrun` starts it, and torchrun
    takes PET_NPROC_PER_NODE from the pod: two processes whose all-reduce sums to 3."""
    port = quiet_port()
    pod = {"PYTHONUNBUFFERED": "1", "MASTER_PORT": port, "PET_MASTER_PORT": port,
           "MASTER_ADDR": "127.0.0.1", "PET_MASTER_ADDR": "127.0.0.1", "WORLD_SIZE": 2, "RANK": 0,
           "PET_NODE_RANK": 0, "PET_NPROC_PER_NODE": 2, "PET_NNODES": 1}
    with temp_dir("cres-torchrun-log-") as logs:
        argv = [CLI, "--format", "torchrun-node", "--exec", "--"] + torchrun(logs, TORCH_SCRIPT)
        got = lab.torch_allreduce(argv, 2, env(GLOO_SOCKET_IFNAME="lo", **pod), timeout=90)
    assert [g["rank"] for g in got] == [0, 1], got
    for g in got:
        e = g["env"]
        assert g["sum"] == 3.0 and g["world_size"] == 2, g
        want = {"RANK": str(g["rank"]), "LOCAL_RANK": str(g["rank"]), "WORLD_SIZE": "2",
                "LOCAL_WORLD_SIZE": "2", "GROUP_RANK": "0", "GROUP_WORLD_SIZE": "1",
                "MASTER_PORT": str(port), "PET_NNODES": "1", "PET_NODE_RANK": "0"}
        assert {k: e.get(k) for k in want} == want, (
            f"rank {g['rank']}:\n  got  { {k: e.get(k) for k in want} }\n  want {want}")


def test_torchrun_inside_srun():
    """srun -N1 -n1 torchrun --nproc_per_node=2: the workers see Slurm's one-task step and
    torchrun's two ranks; auto must pick torch (the innermost launcher): world 2, not 1; the
    slurm backend, forced, refuses torchrun's WORLD_SIZE."""
    in_the_lab()
    port = quiet_port()
    reps = torchrun_reports(SRUN + ["-N1", "-n1"], port,
                            [CLI, "--verbose", "--format", "launch"],
                            [CLI, "--format", "torchrun"],
                            [CLI, "slurm", "--format", "launch"])
    for rep in reps:
        e = torchrun_env(rep, port)
        who = f"torchrun rank {e['RANK']} in srun"
        assert e.get("SLURM_NTASKS") == "1" and "SLURM_STEP_ID" in e, (
            f"{who}: not in a one-task Slurm step: {e}")
        got = launch_info(rep["runs"][0], who)
        assert got == want_launch(e), (
            f"{who}: --format launch\n  got  {got}\n  want {want_launch(e)} (torchrun's variables; "
            f"Slurm says SLURM_NTASKS=1 SLURM_PROCID={e.get('SLURM_PROCID')})\n"
            f"  {rep['runs'][0]['err'].strip()}")
        assert "auto: using the torch backend" in rep["runs"][0]["err"], rep["runs"][0]["err"]
        got = exports_of(rep["runs"][1], who)
        assert got == want_torchrun(e), f"{who}: --format torchrun\n  got  {got}\n  want {want_torchrun(e)}"
        # The scenario tells the two apart: Slurm alone says one process, which torchrun's
        # WORLD_SIZE contradicts: forcing slurm is exit 3 naming both and the way out
        lab.fails(rep["runs"][2], 3, 'WORLD_SIZE="2" is set, but the slurm backend\'s answer is 1',
                  "CLUSTER_RESOLVER_BACKEND=torch")


if __name__ == "__main__":
    assert os.path.exists(lab.PY), f"no {lab.PY}"
    lab.main("test_torchrun", [(k[5:], v) for k, v in list(globals().items())
                               if k.startswith("test_") and callable(v)])

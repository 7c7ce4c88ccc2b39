#!/usr/bin/env python3
"""The Slurm backend under real Slurm: srun, sbatch and salloc on the four-node cluster that
tests/slurm/start-slurm.sh starts (SLURM_CONF must point at it; `make launcher-test` does all
of this), its nodes' fake GPUs included. Every rank runs build/cluster-resolve and reports
what Slurm told it (tests/launchers/rank_report.py, a file per process); the checks compare
the two.

usage: test_slurm.py [CLI] [-k WORD]      (CLI default build/cluster-resolve)
"""
import json
import os
import shlex
import socket
import sys
import tempfile
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "launchers"))
import lab  # noqa: E402

CLI = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 and not sys.argv[1].startswith("-") \
    else os.path.join(lab.ROOT, "build", "cluster-resolve")
TORCH_SCRIPT = os.path.join(lab.ROOT, "tests", "launchers", "torch_allreduce.py")
SRUN = ["srun", "--time=2", "--kill-on-bad-exit=0"]


def rank(rep):
    return int(rep["env"]["SLURM_PROCID"])


def node(rep):
    return rep["env"]["SLURMD_NODENAME"]


def localid(rep):
    return int(rep["env"]["SLURM_LOCALID"])


def srun(args, *commands, env=None):
    """Runs rank_report.py with the commands on every rank of `srun ARGS`; returns the reports
    sorted by SLURM_PROCID."""
    rc, out, err, reps = lab.launch(SRUN + args, *commands, env=env)
    assert rc == 0, f"srun {' '.join(args)} exited {rc}:\n{out}{err}"
    return sorted(reps, key=rank)


def slurm_layout(reps):
    """What Slurm reports: [(rank, node, localid)] and the step's variables of rank 0."""
    e = reps[0]["env"]
    return ([(rank(r), node(r), localid(r)) for r in reps],
            f"SLURM_STEP_NODELIST={e.get('SLURM_STEP_NODELIST')} "
            f"SLURM_STEP_TASKS_PER_NODE={e.get('SLURM_STEP_TASKS_PER_NODE')} "
            f"SLURM_DISTRIBUTION={e.get('SLURM_DISTRIBUTION', '')}")


def check_formats(reps, first, n, port_base=8888):
    """Runs first (tfconfig), first+1 (torchrun), first+2 (hostfile) against Slurm's layout."""
    per_node = Counter(node(r) for r in reps)
    r0 = next(r for r in reps if rank(r) == 0)
    nodes = [node(r) for r in sorted(reps, key=rank)]   # hosts in the order of their first rank
    nodes = sorted(set(nodes), key=nodes.index)
    for rep in reps:
        t = rep["runs"][first + 1]
        assert t["rc"] == 0, f"rank {rank(rep)}: {t['argv']} exited {t['rc']}: {t['err']}"
        got = lab.exports(t["out"])
        want = {"MASTER_ADDR": node(r0), "MASTER_PORT": str(port_base + localid(r0)),
                "WORLD_SIZE": str(n), "RANK": str(rank(rep)), "LOCAL_RANK": str(localid(rep)),
                "LOCAL_WORLD_SIZE": str(per_node[node(rep)]),
                "GROUP_RANK": str(nodes.index(node(rep))), "GROUP_WORLD_SIZE": str(len(nodes))}
        assert got == want, f"rank {rank(rep)} on {node(rep)}: torchrun format\n  got  {got}\n  want {want}"
        h = rep["runs"][first + 2]
        assert h["rc"] == 0, f"rank {rank(rep)}: {h['argv']} exited {h['rc']}: {h['err']}"
        order = []
        for r in reps:
            if node(r) not in order:
                order.append(node(r))
        want_hf = [(x, per_node[x]) for x in order]
        assert lab.hostfile(h["out"]) == want_hf, f"rank {rank(rep)}: hostfile\n{h['out']}want {want_hf}"


def scenario(args, n, jobs=None, auto=True):
    """srun ARGS with every format, --port-base and the auto backend; checks them all."""
    jobs_opt = ["--jobs", ",".join(f"{k}={v}" for k, v in jobs.items())] if jobs else []
    cmds = [[CLI, "slurm", "--format", "tfconfig"] + jobs_opt,
            [CLI, "slurm", "--format", "torchrun"] + jobs_opt,
            [CLI, "slurm", "--format", "hostfile"] + jobs_opt,
            [CLI, "slurm", "--port-base", "9000"] + jobs_opt]
    if auto:   # auto picks slurm in a step; its --port is the slurm backend's --port-base
        cmds += [[CLI, "--format", "tfconfig"], [CLI, "--port", "9000"]]
    reps = srun(args, *cmds)
    layout, step = slurm_layout(reps)
    try:
        assert len(reps) == n, f"{len(reps)} ranks reported, want {n}"
        lab.check_cluster(reps, 0, n, rank, node, lambda r: 8888 + localid(r), jobs=jobs,
                          rpc_layer="grpc")
        lab.check_cluster(reps, 3, n, rank, node, lambda r: 9000 + localid(r), jobs=jobs)
        check_formats(reps, 0, n)
        if auto:
            lab.same_output(reps, 0, 4)
            lab.same_output(reps, 3, 5)
    except AssertionError as e:
        raise AssertionError(f"{e}\n  Slurm's layout (rank, node, localid): {layout}\n  {step}")
    return reps


# ---- scenarios ----------------------------------------------------------------------------

def test_block_n8():
    reps = scenario(["-N4", "-n8"], 8)
    # The lab's nodes have 2 CPUs each, so Slurm has one way to place 8 tasks on 4 nodes.
    assert reps[0]["env"]["SLURM_STEP_TASKS_PER_NODE"] == "2(x4)", reps[0]["env"]


def test_cyclic_n8():
    reps = scenario(["-N4", "-n8", "-m", "cyclic"], 8)
    assert [node(r) for r in reps] == ["node1", "node2", "node3", "node4"] * 2, slurm_layout(reps)


def test_cyclic_uneven_n6():
    scenario(["-N4", "-n6", "-m", "cyclic"], 6)   # 2,2,1,1 tasks; ranks 4 and 5 wrap around


def test_cyclic_block_sockets():
    scenario(["-N2", "-n4", "-m", "cyclic:block"], 4)   # node level cyclic, socket level block


def test_ntasks_per_node():
    scenario(["-N3", "--ntasks-per-node=2"], 6)


def test_uneven_block_n6():
    scenario(["-N4", "-n6"], 6)   # 2(x2),1(x2)


def test_distribution_pack_alone():
    """srun -m pack (or nopack) alone: SLURM_DISTRIBUTION names only that, the layout is
    Slurm's default, block."""
    for how in ("pack", "nopack"):
        reps = scenario(["-N2", "-n3", "-m", how], 3)
        assert reps[0]["env"].get("SLURM_DISTRIBUTION") == how, slurm_layout(reps)


def test_node_subset():
    reps = scenario(["-w", "node[1,3-4]", "-n5"], 5)
    assert reps[0]["env"]["SLURM_STEP_NODELIST"] == "node[1,3-4]", reps[0]["env"]


def test_two_jobs():
    scenario(["-N4", "-n8"], 8, jobs={"worker": 6, "ps": 2}, auto=False)


def test_two_jobs_cyclic():
    scenario(["-N4", "-n8", "-m", "cyclic"], 8, jobs={"worker": 5, "ps": 3}, auto=False)


def tasks_per_node(text):
    """Slurm's "2(x3),1" as [2, 2, 2, 1]."""
    out = []
    for part in text.split(","):
        count, _, times = part.partition("(x")
        out += [int(count)] * (int(times.rstrip(")")) if times else 1)
    return out


def allocation(env):
    """[(node, slots)] of the job's allocation as Slurm states it: SLURM_JOB_NODELIST expanded by
    scontrol, SLURM_TASKS_PER_NODE's counts."""
    rc, out, err = lab.run(["scontrol", "show", "hostnames", env["SLURM_JOB_NODELIST"]])
    assert rc == 0, err
    nodes = out.split()
    slots = tasks_per_node(env["SLURM_TASKS_PER_NODE"])
    assert len(nodes) == len(slots), (nodes, slots)
    return list(zip(nodes, slots))


def check_allocation_runs(rep, runs, why):
    """The allocation formats of `runs` (indices: hostfile, machinefile, tfconfig) list the
    job's allocation; the rank format (torchrun) refuses: no task is this process's."""
    want = allocation(rep["env"])
    h, m, t, tr = (rep["runs"][i] for i in runs)
    assert h["rc"] == 0 and lab.hostfile(h["out"]) == want, f"{why}: hostfile {h}\nwant {want}"
    assert m["rc"] == 0 and m["out"] == "".join(f"{n}:{k}\n" for n, k in want), f"{why}: machinefile {m}"
    assert t["rc"] == 0, f"{why}: tfconfig {t}"
    doc = json.loads(t["out"])
    assert doc["cluster"] == {"worker": [f"{n}:{8888 + i}" for n, k in want for i in range(k)]}, (why, doc)
    assert "task" not in doc, (why, doc)
    lab.fails(tr, 3, r"--format torchrun needs this process's task", r"no job step", r"srun")


def test_sbatch():
    """In a batch script of 8 tasks: run directly (no task of the job: the allocation formats
    list the job's allocation, the rank formats refuse), then under srun, then a step on a
    subset of the allocation (srun -N2 -n3 -r1: node2 and node3)."""
    with tempfile.TemporaryDirectory(prefix="cres-sbatch-") as tmp:
        os.chmod(tmp, 0o755)
        dirs = {k: os.path.join(tmp, k) for k in ("direct", "step", "subset")}
        for d in dirs.values():
            os.mkdir(d)
        direct = lab.report_cmd(dirs["direct"], [CLI, "slurm", "--format", "hostfile"],
                                [CLI, "slurm", "--format", "machinefile"],
                                [CLI, "slurm", "--format", "tfconfig"],
                                [CLI, "slurm", "--format", "torchrun"],
                                [CLI, "--format", "hostfile", "--verbose"],
                                [CLI, "--format", "machinefile"], [CLI, "--format", "tfconfig"],
                                [CLI, "--format", "torchrun"])
        cmds = ([CLI, "slurm", "--format", "tfconfig"], [CLI, "--format", "tfconfig"])
        q = lambda argv: " ".join(shlex.quote(a) for a in argv)  # noqa: E731
        script = os.path.join(tmp, "job.sh")
        with open(script, "w") as f:
            f.write("#!/bin/bash\nset -e\n"
                    f"{q(direct)}\n"
                    f"srun {q(lab.report_cmd(dirs['step'], *cmds))}\n"
                    f"srun -N2 -n3 -r1 {q(lab.report_cmd(dirs['subset'], *cmds))}\n")
        out = os.path.join(tmp, "out")
        lab.sbatch(["--time=2", "-N4", "--ntasks-per-node=2"], script, out)
        (d,) = lab.reports(dirs["direct"], 1)
        step = sorted(lab.reports(dirs["step"], 8), key=rank)
        subset = sorted(lab.reports(dirs["subset"], 3), key=rank)

    e = d["env"]
    assert e.get("SLURM_NTASKS") == "8" and "SLURM_STEP_ID" not in e, (
        f"the batch script's environment is not what the test expects: {e}")
    assert allocation(e) == [("node1", 2), ("node2", 2), ("node3", 2), ("node4", 2)], e
    check_allocation_runs(d, (0, 1, 2, 3), "slurm")
    check_allocation_runs(d, (4, 5, 6, 7), "auto")
    assert "auto: using the slurm backend: SLURM_JOB_ID" in d["runs"][4]["err"], d["runs"][4]

    lab.check_cluster(step, 0, 8, rank, node, lambda r: 8888 + localid(r), rpc_layer="grpc")
    lab.same_output(step, 0, 1)

    e = subset[0]["env"]
    assert e["SLURM_STEP_NODELIST"] == "node[2-3]" and e["SLURM_JOB_NODELIST"] == "node[1-4]", e
    assert [node(r) for r in subset] == ["node2", "node2", "node3"], slurm_layout(subset)
    lab.check_cluster(subset, 0, 3, rank, node, lambda r: 8888 + localid(r))
    lab.same_output(subset, 0, 1)


def test_salloc():
    """A non-interactive salloc runs its command once, on the submit host, in no step and with
    no SLURM_PROCID: auto picks slurm (never local), the allocation formats list the
    allocation, the rank formats refuse. Three shapes: tasks per node given, a task count
    that fills the nodes unevenly, no task count (one slot a node)."""
    cmds = ([CLI, "--format", "hostfile", "--verbose"], [CLI, "--format", "machinefile"],
            [CLI, "--format", "tfconfig"], [CLI, "--format", "torchrun"])
    for args, want in [(["-N2", "--ntasks-per-node=2"], [2, 2]), (["-n3"], [2, 1]), (["-N2"], [1, 1])]:
        with tempfile.TemporaryDirectory(prefix="cres-salloc-") as d:
            os.chmod(d, 0o777)
            rc, out, err = lab.run(["salloc", "--time=2"] + args + lab.report_cmd(d, *cmds))
            assert rc == 0, f"salloc {' '.join(args)} exited {rc}:\n{out}{err}"
            (rep,) = lab.reports(d, 1)
        e = rep["env"]
        assert "SLURM_PROCID" not in e and "SLURM_STEP_NODELIST" not in e and e.get("SLURM_JOB_ID"), e
        assert [k for _, k in allocation(e)] == want, (args, e)
        check_allocation_runs(rep, (0, 1, 2, 3), f"salloc {' '.join(args)}")
        assert "auto: using the slurm backend: SLURM_JOB_ID" in rep["runs"][0]["err"], rep["runs"][0]


# ---- GPUs: the lab's nodes have four fake ones each (tests/slurm/start-slurm.sh) -----------

def gpu_list(rep):
    v = rep["env"].get("CUDA_VISIBLE_DEVICES", "")
    return v.split(",") if v else []


def test_gpus_of_the_node_are_split():
    """srun --gres=gpu:4 gives every task of a node the node's four (SLURM_GPUS_ON_NODE=4): the
    torchrun format splits them, local task k getting the k-th pair."""
    reps = srun(["-N2", "--ntasks-per-node=2", "--gres=gpu:4"], [CLI, "slurm", "--format", "torchrun"],
                [CLI, "--format", "launch"])
    for rep in reps:
        e = rep["env"]
        assert e.get("SLURM_GPUS_ON_NODE") == "4" and gpu_list(rep) == ["0", "1", "2", "3"], e
        t = rep["runs"][0]
        assert t["rc"] == 0, t
        k = localid(rep)
        assert lab.exports(t["out"])["CUDA_VISIBLE_DEVICES"] == ",".join(gpu_list(rep)[2 * k:2 * k + 2]), (e, t)


def test_gpus_shared_per_node_uneven():
    """srun -N2 -n3 --gres=gpu:4: 2 tasks and 1, each seeing its node's four; each node's are
    shared among its own tasks: the lone task gets all four, the pair two each."""
    reps = srun(["-N2", "-n3", "--gres=gpu:4"], [CLI, "--format", "torchrun", "--verbose"])
    per_node = Counter(node(r) for r in reps)
    assert sorted(per_node.values()) == [1, 2], per_node
    for rep in reps:
        e, t = rep["env"], rep["runs"][0]
        assert e.get("SLURM_GPUS_ON_NODE") == "4" and len(gpu_list(rep)) == 4, e
        assert t["rc"] == 0, t
        g, k = 4 // per_node[node(rep)], localid(rep)
        assert lab.exports(t["out"])["CUDA_VISIBLE_DEVICES"] == ",".join(gpu_list(rep)[g * k:g * k + g]), (e, t)
        assert f"slurm: {node(rep)}'s 4 GPUs (CUDA_VISIBLE_DEVICES), {g} per task" in t["err"], t


def test_gpus_bound_per_task_are_passed_on():
    """srun --gpus-per-task=2 (and --gpu-bind=map_gpu) gives each task its own GPUs: the
    formats export no CUDA_VISIBLE_DEVICES, so the task keeps Slurm's, and --verbose says why;
    --gpus-per-node, which would split a list the task cannot see whole, is exit 3 naming both;
    a --gpus-per-task that agrees is fine."""
    for args, per_task in [(["-N2", "--ntasks-per-node=2", "--gpus-per-task=2"], 2),
                           (["-N1", "-n2", "--gres=gpu:4", "--gpu-bind=map_gpu:1,3"], 1)]:
        reps = srun(args, [CLI, "slurm", "--format", "torchrun", "--verbose"], [CLI, "--format", "jax"],
                    [CLI, "slurm", "--format", "torchrun", "--gpus-per-node", "4"],
                    [CLI, "slurm", "--format", "torchrun", "--gpus-per-task", str(per_task)])
        seen = {}
        for rep in reps:
            e, t, j = rep["env"], rep["runs"][0], rep["runs"][1]
            ids = gpu_list(rep)
            assert len(ids) == per_task and e.get("SLURM_GPUS_ON_NODE") == "4", (args, e)
            for g in ids:  # Slurm bound them: no two tasks of a node share one
                assert (node(rep), g) not in seen, (args, seen, e)
                seen[(node(rep), g)] = rank(rep)
            assert t["rc"] == 0 and j["rc"] == 0, (args, t, j)
            got = lab.exports(t["out"])
            assert "CUDA_VISIBLE_DEVICES" not in got and got["RANK"] == str(rank(rep)), (args, got)
            assert "CUDA_VISIBLE_DEVICES" not in lab.exports(j["out"]), (args, j)
            assert (f"slurm: CUDA_VISIBLE_DEVICES=\"{','.join(ids)}\" is this task's own "
                    f"(SLURM_GPUS_ON_NODE=4 but CUDA_VISIBLE_DEVICES lists {per_task}): passed on unchanged") \
                in t["err"], (args, t)
            lab.fails(rep["runs"][2], 3, r"--gpus-per-node 4", r"SLURM_GPUS_ON_NODE=4")
            assert rep["runs"][3]["rc"] == 0 and rep["runs"][3]["out"] == t["out"], (args, rep["runs"][3])


def test_gpus_per_task_from_sbatch():
    """sbatch --gpus-per-task=1: the batch script's SLURM_GPUS_PER_TASK reaches the tasks of an
    srun inside it, whose lists are their own; the script itself lists the allocation."""
    with tempfile.TemporaryDirectory(prefix="cres-sbatch-gpus-") as tmp:
        os.chmod(tmp, 0o755)
        d = os.path.join(tmp, "step")
        os.mkdir(d)
        script = os.path.join(tmp, "job.sh")
        with open(script, "w") as f:
            f.write("#!/bin/bash\nset -e\nsrun " + " ".join(shlex.quote(a) for a in lab.report_cmd(
                d, [CLI, "--format", "torchrun", "--verbose"])) + "\n")
        lab.sbatch(["--time=2", "-N2", "--ntasks-per-node=2", "--gpus-per-task=1"], script,
                   os.path.join(tmp, "out"))
        reps = sorted(lab.reports(d, 4), key=rank)
    for rep in reps:
        e, t = rep["env"], rep["runs"][0]
        assert e.get("SLURM_GPUS_PER_TASK") == "1" and len(gpu_list(rep)) == 1, e
        assert t["rc"] == 0 and "CUDA_VISIBLE_DEVICES" not in lab.exports(t["out"]), t
        assert "is this task's own (SLURM_GPUS_PER_TASK=\"1\")" in t["err"], t


def test_jobs_do_not_add_up():
    reps = srun(["-N4", "-n8"], [CLI, "slurm", "--jobs", "worker=3"],
                [CLI, "slurm", "--jobs", "worker=6,ps=3"])
    assert len(reps) == 8
    for rep in reps:
        lab.fails(rep["runs"][0], 3, r"\b3\b", r"\b8\b")
        lab.fails(rep["runs"][1], 3, r"\b9\b", r"\b8\b")


def test_outside_slurm():
    rc, out, err = lab.run([CLI, "slurm"])
    lab.fails({"argv": [CLI, "slurm"], "rc": rc, "out": out, "err": err}, 3, r"(?i)slurm")


def test_plane_right_arbitrary_refused():
    """plane and arbitrary place tasks in ways the node list and tasks-per-node do not show:
    plane must come out right; arbitrary (the order is only in SLURM_HOSTFILE) is refused
    with exit 3 by every rank, never printed with wrong addresses."""
    with tempfile.TemporaryDirectory(prefix="cres-arb-") as tmp:
        hf = os.path.join(tmp, "hosts")
        with open(hf, "w") as f:
            f.write("node2\nnode1\nnode2\nnode3\n")
        cases = [(["-N2", "-n8", "--overcommit", "-m", "plane=2"], 8, None, False),
                 (["-n4", "-m", "arbitrary"], 4, lab.clean_env(SLURM_HOSTFILE=hf), True)]
        for args, n, env, refused in cases:
            reps = srun(args, [CLI, "slurm", "--format", "tfconfig"], env=env)
            layout, step = slurm_layout(reps)
            codes = {r["runs"][0]["rc"] for r in reps}
            if refused:
                assert codes == {3}, f"srun {' '.join(args)}: exits {codes}, want 3 on every rank"
                continue
            try:
                lab.check_cluster(reps, 0, n, rank, node, lambda r: 8888 + localid(r))
            except AssertionError as e:
                raise AssertionError(f"srun {' '.join(args)}: {e}\n  Slurm's layout: {layout}\n  {step}")


def test_torch_gloo_allreduce():
    """torchrun's variables from the Slurm backend start a real PyTorch gloo group: 2 nodes,
    2 ranks each; MASTER_ADDR is rank 0's node, which must resolve here."""
    for n in ("node1", "node2", "node3", "node4"):
        try:
            socket.gethostbyname(n)
        except OSError:
            raise AssertionError(f"{n} does not resolve: tests/launchers/launcher-test.sh adds "
                                 "the lab's node names to /etc/hosts while it runs")
    port = lab.free_ports(2)
    env = lab.clean_env(GLOO_SOCKET_IFNAME="lo")
    argv = SRUN + ["-N2", "--ntasks-per-node=2", CLI, "slurm", "--format", "torchrun",
                   "--port-base", str(port), "--exec", "--", lab.PY, TORCH_SCRIPT]
    got = lab.torch_allreduce(argv, 4, env)
    assert [g["rank"] for g in got] == [0, 1, 2, 3], got
    master = got[0]["env"]["SLURMD_NODENAME"]
    assert len({g["env"]["SLURMD_NODENAME"] for g in got}) == 2, got
    for g in got:
        e = g["env"]
        assert g["sum"] == 10.0 and g["world_size"] == 4, g
        assert g["rank"] == int(e["SLURM_PROCID"]), f"torch rank {g['rank']} on SLURM_PROCID {e['SLURM_PROCID']}"
        assert (e["MASTER_ADDR"], e["MASTER_PORT"]) == (master, str(port)), e
        assert (e["LOCAL_RANK"], e["LOCAL_WORLD_SIZE"]) == (e["SLURM_LOCALID"], "2"), e


if __name__ == "__main__":
    assert os.environ.get("SLURM_CONF"), "SLURM_CONF must name the lab's slurm.conf (make launcher-test)"
    lab.main("test_slurm", [(k[5:], v) for k, v in list(globals().items())
                            if k.startswith("test_") and callable(v)])

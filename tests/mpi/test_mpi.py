#!/usr/bin/env python3
"""The MPI backend under real Open MPI (mpirun 4.1): on this host, on two fake hosts through
tests/mpi/fake-rsh.sh, inside a Slurm allocation (mpirun starts its orteds with srun; needs
the lab's Slurm from tests/slurm/start-slurm.sh and SLURM_CONF), with a hostfile our
`--format hostfile` wrote, and PyTorch gloo started from our torchrun variables. Every rank
runs build/cluster-resolve and reports what Open MPI told it (tests/launchers/rank_report.py).

usage: test_mpi.py [CLI] [-k WORD]      (CLI default build/cluster-resolve)
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
RSH = os.path.join(lab.ROOT, "tests", "mpi", "fake-rsh.sh")
TORCH_SCRIPT = os.path.join(lab.ROOT, "tests", "launchers", "torch_allreduce.py")
# Loopback only (else Open MPI advertises every interface), shared memory between ranks.
MCA = {"OMPI_MCA_oob_tcp_if_include": "lo", "OMPI_MCA_btl_tcp_if_include": "lo",
       "OMPI_MCA_btl": "self,vader"}
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe"]


def env(**extra):
    return lab.clean_env(**MCA, **extra)


def rank(rep):
    return int(rep["env"]["OMPI_COMM_WORLD_RANK"])


def local_rank(rep):
    return int(rep["env"]["OMPI_COMM_WORLD_LOCAL_RANK"])


def fake_host(rep):
    return rep["env"]["CRES_FAKE_HOST"]


def mpirun(args, *commands, extra_env=None, want_rc=0):
    rc, out, err, reps = lab.launch(MPIRUN + args, *commands, env=env(**(extra_env or {})))
    assert rc == want_rc, f"mpirun {shlex.join(args)} exited {rc}:\n{out}{err}"
    return sorted(reps, key=rank)


def layout(reps, host_of):
    return "Open MPI's layout (rank, host, local rank): " + str(
        [(rank(r), host_of(r), local_rank(r)) for r in reps])


def check_torchrun(reps, i, host_of, port_base=8888):
    per_host = Counter(host_of(r) for r in reps)
    r0 = next(r for r in reps if rank(r) == 0)
    hosts = [host_of(r) for r in sorted(reps, key=rank)]   # in the order of their first rank
    hosts = sorted(set(hosts), key=hosts.index)
    for rep in reps:
        t = rep["runs"][i]
        assert t["rc"] == 0, f"rank {rank(rep)}: {shlex.join(t['argv'])} exited {t['rc']}: {t['err']}"
        got = lab.exports(t["out"])
        want = {"MASTER_ADDR": host_of(r0), "MASTER_PORT": str(port_base + local_rank(r0)),
                "WORLD_SIZE": str(len(reps)), "RANK": str(rank(rep)),
                "LOCAL_RANK": str(local_rank(rep)), "LOCAL_WORLD_SIZE": str(per_host[host_of(rep)]),
                "GROUP_RANK": str(hosts.index(host_of(rep))), "GROUP_WORLD_SIZE": str(len(hosts))}
        assert got == want, f"rank {rank(rep)}: torchrun format\n  got  {got}\n  want {want}"


# ---- scenarios ----------------------------------------------------------------------------

def test_one_host():
    """mpirun -np 4 here: four tasks on $PMIX_HOSTNAME, ports 8888-8891, index = rank."""
    reps = mpirun(["-np", "4"],
                  [CLI, "mpi", "--format", "tfconfig"], [CLI, "--format", "tfconfig"],
                  [CLI, "mpi", "--format", "torchrun"], [CLI, "mpi", "--format", "hostfile"],
                  [CLI, "mpi", "--port-base", "9000"])
    assert len(reps) == 4, f"{len(reps)} ranks reported"
    host = reps[0]["env"]["PMIX_HOSTNAME"]
    assert host == socket.gethostname(), f"PMIX_HOSTNAME={host}, hostname {socket.gethostname()}"
    cluster = lab.check_cluster(reps, 0, 4, rank, lambda r: r["env"]["PMIX_HOSTNAME"],
                                lambda r: 8888 + rank(r))
    assert cluster == {"worker": [f"{host}:{p}" for p in range(8888, 8892)]}, cluster
    lab.same_output(reps, 0, 1)   # auto picks mpi under mpirun
    check_torchrun(reps, 2, lambda r: host)
    for rep in reps:
        assert lab.hostfile(rep["runs"][3]["out"]) == [(host, 4)], rep["runs"][3]
    lab.check_cluster(reps, 4, 4, rank, lambda r: host, lambda r: 9000 + rank(r))


def fake_hosts(slots, np, hostfile_lines=None, mpirun_args=()):
    """mpirun on fakenode1/fakenode2 through the rsh agent with a hostfile of `slots`."""
    with tempfile.TemporaryDirectory(prefix="cres-mpi-") as tmp:
        hf = os.path.join(tmp, "hostfile")
        with open(hf, "w") as f:
            f.write(hostfile_lines or "".join(f"fakenode{i + 1} slots={s}\n" for i, s in enumerate(slots)))
        log = os.path.join(tmp, "rsh.log")
        np_args = ["-np", str(np)] if np else []
        reps = mpirun(["--mca", "plm_rsh_agent", RSH, "--hostfile", hf] + np_args + list(mpirun_args),
                      [CLI, "mpi", "--hostfile", hf, "--format", "tfconfig"],
                      [CLI, "mpi", "--format", "tfconfig"],
                      [CLI, "mpi", "--hostfile", hf, "--format", "torchrun"],
                      [CLI, "--format", "tfconfig"],
                      extra_env={"CRES_FAKE_RSH_LOG": log, "CRES_FAKE_RSH_TMP": tmp})
        started = sorted(open(log).read().split()) if os.path.exists(log) else []
    return reps, started


def check_fake_hosts(reps, started, n):
    try:
        assert len(reps) == n, f"{len(reps)} ranks reported, want {n}"
        lab.check_cluster(reps, 0, n, rank, fake_host, lambda r: 8888 + local_rank(r))
        check_torchrun(reps, 2, fake_host)
        for rep in reps:
            # Ranks on several hosts and no hostfile: nothing says which host holds which rank.
            lab.fails(rep["runs"][1], 3, r"(?i)hostfile")
            lab.fails(rep["runs"][3], 3, r"(?i)hostfile")
        assert started == sorted({fake_host(r) for r in reps}), f"the rsh agent started {started}"
    except AssertionError as e:
        raise AssertionError(f"{e}\n  {layout(reps, fake_host)}")


def test_two_fake_hosts():
    reps, started = fake_hosts([2, 2], 4)
    assert [fake_host(r) for r in reps] == ["fakenode1"] * 2 + ["fakenode2"] * 2, layout(reps, fake_host)
    check_fake_hosts(reps, started, 4)


def test_two_fake_hosts_spare_slots():
    """slots 3 and 3, -np 4: Open MPI fills fakenode1 first (3 ranks), then 1 on fakenode2."""
    reps, started = fake_hosts([3, 3], 4)
    assert [fake_host(r) for r in reps] == ["fakenode1"] * 3 + ["fakenode2"], layout(reps, fake_host)
    check_fake_hosts(reps, started, 4)


def test_hostfile_we_wrote():
    """`cluster-resolve simple ... --format hostfile` is a hostfile mpirun accepts: without -np
    it starts every slot it lists, on the hosts it names (the rsh agent records them)."""
    spec = {"worker": ["fakenode1:1", "fakenode1:2", "fakenode2:1"]}
    rc, out, err = lab.run([CLI, "simple", "--spec", json.dumps(spec), "--format", "hostfile"])
    assert rc == 0, f"exit {rc}: {err}"
    assert lab.hostfile(out) == [("fakenode1", 2), ("fakenode2", 1)], out
    reps, started = fake_hosts(None, None, hostfile_lines=out)
    assert [fake_host(r) for r in reps] == ["fakenode1", "fakenode1", "fakenode2"], layout(reps, fake_host)
    check_fake_hosts(reps, started, 3)


def mpirun_in_sbatch(*mpirun_args):
    """Reports of `mpirun -np 4 MPIRUN_ARGS` run by an `sbatch -N2 --ntasks-per-node=2` script;
    every rank runs the auto backend, the mpi backend (tfconfig) and auto's torchrun format."""
    with tempfile.TemporaryDirectory(prefix="cres-mpi-sbatch-") as tmp:
        os.chmod(tmp, 0o755)
        out_dir = os.path.join(tmp, "ranks")
        os.mkdir(out_dir)
        cmds = ([CLI, "--format", "tfconfig"], [CLI, "mpi", "--format", "tfconfig"],
                [CLI, "--format", "torchrun"])
        script = os.path.join(tmp, "job.sh")
        with open(script, "w") as f:
            f.write("#!/bin/bash\nset -e\n"
                    + shlex.join(MPIRUN + ["-np", "4"] + list(mpirun_args) + lab.report_cmd(out_dir, *cmds)) + "\n")
        lab.sbatch(["--time=2", "-N2", "--ntasks-per-node=2"], script, os.path.join(tmp, "out"), env=env())
        return sorted(lab.reports(out_dir, 4), key=rank)


def slurm_node(rep):
    return rep["env"]["SLURMD_NODENAME"]


def test_mpirun_inside_sbatch():
    """mpirun in an `sbatch -N2 --ntasks-per-node=2` allocation starts one orted per node with
    srun, so every rank carries the orted step's SLURM_PROCID (0 or 1): the MPI variables must
    win, with and without naming the backend."""
    reps = mpirun_in_sbatch()
    procids = [int(r["env"]["SLURM_PROCID"]) for r in reps]
    assert procids != [rank(r) for r in reps], f"SLURM_PROCID {procids}: the scenario tests nothing"
    try:
        lab.check_cluster(reps, 0, 4, rank, slurm_node, lambda r: 8888 + local_rank(r))
        lab.same_output(reps, 0, 1)
        check_torchrun(reps, 2, slurm_node)
    except AssertionError as e:
        raise AssertionError(f"{e}\n  {layout(reps, slurm_node)}, SLURM_PROCID {procids}")


def right(reps, host_of, what):
    """Every rank printed the true cluster (a refusal fails too)."""
    try:
        lab.check_cluster(reps, 0, len(reps), rank, host_of, lambda r: 8888 + local_rank(r))
    except AssertionError as e:
        outcome = [(rank(r), r["runs"][0]["rc"], (r["runs"][0]["out"] or r["runs"][0]["err"]).strip())
                   for r in reps]
        raise AssertionError(f"{what}: {e}\n  {layout(reps, host_of)}\n  "
                             + "\n  ".join(f"rank {a}: exit {b}: {c}" for a, b, c in outcome))


def test_map_by_node():
    """--map-by node and --rank-by node deal ranks round-robin over the hosts, not by slot as
    the hostfile (or Slurm's node list) has them; Open MPI says so only in
    OMPI_MCA_rmaps_base_mapping_policy / _ranking_policy. Every rank must print the true
    cluster: a rank with a wrong map would start its program against the wrong peers. On the
    fake hosts with a hostfile (even and uneven slots), then inside sbatch; a policy the
    backend cannot follow (ppr) is refused by every rank."""
    for how in (["--map-by", "node"], ["--rank-by", "node"]):
        reps, _ = fake_hosts([2, 2], 4, mpirun_args=how)
        assert [fake_host(r) for r in reps] == ["fakenode1", "fakenode2"] * 2, layout(reps, fake_host)
        right(reps, fake_host, "mpirun " + " ".join(how))
    reps, _ = fake_hosts([3, 1], 4, mpirun_args=["--map-by", "node"])
    assert [fake_host(r) for r in reps] == ["fakenode1", "fakenode2", "fakenode1", "fakenode1"], layout(reps, fake_host)
    right(reps, fake_host, "mpirun --map-by node on 3+1 slots")
    reps, _ = fake_hosts([2, 2], 4, mpirun_args=["--map-by", "ppr:2:node"])
    assert all(r["runs"][0]["rc"] == 3 for r in reps), layout(reps, fake_host)
    reps = mpirun_in_sbatch("--map-by", "node")
    assert [slurm_node(r) for r in reps] == ["node1", "node2"] * 2, layout(reps, slurm_node)
    right(reps, slurm_node, "mpirun --map-by node inside sbatch")


def test_srun_pmi2():
    """srun --mpi=pmi2 starts the ranks itself (PMI_RANK/PMI_SIZE, no OMPI_*): the mpi backend
    must place them where Slurm did (block and cyclic)."""
    for dist in ("block", "cyclic"):
        rc, out, err, reps = lab.launch(["srun", "--time=2", "--mpi=pmi2", "-N2", "-n4", "-m", dist],
                                        [CLI, "mpi", "--format", "tfconfig"], env=env())
        assert rc == 0, f"srun exited {rc}: {out}{err}"
        reps = sorted(reps, key=lambda r: int(r["env"]["PMI_RANK"]))
        pmi_rank = lambda r: int(r["env"]["PMI_RANK"])  # noqa: E731
        try:
            lab.check_cluster(reps, 0, 4, pmi_rank, slurm_node, lambda r: 8888 + int(r["env"]["SLURM_LOCALID"]))
        except AssertionError as e:
            raise AssertionError(f"-m {dist}: {e}\n  Slurm's layout (PMI_RANK, node, localid): "
                                 + str([(pmi_rank(r), slurm_node(r), r['env']['SLURM_LOCALID']) for r in reps]))


def test_outside_mpi():
    rc, out, err = lab.run([CLI, "mpi"], env=env())
    lab.fails({"argv": [CLI, "mpi"], "rc": rc, "out": out, "err": err}, 3)


def test_torch_gloo_allreduce():
    """torchrun's variables from the MPI backend start a real PyTorch gloo group (2 ranks)."""
    port = lab.free_ports(2)
    argv = MPIRUN + ["-np", "2", CLI, "mpi", "--format", "torchrun", "--port-base", str(port),
                     "--exec", "--", lab.PY, TORCH_SCRIPT]
    got = lab.torch_allreduce(argv, 2, env(GLOO_SOCKET_IFNAME="lo"))
    for g in got:
        e = g["env"]
        assert g["sum"] == 3.0 and g["world_size"] == 2, g
        assert str(g["rank"]) == e["OMPI_COMM_WORLD_RANK"], g
        assert (e["MASTER_ADDR"], e["MASTER_PORT"]) == (socket.gethostname(), str(port)), e


if __name__ == "__main__":
    lab.main("test_mpi", [(k[5:], v) for k, v in list(globals().items())
                          if k.startswith("test_") and callable(v)])

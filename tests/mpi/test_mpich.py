#!/usr/bin/env python3
"""The MPI backend under MPICH's Hydra (mpiexec.hydra 4.0, package mpich; called by that name,
never `mpirun`, which stays Open MPI's): on this host, and on two fake hosts through Hydra's
`-launcher fork` (it starts the proxy of every host in the machinefile here, and tells each
rank the host it placed it on in MPIR_CVAR_CH3_INTERFACE_HOSTNAME) with a machinefile our own
`--format machinefile` wrote, from a Slurm allocation (the lab's four-node Slurm, SLURM_CONF)
and from a spec. Every rank runs build/cluster-resolve and reports what Hydra told it
(PMI_RANK, PMI_SIZE, MPI_LOCALRANKID, MPI_LOCALNRANKS; tests/launchers/rank_report.py).

usage: test_mpich.py [CLI] [-k WORD]      (CLI default build/cluster-resolve)
"""
import json
import os
import shlex
import socket
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "launchers"))
import lab  # noqa: E402

CLI = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 and not sys.argv[1].startswith("-") \
    else os.path.join(lab.ROOT, "build", "cluster-resolve")
HYDRA = ["mpiexec.hydra"]
FORK = HYDRA + ["-launcher", "fork"]   # every "remote" proxy started here


def rank(rep):
    return int(rep["env"]["PMI_RANK"])


def local_rank(rep):
    return int(rep["env"]["MPI_LOCALRANKID"])


def local_size(rep):
    return int(rep["env"]["MPI_LOCALNRANKS"])


def placed(rep):
    """The host Hydra started this rank on (the machinefile's name for it)."""
    return rep["env"]["MPIR_CVAR_CH3_INTERFACE_HOSTNAME"]


def hydra(args, *commands, want_rc=0):
    rc, out, err, reps = lab.launch(list(args), *commands, env=lab.clean_env())
    assert rc == want_rc, f"{shlex.join(args)} exited {rc}:\n{out}{err}"
    return sorted(reps, key=rank)


def layout(reps):
    return "Hydra's layout (rank, host, local rank/size): " + str(
        [(rank(r), placed(r), f"{local_rank(r)}/{local_size(r)}") for r in reps])


def check_launch(reps, i, host_of=placed):
    """Run i printed, on every rank, the launch info Hydra's placement implies: ranks and
    local ranks as Hydra numbered them, nodes numbered in the order of their first rank,
    the coordinator on rank 0's host at 8888 + rank 0's local rank."""
    hosts = []
    for r in reps:
        if host_of(r) not in hosts:
            hosts.append(host_of(r))
    r0 = next(r for r in reps if rank(r) == 0)
    for rep in reps:
        t = rep["runs"][i]
        assert t["rc"] == 0, f"rank {rank(rep)}: {shlex.join(t['argv'])} exited {t['rc']}: {t['err'].strip()}"
        try:
            got = json.loads(t["out"])
        except ValueError as e:
            raise AssertionError(f"rank {rank(rep)}: not JSON ({e}): {t['out']!r}")
        want = {"world_size": len(reps), "rank": rank(rep), "local_rank": local_rank(rep),
                "local_world_size": local_size(rep), "node_rank": hosts.index(host_of(rep)),
                "num_nodes": len(hosts), "master_addr": host_of(r0),
                "master_port": 8888 + local_rank(r0)}
        assert int(rep["env"]["PMI_SIZE"]) == len(reps), rep["env"]
        assert got == want, f"rank {rank(rep)}: --format launch\n  got  {got}\n  want {want}"


# ---- scenarios ----------------------------------------------------------------------------

def test_hydra_one_host():
    """mpiexec.hydra -n 4 here: every rank on this host (local rank = rank), four tasks at
    ports 8888-8891, index = PMI_RANK; auto picks mpi."""
    reps = hydra(HYDRA + ["-n", "4"],
                 [CLI, "mpi", "--format", "launch"], [CLI, "mpi", "--format", "tfconfig"],
                 [CLI, "--format", "launch"], [CLI, "mpi", "--format", "machinefile"])
    assert len(reps) == 4, f"{len(reps)} ranks reported"
    me = socket.gethostname()
    assert [placed(r) for r in reps] == [me] * 4, layout(reps)
    assert [local_rank(r) for r in reps] == [0, 1, 2, 3], layout(reps)
    # Hydra gives the ranks no host name the library reads (MPIR_CVAR_CH3_INTERFACE_HOSTNAME
    # is a CH3 setting); on one host "localhost" serves as well as the host's name.
    host = json.loads(reps[0]["runs"][0]["out"] or "{}").get("master_addr")
    assert host in (me, "localhost"), f"master_addr {host!r}, want {me!r} or localhost"
    check_launch(reps, 0, host_of=lambda r: host)
    cluster = lab.check_cluster(reps, 1, 4, rank, lambda r: host, lambda r: 8888 + rank(r))
    assert cluster == {"worker": [f"{host}:{p}" for p in range(8888, 8892)]}, cluster
    lab.same_output(reps, 0, 2)
    for rep in reps:
        assert rep["runs"][3]["rc"] == 0 and rep["runs"][3]["out"] == f"{host}:4\n", rep["runs"][3]


def on_machinefile(text, n, extra=()):
    """Hydra on the hosts of machinefile `text`, started here by -launcher fork, -n n: every
    rank runs the mpi backend with that machinefile (launch, tfconfig) and without it."""
    with tempfile.TemporaryDirectory(prefix="cres-mpich-") as tmp:
        mf = os.path.join(tmp, "machinefile")
        with open(mf, "w") as f:
            f.write(text)
        return hydra(FORK + ["-f", mf, "-n", str(n)] + list(extra),
                     [CLI, "mpi", "--hostfile", mf, "--format", "launch"],
                     [CLI, "mpi", "--hostfile", mf, "--format", "tfconfig"],
                     [CLI, "mpi", "--format", "launch"])


def check_fake_hosts(reps, n, want_hosts):
    try:
        assert len(reps) == n, f"{len(reps)} ranks reported, want {n}"
        assert [placed(r) for r in reps] == want_hosts
        check_launch(reps, 0)
        lab.check_cluster(reps, 1, n, rank, placed, lambda r: 8888 + local_rank(r))
        for rep in reps:
            # Ranks on several hosts and no hostfile: nothing says which host holds which rank.
            lab.fails(rep["runs"][2], 3, r"(?i)hostfile")
    except AssertionError as e:
        raise AssertionError(f"{e}\n  {layout(reps)}")


def test_hydra_machinefile_from_slurm():
    """`cluster-resolve slurm --format machinefile` in `srun -N2 --ntasks-per-node=2` writes
    node1:2 / node2:2 (the same on every task); Hydra started on it places ranks 0,1 on
    node1 and 2,3 on node2, and every rank's launch info and cluster say so."""
    rc, out, err, reps = lab.launch(["srun", "--time=2", "-N2", "--ntasks-per-node=2"],
                                    [CLI, "slurm", "--format", "machinefile"], env=lab.clean_env())
    assert rc == 0, f"srun exited {rc}: {out}{err}"
    texts = [r["runs"][0]["out"] for r in reps]
    assert len(reps) == 4 and all(r["runs"][0]["rc"] == 0 for r in reps), reps
    assert texts == ["node1:2\nnode2:2\n"] * 4, texts
    reps = on_machinefile(texts[0], 4)
    check_fake_hosts(reps, 4, ["node1", "node1", "node2", "node2"])


def machinefile_of(spec):
    rc, out, err = lab.run([CLI, "simple", "--spec", json.dumps(spec), "--format", "machinefile"])
    assert rc == 0, f"exit {rc}: {err}"
    return out


def test_hydra_machinefile_uneven():
    """A spec with three tasks on node1 and one on node2 gives node1:3 / node2:1; Hydra fills
    node1's three slots first."""
    text = machinefile_of({"worker": ["node1:1", "node1:2", "node1:3", "node2:1"]})
    assert text == "node1:3\nnode2:1\n", text
    check_fake_hosts(on_machinefile(text, 4), 4, ["node1"] * 3 + ["node2"])


def test_hydra_machinefile_spare_slots():
    """-n 3 on node1:2 / node2:2: two ranks on node1, one on node2; node2 has one rank."""
    text = machinefile_of({"worker": ["node1:1", "node1:2", "node2:1", "node2:2"]})
    assert text == "node1:2\nnode2:2\n", text
    check_fake_hosts(on_machinefile(text, 3), 3, ["node1", "node1", "node2"])


def test_hydra_more_ranks_than_slots():
    """-n 6 on 4 slots: Hydra wraps around (ranks 4, 5 go back to node1, which then holds 4);
    a hostfile of 4 slots cannot describe that, so every rank must refuse (exit 3), never
    print a cluster that puts a rank on the wrong host."""
    reps = on_machinefile("node1:2\nnode2:2\n", 6)
    assert [placed(r) for r in reps] == ["node1", "node1", "node2", "node2", "node1", "node1"], layout(reps)
    for rep in reps:
        try:
            lab.fails(rep["runs"][0], 3, r"slots")
        except AssertionError as e:
            raise AssertionError(f"rank {rank(rep)}: {e}\n  {layout(reps)}")


if __name__ == "__main__":
    lab.main("test_mpich", [(k[5:], v) for k, v in list(globals().items())
                            if k.startswith("test_") and callable(v)])

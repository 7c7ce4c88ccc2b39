#!/usr/bin/env python3
"""The sge backend, and the MPI backend inside a Grid Engine job, under a real one-host Son of
Grid Engine (tests/sge/start-sge.sh; SGE_ROOT, SGE_CELL and the ports in the environment, as
LAB_DIR/sge/env.sh sets them). Jobs are submitted as the user of uid 1500 (Grid Engine refuses
root's) with `qsub -sync y -pe mpi 4`; each process they start writes its own report
(tests/launchers/rank_report.py) into a directory that user can write. The CLI and the report
script are copied there first: the job user need not be able to read the source tree.

  sge_batch_script     the job itself (one process): `sge --format hostfile` is the
                       allocation of PE_HOSTFILE; its `--format launch` is recorded
  sge_mpi_job          one job running mpirun.openmpi -np 4 (which reads PE_HOSTFILE itself,
                       ras gridengine), mpiexec.hydra -n 4 (rmk sge) and mpirun.openmpi -np 2
  sge_ompi_*, sge_hydra_*, sge_fewer_ranks_*   what the ranks of those launches printed

usage: test_sge.py [CLI] [-k WORD]      (CLI default build/cluster-resolve)
"""
import json
import os
import pwd
import re
import shlex
import shutil
import socket
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "launchers"))
import lab  # noqa: E402

CLI = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 and not sys.argv[1].startswith("-") \
    else os.path.join(lab.ROOT, "build", "cluster-resolve")
JOB_UID = 1500
HOST = socket.gethostname()
# Loopback only, shared memory between ranks (as tests/mpi/test_mpi.py).
MCA = "export OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_btl=self,vader\n"
CAT_PE = ["/bin/sh", "-c", 'cat "$PE_HOSTFILE"']


class Area:
    """A directory the job user can read (CLI, report script) and write (reports)."""

    def __init__(self):
        self.tmp = tempfile.mkdtemp(prefix="cres-sge-")
        os.chmod(self.tmp, 0o755)
        u = pwd.getpwnam(job_user())
        os.chown(self.tmp, u.pw_uid, u.pw_gid)   # the job's output file goes here
        self.cli = os.path.join(self.tmp, "cluster-resolve")
        self.report = os.path.join(self.tmp, "rank_report.py")
        shutil.copy(CLI, self.cli)
        shutil.copy(lab.REPORT, self.report)
        os.chmod(self.cli, 0o755)
        os.chmod(self.report, 0o755)

    def reports_dir(self, name):
        d = os.path.join(self.tmp, name)
        os.mkdir(d)
        os.chmod(d, 0o777)
        return d

    def report_cmd(self, out_dir, *commands):
        return [lab.PY, self.report, out_dir, json.dumps([list(c) for c in commands])]

    def close(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


def job_user():
    try:
        return pwd.getpwuid(JOB_UID).pw_name
    except KeyError:
        raise AssertionError(f"no user of uid {JOB_UID}: start tests/sge/start-sge.sh")


def qsub(area, argv, slots=4, timeout=30):
    """`qsub -sync y -pe mpi SLOTS -b y ARGV` as the job user; returns the job's output
    (stdout and stderr joined). The job must exit 0."""
    assert os.environ.get("SGE_ROOT") and os.environ.get("SGE_CELL"), \
        "SGE_ROOT/SGE_CELL not set: start tests/sge/start-sge.sh and source LAB_DIR/sge/env.sh"
    out = os.path.join(area.tmp, "job.out")
    name = f"cres{os.getpid()}"
    try:
        rc, so, se = lab.run(["runuser", "-u", job_user(), "--", "qsub", "-sync", "y", "-N", name,
                              "-pe", "mpi", str(slots), "-wd", area.tmp, "-o", out, "-j", "y",
                              # -b y: the job runs the words joined by a shell, so quote them
                              "-b", "y"] + [shlex.quote(a) for a in argv], timeout=timeout)
    except AssertionError as e:
        # A job the shepherd could not start waits in state Eqw for ever: say why, delete it.
        _, why, _ = lab.run(["qstat", "-j", name])
        lab.run(["qdel", "-f", name])
        reasons = "\n".join(l for l in why.splitlines() if "error" in l.lower())
        raise AssertionError(f"{e}\nqstat -j: {reasons or why}")
    text = open(out).read() if os.path.exists(out) else ""
    assert rc == 0, f"qsub -sync y exited {rc}: {so}{se}\njob output:\n{text}"
    return text


def pe_host(rep):
    """The host of the (one-line) PE_HOSTFILE the process saw, checked against the job."""
    r = rep["runs"][-1]
    assert r["rc"] == 0, f"cat $PE_HOSTFILE: {r}"
    lines = r["out"].splitlines()
    assert lines == [f"{HOST} 4 all.q@{HOST} UNDEFINED"], f"PE_HOSTFILE: {lines}"
    return lines[0].split()[0]


def launch_of(rep, i):
    r = rep["runs"][i]
    assert r["rc"] == 0, f"{shlex.join(r['argv'])} exited {r['rc']}: {r['err'].strip()}"
    try:
        return json.loads(r["out"])
    except ValueError as e:
        raise AssertionError(f"{shlex.join(r['argv'])}: not JSON ({e}): {r['out']!r}")


# ---- the job script itself ----------------------------------------------------------------

def test_sge_batch_script():
    """`qsub -pe mpi 4 -b y` of one process: `sge --format hostfile` is PE_HOSTFILE's
    allocation (this host, 4 slots). Which task the script itself is, is the library's to
    define: its `--format launch` is printed here, not checked."""
    area = Area()
    try:
        d = area.reports_dir("ranks")
        cmds = ([area.cli, "sge", "--format", "hostfile"], [area.cli, "sge", "--format", "launch"],
                CAT_PE)
        text = qsub(area, area.report_cmd(d, *cmds))
        reps = lab.reports(d, 1)
    finally:
        area.close()
    rep = reps[0]
    e = rep["env"]
    assert (e.get("NSLOTS"), e.get("NHOSTS"), e.get("PE")) == ("4", "1", "mpi"), e
    assert e.get("JOB_ID", "").isdigit() and e.get("PE_HOSTFILE"), e
    host = pe_host(rep)
    launch = rep["runs"][1]
    print(f"     batch script, sge --format launch: exit {launch['rc']} "
          f"{(launch['out'] or launch['err']).strip()}", flush=True)
    r = rep["runs"][0]
    assert r["rc"] == 0, f"sge --format hostfile exited {r['rc']}: {r['err'].strip()}\n{text}"
    assert lab.hostfile(r["out"]) == [(host, 4)], r["out"]


# ---- MPI launchers inside a job -----------------------------------------------------------

_JOB = {}


def mpi_job():
    """Runs (once) a `-pe mpi 4` job whose script starts mpirun.openmpi -np 4, mpiexec.hydra
    -n 4 and mpirun.openmpi -np 2; returns {"ompi", "hydra", "two": reports, "out": text}."""
    if "error" in _JOB:
        raise AssertionError(f"the job failed (see sge_mpi_job): {_JOB['error']}")
    if _JOB:
        return _JOB
    area = Area()
    try:
        dirs = {k: area.reports_dir(k) for k in ("ompi", "hydra", "two")}
        cmds = lambda d: area.report_cmd(d,  # noqa: E731
                                         [area.cli, "mpi", "--format", "launch", "--verbose"],
                                         [area.cli, "sge", "--format", "launch"],
                                         [area.cli, "--format", "launch"], CAT_PE)
        script = os.path.join(area.tmp, "job.sh")
        with open(script, "w") as f:
            f.write("#!/bin/sh\n" + MCA
                    # ras_gridengine_verbose: Open MPI says where its allocation comes from
                    + shlex.join(["mpirun.openmpi", "--mca", "ras_gridengine_verbose", "100",
                                  "-np", "4"] + cmds(dirs["ompi"])) + "\n"
                    + 'echo "mpirun -np 4 exit $?"\n'
                    + shlex.join(["mpiexec.hydra", "-n", "4"] + cmds(dirs["hydra"])) + "\n"
                    + 'echo "mpiexec.hydra -n 4 exit $?"\n'
                    + shlex.join(["mpirun.openmpi", "-np", "2"] + cmds(dirs["two"])) + "\n"
                    + 'echo "mpirun -np 2 exit $?"\n')
        os.chmod(script, 0o755)
        try:
            text = qsub(area, [script])
            got = {k: lab.reports(d) for k, d in dirs.items()}
        except AssertionError as e:
            _JOB["error"] = str(e)
            raise
    finally:
        area.close()
    _JOB.update(got, out=text)
    return _JOB


def ompi_rank(rep):
    return int(rep["env"]["OMPI_COMM_WORLD_RANK"])


def test_sge_mpi_job():
    """The job ran all three launches; Open MPI took its allocation from PE_HOSTFILE itself
    (ras gridengine: this host, 4 slots) and started 4 ranks without --oversubscribe; Hydra
    started 4, the second mpirun 2; every rank saw the job's PE_HOSTFILE."""
    job = mpi_job()
    text = job["out"]
    for line in ("mpirun -np 4 exit 0", "mpiexec.hydra -n 4 exit 0", "mpirun -np 2 exit 0"):
        assert line in text, f"no {line!r} in the job output:\n{text}"
    assert re.search(rf"ras:gridengine: {re.escape(HOST)}: PE_HOSTFILE shows slots=4", text), \
        f"Open MPI did not read PE_HOSTFILE (ras gridengine):\n{text}"
    for k, n in (("ompi", 4), ("hydra", 4), ("two", 2)):
        assert len(job[k]) == n, f"{k}: {len(job[k])} ranks reported, want {n}"
        for rep in job[k]:
            pe_host(rep)
            assert rep["env"].get("NSLOTS") == "4", rep["env"]


def check_launch(reps, i, rank_of, local_of, n):
    """Run i printed on every rank: world n, its own rank and local rank, all n on the one
    node of PE_HOSTFILE, coordinator there at 8888."""
    assert sorted(rank_of(r) for r in reps) == list(range(n)), [r["env"] for r in reps]
    for rep in reps:
        got = launch_of(rep, i)
        want = {"world_size": n, "rank": rank_of(rep), "local_rank": local_of(rep),
                "local_world_size": n, "node_rank": 0, "num_nodes": 1,
                "master_addr": pe_host(rep), "master_port": 8888}
        assert got == want, f"rank {rank_of(rep)}: {shlex.join(rep['runs'][i]['argv'])}\n  got  {got}\n  want {want}"


def ompi_local(rep):
    return int(rep["env"]["OMPI_COMM_WORLD_LOCAL_RANK"])


def pmi_rank(rep):
    return int(rep["env"]["PMI_RANK"])


def pmi_local(rep):
    return int(rep["env"]["MPI_LOCALRANKID"])


def verbose_names_pe_hostfile(reps):
    for rep in reps:
        err = rep["runs"][0]["err"]
        assert re.search(r"PE_HOSTFILE", err), \
            f"mpi --verbose does not name PE_HOSTFILE as the source of the hosts:\n{err}"


def test_sge_ompi_mpi_launch():
    """mpirun -np 4 in the job: the mpi backend's launch info on every rank, and auto's."""
    reps = mpi_job()["ompi"]
    check_launch(reps, 0, ompi_rank, ompi_local, 4)
    lab.same_output(reps, 0, 2)


def test_sge_ompi_mpi_verbose_source():
    """... and --verbose names PE_HOSTFILE as where the MPI backend took the hosts from."""
    verbose_names_pe_hostfile(mpi_job()["ompi"])


def test_sge_ompi_sge_launch():
    """mpirun -np 4 in the job: the sge backend, ranks from OMPI_COMM_WORLD_*."""
    check_launch(mpi_job()["ompi"], 1, ompi_rank, ompi_local, 4)


def test_sge_hydra_mpi_launch():
    """mpiexec.hydra -n 4 in the job (Hydra's rmk and launcher sge): the mpi backend's launch
    info on every rank, the host from PE_HOSTFILE (Hydra's ranks carry no host name)."""
    reps = mpi_job()["hydra"]
    check_launch(reps, 0, pmi_rank, pmi_local, 4)
    verbose_names_pe_hostfile(reps)
    lab.same_output(reps, 0, 2)


def test_sge_hydra_sge_launch():
    """mpiexec.hydra -n 4 in the job: the sge backend, ranks from PMI_RANK."""
    check_launch(mpi_job()["hydra"], 1, pmi_rank, pmi_local, 4)


def test_sge_fewer_ranks_than_slots():
    """mpirun -np 2 in a 4-slot job: the world is the 2 ranks mpirun started, not NSLOTS."""
    reps = mpi_job()["two"]
    check_launch(reps, 0, ompi_rank, ompi_local, 2)
    check_launch(reps, 1, ompi_rank, ompi_local, 2)


if __name__ == "__main__":
    lab.main("test_sge", [(k[5:], v) for k, v in list(globals().items())
                          if k.startswith("test_") and callable(v)])

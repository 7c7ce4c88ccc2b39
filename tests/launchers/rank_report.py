#!/usr/bin/python3
"""Runs on every rank a launcher starts: runs each command given (a JSON list of argv lists),
then writes one JSON file into DIR with what the launcher told this process (its Slurm,
Open MPI, PMIx, PMI, MPICH, Grid Engine and torchrun variables, and its GPU device lists) and each
command's exit code, stdout and stderr.
(A file per rank, not stdout: srun cuts long lines from several ranks into pieces and
interleaves them.)

usage: rank_report.py DIR '[["build/cluster-resolve", "slurm"], ["build/cluster-resolve"]]'
"""
import json
import os
import socket
import subprocess
import sys

PREFIXES = ("SLURM", "OMPI_COMM_WORLD_", "OMPI_UNIVERSE_SIZE", "PMIX_RANK", "PMIX_HOSTNAME",
            "PMI_", "MV2_", "CRES_", "TORCHELASTIC_", "PET_",
            # MPICH's Hydra: local rank and size, and the host it placed the rank on
            "MPI_LOCALRANKID", "MPI_LOCALNRANKS", "MPIR_CVAR_CH3_INTERFACE_HOSTNAME")
# What Grid Engine gives a job (and what its MPI launchers pass on to the ranks).
SGE = ("JOB_ID", "PE", "PE_HOSTFILE", "NSLOTS", "NHOSTS", "NQUEUES", "QUEUE")
# What torchrun gives each worker besides TORCHELASTIC_* (and PET_*, what it was started with).
TORCHRUN = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "GROUP_RANK",
            "GROUP_WORLD_SIZE", "ROLE_RANK", "ROLE_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")
# The device lists a launcher gives a task (Slurm writes each that gres.conf's flags name).
GPUS = ("CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ZE_AFFINITY_MASK",
        "GPU_DEVICE_ORDINAL")


def main():
    runs = []
    out_dir, commands = sys.argv[1], json.loads(sys.argv[2])
    for argv in commands:
        try:
            p = subprocess.run(argv, capture_output=True, text=True, timeout=60)
            runs.append({"argv": argv, "rc": p.returncode, "out": p.stdout, "err": p.stderr})
        except (OSError, subprocess.TimeoutExpired) as e:
            runs.append({"argv": argv, "rc": None, "out": "", "err": f"{type(e).__name__}: {e}"})
    env = {k: v for k, v in os.environ.items()
           if k.startswith(PREFIXES) or k in TORCHRUN or k in SGE or k in GPUS}
    doc = {"env": env, "hostname": socket.gethostname(), "pid": os.getpid(), "runs": runs}
    path = os.path.join(out_dir, f"rank-{os.getpid()}.json")
    with open(path + ".tmp", "w") as f:
        json.dump(doc, f)
    os.rename(path + ".tmp", path)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""One rank of a PyTorch gloo group started from the torchrun variables (MASTER_ADDR,
MASTER_PORT, WORLD_SIZE, RANK, LOCAL_RANK, LOCAL_WORLD_SIZE) that `cluster-resolve --format
torchrun --exec` sets: init_process_group("gloo", init_method="env://"), all_reduce of
rank + 1, which must sum to WORLD_SIZE * (WORLD_SIZE + 1) / 2 on every rank. Writes its report
to DIR/torch-<rank>.json (a file per rank: ranks under srun or mpirun share one stdout, where
their lines can run into each other); exits 1 when the sum is wrong. Run it with Debian's
/usr/bin/python3 (python3-torch).

usage: torch_allreduce.py DIR"""
import datetime
import json
import os
import sys
import time

import torch
import torch.distributed as dist

KEYS = ("MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK", "LOCAL_RANK", "LOCAL_WORLD_SIZE",
        "GROUP_RANK", "GROUP_WORLD_SIZE", "TORCHELASTIC_RUN_ID", "PET_NNODES", "PET_NODE_RANK",
        "PET_MASTER_ADDR", "PET_MASTER_PORT",
        "SLURM_PROCID", "SLURM_LOCALID", "SLURMD_NODENAME", "OMPI_COMM_WORLD_RANK",
        "OMPI_COMM_WORLD_LOCAL_RANK", "PMIX_HOSTNAME")


def main():
    t = time.time()
    dist.init_process_group("gloo", init_method="env://", timeout=datetime.timedelta(seconds=60))
    rank, size = dist.get_rank(), dist.get_world_size()
    x = torch.tensor([rank + 1.0])
    dist.all_reduce(x)
    want = size * (size + 1) / 2
    report = {"rank": rank, "world_size": size, "sum": x.item(), "want": want,
              "seconds": round(time.time() - t, 3),
              "env": {k: os.environ[k] for k in KEYS if k in os.environ}}
    path = os.path.join(sys.argv[1], f"torch-{rank}.json")
    with open(path + ".tmp", "w") as f:
        json.dump(report, f)
    os.rename(path + ".tmp", path)   # a reader never sees half a report
    dist.barrier()
    dist.destroy_process_group()
    return 0 if x.item() == want else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env bash
# make launcher-test: build/cluster-resolve under real launchers on this one machine.
#   1. starts a four-node Slurm cluster (tests/slurm/start-slurm.sh: munged, slurmctld,
#      slurmd -N node1..node4, all at 127.0.0.1, files under $CRES_LAB);
#   2. starts a one-host Grid Engine (tests/sge/start-sge.sh: sge_qmaster, sge_execd, PE mpi,
#      queue all.q, a job user of uid 1500; its own cell and spool under $CRES_LAB/sge);
#   3. makes node1..node4 resolve to 127.0.0.1 while it runs, for PyTorch's MASTER_ADDR: a
#      line per name that does not resolve yet, appended to /etc/hosts with a marker comment;
#   4. runs tests/slurm/test_slurm.py (srun, sbatch, salloc, GPUs, PyTorch gloo) and
#      tests/mpi/test_mpi.py (mpirun here, on fake hosts, inside sbatch, with our hostfile,
#      PyTorch gloo), tests/mpi/test_mpich.py (MPICH's mpiexec.hydra here and on fake hosts from our
#      machinefile), tests/launchers/test_torchrun.py (torchrun alone, one torchrun per node
#      under srun, torchrun inside srun) and tests/sge/test_sge.py (qsub -pe mpi 4: the job
#      script, mpirun and mpiexec.hydra inside the job);
#   5. always, also on failure or Ctrl-C: stops the daemons by their pid files
#      (tests/slurm/stop-slurm.sh, tests/sge/stop-sge.sh, which also removes the job user it
#      created) and removes exactly the marked /etc/hosts lines.
# Needs root. Installs missing packages first (tests/deps.sh).
#
#   tests/launchers/launcher-test.sh [CLI] [-k WORD]     (CLI default build/cluster-resolve)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cli=$root/build/cluster-resolve
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then cli=$(cd "$(dirname "$1")" && pwd)/$(basename "$1"); shift; fi
lab=${CRES_LAB:-/run/cres-launcher-lab}
marker="# cluster-resolver launcher-test"
t0=$(date +%s.%N)
say() { echo "[launcher-test] $*" >&2; }
elapsed() { awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

if [ "$(id -u)" != 0 ]; then
    say "needs root: it starts munged, slurmctld, slurmd, sge_qmaster and sge_execd, adds a user"
    say "(uid 1500, for qsub) and adds node1..node4 to /etc/hosts"
    exit 1
fi
bash "$root/tests/deps.sh" test || exit 1
[ -x "$cli" ] || { say "no $cli (make build/cluster-resolve)"; exit 1; }

# One run at a time: the runs would share ports and the lab directory.
exec 9>"$lab.lock"
flock -n 9 || { say "another launcher-test holds $lab.lock"; exit 1; }

hosts_remove() {   # drops exactly the lines this script added (marker at the end)
    grep -q -- "$marker\$" /etc/hosts 2>/dev/null || return 0
    local kept
    kept=$(grep -v -- "$marker\$" /etc/hosts)
    # In place, not by rename: /etc/hosts is often a bind mount (containers).
    printf '%s\n' "$kept" > /etc/hosts
}
hosts_add() {
    local n
    for n in node1 node2 node3 node4; do
        getent hosts "$n" >/dev/null || printf '127.0.0.1 %s %s\n' "$n" "$marker" >> /etc/hosts
    done
}
cleanup() {
    bash "$root/tests/sge/stop-sge.sh" "$lab" &   # both take a few seconds: at once
    bash "$root/tests/slurm/stop-slurm.sh" "$lab"
    wait
    hosts_remove
    say "done in $(elapsed) s, daemons stopped, /etc/hosts restored"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

hosts_remove     # lines a killed earlier run left behind
bash "$root/tests/slurm/start-slurm.sh" "$lab" 9>&- || exit 1   # the daemons must not hold the lock
export SLURM_CONF=$lab/slurm.conf
t_sge=$(date +%s.%N)
bash "$root/tests/sge/start-sge.sh" "$lab" 9>&- || exit 1
say "Grid Engine up in $(awk -v a="$t_sge" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
hosts_add

log=$lab/results.txt
: > "$log"
status=0
python3 "$root/tests/slurm/test_slurm.py" "$cli" "$@" | tee -a "$log"
[ "${PIPESTATUS[0]}" = 0 ] || status=1
python3 "$root/tests/mpi/test_mpi.py" "$cli" "$@" | tee -a "$log"
[ "${PIPESTATUS[0]}" = 0 ] || status=1
python3 "$root/tests/mpi/test_mpich.py" "$cli" "$@" | tee -a "$log"
[ "${PIPESTATUS[0]}" = 0 ] || status=1
python3 "$root/tests/launchers/test_torchrun.py" "$cli" "$@" | tee -a "$log"
[ "${PIPESTATUS[0]}" = 0 ] || status=1
# Grid Engine's clients need its cell and ports; the other tests must not see them.
(. "$lab/sge/env.sh" && python3 "$root/tests/sge/test_sge.py" "$cli" "$@") | tee -a "$log"
[ "${PIPESTATUS[0]}" = 0 ] || status=1

echo "== launcher-test summary ($cli)"
grep -E '^(PASS|FAIL) ' "$log" | awk '{print $1}' | sort | uniq -c | sed 's/^ */   /'
grep -E '^FAIL ' "$log" | sed 's/^/   /'
grep -E '^test_(slurm|mpi|mpich|torchrun|sge): ' "$log" | sed 's/^/   /'
echo "   start and tests took $(elapsed) s"
exit $status

#!/usr/bin/env bash
# Starts the launcher tests' Slurm cluster: a private munged, slurmctld and four slurmd
# (`slurmd -N node1` .. `node4`, four fake GPUs each) on this machine, everything under
# LAB_DIR, and waits until the four nodes are idle and a trivial step runs on all of them.
#
#   tests/slurm/start-slurm.sh [LAB_DIR]      (default /run/cres-launcher-lab)
#   then: export SLURM_CONF=LAB_DIR/slurm.conf; srun -N4 -n8 ...; tests/slurm/stop-slurm.sh LAB_DIR
#
# Needs root. Ports: slurmctld on CRES_SLURM_PORT (default 16817), the slurmds on the four
# ports after it; loopback only. CRES_SLURM_CPUS (default 2) CPUs per node. Anything left
# from an earlier run in LAB_DIR (pid files of a killed run) is stopped first.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
lab=${1:-/run/cres-launcher-lab}
port=${CRES_SLURM_PORT:-16817}
cpus=${CRES_SLURM_CPUS:-2}
log() { echo "[start-slurm] $*" >&2; }
fail() { log "$*"; exit 1; }

[ "$(id -u)" = 0 ] || fail "must run as root (slurmd runs jobs as any user; munged runs as munge)"
for c in /usr/sbin/munged /usr/sbin/slurmctld /usr/sbin/slurmd srun sinfo; do
    command -v "$c" >/dev/null || { bash "$root/tests/deps.sh" test || exit 1; break; }
done
id munge >/dev/null 2>&1 || fail "no user munge (package munge)"

# A killed earlier run may have left daemons: stop them by their pid files first.
bash "$here/stop-slurm.sh" "$lab" quiet

for p in $(seq "$port" $((port + 4))); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
        fail "port $p is in use; pick other ports with CRES_SLURM_PORT=N (uses N..N+4)"
    fi
done

# ---- munge: its own key and socket, so a munged already running here is left alone ----------
mkdir -p "$lab" && chmod 755 "$lab"   # munged (user munge) must reach its socket below
rm -rf "$lab/munge" "$lab/slurmctld" "$lab/slurmd" "$lab/log" "$lab/gpu"
mkdir -m 755 "$lab/munge"    # munged wants its socket's directory searchable by all
dd if=/dev/urandom of="$lab/munge/munge.key" bs=128 count=1 status=none
chmod 600 "$lab/munge/munge.key"
chown -R munge:munge "$lab/munge"
runuser -u munge -- /usr/sbin/munged --socket="$lab/munge/munge.socket" \
    --key-file="$lab/munge/munge.key" --pid-file="$lab/munge/munged.pid" \
    --log-file="$lab/munge/munged.log" --seed-file="$lab/munge/munged.seed" ||
    fail "munged did not start: $(tail -n 3 "$lab/munge/munged.log" 2>/dev/null)"
for _ in $(seq 50); do
    munge -S "$lab/munge/munge.socket" -n 2>/dev/null | unmunge -S "$lab/munge/munge.socket" >/dev/null 2>&1 && break
    sleep 0.1
done
munge -S "$lab/munge/munge.socket" -n | unmunge -S "$lab/munge/munge.socket" >/dev/null ||
    fail "munged does not answer on $lab/munge/munge.socket"

# ---- slurm.conf ----------------------------------------------------------------------------
mkdir -p "$lab/slurmctld" "$lab/log" "$lab"/slurmd/node{1,2,3,4}
sed -e "s|@HOST@|$(hostname -s)|g" -e "s|@LAB@|$lab|g" -e "s|@CTLD_PORT@|$port|g" \
    -e "s|@NODE_PORTS@|$((port + 1))-$((port + 4))|g" -e "s|@CPUS@|$cpus|g" \
    "$here/slurm.conf.in" > "$lab/slurm.conf"
# Four fake GPUs a node: device files with /dev/null's numbers (Slurm wants character or
# block devices, and numbers them by the digits at the end); every slurmd uses the same four.
mkdir -p "$lab/gpu"
for g in 0 1 2 3; do mknod "$lab/gpu/nvidia$g" c 1 3; done
echo "NodeName=node[1-4] Name=gpu File=$lab/gpu/nvidia[0-3]" > "$lab/gres.conf"
export SLURM_CONF=$lab/slurm.conf

# ---- daemons -------------------------------------------------------------------------------
slurmctld -c -f "$SLURM_CONF" || fail "slurmctld did not start: $(tail -n 5 "$lab/log/slurmctld.log" 2>/dev/null)"
for n in 1 2 3 4; do
    slurmd -N "node$n" -f "$SLURM_CONF" || fail "slurmd node$n did not start: $(tail -n 5 "$lab/log/slurmd-node$n.log" 2>/dev/null)"
done

for i in $(seq 100); do
    idle=$(sinfo -h -N -t idle -o '%N' 2>/dev/null | sort -u | wc -l || true)
    [ "$idle" -ge 4 ] && break
    [ "$i" = 100 ] && { sinfo -N >&2 || true; fail "the four nodes did not become idle in 20 s"; }
    sleep 0.2
done
timeout 30 srun -N4 -n4 true || fail "a trivial step (srun -N4 -n4 true) failed"
log "ready: node[1-4] idle, $cpus CPUs each; SLURM_CONF=$SLURM_CONF"

#!/usr/bin/env bash
# Stops what tests/slurm/start-slurm.sh started, by the pid files under LAB_DIR (never by
# process name): the slurmds and slurmctld, then munged. SIGTERM, up to 15 s, then SIGKILL.
# Safe to run when nothing is running.
#
#   tests/slurm/stop-slurm.sh [LAB_DIR] [quiet]      (default /run/cres-launcher-lab)
set -u
lab=${1:-/run/cres-launcher-lab}
quiet=${2:-}
log() { [ -n "$quiet" ] || echo "[stop-slurm] $*" >&2; }

# stop FILE...: SIGTERM every live pid named by the files at once, wait, SIGKILL what is left
stop() {
    local f p pids=() names=() alive
    for f in "$@"; do
        [ -s "$f" ] || continue
        p=$(cat "$f")
        case $p in ''|*[!0-9]*) continue ;; esac
        if kill -0 "$p" 2>/dev/null; then
            kill "$p" 2>/dev/null && pids+=("$p") && names+=("$(basename "$f" .pid)($p)")
        fi
    done
    if [ ${#pids[@]} -gt 0 ]; then
        for _ in $(seq 150); do
            alive=0
            for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
            [ $alive = 0 ] && break
            sleep 0.1
        done
        for p in "${pids[@]}"; do
            kill -0 "$p" 2>/dev/null && { echo "[stop-slurm] SIGKILL $p" >&2; kill -9 "$p" 2>/dev/null; }
        done
        log "stopped ${names[*]}"
    fi
    rm -f "$@"
}

[ -d "$lab" ] || exit 0
shopt -s nullglob

# Jobs still running (a test that was interrupted) would outlive slurmd: cancel them first,
# through this lab's own slurmctld, and give their steps a few seconds to end.
if [ -s "$lab/slurmctld.pid" ] && kill -0 "$(cat "$lab/slurmctld.pid")" 2>/dev/null && [ -f "$lab/slurm.conf" ]; then
    export SLURM_CONF=$lab/slurm.conf
    mapfile -t jobs < <(timeout 5 squeue -h -o %i 2>/dev/null)
    if [ ${#jobs[@]} -gt 0 ]; then
        log "cancelling jobs ${jobs[*]}"
        timeout 5 scancel "${jobs[@]}" 2>/dev/null
        for _ in $(seq 50); do [ -z "$(timeout 5 squeue -h -t R,CG,PD -o %i 2>/dev/null)" ] && break; sleep 0.1; done
    fi
fi
stop "$lab"/slurmd-*.pid
stop "$lab/slurmctld.pid"
stop "$lab/munge/munged.pid"
exit 0

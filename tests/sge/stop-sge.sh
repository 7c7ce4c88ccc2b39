#!/usr/bin/env bash
# Stops what tests/sge/start-sge.sh started, by the pid files under LAB_DIR/sge (never by
# process name): deletes jobs still there, then stops sge_execd (SIGTERM, up to 15 s, then
# SIGKILL) and sge_qmaster (SIGTERM, 2 s, then SIGKILL) together; removes the job user and group if
# start-sge.sh created them, and LAB_DIR/sge. Safe to run when nothing is running.
#
#   tests/sge/stop-sge.sh [LAB_DIR] [quiet]      (default /run/cres-launcher-lab)
set -u
lab=${1:-/run/cres-launcher-lab}
quiet=${2:-}
sge=$lab/sge
log() { [ -n "$quiet" ] || echo "[stop-sge] $*" >&2; }

# running PID: the process exists and is no zombie (a daemon whose parent is gone can stay
# a zombie here until someone reaps it; it has ended all the same)
running() {
    local st
    st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 1
    [ -n "$st" ] && [ "$st" != Z ]
}

# stop TENTHS FILE...: SIGTERM every live pid named by the files at once, wait up to TENTHS
# tenths of a second, SIGKILL what is left
stop() {
    local f p pids=() names=() alive tenths=$1
    shift
    for f in "$@"; do
        [ -s "$f" ] || continue
        p=$(cat "$f")
        case $p in ''|*[!0-9]*) continue ;; esac
        if running "$p"; then
            kill "$p" 2>/dev/null && pids+=("$p") && names+=("$(basename "$f" .pid)($p)")
        fi
    done
    if [ ${#pids[@]} -gt 0 ]; then
        for _ in $(seq "$tenths"); do
            alive=0
            for p in "${pids[@]}"; do running "$p" && alive=1; done
            [ $alive = 0 ] && break
            sleep 0.1
        done
        for p in "${pids[@]}"; do
            running "$p" && { log "SIGKILL $p"; kill -9 "$p" 2>/dev/null; }
        done
        log "stopped ${names[*]}"
    fi
    rm -f "$@"
}

[ -d "$sge" ] || exit 0
shopt -s nullglob
qmaster_pid=$sge/qmaster/qmaster.pid

# Jobs of an interrupted test would outlive execd: delete them through this lab's qmaster.
if [ -s "$qmaster_pid" ] && running "$(cat "$qmaster_pid")" && [ -f "$sge/env.sh" ]; then
    . "$sge/env.sh"
    if [ -n "$(timeout 5 qstat -u '*' 2>/dev/null)" ]; then
        log "deleting jobs left behind"
        timeout 5 qdel -f -u '*' >/dev/null 2>&1
        for _ in $(seq 50); do [ -z "$(timeout 5 qstat -u '*' 2>/dev/null)" ] && break; sleep 0.1; done
    fi
fi
# Both at once. sge_execd ends in about 2 s. sge_qmaster's controlled shutdown takes about
# 9 s (its threads' timers); its spool is thrown away below, so it gets 2 s, then SIGKILL.
stop 150 "$sge"/execd/*/execd.pid &
stop 20 "$qmaster_pid"
wait

if [ -s "$sge/created-user" ]; then
    u=$(cat "$sge/created-user")
    userdel "$u" 2>/dev/null || log "userdel $u failed"
    # userdel drops the user's own group too (USERGROUPS_ENAB); a group left over goes here
    [ -f "$sge/created-group" ] && getent group "$u" >/dev/null && groupdel "$u" 2>/dev/null
    log "removed user $u"
fi
rm -rf "$sge"
exit 0

#!/usr/bin/env bash
# Starts a one-host Son of Grid Engine (Debian's gridengine 8.1.9) for the launcher tests:
# a private cell with its own SGE_ROOT, spool and ports under LAB_DIR/sge, so the package's
# own cell (/var/lib/gridengine/default, /var/spool/gridengine) is never touched; then
# sge_qmaster, this host as submit and exec host, sge_execd, a parallel environment `mpi`
# and a queue all.q (pe_list mpi, 4 slots), and a user of uid 1500 to submit with (root's
# jobs are refused: min_uid 1000). Writes LAB_DIR/sge/env.sh (SGE_ROOT, SGE_CELL and the
# ports) for the clients.
#
#   tests/sge/start-sge.sh [LAB_DIR]      (default /run/cres-launcher-lab)
#   then: . LAB_DIR/sge/env.sh; runuser -u cres-sge -- qsub -sync y -pe mpi 4 ...;
#         tests/sge/stop-sge.sh LAB_DIR
#
# Needs root. Ports: CRES_SGE_PORT (default 16444) for sge_qmaster, the next for sge_execd;
# loopback. The only change outside LAB_DIR is the job user (and its group) of uid 1500,
# created when missing and removed again by stop-sge.sh. Anything left from an earlier run
# in LAB_DIR is stopped first.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
lab=${1:-/run/cres-launcher-lab}
port=${CRES_SGE_PORT:-16444}
uid=1500
log() { echo "[start-sge] $*" >&2; }
fail() { log "$*"; exit 1; }
# q CMD...: runs a Grid Engine client, its chatter into setup.log, the log's end on failure
q() { "$@" >>"$sge/setup.log" 2>&1 || fail "$*: $(tail -n 3 "$sge/setup.log")"; }

[ "$(id -u)" = 0 ] || fail "must run as root (sge_execd starts jobs as their user)"
for c in /usr/sbin/sge_qmaster /usr/sbin/sge_execd qsub qconf; do
    command -v "$c" >/dev/null || { bash "$root/tests/deps.sh" test || exit 1; break; }
done
id sgeadmin >/dev/null 2>&1 || fail "no user sgeadmin (package gridengine-common)"

bash "$here/stop-sge.sh" "$lab" quiet   # what a killed earlier run left

for p in "$port" $((port + 1)); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
        fail "port $p is in use; pick other ports with CRES_SGE_PORT=N (uses N and N+1)"
    fi
done

host=$(hostname)
sge=$lab/sge
cell=cres-lab
mkdir -p "$lab" && chmod 755 "$lab"
mkdir -m 755 "$sge"
# ---- SGE_ROOT: the package's binaries and utilities, our cell --------------------------
sge_root=$sge/root
mkdir -p "$sge_root/$cell/common"
for d in bin lib util utilbin; do ln -s "/var/lib/gridengine/$d" "$sge_root/$d"; done
mkdir -p "$sge/spooldb" "$sge/qmaster/job_scripts" "$sge/execd"
sed -e "s|^spooling_params .*|spooling_params         $sge/spooldb|" \
    -e "s|^qmaster_spool_dir .*|qmaster_spool_dir       $sge/qmaster|" \
    /usr/share/gridengine/default-bootstrap > "$sge_root/$cell/common/bootstrap"
grep -q "$sge/spooldb" "$sge_root/$cell/common/bootstrap" || fail "unexpected default-bootstrap"
# Load reports every 2 s instead of 40: the scheduler waits for the first one.
sed -e "s|^execd_spool_dir .*|execd_spool_dir        $sge/execd|" \
    -e "s|^load_report_time .*|load_report_time       00:00:02|" \
    /usr/share/gridengine/default-configuration > "$sge/configuration"
echo "$host" > "$sge_root/$cell/common/act_qmaster"
# Clients on loopback resolve to localhost; without this alias qmaster refuses them.
echo "$host localhost" > "$sge_root/$cell/common/host_aliases"
chown -R sgeadmin:sgeadmin "$sge_root/$cell" "$sge/spooldb" "$sge/qmaster" "$sge/execd" "$sge/configuration"

cat > "$sge/env.sh" <<EOF
export SGE_ROOT=$sge_root SGE_CELL=$cell SGE_QMASTER_PORT=$port SGE_EXECD_PORT=$((port + 1))
EOF
. "$sge/env.sh"

# ---- the spool: what Debian's init_cluster does for the default cell --------------------
runuser -u sgeadmin -- env SGE_ROOT="$SGE_ROOT" SGE_CELL="$SGE_CELL" sh -ec "
    /usr/lib/gridengine/spoolinit berkeleydb libspoolb '$sge/spooldb' init
    /usr/lib/gridengine/spooldefaults configuration '$sge/configuration'
    /usr/lib/gridengine/spooldefaults complexes /usr/share/gridengine/util/resources/centry
    /usr/lib/gridengine/spooldefaults usersets /usr/share/gridengine/util/resources/usersets
    /usr/lib/gridengine/spooldefaults managers sgeadmin root
" > "$sge/init.log" 2>&1 || fail "spool init failed: $(tail -n 5 "$sge/init.log")"

# ---- the job user -----------------------------------------------------------------------
if ! getent passwd "$uid" >/dev/null; then
    getent group "$uid" >/dev/null || { groupadd -g "$uid" cres-sge && echo group > "$sge/created-group"; }
    useradd -u "$uid" -g "$uid" -M -d /nonexistent -s /bin/sh cres-sge
    echo cres-sge > "$sge/created-user"
fi
[ "$(id -g "$uid")" -ge 1000 ] || fail "the user of uid $uid has group id $(id -g "$uid"): Grid Engine refuses jobs of gid < 1000"

# ---- daemons ----------------------------------------------------------------------------
/usr/sbin/sge_qmaster || fail "sge_qmaster did not start: $(tail -n 5 "$sge/qmaster/messages" 2>/dev/null)"
for i in $(seq 100); do
    qconf -sh >/dev/null 2>&1 && break
    [ "$i" = 100 ] && fail "sge_qmaster does not answer: $(tail -n 5 "$sge/qmaster/messages" 2>/dev/null)"
    sleep 0.1
done
q qconf -as "$host"
tmp=$sge/conf
mkdir -p "$tmp"
cat > "$tmp/exec" <<EOF
hostname              $host
load_scaling          NONE
complex_values        NONE
user_lists            NONE
xuser_lists           NONE
projects              NONE
xprojects             NONE
usage_scaling         NONE
report_variables      NONE
EOF
q qconf -Ae "$tmp/exec"
# Scheduling at once on submit and on finish, not every 15 s.
qconf -ssconf | sed -e 's/^schedule_interval .*/schedule_interval 0:0:1/' \
    -e 's/^flush_submit_sec .*/flush_submit_sec 1/' -e 's/^flush_finish_sec .*/flush_finish_sec 1/' \
    > "$tmp/sched"
q qconf -Msconf "$tmp/sched"
cat > "$tmp/pe" <<EOF
pe_name            mpi
slots              16
user_lists         NONE
xuser_lists        NONE
start_proc_args    NONE
stop_proc_args     NONE
allocation_rule    \$round_robin
control_slaves     TRUE
job_is_first_task  FALSE
urgency_slots      min
accounting_summary FALSE
qsort_args         NONE
EOF
q qconf -Ap "$tmp/pe"
/usr/sbin/sge_execd || fail "sge_execd did not start"
cat > "$tmp/queue" <<EOF
qname                 all.q
hostlist              $host
seq_no                0
load_thresholds       NONE
suspend_thresholds    NONE
nsuspend              1
suspend_interval      00:05:00
priority              0
min_cpu_interval      00:05:00
processors            UNDEFINED
qtype                 BATCH INTERACTIVE
ckpt_list             NONE
pe_list               mpi
rerun                 FALSE
slots                 4
tmpdir                /tmp
shell                 /bin/sh
prolog                NONE
epilog                NONE
shell_start_mode      posix_compliant
starter_method        NONE
suspend_method        NONE
resume_method         NONE
terminate_method      NONE
notify                00:00:60
owner_list            NONE
user_lists            NONE
xuser_lists           NONE
subordinate_list      NONE
complex_values        NONE
projects              NONE
xprojects             NONE
calendar              NONE
initial_state         default
s_rt                  INFINITY
h_rt                  INFINITY
s_cpu                 INFINITY
h_cpu                 INFINITY
s_fsize               INFINITY
h_fsize               INFINITY
s_data                INFINITY
h_data                INFINITY
s_stack               INFINITY
h_stack               INFINITY
s_core                INFINITY
h_core                INFINITY
s_rss                 INFINITY
h_rss                 INFINITY
s_vmem                INFINITY
h_vmem                INFINITY
EOF
q qconf -Aq "$tmp/queue"
for i in $(seq 100); do
    # the queue instance is usable once execd has reported a load (state without 'u')
    state=$(qstat -f -q "all.q@$host" 2>/dev/null | awk -v q="all.q@$host" '$1 == q { print ($6 == "" ? "ok" : $6) }')
    [ "$state" = ok ] && break
    [ "$i" = 100 ] && { qstat -f >&2 || true; fail "all.q@$host not ready in 20 s (state ${state:-none})"; }
    sleep 0.2
done
log "ready: all.q@$host (4 slots, pe mpi), job user $(getent passwd "$uid" | cut -d: -f1); . $sge/env.sh"

#!/usr/bin/env bash
# A stand-in for ssh as Open MPI's rsh launcher agent (mpirun --mca plm_rsh_agent THIS): mpirun
# calls `fake-rsh.sh [ssh options] HOST COMMAND...` to start its orted on HOST. We run the
# command here instead, with CRES_FAKE_HOST=HOST in its environment (the orted passes it on to
# the ranks it starts), and append HOST to $CRES_FAKE_RSH_LOG when that is set. So fake host
# names (fakenode1, fakenode2) need no DNS, no sshd and no second machine.
#
# Every fake host gets its own Open MPI session directory base, $CRES_FAKE_RSH_TMP/HOST
# (default ${TMPDIR:-/tmp}/cres-fake-rsh/HOST): orteds that share one machine and one base
# race to create the same session directories ("mkdir ... File exists").
while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do
    case $1 in -l|-p|-o|-i|-F) shift ;; esac   # options that take a value
    shift
done
[ $# -ge 2 ] || { echo "fake-rsh: usage: fake-rsh.sh [options] HOST COMMAND..." >&2; exit 255; }
host=$1; shift
case $host in */*|.*|'') echo "fake-rsh: bad host name '$host'" >&2; exit 255 ;; esac
[ -n "${CRES_FAKE_RSH_LOG:-}" ] && echo "$host" >> "$CRES_FAKE_RSH_LOG"
export CRES_FAKE_HOST=$host
export OMPI_MCA_orte_tmpdir_base=${CRES_FAKE_RSH_TMP:-${TMPDIR:-/tmp}/cres-fake-rsh}/$host
mkdir -p "$OMPI_MCA_orte_tmpdir_base" || exit 255
exec /bin/sh -c "$*"

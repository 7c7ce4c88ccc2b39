#!/usr/bin/env bash
# make coverage: how much of cluster_resolver.h the tests run, as one figure.
#   1. copies the header and the C sources of the tests into DIR/src (the report then shows the
#      source that was measured, even if the tree changes during the run) and builds from them,
#      with gcc --coverage -O0, every program of the tests that runs the header's
#      implementation: the unit tests (tests/test_*.c with tests/impl.c, or their own), the CLI
#      and the two custom examples, the thread test (gcc's ThreadSanitizer, atomic counters)
#      and the hostlist oracle's expand_hostlist, and tests/compile/switches.c once per
#      CLUSTER_RESOLVER_NO_<BACKEND> and once with all of them (as tests/check.sh runs it);
#   2. runs the tests against them, one after another: the unit tests with the allocation-failure
#      walks, the CLI tests, the property test, Kubernetes, kubeconfig, Google, hostile answers,
#      network faults, the real clients, threads, the hostlist oracle, the compile switches and,
#      as root, the launcher lab. Every process adds its counts to the same .gcda files (libgcov
#      locks each file while it merges; a process killed by a signal writes nothing);
#   3. captures the counts with lcov, keeps cluster_resolver.h alone and writes the HTML report
#      with branch coverage (DIR/index.html; DIR/header.info is the lcov data).
# Each test's output goes to DIR/logs/NAME.log. A program that does not build or a test that
# fails is named and makes the exit status 1, but the report is still written. The last lines
# are the figures.
#
#   tests/coverage/run_coverage.sh [--unit] [DIR]   (DIR default build/cov; JOBS builds at a time)
# --unit runs the unit tests alone (under a minute instead of the whole run).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
unit_only=
if [ "${1:-}" = --unit ]; then unit_only=1; shift; fi
out=${1:-build/cov}
jobs=${JOBS:-2}
bash tests/deps.sh coverage || exit 1
lcov_rc=(--rc lcov_branch_coverage=1)
t0=$(date +%s)
say() { echo "[coverage] $*" >&2; }

rm -rf "$out" && mkdir -p "$out/logs" "$out/src" || exit 1
out=$(cd "$out" && pwd)
rel=${out#"$root"/}
failed=()

# The sources, as they are now: the header, every C file and header the builds below read.
cp --parents cluster_resolver.h tests/*.c tests/*.h tests/threads/test_threads.c \
    tests/slurm/expand_hostlist.c tests/compile/switches.c examples/*.c "$out/src/" || exit 1
# The backends of tests/check.sh's switch builds.
switches=$(sed -n '/^backends="/,/"/p' tests/check.sh | tr -d '"' | sed 's/^backends=//; s/#.*//' | xargs)
[ -n "$switches" ] || { say "no backends list in tests/check.sh"; exit 1; }

export COV_OUT=$out COV_SWITCHES=$switches
# Warnings are the normal builds' business (gcc -O0 guesses differently about snprintf lengths).
export COV_CFLAGS="-std=c99 -O0 -g --coverage"

# build SOURCE NAME [LINK FLAGS...]: DIR/src/SOURCE to DIR/NAME.o (its counts: DIR/NAME.gcda)
# and the program DIR/NAME, linked with impl.o when SOURCE does not define the implementation.
build() {
    local src=$COV_OUT/src/$1 name=$2; shift 2
    local extra=() defs=() b
    case $name in # switches-B: CLUSTER_RESOLVER_NO_B, or every one for ALL
        switches-ALL) for b in $COV_SWITCHES; do defs+=("-DCLUSTER_RESOLVER_NO_$b"); done ;;
        switches-*) defs=("-DCLUSTER_RESOLVER_NO_${name#switches-}") ;;
    esac
    if ! grep -q '^#define CLUSTER_RESOLVER_IMPLEMENTATION' "$src"; then extra=("$COV_OUT/impl.o"); fi
    # shellcheck disable=SC2086
    { gcc $COV_CFLAGS ${COV_EXTRA:-} "${defs[@]}" -c "$src" -o "$COV_OUT/$name.o" &&
        gcc --coverage ${COV_EXTRA:-} "$COV_OUT/$name.o" "${extra[@]}" "$@" -o "$COV_OUT/$name"; } \
        >"$COV_OUT/logs/build-$name.log" 2>&1 ||
        { echo "[coverage] $name: does not build, see logs/build-$name.log" >&2; return 0; }
}
export -f build

say "building with gcc --coverage -O0 into $rel"
# shellcheck disable=SC2086
gcc $COV_CFLAGS -c "$out/src/tests/impl.c" -o "$out/impl.o" || exit 1
{
    for t in tests/test_*.c; do
        n=$(basename "$t" .c)
        case $n in
            test_kubeconfig) echo "$t $n -lcmocka -lyaml" ;;
            *) echo "$t $n -lcmocka" ;;
        esac
    done
    echo "examples/cluster-resolve.c cluster-resolve -lcurl -lyaml -lcrypto"
    echo "examples/custom_backend.c custom_backend"
    echo "examples/custom_transport.c custom_transport"
    echo "tests/slurm/expand_hostlist.c expand_hostlist"
    for b in $switches ALL; do echo "tests/compile/switches.c switches-$b"; done
} | xargs -P "$jobs" -L 1 bash -c 'build "$@"' _
COV_EXTRA="-fsanitize=thread -fprofile-update=atomic" build tests/threads/test_threads.c test_threads -lcurl -lpthread
say "built in $(( $(date +%s) - t0 )) s"

# step NAME PROGRAM COMMAND...: runs one test of the program DIR/PROGRAM, its output to
# logs/NAME.log; a test whose program did not build fails.
step() {
    local name=$1 s; s=$(date +%s); shift
    local program=$1; shift
    if [ ! -x "$out/$program" ]; then
        say "$name: FAILED (not built)"
        failed+=("$name")
    elif "$@" >"$out/logs/$name.log" 2>&1; then
        say "$name: passed ($(( $(date +%s) - s )) s)"
    else
        say "$name: FAILED ($(( $(date +%s) - s )) s), see $rel/logs/$name.log"
        failed+=("$name")
    fi
}

for t in tests/test_*.c; do
    n=$(basename "$t" .c)
    step "$n" "$n" "$out/$n"
done
if [ -z "$unit_only" ]; then
    step cli cluster-resolve python3 tests/test_cli.py "$out"
    step cli_sched cluster-resolve python3 tests/test_cli_sched.py "$out"
    step property cluster-resolve python3 tests/property/property_test.py "$out/cluster-resolve" \
        --workdir "$out/property"
    step k8s cluster-resolve python3 tests/k8s/test_k8s_integration.py "$out"
    step kubeconfig_kubectl cluster-resolve python3 tests/kubeconfig/test_kubeconfig_kubectl.py "$out"
    step kubeconfig_cloud_plugins cluster-resolve python3 tests/kubeconfig/test_cloud_plugins.py "$out"
    step kubeconfig_exec_plugins cluster-resolve python3 tests/kubeconfig/test_exec_plugins.py "$out"
    step gcp cluster-resolve python3 tests/gcp/test_gcp_integration.py "$out"
    step gcp_adc cluster-resolve python3 tests/gcp/test_google_adc.py "$out"
    step hostile cluster-resolve python3 tests/test_hostile_http.py "$out"
    step netfault cluster-resolve python3 tests/netfault/test_netfaults.py "$out"
    step clients cluster-resolve python3 tests/clients/test_real_clients.py "$out"
    step threads test_threads python3 tests/threads/run_threads.py "$out/test_threads"
    step hostlist_oracle expand_hostlist python3 tests/slurm/hostlist_oracle.py "$out/expand_hostlist"
    for b in $switches ALL; do step "switches-$b" "switches-$b" "$out/switches-$b"; done
    if [ "$(id -u)" = 0 ]; then
        # The lab runs the CLI as other users too (Grid Engine's job user): let them add counts.
        chmod a+rwx "$out" && chmod a+rw "$out"/*.gcda
        step launchers cluster-resolve bash tests/launchers/launcher-test.sh "$out/cluster-resolve"
    else
        say "launchers: skipped (the launcher lab needs root)"
    fi
fi

say "capturing"
{ lcov "${lcov_rc[@]}" --capture --directory "$out" --output-file "$out/all.info" &&
    lcov "${lcov_rc[@]}" --extract "$out/all.info" "$out/src/cluster_resolver.h" \
        --output-file "$out/header.info" &&
    genhtml "${lcov_rc[@]}" --branch-coverage --title "cluster_resolver.h" \
        --output-directory "$out" "$out/header.info"; } >"$out/logs/lcov.log" 2>&1 ||
    { say "lcov failed, see $rel/logs/lcov.log"; exit 1; }

say "took $(( $(date +%s) - t0 )) s; report: $rel/index.html"
lcov "${lcov_rc[@]}" --summary "$out/header.info" 2>&1 | grep -E 'lines|functions|branches'
if [ ${#failed[@]} -gt 0 ]; then
    say "FAILED: ${failed[*]}"
    exit 1
fi

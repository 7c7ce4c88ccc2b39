#!/usr/bin/env bash
# The compile matrix: gcc and clang as C99 and C11, g++ and clang++ as C++11 and C++17, all
# with -Wall -Wextra -Wpedantic -Werror at -O0 and -O2 (the implementation with gcc and g++
# also at -O1, -O3, -Os and -Og); the single-header mechanics
# (implementation in its own file, declarations only, CLUSTER_RESOLVER_STATIC, the header
# included twice, a program's own <jsmn.h> before it, right and wrong) and the examples. Each
# program built is also run. Then 32-bit (gcc -m32,
# built and run) and Windows (mingw-w64, built and run under Wine): see the end.
set -eu
cd "$(dirname "$0")/.."
out=build/check
mkdir -p "$out"
warn="-Wall -Wextra -Wpedantic -Werror"
optional="-DCLUSTER_RESOLVER_USE_CURL -DCLUSTER_RESOLVER_USE_YAML -DCLUSTER_RESOLVER_USE_OPENSSL"
libs="-lcurl -lyaml -lcrypto"
# One configuration: the implementation with every optional part in its own file, linked with
# a file of declarations only, and run. The examples' own lines warn alike at every level
# (the implementation they include is the one just built), so they are built at -O0 in every
# standard and at -O2 in C99 and C++17 only (the two small ones in C99): a full compile at -O2
# costs four times one at -O0, and `make test` must stay under 15 minutes.
build_and_run() { # compiler std lang opt
    local cc=$1 std=$2 lang=$3 opt=$4 tag="$1-$2$4"
    "$cc" -std="$std" $opt $warn $optional -x "$lang" -c tests/compile/impl_only.c -o "$out/impl-$tag.o"
    "$cc" -std="$std" $opt $warn -x "$lang" -c tests/compile/decls_only.c -o "$out/decls-$tag.o"
    "$cc" "$out/decls-$tag.o" "$out/impl-$tag.o" $libs -o "$out/decls-$tag" && "$out/decls-$tag"
    # the single-header mechanics do not change with the optimization level: -O0 only
    [ "$opt" = -O0 ] && for f in static twice; do
        "$cc" -std="$std" $opt $warn -x "$lang" "tests/compile/$f.c" -o "$out/$f-$tag" && "$out/$f-$tag"
    done
    case "$opt $std" in -O2\ c11 | -O2\ c++11) return 0 ;; esac
    "$cc" -std="$std" $opt $warn -x "$lang" examples/cluster-resolve.c -x none $libs -o "$out/cli-$tag"
    [ "$opt $std" = "-O2 c++17" ] && return 0 # the two small examples at -O2: in C99 only
    "$cc" -std="$std" $opt $warn -x "$lang" examples/custom_backend.c -o "$out/custom-$tag"
    "$cc" -std="$std" $opt $warn -x "$lang" examples/custom_transport.c -o "$out/transport-$tag"
}
lane() { # C_COMPILER CXX_COMPILER: the eight configurations of one toolchain, in turn
    local opt std
    for opt in -O0 -O2; do
        for std in c99 c11; do build_and_run "$1" "$std" c "$opt"; done
        for std in c++11 c++17; do build_and_run "$2" "$std" c++ "$opt"; done
    done
}
# GNU and LLVM side by side, one core each; a lane stops at its first failure.
lane gcc g++ & gnu=$!
lane clang clang++ & llvm=$!
status=0
wait "$gnu" || status=1
wait "$llvm" || status=1
[ "$status" = 0 ] || { echo "check: a configuration failed (above)" >&2; exit 1; }
n=16
# GCC's flow-sensitive warnings (maybe-uninitialized, format-truncation) change with the
# optimization level, and users build at every one: the implementation alone, C and C++, at
# the other levels too (clang's warnings do not depend on the level). With every optional part.
for opt in -O1 -O3 -Os -Og; do
    gcc -std=c99 $opt $warn $optional -c tests/compile/impl_only.c -o "$out/impl-gcc$opt.o" &
    g++ -std=c++11 $opt $warn $optional -x c++ -c tests/compile/impl_only.c -o "$out/impl-g++$opt.o" || status=1
    wait $! || status=1
done
[ "$status" = 0 ] || { echo "check: the implementation warns at an optimization level (above)" >&2; exit 1; }
n=$((n + 8))
# A compiler's own dialect (gnu17: what `cc` builds without -std) and _GNU_SOURCE, where the
# system headers declare more (POSIX spawn's extensions among them) than in strict C.
gcc -std=gnu17 -O0 $warn $optional -c tests/compile/impl_only.c -o "$out/impl-gnu17.o" &
clang -std=c99 -O0 $warn -D_GNU_SOURCE $optional -c tests/compile/impl_only.c -o "$out/impl-gnusrc.o" || status=1
wait $! || status=1
[ "$status" = 0 ] || { echo "check: the implementation warns in GNU mode (above)" >&2; exit 1; }
n=$((n + 2))
# What careful users add: -Wconversion (with gcc's -Wsign-conversion in C) and -Wshadow.
strict="-Wconversion -Wsign-conversion -Wshadow"
gcc -std=c99 -O0 $warn $strict $optional -fsyntax-only tests/compile/impl_only.c &
clang++ -std=c++17 -O0 $warn $strict $optional -x c++ -fsyntax-only tests/compile/impl_only.c || status=1
wait $! || status=1
[ "$status" = 0 ] || { echo "check: the implementation warns with $strict (above)" >&2; exit 1; }
n=$((n + 2))

# A program's own #include <jsmn.h> before the implementation (tests/compile/jsmn_first.c, the
# manual's first paragraph): with JSMN_STATIC, JSMN_PARENT_LINKS and JSMN_STRICT (C and C++),
# without JSMN_STATIC, or after the implementation, it builds and runs with one strict,
# parent-linked jsmn; a missing JSMN_PARENT_LINKS or JSMN_STRICT, or JSMN_HEADER, stops it at
# the #error naming that define (C with gcc, C++ with clang++).
jsmn_ok() { # jsmn_ok TAG COMPILER... -- DEFINES...
    local tag=$1 cc=() ; shift
    while [ "$1" != -- ]; do cc+=("$1"); shift; done
    shift
    "${cc[@]}" -O0 $warn "$@" tests/compile/jsmn_first.c -o "$out/jsmn-$tag" && "$out/jsmn-$tag" ||
        { echo "check: jsmn_first.c with $* ($tag) did not build or run" >&2; return 1; }
}
jsmn_refused() { # jsmn_refused COMPILER-AND-FLAGS WANT DEFINES...: fails with WANT in its message
    local cc=$1 want=$2 log
    shift 2
    if log=$($cc -fsyntax-only $warn "$@" tests/compile/jsmn_first.c 2>&1); then
        echo "check: jsmn_first.c with $* built; the implementation should refuse it" >&2
        return 1
    fi
    grep -q "error: .*\"cluster_resolver\.h: .*$want" <<<"$log" || {
        printf 'check: jsmn_first.c with %s failed without "%s":\n%s\n' "$*" "$want" "$log" >&2
        return 1
    }
}
jsmn_wrong() { # the wrong ways, in one compiler
    local all="-DJSMN_STATIC -DJSMN_PARENT_LINKS -DJSMN_STRICT" links="without JSMN_PARENT_LINKS:"
    jsmn_refused "$1" "$links" &&
        jsmn_refused "$1" "$links" -DJSMN_STATIC &&
        jsmn_refused "$1" "$links" -DJSMN_STATIC -DJSMN_STRICT &&
        jsmn_refused "$1" "without JSMN_STRICT:" -DJSMN_STATIC -DJSMN_PARENT_LINKS &&
        jsmn_refused "$1" "JSMN_HEADER is defined" -DJSMN_HEADER $all &&
        jsmn_refused "$1" "JSMN_HEADER is defined" -DJSMN_HEADER -DJSMN_AFTER
}
jsmn_all="-DJSMN_STATIC -DJSMN_PARENT_LINKS -DJSMN_STRICT"
(jsmn_ok gcc gcc -std=c99 -- $jsmn_all && jsmn_ok g++ g++ -std=c++11 -x c++ -- $jsmn_all &&
    jsmn_wrong "gcc -std=c99") & gnu=$!
jsmn_ok clang clang -std=c99 -- $jsmn_all &&
    jsmn_ok clang++ clang++ -std=c++11 -x c++ -- $jsmn_all &&
    jsmn_ok extern clang -std=c99 -- -DJSMN_PARENT_LINKS -DJSMN_STRICT &&
    jsmn_ok after clang -std=c99 -- -DJSMN_AFTER &&
    jsmn_wrong "clang++ -std=c++11 -x c++" || status=1
wait "$gnu" || status=1
[ "$status" = 0 ] || { echo "check: jsmn included before the implementation (above)" >&2; exit 1; }
n=$((n + 18))
# The layout rule (.clang-format): no line of the header or the examples past 100 columns.
long=$(awk 'length > 100 { print FILENAME ":" FNR }' cluster_resolver.h examples/*.c)
[ -z "$long" ] || { printf 'check: lines past 100 columns (clang-format --lines=N:N FILE fixes them):\n%s\n' "$long" >&2; exit 1; }

# The compile switches: each CLUSTER_RESOLVER_NO_<BACKEND> alone and all of them together,
# tests/compile/switches.c built (C99; all of them also as C++11) and run; and the HTTP layer
# gone from the object when its three backends are.
backends="SIMPLE UNION TFCONFIG LOCAL K8S KUBECONFIG K8S_JOB GCE TPU SLURM MPI PBS LSF SGE FLUX SAGEMAKER
    VERTEX SKYPILOT VOLCANO LWS TORCH JAX AWSBATCH AUTO" # KUBECONFIG, K8S_JOB: parts of kubernetes
all=""
for b in $backends; do all="$all -DCLUSTER_RESOLVER_NO_$b"; done
# Each switch alone with clang (a third of gcc's time at -O0), all of them with gcc too.
for b in $backends ALL; do
    defs="-DCLUSTER_RESOLVER_NO_$b" cc=clang
    [ "$b" = ALL ] && defs=$all cc=gcc
    $cc -std=c99 -O0 $warn $defs tests/compile/switches.c -o "$out/switches-$b"
    "$out/switches-$b" || { echo "check: the switches test failed with $defs" >&2; exit 1; }
done
g++ -std=c++11 -O0 $warn $all -x c++ tests/compile/switches.c -o "$out/switches-all-cxx" && "$out/switches-all-cxx"
http_symbols() { gcc -std=c99 -O0 $warn "$@" -c tests/compile/impl_only.c -o "$out/http.o" && nm "$out/http.o" | grep -c cres__http_call; }
[ "$(http_symbols -DCLUSTER_RESOLVER_NO_K8S -DCLUSTER_RESOLVER_NO_GCE)" != 0 ] &&
    [ "$(http_symbols -DCLUSTER_RESOLVER_NO_K8S -DCLUSTER_RESOLVER_NO_GCE -DCLUSTER_RESOLVER_NO_TPU)" = 0 ] ||
    { echo "check: the HTTP layer is not dropped with its last backend" >&2; exit 1; }
switches=$(($(echo $backends | wc -w) + 2)) # each alone, all of them, all as C++
n=$((n + switches))

# Portability, C99 and C11 at -O2. 32-bit x86 (gcc -m32): tests/compile/tfconfig.c built and
# run, the CLI compiled (no 32-bit libcurl to link; curl's headers are the same for every
# architecture; OpenSSL's but two, below). Windows x86-64 (mingw-w64), built and run under
# Wine: tfconfig.c (C99, C11);
# tests/compile/windows.c (C99), every environment backend from the real environment, whose
# output must also be the Linux build's, byte for byte but for "\r\n"; examples/custom_backend.c
# and custom_transport.c (C99, -O0), all without curl (Debian has no curl for mingw), and the
# implementation with CLUSTER_RESOLVER_USE_CURL compiled. jsmn.h and curl/ come from a
# directory holding only them, not all of /usr/include.
inc=$out/include
mkdir -p "$inc"
ln -sfn /usr/include/jsmn.h "$inc/jsmn.h"
ln -sfn "$(dirname "$(ls /usr/include/*/curl/curl.h /usr/include/curl/curl.h 2>/dev/null | head -n 1)")" "$inc/curl"
# OpenSSL's two configuration headers are per architecture and Debian has only the 64-bit
# ones here: they stand in for the 32-bit compile of the CLI (compiled, not linked or run).
mkdir -p "$inc/openssl"
for h in opensslconf.h configuration.h; do ln -sfn "/usr/include/x86_64-linux-gnu/openssl/$h" "$inc/openssl/$h"; done
[ -x /usr/lib/wine/wine64 ] || {
    echo "check: no Wine (/usr/lib/wine/wine64) for the Windows programs: tests/deps.sh as root," \
        "or apt-get install --no-install-recommends wine64" >&2
    exit 1
}
# Wine gets a prefix of its own, build/check/wine/prefix, never ~/.wine. Making one takes about
# 10 s (700 MB), so it is made once, beside the builds, and kept for the next run (make clean
# removes it); it is made again when Wine's version changes or it was never finished. Its HOME
# is build/check/wine/home and the menu builder is off, so nothing is written outside build/.
# Every program runs with only the variables given (env -i), within 60 s.
wine=$PWD/$out/wine
mkdir -p "$wine/home"
wine_env() { env -i HOME="$wine/home" WINEDEBUG=-all WINEPREFIX="$wine/prefix" \
    WINEDLLOVERRIDES='winemenubuilder.exe=d;mscoree=d;mshtml=d' "$@"; }
wine_version=$(/usr/lib/wine/wine64 --version)
wine_prefix() {
    [ "$(cat "$wine/prefix/check-ready" 2>/dev/null)" = "$wine_version" ] && return 0
    rm -rf "$wine/prefix"
    if wine_env timeout 180 /usr/lib/wine/wine64 wineboot -i >"$wine/wineboot.log" 2>&1 &&
        wine_env timeout 60 /usr/lib/wine/wineserver -w; then
        echo "$wine_version" >"$wine/prefix/check-ready"
    else
        cat "$wine/wineboot.log" >&2
        echo "check: Wine could not make its prefix $wine/prefix" >&2
        return 1
    fi
}
tf='{"cluster": {"chief": ["c0:2222"], "worker": ["w0:2222", "w1:2222"]}, "task": {"type": "worker", "index": 1}}'
want='worker 1 of {"chief": ["c0:2222"], "worker": ["w0:2222", "w1:2222"]} (56 bytes); master grpc://w1:2222
{"cluster": {"chief": ["c0:2222"], "worker": ["w0:2222", "w1:2222"]}, "task": {"type": "worker", "index": 1}, "rpc_layer": "", "environment": ""}'
# Windows, beside 32-bit: the prefix, and the builds in two lanes of about equal time, all while
# the 32-bit part runs (three lanes on two cores end together).
wine_prefix & prefix_job=$!
(for std in c99 c11; do
    x86_64-w64-mingw32-gcc -std="$std" -O2 $warn -I"$inc" tests/compile/tfconfig.c -o "$out/tfconfig-mingw-$std.exe"
done
x86_64-w64-mingw32-gcc -std=c99 -O2 $warn -I"$inc" tests/compile/windows.c -o "$out/windows.exe") &
windows_a=$!
(for std in c99 c11; do
    x86_64-w64-mingw32-gcc -std="$std" -O2 $warn -I"$inc" -DCLUSTER_RESOLVER_USE_CURL \
        -c tests/compile/impl_only.c -o "$out/impl-curl-mingw-$std.o"
done
gcc -std=c99 -O0 $warn tests/compile/windows.c -o "$out/windows-linux" # the Linux reference
for ex in custom_backend custom_transport; do # -O0: a third of -O2's time (tfconfig.c has -O2)
    x86_64-w64-mingw32-gcc -std=c99 -O0 $warn -I"$inc" "examples/$ex.c" -o "$out/$ex.exe"
done) & windows_b=$!
for std in c99 c11; do
    gcc -m32 -std="$std" -O2 $warn tests/compile/tfconfig.c -o "$out/tfconfig-m32-$std"
    got=$(TF_CONFIG=$tf "$out/tfconfig-m32-$std")
    [ "$got" = "$want" ] || { printf 'check: gcc -m32 -std=%s: tfconfig printed\n%s\nnot\n%s\n' "$std" "$got" "$want" >&2; exit 1; }
    gcc -m32 -std="$std" -O2 $warn -I"$inc" -c examples/cluster-resolve.c -o "$out/cli-m32-$std.o"
done
status=0
wait "$windows_a" || status=1
wait "$windows_b" || status=1
wait "$prefix_job" || status=1
[ "$status" = 0 ] || { echo "check: a Windows build or Wine's prefix failed (above)" >&2; exit 1; }

# win NAME STATUS STDOUT STDERR [VAR=VALUE...] -- PROGRAM [ARGS...]: runs PROGRAM under Wine
# with only those variables and compares its exit status, and its stdout and stderr byte for
# byte, with the text given: each line of it ended by "\r\n", as a Windows program's stdio in
# text mode writes "\n". Paths: Wine's current directory is this one (on drive Z:, which is /).
crlf() { [ -z "$1" ] || printf '%s\n' "$1" | sed 's/$/\r/'; }
runs=0 fails=0
win() {
    local name=$1 status=$2 stdout=$3 stderr=$4 vars=() got=0 o=$wine/$1.out e=$wine/$1.err
    shift 4
    while [ "$1" != -- ]; do vars+=("$1"); shift; done
    shift
    runs=$((runs + 1))
    wine_env "${vars[@]}" timeout 60 /usr/lib/wine/wine64 "$@" >"$o" 2>"$e" || got=$?
    [ "$got" = "$status" ] && cmp -s "$o" <(crlf "$stdout") && cmp -s "$e" <(crlf "$stderr") &&
        return
    fails=$((fails + 1))
    printf 'check: under Wine, %s exited %s (expected %s); stdout, then stderr, %s, cat -A:\n' \
        "${vars[*]:+${vars[*]} }$*" "$got" "$status" "expected (-) and printed (+)" >&2
    diff <(crlf "$stdout" | cat -A) <(cat -A "$o") >&2 || true
    diff <(crlf "$stderr" | cat -A) <(cat -A "$e") >&2 || true
}
for std in c99 c11; do
    win "tfconfig-$std" 0 "$want" '' "TF_CONFIG=$tf" -- "$out/tfconfig-mingw-$std.exe"
done
# tests/compile/windows.c: each backend from these variables, all set at once (rules: README,
# "Slurm, MPI and SageMaker", "Google Cloud", "Auto-detection").
backend_env=(
    # tfconfig: the task worker 1; no rpc_layer, so the master is the bare address
    "TF_CONFIG=$tf"
    # slurm: 4 ranks in blocks (no SLURM_DISTRIBUTION), 2 on each of node07 and node08, in
    # Slurm's order; rank 3 is the second on node08: port 8888 + 1; rpc layer grpc
    SLURM_JOB_ID=42 SLURM_PROCID=3 SLURM_STEP_NUM_TASKS=4 'SLURM_STEP_NODELIST=node[07-08]'
    'SLURM_STEP_TASKS_PER_NODE=2(x2)'
    # mpi: rank 2 of 3, all 3 local (LOCAL_SIZE = SIZE), so one host, $PMIX_HOSTNAME; ports
    # from 8888. The Slurm step above is not srun's MPI ranks (its rank 3 is not 2): not used
    OMPI_COMM_WORLD_RANK=2 OMPI_COMM_WORLD_SIZE=3
    OMPI_COMM_WORLD_LOCAL_RANK=2 OMPI_COMM_WORLD_LOCAL_SIZE=3 PMIX_HOSTNAME=mpihost
    # sagemaker: hosts in natural order, port 2223, no rpc layer; algo-10 is the third
    'SM_HOSTS=["algo-10", "algo-2", "algo-1"]' SM_CURRENT_HOST=algo-10
    # tpu, options.tpu = "local": the workers, port 8470 where none is given; worker 2; grpc
    TPU_WORKER_HOSTNAMES=tpu-w0,tpu-w1:8471,tpu-w2 TPU_WORKER_ID=2
)
# local: one task localhost:8470, no rpc layer; auto: tfconfig, since TF_CONFIG is set.
want_backends='tfconfig tfconfig: worker 1 of {"chief": ["c0:2222"], "worker": ["w0:2222", "w1:2222"]}; master w1:2222
slurm slurm: worker 3 of {"worker": ["node07:8888", "node07:8889", "node08:8888", "node08:8889"]}; master grpc://node08:8889
mpi mpi: worker 2 of {"worker": ["mpihost:8888", "mpihost:8889", "mpihost:8890"]}; master grpc://mpihost:8890
sagemaker sagemaker: worker 2 of {"worker": ["algo-1:2223", "algo-2:2223", "algo-10:2223"]}; master algo-10:2223
tpu tpu: worker 2 of {"worker": ["tpu-w0:8470", "tpu-w1:8471", "tpu-w2:8470"]}; master grpc://tpu-w2:8470
local local: worker 0 of {"worker": ["localhost:8470"]}; master localhost:8470
auto tfconfig: worker 1 of {"chief": ["c0:2222"], "worker": ["w0:2222", "w1:2222"]}; master w1:2222'
win windows 0 "$want_backends" '' "${backend_env[@]}" -- "$out/windows.exe"
# The same program built for Linux: the same lines, "\n" for "\r\n".
linux=$wine/windows-linux.out
env -i "${backend_env[@]}" "$out/windows-linux" >"$linux" || true
cmp -s "$linux" <(printf '%s\n' "$want_backends") || {
    fails=$((fails + 1))
    echo "check: windows.c built for Linux printed (+), not (-):" >&2
    diff <(printf '%s\n' "$want_backends") "$linux" >&2 || true
}
cmp -s "$wine/windows.out" <(sed 's/$/\r/' "$linux") || {
    fails=$((fails + 1))
    echo 'check: windows.c on Linux (-, "\r\n" for "\n") and under Wine (+), cat -A:' >&2
    diff <(sed 's/$/\r/' "$linux" | cat -A) <(cat -A "$wine/windows.out") >&2 || true
}
printf 'alpha:7000\n# a comment\n\nbeta:7000\n' >"$wine/hosts" # as tests/test_cli.py's
win custom_backend 0 '{"worker": ["alpha:7000", "beta:7000"]}
worker 1
grpc://beta:7000' '' HOSTS_RANK=1 -- "$out/custom_backend.exe" "$out/wine/hosts"
win custom_backend-missing 1 '' "hostsfile: cannot open $out/wine/hosts.missing" -- \
    "$out/custom_backend.exe" "$out/wine/hosts.missing"
# custom_transport answers every request with the file: test_cli.py's three pods, and the
# realistic pods_small.json, whose every pod then counts, the Pending one included (given as
# a Windows path on drive Z:).
win custom_transport 0 '{"trainer": ["10.4.0.11:8470", "10.4.0.12:8470", "10.4.0.20:8470"]}' '' -- \
    "$out/custom_transport.exe" tests/compile/pods_trainer.json trainer=job-name=trainer
win custom_transport-pending 1 '' \
    'kubernetes: pod "eval-8cgnq" (namespace default) is Pending, not Running' -- \
    "$out/custom_transport.exe" "Z:$PWD/tests/k8s/fixtures/pods_small.json"
wine_env /usr/lib/wine/wineserver -k 2>/dev/null || true # all have run: end Wine's server now
[ "$fails" = 0 ] || { echo "check: $fails of the Windows checks failed (above)" >&2; exit 1; }
n=$((n + 7))
echo "check: $n configurations built cleanly and ran ($switches of compile switches; gcc -m32 C99 and" \
    "C11, run; mingw-w64 C99 and C11 with and without curl, and $runs runs under $wine_version:" \
    "tfconfig.c C99 and C11, windows.c (7 backends, as on Linux), custom_backend.c and" \
    "custom_transport.c)"

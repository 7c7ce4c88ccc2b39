#!/usr/bin/env bash
# The compile matrix: gcc and clang as C99 and C11, g++ and clang++ as C++11 and C++17, all
# with -Wall -Wextra -Wpedantic -Werror at -O0 and -O2; the single-header mechanics
# (implementation in its own file, declarations only, CLUSTER_RESOLVER_STATIC, the header
# included twice) and the examples. Each program built is also run. Then 32-bit (gcc -m32,
# built and run) and Windows (mingw-w64, compiled and linked only): see the end.
set -eu
cd "$(dirname "$0")/.."
out=build/check
mkdir -p "$out"
warn="-Wall -Wextra -Wpedantic -Werror"
build_and_run() { # compiler std lang opt
    local cc=$1 std=$2 lang=$3 opt=$4 tag="$1-$2$4"
    "$cc" -std="$std" $opt $warn -x "$lang" -c tests/compile/impl_only.c -o "$out/impl-$tag.o"
    "$cc" -std="$std" $opt $warn -x "$lang" -c tests/compile/decls_only.c -o "$out/decls-$tag.o"
    "$cc" "$out/decls-$tag.o" "$out/impl-$tag.o" -o "$out/decls-$tag" && "$out/decls-$tag"
    for f in static twice; do
        "$cc" -std="$std" $opt $warn -x "$lang" "tests/compile/$f.c" -o "$out/$f-$tag" && "$out/$f-$tag"
    done
    "$cc" -std="$std" $opt $warn -x "$lang" examples/cluster-resolve.c -x none -lcurl -o "$out/cli-$tag"
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
# The compile switches: each CLUSTER_RESOLVER_NO_<BACKEND> alone and all of them together,
# tests/compile/switches.c built (C99; all of them also as C++11) and run; and the HTTP layer
# gone from the object when its three backends are.
backends="SIMPLE UNION TFCONFIG LOCAL K8S GCE TPU SLURM MPI SAGEMAKER AUTO"
all=""
for b in $backends; do all="$all -DCLUSTER_RESOLVER_NO_$b"; done
for b in $backends ALL; do
    defs="-DCLUSTER_RESOLVER_NO_$b"
    [ "$b" = ALL ] && defs=$all
    gcc -std=c99 -O0 $warn $defs tests/compile/switches.c -o "$out/switches-$b"
    "$out/switches-$b" || { echo "check: the switches test failed with $defs" >&2; exit 1; }
done
g++ -std=c++11 -O0 $warn $all -x c++ tests/compile/switches.c -o "$out/switches-all-cxx" && "$out/switches-all-cxx"
http_symbols() { gcc -std=c99 -O0 $warn "$@" -c tests/compile/impl_only.c -o "$out/http.o" && nm "$out/http.o" | grep -c cres__http_call; }
[ "$(http_symbols -DCLUSTER_RESOLVER_NO_K8S -DCLUSTER_RESOLVER_NO_GCE)" != 0 ] &&
    [ "$(http_symbols -DCLUSTER_RESOLVER_NO_K8S -DCLUSTER_RESOLVER_NO_GCE -DCLUSTER_RESOLVER_NO_TPU)" = 0 ] ||
    { echo "check: the HTTP layer is not dropped with its last backend" >&2; exit 1; }
n=$((n + 13))

# Portability, C99 and C11 at -O2. 32-bit x86 (gcc -m32): tests/compile/tfconfig.c built and
# run, the CLI compiled (no 32-bit libcurl to link; curl's headers are the same for every
# architecture). Windows x86-64 (mingw-w64): tfconfig.c (the implementation without curl)
# compiled and linked into an .exe, not run; the implementation with CLUSTER_RESOLVER_USE_CURL
# compiled. jsmn.h and curl/ come from a directory holding only them, not all of /usr/include.
inc=$out/include
mkdir -p "$inc"
ln -sfn /usr/include/jsmn.h "$inc/jsmn.h"
ln -sfn "$(dirname "$(ls /usr/include/*/curl/curl.h /usr/include/curl/curl.h 2>/dev/null | head -n 1)")" "$inc/curl"
tf='{"cluster": {"chief": ["c0:2222"], "worker": ["w0:2222", "w1:2222"]}, "task": {"type": "worker", "index": 1}}'
want='worker 1 of {"chief": ["c0:2222"], "worker": ["w0:2222", "w1:2222"]} (56 bytes); master grpc://w1:2222
{"cluster": {"chief": ["c0:2222"], "worker": ["w0:2222", "w1:2222"]}, "task": {"type": "worker", "index": 1}, "rpc_layer": "", "environment": ""}'
(for std in c99 c11; do # Windows, beside 32-bit: both fit in the time of one
    x86_64-w64-mingw32-gcc -std="$std" -O2 $warn -I"$inc" tests/compile/tfconfig.c -o "$out/tfconfig-mingw-$std.exe"
    x86_64-w64-mingw32-gcc -std="$std" -O2 $warn -I"$inc" -DCLUSTER_RESOLVER_USE_CURL \
        -c tests/compile/impl_only.c -o "$out/impl-curl-mingw-$std.o"
done) &
windows=$!
for std in c99 c11; do
    gcc -m32 -std="$std" -O2 $warn tests/compile/tfconfig.c -o "$out/tfconfig-m32-$std"
    got=$(TF_CONFIG=$tf "$out/tfconfig-m32-$std")
    [ "$got" = "$want" ] || { printf 'check: gcc -m32 -std=%s: tfconfig printed\n%s\nnot\n%s\n' "$std" "$got" "$want" >&2; exit 1; }
    gcc -m32 -std="$std" -O2 $warn -I"$inc" -c examples/cluster-resolve.c -o "$out/cli-m32-$std.o"
done
wait "$windows"
n=$((n + 4))
echo "check: $n configurations built cleanly and ran (13 of compile switches; the last 4: gcc -m32, with a run; mingw-w64, not run)"

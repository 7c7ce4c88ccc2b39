#!/usr/bin/env bash
# The compile matrix: gcc and clang as C99 and C11, g++ and clang++ as C++11 and C++17, all
# with -Wall -Wextra -Wpedantic -Werror at -O0 and -O2; the single-header mechanics
# (implementation in its own file, declarations only, CLUSTER_RESOLVER_STATIC, the header
# included twice) and the examples. Each program built is also run.
set -eu
cd "$(dirname "$0")/.."
out=build/check
mkdir -p "$out"
warn="-Wall -Wextra -Wpedantic -Werror"
n=0
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
    n=$((n + 1))
}
for opt in -O0 -O2; do
    for cc in gcc clang; do for std in c99 c11; do build_and_run "$cc" "$std" c "$opt"; done; done
    for cxx in g++ clang++; do for std in c++11 c++17; do build_and_run "$cxx" "$std" c++ "$opt"; done; done
done
echo "check: $n configurations built and ran cleanly"

#!/usr/bin/env bash
# `make install` into a temporary prefix, then the ways a user picks the library up, each
# building README.md's C example (and, with CMake, a program on the bundled curl transport)
# and running it: pkg-config (tests/doc_examples.py pkg-config), find_package with
# CMAKE_PREFIX_PATH, add_subdirectory and FetchContent of the repository (tests/cmake_consumer/);
# find_package's version and component checks and its clear failure without jsmn.h; the root
# CMakeLists.txt builds nothing by default and examples/ on request; `make uninstall` leaves
# the prefix empty. The CLI as a tool: bin/cluster-resolve, its manual page and its bash
# completion, checked against each other and against --help (tests/cli_tool_test.sh), and
# README's container image against the libraries the installed CLI loads. Everything happens
# under one temporary directory, removed at the end.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cres-install-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
cmakedir=$prefix/lib/cmake/cluster_resolver
fail() { echo "install_test: $*" >&2; exit 1; }
step() { echo "== install_test: $*"; }
quiet() { # run a command, showing its output only when it fails
    local log=$tmp/last.log
    "$@" >"$log" 2>&1 || { cat "$log" >&2; fail "failed: $*"; }
}
version=$(sed -n 's/^#define CLUSTER_RESOLVER_VERSION_\(MAJOR\|MINOR\|PATCH\) //p' "$root/cluster_resolver.h" | paste -sd.)
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "no version in cluster_resolver.h (got '$version')"
IFS=. read -r major minor _ <<<"$version"
tf_config='{"cluster": {"chief": ["c0:2222"], "worker": ["w0:2222", "w1:2222"]},
            "task": {"type": "worker", "index": 1}}'
want='worker 1 of {"chief": ["c0:2222"], "worker": ["w0:2222", "w1:2222"]}; master w1:2222'

step "make install PREFIX=$prefix"
quiet make -C "$root" --no-print-directory install PREFIX="$prefix"
got=$(cd "$prefix" && find . -type f | LC_ALL=C sort | paste -sd' ')
expected="./bin/cluster-resolve ./include/cluster_resolver.h ./lib/cmake/cluster_resolver/cluster_resolverConfig.cmake ./lib/cmake/cluster_resolver/cluster_resolverConfigVersion.cmake ./share/bash-completion/completions/cluster-resolve ./share/man/man1/cluster-resolve.1 ./share/pkgconfig/cluster_resolver.pc"
[ "$got" = "$expected" ] || fail "installed files: $got; expected: $expected"
grep -qx "set(PACKAGE_VERSION \"$version\")" "$cmakedir/cluster_resolverConfigVersion.cmake" ||
    fail "cluster_resolverConfigVersion.cmake does not say version $version"

bash "$root/tests/cli_tool_test.sh" "$prefix"

step "README's container image"
# The Dockerfile in README: its build stage installs what tests/deps.sh needs to build, and its
# runtime stage the package of every library the installed CLI loads (and ca-certificates),
# by this Debian release's names when README's image is this release.
awk '/^```dockerfile/{on=1; next} on && /^```/{exit} on' "$root/README.md" > "$tmp/Dockerfile"
[ -s "$tmp/Dockerfile" ] || fail "no \`\`\`dockerfile block in README.md"
stage_packages() { # stage_packages N: the packages apt-get installs in the N-th FROM's stage
    awk -v n="$1" '/^FROM /{stage++} stage == n' "$tmp/Dockerfile" | sed ':a; /\\$/{N; s/\\\n//; ba}' |
        grep 'apt-get install' | sed 's/.*apt-get install//; s/&&.*//' | tr ' ' '\n' | grep -v '^-' | sed '/^$/d' | sort -u
}
[ "$(grep -c '^FROM ' "$tmp/Dockerfile")" = 2 ] || fail "README's Dockerfile has not two stages"
build_pkgs=$(stage_packages 1) runtime_pkgs=$(stage_packages 2)
for pkg in $(sed -n 's/^need \([^ ]*\).*/\1/p' "$root/tests/deps.sh") libc6-dev; do # build mode's
    grep -qx "$pkg" <<<"$build_pkgs" || fail "README's build stage does not install $pkg (tests/deps.sh build needs it)"
done
grep -qx ca-certificates <<<"$runtime_pkgs" || fail "README's runtime stage does not install ca-certificates"
codename=$(sed -n "s/^VERSION_CODENAME=//p" /etc/os-release 2>/dev/null || true)
if grep -q "^FROM debian:${codename}[ -]" "$tmp/Dockerfile" && command -v dpkg >/dev/null; then
    needs=""
    for lib in $(readelf -d "$prefix/bin/cluster-resolve" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
        path=$(ldd "$prefix/bin/cluster-resolve" | awk -v l="$lib" '$1 == l {print $3; exit}')
        pkg=""
        for p in "$path" "$(readlink -f "$path")"; do # dpkg knows /lib/... or /usr/lib/...
            [ -n "$pkg" ] || pkg=$(dpkg -S "$p" 2>/dev/null | head -1 | sed 's/[:,].*//') || true
        done
        [ -n "$pkg" ] || fail "no Debian package owns $lib ($path)"
        needs+=" $pkg"
        [ "$pkg" = libc6 ] || grep -qx "$pkg" <<<"$runtime_pkgs" ||
            fail "README's runtime stage does not install $pkg, which has $lib"
    done
    echo "README's image: build stage $(paste -sd' ' <<<"$build_pkgs"); runtime stage $(paste -sd' ' <<<"$runtime_pkgs") (the CLI loads libraries of$needs)"
else
    echo "README's image is not this machine's Debian release ($codename): its runtime packages not checked"
fi

step "pkg-config"
PKG_CONFIG_PATH=$prefix/share/pkgconfig python3 "$root/tests/doc_examples.py" pkg-config

python3 "$root/tests/doc_examples.py" extract readme > "$tmp/example.c" ||
    fail "no example found in README.md"
# The consumer is copied out of the repository, so only what its targets give can find the header.
cp -r "$root/tests/cmake_consumer" "$tmp/consumer"
# A copy of jsmn.h elsewhere, handed to the consumers as CLUSTER_RESOLVER_JSMN_INCLUDE_DIR: its
# directory must be on the command lines (/usr/include would be searched anyway).
jsmn=$(echo '#include <jsmn.h>' | gcc -M -x c - | grep -o '/[^ ]*/jsmn\.h') || fail "jsmn.h not found (libjsmn-dev)"
mkdir "$tmp/jsmn" && cp "$jsmn" "$tmp/jsmn/"

check_run() { # check_run BUILD-DIR LABEL: run both programs, check what they print
    local got curl
    got=$(TF_CONFIG=$tf_config "$1/readme_example") || fail "$2: readme_example failed"
    [ "$got" = "$want" ] || fail "$2: readme_example printed '$got', not '$want'"
    curl=$("$1/curl_check") || fail "$2: curl_check failed"
    [[ $curl == "curl transport: "*"127.0.0.1"* ]] || fail "$2: curl_check printed '$curl'"
    printf '%s: readme_example: %s\n%s: curl_check: %s\n' "$2" "$got" "$2" "$curl"
}
check_flags() { # check_flags BUILD-DIR LABEL INCLUDE-DIR: the targets' flags in compile_commands.json
    local cmds=$1/compile_commands.json ex curl
    ex=$(grep '"command"' "$cmds" | grep 'example\.c' || true)
    curl=$(grep '"command"' "$cmds" | grep 'curl_check\.c' || true)
    [ -n "$ex" ] && [ -n "$curl" ] || fail "$2: compile commands missing in $cmds"
    [[ $ex == *"$3"* && $curl == *"$3"* ]] || fail "$2: the include directory $3 is not on the command lines"
    [[ $ex == *"$tmp/jsmn "* && $curl == *"$tmp/jsmn "* ]] || fail "$2: jsmn's directory $tmp/jsmn is not on the command lines"
    [[ $ex != *CLUSTER_RESOLVER_USE_CURL* ]] || fail "$2: cluster_resolver::cluster_resolver defines CLUSTER_RESOLVER_USE_CURL"
    [[ $curl == *-DCLUSTER_RESOLVER_USE_CURL* ]] || fail "$2: cluster_resolver::curl does not define CLUSTER_RESOLVER_USE_CURL"
}
consumer() { # consumer LABEL BUILD-DIR CMAKE-ARGS...: configure, build, check
    local label=$1 build=$2; shift 2
    quiet cmake -S "$tmp/consumer" -B "$build" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
        -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON -DCRES_VERSION="$version" \
        -DCRES_README_EXAMPLE="$tmp/example.c" -DCLUSTER_RESOLVER_JSMN_INCLUDE_DIR="$tmp/jsmn" "$@"
    quiet cmake --build "$build" --parallel
    check_run "$build" "$label"
}

step "find_package(cluster_resolver $version REQUIRED COMPONENTS curl), CMAKE_PREFIX_PATH=$prefix"
consumer find_package "$tmp/fp" -DCMAKE_PREFIX_PATH="$prefix"
grep -qx "cluster_resolver_DIR:PATH=$cmakedir" "$tmp/fp/CMakeCache.txt" ||
    fail "find_package used $(grep '^cluster_resolver_DIR' "$tmp/fp/CMakeCache.txt"), not $cmakedir"
check_flags "$tmp/fp" find_package "$prefix/include"

step "find_package: versions, components, a missing jsmn.h"
mkdir -p "$tmp/probe"
cat > "$tmp/probe/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.13)
project(probe LANGUAGES C)
find_package(cluster_resolver ${CRES_ARGS})
foreach(target cluster_resolver::cluster_resolver cluster_resolver::curl)
  if(TARGET ${target})
    message(STATUS "probe: target ${target}")
  endif()
endforeach()
message(STATUS "probe: found=${cluster_resolver_FOUND} curl=${cluster_resolver_curl_FOUND}")
CMAKE
probe() { # probe EXPECT(ok|fail) WANT-REGEX CMAKE-ARGS...: configure the probe project
    local expect=$1 regex=$2 log=$tmp/probe.log rc=0; shift 2
    rm -rf "$tmp/probe/build"
    cmake -S "$tmp/probe" -B "$tmp/probe/build" -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON "$@" >"$log" 2>&1 || rc=$?
    if { [ "$expect" = ok ] && [ $rc -ne 0 ]; } || { [ "$expect" = fail ] && [ $rc -eq 0 ]; } ||
       ! grep -Eq "$regex" "$log"; then
        cat "$log" >&2; fail "probe $*: expected $expect and /$regex/"
    fi
    echo "probe $*: $expect, $(grep -Eo "$regex" "$log" | head -1)"
}
probe ok 'probe: found=1 curl=$' "-DCRES_ARGS=REQUIRED"
! grep -q 'target cluster_resolver::curl' "$tmp/probe.log" || fail "cluster_resolver::curl defined without the curl component"
probe ok 'probe: target cluster_resolver::curl' "-DCRES_ARGS=$major.$minor;REQUIRED;COMPONENTS;curl"
probe ok 'probe: found=1 curl=TRUE' "-DCRES_ARGS=$version...99;REQUIRED;OPTIONAL_COMPONENTS;curl"
probe fail 'compatible with requested version "?'"$major.$((minor + 1))" "-DCRES_ARGS=$major.$((minor + 1));REQUIRED"
probe fail 'compatible with requested version "?'"$((major + 1)).0" "-DCRES_ARGS=$((major + 1)).0;REQUIRED"
probe fail 'unknown component "nope"' "-DCRES_ARGS=REQUIRED;COMPONENTS;nope"
probe fail 'jsmn.h not found' "-DCRES_ARGS=REQUIRED" -DCMAKE_IGNORE_PATH=/usr/include
multiarch=$(gcc -print-multiarch) # where Debian keeps curl.h and libcurl.so
probe fail 'Could NOT find CURL' "-DCRES_ARGS=REQUIRED;COMPONENTS;curl" \
    "-DCMAKE_IGNORE_PATH=/usr/include/$multiarch;/usr/lib/$multiarch;/usr/include;/usr/lib"
probe ok 'because dependency CURL could not be' "-DCRES_ARGS=COMPONENTS;curl" -DCMAKE_DISABLE_FIND_PACKAGE_CURL=ON
grep -q 'probe: found=0' "$tmp/probe.log" && ! grep -q 'probe: target' "$tmp/probe.log" ||
    fail "find_package(cluster_resolver COMPONENTS curl) without libcurl still found something"

step "add_subdirectory($root)"
consumer add_subdirectory "$tmp/as" -DCRES_MODE=add_subdirectory -DCRES_SOURCE_DIR="$root"
check_flags "$tmp/as" add_subdirectory "-I$root "
step "FetchContent (SOURCE_DIR $root)"
consumer FetchContent "$tmp/fc" -DCRES_MODE=FetchContent -DCRES_SOURCE_DIR="$root"
check_flags "$tmp/fc" FetchContent "-I$root "
for ex in cluster-resolve custom_backend custom_transport; do
    [ -z "$(find "$tmp/as" "$tmp/fc" -name "$ex*")" ] || fail "add_subdirectory built examples/ ($ex) by default"
done

step "the root CMakeLists.txt with CLUSTER_RESOLVER_BUILD_EXAMPLES=ON"
quiet cmake -S "$root" -B "$tmp/root" -DCLUSTER_RESOLVER_BUILD_EXAMPLES=ON
quiet cmake --build "$tmp/root" --parallel
grep -qx "CMAKE_PROJECT_VERSION:STATIC=$version" "$tmp/root/CMakeCache.txt" ||
    fail "project(cluster_resolver) version is not $version: $(grep '^CMAKE_PROJECT_VERSION:' "$tmp/root/CMakeCache.txt")"
got=$(TF_CONFIG=$tf_config "$tmp/root/cluster-resolve" --format master) || fail "cluster-resolve failed"
[ "$got" = w1:2222 ] || fail "cluster-resolve --format master printed '$got', not w1:2222"
echo "examples: cluster-resolve --format master: $got"
[ -x "$tmp/root/custom_backend" ] && [ -x "$tmp/root/custom_transport" ] || fail "examples missing"

step "make uninstall PREFIX=$prefix"
quiet make -C "$root" --no-print-directory uninstall PREFIX="$prefix"
left=$(cd "$prefix" && find . -type f)
[ -z "$left" ] || fail "make uninstall left: $left"
for dir in "$cmakedir" "$prefix/share/man/man1" "$prefix/share/bash-completion"; do
    [ ! -e "$dir" ] || fail "make uninstall left $dir"
done
echo "install_test: the CLI with its manual page and completion, pkg-config, find_package, add_subdirectory, FetchContent and uninstall work"

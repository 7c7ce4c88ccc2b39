#!/usr/bin/env bash
# Installs what the build ("build"), the tests ("test"), `make bench` ("bench") or `make coverage`
# ("coverage": the tests' packages and lcov) need on Debian when run as root;
# otherwise names the packages to install.
set -u
mode=${1:-test}
missing=()
need() { # need PACKAGE CHECK-COMMAND...
    local pkg=$1; shift
    "$@" >/dev/null 2>&1 || missing+=("$pkg")
}
has() { command -v "$1"; }
fuzzer_links() {
    printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n){(void)d;(void)n;return 0;}\n' |
        clang -fsanitize=fuzzer,address,undefined -x c - -o /tmp/cres-fuzz-probe.$$ && rm -f /tmp/cres-fuzz-probe.$$
}
m32_links() {
    printf '#include <errno.h>\n#include <stdio.h>\nint main(void){return EINTR == 0;}\n' |
        gcc -m32 -x c - -o /tmp/cres-m32-probe.$$ && rm -f /tmp/cres-m32-probe.$$
}

need make has make
need gcc has gcc
need libjsmn-dev test -f /usr/include/jsmn.h
need libcurl4-openssl-dev test -f /usr/include/x86_64-linux-gnu/curl/curl.h -o -f /usr/include/curl/curl.h
need libyaml-dev test -f /usr/include/yaml.h   # the CLI reads YAML kubeconfig files
need libssl-dev test -f /usr/include/openssl/evp.h # ... and signs Google service-account keys
if [ "$mode" = test ] || [ "$mode" = coverage ]; then
    need g++ has g++
    need clang has clang
    need pkg-config has pkg-config
    need cmake has cmake  # make install-test: find_package, add_subdirectory, FetchContent
    need man-db has man         # make install-test: the CLI's manual page rendered by man,
    need groff-base has groff   # checked with groff -ww
    need mandoc has mandoc      # and mandoc -T lint
    need python3 has python3
    need libcmocka-dev test -f /usr/include/cmocka.h
    need gcc-multilib m32_links                            # make check: gcc -m32, built and run
    need gcc-mingw-w64-x86-64 has x86_64-w64-mingw32-gcc   # make check: Windows, built
    need wine64 test -x /usr/lib/wine/wine64               # make check: ... and run under Wine
    need openssl has openssl
    need strace has strace
    need valgrind has valgrind  # make readme-test: the documentation's examples under valgrind
    need python3-kubernetes /usr/bin/python3 -c 'import kubernetes'
    # make gcp-test: the fake token endpoint verifies service-account JWTs; google-auth is an oracle
    need python3-cryptography /usr/bin/python3 -c 'import cryptography'
    need python3-google-auth /usr/bin/python3 -c 'import google.auth'
    # make launcher-test: real Slurm (four simulated nodes), Open MPI and PyTorch's gloo
    need slurmctld test -x /usr/sbin/slurmctld
    need slurmd test -x /usr/sbin/slurmd
    need slurm-client has srun
    need munge test -x /usr/sbin/munged
    need openmpi-bin has mpirun
    need mpich test -x /usr/bin/mpiexec.hydra   # MPICH's Hydra, called by that name only
    # Son of Grid Engine, one host (tests/sge/start-sge.sh); its postinst asks debconf
    # questions, answered by their defaults (DEBIAN_FRONTEND=noninteractive below)
    need gridengine-master test -x /usr/sbin/sge_qmaster
    need gridengine-exec test -x /usr/sbin/sge_execd
    need gridengine-client test -x /usr/lib/gridengine/qsub   # not Torque's qsub
    need python3-torch test -f /usr/lib/python3/dist-packages/torch/__init__.py
    if has clang >/dev/null 2>&1; then need libclang-rt-14-dev fuzzer_links; else missing+=(libclang-rt-14-dev); fi
fi
if [ "$mode" = coverage ]; then # make coverage: lcov and genhtml over gcc's gcov
    need lcov has genhtml
fi
if [ "$mode" = bench ]; then # make bench: the peers (TF's Kubernetes client, scontrol), size, the plot
    need python3 has python3
    need curl has curl
    need binutils has size
    need python3-kubernetes /usr/bin/python3 -c 'import kubernetes'
    need slurm-client has scontrol
    need gnuplot-nox has gnuplot
fi

[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "deps: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null || {
        echo "deps: apt-get install ${missing[*]} failed" >&2; exit 1; }
    exit 0
fi
echo "deps: missing packages: ${missing[*]}" >&2
echo "deps: install them with: sudo apt-get install ${missing[*]}" >&2
exit 1

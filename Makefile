SHELL := /bin/bash
# cluster_resolver.h -- `make run` resolves this machine, `make test` runs every test.
# Both install missing Debian packages first when run as root (tests/deps.sh).

PREFIX ?= /usr/local
BUILD := build
WARN := -Wall -Wextra -Wpedantic -Werror
# -O0: clang builds the implementation with the sanitizers in 4 s of CPU, at -O1 in 22 s, and
# the tests of the sanitized CLI run no slower (they wait on processes, not on its code).
SAN := -g -O0 -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_SECONDS ?= 600
FUZZ_SEED ?= 1
# Builds and fuzzers go JOBS at a time (this machine has 2 cores); tests run one at a time.
JOBS ?= 2
VERSION := $(shell sed -n 's/^\#define CLUSTER_RESOLVER_VERSION_\(MAJOR\|MINOR\|PATCH\) //p' cluster_resolver.h | paste -sd.)

UNIT := $(filter-out tests/test_malloc_macros.c tests/test_kubeconfig.c,$(wildcard tests/test_*.c))
UNIT_BINS := $(UNIT:tests/%.c=$(BUILD)/%)
UNIT_SAN_BINS := $(UNIT:tests/%.c=$(BUILD)/san/%)
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(BUILD)/%,$(wildcard tests/fuzz/fuzz_*.c))
EXAMPLES := $(BUILD)/cluster-resolve $(BUILD)/custom_backend $(BUILD)/custom_transport

.PHONY: all run test bench unit unit-san cli-test scenario-test man property-test k8s-test kubeconfig-test gcp-test hostile-test launcher-test hostlist-oracle readme-test install-test check footprint-test fuzz fuzz-smoke fuzz-replay \
        netfault-test clients-test thread-test soak-test install uninstall clean deps-build deps-test coverage

all: $(EXAMPLES)

run: $(BUILD)/cluster-resolve
	./$(BUILD)/cluster-resolve

# The tests run one at a time and mostly wait (servers, daemons, launchers): about one core of
# two. The compile matrix (check), the fuzz targets' builds and then their smoke (whose runs
# are counted, not timed, so the load does not change them) use no port or daemon, so they run
# beside them at a lower priority (nice: the tests, on the longer path, come first), their
# output kept in $(BUILD)/test-compiles.log and printed when they end; then the footprint.
TESTS_IN_TURN := unit unit-san cli-test scenario-test property-test k8s-test kubeconfig-test \
  gcp-test hostile-test netfault-test clients-test thread-test soak-test hostlist-oracle \
  launcher-test readme-test install-test

test: deps-test | $(BUILD)
	@log=$(BUILD)/test-compiles.log; \
	{ nice -n 10 $(MAKE) --no-print-directory check $(FUZZ_BINS) && \
	  nice -n 10 $(MAKE) --no-print-directory fuzz-smoke; } >$$log 2>&1 & compiles=$$!; \
	trap 'kill $$compiles 2>/dev/null' INT TERM; \
	$(MAKE) --no-print-directory $(TESTS_IN_TURN); tests=$$?; \
	wait $$compiles; built=$$?; \
	echo "== check, the fuzz targets' builds and their smoke ($$log)"; cat $$log; \
	[ $$tests = 0 ] || { echo "make test: a test failed (above)"; exit 1; }; \
	[ $$built = 0 ] || { echo "make test: check or a fuzz target failed ($$log)"; exit 1; }
	@$(MAKE) --no-print-directory footprint-test
	@echo "make test: every test passed"

deps-build:
	@bash tests/deps.sh build
deps-test:
	@bash tests/deps.sh test

$(BUILD) $(BUILD)/san $(BUILD)/tsan $(BUILD)/asan:
	mkdir -p $@

# The CLI uses the bundled libcurl transport, libyaml (YAML kubeconfig files) and libcrypto
# (Google service-account keys); the other examples need no library.
LIBS_cluster-resolve := -lcurl -lyaml -lcrypto

$(BUILD)/%: examples/%.c cluster_resolver.h | deps-build $(BUILD)
	$(CC) -std=c99 -O2 $(WARN) $< -o $@ $(LIBS_$*)

$(BUILD)/san/%: examples/%.c cluster_resolver.h | $(BUILD)/san
	clang -std=c99 $(SAN) $(WARN) $< -o $@ $(LIBS_$*)

# The implementation is compiled once per toolchain and linked into every unit test.
$(BUILD)/impl.o: tests/impl.c cluster_resolver.h | $(BUILD)
	gcc -std=c99 -O2 $(WARN) -c $< -o $@

$(BUILD)/san/impl.o: tests/impl.c cluster_resolver.h | $(BUILD)/san
	clang -std=c99 $(SAN) $(WARN) -c $< -o $@

# Every unit test depends on every shared test header (a rule per header would be longer).
TEST_HEADERS := tests/test_util.h tests/alloc_walk.h tests/walk_files.h tests/env_table.h \
                tests/resolver_checks.h

$(BUILD)/test_%: tests/test_%.c $(BUILD)/impl.o $(TEST_HEADERS) cluster_resolver.h | $(BUILD)
	gcc -std=c99 -O2 $(WARN) $< $(BUILD)/impl.o -lcmocka -o $@

$(BUILD)/san/test_%: tests/test_%.c $(BUILD)/san/impl.o $(TEST_HEADERS) cluster_resolver.h | $(BUILD)/san
	clang -std=c99 $(SAN) $(WARN) $< $(BUILD)/san/impl.o -lcmocka -o $@

# Defines CRES_MALLOC/REALLOC/FREE and the implementation itself, so it links alone.
$(BUILD)/san/test_malloc_macros: tests/test_malloc_macros.c cluster_resolver.h | $(BUILD)/san
	clang -std=c99 $(SAN) $(WARN) $< -lcmocka -o $@

# Defines the implementation with CLUSTER_RESOLVER_USE_YAML: YAML kubeconfig files need -lyaml.
$(BUILD)/test_kubeconfig: tests/test_kubeconfig.c $(TEST_HEADERS) cluster_resolver.h | $(BUILD)
	gcc -std=c99 -O2 $(WARN) $< -lcmocka -lyaml -o $@

$(BUILD)/san/test_kubeconfig: tests/test_kubeconfig.c $(TEST_HEADERS) cluster_resolver.h | $(BUILD)/san
	clang -std=c99 $(SAN) $(WARN) $< -lcmocka -lyaml -o $@

# First: every public function of the header has a case in tests/test_misuse.c.
unit:
	@python3 tests/misuse_coverage.py
	@$(MAKE) --no-print-directory -j$(JOBS) $(UNIT_BINS) $(BUILD)/test_kubeconfig
	@set -e; for t in $(UNIT_BINS) $(BUILD)/test_kubeconfig; do echo "== $$t"; ./$$t; done

unit-san:
	@$(MAKE) --no-print-directory -j$(JOBS) $(UNIT_SAN_BINS) $(BUILD)/san/test_malloc_macros $(BUILD)/san/test_kubeconfig
	@set -e; for t in $(UNIT_SAN_BINS) $(BUILD)/san/test_malloc_macros $(BUILD)/san/test_kubeconfig; do echo "== $$t (ASan+UBSan)"; ./$$t; done

cli-test: $(BUILD)/san/cluster-resolve $(BUILD)/san/custom_backend $(BUILD)/san/custom_transport
	python3 tests/test_not_alone_docs.py
	python3 tests/test_cli.py $(BUILD)/san
	python3 tests/test_cli_sched.py $(BUILD)/san

# 308 everyday scenarios (tests/scenarios/): the variables a real launcher sets for one process,
# the command its user types, the answer written by hand from the launcher's documentation.
scenario-test: $(BUILD)/san/cluster-resolve
	python3 tests/scenarios/run_scenarios.py $(BUILD)/san/cluster-resolve

# The manual page's OPTIONS section from the CLI's option table (cli-test checks it is there).
man: $(BUILD)/cluster-resolve
	python3 tests/man_options.py $(BUILD)/cluster-resolve docs/cluster-resolve.1 --write

# Generated launch environments (tests/property/, a fixed seed): every exit-0 answer of the
# CLI checked against the variables its backend read, again with one of them removed, and
# every failure's one line; counter-examples shrunk; the fixtures of bugs found replayed first.
property-test: $(BUILD)/cluster-resolve
	python3 tests/property/property_test.py $(BUILD)/cluster-resolve --workdir $(BUILD)/property

# The fake API server against python3-kubernetes, then our CLI (curl) against the fake.
k8s-test: $(BUILD)/san/cluster-resolve
	/usr/bin/python3 tests/k8s/test_fake_api.py
	python3 tests/k8s/test_k8s_integration.py $(BUILD)/san

# Kubernetes from outside the cluster, with kubectl as the oracle: the servers the tests use
# (fake API with client certificates and SNI, HTTP CONNECT and SOCKS5 proxies), then 70
# kubeconfig cases where kubectl and our CLI must send the same and see the same pods, then
# the real cloud exec plugins (aws eks get-token, gke-gcloud-auth-plugin) with the kubeconfig
# files aws and gcloud write against fakes of their cluster APIs; plugins of our own for expiry
# mid-resolve and 401s.
kubeconfig-test: $(BUILD)/san/cluster-resolve
	python3 tests/kubeconfig/test_servers.py
	python3 tests/kubeconfig/test_kubeconfig_kubectl.py $(BUILD)/san
	python3 tests/kubeconfig/test_cloud_plugins.py $(BUILD)/san
	python3 tests/kubeconfig/test_exec_plugins.py $(BUILD)/san

# The fake metadata, Compute and Cloud TPU servers, then our CLI against them.
gcp-test: $(BUILD)/san/cluster-resolve
	python3 tests/gcp/test_fake_gcp.py
	python3 tests/gcp/test_gcp_integration.py $(BUILD)/san
	python3 tests/gcp/test_google_adc.py $(BUILD)/san

# Every HTTP backend against hostile answers: redirects, certificates for another name, endless
# and lying bodies, slow drips, deep nesting, numbers out of range, invalid UTF-8.
hostile-test: $(BUILD)/san/cluster-resolve
	python3 tests/test_hostile_http.py $(BUILD)/san

# Network faults between the CLI and the fakes (tests/netfault/proxy.py): connections reset,
# closed or stalled halfway through a page, refused, dropped SYNs, a server gone between pages.
netfault-test: $(BUILD)/san/cluster-resolve
	python3 tests/netfault/test_proxy.py
	python3 tests/netfault/test_netfaults.py $(BUILD)/san

# The fakes read by the real clients: kubectl and gcloud (on the machine image) must see the
# members our resolvers see.
clients-test: $(BUILD)/san/cluster-resolve
	python3 tests/clients/test_real_clients.py $(BUILD)/san

# The manual's thread rules under ThreadSanitizer: 8 threads, each with its own resolvers of
# every backend (Kubernetes and GCE through curl against the fakes; Kubernetes also from
# kubeconfig files, half the threads through exec plugins run by the default posix_spawnp
# hook), and a union they share under a lock; then the control, the union shared without its
# lock, which TSan must catch.
$(BUILD)/tsan/test_threads: tests/threads/test_threads.c cluster_resolver.h | $(BUILD)/tsan
	clang -std=c99 -g -O0 -fsanitize=thread $(WARN) $< -o $@ -lcurl -lpthread

thread-test: $(BUILD)/tsan/test_threads
	python3 tests/threads/run_threads.py $<

# Long-running use: 4,000 Kubernetes resolves against the fake, 100,000 of an environment
# backend; memory and descriptors must not grow. Plain, and with ASan's leak checker.
$(BUILD)/soak: tests/soak/soak.c cluster_resolver.h | $(BUILD)
	gcc -std=c99 -O2 $(WARN) $< -o $@ -lcurl

$(BUILD)/asan/soak: tests/soak/soak.c cluster_resolver.h | $(BUILD)/asan
	clang -std=c99 -g -O2 -fsanitize=address $(WARN) $< -o $@ -lcurl

soak-test: $(BUILD)/soak $(BUILD)/asan/soak
	python3 tests/soak/run_soak.py $^

# Real launchers on this machine (root): a four-node Slurm (srun, sbatch), Open MPI (mpirun here,
# on fake hosts, inside sbatch), MPICH's mpiexec.hydra (here, on fake hosts), a one-host Grid
# Engine (qsub -pe, mpirun and mpiexec.hydra in the job) and PyTorch gloo from our torchrun
# variables; stops all it starts.
launcher-test: deps-test $(BUILD)/cluster-resolve
	bash tests/launchers/launcher-test.sh $(BUILD)/cluster-resolve

$(BUILD)/san/expand_hostlist: tests/slurm/expand_hostlist.c $(BUILD)/san/impl.o | $(BUILD)/san
	clang -std=c99 $(SAN) $(WARN) -I. $^ -o $@

# Our hostlist expansion against Slurm's own `scontrol show hostnames` (slurm-client, no daemon).
hostlist-oracle: deps-test $(BUILD)/san/expand_hostlist
	python3 tests/slurm/hostlist_oracle.py $(BUILD)/san/expand_hostlist

# Every C example of README and of the header's manual, taken from the files as printed, built
# with ASan+UBSan and under valgrind, its output checked against what its text says.
readme-test: deps-test | $(BUILD)
	python3 tests/doc_examples.py

# make install into a temporary prefix, then pkg-config, find_package and add_subdirectory users;
# the installed CLI, its manual page and bash completion (tests/cli_tool_test.sh).
install-test: deps-test | $(BUILD)
	bash tests/install_test.sh

check: deps-test
	bash tests/check.sh

# Two small programs of bench/footprint/run.py (TF_CONFIG alone; auto with TF_CONFIG, Slurm,
# MPI and local) against the sizes in tests/footprint_limits.txt, exact for gcc 12 of Debian 12.
footprint-test: | $(BUILD)
	python3 tests/footprint_test.py

# A target's own libraries: fuzz_kubeconfig defines CLUSTER_RESOLVER_USE_YAML (YAML kubeconfigs).
LIBS_fuzz_kubeconfig := -lyaml

# -O0: a target builds in 4 s of CPU, not -O1's 22 s, and runs its inputs 1.4 times slower
# (measured on fuzz_tfconfig): for the smoke's fixed runs the build is what costs.
$(BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_common.h tests/fuzz/host_model.h \
                  cluster_resolver.h | $(BUILD)
	clang -g -O0 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	  -fno-sanitize-coverage=stack-depth $< -o $@ $(LIBS_fuzz_$*)

# tests/fuzz/run_fuzzers.sh runs the targets on scratch copies of their seeds, JOBS at a time.
# The smoke (in `make test`) runs each target a fixed number of times (the script's runs_of,
# about 7 s of CPU each) with seed FUZZ_SEED, and replays: the same commit, clang, runs and
# seed give the same coverage and the same new inputs on any machine and under any load, so a
# red smoke means a code change, not luck. It then runs FUZZ_REPLAY again, which must match its
# figures exactly. A CI failure replays locally with `make fuzz-smoke` (one target: the command
# its log prints); `make fuzz-replay` runs every target a second time. `make fuzz` explores:
# FUZZ_SECONDS per target with fresh seeds, which does not replay. Stack depth is no coverage
# feature (-fno-sanitize-coverage=stack-depth): it would vary with the randomized stack address.
FUZZ_REPLAY ?= $(BUILD)/fuzz_launch_env $(BUILD)/fuzz_gcp_credentials

fuzz-smoke:
	@$(MAKE) --no-print-directory -j$(JOBS) $(FUZZ_BINS)
	@FUZZ_SEED=$(FUZZ_SEED) bash tests/fuzz/run_fuzzers.sh smoke $(JOBS) $(BUILD) $(FUZZ_BINS)
	@FUZZ_SEED=$(FUZZ_SEED) bash tests/fuzz/run_fuzzers.sh replay $(JOBS) $(BUILD) $(FUZZ_REPLAY)

fuzz-replay:
	@$(MAKE) --no-print-directory -j$(JOBS) $(FUZZ_BINS)
	@FUZZ_SEED=$(FUZZ_SEED) bash tests/fuzz/run_fuzzers.sh replay $(JOBS) $(BUILD) $(FUZZ_BINS)

fuzz:
	@$(MAKE) --no-print-directory -j$(JOBS) $(FUZZ_BINS)
	@bash tests/fuzz/run_fuzzers.sh explore $(FUZZ_SECONDS) $(JOBS) $(BUILD) $(FUZZ_BINS)

# The share of cluster_resolver.h's lines and branches the tests run (not part of `make test`;
# about 5 minutes): the unit, CLI, property, Kubernetes, kubeconfig, Google, hostile,
# network-fault, client, thread, hostlist, compile-switch and (as root) launcher tests against
# gcc --coverage builds in build/cov, one lcov report of the header with its HTML page,
# build/cov/index.html (tests/coverage/run_coverage.sh).
coverage:
	@bash tests/coverage/run_coverage.sh $(BUILD)/cov

# Benchmarks against the peers, side by side in one run (not part of `make test`), and the
# footprint; their tables go to docs/benchmarks.md, the resolve-time plot to docs/resolve_time.png.
bench: $(BUILD)/cluster-resolve
	@bash tests/deps.sh bench
	python3 bench/report.py --run

# The start-up benchmark (bench/k8s/startup/README.md): every pod of a job resolving at once,
# --members list against job, behind a model of API Priority and Fairness; 11 to 20 minutes,
# so not part of `make bench`. Report in build/bench/startup.md, plot in docs/startup.png.
.PHONY: bench-startup
bench-startup: $(BUILD)/cluster-resolve
	@bash tests/deps.sh bench
	python3 bench/k8s/startup/run.py --json $(BUILD)/bench/startup.json

# The header with its pkg-config file and CMake package; the CLI (built as build/cluster-resolve,
# with libcurl, libyaml and libcrypto), its manual page and its bash completion.
MAN1DIR := $(PREFIX)/share/man/man1
COMPLETIONDIR := $(PREFIX)/share/bash-completion/completions

install: $(BUILD)/cluster-resolve
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/share/pkgconfig
	install -m 644 cluster_resolver.h $(DESTDIR)$(PREFIX)/include/cluster_resolver.h
	printf 'prefix=%s\nincludedir=$${prefix}/include\n\nName: cluster_resolver\nDescription: %s\nVersion: %s\nCflags: -I$${includedir}\n' \
	  '$(PREFIX)' 'Single-header cluster resolver (needs jsmn.h from libjsmn-dev)' '$(VERSION)' \
	  > $(DESTDIR)$(PREFIX)/share/pkgconfig/cluster_resolver.pc
	install -d $(DESTDIR)$(PREFIX)/lib/cmake/cluster_resolver
	install -m 644 cmake/cluster_resolverConfig.cmake $(DESTDIR)$(PREFIX)/lib/cmake/cluster_resolver/cluster_resolverConfig.cmake
	sed 's/@VERSION@/$(VERSION)/' cmake/cluster_resolverConfigVersion.cmake.in \
	  > $(DESTDIR)$(PREFIX)/lib/cmake/cluster_resolver/cluster_resolverConfigVersion.cmake
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(MAN1DIR) $(DESTDIR)$(COMPLETIONDIR)
	install -m 755 $(BUILD)/cluster-resolve $(DESTDIR)$(PREFIX)/bin/cluster-resolve
	sed 's/@VERSION@/$(VERSION)/' docs/cluster-resolve.1 > $(DESTDIR)$(MAN1DIR)/cluster-resolve.1
	chmod 644 $(DESTDIR)$(MAN1DIR)/cluster-resolve.1
	install -m 644 examples/cluster-resolve.bash $(DESTDIR)$(COMPLETIONDIR)/cluster-resolve

# Removes what install wrote, and the directories only this package is likely to have made when
# they are left empty (never bin/ or share/man/, which Debian's /usr/local has from the start).
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/include/cluster_resolver.h $(DESTDIR)$(PREFIX)/share/pkgconfig/cluster_resolver.pc \
	  $(DESTDIR)$(PREFIX)/lib/cmake/cluster_resolver/cluster_resolverConfig.cmake \
	  $(DESTDIR)$(PREFIX)/lib/cmake/cluster_resolver/cluster_resolverConfigVersion.cmake \
	  $(DESTDIR)$(PREFIX)/bin/cluster-resolve $(DESTDIR)$(MAN1DIR)/cluster-resolve.1 \
	  $(DESTDIR)$(COMPLETIONDIR)/cluster-resolve
	rmdir $(DESTDIR)$(PREFIX)/lib/cmake/cluster_resolver 2>/dev/null || true
	rmdir $(DESTDIR)$(MAN1DIR) $(DESTDIR)$(COMPLETIONDIR) $(DESTDIR)$(PREFIX)/share/bash-completion 2>/dev/null || true

clean:
	rm -rf $(BUILD)

# nccl-init: a static musl init that runs a command with a validated NCCL profile.
#
#   make            build/nccl-init (static-pie, musl, libcap, hardened, stripped) and
#                   build/libnccl-env.so, the NCCL env plugin (glibc, GLIBC_2.28 at most)
#   make deps       install every Debian package the build and tests need, and the
#                   manifest validator's npm packages (tests/k8s)
#   make test       unit tests (ASan+UBSan) and bats tests; ends "N passed, N failed"
#   make demo       build and run a command under the bundled pcie-8gpu profile
#   make bench      benchmarks that report (no verdicts): start-up against true, the floor and
#                   tini-static (BENCH_BASELINE=OLD-BINARY adds its rows), the Python hook, PID 1, verify, memory,
#                   the NCCL env plugin (NCCL's first init with and without it, one getEnv call)
#   make fuzz       fuzz the profile parser, then the witness parser (FUZZ_SECONDS each, default 600)
#   make image      the image (VARIANT=sglang|vllm|parts, IMAGE=TAG, ENGINE=docker|buildah,
#                   BASE_IMAGE=, BUILDER_IMAGE=, NCCL_INIT_PROFILE=: the build arguments)
#   make probe      build/nccl-probe (needs the CUDA toolkit and NCCL headers)
#   make test-gpu   the GPU suite (tests/gpu); each test skips without a GPU
#   make install    the binary, the env plugin, the profiles and the man page (PREFIX,
#                   SYSCONFDIR, DESTDIR)
#   make uninstall  takes away what make install put there

SHELL := /bin/bash
BUILD := build
CAPDIR := $(BUILD)/libcap-musl

# init/ by concern (init/README.md); every include is "folder/file.h" from init/.
SRCS := $(wildcard init/*.c init/*/*.c)
HDRS := $(wildcard init/*.h init/*/*.h)
# The unit tests and the fuzzer take everything but main.
LIB_SRCS := $(filter-out init/main.c,$(SRCS))

STD := -std=c11 -D_GNU_SOURCE -Iinit
WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wformat=2
# The release binary: static-pie on musl's own libc.a, as Debian ships it.
# musl-gcc's specs link a PIE against musl's dynamic loader, so the compile
# uses musl's headers and the link names musl's static-pie start files
# itself, with GCC's crtbeginS.o/crtendS.o around them as musl-gcc would.
# _FORTIFY_SOURCE is left out: musl's headers do not implement it (it needs
# the C library's __*_chk functions), so the macro would change nothing.
# The triplet comes from the host compiler: x86_64 and aarch64 alike.
ARCH := $(shell gcc -dumpmachine | cut -d- -f1)
MUSL := /usr/lib/$(ARCH)-linux-musl
MUSL_INC := -nostdinc -isystem /usr/include/$(ARCH)-linux-musl -isystem $(shell gcc -print-file-name=include)
REL_CFLAGS := $(STD) $(WARN) $(MUSL_INC) -Os -flto -fPIE -ffunction-sections -fdata-sections \
	-fstack-protector-strong -I$(CAPDIR)/include
REL_LDFLAGS := -static-pie -nostdlib -Os -flto -Wl,--gc-sections -Wl,-z,relro,-z,now \
	-Wl,-z,noexecstack -s
REL_START := $(MUSL)/rcrt1.o $(MUSL)/crti.o $(shell gcc -print-file-name=crtbeginS.o)
REL_END := -L$(CAPDIR)/lib -lcap -L$(MUSL) -lc $(shell gcc -print-libgcc-file-name) \
	$(shell gcc -print-file-name=crtendS.o) $(MUSL)/crtn.o
# Bytes, stripped: printed on every build; the build fails only above this,
# a sign that something large came in, not a goal. 320 KiB since NCCL's rules
# per release (issue 36: the names of 2.28.9, 2.29.7 and 2.30.7, and the
# rules that changed) took it past the 256 KiB it was.
SIZE_LIMIT := 327680

SAN_CFLAGS := $(STD) $(WARN) -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer

# Debian packages: build, tests, benchmarks.
DEPS := build-essential musl-tools dpkg-dev libcap-dev libcmocka-dev bats bats-support bats-assert \
	python3 python3-venv python3-dev pkg-config strace util-linux procps libcap2-bin openssh-server openssh-client \
	tini dumb-init catatonit clang \
	libclang-rt-14-dev file mandoc man-db groff-base \
	podman buildah runc mmdebstrap yamllint uidmap fuse-overlayfs slirp4netns containernetworking-plugins
DEPS_STAMP := $(BUILD)/.deps-$(shell echo $(DEPS) | md5sum | cut -c1-8)
# The npm packages of the manifest validator (tests/k8s/validate.js): npm ci
# from tests/k8s/package-lock.json. The stamp lives in node_modules, so npm
# runs again only when package.json or the lockfile changes or node_modules
# is gone, and never when it is current (no network then).
K8S_NPM := tests/k8s
K8S_NPM_STAMP := $(K8S_NPM)/node_modules/.stamp
# NO_DEPS=1: the build's packages are installed already (the image's builder
# stage), so do not install the test suite's.
ifdef NO_DEPS
DEPS_STAMP :=
K8S_NPM_STAMP :=
endif

.PHONY: all deps test unit bats demo bench fuzz clean sanitize probe test-gpu image install uninstall plugin

all: $(BUILD)/nccl-init $(BUILD)/libnccl-env.so

deps: $(DEPS_STAMP) $(K8S_NPM_STAMP)

# Idempotent: apt-get runs only when a package is missing.
$(DEPS_STAMP):
	@mkdir -p $(BUILD)
	@missing=$$(for p in $(DEPS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get update -q && apt-get install -y -q --no-install-recommends $$missing; \
	fi
	@touch $@

# Node.js and npm from Debian only when there is no npm at all (a machine may
# have its own Node.js, which brings npm).
$(K8S_NPM_STAMP): $(K8S_NPM)/package.json $(K8S_NPM)/package-lock.json
	@command -v npm >/dev/null || { \
		echo "installing: nodejs npm"; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get update -q && apt-get install -y -q --no-install-recommends nodejs npm; \
	}
	npm ci --prefix $(K8S_NPM) --prefer-offline --no-audit --no-fund
	@touch $@

$(CAPDIR)/lib/libcap.a: scripts/libcap-musl.sh | $(DEPS_STAMP)
	sh scripts/libcap-musl.sh $(CAPDIR)

$(BUILD)/nccl-init: $(SRCS) $(HDRS) $(CAPDIR)/lib/libcap.a Makefile | $(DEPS_STAMP)
	gcc $(REL_CFLAGS) -o $@ $(REL_START) $(SRCS) $(REL_LDFLAGS) $(REL_END)
	@file $@ | grep -q 'static-pie linked' || { echo "$@ is not static-pie" >&2; exit 1; }
	@size=$$(stat -c %s $@); echo "$@: $$size bytes"; \
	if [ $$size -gt $(SIZE_LIMIT) ]; then echo "$@: over $(SIZE_LIMIT) bytes" >&2; rm -f $@; exit 1; fi

# The NCCL env plugin (plugin/): loaded by NCCL into every process that uses
# it, so built with the host gcc against glibc, like those processes. Only
# ncclEnvPlugin_v1 and ncclEnvPlugin_v2 are exported (-fvisibility=hidden
# and the two marked), NEEDED is libc.so.6 alone (--no-undefined catches
# anything else), and no symbol may need a glibc newer than 2.28 (RHEL 8):
# the check after the link fails the build otherwise. It includes only
# init/lib/paths.h and init/lib/witness.h of init/. -z nodelete: NCCL's atexit handler dlcloses
# the plugin while the server's other threads may still be inside getEnv;
# unmapped under them, they died of SIGSEGV at exit (issue 34, finding 5).
# Kept mapped, they run on until the process ends.
PLUGIN_SRCS := $(wildcard plugin/*.c)
PLUGIN_HDRS := $(wildcard plugin/*.h) init/lib/paths.h init/lib/witness.h
PLUGIN_CFLAGS := $(STD) $(WARN) -O2 -fPIC -fvisibility=hidden -fstack-protector-strong \
	-D_FORTIFY_SOURCE=2
PLUGIN_LDFLAGS := -shared -Wl,-soname,libnccl-env.so -Wl,-z,relro,-z,now -Wl,-z,noexecstack \
	-Wl,-z,nodelete -Wl,--no-undefined -s
# The newest glibc symbol version the plugin may need.
PLUGIN_GLIBC_MAX := 2.28

$(BUILD)/libnccl-env.so: $(PLUGIN_SRCS) $(PLUGIN_HDRS) Makefile | $(DEPS_STAMP)
	@mkdir -p $(@D)
	gcc $(PLUGIN_CFLAGS) -o $@.tmp $(PLUGIN_SRCS) $(PLUGIN_LDFLAGS)
	@v=$$(objdump -T $@.tmp | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -n1); \
	if [ "$$(printf '%s\n' "$$v" $(PLUGIN_GLIBC_MAX) | sort -V | tail -n1)" != $(PLUGIN_GLIBC_MAX) ]; then \
		echo "$@: needs GLIBC_$$v, above GLIBC_$(PLUGIN_GLIBC_MAX):" >&2; \
		objdump -T $@.tmp | grep GLIBC_ >&2; rm -f $@.tmp; exit 1; fi
	@mv -f $@.tmp $@

plugin: $(BUILD)/libnccl-env.so

# The same sources under the host gcc with ASan+UBSan (glibc, Debian's libcap).
# The init keeps its start-up data until it exits, by design: no leak checks
# for the CLI binary (tests/helpers/asan-options.c); the unit tests keep them.
# Each source is compiled once under the sanitizers, for this binary and
# every unit test (each used to compile all of init/ again: minutes of make
# test on a 2-core machine).
SAN_OBJS := $(patsubst init/%.c,$(BUILD)/san/obj/%.o,$(LIB_SRCS))

$(BUILD)/san/obj/%.o: init/%.c $(HDRS) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	gcc $(SAN_CFLAGS) -c -o $@ $<

$(BUILD)/san/nccl-init: $(BUILD)/san/obj/main.o $(SAN_OBJS) tests/helpers/asan-options.c | $(DEPS_STAMP)
	gcc $(SAN_CFLAGS) -o $@ $(BUILD)/san/obj/main.o $(SAN_OBJS) tests/helpers/asan-options.c -lcap

sanitize: $(BUILD)/san/nccl-init

# tests/unit/PART/test_MODULE.c tests init/PART/MODULE.c.
UNIT_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/unit/%,$(wildcard tests/unit/*/test_*.c))

$(BUILD)/unit/%: tests/unit/%.c $(SAN_OBJS) $(HDRS) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	gcc $(SAN_CFLAGS) -Itests/unit -o $@ $< $(SAN_OBJS) -lcmocka -lcap

# tests/unit/plugin/test_MODULE.c tests plugin/MODULE.c, linked with the
# plugin's sources alone (it takes nothing of init/ but lib/paths.h and lib/witness.h).
PLUGIN_UNIT_TESTS := $(filter $(BUILD)/unit/plugin/%,$(UNIT_TESTS))
$(PLUGIN_UNIT_TESTS): $(BUILD)/unit/plugin/test_%: tests/unit/plugin/test_%.c plugin/%.c $(PLUGIN_HDRS) \
		tests/unit/scratch.h | $(DEPS_STAMP)
	@mkdir -p $(@D)
	gcc $(SAN_CFLAGS) -Iplugin -Itests/unit -o $@ $< plugin/$*.c -lcmocka

$(BUILD)/test/exec-with-env: tests/helpers/exec-with-env.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	gcc -O2 -Wall -Wextra -Werror -o $@ $<

$(BUILD)/test/orphans: tests/helpers/orphans.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	gcc -O2 -Wall -Wextra -Werror -o $@ $<

# The env plugin as a C server meets it (tests/plugin.bats): NCCL's first
# init with stdout a closed pipe, errno across init/getEnv/finalize, exit
# while threads are in getEnv.
$(BUILD)/test/plugin-harness: tests/helpers/plugin-harness.c plugin/nccl_env.h | $(DEPS_STAMP)
	@mkdir -p $(@D)
	gcc -O2 -Wall -Wextra -Werror -pthread -o $@ $< -ldl

# A command under a seccomp filter that fails one system call (memfd_create:
# the plugin without its witness; acct: the same filter's cost alone), for
# tests/plugin.bats and make bench.
$(BUILD)/test/deny-syscall: tests/helpers/deny-syscall.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	gcc -O2 -Wall -Wextra -Werror -o $@ $<

$(BUILD)/test/racer: tests/helpers/racer.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	gcc -O2 -Wall -Wextra -Werror -o $@ $<

# docker when a daemon answers, else buildah; the variables (command-line
# ones included: make exports those) reach the script through the
# environment.
image:
	@scripts/build-image.sh

# nccl-probe (CUDA runtime + libnccl); prints "skipped: ..." without the toolkit
probe:
	@scripts/build-probe.sh

test-gpu: $(BUILD)/nccl-init $(BUILD)/libnccl-env.so probe
	@NCCL_INIT_BIN=$(CURDIR)/$(BUILD)/nccl-init scripts/sandbox.sh bats tests/gpu

test: probe $(BUILD)/nccl-init $(BUILD)/libnccl-env.so $(BUILD)/san/nccl-init $(UNIT_TESTS) $(BUILD)/test/exec-with-env \
		$(BUILD)/test/orphans $(BUILD)/test/plugin-harness $(BUILD)/test/racer \
		$(BUILD)/test/deny-syscall $(K8S_NPM_STAMP)
	@scripts/run-tests.sh $(UNIT_TESTS)

demo: $(BUILD)/nccl-init $(BUILD)/libnccl-env.so
	@scripts/demo.sh

bench: $(BUILD)/nccl-init $(BUILD)/libnccl-env.so $(BUILD)/test/deny-syscall
	@scripts/bench-startup.sh
	@echo
	@scripts/bench-python-hook.sh
	@echo
	@scripts/bench-pid1.sh
	@echo
	@scripts/bench-verify.sh
	@echo
	@scripts/bench-memory.sh
	@echo
	@scripts/bench-plugin.sh

FUZZ_SECONDS ?= 600
# UBSan findings abort (so libFuzzer saves them); edit_distance is left out
# of the coverage tracking, where it took most of the time.
$(BUILD)/fuzz/fuzz_profile: tests/fuzz/fuzz_profile.c tests/fuzz/ignorelist.txt $(LIB_SRCS) $(HDRS) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	clang $(STD) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-fsanitize-coverage-ignorelist=tests/fuzz/ignorelist.txt -o $@ $< $(LIB_SRCS) -lcap

# The witness parser: what any program could write into a memfd of that name.
$(BUILD)/fuzz/fuzz_witness: tests/fuzz/fuzz_witness.c $(LIB_SRCS) $(HDRS) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	clang $(STD) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-o $@ $< $(LIB_SRCS) -lcap

fuzz: $(BUILD)/fuzz/fuzz_profile $(BUILD)/fuzz/fuzz_witness
	@mkdir -p $(BUILD)/fuzz/corpus $(BUILD)/fuzz/witness-corpus
	$(BUILD)/fuzz/fuzz_profile -max_total_time=$(FUZZ_SECONDS) -max_len=8192 -timeout=10 \
		-dict=tests/fuzz/dict.txt -print_final_stats=1 $(BUILD)/fuzz/corpus tests/fuzz/corpus
	$(BUILD)/fuzz/fuzz_witness -max_total_time=$(FUZZ_SECONDS) -max_len=16384 -timeout=10 \
		-print_final_stats=1 $(BUILD)/fuzz/witness-corpus tests/fuzz/witness-corpus

# make install [PREFIX=/usr/local] [SYSCONFDIR=/etc] [DESTDIR=]:
#   $(PREFIX)/bin/nccl-init, $(PREFIX)/lib/nccl-init/libnccl-env.so (the NCCL
#   env plugin), $(PREFIX)/share/man/man1/nccl-init.1,
#   $(SYSCONFDIR)/nccl-init/profiles/ (profiles/*.env, auto.rules) and a
#   shipped copy of those in $(PREFIX)/share/nccl-init/profiles/.
# SYSCONFDIR is not under PREFIX: the binary's default profile directory is
# /etc/nccl-init/profiles. A profile an operator edited in SYSCONFDIR is left
# alone, by install and by uninstall; scripts/install.sh says how.
# Build first as yourself (make), then install as root: install depends on
# the binary and the plugin, so it builds them only when missing or out of date.
PREFIX ?= /usr/local
SYSCONFDIR ?= /etc
INSTALL_ENV = DESTDIR='$(DESTDIR)' PREFIX='$(PREFIX)' SYSCONFDIR='$(SYSCONFDIR)' BIN='$(BUILD)/nccl-init' \
	PLUGIN='$(BUILD)/libnccl-env.so'

install: $(BUILD)/nccl-init $(BUILD)/libnccl-env.so
	@$(INSTALL_ENV) scripts/install.sh install

uninstall:
	@$(INSTALL_ENV) scripts/install.sh uninstall

clean:
	rm -rf $(BUILD)/nccl-init $(BUILD)/libnccl-env.so $(BUILD)/nccl-probe $(BUILD)/san \
		$(BUILD)/unit $(BUILD)/fuzz

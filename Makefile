# iomoon - storage benchmark engine (C core, Lua 5.4 scripting)
#
#   make          build ./iomoon
#   make run      install what is missing, build, run the default suite on ./scratch
#   make test     install what is missing, build, run the tests (TAP, prove)
#   make test-busy  the same with a busy loop pinned on each CPU beside it
#   make bench    the timing checks, then a side-by-side speed comparison with fio
#   make install  PREFIX=/usr/local (and DESTDIR=); make uninstall, the same way

PREFIX  ?= /usr/local
DATADIR ?= $(PREFIX)/share/iomoon
CC      ?= gcc
CFLAGS  ?= -O2 -g
# CFLAGS is the user's (optimisation, sanitizers); ALL_CFLAGS adds ours.
ALL_CFLAGS = $(CFLAGS) -std=gnu11 -Wall -Wextra -Werror -pthread -D_GNU_SOURCE $(NET_CFLAGS)
LUA_CFLAGS := $(shell pkg-config --cflags lua5.4 2>/dev/null || echo -I/usr/include/lua5.4)
LUA_LIBS   := $(shell pkg-config --libs lua5.4 2>/dev/null || echo -llua5.4)
# The network engines (netblk.h) are built when their libraries are there
# (make deps installs them); without one, `iomoon list` says why it is off.
NBD_LIBS   := $(shell pkg-config --libs libnbd 2>/dev/null)
ISCSI_LIBS := $(shell pkg-config --libs libiscsi 2>/dev/null)
NFS_LIBS   := $(shell pkg-config --libs libnfs 2>/dev/null)
# Many hosts (cluster.h): MPI, when Open MPI's library is there (make deps
# installs it); without it `iomoon list` says how this iomoon was built.
MPI_LIBS   := $(shell pkg-config --libs ompi-c 2>/dev/null)
MPI_CFLAGS := $(if $(MPI_LIBS),-DHAVE_MPI $(shell pkg-config --cflags ompi-c 2>/dev/null))
NET_CFLAGS := $(if $(NBD_LIBS),-DHAVE_LIBNBD) $(if $(ISCSI_LIBS),-DHAVE_LIBISCSI) $(if $(NFS_LIBS),-DHAVE_LIBNFS) $(MPI_CFLAGS)
# The metrics endpoint (run/metrics_http.c, doc/reports.md) serves HTTP
# with libmicrohttpd.
MHD_LIBS   := $(shell pkg-config --libs libmicrohttpd 2>/dev/null || echo -lmicrohttpd)
LDLIBS  += $(LUA_LIBS) -luring -laio -lcsv -lblkid -llz4 -lzstd -lz $(NBD_LIBS) $(ISCSI_LIBS) $(NFS_LIBS) $(MPI_LIBS) $(MHD_LIBS) -lm -pthread

# Debian packages the build, the tests and the benchmarks need.
DEB_PKGS := liblua5.4-dev liburing-dev libaio-dev libcsv-dev libblkid-dev fio pkg-config python3 time valgrind util-linux \
            pandoc man-db strace e2fsprogs libnbd-dev nbdkit nbdkit-plugin-dev libiscsi-dev libiscsi-bin tgt chromium ioping \
            libopenmpi-dev openmpi-bin liblz4-dev libzstd-dev zlib1g-dev lz4 zstd libnfs-dev libnfs-utils \
            nfs-ganesha nfs-ganesha-mem rpcbind iproute2 libmicrohttpd-dev prometheus postmark stress-ng

# The sources, by layer (doc/design.md, "The source tree"): every C file
# in a folder of src/ is built; src/lua/ is the binding (the only code that
# includes Lua's headers), the rest is the core the unit tests link.
BUILD ?= build
LAYERS := core io verify trace run cluster
CORE_SRCS := $(sort $(foreach d,$(LAYERS),$(wildcard src/$(d)/*.c)))
BINDING_SRCS := $(sort $(wildcard src/lua/*.c))
HEADERS := $(wildcard src/*/*.h)
# Objects mirror the sources under $(BUILD)/src/ ($(BUILD)/lua is where a
# sanitized binary finds the Lua library).
CORE_OBJS := $(patsubst src/%.c,$(BUILD)/src/%.o,$(CORE_SRCS))
OBJS := $(CORE_OBJS) $(patsubst src/%.c,$(BUILD)/src/%.o,$(BINDING_SRCS)) $(BUILD)/src/main.o
UNIT_TESTS := $(patsubst tests/unit/%.c,build/%,$(wildcard tests/unit/test_*.c)) build/deny_syscalls build/aio_eagain.so

.PHONY: all deps run test test-busy test-asan fuzz bench bench-timing oracle man install uninstall clean
all: iomoon


# Only the binding and main.c see Lua's headers: a core file that includes
# one does not compile.
$(BUILD)/src/%.o: src/%.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Isrc -c -o $@ $<

$(BUILD)/src/lua/%.o: src/lua/%.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Isrc $(LUA_CFLAGS) -c -o $@ $<

$(BUILD)/src/main.o: src/main.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Isrc $(LUA_CFLAGS) -DIOMOON_DATADIR='"$(DATADIR)"' -c -o $@ $<

iomoon $(BUILD)/iomoon: $(OBJS)
	$(CC) $(ALL_CFLAGS) -o $@ $(OBJS) $(LDFLAGS) $(LDLIBS)
	@echo "$@: built with$(if $(NBD_LIBS),, no) nbd,$(if $(ISCSI_LIBS),, no) iscsi,$(if $(NFS_LIBS),, no) nfs,$(if $(MPI_LIBS),, no) MPI (many hosts)$(if $(and $(NBD_LIBS),$(ISCSI_LIBS),$(NFS_LIBS),$(MPI_LIBS)),, - make deps installs what is missing)"

$(BUILD)/test_%: tests/unit/test_%.c $(CORE_OBJS) tests/unit/tap.h
	$(CC) $(ALL_CFLAGS) -Isrc -Itests/unit -o $@ $< $(CORE_OBJS) $(LDFLAGS) $(LDLIBS)

$(BUILD)/deny_syscalls: tests/unit/deny_syscalls.c
	@mkdir -p $(BUILD)
	$(CC) $(ALL_CFLAGS) -o $@ $<

$(BUILD)/aio_eagain.so: tests/unit/aio_eagain.c
	@mkdir -p $(BUILD)
	$(CC) $(ALL_CFLAGS) -shared -fPIC -o $@ $< -ldl

# Install whatever of DEB_PKGS is missing: apt-get as root, else say how.
deps:
	@missing=""; for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing:$$missing"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing) >/dev/null || exit 1; \
	  else \
	    echo "missing packages; run: sudo apt-get install$$missing"; exit 1; \
	  fi; \
	fi

run: deps
	$(MAKE) --no-print-directory iomoon
	mkdir -p scratch
	./iomoon suite quick --target scratch/iomoon.dat --size 1g

# The tests run TEST_JOBS (2) at a time (most wait on I/O, timers and
# children; 3 made a loaded machine fail timing-bound checks), the slowest first (tests/slow lists them, from a timed run)
# so that no long one starts last. Tests that hold a
# measurement to a bound (a rate, a latency, a peer tool's IOPS, a render
# time) say so in their second line ("# test: timed"); make test skips
# those checks (IOMOON_TIMING unset), make bench-timing runs them alone.
TIMED_TESTS := $(shell grep -l '^\# test: timed' tests/*.t)
TEST_JOBS ?= 2
SLOW_TESTS := $(filter $(wildcard tests/*.t),$(shell grep -v '^\#' tests/slow 2>/dev/null))
ALL_TESTS = $(SLOW_TESTS) $(filter-out $(SLOW_TESTS),$(sort $(wildcard tests/*.t)))
PROVE_ALL = prove $(PROVE_V) -j$(TEST_JOBS) --timer $(ALL_TESTS)
# The suite runs with a TMPDIR of its own, and fails if it leaves anything
# there: a mount, a loop device, a server, a temporary directory.
RUN_TESTS = t=$$(mktemp -d "$${TMPDIR:-/tmp}/iomoon-make-test.XXXXXX") && (export TMPDIR=$$t; $(PROVE_ALL)); \
	rc=$$?; tests/leftovers.sh "$$t" || rc=1; exit $$rc

# The build before the tests compiles on every core, unless make was given
# a -j of its own (whose jobs the sub-make then shares).
BUILD_JOBS = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc 2>/dev/null || echo 2))

test: PROVE_V = -v
test: deps
	$(MAKE) --no-print-directory $(BUILD_JOBS) iomoon $(UNIT_TESTS)
	@$(RUN_TESTS)

# The suite on a busy machine: a busy loop pinned on each CPU beside it
# (tests/busy.sh). Checks assert what load cannot move; this is how to see it.
test-busy: deps
	tests/busy.sh $(MAKE) --no-print-directory test

# The whole suite again on a build with AddressSanitizer and
# UndefinedBehaviorSanitizer (any report fails the run). The sanitized binary
# lives in build-asan/, with lua/ and bench-suites/ linked beside it as in the
# source tree.
ASAN_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
test-asan: deps
	$(MAKE) --no-print-directory $(BUILD_JOBS) iomoon build/deny_syscalls build/aio_eagain.so
	$(MAKE) --no-print-directory $(BUILD_JOBS) BUILD=build-asan CFLAGS="$(ASAN_FLAGS)" build-asan/iomoon \
	  $(patsubst build/%,build-asan/%,$(UNIT_TESTS))
	ln -sfn ../lua build-asan/lua
	ln -sfn ../bench-suites build-asan/bench-suites
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	  IOMOON_BIN=$(CURDIR)/build-asan/iomoon UNIT_DIR=build-asan sh -c '$(RUN_TESTS)'

# libFuzzer (clang): the unit parsers, and the access-spec parser through an
# embedded Lua state, each for FUZZ_SECONDS. Findings land in build-fuzz/.
FUZZ_SECONDS ?= 60
FUZZ_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -Wno-unknown-warning-option
FUZZ_OBJS = $(patsubst src/%.c,build-fuzz/src/%.o,$(CORE_SRCS) $(BINDING_SRCS))
fuzz: DEB_PKGS += clang libclang-rt-dev
fuzz: deps
	$(MAKE) --no-print-directory BUILD=build-fuzz CC=clang CFLAGS="$(FUZZ_FLAGS)" $(FUZZ_OBJS)
	clang $(FUZZ_FLAGS) -fsanitize=fuzzer -Isrc -o build-fuzz/fuzz_units tests/fuzz/fuzz_units.c $(FUZZ_OBJS) $(LDLIBS)
	clang $(FUZZ_FLAGS) -fsanitize=fuzzer -Isrc $(LUA_CFLAGS) -o build-fuzz/fuzz_spec tests/fuzz/fuzz_spec.c $(FUZZ_OBJS) $(LDLIBS)
	mkdir -p build-fuzz/corpus-units build-fuzz/corpus-spec
	printf '4k' >build-fuzz/corpus-units/a; printf '0.5k' >build-fuzz/corpus-units/b; printf '500ms' >build-fuzz/corpus-units/c
	printf '8k_55%%Read_80%%Random' >build-fuzz/corpus-spec/a; printf '0.5k_100%%Read_0%%Random' >build-fuzz/corpus-spec/b
	cd build-fuzz && ./fuzz_units -max_total_time=$(FUZZ_SECONDS) -artifact_prefix=units- corpus-units
	cd build-fuzz && IOMOON_LUA_PATH=$(CURDIR)/lua ./fuzz_spec -max_total_time=$(FUZZ_SECONDS) -artifact_prefix=spec- corpus-spec

# The checks that hold a time or a rate to a bound (tests/lib.sh's timed,
# tests/tap.lua's timed_ok): make test skips them, naming each; here they
# run, on the machine make bench is run on (a quiet one).
TIMING_TESTS = $(sort $(TIMED_TESTS) $(shell grep -l '^[[:space:]]*timed ' tests/*.t))
bench-timing: deps
	$(MAKE) --no-print-directory $(BUILD_JOBS) iomoon $(UNIT_TESTS)
	IOMOON_TIMING=1 prove --timer $(TIMING_TESTS)

bench: deps
	$(MAKE) --no-print-directory iomoon
	$(MAKE) --no-print-directory bench-timing
	tests/bench/run

# The differential oracle (tests/oracle/oracle, issue 42): random fio jobs
# through fio and iomoon, checked against each other and the kernel's
# counts; as root. ORACLE_SEED and ORACLE_COUNT pick the jobs.
ORACLE_SEED ?= 1
ORACLE_COUNT ?= 100
oracle: deps
	$(MAKE) --no-print-directory iomoon
	tests/oracle/oracle --seed $(ORACLE_SEED) --count $(ORACLE_COUNT)

# The man page iomoon(1) is doc/cli.md, shaped by doc/man/man.lua; never
# kept in git, so the two cannot disagree.
VERSION := $(shell sed -n 's/^\#define IOMOON_VERSION "\(.*\)"/\1/p' src/lua/lua_api.h)
$(BUILD)/iomoon.1: doc/cli.md doc/man/iomoon.1.yaml doc/man/man.lua src/lua/lua_api.h
	@command -v pandoc >/dev/null || { echo "pandoc is missing: make deps, or apt-get install pandoc"; exit 1; }
	@mkdir -p $(BUILD)
	pandoc -s -t man --metadata-file doc/man/iomoon.1.yaml -M footer="iomoon $(VERSION)" \
	  --lua-filter doc/man/man.lua -o $@ doc/cli.md

man: $(BUILD)/iomoon.1

# INSTALL_BIN: the binary to install (the tests install the one under test).
INSTALL_BIN ?= iomoon
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
# the Lua library, its subfolders included (fio/job.lua is iomoon.fio.job)
LUA_FILES := $(patsubst lua/iomoon/%,%,$(wildcard lua/iomoon/*.lua lua/iomoon/*/*.lua))
LUA_DIRS := $(sort $(patsubst %/,%,$(filter-out ./,$(dir $(LUA_FILES)))))
SUITE_FILES := $(notdir $(wildcard bench-suites/*.lua))
install: $(INSTALL_BIN) $(BUILD)/iomoon.1
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(DATADIR)/lua/iomoon $(DESTDIR)$(DATADIR)/bench-suites \
	  $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR)
	install -m 755 $(INSTALL_BIN) $(DESTDIR)$(PREFIX)/bin/iomoon
	for f in $(LUA_FILES); do install -D -m 644 lua/iomoon/$$f $(DESTDIR)$(DATADIR)/lua/iomoon/$$f || exit 1; done
	install -m 644 $(addprefix bench-suites/,$(SUITE_FILES)) $(DESTDIR)$(DATADIR)/bench-suites/
	install -m 644 $(BUILD)/iomoon.1 $(DESTDIR)$(MANDIR)/man1/iomoon.1
	install -m 644 completion/iomoon.bash $(DESTDIR)$(BASHCOMPDIR)/iomoon

# What install put, and the directories under $(DATADIR) it leaves empty.
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/iomoon $(DESTDIR)$(MANDIR)/man1/iomoon.1 $(DESTDIR)$(BASHCOMPDIR)/iomoon \
	  $(addprefix $(DESTDIR)$(DATADIR)/lua/iomoon/,$(LUA_FILES)) \
	  $(addprefix $(DESTDIR)$(DATADIR)/bench-suites/,$(SUITE_FILES))
	for d in $(addprefix $(DESTDIR)$(DATADIR)/,$(addprefix lua/iomoon/,$(LUA_DIRS)) lua/iomoon lua bench-suites) \
	  $(DESTDIR)$(DATADIR); do \
	  if [ -d "$$d" ]; then rmdir --ignore-fail-on-non-empty "$$d"; fi; \
	done

clean:
	rm -rf build build-asan build-fuzz iomoon scratch

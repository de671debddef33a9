# iomoon - storage benchmark engine (C core, Lua 5.4 scripting)
#
#   make          build ./iomoon
#   make run      install what is missing, build, run the default suite on ./scratch
#   make test     install what is missing, build, run the tests (TAP, prove)
#   make bench    side-by-side speed comparison with fio (not part of make test)
#   make install  PREFIX=/usr/local

PREFIX  ?= /usr/local
DATADIR ?= $(PREFIX)/share/iomoon
CC      ?= gcc
CFLAGS  ?= -O2 -g
# Messages are cut to their buffers on purpose: no format-truncation warning.
CFLAGS  += -std=gnu11 -Wall -Wextra -Werror -Wno-format-truncation -pthread -D_GNU_SOURCE
LUA_CFLAGS := $(shell pkg-config --cflags lua5.4 2>/dev/null || echo -I/usr/include/lua5.4)
LUA_LIBS   := $(shell pkg-config --libs lua5.4 2>/dev/null || echo -llua5.4)
LDLIBS  += $(LUA_LIBS) -luring -laio -lcsv -lblkid -lm -pthread

# Debian packages the build, the tests and the benchmarks need.
DEB_PKGS := liblua5.4-dev liburing-dev libaio-dev libcsv-dev libblkid-dev fio pkg-config python3 time valgrind util-linux

CORE := clock hist units workload engine engine_null engine_sim engine_psync engine_libaio \
        engine_uring target stats worker phase csv
OBJS := $(addprefix build/,$(addsuffix .o,$(CORE) lua_api lua_phase main))
CORE_OBJS := $(addprefix build/,$(addsuffix .o,$(CORE)))
UNIT_TESTS := $(patsubst tests/unit/%.c,build/%,$(wildcard tests/unit/test_*.c)) build/deny_syscalls

.PHONY: all deps run test bench install clean
all: iomoon

build/%.o: src/%.c $(wildcard src/*.h) | build
	$(CC) $(CFLAGS) $(LUA_CFLAGS) -DIOMOON_DATADIR='"$(DATADIR)"' -c -o $@ $<

build:
	mkdir -p build

iomoon: $(OBJS)
	$(CC) $(CFLAGS) -o $@ $(OBJS) $(LDFLAGS) $(LDLIBS)

build/test_%: tests/unit/test_%.c $(CORE_OBJS) tests/unit/tap.h
	$(CC) $(CFLAGS) -Isrc -Itests/unit -o $@ $< $(CORE_OBJS) $(LDFLAGS) $(LDLIBS)

build/deny_syscalls: tests/unit/deny_syscalls.c | build
	$(CC) $(CFLAGS) -o $@ $<

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

test: deps
	$(MAKE) --no-print-directory iomoon $(UNIT_TESTS)
	prove -v --timer tests/

bench: deps
	$(MAKE) --no-print-directory iomoon
	tests/bench/run

install: iomoon
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(DATADIR)/lua/iomoon $(DESTDIR)$(DATADIR)/bench-suites
	install -m 755 iomoon $(DESTDIR)$(PREFIX)/bin/iomoon
	install -m 644 lua/iomoon/*.lua $(DESTDIR)$(DATADIR)/lua/iomoon/
	install -m 644 bench-suites/*.lua $(DESTDIR)$(DATADIR)/bench-suites/

clean:
	rm -rf build iomoon scratch

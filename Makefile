# sonde build. Sources are found by wildcard so that a new module needs no
# Makefile edit. Everything but src/main.c goes into libsonde.a, which the
# unit tests and fuzz targets link against.

CC       ?= gcc
BUILD    ?= build
PKGS     := libbpf libelf zlib libdw libprotobuf-c
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lbpf -ldw -lelf -lz -lprotobuf-c)

# libmicrohttpd serves --metrics; without it sonde builds and --metrics
# says it is missing (src/runtime/metrics_http.c).
# It is loaded (dlopen) when a server starts, not linked: see
# src/runtime/mhd_dl.h.
ifeq ($(shell pkg-config --exists libmicrohttpd 2>/dev/null && echo 1),1)
  PKG_CFLAGS += $(shell pkg-config --cflags libmicrohttpd) -DSONDE_HAVE_MHD
  PKG_LIBS   += -ldl
endif

WARN     := -Wall -Wextra -Werror -Wno-unused-parameter
OPT      ?= -O2 -g
CFLAGS   ?=
SAN      ?=
ifeq ($(SAN),1)
  OPT    := -O1 -g -fno-omit-frame-pointer
  SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined
endif
ALL_CFLAGS := -std=gnu11 -pthread $(WARN) $(OPT) $(SANFLAGS) -Isrc -I$(BUILD)/gen $(PKG_CFLAGS) $(CFLAGS) -MMD -MP
LDLIBS   := $(PKG_LIBS) -liberty -pthread

SRCS     := $(shell find src -name '*.c' | sort)
LIB_SRCS := $(filter-out src/main.c,$(SRCS))
# pprof's profile.proto, compiled by protoc-c at build time (so the code
# always matches the installed libprotobuf-c), into $(BUILD)/gen.
PROTO_C  := $(BUILD)/gen/profile.pb-c.c
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o) $(BUILD)/gen/profile.pb-c.o
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_SRCS:%.c=$(BUILD)/%)

# make install [DESTDIR=/stage] [PREFIX=/usr/local]: sonde in PREFIX/bin,
# the tools in PREFIX/share/sonde/tools (where `sonde -t NAME` finds them)
# with each one on the PATH as PREFIX/bin/sonde-NAME (a link; a tool's
# wrapper, such as tools/profile, takes the name before its .bt), and the
# man page, and the bash and zsh completions (completions/). make uninstall
# removes exactly those.
PREFIX   ?= /usr/local
DESTDIR  ?=
BINDIR   := $(DESTDIR)$(PREFIX)/bin
TOOLDIR  := $(DESTDIR)$(PREFIX)/share/sonde/tools
MANDIR   := $(DESTDIR)$(PREFIX)/share/man/man8
BASHCOMPDIR := $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  := $(DESTDIR)$(PREFIX)/share/zsh/site-functions
TOOLS    := $(sort $(notdir $(wildcard tools/*)))
# the name on the PATH: sonde-NAME, for NAME.bt unless a wrapper NAME exists
TOOL_LINKS := $(sort $(patsubst %.bt,%,$(TOOLS)))
tool_target = $(if $(filter $(1),$(TOOLS)),$(1),$(1).bt)

.PHONY: all check unit asan fuzz fuzz-long clean bench install uninstall
all: $(BUILD)/sonde

# The installed tool directory, compiled in (sonde also looks next to its
# own binary, so a DESTDIR install runs where it is).
$(BUILD)/src/tools/toolfind.o: ALL_CFLAGS += -DSONDE_TOOLDIR='"$(PREFIX)/share/sonde/tools"'

install: $(BUILD)/sonde
	install -d $(BINDIR) $(TOOLDIR) $(MANDIR)
	install -m 755 $(BUILD)/sonde $(BINDIR)/sonde
	install -m 755 $(addprefix tools/,$(TOOLS)) $(TOOLDIR)/
	$(foreach t,$(TOOL_LINKS),ln -sf ../share/sonde/tools/$(call tool_target,$(t)) $(BINDIR)/sonde-$(t) &&) true
	install -m 644 docs/sonde.8 $(MANDIR)/sonde.8
	install -d $(BASHCOMPDIR) $(ZSHCOMPDIR)
	install -m 644 completions/sonde.bash $(BASHCOMPDIR)/sonde
	install -m 644 completions/_sonde $(ZSHCOMPDIR)/_sonde

uninstall:
	rm -f $(BINDIR)/sonde $(addprefix $(BINDIR)/sonde-,$(TOOL_LINKS))
	rm -f $(addprefix $(TOOLDIR)/,$(TOOLS)) $(MANDIR)/sonde.8
	rm -f $(BASHCOMPDIR)/sonde $(ZSHCOMPDIR)/_sonde
	-rmdir $(TOOLDIR) $(DESTDIR)$(PREFIX)/share/sonde 2>/dev/null

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(PROTO_C) $(PROTO_C:.c=.h) &: src/runtime/profile.proto
	@mkdir -p $(BUILD)/gen
	protoc-c --proto_path=src/runtime --c_out=$(BUILD)/gen profile.proto

$(BUILD)/gen/profile.pb-c.o: $(PROTO_C)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

# the one user of the generated header
$(BUILD)/src/runtime/pprof_enc.o: $(PROTO_C:.c=.h)

$(BUILD)/libsonde.a: $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/sonde: $(BUILD)/src/main.o $(BUILD)/libsonde.a
	$(CC) $(SANFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/unit/%: tests/unit/%.c $(BUILD)/libsonde.a tests/unit/check.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests/unit $< -o $@ $(BUILD)/libsonde.a $(LDLIBS)

unit: $(UNIT_BINS)

# The one test command: builds, then runs every layer of tests.
check: all unit
	@tests/run.sh --build $(BUILD)

# Unit tests (and golden/error layers, which need no kernel) under ASan+UBSan.
asan:
	@$(MAKE) --no-print-directory BUILD=build-asan SAN=1 all unit
	@ASAN_OPTIONS=detect_leaks=1 tests/run.sh --build build-asan --layers unit,golden,errors

# FUZZ_TIME seconds in all, shared by the targets; fuzz-long runs each
# to FUZZ_RUNS inputs (1,000,000 unless given; hours in all).
FUZZ_TIME ?= 60
FUZZ_LONG_TIME ?= 10800
fuzz:
	@$(MAKE) --no-print-directory -f tests/fuzz/fuzz.mk FUZZ_TIME=$(FUZZ_TIME)
# fuzz-long also runs the differential tester against bpftrace 0.17 for
# 5,000 programs (tests/diff/run-long.sh; make check runs 200).
fuzz-long: all
	@$(MAKE) --no-print-directory -f tests/fuzz/fuzz.mk FUZZ_RUNS=$(or $(FUZZ_RUNS),1000000)
	@tests/diff/run-long.sh --build $(BUILD)

bench: all
	@bench/run.sh
	@bench/stacks.sh >>bench/RESULTS.md
	@bench/many_probes.sh >>bench/RESULTS.md
	@bench/metrics.sh >>bench/RESULTS.md
	@bench/uprobe_dwarf.sh >>bench/RESULTS.md
	@bench/bigmap.sh >>bench/RESULTS.md
	@bench/compile.sh >>bench/RESULTS.md
	@bench/dwunwind.sh >>bench/RESULTS.md

clean:
	rm -rf build build-asan build-fuzz

include src/stdlib/stdlib.mk
# make static (build/sonde-static) and make deb (the Debian package)
include static.mk
# make arm64 (build/arm64/sonde: static, cross-compiled for aarch64)
include arm64.mk
-include $(LIB_OBJS:.o=.d) $(BUILD)/src/main.d

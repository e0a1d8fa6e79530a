# sonde build. Sources are found by wildcard so that a new module needs no
# Makefile edit. Everything but src/main.c goes into libsonde.a, which the
# unit tests and fuzz targets link against.

CC       ?= gcc
BUILD    ?= build
PKGS     := libbpf libelf zlib
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lbpf -lelf -lz)

WARN     := -Wall -Wextra -Werror -Wno-unused-parameter
OPT      ?= -O2 -g
CFLAGS   ?=
SAN      ?=
ifeq ($(SAN),1)
  OPT    := -O1 -g -fno-omit-frame-pointer
  SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined
endif
ALL_CFLAGS := -std=gnu11 $(WARN) $(OPT) $(SANFLAGS) -Isrc $(PKG_CFLAGS) $(CFLAGS) -MMD -MP
LDLIBS   := $(PKG_LIBS)

SRCS     := $(shell find src -name '*.c' | sort)
LIB_SRCS := $(filter-out src/main.c,$(SRCS))
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_SRCS:%.c=$(BUILD)/%)

.PHONY: all check unit asan fuzz clean bench
all: $(BUILD)/sonde

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

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

FUZZ_TIME ?= 60
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
fuzz:
	@$(MAKE) --no-print-directory -f tests/fuzz/fuzz.mk FUZZ_TIME=$(FUZZ_TIME)

bench: all
	@bench/run.sh
	@bench/stacks.sh >>bench/RESULTS.md
	@bench/bigmap.sh >>bench/RESULTS.md

clean:
	rm -rf build build-asan build-fuzz

-include $(LIB_OBJS:.o=.d) $(BUILD)/src/main.d

# libFuzzer targets, built with clang and ASan+UBSan into build-fuzz/.
# Usage (from the top of the tree): make fuzz [FUZZ_TIME=60], make fuzz-long
#   make -f tests/fuzz/fuzz.mk [FUZZ_TIME=secs] [FUZZ_TARGETS=fuzz_parse]
# Every tests/fuzz/fuzz_*.c is a target linked with all of src/ but
# src/main.c; FUZZ_TIME is the total, each target runs for its share:
#   fuzz_parse    lexer and parser
#   fuzz_compile  parse -> probes -> sema -> codegen -> backend; a program
#                 sema accepts that does not compile is a failure
#   fuzz_verify   the same, then BPF_PROG_LOAD of every program (root; no
#                 attach); a verifier rejection is a failure
# Each prints its executions (stat::number_of_executed_units); the figures
# of long runs are in bench/FUZZ.md.
# The corpus lives in build-fuzz/corpus/TARGET, seeded with the repo's .bt
# files and Debian's bpftrace tools; it grows across runs and the repo is
# never written. A crash, sanitizer report, leak or hang (FUZZ_HANG s on one input)
# fails the run and leaves the input in build-fuzz/artifacts/; reproduce it
# with build-fuzz/TARGET build-fuzz/artifacts/FILE.

FCC       := clang
FBUILD    ?= build-fuzz
FUZZ_TIME ?= 60
PKGS      := libbpf libelf zlib libdw libprotobuf-c
# FSAN= (empty; with FBUILD=build-fuzz-fast) builds without ASan/UBSan, for
# throughput: several times the executions per second; crashes, aborts
# and verifier rejections are still caught, memory errors are not.
FSAN      ?= ,address,undefined
FCFLAGS   := -fsanitize=fuzzer$(FSAN) -fno-sanitize-recover=undefined \
	-g -O1 -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Isrc -I$(FBUILD)/gen \
	$(shell pkg-config --cflags $(PKGS))
FLIBS     := $(shell pkg-config --libs $(PKGS)) -liberty

LIB_SRCS  := $(filter-out src/main.c,$(shell find src -name '*.c' | sort))
# profile.proto's code, generated as the Makefile does
LIB_OBJS  := $(LIB_SRCS:%.c=$(FBUILD)/%.o) $(FBUILD)/gen/profile.pb-c.o
FUZZ_TARGETS ?= $(patsubst tests/fuzz/%.c,%,$(sort $(wildcard tests/fuzz/fuzz_*.c)))
# A hang is an input taking longer than FUZZ_HANG s. The first input that
# expands a kernel-wide wildcard reads kallsyms (kept for the rest of the
# run), which took 15 s under ASan when every such input read it, and a
# tracer attaching elsewhere holds tracefs for seconds (bench/FUZZ.md saw
# one input take 47 s under ASan on a busy machine).
FUZZ_HANG ?= 60
# The hostile seeds (tests/fuzz/seeds) are first run one by one, each
# within FUZZ_SEED_HANG s: under ASan they take at most 2 s (three nested
# unrolls, refused at 4M instructions), where before the back end was
# linear hostile_literals.bt took 9 s natively (about 30 under ASan) and
# hostile_unroll_nested.bt 1.1 GB; a return of that fails the run.
FUZZ_SEED_HANG ?= 10
FUZZ_SHARE := $(shell expr $(FUZZ_TIME) / $(words $(FUZZ_TARGETS)))
DICT      := tests/fuzz/bpftrace.dict
# tests/fuzz/seeds: hostile shapes within -max_len (deep straight-line
# code, unrolls nested into 10k statements, big and many string
# literals, values live across calls), which took seconds to minutes and
# a gigabyte before the back end was made linear; FUZZ_SEED_HANG catches
# their return.
HOSTILE   := $(wildcard tests/fuzz/seeds/*.bt)
SEEDS     := $(wildcard tests/golden/ast/*.bt tests/golden/bpf/*.bt tests/errors/*.bt tools/*.bt /usr/sbin/*.bt) $(HOSTILE)

# run-TARGET is phony; a static pattern rule, since make skips implicit
# rule search for phony targets.
.PHONY: run build $(FUZZ_TARGETS:%=run-%)
run: $(FUZZ_TARGETS:%=run-%)
build: $(FUZZ_TARGETS:%=$(FBUILD)/%)

# Keep the objects make would see as intermediate.
.SECONDARY:

$(FBUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(FCC) $(FCFLAGS) -MMD -MP -c $< -o $@

$(FBUILD)/gen/profile.pb-c.c $(FBUILD)/gen/profile.pb-c.h &: src/runtime/profile.proto
	@mkdir -p $(FBUILD)/gen
	protoc-c --proto_path=src/runtime --c_out=$(FBUILD)/gen profile.proto

$(FBUILD)/gen/profile.pb-c.o: $(FBUILD)/gen/profile.pb-c.c
	$(FCC) $(FCFLAGS) -c $< -o $@

$(FBUILD)/src/runtime/pprof_enc.o: $(FBUILD)/gen/profile.pb-c.h

$(FBUILD)/fuzz_%: $(FBUILD)/tests/fuzz/fuzz_%.o $(LIB_OBJS)
	$(FCC) $(FCFLAGS) -o $@ $^ $(FLIBS)

# libFuzzer's own output is long: it goes to a log, whose tail is shown on
# failure.
$(FUZZ_TARGETS:%=run-%): run-%: $(FBUILD)/%
	@mkdir -p $(FBUILD)/corpus/$* $(FBUILD)/artifacts
	@for f in $(SEEDS); do cp -f "$$f" "$(FBUILD)/corpus/$*/seed-$$(echo "$$f" | tr / _)"; done
	@for f in $(HOSTILE); do \
		if ! timeout -k 5 $(FUZZ_SEED_HANG) $(FBUILD)/$* "$$f" >$(FBUILD)/$*.seed.log 2>&1; then \
			tail -n 30 $(FBUILD)/$*.seed.log; \
			echo "fuzz $*: FAILED on $$f (a crash, or over $(FUZZ_SEED_HANG) s)"; \
			exit 1; \
		fi; \
	done
	@echo "fuzz $*: $(FUZZ_SHARE) s, corpus $(FBUILD)/corpus/$*"
	@if ASAN_OPTIONS=detect_leaks=1:$${ASAN_OPTIONS:-} \
		$(FBUILD)/$* $(FBUILD)/corpus/$* -dict=$(DICT) -max_len=4096 \
			-max_total_time=$(FUZZ_SHARE) -timeout=$(FUZZ_HANG) -print_final_stats=1 \
			-artifact_prefix=$(FBUILD)/artifacts/ </dev/null >$(FBUILD)/$*.log 2>&1; then \
		grep -E 'stat::number_of_executed_units|stat::new_units_added' $(FBUILD)/$*.log | \
			sed 's/^/    /'; \
		echo "fuzz $*: no crash"; \
	else \
		tail -n 60 $(FBUILD)/$*.log; \
		echo "fuzz $*: FAILED (log: $(FBUILD)/$*.log; input in $(FBUILD)/artifacts/)"; \
		exit 1; \
	fi

-include $(LIB_OBJS:.o=.d) $(FUZZ_TARGETS:%=$(FBUILD)/tests/fuzz/%.d)

# libFuzzer targets, built with clang and ASan+UBSan into build-fuzz/.
# Usage (from the top of the tree): make fuzz [FUZZ_TIME=60], make fuzz-long
#   make -f tests/fuzz/fuzz.mk [FUZZ_TIME=secs] [FUZZ_RUNS=n] [FUZZ_TARGETS=fuzz_parse]
# Every tests/fuzz/fuzz_*.c is a target linked with all of src/ but
# src/main.c; FUZZ_TIME is the total, each target runs for its share, or
# with FUZZ_RUNS each runs that many inputs (make fuzz-long: 1,000,000):
#   Scripts (seeds: the repo's .bt files; the bpftrace dictionary):
#   fuzz_parse    lexer and parser
#   fuzz_frontend the front end as main.c runs it: imports, config,
#                 macros, #include and C macros, probes, sema
#   fuzz_compile  parse -> probes -> sema -> codegen -> backend; a program
#                 sema accepts that does not compile is a failure
#   fuzz_verify   the same, then BPF_PROG_LOAD of every program (root; no
#                 attach); a verifier rejection is a failure
#   Data from outside (seeds: tests/fuzz/seeds/TARGET/ and the files made
#   below in build-fuzz/seeds/TARGET/):
#   fuzz_printers program + record bytes -> events, print(), maps at exit
#                 (text and JSON), hist, tseries, metrics
#   fuzz_elf      ELF symbols, x86 decoding, USDT notes, DWARF, lines
#   fuzz_zip      ZIP archives (uprobes on APK libraries)
#   fuzz_tracefs_format  tracepoint format files
#   fuzz_kallsyms /proc/kallsyms and available_filter_functions
#   fuzz_sonde_section   --emit-elf objects: .sonde section and programs
#   fuzz_verifier_log    the verifier's log read for a refusal's reason
#   fuzz_http     --metrics and /debug/pprof/profile request handling
# Each prints its executions (stat::number_of_executed_units); the figures
# of long runs are in bench/FUZZ.md.
# The corpus lives in build-fuzz/corpus/TARGET; it grows across runs and
# the repo is never written. A crash, sanitizer report, leak or hang
# (FUZZ_HANG s on one input) fails the run and leaves the input in
# build-fuzz/artifacts/; reproduce it with build-fuzz/TARGET
# build-fuzz/artifacts/FILE.

.DEFAULT_GOAL := run
FCC       := clang
FBUILD    ?= build-fuzz
FUZZ_TIME ?= 60
PKGS      := libbpf libelf zlib libdw libprotobuf-c
# libmicrohttpd (dlopen'd by the tool) gives fuzz_http its types, as the
# Makefile builds --metrics; without it the servers are stubs.
MHD_CFLAGS := $(shell pkg-config --exists libmicrohttpd 2>/dev/null && \
	echo "$$(pkg-config --cflags libmicrohttpd) -DSONDE_HAVE_MHD")
# FSAN= (empty; with FBUILD=build-fuzz-fast) builds without ASan/UBSan, for
# throughput: several times the executions per second; crashes, aborts
# and verifier rejections are still caught, memory errors are not.
FSAN      ?= ,address,undefined
FCFLAGS   := -fsanitize=fuzzer$(FSAN) -fno-sanitize-recover=undefined \
	-g -O1 -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Isrc -I$(FBUILD)/gen \
	$(shell pkg-config --cflags $(PKGS)) $(MHD_CFLAGS)
FLIBS     := $(shell pkg-config --libs $(PKGS)) -liberty -ldl

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
# FUZZ_RUNS (make fuzz-long) runs each target to that many inputs,
# however long it takes; else each runs for its share of FUZZ_TIME.
FUZZ_RUNS ?=
FUZZ_LIMIT = $(if $(FUZZ_RUNS),-runs=$(FUZZ_RUNS),-max_total_time=$(FUZZ_SHARE))
DICT      := tests/fuzz/bpftrace.dict
# tests/fuzz/seeds: hostile shapes within -max_len (deep straight-line
# code, unrolls nested into 10k statements, big and many string
# literals, values live across calls), which took seconds to minutes and
# a gigabyte before the back end was made linear; FUZZ_SEED_HANG catches
# their return.
HOSTILE   := $(wildcard tests/fuzz/seeds/*.bt)
SEEDS     := $(wildcard tests/golden/ast/*.bt tests/golden/bpf/*.bt tests/errors/*.bt tools/*.bt /usr/sbin/*.bt) $(HOSTILE)

# The targets whose input is a script: the .bt seeds, the dictionary,
# the hostile seeds first, inputs up to 4 KB. The others take their own
# seeds, and the dictionary tests/fuzz/TARGET.dict where there is one.
SCRIPT_TARGETS := fuzz_parse fuzz_frontend fuzz_compile fuzz_verify
is_script = $(filter $(1),$(SCRIPT_TARGETS))
seeds_of  = $(if $(call is_script,$(1)),$(SEEDS),$(wildcard tests/fuzz/seeds/$(1)/*))
dict_of   = $(if $(call is_script,$(1)),-dict=$(DICT),$(if $(wildcard tests/fuzz/$(1).dict),-dict=tests/fuzz/$(1).dict))
hostile_of = $(if $(call is_script,$(1)),$(HOSTILE))
# ELF files and archives hold tens of KB; the text inputs are small.
MAX_LEN_fuzz_elf := 65536
MAX_LEN_fuzz_zip := 65536
MAX_LEN_fuzz_sonde_section := 32768
MAX_LEN_fuzz_kallsyms := 16384
MAX_LEN_fuzz_verifier_log := 16384
max_len_of = $(or $(MAX_LEN_$(1)),4096)

# Seeds made at build time from the repo's sources and this machine's
# files (they are not committed: binaries, and files of this kernel).
GEN       := $(FBUILD)/seeds
$(GEN)/fuzz_elf/.made: tests/fuzz/elf_seed.c
	@mkdir -p $(dir $@)
	gcc -g -O1 -o $(dir $@)elf_seed $<
	gcc -g -O2 -fPIC -shared -o $(dir $@)libseed.so $<
	gcc -g -O1 -gdwarf-4 -o $(dir $@)elf_seed_dwarf4 $<
	@# its .dwo stays beside it, where the skeleton unit names it (and is
	@# a seed too)
	cd $(dir $@) && gcc -g -O1 -gsplit-dwarf -o elf_seed_split $(CURDIR)/$<
	gcc -O1 -o $(dir $@)elf_seed_nodebug $< && strip $(dir $@)elf_seed_nodebug
	@touch $@
$(GEN)/fuzz_zip/.made: $(GEN)/fuzz_elf/.made
	@mkdir -p $(dir $@) $(dir $@)tmp/lib/x86_64
	cp $(GEN)/fuzz_elf/elf_seed $(dir $@)tmp/elf_seed
	cp $(GEN)/fuzz_elf/libseed.so $(dir $@)tmp/lib/x86_64/libseed.so
	@# zip(1) is not among scripts/deps.sh's packages: without it the
	@# committed seed (tests/fuzz/seeds/fuzz_zip) is the only one
	-cd $(dir $@)tmp && rm -f ../*.zip && zip -q -0 ../stored.zip elf_seed lib/x86_64/libseed.so && \
		zip -q -9 ../deflated.zip elf_seed && zip -q -0 -z ../comment.zip elf_seed </dev/null
	for z in $(dir $@)*.zip; do [ -f "$$z" ] || continue; { printf '\001'; cat "$$z"; } >"$$z.in" && rm "$$z"; done
	rm -rf $(dir $@)tmp
	@touch $@
# The format files of a few events of each kind (data_loc strings,
# arrays, pointers, signed fields); whatever this kernel has of them.
TP_EVENTS := sched/sched_switch sched/sched_process_exec syscalls/sys_enter_openat \
	syscalls/sys_exit_read irq/irq_handler_entry block/block_rq_issue \
	skb/kfree_skb net/netif_receive_skb signal/signal_generate task/task_rename \
	kmem/kmalloc writeback/writeback_dirty_inode
$(GEN)/fuzz_tracefs_format/.made:
	@mkdir -p $(dir $@)
	-@for e in $(TP_EVENTS); do \
		cp /sys/kernel/tracing/events/$$e/format $(dir $@)$$(echo $$e | tr / _) 2>/dev/null; \
	done; true
	@touch $@
# kallsyms' first, last and module lines, and traceable functions: a
# flag byte, kallsyms text, NUL, traceable text.
$(GEN)/fuzz_kallsyms/.made:
	@mkdir -p $(dir $@)
	-@{ printf '\000'; head -n 150 /proc/kallsyms; grep -m 100 '\[' /proc/kallsyms; \
		printf '\000'; head -n 100 /sys/kernel/tracing/available_filter_functions; \
		grep -m 50 '\[' /sys/kernel/tracing/available_filter_functions; } \
		>$(dir $@)kallsyms_filter 2>/dev/null; \
	{ printf '\001'; tail -n 200 /proc/kallsyms; printf '\000'; head -n 300 /proc/kallsyms; } \
		>$(dir $@)kallsyms_syms 2>/dev/null; true
	@touch $@
# fuzz_printers' inputs: each program of tests/fuzz/printers/ compiled,
# followed by records for each of its events and maps (the target
# writes them: see fuzz_printers.c).
$(GEN)/fuzz_printers/.made: $(FBUILD)/fuzz_printers $(wildcard tests/fuzz/printers/*.bt)
	@mkdir -p $(dir $@)
	FUZZ_PRINTERS_SEEDS=$(dir $@) $(FBUILD)/fuzz_printers -runs=0 \
		$(wildcard tests/fuzz/printers/*.bt) >$(dir $@)log 2>&1 || { cat $(dir $@)log; exit 1; }
	@touch $@
gen_of = $(if $(filter fuzz_elf fuzz_zip fuzz_tracefs_format fuzz_kallsyms fuzz_printers,$(1)),$(GEN)/$(1)/.made)

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
.SECONDEXPANSION:
$(FUZZ_TARGETS:%=run-%): run-%: $(FBUILD)/% $$(call gen_of,$$*)
	@mkdir -p $(FBUILD)/corpus/$* $(FBUILD)/artifacts
	@for f in $(call seeds_of,$*); do cp -f "$$f" "$(FBUILD)/corpus/$*/seed-$$(echo "$$f" | tr / _)"; done
	@if [ -d $(GEN)/$* ]; then for f in $(GEN)/$*/*; do \
		case $$f in */log) continue;; esac; \
		cp -f "$$f" "$(FBUILD)/corpus/$*/gen-$$(basename "$$f")"; done; fi
	@for f in $(call hostile_of,$*); do \
		if ! timeout -k 5 $(FUZZ_SEED_HANG) $(FBUILD)/$* "$$f" >$(FBUILD)/$*.seed.log 2>&1; then \
			tail -n 30 $(FBUILD)/$*.seed.log; \
			echo "fuzz $*: FAILED on $$f (a crash, or over $(FUZZ_SEED_HANG) s)"; \
			exit 1; \
		fi; \
	done
	@echo "fuzz $*: $(if $(FUZZ_RUNS),$(FUZZ_RUNS) runs,$(FUZZ_SHARE) s), corpus $(FBUILD)/corpus/$*"
	@if ASAN_OPTIONS=detect_leaks=1:$${ASAN_OPTIONS:-} \
		$(FBUILD)/$* $(FBUILD)/corpus/$* $(call dict_of,$*) -max_len=$(call max_len_of,$*) \
			$(FUZZ_LIMIT) -timeout=$(FUZZ_HANG) -print_final_stats=1 \
			-artifact_prefix=$(FBUILD)/artifacts/ </dev/null >$(FBUILD)/$*.log 2>&1; then \
		grep -E 'stat::number_of_executed_units|stat::average_exec_per_sec|stat::new_units_added' $(FBUILD)/$*.log | \
			sed 's/^/    /'; \
		echo "    corpus: $$(ls $(FBUILD)/corpus/$* | wc -l) files"; \
		echo "fuzz $*: no crash"; \
	else \
		tail -n 60 $(FBUILD)/$*.log; \
		echo "fuzz $*: FAILED (log: $(FBUILD)/$*.log; input in $(FBUILD)/artifacts/)"; \
		exit 1; \
	fi

STDLIB_BUILD := $(FBUILD)
include src/stdlib/stdlib.mk
-include $(LIB_OBJS:.o=.d) $(FUZZ_TARGETS:%=$(FBUILD)/tests/fuzz/%.d)

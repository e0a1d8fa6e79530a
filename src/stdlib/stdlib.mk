# The standard library written in the language (src/stdlib/base.bt, as
# bpftrace's src/stdlib/base.bt), compiled into sonde: embed.sh turns it
# into a C string and the sorted names of its macros, which lang/macro.c
# includes. Included by the Makefile with STDLIB_BUILD unset (it is then
# $(BUILD)), and by any other makefile with STDLIB_BUILD set to its build
# directory (tests/fuzz/fuzz.mk: $(FBUILD)).
STDLIB_BUILD ?= $(BUILD)
STDLIB_BT := src/stdlib/base.bt

$(STDLIB_BUILD)/gen/stdlib_prelude.inc: $(STDLIB_BT) src/stdlib/embed.sh
	@mkdir -p $(dir $@)
	sh src/stdlib/embed.sh $(STDLIB_BT) >$@.tmp && mv $@.tmp $@

# the one user of the generated text
$(STDLIB_BUILD)/src/lang/macro.o: $(STDLIB_BUILD)/gen/stdlib_prelude.inc

# Included by the Makefile.
#
#   make arm64    $(BUILD)/arm64/sonde: sonde for aarch64 (arm64) Linux, one
#                 statically linked executable as `make static`'s, built on
#                 this (x86-64) machine by Debian's cross compiler
#                 (gcc-aarch64-linux-gnu, which brings arm64's glibc and
#                 kernel headers: libc6-dev-arm64-cross).
#
# The other libraries are Debian 12's own arm64 builds: the arm64 -dev
# packages (each ships its static library, .h and .pc files), fetched with
# `apt-get download` through an apt configuration and state of its own in
# $(BUILD)/arm64/apt (architecture arm64; the deb lines of this machine's
# apt sources, so the same signed archive) and unpacked with dpkg-deb -x
# into the sysroot $(BUILD)/arm64/sysroot. Nothing of the machine's dpkg or
# apt setup is read for state or written (no dpkg --add-architecture).
# libmicrohttpd is static.mk's: Debian's source, unpacked again here and
# configured --host=aarch64-linux-gnu, without HTTPS (static.mk says why).
#
# Objects go in $(BUILD)/arm64/src (never beside the x86 ones). The two
# generated sources are architecture-independent and shared with the x86
# build: $(BUILD)/gen/profile.pb-c.[ch] (protoc-c runs on this machine) and
# the embedded stdlib text.

A64_DIR     := $(BUILD)/arm64
A64_BIN     := $(A64_DIR)/sonde
A64_CC      ?= aarch64-linux-gnu-gcc
A64_TRIPLET := aarch64-linux-gnu
A64_SYSROOT := $(abspath $(A64_DIR)/sysroot)
A64_APT     := $(abspath $(A64_DIR)/apt)
A64_DEBDIR  := $(abspath $(A64_DIR)/debs)
A64_APTLOG  := $(abspath $(A64_DIR)/apt.log)
# the static libraries' packages: libbpf, libelf and libdw (elfutils),
# zlib, liblzma and libbz2 (libdw's compressed sections), libprotobuf-c,
# libiberty (cplus_demangle)
A64_DEBS    := libbpf-dev libelf-dev libdw-dev zlib1g-dev liblzma-dev \
	libbz2-dev libprotobuf-c-dev libiberty-dev
A64_STAMP   := $(A64_SYSROOT)/.unpacked
A64_APT_GET  = apt-get -q -o APT::Architecture=arm64 -o APT::Architectures::=arm64 \
	-o Dir::Etc::SourceList=$(A64_APT)/sources.list \
	-o Dir::Etc::SourceParts=$(A64_APT)/sources.list.d \
	-o Dir::State=$(A64_APT)/state -o Dir::State::status=$(A64_APT)/state/status \
	-o Dir::Cache=$(A64_APT)/cache \
	-o Debug::NoLocking=1 $(if $(filter 0,$(shell id -u)),-o APT::Sandbox::User=root)
A64_MHD_DIR := $(abspath $(A64_DIR)/mhd)
A64_MHD_A   := $(A64_MHD_DIR)/inst/lib/libmicrohttpd.a
# pkg-config of the sysroot's .pc files, their paths inside the sysroot
A64_PKGCONFIG = PKG_CONFIG_SYSROOT_DIR=$(A64_SYSROOT) \
	PKG_CONFIG_LIBDIR=$(A64_SYSROOT)/usr/lib/$(A64_TRIPLET)/pkgconfig:$(A64_SYSROOT)/usr/share/pkgconfig \
	pkg-config
A64_CFLAGS  := -std=gnu11 -pthread $(WARN) $(OPT) -Isrc -I$(BUILD)/gen \
	-isystem $(A64_SYSROOT)/usr/include -isystem $(A64_SYSROOT)/usr/include/$(A64_TRIPLET) \
	-I$(A64_MHD_DIR)/inst/include -DSONDE_HAVE_MHD $(CFLAGS) -MMD -MP
A64_LIBS     = -L$(A64_MHD_DIR)/inst/lib -lmicrohttpd \
	-L$(A64_SYSROOT)/usr/lib/$(A64_TRIPLET) \
	$(shell $(A64_PKGCONFIG) --static --libs $(PKGS) 2>/dev/null) -liberty -pthread
A64_LIB_OBJS := $(LIB_SRCS:%.c=$(A64_DIR)/%.o) $(A64_DIR)/gen/profile.pb-c.o

.PHONY: arm64

arm64: $(A64_BIN)

# The arm64 packages, downloaded (kept in $(A64_DEBDIR): a second sysroot
# needs no network) and unpacked.
$(A64_STAMP): arm64.mk
	@command -v $(A64_CC) >/dev/null || { echo "make arm64: $(A64_CC) is missing (scripts/deps.sh installs gcc-aarch64-linux-gnu)" >&2; exit 1; }
	@mkdir -p $(A64_DEBDIR)
	@if ! ls $(A64_DEBDIR)/*.deb >/dev/null 2>&1; then \
		rm -rf $(A64_APT) && mkdir -p $(A64_APT)/state/lists/partial \
			$(A64_APT)/cache/archives/partial $(A64_APT)/sources.list.d && \
		touch $(A64_APT)/state/status && \
		cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | \
			sed -n 's/^[[:space:]]*deb[[:space:]]/deb /p' >$(A64_APT)/sources.list && \
		for f in /etc/apt/sources.list.d/*.sources; do \
			[ -f "$$f" ] && cp "$$f" $(A64_APT)/sources.list.d/; \
		done; \
		$(A64_APT_GET) update >$(A64_APTLOG) 2>&1 && \
		cd $(A64_DEBDIR) && $(A64_APT_GET) download $(addsuffix :arm64,$(A64_DEBS)) >>$(A64_APTLOG) 2>&1 || \
			{ tail -20 $(A64_APTLOG) >&2; rm -f $(A64_DEBDIR)/*.deb; exit 1; }; \
	fi
	rm -rf $(A64_SYSROOT) && mkdir -p $(A64_SYSROOT)
	for d in $(A64_DEBDIR)/*.deb; do dpkg-deb -x "$$d" $(A64_SYSROOT) || exit 1; done
	@touch $@

# libmicrohttpd: static.mk's source package, unpacked again (static.mk
# configures its copy in place) and built by static.mk's recipe.
$(A64_MHD_DIR)/src/configure: $(MHD_DIR)/src/configure
	@rm -rf $(A64_MHD_DIR) && mkdir -p $(A64_MHD_DIR)
	dpkg-source -x $(or $(MHD_DSC),$(wildcard $(MHD_DIR)/dl/libmicrohttpd_*.dsc)) $(A64_MHD_DIR)/src >$(A64_MHD_DIR)/apt.log 2>&1
	@touch $@

$(A64_MHD_A): $(A64_MHD_DIR)/src/configure
	$(call mhd_build,$(A64_MHD_DIR),$(A64_CC),arm64,--host=$(A64_TRIPLET))

$(A64_DIR)/src/%.o: src/%.c | $(A64_STAMP) $(A64_MHD_A)
	@mkdir -p $(dir $@)
	$(A64_CC) $(A64_CFLAGS) -c $< -o $@

$(A64_DIR)/src/tools/toolfind.o: A64_CFLAGS += -DSONDE_TOOLDIR='"$(PREFIX)/share/sonde/tools"'
$(A64_DIR)/src/runtime/pprof_enc.o: $(PROTO_C:.c=.h)
$(A64_DIR)/src/lang/macro.o: $(BUILD)/gen/stdlib_prelude.inc

$(A64_DIR)/gen/profile.pb-c.o: $(PROTO_C) | $(A64_STAMP)
	@mkdir -p $(dir $@)
	$(A64_CC) $(A64_CFLAGS) -c $< -o $@

$(A64_DIR)/libsonde.a: $(A64_LIB_OBJS)
	@rm -f $@
	$(A64_TRIPLET)-ar rcs $@ $^

$(A64_DIR)/static_glue.o: packaging/static_glue.c $(A64_MHD_A) | $(A64_STAMP)
	$(A64_CC) $(A64_CFLAGS) -c $< -o $@

# Linked beside and renamed: an arm64 guest may be running the previous
# one (tests/vm reads it over 9p).
$(A64_BIN): $(A64_DIR)/src/main.o $(A64_DIR)/static_glue.o $(A64_DIR)/libsonde.a $(A64_MHD_A)
	$(A64_CC) -static -o $@.tmp $(A64_DIR)/src/main.o $(A64_DIR)/static_glue.o \
		$(A64_DIR)/libsonde.a $(A64_LIBS) 2>$(A64_DIR)/link.log || \
		{ cat $(A64_DIR)/link.log >&2; exit 1; }
	@# as make static: a dlopen warning means a member that loads shared objects
	@if grep -q "Using 'dlopen'" $(A64_DIR)/link.log; then \
		cat $(A64_DIR)/link.log >&2; rm -f $@.tmp; \
		echo "make arm64: a linked member calls dlopen (above)" >&2; exit 1; fi
	mv -f $@.tmp $@

-include $(A64_LIB_OBJS:.o=.d) $(A64_DIR)/src/main.d

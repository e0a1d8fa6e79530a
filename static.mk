# Included by the Makefile. Two ways to ship sonde (docs/build.md):
#
#   make static   $(BUILD)/sonde-static: one statically linked executable
#                 (libbpf, libelf, libdw, zlib, liblzma, libbz2,
#                 libprotobuf-c, libmicrohttpd, libiberty, glibc) that runs
#                 on any x86-64 Linux with BPF, in an empty root too.
#   make deb      $(BUILD)/sonde_VERSION_ARCH.deb, built by Debian's tools
#                 (dpkg-buildpackage, debian/) in a copy of the tree under
#                 $(BUILD)/deb, so that its `debian/rules clean` (make
#                 clean) never touches this tree's build directories.
#
# The static executable is the dynamic one's objects ($(BUILD)/libsonde.a,
# $(BUILD)/src/main.o: the same code, not a second compilation) linked
# with -static, plus static_glue.o (below). Debian ships every library as
# a .a in its -dev package but one: libmicrohttpd-dev's libmicrohttpd.a is
# built with HTTPS, so it needs gnutls, whose chain (p11-kit) has no static
# library. So libmicrohttpd is built here from Debian's own source package
# (the version of the installed libmicrohttpd-dev, so the header the
# objects were compiled with is its header) without HTTPS, digest/basic
# auth, the POST processor or HTTP upgrade, none of which --metrics uses.
# The source comes through apt-get source, from deb-src twins of this
# machine's apt sources kept in $(BUILD)/static/apt (the machine's apt
# configuration is not changed), so it is Debian's signed source: no other
# network. MHD_DSC=path/to/libmicrohttpd_*.dsc uses a source package at
# hand instead.

STATIC_DIR  := $(BUILD)/static
STATIC_BIN  := $(BUILD)/sonde-static
MHD_DIR     := $(abspath $(STATIC_DIR)/mhd)
MHD_A       := $(MHD_DIR)/inst/lib/libmicrohttpd.a
MHD_INC     := $(MHD_DIR)/inst/include
MHD_APT     := $(abspath $(STATIC_DIR)/apt)
MHD_DSC     ?=
MHD_VERSION  = $(shell dpkg-query -W -f='$${Version}' libmicrohttpd-dev 2>/dev/null)
# apt-get with its own source list, lists and cache (nothing of /etc/apt
# or /var/lib/apt is written, and no lock taken)
MHD_APT_GET  = apt-get -q -o Dir::Etc::SourceList=$(MHD_APT)/sources.list \
	-o Dir::Etc::SourceParts=$(MHD_APT)/sources.list.d \
	-o Dir::State::Lists=$(MHD_APT)/lists -o Dir::Cache=$(MHD_APT)/cache \
	-o Debug::NoLocking=1 $(if $(filter 0,$(shell id -u)),-o APT::Sandbox::User=root)
MHD_CONFIGURE := --disable-shared --enable-static --with-pic=no \
	--disable-https --without-gnutls --disable-dauth --disable-bauth \
	--disable-postprocessor --disable-httpupgrade --disable-doc \
	--disable-examples --disable-curl --disable-nls \
	--disable-dependency-tracking
# the libraries' own static dependencies (libdw: liblzma, libbz2; and
# libzstd where elfutils is built with it) as their pkg-config files say
STATIC_LIBS  = -L$(dir $(MHD_A)) -lmicrohttpd \
	$(shell pkg-config --static --libs $(PKGS)) -liberty -pthread

.PHONY: static deb

static: $(STATIC_BIN)

# Debian's source package, unpacked (with Debian's patches applied)
$(MHD_DIR)/src/configure:
	@rm -rf $(MHD_DIR)/src $(MHD_DIR)/dl && mkdir -p $(MHD_DIR)/dl
ifeq ($(MHD_DSC),)
	@test -n "$(MHD_VERSION)" || { echo "make static: libmicrohttpd-dev is not installed (scripts/deps.sh installs it)" >&2; exit 1; }
	@rm -rf $(MHD_APT) && mkdir -p $(MHD_APT)/lists/partial \
		$(MHD_APT)/cache/archives/partial $(MHD_APT)/sources.list.d
	@# deb-src twins of the deb lines (one-line and deb822 formats)
	@cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | \
		sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' >$(MHD_APT)/sources.list
	@for f in /etc/apt/sources.list.d/*.sources; do \
		[ -f "$$f" ] && sed 's/^Types:.*/Types: deb-src/' "$$f" >$(MHD_APT)/sources.list.d/$${f##*/}; \
	done; true
	$(MHD_APT_GET) update >$(MHD_DIR)/apt.log 2>&1 || { tail -20 $(MHD_DIR)/apt.log >&2; exit 1; }
	cd $(MHD_DIR)/dl && $(MHD_APT_GET) source --download-only libmicrohttpd=$(MHD_VERSION) >>$(MHD_DIR)/apt.log 2>&1 || \
		{ tail -20 $(MHD_DIR)/apt.log >&2; exit 1; }
	dpkg-source -x $(MHD_DIR)/dl/libmicrohttpd_*.dsc $(MHD_DIR)/src >>$(MHD_DIR)/apt.log 2>&1
else
	dpkg-source -x $(MHD_DSC) $(MHD_DIR)/src >$(MHD_DIR)/apt.log 2>&1
endif
	@touch $@

# $(call mhd_build,DIR,CC,DEBIAN_ARCH,CONFIGURE_ARGS): libmicrohttpd.a
# and its header into DIR/inst, from the source unpacked in DIR/src, with
# Debian's own compiler flags for that architecture (hardening: it serves
# the network). arm64.mk builds its own with it.
define mhd_build
	cd $(1)/src && ./configure -q CC="$(2)" \
		CFLAGS="$$(DEB_HOST_ARCH=$(3) dpkg-buildflags --get CFLAGS)" \
		CPPFLAGS="$$(DEB_HOST_ARCH=$(3) dpkg-buildflags --get CPPFLAGS)" \
		--prefix=$(1)/inst $(MHD_CONFIGURE) $(4) >../configure.log 2>&1 || \
		{ tail -20 ../configure.log >&2; exit 1; }
	$(MAKE) -s -C $(1)/src/src/microhttpd install >$(1)/make.log 2>&1 || \
		{ tail -20 $(1)/make.log >&2; exit 1; }
	$(MAKE) -s -C $(1)/src/src/include install >>$(1)/make.log 2>&1
	@touch $@
endef

$(MHD_A): $(MHD_DIR)/src/configure
	$(call mhd_build,$(MHD_DIR),$(CC),$(DEB_ARCH))

# What a static executable needs that the dynamic one does not:
# packaging/static_glue.c (its comment says what and why).

$(STATIC_DIR)/static_glue.o: packaging/static_glue.c $(MHD_A)
	@mkdir -p $(dir $@)
	$(CC) -I$(MHD_INC) $(ALL_CFLAGS) -c $< -o $@

# Refused without libmicrohttpd's header: the objects would have no
# --metrics (the dynamic build's choice, not the static one's).
$(STATIC_BIN): $(BUILD)/src/main.o $(STATIC_DIR)/static_glue.o $(BUILD)/libsonde.a $(MHD_A)
	@case "$(PKG_CFLAGS)" in *SONDE_HAVE_MHD*) ;; *) \
		echo "make static: libmicrohttpd-dev is not installed (scripts/deps.sh installs it)" >&2; exit 1;; esac
	$(CC) -static -o $@ $(BUILD)/src/main.o $(STATIC_DIR)/static_glue.o \
		$(BUILD)/libsonde.a $(STATIC_LIBS) 2>$(STATIC_DIR)/link.log || \
		{ cat $(STATIC_DIR)/link.log >&2; exit 1; }
	@# glibc warns of getpwuid_r (answered by "files" alone, above); a
	@# dlopen warning means a library member that loads shared objects
	@if grep -q "Using 'dlopen'" $(STATIC_DIR)/link.log; then \
		cat $(STATIC_DIR)/link.log >&2; rm -f $@; \
		echo "make static: a linked member calls dlopen (above)" >&2; exit 1; fi

# The Debian package. VERSION is debian/changelog's, which must be
# SONDE_VERSION (src/driver/cli.h).
DEB_VERSION  = $(shell dpkg-parsechangelog -l debian/changelog -S Version 2>/dev/null)
DEB_ARCH     = $(shell dpkg --print-architecture 2>/dev/null)
DEB_SRC_VERSION = $(shell sed -n 's/^\#define SONDE_VERSION "\(.*\)"/\1/p' src/driver/cli.h)
DEB_JOBS    ?= 2
DEB_TREE     = Makefile static.mk arm64.mk README.md src tools docs completions debian

deb:
	@test "$(DEB_VERSION)" = "$(DEB_SRC_VERSION)" || { echo "make deb: debian/changelog's version '$(DEB_VERSION)' is not SONDE_VERSION '$(DEB_SRC_VERSION)'" >&2; exit 1; }
	rm -rf $(BUILD)/deb && mkdir -p $(BUILD)/deb/sonde-$(DEB_VERSION)
	tar cf - $(DEB_TREE) | tar xf - -C $(BUILD)/deb/sonde-$(DEB_VERSION)
	@# Neither MAKEFLAGS nor the Makefile's variables: this make's
	@# (BUILD=/abs/path, say, which make exports) must not reach the
	@# package's own make
	cd $(BUILD)/deb/sonde-$(DEB_VERSION) && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		-u BUILD -u PREFIX -u DESTDIR -u OPT -u SAN -u SANFLAGS -u CFLAGS \
		dpkg-buildpackage -b -us -uc -J$(DEB_JOBS) >../build.log 2>&1 || \
		{ tail -30 ../build.log >&2; exit 1; }
	cp $(BUILD)/deb/sonde_$(DEB_VERSION)_$(DEB_ARCH).deb $(BUILD)/
	@echo "$(BUILD)/sonde_$(DEB_VERSION)_$(DEB_ARCH).deb"

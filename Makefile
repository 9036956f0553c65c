# SPDX-License-Identifier: GPL-2.0
#
# DCB lab: `make` builds the kernel modules (against KDIR) and the
# userspace pieces (tc plugin, monitor).  See README.md.

# Kernel build dir: the running kernel's when it has one, otherwise the
# installed Debian 6.1 headers (the ones the VM guest boots).
DEB_KDIR := $(lastword $(sort $(wildcard /usr/src/linux-headers-6.1.*-amd64)))
RUN_KDIR := $(wildcard /lib/modules/$(shell uname -r)/build)

# Another kernel: `make modules KVER=6.12` (a series: the newest installed
# linux-headers-6.12.*-amd64, or a full release such as 6.12.117+deb12-amd64)
# builds sch_dcb, for that kernel, in $(BUILD_DIR)/<series>/sch_dcb (links
# to sch_dcb/), and rdma_rxe with the algorithms in
# $(BUILD_DIR)/<series>/rxe_cc (`make rxe KVER=6.12` alone), so the tree's
# own build stays the default kernel's.  KDIR=... given as well wins;
# `make sch_dcb-kernel KDIR=...` does the same for any kernel build dir.
ifeq ($(origin KVER),command line)
KVER_KDIR := $(shell ls -d /usr/src/linux-headers-$(KVER) /usr/src/linux-headers-$(KVER).*-amd64 \
	2>/dev/null | grep -Ev -- '-(cloud|rt)-amd64$$' | sort -V | tail -n1)
KVER_PKG := $(if $(findstring -,$(KVER)),linux-headers-$(KVER),linux-headers-$(KVER)-amd64)
KDIR ?= $(KVER_KDIR)
endif
KDIR ?= $(if $(RUN_KDIR),$(RUN_KDIR),$(DEB_KDIR))
# Exported only when known: the targets that install the dependencies
# (check, demo, ...) resolve KDIR before deps.sh has installed the
# headers, and their sub-makes must look again instead of inheriting
# an empty KDIR (unit/test_make_kdir).
ifneq ($(KDIR),)
export KDIR
else
unexport KDIR
endif

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
CC ?= gcc
USER_CFLAGS := -O2 -g -Wall -Wextra -Wno-unused-parameter -I$(TOP)/sch_dcb/uapi \
	       -I$(TOP)/include

DEPS_STAMP := /var/lib/dcblab/deps-v6

# KDIR's kernel series, X.Y (6.1, 6.12).
KSERIES = $(shell sed -n 's/^\#define LINUX_VERSION_\(MAJOR\|PATCHLEVEL\) //p' \
	$(KDIR)/include/generated/uapi/linux/version.h 2>/dev/null | paste -sd.)

# rdma_rxe with the rxe_cc engine: upstream rxe of KDIR's kernel (from
# linux-source-X.Y) + the series rxe_cc/patches/X.Y + rxe_cc/*.[ch], built
# in its own external-module directory (never committed): build/rxe_cc
# for the default kernel, build/X.Y/rxe_cc for KVER=X.Y.
BUILD_DIR := $(or $(DCBLAB_BUILD),$(TOP)/build)
ifeq ($(origin KVER),command line)
RXE_BUILD := $(BUILD_DIR)/$(KSERIES)/rxe_cc
else
RXE_BUILD := $(BUILD_DIR)/rxe_cc
endif
RXE_STAMP := $(RXE_BUILD)/.prepared
RXE_PATCHES = $(sort $(wildcard $(TOP)/rxe_cc/patches/$(KSERIES)/*.patch))

.PHONY: all modules sch_dcb-kernel rxe user tc tools py man deps depcheck check check-debug check-kcsan check-long check-unit check-vm \
	check-smoke \
	demo bench bench-clock bench-repro bench-rxe clean sparse checkpatch install uninstall dkms-source dkms-install \
	dkms-uninstall

# Plain `make` installs nothing: depcheck names the missing packages.  The
# targets that run the suite or the demo (check, demo, ...) install every
# dependency first (scripts/deps.sh, once: $(DEPS_STAMP)).
all: depcheck modules user man

$(DEPS_STAMP):
	bash $(TOP)/scripts/deps.sh

deps:
	bash $(TOP)/scripts/deps.sh

depcheck:
	@bash $(TOP)/scripts/deps.sh --check

# kbuild runs one compiler (and sparse) per file: on every CPU, unless
# make was given -j itself (its job server then applies; expanded in the
# recipe, where MAKEFLAGS names it)
NPROC := $(shell nproc)
KJOBS = $(if $(findstring jobserver,$(MAKEFLAGS)),,-j$(NPROC))

ifeq ($(origin KVER),command line)
modules: sch_dcb-kernel rxe
else
modules:
	@test -n "$(KDIR)" && test -d "$(KDIR)" || { \
	  echo "error: no kernel build dir (KDIR='$(KDIR)'); install linux-headers-amd64 or run 'make deps'" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(TOP) W=1 $(KJOBS) modules
	$(MAKE) rxe
endif

# sch_dcb alone for KDIR (or KVER), in $(BUILD_DIR)/<major.minor>/sch_dcb;
# with C=2 (make sch_dcb-kernel KVER=6.12 C=2) sparse checks it too.
DCB_KDIR_OUT = $(BUILD_DIR)/$(KSERIES)/sch_dcb

KDIR_CHECK = @test -n "$(KDIR)" && test -d "$(KDIR)" || { \
	  echo "error: no headers for kernel '$(KVER)' (KDIR='$(KDIR)'): apt-get install $(or $(KVER_PKG),linux-headers-amd64)" >&2; \
	  exit 1; }; \
	test -n "$(KSERIES)" || { echo "error: $(KDIR): no include/generated/uapi/linux/version.h" >&2; exit 1; }

sch_dcb-kernel:
	$(KDIR_CHECK)
	@mkdir -p $(DCB_KDIR_OUT)
	@find $(DCB_KDIR_OUT) -maxdepth 1 -type l -delete
	@ln -s $(filter-out %.mod.c,$(wildcard $(TOP)/sch_dcb/*.[ch])) $(TOP)/sch_dcb/Kbuild \
		$(TOP)/sch_dcb/uapi $(DCB_KDIR_OUT)/
	$(MAKE) -C $(KDIR) M=$(DCB_KDIR_OUT) W=1 $(if $(C),C=$(C)) $(KJOBS) modules
	@echo "sch_dcb for $$(sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' \
		$(KDIR)/include/generated/utsrelease.h): $(DCB_KDIR_OUT)/sch_dcb.ko"

# The directory as prerequisite: adding or removing one of our files
# re-links them; edits need no preparation.
# (the series' directory as prerequisite: a patch added or removed; so
# selftests/kmod/, the tests' modules built with rdma_rxe)
$(RXE_STAMP): $(RXE_PATCHES) $(TOP)/scripts/rxe_prepare.sh $(TOP)/rxe_cc \
		$(wildcard $(TOP)/rxe_cc/patches/$(KSERIES) $(TOP)/selftests/kmod)
	$(KDIR_CHECK)
	bash $(TOP)/scripts/rxe_prepare.sh $(KDIR) $(RXE_BUILD)
	touch $@

rxe: $(RXE_STAMP)
	$(MAKE) -C $(KDIR) M=$(RXE_BUILD) W=1 $(if $(C),C=$(C)) $(KJOBS) modules
	@echo "rdma_rxe for $$(sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' \
		$(KDIR)/include/generated/utsrelease.h): $(RXE_BUILD)/rdma_rxe.ko"

# With KVER, sch_dcb is checked in its own directory, as `modules` builds
# it: M=$(TOP) would leave a module for that kernel in sch_dcb/, where the
# default build and the guest tests take it from.
ifeq ($(origin KVER),command line)
SPARSE_DCB = $(MAKE) sch_dcb-kernel C=2
else
SPARSE_DCB = $(MAKE) -C $(KDIR) M=$(TOP) W=1 C=2 $(KJOBS) modules
endif
sparse: $(RXE_STAMP)
	$(SPARSE_DCB)
	$(MAKE) -C $(KDIR) M=$(RXE_BUILD) W=1 C=2 $(KJOBS) modules

checkpatch:
	bash $(TOP)/scripts/checkpatch.sh

user: tc tools py

tc:
	$(MAKE) -C $(TOP)/tc

tools:
	$(MAKE) -C $(TOP)/tools

# The uAPI's numbers for the Python tools (attribute numbers, statistics
# layout), generated from the header rather than typed again.
PY_UAPI := $(TOP)/scripts/dcbanalysis/uapi.py

py: $(PY_UAPI)

$(PY_UAPI): $(TOP)/scripts/gen_uapi.py $(TOP)/sch_dcb/uapi/pkt_sched_dcb.h \
		$(TOP)/include/dcb_stats_fields.h
	/usr/bin/python3 $(TOP)/scripts/gen_uapi.py -o $@

# Man pages from Documentation/man/*.rst (rst2man, python3-docutils).
MAN_SRC := $(wildcard $(TOP)/Documentation/man/*.rst)
MAN_OUT := $(patsubst $(TOP)/Documentation/man/%.rst,$(BUILD_DIR)/man/%,$(MAN_SRC))

man: $(MAN_OUT)

$(BUILD_DIR)/man/%: $(TOP)/Documentation/man/%.rst
	@command -v rst2man >/dev/null || { \
	  echo "man: rst2man not found: install python3-docutils (or run make deps)" >&2; exit 1; }
	@mkdir -p $(dir $@)
	rst2man --halt=warning $< $@

# make check KVER=6.12 (or check-long, check-smoke): the guest suite on
# another Debian kernel: `make all KVER=6.12` builds its modules in
# $(BUILD_DIR)/6.12 (and the tc plugin, tools, man pages), the tests load
# them in a guest of that kernel, their logs go to
# $(BUILD_DIR)/6.12/selftests.  The unit tests run with plain make check
# only: they do not depend on the guest kernel, and unit/test_10 builds
# the default kernel's rdma_rxe in $DCBLAB_BUILD/rxe_cc.
ifeq ($(origin KVER),command line)
CHECK_ENV = DCBLAB_BUILD=$(BUILD_DIR)/$(KSERIES) DCBLAB_DCB_KO=$(DCB_KDIR_OUT)/sch_dcb.ko \
	DCBLAB_KVER=$(KVER)
CHECK_ARGS := --guest-only
# what the KVER build is for, on the host: make install KVER=... into a
# staging tree (unit/test_install_kver, suite kver)
SMOKE_KVER_UNIT = DCBLAB_RESULTS=$(BUILD_DIR)/$(KSERIES)/selftests-host bash $(TOP)/selftests/run.sh --unit-only --filter '^unit/test_install_kver$$'
endif

# Plain make check builds the modules once, from scratch, with W=1 and
# sparse (C=2), and keeps kbuild's output in $(KBUILD_LOG):
# unit/test_10_kernel_style checks that log (DCBLAB_KBUILD_LOG) instead
# of compiling them all a second time.
KBUILD_LOG = $(BUILD_DIR)/kbuild-check.log
ifeq ($(origin KVER),command line)
check: $(DEPS_STAMP)
	$(MAKE) all
	$(CHECK_ENV) bash $(TOP)/selftests/run.sh $(CHECK_ARGS)
else
check: $(DEPS_STAMP)
	@mkdir -p $(BUILD_DIR)
	find $(TOP)/sch_dcb -name '*.o' -delete
	rm -f $(RXE_STAMP) $(KBUILD_LOG)
	$(MAKE) all C=2 >$(KBUILD_LOG).tmp 2>&1; rc=$$?; cat $(KBUILD_LOG).tmp; \
		[ $$rc = 0 ] && mv $(KBUILD_LOG).tmp $(KBUILD_LOG)
	DCBLAB_KBUILD_LOG=$(KBUILD_LOG) bash $(TOP)/selftests/run.sh
endif

# The smoke subset, what CI runs on the second kernel (make check-smoke
# KVER=6.12): a guest with routing namespaces (test_00), sch_dcb's ECN
# marking (test_10), PFC PAUSE/RESUME sent by a switch port and obeyed by
# a host, and rmmod sch_dcb (test_45), our rdma_rxe across namespaces with
# perftest and its rmmod (test_60), DCQCN's CNPs (test_62), QP destroy and
# rmmod with packets in flight (test_83, the 6.12 form of a fix), and the
# native path a user's machine takes, run inside the guest (test_90: make,
# vm-run, run.sh and dcblab choose native mode there).  Guest tests only;
# see Documentation/testing.rst.
SMOKE_TESTS := 00_guest_smoke|10_dcb_ecn|45_pfc_teardown|60_rxe_netns|62_rxe_cnp|83_rxe_destroy_inflight|90_native

check-smoke: $(DEPS_STAMP)
	$(MAKE) all
	$(CHECK_ENV) bash $(TOP)/selftests/run.sh --guest-only --filter '^net/test_($(SMOKE_TESTS))$$'
	$(SMOKE_KVER_UNIT)

# The suite on a KASAN/lockdep/kmemleak guest kernel (built once, cached in
# /var/cache/dcblab/debug-kernel); see Documentation/testing.rst.
check-debug: deps
	bash $(TOP)/scripts/check-debug.sh

# The concurrency-heavy tests on the KCSAN flavour of that kernel (cached
# beside it); see Documentation/testing.rst.
check-kcsan: deps
	DCBLAB_DEBUG_FLAVOUR=kcsan bash $(TOP)/scripts/check-debug.sh

# make check plus the long experiments (tests marked `# suite: long`).
check-long: $(DEPS_STAMP)
	$(MAKE) all
	$(CHECK_ENV) DCBLAB_CHECK_LONG=1 bash $(TOP)/selftests/run.sh $(CHECK_ARGS)

check-unit: user
	bash $(TOP)/selftests/run.sh --unit-only

demo: $(DEPS_STAMP)
	$(MAKE) all
	$(TOP)/scripts/dcblab run compare --repeat 3 --duration 900

bench: $(DEPS_STAMP)
	$(MAKE) all
	bash $(TOP)/scripts/vm-run -- bash -c 'rc=0; for b in pps pfc; do /usr/bin/python3 $(TOP)/scripts/bench/$$b.py || rc=1; done; exit $$rc'

# The lab's two clocks side by side: a 4:1 RDMA incast at 40-400 Mbit/s in
# virtual and in real time (scripts/bench/clock.py; Documentation/bench.rst).
bench-clock: $(DEPS_STAMP)
	$(MAKE) all
	/usr/bin/python3 $(TOP)/scripts/bench/clock.py

# The same RDMA incast on a quiet and on a loaded host, per clock: are the
# numbers the network's or the host's?  (scripts/bench/repro.py)
bench-repro: $(DEPS_STAMP)
	$(MAKE) all
	/usr/bin/python3 $(TOP)/scripts/bench/repro.py

# (a wall-clock limit: on a loaded 2-core host the guest's 10 minutes of
# virtual time took more than 30 minutes)
bench-rxe: $(DEPS_STAMP)
	$(MAKE) all
	bash $(TOP)/scripts/vm-run --timeout 5400 -- bash -c 'rc=0; for b in rxe_bw dcqcn; do /usr/bin/python3 $(TOP)/scripts/bench/$$b.py || rc=1; done; exit $$rc'

# make install [DESTDIR=...] [KVER=...] [PREFIX=/usr/local]: what `make`
# built, for the kernel KDIR is (KVER), without building or installing
# anything else.  The modules go to /lib/modules/RELEASE/updates/dcblab,
# and a depmod.d file makes our rdma_rxe win over the distribution's; the
# algorithms load on `echo NAME > cc/algo` (module alias rxe-cc-NAME) and
# sch_dcb on `tc qdisc add ... dcb`.  q_dcb.so goes where the
# distribution's tc looks for plugins (TC_LIBDIR, from iproute2's file
# list), dcbmon to PREFIX/sbin, the man pages to PREFIX/share/man, and
# PREFIX/bin/dcblab is a link to this checkout's scripts/dcblab (it runs
# from the checkout, where its results go).  depmod runs unless DESTDIR is
# set (a staging tree for a package).  make uninstall removes it all again.
#
# RELEASE (INST_KVER) is the kernel release, the name of its
# /lib/modules directory:
#  - without KVER on the command line, KVER (KDIR's release unless the
#    environment sets it) and the default kernel's build (sch_dcb/,
#    build/rxe_cc), as always;
#  - with KVER=X.Y, a series, the release of the headers it selected
#    (KDIR's utsrelease.h: KVER=6.12 -> 6.12.117+deb12-amd64), and with a
#    full release KVER=6.12.117+deb12-amd64 that release; both install
#    what `make all KVER=...` built, $(BUILD_DIR)/X.Y/sch_dcb and
#    $(BUILD_DIR)/X.Y/rxe_cc, and install refuses modules whose vermagic
#    is another release (built against older headers of the series).
# uninstall and dkms-install resolve KVER the same way.
KDIR_RELEASE = $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null)
KVER ?= $(KDIR_RELEASE)
ifeq ($(origin KVER),command line)
# a series has no '-' and at most one '.' (6.12; 6.1.0-56-amd64 is a release)
KVER_IS_SERIES := $(if $(findstring -,$(KVER))$(word 3,$(subst ., ,$(KVER))),,y)
INST_KVER = $(if $(KVER_IS_SERIES),$(KDIR_RELEASE),$(KVER))
DCB_KO ?= $(DCB_KDIR_OUT)/sch_dcb.ko
INST_BUILT_BY := make all KVER=$(KVER)
else
INST_KVER = $(KVER)
DCB_KO ?= $(TOP)/sch_dcb/sch_dcb.ko
INST_BUILT_BY := make
endif
PREFIX ?= /usr/local
TC_LIBDIR ?= $(or $(shell dpkg -L iproute2 2>/dev/null | sed -n 's|/normal\.dist$$||p' | head -n1),/usr/lib/tc)
INST_MODDIR = $(DESTDIR)/lib/modules/$(INST_KVER)/updates/dcblab
INST_MODS := $(DCB_KO) $(RXE_BUILD)/rdma_rxe.ko \
	$(RXE_BUILD)/rxe_cc_dcqcn.ko $(RXE_BUILD)/rxe_cc_pcn.ko $(RXE_BUILD)/rxe_cc_ldcp.ko
INST_DEPMOD = $(DESTDIR)/etc/depmod.d/dcblab.conf
INST_MANDIR = $(DESTDIR)$(PREFIX)/share/man

# INST_KVER_CHECK TARGET: stop unless the release is known.  A series
# needs the headers that name its release; a full release needs nothing.
INST_KVER_CHECK = @test -n "$(INST_KVER)" || { echo "$(1): $(if $(KVER_IS_SERIES),$(INST_NO_SERIES),$(INST_NO_RELEASE))" >&2; exit 1; }
INST_NO_RELEASE = no kernel release in KDIR='$(KDIR)' (set KDIR or KVER)
INST_NO_SERIES = KVER=$(KVER) is a kernel series, and no headers name its release (KDIR='$(KDIR)'): \
	install the package linux-headers-$(KVER).*-amd64 of that kernel, or give its full release \
	(KVER=<its directory in /lib/modules>)

# modinfo is in /usr/sbin, not in a user's PATH on Debian
MODINFO := PATH="$$PATH:/usr/sbin:/sbin" modinfo

install:
	$(call INST_KVER_CHECK,install)
	@for f in $(INST_MODS) $(TOP)/tc/q_dcb.so $(TOP)/tools/dcbmon $(MAN_OUT); do \
	  test -f $$f || { echo "install: $$f is missing: run $(INST_BUILT_BY) first" >&2; exit 1; }; done
ifeq ($(origin KVER),command line)
	@for f in $(INST_MODS); do \
	  vm=$$($(MODINFO) -F vermagic $$f) || { echo "install: modinfo $$f failed (package kmod)" >&2; exit 1; }; \
	  test "$${vm%% *}" = "$(INST_KVER)" || { \
	    echo "install: $$f is built for '$${vm%% *}', not $(INST_KVER): run $(INST_BUILT_BY) again" >&2; exit 1; }; \
	done
endif
	install -d $(INST_MODDIR) $(dir $(INST_DEPMOD)) $(DESTDIR)$(TC_LIBDIR) $(DESTDIR)$(PREFIX)/sbin \
		$(DESTDIR)$(PREFIX)/bin $(INST_MANDIR)/man1 $(INST_MANDIR)/man8
	install -m 0644 $(INST_MODS) $(INST_MODDIR)/
	printf '# DCB lab: our rdma_rxe (rxe_cc) over the distribution'"'"'s\noverride rdma_rxe * updates/dcblab\n' >$(INST_DEPMOD)
	install -m 0644 $(TOP)/tc/q_dcb.so $(DESTDIR)$(TC_LIBDIR)/
	install -m 0755 $(TOP)/tools/dcbmon $(DESTDIR)$(PREFIX)/sbin/
	ln -sfn $(TOP)/scripts/dcblab $(DESTDIR)$(PREFIX)/bin/dcblab
	for m in $(MAN_OUT); do install -m 0644 $$m $(INST_MANDIR)/man$${m##*.}/; done
	$(if $(DESTDIR),,depmod -a $(INST_KVER))

uninstall:
	$(call INST_KVER_CHECK,uninstall)
	rm -f $(addprefix $(INST_MODDIR)/,$(notdir $(INST_MODS))) $(INST_DEPMOD) \
		$(DESTDIR)$(TC_LIBDIR)/q_dcb.so $(DESTDIR)$(PREFIX)/sbin/dcbmon \
		$(DESTDIR)$(PREFIX)/bin/dcblab \
		$(foreach m,$(notdir $(MAN_OUT)),$(INST_MANDIR)/man$(subst .,,$(suffix $(m)))/$(m))
	-rmdir $(INST_MODDIR) 2>/dev/null
	$(if $(DESTDIR),,depmod -a $(INST_KVER))

# DKMS (dkms.conf): make dkms-install copies the sources DKMS builds from to
# DKMS_SRC/dcblab-VERSION (/usr/src) and runs dkms add, build and install
# for KVER; from then on dkms rebuilds them for every kernel installed.
# make dkms-uninstall removes them from every kernel and the sources.
DKMS_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' $(TOP)/dkms.conf)
DKMS_SRC ?= /usr/src
DKMS_DIR = $(DKMS_SRC)/dcblab-$(DKMS_VERSION)

# the sources, without build products (also the recipe of dkms-source)
define DKMS_SOURCE_CMDS
rm -rf $(DKMS_DIR)
mkdir -p $(DKMS_DIR)
cd $(TOP) && cp --parents Kbuild Makefile dkms.conf scripts/rxe_prepare.sh \
	$$(find sch_dcb rxe_cc \( -name '*.[ch]' ! -name '*.mod.c' \) -o -name Kbuild \
	-o -name '*.patch') $(DKMS_DIR)/
endef

dkms-source:
	$(DKMS_SOURCE_CMDS)

# dkms takes the release (-k 6.12.117+deb12-amd64), so KVER=6.12 is
# resolved as for install; both checked before /usr/src is touched.
dkms-install:
	@command -v dkms >/dev/null || { echo "dkms-install: dkms not found: apt-get install dkms" >&2; exit 1; }
	$(call INST_KVER_CHECK,dkms-install)
	$(DKMS_SOURCE_CMDS)
	-dkms remove -m dcblab -v $(DKMS_VERSION) --all >/dev/null 2>&1
	dkms add -m dcblab -v $(DKMS_VERSION)
	dkms build -m dcblab -v $(DKMS_VERSION) -k $(INST_KVER)
	dkms install -m dcblab -v $(DKMS_VERSION) -k $(INST_KVER)

dkms-uninstall:
	-dkms remove -m dcblab -v $(DKMS_VERSION) --all
	rm -rf $(DKMS_DIR)

clean:
	-$(MAKE) -C $(KDIR) M=$(TOP) clean
	rm -rf $(RXE_BUILD) $(RXE_BUILD).src
	-$(MAKE) -C $(TOP)/tc clean
	-$(MAKE) -C $(TOP)/tools clean
	rm -f $(PY_UAPI)

# SPDX-License-Identifier: GPL-2.0
#
# DCB lab: `make` builds the kernel modules (against KDIR) and the
# userspace pieces (tc plugin, monitor).  See README.md.

# Kernel build dir: the running kernel's when it has one, otherwise the
# installed Debian 6.1 headers (the ones the VM guest boots).
DEB_KDIR := $(lastword $(sort $(wildcard /usr/src/linux-headers-6.1.*-amd64)))
RUN_KDIR := $(wildcard /lib/modules/$(shell uname -r)/build)
KDIR ?= $(if $(RUN_KDIR),$(RUN_KDIR),$(DEB_KDIR))
export KDIR

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
CC ?= gcc
USER_CFLAGS := -O2 -g -Wall -Wextra -Wno-unused-parameter -I$(TOP)/sch_dcb/uapi

DEPS_STAMP := /var/lib/dcblab/deps-v1

# rdma_rxe with the rxe_cc engine: upstream rxe of KDIR's kernel (from
# linux-source-X.Y) + rxe_cc/patches + rxe_cc/*.[ch], built in its own
# external-module directory (never committed).
BUILD_DIR := $(or $(DCBLAB_BUILD),$(TOP)/build)
RXE_BUILD := $(BUILD_DIR)/rxe_cc
RXE_STAMP := $(RXE_BUILD)/.prepared
RXE_PATCHES := $(sort $(wildcard $(TOP)/rxe_cc/patches/*.patch))

.PHONY: all modules rxe user tc tools deps check check-debug check-long check-unit check-vm demo bench bench-rxe \
	clean sparse checkpatch

all: $(DEPS_STAMP) modules user

$(DEPS_STAMP):
	bash $(TOP)/scripts/deps.sh

deps:
	bash $(TOP)/scripts/deps.sh

modules: $(DEPS_STAMP)
	@test -n "$(KDIR)" && test -d "$(KDIR)" || { \
	  echo "error: no kernel build dir (KDIR='$(KDIR)'); install linux-headers-amd64 or run 'make deps'" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(TOP) W=1 modules
	$(MAKE) rxe

# The directory as prerequisite: adding or removing one of our files
# re-links them; edits need no preparation.
$(RXE_STAMP): $(RXE_PATCHES) $(TOP)/scripts/rxe_prepare.sh $(TOP)/rxe_cc
	bash $(TOP)/scripts/rxe_prepare.sh $(KDIR) $(RXE_BUILD)
	touch $@

rxe: $(RXE_STAMP)
	$(MAKE) -C $(KDIR) M=$(RXE_BUILD) W=1 modules

sparse: $(DEPS_STAMP) $(RXE_STAMP)
	$(MAKE) -C $(KDIR) M=$(TOP) W=1 C=2 modules
	$(MAKE) -C $(KDIR) M=$(RXE_BUILD) W=1 C=2 modules

checkpatch:
	bash $(TOP)/scripts/checkpatch.sh

user: tc tools

tc:
	$(MAKE) -C $(TOP)/tc

tools:
	$(MAKE) -C $(TOP)/tools

check: all
	bash $(TOP)/selftests/run.sh

# The suite on a KASAN/lockdep/kmemleak guest kernel (built once, cached in
# /var/cache/dcblab/debug-kernel); see Documentation/testing.rst.
check-debug: deps
	bash $(TOP)/scripts/check-debug.sh

# make check plus the long experiments (tests marked `# suite: long`).
check-long: all
	DCBLAB_CHECK_LONG=1 bash $(TOP)/selftests/run.sh

check-unit: user
	bash $(TOP)/selftests/run.sh --unit-only

demo: all
	bash $(TOP)/scripts/dcblab run compare --duration 900

bench: all
	bash $(TOP)/scripts/vm-run -- bash -c 'rc=0; for b in pps pfc; do bash $(TOP)/scripts/bench/$$b.sh || rc=1; done; exit $$rc'

bench-rxe: all
	bash $(TOP)/scripts/vm-run --timeout 1800 -- bash -c 'rc=0; for b in rxe_bw dcqcn; do bash $(TOP)/scripts/bench/$$b.sh || rc=1; done; exit $$rc'

clean:
	-$(MAKE) -C $(KDIR) M=$(TOP) clean
	rm -rf $(RXE_BUILD) $(RXE_BUILD).src
	-$(MAKE) -C $(TOP)/tc clean
	-$(MAKE) -C $(TOP)/tools clean

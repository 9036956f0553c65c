# SPDX-License-Identifier: GPL-2.0
# Userspace builds of an algorithm's state machine, rxe_cc/$(ALGO)_sm.c:
# its unit tests (test_$(ALGO).c) and its bottleneck model (model.c).
# Each algorithm's Makefile sets ALGO (and SM_INC, SM_DEPS for more
# include folders and prerequisites) and includes this file.
TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/../..)
OUT ?= $(or $(DCBLAB_BUILD),$(TOP)/build)/$(ALGO)
CC ?= gcc
# kselftest_harness.h, extracted by sm_lib.sh
KSFT ?= $(or $(DCBLAB_BUILD),$(TOP)/build)/ksft
# the kernel headers the state machine includes, for userspace
UINC := $(wildcard $(TOP)/selftests/unit/include/linux/*.h)
CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror \
	-I$(TOP)/selftests/unit/include -I$(TOP)/rxe_cc $(SM_INC) \
	-isystem $(KSFT)
SM_C := $(TOP)/rxe_cc/$(ALGO)_sm.c
SM := $(SM_C) $(TOP)/rxe_cc/$(ALGO)_sm.h $(TOP)/selftests/unit/check.h $(UINC) \
	$(wildcard *.h)

all: $(OUT)/test_$(ALGO) $(OUT)/model

$(OUT)/test_$(ALGO): test_$(ALGO).c $(SM)
	@mkdir -p $(OUT)
	$(CC) $(CFLAGS) -o $@ $< $(SM_C) -lm

$(OUT)/model: model.c $(SM) $(TOP)/selftests/unit/model.h $(SM_DEPS)
	@mkdir -p $(OUT)
	$(CC) $(CFLAGS) -o $@ $< $(SM_C) -lm

clean:
	rm -f $(OUT)/test_$(ALGO) $(OUT)/model

.PHONY: all clean

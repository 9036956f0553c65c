/* SPDX-License-Identifier: GPL-2.0 */
/* <linux/string.h> for the userspace builds of kernel code: libc's. */
#ifndef DCBLAB_UNIT_LINUX_STRING_H
#define DCBLAB_UNIT_LINUX_STRING_H

#include <string.h>

#endif

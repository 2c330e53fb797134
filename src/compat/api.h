/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * What the files of libseccomp's C API share: the context checks, the
 * error mapping, the API level and the listener fd of the last load.
 * seccomp_api.c defines them (with contexts, ABIs and transactions);
 * api_rules.c, api_attrs.c, api_export.c and api_notify.c use them and
 * nothing of each other.  The functions are hidden like every symbol of
 * the library but the API (meson.build), so they stay internal.
 */
#ifndef SCMPC_COMPAT_API_H
#define SCMPC_COMPAT_API_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "compat.h"

#define API __attribute__((visibility("default")))

/* seccomp.h 2.6 values a 2.5 header does not declare. */
#define ATTR_WAITKILL 10
#define FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)

/* The listener fd of the last load that asked for one, -1 for none: one
 * per process, since seccomp_notify_fd() takes no context to keep it in. */
extern _Atomic int compat_notify_fd;

/* ERR as libseccomp passes it on: its fixed set of errors, -EFAULT for
 * any other. */
int compat_rc_filter(int err);
/* A failed system call's ERR: itself with SCMP_FLTATR_API_SYSRAWRC set on
 * C, else -ECANCELED. */
int compat_rc_sys(const struct compat_ctx *c, int err);
/* The API level in force: the one seccomp_api_set() gave, else the
 * running kernel's, probed once. */
unsigned compat_level(void);
/* Whether the kernel (at the API level in force) runs ACT; C (may be
 * NULL) adds the context's TSYNC constraint on USER_NOTIF. */
bool compat_action_ok(const struct compat_ctx *c, uint32_t act);
/* CTX when it is a context with at least one ABI, else NULL. */
struct compat_ctx *compat_ctx_valid(scmp_filter_ctx ctx);
/* Drop C's compiled program: its rules or attributes changed. */
void compat_changed(struct compat_ctx *c);

#endif

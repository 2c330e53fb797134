/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* What the two writers of OCI profiles share: a recording's profile
 * (profile_out.c) and a policy's (policy_out.c). */
#ifndef SCMPC_FRONT_PROFILE_WRITE_H
#define SCMPC_FRONT_PROFILE_WRITE_H

#include <stdint.h>

/* OCI's spelling of action ACT ("SCMP_ACT_ERRNO"), its data (the errno)
 * in *DATA; NULL for an action OCI cannot name (USER_NOTIF among them:
 * a profile names it only with a listener). */
const char *oci_action_name(uint32_t act, uint32_t *data);

#endif

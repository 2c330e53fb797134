/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * What each runtime does after installing a container's filter and before
 * exec'ing its command: the calls a recorded profile must also allow, or
 * the container never starts.  Not guessed: tails-data.h is what
 * tools/record-tails wrote from `scmp-compile record --tail` of the
 * runtimes themselves (Debian's runc and crun, and scmp-compile exec), per
 * ABI of the machine it ran on.
 */
#include <errno.h>
#include <string.h>

#include "common.h"

struct tail {
	const char *runtime;	/* runc, runc-1.1, crun, exec */
	const char *abi;
	const char *const *names;
};

#include "tails-data.h"

int runtime_tail(const struct cli *c, scmpc_recording *rec)
{
	const char *want = c->runtime_exec ? "exec" : NULL;
	if (!want && (c->seen & F_RUNTIME))
		want = scmpc_runtime_name(c->runtime);
	if (!want)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(tails); i++) {
		if (strcmp(tails[i].runtime, want))
			continue;
		enum scmpc_arch a = scmpc_arch_from_name(tails[i].abi);
		for (const char *const *n = tails[i].names; a && *n; n++) {
			int64_t nr = scmpc_syscall_resolve(a, *n);
			if (nr >= 0 && scmpc_recording_add(rec, scmpc_arch_audit(a), (uint32_t)nr, NULL,
							   1) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

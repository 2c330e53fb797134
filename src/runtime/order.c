/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The order a stack of programs goes in.  The kernel runs every filter
 * already installed on every later call, the seccomp(2) call that installs
 * the next filter included: program J can go in only if each program before
 * it allows the very call that installs J.  That is each program's own
 * answer on that call, with its real arguments, which the emulator gives
 * exactly, so the order is settled before anything is installed, and a set
 * that no order installs is refused whole, naming the program that blocks,
 * instead of being left half installed with the kernel blamed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/runtime.h"

/* Why P gives ACT for SD, as " (rule syscalls[3])", or "" when P is NULL
 * or decides otherwise (the program is not P's). */
void install_cause(const scmpc_policy *p, const struct seccomp_data *sd, uint32_t act,
		       char *buf, size_t len)
{
	struct scmpc_explanation ex = { .sz = sizeof(ex) };
	struct scmpc_rule_info ri = { .sz = sizeof(ri) };

	buf[0] = '\0';
	if (!p || scmpc_policy_explain(p, sd, &ex, NULL) < 0 || ex.action != act)
		return;
	switch (ex.reason) {
	case SCMPC_REASON_RULE:
	case SCMPC_REASON_ORDER:
		if (ex.rule >= 0 && scmpc_policy_rule(p, (size_t)ex.rule, &ri) == 0 && ri.origin)
			snprintf(buf, len, " (rule %s)", ri.origin);
		else if (ex.rule >= 0)
			snprintf(buf, len, " (rule %d)", ex.rule);
		break;
	case SCMPC_REASON_DEFAULT:
		snprintf(buf, len, " (the policy's default action)");
		break;
	case SCMPC_REASON_UNKNOWN:
		snprintf(buf, len, " (the unknown-syscall action)");
		break;
	case SCMPC_REASON_LIMIT:
		snprintf(buf, len, " (runc's ENOSYS stub for numbers above the profile's)");
		break;
	default:
		break;
	}
}

bool install_allows(uint32_t act)
{
	act &= 0xffff0000U;
	return act == SCMPC_ACT_ALLOW || act == SCMPC_ACT_LOG;
}

/* Does program I deny CALLS[J]?  BLOCK is N x N, row I. */
static int fill_blocks(const struct sock_filter *const *insns, const size_t *lens, size_t n,
		       const struct seccomp_data *calls, uint32_t *act)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			uint32_t r = SCMPC_ACT_ALLOW;
			/* a program never filters its own installation */
			if (i != j && scmpc_emulate(insns[i], lens[i], &calls[j], &r, NULL) < 0)
				return -EINVAL;
			act[i * n + j] = r;
		}
	return 0;
}

int install_order(const struct sock_filter *const *insns, const size_t *lens, size_t n,
		  const struct seccomp_data *calls, size_t *order, struct install_block *why)
{
	uint32_t *act = malloc((n ? n * n : 1) * sizeof(*act));
	bool *placed = calloc(n ? n : 1, sizeof(*placed));
	int rc = 0;

	if (!act || !placed) {
		rc = -ENOMEM;
		goto out;
	}
	if ((rc = fill_blocks(insns, lens, n, calls, act)) < 0)
		goto out;
	/* Program J may go next when it blocks none still to come: those
	 * placed before it were chosen the same way, so none blocks J.  The
	 * lowest such J first, which keeps the given order where it works. */
	for (size_t k = 0; k < n; k++) {
		size_t pick = SIZE_MAX;
		for (size_t j = 0; j < n && pick == SIZE_MAX; j++) {
			if (placed[j])
				continue;
			bool blocks = false;
			for (size_t m = 0; m < n && !blocks; m++)
				blocks = !placed[m] && m != j && !install_allows(act[j * n + m]);
			if (!blocks)
				pick = j;
		}
		if (pick == SIZE_MAX) {
			/* Every program left blocks another left: name the
			 * first, and the first it blocks. */
			for (size_t i = 0; i < n && rc == 0; i++)
				for (size_t m = 0; m < n && rc == 0; m++)
					if (!placed[i] && !placed[m] && i != m &&
					    !install_allows(act[i * n + m])) {
						*why = (struct install_block){ i, m, act[i * n + m] };
						rc = -EPERM;
					}
			goto out;
		}
		placed[pick] = true;
		order[k] = pick;
	}
out:
	free(act);
	free(placed);
	return rc;
}

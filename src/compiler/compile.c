/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The compiler driver, as the pipeline reads: check the options, resolve
 * the policy per ABI (its views), lower it to a decision DAG, lay it out
 * and emit it (size.c chooses the layout), then check the program twice,
 * against the kernel's rules and against the policy, before it leaves.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "check/check.h"
#include "compiler/compile.h"

int compile_flags_check(unsigned flags, scmpc_diag *d)
{
	const unsigned known = SCMPC_COMPILE_NO_VERIFY | SCMPC_COMPILE_NAIVE |
			       SCMPC_COMPILE_SMALLEST | SCMPC_COMPILE_SHORTEST;
	if (flags & ~known)
		return diag_err(d, -EINVAL, NULL, "unknown compile flags %#x", flags & ~known);
	if ((flags & SCMPC_COMPILE_SMALLEST) && (flags & SCMPC_COMPILE_SHORTEST))
		return diag_err(d, -EINVAL, NULL,
				"SCMPC_COMPILE_SMALLEST and SCMPC_COMPILE_SHORTEST exclude each other");
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* A program that failed a check is the compiler's fault, and says so. */
static int internal_error(scmpc_diag *d, int err, const char *where, const char *what)
{
	char msg[512];
	snprintf(msg, sizeof(msg), "%s", scmpc_diag_message(d));
	return diag_err(d, err, where, "internal error: %s%s", what, msg);
}

int compile_policy(const scmpc_policy *p, const struct scmpc_compile_opts *o, scmpc_prog **out,
		   bool *size_bound, struct compile_budget *budget, scmpc_diag *d)
{
	struct scmpc_compile_opts opts;
	struct arch_view views[SCMPC_ARCH_COUNT];
	struct sock_filter *insns = NULL;
	size_t len = 0;
	bool sized = false;
	uint64_t t0 = now_ns();
	int err;

	OPTS_COPY(opts, o);
	if (!p || !out)
		return diag_err(d, -EINVAL, NULL, "no policy or no output");
	*out = NULL;
	if (p->narches == 0)
		return diag_err(d, -EINVAL, NULL, "the policy has no architecture");
	if ((err = policy_views_init(p, views, d)) < 0)
		return err;
	/* The kernel takes it, so the policy may hold it, but a filtered
	 * process then waits on the listener for every call no rule decides,
	 * the ones that would pass the listener on among them. */
	if (p->def_action == SCMPC_ACT_USER_NOTIF)
		diag_warn(d, "the default action is USER_NOTIF: every call no rule decides, "
			  "including those that would hand the listener to a supervisor, waits "
			  "for an answer from the listener (runc refuses this default; a "
			  "supervisor can take the listener with pidfd_getfd(2))");

	progress_report(opts.progress, "compile", 1, 3);
	err = size_lower_emit(p, views, &opts, &insns, &len, &sized, budget, d);
	if (size_bound)
		*size_bound = sized;
	if (err < 0)
		goto out;
	progress_report(opts.progress, "compile", 2, 3);
	/* Both checks run on every compile: a compiler bug must surface here,
	 * never as a kernel EINVAL or a hole in someone's sandbox. */
	if ((err = scmpc_verify_insns(insns, len, d)) < 0) {
		err = internal_error(d, err, scmpc_diag_where(d), "");
		goto out;
	}
	if (!(opts.flags & SCMPC_COMPILE_NO_VERIFY) &&
	    (err = verify_with_views(p, views, insns, len, d)) < 0) {
		err = internal_error(d, err, NULL, "compiled program disagrees with the policy: ");
		goto out;
	}
	scmpc_prog *prog = calloc(1, sizeof(*prog));
	if (!prog) {
		err = diag_err(d, -ENOMEM, NULL, "out of memory");
		goto out;
	}
	prog->insns = insns;
	prog->len = len;
	insns = NULL;
	prog->compile_ns = now_ns() - t0;
	progress_report(opts.progress, "compile", 3, 3);
	*out = prog;
	err = 0;
out:
	free(insns);
	policy_views_fini(p, views, p->narches);
	return err;
}

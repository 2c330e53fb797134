/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* The compiler driver: lower, lay out, emit, then check before handing out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "emit.h"
#include "lower.h"

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

SCMPC_API int scmpc_compile(const scmpc_policy *p, const struct scmpc_compile_opts *o,
			    scmpc_prog **out, scmpc_diag *d)
{
	struct scmpc_compile_opts opts;
	struct arch_view views[SCMPC_ARCH_COUNT];
	struct dag g;
	struct sock_filter *insns = NULL;
	size_t len = 0;
	uint64_t t0 = now_ns();
	int err;

	if ((err = OPTS_VALID(o, scmpc_compile_opts, sz, d)) < 0)
		return err;
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

	/* Argument checks are laid out for the shortest worst path; when that
	 * makes the program too long for the kernel, once more for size. */
	for (int compact = 0; compact < 2; compact++) {
		dag_init(&g);
		int64_t root = (opts.flags & SCMPC_COMPILE_NAIVE)
				       ? lower_naive(&g, p, views, d)
				       : lower_policy(&g, p, views, compact, d);
		if (root < 0) {
			err = (int)root;
			goto out;
		}
		err = emit_program(&g, (uint32_t)root, &insns, &len, d);
		dag_fini(&g);
		if (err != -E2BIG || compact || (opts.flags & SCMPC_COMPILE_NAIVE))
			break;
	}
	if (err < 0)
		goto out;
	/* Both checks run on every compile: a compiler bug must surface here,
	 * never as a kernel EINVAL or a hole in someone's sandbox. */
	if ((err = scmpc_verify_insns(insns, len, d)) < 0) {
		char msg[512];
		snprintf(msg, sizeof(msg), "%s", scmpc_diag_message(d));
		err = diag_err(d, err, scmpc_diag_where(d), "internal error: %s", msg);
		goto out;
	}
	if (!(opts.flags & SCMPC_COMPILE_NO_VERIFY) &&
	    (err = verify_with_views(p, views, insns, len, d)) < 0) {
		char msg[512];
		snprintf(msg, sizeof(msg), "%s", scmpc_diag_message(d));
		err = diag_err(d, err, NULL, "internal error: compiled program disagrees with the policy: %s",
			       msg);
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
	*out = prog;
	err = 0;
out:
	free(insns);
	dag_fini(&g);
	policy_views_fini(p, views, p->narches);
	return err;
}

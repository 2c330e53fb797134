/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The intersection of programs: one program that decides every call as
 * the most restrictive of them, which is what the kernel makes of them
 * stacked.  Built as a merge (lift the stack, compile the policy), then
 * proven: every input, walked through the inputs and the result side by
 * side, gets from the result what the stack gives.
 */
#include <stdio.h>
#include <stdlib.h>
#include "answer/answer.h"

uint32_t answer_stack(const uint32_t *rets, size_t n)
{
	uint32_t acc = SCMPC_ACT_ALLOW;
	/* seccomp_run_filters(): newest first, a strictly lower action wins */
	for (size_t i = n; i-- > 0;)
		if (act_rank(rets[i]) < act_rank(acc))
			acc = rets[i];
	return acc;
}

SCMPC_API int scmpc_intersect(const struct sock_filter *const *progs, const size_t *lens,
			      size_t n, const struct scmpc_compare_opts *o, scmpc_prog **out,
			      scmpc_policy **policy, scmpc_diag *d)
{
	struct scmpc_compare_opts opts;
	int err;
	if ((err = OPTS_VALID(o, scmpc_compare_opts, sz, d)) < 0)
		return err;
	OPTS_COPY(opts, o);
	if (opts.flags)
		return diag_err(d, -EINVAL, NULL, "unknown intersect flags %#x", opts.flags);
	if ((err = progress_check(opts.progress, d)) < 0)
		return err;
	if (!out || !progs || !lens || n == 0)
		return diag_err(d, -EINVAL, NULL, "no programs or no output");
	*out = NULL;
	if (policy)
		*policy = NULL;
	if (n + 1 > WALK_MAX_EACH)
		return diag_err(d, -E2BIG, NULL, "%zu programs: at most %d can be intersected", n,
				WALK_MAX_EACH - 1);

	scmpc_policy *p = NULL;
	scmpc_prog *prog = NULL;
	if ((err = scmpc_merge_stack(progs, lens, n, NULL, &p, d)) < 0)
		return err;
	progress_report(opts.progress, "intersect", 1, 3);
	err = scmpc_compile(p, NULL, &prog, d);
	if (err < 0) {
		scmpc_policy_free(p);
		return err;
	}
	progress_report(opts.progress, "intersect", 2, 3);

	/* The proof: the result on every call after the inputs as the
	 * kernel stacks them, the stack's return combined from each
	 * filter's by answer_stack(), not by the walk.  The walk stops at a
	 * KILL_PROCESS (nothing older can change the return; those not run
	 * count as ALLOW), where one of every input on every call ran all 32
	 * of issue #24's filters to their ends: a million joint paths and
	 * 7 s before the path bound stopped it. */
	const struct sock_filter **all = malloc((n + 1) * sizeof(*all));
	size_t *alens = malloc((n + 1) * sizeof(*alens));
	struct walker W;
	memset(&W, 0, sizeof(W));
	if (!all || !alens) {
		err = diag_err(d, -ENOMEM, NULL, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		all[i] = progs[i];
		alens[i] = lens[i];
	}
	all[n] = scmpc_prog_insns(prog);
	alens[n] = scmpc_prog_len(prog);
	err = answer_walk_stack(&W, all, alens, n + 1, opts.max_paths, d);
	for (size_t i = 0; i < W.npaths && err >= 0; i++) {
		const uint32_t *r = &W.each[i * (n + 1)];
		if (answer_stack(r, n) != r[n])
			err = diag_err(d, -EPROTO, NULL,
				       "internal error: the intersection returns %#x on a path "
				       "where the stack returns %#x", r[n], answer_stack(r, n));
	}
	if (err >= 0)
		progress_report(opts.progress, "intersect", 3, 3);
out:
	walker_fini(&W);
	free(all);
	free(alens);
	return answer_hand_out(err, prog, p, out, policy);
}

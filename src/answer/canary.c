/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * A canary of a stricter profile: one program that decides every call as
 * the enforced one does, except that where the enforced program allows a
 * call and the candidate would not let it run, it returns LOG.  Installed
 * in place of the enforced filter it costs nothing more than it, and the
 * kernel's log names every call the candidate would break.  Lifted from
 * both programs walked side by side, compiled, and proven.
 */
#include <stdlib.h>
#include "answer/answer.h"
#include "program/lift.h"

/* Whether an action lets the call run. */
static bool runs(uint32_t act)
{
	return act == SCMPC_ACT_ALLOW || act == SCMPC_ACT_LOG;
}

uint32_t answer_canary(uint32_t enforced, uint32_t candidate)
{
	return enforced == SCMPC_ACT_ALLOW && !runs(candidate) ? SCMPC_ACT_LOG : enforced;
}

static uint32_t combine(const uint32_t *rets, size_t n, void *ctx)
{
	(void)n;
	(void)ctx;
	return answer_canary(rets[0], rets[1]);
}

SCMPC_API int scmpc_canary(const struct sock_filter *enforced, size_t elen,
			   const struct sock_filter *candidate, size_t clen,
			   const struct scmpc_compare_opts *o, scmpc_prog **out,
			   scmpc_policy **policy, scmpc_diag *d)
{
	struct scmpc_compare_opts opts;
	int err;
	if ((err = OPTS_VALID(o, scmpc_compare_opts, sz, d)) < 0)
		return err;
	OPTS_COPY(opts, o);
	if (opts.flags)
		return diag_err(d, -EINVAL, NULL, "unknown canary flags %#x", opts.flags);
	if ((err = progress_check(opts.progress, d)) < 0)
		return err;
	if (!out)
		return diag_err(d, -EINVAL, NULL, "no place for the program");
	*out = NULL;
	if (policy)
		*policy = NULL;
	const struct sock_filter *progs[3] = { enforced, candidate, NULL };
	size_t lens[3] = { elen, clen, 0 };
	for (int i = 0; i < 2; i++)
		if (!progs[i] || !lens[i] || (err = scmpc_verify_insns(progs[i], lens[i], d)) < 0)
			return progs[i] && lens[i] ? err
						   : diag_err(d, -EINVAL, NULL, "program %d is empty",
							      i + 1);

	scmpc_policy *p = NULL;
	scmpc_prog *prog = NULL;
	if ((err = lift_programs(progs, lens, 2, WALK_EACH, combine, NULL, NULL, &p, d)) < 0)
		return err;
	progress_report(opts.progress, "canary", 1, 3);
	if ((err = scmpc_compile(p, NULL, &prog, d)) < 0) {
		scmpc_policy_free(p);
		return err;
	}
	progress_report(opts.progress, "canary", 2, 3);
	/* The proof: both inputs and the canary on every call. */
	progs[2] = scmpc_prog_insns(prog);
	lens[2] = scmpc_prog_len(prog);
	struct walker W;
	err = answer_walk(&W, progs, lens, 3, opts.max_paths, d);
	for (size_t i = 0; i < W.npaths && err >= 0; i++) {
		const uint32_t *r = &W.each[3 * i];
		if (answer_canary(r[0], r[1]) != r[2])
			err = diag_err(d, -EPROTO, NULL, "internal error: the canary returns %#x "
				       "where the enforced program returns %#x and the candidate %#x",
				       r[2], r[0], r[1]);
	}
	walker_fini(&W);
	if (err >= 0)
		progress_report(opts.progress, "canary", 3, 3);
	return answer_hand_out(err, prog, p, out, policy);
}

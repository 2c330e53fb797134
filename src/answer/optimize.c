/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Optimizing a program: lift it to the policy it decides, compile that in
 * each of scmpc's layouts, keep the best candidate that is no larger and
 * no longer on its worst path than the input (or the input itself), and
 * prove the result decides every call of the kept ABIs as the input does,
 * with the engine walking both side by side.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "answer/answer.h"
#include "arch/arch.h"
#include "compiler/compile.h"

/* Whether path P holds calls of one of the kept ABIs (every ABI when
 * none is named): an AUDIT_ARCH of theirs with a number of theirs (under
 * x86_64's, x32 owns the numbers from bit 30 up). */
static bool kept(const struct path *p, const struct scmpc_lift_opts *o)
{
	if (!o || !o->narches)
		return true;
	for (size_t i = 0; i < o->narches; i++) {
		enum scmpc_arch a = o->arches[i];
		if (!wcon_has(&p->w[W_ARCH], scmpc_arch_audit(a)))
			continue;
		struct wcon nr = p->w[W_NR];
		if (a == SCMPC_ARCH_X86_64 && nr.hi >= X32_SYSCALL_BIT)
			nr.hi = X32_SYSCALL_BIT - 1;
		if (a == SCMPC_ARCH_X32 && nr.lo < X32_SYSCALL_BIT)
			nr.lo = X32_SYSCALL_BIT;
		if (nr.lo <= nr.hi && wcon_feasible(&nr))
			return true;
	}
	return false;
}

/* The longest path of PROG over the kept ABIs' calls. */
static int worst_path(const struct sock_filter *prog, size_t len, const struct scmpc_lift_opts *o,
		      unsigned *worst, scmpc_diag *d)
{
	const struct sock_filter *progs[1] = { prog };
	struct walker W;
	int err = answer_walk(&W, progs, &len, 1, o ? o->max_paths : 0, d);
	*worst = 0;
	for (size_t i = 0; i < W.npaths && err >= 0; i++)
		if (kept(&W.paths[i], o) && W.paths[i].len > *worst)
			*worst = W.paths[i].len;
	walker_fini(&W);
	return err;
}

SCMPC_API int scmpc_optimize(const struct sock_filter *insns, size_t len,
			     const struct scmpc_lift_opts *o, scmpc_prog **out,
			     scmpc_policy **policy, struct scmpc_optimize_info *info,
			     scmpc_diag *d)
{
	struct scmpc_optimize_info res = { .sz = sizeof(res) };
	scmpc_policy *p = NULL;
	scmpc_prog *best = NULL, *smallest = NULL;
	unsigned best_worst = 0;
	int err;

	if (!out || (info && info->sz < offsetof(struct scmpc_optimize_info, kept_input) +
						 sizeof(info->kept_input)))
		return diag_err(d, -EINVAL, NULL, "no place for the program, or a malformed "
				"struct scmpc_optimize_info");
	*out = NULL;
	if (policy)
		*policy = NULL;
	/* steps: the lift, the input's worst path, three candidates, the
	 * proof; an old caller's sz may not reach progress */
	const struct scmpc_progress *pr =
		o && o->sz >= OPTS_END(scmpc_lift_opts, progress) ? o->progress : NULL;
	enum { STEPS = 6 };
	if ((err = scmpc_lift(insns, len, o, &p, d)) < 0)
		return err;
	progress_report(pr, "optimize", 1, STEPS);
	bool changes = o && (o->narches || (o->flags & SCMPC_LIFT_BAD_ARCH));
	res.old_len = len;
	if ((err = worst_path(insns, len, o, &res.old_worst, d)) < 0)
		goto out;
	progress_report(pr, "optimize", 2, STEPS);

	/* The candidates: scmpc's default layout, then for size, then for
	 * the path; the first that beats the input on size (and does not
	 * lose on the worst path) or ties on size and wins on the path. */
	/* A candidate is checked against the policy once it is kept (below),
	 * not as it is compiled: two of three were checked for nothing, each
	 * a fifth of issue #24's optimize of 1,334 instructions. */
	static const unsigned layouts[] = { 0, SCMPC_COMPILE_SMALLEST, SCMPC_COMPILE_SHORTEST };
	char unfit[256] = "";
	/* The layout for size goes first, though it is weighed second: when
	 * even it is larger than the input (which it must beat unless other
	 * ABIs' actions change), the other two, never smaller (size.c), are
	 * not compiled.  That is most lifted policies of 2,400 instructions
	 * and more, and two of three compiles, 2.3 s of issue #24's 3,574. */
	int smallest_err = 0;
	bool none_smaller = false;
	if (!changes) {
		struct scmpc_compile_opts co = { .sz = sizeof(co), .flags = SCMPC_COMPILE_SMALLEST |
										SCMPC_COMPILE_NO_VERIFY };
		smallest_err = compile_policy(p, &co, &smallest, NULL, NULL, d);
		if (smallest_err < 0 && smallest_err != -E2BIG) {
			err = smallest_err;
			goto out;
		}
		/* Past the kernel's limit or a bound for size, every layout
		 * is (below): the loop meets it on the first layout weighed. */
		none_smaller = smallest_err == 0 && scmpc_prog_len(smallest) > len;
		if (none_smaller)
			progress_report(pr, "optimize", 2 + ARRAY_SIZE(layouts), STEPS);
	}
	for (size_t k = 0; k < ARRAY_SIZE(layouts) && !none_smaller; k++) {
		struct scmpc_compile_opts co = { .sz = sizeof(co),
						 .flags = layouts[k] | SCMPC_COMPILE_NO_VERIFY };
		scmpc_prog *cand = NULL;
		unsigned w = 0;
		/* compile_policy(), not scmpc_compile(): past 4096 instructions
		 * the latter looks for a stack of programs to name in its
		 * message, three times the compile's own time (5.4 s of 6.9 on
		 * issue #24's 2,778 instructions), for a hint optimize drops. */
		if ((layouts[k] == SCMPC_COMPILE_SMALLEST || smallest_err == -E2BIG) && !changes) {
			err = smallest_err;
			cand = smallest;
			smallest = NULL;
		} else {
			err = compile_policy(p, &co, &cand, NULL, NULL, d);
		}
		if (err == -E2BIG) {
			/* Too large for the kernel or past a bound of the
			 * compiler's: the input stays, and the other layouts
			 * are not tried, for they differ only in how a program
			 * that fits is laid out (compiler/size.c) and would
			 * stop alike, at the same cost. */
			snprintf(unfit, sizeof(unfit), "%s", scmpc_diag_message(d));
			progress_report(pr, "optimize", 2 + ARRAY_SIZE(layouts), STEPS);
			break;
		}
		if (err < 0)
			goto out;
		size_t cl = scmpc_prog_len(cand);
		size_t bl = best ? scmpc_prog_len(best) : len;
		unsigned bw = best ? best_worst : res.old_worst;
		/* Larger than the program to beat, it cannot be kept (unless
		 * it is the first of changed ABIs): its worst path is not
		 * needed. */
		if (cl > bl && (best || !changes)) {
			scmpc_prog_free(cand);
			progress_report(pr, "optimize", 3 + k, STEPS);
			continue;
		}
		err = worst_path(scmpc_prog_insns(cand), cl, o, &w, d);
		if (err < 0) {
			scmpc_prog_free(cand);
			goto out;
		}
		/* Kept ABIs or a bad-arch action of the caller's change what the
		 * other ABIs get: the input is no candidate then. */
		bool better = cl <= bl && w <= bw && (cl < bl || w < bw);
		if (!best && changes)
			better = true;
		else if (best && changes && !better)
			better = cl < bl || (cl == bl && w < bw);
		if (better) {
			scmpc_prog_free(best);
			best = cand;
			best_worst = w;
		} else {
			scmpc_prog_free(cand);
		}
		progress_report(pr, "optimize", 3 + k, STEPS);
	}
	/* Of other ABIs' actions, the input is no candidate to keep. */
	if (!best && unfit[0] && changes) {
		err = diag_err(d, -E2BIG, NULL, "%s", unfit);
		goto out;
	}
	err = 0;
	/* The check scmpc_compile() skipped: the policy handed out decides
	 * as the program kept, the input itself when no candidate was (and
	 * the policy wanted), so that the proof below covers it too. */
	const struct sock_filter *chk = best ? scmpc_prog_insns(best) : insns;
	size_t chklen = best ? scmpc_prog_len(best) : len;
	if ((best || policy) && (err = scmpc_verify_policy(p, chk, chklen, d)) < 0) {
		if (err == -EPROTO) {
			char msg[512];
			snprintf(msg, sizeof(msg), "%s", scmpc_diag_message(d));
			err = diag_err(d, err, NULL, "internal error: %s disagrees with the "
				       "lifted policy: %s", best ? "the compiled program" : "the input",
				       msg);
		}
		goto out;
	}
	if (!best) {
		res.kept_input = true;
		if (unfit[0])
			snprintf(res.kept_why, sizeof(res.kept_why), "the lifted policy compiles to "
				 "no program: %s", unfit);
		else
			snprintf(res.kept_why, sizeof(res.kept_why), "no layout of the lifted policy "
				 "is smaller without a longer worst path");
		if ((err = scmpc_prog_new(insns, len, &best, d)) < 0)
			goto out;
		best_worst = res.old_worst;
	}
	res.new_len = scmpc_prog_len(best);
	res.new_worst = best_worst;

	/* The proof: both programs on every call of the kept ABIs. */
	const struct sock_filter *both[2] = { insns, scmpc_prog_insns(best) };
	size_t lens[2] = { len, scmpc_prog_len(best) };
	struct walker W;
	err = answer_walk(&W, both, lens, 2, o ? o->max_paths : 0, d);
	for (size_t i = 0; i < W.npaths && err >= 0; i++)
		if (kept(&W.paths[i], o) && W.each[2 * i] != W.each[2 * i + 1])
			err = diag_err(d, -EPROTO, NULL, "internal error: the optimized program "
				       "returns %#x where the input returns %#x",
				       W.each[2 * i + 1], W.each[2 * i]);
	res.proof_paths = W.npaths;
	walker_fini(&W);
	if (err >= 0)
		progress_report(pr, "optimize", STEPS, STEPS);
out:
	scmpc_prog_free(smallest);
	if (err >= 0 && info)
		OUT_FILL(info, res);
	return answer_hand_out(err, best, p, out, policy);
}

/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Whether a program decides a set of calls as expected: the test lines of
 * `scmp-compile test` ("x86_64 openat(AT_FDCWD, *, O_RDONLY) -> ALLOW").
 * Every path of the program that meets the set is looked at, so an answer
 * of "yes" covers every call of it, each `*` included; "no" comes with a
 * call of the set on a path that returns something else.
 */
#include <stdlib.h>
#include "answer/answer.h"
#include "arch/arch.h"

/* The least number of NR within [LO, HI] outside the sorted EXCEPT list:
 * 1 (in *OUT), 0 none, -1 when the search gave up. */
static int number_in(const struct wcon *nr, uint32_t lo, uint32_t hi, const uint32_t *except,
		     size_t nexcept, uint32_t *out)
{
	uint64_t from = lo;
	size_t e = 0;
	while (from <= hi) {
		uint32_t x;
		int r = wcon_first(nr, (uint32_t)from, &x);
		if (r <= 0 || x > hi)
			return r < 0 ? -1 : 0;
		while (e < nexcept && except[e] < x)
			e++;
		if (e == nexcept || except[e] != x) {
			*out = x;
			return 1;
		}
		from = (uint64_t)x + 1;
	}
	return 0;
}

/* A value of word set C that is V, or any when ANY. */
static bool word_meets(const struct wcon *c, bool any, uint32_t v, uint32_t *out)
{
	if (any)
		return wcon_first(c, 0, out) == 1;
	*out = v;
	return wcon_has(c, v);
}

SCMPC_API int scmpc_expect(const struct sock_filter *insns, size_t len, const struct scmpc_calls *c,
			   uint32_t action, struct seccomp_data *witness, uint32_t *got,
			   scmpc_diag *d)
{
	const struct arch_info *ai = c ? arch_info(c->arch) : NULL;
	if (!c || c->sz < offsetof(struct scmpc_calls, args) + sizeof(c->args) || !ai ||
	    !witness || !got || c->nr_lo > c->nr_hi || (c->nexcept && !c->except) ||
	    (c->any_args & ~0x3fU))
		return diag_err(d, -EINVAL, NULL, "a malformed set of calls or no place for a witness");
	for (size_t i = 1; i < c->nexcept; i++)
		if (c->except[i - 1] >= c->except[i])
			return diag_err(d, -EINVAL, NULL, "the numbers left out are not sorted");
	const struct sock_filter *progs[1] = { insns };
	struct walker W;
	int err = answer_walk(&W, progs, &len, 1, 0, d), found = 0;
	for (size_t i = 0; i < W.npaths && err >= 0 && !found; i++) {
		const struct path *p = &W.paths[i];
		if (p->ret == action || !wcon_has(&p->w[W_ARCH], ai->audit))
			continue;
		uint32_t w[NWORDS], nr;
		int r = number_in(&p->w[W_NR], c->nr_lo, c->nr_hi, c->except, c->nexcept, &nr);
		if (r < 0) {
			err = diag_err(d, -E2BIG, NULL, "the search for a number gave up");
			break;
		}
		if (r == 0)
			continue;
		bool meets = true;
		for (unsigned k = 0; k < NWORDS && meets; k++) {
			if (k == W_NR || k == W_ARCH)
				continue;
			if (k < W_ARGS) {
				meets = word_meets(&p->w[k], true, 0, &w[k]);
				continue;
			}
			unsigned arg = (k - W_ARGS) / 2;
			bool high = arch_arg_offset(ai, arg, true) / 4 == k;
			bool any = (c->any_args & (1U << arg)) || (high && ai->compat32);
			uint32_t v = (uint32_t)(high ? c->args[arg] >> 32 : c->args[arg]);
			meets = word_meets(&p->w[k], any, v, &w[k]);
		}
		if (!meets)
			continue;
		w[W_NR] = nr;
		w[W_ARCH] = ai->audit;
		words_to_data(w, witness);
		if ((err = scmpc_emulate(insns, len, witness, got, NULL)) >= 0 && *got != p->ret)
			err = diag_err(d, -EPROTO, NULL, "internal error: the program returns %#x for "
				       "the witness where the engine says %#x", *got, p->ret);
		found = 1;
	}
	walker_fini(&W);
	if (err < 0)
		return err;
	return found ? 0 : 1;
}

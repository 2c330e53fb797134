/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Probe vectors of one call's arguments (check.h): the values around each
 * constant the call's rules compare with, combined over the arguments.
 * The semantic check no longer samples; split.c still tries a stack of
 * programs on these, and the tests show with them which faults a sample
 * misses.
 */
#include <stdlib.h>
#include "check/check.h"

#define MAX_COMBOS (1u << 15)

/* Add constant C and its neighbours, per word and across the words, to S; false without memory. */
static bool add_around(struct u64set *s, uint64_t c)
{
	uint64_t lo = c & 0xffffffffULL, hi = c >> 32;
	uint64_t vs[] = {
		c - 1, c, c + 1,
		lo,				/* high word cleared */
		lo | 0xffffffff00000000ULL,	/* high word all ones (sign extension) */
		c ^ (1ULL << 32),		/* one high bit flipped */
		((hi + 1) << 32) | lo, ((hi - 1) << 32) | lo,
		(hi << 32) | ((lo - 1) & 0xffffffffULL), (hi << 32) | ((lo + 1) & 0xffffffffULL),
	};
	for (size_t i = 0; i < ARRAY_SIZE(vs); i++)
		if (!u64set_add(s, vs[i]))
			return false;
	return true;
}

long probe_args(const scmpc_policy *p, const struct arch_view *v, uint32_t nr,
		uint64_t (**out)[6])
{
	static const uint64_t fixed[] = { 0, 1, 0x7fffffff, 0x80000000, 0xffffffff,
					  0x100000000ULL, 0xffffffff80000000ULL, UINT64_MAX };
	struct u64set sets[6] = { 0 };
	bool used[6] = { false };
	size_t lo, hi;
	long count = -ENOMEM;
	uint64_t (*vec)[6] = NULL;

	arch_view_find(v, nr, &lo, &hi);
	bool any_cond = false;
	for (size_t i = lo; i < hi; i++)
		any_cond |= view_rule(p, v, i)->nconds > 0;
	if (!any_cond) {
		/* Nothing to combine: the three vectors that show no argument is read. */
		vec = calloc(3, sizeof(*vec));
		if (!vec)
			return -ENOMEM;
		for (unsigned a = 0; a < 6; a++) {
			vec[1][a] = UINT64_MAX;
			vec[2][a] = 0xdeadbeefcafebabeULL ^ ((uint64_t)a << 40);
		}
		*out = vec;
		return 3;
	}
	for (size_t i = lo; i < hi; i++) {
		const struct rule *r = view_rule(p, v, i);
		for (size_t k = 0; k < r->nconds; k++) {
			const struct scmpc_cond *c = &r->conds[k];
			struct u64set *s = &sets[c->arg];
			used[c->arg] = true;
			if (!add_around(s, c->value))
				goto out;
			if (c->op == SCMPC_OP_MASKED_EQ) {
				if (!add_around(s, c->value2) || !u64set_add(s, c->value2 | ~c->value))
					goto out;
				for (unsigned b = 0; b < 64; b++)
					if (((c->value >> b) & 1) && !u64set_add(s, c->value2 ^ (1ULL << b)))
						goto out;
			}
		}
	}
	size_t combos = 1;
	for (unsigned a = 0; a < 6; a++) {
		if (!used[a]) {
			if (!u64set_add(&sets[a], 0))
				goto out;
			continue;
		}
		for (size_t i = 0; i < ARRAY_SIZE(fixed); i++)
			if (!u64set_add(&sets[a], fixed[i]))
				goto out;
		u64set_sort_unique(&sets[a]);
		combos = combos > MAX_COMBOS ? combos : combos * sets[a].n;
	}

	/* Three vectors check that an argument-free decision reads no argument;
	 * the product covers every combination of the tested arguments, or,
	 * when it is too large, every value of each argument against every
	 * value of each other one (all pairs) plus a seeded sample. */
	size_t extra = 2, nvec;
	bool full = combos <= MAX_COMBOS;
	size_t pairs = 0;
	if (!full)
		for (unsigned a = 0; a < 6; a++)
			for (unsigned b = a + 1; b < 6; b++)
				pairs += sets[a].n * sets[b].n;
	nvec = (full ? combos : pairs + MAX_COMBOS) + extra;
	vec = calloc(nvec, sizeof(*vec));
	if (!vec)
		goto out;
	size_t n = 0;
	if (full) {
		size_t idx[6] = { 0 };
		for (size_t c = 0; c < combos; c++) {
			for (unsigned a = 0; a < 6; a++)
				vec[n][a] = sets[a].v[idx[a]];
			n++;
			for (unsigned a = 0; a < 6; a++) {
				if (++idx[a] < sets[a].n)
					break;
				idx[a] = 0;
			}
		}
	} else {
		for (unsigned a = 0; a < 6; a++)
			for (unsigned b = a + 1; b < 6; b++)
				for (size_t i = 0; i < sets[a].n; i++)
					for (size_t j = 0; j < sets[b].n; j++, n++) {
						for (unsigned k = 0; k < 6; k++)
							vec[n][k] = sets[k].v[0];
						vec[n][a] = sets[a].v[i];
						vec[n][b] = sets[b].v[j];
					}
		uint64_t x = 0x9e3779b97f4a7c15ULL ^ nr;
		for (size_t s = 0; s < MAX_COMBOS; s++, n++)
			for (unsigned a = 0; a < 6; a++) {
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
				vec[n][a] = sets[a].v[x % sets[a].n];
			}
	}
	for (unsigned a = 0; a < 6; a++) {
		vec[n][a] = UINT64_MAX;
		vec[n + 1][a] = 0xdeadbeefcafebabeULL ^ ((uint64_t)a << 40);
	}
	n += 2;
	*out = vec;
	vec = NULL;
	count = (long)n;
out:
	free(vec);
	for (unsigned a = 0; a < 6; a++)
		free(sets[a].v);
	return count;
}


/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Lifting: the paths per ABI, cut into segments of numbers. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "program/lift.h"

/* ------------------------------------------------------------- analysis */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Under x86_64's AUDIT_ARCH, numbers from 0x40000000 up reach x32's rules
 * (arch_of_call()), but a limit is chosen by bit 30 (call_limit()): these,
 * with bit 30 clear, fall under x86_64's limit. */

/* The numbers that reach ABI A's rules (-1 is decided apart), in blocks
 * that no segment crosses: x32's middle one is R3. */
static void abi_blocks(struct abi *ab)
{
	ab->nblk = 1;
	ab->blk[0][0] = 0;
	ab->blk[0][1] = 0xfffffffeU;
	if (ab->arch == SCMPC_ARCH_X86_64) {
		ab->blk[0][1] = X32_SYSCALL_BIT - 1;
	} else if (ab->arch == SCMPC_ARCH_X32) {
		ab->nblk = 3;
		ab->blk[0][0] = X32_SYSCALL_BIT;
		ab->blk[0][1] = R3_LO - 1;
		ab->blk[1][0] = R3_LO;
		ab->blk[1][1] = R3_HI;
		ab->blk[2][0] = R3_HI + 1;
		ab->blk[2][1] = 0xfffffffeU;
	}
}

static bool blk_start(const struct abi *ab, uint32_t n)
{
	for (size_t k = 0; k < ab->nblk; k++)
		if (ab->blk[k][0] == n)
			return true;
	return false;
}

/* Whether all paths of IDX[FIRST..FIRST+N) return the same; *RET gets it. */
static bool same_ret(const struct walker *L, const uint32_t *idx, uint32_t first, uint32_t n,
		     uint32_t *ret)
{
	*ret = L->paths[idx[first]].ret;
	for (uint32_t i = 1; i < n; i++)
		if (L->paths[idx[first + i]].ret != *ret)
			return false;
	return true;
}

static bool abi_idx_add(struct abi *ab, size_t *cap, uint32_t path)
{
	if (!array_reserve(&ab->idx, cap, ab->nidx, sizeof(*ab->idx), 256))
		return false;
	ab->idx[ab->nidx++] = path;
	return true;
}

/* Cut ABI AB's numbers into segments, and find its -1 decision. */
int lift_abi_build(struct walker *L, struct abi *ab)
{
	struct ivals iv = { 0 };
	uint64_t *b = NULL;
	uint32_t *cnt = NULL, *pos = NULL;
	size_t capidx = 0, capseg = 0;
	uint32_t audit = ab->info->audit;
	int err = 0;

	abi_blocks(ab);
	for (size_t i = 0; i < L->npaths; i++) {
		const struct path *p = &L->paths[i];
		if (!wcon_has(&p->w[W_ARCH], audit))
			continue;
		for (size_t k = 0; k < ab->nblk && !err; k++)
			err = wcon_intervals(&p->w[W_NR], ab->blk[k][0], ab->blk[k][1], (uint32_t)i, &iv);
		if (err == -E2BIG) {
			err = walk_err(L, err, p->prog, p->insn,
				   "the syscall numbers that reach this return split into more "
				   "than %d intervals; not lifted", MAX_INTERVALS);
			goto out;
		}
		if (err < 0)
			goto oom;
	}
	size_t nb = 0;
	b = malloc((2 * iv.n + 1) * sizeof(*b));
	if (!b)
		goto oom;
	for (size_t i = 0; i < iv.n; i++) {
		b[nb++] = iv.v[i].lo;
		b[nb++] = (uint64_t)iv.v[i].hi + 1;
	}
	qsort(b, nb, sizeof(*b), cmp_u64);
	size_t u = 0;
	for (size_t i = 0; i < nb; i++)
		if (!u || b[i] != b[u - 1])
			b[u++] = b[i];
	nb = u;
	/* Elementary segment j is [b[j], b[j+1]); count its paths, then file
	 * them (a CSR table: pos[j] .. pos[j+1]). */
	cnt = calloc(nb + 1, sizeof(*cnt));
	pos = calloc(nb + 1, sizeof(*pos));
	if (!cnt || !pos)
		goto oom;
	for (size_t i = 0; i < iv.n; i++) {
		uint64_t *at = bsearch(&(uint64_t){ iv.v[i].lo }, b, nb, sizeof(*b), cmp_u64);
		for (size_t j = (size_t)(at - b); j + 1 < nb && b[j] <= iv.v[i].hi; j++)
			cnt[j]++;
	}
	uint32_t total = 0;
	for (size_t j = 0; j < nb; j++) {
		pos[j] = total;
		total += cnt[j];
	}
	ab->idx = malloc(((size_t)total + 1) * sizeof(*ab->idx));
	if (!ab->idx)
		goto oom;
	capidx = (size_t)total + 1;
	ab->nidx = total;
	memset(cnt, 0, (nb + 1) * sizeof(*cnt));
	for (size_t i = 0; i < iv.n; i++) {
		uint64_t *at = bsearch(&(uint64_t){ iv.v[i].lo }, b, nb, sizeof(*b), cmp_u64);
		for (size_t j = (size_t)(at - b); j + 1 < nb && b[j] <= iv.v[i].hi; j++)
			ab->idx[pos[j] + cnt[j]++] = iv.v[i].path;
	}
	for (size_t j = 0; j + 1 < nb; j++) {
		if (!cnt[j])
			continue;	/* between the ABI's blocks */
		struct seg s = { .lo = (uint32_t)b[j], .hi = (uint32_t)(b[j + 1] - 1), .first = pos[j],
				 .n = cnt[j] };
		s.dep = !same_ret(L, ab->idx, s.first, s.n, &s.ret);
		struct seg *prev = ab->nsegs ? &ab->segs[ab->nsegs - 1] : NULL;
		if (prev && prev->hi + 1 == s.lo && !blk_start(ab, s.lo) && prev->dep == s.dep &&
		    (s.dep ? prev->n == s.n && !memcmp(&ab->idx[prev->first], &ab->idx[s.first],
							 s.n * sizeof(*ab->idx))
			   : prev->ret == s.ret)) {
			prev->hi = s.hi;
			continue;
		}
		if (!array_reserve(&ab->segs, &capseg, ab->nsegs, sizeof(*ab->segs), 64))
			goto oom;
		ab->segs[ab->nsegs++] = s;
	}
	/* Every number reaches some path: the paths cover every call. */
	uint64_t covered = 0, want = 0;
	for (size_t j = 0; j < ab->nsegs; j++)
		covered += (uint64_t)ab->segs[j].hi - ab->segs[j].lo + 1;
	for (size_t k = 0; k < ab->nblk; k++)
		want += (uint64_t)ab->blk[k][1] - ab->blk[k][0] + 1;
	if (covered != want) {
		err = diag_err(L->d, -EPROTO, NULL, "internal error: the paths of the program "
			       "do not cover every syscall number of %s", ab->info->name);
		goto out;
	}
	/* -1, under this AUDIT_ARCH whatever bit 30 says. */
	ab->m1.first = (uint32_t)ab->nidx;
	for (size_t i = 0; i < L->npaths; i++)
		if (wcon_has(&L->paths[i].w[W_ARCH], audit) &&
		    wcon_has(&L->paths[i].w[W_NR], 0xffffffffU) && !abi_idx_add(ab, &capidx, (uint32_t)i))
			goto oom;
	ab->m1.n = (uint32_t)(ab->nidx - ab->m1.first);
	if (!ab->m1.n) {
		err = diag_err(L->d, -EPROTO, NULL, "internal error: no path of the program "
			       "decides nr -1 on %s", ab->info->name);
		goto out;
	}
	ab->m1.dep = !same_ret(L, ab->idx, ab->m1.first, ab->m1.n, &ab->m1.ret);
	goto out;
oom:
	err = diag_err(L->d, -ENOMEM, NULL, "out of memory");
out:
	free(iv.v);
	free(b);
	free(cnt);
	free(pos);
	return err;
}

/* A decision that depends on the arguments must depend on nothing a rule
 * cannot test: not on instruction_pointer, and on a 32-bit ABI not on an
 * argument's high word (which the policy never compares there). */
int lift_dep_check(const struct walker *L, const struct abi *ab, const uint32_t *idx,
		     uint32_t n, uint32_t nr)
{
	bool be = ab->info->big_endian;
	for (uint32_t i = 0; i < n; i++) {
		const struct path *p = &L->paths[idx[i]];
		for (unsigned w = W_IP; w < W_ARGS; w++)
			if (!wcon_trivial(&p->w[w]))
				return walk_err(L, -ENOTSUP, p->w[w].prog, p->w[w].insn,
					    "on %s the decision of nr %#x depends on "
					    "instruction_pointer, which a policy cannot test",
					    ab->info->name, nr);
		if (!ab->info->compat32)
			continue;
		for (unsigned a = 0; a < 6; a++) {
			const struct wcon *c = &p->w[arg_word(a, true, be)];
			if (!wcon_trivial(c))
				return walk_err(L, -ENOTSUP, c->prog, c->insn,
					    "on %s the decision of nr %#x depends on the high word "
					    "of args[%u], which a policy for a 32-bit ABI never "
					    "compares", ab->info->name, nr, a);
		}
	}
	return 0;
}


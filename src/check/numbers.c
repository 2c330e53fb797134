/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The number space of one AUDIT_ARCH value as the policy sees it
 * (judge.h): runs of numbers that one action decides whatever the
 * arguments, and the named numbers whose rules read the arguments.
 *
 * policy_decide() for a call of a known AUDIT_ARCH reads the number only
 * through: runc's stub (above its bound, or 0 with SCMPC_LIMIT_ZERO; bit
 * 30 choosing x32's stub on x86_64), -1, x32's bit choosing the view,
 * the numbers the view's rules name, the unknown-syscall threshold and
 * ARM's private range.  Cut at each of those the space falls into runs
 * on which the decision cannot change, so deciding each run at its first
 * number decides all of it.
 */
#include <stdlib.h>
#include <string.h>
#include "check/judge.h"

struct cuts {
	uint32_t *v;
	size_t n, cap;
};

/* A run starts at X (X = 2^32: none does). */
static bool cut_at(struct cuts *c, uint64_t x)
{
	if (x > UINT32_MAX)
		return true;
	if (!array_reserve(&c->v, &c->cap, c->n, sizeof(*c->v), 256))
		return false;
	c->v[c->n++] = (uint32_t)x;
	return true;
}

/* Sort by bytes, least significant first: the cuts are a few thousand
 * numbers on every compile, where qsort's comparisons cost more than the
 * runs are worth. */
static bool radix_sort(uint32_t *v, size_t n)
{
	uint32_t *tmp = malloc((n ? n : 1) * sizeof(*tmp));
	if (!tmp)
		return false;
	uint32_t *src = v, *dst = tmp;
	for (unsigned shift = 0; shift < 32; shift += 8) {
		size_t count[257] = { 0 };
		for (size_t i = 0; i < n; i++)
			count[((src[i] >> shift) & 0xff) + 1]++;
		for (size_t b = 1; b <= 256; b++)
			count[b] += count[b - 1];
		for (size_t i = 0; i < n; i++)
			dst[count[(src[i] >> shift) & 0xff]++] = src[i];
		uint32_t *t = src;
		src = dst;
		dst = t;
	}
	/* an even number of passes: the result is back in V */
	free(tmp);
	return true;
}

/* The numbers where the policy's decision of AUDIT's calls can change: rules, thresholds, limits,
 * fixed bounds. */
static bool collect_cuts(struct cuts *c, const scmpc_policy *p, const struct arch_view *views,
			 uint32_t audit)
{
	static const uint64_t fixed[] = { 0, 1, X32_SYSCALL_BIT, 0x80000000U, 0xc0000000U,
					  UINT32_MAX };
	bool ok = true;
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]) && ok; i++)
		ok = cut_at(c, fixed[i]);
	for (int a = 1; a <= SCMPC_ARCH_COUNT && ok; a++)
		if (p->limits[a].set)
			ok = cut_at(c, (uint64_t)p->limits[a].max + 1);
	for (size_t k = 0; k < p->narches && ok; k++) {
		const struct arch_view *v = &views[k];
		uint32_t plo, phi;
		if (v->info->audit != audit)
			continue;
		ok = cut_at(c, (uint64_t)v->threshold + 1);
		if (ok && arch_private_range(v->info, &plo, &phi))
			ok = cut_at(c, plo) && cut_at(c, (uint64_t)phi + 1);
		for (size_t i = 0; i < v->nrs && ok; i++)
			ok = cut_at(c, v->rs[i].nr) && cut_at(c, (uint64_t)v->rs[i].nr + 1);
	}
	if (!ok || !radix_sort(c->v, c->n))
		return false;
	size_t m = 0;
	for (size_t i = 0; i < c->n; i++)
		if (!m || c->v[m - 1] != c->v[i])
			c->v[m++] = c->v[i];
	c->n = m;
	return true;
}

/* policy_decide() for AUDIT (one of P's) and NR, up to the rules: 1 with
 * *V when V's rules for NR decide, else 0 with the action. */
static int decide(const scmpc_policy *p, const struct arch_view *views, uint32_t audit,
		  uint32_t nr, const struct arch_view **v, uint32_t *act)
{
	const struct limit *l = call_limit(p, audit, nr);
	size_t lo, hi;
	if (limit_hits(l, nr)) {
		*act = l->action;
		return 0;
	}
	if (nr == UINT32_MAX) {
		*v = minus1_view(p, views, audit, &lo, &hi);
		*act = p->def_action;
		return *v != NULL;
	}
	enum scmpc_arch a = arch_of_call(audit, nr);
	for (size_t i = 0; i < p->narches; i++) {
		if (views[i].arch != a)
			continue;
		arch_view_find(&views[i], nr, &lo, &hi);
		if (lo < hi || view_tree(&views[i], nr)) {
			*v = &views[i];
			return 1;
		}
		*act = arch_view_fallback(p, &views[i], nr);
		return 0;
	}
	*act = p->badarch_action;
	return 0;
}

static bool seg_add(struct nr_map *m, uint32_t lo, uint32_t hi, uint32_t act,
		    struct call_rules *call)
{
	struct nr_seg *last = m->nseg ? &m->seg[m->nseg - 1] : NULL;
	if (last && !call && !last->call && last->action == act) {
		last->hi = hi;	/* one action on both: one run */
		return true;
	}
	if (!array_reserve(&m->seg, &m->capseg, m->nseg, sizeof(*m->seg), 64))
		return false;
	m->seg[m->nseg++] = (struct nr_seg){ lo, hi, act, call };
	return true;
}

int nr_map_init(struct nr_map *m, const scmpc_policy *p, const struct arch_view *views,
		uint32_t audit)
{
	struct cuts c = { 0 };
	int err = -ENOMEM;
	memset(m, 0, sizeof(*m));
	m->audit = audit;
	if (!collect_cuts(&c, p, views, audit))
		goto out;
	/* at most one call per run; none moves once made (segments point
	 * at them).  call_rules_init() clears each before it fills it, and
	 * only the first ncalls are read. */
	m->calls = malloc(c.n * sizeof(*m->calls));
	if (!m->calls)
		goto out;
	for (size_t i = 0; i < c.n; i++) {
		uint32_t lo = c.v[i], hi = i + 1 < c.n ? c.v[i + 1] - 1 : UINT32_MAX, act;
		const struct arch_view *v = NULL;
		struct call_rules *call = NULL;
		if (decide(p, views, audit, lo, &v, &act)) {
			/* a named number: its own run, as lo + 1 is a cut */
			call = &m->calls[m->ncalls];
			int r = call_rules_init(call, p, v, lo, &act);
			if (r < 0)
				goto out;
			if (r == 0)
				call = NULL;
			else
				m->ncalls++;
		}
		if (!seg_add(m, lo, hi, act, call))
			goto out;
	}
	err = 0;
out:
	free(c.v);
	if (err < 0)
		nr_map_fini(m);
	return err;
}

void nr_map_fini(struct nr_map *m)
{
	for (size_t i = 0; i < m->ncalls; i++)
		call_rules_fini(&m->calls[i]);
	free(m->calls);
	free(m->seg);
	memset(m, 0, sizeof(*m));
}

size_t nr_map_find(const struct nr_map *m, uint32_t nr)
{
	size_t a = 0, b = m->nseg;
	while (a < b) {
		size_t mid = a + (b - a) / 2;
		if (m->seg[mid].hi < nr)
			a = mid + 1;
		else
			b = mid;
	}
	return a;
}

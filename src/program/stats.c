/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * What a program costs, measured the way the kernel would run it: the
 * instructions executed for each syscall number (argument-free decisions
 * and, exactly, the longest and shortest path of each call whose decision
 * depends on its arguments), and which numbers the kernel's action cache
 * would serve without running it.  The figures come from the engine's
 * paths, every input covered: no argument value is sampled.
 */
#include <stdlib.h>
#include <string.h>
#include "bpf/bpf.h"
#include "engine/engine.h"
#include "policy/policy.h"

#define DEFAULT_PROBE 1024
#define DEFAULT_NR_COUNT 470	/* Linux 6.18: x86_64 and i386 tables end at 469 */

/* What the paths say of one number. */
struct nr_fig {
	bool seen;
	bool depends;		/* paths with other returns hold for it */
	uint32_t ret;		/* the first path's */
	uint32_t worst, best;	/* path lengths */
	uint32_t zero;		/* the length with every argument 0 */
};

/* Whether every argument word and the instruction pointer of P may be 0. */
static bool zero_args(const struct path *p)
{
	for (unsigned w = W_IP; w < NWORDS; w++)
		if (!wcon_has(&p->w[w], 0))
			return false;
	return true;
}

/* The figures of ST for one ABI, from every path of the program over the numbers probed and those
 * the cache bitmap covers. */
static int arch_stats(const struct arch_info *ai, const struct sock_filter *insns, size_t len,
		      uint32_t limit, uint32_t nr_count, struct scmpc_arch_stats *st, scmpc_diag *d)
{
	uint32_t base = ai->nr_base;
	uint32_t span = limit > nr_count ? limit : nr_count;
	const struct sock_filter *progs[1] = { insns };
	struct walker W = { .progs = progs, .lens = &len, .n = 1, .mode = WALK_ONE,
			    .max_paths = 1000000, .d = d };
	struct nr_fig *f = calloc(span, sizeof(*f));
	struct ivals iv = { 0 };
	int err = f ? walk_paths(&W) : diag_err(d, -ENOMEM, NULL, "out of memory");

	for (size_t k = 0; k < W.npaths && err >= 0; k++) {
		const struct path *p = &W.paths[k];
		if (!wcon_has(&p->w[W_ARCH], ai->audit))
			continue;
		iv.n = 0;
		if ((err = wcon_intervals(&p->w[W_NR], base, base + span - 1, 0, &iv)) < 0) {
			err = diag_err(d, err, NULL, "the numbers of a path are too scattered");
			break;
		}
		bool zero = zero_args(p);
		for (size_t j = 0; j < iv.n; j++)
			for (uint64_t nr = iv.v[j].lo; nr <= iv.v[j].hi; nr++) {
				struct nr_fig *x = &f[nr - base];
				if (!x->seen) {
					*x = (struct nr_fig){ true, false, p->ret, p->len, p->len, 0 };
				} else {
					x->depends |= p->ret != x->ret;
					x->worst = p->len > x->worst ? p->len : x->worst;
					x->best = p->len < x->best ? p->len : x->best;
				}
				if (zero)
					x->zero = p->len;
			}
	}
	free(iv.v);
	walker_fini(&W);
	if (err < 0) {
		free(f);
		return err;
	}

	uint64_t sum = 0;
	uint32_t count = 0;
	st->arch = ai->arch;
	st->nr_probed = limit;
	for (uint32_t i = 0; i < span; i++) {
		const struct nr_fig *x = &f[i];
		if (x->depends) {
			if (i < limit) {
				if (st->nargsys < st->argsys_cap)
					st->argsys[st->nargsys] = (struct scmpc_argsys_stats){
						base + i, x->worst, x->best };
				st->nargsys++;
			}
			continue;
		}
		if (i < limit) {
			/* Argument-free: the path with zero arguments is the path. */
			sum += x->zero;
			count++;
			if (x->zero > st->worst_path)
				st->worst_path = x->zero;
		}
		if (i < nr_count && ai->cached) {
			if (x->ret == SCMPC_ACT_ALLOW)
				st->allow_unconditional++;
			if (scmpc_cache_const_allow(insns, len, ai->audit, base + i, NULL) == 1)
				st->cacheable++;
		}
	}
	free(f);
	st->mean_path = count ? (double)sum / count : 0.0;
	return 0;
}

SCMPC_API int scmpc_stats(const scmpc_policy *p, const struct sock_filter *insns, size_t len,
			  size_t i, const struct scmpc_stats_opts *o, struct scmpc_arch_stats *out,
			  scmpc_diag *d)
{
	struct scmpc_stats_opts opts;
	struct scmpc_arch_stats st;
	int err;

	if (!p || !insns || !out)
		return diag_err(d, -EINVAL, NULL, "scmpc_stats: no %s given",
				!p ? "policy" : !insns ? "program" : "output struct");
	if (i >= p->narches)
		return diag_err(d, -EINVAL, NULL, "scmpc_stats: the policy has %zu ABIs, no ABI %zu",
				p->narches, i);
	if (OPTS_VALID(o, scmpc_stats_opts, sz, d) ||
	    opts_check(out, out->sz, OPTS_END(scmpc_arch_stats, argsys_cap), sizeof(st),
		       "scmpc_arch_stats", d))
		return -EINVAL;
	OPTS_COPY(opts, o);
	/* The embedded cache options: sz 0 leaves them unset; a struct embedded
	 * in this one cannot be larger than this version's. */
	if (o && o->sz >= OPTS_END(scmpc_stats_opts, cache) && opts.cache.sz &&
	    (opts.cache.sz < OPTS_END(scmpc_cache_opts, sz) ||
	     opts.cache.sz > sizeof(opts.cache)))
		return diag_err(d, -EINVAL, NULL, "struct scmpc_stats_opts: cache.sz is %zu, not "
				"sizeof(struct scmpc_cache_opts)", opts.cache.sz);
	if (out->argsys_cap && !out->argsys)
		return diag_err(d, -EINVAL, NULL, "struct scmpc_arch_stats: argsys_cap is %zu but "
				"argsys is NULL", out->argsys_cap);
	uint32_t limit = opts.probe_limit ? opts.probe_limit : DEFAULT_PROBE;
	uint32_t nr_count = DEFAULT_NR_COUNT;
	if (o && o->sz >= offsetof(struct scmpc_stats_opts, cache) + sizeof(opts.cache) &&
	    opts.cache.sz >= offsetof(struct scmpc_cache_opts, nr_count) + sizeof(uint32_t) &&
	    opts.cache.nr_count)
		nr_count = opts.cache.nr_count;
	memset(&st, 0, sizeof(st));
	st.argsys = out->argsys;
	st.argsys_cap = out->argsys_cap;
	if ((err = arch_stats(arch_info(p->arches[i]), insns, len, limit, nr_count, &st, d)) < 0)
		return err;
	OUT_FILL(out, st);
	return 0;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * What a program costs, measured the way the kernel would run it: executed
 * instructions per syscall number (argument-free decisions) and per
 * argument-checked syscall (over the verifier's probe values), and which
 * numbers the kernel's action cache would serve without running it.
 */
#include <stdlib.h>
#include <string.h>
#include "check/check.h"
#include "bpf/bpf.h"

#define DEFAULT_PROBE 1024
#define DEFAULT_NR_COUNT 470	/* Linux 6.18: x86_64 and i386 tables end at 469 */

static int arch_stats(const scmpc_policy *p, const struct arch_view *v,
		      const struct sock_filter *insns, size_t len, uint32_t limit, uint32_t nr_count,
		      struct scmpc_arch_stats *st, scmpc_diag *d)
{
	uint32_t base = v->info->nr_base;
	uint64_t sum = 0;
	uint32_t count = 0;
	uint32_t span = limit > nr_count ? limit : nr_count;

	st->arch = v->arch;
	st->nr_probed = limit;
	for (uint32_t i = 0; i < span; i++) {
		uint32_t nr = base + i;
		uint64_t (*vec)[6] = NULL;
		struct call_index ix;
		long nv = probe_args(p, v, nr, &vec);
		if (nv < 0)
			return diag_err(d, (int)nv, NULL, "out of memory");
		if (call_index_init(&ix, p, v, nr) < 0) {
			free(vec);
			return diag_err(d, -ENOMEM, NULL, "out of memory");
		}
		struct seccomp_data sd = { .nr = (int)nr, .arch = v->info->audit };
		uint32_t first = 0;
		bool depends = false;
		unsigned worst = 0, best = UINT32_MAX;
		for (long k = 0; k < nv; k++) {
			uint32_t ret;
			unsigned steps;
			memcpy(sd.args, vec[k], sizeof(sd.args));
			uint32_t want = eval_indexed(p, v, &ix, &sd, NULL);
			if (k == 0)
				first = want;
			else if (want != first)
				depends = true;
			int err = scmpc_emulate(insns, len, &sd, &ret, &steps);
			if (err < 0) {
				call_index_fini(&ix);
				free(vec);
				return diag_err(d, err, NULL, "the program fails on nr %u", nr);
			}
			worst = steps > worst ? steps : worst;
			best = steps < best ? steps : best;
		}
		call_index_fini(&ix);
		free(vec);
		if (depends) {
			if (i < limit) {
				if (st->nargsys < st->argsys_cap)
					st->argsys[st->nargsys] = (struct scmpc_argsys_stats){
						nr, worst, best };
				st->nargsys++;
			}
			continue;
		}
		if (i < limit) {
			/* Argument-free: the path with zero arguments is the path. */
			uint32_t ret;
			unsigned steps;
			memset(sd.args, 0, sizeof(sd.args));
			scmpc_emulate(insns, len, &sd, &ret, &steps);
			sum += steps;
			count++;
			if (steps > st->worst_path)
				st->worst_path = steps;
		}
		if (i < nr_count && v->info->cached) {
			if (first == SCMPC_ACT_ALLOW)
				st->allow_unconditional++;
			if (scmpc_cache_const_allow(insns, len, v->info->audit, nr, NULL) == 1)
				st->cacheable++;
		}
	}
	st->mean_path = count ? (double)sum / count : 0.0;
	return 0;
}

SCMPC_API int scmpc_stats(const scmpc_policy *p, const struct sock_filter *insns, size_t len,
			  size_t i, const struct scmpc_stats_opts *o, struct scmpc_arch_stats *out,
			  scmpc_diag *d)
{
	struct scmpc_stats_opts opts;
	struct scmpc_arch_stats st;
	struct arch_view view;
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
	/* Only ABI I is measured, so only its view is made. */
	if ((err = arch_view_init(&view, p, p->arches[i], d)) < 0)
		return err;
	memset(&st, 0, sizeof(st));
	st.argsys = out->argsys;
	st.argsys_cap = out->argsys_cap;
	err = arch_stats(p, &view, insns, len, limit, nr_count, &st, d);
	arch_view_fini(&view);
	if (err < 0)
		return err;
	OUT_FILL(out, st);
	return 0;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Executed-path figures shared by the benchmarks (paths.h). */
#include "paths.h"
#include "internal.h"
#include "testutil.h"

#define PROBE_NRS 1024U

unsigned bench_steps(const struct sock_filter *insns, size_t len, const struct seccomp_data *sd)
{
	uint32_t ret;
	unsigned steps = 0;
	if (scmpc_emulate(insns, len, sd, &ret, &steps) < 0)
		return 0;
	return steps;
}

unsigned bench_worst_path(const scmpc_policy *p, const struct sock_filter *insns, size_t len,
			  unsigned *af)
{
	struct arch_view views[SCMPC_ARCH_COUNT];
	struct testutil_vecs vs = { 0 };
	unsigned worst = 0, free_worst = 0;
	if (policy_views_init(p, views, NULL) < 0)
		return 0;
	const struct arch_view *v = &views[0];
	for (uint32_t nr = 0; nr < PROBE_NRS; nr++) {
		struct seccomp_data sd = testutil_sd(v->arch, nr, NULL);
		unsigned st = bench_steps(insns, len, &sd);
		worst = st > worst ? st : worst;
		if (!arch_view_has_conds(p, v, nr))
			free_worst = st > free_worst ? st : free_worst;
		if (!arch_view_has_conds(p, v, nr) || testutil_arg_vectors(p, v, nr, &vs) < 0)
			continue;
		for (size_t j = 0; j < vs.n; j++) {
			sd = testutil_sd(v->arch, nr, vs.v[j]);
			st = bench_steps(insns, len, &sd);
			worst = st > worst ? st : worst;
		}
	}
	testutil_vecs_free(&vs);
	policy_views_fini(p, views, p->narches);
	if (af)
		*af = free_worst;
	return worst;
}

double bench_arg_rule_mean(const scmpc_policy *p, const struct sock_filter *insns, size_t len)
{
	enum scmpc_arch a = scmpc_policy_arch(p, 0);
	uint64_t sum = 0;
	unsigned n = 0;
	for (size_t i = 0; i < scmpc_policy_rule_count(p); i++) {
		struct scmpc_rule_info ri = { .sz = sizeof(ri) };
		uint64_t args[6];
		int64_t nr;
		if (scmpc_policy_rule(p, i, &ri) < 0 || !ri.nconds ||
		    scmpc_conds_witness(ri.conds, ri.nconds, args) < 0)
			continue;
		nr = ri.syscall ? scmpc_syscall_resolve(a, ri.syscall) : (int64_t)ri.nr;
		if (nr < 0)
			continue;
		struct seccomp_data sd = testutil_sd(a, (uint32_t)nr, args);
		sum += bench_steps(insns, len, &sd);
		n++;
	}
	return n ? (double)sum / n : -1;
}

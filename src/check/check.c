/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The semantic check's driver (check.h): a proof that a program decides
 * every call, every AUDIT_ARCH value, number and argument value, as the
 * policy does (policy_eval.c).
 *
 * The engine walks the program over the whole input space; its paths are
 * disjoint, cover every call, and each returns one value on a region of
 * calls.  Each path is judged as it is found: its AUDIT_ARCH values of
 * the policy's ABIs number by number run (numbers.c), a named number's
 * arguments by its rules or tree (judge.c, judge_tree.c), and the values
 * of no ABI of the policy as a whole, against the bad-arch action.  Where
 * the policy decides otherwise, the first call of that part is the
 * witness, run on the program and on the policy before it is reported.
 * What the engine cannot follow is an error, never a sample.
 */
#include <stdio.h>
#include <string.h>
#include "check/judge.h"
#include "bpf/bpf.h"

/* Paths of a program beyond which the check gives up; a compiled
 * program has a few per rule. */
#define CHECK_MAX_PATHS 4000000

struct check {
	const scmpc_policy *p;
	const struct arch_view *views;
	const struct sock_filter *insns;
	size_t len;
	struct nr_map maps[SCMPC_ARCH_COUNT];	/* one per AUDIT_ARCH value of P */
	size_t nmaps;
	bool only;				/* judge ONLY_NR of ONLY_AUDIT alone */
	uint32_t only_audit, only_nr;
	struct judge J;
	struct seccomp_data witness;
	scmpc_diag *d;
};

/* The call of R's first values with AUDIT and NR, laid out as the kernel
 * of AUDIT's byte order lays it: engine word i is the 32-bit load at
 * offset 4i, as scmpc_emulate() reads it. */
static int first_call(const struct region *r, uint32_t audit, uint32_t nr,
		      struct seccomp_data *sd)
{
	uint32_t w[NWORDS];
	bool be = audit_big_endian(audit);
	for (unsigned i = W_IP; i < NWORDS; i++)
		if (wcon_first(&r->w[i], 0, &w[i]) != 1)
			return -E2BIG;
	memset(sd, 0, sizeof(*sd));
	sd->nr = (int)nr;
	sd->arch = audit;
	for (unsigned i = 0; i < 7; i++) {
		unsigned hi = W_IP + 2 * i + (be ? 0 : 1), lo = W_IP + 2 * i + (be ? 1 : 0);
		uint64_t v = (uint64_t)w[hi] << 32 | w[lo];
		if (i == 0)
			sd->instruction_pointer = v;
		else
			sd->args[i - 1] = v;
	}
	return 0;
}

/* A call as text for messages: arch, number and name, instruction pointer when set, arguments. */
static void describe(char *buf, size_t len, const struct seccomp_data *sd)
{
	char name[64], ip[40] = "";
	enum scmpc_arch a = arch_of_call(sd->arch, (uint32_t)sd->nr);
	if (a == SCMPC_ARCH_NONE || !scmpc_syscall_name(a, (uint32_t)sd->nr, name, sizeof(name)))
		snprintf(name, sizeof(name), "?");
	/* the policy never reads it, a program may: named where it matters */
	if (sd->instruction_pointer)
		snprintf(ip, sizeof(ip), " ip 0x%llx", (unsigned long long)sd->instruction_pointer);
	snprintf(buf, len,
		 "arch 0x%08x nr %u (%s)%s args {0x%llx, 0x%llx, 0x%llx, 0x%llx, 0x%llx, 0x%llx}",
		 sd->arch, (uint32_t)sd->nr, name, ip, (unsigned long long)sd->args[0],
		 (unsigned long long)sd->args[1], (unsigned long long)sd->args[2],
		 (unsigned long long)sd->args[3], (unsigned long long)sd->args[4],
		 (unsigned long long)sd->args[5]);
}

/* The program returns RET on R (with AUDIT and NR), the policy ACT: name
 * the first call there, after both have been run on it. */
static int mismatch(struct check *C, const struct region *r, uint32_t audit, uint32_t nr,
		    uint32_t ret, uint32_t act)
{
	struct seccomp_data *sd = &C->witness;
	char where[256], rs[32], as[32], gs[32], ps[32];
	if (first_call(r, audit, nr, sd) < 0)
		return diag_err(C->d, -E2BIG, NULL,
				"the program returns %#x where the policy does not, but the search "
				"for a call there gave up", ret);
	describe(where, sizeof(where), sd);
	scmpc_action_str(ret, rs, sizeof(rs));
	scmpc_action_str(act, as, sizeof(as));
	uint32_t got = 0, want = policy_decide(C->p, C->views, sd, NULL);
	int err = scmpc_emulate(C->insns, C->len, sd, &got, NULL);
	if (err < 0 || got != ret || want != act) {
		/* the engine or the judge is wrong: no claim either way */
		scmpc_action_str(got, gs, sizeof(gs));
		scmpc_action_str(want, ps, sizeof(ps));
		return diag_err(C->d, -EPROTO, NULL,
				"internal error: the check finds %s returned as %s where the "
				"policy says %s, but running them gives %s (%d) and %s", where, rs,
				as, err < 0 ? "an error" : gs, err, ps);
	}
	return diag_err(C->d, -EPROTO, NULL, "%s: the program returns %s, the policy says %s",
			where, rs, as);
}

/* Path PA's calls with AUDIT (one of the policy's): every run of numbers
 * in its number set, judged. */
static int check_numbers(struct check *C, const struct nr_map *m, const struct path *pa)
{
	const struct wcon *N = &pa->w[W_NR];
	const struct region *r = (const struct region *)pa->w;
	uint32_t from = N->lo, to = N->hi;
	if (C->only) {
		if (m->audit != C->only_audit || !wcon_has(N, C->only_nr))
			return 0;
		from = to = C->only_nr;
	}
	for (size_t k = nr_map_find(m, from); k < m->nseg && m->seg[k].lo <= to; k++) {
		const struct nr_seg *s = &m->seg[k];
		if (s->call) {
			if (!wcon_has(N, s->lo))
				continue;
			C->J.want = pa->ret;
			int err = judge_call(&C->J, s->call, r);
			if (err > 0)
				return mismatch(C, &C->J.bad, m->audit, s->lo, pa->ret, C->J.bad_act);
			if (err < 0)
				return err;
			continue;
		}
		if (s->action == pa->ret)
			continue;
		/* a run decided alike: the path must hold none of it */
		uint32_t x;
		int got = wcon_first(N, s->lo > from ? s->lo : from, &x);
		if (got < 0)
			return diag_err(C->d, -E2BIG, NULL,
					"the search for a number of a path gave up (numbers %#x-%#x)",
					s->lo, s->hi);
		if (got == 0 || x > to)
			break;
		if (x <= s->hi)
			return mismatch(C, r, m->audit, x, pa->ret, s->action);
		/* the path's next number is further on: go to its run */
		k = nr_map_find(m, x) - 1;
	}
	return 0;
}

/* Judge one path of the walk: each of the policy's AUDIT_ARCH values on it, then the values of
 * none. */
static int check_path(struct walker *L, const struct path *pa, void *arg)
{
	struct check *C = arg;
	(void)L;
	struct wcon rest = pa->w[W_ARCH];
	for (size_t i = 0; i < C->nmaps; i++) {
		uint32_t audit = C->maps[i].audit;
		if (!wcon_has(&pa->w[W_ARCH], audit))
			continue;
		int err = check_numbers(C, &C->maps[i], pa);
		if (err < 0)
			return err;
		struct piece not = { P_NOT, 0xffffffffU, audit };
		if ((err = wcon_apply(&C->J.ar, &rest, &not)) < 0)
			return diag_err(C->d, err, NULL, "out of memory");
		if (!err)
			return 0;	/* every value is the policy's */
	}
	/* Values of no ABI of the policy: the bad-arch action, whatever the
	 * number and the arguments. */
	if (pa->ret == C->p->badarch_action || C->only)
		return 0;
	uint32_t audit, nr;
	if (wcon_first(&rest, 0, &audit) != 1 || wcon_first(&pa->w[W_NR], 0, &nr) != 1)
		return diag_err(C->d, -E2BIG, NULL, "the search for a call of a path gave up");
	return mismatch(C, (const struct region *)pa->w, audit, nr, pa->ret,
			C->p->badarch_action);
}

/* Map the number space of each AUDIT_ARCH value of the policy, then walk the program judging
 * every path. */
static int run(struct check *C)
{
	int err = 0;
	for (size_t i = 0; i < C->p->narches && !err; i++) {
		uint32_t audit = C->views[i].info->audit;
		bool seen = false;
		for (size_t k = 0; k < C->nmaps; k++)
			seen |= C->maps[k].audit == audit;
		if (!seen && (err = nr_map_init(&C->maps[C->nmaps], C->p, C->views, audit)) == 0)
			C->nmaps++;
		if (err < 0)
			err = diag_err(C->d, err, NULL, "out of memory");
	}
	if (err < 0)
		return err;
	const struct sock_filter *progs[1] = { C->insns };
	struct walker L = { .progs = progs, .lens = &C->len, .n = 1, .mode = WALK_ONE,
			    .max_paths = CHECK_MAX_PATHS, .d = C->d, .visit = check_path,
			    .visit_arg = C };
	err = walk_paths(&L);
	walker_fini(&L);
	return err;
}

static void check_fini(struct check *C)
{
	for (size_t i = 0; i < C->nmaps; i++)
		nr_map_fini(&C->maps[i]);
	judge_fini(&C->J);
}

int verify_with_views(const scmpc_policy *p, const struct arch_view *views,
		      const struct sock_filter *insns, size_t len, scmpc_diag *d)
{
	struct check C = { .p = p, .views = views, .insns = insns, .len = len,
			   .J = { .p = p, .d = d }, .d = d };
	int err = run(&C);
	check_fini(&C);
	return err;
}

SCMPC_API int scmpc_verify_policy(const scmpc_policy *p, const struct sock_filter *insns,
				  size_t len, scmpc_diag *d)
{
	struct arch_view views[SCMPC_ARCH_COUNT];
	if (!p || !insns)
		return diag_err(d, -EINVAL, NULL, "no policy or no program");
	/* The engine walks programs the kernel would take; others are no
	 * program to compare. */
	int err = scmpc_verify_insns(insns, len, d);
	if (err < 0)
		return err;
	if ((err = policy_views_init(p, views, d)) < 0)
		return err;
	err = verify_with_views(p, views, insns, len, d);
	policy_views_fini(p, views, p->narches);
	return err;
}

/* One call's arguments alone, for the figures of bench_compare: the
 * same proof restricted to AUDIT and NR; 1 when it holds (nothing is left
 * to probes any more), else the error, -EPROTO with *WITNESS the call. */
int verify_args_symbolic(const scmpc_policy *p, const struct arch_view *v,
			 const struct sock_filter *insns, size_t len, uint32_t audit, uint32_t nr,
			 struct seccomp_data *witness)
{
	struct arch_view views[SCMPC_ARCH_COUNT];
	(void)v;	/* the check reads every view P makes, V among them */
	int err = policy_views_init(p, views, NULL);
	if (err < 0)
		return err;
	struct check C = { .p = p, .views = views, .insns = insns, .len = len, .only = true,
			   .only_audit = audit, .only_nr = nr, .J = { .p = p } };
	err = run(&C);
	if (err == -EPROTO)
		*witness = C.witness;
	check_fini(&C);
	policy_views_fini(p, views, p->narches);
	return err == 0 ? 1 : err;
}

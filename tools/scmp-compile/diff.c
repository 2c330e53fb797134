/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* scmp-compile diff: the syscalls and argument values on which two filters
 * (policies or .bpf files) decide differently. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

struct difference {
	uint32_t nr;
	int arg;			/* varied argument; -1: none (all zero); -2: the vector */
	uint64_t args[6];		/* the vector, args[arg] ignored */
	uint64_t lo, hi;		/* range of the varied argument */
	uint32_t a, b;
};

struct diff_out {
	struct difference *v;
	size_t n, cap;
};

/* Past this many argument differences for one number, the rest add noise. */
#define MAX_ARG_DIFFS 8

static int diff_push(struct diff_out *o, const struct difference *d)
{
	if (o->n == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 64;
		struct difference *nv = realloc(o->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		o->v = nv;
		o->cap = cap;
	}
	o->v[o->n++] = *d;
	return 0;
}

/* The same argument range differing the same way from another base vector
 * says nothing new. */
static bool diff_seen(const struct diff_out *o, size_t from, const struct difference *d)
{
	for (size_t i = from; i < o->n; i++) {
		const struct difference *e = &o->v[i];

		if (e->arg == d->arg && e->lo == d->lo && e->hi == d->hi && e->a == d->a &&
		    e->b == d->b && (d->arg != -2 || !memcmp(e->args, d->args, sizeof(e->args))))
			return true;
	}
	return false;
}

static int diff_add(struct diff_out *o, size_t from, const struct difference *d, bool *full)
{
	if (diff_seen(o, from, d))
		return 0;
	if (o->n - from >= MAX_ARG_DIFFS) {
		*full = true;
		return 0;
	}
	return diff_push(o, d);
}

/* A base vector that differs by itself: with one non-zero argument it reads
 * as that argument's value, otherwise as the whole vector. */
static int diff_add_vector(struct diff_out *o, size_t from, uint32_t nr, const uint64_t *args,
			   uint32_t ra, uint32_t rb, bool *full)
{
	struct difference d = { .nr = nr, .arg = -2, .a = ra, .b = rb };
	int nonzero = 0, which = 0;

	/* a whole vector is worth a line only for a new kind of difference */
	for (size_t i = from; i < o->n; i++)
		if (o->v[i].a == ra && o->v[i].b == rb)
			return 0;

	for (int i = 0; i < 6; i++)
		if (args[i]) {
			nonzero++;
			which = i;
		}
	if (nonzero == 1) {
		d.arg = which;
		d.lo = d.hi = args[which];
	} else {
		memcpy(d.args, args, sizeof(d.args));
	}
	return diff_add(o, from, &d, full);
}

#define MAX_BASES 64

/* Where diff varies one argument at a time from: all zeros, all ones, and
 * for each conditional rule of the inputs' policies that names the call,
 * arguments meeting its conditions, to reach differences behind AND-ed
 * conditions. */
struct bases {
	uint64_t v[MAX_BASES][6];
	size_t n;
};

/* Whether rule R, as given (not as resolved for the program), names call
 * NR of ABI A. */
static bool rule_names(const struct scmpc_rule_info *r, enum scmpc_arch a, uint32_t nr)
{
	if (!r->syscall)
		return r->arch == a && r->nr == nr;
	if (r->arch != SCMPC_ARCH_NONE && r->arch != a)
		return false;
	int64_t got = scmpc_syscall_resolve(a, r->syscall);
	return got >= 0 && (uint32_t)got == nr;
}

static void bases_init(struct bases *b, const struct filter *const *fs, size_t nf,
		       enum scmpc_arch a, uint32_t nr)
{
	memset(b->v[0], 0, sizeof(b->v[0]));
	for (int i = 0; i < 6; i++)
		b->v[1][i] = UINT64_MAX;
	b->n = 2;
	for (size_t k = 0; k < nf; k++) {
		const scmpc_policy *p = fs[k]->policy;
		size_t nrules = scmpc_policy_rule_count(p);

		for (size_t r = 0; p && r < nrules && b->n < MAX_BASES; r++) {
			struct scmpc_rule_info ri = { .sz = sizeof(ri) };

			if (!scmpc_policy_rule(p, r, &ri) && ri.nconds && rule_names(&ri, a, nr))
				scmpc_conds_witness(ri.conds, ri.nconds, b->v[b->n++]);
		}
	}
}

static int run_both(const struct filter *fa, const struct filter *fb, enum scmpc_arch a,
		    uint32_t nr, const uint64_t *args, uint32_t *ra, uint32_t *rb)
{
	int rc = filter_run(fa, a, nr, args, ra);

	return rc < 0 ? rc : filter_run(fb, a, nr, args, rb);
}

/* Differences for one number that depend on arguments: from each base
 * vector, vary one argument at a time over the probe values, keep what
 * differs otherwise than the base itself does, and merge runs into ranges.
 * The probes hold every constant the filters compare an argument word with
 * and its neighbours, so between two adjacent probes no equality or order
 * test changes its outcome: a run of adjacent probes is a range.  A mask
 * breaks that, and then only consecutive integers merge. */
static int diff_args(const struct filter *fa, const struct filter *fb, const scmpc_probes *ps,
		     enum scmpc_arch a, uint32_t nr, uint32_t a0, uint32_t b0, unsigned masked,
		     struct bases *b, struct diff_out *out)
{
	const struct filter *fs[2] = { fa, fb };
	size_t from = out->n;
	bool full = false;
	uint64_t args[6];
	int rc;

	bool compat = abi_info(a).args32;

	bases_init(b, fs, 2, a, nr);
	for (size_t k = 0; k < b->n && !full; k++) {
		uint32_t ak, bk;

		if ((rc = run_both(fa, fb, a, nr, b->v[k], &ak, &bk)) < 0)
			return rc;
		/* base 0 is all zeros: the caller reported it, and what differs
		 * as it does needs no second line */
		if (k && ak != bk && (ak != a0 || bk != b0) &&
		    (rc = diff_add_vector(out, from, nr, b->v[k], ak, bk, &full)) < 0)
			return rc;
		for (int i = 0; i < 6 && !full; i++) {
			struct difference cur = { .nr = nr, .arg = -1 };
			const uint64_t *vals;
			size_t nvals = scmpc_probes_values(ps, (unsigned)i, &vals);

			memcpy(args, b->v[k], sizeof(args));
			for (size_t j = 0; j <= nvals; j++) {
				bool end = j == nvals;
				uint32_t ra = 0, rb = 0;

				if (!end) {
					args[i] = vals[j];
					if ((rc = run_both(fa, fb, a, nr, args, &ra, &rb)) < 0)
						return rc;
				}
				bool differs = !end && ra != rb && (ra != ak || rb != bk) &&
					       (ra != a0 || rb != b0);
				/* On a 32-bit ABI a value with a high word matters only
				 * when a filter reads that word (a bypass); otherwise
				 * it repeats its low word's line. */
				if (differs && compat && args[i] >> 32) {
					uint64_t low[6];
					uint32_t la, lb;

					memcpy(low, args, sizeof(low));
					low[i] = (uint32_t)args[i];
					if ((rc = run_both(fa, fb, a, nr, low, &la, &lb)) < 0)
						return rc;
					differs = la != ra || lb != rb;
				}
				bool adjacent = !(masked & (1U << i)) || args[i] == cur.hi + 1;
				if (cur.arg >= 0 && (!differs || ra != cur.a || rb != cur.b ||
						     !adjacent)) {
					if ((rc = diff_add(out, from, &cur, &full)) < 0)
						return rc;
					cur.arg = -1;
				}
				if (!differs)
					continue;
				if (cur.arg < 0) {
					cur.arg = i;
					memcpy(cur.args, b->v[k], sizeof(cur.args));
					cur.lo = args[i];
					cur.a = ra;
					cur.b = rb;
				}
				cur.hi = args[i];
			}
		}
	}
	if (full) {
		struct difference more = { .nr = nr, .arg = -3 };

		if ((rc = diff_push(out, &more)) < 0)
			return rc;
	}
	return 0;
}

static void print_args(const struct difference *d)
{
	char n1[24], n2[24];
	bool ones = true;

	for (int i = 0; i < 6; i++)
		if (i != d->arg)
			ones &= d->args[i] == UINT64_MAX;
	if (d->arg < 0 && ones) {
		printf("arguments all ones");
		return;
	}
	for (int i = 0, sep = 0; i < 6; i++) {
		if (i == d->arg) {
			printf("%sarg%d=%s", sep++ ? " " : "", i, fmt_u64(d->lo, n1, sizeof(n1)));
			if (d->hi != d->lo)
				printf("-%s", fmt_u64(d->hi, n2, sizeof(n2)));
		} else if (d->args[i] && !ones) {
			printf("%sarg%d=%s", sep++ ? " " : "", i, fmt_u64(d->args[i], n1, sizeof(n1)));
		}
	}
	if (ones)
		printf(" (other arguments all ones)");
}

static int diff_abi(const struct filter *fa, const struct filter *fb, const scmpc_probes *ps,
		    enum scmpc_arch a, bool *differ)
{
	uint32_t *nrs = NULL;
	struct diff_out out = { 0 };
	struct bases *b = malloc(sizeof(*b));
	char label[96], n1[24], n2[24], acta[32], actb[32];
	const char *an = scmpc_arch_name(a);
	int rc = b ? scmpc_arch_probe_numbers(a, &nrs, NULL) : -ENOMEM;
	size_t n = rc > 0 ? (size_t)rc : 0;

	if (rc < 0)
		goto done;
	for (size_t i = 0; i < n; i++) {
		struct scmpc_arg_use ua, ub;
		uint32_t nr = nrs[i], a0, b0;

		if ((rc = run_both(fa, fb, a, nr, NULL, &a0, &b0)) < 0 ||
		    (rc = filter_arg_use(fa, a, nr, &ua)) < 0 ||
		    (rc = filter_arg_use(fb, a, nr, &ub)) < 0)
			goto done;
		if (a0 != b0) {
			struct difference d = { .nr = nr, .arg = -1, .a = a0, .b = b0 };

			if ((rc = diff_push(&out, &d)) < 0)
				goto done;
		}
		if ((ua.first_load >= 0 || ub.first_load >= 0) &&
		    (rc = diff_args(fa, fb, ps, a, nr, a0, b0, ua.masked | ub.masked, b, &out)) < 0)
			goto done;
	}

	for (size_t i = 0; i < out.n;) {
		const struct difference *d = &out.v[i];
		size_t j = i;

		*differ = true;
		if (d->arg == -3) {
			printf("%s %s: more argument values differ\n", an,
			       syscall_label(a, d->nr, label, sizeof(label)));
			i++;
			continue;
		}
		if (d->arg == -1) {
			while (j + 1 < out.n && out.v[j + 1].arg == -1 &&
			       out.v[j + 1].nr == out.v[j].nr + 1 && out.v[j + 1].a == d->a &&
			       out.v[j + 1].b == d->b)
				j++;
		}
		if (j == i)
			printf("%s %s", an, syscall_label(a, d->nr, label, sizeof(label)));
		else
			printf("%s %s-%s", an, fmt_u64(d->nr, n1, sizeof(n1)),
			       fmt_u64(out.v[j].nr, n2, sizeof(n2)));
		if (d->arg != -1) {
			putchar(' ');
			print_args(d);
		}
		printf(": A=%s B=%s\n", action_name(d->a, acta, sizeof(acta)),
		       action_name(d->b, actb, sizeof(actb)));
		i = j + 1;
	}
	rc = 0;
done:
	free(b);
	free(out.v);
	free(nrs);
	return rc;
}

/* The library's own semantic check catches what the probe points missed:
 * it knows the policy's structure, not just its constants. */
static bool verify_against(const struct filter *pol, const struct filter *other)
{
	scmpc_diag *d = scmpc_diag_new();
	int rc;

	if (!pol->policy || !d) {
		scmpc_diag_free(d);
		return true;
	}
	rc = scmpc_verify_policy(pol->policy, other->insns, other->len, d);
	if (rc < 0) {
		const char *where = scmpc_diag_where(d);

		printf("%s decides differently from the policy %s: %s%s%s\n", other->name, pol->name,
		       where, *where ? ": " : "", scmpc_diag_message(d));
	}
	scmpc_diag_free(d);
	return rc >= 0;
}

/* The ABIs neither input serves get their bad-arch action from each: a
 * few numbers of each (0, a common one, x32's first, -1) must agree. */
static int diff_foreign(const struct filter *fa, const struct filter *fb,
			const struct abi_list *served, bool *differ)
{
	struct scmpc_arch_info x32 = { .sz = sizeof(x32) };
	int rc = scmpc_arch_describe(SCMPC_ARCH_X32, &x32);
	const uint32_t nrs[] = { 0, 59, rc < 0 ? 0 : x32.nr_base, 0xffffffff };

	for (int a = 1; a <= SCMPC_ARCH_COUNT; a++) {
		bool in = false;
		for (size_t i = 0; i < served->n; i++)
			in |= served->a[i] == (enum scmpc_arch)a ||
			      scmpc_arch_audit(served->a[i]) == scmpc_arch_audit((enum scmpc_arch)a);
		if (in)
			continue;
		for (size_t k = 0; k < ARRAY_SIZE(nrs); k++) {
			uint32_t ra, rb;

			if ((rc = run_both(fa, fb, (enum scmpc_arch)a, nrs[k], NULL, &ra, &rb)) < 0)
				return rc;
			if (ra == rb)
				continue;
			char sa[32], sb[32];
			printf("%s (not served) %#x: A=%s B=%s\n", scmpc_arch_name((enum scmpc_arch)a),
			       nrs[k], action_name(ra, sa, sizeof(sa)), action_name(rb, sb, sizeof(sb)));
			*differ = true;
			break;
		}
	}
	return 0;
}

static int run_diff(struct cli *c)
{
	enum scmpc_arch target = host_of(c->arch != SCMPC_ARCH_NONE ? c->arch : native_arch());
	struct filter fa, fb;
	scmpc_probes *ps = NULL;
	struct abi_list abis = { .n = 0 };
	bool differ = false;
	int status = EXIT_USAGE, rc = 0;

	memset(&fa, 0, sizeof(fa));
	memset(&fb, 0, sizeof(fb));
	if (c->npos != 2)
		return usage_error("diff needs two inputs, A and B");
	if (!strcmp(c->pos[0], "-") && !strcmp(c->pos[1], "-"))
		return usage_error("only one of A and B can be standard input");
	if (load_filter(c, c->pos[0], target, &fa) || load_filter(c, c->pos[1], target, &fb))
		goto out;

	const struct filter *both[2] = { &fa, &fb };
	if (!(ps = scmpc_probes_new())) {
		errorf("%s", strerror(ENOMEM));
		goto out;
	}
	for (int k = 0; k < 2; k++) {
		const struct filter *f = both[k];

		if ((f->policy && scmpc_probes_add_policy(ps, f->policy, NULL) < 0) ||
		    scmpc_probes_add_prog(ps, f->insns, f->len, NULL) < 0) {
			errorf("%s", strerror(ENOMEM));
			goto out;
		}
	}

	if (c->arch != SCMPC_ARCH_NONE) {
		abi_add(&abis, c->arch);
	} else {
		abi_add_host_group(&abis, target);
		for (int k = 0; k < 2; k++) {
			const struct filter *f = both[k];

			if (f->policy)
				for (size_t i = 0; i < scmpc_policy_arch_count(f->policy); i++)
					abi_add(&abis, scmpc_policy_arch(f->policy, i));
			else
				abi_add_from_prog(&abis, f->insns, f->len);
		}
	}
	for (size_t i = 0; i < abis.n && rc >= 0; i++)
		rc = diff_abi(&fa, &fb, ps, abis.a[i], &differ);
	if (rc >= 0 && c->arch == SCMPC_ARCH_NONE)
		rc = diff_foreign(&fa, &fb, &abis, &differ);
	if (rc < 0) {
		status = report_failure(rc, EXIT_USAGE);
		goto out;
	}
	if (!differ && c->arch == SCMPC_ARCH_NONE)
		differ = !verify_against(&fa, &fb) || !verify_against(&fb, &fa);
	status = differ ? EXIT_INPUT : EXIT_OK;
out:
	scmpc_probes_free(ps);
	filter_free(&fa);
	filter_free(&fb);
	return status;
}

const struct command diff_command = {
	"diff", run_diff, F_ARCH | F_POLICY,
	"Usage: " PROG_NAME " diff A B [-a ABI] [--caps LIST] [--kernel X.Y] [--strict]\n"
	"                         [--no-enosys] [--restrictive] [--runtime RT]\n"
	"                         [--bad-arch ACT] [-q]\n",
	"List the syscalls and argument values on which two filters decide\n"
	"differently.  A and B are each a policy, compiled first, or a raw .bpf\n"
	"filter; one of them may be '-' for standard input.\n",
	"Exit status: 0 equivalent, 1 different, 2 error (as cmp(1)).\n",
};

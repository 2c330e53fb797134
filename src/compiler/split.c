/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * A policy too big for one program, as a stack of programs (scmpc.h,
 * scmpc_compile_split).  The argument is in the header; here, what makes
 * it hold: a group must hold every rule that can decide any call one of its
 * rules decides, or the piece owning the group would decide that call
 * without the others, and a piece not owning it must ALLOW exactly the
 * calls the group names (a filler rule per name or number, same ABI), so
 * that the numbers each piece names, and with them the unknown-syscall
 * threshold and libseccomp's rule order, stay the policy's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bpf/bpf.h"
#include "check/check.h"
#include "compiler/compile.h"
#include "compiler/dag.h"
#include "compiler/split.h"
#include "runtime/runtime.h"


struct splitter {
	const scmpc_policy *p;
	scmpc_diag *d;
	unsigned flags;		/* SCMPC_COMPILE_* for the pieces */
	const struct scmpc_workload *hot;	/* the pieces' layout, or NULL */
	unsigned max_insns;
	uint32_t *group;	/* per rule: its group, numbered in order of first rule */
	size_t ngroups;
	uint32_t *first_key;	/* per rule: the first rule with its name or number and ABI */
	bool *take;		/* per group: in the piece being tried */
	bool last;		/* the piece being tried is the last */
	bool seccomp_filler;	/* pieces but the last allow seccomp(2) by a rule of their own */
	char why[512];		/* why the last piece tried did not fit */
	/* Per ABI: the numbers (lo, seccomp's) that every piece but the last
	 * names with the policy's answer, so that its seccomp(2) rule stays
	 * below runc's stub and the unknown-syscall threshold (install_fills) */
	struct install_fill {
		enum scmpc_arch arch;
		uint32_t lo, nr;	/* nr: seccomp(2)'s number */
		bool raise;		/* the limit moves up to nr */
		uint32_t *acts;		/* the policy's answer for lo + 1 + i */
	} fills[SCMPC_ARCH_COUNT];
	size_t nfills;
	struct compile_budget budget;	/* lowering work left for every compile */
	const struct scmpc_progress *progress;	/* the caller's, or NULL */
};

/* The splitter's bound: the lowering work of all the compiles it makes,
 * the whole policy's first.  Compiling one policy is bounded by
 * DAG_MAX_WORK (about a second); a split compiles many pieces, each in
 * several tries, so without a bound of its own a policy that one compile
 * refuses in seconds kept the splitter busy for minutes (100,000 random
 * rules: over 600 s and 300 MB).  Three compiles' worth: a policy whose
 * pieces need more is refused, saying so. */
#define SPLIT_MAX_WORK (3 * DAG_MAX_WORK)

static int budget_error(const struct splitter *s)
{
	return diag_err(s->d, -E2BIG, NULL,
			"the policy is too complex to split: compiling its pieces takes more than "
			"the splitter's bound of %llu steps of lowering in all (about three "
			"seconds; one compile's bound is %llu)",
			(unsigned long long)SPLIT_MAX_WORK, (unsigned long long)DAG_MAX_WORK);
}

struct piece {
	scmpc_policy *pol;
	scmpc_prog *prog;
};

/* ------------------------------------------------------------ groups */

static uint32_t uf_find(uint32_t *par, uint32_t x)
{
	while (par[x] != x) {
		par[x] = par[par[x]];
		x = par[x];
	}
	return x;
}

static void uf_union(uint32_t *par, uint32_t a, uint32_t b)
{
	a = uf_find(par, a);
	b = uf_find(par, b);
	if (a < b)
		par[b] = a;
	else if (b < a)
		par[a] = b;
}

/* A number some rule decides on an ABI (through the multiplexer too). */
struct hit {
	uint32_t arch, nr, rule;
};

static int cmp_hit(const void *x, const void *y)
{
	const struct hit *a = x, *b = y;
	if (a->arch != b->arch)
		return a->arch < b->arch ? -1 : 1;
	if (a->nr != b->nr)
		return a->nr < b->nr ? -1 : 1;
	return (a->rule > b->rule) - (a->rule < b->rule);
}

/* Rules sorted by what they name: name (by number last), number, ABI. */
struct keyed {
	const struct rule *r;
	uint32_t idx;
};

/* Order rules by name, then number, then ABI, then index, so that rules of one call are
 * neighbours. */
static int cmp_key(const void *x, const void *y)
{
	const struct keyed *a = x, *b = y;
	const struct rule *r = a->r, *s = b->r;
	if (!r->name != !s->name)
		return r->name ? -1 : 1;
	int c = r->name ? strcmp(r->name, s->name) : 0;
	if (c)
		return c;
	if (!r->name && r->nr != s->nr)
		return r->nr < s->nr ? -1 : 1;
	if (r->arch != s->arch)
		return r->arch < s->arch ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

static bool same_key(const struct rule *r, const struct rule *s)
{
	if (!r->name != !s->name || r->arch != s->arch)
		return false;
	return r->name ? !strcmp(r->name, s->name) : r->nr == s->nr;
}

/* Union the rules no call can tell apart into groups, each recorded in S->group. */
static int make_groups(struct splitter *s)
{
	const scmpc_policy *p = s->p;
	size_t n = p->nrules, nh = 0;
	uint32_t *par = malloc((n ? n : 1) * sizeof(*par));
	struct keyed *ks = malloc((n ? n : 1) * sizeof(*ks));
	struct hit *hits = malloc((n ? n : 1) * 2 * (p->narches ? p->narches : 1) * sizeof(*hits));
	s->group = malloc((n ? n : 1) * sizeof(*s->group));
	s->first_key = malloc((n ? n : 1) * sizeof(*s->first_key));
	if (!par || !ks || !hits || !s->group || !s->first_key) {
		free(par);
		free(ks);
		free(hits);
		return diag_err(s->d, -ENOMEM, NULL, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		par[i] = (uint32_t)i;
		ks[i] = (struct keyed){ &p->rules[i], (uint32_t)i };
	}
	/* One name is one call whatever the ABI: a socket call that some ABI
	 * reaches only through socketcall(2) has no number to meet at. */
	qsort(ks, n, sizeof(*ks), cmp_key);
	for (size_t i = 0, first = 0; i < n; i++) {
		if (i && !same_key(ks[i - 1].r, ks[i].r))
			first = i;
		s->first_key[ks[i].idx] = ks[first].idx;
		if (i && ks[i - 1].r->name && ks[i].r->name && !strcmp(ks[i - 1].r->name, ks[i].r->name))
			uf_union(par, ks[i - 1].idx, ks[i].idx);
	}

	/* Numbers as arch_view_init() resolves them, before libseccomp's
	 * merge drops any rule: a dropped rule still names its number. */
	int64_t minus1 = -1, notif = -1;
	for (size_t ai = 0; ai < p->narches; ai++) {
		const struct arch_info *info = arch_info(p->arches[ai]);
		for (size_t i = 0; i < n; i++) {
			const struct rule *r = &p->rules[i];
			enum arch_mux m;
			uint32_t call, mux, nr;
			if (r->arch != SCMPC_ARCH_NONE && r->arch != info->arch)
				continue;
			bool direct = true;
			if (r->name) {
				int64_t v = arch_resolve(info, r->name);
				direct = v >= 0;
				nr = (uint32_t)v;
			} else {
				nr = r->nr;
			}
			if (direct) {
				hits[nh++] = (struct hit){ (uint32_t)ai, nr, (uint32_t)i };
				/* -1 is decided by the first ABI of its AUDIT_ARCH
				 * that has rules for it: all of them go together. */
				if (nr == UINT32_MAX) {
					if (minus1 >= 0)
						uf_union(par, (uint32_t)minus1, (uint32_t)i);
					else
						minus1 = (int64_t)i;
				}
			}
			const char *name = r->name ? r->name : arch_syscall_name(info, r->nr);
			if (name && !p->literal && arch_subcall(name, &m, &call) == 0 &&
			    arch_multiplexer(info, m, &mux) == 0)
				hits[nh++] = (struct hit){ (uint32_t)ai, mux, (uint32_t)i };
		}
	}
	qsort(hits, nh, sizeof(*hits), cmp_hit);
	for (size_t i = 1; i < nh; i++)
		if (hits[i].arch == hits[i - 1].arch && hits[i].nr == hits[i - 1].nr)
			uf_union(par, hits[i - 1].rule, hits[i].rule);
	/* A chain holds one listener, and the filter that answers USER_NOTIF
	 * must be the one holding it. */
	for (size_t i = 0; i < n; i++) {
		if ((p->rules[i].action & 0xffff0000U) != SCMPC_ACT_USER_NOTIF)
			continue;
		if (notif >= 0)
			uf_union(par, (uint32_t)notif, (uint32_t)i);
		else
			notif = (int64_t)i;
	}
	/* Roots are each group's first rule: number groups in rule order. */
	s->ngroups = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t root = uf_find(par, (uint32_t)i);
		s->group[i] = root == i ? (uint32_t)s->ngroups++ : s->group[root];
	}
	/* The set is installed filter by filter with seccomp(2): every filter
	 * but the last must let it through, so the last decides it.  Its
	 * group goes last; with no rule on it, the others allow it by a rule
	 * of their own (the last gives the policy's answer, and the stack the
	 * strictest), unless that rule would move the unknown-syscall
	 * threshold of a policy that takes it from the numbers named. */
	int64_t sc = -1;
	for (size_t i = 0; i < n && sc < 0; i++) {
		const struct rule *r = &p->rules[i];
		for (size_t ai = 0; ai < p->narches && sc < 0; ai++) {
			const struct arch_info *info = arch_info(p->arches[ai]);
			const char *name = r->name ? r->name
				: r->arch == info->arch ? arch_syscall_name(info, r->nr) : NULL;
			if (name && !strcmp(name, "seccomp"))
				sc = s->group[i];
		}
	}
	if (sc >= 0) {
		for (size_t i = 0; i < n; i++)
			s->group[i] = s->group[i] == (uint32_t)sc ? (uint32_t)s->ngroups - 1
				    : s->group[i] > (uint32_t)sc ? s->group[i] - 1 : s->group[i];
	}
	s->seccomp_filler = sc < 0;
	free(par);
	free(ks);
	free(hits);
	s->take = calloc(s->ngroups ? s->ngroups : 1, sizeof(*s->take));
	return s->take ? 0 : diag_err(s->d, -ENOMEM, NULL, "out of memory");
}

/* ------------------------------------------------------------ installing */

/*
 * Every piece but the last must let the seccomp(2) call that installs the
 * next one through: a rule of its own allows it (make_groups) unless the
 * policy names it.  But runc's stub (a limit) and an unknown-syscall
 * threshold at the highest number named decide above any rule, and
 * seccomp(2) is often above both: every piece would then answer it as the
 * policy does, ENOSYS, and no set could be installed.  So the pieces but
 * the last move the limit up to seccomp(2)'s number and name the numbers
 * between with the policy's own answer, which leaves every call but
 * seccomp(2) decided as before; the last piece keeps the policy's answer
 * for seccomp(2), which the stack then gives.  Not done when the policy
 * names a number in between (its rules would then decide it in the pieces
 * but the last): split_policy() then warns that the set cannot be
 * installed.
 */
static int install_fills(struct splitter *s)
{
	const scmpc_policy *p = s->p;
	struct arch_view views[SCMPC_ARCH_COUNT];
	int rc = policy_views_init(p, views, s->d);

	if (rc < 0)
		return rc;
	for (size_t k = 0; k < p->narches && rc >= 0; k++) {
		const struct arch_view *v = &views[k];
		const struct limit *l = &p->limits[v->arch];
		int64_t sc = arch_resolve(v->info, "seccomp");
		size_t lo_i, hi_i;
		uint32_t lo;
		bool raise = false;

		if (sc < 0)
			continue;
		if (l->set && limit_hits(l, (uint32_t)sc)) {
			if ((uint32_t)sc == 0)
				continue;	/* SCMPC_LIMIT_ZERO: not ours to move */
			lo = l->max;
			raise = true;
		} else if (v->unknown_set && (uint32_t)sc > v->threshold &&
			   !arch_is_private(v->info, (uint32_t)sc)) {
			lo = v->threshold;
		} else {
			continue;
		}
		bool named = false;
		for (uint32_t nr = lo + 1; nr < (uint32_t)sc && !named; nr++) {
			arch_view_find(v, nr, &lo_i, &hi_i);
			named = hi_i > lo_i;
		}
		if (named)
			continue;
		struct install_fill *fl = &s->fills[s->nfills];
		*fl = (struct install_fill){ v->arch, lo, (uint32_t)sc, raise, NULL };
		size_t nn = (uint32_t)sc - lo - 1;
		fl->acts = malloc((nn ? nn : 1) * sizeof(*fl->acts));
		if (!fl->acts) {
			rc = diag_err(s->d, -ENOMEM, NULL, "out of memory");
			break;
		}
		s->nfills++;
		for (size_t i = 0; i < nn; i++) {
			struct seccomp_data sd = { .nr = (int)(lo + 1 + i), .arch = v->info->audit };
			fl->acts[i] = policy_decide(p, views, &sd, NULL);
		}
	}
	policy_views_fini(p, views, p->narches);
	return rc;
}

/* The seccomp(2) call a loader makes on ABI A to install a program: the
 * policy's flags, a sock_fprog at a typical user address (the real one is
 * known only at load time, where scmpc_load_set() judges it again). */
static struct seccomp_data install_call(const scmpc_policy *p, enum scmpc_arch a, uint32_t nr)
{
	return (struct seccomp_data){ .nr = (int)nr, .arch = scmpc_arch_audit(a),
				      .args = { 1 /* SECCOMP_SET_MODE_FILTER */,
						scmpc_policy_flags(p), 0x7ffc12345000ULL } };
}

/* Warn when no order of the N programs installs them on some ABI of P:
 * some program denies the seccomp(2) call that installs another, in every
 * order. */
static int check_installable(const scmpc_policy *p, scmpc_prog *const *progs, size_t n,
			     scmpc_diag *d)
{
	const struct sock_filter **ins = calloc(n, sizeof(*ins));
	size_t *lens = calloc(n, sizeof(*lens)), *order = calloc(n, sizeof(*order));
	struct seccomp_data *calls = calloc(n, sizeof(*calls));
	int rc = 0;

	if (!ins || !lens || !order || !calls) {
		rc = diag_err(d, -ENOMEM, NULL, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		ins[i] = progs[i]->insns;
		lens[i] = progs[i]->len;
	}
	for (size_t k = 0; k < p->narches; k++) {
		enum scmpc_arch a = p->arches[k];
		int64_t sc = arch_resolve(arch_info(a), "seccomp");
		struct install_block why;
		if (sc < 0)
			continue;
		for (size_t i = 0; i < n; i++)
			calls[i] = install_call(p, a, (uint32_t)sc);
		int r = install_order(ins, lens, n, calls, order, &why);
		if (r == -ENOMEM) {
			rc = diag_err(d, r, NULL, "out of memory");
			goto out;
		}
		if (r < 0) {
			char act[32], cause[160];
			scmpc_action_str(why.action, act, sizeof(act));
			install_cause(p, &calls[0], why.action, cause, sizeof(cause));
			diag_warn(d, "the %zu programs cannot be installed on %s: program %zu "
				  "denies seccomp(2)%s, returning %s for the call that installs "
				  "program %zu, and no order puts every such program after the "
				  "others (scmpc_load_set() will refuse the set)", n,
				  scmpc_arch_name(a), why.blocker + 1, cause, act, why.blocked + 1);
		}
	}
out:
	free(ins);
	free(lens);
	free(order);
	free(calls);
	return rc;
}

/* ------------------------------------------------------------ pieces */

/* The policy of the piece whose groups s->take marks. */
static int piece_policy(const struct splitter *s, scmpc_policy **out)
{
	const scmpc_policy *p = s->p;
	scmpc_policy *q = policy_new_like(p);
	int rc = 0;

	*out = NULL;
	if (!q)
		return diag_err(s->d, -ENOMEM, NULL, "out of memory");
	for (size_t i = 0; i < p->nrules && rc >= 0; i++) {
		const struct rule *r = &p->rules[i];
		bool mine = s->take[s->group[i]];
		if (!mine && s->first_key[i] != i)
			continue;
		struct scmpc_rule in = {
			.sz = sizeof(in), .syscall = r->name, .nr = r->nr, .arch = r->arch,
			.action = mine ? r->action : SCMPC_ACT_ALLOW,
			.conds = mine ? r->conds : NULL, .nconds = mine ? r->nconds : 0,
			.origin = r->origin,
		};
		rc = scmpc_policy_add_rule(q, &in, s->d);
	}
	for (size_t f = 0; f < s->nfills && rc >= 0 && !s->last; f++) {
		const struct install_fill *fl = &s->fills[f];
		if (fl->raise)
			q->limits[fl->arch].max = fl->nr;
		for (uint32_t nr = fl->lo + 1; nr < fl->nr && rc >= 0; nr++) {
			struct scmpc_rule in = { .sz = sizeof(in), .nr = nr, .arch = fl->arch,
						 .action = fl->acts[nr - fl->lo - 1],
						 .origin = "the policy's answer, kept beside seccomp(2)" };
			rc = scmpc_policy_add_rule(q, &in, s->d);
		}
	}
	if (rc >= 0 && s->seccomp_filler && !s->last) {
		struct scmpc_rule in = { .sz = sizeof(in), .syscall = "seccomp",
					 .action = SCMPC_ACT_ALLOW,
					 .origin = "seccomp(2), for the programs after this one" };
		rc = scmpc_policy_add_rule(q, &in, s->d);
	}
	if (rc < 0) {
		scmpc_policy_free(q);
		return rc;
	}
	*out = q;
	return 0;
}

/* Groups [FROM, TO) as one piece: 1 and the piece when its program fits,
 * 0 when it does not (s->why says why), or a negative errno. */
static int try_piece(struct splitter *s, size_t from, size_t to, struct piece *out)
{
	scmpc_diag *scratch = scmpc_diag_new();
	struct scmpc_compile_opts o = {
		.sz = sizeof(o),
		.flags = s->flags | SCMPC_COMPILE_NO_VERIFY,
		.hot = s->hot,
	};
	int rc;

	memset(out, 0, sizeof(*out));
	if (!scratch)
		return diag_err(s->d, -ENOMEM, NULL, "out of memory");
	for (size_t g = 0; g < s->ngroups; g++)
		s->take[g] = g >= from && g < to;
	s->last = to == s->ngroups;
	if ((rc = piece_policy(s, &out->pol)) < 0)
		goto out;
	rc = compile_policy(out->pol, &o, &out->prog, NULL, &s->budget, scratch);
	if (rc == 0 && out->prog->len > s->max_insns) {
		snprintf(s->why, sizeof(s->why), "the program needs %zu instructions, more than %u",
			 out->prog->len, s->max_insns);
		rc = -E2BIG;
	} else if (rc == -E2BIG) {
		snprintf(s->why, sizeof(s->why), "%s", scmpc_diag_message(scratch));
	} else if (rc < 0) {
		rc = diag_err(s->d, rc, scmpc_diag_where(scratch), "%s", scmpc_diag_message(scratch));
	}
	if (rc == -E2BIG && !s->budget.left) {
		/* Not this piece's size: the splitter's own bound, which
		 * ends the split (a negative errno, not "does not fit"). */
		rc = budget_error(s);
		goto out;
	}
	if (rc == -E2BIG) {
		scmpc_prog_free(out->prog);
		scmpc_policy_free(out->pol);
		memset(out, 0, sizeof(*out));
		rc = 0;
	} else if (rc == 0) {
		rc = 1;
	}
out:
	if (rc < 0) {
		scmpc_prog_free(out->prog);
		scmpc_policy_free(out->pol);
		memset(out, 0, sizeof(*out));
	}
	scmpc_diag_free(scratch);
	return rc;
}

static void pieces_free(struct piece *pcs, size_t n)
{
	for (size_t i = 0; pcs && i < n; i++) {
		scmpc_prog_free(pcs[i].prog);
		scmpc_policy_free(pcs[i].pol);
	}
	free(pcs);
}

/* The rule to name for group G: its first. */
static size_t group_rule(const struct splitter *s, size_t g)
{
	for (size_t i = 0; i < s->p->nrules; i++)
		if (s->group[i] == g)
			return i;
	return 0;
}

/* Try groups [START, END) as a piece and move the bounds: END becomes
 * *LO (the piece kept in *BEST) when it fits, else *HI. */
static int probe_run(struct splitter *s, size_t start, size_t end, size_t *lo, size_t *hi,
		     struct piece *best)
{
	struct piece t;
	int rc = try_piece(s, start, end, &t);
	if (rc < 0)
		return rc;
	if (rc) {
		scmpc_prog_free(best->prog);
		scmpc_policy_free(best->pol);
		*best = t;
		*lo = end;
	} else {
		*hi = end;
	}
	progress_report(s->progress, "split", *lo, s->ngroups);
	return 0;
}

/*
 * Next fit over the groups in order: each piece takes the longest run of
 * the remaining groups that fits, found by trying the whole rest, then
 * doubling from one group, then halving the gap.  Pieces grow with their
 * groups (more rules, more tests), so the run that fits is a prefix.  The
 * whole policy is known not to fit: the first piece does not try it again.
 */
static int pack(struct splitter *s, size_t max_progs, struct piece **out, size_t *nout)
{
	struct piece *pcs = NULL, best;	/* best: the longest run that fits, so far */
	size_t n = 0, cap = 0, start = 0;
	int rc = 0;

	memset(&best, 0, sizeof(best));
	while (start < s->ngroups) {
		size_t lo = start, hi = s->ngroups + 1;

		if (max_progs && n == max_progs) {
			rc = diag_err(s->d, -E2BIG, NULL, "the policy needs more than %zu programs",
				      max_progs);
			goto fail;
		}
		/* lo: the longest run known to fit (start: none); hi: the
		 * shortest known not to. */
		progress_report(s->progress, "split", start, s->ngroups);
		if (start && (rc = probe_run(s, start, s->ngroups, &lo, &hi, &best)) < 0)
			goto fail;
		for (size_t k = 1; hi > lo + 1 && start + k < hi; k *= 2) {
			if ((rc = probe_run(s, start, start + k, &lo, &hi, &best)) < 0)
				goto fail;
			if (hi == start + k)
				break;
		}
		while (hi > lo + 1 && lo > start) {
			if ((rc = probe_run(s, start, lo + (hi - lo) / 2, &lo, &hi, &best)) < 0)
				goto fail;
		}
		if (lo == start) {
			size_t r = group_rule(s, start);
			const char *origin = s->p->rules[r].origin;
			char where[64];
			if (!origin)
				snprintf(where, sizeof(where), "rule %zu", r);
			rc = diag_err(s->d, -E2BIG, origin ? origin : where,
				      "splitting cannot help: the rules of one syscall (this one's and "
				      "those that decide its calls with it) do not fit in one program "
				      "alone: %s", s->why);
			goto fail;
		}
		if (!array_reserve(&pcs, &cap, n, sizeof(*pcs), 4)) {
			rc = diag_err(s->d, -ENOMEM, NULL, "out of memory");
			goto fail;
		}
		pcs[n++] = best;
		memset(&best, 0, sizeof(best));
		start = lo;
	}
	progress_report(s->progress, "split", s->ngroups, s->ngroups);
	*out = pcs;
	*nout = n;
	return 0;
fail:
	/* a piece kept by an earlier probe when a later one failed (the
	 * splitter's bound, say) */
	scmpc_prog_free(best.prog);
	scmpc_policy_free(best.pol);
	pieces_free(pcs, n);
	return rc;
}

/* ------------------------------------------------------------ the stack */

/* What the kernel's seccomp_run_filters() returns for the stack. */
static int stack_run(struct piece *pcs, size_t n, const struct seccomp_data *sd, uint32_t *ret)
{
	uint32_t res = SCMPC_ACT_ALLOW;
	for (size_t i = n; i-- > 0;) {
		uint32_t cur;
		int rc = scmpc_emulate(pcs[i].prog->insns, pcs[i].prog->len, sd, &cur, NULL);
		if (rc < 0)
			return rc;
		if ((int32_t)(cur & 0xffff0000U) < (int32_t)(res & 0xffff0000U))
			res = cur;
	}
	*ret = res;
	return 0;
}

/* Run the stack on SD and compare with the policy's WANT; -EPROTO in D when they differ. */
static int stack_point(struct piece *pcs, size_t n, const struct seccomp_data *sd, uint32_t want,
		       scmpc_diag *d)
{
	uint32_t got = 0;
	int rc = stack_run(pcs, n, sd, &got);
	if (rc == 0 && got == want)
		return 0;
	char ws[32], gs[32];
	scmpc_action_str(want, ws, sizeof(ws));
	scmpc_action_str(got, gs, sizeof(gs));
	return diag_err(d, -EPROTO, NULL,
			"internal error: the stack of %zu programs decides the call nr %u, AUDIT_ARCH "
			"0x%x, args [0x%llx, 0x%llx, ...] as %s, the policy as %s", n,
			(unsigned)sd->nr, sd->arch, (unsigned long long)sd->args[0],
			(unsigned long long)sd->args[1], rc < 0 ? "an error" : gs, ws);
}

/* Run the stack on SD's call with every argument probe of its rules, against the policy. */
static int stack_call(const scmpc_policy *p, const struct arch_view *v, struct piece *pcs,
		      size_t n, struct seccomp_data *sd, scmpc_diag *d)
{
	uint64_t (*vec)[6] = NULL;
	struct call_index ix;
	long nv = probe_args(p, v, (uint32_t)sd->nr, &vec);
	int rc = 0;

	if (nv < 0)
		return diag_err(d, (int)nv, NULL, "out of memory");
	if ((rc = call_index_init(&ix, p, v, (uint32_t)sd->nr)) < 0) {
		free(vec);
		return diag_err(d, rc, NULL, "out of memory");
	}
	for (long k = 0; k < nv && !rc; k++) {
		memcpy(sd->args, vec[k], sizeof(sd->args));
		rc = stack_point(pcs, n, sd, eval_indexed(p, v, &ix, sd, NULL), d);
	}
	call_index_fini(&ix);
	free(vec);
	return rc;
}

/* The numbers to run for one AUDIT_ARCH: each ABI's probe numbers and
 * every number its rules name. */
static int stack_audit(const scmpc_policy *p, const struct arch_view *views, uint32_t audit,
		       struct piece *pcs, size_t n, scmpc_diag *d)
{
	uint32_t *nums = NULL;
	size_t nn = 0, cap = 0;
	int rc = 0;

	for (size_t k = 0; k < p->narches && !rc; k++) {
		const struct arch_view *v = &views[k];
		uint32_t *probe = NULL;
		if (v->info->audit != audit)
			continue;
		int np = scmpc_arch_probe_numbers(v->arch, &probe, d);
		if (np < 0) {
			rc = np;
			break;
		}
		for (size_t i = 0; i < (size_t)np + v->nrs && !rc; i++) {
			if (!array_reserve(&nums, &cap, nn, sizeof(*nums), 256))
				rc = diag_err(d, -ENOMEM, NULL, "out of memory");
			else
				nums[nn++] = i < (size_t)np ? probe[i] : v->rs[i - (size_t)np].nr;
		}
		free(probe);
	}
	nn = rc ? 0 : sort_unique(nums, nn, sizeof(*nums), cmp_uint32);
	for (size_t i = 0; i < nn && !rc; i++) {
		struct seccomp_data sd = { .nr = (int)nums[i], .arch = audit };
		enum scmpc_arch a = arch_of_call(audit, nums[i]);
		const struct arch_view *dv = NULL;
		size_t lo, hi;
		if (nums[i] == UINT32_MAX) {
			dv = minus1_view(p, views, audit, &lo, &hi);
		} else {
			for (size_t k = 0; k < p->narches; k++)
				if (views[k].arch == a)
					dv = &views[k];
		}
		if (dv) {
			rc = stack_call(p, dv, pcs, n, &sd, d);
			continue;
		}
		rc = stack_point(pcs, n, &sd, policy_decide(p, views, &sd, NULL), d);
		memset(sd.args, 0xff, sizeof(sd.args));
		if (!rc)
			rc = stack_point(pcs, n, &sd, policy_decide(p, views, &sd, NULL), d);
	}
	free(nums);
	return rc;
}

/* Run the whole stack against the policy at every number worth trying on each ABI, and on one ABI
 * it lacks. */
static int check_stack(const scmpc_policy *p, struct piece *pcs, size_t n, scmpc_diag *d)
{
	struct arch_view views[SCMPC_ARCH_COUNT];
	int rc = policy_views_init(p, views, d);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < p->narches && !rc; i++) {
		bool seen = false;
		for (size_t k = 0; k < i; k++)
			seen |= views[k].info->audit == views[i].info->audit;
		if (!seen)
			rc = stack_audit(p, views, views[i].info->audit, pcs, n, d);
	}
	/* One ABI the policy lacks: its bad-arch action from every piece. */
	for (int a = 1; a <= SCMPC_ARCH_COUNT && !rc; a++) {
		uint32_t audit = scmpc_arch_audit((enum scmpc_arch)a);
		bool known = false;
		for (size_t k = 0; k < p->narches; k++)
			known |= views[k].info->audit == audit;
		if (known)
			continue;
		static const uint32_t nrs[] = { 0, 1, 59, 0x40000000, 0xffffffff };
		for (size_t k = 0; k < ARRAY_SIZE(nrs) && !rc; k++) {
			struct seccomp_data sd = { .nr = (int)nrs[k], .arch = audit };
			rc = stack_point(pcs, n, &sd, policy_decide(p, views, &sd, NULL), d);
		}
		break;
	}
	policy_views_fini(p, views, p->narches);
	return rc;
}

/* ------------------------------------------------------------ entry points */

static bool notif_action(uint32_t act)
{
	return (act & 0xffff0000U) == SCMPC_ACT_USER_NOTIF;
}

/* Group the rules and pack the groups into programs; refuse a USER_NOTIF fallback that needs
 * several. */
static int split_run(struct splitter *s, size_t max_progs, struct piece **pcs, size_t *n)
{
	const scmpc_policy *p = s->p;
	int rc = make_groups(s);
	if (rc < 0 || (rc = install_fills(s)) < 0)
		return rc;
	rc = pack(s, max_progs, pcs, n);
	if (rc < 0 || *n < 2)
		return rc;
	bool notif = notif_action(p->def_action) || notif_action(p->badarch_action) ||
		     (p->unknown_set && notif_action(p->unknown_action));
	for (size_t a = 0; a < ARRAY_SIZE(p->limits); a++)
		notif |= p->limits[a].set && notif_action(p->limits[a].action);
	if (notif) {
		pieces_free(*pcs, *n);
		*pcs = NULL;
		return diag_err(s->d, -ENOTSUP, NULL,
				"the policy needs %zu programs, but USER_NOTIF is its default, "
				"unknown-syscall, bad-arch or limit action: every program would "
				"return it, and a chain holds one listener", *n);
	}
	return 0;
}

static void splitter_fini(struct splitter *s)
{
	for (size_t i = 0; i < s->nfills; i++)
		free(s->fills[i].acts);
	free(s->group);
	free(s->first_key);
	free(s->take);
}

size_t split_count(const scmpc_policy *p)
{
	struct splitter s = { .p = p, .d = NULL, .max_insns = SPLIT_MAX_INSNS,
			      .budget = { SPLIT_MAX_WORK } };
	struct piece *pcs = NULL;
	size_t n = 0;
	if (split_run(&s, 0, &pcs, &n) < 0)
		n = 0;
	pieces_free(pcs, n);
	splitter_fini(&s);
	return n > 1 ? n : 0;
}

void split_hint(const scmpc_policy *p, scmpc_diag *d)
{
	if (!d)
		return;
	size_t n = split_count(p);
	if (n < 2)
		return;
	char msg[512], where[128];
	snprintf(msg, sizeof(msg), "%s", scmpc_diag_message(d));
	snprintf(where, sizeof(where), "%s", scmpc_diag_where(d));
	diag_err(d, scmpc_diag_errno(d), where[0] ? where : NULL,
		 "%s; split by syscall, it fits in a stack of %zu programs that decides as the "
		 "policy (scmpc_compile_split())", msg, n);
}

int split_policy(const scmpc_policy *p, const struct scmpc_split_opts *opts, scmpc_prog ***out,
		 scmpc_diag *d)
{
	struct piece *pcs = NULL;
	size_t n = 0;
	int rc;
	struct splitter s = {
		.p = p, .d = d, .flags = opts->flags, .hot = opts->hot,
		.max_insns = opts->max_insns ? opts->max_insns : SPLIT_MAX_INSNS,
		.budget = { SPLIT_MAX_WORK }, .progress = opts->progress,
	};

	/* A policy that fits is its own one program. */
	scmpc_prog *whole = NULL;
	struct scmpc_compile_opts co = { .sz = sizeof(co), .flags = opts->flags, .hot = opts->hot };
	scmpc_diag *scratch = scmpc_diag_new();
	if (!scratch)
		return diag_err(d, -ENOMEM, NULL, "out of memory");
	rc = compile_policy(p, &co, &whole, NULL, &s.budget, scratch);
	if (rc == 0 && whole->len <= s.max_insns) {
		scmpc_prog **arr = malloc(sizeof(*arr));
		if (arr)
			diag_copy_warnings(d, scratch, false);
		scmpc_diag_free(scratch);
		if (!arr) {
			scmpc_prog_free(whole);
			return diag_err(d, -ENOMEM, NULL, "out of memory");
		}
		arr[0] = whole;
		*out = arr;
		return 1;
	}
	scmpc_prog_free(whole);
	if (rc < 0 && rc != -E2BIG) {
		rc = diag_err(d, rc, scmpc_diag_where(scratch), "%s", scmpc_diag_message(scratch));
		scmpc_diag_free(scratch);
		return rc;
	}
	scmpc_diag_free(scratch);

	if ((rc = split_run(&s, opts->max_progs, &pcs, &n)) < 0)
		goto out;
	/* Each piece against its own policy, then the stack against P. */
	for (size_t i = 0; i < n && !(opts->flags & SCMPC_COMPILE_NO_VERIFY); i++) {
		scmpc_diag *w = scmpc_diag_new();
		if (!w) {
			rc = diag_err(d, -ENOMEM, NULL, "out of memory");
			goto out;
		}
		rc = scmpc_verify_policy(pcs[i].pol, pcs[i].prog->insns, pcs[i].prog->len, w);
		diag_copy_warnings(d, w, true);
		progress_report(opts->progress, "verify", i + 1, n);
		if (rc < 0)
			rc = diag_err(d, rc, NULL, "internal error: program %zu of %zu disagrees with "
				      "its part of the policy: %s", i + 1, n, scmpc_diag_message(w));
		scmpc_diag_free(w);
		if (rc < 0)
			goto out;
	}
	if (!(opts->flags & SCMPC_COMPILE_NO_VERIFY) && (rc = check_stack(p, pcs, n, d)) < 0)
		goto out;

	scmpc_prog **set = calloc(n, sizeof(*set));
	for (size_t i = 0; set && i < n; i++)
		set[i] = pcs[i].prog;
	rc = set ? check_installable(p, set, n, d) : diag_err(d, -ENOMEM, NULL, "out of memory");
	free(set);
	if (rc < 0)
		goto out;
	unsigned long budget = 0;
	for (size_t i = 0; i < n; i++)
		budget += scmpc_prog_ebpf_len(pcs[i].prog) + 4;
	if (budget > SCMPC_CHAIN_BUDGET)
		diag_warn(d, "the %zu programs convert to %lu eBPF instructions with the chain's 4 "
			  "per filter, more than the kernel's budget of %u for a whole chain: "
			  "they cannot all be installed", n, budget, SCMPC_CHAIN_BUDGET);
	scmpc_prog **arr = calloc(n, sizeof(*arr));
	if (!arr) {
		rc = diag_err(d, -ENOMEM, NULL, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		arr[i] = pcs[i].prog;
		pcs[i].prog = NULL;
	}
	*out = arr;
	rc = (int)n;
out:
	pieces_free(pcs, n);
	splitter_fini(&s);
	return rc;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Exact answers about programs: diff, subset and intersect.  The programs
 * run side by side on one symbolic call (the engine's EACH mode), so every
 * path carries each program's return and the set of calls that take it;
 * the paths partition the input space.  An answer is read off the paths
 * whose returns disagree (diff) or whose candidate is less restrictive
 * (subset), each turned into regions (an ABI, a range of numbers, the
 * argument sets as text) with a witness call that the concrete
 * interpreter confirms on every program before the answer leaves.
 *
 * This folder reads programs through the engine and the ABI facts; it
 * builds programs only through the compiler's public entry points
 * (intersect), and never touches a policy's internals.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "answer/answer.h"
#include "arch/arch.h"

#define MAX_PATHS_DEFAULT 1000000
#define MAX_REGIONS (1U << 20)

struct scmpc_answer {
	struct scmpc_region *v;
	size_t n, cap;
	size_t paths;
};

/* ------------------------------------------------------------- the walk */

/* answer_walk() in MODE (EACH, or STACK_THEN for a program against a
 * stack). */
static int walk_mode(struct walker *W, const struct sock_filter *const *progs, const size_t *lens,
		     size_t n, enum walk_mode mode, size_t max_paths, scmpc_diag *d)
{
	memset(W, 0, sizeof(*W));
	W->progs = progs;
	W->lens = lens;
	W->n = n;
	W->mode = mode;
	W->max_paths = max_paths ? max_paths : MAX_PATHS_DEFAULT;
	W->d = d;
	size_t least = mode == WALK_STACK_THEN ? 2 : 1;
	if (n < least || n > WALK_MAX_EACH)
		return diag_err(d, -EINVAL, NULL, "%zu programs: %zu to %d can be compared", n,
				least, WALK_MAX_EACH);
	for (size_t i = 0; i < n; i++) {
		if (!progs[i] || !lens[i])
			return diag_err(d, -EINVAL, NULL, "program %zu is empty", i + 1);
		int err = scmpc_verify_insns(progs[i], lens[i], d);
		if (err < 0) {
			char msg[512];
			snprintf(msg, sizeof(msg), "%s", scmpc_diag_message(d));
			return diag_err_insn(d, err, scmpc_diag_insn(d), "program %zu: %s", i + 1, msg);
		}
	}
	return walk_paths(W);
}

int answer_walk(struct walker *W, const struct sock_filter *const *progs, const size_t *lens,
		size_t n, size_t max_paths, scmpc_diag *d)
{
	return walk_mode(W, progs, lens, n, WALK_EACH, max_paths, d);
}

int answer_walk_stack(struct walker *W, const struct sock_filter *const *progs,
		      const size_t *lens, size_t n, size_t max_paths, scmpc_diag *d)
{
	return walk_mode(W, progs, lens, n, WALK_STACK_THEN, max_paths, d);
}

/* --------------------------------------------------------- describing */

struct text {
	char *s;
	size_t len, at;
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append printf-style text to T, cutting it with "..." when it does not fit. */
static void put(struct text *t, const char *fmt, ...)
{
	if (t->at >= t->len)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(t->s + t->at, t->len - t->at, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= t->len - t->at) {
		/* cut: say so in the last bytes */
		t->at = t->len;
		if (t->len > 4)
			memcpy(t->s + t->len - 4, "...", 4);
		return;
	}
	t->at += (size_t)n;
}

/* One word's set as conditions on NAME ("a0.lo"), joined by " && ". */
static void word_text(struct text *t, const struct wcon *c, const char *name, bool *first)
{
	if (wcon_trivial(c))
		return;
	const char *sep = *first ? "" : " && ";
	*first = false;
	if (c->lo == c->hi) {
		put(t, "%s%s == %#" PRIx32, sep, name, c->lo);
		return;
	}
	if (c->lo != 0 || c->hi != UINT32_MAX) {
		put(t, "%s%s in %#" PRIx32 "..%#" PRIx32, sep, name, c->lo, c->hi);
		sep = " && ";
	}
	if (c->m == UINT32_MAX) {
		put(t, "%s%s == %#" PRIx32, sep, name, c->v);
		sep = " && ";
	} else if (c->m) {
		put(t, "%s%s & %#" PRIx32 " == %#" PRIx32, sep, name, c->m, c->v);
		sep = " && ";
	}
	for (const struct ne *e = c->ne; e; e = e->next) {
		/* two filters' walks can exclude one value twice: once */
		const struct ne *f = c->ne;
		while (f != e && (f->m != e->m || f->v != e->v))
			f = f->next;
		if (f != e)
			continue;
		if (e->m == UINT32_MAX)
			put(t, "%s%s != %#" PRIx32, sep, name, e->v);
		else
			put(t, "%s%s & %#" PRIx32 " != %#" PRIx32, sep, name, e->m, e->v);
		sep = " && ";
	}
}

/* A word's single value, if it has one. */
static bool word_point(const struct wcon *c, uint32_t *x)
{
	if (c->lo == c->hi) {
		*x = c->lo;
		return true;
	}
	if (c->m == UINT32_MAX && !c->ne) {
		*x = c->v;
		return true;
	}
	return false;
}

/* The argument (and instruction pointer) words of path P as text, the
 * words read in the byte order of ABI AI (the host's without one). */
static void args_text(const struct path *p, const struct arch_info *ai, char *buf, size_t len)
{
	struct text t = { buf, len, 0 };
	bool first = true;
	buf[0] = '\0';
	bool be = ai ? ai->big_endian : host_big_endian();
	for (unsigned a = 0; a < 7; a++) {
		/* a == 6: the instruction pointer, words 2 and 3 */
		unsigned base = a < 6 ? W_ARGS + 2 * a : W_IP;
		const struct wcon *hi = &p->w[base + (be ? 0 : 1)], *lo = &p->w[base + (be ? 1 : 0)];
		char name[16];
		uint32_t vh, vl;
		if (a < 6)
			snprintf(name, sizeof(name), "a%u", a);
		else
			snprintf(name, sizeof(name), "ip");
		if (wcon_trivial(hi) && wcon_trivial(lo))
			continue;
		if (word_point(hi, &vh) && word_point(lo, &vl)) {
			put(&t, "%s%s == %#" PRIx64, first ? "" : " && ", name,
			    (uint64_t)vh << 32 | vl);
			first = false;
			continue;
		}
		char wn[20];
		snprintf(wn, sizeof(wn), "%s.hi", name);
		word_text(&t, hi, wn, &first);
		snprintf(wn, sizeof(wn), "%s.lo", name);
		word_text(&t, lo, wn, &first);
	}
}

/* ----------------------------------------------------------- regions */

static int region_add(scmpc_answer *ans, const struct scmpc_region *r, scmpc_diag *d)
{
	if (ans->n >= MAX_REGIONS)
		return diag_err(d, -E2BIG, NULL, "more than %u regions differ (the bound); stopped",
				MAX_REGIONS);
	if (!array_reserve(&ans->v, &ans->cap, ans->n, sizeof(*ans->v), 64))
		return diag_err(d, -ENOMEM, NULL, "out of memory");
	ans->v[ans->n++] = *r;
	return 0;
}

/* A call of path P with AUDIT and NR, each other word its least value. */
static int witness(const struct path *p, uint32_t audit, uint32_t nr, struct seccomp_data *sd)
{
	uint32_t w[NWORDS];
	for (unsigned i = 0; i < NWORDS; i++) {
		if (i == W_ARCH || i == W_NR)
			continue;
		if (wcon_first(&p->w[i], 0, &w[i]) != 1)
			return -E2BIG;
	}
	w[W_ARCH] = audit;
	w[W_NR] = nr;
	words_to_data(w, sd);
	return 0;
}

/* The AUDIT_ARCH values scmpc knows, each once. */
static size_t known_audits(uint32_t *out)
{
	size_t n = 0;
	for (int a = 1; a <= SCMPC_ARCH_COUNT; a++) {
		uint32_t x = scmpc_arch_audit((enum scmpc_arch)a);
		bool seen = false;
		for (size_t i = 0; i < n; i++)
			seen |= out[i] == x;
		if (!seen)
			out[n++] = x;
	}
	return n;
}

/* Path I's calls as regions of ANS: per AUDIT_ARCH value in its set (and
 * the values no ABI has, together), per run of numbers (x86_64's split at
 * x32's bit).  Each witness is run on every program: the engine's answer
 * must be the interpreter's. */
static int path_regions(scmpc_answer *ans, const struct walker *W, size_t i, scmpc_diag *d)
{
	const struct path *p = &W->paths[i];
	const uint32_t *each = &W->each[i * W->n];
	uint32_t aud[SCMPC_ARCH_COUNT + 1];
	size_t na = known_audits(aud);
	for (size_t k = 0; k <= na; k++) {
		struct scmpc_region r = { .sz = sizeof(r) };
		if (k < na) {
			if (!wcon_has(&p->w[W_ARCH], aud[k]))
				continue;
			r.audit = aud[k];
		} else {
			/* one value of the set that no ABI has, if any */
			uint32_t x = 0;
			int got = 0;
			for (uint32_t from = 0;;) {
				if ((got = wcon_first(&p->w[W_ARCH], from, &x)) != 1)
					break;
				bool known = false;
				for (size_t j = 0; j < na; j++)
					known |= aud[j] == x;
				if (!known)
					break;
				if (x == UINT32_MAX) {
					got = 0;
					break;
				}
				from = x + 1;
			}
			if (got < 0)
				return diag_err(d, -E2BIG, NULL, "the search for a witness gave up");
			if (got == 0)
				continue;
			r.audit = x;
			r.other_arches = true;
		}
		struct ivals iv = { 0 };
		int err = wcon_intervals(&p->w[W_NR], 0, UINT32_MAX, 0, &iv);
		for (size_t j = 0; j < iv.n && err >= 0; j++) {
			uint32_t lo = iv.v[j].lo, hi = iv.v[j].hi;
			while (err >= 0) {
				/* x86_64's AUDIT_ARCH serves x32 from bit 30 up */
				uint32_t end = hi;
				if (!r.other_arches && lo < X32_SYSCALL_BIT && hi >= X32_SYSCALL_BIT &&
				    arch_of_call(r.audit, X32_SYSCALL_BIT) != arch_of_call(r.audit, 0))
					end = X32_SYSCALL_BIT - 1;
				r.nr_lo = lo;
				r.nr_hi = end;
				r.arch = r.other_arches ? SCMPC_ARCH_NONE : arch_of_call(r.audit, lo);
				args_text(p, r.arch ? arch_info(r.arch) : NULL, r.args, sizeof(r.args));
				if ((err = witness(p, r.audit, lo, &r.witness)) < 0) {
					err = diag_err(d, err, NULL, "the search for a witness gave up");
					break;
				}
				for (size_t q = 0; q < W->n && err >= 0; q++) {
					uint32_t got;
					err = scmpc_emulate(W->progs[q], W->lens[q], &r.witness, &got, NULL);
					if (err >= 0 && got != each[q])
						err = diag_err(d, -EPROTO, NULL,
							       "internal error: program %zu returns %#x "
							       "for the witness where the engine says %#x",
							       q + 1, got, each[q]);
				}
				r.action[0] = each[0];
				r.action[1] = W->n > 1 ? each[1] : each[0];
				if (err >= 0)
					err = region_add(ans, &r, d);
				if (end == hi)
					break;
				lo = end + 1;
			}
		}
		free(iv.v);
		if (err < 0)
			return err;
	}
	return 0;
}

static int region_cmp(const void *pa, const void *pb)
{
	const struct scmpc_region *a = pa, *b = pb;
	if (a->other_arches != b->other_arches)
		return a->other_arches - b->other_arches;
	if (a->audit != b->audit)
		return a->audit < b->audit ? -1 : 1;
	if (a->nr_lo != b->nr_lo)
		return a->nr_lo < b->nr_lo ? -1 : 1;
	return strcmp(a->args, b->args);
}

/* Neighbouring regions that say the same of their numbers become one. */
static void regions_merge(scmpc_answer *ans)
{
	if (!ans->n)
		return;
	qsort(ans->v, ans->n, sizeof(*ans->v), region_cmp);
	size_t out = 0;
	for (size_t i = 1; i < ans->n; i++) {
		struct scmpc_region *a = &ans->v[out], *b = &ans->v[i];
		if (a->other_arches == b->other_arches && a->audit == b->audit &&
		    a->arch == b->arch && a->nr_hi != UINT32_MAX && a->nr_hi + 1 == b->nr_lo &&
		    a->action[0] == b->action[0] && a->action[1] == b->action[1] &&
		    !strcmp(a->args, b->args)) {
			a->nr_hi = b->nr_hi;
			continue;
		}
		ans->v[++out] = *b;
	}
	ans->n = out + 1;
}

/* ------------------------------------------------------------ answers */

/* Whether CAND is less restrictive than BASE, or as restrictive with
 * other data (unless IGNORE_DATA): the kernel ranks actions by the
 * signed value of their action bits. */
bool answer_looser(uint32_t base, uint32_t cand, bool ignore_data)
{
	if (act_rank(cand) != act_rank(base))
		return act_rank(cand) > act_rank(base);
	return !ignore_data && cand != base;
}

int answer_hand_out(int err, scmpc_prog *prog, scmpc_policy *p, scmpc_prog **out,
		    scmpc_policy **policy)
{
	if (err < 0) {
		scmpc_prog_free(prog);
		scmpc_policy_free(p);
		return err;
	}
	*out = prog;
	if (policy)
		*policy = p;
	else
		scmpc_policy_free(p);
	return 0;
}

/* scmpc_diff() and, with SUBSET, scmpc_subset(): both programs walked together, each differing
 * path a region. */
static int compare(const struct sock_filter *a, size_t alen, const struct sock_filter *b,
		   size_t blen, const struct scmpc_compare_opts *o, bool subset,
		   scmpc_answer **out, scmpc_diag *d)
{
	struct scmpc_compare_opts opts;
	int err;
	if ((err = OPTS_VALID(o, scmpc_compare_opts, sz, d)) < 0)
		return err;
	OPTS_COPY(opts, o);
	if (opts.flags & ~SCMPC_COMPARE_IGNORE_DATA)
		return diag_err(d, -EINVAL, NULL, "unknown compare flags %#x",
				opts.flags & ~SCMPC_COMPARE_IGNORE_DATA);
	if (!out)
		return diag_err(d, -EINVAL, NULL, "no place for the answer");
	*out = NULL;
	const struct sock_filter *progs[2] = { a, b };
	size_t lens[2] = { alen, blen };
	struct walker W;
	scmpc_answer *ans = calloc(1, sizeof(*ans));
	if (!ans)
		return diag_err(d, -ENOMEM, NULL, "out of memory");
	err = answer_walk(&W, progs, lens, 2, opts.max_paths, d);
	for (size_t i = 0; i < W.npaths && err >= 0; i++) {
		uint32_t x = W.each[2 * i], y = W.each[2 * i + 1];
		bool differs = subset ? answer_looser(x, y, opts.flags & SCMPC_COMPARE_IGNORE_DATA)
				      : x != y;
		if (differs)
			err = path_regions(ans, &W, i, d);
	}
	ans->paths = W.npaths;
	walker_fini(&W);
	if (err < 0) {
		scmpc_answer_free(ans);
		return err;
	}
	regions_merge(ans);
	*out = ans;
	return 0;
}

SCMPC_API int scmpc_diff(const struct sock_filter *a, size_t alen, const struct sock_filter *b,
			 size_t blen, const struct scmpc_compare_opts *o, scmpc_answer **out,
			 scmpc_diag *d)
{
	return compare(a, alen, b, blen, o, false, out, d);
}

SCMPC_API int scmpc_subset(const struct sock_filter *base, size_t blen,
			   const struct sock_filter *candidate, size_t clen,
			   const struct scmpc_compare_opts *o, scmpc_answer **out, scmpc_diag *d)
{
	return compare(base, blen, candidate, clen, o, true, out, d);
}

SCMPC_API size_t scmpc_answer_count(const scmpc_answer *ans)
{
	return ans ? ans->n : 0;
}

SCMPC_API size_t scmpc_answer_paths(const scmpc_answer *ans)
{
	return ans ? ans->paths : 0;
}

SCMPC_API int scmpc_answer_region(const scmpc_answer *ans, size_t i, struct scmpc_region *out)
{
	if (!ans || !out || out->sz < offsetof(struct scmpc_region, audit) + sizeof(out->audit) ||
	    i >= ans->n)
		return -EINVAL;
	OUT_FILL(out, ans->v[i]);
	return 0;
}

SCMPC_API void scmpc_answer_free(scmpc_answer *ans)
{
	if (!ans)
		return;
	free(ans->v);
	free(ans);
}

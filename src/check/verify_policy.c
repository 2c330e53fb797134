/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The semantic check: a program must decide every probe point exactly as
 * the policy's rules do (policy_eval.c).
 *
 * A program over seccomp_data can only change its answer where one of its
 * constants is crossed, and a compiled program's constants come from the
 * policy: syscall numbers, range ends, argument constants and mask bits.
 * The probes are therefore the whole syscall table, each named number and
 * its neighbours, the ABI boundaries, and for argument-checked calls every
 * constant, its neighbours, its high-word and sign-extended variants and
 * each mask bit flipped, combined over the arguments the rules test.
 * Argument-checked calls are proven over every argument value instead
 * (verify_args.c); the probes remain for calls whose classes it cannot
 * express.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check/check.h"
#include "bpf/bpf.h"
#include "policy/lsc_tree.h"

#define MAX_COMBOS (1u << 15)

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

static bool add32(uint32_t **v, size_t *n, size_t *cap, uint64_t x)
{
	if (x > UINT32_MAX)
		return true;
	if (!array_reserve(v, cap, *n, sizeof(**v), 2048))
		return false;
	(*v)[(*n)++] = (uint32_t)x;
	return true;
}


/* The numbers probed beyond the break points: the first 1024 of the ABI
 * (and of x32 inside x86_64's space), as ranges; returns how many. */
static size_t fill_ranges(const struct arch_view *v, uint32_t lo[2], uint32_t hi[2])
{
	size_t n = 0;
	lo[n] = v->info->nr_base;
	hi[n++] = v->info->nr_base + 1023;
	if (v->info->audit == arch_info(SCMPC_ARCH_X86_64)->audit && !v->info->nr_base) {
		lo[n] = X32_SYSCALL_BIT;
		hi[n++] = X32_SYSCALL_BIT + 1023;
	}
	return n;
}

/* The numbers where P's decision on V can change (its rules' numbers and
 * their neighbours, the unknown-syscall threshold, ARM's private range,
 * runc's stub bounds, x32's and -1's edges, the mips bases); unsorted,
 * with repeats (the caller sorts the union of several). */
static long number_set(const scmpc_policy *p, const struct arch_view *v, uint32_t **out)
{
	static const uint32_t bounds[] = { 0x3fffffff, X32_SYSCALL_BIT, 0x7fffffff, 0x80000000,
					   0xbfffffff, 0xc0000000, 0xfffffffe, 0xffffffff };
	uint32_t *nums = NULL, plo, phi;
	size_t n = 0, cap = 0;
	bool ok = true;

	if (arch_private_range(v->info, &plo, &phi))
		ok = add32(&nums, &n, &cap, plo - 1) && add32(&nums, &n, &cap, plo) &&
		     add32(&nums, &n, &cap, plo + 1) && add32(&nums, &n, &cap, phi) &&
		     add32(&nums, &n, &cap, (uint64_t)phi + 1);

	/* Below an ABI's base (mips o32/n64/n32 number from 4000/5000/6000)
	 * lie the other mips ABIs' numbers, which this one must not serve. */
	if (v->info->nr_base && v->info->nr_base < X32_SYSCALL_BIT)
		ok = ok && add32(&nums, &n, &cap, 0) && add32(&nums, &n, &cap, v->info->nr_base - 1) &&
		     add32(&nums, &n, &cap, (uint64_t)v->info->nr_base + 1000) &&
		     add32(&nums, &n, &cap, (uint64_t)v->info->nr_base + 2000);
	for (size_t i = 0; i < ARRAY_SIZE(bounds) && ok; i++)
		ok = add32(&nums, &n, &cap, bounds[i]);
	for (size_t i = 0; i < v->nrs && ok; i++)
		for (int dlt = -1; dlt <= 1 && ok; dlt++)
			ok = add32(&nums, &n, &cap, (uint64_t)v->rs[i].nr + (uint64_t)(int64_t)dlt);
	if (v->threshold != UINT32_MAX && ok)
		ok = add32(&nums, &n, &cap, v->threshold) &&
		     add32(&nums, &n, &cap, (uint64_t)v->threshold + 1);
	/* runc's stub: its bound, and the numbers of a shared AUDIT_ARCH it
	 * covers (x32's under x86_64's). */
	for (int k = 0; k < 2 && ok; k++) {
		const struct limit *l = call_limit(p, v->info->audit, k ? X32_SYSCALL_BIT : 0);
		if (l)
			ok = add32(&nums, &n, &cap, l->max) &&
			     add32(&nums, &n, &cap, (uint64_t)l->max + 1) &&
			     add32(&nums, &n, &cap, 0) && add32(&nums, &n, &cap, 1);
	}
	/* bit 30 against range: where runc's stub and libseccomp part */
	static const uint32_t x86_edges[] = { 0x7fffffff, 0x80000000, 0xbfffffff, 0xc0000000 };
	for (size_t k = 0; k < ARRAY_SIZE(x86_edges) && ok && v->info->audit == arch_info(SCMPC_ARCH_X86_64)->audit; k++)
		ok = add32(&nums, &n, &cap, x86_edges[k]);
	if (!ok) {
		free(nums);
		return -ENOMEM;
	}
	*out = nums;
	return (long)n;
}

/* ------------------------------------------------- the program by number */

/*
 * What a program does over the syscall numbers of one AUDIT_ARCH value, by
 * running it symbolically with arch fixed and nr unknown: each path splits
 * the number space at the constants it compares nr with, and ends either
 * in a constant return that read nothing but arch and nr (the whole piece
 * of numbers then gets that action, whatever the arguments), or somewhere
 * else (an argument, the instruction pointer, arithmetic on A, X, scratch
 * memory), where the numbers are probed one by one as before.  Exact, not
 * sampled: a constant piece covers every number in it.
 */
struct nr_piece {
	uint32_t lo, hi;
	bool constant;
	uint32_t ret;
};

struct nr_walk {
	const struct sock_filter *insns;
	size_t len;
	uint32_t audit;
	struct nr_piece *pieces;
	size_t n, cap;
	size_t steps;
	bool failed;	/* out of memory or budget: probe as before */
};

/* A program of 4096 instructions splits the numbers at most at 4096
 * constants; the budget only stops pathological shapes (JSET splitting). */
#define WALK_BUDGET 200000
#define JSET_MAX_BLOCKS 64

enum a_state { A_UNKNOWN, A_CONST, A_NR };

static void piece(struct nr_walk *w, uint32_t lo, uint32_t hi, bool constant, uint32_t ret)
{
	if (!array_reserve(&w->pieces, &w->cap, w->n, sizeof(*w->pieces), 64)) {
		w->failed = true;
		return;
	}
	w->pieces[w->n++] = (struct nr_piece){ lo, hi, constant, ret };
}

static void walk(struct nr_walk *w, size_t pc, enum a_state as, uint32_t ac, uint32_t lo,
		 uint32_t hi);

/* Continue at PC with nr known to lie in [LO, HI], if that is not empty. */
static void walk_part(struct nr_walk *w, size_t pc, uint64_t lo, uint64_t hi)
{
	if (lo <= hi)
		walk(w, pc, A_NR, 0, (uint32_t)lo, (uint32_t)hi);
}

static void walk(struct nr_walk *w, size_t pc, enum a_state as, uint32_t ac, uint32_t lo,
		 uint32_t hi)
{
	for (;;) {
		if (w->failed)
			return;
		if (++w->steps > WALK_BUDGET || pc >= w->len) {
			w->failed = true;
			return;
		}
		const struct sock_filter *f = &w->insns[pc];
		uint32_t k = f->k;
		switch (f->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (k == offsetof(struct seccomp_data, arch)) {
				as = A_CONST;
				ac = w->audit;
			} else if (k == offsetof(struct seccomp_data, nr)) {
				as = A_NR;
			} else {
				piece(w, lo, hi, false, 0);
				return;
			}
			pc++;
			continue;
		case BPF_LD | BPF_W | BPF_LEN:
			as = A_CONST;
			ac = sizeof(struct seccomp_data);
			pc++;
			continue;
		case BPF_LD | BPF_IMM:
			as = A_CONST;
			ac = k;
			pc++;
			continue;
		case BPF_RET | BPF_K:
			piece(w, lo, hi, true, k);
			return;
		case BPF_RET | BPF_A:
			piece(w, lo, hi, as == A_CONST, ac);
			return;
		case BPF_JMP | BPF_JA:
			pc += 1 + (size_t)k;
			continue;
		case BPF_JMP | BPF_JEQ | BPF_K:
		case BPF_JMP | BPF_JGT | BPF_K:
		case BPF_JMP | BPF_JGE | BPF_K:
		case BPF_JMP | BPF_JSET | BPF_K:
			break;
		default:
			piece(w, lo, hi, false, 0);
			return;
		}
		size_t pt = pc + 1 + f->jt, pf = pc + 1 + f->jf;
		uint32_t op = BPF_OP(f->code);
		if (as == A_CONST) {
			bool t = op == BPF_JEQ ? ac == k : op == BPF_JGT ? ac > k
				 : op == BPF_JGE ? ac >= k : (ac & k) != 0;
			pc = t ? pt : pf;
			continue;
		}
		if (as != A_NR) {
			piece(w, lo, hi, false, 0);
			return;
		}
		uint64_t l = lo, h = hi, kk = k;
		switch (op) {
		case BPF_JEQ:
			if (kk >= l && kk <= h) {
				walk_part(w, pt, kk, kk);
				if (kk > l)
					walk_part(w, pf, l, kk - 1);
				walk_part(w, pf, kk + 1, h);
			} else {
				walk_part(w, pf, l, h);
			}
			return;
		case BPF_JGT:
			walk_part(w, pt, kk + 1 > l ? kk + 1 : l, h);
			walk_part(w, pf, l, kk < h ? kk : h);
			return;
		case BPF_JGE:
			walk_part(w, pt, kk > l ? kk : l, h);
			if (kk > 0)
				walk_part(w, pf, l, kk - 1 < h ? kk - 1 : h);
			return;
		default: {
			/* nr & k is the same across a block aligned to k's lowest
			 * set bit; too many blocks and the numbers are probed */
			if (!k) {
				walk_part(w, pf, l, h);
				return;
			}
			uint64_t step = kk & -kk;
			if ((h - l) / step + 1 > JSET_MAX_BLOCKS) {
				piece(w, lo, hi, false, 0);
				return;
			}
			for (uint64_t b = l; b <= h;) {
				uint64_t end = (b | (step - 1)) < h ? (b | (step - 1)) : h;
				walk_part(w, (b & kk) ? pt : pf, b, end);
				b = end + 1;
			}
			return;
		}
		}
	}
}

static int cmp_piece(const void *a, const void *b)
{
	const struct nr_piece *x = a, *y = b;
	return (x->lo > y->lo) - (x->lo < y->lo);
}

/* The pieces of the number space for AUDIT, sorted; false when the walk
 * gave up (the caller then probes every number as before). */
static bool program_pieces(const struct sock_filter *insns, size_t len, uint32_t audit,
			   struct nr_piece **out, size_t *n)
{
	struct nr_walk w = { .insns = insns, .len = len, .audit = audit };
	walk(&w, 0, A_UNKNOWN, 0, 0, UINT32_MAX);
	if (w.failed) {
		free(w.pieces);
		return false;
	}
	qsort(w.pieces, w.n, sizeof(*w.pieces), cmp_piece);
	*out = w.pieces;
	*n = w.n;
	return true;
}

static void describe(char *buf, size_t len, const struct seccomp_data *sd, enum scmpc_arch a)
{
	char name[64] = "";
	if (a != SCMPC_ARCH_NONE && scmpc_syscall_name(a, (uint32_t)sd->nr, name, sizeof(name)))
		;
	else
		snprintf(name, sizeof(name), "?");
	snprintf(buf, len,
		 "arch 0x%08x nr %u (%s) args {0x%llx, 0x%llx, 0x%llx, 0x%llx, 0x%llx, 0x%llx}",
		 sd->arch, (uint32_t)sd->nr, name, (unsigned long long)sd->args[0],
		 (unsigned long long)sd->args[1], (unsigned long long)sd->args[2],
		 (unsigned long long)sd->args[3], (unsigned long long)sd->args[4],
		 (unsigned long long)sd->args[5]);
}

static int mismatch(const struct seccomp_data *sd, int err, uint32_t got, uint32_t want,
		    scmpc_diag *d)
{
	char where[256], ws[32], gs[32];
	describe(where, sizeof(where), sd, arch_of_call(sd->arch, (uint32_t)sd->nr));
	scmpc_action_str(want, ws, sizeof(ws));
	if (err)
		return diag_err(d, -EPROTO, NULL, "%s: the program fails to run (%d); the policy says %s",
				where, err, ws);
	scmpc_action_str(got, gs, sizeof(gs));
	return diag_err(d, -EPROTO, NULL, "%s: the program returns %s, the policy says %s", where,
			gs, ws);
}

/* FIXED: the program's answer, known from its pieces, or NULL to run it. */
static int check_decision(const struct sock_filter *insns, size_t len,
			  const struct seccomp_data *sd, uint32_t want, const uint32_t *fixed,
			  scmpc_diag *d)
{
	uint32_t got;
	int err = 0;
	if (fixed)
		got = *fixed;
	else
		err = scmpc_emulate(insns, len, sd, &got, NULL);
	if (err == 0 && got == want)
		return 0;
	return mismatch(sd, err, got, want, d);
}

static int check_point(const scmpc_policy *p, const struct arch_view *views,
		       const struct sock_filter *insns, size_t len, const struct seccomp_data *sd,
		       const uint32_t *fixed, scmpc_diag *d)
{
	return check_decision(insns, len, sd, policy_decide(p, views, sd, NULL), fixed, d);
}

/* Every argument vector for one call of view V.  The probes grow with the
 * call's constants and each decision tries its rules, so a call with
 * thousands of rules would cost their square; the call index brings that
 * down to the rules a vector can match. */
static int check_call(const scmpc_policy *p, const struct arch_view *v,
		      const struct sock_filter *insns, size_t len, struct seccomp_data *sd,
		      const uint32_t *fixed, scmpc_diag *d)
{
	uint64_t (*vec)[6] = NULL;
	struct call_index ix;
	struct seccomp_data w;
	int err = verify_args_symbolic(p, v, insns, len, sd->arch, (uint32_t)sd->nr, &w);
	if (err == 1)
		return 0;
	if (err == -ENOMEM)
		return diag_err(d, err, NULL, "out of memory");
	if (err == -EPROTO && (err = check_decision(insns, len, &w, eval_on_view(p, v, &w, NULL),
						     NULL, d)) < 0)
		return err;
	/* Given up, or a class the emulation does not confirm: probe. */
	err = 0;
	long nv = probe_args(p, v, (uint32_t)sd->nr, &vec);

	if (nv < 0)
		return diag_err(d, (int)nv, NULL, "out of memory");
	if ((err = call_index_init(&ix, p, v, (uint32_t)sd->nr)) < 0) {
		free(vec);
		return diag_err(d, err, NULL, "out of memory");
	}
	for (long k = 0; k < nv && !err; k++) {
		memcpy(sd->args, vec[k], sizeof(sd->args));
		err = check_decision(insns, len, sd, eval_indexed(p, v, &ix, sd, NULL), fixed, d);
	}
	call_index_fini(&ix);
	free(vec);
	return err;
}

/* Add V's filler numbers (fill_ranges()) to *NUMS: with the program's
 * pieces (sorted, covering every number), only where a piece reads more
 * than arch and nr; without them, all. */
static bool add_filler(uint32_t **nums, size_t *nn, size_t *cap, const struct arch_view *v,
		       const struct nr_piece *pc, size_t np)
{
	uint32_t lo[2], hi[2];
	size_t nr = fill_ranges(v, lo, hi);
	for (size_t r = 0; r < nr; r++) {
		if (!pc) {
			for (uint64_t x = lo[r]; x <= hi[r]; x++)
				if (!add32(nums, nn, cap, x))
					return false;
			continue;
		}
		for (size_t j = 0; j < np; j++) {
			if (pc[j].constant || pc[j].hi < lo[r] || pc[j].lo > hi[r])
				continue;
			uint64_t a = pc[j].lo > lo[r] ? pc[j].lo : lo[r];
			uint64_t b = pc[j].hi < hi[r] ? pc[j].hi : hi[r];
			for (uint64_t x = a; x <= b; x++)
				if (!add32(nums, nn, cap, x))
					return false;
		}
	}
	return true;
}

/* Sort N numbers and drop repeats; returns how many are left.  A radix
 * sort: the check sorts a few thousand numbers per AUDIT_ARCH on every
 * compile, where qsort's comparisons were a tenth of the check's time. */
static long sort_numbers(uint32_t *v, size_t n)
{
	uint32_t *tmp = malloc((n ? n : 1) * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	uint32_t *src = v, *dst = tmp;
	for (unsigned shift = 0; shift < 32; shift += 8) {
		size_t count[257] = { 0 };
		for (size_t i = 0; i < n; i++)
			count[((src[i] >> shift) & 0xff) + 1]++;
		for (size_t b = 0; b < 256; b++)
			count[b + 1] += count[b];
		for (size_t i = 0; i < n; i++)
			dst[count[(src[i] >> shift) & 0xff]++] = src[i];
		uint32_t *t = src;
		src = dst;
		dst = t;
	}
	/* four passes: the sorted numbers are back in V */
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (m == 0 || v[m - 1] != v[i])
			v[m++] = v[i];
	free(tmp);
	return (long)m;
}

/* The numbers to check for one AUDIT_ARCH value (x86_64 and x32 share
 * one).  Where the program returns a constant over a piece of numbers
 * without reading the arguments, the policy must give that action across
 * the piece; its decision changes only at its break points (number_set
 * without filler), so the piece's first number and the break points in it
 * cover it all.  Elsewhere the first 1024 numbers of each ABI and the
 * break points are probed.  *PCS gets the program's pieces (none when the
 * walk gave up), sorted. */
static long audit_numbers(const scmpc_policy *p, const struct arch_view *views, uint32_t audit,
			  const struct sock_filter *insns, size_t len, uint32_t **out,
			  struct nr_piece **pcs, size_t *npc)
{
	struct nr_piece *pc = NULL;
	size_t np = 0, nn = 0, cap = 0;
	uint32_t *nums = NULL;
	bool sym = program_pieces(insns, len, audit, &pc, &np), ok = true;
	bool fill = !sym;
	for (size_t j = 0; j < np && !fill; j++)
		fill = !pc[j].constant;
	for (size_t j = 0; j < np && ok; j++)
		ok = add32(&nums, &nn, &cap, pc[j].lo);
	for (size_t k = 0; k < p->narches && ok; k++) {
		if (views[k].info->audit != audit)
			continue;
		uint32_t *more;
		long nm = number_set(p, &views[k], &more);
		if (nm < 0) {
			ok = false;
			break;
		}
		for (long i = 0; i < nm && ok; i++)
			ok = add32(&nums, &nn, &cap, more[i]);
		free(more);
		if (ok && fill)
			ok = add_filler(&nums, &nn, &cap, &views[k], sym ? pc : NULL, np);
	}
	long m = ok ? sort_numbers(nums, nn) : -ENOMEM;
	if (m < 0) {
		free(pc);
		free(nums);
		return -ENOMEM;
	}
	*out = nums;
	*pcs = pc;
	*npc = np;
	return m;
}

/* Check every number of audit_numbers() once.  In a piece where the
 * program returns a constant whatever the arguments (the walk proved it),
 * its answer is that constant: only the policy is evaluated, and for a
 * call no conditional rule names, once. */
static int verify_audit(const scmpc_policy *p, const struct arch_view *views, uint32_t audit,
			const struct sock_filter *insns, size_t len, scmpc_diag *d)
{
	uint32_t *nums = NULL;
	struct nr_piece *pc = NULL;
	size_t np = 0, pi = 0;
	int err = 0;
	long nl = audit_numbers(p, views, audit, insns, len, &nums, &pc, &np);
	if (nl < 0)
		return diag_err(d, (int)nl, NULL, "out of memory");
	size_t nn = (size_t)nl;
	for (size_t i = 0; i < nn && !err; i++) {
		struct seccomp_data sd = { .nr = (int)nums[i], .arch = audit };
		enum scmpc_arch a = arch_of_call(sd.arch, nums[i]);
		const struct arch_view *dv = NULL;
		size_t lo, hi;
		while (pi + 1 < np && pc[pi + 1].lo <= nums[i])
			pi++;
		const uint32_t *fixed = np && pc[pi].constant ? &pc[pi].ret : NULL;
		if (nums[i] == 0xffffffffU) {
			/* -1: the rules of the first ABI that names it, or none */
			dv = minus1_view(p, views, audit, &lo, &hi);
		} else {
			for (size_t k = 0; k < p->narches; k++)
				if (views[k].arch == a)
					dv = &views[k];
		}
		if (!dv) {
			/* A foreign ABI's numbers: no argument may matter. */
			err = check_point(p, views, insns, len, &sd, fixed, d);
			memset(sd.args, 0xff, sizeof(sd.args));
			if (!err)
				err = check_point(p, views, insns, len, &sd, fixed, d);
			continue;
		}
		if (fixed && nums[i] != 0xffffffffU && !arch_view_has_conds(p, dv, nums[i]))
			err = check_point(p, views, insns, len, &sd, fixed, d);
		else
			err = check_call(p, dv, insns, len, &sd, fixed, d);
	}
	free(nums);
	free(pc);
	return err;
}

int verify_with_views(const scmpc_policy *p, const struct arch_view *views,
		      const struct sock_filter *insns, size_t len, scmpc_diag *d)
{
	int err;
	for (size_t i = 0; i < p->narches; i++) {
		bool seen = false;
		for (size_t k = 0; k < i; k++)
			seen |= views[k].info->audit == views[i].info->audit;
		if (!seen && (err = verify_audit(p, views, views[i].info->audit, insns, len, d)) < 0)
			return err;
	}

	/* ABIs outside the policy must meet the bad-arch action. */
	uint32_t foreign[SCMPC_ARCH_COUNT + 3] = { 0, 0xffffffffU, 0x40000028U ^ 0x80000000U };
	size_t nf = 3;
	for (int a = 1; a <= SCMPC_ARCH_COUNT; a++)
		foreign[nf++] = scmpc_arch_audit((enum scmpc_arch)a);
	static const uint32_t nrs[] = { 0, 1, 59, X32_SYSCALL_BIT, 0xffffffff };
	for (size_t f = 0; f < nf; f++)
		for (size_t k = 0; k < ARRAY_SIZE(nrs); k++) {
			struct seccomp_data sd = { .nr = (int)nrs[k], .arch = foreign[f] };
			if ((err = check_point(p, views, insns, len, &sd, NULL, d)) < 0)
				return err;
		}
	return 0;
}

SCMPC_API int scmpc_verify_policy(const scmpc_policy *p, const struct sock_filter *insns,
				  size_t len, scmpc_diag *d)
{
	struct arch_view views[SCMPC_ARCH_COUNT];
	int err = policy_views_init(p, views, d);
	if (err < 0)
		return err;
	err = verify_with_views(p, views, insns, len, d);
	policy_views_fini(p, views, p->narches);
	return err;
}

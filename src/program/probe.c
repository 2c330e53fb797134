/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Probes for comparing programs whose policies are not (all) known: the
 * syscall numbers of an ABI where filters go wrong, argument values around
 * the constants a policy or a program compares with, and, for one call,
 * whether and how its decision reads the arguments.
 *
 * The semantic check (verify_policy.c) has the policy and its resolved
 * rules, and probes each call densely.  A program of unknown origin (a
 * .bpf from libseccomp or runc) has only its constants, and a comparison
 * of two runs both for every probe, so these probes are sparser: the
 * constants each argument word is tested against with their neighbours,
 * paired across the two words of the argument.
 */
#include <stdlib.h>
#include <string.h>
#include "check/check.h"
#include "bpf/bpf.h"
#include "bpf/insn.h"

/* The numbers of an ABI probed at the least, as scmpc_stats() does. */
#define PROBE_NRS 1024U

/* Values one program may add per argument: every pairing of its high and
 * low words' constants, up to this many, so that a filter full of
 * constants does not make a comparison take minutes. */
#define MAX_PAIRINGS 4096U

struct scmpc_probes {
	struct u64set arg[6];	/* sorted, unique, 0 and UINT64_MAX among them */
};

/* Keeps what scmpc_probes_values() promises after each addition. */
static bool probes_settle(scmpc_probes *ps)
{
	for (int a = 0; a < 6; a++) {
		if (!u64set_add(&ps->arg[a], 0) || !u64set_add(&ps->arg[a], UINT64_MAX))
			return false;
		u64set_sort_unique(&ps->arg[a]);
	}
	return true;
}

SCMPC_API scmpc_probes *scmpc_probes_new(void)
{
	scmpc_probes *ps = calloc(1, sizeof(*ps));

	if (ps && !probes_settle(ps)) {
		scmpc_probes_free(ps);
		return NULL;
	}
	return ps;
}

SCMPC_API void scmpc_probes_free(scmpc_probes *ps)
{
	if (!ps)
		return;
	for (int a = 0; a < 6; a++)
		free(ps->arg[a].v);
	free(ps);
}

SCMPC_API size_t scmpc_probes_values(const scmpc_probes *ps, unsigned arg, const uint64_t **vals)
{
	if (!ps || arg > 5) {
		if (vals)
			*vals = NULL;
		return 0;
	}
	if (vals)
		*vals = ps->arg[arg].v;
	return ps->arg[arg].n;
}

/* Around a constant the filter must compare exactly: the value and its
 * neighbours, and the value with the high word flipped, which the filter
 * must or must not look at depending on the ABI and SCMPC_COND_32BIT. */
static bool add_cond(struct u64set *s, const struct scmpc_cond *c)
{
	uint64_t v = c->value;

	if (c->op == SCMPC_OP_MASKED_EQ) {
		uint64_t low_bit = v & (~v + 1);

		return u64set_add(s, c->value2) && u64set_add(s, c->value2 | ~v) &&
		       u64set_add(s, v) && u64set_add(s, c->value2 ^ low_bit);
	}
	return u64set_add(s, v - 1) && u64set_add(s, v) && u64set_add(s, v + 1) &&
	       u64set_add(s, v ^ 0xffffffff00000000ULL);
}

SCMPC_API int scmpc_probes_add_policy(scmpc_probes *ps, const scmpc_policy *p, scmpc_diag *d)
{
	if (!ps || !p)
		return diag_err(d, -EINVAL, NULL, "no probe set or no policy");
	for (size_t r = 0; r < p->nrules; r++)
		for (size_t c = 0; c < p->rules[r].nconds; c++) {
			const struct scmpc_cond *cd = &p->rules[r].conds[c];

			if (cd->arg <= 5 && !add_cond(&ps->arg[cd->arg], cd))
				return diag_err(d, -ENOMEM, NULL, "out of memory");
		}
	if (!probes_settle(ps))
		return diag_err(d, -ENOMEM, NULL, "out of memory");
	return 0;
}

/* ------------------------------------------------ argument words in A */

/* What A holds before an instruction, besides a seccomp_data word (its
 * offset / 4). */
#define WORD_UNREACHED (-2)
#define WORD_OTHER (-1)

static void word_merge(int *into, int w)
{
	if (*into == WORD_UNREACHED)
		*into = w;
	else if (*into != w)
		*into = WORD_OTHER;
}

/* Per instruction, the seccomp_data word A holds on every path into it, or
 * WORD_OTHER; an `and #k` keeps the word it masks.  Jumps only go forward,
 * so one pass in program order sees every predecessor first.  NULL without
 * memory. */
static int *a_words(const struct sock_filter *f, size_t len)
{
	int *w = malloc(len * sizeof(*w));

	if (!w)
		return NULL;
	for (size_t i = 0; i < len; i++)
		w[i] = WORD_UNREACHED;
	w[0] = WORD_OTHER;
	for (size_t pc = 0; pc < len; pc++) {
		const struct sock_filter *in = &f[pc];
		uint16_t code = in->code;
		int s = w[pc];

		if (s == WORD_UNREACHED)
			continue;
		switch (BPF_CLASS(code)) {
		case BPF_LD:
			s = BPF_MODE(code) == BPF_ABS && insn_load_word(in->k) >= 0
				? insn_load_word(in->k) : WORD_OTHER;
			break;
		case BPF_ALU:
			if (!(BPF_OP(code) == BPF_AND && BPF_SRC(code) == BPF_K))
				s = WORD_OTHER;
			break;
		case BPF_MISC:
			if (BPF_MISCOP(code) == BPF_TXA)
				s = WORD_OTHER;
			break;
		case BPF_RET:
			continue;
		default:
			break;
		}
		if (BPF_CLASS(code) == BPF_JMP) {
			uint64_t t = insn_jump_target(in, pc, true);
			uint64_t e = insn_jump_target(in, pc, false);

			if (t < len)
				word_merge(&w[t], s);
			if (insn_is_cond(code) && e < len)
				word_merge(&w[e], s);
		} else if (pc + 1 < len) {
			word_merge(&w[pc + 1], s);
		}
	}
	return w;
}

/* The argument word (2 * argument + 1 for the word at the higher offset)
 * A holds when W is a word of args[], else -1. */
static int arg_word(int w)
{
	int first = (int)(offsetof(struct seccomp_data, args) / 4);

	return w >= first && w < (int)(sizeof(struct seccomp_data) / 4) ? w - first : -1;
}

/* A test of A against the instruction's constant: a conditional jump, or
 * an `and` whose result a jump then tests. */
static bool tests_k(uint16_t code)
{
	return (BPF_CLASS(code) == BPF_JMP && BPF_OP(code) != BPF_JA && BPF_SRC(code) == BPF_K) ||
	       (BPF_CLASS(code) == BPF_ALU && BPF_OP(code) == BPF_AND && BPF_SRC(code) == BPF_K);
}

/* Between two constants such a test can change its outcome: values there
 * are not alike. */
static bool masks_k(uint16_t code)
{
	return tests_k(code) && (BPF_OP(code) == BPF_JSET || BPF_CLASS(code) == BPF_ALU);
}

/* Every pairing of the two words' constants of one argument (a word never
 * tested pairs through 0 and 0xffffffff). */
static bool add_pairings(struct u64set *out, struct u64set *lo, struct u64set *hi)
{
	if (!u64set_add(lo, 0) || !u64set_add(lo, 0xffffffff) || !u64set_add(hi, 0) ||
	    !u64set_add(hi, 0xffffffff))
		return false;
	u64set_sort_unique(lo);
	u64set_sort_unique(hi);
	size_t nh = hi->n, nl = lo->n;
	if (nh * nl > MAX_PAIRINGS)
		nh = MAX_PAIRINGS / nl ? MAX_PAIRINGS / nl : 1;
	for (size_t h = 0; h < nh; h++)
		for (size_t l = 0; l < nl && l < MAX_PAIRINGS; l++)
			if (!u64set_add(out, hi->v[h] << 32 | lo->v[l]))
				return false;
	return true;
}

SCMPC_API int scmpc_probes_add_prog(scmpc_probes *ps, const struct sock_filter *insns, size_t len,
				    scmpc_diag *d)
{
	struct u64set words[12] = { { 0 } };
	int *w;
	bool ok = true;

	if (!ps || !insns || !len)
		return diag_err(d, -EINVAL, NULL, "no probe set or no program");
	if (len > SIZE_MAX / sizeof(*w))
		return diag_err(d, -EOVERFLOW, NULL, "program of %zu instructions is too large",
				len);
	if (!(w = a_words(insns, len)))
		return diag_err(d, -ENOMEM, NULL, "out of memory");
	for (size_t pc = 0; pc < len && ok; pc++) {
		int aw = w[pc] == WORD_UNREACHED ? -1 : arg_word(w[pc]);
		uint32_t k = insns[pc].k;

		if (aw >= 0 && tests_k(insns[pc].code))
			ok = u64set_add(&words[aw], k) &&
			     u64set_add(&words[aw], (uint32_t)(k - 1)) &&
			     u64set_add(&words[aw], (uint32_t)(k + 1));
	}
	/* Which word of args[a] is the high one depends on the ABI's byte
	 * order, which a bare program does not tell: pair them both ways. */
	for (int a = 0; a < 6 && ok; a++)
		if (words[2 * a].n || words[2 * a + 1].n)
			ok = add_pairings(&ps->arg[a], &words[2 * a], &words[2 * a + 1]) &&
			     add_pairings(&ps->arg[a], &words[2 * a + 1], &words[2 * a]);
	free(w);
	for (int i = 0; i < 12; i++)
		free(words[i].v);
	if (!ok || !probes_settle(ps))
		return diag_err(d, -ENOMEM, NULL, "out of memory");
	return 0;
}

/* ------------------------------------------------------------ numbers */

struct u32s {
	uint32_t *v;
	size_t n, cap;
};

static bool u32s_add(struct u32s *s, uint32_t v)
{
	if (!array_reserve(&s->v, &s->cap, s->n, sizeof(*s->v), 2048))
		return false;
	s->v[s->n++] = v;
	return true;
}

SCMPC_API int scmpc_arch_probe_numbers(enum scmpc_arch a, uint32_t **out, scmpc_diag *d)
{
	/* The x32 bit seen from either side, the sign bit, -1 (a tracer's
	 * skipped call): what the x86_64 section must keep from x32's, and
	 * the reverse; x32 leaves -1 to x86_64, whose number it is. */
	static const uint32_t x86_64_edges[] = { X32_SYSCALL_BIT - 1, 0x80000000, 0xbfffffff,
						 0xffffffff };
	static const uint32_t x32_edges[] = { 0x7fffffff, 0xc0000000, 0xfffffffe };
	static const uint32_t edges[] = { 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff };
	const struct arch_info *i = arch_info(a);
	const uint32_t *edge = edges;
	size_t nedge = ARRAY_SIZE(edges);
	struct u32s s = { 0 };
	uint32_t lo, hi;
	bool ok = true;

	if (!i || !out)
		return diag_err(d, -EINVAL, NULL, "unsupported architecture %d or no output",
				(int)a);
	*out = NULL;
	uint32_t limit = arch_table_max(a) - i->nr_base + 65;
	if (limit < PROBE_NRS)
		limit = PROBE_NRS;
	for (uint32_t k = 0; k < limit && ok; k++)
		ok = u32s_add(&s, i->nr_base + k);
	if (a == SCMPC_ARCH_X86_64) {
		edge = x86_64_edges;
		nedge = ARRAY_SIZE(x86_64_edges);
	} else if (a == SCMPC_ARCH_X32) {
		edge = x32_edges;
		nedge = ARRAY_SIZE(x32_edges);
	}
	for (size_t k = 0; k < nedge && ok; k++)
		ok = u32s_add(&s, edge[k]);
	/* The private range and the number past it. */
	if (arch_private_range(i, &lo, &hi))
		for (uint32_t nr = lo; nr <= hi + 1 && ok; nr++)
			ok = u32s_add(&s, nr);
	/* Below a mips ABI's base lie the other mips ABIs' numbers. */
	if (i->nr_base && i->nr_base < X32_SYSCALL_BIT && ok)
		ok = u32s_add(&s, 0) && u32s_add(&s, i->nr_base - 1);
	if (!ok) {
		free(s.v);
		return diag_err(d, -ENOMEM, NULL, "out of memory");
	}
	*out = s.v;
	return (int)sort_unique(s.v, s.n, sizeof(*s.v), cmp_uint32);
}

/* ---------------------------------------------------- one call's reads */

static bool reads_args(const struct sock_filter *in)
{
	return BPF_CLASS(in->code) == BPF_LD && BPF_MODE(in->code) == BPF_ABS &&
	       in->k >= offsetof(struct seccomp_data, instruction_pointer);
}

/* The arguments tested through a mask by an instruction reachable from
 * START, whichever way its jumps go. */
static int masked_from(const struct sock_filter *f, size_t len, size_t start, unsigned *out)
{
	bool *reach = calloc(len, sizeof(*reach));
	int *w = a_words(f, len);

	if (!reach || !w) {
		free(reach);
		free(w);
		return -ENOMEM;
	}
	*out = 0;
	reach[start] = true;
	for (size_t pc = start; pc < len; pc++) {
		const struct sock_filter *in = &f[pc];
		int aw = w[pc] == WORD_UNREACHED ? -1 : arg_word(w[pc]);

		if (!reach[pc])
			continue;
		if (aw >= 0 && masks_k(in->code))
			*out |= 1U << (aw / 2);
		if (BPF_CLASS(in->code) == BPF_RET)
			continue;
		if (BPF_CLASS(in->code) != BPF_JMP) {
			if (pc + 1 < len)
				reach[pc + 1] = true;
		} else {
			uint64_t t = insn_jump_target(in, pc, true);
			uint64_t e = insn_jump_target(in, pc, false);

			if (t < len)
				reach[t] = true;
			if (insn_is_cond(in->code) && e < len)
				reach[e] = true;
		}
	}
	free(reach);
	free(w);
	return 0;
}

SCMPC_API int scmpc_prog_arg_use(const struct sock_filter *insns, size_t len,
				 const struct seccomp_data *data, struct scmpc_arg_use *out,
				 scmpc_diag *d)
{
	size_t *path, npath = 0;
	uint32_t ret;
	int err;

	if (!insns || !len || !data || !out || out->sz < OPTS_END(scmpc_arg_use, masked))
		return diag_err(d, -EINVAL, NULL, "no program, no call or no place for the answer");
	if (len > SIZE_MAX / sizeof(*path))
		return diag_err(d, -EOVERFLOW, NULL, "program of %zu instructions is too large",
				len);
	if (!(path = malloc(len * sizeof(*path))))
		return diag_err(d, -ENOMEM, NULL, "out of memory");
	/* Up to its first argument load the path depends on nr and arch
	 * alone, so any argument values find that load. */
	err = scmpc_emulate_trace(insns, len, data, &ret, path, len, &npath);
	if (err < 0) {
		free(path);
		return diag_err(d, err, NULL, "the program cannot run this call (check it with "
				"scmpc_verify_insns())");
	}
	long first = -1;
	for (size_t i = 0; i < npath && i < len && first < 0; i++)
		if (reads_args(&insns[path[i]]))
			first = (long)path[i];
	free(path);
	unsigned masked = 0;
	if (first >= 0 && (err = masked_from(insns, len, (size_t)first, &masked)) < 0)
		return diag_err(d, err, NULL, "out of memory");
	size_t sz = out->sz;
	memset(out, 0, sz);
	out->sz = sz;
	out->first_load = first;
	out->masked = masked;
	return 0;
}

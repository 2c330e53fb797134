/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * scmpc_emulate(), which runs the shared instruction step (src/bpf/insn.h),
 * against a frozen copy of the interpreter as it was before the step was
 * shared (its own switch, below), side by side in one process: Docker's
 * default profile compiled for x86_64, run on 4096 calls (numbers 0..511
 * of x86_64, i386 and x32, arguments from the profile's constants and
 * random), interleaved rounds, the median of each.  The emulator runs in
 * the hot loops of the verifier and the suites; the ratio must stay ~1.
 *
 *   bench_emulate [ROUNDS]
 */
#include <linux/audit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arch/arch.h"
#include "testutil.h"

/* ---- the interpreter before insn.h, kept as the yardstick */

static bool ref_cond_taken(uint16_t code, uint32_t a, uint32_t operand)
{
	switch (BPF_OP(code)) {
	case BPF_JEQ: return a == operand;
	case BPF_JGT: return a > operand;
	case BPF_JGE: return a >= operand;
	default: return (a & operand) != 0;
	}
}

static bool ref_alu(uint16_t code, uint32_t *a, uint32_t operand)
{
	bool by_x = BPF_SRC(code) == BPF_X;
	switch (BPF_OP(code)) {
	case BPF_ADD: *a += operand; return true;
	case BPF_SUB: *a -= operand; return true;
	case BPF_MUL: *a *= operand; return true;
	case BPF_OR: *a |= operand; return true;
	case BPF_AND: *a &= operand; return true;
	case BPF_XOR: *a ^= operand; return true;
	case BPF_DIV:
		if (operand == 0)
			return false;
		*a /= operand;
		return true;
	case BPF_LSH:
	case BPF_RSH:
		if (!by_x && operand >= 32)
			return false;
		operand &= 31;
		*a = BPF_OP(code) == BPF_LSH ? *a << operand : *a >> operand;
		return true;
	default:
		return false;
	}
}

/* The old run(), without the trace. */
static __attribute__((noinline)) int ref_emulate(const struct sock_filter *insns, size_t len,
						 const struct seccomp_data *data, uint32_t *ret,
						 unsigned *steps)
{
	uint32_t words[sizeof(struct seccomp_data) / 4];
	uint32_t mem[BPF_MEMWORDS] = { 0 };
	uint32_t a = 0, x = 0;
	size_t n = 0, pc = 0;

	if (!insns || len == 0 || !data || !ret)
		return -EINVAL;
	bool be = audit_big_endian(data->arch);
	words[0] = (uint32_t)data->nr;
	words[1] = data->arch;
	for (unsigned i = 0; i < 7; i++) {
		uint64_t v = i == 0 ? data->instruction_pointer : data->args[i - 1];
		words[2 + 2 * i + (be ? 0 : 1)] = (uint32_t)(v >> 32);
		words[2 + 2 * i + (be ? 1 : 0)] = (uint32_t)v;
	}
	while (pc < len) {
		const struct sock_filter *f = &insns[pc];
		uint32_t k = f->k;
		size_t next = pc + 1;
		n++;
		switch (f->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (k >= sizeof(words) || k % 4 != 0)
				return -EINVAL;
			a = words[k / 4];
			break;
		case BPF_LD | BPF_W | BPF_LEN: a = sizeof(struct seccomp_data); break;
		case BPF_LDX | BPF_W | BPF_LEN: x = sizeof(struct seccomp_data); break;
		case BPF_LD | BPF_IMM: a = k; break;
		case BPF_LDX | BPF_IMM: x = k; break;
		case BPF_LD | BPF_MEM:
		case BPF_LDX | BPF_MEM:
			if (k >= BPF_MEMWORDS)
				return -EINVAL;
			if (BPF_CLASS(f->code) == BPF_LD)
				a = mem[k];
			else
				x = mem[k];
			break;
		case BPF_ST:
		case BPF_STX:
			if (k >= BPF_MEMWORDS)
				return -EINVAL;
			mem[k] = f->code == BPF_ST ? a : x;
			break;
		case BPF_MISC | BPF_TAX: x = a; break;
		case BPF_MISC | BPF_TXA: a = x; break;
		case BPF_ALU | BPF_NEG: a = 0U - a; break;
		case BPF_ALU | BPF_ADD | BPF_K: case BPF_ALU | BPF_ADD | BPF_X:
		case BPF_ALU | BPF_SUB | BPF_K: case BPF_ALU | BPF_SUB | BPF_X:
		case BPF_ALU | BPF_MUL | BPF_K: case BPF_ALU | BPF_MUL | BPF_X:
		case BPF_ALU | BPF_DIV | BPF_K: case BPF_ALU | BPF_DIV | BPF_X:
		case BPF_ALU | BPF_OR | BPF_K: case BPF_ALU | BPF_OR | BPF_X:
		case BPF_ALU | BPF_AND | BPF_K: case BPF_ALU | BPF_AND | BPF_X:
		case BPF_ALU | BPF_LSH | BPF_K: case BPF_ALU | BPF_LSH | BPF_X:
		case BPF_ALU | BPF_RSH | BPF_K: case BPF_ALU | BPF_RSH | BPF_X:
		case BPF_ALU | BPF_XOR | BPF_K: case BPF_ALU | BPF_XOR | BPF_X: {
			uint32_t operand = BPF_SRC(f->code) == BPF_X ? x : k;
			if (f->code == (BPF_ALU | BPF_DIV | BPF_X) && x == 0) {
				*ret = 0;
				*steps = (unsigned)n;
				return 0;
			}
			if (!ref_alu(f->code, &a, operand))
				return -EINVAL;
			break;
		}
		case BPF_JMP | BPF_JA:
			if (k >= len - pc - 1)
				return -EINVAL;
			next = pc + 1 + k;
			break;
		case BPF_JMP | BPF_JEQ | BPF_K: case BPF_JMP | BPF_JEQ | BPF_X:
		case BPF_JMP | BPF_JGT | BPF_K: case BPF_JMP | BPF_JGT | BPF_X:
		case BPF_JMP | BPF_JGE | BPF_K: case BPF_JMP | BPF_JGE | BPF_X:
		case BPF_JMP | BPF_JSET | BPF_K: case BPF_JMP | BPF_JSET | BPF_X: {
			uint32_t operand = BPF_SRC(f->code) == BPF_X ? x : k;
			next = pc + 1 + (ref_cond_taken(f->code, a, operand) ? f->jt : f->jf);
			if (next >= len)
				return -EINVAL;
			break;
		}
		case BPF_RET | BPF_K:
			*ret = k;
			*steps = (unsigned)n;
			return 0;
		case BPF_RET | BPF_A:
			*ret = a;
			*steps = (unsigned)n;
			return 0;
		default:
			return -EINVAL;
		}
		pc = next;
	}
	return -EINVAL;
}

/* ---- the bench */

#define NCALLS 4096

typedef int (*emulate_fn)(const struct sock_filter *, size_t, const struct seccomp_data *,
			  uint32_t *, unsigned *);

/* Nanoseconds per call of FN over every call of SD, PASSES times. */
static double time_fn(emulate_fn fn, const struct sock_filter *insns, size_t len,
		      const struct seccomp_data *sd, unsigned passes, uint64_t *sink)
{
	uint64_t t0 = testutil_now_ns();
	for (unsigned p = 0; p < passes; p++)
		for (size_t i = 0; i < NCALLS; i++) {
			uint32_t ret = 0;
			unsigned steps = 0;
			fn(insns, len, &sd[i], &ret, &steps);
			*sink += ret + steps;
		}
	return (double)(testutil_now_ns() - t0) / ((double)passes * NCALLS);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	unsigned rounds = argc > 1 ? (unsigned)atoi(argv[1]) : 9;
	if (rounds == 0 || rounds > 101)
		rounds = 9;
	scmpc_policy *p = testutil_policy("docker-default.json", SCMPC_ARCH_X86_64);
	if (!p) {
		fprintf(stderr, "bench_emulate: docker-default.json: %s\n", testutil_last_error());
		return 1;
	}
	scmpc_diag *d = scmpc_diag_new();
	scmpc_prog *prog = NULL;
	if (scmpc_compile(p, NULL, &prog, d) < 0) {
		fprintf(stderr, "bench_emulate: compile: %s\n", scmpc_diag_message(d));
		return 1;
	}
	const struct sock_filter *insns = scmpc_prog_insns(prog);
	size_t len = scmpc_prog_len(prog);

	static struct seccomp_data sd[NCALLS];
	static const uint64_t pool[] = { 0, 1, 2, 0x10, 0x7e020000, 0x40000000, 0xffffffffULL,
					 0x100000000ULL, 0x8000000000000000ULL, 0x2080000 };
	struct testutil_rng r;
	testutil_rng_seed(&r, 0xbe7c);
	static const uint32_t audits[] = { AUDIT_ARCH_X86_64, AUDIT_ARCH_I386, AUDIT_ARCH_X86_64 };
	for (size_t i = 0; i < NCALLS; i++) {
		uint64_t args[6];
		unsigned a = testutil_rng_below(&r, 3);
		uint32_t nr = testutil_rng_below(&r, 512) | (a == 2 ? 0x40000000U : 0);
		for (int j = 0; j < 6; j++)
			args[j] = testutil_rng_below(&r, 4) ? pool[testutil_rng_below(&r, 10)]
							    : testutil_rng_next(&r);
		sd[i] = testutil_sd_audit(audits[a], nr, args);
	}

	/* the same answers first: a faster wrong emulator is no result */
	uint64_t total_steps = 0;
	for (size_t i = 0; i < NCALLS; i++) {
		uint32_t r1 = 0, r2 = 1;
		unsigned s1 = 0, s2 = 1;
		int e1 = ref_emulate(insns, len, &sd[i], &r1, &s1);
		int e2 = scmpc_emulate(insns, len, &sd[i], &r2, &s2);
		if (e1 || e2 || r1 != r2 || s1 != s2) {
			fprintf(stderr, "bench_emulate: call %zu: reference %d/%#x/%u, emulate %d/%#x/%u\n",
				i, e1, r1, s1, e2, r2, s2);
			return 1;
		}
		total_steps += s1;
	}

	double ref[101], cur[101];
	uint64_t sink = 0;
	const unsigned passes = 50;
	for (unsigned k = 0; k < rounds; k++) {
		/* alternate the order so that neither always runs warm */
		if (k % 2) {
			ref[k] = time_fn(ref_emulate, insns, len, sd, passes, &sink);
			cur[k] = time_fn(scmpc_emulate, insns, len, sd, passes, &sink);
		} else {
			cur[k] = time_fn(scmpc_emulate, insns, len, sd, passes, &sink);
			ref[k] = time_fn(ref_emulate, insns, len, sd, passes, &sink);
		}
	}
	qsort(ref, rounds, sizeof(*ref), cmp_double);
	qsort(cur, rounds, sizeof(*cur), cmp_double);
	printf("docker-default x86_64: %zu insns, %d calls, %.1f steps/call, %u rounds x %u passes\n",
	       len, NCALLS, (double)total_steps / NCALLS, rounds, passes);
	printf("  before (own switch)   %7.1f ns/call (median)\n", ref[rounds / 2]);
	printf("  scmpc_emulate (insn)  %7.1f ns/call (median)\n", cur[rounds / 2]);
	printf("  ratio after/before    %7.3f%s\n", cur[rounds / 2] / ref[rounds / 2],
	       sink == 42 ? " " : "");
	scmpc_prog_free(prog);
	scmpc_diag_free(d);
	scmpc_policy_free(p);
	return 0;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * What a classic BPF instruction means to seccomp, defined once: what a
 * load reads from seccomp_data, what an ALU operation computes and when the
 * kernel refuses or ends it, whether a conditional jump is taken, where a
 * jump goes, and one concrete step of the interpreter built from those.
 *
 * Every reader of programs gives instructions their meaning through this
 * header: the emulator (emulate.c) runs insn_step(), the kernel's cache
 * analysis (cache.c) runs the same step on the instructions the kernel
 * folds, the engine (src/engine/) takes its concrete cases, loads and
 * faults from here and keeps only its set-valued semantics, and the
 * acceptance rules (verify.c) name the same faults.  A new instruction or
 * operator is taught here.
 *
 * Everything is static inline: the emulator runs in the hot loops of the
 * verifier and the test suites, and must cost what a hand-written switch
 * costs.  Knows seccomp_data and the opcodes, nothing else.
 */
#ifndef SCMPC_BPF_INSN_H
#define SCMPC_BPF_INSN_H

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* seccomp_data as a filter reads it: 16 32-bit words. */
#define INSN_NWORDS ((unsigned)(sizeof(struct seccomp_data) / 4))
/* What `ld len` and `ldx len` read: the kernel rewrites them to the size of
 * seccomp_data. */
#define INSN_DATA_LEN ((uint32_t)sizeof(struct seccomp_data))

/* The word of seccomp_data `ld [K]` reads, or -1 when K names none
 * (seccomp_check_filter() refuses the load). */
static inline int insn_load_word(uint32_t k)
{
	return k < sizeof(struct seccomp_data) && k % 4 == 0 ? (int)(k / 4) : -1;
}

/* seccomp_data D as words, laid out as the kernel of the call's ABI lays it
 * out: a 32-bit load of a 64-bit field reads the high half first on a
 * big-endian ABI (BE). */
static inline void insn_data_words(const struct seccomp_data *d, bool be,
				   uint32_t w[INSN_NWORDS])
{
	w[0] = (uint32_t)d->nr;
	w[1] = d->arch;
	for (unsigned i = 0; i < 7; i++) {
		uint64_t v = i == 0 ? d->instruction_pointer : d->args[i - 1];
		w[2 + 2 * i + (be ? 0 : 1)] = (uint32_t)(v >> 32);
		w[2 + 2 * i + (be ? 1 : 0)] = (uint32_t)v;
	}
}

/* The inverse of insn_data_words(): the call whose words are W. */
static inline void insn_words_data(const uint32_t w[INSN_NWORDS], bool be,
				   struct seccomp_data *d)
{
	*d = (struct seccomp_data){ .nr = (int)w[0], .arch = w[1] };
	for (unsigned i = 0; i < 7; i++) {
		uint64_t hi = w[2 + 2 * i + (be ? 0 : 1)], lo = w[2 + 2 * i + (be ? 1 : 0)];
		if (i == 0)
			d->instruction_pointer = hi << 32 | lo;
		else
			d->args[i - 1] = hi << 32 | lo;
	}
}

/* Why bpf_check_classic() refuses an instruction for its constant K. */
enum insn_kfault {
	INSN_K_OK,
	INSN_K_DIV0,	/* `div #0` (and classic `mod #0`) */
	INSN_K_SHIFT,	/* `lsh/rsh #k` with k >= 32 */
	INSN_K_MEM,	/* M[k] with k past the 16 scratch slots */
};

/* The fault of CODE's constant K, if any. */
static inline enum insn_kfault insn_k_fault(uint16_t code, uint32_t k)
{
	switch (code) {
	case BPF_ALU | BPF_DIV | BPF_K:
	case BPF_ALU | BPF_MOD | BPF_K:
		return k == 0 ? INSN_K_DIV0 : INSN_K_OK;
	case BPF_ALU | BPF_LSH | BPF_K:
	case BPF_ALU | BPF_RSH | BPF_K:
		return k >= 32 ? INSN_K_SHIFT : INSN_K_OK;
	case BPF_LD | BPF_MEM:
	case BPF_LDX | BPF_MEM:
	case BPF_ST:
	case BPF_STX:
		return k >= BPF_MEMWORDS ? INSN_K_MEM : INSN_K_OK;
	default:
		return INSN_K_OK;
	}
}

/* What running `A op= OPERAND` (CODE an ALU instruction) does. */
enum insn_alu_run {
	INSN_ALU_OK,	/* computes insn_alu() */
	INSN_ALU_KILL,	/* `div x` with X == 0: the converted program returns 0 */
	INSN_ALU_BAD,	/* the kernel refuses it at load time */
};

/* Whether ALU instruction CODE runs on OPERAND (K, or X for the X forms). */
static inline enum insn_alu_run insn_alu_check(uint16_t code, uint32_t operand)
{
	switch (code) {
	case BPF_ALU | BPF_NEG:
	case BPF_ALU | BPF_ADD | BPF_K: case BPF_ALU | BPF_ADD | BPF_X:
	case BPF_ALU | BPF_SUB | BPF_K: case BPF_ALU | BPF_SUB | BPF_X:
	case BPF_ALU | BPF_MUL | BPF_K: case BPF_ALU | BPF_MUL | BPF_X:
	case BPF_ALU | BPF_OR | BPF_K: case BPF_ALU | BPF_OR | BPF_X:
	case BPF_ALU | BPF_AND | BPF_K: case BPF_ALU | BPF_AND | BPF_X:
	case BPF_ALU | BPF_XOR | BPF_K: case BPF_ALU | BPF_XOR | BPF_X:
	case BPF_ALU | BPF_LSH | BPF_X: case BPF_ALU | BPF_RSH | BPF_X:
		return INSN_ALU_OK;
	case BPF_ALU | BPF_DIV | BPF_X:
		/* The converter guards `div x` with an exit that returns 0,
		 * i.e. SECCOMP_RET_KILL_THREAD. */
		return operand ? INSN_ALU_OK : INSN_ALU_KILL;
	case BPF_ALU | BPF_DIV | BPF_K:
	case BPF_ALU | BPF_LSH | BPF_K:
	case BPF_ALU | BPF_RSH | BPF_K:
		return insn_k_fault(code, operand) == INSN_K_OK ? INSN_ALU_OK : INSN_ALU_BAD;
	default:
		/* `mod` and `neg x` are classic BPF but not seccomp. */
		return INSN_ALU_BAD;
	}
}

/* The count a shift by B shifts by: the interpreter and the JITs mask a
 * register count to 5 bits for 32-bit ALU ops (a constant one is < 32). */
static inline unsigned insn_shift_count(uint32_t b)
{
	return b & 31;
}

/* A OP B for ALU operation OP (BPF_OP of the code; B ignored by BPF_NEG),
 * where insn_alu_check() said INSN_ALU_OK.  A division by 0 gives 0 rather
 * than trapping, for callers that fold before they check. */
static inline uint32_t insn_alu(uint16_t op, uint32_t a, uint32_t b)
{
	switch (op) {
	case BPF_ADD: return a + b;
	case BPF_SUB: return a - b;
	case BPF_MUL: return a * b;
	case BPF_DIV: return b ? a / b : 0;
	case BPF_OR: return a | b;
	case BPF_AND: return a & b;
	case BPF_XOR: return a ^ b;
	case BPF_LSH: return a << insn_shift_count(b);
	case BPF_RSH: return a >> insn_shift_count(b);
	case BPF_NEG: return 0U - a;
	default: return a;
	}
}

/* Whether conditional jump OP (BPF_OP: jeq, jgt, jge or jset) is taken for
 * A against B (K, or X for the X forms). */
static inline bool insn_jump_taken(uint16_t op, uint32_t a, uint32_t b)
{
	switch (op) {
	case BPF_JEQ: return a == b;
	case BPF_JGT: return a > b;
	case BPF_JGE: return a >= b;
	default: return (a & b) != 0;	/* BPF_JSET */
	}
}

/* Whether conditional jump OP against the constant K has one outcome for
 * every A: 1 always taken (jge #0), 0 never (jgt #0xffffffff, jset #0),
 * -1 when it depends on A. */
static inline int insn_jump_fixed(uint16_t op, uint32_t k)
{
	if ((op == BPF_JGT && k == 0xffffffffU) || (op == BPF_JSET && k == 0))
		return 0;
	if (op == BPF_JGE && k == 0)
		return 1;
	return -1;
}

/* True for a conditional jump (a JMP other than `ja`). */
static inline bool insn_is_cond(uint16_t code)
{
	return BPF_CLASS(code) == BPF_JMP && BPF_OP(code) != BPF_JA;
}

/* The instruction after PC for a jump: `ja` goes K ahead, a conditional
 * jump JT or JF ahead (TAKEN).  64-bit, so that a huge offset of an
 * unverified program lands past its end instead of wrapping. */
static inline uint64_t insn_jump_target(const struct sock_filter *f, size_t pc, bool taken)
{
	if (BPF_OP(f->code) == BPF_JA)
		return (uint64_t)pc + 1 + f->k;
	return (uint64_t)pc + 1 + (taken ? f->jt : f->jf);
}

/* The registers of a running filter.  The kernel leaves M[] uninitialised;
 * a verified program never reads a slot it did not write. */
struct insn_regs {
	uint32_t a, x;
	uint32_t mem[BPF_MEMWORDS];
};

/* What insn_step() did. */
enum insn_step_res {
	INSN_NEXT,	/* go on at *NEXT (not checked against the length) */
	INSN_RET,	/* the filter returns *RET */
	INSN_BAD,	/* an instruction the kernel never runs: refused at load */
};

/*
 * One instruction F at PC on registers R over the call's words W, with the
 * run-time semantics of a seccomp filter.  Nothing is assumed verified:
 * whatever the kernel would refuse is INSN_BAD when it executes, so a broken
 * program can still be run along its valid paths.
 */
static inline __attribute__((always_inline)) enum insn_step_res
insn_step(struct insn_regs *r, const uint32_t *w, const struct sock_filter *f, size_t pc,
	  uint64_t *next, uint32_t *ret)
{
	uint32_t k = f->k;
	int word;

	*next = (uint64_t)pc + 1;
	switch (f->code) {
	case BPF_LD | BPF_W | BPF_ABS:
		if ((word = insn_load_word(k)) < 0)
			return INSN_BAD;
		r->a = w[word];
		return INSN_NEXT;
	case BPF_LD | BPF_W | BPF_LEN:
		r->a = INSN_DATA_LEN;
		return INSN_NEXT;
	case BPF_LDX | BPF_W | BPF_LEN:
		r->x = INSN_DATA_LEN;
		return INSN_NEXT;
	case BPF_LD | BPF_IMM:
		r->a = k;
		return INSN_NEXT;
	case BPF_LDX | BPF_IMM:
		r->x = k;
		return INSN_NEXT;
	case BPF_LD | BPF_MEM:
	case BPF_LDX | BPF_MEM:
	case BPF_ST:
	case BPF_STX:
		if (insn_k_fault(f->code, k) != INSN_K_OK)
			return INSN_BAD;
		if (f->code == (BPF_LD | BPF_MEM))
			r->a = r->mem[k];
		else if (f->code == (BPF_LDX | BPF_MEM))
			r->x = r->mem[k];
		else
			r->mem[k] = f->code == BPF_ST ? r->a : r->x;
		return INSN_NEXT;
	case BPF_MISC | BPF_TAX:
		r->x = r->a;
		return INSN_NEXT;
	case BPF_MISC | BPF_TXA:
		r->a = r->x;
		return INSN_NEXT;
	case BPF_ALU | BPF_NEG:
	case BPF_ALU | BPF_ADD | BPF_K: case BPF_ALU | BPF_ADD | BPF_X:
	case BPF_ALU | BPF_SUB | BPF_K: case BPF_ALU | BPF_SUB | BPF_X:
	case BPF_ALU | BPF_MUL | BPF_K: case BPF_ALU | BPF_MUL | BPF_X:
	case BPF_ALU | BPF_DIV | BPF_K: case BPF_ALU | BPF_DIV | BPF_X:
	case BPF_ALU | BPF_OR | BPF_K: case BPF_ALU | BPF_OR | BPF_X:
	case BPF_ALU | BPF_AND | BPF_K: case BPF_ALU | BPF_AND | BPF_X:
	case BPF_ALU | BPF_LSH | BPF_K: case BPF_ALU | BPF_LSH | BPF_X:
	case BPF_ALU | BPF_RSH | BPF_K: case BPF_ALU | BPF_RSH | BPF_X:
	case BPF_ALU | BPF_XOR | BPF_K: case BPF_ALU | BPF_XOR | BPF_X: {
		uint32_t operand = BPF_SRC(f->code) == BPF_X ? r->x : k;
		switch (insn_alu_check(f->code, operand)) {
		case INSN_ALU_OK:
			r->a = insn_alu(BPF_OP(f->code), r->a, operand);
			return INSN_NEXT;
		case INSN_ALU_KILL:
			*ret = 0;
			return INSN_RET;
		default:
			return INSN_BAD;
		}
	}
	case BPF_JMP | BPF_JA:
		*next = insn_jump_target(f, pc, true);
		return INSN_NEXT;
	case BPF_JMP | BPF_JEQ | BPF_K: case BPF_JMP | BPF_JEQ | BPF_X:
	case BPF_JMP | BPF_JGT | BPF_K: case BPF_JMP | BPF_JGT | BPF_X:
	case BPF_JMP | BPF_JGE | BPF_K: case BPF_JMP | BPF_JGE | BPF_X:
	case BPF_JMP | BPF_JSET | BPF_K: case BPF_JMP | BPF_JSET | BPF_X: {
		uint32_t operand = BPF_SRC(f->code) == BPF_X ? r->x : k;
		*next = insn_jump_target(f, pc, insn_jump_taken(BPF_OP(f->code), r->a, operand));
		return INSN_NEXT;
	}
	case BPF_RET | BPF_K:
		*ret = k;
		return INSN_RET;
	case BPF_RET | BPF_A:
		*ret = r->a;
		return INSN_RET;
	default:
		/* Not one of the 41 opcodes seccomp accepts. */
		return INSN_BAD;
	}
}

#endif

/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The kernel's acceptance rules for a seccomp filter, in the kernel's order:
 * the length check of seccomp_prepare_filter(), bpf_check_classic() with its
 * scratch-memory pass, then seccomp_check_filter().  The kernel answers
 * every failure with a bare EINVAL; here each one names the instruction and
 * the rule so a user can fix the program.  Following the kernel's order
 * means that a program with several faults reports the one the kernel
 * trips over first.
 */
#include <stdio.h>
#include <string.h>
#include "bpf/bpf.h"
#include "bpf/insn.h"

#define OP_CLASSIC 0x1U	/* in bpf_check_classic()'s table */
#define OP_SECCOMP 0x2U	/* in seccomp_check_filter()'s list */

struct opinfo {
	const char *name;
	unsigned flags;
};

#define CL OP_CLASSIC
#define SC (OP_CLASSIC | OP_SECCOMP)

/* Indexed by opcode; the highest classic opcode is 0xb1 (ldx b msh). */
static const struct opinfo opcodes[0xb2] = {
	[BPF_LD | BPF_IMM] = { "ld #k", SC },
	[BPF_LDX | BPF_IMM] = { "ldx #k", SC },
	[BPF_ST] = { "st M[k]", SC },
	[BPF_STX] = { "stx M[k]", SC },
	[BPF_LD | BPF_W | BPF_ABS] = { "ld [k]", SC },
	[BPF_LD | BPF_H | BPF_ABS] = { "ld h abs", CL },
	[BPF_LD | BPF_B | BPF_ABS] = { "ld b abs", CL },
	[BPF_LD | BPF_W | BPF_IND] = { "ld w ind", CL },
	[BPF_LD | BPF_H | BPF_IND] = { "ld h ind", CL },
	[BPF_LD | BPF_B | BPF_IND] = { "ld b ind", CL },
	[BPF_LD | BPF_MEM] = { "ld M[k]", SC },
	[BPF_LDX | BPF_MEM] = { "ldx M[k]", SC },
	[BPF_LD | BPF_W | BPF_LEN] = { "ld len", SC },
	[BPF_LDX | BPF_W | BPF_LEN] = { "ldx len", SC },
	[BPF_LDX | BPF_B | BPF_MSH] = { "ldx b msh", CL },
	[BPF_MISC | BPF_TAX] = { "tax", SC },
	[BPF_MISC | BPF_TXA] = { "txa", SC },
	[BPF_ALU | BPF_ADD | BPF_K] = { "add #k", SC },
	[BPF_ALU | BPF_ADD | BPF_X] = { "add x", SC },
	[BPF_ALU | BPF_SUB | BPF_K] = { "sub #k", SC },
	[BPF_ALU | BPF_SUB | BPF_X] = { "sub x", SC },
	[BPF_ALU | BPF_MUL | BPF_K] = { "mul #k", SC },
	[BPF_ALU | BPF_MUL | BPF_X] = { "mul x", SC },
	[BPF_ALU | BPF_DIV | BPF_K] = { "div #k", SC },
	[BPF_ALU | BPF_DIV | BPF_X] = { "div x", SC },
	[BPF_ALU | BPF_MOD | BPF_K] = { "mod #k", CL },
	[BPF_ALU | BPF_MOD | BPF_X] = { "mod x", CL },
	[BPF_ALU | BPF_OR | BPF_K] = { "or #k", SC },
	[BPF_ALU | BPF_OR | BPF_X] = { "or x", SC },
	[BPF_ALU | BPF_AND | BPF_K] = { "and #k", SC },
	[BPF_ALU | BPF_AND | BPF_X] = { "and x", SC },
	[BPF_ALU | BPF_LSH | BPF_K] = { "lsh #k", SC },
	[BPF_ALU | BPF_LSH | BPF_X] = { "lsh x", SC },
	[BPF_ALU | BPF_RSH | BPF_K] = { "rsh #k", SC },
	[BPF_ALU | BPF_RSH | BPF_X] = { "rsh x", SC },
	[BPF_ALU | BPF_XOR | BPF_K] = { "xor #k", SC },
	[BPF_ALU | BPF_XOR | BPF_X] = { "xor x", SC },
	[BPF_ALU | BPF_NEG] = { "neg", SC },
	[BPF_JMP | BPF_JA] = { "ja", SC },
	[BPF_JMP | BPF_JEQ | BPF_K] = { "jeq #k", SC },
	[BPF_JMP | BPF_JEQ | BPF_X] = { "jeq x", SC },
	[BPF_JMP | BPF_JGT | BPF_K] = { "jgt #k", SC },
	[BPF_JMP | BPF_JGT | BPF_X] = { "jgt x", SC },
	[BPF_JMP | BPF_JGE | BPF_K] = { "jge #k", SC },
	[BPF_JMP | BPF_JGE | BPF_X] = { "jge x", SC },
	[BPF_JMP | BPF_JSET | BPF_K] = { "jset #k", SC },
	[BPF_JMP | BPF_JSET | BPF_X] = { "jset x", SC },
	[BPF_RET | BPF_K] = { "ret #k", SC },
	[BPF_RET | BPF_A] = { "ret a", SC },
};

#undef CL
#undef SC

const char *bpf_code_name(uint16_t code)
{
	if (code >= ARRAY_SIZE(opcodes))
		return NULL;
	return opcodes[code].name;
}

bool bpf_code_seccomp(uint16_t code)
{
	return code < ARRAY_SIZE(opcodes) && (opcodes[code].flags & OP_SECCOMP);
}

/* SKF_AD_OFF, as the unsigned value a u32 k is compared against. */
#define ANC_BASE 0xfffff000U

/* The ancillary fields bpf_anc_helper() knows: SKF_AD_PROTOCOL ..
 * SKF_AD_VLAN_TPID, every 4 bytes below SKF_AD_MAX. */
static bool known_ancillary(uint32_t k)
{
	return k >= ANC_BASE && k - ANC_BASE < SKF_AD_MAX && k % 4 == 0;
}

/* The per-instruction half of bpf_check_classic(). */
static int check_classic_insn(const struct sock_filter *f, size_t pc, size_t len, scmpc_diag *d)
{
	uint16_t code = f->code;
	const char *name = bpf_code_name(code);

	if (!name)
		return diag_err_insn(d, -EINVAL, (long)pc,
				     "insn %zu: opcode 0x%02x is not a classic BPF instruction", pc,
				     code);
	switch (insn_k_fault(code, f->k)) {
	case INSN_K_DIV0:
		return diag_err_insn(d, -EINVAL, (long)pc,
				     "insn %zu: %s divides by the constant 0", pc, name);
	case INSN_K_SHIFT:
		return diag_err_insn(d, -EINVAL, (long)pc,
				     "insn %zu: %s shifts by %u; the kernel needs k < 32", pc, name,
				     f->k);
	case INSN_K_MEM:
		return diag_err_insn(d, -EINVAL, (long)pc,
				     "insn %zu: %s names M[%u]; scratch memory has %d slots", pc, name,
				     f->k, BPF_MEMWORDS);
	case INSN_K_OK:
		break;
	}
	switch (code) {
	case BPF_JMP | BPF_JA:
		/* Forward only and inside the program. */
		if (insn_jump_target(f, pc, true) >= len)
			return diag_err_insn(d, -EINVAL, (long)pc,
					     "insn %zu: jump target %llu is past the end (len %zu)", pc,
					     (unsigned long long)insn_jump_target(f, pc, true), len);
		break;
	default:
		if (insn_is_cond(code)) {
			if (insn_jump_target(f, pc, true) >= len)
				return diag_err_insn(d, -EINVAL, (long)pc,
						     "insn %zu: jump target %zu (if true) is past the end (len %zu)",
						     pc, pc + 1 + f->jt, len);
			if (insn_jump_target(f, pc, false) >= len)
				return diag_err_insn(d, -EINVAL, (long)pc,
						     "insn %zu: jump target %zu (if false) is past the end (len %zu)",
						     pc, pc + 1 + f->jf, len);
		}
		/* Absolute loads from the ancillary area must name a known
		 * field here; seccomp_check_filter() refuses all of them later
		 * anyway, so this only decides which fault is reported first. */
		if ((code == (BPF_LD | BPF_W | BPF_ABS) || code == (BPF_LD | BPF_H | BPF_ABS) ||
		     code == (BPF_LD | BPF_B | BPF_ABS)) &&
		    f->k >= ANC_BASE && !known_ancillary(f->k))
			return diag_err_insn(d, -EINVAL, (long)pc,
					     "insn %zu: %s: offset 0x%x is outside struct seccomp_data "
					     "and names no known ancillary field",
					     pc, name, f->k);
		break;
	}
	return 0;
}

/*
 * check_load_and_stores(): one forward pass with a bitmask of the slots
 * written on every path.  RET_RESETS=false is the kernel's behaviour, where a
 * return passes its state on to the next instruction as if it fell through;
 * true is the intuitive rule, used only to explain a rejection.
 * Returns the pc of the first unsafe load (its slot in *SLOT), or -1.
 */
static long scratch_check(const struct sock_filter *insns, size_t len, bool ret_resets,
			  uint16_t *incoming, unsigned *slot)
{
	const uint16_t all = 0xffff;
	uint16_t valid = 0;

	for (size_t pc = 0; pc < len; pc++)
		incoming[pc] = all;
	for (size_t pc = 0; pc < len; pc++) {
		const struct sock_filter *f = &insns[pc];

		valid &= incoming[pc];
		switch (f->code) {
		case BPF_ST:
		case BPF_STX:
			valid |= (uint16_t)(1U << f->k);
			break;
		case BPF_LD | BPF_MEM:
		case BPF_LDX | BPF_MEM:
			if (!(valid & (1U << f->k))) {
				*slot = f->k;
				return (long)pc;
			}
			break;
		case BPF_JMP | BPF_JA:
			incoming[insn_jump_target(f, pc, true)] &= valid;
			valid = all;
			break;
		case BPF_RET | BPF_K:
		case BPF_RET | BPF_A:
			if (ret_resets)
				valid = all;
			break;
		default:
			if (insn_is_cond(f->code)) {
				incoming[insn_jump_target(f, pc, true)] &= valid;
				incoming[insn_jump_target(f, pc, false)] &= valid;
				valid = all;
			}
			break;
		}
	}
	return -1;
}

/* seccomp_check_filter() for one instruction. */
static int check_seccomp_insn(const struct sock_filter *f, size_t pc, scmpc_diag *d)
{
	if (!bpf_code_seccomp(f->code))
		return diag_err_insn(d, -EINVAL, (long)pc,
				     "insn %zu: opcode 0x%02x (%s) is not allowed in seccomp filters",
				     pc, f->code, bpf_code_name(f->code));
	if (f->code == (BPF_LD | BPF_W | BPF_ABS)) {
		char k[16];
		/* hex for the ancillary range, where offsets are 0xfffff0xx */
		snprintf(k, sizeof(k), f->k < 0x1000 ? "%u" : "0x%x", f->k);
		if (insn_load_word(f->k) >= 0)
			return 0;
		if (f->k >= INSN_DATA_LEN)
			return diag_err_insn(d, -EINVAL, (long)pc,
					     "insn %zu: ld [%s] is outside struct seccomp_data (%zu bytes)",
					     pc, k, sizeof(struct seccomp_data));
		return diag_err_insn(d, -EINVAL, (long)pc,
				     "insn %zu: ld [%u] is not 4-byte aligned", pc, f->k);
	}
	return 0;
}

SCMPC_API int scmpc_verify_insns(const struct sock_filter *insns, size_t len, scmpc_diag *d)
{
	uint16_t incoming[BPF_MAXINSNS];
	unsigned slot = 0;
	int r;

	if (len == 0)
		return diag_err(d, -EINVAL, NULL,
				"program is empty; the kernel needs at least one instruction");
	if (len > BPF_MAXINSNS)
		return diag_err(d, -EINVAL, NULL,
				"program has %zu instructions; the kernel accepts at most %d", len,
				BPF_MAXINSNS);
	if (!insns)
		return diag_err(d, -EINVAL, NULL, "no instructions given");

	for (size_t pc = 0; pc < len; pc++)
		if ((r = check_classic_insn(&insns[pc], pc, len, d)) < 0)
			return r;

	uint16_t last = insns[len - 1].code;
	if (last != (BPF_RET | BPF_K) && last != (BPF_RET | BPF_A))
		return diag_err_insn(d, -EINVAL, (long)(len - 1),
				     "insn %zu: last instruction is not a return (it is %s)", len - 1,
				     bpf_code_name(last));

	long bad = scratch_check(insns, len, false, incoming, &slot);
	if (bad >= 0) {
		unsigned ignored;
		long plain = scratch_check(insns, len, true, incoming, &ignored);
		/* Resetting after a return only ever adds valid slots, so the
		 * plain rule either fails at the same load or passes it. */
		if (plain != bad)
			return diag_err_insn(d, -EINVAL, bad,
					     "insn %ld: M[%u] may be read before it is written (the "
					     "kernel carries the state across a return as if it fell "
					     "through: store M[%u] before that return too, or place "
					     "this block after a ja instead of a return)",
					     bad, slot, slot);
		return diag_err_insn(d, -EINVAL, bad, "insn %ld: M[%u] may be read before it is written",
				     bad, slot);
	}

	for (size_t pc = 0; pc < len; pc++)
		if ((r = check_seccomp_insn(&insns[pc], pc, d)) < 0)
			return r;
	return 0;
}

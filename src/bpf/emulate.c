/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * A classic BPF interpreter with the run-time semantics of a seccomp filter,
 * and the kernel's eBPF conversion cost.
 *
 * Programs come from files and other compilers, so nothing here assumes the
 * input passed scmpc_verify_insns(): every index is bounded and an
 * instruction the kernel would never run makes the emulation fail instead of
 * guessing.  Checks are lazy (only what executes is checked) so that a
 * broken program can still be traced along its valid paths.
 */
#include <string.h>
#include "arch/arch.h"
#include "bpf/bpf.h"

/* What `ld len` reads: the kernel rewrites it to sizeof(struct seccomp_data). */
#define SECCOMP_DATA_LEN ((uint32_t)sizeof(struct seccomp_data))

static bool cond_taken(uint16_t code, uint32_t a, uint32_t operand)
{
	switch (BPF_OP(code)) {
	case BPF_JEQ: return a == operand;
	case BPF_JGT: return a > operand;
	case BPF_JGE: return a >= operand;
	default: return (a & operand) != 0;	/* BPF_JSET */
	}
}

/* Returns false for an operation the kernel refuses to load (division by a
 * zero constant, constant shifts >= 32, opcodes outside the seccomp set). */
static bool alu(uint16_t code, uint32_t *a, uint32_t operand)
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
		/* `div x` by 0 never gets here: it ends the program. */
		if (operand == 0)
			return false;
		*a /= operand;
		return true;
	case BPF_LSH:
	case BPF_RSH:
		if (!by_x && operand >= 32)
			return false;
		/* The interpreter and the JITs mask a register shift count to 5
		 * bits for 32-bit ALU ops. */
		operand &= 31;
		*a = BPF_OP(code) == BPF_LSH ? *a << operand : *a >> operand;
		return true;
	default:
		return false;
	}
}

/* The interpreter behind scmpc_emulate() and scmpc_emulate_trace(); PATH
 * (N entries, or NULL) gets the index of each instruction executed.  It is
 * inlined into both so that the verifier's hot loop pays nothing for the
 * trace it does not take. */
static inline __attribute__((always_inline)) int
run(const struct sock_filter *insns, size_t len, const struct seccomp_data *data, uint32_t *ret,
    size_t *count, size_t *path, size_t n_path)
{
	uint32_t words[sizeof(struct seccomp_data) / 4];
	/* The kernel leaves M[] uninitialised; a verified program never reads
	 * a slot it did not write, so the value chosen here is unobservable
	 * for those and merely deterministic for the others. */
	uint32_t mem[BPF_MEMWORDS] = { 0 };
	uint32_t a = 0, x = 0;
	size_t n = 0;
	size_t pc = 0;

	if (!insns || len == 0 || !data || !ret)
		return -EINVAL;
	/* The kernel of the call's ABI lays seccomp_data out in that ABI's byte
	 * order, which its AUDIT_ARCH value states: a 32-bit load of a 64-bit
	 * field gets the high half first on a big-endian ABI. */
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

		if (path && n < n_path)
			path[n] = pc;
		n++;
		switch (f->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (k >= sizeof(words) || k % 4 != 0)
				return -EINVAL;
			a = words[k / 4];
			break;
		case BPF_LD | BPF_W | BPF_LEN:
			a = SECCOMP_DATA_LEN;
			break;
		case BPF_LDX | BPF_W | BPF_LEN:
			x = SECCOMP_DATA_LEN;
			break;
		case BPF_LD | BPF_IMM:
			a = k;
			break;
		case BPF_LDX | BPF_IMM:
			x = k;
			break;
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
		case BPF_MISC | BPF_TAX:
			x = a;
			break;
		case BPF_MISC | BPF_TXA:
			a = x;
			break;
		case BPF_ALU | BPF_NEG:
			a = 0U - a;
			break;
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
				/* The converter guards `div x` with an exit
				 * that returns 0, i.e. SECCOMP_RET_KILL_THREAD. */
				*ret = 0;
				*count = n;
				return 0;
			}
			if (!alu(f->code, &a, operand))
				return -EINVAL;
			break;
		}
		case BPF_JMP | BPF_JA:
			/* pc < len, so len - pc - 1 cannot wrap. */
			if (k >= len - pc - 1)
				return -EINVAL;
			next = pc + 1 + k;
			break;
		case BPF_JMP | BPF_JEQ | BPF_K: case BPF_JMP | BPF_JEQ | BPF_X:
		case BPF_JMP | BPF_JGT | BPF_K: case BPF_JMP | BPF_JGT | BPF_X:
		case BPF_JMP | BPF_JGE | BPF_K: case BPF_JMP | BPF_JGE | BPF_X:
		case BPF_JMP | BPF_JSET | BPF_K: case BPF_JMP | BPF_JSET | BPF_X: {
			uint32_t operand = BPF_SRC(f->code) == BPF_X ? x : k;
			next = pc + 1 + (cond_taken(f->code, a, operand) ? f->jt : f->jf);
			if (next >= len)
				return -EINVAL;
			break;
		}
		case BPF_RET | BPF_K:
			*ret = k;
			*count = n;
			return 0;
		case BPF_RET | BPF_A:
			*ret = a;
			*count = n;
			return 0;
		default:
			/* Not one of the 41 opcodes seccomp accepts. */
			return -EINVAL;
		}
		pc = next;
	}
	/* Fell off the end: the kernel refuses such a program at load time. */
	return -EINVAL;
}

SCMPC_API int scmpc_emulate(const struct sock_filter *insns, size_t len,
			    const struct seccomp_data *data, uint32_t *ret, unsigned *steps)
{
	size_t n = 0;
	int err = run(insns, len, data, ret, &n, NULL, 0);

	if (!err && steps)
		*steps = (unsigned)n;
	return err;
}

SCMPC_API int scmpc_emulate_trace(const struct sock_filter *insns, size_t len,
				  const struct seccomp_data *data, uint32_t *ret, size_t *path,
				  size_t n, size_t *npath)
{
	size_t count = 0;
	int err;

	if (!path && n)
		return -EINVAL;
	err = run(insns, len, data, ret, &count, path, n);
	if (!err && npath)
		*npath = count;
	return err;
}

/*
 * Mirrors the instruction counts of bpf_convert_filter() (net/core/filter.c)
 * for a program that seccomp_check_filter() has accepted.  The converter sees
 * the rewritten program: `ld [k]` has become a one-instruction context load
 * and `ld/ldx len` a one-instruction move, so neither brings in the extra
 * skb-caching prologue of packet filters.
 */
size_t bpf_ebpf_len(const struct sock_filter *insns, size_t len)
{
	size_t n = 3;	/* clear A, clear X, save the context pointer */

	if (!insns)
		return 0;
	for (size_t i = 0; i < len; i++) {
		const struct sock_filter *f = &insns[i];

		switch (f->code) {
		case BPF_RET | BPF_K:
			n += 2;	/* mov r0, k; exit */
			break;
		case BPF_ALU | BPF_DIV | BPF_X:
		case BPF_ALU | BPF_MOD | BPF_X:	/* not seccomp-legal; same guard */
			n += 5;	/* zero-extend X, test, clear A, exit, op */
			break;
		case BPF_JMP | BPF_JEQ | BPF_K: case BPF_JMP | BPF_JEQ | BPF_X:
		case BPF_JMP | BPF_JGT | BPF_K: case BPF_JMP | BPF_JGT | BPF_X:
		case BPF_JMP | BPF_JGE | BPF_K: case BPF_JMP | BPF_JGE | BPF_X:
		case BPF_JMP | BPF_JSET | BPF_K: case BPF_JMP | BPF_JSET | BPF_X:
			/* eBPF immediates are sign-extended, so a K with bit 31
			 * set is first moved into a scratch register.  Only the
			 * K-form conditional jumps pay this: ALU, `ld #k` and
			 * `ret #k` use 32-bit moves/ops where the sign extension
			 * is harmless. */
			if (BPF_SRC(f->code) == BPF_K && f->k >= 0x80000000U)
				n++;
			if (f->jf == 0)
				n += 1;
			else if (f->jt == 0 && BPF_OP(f->code) != BPF_JSET)
				n += 1;	/* inverted to jne/jle/jlt */
			else
				n += 2;	/* conditional jump plus ja */
			break;
		default:
			/* Everything else, `ja` and `ret a` included, is one
			 * instruction.  Opcodes the converter rejects outright
			 * are counted as 1 too; they never reach it from a
			 * verified program. */
			n += 1;
			break;
		}
	}
	return n;
}

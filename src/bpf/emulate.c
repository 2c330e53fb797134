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
#include "bpf/insn.h"

/* The interpreter behind scmpc_emulate() and scmpc_emulate_trace(): the
 * shared step (insn.h) in a loop that bounds the pc.  PATH (N entries, or
 * NULL) gets the index of each instruction executed.  It is inlined into
 * both so that the verifier's hot loop pays nothing for the trace it does
 * not take. */
static inline __attribute__((always_inline)) int
run(const struct sock_filter *insns, size_t len, const struct seccomp_data *data, uint32_t *ret,
    size_t *count, size_t *path, size_t n_path)
{
	uint32_t words[INSN_NWORDS];
	/* M[] starts zeroed: unobservable for a verified program (insn.h),
	 * merely deterministic for the others. */
	struct insn_regs r = { 0 };
	size_t n = 0;
	size_t pc = 0;

	if (!insns || len == 0 || !data || !ret)
		return -EINVAL;
	insn_data_words(data, audit_big_endian(data->arch), words);

	/* Running off the end, or jumping past it: the kernel refuses such a
	 * program at load time. */
	while (pc < len) {
		uint64_t next;

		if (path && n < n_path)
			path[n] = pc;
		n++;
		switch (insn_step(&r, words, &insns[pc], pc, &next, ret)) {
		case INSN_NEXT:
			if (next >= len)
				return -EINVAL;
			pc = (size_t)next;
			break;
		case INSN_RET:
			*count = n;
			return 0;
		default:
			return -EINVAL;
		}
	}
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

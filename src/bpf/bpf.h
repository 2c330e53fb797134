/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Classic BPF as seccomp runs it: the program object (prog.c), what each
 * instruction means (insn.h, the one definition every reader uses), the
 * kernel's acceptance rules (verify.c), the concrete interpreter
 * (emulate.c) and the kernel's action-cache emulation (cache.c).  Knows
 * seccomp_data and the opcodes, nothing of policies.
 */
#ifndef SCMPC_BPF_H
#define SCMPC_BPF_H

#include <linux/filter.h>
#include "base/base.h"

/* ---- emulate.c, verify.c */
/* eBPF length the kernel's converter produces for INSNS. */
size_t bpf_ebpf_len(const struct sock_filter *insns, size_t len);
/* Mnemonic of a classic BPF opcode ("ld h abs"), or NULL when the kernel's
 * classic table lacks it (verify.c; shared with the disassembler). */
const char *bpf_code_name(uint16_t code);
/* True for the 41 opcodes seccomp_check_filter() accepts. */
bool bpf_code_seccomp(uint16_t code);

/* ---- prog.c */
bool host_big_endian(void);
/* Byte-swap each instruction's code and k (a .bpf of the other byte
 * order). */
void bpf_swap(struct sock_filter *insns, size_t len);

/* ---- the program object (the compiler makes them, prog.c reads them) */
struct scmpc_prog {
	struct sock_filter *insns;
	size_t len;
	uint64_t compile_ns;
	bool swapped;		/* read from bytes of the other byte order */
};

#endif

/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Every fact about an ABI: its AUDIT_ARCH, byte order, argument width,
 * numbering (x32's bit 30, mips' bases, ARM's private calls), its syscall
 * table (syscall_table.c, generated) and its socketcall(2)/ipc(2)
 * multiplexers.  Facts only: nothing here knows a policy or a program.
 */
#ifndef SCMPC_ARCH_H
#define SCMPC_ARCH_H

#include "base/base.h"

/* On x86_64 the x32 ABI's numbers carry bit 30 (__X32_SYSCALL_BIT) under
 * x86_64's AUDIT_ARCH. */
#define X32_SYSCALL_BIT 0x40000000U

struct arch_info {
	enum scmpc_arch arch;
	const char *name;		/* scmpc's name: "x86_64", "i386", ... */
	const char *scmp_name;		/* libseccomp's token name, "SCMP_ARCH_X86" */
	const char *docker_name;	/* the host's name in Docker's includes/excludes.arches */
	const char *aliases;		/* other accepted spellings, space-separated */
	uint32_t audit;			/* seccomp_data.arch value */
	uint32_t scmp_token;		/* libseccomp's SCMP_ARCH_* value */
	uint32_t nr_base;		/* x32: 0x40000000; mips: 4000, 5000, 6000; else 0 */
	uint8_t column;			/* column of the syscall table */
	bool compat32;			/* arguments are 32-bit: compare the low word only */
	bool big_endian;		/* seccomp_data in big-endian byte order */
	bool cached;			/* the kernel's action cache can serve its calls */
	enum scmpc_arch host;		/* the ABI of the kernels that run it */
};
const struct arch_info *arch_info(enum scmpc_arch a);
/* The ABI whose libseccomp token name is TOK ("SCMP_ARCH_X86"), or NONE. */
enum scmpc_arch arch_from_scmp_name(const char *tok);
/* Highest number in the syscall table for the ABI (with its base), ARM's
 * private calls left out. */
uint32_t arch_table_max(enum scmpc_arch a);
/* ABI whose numbers reach the filter with seccomp_data.arch == AUDIT and
 * number NR (on x86_64, x32 from 0x40000000 up), or SCMPC_ARCH_NONE. */
enum scmpc_arch arch_of_call(uint32_t audit, uint32_t nr);
/* The ABI's private calls, [*LO, *HI] (ARM's 0x0f0000-0x0f07ff): never
 * "unknown", never counted in the table's highest number.  False when the
 * ABI has none. */
bool arch_private_range(const struct arch_info *i, uint32_t *lo, uint32_t *hi);
bool arch_is_private(const struct arch_info *i, uint32_t nr);
/* Number of NAME on ABI I (with the ABI's base), or -ENOENT. */
int64_t arch_resolve(const struct arch_info *i, const char *name);
/* Name of NR on ABI I, or NULL. */
const char *arch_syscall_name(const struct arch_info *i, uint32_t nr);
/* True when some ABI of the table has NAME. */
bool syscall_name_known(const char *name);
/* Offset in seccomp_data of the HIGH or low word of argument ARG. */
uint32_t arch_arg_offset(const struct arch_info *i, unsigned arg, bool high);
/* Byte order of the seccomp_data a filter sees for AUDIT (its LE bit). */
bool audit_big_endian(uint32_t audit);

/* The socketcall(2) and ipc(2) multiplexers. */
enum arch_mux { MUX_SOCKETCALL, MUX_IPC };
/* The multiplexer's number on ABI I, or -ENOENT when it has none. */
int arch_multiplexer(const struct arch_info *i, enum arch_mux m, uint32_t *nr);
/* The multiplexer and call number (its first argument) that reach NAME,
 * or -ENOENT when NAME is not a multiplexed call. */
int arch_subcall(const char *name, enum arch_mux *m, uint32_t *call);
/* The test of the multiplexer's first argument that reaches sub-call CALL,
 * on the bits the kernel reads (ipc: the low 16; socketcall: the low 32). */
struct scmpc_cond arch_subcall_test(enum arch_mux m, uint32_t call);

#endif

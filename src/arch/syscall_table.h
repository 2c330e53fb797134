/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* The project's syscall table: name -> number per table column, generated
 * into syscall_table.c by tools/gen-syscall-table (which checks that the
 * sizes below match what it wrote).  ABIs that share a table (mips and
 * mipsel, ppc64 and ppc64le, sh and sheb) share a column; arch.c adds each
 * ABI's number base. */
#ifndef SCMPC_SYSCALL_TABLE_H
#define SCMPC_SYSCALL_TABLE_H

#include <stdint.h>

enum systab_column {
	SYSCOL_X86,
	SYSCOL_X86_64,
	SYSCOL_X32,
	SYSCOL_ARM,
	SYSCOL_AARCH64,
	SYSCOL_LOONGARCH64,
	SYSCOL_M68K,
	SYSCOL_MIPS,
	SYSCOL_MIPS64,
	SYSCOL_MIPS64N32,
	SYSCOL_PARISC,
	SYSCOL_PARISC64,
	SYSCOL_PPC,
	SYSCOL_PPC64,
	SYSCOL_RISCV64,
	SYSCOL_S390,
	SYSCOL_S390X,
	SYSCOL_SH,
};

#define SYSTAB_NAMES 508
#define SYSTAB_COLUMNS 18
#define SYSTAB_SOCKETCALLS 20
#define SYSTAB_IPCS 12

/* The CSV's version line. */
extern const char systab_version[];
/* Every name, sorted by strcmp (for bsearch). */
extern const char *const systab_names[SYSTAB_NAMES];
/* systab_nr[i][c]: number of systab_names[i] in column c, or -1. */
extern const int32_t systab_nr[SYSTAB_NAMES][SYSTAB_COLUMNS];
/* Highest number per column, ARM's private calls left out. */
extern const uint32_t systab_max[SYSTAB_COLUMNS];

/* A call reached through socketcall(2) or ipc(2): its name and the number
 * the multiplexer takes as its first argument. */
struct systab_subcall {
	const char *name;
	uint32_t call;
};
extern const struct systab_subcall systab_socketcall[SYSTAB_SOCKETCALLS];
extern const struct systab_subcall systab_ipc[SYSTAB_IPCS];

#endif

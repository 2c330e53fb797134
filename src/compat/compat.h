/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * libseccomp's API on scmpc: what the compatible library's files share.
 *
 * A filter context keeps what the caller asked for in libseccomp's terms,
 * one rule list per ABI as libseccomp keeps one database per ABI (a rule
 * reaches the ABIs the context has when it is added, translated to each),
 * and turns it into an scmpc policy under the LIBSECCOMP merge only when a
 * program is wanted.  Everything here uses scmpc's public API alone but
 * refusal.c, which grows libseccomp's tree of comparisons rule by rule
 * (policy/lsc_tree.h).  The files depend on each other one way: the API
 * (seccomp_api.c and the api_*.c it shares api.h with) on the PFC (pfc.c),
 * the refusal index (refusal.c) and the names (names.c); the PFC on the
 * names.
 */
#ifndef SCMPC_COMPAT_H
#define SCMPC_COMPAT_H

#include <seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scmpc.h"

/* libseccomp's pseudo-syscall numbers (generated from seccomp-syscalls.h). */
struct compat_pnr {
	const char *name;
	int nr;
};
extern const struct compat_pnr compat_pnr[];
extern const size_t compat_npnr;
/* Positions in compat_pnr[] by name (strcmp order), and by number
 * (ascending; one per number, the header's later name where two share
 * one): every name resolution looks the table up. */
extern const unsigned short compat_pnr_by_name[];
extern const unsigned short compat_pnr_by_nr[];
extern const unsigned short compat_pnr_by_nr_first[];
extern const size_t compat_npnr_by_nr;

/* One rule as it landed on one ABI, numbered for that ABI. */
struct compat_rule {
	uint32_t action;
	uint32_t nr;		/* 0xffffffff: -1, the tracer's skipped call */
	bool pseudo;		/* nr is a pseudo number (a call the ABI lacks):
				   kept, as libseccomp keeps it, out of programs */
	unsigned nconds;
	struct scmpc_cond conds[6];	/* by argument, as libseccomp chains them */
};

struct compat_index;

struct compat_filter {
	enum scmpc_arch arch;
	struct compat_rule *rules;
	size_t n, cap;
	/* The rules by call, for libseccomp's refusals (refusal.h); NULL
	 * until an add needs it, and again whenever the rules change other
	 * than by an add (a transaction's rollback): it is rebuilt from them. */
	struct compat_index *ix;
};

struct compat_attrs {
	uint32_t act_default, act_badarch, optimize;
	bool nnp, tsync, tskip, log, ssb, sysrawrc, waitkill;
};

struct compat_ctx {
	uint32_t magic;
	struct compat_attrs a;
	struct compat_filter *f;	/* in the order the ABIs were added */
	size_t nf;
	bool notify_used;
	scmpc_prog *prog;		/* the compiled program, until a change */
	struct compat_ctx *saved;	/* transaction snapshots, newest first */
};

/* Socket calls are pseudo numbers -101..-120 and SysV IPC calls -201..-224
 * (the call number socketcall(2) and ipc(2) take, negated, plus 100 or
 * 200) on every ABI that multiplexes them. */
enum compat_family { FAM_NONE, FAM_SOCKET, FAM_IPC };
/* names.c: libseccomp's answer for NAME on A: the number; on an ABI that
 * multiplexes them, a socket or IPC call's pseudo number; a pseudo number
 * for a call the ABI lacks; -1 (__NR_SCMP_ERROR) for a name nobody knows. */
int compat_resolve_name(enum scmpc_arch a, const char *name);
/* NAME's pseudo number, 0 when the header gives it none. */
int compat_pnr_of_name(const char *name);
enum compat_family compat_family_of_pnr(int pnr);
/* The multiplexer of family F on A (socketcall(2), ipc(2)), or -1. */
int64_t compat_mux_nr(enum scmpc_arch a, enum compat_family f);

/* The policy the context describes, under the LIBSECCOMP merge. */
int compat_policy(const struct compat_ctx *c, scmpc_policy **out, scmpc_diag *d);
/* libseccomp's name for ABI A ("x86" for i386, scmpc's otherwise). */
const char *compat_arch_name(enum scmpc_arch a);
/* The name of NR on A as libseccomp resolves numbers (pseudo numbers
 * included), in BUF; NULL when there is none. */
const char *compat_syscall_name(enum scmpc_arch a, int nr, char *buf, size_t len);

/* log.c: when SCMPC_COMPAT_LOG was set as the library was loaded, one
 * line on stderr saying what API call FN did with C's program (its size
 * and worst paths); RC < 0 says the call failed with it; C NULL: only
 * that FN failed with RC.  Nothing else in the library prints. */
void compat_log(const char *fn, const struct compat_ctx *c, int rc);

/* seccomp_export_pfc() */
int compat_write_pfc(const struct compat_ctx *c, int fd);
/* Write N bytes of BUF to FD whatever the partial writes; 0 or -errno
 * (-EIO when the fd takes nothing). */
int compat_write_all(int fd, const void *buf, size_t n);

#endif

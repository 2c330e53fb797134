/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * libseccomp's names on scmpc's table: the ABI names it spells its own way,
 * its pseudo-syscall numbers (generated from the header built against) and
 * the answers its resolvers give, which programs compare with.  Shared by
 * the API (seccomp_api.c, api_*.c) and the PFC (pfc.c); it knows no context.
 */
#include <string.h>
#include "compat.h"

const char *compat_arch_name(enum scmpc_arch a)
{
	return a == SCMPC_ARCH_I386 ? "x86" : scmpc_arch_name(a);
}

int compat_pnr_of_name(const char *name)
{
	size_t lo = 0, hi = compat_npnr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct compat_pnr *e = &compat_pnr[compat_pnr_by_name[mid]];
		int c = strcmp(e->name, name);
		if (!c)
			return e->nr;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* Where the header gives two names one number (sys_debug_setcontext and
 * switch_endian, in that order), libseccomp 2.5's table knows the later
 * one and 2.6's the earlier: the header's version decides which of the two
 * orders by number to search. */
static const char *name_of_pnr(int nr)
{
	const bool first = SCMP_VER_MAJOR > 2 || (SCMP_VER_MAJOR == 2 && SCMP_VER_MINOR >= 6);
	const unsigned short *by_nr = first ? compat_pnr_by_nr_first : compat_pnr_by_nr;
	size_t lo = 0, hi = compat_npnr_by_nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct compat_pnr *e = &compat_pnr[by_nr[mid]];
		if (e->nr == nr)
			return e->name;
		if (e->nr < nr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

enum compat_family compat_family_of_pnr(int pnr)
{
	if (pnr <= -101 && pnr >= -120)
		return FAM_SOCKET;
	if (pnr <= -201 && pnr >= -224)
		return FAM_IPC;
	return FAM_NONE;
}

/* The multiplexer of family F on A (socketcall(2), ipc(2)), or -1. */
int64_t compat_mux_nr(enum scmpc_arch a, enum compat_family f)
{
	if (f == FAM_NONE)
		return -1;
	int64_t n = scmpc_syscall_resolve(a, f == FAM_SOCKET ? "socketcall" : "ipc");
	return n < 0 ? -1 : n;
}

/* libseccomp's answer for NAME on A: the number; on an ABI that
 * multiplexes them, a socket or IPC call's pseudo number even when it has
 * a direct one too (both are then filtered); a pseudo number for a call
 * the ABI lacks; -1 (__NR_SCMP_ERROR) for a name nobody knows. */
int compat_resolve_name(enum scmpc_arch a, const char *name)
{
	int pnr = compat_pnr_of_name(name);
	if (pnr && compat_mux_nr(a, compat_family_of_pnr(pnr)) >= 0)
		return pnr;
	int64_t n = scmpc_syscall_resolve(a, name);
	if (n >= 0 && n <= INT32_MAX)
		return (int)n;
	return pnr ? pnr : __NR_SCMP_ERROR;
}

/* A pseudo number names a call on the ABIs that lack it (and a socket or
 * IPC call on those that multiplex it); a number below the ABI's base
 * (x32 without bit 30, mips without its 4000/5000/6000) is read as if it
 * had it, as libseccomp reads it. */
const char *compat_syscall_name(enum scmpc_arch a, int nr, char *buf, size_t len)
{
	if (nr < 0) {
		const char *name = name_of_pnr(nr);
		if (!name || compat_mux_nr(a, compat_family_of_pnr(nr)) >= 0)
			return name;
		return scmpc_syscall_resolve(a, name) < 0 ? name : NULL;
	}
	if (scmpc_syscall_name(a, (uint32_t)nr, buf, len))
		return buf;
	struct scmpc_arch_info info = { .sz = sizeof(info) };
	if (scmpc_arch_describe(a, &info) == 0 && (uint32_t)nr < info.nr_base &&
	    scmpc_syscall_name(a, (uint32_t)nr + info.nr_base, buf, len))
		return buf;
	return NULL;
}


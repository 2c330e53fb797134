/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* ABIs and their syscall tables.  Numbers and names come from libseccomp's
 * tables only; nothing here copies a table. */
#include <linux/audit.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "internal.h"

#define X32_BIT 0x40000000U

static const struct arch_info arches[SCMPC_ARCH_COUNT] = {
	{ SCMPC_ARCH_X86_64, "x86_64", AUDIT_ARCH_X86_64, SCMP_ARCH_X86_64, 0, false },
	{ SCMPC_ARCH_I386, "i386", AUDIT_ARCH_I386, SCMP_ARCH_X86, 0, true },
	/* x32 is an ILP32 ABI: its int, long and pointer arguments are 32-bit
	 * and the high half of the register is not sanitised (libseccomp
	 * compares the low word too). */
	{ SCMPC_ARCH_X32, "x32", AUDIT_ARCH_X86_64, SCMP_ARCH_X32, X32_BIT, true },
	{ SCMPC_ARCH_AARCH64, "aarch64", AUDIT_ARCH_AARCH64, SCMP_ARCH_AARCH64, 0, false },
	{ SCMPC_ARCH_ARM, "arm", AUDIT_ARCH_ARM, SCMP_ARCH_ARM, 0, true },
};

const struct arch_info *arch_info(enum scmpc_arch a)
{
	if (a < 1 || a > SCMPC_ARCH_COUNT)
		return NULL;
	return &arches[a - 1];
}

SCMPC_API const char *scmpc_arch_name(enum scmpc_arch a)
{
	const struct arch_info *i = arch_info(a);
	return i ? i->name : NULL;
}

SCMPC_API uint32_t scmpc_arch_audit(enum scmpc_arch a)
{
	const struct arch_info *i = arch_info(a);
	return i ? i->audit : 0;
}

SCMPC_API enum scmpc_arch scmpc_arch_from_name(const char *name)
{
	static const struct {
		const char *alias;
		enum scmpc_arch a;
	} aliases[] = {
		{ "x86_64", SCMPC_ARCH_X86_64 },  { "amd64", SCMPC_ARCH_X86_64 },
		{ "SCMP_ARCH_X86_64", SCMPC_ARCH_X86_64 },
		{ "i386", SCMPC_ARCH_I386 },	  { "x86", SCMPC_ARCH_I386 },
		{ "386", SCMPC_ARCH_I386 },	  { "i686", SCMPC_ARCH_I386 },
		{ "SCMP_ARCH_X86", SCMPC_ARCH_I386 },
		{ "x32", SCMPC_ARCH_X32 },	  { "SCMP_ARCH_X32", SCMPC_ARCH_X32 },
		{ "aarch64", SCMPC_ARCH_AARCH64 }, { "arm64", SCMPC_ARCH_AARCH64 },
		{ "SCMP_ARCH_AARCH64", SCMPC_ARCH_AARCH64 },
		{ "arm", SCMPC_ARCH_ARM },	  { "SCMP_ARCH_ARM", SCMPC_ARCH_ARM },
	};
	if (!name)
		return SCMPC_ARCH_NONE;
	for (size_t i = 0; i < ARRAY_SIZE(aliases); i++)
		if (!strcasecmp(name, aliases[i].alias))
			return aliases[i].a;
	return SCMPC_ARCH_NONE;
}

SCMPC_API enum scmpc_arch scmpc_arch_native(void)
{
#if defined(__x86_64__) && !defined(__ILP32__)
	return SCMPC_ARCH_X86_64;
#elif defined(__aarch64__)
	return SCMPC_ARCH_AARCH64;
#else
	return SCMPC_ARCH_NONE;
#endif
}

bool arch_is_arm_private(enum scmpc_arch a, uint32_t nr)
{
	/* __ARM_NR_BASE .. __ARM_NR_BASE + 0x7ff (arch/arm/include/uapi/asm/unistd.h) */
	return a == SCMPC_ARCH_ARM && nr >= 0x0f0000 && nr <= 0x0f07ff;
}

/* libseccomp answers a negative pseudo-number for i386's socket and ipc
 * calls, which it multiplexes through socketcall/ipc; the kernel has had
 * direct numbers for them since 4.3 and 5.1, and libseccomp's number table
 * lists them.  Find the direct number by name in that table. */
static int64_t resolve_direct(const struct arch_info *i, const char *name)
{
	uint32_t max = arch_table_max(i->arch);
	for (uint32_t n = i->nr_base; n <= max; n++) {
		char *s = seccomp_syscall_resolve_num_arch(i->scmp_token, (int)n);
		bool hit = s && !strcmp(s, name);
		free(s);
		if (hit)
			return n;
	}
	return -ENOENT;
}

int64_t arch_resolve(const struct arch_info *i, const char *name, struct name_table *cache)
{
	int nr = seccomp_syscall_resolve_name_arch(i->scmp_token, name);
	if (nr >= 0)
		return (int64_t)(uint32_t)nr;
	/* Only the multiplexed calls have a direct number to find; libseccomp
	 * numbers them from -101 (socketcall) and -201 (ipc), while calls an ABI
	 * simply lacks are -10000 and below. */
	if (nr == __NR_SCMP_ERROR || nr <= -10000)
		return -ENOENT;
	if (!cache)
		return resolve_direct(i, name);
	if (!cache->names) {
		/* One scan to the table's end (a gap of 256 numbers, as in
		 * arch_table_max), keeping the names. */
		uint32_t cap = 1024, last = 0;
		cache->base = i->nr_base;
		cache->names = calloc(cap, sizeof(*cache->names));
		if (!cache->names)
			return -ENOMEM;
		for (uint32_t k = 0; k < cap && k < last + 256; k++) {
			cache->names[k] = seccomp_syscall_resolve_num_arch(i->scmp_token,
									   (int)(i->nr_base + k));
			if (cache->names[k])
				last = k;
		}
		cache->n = cap;
	}
	for (uint32_t k = 0; k < cache->n; k++)
		if (cache->names[k] && !strcmp(cache->names[k], name))
			return cache->base + k;
	return -ENOENT;
}

void name_table_free(struct name_table *t)
{
	for (uint32_t k = 0; t->names && k < t->n; k++)
		free(t->names[k]);
	free(t->names);
	t->names = NULL;
}

SCMPC_API int64_t scmpc_syscall_resolve(enum scmpc_arch a, const char *name)
{
	const struct arch_info *i = arch_info(a);
	if (!i || !name)
		return -EINVAL;
	return arch_resolve(i, name, NULL);
}

SCMPC_API bool scmpc_syscall_name(enum scmpc_arch a, uint32_t nr, char *buf, size_t len)
{
	const struct arch_info *i = arch_info(a);
	if (!i || nr > INT32_MAX)
		return false;
	char *s = seccomp_syscall_resolve_num_arch(i->scmp_token, (int)nr);
	if (!s)
		return false;
	if (buf && len) {
		strncpy(buf, s, len - 1);
		buf[len - 1] = '\0';
	}
	free(s);
	return true;
}

uint32_t arch_table_max(enum scmpc_arch a)
{
	const struct arch_info *i = arch_info(a);
	if (!i)
		return 0;
	/* Table ends vary with the libseccomp release; scan well past any
	 * current one and keep the last hit.  The tables are dense enough that
	 * a gap of 256 means the end. */
	uint32_t last = 0;
	for (uint32_t n = 0; n < last + 256 && n < 1024; n++)
		if (scmpc_syscall_name(a, i->nr_base + n, NULL, 0))
			last = n;
	return i->nr_base + last;
}

enum scmpc_arch arch_of_call(uint32_t audit, uint32_t nr)
{
	if (audit == AUDIT_ARCH_X86_64)
		return nr >= X32_BIT ? SCMPC_ARCH_X32 : SCMPC_ARCH_X86_64;
	for (size_t i = 0; i < ARRAY_SIZE(arches); i++)
		if (arches[i].audit == audit)
			return arches[i].arch;
	return SCMPC_ARCH_NONE;
}

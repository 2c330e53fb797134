/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Every ABI scmpc compiles for, and everything that differs between them,
 * in one table: adding an ABI is a row here plus its column in the
 * generated syscall table (syscall_table.c).  Nothing else in the library
 * switches on an ABI.
 */
#include <linux/audit.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "arch/arch.h"
#include "arch/syscall_table.h"

/* ELF machine numbers (include/uapi/linux/elf-em.h) and the AUDIT_ARCH
 * flag bits (include/uapi/linux/audit.h), spelled out so that the table
 * does not depend on how new the build host's kernel headers are. */
#define EM_386_ 3
#define EM_68K_ 4
#define EM_MIPS_ 8
#define EM_PARISC_ 15
#define EM_PPC_ 20
#define EM_PPC64_ 21
#define EM_S390_ 22
#define EM_ARM_ 40
#define EM_SH_ 42
#define EM_X86_64_ 62
#define EM_AARCH64_ 183
#define EM_RISCV_ 243
#define EM_LOONGARCH_ 258
#define A64 0x80000000U		/* __AUDIT_ARCH_64BIT */
#define ALE 0x40000000U		/* __AUDIT_ARCH_LE */
#define AN32 0x20000000U	/* __AUDIT_ARCH_CONVENTION_MIPS64_N32 */

/* The kernel's own values, where the build host's headers know them. */
_Static_assert((EM_X86_64_ | A64 | ALE) == AUDIT_ARCH_X86_64, "x86_64");
_Static_assert((EM_386_ | ALE) == AUDIT_ARCH_I386, "i386");
_Static_assert((EM_AARCH64_ | A64 | ALE) == AUDIT_ARCH_AARCH64, "aarch64");
_Static_assert((EM_ARM_ | ALE) == AUDIT_ARCH_ARM, "arm");
_Static_assert((EM_MIPS_ | A64 | AN32) == AUDIT_ARCH_MIPS64N32, "mips64n32");
_Static_assert((EM_PPC64_ | A64 | ALE) == AUDIT_ARCH_PPC64LE, "ppc64le");
_Static_assert((EM_S390_ | A64) == AUDIT_ARCH_S390X, "s390x");
_Static_assert((EM_RISCV_ | A64 | ALE) == AUDIT_ARCH_RISCV64, "riscv64");
_Static_assert((EM_PARISC_ | A64) == AUDIT_ARCH_PARISC64, "parisc64");
_Static_assert((EM_SH_ | ALE) == AUDIT_ARCH_SHEL, "sh");
_Static_assert(EM_68K_ == AUDIT_ARCH_M68K, "m68k");

/*
 * Columns: scmpc's name; libseccomp's token name; the name moby and
 * containers/common give the host in a profile's includes/excludes.arches
 * (their goToNative strings); other spellings accepted (GOARCH, uname -m,
 * Debian); AUDIT_ARCH; number base (mips o32/n64/n32 number from 4000,
 * 5000, 6000; x32 carries bit 30); syscall-table column; argument width
 * (32: i386, arm, x32 and n32 userland is ILP32, so only the low word of an
 * argument is compared, as libseccomp does); byte order; whether the
 * kernel's action cache can serve the ABI (x32 numbers lie past every
 * bitmap; n32 is neither the native nor the compat ABI of a mips64
 * kernel); the ABI of the 64-bit kernels that run it (a container host's
 * group: Docker resolves a profile for the host and adds its compat ABIs).
 * libseccomp's SCMP_ARCH_* token is the AUDIT_ARCH, except x32's.
 */
#define LE false
#define BE true
static const struct arch_info arches[SCMPC_ARCH_COUNT] = {
	{ SCMPC_ARCH_X86_64, "x86_64", "SCMP_ARCH_X86_64", "amd64", "x86-64",
	  EM_X86_64_ | A64 | ALE, EM_X86_64_ | A64 | ALE, 0, SYSCOL_X86_64, false, LE, true, SCMPC_ARCH_X86_64 },
	{ SCMPC_ARCH_I386, "i386", "SCMP_ARCH_X86", "x86", "386 i486 i586 i686",
	  EM_386_ | ALE, EM_386_ | ALE, 0, SYSCOL_X86, true, LE, true, SCMPC_ARCH_X86_64 },
	{ SCMPC_ARCH_X32, "x32", "SCMP_ARCH_X32", "x32", "",
	  EM_X86_64_ | A64 | ALE, EM_X86_64_ | ALE, X32_SYSCALL_BIT, SYSCOL_X32, true, LE, false, SCMPC_ARCH_X86_64 },
	{ SCMPC_ARCH_AARCH64, "aarch64", "SCMP_ARCH_AARCH64", "arm64", "",
	  EM_AARCH64_ | A64 | ALE, EM_AARCH64_ | A64 | ALE, 0, SYSCOL_AARCH64, false, LE, true, SCMPC_ARCH_AARCH64 },
	{ SCMPC_ARCH_ARM, "arm", "SCMP_ARCH_ARM", "arm", "armel armhf armv6l armv7l armv8l",
	  EM_ARM_ | ALE, EM_ARM_ | ALE, 0, SYSCOL_ARM, true, LE, true, SCMPC_ARCH_AARCH64 },
	{ SCMPC_ARCH_LOONGARCH64, "loongarch64", "SCMP_ARCH_LOONGARCH64", "loong64", "loongarch",
	  EM_LOONGARCH_ | A64 | ALE, EM_LOONGARCH_ | A64 | ALE, 0, SYSCOL_LOONGARCH64, false, LE,
	  true, SCMPC_ARCH_LOONGARCH64 },
	{ SCMPC_ARCH_M68K, "m68k", "SCMP_ARCH_M68K", "m68k", "",
	  EM_68K_, EM_68K_, 0, SYSCOL_M68K, true, BE, true, SCMPC_ARCH_M68K },
	{ SCMPC_ARCH_MIPS, "mips", "SCMP_ARCH_MIPS", "mips", "",
	  EM_MIPS_, EM_MIPS_, 4000, SYSCOL_MIPS, true, BE, true, SCMPC_ARCH_MIPS64 },
	{ SCMPC_ARCH_MIPSEL, "mipsel", "SCMP_ARCH_MIPSEL", "mipsel", "mipsle",
	  EM_MIPS_ | ALE, EM_MIPS_ | ALE, 4000, SYSCOL_MIPS, true, LE, true, SCMPC_ARCH_MIPSEL64 },
	{ SCMPC_ARCH_MIPS64, "mips64", "SCMP_ARCH_MIPS64", "mips64", "",
	  EM_MIPS_ | A64, EM_MIPS_ | A64, 5000, SYSCOL_MIPS64, false, BE, true, SCMPC_ARCH_MIPS64 },
	{ SCMPC_ARCH_MIPSEL64, "mipsel64", "SCMP_ARCH_MIPSEL64", "mipsel64", "mips64le mips64el",
	  EM_MIPS_ | A64 | ALE, EM_MIPS_ | A64 | ALE, 5000, SYSCOL_MIPS64, false, LE, true, SCMPC_ARCH_MIPSEL64 },
	{ SCMPC_ARCH_MIPS64N32, "mips64n32", "SCMP_ARCH_MIPS64N32", "mips64n32", "mips64p32",
	  EM_MIPS_ | A64 | AN32, EM_MIPS_ | A64 | AN32, 6000, SYSCOL_MIPS64N32, true, BE, false, SCMPC_ARCH_MIPS64 },
	{ SCMPC_ARCH_MIPSEL64N32, "mipsel64n32", "SCMP_ARCH_MIPSEL64N32", "mips3l64n32",
	  "mips64p32le mips64eln32",
	  EM_MIPS_ | A64 | AN32 | ALE, EM_MIPS_ | A64 | AN32 | ALE, 6000, SYSCOL_MIPS64N32, true, LE,
	  false, SCMPC_ARCH_MIPSEL64 },
	{ SCMPC_ARCH_PARISC, "parisc", "SCMP_ARCH_PARISC", "parisc", "hppa",
	  EM_PARISC_, EM_PARISC_, 0, SYSCOL_PARISC, true, BE, true, SCMPC_ARCH_PARISC64 },
	{ SCMPC_ARCH_PARISC64, "parisc64", "SCMP_ARCH_PARISC64", "parisc64", "hppa64",
	  EM_PARISC_ | A64, EM_PARISC_ | A64, 0, SYSCOL_PARISC64, false, BE, true, SCMPC_ARCH_PARISC64 },
	{ SCMPC_ARCH_PPC, "ppc", "SCMP_ARCH_PPC", "ppc", "powerpc",
	  EM_PPC_, EM_PPC_, 0, SYSCOL_PPC, true, BE, true, SCMPC_ARCH_PPC64 },
	{ SCMPC_ARCH_PPC64, "ppc64", "SCMP_ARCH_PPC64", "ppc64", "powerpc64",
	  EM_PPC64_ | A64, EM_PPC64_ | A64, 0, SYSCOL_PPC64, false, BE, true, SCMPC_ARCH_PPC64 },
	{ SCMPC_ARCH_PPC64LE, "ppc64le", "SCMP_ARCH_PPC64LE", "ppc64le", "ppc64el powerpc64le",
	  EM_PPC64_ | A64 | ALE, EM_PPC64_ | A64 | ALE, 0, SYSCOL_PPC64, false, LE, true, SCMPC_ARCH_PPC64LE },
	{ SCMPC_ARCH_RISCV64, "riscv64", "SCMP_ARCH_RISCV64", "riscv64", "",
	  EM_RISCV_ | A64 | ALE, EM_RISCV_ | A64 | ALE, 0, SYSCOL_RISCV64, false, LE, true, SCMPC_ARCH_RISCV64 },
	{ SCMPC_ARCH_S390, "s390", "SCMP_ARCH_S390", "s390", "",
	  EM_S390_, EM_S390_, 0, SYSCOL_S390, true, BE, true, SCMPC_ARCH_S390X },
	{ SCMPC_ARCH_S390X, "s390x", "SCMP_ARCH_S390X", "s390x", "",
	  EM_S390_ | A64, EM_S390_ | A64, 0, SYSCOL_S390X, false, BE, true, SCMPC_ARCH_S390X },
	{ SCMPC_ARCH_SH, "sh", "SCMP_ARCH_SH", "sh", "sh4 shel",
	  EM_SH_ | ALE, EM_SH_ | ALE, 0, SYSCOL_SH, true, LE, true, SCMPC_ARCH_SH },
	{ SCMPC_ARCH_SHEB, "sheb", "SCMP_ARCH_SHEB", "sheb", "sh4eb",
	  EM_SH_, EM_SH_, 0, SYSCOL_SH, true, BE, true, SCMPC_ARCH_SHEB },
};

/* ARM's private calls, __ARM_NR_BASE (0x0f0000) .. + 0x7ff
 * (arch/arm/include/uapi/asm/unistd.h): never "unknown", never counted in
 * the table's highest number. */
#define ARM_PRIVATE_LO 0x0f0000U
#define ARM_PRIVATE_HI 0x0f07ffU

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

SCMPC_API bool scmpc_arch_big_endian(enum scmpc_arch a)
{
	const struct arch_info *i = arch_info(a);
	return i && i->big_endian;
}

SCMPC_API int scmpc_arch_describe(enum scmpc_arch a, struct scmpc_arch_info *out)
{
	const struct arch_info *i = arch_info(a);
	if (!i || !out || out->sz < offsetof(struct scmpc_arch_info, table_max) + sizeof(uint32_t))
		return -EINVAL;
	struct scmpc_arch_info info = {
		.name = i->name,
		.audit = i->audit,
		.nr_base = i->nr_base,
		.big_endian = i->big_endian,
		.args32 = i->compat32,
		.cached = i->cached,
		.host = i->host,
		.table_max = arch_table_max(a),
	};
	OUT_FILL(out, info);
	return 0;
}

/* NAME is WORD, or one of the space-separated words of LIST. */
static bool word_in(const char *name, const char *list)
{
	size_t n = strlen(name);
	for (const char *w = list; *w;) {
		size_t len = strcspn(w, " ");
		if (len == n && !strncasecmp(w, name, n))
			return true;
		w += len;
		w += strspn(w, " ");
	}
	return false;
}

SCMPC_API enum scmpc_arch scmpc_arch_from_name(const char *name)
{
	if (!name || !*name)
		return SCMPC_ARCH_NONE;
	for (size_t i = 0; i < ARRAY_SIZE(arches); i++) {
		const struct arch_info *a = &arches[i];
		if (!strcasecmp(name, a->name) || !strcasecmp(name, a->scmp_name) ||
		    !strcasecmp(name, a->docker_name) || word_in(name, a->aliases))
			return a->arch;
	}
	return SCMPC_ARCH_NONE;
}

enum scmpc_arch arch_from_scmp_name(const char *tok)
{
	for (size_t i = 0; i < ARRAY_SIZE(arches); i++)
		if (!strcmp(tok, arches[i].scmp_name))
			return arches[i].arch;
	return SCMPC_ARCH_NONE;
}

SCMPC_API enum scmpc_arch scmpc_arch_native(void)
{
#if defined(__x86_64__) && defined(__ILP32__)
	return SCMPC_ARCH_X32;
#elif defined(__x86_64__)
	return SCMPC_ARCH_X86_64;
#elif defined(__i386__)
	return SCMPC_ARCH_I386;
#elif defined(__aarch64__)
	return SCMPC_ARCH_AARCH64;
#elif defined(__arm__)
	return SCMPC_ARCH_ARM;
#elif defined(__loongarch__) && __loongarch_grlen == 64
	return SCMPC_ARCH_LOONGARCH64;
#elif defined(__m68k__)
	return SCMPC_ARCH_M68K;
#elif defined(__mips__) && defined(_ABIO32) && defined(__MIPSEB__)
	return SCMPC_ARCH_MIPS;
#elif defined(__mips__) && defined(_ABIO32)
	return SCMPC_ARCH_MIPSEL;
#elif defined(__mips__) && defined(_ABI64) && defined(__MIPSEB__)
	return SCMPC_ARCH_MIPS64;
#elif defined(__mips__) && defined(_ABI64)
	return SCMPC_ARCH_MIPSEL64;
#elif defined(__mips__) && defined(_ABIN32) && defined(__MIPSEB__)
	return SCMPC_ARCH_MIPS64N32;
#elif defined(__mips__) && defined(_ABIN32)
	return SCMPC_ARCH_MIPSEL64N32;
#elif defined(__hppa__) && defined(__LP64__)
	return SCMPC_ARCH_PARISC64;
#elif defined(__hppa__)
	return SCMPC_ARCH_PARISC;
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return SCMPC_ARCH_PPC64LE;
#elif defined(__powerpc64__)
	return SCMPC_ARCH_PPC64;
#elif defined(__powerpc__)
	return SCMPC_ARCH_PPC;
#elif defined(__riscv) && __riscv_xlen == 64
	return SCMPC_ARCH_RISCV64;
#elif defined(__s390x__)
	return SCMPC_ARCH_S390X;
#elif defined(__s390__)
	return SCMPC_ARCH_S390;
#elif defined(__sh__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return SCMPC_ARCH_SHEB;
#elif defined(__sh__)
	return SCMPC_ARCH_SH;
#else
	return SCMPC_ARCH_NONE;
#endif
}

bool arch_private_range(const struct arch_info *i, uint32_t *lo, uint32_t *hi)
{
	*lo = *hi = 0;
	if (i->arch != SCMPC_ARCH_ARM)
		return false;
	*lo = ARM_PRIVATE_LO;
	*hi = ARM_PRIVATE_HI;
	return true;
}

bool arch_is_private(const struct arch_info *i, uint32_t nr)
{
	uint32_t lo, hi;
	return arch_private_range(i, &lo, &hi) && nr >= lo && nr <= hi;
}

/* Row of NAME in the table, or -1.  Each view resolves every rule's name
 * here, a compile a view per ABI: the binary search orders by the first
 * letter where it differs (most steps, far from the name) and calls
 * strcmp() only where it is the same. */
static long name_row(const char *name)
{
	size_t lo = 0, hi = SYSTAB_NAMES;
	unsigned char c = (unsigned char)name[0];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *row = systab_names[mid];
		unsigned char r = (unsigned char)row[0];
		int cmp = c != r ? (c < r ? -1 : 1) : strcmp(name, row);
		if (cmp == 0)
			return (long)mid;
		if (cmp < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

int64_t arch_resolve(const struct arch_info *i, const char *name)
{
	long row = name_row(name);
	if (row < 0 || systab_nr[row][i->column] < 0)
		return -ENOENT;
	return (int64_t)i->nr_base + systab_nr[row][i->column];
}

bool syscall_name_known(const char *name)
{
	long row = name_row(name);
	for (int c = 0; row >= 0 && c < SYSTAB_COLUMNS; c++)
		if (systab_nr[row][c] >= 0)
			return true;
	return false;
}

const char *arch_syscall_name(const struct arch_info *i, uint32_t nr)
{
	if (nr < i->nr_base || nr - i->nr_base > INT32_MAX)
		return NULL;
	int32_t want = (int32_t)(nr - i->nr_base);
	for (size_t row = 0; row < SYSTAB_NAMES; row++)
		if (systab_nr[row][i->column] == want)
			return systab_names[row];
	return NULL;
}

SCMPC_API int64_t scmpc_syscall_resolve(enum scmpc_arch a, const char *name)
{
	const struct arch_info *i = arch_info(a);
	if (!i || !name)
		return -EINVAL;
	return arch_resolve(i, name);
}

SCMPC_API bool scmpc_syscall_name(enum scmpc_arch a, uint32_t nr, char *buf, size_t len)
{
	const struct arch_info *i = arch_info(a);
	const char *s = i ? arch_syscall_name(i, nr) : NULL;
	if (!s)
		return false;
	if (buf && len) {
		strncpy(buf, s, len - 1);
		buf[len - 1] = '\0';
	}
	return true;
}

SCMPC_API const char *scmpc_syscall_table_version(void)
{
	return systab_version;
}

uint32_t arch_table_max(enum scmpc_arch a)
{
	const struct arch_info *i = arch_info(a);
	return i ? i->nr_base + systab_max[i->column] : 0;
}

enum scmpc_arch arch_of_call(uint32_t audit, uint32_t nr)
{
	for (size_t i = 0; i < ARRAY_SIZE(arches); i++)
		if (arches[i].audit == audit) {
			/* x86_64 and x32 share the AUDIT_ARCH; bit 30 tells them
			 * apart.  The x86_64 row comes first. */
			if (arches[i].arch == SCMPC_ARCH_X86_64 && nr >= X32_SYSCALL_BIT)
				return SCMPC_ARCH_X32;
			return arches[i].arch;
		}
	return SCMPC_ARCH_NONE;
}

int arch_multiplexer(const struct arch_info *i, enum arch_mux m, uint32_t *nr)
{
	int64_t n = arch_resolve(i, m == MUX_SOCKETCALL ? "socketcall" : "ipc");
	if (n < 0)
		return -ENOENT;
	*nr = (uint32_t)n;
	return 0;
}

/* Whether NAME starts as SUB does: the first two letters, compared
 * before the whole name (SUB's first letter matching NAME's, NAME has a
 * second). */
static bool subcall_is(const char *sub, const char *name)
{
	return sub[0] == name[0] && sub[1] == name[1] && !strcmp(sub, name);
}

/* Every view of a policy with socketcall(2) or ipc(2) asks this of each
 * rule's name, and most names are no sub-call: the two-letter test in
 * subcall_is() keeps that to well under one strcmp() a name. */
int arch_subcall(const char *name, enum arch_mux *m, uint32_t *call)
{
	for (size_t k = 0; k < SYSTAB_SOCKETCALLS; k++)
		if (subcall_is(systab_socketcall[k].name, name)) {
			*m = MUX_SOCKETCALL;
			*call = systab_socketcall[k].call;
			return 0;
		}
	for (size_t k = 0; k < SYSTAB_IPCS; k++)
		if (subcall_is(systab_ipc[k].name, name)) {
			*m = MUX_IPC;
			*call = systab_ipc[k].call;
			return 0;
		}
	return -ENOENT;
}

/* The kernel reads ipc(2)'s first argument as an unsigned int whose low
 * 16 bits are the call and whose high 16 a version (ipc/syscall.c:
 * "version = call >> 16; call &= 0xffff"; glibc passes version bits for
 * some calls), and socketcall(2)'s as an int (net/socket.c).  So the
 * filter's test of a sub-call reads what the kernel reads: the low 16 bits
 * for ipc, the low 32 for socketcall.  Comparing the whole register, as
 * libseccomp does, lets ipc(SEMOP | 1 << 16) past a rule on semop, and on
 * 64-bit ABIs socketcall(SYS_SOCKET | 1 << 32) past a rule on socket. */
struct scmpc_cond arch_subcall_test(enum arch_mux m, uint32_t call)
{
	if (m == MUX_IPC)
		return (struct scmpc_cond){ .arg = 0, .op = SCMPC_OP_MASKED_EQ, .value = 0xffff,
					    .value2 = call & 0xffff, .flags = SCMPC_COND_32BIT };
	return (struct scmpc_cond){ .arg = 0, .op = SCMPC_OP_EQ, .value = call,
				    .flags = SCMPC_COND_32BIT };
}

SCMPC_API int scmpc_syscall_multiplexer(enum scmpc_arch a, const char *name, uint32_t *mux_nr,
					struct scmpc_cond *test)
{
	const struct arch_info *i = arch_info(a);
	enum arch_mux m;
	uint32_t call, nr;
	if (!i || !name || !mux_nr || !test)
		return -EINVAL;
	if (arch_subcall(name, &m, &call) < 0 || arch_multiplexer(i, m, &nr) < 0)
		return 0;
	*mux_nr = nr;
	*test = arch_subcall_test(m, call);
	return 1;
}

uint32_t arch_arg_offset(const struct arch_info *i, unsigned arg, bool high)
{
	/* args[] are u64 in the ABI's byte order: on a big-endian ABI the
	 * high word comes first. */
	uint32_t base = (uint32_t)offsetof(struct seccomp_data, args) + 8u * arg;
	return base + ((high == i->big_endian) ? 0u : 4u);
}

bool audit_big_endian(uint32_t audit)
{
	return !(audit & ALE);
}

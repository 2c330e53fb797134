/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * scmpc: compile seccomp syscall policies into verified, optimized cBPF.
 *
 * Handles are opaque. Functions that can fail return 0 (or a count) on
 * success and a negative errno on failure; when the caller passes a
 * scmpc_diag, it receives a message and, where one applies, the position in
 * the policy ("syscalls[3].args[0]") or in the program ("insn 12").
 *
 * Options structs start with a `sz` member that the caller sets to
 * sizeof(struct ...): fields added later are read only when sz covers them,
 * so binaries built against an older header keep working.  A NULL options
 * pointer means "all defaults".
 *
 * The library keeps no global mutable state and prints nothing; every
 * function is safe to call from several threads on distinct handles.
 *
 * ## Policy semantics (independent of the order rules are added in)
 *
 *  - A rule names a syscall (by name, resolved per architecture with the
 *    project's syscall table, or by raw number for one architecture), an action
 *    and an AND-list of argument conditions.
 *  - Rules for one syscall are OR-ed.  When rules with different actions
 *    match one call, the action the kernel ranks most restrictive wins
 *    (lowest (int32_t)(action & 0xffff0000)); between equal actions with
 *    different data (ERRNO(1) vs ERRNO(13)) the lower data wins.
 *  - A syscall that no rule names gets the default action.
 *  - A call whose AUDIT_ARCH is not in the policy gets the bad-arch action
 *    (default KILL_PROCESS).  On x86_64 a number from 0x40000000 up (x32
 *    numbers carry that bit) is decided by the x32 rules if the policy has
 *    x32, else by the bad-arch action; it never reaches the x86_64 table.
 *  - nr == -1 (0xffffffff, a tracer skipping the call) gets the default
 *    action on every architecture, as libseccomp does.
 *  - When an unknown-syscall action is set, a number above the threshold
 *    (the highest number in the syscall table for the ABI, or the highest
 *    number the policy names, runc's rule) that no rule names gets it.
 *    ARM's private calls (0x0f0000-0x0f07ff) are never "unknown".
 *  - On 32-bit ABIs (i386, arm, and x32, whose userland is ILP32) an
 *    argument is its low 32 bits, zero-extended; the filter never reads the
 *    high word.  On 64-bit ABIs a condition is
 *    64-bit unless it carries SCMPC_COND_32BIT, in which case only the low
 *    32 bits are compared.  Comparisons are unsigned; a condition that no
 *    32-bit value can meet folds to a constant.
 *  - Socket and SysV IPC calls (socket, connect, accept, ..., semop, shmget,
 *    ...) also reach the kernel through socketcall(2) and ipc(2) on the ABIs
 *    that have them (i386, s390, s390x, ppc, ppc64, mips o32, ...), with the
 *    call's number (SYS_SOCKET..., SEMOP...) as argument 0 and its own
 *    arguments behind a pointer no filter can read.  A rule on such a call,
 *    by name or by its number, holds there too: unconditional rules as rules
 *    on the multiplexer whose argument 0 (low 32 bits; for ipc, low 16: the
 *    high ones carry a version) is the call's number; if any of the call's
 *    rules has conditions, one such rule with the most restrictive action
 *    among them (and the default action when none is unconditional), and a
 *    warning says so.
 */
#ifndef SCMPC_H
#define SCMPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>	/* pid_t */
#include <linux/filter.h>	/* struct sock_filter */
#include <linux/seccomp.h>	/* struct seccomp_data */

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define SCMPC_API __attribute__((visibility("default")))
#else
#define SCMPC_API
#endif

#define SCMPC_VERSION_MAJOR 0
#define SCMPC_VERSION_MINOR 1
#define SCMPC_VERSION_MICRO 0
SCMPC_API const char *scmpc_version(void);

/* ----------------------------------------------------------- conventions */

/*
 * Options, rule and state structs start with sz, the size of the struct
 * the caller was built with, so that they can grow without breaking the
 * ABI.  A call refuses with -EINVAL (and says why in its scmpc_diag) a
 * struct whose sz stops before the fields it reads, or one that sets a
 * field past those this version knows: a newer caller's option would
 * otherwise be ignored without a word.  Output structs with sz
 * (scmpc_arch_info, scmpc_load_result) are filled up to their sz.  Every
 * call checks its handles: NULL is an error (-EINVAL), or for a getter
 * without an error channel its documented neutral answer.
 *
 * SCMPC_OPTS declares such a struct zeroed, padding included, with sz set:
 *     SCMPC_OPTS(scmpc_compile_opts, o, .flags = SCMPC_COMPILE_NAIVE);
 *     scmpc_compile(p, &o, &prog, d);
 * (give at least one field; `.sz = sizeof(struct T)` alone will do).
 */
#if defined(__GNUC__) || defined(__clang__)
#define SCMPC_OPTS(TYPE, NAME, ...)                                                 \
	struct TYPE NAME = ({                                                      \
		struct TYPE scmpc_opts_;                                           \
		__builtin_memset(&scmpc_opts_, 0, sizeof(scmpc_opts_));            \
		scmpc_opts_ = (struct TYPE){ __VA_ARGS__ };                        \
		scmpc_opts_.sz = sizeof(struct TYPE);                              \
		scmpc_opts_;                                                       \
	})
#else
#define SCMPC_OPTS(TYPE, NAME, ...) struct TYPE NAME = { __VA_ARGS__ }; NAME.sz = sizeof(struct TYPE)
#endif

/* ---------------------------------------------------------------- errors */

typedef struct scmpc_diag scmpc_diag;

SCMPC_API scmpc_diag *scmpc_diag_new(void);
SCMPC_API void scmpc_diag_free(scmpc_diag *d);
/* Forget the error and warnings so the object can be reused. */
SCMPC_API void scmpc_diag_clear(scmpc_diag *d);
/* Negative errno of the last error, 0 if none. */
SCMPC_API int scmpc_diag_errno(const scmpc_diag *d);
/* Message of the last error ("" if none). */
SCMPC_API const char *scmpc_diag_message(const scmpc_diag *d);
/* Where the error applies: a policy path, "insn N", or "" if nowhere. */
SCMPC_API const char *scmpc_diag_where(const scmpc_diag *d);
/* Instruction index the error applies to, or -1. */
SCMPC_API long scmpc_diag_insn(const scmpc_diag *d);
/* Non-fatal findings (skipped names, denied uprobe calls, ...). */
SCMPC_API size_t scmpc_diag_warning_count(const scmpc_diag *d);
SCMPC_API const char *scmpc_diag_warning(const scmpc_diag *d, size_t i);

/* --------------------------------------------------------- architectures */

/* Every ABI libseccomp knows.  The values are scmpc's own and stable. */
enum scmpc_arch {
	SCMPC_ARCH_NONE = 0,
	SCMPC_ARCH_X86_64 = 1,
	SCMPC_ARCH_I386 = 2,
	SCMPC_ARCH_X32 = 3,
	SCMPC_ARCH_AARCH64 = 4,
	SCMPC_ARCH_ARM = 5,
	SCMPC_ARCH_LOONGARCH64 = 6,
	SCMPC_ARCH_M68K = 7,
	SCMPC_ARCH_MIPS = 8,		/* o32, big-endian */
	SCMPC_ARCH_MIPSEL = 9,		/* o32, little-endian */
	SCMPC_ARCH_MIPS64 = 10,		/* n64 */
	SCMPC_ARCH_MIPSEL64 = 11,
	SCMPC_ARCH_MIPS64N32 = 12,	/* n32 */
	SCMPC_ARCH_MIPSEL64N32 = 13,
	SCMPC_ARCH_PARISC = 14,
	SCMPC_ARCH_PARISC64 = 15,
	SCMPC_ARCH_PPC = 16,
	SCMPC_ARCH_PPC64 = 17,		/* big-endian */
	SCMPC_ARCH_PPC64LE = 18,
	SCMPC_ARCH_RISCV64 = 19,
	SCMPC_ARCH_S390 = 20,
	SCMPC_ARCH_S390X = 21,
	SCMPC_ARCH_SH = 22,		/* little-endian, as libseccomp's SCMP_ARCH_SH */
	SCMPC_ARCH_SHEB = 23,
};
#define SCMPC_ARCH_COUNT 23

/* "x86_64", "i386", "x32", "aarch64", "arm", "mips64n32", ...; NULL for an
 * invalid value. */
SCMPC_API const char *scmpc_arch_name(enum scmpc_arch a);
/* Accepts scmpc's names, libseccomp's SCMP_ARCH_* tokens, the names Docker
 * profiles give hosts (amd64, arm64, mipsel64, mips3l64n32, loong64, ...),
 * GOARCH values (386, mips64le, mips64p32le, ...) and common uname/Debian
 * spellings (i686, armv7l, ppc64el, powerpc, hppa, sh4); case-insensitive.
 * Returns SCMPC_ARCH_NONE for anything else. */
SCMPC_API enum scmpc_arch scmpc_arch_from_name(const char *name);
/* The AUDIT_ARCH value a filter sees in seccomp_data.arch. */
SCMPC_API uint32_t scmpc_arch_audit(enum scmpc_arch a);
/* True when the ABI's seccomp_data (and so its .bpf files) is big-endian:
 * m68k, mips, mips64, mips64n32, parisc, parisc64, ppc, ppc64, s390,
 * s390x, sheb. */
SCMPC_API bool scmpc_arch_big_endian(enum scmpc_arch a);
/* What distinguishes an ABI; the struct can grow: set sz. */
struct scmpc_arch_info {
	size_t sz;			/* sizeof(struct scmpc_arch_info) */
	const char *name;		/* scmpc_arch_name() */
	uint32_t audit;			/* AUDIT_ARCH, seccomp_data.arch */
	uint32_t nr_base;		/* its first syscall number (x32: 0x40000000,
					   mips o32/n64/n32: 4000/5000/6000) */
	bool big_endian;		/* seccomp_data's byte order */
	bool args32;			/* only the low word of an argument is compared */
	bool cached;			/* the kernel's action cache can serve its calls
					   (not x32, not mips n32) */
	enum scmpc_arch host;		/* the ABI of the kernels that run it: x86_64
					   for i386 and x32, aarch64 for arm, s390x for
					   s390, ...; itself for a kernel's own ABI */
	uint32_t table_max;		/* highest number of its syscall table */
};
/* Fill OUT for ABI A.  -EINVAL for an unknown ABI or an OUT whose sz is
 * smaller than this version's first release of the struct. */
SCMPC_API int scmpc_arch_describe(enum scmpc_arch a, struct scmpc_arch_info *out);
/* The ABI of this build, SCMPC_ARCH_NONE on a machine scmpc has no ABI for. */
SCMPC_API enum scmpc_arch scmpc_arch_native(void);
/* Syscall number of NAME on ARCH, or a negative errno (-ENOENT) when the ABI
 * has no such call.  Numbers carry the ABI's base: x32 numbers bit
 * 0x40000000, mips o32/n64/n32 numbers start at 4000/5000/6000.  The table
 * is the project's own (scmpc_syscall_table_version()), the same on every
 * host whatever its libseccomp.  Calls an ABI reaches only through
 * socketcall(2) or ipc(2) (accept on i386, semop on s390x) have no number
 * there. */
SCMPC_API int64_t scmpc_syscall_resolve(enum scmpc_arch a, const char *name);
/* Name of NR on ARCH, copied into BUF; returns false when unknown. */
SCMPC_API bool scmpc_syscall_name(enum scmpc_arch a, uint32_t nr, char *buf, size_t len);
/* The version of the syscall table compiled in ("v7.1.0-rc4 2026-05-19":
 * the libseccomp table it was generated from). */
SCMPC_API const char *scmpc_syscall_table_version(void);

/* --------------------------------------------------------------- actions */

/* Actions are kernel SECCOMP_RET_* values: action in bits 31..16 and data
 * in bits 15..0. */
/* What SCMPC_ACT_ERRNO() and SCMPC_ACT_TRACE() give for data that does not
 * fit 16 bits (negative, or above 65535): a value every entry point refuses
 * with a message naming the range.  Keeping the low 16 bits instead would
 * turn ERRNO(65549) into a valid ERRNO(13) nobody asked for. */
#define SCMPC_ACT_OUT_OF_RANGE	0xffffffffU
/* (Evaluates D twice; stays a constant expression for case labels and
 * static initialisers.) */
#define SCMPC_ACT_DATA_(a, d)	\
	((unsigned long long)(d) <= 0xffffU ? (a) | (uint32_t)(d) : SCMPC_ACT_OUT_OF_RANGE)
#define SCMPC_ACT_KILL_PROCESS	0x80000000U
#define SCMPC_ACT_KILL_THREAD	0x00000000U
#define SCMPC_ACT_TRAP		0x00030000U
#define SCMPC_ACT_ERRNO(e)	SCMPC_ACT_DATA_(0x00050000U, e)
#define SCMPC_ACT_USER_NOTIF	0x7fc00000U
#define SCMPC_ACT_TRACE(m)	SCMPC_ACT_DATA_(0x7ff00000U, m)
#define SCMPC_ACT_LOG		0x7ffc0000U
#define SCMPC_ACT_ALLOW		0x7fff0000U

/* True when ACT is an action the kernel knows with data it honours
 * (ERRNO data <= 4095; KILL, USER_NOTIF, LOG and ALLOW carry none). */
SCMPC_API bool scmpc_action_valid(uint32_t act);
/* Negative when A is more restrictive than B, 0 when equal, positive else. */
SCMPC_API int scmpc_action_cmp(uint32_t a, uint32_t b);
/* Write "ERRNO(1)", "ALLOW", ... into BUF. */
SCMPC_API void scmpc_action_str(uint32_t act, char *buf, size_t len);
/* The action S names: what scmpc_action_str() writes (KILL_PROCESS,
 * KILL_THREAD, TRAP, ERRNO(N), TRACE(N), LOG, ALLOW, USER_NOTIF), KILL and
 * NOTIFY, with or without libseccomp's SCMP_ACT_ prefix, in any case.
 * -EINVAL when S names none, -ERANGE for data the kernel does not honour
 * (ERRNO above 4095, TRACE above 65535, or negative): never cut to 16 bits. */
SCMPC_API int scmpc_action_parse(const char *s, uint32_t *act);

/* ----------------------------------------------------------------- policy */

enum scmpc_op {
	SCMPC_OP_EQ = 1,
	SCMPC_OP_NE,
	SCMPC_OP_LT,
	SCMPC_OP_LE,
	SCMPC_OP_GT,
	SCMPC_OP_GE,
	SCMPC_OP_MASKED_EQ,	/* (arg & value) == (value2 & value), as libseccomp
				   compares it for OCI's MASKED_EQ; a value2 with
				   bits outside the mask is masked, with a warning */
};

#define SCMPC_COND_32BIT 0x1U	/* compare the low 32 bits only */

struct scmpc_cond {
	unsigned arg;		/* 0..5 */
	enum scmpc_op op;
	uint64_t value;
	uint64_t value2;	/* MASKED_EQ only */
	unsigned flags;		/* SCMPC_COND_* */
};

/* Whether NAME, a socket or SysV IPC call, also reaches the kernel on A
 * through socketcall(2) or ipc(2): 1 with *MUX_NR the multiplexer's number
 * and *TEST the test of its first argument that selects NAME, on the bits
 * the kernel reads (ipc: the low 16, its version above them ignored;
 * socketcall: the low 32, an int); 0 when it does not (no such
 * multiplexer on A, or not one of its calls); -EINVAL for an unknown ABI
 * or a NULL argument.  Every rule scmpc compiles for such a call holds for
 * this test too, whatever the merge. */
SCMPC_API int scmpc_syscall_multiplexer(enum scmpc_arch a, const char *name, uint32_t *mux_nr,
					struct scmpc_cond *test);

typedef struct scmpc_policy scmpc_policy;

/* NULL when DEFAULT_ACTION is not valid (scmpc_action_valid()) or without
 * memory.  USER_NOTIF is taken, as the kernel takes it, and scmpc_compile()
 * warns: every call no rule decides then waits for the listener. */
SCMPC_API scmpc_policy *scmpc_policy_new(uint32_t default_action);
SCMPC_API void scmpc_policy_free(scmpc_policy *p);
SCMPC_API uint32_t scmpc_policy_default_action(const scmpc_policy *p);

/* Add an ABI; the first one added is listed first in the program. */
SCMPC_API int scmpc_policy_add_arch(scmpc_policy *p, enum scmpc_arch a, scmpc_diag *d);
SCMPC_API size_t scmpc_policy_arch_count(const scmpc_policy *p);
SCMPC_API enum scmpc_arch scmpc_policy_arch(const scmpc_policy *p, size_t i);

/* The agent that answers the policy's USER_NOTIF calls (OCI listenerPath,
 * an absolute AF_UNIX socket path, and listenerMetadata, an opaque string
 * passed to it); stored for the loader's caller (scmpc_notify_handoff()).
 * NULL PATH clears them. */
SCMPC_API int scmpc_policy_set_listener(scmpc_policy *p, const char *path, const char *metadata,
					scmpc_diag *d);
/* True when the policy names an agent; *PATH and *METADATA (either may be
 * NULL) point into the policy. */
SCMPC_API bool scmpc_policy_listener(const scmpc_policy *p, const char **path,
				     const char **metadata);

/* seccomp(2) SECCOMP_FILTER_FLAG_* bits to load the program with (the
 * policy's "flags"); stored for the loader, not used by the compiler. */
SCMPC_API int scmpc_policy_set_flags(scmpc_policy *p, unsigned flags, scmpc_diag *d);
SCMPC_API unsigned scmpc_policy_flags(const scmpc_policy *p);

SCMPC_API int scmpc_policy_set_bad_arch_action(scmpc_policy *p, uint32_t act, scmpc_diag *d);

enum scmpc_unknown_threshold {
	SCMPC_UNKNOWN_TABLE_MAX = 0,	/* above the highest number in the ABI table */
	SCMPC_UNKNOWN_POLICY_MAX = 1,	/* above the highest number the policy names */
};
/* Give numbers above the threshold their own action, e.g. ERRNO(ENOSYS). */
SCMPC_API int scmpc_policy_set_unknown_action(scmpc_policy *p, uint32_t act,
					      enum scmpc_unknown_threshold thr, scmpc_diag *d);

/*
 * runc's ENOSYS stub, as a per-ABI limit checked before any rule: a call of
 * ABI A whose number is above MAX gets ACT, whatever the rules say.  Unlike
 * the unknown-syscall action, it applies to nr == -1 too (above any MAX)
 * and knows no exception (ARM's private calls are numbers like any other).
 * Under x86_64's AUDIT_ARCH, as runc's stub tests it, bit 30 picks the
 * limit: x32's for numbers with it (-1 among them), x86_64's for those
 * without (0x80000000-0xbfffffff among them); a number whose limit is not
 * set goes on to the rules.  SCMPC_LIMIT_ZERO gives number 0 ACT too
 * (runc's s390/s390x stub: setup(0) multiplexes calls the stub cannot see).
 * MAX = UINT32_MAX clears the limit.
 */
#define SCMPC_LIMIT_ZERO 0x2U
SCMPC_API int scmpc_policy_set_limit(scmpc_policy *p, enum scmpc_arch a, uint32_t max, uint32_t act,
				     unsigned flags, scmpc_diag *d);

/* How rules for one syscall combine.  RESTRICTIVE is the semantics above.
 * LIBSECCOMP reproduces what runc and crun get from libseccomp 2.5 when
 * they add a profile's rules in file order: if a syscall has an
 * unconditional rule, the first one added decides alone (later rules for
 * that syscall, conditional or not, are dropped, and it replaces earlier
 * conditional ones).  Otherwise, where two conditional rules with different
 * actions can match the same arguments, libseccomp's order of comparisons
 * decides, not severity: the higher argument first, its high word before
 * the low, "==" and "!=" before "<" and "<=" before ">" and ">=", then the
 * larger constant first (the smaller for "<"), the first comparison that
 * leads to an action winning (a2 > 256 -> ERRNO(5) and a2 > 128 ->
 * ERRNO(6) give ERRNO(6) at 200).  A rule libseccomp would refuse (EEXIST:
 * the same comparisons as an earlier rule but another action, or a rule
 * ending where an earlier one goes on) makes runc and crun refuse the
 * profile; scmpc warns and decides that call by severity.  As in
 * libseccomp, rules with the default action are refused (they still count
 * for the POLICY_MAX threshold) and a rule whose conditions are all zero-
 * mask MASKED_EQ is unconditional.  On 32-bit ABIs libseccomp keeps the low
 * word of each constant (a MASKED_EQ whose mask has no low bits goes), and
 * copies a socket or IPC rule onto socketcall/ipc with a test of argument
 * 0 for the call's number in place of its argument-0 conditions, keeping
 * the others.  That test reads what the kernel reads (ipc: the low 16 bits;
 * socketcall: the low 32), where libseccomp compares the whole argument and
 * lets ipc(SEMOP | 1 << 16) past a rule on semop: the one place this merge
 * departs from libseccomp on purpose.  The JSON front end selects it
 * unless told otherwise. */
enum scmpc_merge {
	SCMPC_MERGE_RESTRICTIVE = 0,
	SCMPC_MERGE_LIBSECCOMP = 1,
	/* LIBSECCOMP, except that a rule libseccomp refuses (EEXIST) is an
	 * error, not a warning: scmpc_compile() and scmpc_policy_check() fail
	 * with -EEXIST where libseccomp's seccomp_rule_add() would. */
	SCMPC_MERGE_LIBSECCOMP_STRICT = 2,
};
SCMPC_API int scmpc_policy_set_merge(scmpc_policy *p, enum scmpc_merge m, scmpc_diag *d);

/* Resolve P's rules on each of its ABIs as scmpc_compile() does, without
 * compiling: the errors and warnings the compiler would give about the
 * rules themselves (a rule libseccomp refuses under the strict LIBSECCOMP
 * merge, ...), at a fraction of the cost. */
SCMPC_API int scmpc_policy_check(const scmpc_policy *p, scmpc_diag *d);

struct scmpc_rule {
	size_t sz;		/* sizeof(struct scmpc_rule) */
	const char *syscall;	/* name, resolved per ABI; or NULL to use nr */
	uint32_t nr;		/* raw number when syscall is NULL */
	enum scmpc_arch arch;	/* required with nr; with a name, limits the
				   rule to one ABI (SCMPC_ARCH_NONE: all) */
	uint32_t action;
	const struct scmpc_cond *conds;
	size_t nconds;
	const char *origin;	/* where it came from, e.g. "syscalls[3]" */
};

/* Returns the rule's index (>= 0) or a negative errno. */
SCMPC_API int scmpc_policy_add_rule(scmpc_policy *p, const struct scmpc_rule *r, scmpc_diag *d);
SCMPC_API size_t scmpc_policy_rule_count(const scmpc_policy *p);

/* The action the policy gives DATA, evaluated directly from the rules; when
 * RULE is not NULL it receives the deciding rule's index, or -1 when the
 * default, unknown or bad-arch action decided. */
SCMPC_API uint32_t scmpc_policy_eval(const scmpc_policy *p, const struct seccomp_data *data,
				     int *rule);
/* The origin string of rule I (NULL if none). */
SCMPC_API const char *scmpc_policy_rule_origin(const scmpc_policy *p, size_t i);

/* A rule as added, read back; the struct can grow: set sz. */
struct scmpc_rule_info {
	size_t sz;			/* sizeof(struct scmpc_rule_info) */
	const char *syscall;		/* the name, or NULL for a rule by number */
	uint32_t nr;			/* the number, when syscall is NULL */
	enum scmpc_arch arch;		/* the ABI it is limited to, or SCMPC_ARCH_NONE */
	uint32_t action;
	const struct scmpc_cond *conds;	/* as stored: a MASKED_EQ datum is masked */
	size_t nconds;
	const char *origin;		/* "syscalls[3]" and the like, or NULL */
};
/* Fill OUT with rule I of P (0 <= I < scmpc_policy_rule_count()), as
 * scmpc_policy_add_rule() stored it; its pointers point into P and live as
 * long as P.  Rules are given, not resolved: a name stands for whatever
 * number each ABI gives it.  -EINVAL for a NULL P or OUT, I out of range,
 * or an OUT whose sz is smaller than this version's first release of the
 * struct. */
SCMPC_API int scmpc_policy_rule(const scmpc_policy *p, size_t i, struct scmpc_rule_info *out);

/* Argument values that meet every one of the N conditions CONDS (an AND,
 * as in a rule) where one value per condition can: the constant of an EQ,
 * LE or GE, one past that of an NE or GT, one below that of an LT, the
 * datum of a MASKED_EQ, 0 for an argument no condition names.  When two
 * conditions on one argument contradict, the later one's value is kept.
 * A place to start from when looking for what a rule decides.  -EINVAL
 * for NULL ARGS, NULL CONDS with N > 0, or an argument index above 5. */
SCMPC_API int scmpc_conds_witness(const struct scmpc_cond *conds, size_t n, uint64_t args[6]);

/* -------------------------------------------------------------- workload */

/*
 * How often a process makes each system call, for profile-guided layout
 * (scmpc_compile_opts.hot).  Calls are named, and a name is resolved on
 * each ABI at compile time; an entry may be limited to one ABI.
 *
 * Only calls that pay for the filter weigh: with the kernel's action cache
 * (Linux 5.11), a call the program allows without reading its arguments is
 * served from the cache and never runs the filter, so the layout counts
 * argument-checked calls and calls with any other action (denied, ERRNO,
 * ...), and every call of an ABI the kernel never caches (x32, mips n32).
 * Among the trees whose worst path is at most SCMPC_HOT_SLACK instructions
 * above the least possible, in the measure the layout without a workload
 * minimises (a call's compares, plus half the instructions of its argument
 * checks), the number dispatch is the one with the least mean path over
 * those calls, weighted by their counts: the layout without a workload is
 * one of them, and no call the workload leaves out can be made arbitrarily
 * slow.  A workload none of whose calls pay leaves the program unchanged.
 */
typedef struct scmpc_workload scmpc_workload;

#define SCMPC_HOT_SLACK 2

enum scmpc_workload_format {
	SCMPC_WORKLOAD_AUTO = 0,	/* STRACE when a line starts "% time", PERF when
					   one starts "syscall" and names "calls", else
					   LIST */
	SCMPC_WORKLOAD_LIST,		/* items separated by newlines or commas: NAME,
					   NAME COUNT, COUNT NAME (uniq -c), NAME=COUNT or
					   NAME:COUNT, or several NAMEs; a name alone
					   counts once; '#' starts a comment */
	SCMPC_WORKLOAD_STRACE,		/* strace -c (-f) summary tables: the "calls"
					   column by the last column's name; a table
					   after "System call usage summary for 32 bit
					   mode" (x32 mode) counts for the compat ABI of
					   scmpc_workload_opts.arch (x32) */
	SCMPC_WORKLOAD_PERF,		/* perf trace -s (--summary): the per-thread
					   tables' "calls" column, summed */
};

struct scmpc_workload_opts {
	size_t sz;			/* sizeof(struct scmpc_workload_opts) */
	enum scmpc_workload_format format;
	/* The ABI the trace's own calls are of; SCMPC_ARCH_NONE (the default):
	 * the first ABI of each AUDIT_ARCH the compiled policy has (x86_64
	 * rather than x32). */
	enum scmpc_arch arch;
};

SCMPC_API scmpc_workload *scmpc_workload_new(void);
SCMPC_API void scmpc_workload_free(scmpc_workload *w);
/* Add COUNT calls of NAME on ARCH (SCMPC_ARCH_NONE: as the opts' arch
 * above); counts of one (name, ABI) add up, saturating.  -EINVAL for a
 * name no ABI of the table has, or a NULL W or NAME; -ENOMEM. */
SCMPC_API int scmpc_workload_add(scmpc_workload *w, const char *name, enum scmpc_arch arch,
				 uint64_t count, scmpc_diag *d);
/* Parse the LEN bytes at TEXT and add their calls.  Errors name the line
 * ("line 7").  A name no ABI has (strace's "syscall_0x1c3", a newer call)
 * is skipped with a warning.  Returns the number of calls added or a
 * negative errno (-EINVAL: nothing in the text has the format's shape, or a
 * row does not parse; then nothing is added). */
SCMPC_API int64_t scmpc_workload_parse(scmpc_workload *w, const char *text, size_t len,
				       const struct scmpc_workload_opts *o, scmpc_diag *d);
/* Distinct (name, ABI) entries, in the order first added. */
SCMPC_API size_t scmpc_workload_size(const scmpc_workload *w);
/* Entry I: its name (valid as long as W), ABI and count; -EINVAL when I is
 * out of range.  NAME, ARCH and COUNT may be NULL. */
SCMPC_API int scmpc_workload_get(const scmpc_workload *w, size_t i, const char **name,
				 enum scmpc_arch *arch, uint64_t *count);
/* The count of NAME on ARCH (SCMPC_ARCH_NONE: entries without an ABI), 0
 * when absent. */
SCMPC_API uint64_t scmpc_workload_calls(const scmpc_workload *w, const char *name,
					enum scmpc_arch arch);

/* --------------------------------------------------------------- compile */

#define SCMPC_COMPILE_NO_VERIFY	0x1U	/* skip the semantic check (tests only) */
#define SCMPC_COMPILE_NAIVE	0x2U	/* no optimization: one linear chain */
/* By default argument checks are laid out for the shortest worst path,
 * unless the program would then be larger than libseccomp's chain layout
 * of the policy: then for size, each call's path within the chain
 * libseccomp runs for it (2,000 values on one call: a chain of 2,020
 * instructions, 2,009 deep, where the search is 3,042 instructions and 24
 * deep).  SMALLEST lays them out for size always, SHORTEST for the path
 * always (never both), unless the program would not fit the kernel's 4096
 * instructions: that one is laid out for size as well. */
#define SCMPC_COMPILE_SMALLEST	0x4U
#define SCMPC_COMPILE_SHORTEST	0x8U

struct scmpc_compile_opts {
	size_t sz;		/* sizeof(struct scmpc_compile_opts) */
	unsigned flags;		/* SCMPC_COMPILE_* */
	/* Profile-guided layout (scmpc_workload above): the syscall-number
	 * dispatch of each ABI is laid out for the least expected path over
	 * the workload's calls that pay for the filter, its worst path at most
	 * SCMPC_HOT_SLACK above the least possible.  NULL: no workload. */
	const struct scmpc_workload *hot;
};

typedef struct scmpc_prog scmpc_prog;

/* Compile P. The result has passed the kernel's acceptance rules and the
 * semantic check against P (unless SCMPC_COMPILE_NO_VERIFY). */
SCMPC_API int scmpc_compile(const scmpc_policy *p, const struct scmpc_compile_opts *o,
			    scmpc_prog **out, scmpc_diag *d);
/* Wrap an existing program (from a .bpf file, libseccomp, ...). */
SCMPC_API int scmpc_prog_new(const struct sock_filter *insns, size_t len, scmpc_prog **out,
			     scmpc_diag *d);
/* Parse raw .bpf bytes: a struct sock_filter array in either byte order.
 * The bytes are read in the host's order unless only the other order gives
 * a program the kernel accepts (a .bpf exported for a big-endian target on
 * a little-endian host, or the reverse); scmpc_prog_swapped() tells. */
SCMPC_API int scmpc_prog_from_bytes(const void *buf, size_t size, scmpc_prog **out,
				    scmpc_diag *d);
/* True when scmpc_prog_from_bytes() read the program byte-swapped. */
SCMPC_API bool scmpc_prog_swapped(const scmpc_prog *prog);
SCMPC_API void scmpc_prog_free(scmpc_prog *prog);
SCMPC_API const struct sock_filter *scmpc_prog_insns(const scmpc_prog *prog);
SCMPC_API size_t scmpc_prog_len(const scmpc_prog *prog);
/* Converted (eBPF) length the kernel charges against its 32768 chain budget. */
SCMPC_API size_t scmpc_prog_ebpf_len(const scmpc_prog *prog);
/* Wall time scmpc_compile spent, in nanoseconds (0 for wrapped programs). */
SCMPC_API uint64_t scmpc_prog_compile_ns(const scmpc_prog *prog);

/* ------------------------------------------------------ check and analyse */

/* The kernel's acceptance rules (bpf_check_classic + seccomp_check_filter). */
SCMPC_API int scmpc_verify_insns(const struct sock_filter *insns, size_t len, scmpc_diag *d);
/* Semantic check: PROG decides every probe point as P does. */
SCMPC_API int scmpc_verify_policy(const scmpc_policy *p, const struct sock_filter *insns,
				  size_t len, scmpc_diag *d);

/* Run INSNS on DATA as the kernel does; *RET gets the return value and
 * *STEPS (if not NULL) the number of instructions executed. */
SCMPC_API int scmpc_emulate(const struct sock_filter *insns, size_t len,
			    const struct seccomp_data *data, uint32_t *ret, unsigned *steps);
/* scmpc_emulate(), recording the path: the index of each instruction
 * executed, in order, into PATH (the first N of them).  Jumps only go
 * forward, so no instruction runs twice and N = LEN always suffices.
 * *NPATH (if not NULL) gets how many were executed.  -EINVAL as for
 * scmpc_emulate(), or for a NULL PATH with N > 0. */
SCMPC_API int scmpc_emulate_trace(const struct sock_filter *insns, size_t len,
				  const struct seccomp_data *data, uint32_t *ret, size_t *path,
				  size_t n, size_t *npath);

/* The kernel's own KERNEL_VERSION() encoding (linux/version.h), sublevels
 * above 255 saturating as the kernel's do. */
#define SCMPC_KERNEL_VERSION(a, b, c) \
	(((unsigned)(a) << 16) + ((unsigned)(b) << 8) + ((c) > 255 ? 255U : (unsigned)(c)))

struct scmpc_cache_opts {
	size_t sz;
	unsigned kernel_version;	/* SCMPC_KERNEL_VERSION(a,b,c); 0 = 6.18 */
	uint32_t nr_count;		/* bitmap size; 0 = 470 (Linux 6.18) */
};

/* The kernel's seccomp_is_const_allow() for one (arch, nr) on one program:
 * 1 if the kernel caches the call as allowed, 0 if not.  *STOP_PC (if not
 * NULL) gets the instruction that ended the emulation (the RET reached, or
 * the instruction the kernel gives up on). */
SCMPC_API int scmpc_cache_const_allow(const struct sock_filter *insns, size_t len,
				      uint32_t audit_arch, uint32_t nr, uint32_t *stop_pc);
/* Bitmap for a stack of programs (progs[0] oldest) as the kernel builds it
 * for ABI A: bit nr set in BITS ((nr_count+7)/8 bytes) when cached.
 * Returns the number of set bits or a negative errno. */
SCMPC_API int scmpc_cache_bitmap(const struct sock_filter *const *progs, const size_t *lens,
				 size_t nprogs, enum scmpc_arch a,
				 const struct scmpc_cache_opts *o, uint8_t *bits);

/* ----------------------------------------------------------------- probes */

/*
 * What to try on programs to compare what they decide when their policies
 * are not known (a .bpf from libseccomp or runc): the syscall numbers of
 * an ABI where filters go wrong, and per argument the values around the
 * constants the policies and the programs compare it with.  A program can
 * change its answer only where one of its constants is crossed, so between
 * two neighbouring probes a comparison (==, <, ...) decides alike; a mask
 * test (jset, and) can tell any two values apart, and scmpc_prog_arg_use()
 * says where one is.  scmpc_verify_policy() does not need these: it knows
 * its policy and probes each call more densely.
 */
typedef struct scmpc_probes scmpc_probes;

/* An empty set: each argument's values are 0 and UINT64_MAX.  NULL
 * without memory. */
SCMPC_API scmpc_probes *scmpc_probes_new(void);
SCMPC_API void scmpc_probes_free(scmpc_probes *ps);
/* Add the values around each constant of P's conditions: the value, its
 * neighbours and the value with its high word flipped (the filter must or
 * must not read that word, depending on the ABI and SCMPC_COND_32BIT); for
 * MASKED_EQ the datum, the datum with every bit outside the mask set, the
 * mask, and the datum with the mask's lowest bit flipped.  -EINVAL for a
 * NULL PS or P, -ENOMEM (then some of P's values may be in). */
SCMPC_API int scmpc_probes_add_policy(scmpc_probes *ps, const scmpc_policy *p, scmpc_diag *d);
/* Add the values the program INSNS tests each argument against: every
 * constant a conditional jump or an `and` compares a word of it with, and
 * its neighbours, one word's with every one of the other's (a word not
 * tested pairs through 0 and 0xffffffff), at most 4096 per argument and
 * pairing.  A program does not tell its byte order, so each word of an
 * argument is paired as its high word and as its low word.  -EINVAL for a
 * NULL PS or INSNS or an empty program, -ENOMEM. */
SCMPC_API int scmpc_probes_add_prog(scmpc_probes *ps, const struct sock_filter *insns, size_t len,
				    scmpc_diag *d);
/* The values of argument ARG (0-5): sorted, each once, 0 and UINT64_MAX
 * among them.  *VALS (if not NULL) points into PS until the next addition.
 * Returns how many; 0 for a NULL PS or ARG above 5. */
SCMPC_API size_t scmpc_probes_values(const scmpc_probes *ps, unsigned arg, const uint64_t **vals);

/* The syscall numbers of ABI A worth probing: its first 1024 (or its whole
 * table and 64 past its end), the private range and the number past it
 * (ARM's 0x0f0000-0x0f0800), 0 and the number below the base of an ABI
 * that has one (where mips' other ABIs number theirs), and the boundaries
 * of the number space: the x32 bit from either side, the sign bit and -1
 * (x32 leaves -1 to x86_64).  Sorted, each once; *OUT is malloc'ed.
 * Returns how many, or -EINVAL (an unknown ABI, a NULL OUT) or -ENOMEM. */
SCMPC_API int scmpc_arch_probe_numbers(enum scmpc_arch a, uint32_t **out, scmpc_diag *d);

/* How one call's decision reads the arguments; the struct can grow: set
 * sz. */
struct scmpc_arg_use {
	size_t sz;		/* sizeof(struct scmpc_arg_use) */
	long first_load;	/* the first instruction on the call's path that loads
				   an argument or the instruction pointer; -1 when none
				   does, so every argument value is decided alike */
	unsigned masked;	/* bit I: an instruction reachable from there, either
				   way its jumps go, tests argument I through a mask
				   (jset, and) */
};
/* For DATA's call (its nr and arch: the path up to the first argument
 * load depends on nothing else), what INSNS reads of the arguments.
 * INSNS should pass scmpc_verify_insns(); a program the emulation cannot
 * run on DATA gives its error (-EINVAL).  -EINVAL too for a NULL INSNS,
 * DATA or OUT, an empty program, or an OUT whose sz is smaller than this
 * version's first release of the struct; -ENOMEM. */
SCMPC_API int scmpc_prog_arg_use(const struct sock_filter *insns, size_t len,
				 const struct seccomp_data *data, struct scmpc_arg_use *out,
				 scmpc_diag *d);

/* ----------------------------------------------------------------- export */

enum scmpc_format {
	SCMPC_FORMAT_BPF = 0,	/* raw struct sock_filter array, in the byte order of
				   the options' arch (default: the host's) */
	SCMPC_FORMAT_C = 1,	/* a C array for embedding */
	SCMPC_FORMAT_TEXT = 2,	/* disassembly with syscall names */
};

struct scmpc_format_opts {
	size_t sz;
	const char *c_name;	/* C array name; default "scmpc_filter" */
	enum scmpc_arch arch;	/* names syscalls in text and C, and sets the byte
				   order of SCMPC_FORMAT_BPF; default native */
};

/* The ABIs a program serves: the AUDIT_ARCH values it tests
 * seccomp_data.arch against (x86_64's brings x32 with it, whose numbers
 * reach the same section).  Up to N go to OUT in program order; returns how
 * many there are, or a negative errno. */
SCMPC_API int scmpc_prog_abis(const struct sock_filter *insns, size_t len, enum scmpc_arch *out,
			      size_t n);

/* Render INSNS; *OUT is malloc'ed (NUL-terminated for text formats) and
 * *OUT_LEN excludes the terminator. */
SCMPC_API int scmpc_format(const struct sock_filter *insns, size_t len, enum scmpc_format f,
			   const struct scmpc_format_opts *o, char **out, size_t *out_len,
			   scmpc_diag *d);
/* Instruction PC of INSNS as SCMPC_FORMAT_TEXT lists it, after the line
 * number and the raw fields: "if (A == 59) goto 0012", "A = args[0] >> 32",
 * with a note such as "  # execve" padded to the listing's column.  The note
 * names what the program before PC establishes (the field A holds, the ABI
 * whose section PC is in), so INSNS is the whole program; O->arch names the
 * syscalls where no arch test does, as for scmpc_format(), and O->c_name is
 * not used.  Up to SIZE - 1 bytes go to BUF, NUL-terminated.  Returns the
 * length of the whole line (as snprintf(), so a result >= SIZE means it was
 * cut), or -EINVAL (NULL INSNS, PC >= LEN, NULL BUF with SIZE > 0, an
 * unknown O->arch, a malformed O), -ENOMEM. */
SCMPC_API int scmpc_format_insn(const struct sock_filter *insns, size_t len, size_t pc,
				const struct scmpc_format_opts *o, char *buf, size_t size,
				scmpc_diag *d);

/* ------------------------------------------------------------------ stats */

/* One call whose decision depends on its arguments. */
struct scmpc_argsys_stats {
	uint32_t nr;
	unsigned worst_path;		/* over every argument value */
	unsigned best_path;
};

/* Filled by scmpc_stats(); the caller sets sz, and argsys/argsys_cap to
 * have the argument-checked calls listed. */
struct scmpc_arch_stats {
	size_t sz;			/* sizeof(struct scmpc_arch_stats) */
	enum scmpc_arch arch;
	uint32_t nr_probed;		/* numbers 0..probe_limit-1 */
	unsigned worst_path;		/* over argument-free decisions */
	double mean_path;
	unsigned cacheable;		/* const-allow numbers in the bitmap */
	unsigned allow_unconditional;	/* numbers the program allows whatever the
					   arguments (its decision, not its shape) */
	unsigned nargsys;		/* calls among the probed numbers whose
					   decision depends on their arguments, all
					   of them counted */
	struct scmpc_argsys_stats *argsys;	/* in: the first argsys_cap of them,
						   by number (NULL: counted only) */
	size_t argsys_cap;
};

struct scmpc_stats_opts {
	size_t sz;
	uint32_t probe_limit;		/* numbers to probe per ABI; 0 = 1024 */
	struct scmpc_cache_opts cache;
};

/* Path and cache figures of INSNS for ABI number I of P (0 ..
 * scmpc_policy_arch_count() - 1), from every path of the program (exact:
 * no argument value is sampled; for a program compiled from P its
 * decisions are P's).  -EINVAL for a NULL or malformed argument or an I
 * out of range; -ENOTSUP for a program the engine cannot follow. */
SCMPC_API int scmpc_stats(const scmpc_policy *p, const struct sock_filter *insns, size_t len,
			  size_t i, const struct scmpc_stats_opts *o, struct scmpc_arch_stats *out,
			  scmpc_diag *d);

/* ------------------------------------------------------------- JSON input */

enum scmpc_json_flavor {
	SCMPC_JSON_AUTO = 0,	/* detect: config.json, Docker/Podman, plain OCI */
	SCMPC_JSON_OCI,
	SCMPC_JSON_DOCKER,
};

#define SCMPC_JSON_STRICT	0x1U	/* unknown syscall names are errors */
#define SCMPC_JSON_NO_ENOSYS	0x2U	/* no runc-style ENOSYS for newer calls */
#define SCMPC_JSON_RESTRICTIVE	0x4U	/* SCMPC_MERGE_RESTRICTIVE, not runc's merge */
#define SCMPC_JSON_BAD_ARCH	0x8U	/* bad_arch_action, not the runtime's */

/*
 * Whose filter to reproduce, call for call.  Every mode adds the rules as
 * the runtime adds them to libseccomp (SCMPC_MERGE_LIBSECCOMP, unless
 * SCMPC_JSON_RESTRICTIVE: rules that repeat the default dropped, unknown
 * names skipped, an argument index used twice making single-condition
 * rules, socket and IPC rules copied onto socketcall/ipc), and libseccomp's
 * bad-arch action, KILL_THREAD, which no runtime changes.
 *  RUNC        runc 1.2 and later (and 1.1.14+): its ENOSYS stub for the
 *              profile's ABIs and the host's (the target); SPEC_ALLOW when
 *              the profile has no "flags".
 *  RUNC_1_1    runc 1.1.5, as Debian 12 ships it: the stub for the
 *              profile's "architectures" only (none when it lists none);
 *              "flags" refused.
 *  CRUN        crun 1.8 and later: no stub; SPEC_ALLOW when the profile has
 *              no "flags"; errnoRet on an action without data refused.
 *  LIBSECCOMP  the rules through libseccomp alone: no stub, the flags
 *              given.
 * The stub: unless the default is ALLOW, LOG or TRACE, each ABI it covers
 * gets a limit (scmpc_policy_set_limit) at the highest number any kept
 * entry names there, whatever its action (socket and IPC calls on ABIs
 * that multiplex them do not count: libseccomp names them by pseudo
 * numbers); an ABI where that is 0 gets none.  SCMPC_JSON_NO_ENOSYS leaves
 * it out.
 */
enum scmpc_runtime {
	SCMPC_RUNTIME_RUNC = 0,
	SCMPC_RUNTIME_RUNC_1_1,
	SCMPC_RUNTIME_CRUN,
	SCMPC_RUNTIME_LIBSECCOMP,
};
/* "runc", "runc-1.1", "crun", "libseccomp"; NULL for an invalid value. */
SCMPC_API const char *scmpc_runtime_name(enum scmpc_runtime r);
/* The runtime a name means, or -1. */
SCMPC_API int scmpc_runtime_from_name(const char *name);

struct scmpc_json_opts {
	size_t sz;
	enum scmpc_json_flavor flavor;
	unsigned flags;			/* SCMPC_JSON_* */
	enum scmpc_arch arch;		/* target ABI; default native */
	const char *const *caps;	/* NULL-terminated CAP_* list; NULL = Docker's default */
	unsigned kernel_major;		/* Docker minKernel; 0 = running kernel */
	unsigned kernel_minor;
	enum scmpc_runtime runtime;	/* default SCMPC_RUNTIME_RUNC */
	uint32_t bad_arch_action;	/* with SCMPC_JSON_BAD_ARCH */
};

/*
 * Parse a seccomp profile into a policy, reading it as runc and Docker do
 * (Go's encoding/json and their conversion rules).  Returns 0 or a negative
 * errno, with the message and its place (a path such as "syscalls[2].action"
 * or "line L, column C") in D.  Warnings go to D, each naming a path; the
 * text checks' come first, then the reading's, in reading order:
 *   - keys: a duplicated key (the last value counts; past 20, only counted);
 *     a key read as the field it names but for case (Go matches
 *     "DefaultAction" as "defaultAction", and U+017F and U+212A as 's' and
 *     'k'), or keys spelled differently that name one field (the last
 *     counts); an unknown key, or a Docker-only key in an OCI profile
 *     (ignored).  A field whose value is an object or an array of objects,
 *     given twice, is an error: Go merges the values, scmpc refuses them.
 *   - names: a syscall no ABI knows, or an architecture scmpc does not
 *     support (skipped; unknown syscalls are errors with SCMPC_JSON_STRICT),
 *     an entry without names (ignored);
 *   - values runc ignores or changes: errnoRet/errno for an action without
 *     data, valueTwo bits outside a SCMP_CMP_MASKED_EQ mask, and
 *     SCMP_ACT_NOTIFY on write (runc refuses it).
 */
SCMPC_API int scmpc_policy_from_json(const char *json, size_t len, const struct scmpc_json_opts *o,
				     scmpc_policy **out, scmpc_diag *d);

/* Docker's default capability set (moby's oci/caps/defaults.go),
 * NULL-terminated: what a profile's includes.caps and excludes.caps are
 * matched against when scmpc_json_opts.caps is NULL.  A caller adding to
 * it ("the default set and CAP_SYS_ADMIN") starts from this list. */
SCMPC_API const char *const *scmpc_json_default_caps(void);

/* What bytes read from a file are, told apart without parsing them, for a
 * caller that takes both profiles and compiled filters. */
enum scmpc_input_kind {
	SCMPC_INPUT_OTHER = 0,	/* none of these: scmpc_policy_from_json() says what
				   is wrong with it */
	SCMPC_INPUT_JSON,	/* UTF-8 text whose first character other than white
				   space opens an object; a byte order mark may come
				   first (scmpc_policy_from_json() refuses one: strip
				   it) */
	SCMPC_INPUT_WIDE_TEXT,	/* UTF-16 or UTF-32 text: a profile saved in the wrong
				   encoding, which scmpc_policy_from_json() names */
	SCMPC_INPUT_FILTER,	/* a compiled filter: a struct sock_filter array in
				   either byte order (scmpc_prog_from_bytes()) */
};
/* The kind of the LEN bytes at BUF; SCMPC_INPUT_OTHER for a NULL BUF. */
SCMPC_API enum scmpc_input_kind scmpc_input_kind(const void *buf, size_t len);

/* ------------------------------------------------------------------ load */

/*
 * Installing a program with seccomp(2) SECCOMP_SET_MODE_FILTER into the
 * calling thread (with SECCOMP_FILTER_FLAG_TSYNC: every thread of the
 * process).  A loaded filter can never be removed, so before anything is
 * installed the program must pass scmpc_verify_insns(), the running kernel
 * must know every requested flag and every action the program returns (a
 * kernel that lacks one is refused with -EOPNOTSUPP, never given a weaker
 * filter), and the filter must fit the chain budget.  prctl(PR_SET_SECCOMP)
 * is used only when seccomp(2) itself answers ENOSYS and no flag is needed.
 */

/* MAX_INSNS_PER_PATH: eBPF instructions a chain may hold, each filter
 * already loaded counting its converted length + 4. */
#define SCMPC_CHAIN_BUDGET 32768U

struct scmpc_budget {
	unsigned filters;	/* filters in the chain */
	unsigned used;		/* sum of (eBPF length + 4) over them */
	unsigned left;		/* the largest eBPF length a new filter may have */
	bool exact;		/* false: the filters could not be read, so used is a
				   lower bound (9 per filter) and left an upper bound */
};

/* Budget of thread TID's chain (0: the calling thread).  Exact for another
 * process when scmpc_introspect() can read it (which stops it briefly), and
 * for an unfiltered thread;
 * a filtered caller cannot read its own filters (the kernel refuses
 * introspection to tasks under seccomp), so for it only the count from
 * /proc/<tid>/status is known and D gets a warning saying so. */
SCMPC_API int scmpc_chain_budget(pid_t tid, struct scmpc_budget *out, scmpc_diag *d);

#define SCMPC_LOAD_KEEP_NNP	0x1U	/* do not set no_new_privs (needs CAP_SYS_ADMIN) */
#define SCMPC_LOAD_NO_PRCTL	0x2U	/* never fall back to prctl(PR_SET_SECCOMP) */
#define SCMPC_LOAD_DRY_RUN	0x4U	/* run every check, install nothing */

struct scmpc_load_opts {
	size_t sz;			/* sizeof(struct scmpc_load_opts) */
	unsigned flags;			/* SCMPC_LOAD_* */
	unsigned seccomp_flags;		/* SECCOMP_FILTER_FLAG_* */
	/* The filters already in this thread's chain, oldest first, when the
	 * caller knows them (it loaded them itself, or a supervisor read them
	 * with scmpc_introspect()): the budget is then checked exactly.  Used
	 * only when their number matches /proc's Seccomp_filters. */
	const scmpc_prog *const *chain;
	size_t nchain;
};

struct scmpc_load_result {
	size_t sz;			/* sizeof(struct scmpc_load_result) */
	int listener_fd;		/* NEW_LISTENER: the notification fd, else -1 */
	pid_t tsync_tid;		/* TSYNC failed: the thread that blocked it, else 0 */
	bool via_prctl;			/* loaded with prctl(PR_SET_SECCOMP) */
	unsigned ebpf_len;		/* the program's cost against the budget */
	struct scmpc_budget budget;	/* the chain before loading */
};

/* Load INSNS.  Returns the listener fd (O_CLOEXEC) with
 * SECCOMP_FILTER_FLAG_NEW_LISTENER, else 0; or a negative errno, in which
 * case no filter was installed (no_new_privs may already be set):
 *   -EINVAL	the kernel would reject the program or the flag combination
 *   -EOPNOTSUPP	the running kernel lacks a requested flag or a returned action
 *   -ENOMEM	the chain budget would be exceeded
 *   -EACCES	neither no_new_privs nor CAP_SYS_ADMIN holds
 *   -EBUSY	NEW_LISTENER, but the chain already has a listener
 *   -ESRCH	TSYNC failed; the blocking thread is in RES->tsync_tid and the
 *		message (the kernel's positive TID is never returned, so that
 *		`< 0` always means failure)
 *   -ENOSYS	neither seccomp(2) nor, for flag-less loads, prctl works
 * RES may be NULL. */
SCMPC_API int scmpc_load(const struct sock_filter *insns, size_t len,
			 const struct scmpc_load_opts *o, struct scmpc_load_result *res,
			 scmpc_diag *d);
/* Load PROG with P's stored flags (scmpc_policy_flags) added to
 * O->seccomp_flags; P may be NULL. */
SCMPC_API int scmpc_load_prog(const scmpc_prog *prog, const scmpc_policy *p,
			      const struct scmpc_load_opts *o, struct scmpc_load_result *res,
			      scmpc_diag *d);

/* The SECCOMP_FILTER_FLAG_* bit NAME spells, with or without that prefix,
 * in any case, '-' for '_'; 0 when it names none.  *OCI (if not NULL) says
 * whether an OCI profile's "flags" may carry it (TSYNC, LOG, SPEC_ALLOW,
 * WAIT_KILLABLE_RECV: the ones runc passes on). */
SCMPC_API unsigned scmpc_filter_flag(const char *name, bool *oci);
/* The name of flag BIT without the prefix ("TSYNC"), or NULL. */
SCMPC_API const char *scmpc_filter_flag_name(unsigned bit);
/* SCMPC_KERNEL_VERSION(major, minor, 0) of the running kernel, 0 when
 * uname() does not say. */
SCMPC_API unsigned scmpc_kernel_running(void);

/* What the running kernel supports: 1 yes, 0 no, negative errno when it
 * cannot be asked.  FLAGS is a SECCOMP_FILTER_FLAG_* combination (invalid
 * combinations answer 0); ACT an action with or without data. */
SCMPC_API int scmpc_probe_flags(unsigned flags, scmpc_diag *d);
SCMPC_API int scmpc_probe_action(uint32_t act, scmpc_diag *d);

/* ------------------------------------------------------ user notification */

/* A receiver on a NEW_LISTENER fd, with buffers of the sizes the running
 * kernel reports (SECCOMP_GET_NOTIF_SIZES).  It does not own the fd.  One
 * handle per supervisor thread. */
typedef struct scmpc_notify scmpc_notify;

/* -EBADF for a negative or closed fd, -EINVAL for one that is not a
 * seccomp listener (/proc/self/fd names it "anon_inode:seccomp notify";
 * without /proc, the first receive tells).  scmpc_notify_handoff() checks
 * its fd the same way. */
SCMPC_API int scmpc_notify_new(int listener_fd, scmpc_notify **out, scmpc_diag *d);
SCMPC_API void scmpc_notify_free(scmpc_notify *n);
/* Wait for the next request; *REQ points into N until the next receive.
 * -EINTR: a signal interrupted the wait.  -ENOENT: the request was
 * withdrawn (its caller died or was interrupted) before it was read. */
SCMPC_API int scmpc_notify_receive(scmpc_notify *n, const struct seccomp_notif **req,
				   scmpc_diag *d);
/* 1 while request ID is pending (its caller still waits), 0 when it is gone.
 * Check it after reading the caller's memory and before acting on it. */
SCMPC_API int scmpc_notify_id_valid(const scmpc_notify *n, uint64_t id, scmpc_diag *d);

#define SCMPC_NOTIFY_CONTINUE 0x1U	/* let the call run (SECCOMP_USER_NOTIF_FLAG_CONTINUE) */

/* Answer request ID: the call fails with errno ERR (1..4095) or, with ERR
 * 0, returns VAL.  With SCMPC_NOTIFY_CONTINUE (VAL and ERR 0) the kernel
 * runs the call as made, so CONTINUE must not be used to approve arguments
 * read from the caller's memory, which may change in between.  -ENOENT: the
 * request is gone. */
SCMPC_API int scmpc_notify_respond(const scmpc_notify *n, uint64_t id, int64_t val, int err,
				   unsigned flags, scmpc_diag *d);

#define SCMPC_ADDFD_SEND 0x1U	/* answer the request with the new fd (Linux 5.14) */
#define SCMPC_ADDFD_CLOEXEC 0x2U	/* the new fd is close-on-exec */

/* Put a copy of this process's SRCFD into the notified process of request
 * ID (SECCOMP_IOCTL_NOTIF_ADDFD, Linux 5.9), at NEWFD when it is >= 0 (an fd
 * there is closed first) or at its lowest free number.  With
 * SCMPC_ADDFD_SEND the request is answered too, with the new fd as the
 * call's result, atomically (accept(2)- or open(2)-like calls); otherwise
 * answer it with scmpc_notify_respond().  Returns the fd number in the
 * notified process or a negative errno (-ENOENT: the request is gone). */
SCMPC_API int scmpc_notify_addfd(const scmpc_notify *n, uint64_t id, int srcfd, int newfd,
				 unsigned flags, scmpc_diag *d);

/* The container process state a runtime sends its seccomp agent with the
 * listener fd (OCI runtime-spec config-linux.md, listenerPath). */
struct scmpc_process_state {
	size_t sz;			/* sizeof(struct scmpc_process_state) */
	const char *oci_version;	/* default "1.0.2" */
	pid_t pid;			/* the process whose filter it is */
	const char *metadata;		/* listenerMetadata, or NULL */
	const char *id;			/* the container's id */
	const char *status;		/* default "creating" */
	pid_t init_pid;			/* the container's first process; 0 = pid */
	const char *bundle;		/* the bundle's path, or NULL */
	const char *const *annotations;	/* key, value, ..., NULL; or NULL */
};

/* Hand LISTENER_FD to the agent at SOCKET_PATH as runc and crun do: connect
 * an AF_UNIX stream socket, send one message whose data is the process
 * state as JSON ({"ociVersion", "fds": ["seccompFd"], "pid", "metadata",
 * "state": {"ociVersion", "id", "status", "pid", "bundle", "annotations"}},
 * in runc's order, compact) and whose SCM_RIGHTS control message carries
 * the fd, then close the socket.  Nothing is read back. */
SCMPC_API int scmpc_notify_handoff(int listener_fd, const char *socket_path,
				   const struct scmpc_process_state *st, scmpc_diag *d);

/* ---------------------------------------------------------- introspection */

#define SCMPC_INTROSPECT_STOPPED 0x1U	/* the caller already holds TID in a ptrace-stop */

struct scmpc_introspect_opts {
	size_t sz;		/* sizeof(struct scmpc_introspect_opts) */
	unsigned flags;		/* SCMPC_INTROSPECT_* */
};

/* Read back thread TID's filters, oldest first, as loaded (cBPF), with
 * PTRACE_SECCOMP_GET_FILTER.  Needs CAP_SYS_ADMIN, a caller not under
 * seccomp itself, and a kernel with CONFIG_CHECKPOINT_RESTORE.  Unless
 * SCMPC_INTROSPECT_STOPPED, TID is attached with PTRACE_SEIZE, stopped with
 * PTRACE_INTERRUPT and detached again (a signal that arrives meanwhile is
 * passed on); the wait is on TID alone, so if TID exits meanwhile and is the
 * caller's child, its exit status is consumed.  *OUT gets a malloc'ed array
 * (NULL when there are no filters); returns the count. */
SCMPC_API int scmpc_introspect(pid_t tid, const struct scmpc_introspect_opts *o,
			       scmpc_prog ***out, scmpc_diag *d);
SCMPC_API void scmpc_prog_array_free(scmpc_prog **progs, size_t n);

/* ------------------------------------------------------- lift and merge */

/*
 * Lifting: any seccomp program (libseccomp's, runc's with its stub, a
 * hand-written one, scmpc's) back into a policy that decides every call
 * exactly as the program does, so it can be checked, diffed or recompiled
 * (scmpc_compile() then proves its program against the lifted policy).
 *
 * Every path through the program is followed: loads of seccomp_data words,
 * constants, scratch memory, TAX/TXA, ALU on A with K or a constant X, every
 * jump, RET K and RET A.  The result is a policy with the restrictive merge
 * and:
 *  - as ABIs, those whose calls do not all get the bad-arch action, in the
 *    order the program tests them (x86_64's AUDIT_ARCH gives x32 for the
 *    numbers with bit 30 set); the bad-arch action is what the program
 *    returns for an AUDIT_ARCH no ABI has;
 *  - the default action, the unknown-syscall action and per-ABI limits
 *    (scmpc_policy_set_limit()) chosen so that the fewest numbers need
 *    rules;
 *  - for each number that needs them, one rule per path of the program
 *    that ends in an action other than the default, whose conditions are
 *    the path's sets of argument values (32-bit conditions on the low word,
 *    64-bit ones bounding the high word).  Paths are disjoint; a rule is
 *    widened only over paths with a more restrictive action and rules of
 *    their own, so "the most restrictive match" is always the program's own
 *    answer.  Rules are by number and taken literally: none
 *    is copied onto socketcall(2) or ipc(2), whose own decisions are lifted
 *    as the program makes them.  Each rule's origin names the RET it comes
 *    from ("insn 37", or "filter 2 insn 37" for a merge).
 * Before the policy is returned, a witness call of every path is run
 * through the program and the policy; they must agree.
 *
 * Nothing is approximated.  Refused, with -ENOTSUP and the instruction in D:
 * a decision that depends on instruction_pointer, or on 32-bit ABIs on an
 * argument's high word (a policy compares the low word only there); a jump
 * that compares two values of the call, or a value computed from two words
 * or by arithmetic (add with jset, mul, neg, ...) on a word that can take
 * more than 64 values here; RET A of such a value; a return value that is
 * no valid action (scmpc_action_valid(), ERRNO above 4095 included); a
 * program that decides calls of unknown ABIs by more than their AUDIT_ARCH
 * (one that never tests seccomp_data.arch: name the ABIs and the bad-arch
 * action with SCMPC_LIFT_BAD_ARCH); ABIs of both byte orders; a decision
 * over numbers that needs rules for more than 65536 numbers.  Refused with
 * -E2BIG: more paths than max_paths, or more than 2e8 instructions walked.
 * A program the kernel would not load is refused with -EINVAL
 * (scmpc_verify_insns()).
 */
#define SCMPC_LIFT_BAD_ARCH 0x1U	/* bad-arch action from the options, not the program */

struct scmpc_lift_opts {
	size_t sz;			/* sizeof(struct scmpc_lift_opts) */
	unsigned flags;			/* SCMPC_LIFT_* */
	/* ABIs to keep (NULL: every ABI scmpc knows).  An ABI left out gets the
	 * bad-arch action in the policy, whatever the program does for it. */
	const enum scmpc_arch *arches;
	size_t narches;
	uint32_t bad_arch_action;	/* with SCMPC_LIFT_BAD_ARCH */
	size_t max_paths;		/* paths through the program(s); 0 = 65536 */
};

SCMPC_API int scmpc_lift(const struct sock_filter *insns, size_t len,
			 const struct scmpc_lift_opts *o, scmpc_policy **out, scmpc_diag *d);

/*
 * The policy the stack PROGS[0..N) decides as one: PROGS[0] is the oldest
 * filter (installed first), PROGS[N-1] the newest.  As seccomp_run_filters()
 * runs them: every filter runs, newest first, and a filter's return replaces
 * the result so far only when its action is strictly lower
 * ((int32_t)(ret & 0xffff0000)), so between equal actions the newer filter's
 * data wins; with no filter below ALLOW the result is ALLOW.  Lifted as
 * scmpc_lift() describes, the paths running through every filter; errors
 * name the filter ("filter 2 (of 5, oldest 0), insn 14: ...").  Compiled,
 * the policy is one program that replaces the stack.
 */
SCMPC_API int scmpc_merge_stack(const struct sock_filter *const *progs, const size_t *lens,
				size_t n, const struct scmpc_lift_opts *o, scmpc_policy **out,
				scmpc_diag *d);

/* ------------------------------------------------------- exact answers */

/*
 * Answers about programs that are proofs over every input: every ABI (the
 * whole 32-bit AUDIT_ARCH space), every syscall number and every argument
 * value.  The programs are run symbolically side by side (src/engine/);
 * the calls they decide differently are reported as regions, each with a
 * witness call that scmpc_emulate() confirms on both programs before it is
 * reported.  A program the engine cannot follow exactly (arithmetic on two
 * words of seccomp_data, say) is refused naming the instruction, as is an
 * input past a bound (-E2BIG, naming the bound): never a sampled answer.
 * Policies are compared through their compiled programs, which
 * scmpc_compile() proves against the policy.
 */
typedef struct scmpc_answer scmpc_answer;

struct scmpc_compare_opts {
	size_t sz;		/* sizeof(struct scmpc_compare_opts) */
	unsigned flags;		/* SCMPC_COMPARE_* */
	size_t max_paths;	/* bound on the joint paths walked; 0: 1,000,000 */
};
/* scmpc_subset(): the same action with other data (ERRNO(1) against
 * ERRNO(13)) counts as alike; without it such calls are reported. */
#define SCMPC_COMPARE_IGNORE_DATA 0x1U

/* A set of calls the compared programs decide differently, growable (set
 * sz).  The region is the calls whose AUDIT_ARCH is AUDIT (or, with
 * OTHER_ARCHES, any value no ABI of scmpc's has and the programs do not
 * tell apart), whose number is in [NR_LO, NR_HI], and whose arguments meet
 * ARGS: text such as "a0 == 0x10 && a2.lo in 9..9", "" for any. */
struct scmpc_region {
	size_t sz;		/* sizeof(struct scmpc_region) */
	uint32_t audit;
	enum scmpc_arch arch;	/* the ABI of AUDIT and NR_LO; SCMPC_ARCH_NONE if none */
	bool other_arches;
	uint32_t nr_lo, nr_hi;
	char args[480];
	struct seccomp_data witness;	/* one call of the region */
	uint32_t action[2];	/* the first and the second program's decision of it */
};

/* A and B decide every call alike: *OUT gets the answer, whose count is 0
 * when they do (a proof), else the regions where they do not.  0, or a
 * negative errno with D saying why (-ENOTSUP for a program the engine
 * cannot follow, naming it and the instruction; -E2BIG past a bound). */
SCMPC_API int scmpc_diff(const struct sock_filter *a, size_t alen, const struct sock_filter *b,
			 size_t blen, const struct scmpc_compare_opts *o, scmpc_answer **out,
			 scmpc_diag *d);
/* CANDIDATE decides every call at least as restrictively as BASE by the
 * kernel's precedence (KILL_PROCESS, KILL_THREAD, TRAP, ERRNO, USER_NOTIF,
 * TRACE, LOG, ALLOW): count 0 when it does (a proof), else the regions
 * where it does not (action[0] is BASE's, action[1] CANDIDATE's). */
SCMPC_API int scmpc_subset(const struct sock_filter *base, size_t blen,
			   const struct sock_filter *candidate, size_t clen,
			   const struct scmpc_compare_opts *o, scmpc_answer **out, scmpc_diag *d);
/* The regions of an answer: how many, and region I (-EINVAL past the end
 * or for a malformed OUT). */
SCMPC_API size_t scmpc_answer_count(const scmpc_answer *ans);
SCMPC_API int scmpc_answer_region(const scmpc_answer *ans, size_t i, struct scmpc_region *out);
/* The joint paths the engine walked to give it. */
SCMPC_API size_t scmpc_answer_paths(const scmpc_answer *ans);
SCMPC_API void scmpc_answer_free(scmpc_answer *ans);

/* One program that decides every call as the most restrictive of PROGS[0..N)
 * (oldest first, as a stack of them: the kernel's precedence, ties to the
 * newest's data), proven so over every input before it is returned.
 * *POLICY (if not NULL) gets the policy it was compiled from (the stack
 * lifted, scmpc_merge_stack()). */
SCMPC_API int scmpc_intersect(const struct sock_filter *const *progs, const size_t *lens,
			      size_t n, const struct scmpc_compare_opts *o, scmpc_prog **out,
			      scmpc_policy **policy, scmpc_diag *d);

/* A set of calls: of ABI ARCH, the numbers NR_LO..NR_HI but those in
 * EXCEPT[0..NEXCEPT) (sorted), with argument I equal to ARGS[I] unless bit
 * I of ANY_ARGS says it takes every value.  On a 32-bit ABI an argument is
 * its low word, the high one taking every value.  Growable: set sz. */
struct scmpc_calls {
	size_t sz;		/* sizeof(struct scmpc_calls) */
	enum scmpc_arch arch;
	uint32_t nr_lo, nr_hi;
	const uint32_t *except;
	size_t nexcept;
	unsigned any_args;	/* bit I: argument I takes every value */
	uint64_t args[6];
};

/* Whether INSNS decides every call of C as ACTION: 1 when it does (a proof
 * over every call of the set), 0 with *WITNESS a call of the set it decides
 * otherwise (confirmed by scmpc_emulate()) and *GOT its decision, or a
 * negative errno (-EINVAL for a malformed C; -ENOTSUP for a program the
 * engine cannot follow, naming the instruction). */
SCMPC_API int scmpc_expect(const struct sock_filter *insns, size_t len, const struct scmpc_calls *c,
			   uint32_t action, struct seccomp_data *witness, uint32_t *got,
			   scmpc_diag *d);

/* A canary of CANDIDATE for a process under ENFORCED: one program that
 * decides every call as ENFORCED does, except that where ENFORCED returns
 * ALLOW and CANDIDATE would not let the call run (neither ALLOW nor LOG),
 * it returns LOG.  Installed in place of ENFORCED, the kernel's log then
 * names each call CANDIDATE would break, and nothing else changes.
 * Proven over every input before it is returned; *POLICY (if not NULL)
 * gets the policy compiled.  O: max_paths only (flags must be 0). */
SCMPC_API int scmpc_canary(const struct sock_filter *enforced, size_t elen,
			   const struct sock_filter *candidate, size_t clen,
			   const struct scmpc_compare_opts *o, scmpc_prog **out,
			   scmpc_policy **policy, scmpc_diag *d);

/* ---------------------------------------------------------------- optimize */

/* What scmpc_optimize() did, growable (set sz). */
struct scmpc_optimize_info {
	size_t sz;		/* sizeof(struct scmpc_optimize_info) */
	bool kept_input;	/* no program was both smaller or as small and no
				   longer on its worst path: the input is the output */
	size_t old_len, new_len;
	unsigned old_worst, new_worst;	/* longest path over every input of the
					   kept ABIs (all of them without arches) */
	size_t proof_paths;	/* joint paths of the proof */
};

/* INSNS lifted (O as for scmpc_lift(): O->arches keeps those ABIs, the
 * others get the bad-arch action) and compiled again, the candidate
 * programs (scmpc's default, smallest and shortest layouts) kept only
 * when no larger and no longer on the worst path than INSNS, else INSNS
 * itself (INFO->kept_input); with O->arches or SCMPC_LIFT_BAD_ARCH, which
 * change what other ABIs get, the smallest candidate (then the shortest).  The result is proven to decide every call
 * of the kept ABIs (of every ABI without O->arches) as INSNS does, over
 * every number and argument value.  *POLICY (if not NULL) gets the lifted
 * policy.  Errors as scmpc_lift()'s; -E2BIG past a bound, naming it. */
SCMPC_API int scmpc_optimize(const struct sock_filter *insns, size_t len,
			     const struct scmpc_lift_opts *o, scmpc_prog **out,
			     scmpc_policy **policy, struct scmpc_optimize_info *info,
			     scmpc_diag *d);

/* ---------------------------------------------------------------- record */

/* System calls a command made: one entry per (AUDIT_ARCH, number, six
 * arguments), with how often it came.  Past a million distinct vectors
 * only numbers are kept (scmpc_recording_truncated()). */
typedef struct scmpc_recording scmpc_recording;

SCMPC_API scmpc_recording *scmpc_recording_new(void);
SCMPC_API void scmpc_recording_free(scmpc_recording *r);
/* Add COUNT calls (ARGS NULL: all zero); 0 or -ENOMEM. */
SCMPC_API int scmpc_recording_add(scmpc_recording *r, uint32_t audit, uint32_t nr,
				  const uint64_t args[6], uint64_t count);
/* Distinct entries, calls in all, and entry I (0 .. count - 1; walking them
 * in order is linear in all). */
SCMPC_API size_t scmpc_recording_count(const scmpc_recording *r);
SCMPC_API uint64_t scmpc_recording_calls(const scmpc_recording *r);
SCMPC_API bool scmpc_recording_truncated(const scmpc_recording *r);
SCMPC_API int scmpc_recording_get(const scmpc_recording *r, size_t i, struct seccomp_data *sd,
				  uint64_t *count);

struct scmpc_record_opts {
	size_t sz;		/* sizeof(struct scmpc_record_opts) */
	unsigned flags;		/* SCMPC_RECORD_* */
};
/* Keep only the calls each process makes after it installs a seccomp
 * filter of its own and before it execs: a container runtime's tail
 * (runc's init between its filter and the container's command). */
#define SCMPC_RECORD_TAIL 0x1U

struct scmpc_record_info {
	size_t sz;		/* sizeof(struct scmpc_record_info) */
	const char *method;	/* how the calls were seen */
	int status;		/* the command's wait status */
	uint64_t calls;		/* every call seen, kept or not */
	double seconds;		/* wall time, the command's with the recorder's */
};

/* Run ARGV[0] (searched in PATH) with ARGV and record into REC every system
 * call it, its threads and children make: each one stops at a filter that
 * returns USER_NOTIF, this process records it and lets it run
 * (SECCOMP_USER_NOTIF_FLAG_CONTINUE).  Needs Linux 5.9 (pidfd_getfd) and
 * sets no_new_privs in the command, so set-user-ID programs lose their
 * privileges.  0 (the command ran; INFO->status says how it ended) or a
 * negative errno with D saying why. */
SCMPC_API int scmpc_record(char *const argv[], const struct scmpc_record_opts *o,
			   scmpc_recording *rec, struct scmpc_record_info *info, scmpc_diag *d);

/* How scmpc_recording_profile() writes a profile. */
struct scmpc_profile_opts {
	size_t sz;		/* sizeof(struct scmpc_profile_opts) */
	uint32_t default_action;	/* 0: ERRNO(EPERM) */
	unsigned flags;		/* SCMPC_PROFILE_* */
	unsigned max_values;	/* with ARGS: at most this many distinct values (or
				   tuples) of a call's conditioned arguments; more
				   and the call is allowed whatever they are;
				   0: 8 */
};
/* Condition arguments that are flags or enumerations with few values seen
 * (ioctl requests, socket domain, type and protocol, clone flags, prctl
 * options, fcntl commands, ...: src/front/profile_out.c lists them, each
 * with its reason).  Pointers and sizes are never conditioned. */
#define SCMPC_PROFILE_ARGS 0x1U

/* The smallest OCI profile (JSON text, *OUT malloc'ed, *LEN bytes) that
 * allows exactly the calls of REC on its ABIs: every other call gets the
 * default action.  Names are OCI's (one list for every ABI), so a name
 * recorded on one of the ABIs is allowed on all of them that have it.
 * *NCONDS (if not NULL) gets how many argument conditions it holds. */
SCMPC_API int scmpc_recording_profile(const scmpc_recording *rec,
				      const struct scmpc_profile_opts *o, char **out,
				      size_t *len, size_t *nconds, scmpc_diag *d);

/* ------------------------------------------------------- explain and lint */

/*
 * Why a policy decides a call as it does, from its rules' reference
 * meaning (scmpc_policy_eval()), never from a compiled program.  Under the
 * LIBSECCOMP merge a call whose conditional rules of different actions can
 * match the same arguments is decided by libseccomp's tree of comparisons
 * (scmpc_policy_set_merge()): the first comparison in its order that leads
 * to an action wins, so the action may be another than the most
 * restrictive rule that holds gives, or come from the comparisons of a
 * rule whose conditions do not all hold, or be the default while a rule
 * holds.  Those are SCMPC_REASON_ORDER.
 */
enum scmpc_reason {
	SCMPC_REASON_RULE = 1,	/* RULE holds and gives the action */
	SCMPC_REASON_DEFAULT,	/* no rule of the call holds (or none names it) */
	SCMPC_REASON_UNKNOWN,	/* a number above the unknown-syscall threshold */
	SCMPC_REASON_LIMIT,	/* runc's ENOSYS stub (scmpc_policy_set_limit()) */
	SCMPC_REASON_BAD_ARCH,	/* an AUDIT_ARCH none of the policy's ABIs has */
	SCMPC_REASON_ORDER,	/* libseccomp's order of comparisons, not severity */
};

/* What decides one call; growable (set sz).  Rules are indexes for
 * scmpc_policy_rule(), -1 for none. */
struct scmpc_explanation {
	size_t sz;			/* sizeof(struct scmpc_explanation) */
	uint32_t action;		/* the policy's decision, scmpc_policy_eval()'s */
	enum scmpc_reason reason;
	enum scmpc_arch arch;		/* the ABI whose rules decide; SCMPC_ARCH_NONE
					   for an AUDIT_ARCH none has */
	/* A rule whose conditions all hold and that gives ACTION: the deciding
	 * rule for RULE, and for ORDER the one that stands for the action
	 * (-1 when no rule that holds gives it). */
	int rule;
	/* ORDER only: the rule whose comparisons led to ACTION although
	 * not all its conditions hold, and those that fail (bit I: condition
	 * I of the rule); -1 and 0 when the rule holds or no rule led there. */
	int order_rule;
	uint64_t order_failed;
	/* ORDER only: the rule that holds whose action severity would give
	 * (the most restrictive, then the first), overridden by the order. */
	int overridden;
	uint32_t severity_action;	/* what the rules that hold give by severity
					   (the restrictive merge), or the fallback */
	size_t matching;		/* the call's rules whose conditions hold */
};

/* Explain P's decision of call SD into OUT.  0, or -EINVAL (a NULL
 * argument, an OUT whose sz stops before `matching`), -ENOMEM, with D
 * saying why.  OUT->action is always scmpc_policy_eval()'s answer. */
SCMPC_API int scmpc_policy_explain(const scmpc_policy *p, const struct seccomp_data *sd,
				   struct scmpc_explanation *out, scmpc_diag *d);

/* Whether the conditions of rule RULE of P hold for SD's arguments, as
 * the ABI of SD's AUDIT_ARCH and number compares them (the low word on
 * 32-bit ABIs, and there, under the LIBSECCOMP merge, the low word of the
 * constants as libseccomp keeps them; the whole argument for an
 * AUDIT_ARCH no ABI has).  Whether the rule names SD's call is not asked.
 * *MASK (if not NULL) gets bit I set when condition I holds.  1 when all
 * hold, 0 when not, -EINVAL for a NULL P or SD or RULE out of range. */
SCMPC_API int scmpc_policy_rule_holds(const scmpc_policy *p, size_t rule,
				      const struct seccomp_data *sd, uint64_t *mask);

/* A copy of P with every setting and the rules KEEP[I] selects (KEEP has
 * scmpc_policy_rule_count() entries; NULL keeps them all), in their order
 * with their origins, into *OUT, which the caller frees with
 * scmpc_policy_free().  So that what a rule decides can be measured by
 * comparing the policy with and without it, or by a copy holding only the
 * rules of one call, and the same rules read under another merge
 * (scmpc_policy_set_merge() on the copy).  -EINVAL for a NULL P or OUT,
 * -ENOMEM. */
SCMPC_API int scmpc_policy_copy(const scmpc_policy *p, const bool *keep, scmpc_policy **out,
				scmpc_diag *d);

/* ----------------------------------------------------------------- split */

/*
 * A policy too large for one program (the kernel's 4096 instructions) as a
 * stack of programs that decides every call exactly as the policy does.
 * The policy's rules are put into groups that no call can tell apart: the
 * rules that name one syscall number on some ABI (by name or by number),
 * with the socket and IPC calls that reach one multiplexer, the rules on
 * nr == -1, and all USER_NOTIF rules.  Program I decides the calls of its
 * groups as the policy does and ALLOWs every call another program's group
 * names; every other call (a number no rule names, a bad ABI, runc's limit)
 * it decides as the policy does, as every program does.  The kernel runs
 * every filter and keeps the most restrictive answer; ALLOW is the least,
 * so the one program whose group names a call decides it, an ALLOW of the
 * policy's included, and elsewhere the programs agree to the bit.
 *
 * Programs are filled in order, each with as many of the remaining groups
 * as fit in max_insns (a program never takes fewer groups than fit, so no
 * two neighbours would fit as one).  Each is compiled and proven against
 * its own policy by scmpc_compile()'s semantic check; then the whole stack
 * is run (as seccomp_run_filters() does) against the policy's decision on
 * every ABI at the numbers its rules name, around the boundaries of the
 * number space and with the verifier's argument probes for each call with
 * rules, and on one ABI the policy lacks.  A policy that fits gives one
 * program.
 *
 * *OUT gets a malloc'ed array (free with scmpc_prog_array_free()), oldest
 * first (install it in that order; any order decides alike); returns how
 * many.  -E2BIG when one group alone does not fit (D names one of its
 * rules) or more than max_progs would be needed; -ENOTSUP when USER_NOTIF
 * is the default, unknown, bad-arch or a limit's action and the policy
 * needs more than one program (every program would return it, and a chain
 * has only one listener).  A warning says when the programs together
 * exceed the chain budget (SCMPC_CHAIN_BUDGET).
 *
 * Installing: every program but the last allows seccomp(2), even where
 * runc's stub or an unknown-syscall threshold below its number decides
 * (those programs name the numbers in between with the policy's answer),
 * so that each install passes the programs before it; the last gives the
 * policy's answer.  Where no order of the programs lets every install
 * through on some ABI of the policy (judged by running each program on
 * the seccomp(2) call with the policy's flags), a warning in D says so,
 * naming the program and the rule or action that denies it.
 */
struct scmpc_split_opts {
	size_t sz;			/* sizeof(struct scmpc_split_opts) */
	unsigned flags;			/* SCMPC_COMPILE_* for every program */
	unsigned max_insns;		/* per program; 0 = 4096 */
	size_t max_progs;		/* 0 = no limit but the groups' number */
	/* Every program laid out for this workload, as
	 * scmpc_compile_opts.hot; NULL: none. */
	const struct scmpc_workload *hot;
};

SCMPC_API int scmpc_compile_split(const scmpc_policy *p, const struct scmpc_split_opts *o,
				  scmpc_prog ***out, scmpc_diag *d);

/* Install PROGS[0..N) in that order (scmpc_load_prog() for each, with P's
 * flags, P may be NULL), as one: the whole set is checked first (the
 * kernel's rules, the flags and actions, and the chain budget for all of
 * them together), so that a refusal installs nothing.  With
 * SECCOMP_FILTER_FLAG_NEW_LISTENER in the flags, only the one program that
 * returns USER_NOTIF gets the listener (-EINVAL when several do); its fd is
 * returned.  The order: every installed filter runs on the seccomp(2)
 * call that installs the next, so before anything is installed each
 * program is run (scmpc_emulate()) on the exact call, flags and sock_fprog
 * address included, that installs each other one; the set goes in the
 * given order where that lets every call through, else in one that does
 * (the kernel keeps the most restrictive action whatever the order; only
 * two programs returning one action with different data, which
 * scmpc_compile_split()'s never do, could tell orders apart).  When no
 * order does, or a filter of O->chain denies an install, -EPERM and
 * nothing is installed: D names the program, what it returns and, with
 * P, the rule or action of P that decides it.  Should the kernel still
 * refuse program K after K-1 were installed, the error says so: the
 * process then holds part of the stack, which allows what the missing
 * programs deny, and must not go on to run what the set was meant to
 * confine.  RES describes the last program loaded. */
SCMPC_API int scmpc_load_set(const scmpc_prog *const *progs, size_t n, const scmpc_policy *p,
			     const struct scmpc_load_opts *o, struct scmpc_load_result *res,
			     scmpc_diag *d);

#ifdef __cplusplus
}
#endif
#endif /* SCMPC_H */

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
/**
 * scmpc_version() - The library's version as text.
 *
 * Return: "MAJOR.MINOR.MICRO" of the library running (which may be newer than
 * the SCMPC_VERSION_* this header was compiled with); a static string.
 */
SCMPC_API const char *scmpc_version(void);

/* ----------------------------------------------------------- conventions */

/*
 * Every function has a kernel-doc comment above its declaration:
 * `name() - summary`, what it does with its parameters (@name), who owns
 * what, and `Return:` with the errors.  Unless it says otherwise, what a
 * call is given is borrowed for the call only (a handle copies what it
 * keeps), what it returns through a pointer belongs to the caller, to free
 * with the function it names, and an scmpc_diag may be NULL; when one is
 * given, a failure sets its errno and message, and warnings are added.
 *
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

/**
 * scmpc_diag_new() - Allocate an error object.
 *
 * One object collects the error and the warnings of the calls it is passed to;
 * pass it to one thread's calls at a time.
 *
 * Return: an empty object, owned by the caller and freed with
 * scmpc_diag_free(); NULL without memory.
 */
SCMPC_API scmpc_diag *scmpc_diag_new(void);
/**
 * scmpc_diag_free() - Free an error object and its warnings.
 *
 * Strings read from @d before are invalid afterwards.  NULL is ignored.
 */
SCMPC_API void scmpc_diag_free(scmpc_diag *d);
/**
 * scmpc_diag_clear() - Forget the error and the warnings.
 *
 * So that @d can be passed to the next call and its findings told apart from
 * the last one's.  Strings read from @d before are invalid afterwards.  NULL is
 * ignored.
 */
SCMPC_API void scmpc_diag_clear(scmpc_diag *d);
/**
 * scmpc_diag_errno() - The error of the last failed call.
 *
 * Return: its negative errno, 0 when no call failed since @d was made or
 * cleared (or @d is NULL).
 */
SCMPC_API int scmpc_diag_errno(const scmpc_diag *d);
/**
 * scmpc_diag_message() - The message of the last error.
 *
 * Return: the message, "" when there is none (or @d is NULL); it points into @d
 * and is valid until @d records another error, is cleared or freed.
 */
SCMPC_API const char *scmpc_diag_message(const scmpc_diag *d);
/**
 * scmpc_diag_where() - Where the last error applies.
 *
 * Return: a policy path ("syscalls[3].args[0]"), "insn N", or "" when it
 * applies nowhere in particular; valid as scmpc_diag_message()'s.
 */
SCMPC_API const char *scmpc_diag_where(const scmpc_diag *d);
/**
 * scmpc_diag_insn() - The instruction the last error applies to.
 *
 * Return: its index in the program, or -1 when the error is not about one
 * instruction (or @d is NULL).
 */
SCMPC_API long scmpc_diag_insn(const scmpc_diag *d);
/**
 * scmpc_diag_warning_count() - Count the non-fatal findings.
 *
 * Warnings (skipped names, denied uprobe calls, a rule libseccomp would refuse
 * under the LIBSECCOMP merge, ...) accumulate over every call @d is passed to
 * until scmpc_diag_clear(); a failed call keeps those it gave before it failed.
 *
 * Return: how many there are, 0 for a NULL @d.
 */
SCMPC_API size_t scmpc_diag_warning_count(const scmpc_diag *d);
/**
 * scmpc_diag_warning() - Read warning @i.
 *
 * Return: warning @i (0 .. scmpc_diag_warning_count() - 1), valid until @d is
 * cleared or freed; NULL when @i is out of range or @d is NULL.
 */
SCMPC_API const char *scmpc_diag_warning(const scmpc_diag *d, size_t i);
/**
 * scmpc_diag_warning_kind() - The kind of warning @i.
 *
 * The text the warning was made from, each part that varies between warnings
 * of one kind (a path, a name, a number) left as its printf conversion, e.g.
 * "unknown syscall \"%s\" skipped".  Warnings of one kind compare equal with
 * strcmp(), so that a caller can group a thousand alike.
 *
 * Return: the kind, a string of the library's, valid while it is loaded;
 * NULL when @i is out of range or @d is NULL.
 */
SCMPC_API const char *scmpc_diag_warning_kind(const scmpc_diag *d, size_t i);

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

/**
 * scmpc_arch_name() - scmpc's name of an ABI.
 *
 * Return: "x86_64", "i386", "x32", "aarch64", "arm", "mips64n32", ... (a static
 * string); NULL for a value that is no ABI.
 */
SCMPC_API const char *scmpc_arch_name(enum scmpc_arch a);
/**
 * scmpc_arch_from_name() - The ABI a name means.
 *
 * Accepts scmpc's names, libseccomp's SCMP_ARCH_* tokens, the names Docker
 * profiles give hosts (amd64, arm64, mipsel64, mips3l64n32, loong64, ...),
 * GOARCH values (386, mips64le, mips64p32le, ...) and common uname/Debian
 * spellings (i686, armv7l, ppc64el, powerpc, hppa, sh4); case-insensitive.
 *
 * Return: the ABI, or SCMPC_ARCH_NONE for anything else (NULL and "" included).
 */
SCMPC_API enum scmpc_arch scmpc_arch_from_name(const char *name);
/**
 * scmpc_arch_audit() - The AUDIT_ARCH value of an ABI.
 *
 * Return: what a filter sees in seccomp_data.arch for calls of @a (x32 shares
 * x86_64's); 0 for a value that is no ABI.
 */
SCMPC_API uint32_t scmpc_arch_audit(enum scmpc_arch a);
/**
 * scmpc_arch_big_endian() - Whether an ABI is big-endian.
 *
 * seccomp_data (and so a .bpf file for the ABI) is in its byte order: m68k,
 * mips, mips64, mips64n32, parisc, parisc64, ppc, ppc64, s390, s390x and sheb
 * are big-endian.
 *
 * Return: true for a big-endian ABI; false for a little-endian one or a value
 * that is no ABI.
 */
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
/**
 * scmpc_arch_describe() - Everything that distinguishes an ABI.
 *
 * Fills @out up to the caller's @out->sz (set it to sizeof(struct
 * scmpc_arch_info)); the strings are static.
 *
 * Return: 0, or -EINVAL for a value that is no ABI, a NULL @out, or an @out
 * whose sz is smaller than this version's first release of the struct.
 */
SCMPC_API int scmpc_arch_describe(enum scmpc_arch a, struct scmpc_arch_info *out);
/**
 * scmpc_arch_native() - The ABI this library was built for.
 *
 * Return: the ABI of this build, or SCMPC_ARCH_NONE on a machine scmpc has no
 * ABI for.
 */
SCMPC_API enum scmpc_arch scmpc_arch_native(void);
/**
 * scmpc_syscall_resolve() - The number of a syscall on an ABI.
 *
 * Numbers carry the ABI's base: x32 numbers bit 0x40000000, mips o32/n64/n32
 * numbers start at 4000/5000/6000.  The table is the project's own
 * (scmpc_syscall_table_version()), the same on every host whatever its
 * libseccomp.  Calls an ABI reaches only through socketcall(2) or ipc(2)
 * (accept on i386, semop on s390x) have no number there:
 * scmpc_syscall_multiplexer() says how they are reached.
 *
 * Return: the number; -ENOENT when the ABI has no such call, -EINVAL for a
 * value that is no ABI or a NULL @name.
 */
SCMPC_API int64_t scmpc_syscall_resolve(enum scmpc_arch a, const char *name);
/**
 * scmpc_syscall_name() - The name of a syscall number on an ABI.
 *
 * The name is copied into @buf (cut to @len - 1 bytes and NUL-terminated;
 * nothing is written when @buf is NULL or @len is 0, so the call can only ask
 * whether the number has a name).
 *
 * Return: true when @nr names a call of @a's table, false when not or for a
 * value that is no ABI.
 */
SCMPC_API bool scmpc_syscall_name(enum scmpc_arch a, uint32_t nr, char *buf, size_t len);
/**
 * scmpc_syscall_table_version() - The version of the syscall table compiled in.
 *
 * Return: a static string such as "v7.1.0-rc4 2026-05-19": the libseccomp table
 * the project's was generated from.
 */
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

/**
 * scmpc_action_valid() - Whether the kernel honours an action as given.
 *
 * KILL_PROCESS, KILL_THREAD, USER_NOTIF, LOG and ALLOW carry no data, ERRNO at
 * most 4095, TRAP and TRACE any 16 bits.
 *
 * Return: true for an action the kernel knows with data it honours; false
 * otherwise (SCMPC_ACT_OUT_OF_RANGE included).
 */
SCMPC_API bool scmpc_action_valid(uint32_t act);
/**
 * scmpc_action_cmp() - Order two actions by the kernel's precedence.
 *
 * The action in the high 16 bits as the kernel ranks it (lowest
 * (int32_t)(action & 0xffff0000) is the most restrictive), then the lower data
 * first.
 *
 * Return: negative when @a is more restrictive than @b, 0 when they are equal,
 * positive otherwise.
 */
SCMPC_API int scmpc_action_cmp(uint32_t a, uint32_t b);
/**
 * scmpc_action_str() - Write an action's name.
 *
 * "ERRNO(1)", "ALLOW", "TRAP(5)", ...; a value that is no action is written as
 * its hex.  As snprintf(), at most @len bytes, NUL-terminated when @len > 0; 24
 * bytes always suffice.
 */
SCMPC_API void scmpc_action_str(uint32_t act, char *buf, size_t len);
/**
 * scmpc_action_parse() - The action a string names.
 *
 * Takes what scmpc_action_str() writes (KILL_PROCESS, KILL_THREAD, TRAP,
 * ERRNO(N), TRACE(N), LOG, ALLOW, USER_NOTIF), KILL and NOTIFY, with or without
 * libseccomp's SCMP_ACT_ prefix, in any case.  Data is never cut to 16 bits.
 * On success the action goes to *@act.
 *
 * Return: 0; -EINVAL when @s names no action (or @s or @act is NULL), -ERANGE
 * for data the kernel does not honour (ERRNO above 4095, TRACE above 65535, or
 * negative).
 */
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

/**
 * scmpc_syscall_multiplexer() - How a socket or IPC call is reached through its
 * multiplexer.
 *
 * Whether @name, a socket or SysV IPC call, also reaches the kernel on @a
 * through socketcall(2) or ipc(2): then *@mux_nr gets the multiplexer's number
 * and *@test the test of its first argument that selects @name, on the bits the
 * kernel reads (ipc: the low 16, its version above them ignored; socketcall:
 * the low 32, an int).  Every rule scmpc compiles for such a call holds for
 * this test too, whatever the merge.
 *
 * Return: 1 when it does; 0 when it does not (no such multiplexer on @a, or not
 * one of its calls); -EINVAL for a value that is no ABI or a NULL argument.
 */
SCMPC_API int scmpc_syscall_multiplexer(enum scmpc_arch a, const char *name, uint32_t *mux_nr,
					struct scmpc_cond *test);

typedef struct scmpc_policy scmpc_policy;

/**
 * scmpc_policy_new() - Create an empty policy.
 *
 * The policy has no ABI and no rule, the bad-arch action KILL_PROCESS and the
 * RESTRICTIVE merge.  USER_NOTIF as @default_action is taken, as the kernel
 * takes it, and scmpc_compile() warns: every call no rule decides then waits
 * for the listener.
 *
 * Return: the policy, owned by the caller and freed with scmpc_policy_free();
 * NULL when @default_action is not valid (scmpc_action_valid()) or without
 * memory.
 */
SCMPC_API scmpc_policy *scmpc_policy_new(uint32_t default_action);
/**
 * scmpc_policy_free() - Free a policy.
 *
 * Every pointer read from it (rule infos, origins, the listener) becomes
 * invalid.  NULL is ignored.
 */
SCMPC_API void scmpc_policy_free(scmpc_policy *p);
/**
 * scmpc_policy_default_action() - The action of calls no rule decides.
 *
 * Return: @p's default action; KILL_PROCESS for a NULL @p.
 */
SCMPC_API uint32_t scmpc_policy_default_action(const scmpc_policy *p);

/**
 * scmpc_policy_add_arch() - Add an ABI to a policy.
 *
 * The first ABI added is tested first in the program.  Adding an ABI the policy
 * has is a no-op.  All of a policy's ABIs must share a byte order: one program
 * reads the argument words at one set of offsets.
 *
 * Return: 0; -EINVAL for a NULL @p or a value that is no ABI, -EDOM for an ABI
 * of the other byte order than those added; @d gets the message.
 */
SCMPC_API int scmpc_policy_add_arch(scmpc_policy *p, enum scmpc_arch a, scmpc_diag *d);
/**
 * scmpc_policy_arch_count() - Count a policy's ABIs.
 *
 * Return: how many ABIs @p has, 0 for a NULL @p.
 */
SCMPC_API size_t scmpc_policy_arch_count(const scmpc_policy *p);
/**
 * scmpc_policy_arch() - A policy's ABI @i, in the order added.
 *
 * Return: the ABI, or SCMPC_ARCH_NONE when @i is out of range or @p is NULL.
 */
SCMPC_API enum scmpc_arch scmpc_policy_arch(const scmpc_policy *p, size_t i);

/**
 * scmpc_policy_set_listener() - Name the agent that answers USER_NOTIF calls.
 *
 * @path (OCI's listenerPath: an absolute AF_UNIX socket path) and @metadata
 * (listenerMetadata: an opaque string passed to it) are copied into @p,
 * replacing what it had, for the loader's caller (scmpc_notify_handoff()); the
 * compiler does not use them.  A NULL @path clears both.
 *
 * Return: 0; -EINVAL for a NULL @p, metadata without a path or a relative path,
 * -ENOMEM; @d gets the message.
 */
SCMPC_API int scmpc_policy_set_listener(scmpc_policy *p, const char *path, const char *metadata,
					scmpc_diag *d);
/**
 * scmpc_policy_listener() - The agent a policy names.
 *
 * *@path and *@metadata (either may be NULL) get pointers into @p, valid until
 * the listener is set again or @p is freed, or NULL.
 *
 * Return: true when @p names an agent.
 */
SCMPC_API bool scmpc_policy_listener(const scmpc_policy *p, const char **path,
				     const char **metadata);

/**
 * scmpc_policy_set_flags() - Store the seccomp(2) flags to load with.
 *
 * SECCOMP_FILTER_FLAG_* bits (the profile's "flags") stored for the loader
 * (scmpc_load_prog(), scmpc_load_set()); the compiler does not use them.  They
 * replace what was set.
 *
 * Return: 0; -EINVAL for a NULL @p or a bit beyond the six flags the kernel
 * knows (TSYNC to WAIT_KILLABLE_RECV); @d gets the message.
 */
SCMPC_API int scmpc_policy_set_flags(scmpc_policy *p, unsigned flags, scmpc_diag *d);
/**
 * scmpc_policy_flags() - The seccomp(2) flags stored in a policy.
 *
 * Return: what scmpc_policy_set_flags() stored, 0 for a NULL @p.
 */
SCMPC_API unsigned scmpc_policy_flags(const scmpc_policy *p);

/**
 * scmpc_policy_set_bad_arch_action() - Set the action for calls of ABIs the
 * policy lacks.
 *
 * Calls whose AUDIT_ARCH none of the policy's ABIs has (and, on x86_64 without
 * x32 in the policy, x32's numbers) get @act.  The default is KILL_PROCESS.
 *
 * Return: 0; -EINVAL for a NULL @p or an invalid action, -ERANGE for action
 * data out of range; @d gets the message.
 */
SCMPC_API int scmpc_policy_set_bad_arch_action(scmpc_policy *p, uint32_t act, scmpc_diag *d);

enum scmpc_unknown_threshold {
	SCMPC_UNKNOWN_TABLE_MAX = 0,	/* above the highest number in the ABI table */
	SCMPC_UNKNOWN_POLICY_MAX = 1,	/* above the highest number the policy names */
};
/**
 * scmpc_policy_set_unknown_action() - Give numbers above a threshold their own
 * action.
 *
 * E.g. ERRNO(ENOSYS) for calls newer than the policy: a number above @thr (the
 * ABI table's highest, or the highest the policy names) that no rule names gets
 * @act.  ARM's private calls are never unknown; nr == -1 keeps the default
 * action.
 *
 * Return: 0; -EINVAL for a NULL @p, an invalid action or an unknown @thr,
 * -ERANGE for action data out of range; @d gets the message.
 */
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
/**
 * scmpc_policy_set_limit() - Set runc's ENOSYS stub for one ABI.
 *
 * Calls of @a above @max get @act before any rule is looked at, as the comment
 * above describes; @flags is 0 or SCMPC_LIMIT_ZERO.  @max = UINT32_MAX clears
 * the limit.  Setting a limit again replaces it.
 *
 * Return: 0; -EINVAL for a NULL @p, an invalid action, a value that is no ABI
 * or unknown @flags, -ERANGE for action data out of range; @d gets the message.
 */
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
/**
 * scmpc_policy_set_merge() - Choose how rules for one syscall combine.
 *
 * See enum scmpc_merge above.  The default is SCMPC_MERGE_RESTRICTIVE.
 *
 * Return: 0; -EINVAL for a NULL @p or an unknown @m; @d gets the message.
 */
SCMPC_API int scmpc_policy_set_merge(scmpc_policy *p, enum scmpc_merge m, scmpc_diag *d);

/**
 * scmpc_policy_check() - Check a policy's rules without compiling it.
 *
 * Resolves @p's rules on each of its ABIs as scmpc_compile() does, and so gives
 * the errors and warnings the compiler would give about the rules themselves (a
 * rule libseccomp refuses under the strict LIBSECCOMP merge, ...), at a
 * fraction of the cost.
 *
 * Return: 0, or the negative errno the compiler would fail with on the rules
 * (-EEXIST for a rule the strict merge refuses, -ENOMEM, -EINVAL for a NULL
 * @p); @d gets the message, and the warnings.
 */
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

/**
 * scmpc_policy_add_rule() - Add a rule to a policy.
 *
 * @r is read during the call only: its name, conditions and origin are copied
 * into @p.  A MASKED_EQ datum with bits outside its mask is stored masked, with
 * a warning.  The name is resolved per ABI when the policy is compiled, not
 * here: a name no ABI of the policy has is a compile-time matter (the JSON
 * front end skips them).
 *
 * Return: the rule's index (>= 0); -EINVAL for a NULL @p or @r, an @r whose sz
 * stops before nconds, an invalid action, a value that is no ABI, a rule by
 * number without an ABI, an empty name, conditions missing or malformed
 * (argument above 5, unknown operator or flag); -ERANGE for action data out of
 * range, -E2BIG for more than 64 conditions, -ENOMEM.  @d gets the message and,
 * where the rule has an origin, it as the place.
 */
SCMPC_API int scmpc_policy_add_rule(scmpc_policy *p, const struct scmpc_rule *r, scmpc_diag *d);
/**
 * scmpc_policy_rule_count() - Count a policy's rules.
 *
 * Return: how many rules were added to @p, 0 for a NULL @p.
 */
SCMPC_API size_t scmpc_policy_rule_count(const scmpc_policy *p);

/**
 * scmpc_policy_eval() - The action a policy gives one call.
 *
 * Evaluated from the rules directly (the reference meaning every compiled
 * program is proven against), never from a program.  When @rule is not NULL it
 * receives the deciding rule's index, or -1 when the default, unknown, limit or
 * bad-arch action decided.
 *
 * Return: the action.  There is no error channel: a NULL @p or @data gives
 * KILL_PROCESS, and a policy whose rules cannot be resolved (no memory, a rule
 * the strict LIBSECCOMP merge refuses: scmpc_policy_check() says which) gives
 * its bad-arch action, each with *@rule -1.
 */
SCMPC_API uint32_t scmpc_policy_eval(const scmpc_policy *p, const struct seccomp_data *data,
				     int *rule);
/**
 * scmpc_policy_rule_origin() - Where rule @i came from.
 *
 * Return: its origin ("syscalls[3]" and the like), pointing into @p; NULL when
 * it has none, @i is out of range or @p is NULL.
 */
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
/**
 * scmpc_policy_rule() - Read rule @i back.
 *
 * Fills @out (set its sz) with rule @i of @p (0 <= @i <
 * scmpc_policy_rule_count()) as scmpc_policy_add_rule() stored it; its pointers
 * point into @p and live as long as @p.  Rules are given, not resolved: a name
 * stands for whatever number each ABI gives it.
 *
 * Return: 0, or -EINVAL for a NULL @p or @out, @i out of range, or an @out
 * whose sz is smaller than this version's first release of the struct.
 */
SCMPC_API int scmpc_policy_rule(const scmpc_policy *p, size_t i, struct scmpc_rule_info *out);

/**
 * scmpc_conds_witness() - Argument values that meet a list of conditions.
 *
 * For the @n conditions @conds (an AND, as in a rule), where one value per
 * condition can: the constant of an EQ, LE or GE, one past that of an NE or GT,
 * one below that of an LT, the datum of a MASKED_EQ, 0 for an argument no
 * condition names.  When two conditions on one argument contradict, the later
 * one's value is kept, so the result need not meet them all.  A place to start
 * from when looking for what a rule decides.
 *
 * Return: 0, or -EINVAL for a NULL @args, NULL @conds with @n > 0, or an
 * argument index above 5 (then @args is partly written).
 */
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

/**
 * scmpc_workload_new() - Create an empty workload.
 *
 * Return: the workload, owned by the caller and freed with
 * scmpc_workload_free(); NULL without memory.
 */
SCMPC_API scmpc_workload *scmpc_workload_new(void);
/**
 * scmpc_workload_free() - Free a workload.
 *
 * Names read from it become invalid.  NULL is ignored.
 */
SCMPC_API void scmpc_workload_free(scmpc_workload *w);
/**
 * scmpc_workload_add() - Count calls of one syscall.
 *
 * Adds @count calls of @name on @arch (SCMPC_ARCH_NONE: whichever ABI the
 * compiled policy takes the trace's calls for, as scmpc_workload_opts.arch
 * describes).  Counts of one (name, ABI) add up, saturating.  @name is copied.
 *
 * Return: 0; -EINVAL for a NULL @w or @name, a name no ABI of the table has, or
 * a value that is no ABI; -ENOMEM.  @d gets the message.
 */
SCMPC_API int scmpc_workload_add(scmpc_workload *w, const char *name, enum scmpc_arch arch,
				 uint64_t count, scmpc_diag *d);
/**
 * scmpc_workload_parse() - Read calls from a list or a trace summary.
 *
 * Parses the @len bytes at @text in the format @o says (NULL: detected) and
 * adds their calls to @w.  A name no ABI has (strace's "syscall_0x1c3", a newer
 * call) is skipped with a warning.  Nothing is added unless the whole text
 * parses.
 *
 * Return: the number of calls added; a negative errno otherwise, with @d saying
 * why and naming the line ("line 7"): -EINVAL for a NULL @w, a text with a NUL
 * byte, nothing in the format's shape, a row that does not parse, or a
 * malformed @o; -ENOMEM.
 */
SCMPC_API int64_t scmpc_workload_parse(scmpc_workload *w, const char *text, size_t len,
				       const struct scmpc_workload_opts *o, scmpc_diag *d);
/**
 * scmpc_workload_size() - Count a workload's entries.
 *
 * Return: how many distinct (name, ABI) entries @w has, 0 for a NULL @w.
 */
SCMPC_API size_t scmpc_workload_size(const scmpc_workload *w);
/**
 * scmpc_workload_get() - Read entry @i of a workload.
 *
 * Entries are in the order first added.  *@name (valid as long as @w), *@arch
 * and *@count are written where not NULL.
 *
 * Return: 0, or -EINVAL when @i is out of range or @w is NULL.
 */
SCMPC_API int scmpc_workload_get(const scmpc_workload *w, size_t i, const char **name,
				 enum scmpc_arch *arch, uint64_t *count);
/**
 * scmpc_workload_calls() - The count of one (name, ABI) entry.
 *
 * @arch SCMPC_ARCH_NONE asks for the entry without an ABI, not for a sum over
 * ABIs.
 *
 * Return: its count, 0 when absent or for a NULL argument.
 */
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

struct scmpc_progress;	/* below, with the lift options */

struct scmpc_compile_opts {
	size_t sz;		/* sizeof(struct scmpc_compile_opts) */
	unsigned flags;		/* SCMPC_COMPILE_* */
	/* Profile-guided layout (scmpc_workload above): the syscall-number
	 * dispatch of each ABI is laid out for the least expected path over
	 * the workload's calls that pay for the filter, its worst path at most
	 * SCMPC_HOT_SLACK above the least possible.  NULL: no workload. */
	const struct scmpc_workload *hot;
	/* Its steps (the policy's views, lowering and layout, the check): a
	 * large policy takes seconds; NULL: none. */
	const struct scmpc_progress *progress;
};

typedef struct scmpc_prog scmpc_prog;

/**
 * scmpc_compile() - Compile a policy into a checked program.
 *
 * @p and @o (NULL: defaults) are read during the call only.  Before it is
 * returned the program has passed the kernel's acceptance rules
 * (scmpc_verify_insns()) and, unless SCMPC_COMPILE_NO_VERIFY, the semantic
 * check against @p: a proof over every input that it decides every call as @p
 * does (scmpc_verify_policy()).  A check that fails is a compiler bug, reported
 * as an internal error, never a program returned.
 *
 * Return: 0 with *@out a program the caller frees with scmpc_prog_free();
 * otherwise *@out is NULL and a negative errno says why, with @d's message:
 * -EINVAL for a NULL argument, a policy without an ABI, unknown or conflicting
 * flags or a malformed @o; -E2BIG for a program over 4096 instructions (the
 * message names its size and says whether scmpc_compile_split() would do) or a
 * policy past the compiler's own bounds; -EEXIST for a rule the strict
 * LIBSECCOMP merge refuses; -EPROTO for a program that disagrees with the
 * policy (an internal error naming the first counterexample); -ENOMEM.
 * Warnings (a USER_NOTIF default, rules libseccomp would refuse) go to @d.
 */
SCMPC_API int scmpc_compile(const scmpc_policy *p, const struct scmpc_compile_opts *o,
			    scmpc_prog **out, scmpc_diag *d);
/**
 * scmpc_prog_new() - Wrap an existing program.
 *
 * Copies the @len instructions at @insns (from a .bpf file, libseccomp, ...)
 * into a handle.  Nothing is verified: a broken program can still be inspected;
 * run scmpc_verify_insns() before loading one.
 *
 * Return: 0 with *@out a handle the caller frees with scmpc_prog_free();
 * -EINVAL for a NULL @out or @insns or an empty program, -ENOMEM; @d gets the
 * message.
 */
SCMPC_API int scmpc_prog_new(const struct sock_filter *insns, size_t len, scmpc_prog **out,
			     scmpc_diag *d);
/**
 * scmpc_prog_from_bytes() - Read a program from raw .bpf bytes.
 *
 * The @size bytes at @buf (no alignment needed) are a struct sock_filter array
 * in either byte order: they are read in the host's order unless only the other
 * order gives a program the kernel accepts (a .bpf exported for a big-endian
 * target read on a little-endian host, or the reverse); scmpc_prog_swapped()
 * tells.  A program neither order makes acceptable is returned as read,
 * unverified.
 *
 * Return: 0 with *@out a handle the caller frees with scmpc_prog_free();
 * -EINVAL for a NULL @out or @buf, no bytes, or a size that is not a whole
 * number of instructions; -ENOMEM; @d gets the message.
 */
SCMPC_API int scmpc_prog_from_bytes(const void *buf, size_t size, scmpc_prog **out,
				    scmpc_diag *d);
/**
 * scmpc_prog_swapped() - Whether a program was read byte-swapped.
 *
 * Return: true when scmpc_prog_from_bytes() read @prog in the other byte order
 * than the host's; false otherwise or for a NULL @prog.
 */
SCMPC_API bool scmpc_prog_swapped(const scmpc_prog *prog);
/**
 * scmpc_prog_free() - Free a program handle.
 *
 * The instructions scmpc_prog_insns() pointed to are freed with it.  NULL is
 * ignored.
 */
SCMPC_API void scmpc_prog_free(scmpc_prog *prog);
/**
 * scmpc_prog_insns() - A program's instructions.
 *
 * Return: the instructions, owned by @prog and valid until it is freed; NULL
 * for a NULL @prog.
 */
SCMPC_API const struct sock_filter *scmpc_prog_insns(const scmpc_prog *prog);
/**
 * scmpc_prog_len() - A program's length.
 *
 * Return: its number of instructions, 0 for a NULL @prog.
 */
SCMPC_API size_t scmpc_prog_len(const scmpc_prog *prog);
/**
 * scmpc_prog_ebpf_len() - A program's length after the kernel converts it.
 *
 * Return: the eBPF length the kernel charges against its chain budget
 * (SCMPC_CHAIN_BUDGET), 0 for a NULL @prog.
 */
SCMPC_API size_t scmpc_prog_ebpf_len(const scmpc_prog *prog);
/**
 * scmpc_prog_compile_ns() - The time scmpc_compile() took.
 *
 * Return: the wall time spent compiling @prog, in nanoseconds; 0 for a wrapped
 * program or a NULL @prog.
 */
SCMPC_API uint64_t scmpc_prog_compile_ns(const scmpc_prog *prog);

/* ------------------------------------------------------ check and analyse */

/**
 * scmpc_verify_insns() - Check a program against the kernel's acceptance rules.
 *
 * Runs what the kernel runs before it installs a filter, in its order: the
 * length (1 to 4096), bpf_check_classic() with its scratch-memory pass, then
 * seccomp_check_filter() (only the opcodes and loads seccomp allows).  The
 * kernel answers every failure with a bare EINVAL; here each names the
 * instruction.
 *
 * Return: 0 when the kernel would take the program; -EINVAL otherwise (a NULL
 * @insns included), with @d's message and instruction (scmpc_diag_insn()).
 */
SCMPC_API int scmpc_verify_insns(const struct sock_filter *insns, size_t len, scmpc_diag *d);
/**
 * scmpc_verify_policy() - Prove that a program decides as a policy does.
 *
 * A proof over every input, nothing sampled: the program is run symbolically
 * over all of seccomp_data (src/engine/); each path ends in one return on a
 * region of calls, the paths are disjoint and cover every call, and each region
 * is judged against @p's rules (src/check/): every AUDIT_ARCH value, syscall
 * number and argument value.  scmpc_compile() runs it on every program it
 * returns.
 *
 * Return: 0 when @insns decides every call as @p does; otherwise a negative
 * errno with @d's message: -EINVAL for a NULL argument or a program the kernel
 * would refuse (scmpc_verify_insns()'s message), -EPROTO when they disagree
 * (the message names the first counterexample, confirmed by running it on
 * both), -ENOTSUP for a program the engine cannot follow exactly (naming the
 * instruction), -E2BIG past the check's bounds (paths, region cuts), -ENOMEM.
 */
SCMPC_API int scmpc_verify_policy(const scmpc_policy *p, const struct sock_filter *insns,
				  size_t len, scmpc_diag *d);

/**
 * scmpc_emulate() - Run a program on one call.
 *
 * As the kernel runs it.  @data holds values in the host's order; the words
 * the program loads are laid out as the kernel of @data->arch's ABI lays them
 * out (on a big-endian ABI the high half of a 64-bit field comes first).  The
 * program should pass scmpc_verify_insns(); a division by zero returns 0
 * (KILL_THREAD), as the kernel's conversion does.
 *
 * Return: 0 with *@ret the return value and *@steps (if not NULL) the number of
 * instructions executed; -EINVAL for a NULL or empty argument, or a program
 * that cannot run on @data (an opcode seccomp refuses, a jump out of the
 * program, falling off its end).
 */
SCMPC_API int scmpc_emulate(const struct sock_filter *insns, size_t len,
			    const struct seccomp_data *data, uint32_t *ret, unsigned *steps);
/**
 * scmpc_emulate_trace() - Run a program on one call, recording its path.
 *
 * As scmpc_emulate(), and the index of each instruction executed, in order,
 * goes to @path (the first @n of them).  Jumps only go forward, so no
 * instruction runs twice and @n = @len always suffices.  *@npath (if not NULL)
 * gets how many were executed.
 *
 * Return: 0; -EINVAL as for scmpc_emulate(), or for a NULL @path with @n > 0.
 */
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

/**
 * scmpc_cache_const_allow() - Whether the kernel caches one call as allowed.
 *
 * The kernel's seccomp_is_const_allow() for (@audit_arch, @nr) on one program:
 * the constant-folding emulation it runs at attach time.  *@stop_pc (if not
 * NULL) gets the instruction that ended the emulation (the RET reached, or the
 * instruction the kernel gives up on).
 *
 * Return: 1 if the kernel caches the call as allowed, 0 if not; -EINVAL for a
 * NULL or empty program.
 */
SCMPC_API int scmpc_cache_const_allow(const struct sock_filter *insns, size_t len,
				      uint32_t audit_arch, uint32_t nr, uint32_t *stop_pc);
/**
 * scmpc_cache_bitmap() - The kernel's action-cache bitmap for a stack of
 * programs.
 *
 * As the kernel builds it for ABI @a over @nprogs programs (@progs[0] oldest):
 * bit nr of @bits ((nr_count + 7) / 8 bytes, which the call zeroes first) set
 * when every program is const-ALLOW for the call.  @o (NULL: defaults) gives
 * the kernel version (before 5.11 there is no cache: no bit is set) and the
 * bitmap's size.
 *
 * Return: the number of set bits; -EINVAL for an ABI the kernel keeps no bitmap
 * for (x32, mips n32), a NULL or empty argument, or a malformed @o.
 */
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
 * says where one is.  scmpc_verify_policy() does not need these: it
 * proves a program against its policy over every input, sampling nothing.
 */
typedef struct scmpc_probes scmpc_probes;

/**
 * scmpc_probes_new() - Create an empty set of probe values.
 *
 * Return: a set whose arguments each hold 0 and UINT64_MAX, owned by the caller
 * and freed with scmpc_probes_free(); NULL without memory.
 */
SCMPC_API scmpc_probes *scmpc_probes_new(void);
/**
 * scmpc_probes_free() - Free a set of probe values.
 *
 * Pointers scmpc_probes_values() gave become invalid.  NULL is ignored.
 */
SCMPC_API void scmpc_probes_free(scmpc_probes *ps);
/**
 * scmpc_probes_add_policy() - Add the values around a policy's constants.
 *
 * For each condition of @p: its value, the neighbours and the value with its
 * high word flipped (the filter must or must not read that word, depending on
 * the ABI and SCMPC_COND_32BIT); for MASKED_EQ the datum, the datum with every
 * bit outside the mask set, the mask, and the datum with the mask's lowest bit
 * flipped.
 *
 * Return: 0; -EINVAL for a NULL @ps or @p, -ENOMEM (then some of @p's values
 * may be in); @d gets the message.
 */
SCMPC_API int scmpc_probes_add_policy(scmpc_probes *ps, const scmpc_policy *p, scmpc_diag *d);
/**
 * scmpc_probes_add_prog() - Add the values a program tests arguments against.
 *
 * Every constant a conditional jump or an `and` compares a word of an argument
 * with, and its neighbours, one word's with every one of the other's (a word
 * not tested pairs through 0 and 0xffffffff), at most 4096 per argument and
 * pairing.  A program does not tell its byte order, so each word of an argument
 * is paired as its high word and as its low word.
 *
 * Return: 0; -EINVAL for a NULL @ps or @insns or an empty program, -EOVERFLOW
 * for a length whose working memory cannot be sized, -ENOMEM; @d gets the
 * message.
 */
SCMPC_API int scmpc_probes_add_prog(scmpc_probes *ps, const struct sock_filter *insns, size_t len,
				    scmpc_diag *d);
/**
 * scmpc_probes_values() - The probe values of one argument.
 *
 * Sorted, each once, 0 and UINT64_MAX among them.  *@vals (if not NULL) points
 * into @ps until the next addition or scmpc_probes_free().
 *
 * Return: how many there are; 0 for a NULL @ps or @arg above 5.
 */
SCMPC_API size_t scmpc_probes_values(const scmpc_probes *ps, unsigned arg, const uint64_t **vals);

/**
 * scmpc_arch_probe_numbers() - The syscall numbers of an ABI worth probing.
 *
 * Its first 1024 (or its whole table and 64 past its end), the private range
 * and the number past it (ARM's 0x0f0000-0x0f0800), 0 and the number below the
 * base of an ABI that has one (where mips' other ABIs number theirs), and the
 * boundaries of the number space: the x32 bit from either side, the sign bit
 * and -1 (x32 leaves -1 to x86_64).  Sorted, each once.
 *
 * Return: how many, with *@out a malloc'ed array the caller frees with free();
 * -EINVAL for a value that is no ABI or a NULL @out, -ENOMEM; @d gets the
 * message.
 */
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
/**
 * scmpc_prog_arg_use() - What a program reads of one call's arguments.
 *
 * For @data's call (its nr and arch: the path up to the first argument load
 * depends on nothing else), fills @out (set its sz): where the call's path
 * first loads an argument, and which arguments are tested through a mask from
 * there.  @insns should pass scmpc_verify_insns().
 *
 * Return: 0; -EINVAL for a NULL @insns, @data or @out, an empty program, an
 * @out whose sz is smaller than this version's first release of the struct, or
 * a program the emulation cannot run on @data; -EOVERFLOW for a length whose
 * working memory cannot be sized, -ENOMEM; @d gets the message.
 */
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

/**
 * scmpc_prog_abis() - The ABIs a program serves.
 *
 * The AUDIT_ARCH values it tests seccomp_data.arch against, as ABIs (x86_64's
 * brings x32 with it, whose numbers reach the same section).  Up to @n go to
 * @out in program order.
 *
 * Return: how many there are (which may be more than @n); -EINVAL for a NULL or
 * empty program or a NULL @out with @n > 0, -EOVERFLOW for a length whose
 * working memory cannot be sized, -ENOMEM.
 */
SCMPC_API int scmpc_prog_abis(const struct sock_filter *insns, size_t len, enum scmpc_arch *out,
			      size_t n);

/**
 * scmpc_format() - Render a program as .bpf bytes, a C array or text.
 *
 * @insns need not be verified: `inspect` shows what is wrong with a file.  @o
 * (NULL: defaults) names the ABI (byte order of SCMPC_FORMAT_BPF, syscall names
 * of the others) and the C array.
 *
 * Return: 0 with *@out a malloc'ed buffer the caller frees with free()
 * (NUL-terminated for the text formats) and *@out_len (if not NULL) its length
 * without the terminator; -EINVAL for a NULL @out or @insns, an empty program,
 * a value that is no ABI, a c_name that is no C identifier, an unknown format
 * or a malformed @o; -EOVERFLOW for a length whose working memory cannot be
 * sized, -ENOMEM; @d gets the message.
 */
SCMPC_API int scmpc_format(const struct sock_filter *insns, size_t len, enum scmpc_format f,
			   const struct scmpc_format_opts *o, char **out, size_t *out_len,
			   scmpc_diag *d);
/**
 * scmpc_format_insn() - Render one instruction as the text format lists it.
 *
 * Instruction @pc of @insns after the line number and the raw fields:
 * "if (A == 59) goto 0012", "A = args[0] >> 32", with a note such as
 * "  # execve" padded to the listing's column.  The note names what the program before @pc
 * establishes (the field A holds, the ABI whose section @pc is in), so @insns
 * is the whole program; @o->arch names the syscalls where no arch test does, as
 * for scmpc_format(), and @o->c_name is not used.  Up to @size - 1 bytes go to
 * @buf, NUL-terminated.
 *
 * Return: the length of the whole line (as snprintf(): a result >= @size means
 * it was cut); -EINVAL for a NULL @insns, @pc >= @len, a NULL @buf with @size >
 * 0, a value that is no ABI or a malformed @o; -EOVERFLOW for a length whose
 * working memory cannot be sized, -ENOMEM; @d gets the message.
 */
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

/**
 * scmpc_stats() - Path and cache figures of a program for one ABI of a policy.
 *
 * For ABI number @i of @p (0 .. scmpc_policy_arch_count() - 1), from every path
 * of the program: exact, no argument value is sampled; for a program compiled
 * from @p its decisions are @p's.  @out (set its sz, and argsys and argsys_cap
 * to have the argument-checked calls listed) is filled; @o (NULL: defaults)
 * bounds the numbers looked at and describes the kernel.
 *
 * Return: 0; -EINVAL for a NULL or malformed argument or an @i out of range,
 * -ENOTSUP for a program the engine cannot follow, -E2BIG past the engine's
 * bounds, -ENOMEM; @d gets the message.
 */
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
/**
 * scmpc_runtime_name() - The name of a runtime mode.
 *
 * Return: "runc", "runc-1.1", "crun" or "libseccomp" (static strings); NULL for
 * a value that is no mode.
 */
SCMPC_API const char *scmpc_runtime_name(enum scmpc_runtime r);
/**
 * scmpc_runtime_from_name() - The runtime mode a name means.
 *
 * The names scmpc_runtime_name() gives, exactly.
 *
 * Return: the mode (enum scmpc_runtime), or -1 for any other name or NULL.
 */
SCMPC_API int scmpc_runtime_from_name(const char *name);

/* Whose default capability set a Docker-style profile's includes.caps and
 * excludes.caps are matched against when scmpc_json_opts.caps is NULL. */
enum scmpc_json_caps {
	SCMPC_JSON_CAPS_AUTO = 0,	/* Podman's for containers/common's profile (one
					   that names errnos: a top-level "defaultErrno"
					   or an entry's "errno", which only its types
					   have), Docker's for any other */
	SCMPC_JSON_CAPS_DOCKER,		/* scmpc_json_default_caps() */
	SCMPC_JSON_CAPS_PODMAN,		/* podman_caps, else scmpc_json_podman_caps() */
};

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
	enum scmpc_json_caps caps_from;	/* with caps NULL: whose default set */
	const char *const *podman_caps;	/* NULL-terminated: Podman's default set, e.g.
					   containers.conf's; NULL = scmpc_json_podman_caps() */
	const char *const *caps_add;	/* NULL-terminated: added to the default set
					   (--cap-add); only with caps NULL */
};

/**
 * scmpc_policy_from_json() - Parse a seccomp profile into a policy.
 *
 * Reads the @len bytes at @json as runc and Docker do (Go's encoding/json and
 * their conversion rules), as @o says (NULL: defaults).  Warnings go to @d,
 * each naming a path; the text checks' come first, then the reading's, in
 * reading order:
 *  - keys: a duplicated key (the last value counts; past 20, only counted);
 *    a key read as the field it names but for case (Go matches
 *    "DefaultAction" as "defaultAction", and U+017F and U+212A as 's' and
 *    'k'), or keys spelled differently that name one field (the last
 *    counts); an unknown key, or a Docker-only key in an OCI profile
 *    (ignored).  A field whose value is an object or an array of objects,
 *    given twice, is an error: Go merges the values, scmpc refuses them.
 *  - names: a syscall no ABI knows, or an architecture scmpc does not
 *    support (skipped; unknown syscalls are errors with SCMPC_JSON_STRICT),
 *    an entry without names (ignored);
 *  - values runc ignores or changes: errnoRet/errno for an action without
 *    data, valueTwo bits outside a SCMP_CMP_MASKED_EQ mask, and
 *    SCMP_ACT_NOTIFY on write (runc refuses it).
 *
 * Return: 0 with *@out a policy the caller frees with scmpc_policy_free();
 * otherwise *@out is NULL (when @out is not) and a negative errno, with the
 * message and its place (a path such as "syscalls[2].action" or
 * "line L, column C") in @d: -EINVAL for a NULL @out or @json with @len > 0, a malformed @o, or
 * a profile that is not valid JSON or not a profile; -ERANGE for errno or TRACE
 * data out of range, -E2BIG for an input or a rule count past the reader's
 * bounds; -ENOMEM.
 */
SCMPC_API int scmpc_policy_from_json(const char *json, size_t len, const struct scmpc_json_opts *o,
				     scmpc_policy **out, scmpc_diag *d);

/**
 * scmpc_json_default_caps() - Docker's default capability set.
 *
 * moby's oci/caps/defaults.go, NULL-terminated: what a profile's includes.caps
 * and excludes.caps are matched against when scmpc_json_opts.caps is NULL.  A
 * caller adding to it ("the default set and CAP_SYS_ADMIN") starts from this
 * list.
 *
 * Return: a static array.
 */
SCMPC_API const char *const *scmpc_json_default_caps(void);

/**
 * scmpc_json_podman_caps() - Podman's default capability set.
 *
 * containers/common 0.50.1's pkg/config DefaultCapabilities (Debian 12's
 * containers.conf lists the same 11), NULL-terminated: what
 * SCMPC_JSON_CAPS_PODMAN, asked for or detected, matches a profile's
 * includes.caps and excludes.caps against when scmpc_json_opts.podman_caps
 * is NULL.
 *
 * Return: a static array; do not free it.
 */
SCMPC_API const char *const *scmpc_json_podman_caps(void);

/**
 * scmpc_containers_conf_caps() - Read a containers.conf's default capabilities.
 * @text: the file's text (TOML), @len bytes; not changed
 * @out: gets the [containers] table's default_capabilities, NULL-terminated,
 *       as one allocation the caller frees with free(); NULL when there are none
 * @d: the error and its line, or NULL
 *
 * The library opens no file: the caller finds it (Podman reads
 * CONTAINERS_CONF alone when set, else /usr/share/containers, /etc/containers
 * and a rootless user's own, the last that sets the list winning) and hands
 * its text here, then the list to scmpc_json_opts.podman_caps.
 *
 * Return: the number of capabilities; 0 with *@out NULL when the text does
 * not set the list or sets it empty (Podman then uses its built-in default);
 * -EINVAL for a NULL @out or @text with @len > 0, text this reader cannot
 * follow or a list holding something other than strings; -ENOMEM.
 */
SCMPC_API int scmpc_containers_conf_caps(const char *text, size_t len, char ***out,
					 scmpc_diag *d);

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
/**
 * scmpc_input_kind() - Tell a profile from a compiled filter without parsing.
 *
 * For a caller that takes both from files.
 *
 * Return: the kind of the @len bytes at @buf (enum scmpc_input_kind);
 * SCMPC_INPUT_OTHER for a NULL @buf.
 */
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

/**
 * scmpc_chain_budget() - What is left of a thread's chain budget.
 *
 * For thread @tid (0: the calling thread), *@out gets the filters in its chain,
 * their cost and what a new filter may cost.  Exact for another process when
 * scmpc_introspect() can read it (which stops it briefly), and for an
 * unfiltered thread.  A filtered caller cannot read its own filters (the kernel
 * refuses introspection to tasks under seccomp), and no thread can ptrace its
 * own process, so then only the count from /proc/<tid>/status is known:
 * @out->exact is false and @d gets a warning saying so.
 *
 * Return: 0; -EINVAL for a NULL @out, a negative @tid or a thread in strict
 * mode, -ESRCH for no such thread, or the errno of reading the filters when
 * they can be neither read nor counted; @d gets the message.
 */
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

/**
 * scmpc_load() - Install a program as the calling thread's filter.
 *
 * With SECCOMP_FILTER_FLAG_TSYNC, into every thread of the process.  Every
 * check comes first (the section above): the kernel's rules, the flags and
 * actions the running kernel knows, and the chain budget.  @o (NULL: defaults)
 * gives the flags; @res (may be NULL; set its sz) gets the listener, the
 * blocking thread, the cost and the budget before loading.  The listener fd
 * returned belongs to the caller, who closes it.
 *
 * Return: the listener fd (O_CLOEXEC) with SECCOMP_FILTER_FLAG_NEW_LISTENER,
 * else 0; or a negative errno, in which case no filter was installed
 * (no_new_privs may already be set), with @d's message:
 *   -EINVAL     the kernel would reject the program or the flag combination
 *   -EOPNOTSUPP the running kernel lacks a requested flag or a returned action
 *   -ENOMEM     the chain budget would be exceeded
 *   -EACCES     neither no_new_privs nor CAP_SYS_ADMIN holds
 *   -EBUSY      NEW_LISTENER, but the chain already has a listener
 *   -ESRCH      TSYNC failed; the blocking thread is in @res->tsync_tid and
 *               the message (the kernel's positive TID is never returned,
 *               so that `< 0` always means failure)
 *   -ENOSYS     neither seccomp(2) nor, for flag-less loads, prctl works
 */
SCMPC_API int scmpc_load(const struct sock_filter *insns, size_t len,
			 const struct scmpc_load_opts *o, struct scmpc_load_result *res,
			 scmpc_diag *d);
/**
 * scmpc_load_prog() - Install a compiled program with its policy's flags.
 *
 * scmpc_load() of @prog with @p's stored flags (scmpc_policy_flags()) added to
 * @o->seccomp_flags; @p may be NULL.
 *
 * Return: as scmpc_load(); -EINVAL for a NULL @prog or a malformed @o.
 */
SCMPC_API int scmpc_load_prog(const scmpc_prog *prog, const scmpc_policy *p,
			      const struct scmpc_load_opts *o, struct scmpc_load_result *res,
			      scmpc_diag *d);

/**
 * scmpc_filter_flag() - The seccomp filter flag a name spells.
 *
 * @name with or without the SECCOMP_FILTER_FLAG_ prefix, in any case, '-' for
 * '_'.  *@oci (if not NULL) says whether an OCI profile's "flags" may carry it
 * (TSYNC, LOG, SPEC_ALLOW, WAIT_KILLABLE_RECV: the ones runc passes on).
 *
 * Return: the SECCOMP_FILTER_FLAG_* bit; 0 when @name names none or is NULL.
 */
SCMPC_API unsigned scmpc_filter_flag(const char *name, bool *oci);
/**
 * scmpc_filter_flag_name() - The name of one seccomp filter flag.
 *
 * Return: the name of @bit without the prefix ("TSYNC"), a static string; NULL
 * when @bit is no single known flag.
 */
SCMPC_API const char *scmpc_filter_flag_name(unsigned bit);
/**
 * scmpc_kernel_running() - The version of the running kernel.
 *
 * Return: SCMPC_KERNEL_VERSION(major, minor, 0) from uname(); 0 when uname()
 * does not say.
 */
SCMPC_API unsigned scmpc_kernel_running(void);

/**
 * scmpc_probe_flags() - Whether the running kernel takes a set of filter flags.
 *
 * Asks seccomp(2) with no program, which installs nothing.  @flags is a
 * SECCOMP_FILTER_FLAG_* combination; a combination the kernel refuses answers
 * 0.
 *
 * Return: 1 yes, 0 no; a negative errno when seccomp(2) cannot be asked
 * (-ENOSYS, or what a filter already loaded makes it return), with @d's
 * message.
 */
SCMPC_API int scmpc_probe_flags(unsigned flags, scmpc_diag *d);
/**
 * scmpc_probe_action() - Whether the running kernel knows an action.
 *
 * @act with or without data (the data is not asked about).
 * SECCOMP_GET_ACTION_AVAIL is asked first; when it cannot be, the answer comes
 * from /proc/sys/kernel/seccomp/actions_avail or the kernel's release, else
 * Linux 3.5 is assumed, and @d gets a warning saying which.
 *
 * Return: 1 yes, 0 no (never an error).
 */
SCMPC_API int scmpc_probe_action(uint32_t act, scmpc_diag *d);

/* ------------------------------------------------------ user notification */

/* A receiver on a NEW_LISTENER fd, with buffers of the sizes the running
 * kernel reports (SECCOMP_GET_NOTIF_SIZES).  It does not own the fd.  One
 * handle per supervisor thread. */
typedef struct scmpc_notify scmpc_notify;

/**
 * scmpc_notify_new() - Wrap a listener fd for receiving requests.
 *
 * @listener_fd stays the caller's: the handle does not own or close it.  The
 * buffers are sized as the running kernel reports (SECCOMP_GET_NOTIF_SIZES).
 *
 * Return: 0 with *@out a handle the caller frees with scmpc_notify_free();
 * -EINVAL for a NULL @out or an fd that is not a seccomp listener
 * (/proc/self/fd names it "anon_inode:seccomp notify"; without /proc, the first
 * receive tells), -EBADF for a negative or closed fd, -EOPNOTSUPP for a kernel
 * without user notification, -ENOMEM; @d gets the message.
 * scmpc_notify_handoff() checks its fd the same way.
 */
SCMPC_API int scmpc_notify_new(int listener_fd, scmpc_notify **out, scmpc_diag *d);
/**
 * scmpc_notify_free() - Free a notification handle.
 *
 * The request scmpc_notify_receive() pointed to is freed with it; the listener
 * fd is not closed.  NULL is ignored.
 */
SCMPC_API void scmpc_notify_free(scmpc_notify *n);
/**
 * scmpc_notify_receive() - Wait for the next request.
 *
 * *@req points into @n until the next receive or scmpc_notify_free().
 *
 * Return: 0; -EINVAL for a NULL argument or an fd that is no listener, -EINTR
 * when a signal interrupted the wait, -ENOENT when the request was withdrawn
 * (its caller died or was interrupted) before it was read, else the ioctl's
 * errno; @d gets the message.
 */
SCMPC_API int scmpc_notify_receive(scmpc_notify *n, const struct seccomp_notif **req,
				   scmpc_diag *d);
/**
 * scmpc_notify_id_valid() - Whether a request is still pending.
 *
 * Check it after reading the caller's memory and before acting on it: the
 * caller may have died and its pid been reused.
 *
 * Return: 1 while request @id is pending (its caller still waits), 0 when it is
 * gone; -EINVAL for a NULL @n, else the ioctl's errno, with @d's message.
 */
SCMPC_API int scmpc_notify_id_valid(const scmpc_notify *n, uint64_t id, scmpc_diag *d);

#define SCMPC_NOTIFY_CONTINUE 0x1U	/* let the call run (SECCOMP_USER_NOTIF_FLAG_CONTINUE) */

/**
 * scmpc_notify_respond() - Answer a request.
 *
 * The call of request @id fails with errno @err (1..4095) or, with @err 0,
 * returns @val.  With SCMPC_NOTIFY_CONTINUE (@val and @err 0) the kernel runs
 * the call as made, so CONTINUE must not be used to approve arguments read from
 * the caller's memory, which may change in between.
 *
 * Return: 0; -ENOENT when the request is gone; -EINVAL for a NULL @n, unknown
 * @flags, @err out of range, CONTINUE with a value or an errno, or a kernel
 * that refuses CONTINUE (before 5.5); -ENOMEM, else the ioctl's errno; @d gets
 * the message.
 */
SCMPC_API int scmpc_notify_respond(const scmpc_notify *n, uint64_t id, int64_t val, int err,
				   unsigned flags, scmpc_diag *d);

#define SCMPC_ADDFD_SEND 0x1U	/* answer the request with the new fd (Linux 5.14) */
#define SCMPC_ADDFD_CLOEXEC 0x2U	/* the new fd is close-on-exec */

/**
 * scmpc_notify_addfd() - Put a copy of an fd into the notified process.
 *
 * A copy of this process's @srcfd goes into the process of request @id
 * (SECCOMP_IOCTL_NOTIF_ADDFD, Linux 5.9), at @newfd when it is >= 0 (an fd
 * there is closed first) or at its lowest free number.  With SCMPC_ADDFD_SEND
 * the request is answered too, with the new fd as the call's result, atomically
 * (accept(2)- or open(2)-like calls); otherwise answer it with
 * scmpc_notify_respond().  @srcfd stays the caller's.
 *
 * Return: the fd number in the notified process; -ENOENT when the request is
 * gone, -EINPROGRESS when it is being answered, -EOPNOTSUPP for a kernel
 * without ADDFD (or SEND), -EINVAL for a NULL @n, unknown @flags or what the
 * kernel refuses, -EBADF for a negative @srcfd, else the ioctl's errno; @d gets
 * the message.
 */
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

/**
 * scmpc_notify_handoff() - Hand a listener fd to a seccomp agent, as runc and
 * crun do.
 *
 * Connects an AF_UNIX stream socket to @socket_path, sends one message whose
 * data is the process state @st as JSON ({"ociVersion", "fds": ["seccompFd"],
 * "pid", "metadata", "state": {"ociVersion", "id", "status", "pid", "bundle",
 * "annotations"}}, in runc's order, compact) and whose SCM_RIGHTS control
 * message carries @listener_fd, then closes the socket.  Nothing is read back.
 * The caller keeps its fd (the agent gets a copy).
 *
 * Return: 0; -EINVAL for a NULL or malformed @st, a listener fd that is none
 * (as scmpc_notify_new() checks it) or a relative path, -EBADF for a closed fd,
 * -ENAMETOOLONG for a path an AF_UNIX address cannot hold, -EIO when the agent
 * takes part of the message, -ENOMEM, else the socket call's errno; @d gets the
 * message.
 */
SCMPC_API int scmpc_notify_handoff(int listener_fd, const char *socket_path,
				   const struct scmpc_process_state *st, scmpc_diag *d);

/* ---------------------------------------------------------- introspection */

#define SCMPC_INTROSPECT_STOPPED 0x1U	/* the caller already holds TID in a ptrace-stop */

struct scmpc_introspect_opts {
	size_t sz;		/* sizeof(struct scmpc_introspect_opts) */
	unsigned flags;		/* SCMPC_INTROSPECT_* */
};

/**
 * scmpc_introspect() - Read back a thread's filters.
 *
 * Thread @tid's filters, oldest first, as loaded (cBPF), with
 * PTRACE_SECCOMP_GET_FILTER.  Needs CAP_SYS_ADMIN, a caller not under seccomp
 * itself, and a kernel with CONFIG_CHECKPOINT_RESTORE.  Unless
 * SCMPC_INTROSPECT_STOPPED, @tid is attached with PTRACE_SEIZE, stopped with
 * PTRACE_INTERRUPT and detached again (a signal that arrives meanwhile is
 * passed on); the wait is on @tid alone, so if @tid exits meanwhile and is the
 * caller's child, its exit status is consumed.  A thread in strict mode has no
 * filters (0, with a warning).
 *
 * Return: the count, with *@out a malloc'ed array the caller frees with
 * scmpc_prog_array_free() (NULL when there are no filters); -EINVAL for a NULL
 * @out, a negative @tid, unknown flags or a malformed @o, -ESRCH for no such
 * thread (or a zombie), -EACCES without the privilege, else ptrace's errno; @d
 * gets the message.
 */
SCMPC_API int scmpc_introspect(pid_t tid, const struct scmpc_introspect_opts *o,
			       scmpc_prog ***out, scmpc_diag *d);
/**
 * scmpc_prog_array_free() - Free an array of programs and the programs in it.
 *
 * For the arrays scmpc_introspect() and scmpc_compile_split() return:
 * scmpc_prog_free() on each of the @n programs, then free() on the array.  NULL
 * is ignored.
 */
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
/* Every number no table of its ABI names (and -1) decided by the default,
 * the unknown-syscall action or a limit, never by a rule: the shape an OCI
 * profile, which names calls, can say (scmpc_policy_profile()).  Refused
 * with -ENOTSUP when the program's decision has no such shape. */
#define SCMPC_LIFT_NAMED 0x2U

/**
 * struct scmpc_progress - Where long work reports how far it is.
 * @sz: sizeof(struct scmpc_progress)
 * @fn: called from the calling thread between steps with @user, the stage
 *      ("compile", "split", "verify", "optimize", "intersect", "canary":
 *      static strings)
 *      and done of total
 *      units (total > 0, done <= total; a stage ends with done == total); it
 *      must not call scmpc on the objects of the call it reports on
 * @user: passed to @fn
 *
 * For work that can take seconds (scmpc_compile() of a large policy,
 * scmpc_compile_split(), scmpc_optimize(), scmpc_intersect(),
 * scmpc_canary()), so that a caller can show it: the library prints
 * nothing.  The caller owns the struct; the progress field of the compile,
 * split, lift and compare options points to it (NULL: no reports).  A malformed one (sz too small, unknown fields set)
 * is refused with -EINVAL, like the options struct that holds it.
 */
struct scmpc_progress {
	size_t sz;			/* sizeof(struct scmpc_progress) */
	void (*fn)(void *user, const char *stage, uint64_t done, uint64_t total);
	void *user;
};

struct scmpc_lift_opts {
	size_t sz;			/* sizeof(struct scmpc_lift_opts) */
	unsigned flags;			/* SCMPC_LIFT_* */
	/* ABIs to keep (NULL: every ABI scmpc knows).  An ABI left out gets the
	 * bad-arch action in the policy, whatever the program does for it. */
	const enum scmpc_arch *arches;
	size_t narches;
	uint32_t bad_arch_action;	/* with SCMPC_LIFT_BAD_ARCH */
	size_t max_paths;		/* paths through the program(s); 0 = 65536 */
	const struct scmpc_progress *progress;	/* scmpc_optimize()'s steps; NULL: none */
};

/**
 * scmpc_lift() - Lift a program to the policy it decides.
 *
 * As the section above describes: every path followed, nothing approximated,
 * the result checked on a witness of every path.  @o (NULL: defaults) limits
 * the ABIs, sets the bad-arch action and bounds the paths.
 *
 * Return: 0 with *@out a policy the caller frees with scmpc_policy_free();
 * otherwise *@out is NULL (when @out is not) and a negative errno with @d's
 * message (and, for -ENOTSUP, the instruction): -EINVAL for a NULL argument, a
 * malformed @o or a program the kernel would not load; -ENOTSUP for what cannot
 * be lifted exactly (the section above lists it); -E2BIG for more paths than
 * max_paths or more than 2e8 instructions walked; -ENOMEM.
 */
SCMPC_API int scmpc_lift(const struct sock_filter *insns, size_t len,
			 const struct scmpc_lift_opts *o, scmpc_policy **out, scmpc_diag *d);

/**
 * scmpc_merge_stack() - Lift a stack of programs to the policy it decides as
 * one.
 *
 * @progs[0..@n) with @lens: @progs[0] is the oldest filter (installed first),
 * @progs[@n - 1] the newest.  As seccomp_run_filters() runs them: every filter
 * runs, newest first, and a filter's return replaces the result so far only
 * when its action is strictly lower ((int32_t)(ret & 0xffff0000)), so between
 * equal actions the newer filter's data wins; with no filter below ALLOW the
 * result is ALLOW.  Lifted as scmpc_lift() describes, the paths running through
 * every filter.  Compiled, the policy is one program that replaces the stack.
 *
 * Return: as scmpc_lift(), errors naming the filter
 * ("filter 2 (of 5, oldest 0), insn 14: ..."); -E2BIG too for more filters
 * than can be merged.
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
	/* scmpc_intersect()'s and scmpc_canary()'s steps (lift, compile,
	 * proof); NULL: none */
	const struct scmpc_progress *progress;
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

/**
 * scmpc_diff() - Prove whether two programs decide every call alike.
 *
 * @a and @b are run side by side over every input (the section above); @o
 * (NULL: defaults) bounds the joint paths and, with SCMPC_COMPARE_IGNORE_DATA,
 * counts other data for the same action as alike.
 *
 * Return: 0 with *@out an answer the caller frees with scmpc_answer_free(): its
 * count is 0 when the programs decide alike (a proof), else its regions are
 * where they do not.  Otherwise a negative errno with @d saying why: -EINVAL
 * for a NULL @out, an empty program or one the kernel would not load, unknown
 * flags or a malformed @o; -ENOTSUP for a program the engine cannot follow,
 * naming it and the instruction; -E2BIG past a bound; -ENOMEM.
 */
SCMPC_API int scmpc_diff(const struct sock_filter *a, size_t alen, const struct sock_filter *b,
			 size_t blen, const struct scmpc_compare_opts *o, scmpc_answer **out,
			 scmpc_diag *d);
/**
 * scmpc_subset() - Prove whether one program is at least as strict as another.
 *
 * Whether @candidate decides every call at least as restrictively as @base by
 * the kernel's precedence (KILL_PROCESS, KILL_THREAD, TRAP, ERRNO, USER_NOTIF,
 * TRACE, LOG, ALLOW).
 *
 * Return: as scmpc_diff(): count 0 when it does (a proof), else the regions
 * where it does not (action[0] is @base's, action[1] @candidate's).
 */
SCMPC_API int scmpc_subset(const struct sock_filter *base, size_t blen,
			   const struct sock_filter *candidate, size_t clen,
			   const struct scmpc_compare_opts *o, scmpc_answer **out, scmpc_diag *d);
/**
 * scmpc_answer_count() - Count the regions of an answer.
 *
 * Return: how many regions @ans holds (0: the proof held), 0 for a NULL @ans.
 */
SCMPC_API size_t scmpc_answer_count(const scmpc_answer *ans);
/**
 * scmpc_answer_region() - Read region @i of an answer.
 *
 * Fills @out (set its sz) with a copy; nothing of it points into @ans.
 *
 * Return: 0, or -EINVAL for a NULL @ans or @out, @i past the end, or an @out
 * whose sz stops before its audit field.
 */
SCMPC_API int scmpc_answer_region(const scmpc_answer *ans, size_t i, struct scmpc_region *out);
/**
 * scmpc_answer_paths() - The joint paths the engine walked to give an answer.
 *
 * Return: their number, 0 for a NULL @ans.
 */
SCMPC_API size_t scmpc_answer_paths(const scmpc_answer *ans);
/**
 * scmpc_answer_free() - Free an answer.
 *
 * NULL is ignored.
 */
SCMPC_API void scmpc_answer_free(scmpc_answer *ans);

/**
 * scmpc_intersect() - One program as strict as a stack of them.
 *
 * A program that decides every call as the most restrictive of @progs[0..@n)
 * (oldest first, as a stack of them: the kernel's precedence, ties to the
 * newest's data), proven so over every input before it is returned.  @o takes
 * max_paths only (flags must be 0).
 *
 * Return: 0 with *@out a program the caller frees with scmpc_prog_free() and,
 * when @policy is not NULL, *@policy the policy it was compiled from (the stack
 * lifted, scmpc_merge_stack()), freed with scmpc_policy_free(); otherwise a
 * negative errno with @d's message: -EINVAL for a NULL or empty argument, flags
 * or a malformed @o; -E2BIG for too many programs or past a bound; the errors
 * of scmpc_merge_stack() and scmpc_compile(); -EPROTO when the proof fails (an
 * internal error).
 */
SCMPC_API int scmpc_intersect(const struct sock_filter *const *progs, const size_t *lens,
			      size_t n, const struct scmpc_compare_opts *o, scmpc_prog **out,
			      scmpc_policy **policy, scmpc_diag *d);

/* How scmpc_policy_profile() writes a profile, growable (set sz). */
struct scmpc_oci_opts {
	size_t sz;			/* sizeof(struct scmpc_oci_opts) */
	enum scmpc_runtime runtime;	/* whose reading it is for; default RUNC */
	unsigned flags;			/* none yet: 0 */
};

/**
 * scmpc_policy_profile() - write a policy as an OCI seccomp profile
 * @p: the policy, typically lifted with SCMPC_LIFT_NAMED (an intersection
 *      lifted from scmpc_intersect()'s program)
 * @o: the runtime it is for (NULL: runc); refused when malformed
 * @out: the JSON text, malloc'ed, NUL-terminated
 * @len: its length in bytes
 * @d: why not
 *
 * One entry per rule, named as OCI names calls: one list for every ABI
 * of the profile, so a call must be decided alike on every ABI that has
 * it.  A rule whose argument's values no single comparison says (an
 * interval, values left out with !=, the low word alone compared by order
 * on a 64-bit ABI) becomes one entry per aligned block of those values,
 * each a masked equality (at most 128): the blocks are disjoint and share
 * the rule's action, so runc, which makes an argument named twice in one
 * entry two rules, matches them as the rule.  What cannot be said is
 * refused with -ENOTSUP naming it: a number no table names, a rule past
 * 128 blocks.  For runc's modes each limit's number is named, with the
 * default action, so that runc's stub starts there.  The runtime's
 * reading (libseccomp's order, what numbers above every name get) is not
 * modelled: prove the profile's compile in O->runtime's mode against the
 * program it stands for (scmpc_diff()), as `scmp-compile intersect -f
 * oci` does before it writes.
 *
 * Return: 0, or a negative errno with D saying why.
 */
SCMPC_API int scmpc_policy_profile(const scmpc_policy *p, const struct scmpc_oci_opts *o,
				   char **out, size_t *len, scmpc_diag *d);

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

/**
 * scmpc_expect() - Prove whether a program decides a set of calls as expected.
 *
 * Whether @insns decides every call of @c as @action: every path of the program
 * that meets the set is looked at, so a yes covers every call of it.
 *
 * Return: 1 when it does (a proof over every call of the set); 0 with *@witness
 * a call of the set it decides otherwise (confirmed by scmpc_emulate()) and
 * *@got its decision; or a negative errno with @d's message: -EINVAL for a
 * malformed @c (unsorted exceptions included) or a NULL @witness or @got;
 * -ENOTSUP for a program the engine cannot follow, naming the instruction;
 * -E2BIG past a bound; -ENOMEM.
 */
SCMPC_API int scmpc_expect(const struct sock_filter *insns, size_t len, const struct scmpc_calls *c,
			   uint32_t action, struct seccomp_data *witness, uint32_t *got,
			   scmpc_diag *d);

/**
 * scmpc_canary() - A program that logs what a stricter one would break.
 *
 * One program that decides every call as @enforced does, except that where
 * @enforced returns ALLOW and @candidate would not let the call run (neither
 * ALLOW nor LOG), it returns LOG.  Installed in place of @enforced, the
 * kernel's log then names each call @candidate would break, and nothing else
 * changes.  Proven over every input before it is returned.  @o takes max_paths
 * only (flags must be 0).
 *
 * Return: 0 with *@out a program the caller frees with scmpc_prog_free() and,
 * when @policy is not NULL, *@policy the policy compiled, freed with
 * scmpc_policy_free(); otherwise a negative errno with @d's message: -EINVAL
 * for a NULL @out, an empty program, one the kernel would not load, flags or a
 * malformed @o; the errors of lifting and of scmpc_compile(); -EPROTO when the
 * proof fails (an internal error).
 */
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
	/* With kept_input, why, as a sentence: no layout was better, or none
	   fit (the kernel's 4096 instructions, or a bound of the compiler's,
	   named); "" otherwise.  Appended: a caller's older sz stops short of
	   it and it is not written then. */
	char kept_why[320];
};

/**
 * scmpc_optimize() - Make a program smaller or faster, proven equivalent.
 *
 * @insns lifted (@o as for scmpc_lift(): @o->arches keeps those ABIs, the
 * others get the bad-arch action) and compiled again, the candidate programs
 * (scmpc's default, smallest and shortest layouts) kept only when no larger and
 * no longer on the worst path than @insns, else @insns itself
 * (@info->kept_input); with @o->arches or SCMPC_LIFT_BAD_ARCH, which change
 * what other ABIs get, the smallest candidate (then the shortest).  The result
 * is proven to decide every call of the kept ABIs (of every ABI without
 * @o->arches) as @insns does, over every number and argument value.  @info (may
 * be NULL; set its sz) says what was done.  A lifted policy that compiles to no
 * program the kernel accepts, or that stops the compiler at one of its bounds,
 * keeps @insns too (@info->kept_why names the bound); with @o->arches or
 * SCMPC_LIFT_BAD_ARCH, where @insns is no candidate, that is -E2BIG.
 *
 * Return: 0 with *@out a program the caller frees with scmpc_prog_free() and,
 * when @policy is not NULL, *@policy the lifted policy, freed with
 * scmpc_policy_free(); otherwise a negative errno with @d's message: errors as
 * scmpc_lift()'s, -EINVAL for a NULL @out or a malformed @info, -E2BIG past a
 * bound, naming it.
 */
SCMPC_API int scmpc_optimize(const struct sock_filter *insns, size_t len,
			     const struct scmpc_lift_opts *o, scmpc_prog **out,
			     scmpc_policy **policy, struct scmpc_optimize_info *info,
			     scmpc_diag *d);

/* ---------------------------------------------------------------- record */

/* System calls a command made: one entry per (AUDIT_ARCH, number, six
 * arguments), with how often it came.  Past a million distinct vectors
 * only numbers are kept (scmpc_recording_truncated()). */
typedef struct scmpc_recording scmpc_recording;

/**
 * scmpc_recording_new() - Create an empty recording.
 *
 * Return: the recording, owned by the caller and freed with
 * scmpc_recording_free(); NULL without memory.
 */
SCMPC_API scmpc_recording *scmpc_recording_new(void);
/**
 * scmpc_recording_free() - Free a recording.
 *
 * NULL is ignored.
 */
SCMPC_API void scmpc_recording_free(scmpc_recording *r);
/**
 * scmpc_recording_add() - Count calls of one (AUDIT_ARCH, number, arguments).
 *
 * @count calls with @args (NULL: all zero) are added to their entry, made when
 * new.  Past a million distinct entries only numbers are kept: the arguments of
 * a new vector count as zeros and scmpc_recording_truncated() says so.
 *
 * Return: 0; -EINVAL for a NULL @r, -ENOMEM.
 */
SCMPC_API int scmpc_recording_add(scmpc_recording *r, uint32_t audit, uint32_t nr,
				  const uint64_t args[6], uint64_t count);
/**
 * scmpc_recording_count() - Count a recording's distinct entries.
 *
 * Return: how many distinct (AUDIT_ARCH, number, arguments) entries @r holds, 0
 * for a NULL @r.
 */
SCMPC_API size_t scmpc_recording_count(const scmpc_recording *r);
/**
 * scmpc_recording_calls() - Count the calls in a recording.
 *
 * Return: the sum of every entry's count, 0 for a NULL @r.
 */
SCMPC_API uint64_t scmpc_recording_calls(const scmpc_recording *r);
/**
 * scmpc_recording_truncated() - Whether a recording dropped arguments.
 *
 * Return: true when the recording passed its bound of distinct entries and kept
 * only numbers from then on.
 */
SCMPC_API bool scmpc_recording_truncated(const scmpc_recording *r);
/**
 * scmpc_recording_get() - Read entry @i of a recording.
 *
 * @sd gets the entry's AUDIT_ARCH, number and arguments (the instruction
 * pointer 0) and *@count (if not NULL) how often it came.  Entries are in no
 * particular order but a stable one while nothing is added; each call looks its
 * entry up from the start, so a walk over all of them is quadratic.
 *
 * Return: 0, or -EINVAL for a NULL @r or @sd or @i out of range (0 ..
 * scmpc_recording_count() - 1).
 */
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
/* Record with ptrace (syscall-entry stops, Linux 5.3), not seccomp user
 * notification.  Slower (two stops per call) but needs neither a listener
 * nor no_new_privs: for a kernel without USER_NOTIF or pidfd_getfd, or a
 * process under a filter that refuses them. */
#define SCMPC_RECORD_PTRACE 0x2U
/* Only seccomp user notification: fail rather than fall back to ptrace. */
#define SCMPC_RECORD_NOTIFY 0x4U

struct scmpc_record_info {
	size_t sz;		/* sizeof(struct scmpc_record_info) */
	const char *method;	/* how the calls were seen: "seccomp user
				   notification" or "ptrace" */
	int status;		/* the command's wait status */
	uint64_t calls;		/* every call seen, kept or not */
	double seconds;		/* wall time, the command's with the recorder's */
};

/**
 * scmpc_record() - Record every system call a command makes.
 *
 * Runs @argv[0] (searched in PATH) with @argv and records into @rec every
 * system call it, its threads and children make: each one stops at a filter
 * that returns USER_NOTIF, this process records it and lets it run
 * (SECCOMP_USER_NOTIF_FLAG_CONTINUE).  Needs Linux 5.9 (pidfd_getfd) and sets
 * no_new_privs in the command, so set-user-ID programs lose their privileges.
 * Where no listener can be had before the command runs (an older kernel, a
 * filter that refuses seccomp(2) or pidfd_getfd(2)), the command is recorded
 * with ptrace instead (as with SCMPC_RECORD_PTRACE), with a warning in @d
 * saying why, unless SCMPC_RECORD_NOTIFY.  @info (may be NULL; set its sz)
 * gets how it went, its method which mechanism recorded.
 *
 * Return: 0 when the command ran (@info->status says how it ended); otherwise a
 * negative errno with @d saying why: -EINVAL for a NULL @argv or @rec, unknown
 * flags or both SCMPC_RECORD_PTRACE and SCMPC_RECORD_NOTIFY, a malformed @o or
 * @info; -ECHILD when the child ended before its filter was in place (with
 * SCMPC_RECORD_NOTIFY) or the ptrace recorder ended without a word; -ENOMEM,
 * else the errno of the system call that failed (fork, pidfd_open, poll,
 * ptrace, ...).
 */
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

/**
 * scmpc_recording_profile() - Write a recording as the smallest OCI profile
 * that allows it.
 *
 * The profile allows exactly the calls of @rec on its ABIs; every other call
 * gets the default action.  Names are OCI's (one list for every ABI), so a name
 * recorded on one of the ABIs is allowed on all of them that have it.  @o
 * (NULL: defaults) sets the default action and whether arguments are
 * conditioned.  *@nconds (if not NULL) gets how many argument conditions it
 * holds.
 *
 * Return: 0 with *@out malloc'ed JSON text the caller frees with free(), *@len
 * bytes long; -EINVAL for a NULL @rec, @out or @len, unknown flags, a malformed
 * @o, or a default action that is ALLOW or has no OCI name; -ENOMEM; @d gets
 * the message.
 */
SCMPC_API int scmpc_recording_profile(const scmpc_recording *rec,
				      const struct scmpc_profile_opts *o, char **out,
				      size_t *len, size_t *nconds, scmpc_diag *d);

/**
 * scmpc_profile_cond_args() - The arguments SCMPC_PROFILE_ARGS conditions.
 * @a:		the ABI
 * @nr:		the call's number on it
 *
 * So that a reader of traces knows which arguments must be read exactly
 * (an argument it could not read would make a wrong condition) and which
 * a profile never looks at.
 *
 * Return: bit I set when argument I of the call may get a condition; 0
 * for a call without such arguments or a number @a does not name.
 */
SCMPC_API unsigned scmpc_profile_cond_args(enum scmpc_arch a, uint32_t nr);

/* What scmpc_recording_merge_profile() did; growable (set sz). */
struct scmpc_profile_merge_info {
	size_t sz;		/* sizeof(struct scmpc_profile_merge_info) */
	size_t allowed;		/* distinct recorded calls the base let run already */
	size_t added;		/* distinct recorded calls it did not */
	size_t rules;		/* entries added to the base's "syscalls" */
	size_t nconds;		/* argument conditions in them */
	size_t stricter;	/* regions of calls the base stops that the result
				   stops more strictly (a runtime's ENOSYS stub moved) */
};

/**
 * scmpc_recording_merge_profile() - A base profile widened to a recording.
 * @rec:	the recorded calls
 * @base:	the base profile's JSON text (@base_len bytes)
 * @base_len:	its length
 * @jo:		how the base is read (runtime, flags, target ABI), as
 *		scmpc_policy_from_json() takes it; NULL for its defaults
 * @o:		which rules are written, as for scmpc_recording_profile();
 *		default_action must be 0 (the base's is kept)
 * @out:	the result's JSON text, malloc'ed
 * @len:	its length
 * @info:	what was added (NULL: not asked)
 * @d:		why not, and warnings
 *
 * The result is BASE's text, its default action, architectures and rules
 * untouched, with entries appended to its top-level "syscalls" (one made
 * when there is none) that allow the recorded calls BASE's own compiled
 * program does not let run (neither ALLOW nor LOG), written as
 * scmpc_recording_profile() writes them; when BASE lets every call run,
 * the result is BASE byte for byte.  The result is then read as BASE is
 * and proven: it lets every recorded call with a name run, and BASE
 * decides every call at least as restrictively as it does (by
 * scmpc_subset() over every input, ERRNO data aside: the runtime's ENOSYS
 * stub may cover more numbers), so it allows the union of what BASE
 * allows and the recording.  Calls BASE stops by a rule of its own that
 * an added ALLOW cannot override in @jo's reading, or on an ABI BASE does
 * not list, are refused with -EPERM naming the call, as is a result that
 * stops a call BASE lets run.  -EINVAL for a malformed argument or a base
 * without a top-level defaultAction (an OCI config.json); errors of
 * reading or compiling the base as scmpc_policy_from_json() and
 * scmpc_compile() give them.
 *
 * Return: 0, or a negative errno with @d saying why.
 */
SCMPC_API int scmpc_recording_merge_profile(const scmpc_recording *rec, const char *base,
					    size_t base_len, const struct scmpc_json_opts *jo,
					    const struct scmpc_profile_opts *o, char **out,
					    size_t *len, struct scmpc_profile_merge_info *info,
					    scmpc_diag *d);

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

/**
 * scmpc_policy_explain() - Why a policy decides a call as it does.
 *
 * @p's decision of call @sd, and what made it (the section above), into @out
 * (set its sz): from the rules' reference meaning (scmpc_policy_eval()), never
 * from a program.  @out->action is always scmpc_policy_eval()'s answer.
 *
 * Return: 0; -EINVAL for a NULL argument or an @out whose sz stops before its
 * matching field, the errors of resolving the rules (scmpc_policy_check()),
 * -ENOMEM; @d gets the message.
 */
SCMPC_API int scmpc_policy_explain(const scmpc_policy *p, const struct seccomp_data *sd,
				   struct scmpc_explanation *out, scmpc_diag *d);

/**
 * scmpc_policy_rule_holds() - Whether a rule's conditions hold for a call.
 *
 * The conditions of rule @rule of @p are tested on @sd's arguments as the ABI
 * of @sd's AUDIT_ARCH and number compares them (the low word on 32-bit ABIs,
 * and there, under the LIBSECCOMP merge, the low word of the constants as
 * libseccomp keeps them; the whole argument for an AUDIT_ARCH no ABI has).
 * Whether the rule names @sd's call is not asked.  *@mask (if not NULL) gets
 * bit I set when condition I holds.
 *
 * Return: 1 when all hold, 0 when not; -EINVAL for a NULL @p or @sd or @rule
 * out of range.
 */
SCMPC_API int scmpc_policy_rule_holds(const scmpc_policy *p, size_t rule,
				      const struct seccomp_data *sd, uint64_t *mask);

/**
 * scmpc_policy_copy() - Copy a policy, with all or some of its rules.
 *
 * A copy of @p with every setting and the rules @keep selects (@keep has
 * scmpc_policy_rule_count() entries; NULL keeps them all), in their order with
 * their origins.  So that what a rule decides can be measured by comparing the
 * policy with and without it, or by a copy holding only the rules of one call,
 * and the same rules read under another merge (scmpc_policy_set_merge() on the
 * copy).
 *
 * Return: 0 with *@out the copy, which the caller frees with
 * scmpc_policy_free(); -EINVAL for a NULL @p or @out, -ENOMEM (then *@out is
 * NULL); @d gets the message.
 */
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
 * number space and with argument probes around the constants of each call
 * with rules (src/check/probe_args.c), and on one ABI the policy lacks.  A policy that fits gives one
 * program.  scmpc_compile_split() below says what it returns and when it
 * fails.
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
	const struct scmpc_progress *progress;	/* groups packed, pieces checked */
};

/**
 * scmpc_compile_split() - Compile a policy too large for one program into a
 * stack.
 *
 * As the section above describes: the fewest programs that, installed together,
 * decide every call as @p does, each proven against its own part.  @o (NULL:
 * defaults) bounds the programs and sets the compile flags and workload of
 * each.
 *
 * Return: how many programs, with *@out a malloc'ed array, oldest first
 * (install them in that order; any order decides alike), the caller frees with
 * scmpc_prog_array_free(); otherwise a negative errno with @d's message:
 * -EINVAL for a NULL @p or @out, unknown flags or a malformed @o, max_insns
 * above 4096; -E2BIG when one group alone does not fit (@d names one of its
 * rules) or more than max_progs would be needed; -ENOTSUP when USER_NOTIF is
 * the default, unknown, bad-arch or a limit's action and more than one program
 * is needed (every program would return it, and a chain has only one listener);
 * the errors of scmpc_compile().  A warning says when the programs together
 * exceed the chain budget.
 */
SCMPC_API int scmpc_compile_split(const scmpc_policy *p, const struct scmpc_split_opts *o,
				  scmpc_prog ***out, scmpc_diag *d);

/**
 * scmpc_load_set() - Install a stack of programs as one.
 *
 * @progs[0..@n) in that order (scmpc_load_prog() for each, with @p's flags; @p
 * may be NULL).  The whole set is checked first (the kernel's rules, the flags
 * and actions, and the chain budget for all of them together), so that a
 * refusal installs nothing.  With SECCOMP_FILTER_FLAG_NEW_LISTENER in the
 * flags, only the one program that returns USER_NOTIF gets the listener.
 * Should the kernel still refuse program K after K-1 were installed, the error
 * says so: the process then holds part of the stack, which allows what the
 * missing programs deny, and must not go on to run what the set was meant to
 * confine.  @res describes the last program loaded.
 *
 * The order: every installed filter runs on the seccomp(2) call that
 * installs the next, so before anything is installed each program is run
 * (scmpc_emulate()) on the exact call, flags and sock_fprog address
 * included, that installs each other one; the set goes in the given order
 * where that lets every call through, else in one that does (the kernel
 * keeps the most restrictive action whatever the order).  When no order
 * does, or a filter of @o->chain denies an install, nothing is installed.
 *
 * Return: the listener fd with NEW_LISTENER, else 0; or a negative errno with
 * @d's message: -EINVAL for no programs, a NULL one or several that return
 * USER_NOTIF with NEW_LISTENER; -ENOMEM when the set exceeds the chain budget;
 * -EPERM when no order installs the set (@d names the program, what it returns
 * and, with @p, the rule or action of @p that decides it); otherwise as
 * scmpc_load().
 */
SCMPC_API int scmpc_load_set(const scmpc_prog *const *progs, size_t n, const scmpc_policy *p,
			     const struct scmpc_load_opts *o, struct scmpc_load_result *res,
			     scmpc_diag *d);

#ifdef __cplusplus
}
#endif
#endif /* SCMPC_H */

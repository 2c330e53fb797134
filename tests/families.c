/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Generated policies shared by the benchmarks and the suites (families.h). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "families.h"
#include "testutil.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static scmpc_policy *family_new(uint32_t def)
{
	scmpc_policy *p = scmpc_policy_new(def);
	if (p && scmpc_policy_add_arch(p, SCMPC_ARCH_X86_64, NULL) < 0) {
		scmpc_policy_free(p);
		return NULL;
	}
	return p;
}

static bool add_rule(scmpc_policy *p, const char *name, uint32_t act,
		     const struct scmpc_cond *c, size_t nc)
{
	struct scmpc_rule r = { .sz = sizeof(r), .syscall = name, .action = act, .conds = c,
				.nconds = nc };
	return scmpc_policy_add_rule(p, &r, NULL) >= 0;
}

static scmpc_policy *fail(scmpc_policy *p)
{
	scmpc_policy_free(p);
	return NULL;
}

scmpc_policy *family_tiny(unsigned rules)
{
	static const char *const names[] = { "read", "write", "exit_group" };
	scmpc_policy *p = family_new(SCMPC_ACT_ERRNO(1));
	for (unsigned i = 0; p && i < rules && i < N_OF(names); i++)
		if (!add_rule(p, names[i], SCMPC_ACT_ALLOW, NULL, 0))
			return fail(p);
	return p;
}

scmpc_policy *family_value_set(const char *name, unsigned n, bool wide)
{
	scmpc_policy *p = family_new(SCMPC_ACT_ERRNO(1));
	for (unsigned i = 0; p && i < n; i++) {
		uint64_t v = 3 + 3ULL * i;
		if (wide)
			v |= (0x10000001ULL * (i + 1)) << 32;
		struct scmpc_cond c = { .arg = 0, .op = SCMPC_OP_EQ, .value = v };
		if (!add_rule(p, name, SCMPC_ACT_ALLOW, &c, 1))
			return fail(p);
	}
	return p;
}

scmpc_policy *family_wide_sets(bool own)
{
	static const char *const names[] = { "ioctl", "fcntl", "prctl" };
	scmpc_policy *p = family_new(SCMPC_ACT_ERRNO(1));
	for (unsigned c = 0; p && c < 3; c++)
		for (unsigned i = 0; i < 19; i++) {
			unsigned k = own ? i + 50 * c : i;
			uint64_t v = (3 + 3ULL * i + (own ? 1000ULL * c : 0)) |
				     (0x10000001ULL * (k + 1)) << 32;
			struct scmpc_cond cd = { .arg = 0, .op = SCMPC_OP_EQ, .value = v };
			if (!add_rule(p, names[c], SCMPC_ACT_ALLOW, &cd, 1))
				return fail(p);
		}
	return p;
}

scmpc_policy *family_vmm(void)
{
	scmpc_policy *p = family_new(SCMPC_ACT_KILL_PROCESS);
	static const char *const plain[] = { "read", "write", "close", "exit", "exit_group",
					     "futex", "epoll_wait", "epoll_ctl", "eventfd2",
					     "lseek", "rt_sigreturn", "rt_sigprocmask", "sched_yield",
					     "timerfd_settime", "timerfd_create", "getrandom", "brk",
					     "munmap" };
	for (size_t i = 0; p && i < N_OF(plain); i++)
		if (!add_rule(p, plain[i], SCMPC_ACT_ALLOW, NULL, 0))
			return fail(p);
	/* 40 ioctls: fd >= 3 and < 1024 (a device), one request each */
	for (unsigned i = 0; p && i < 40; i++) {
		struct scmpc_cond c[3] = {
			{ .arg = 0, .op = SCMPC_OP_GE, .value = 3 },
			{ .arg = 1, .op = SCMPC_OP_EQ, .value = 0xae00 + 7 * i },
			{ .arg = 2, .op = SCMPC_OP_LT, .value = 1ULL << 47 },
		};
		if (!add_rule(p, "ioctl", SCMPC_ACT_ALLOW, c, i % 2 ? 3 : 2))
			return fail(p);
	}
	static const uint64_t fcntl_cmds[] = { 1, 2, 3, 4, 1030 };
	for (size_t i = 0; p && i < N_OF(fcntl_cmds); i++) {
		struct scmpc_cond c[2] = { { .arg = 0, .op = SCMPC_OP_LE, .value = 4095 },
					   { .arg = 1, .op = SCMPC_OP_EQ, .value = fcntl_cmds[i] } };
		if (!add_rule(p, "fcntl", SCMPC_ACT_ALLOW, c, 2))
			return fail(p);
	}
	static const uint64_t prots[] = { 0, 1, 3, 5 };
	for (size_t i = 0; p && i < N_OF(prots); i++) {
		struct scmpc_cond c[3] = {
			{ .arg = 2, .op = SCMPC_OP_MASKED_EQ, .value = 7, .value2 = prots[i] },
			{ .arg = 3, .op = SCMPC_OP_MASKED_EQ, .value = 0x20, .value2 = 0x20 },
			{ .arg = 4, .op = SCMPC_OP_EQ, .value = UINT64_MAX },
		};
		if (!add_rule(p, "mmap", SCMPC_ACT_ALLOW, c, 3))
			return fail(p);
	}
	static const uint64_t fams[] = { 1, 16, 40 };
	for (size_t i = 0; p && i < N_OF(fams); i++) {
		struct scmpc_cond c[2] = {
			{ .arg = 0, .op = SCMPC_OP_EQ, .value = fams[i] },
			{ .arg = 1, .op = SCMPC_OP_MASKED_EQ, .value = 0xf, .value2 = 1 + (i == 1) },
		};
		if (!add_rule(p, "socket", SCMPC_ACT_ALLOW, c, 2))
			return fail(p);
	}
	static const char *const two[] = { "madvise", "mprotect", "accept4", "sendmsg",
					   "recvmsg", "openat" };
	for (size_t i = 0; p && i < N_OF(two); i++) {
		struct scmpc_cond c[2] = { { .arg = 1, .op = SCMPC_OP_GT, .value = 0 },
					   { .arg = 2, .op = SCMPC_OP_LE, .value = 14 + i } };
		if (!add_rule(p, two[i], SCMPC_ACT_ALLOW, c, 2))
			return fail(p);
	}
	return p;
}

scmpc_policy *family_synthetic(unsigned n, unsigned r)
{
	scmpc_policy *p = scmpc_policy_new(SCMPC_ACT_ERRNO(1));
	if (!p || scmpc_policy_add_arch(p, SCMPC_ARCH_X86_64, NULL) < 0)
		return fail(p);
	unsigned made = 0;
	for (uint32_t nr = 0; made < n && nr < 1024; nr++) {
		char name[64];
		if (!scmpc_syscall_name(SCMPC_ARCH_X86_64, nr, name, sizeof(name)))
			continue;
		for (unsigned j = 0; j < (r ? r : 1); j++) {
			struct scmpc_cond c = { .arg = 0, .op = SCMPC_OP_EQ,
						.value = ((uint64_t)nr << 16) + 3 * j + 1 };
			if (!add_rule(p, name, SCMPC_ACT_ALLOW, &c, r ? 1 : 0))
				return fail(p);
		}
		made++;
	}
	return p;
}

scmpc_policy *family_scattered(unsigned n)
{
	const uint32_t top = 450;
	scmpc_policy *p = family_new(SCMPC_ACT_ERRNO(1));
	for (unsigned i = 0; p && i < n; i++) {
		char name[64];
		uint32_t nr = (uint32_t)((uint64_t)i * top / n + top / (2 * n));
		while (nr < top && !scmpc_syscall_name(SCMPC_ARCH_X86_64, nr, name, sizeof(name)))
			nr++;
		if (nr < top && !add_rule(p, name, SCMPC_ACT_ALLOW, NULL, 0))
			return fail(p);
	}
	return p;
}

/* A network daemon's allowlist, no argument checks, in the order such
 * lists are written (grouped by purpose, not by number). */
static const char *const daemon_calls[] = {
	"read", "write", "readv", "writev", "pread64", "pwrite64", "close", "openat",
	"fstat", "newfstatat", "lseek", "fcntl", "ioctl", "dup", "dup3", "pipe2",
	"mmap", "munmap", "mprotect", "mremap", "madvise", "brk", "futex",
	"set_robust_list", "rseq", "sched_yield", "sched_getaffinity", "clock_gettime",
	"clock_nanosleep", "nanosleep", "gettimeofday", "getrandom", "epoll_create1",
	"epoll_ctl", "epoll_wait", "epoll_pwait", "eventfd2", "timerfd_create",
	"timerfd_settime", "signalfd4", "rt_sigaction", "rt_sigprocmask", "rt_sigreturn",
	"sigaltstack", "socket", "bind", "listen", "accept4", "connect", "getsockname",
	"getpeername", "getsockopt", "setsockopt", "sendto", "recvfrom", "sendmsg",
	"recvmsg", "shutdown", "poll", "ppoll", "getpid", "gettid", "getuid", "geteuid",
	"getgid", "getegid", "getppid", "uname", "prctl", "arch_prctl", "set_tid_address",
	"exit", "exit_group", "wait4", "kill", "tgkill", "clone", "clone3", "execve",
	"getcwd", "chdir", "unlink", "rename", "mkdir", "statx", "access", "readlink",
	"getdents64", "prlimit64", "restart_syscall", "umask",
};

scmpc_policy *family_allowlist(unsigned n)
{
	scmpc_policy *p = family_new(SCMPC_ACT_ERRNO(1));
	for (unsigned i = 0; p && i < n && i < N_OF(daemon_calls); i++)
		if (!add_rule(p, daemon_calls[i], SCMPC_ACT_ALLOW, NULL, 0))
			return fail(p);
	return p;
}

/* One argument test of a Firecracker-shaped rule. */
struct fc_arg {
	unsigned arg;
	uint64_t value;
};

/* A call allowed when each of its arguments has its value; calls with
 * several values on one argument are one rule per value. */
struct fc_rule {
	const char *name;
	unsigned nargs;
	struct fc_arg a[3];
};

/* Firecracker's filters, as public in its repository's JSON: which calls
 * each thread may make and with which argument values (ioctl requests,
 * futex operations, mmap flags, signals); the shapes, not the files. */
static const char *const fc_vmm_plain[] = {
	"epoll_ctl", "epoll_pwait", "exit", "exit_group", "open", "read", "write", "writev",
	"fsync", "close", "uname", "eventfd2", "io_uring_enter", "io_uring_setup",
	"io_uring_register", "brk", "clock_gettime", "connect", "fstat", "ftruncate", "lseek",
	"mremap", "munmap", "recvfrom", "rt_sigprocmask", "rt_sigreturn", "sigaltstack",
	"sched_yield",
};
static const struct fc_rule fc_vmm_args[] = {
	{ "accept4", 1, { { 3, 0x80000 } } },
	{ "fcntl", 2, { { 1, 2 }, { 2, 1 } } },
	{ "futex", 1, { { 1, 0 } } }, { "futex", 1, { { 1, 1 } } },
	{ "futex", 1, { { 1, 128 } } }, { "futex", 1, { { 1, 137 } } },
	{ "futex", 1, { { 1, 129 } } },
	{ "madvise", 1, { { 2, 4 } } },
	{ "mmap", 1, { { 3, 50 } } }, { "mmap", 1, { { 3, 1 } } },
	{ "mmap", 1, { { 3, 34 } } }, { "mmap", 1, { { 3, 32769 } } },
	{ "rt_sigaction", 1, { { 0, 6 } } },
	{ "socket", 3, { { 0, 1 }, { 1, 0x80001 }, { 2, 0 } } },
	{ "tkill", 1, { { 1, 6 } } }, { "tkill", 1, { { 1, 35 } } },
	{ "timerfd_settime", 1, { { 1, 0 } } },
	{ "ioctl", 1, { { 1, 0x5421 } } }, { "ioctl", 1, { { 1, 0x5413 } } },
	{ "ioctl", 1, { { 1, 0x5401 } } }, { "ioctl", 1, { { 1, 0x5402 } } },
	{ "ioctl", 1, { { 1, 0x4010ae42 } } }, { "ioctl", 1, { { 1, 0xc208ae62 } } },
	{ "ioctl", 1, { { 1, 0x8030ae7c } } }, { "ioctl", 1, { { 1, 0x8070ae9f } } },
};
static const char *const fc_api_plain[] = {
	"epoll_ctl", "epoll_pwait", "exit", "exit_group", "open", "read", "write", "close",
	"brk", "clock_gettime", "fstat", "lseek", "mremap", "munmap", "recvfrom",
	"rt_sigprocmask", "rt_sigreturn", "sigaltstack", "sched_yield", "readv", "statx",
};
static const struct fc_rule fc_api_args[] = {
	{ "accept4", 1, { { 3, 0x80000 } } },
	{ "fcntl", 2, { { 1, 2 }, { 2, 1 } } },
	{ "futex", 1, { { 1, 0 } } }, { "futex", 1, { { 1, 1 } } },
	{ "futex", 1, { { 1, 128 } } }, { "futex", 1, { { 1, 129 } } },
	{ "madvise", 1, { { 2, 4 } } },
	{ "mmap", 1, { { 3, 34 } } },
	{ "rt_sigaction", 1, { { 0, 6 } } },
	{ "socket", 3, { { 0, 1 }, { 1, 0x80001 }, { 2, 0 } } },
	{ "tkill", 1, { { 1, 6 } } },
	{ "ioctl", 1, { { 1, 0x5421 } } },
};
static const char *const fc_vcpu_plain[] = {
	"exit", "exit_group", "write", "writev", "read", "close", "brk", "clock_gettime",
	"fstat", "lseek", "munmap", "rt_sigprocmask", "rt_sigreturn", "sigaltstack",
	"sched_yield", "timerfd_settime",
};
static const struct fc_rule fc_vcpu_args[] = {
	{ "futex", 1, { { 1, 0 } } }, { "futex", 1, { { 1, 1 } } },
	{ "futex", 1, { { 1, 128 } } }, { "futex", 1, { { 1, 137 } } },
	{ "futex", 1, { { 1, 129 } } },
	{ "madvise", 1, { { 2, 4 } } },
	{ "mmap", 1, { { 3, 34 } } },
	{ "rt_sigaction", 1, { { 0, 6 } } },
	{ "tkill", 1, { { 1, 6 } } },
	{ "ioctl", 1, { { 1, 0xae80 } } }, { "ioctl", 1, { { 1, 0xae03 } } },
	{ "ioctl", 1, { { 1, 0x8090ae81 } } }, { "ioctl", 1, { { 1, 0x4090ae82 } } },
	{ "ioctl", 1, { { 1, 0x8138ae83 } } }, { "ioctl", 1, { { 1, 0x4138ae84 } } },
	{ "ioctl", 1, { { 1, 0xc008ae88 } } }, { "ioctl", 1, { { 1, 0x4008ae89 } } },
	{ "ioctl", 1, { { 1, 0x8400ae8e } } }, { "ioctl", 1, { { 1, 0x4400ae8f } } },
	{ "ioctl", 1, { { 1, 0x8040ae9f } } }, { "ioctl", 1, { { 1, 0x4040aea0 } } },
	{ "ioctl", 1, { { 1, 0x8180aea1 } } }, { "ioctl", 1, { { 1, 0x4180aea2 } } },
	{ "ioctl", 1, { { 1, 0x8080aea4 } } }, { "ioctl", 1, { { 1, 0x4080aea5 } } },
	{ "ioctl", 1, { { 1, 0x5413 } } },
};

scmpc_policy *family_firecracker(unsigned kind, unsigned seed, bool qword)
{
	const char *const *plain = kind == 0 ? fc_vmm_plain : kind == 1 ? fc_api_plain
								   : fc_vcpu_plain;
	size_t nplain = kind == 0 ? N_OF(fc_vmm_plain) : kind == 1 ? N_OF(fc_api_plain)
								   : N_OF(fc_vcpu_plain);
	const struct fc_rule *rules = kind == 0 ? fc_vmm_args : kind == 1 ? fc_api_args
									 : fc_vcpu_args;
	size_t nrules = kind == 0 ? N_OF(fc_vmm_args) : kind == 1 ? N_OF(fc_api_args)
								  : N_OF(fc_vcpu_args);
	struct testutil_rng r;
	testutil_rng_seed(&r, 0xf12ec4ac + seed);
	scmpc_policy *p = family_new(SCMPC_ACT_TRAP);
	/* A seed drops about one call in eight and moves some values, as
	 * one release's filter differs from the next. */
	for (size_t i = 0; p && i < nplain; i++)
		if ((!seed || testutil_rng_below(&r, 8)) &&
		    !add_rule(p, plain[i], SCMPC_ACT_ALLOW, NULL, 0))
			return fail(p);
	for (size_t i = 0; p && i < nrules; i++) {
		struct scmpc_cond c[3];
		if (seed && !testutil_rng_below(&r, 8))
			continue;
		for (unsigned k = 0; k < rules[i].nargs; k++) {
			uint64_t v = rules[i].a[k].value;
			if (seed && testutil_rng_below(&r, 6) == 0)
				v += 1 + testutil_rng_below(&r, 64);
			c[k] = (struct scmpc_cond){ .arg = rules[i].a[k].arg, .op = SCMPC_OP_EQ,
						    .value = v };
			if (!qword)
				c[k] = (struct scmpc_cond){ .arg = rules[i].a[k].arg,
							    .op = SCMPC_OP_MASKED_EQ,
							    .value = 0xffffffffULL, .value2 = v };
		}
		if (!add_rule(p, rules[i].name, SCMPC_ACT_ALLOW, c, rules[i].nargs))
			return fail(p);
	}
	return p;
}

scmpc_policy *family_two_rule_64(void)
{
	scmpc_policy *p = family_new(SCMPC_ACT_ERRNO(1));
	struct scmpc_cond map[2] = { { .arg = 0, .op = SCMPC_OP_GT, .value = 0xffff },
				     { .arg = 2, .op = SCMPC_OP_GT, .value = 1ULL << 32 } };
	struct scmpc_cond len = { .arg = 1, .op = SCMPC_OP_GT, .value = 325 };
	if (!p || !add_rule(p, "mmap", SCMPC_ACT_ALLOW, map, 2) ||
	    !add_rule(p, "mmap", SCMPC_ACT_TRAP, &len, 1))
		return fail(p);
	return p;
}

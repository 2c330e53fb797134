/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Generating the argument-heavy programs of tests/shapes.h. */
#include <stdlib.h>
#include <string.h>

#include "shapes.h"

/* xorshift64*, local so that the shapes do not depend on testutil's */
static uint64_t next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

static uint32_t below(uint64_t *s, uint32_t n)
{
	return (uint32_t)((next(s) >> 32) % n);
}

/* One byte order only: a lifted program may not mix them. */
static const enum scmpc_arch abis[] = {
	SCMPC_ARCH_X86_64, SCMPC_ARCH_I386, SCMPC_ARCH_X32, SCMPC_ARCH_AARCH64,
	SCMPC_ARCH_ARM, SCMPC_ARCH_LOONGARCH64, SCMPC_ARCH_RISCV64, SCMPC_ARCH_PPC64LE,
};

/* Calls every ABI above has (or most), so each rule reaches several. */
static const char *const calls[] = {
	"read", "write", "close", "ioctl", "fcntl", "socket", "connect", "prctl", "clone",
	"mmap", "mprotect", "madvise", "futex", "kill", "tgkill", "setsockopt", "getsockopt",
	"openat", "unshare", "setns", "personality", "flock", "lseek", "dup3", "pipe2",
	"sendto", "recvfrom", "bind", "listen", "accept4", "epoll_ctl", "eventfd2",
	"timerfd_create", "memfd_create", "getrandom", "statx", "renameat2", "fchmodat",
	"mremap", "msync", "mlock", "munlock", "setpriority", "sched_setscheduler",
};

static const uint32_t actions[] = {
	SCMPC_ACT_ALLOW, SCMPC_ACT_ERRNO(1), SCMPC_ACT_ERRNO(13), SCMPC_ACT_KILL_PROCESS,
	SCMPC_ACT_TRAP, SCMPC_ACT_LOG,
};

static uint64_t value(uint64_t *s)
{
	static const uint64_t v[] = { 0, 1, 2, 5, 16, 40, 0xff, 0x5401, 0x80000000,
				      0xffffffff, 0x100000000ULL, 0x1234567800000005ULL };
	uint64_t x = v[below(s, sizeof(v) / sizeof(v[0]))];
	/* many distinct constants: the argument tests are what costs */
	if (below(s, 2))
		x += below(s, 4096);
	return x;
}

/* The policy of SEED with its first N rules, compiled; NULL when it fails. */
static scmpc_prog *build(uint64_t seed, size_t n, const enum scmpc_arch *on, size_t non,
			 size_t *nabis)
{
	uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 1;
	uint32_t def = actions[1 + below(&s, 3)];
	scmpc_policy *p = scmpc_policy_new(def);
	scmpc_prog *prog = NULL;
	if (!p)
		return NULL;
	size_t na = 1 + below(&s, 3), used = 0;
	enum scmpc_arch have[3];
	while (used < na) {
		enum scmpc_arch a = abis[below(&s, sizeof(abis) / sizeof(abis[0]))];
		bool dup = false;
		for (size_t i = 0; i < used; i++)
			dup |= have[i] == a;
		/* x32 beside x86_64 only after it, as the policy wants */
		if (dup || (a == SCMPC_ARCH_X32 && used && have[used - 1] != SCMPC_ARCH_X86_64))
			continue;
		have[used++] = a;
	}
	/* the caller's ABIs instead (the draws above keep the sequence) */
	if (non) {
		na = non < 3 ? non : 3;
		memcpy(have, on, na * sizeof(*have));
	}
	for (size_t i = 0; i < na; i++)
		if (scmpc_policy_add_arch(p, have[i], NULL) < 0)
			goto out;
	if (nabis)
		*nabis = na;
	for (size_t i = 0; i < n; i++) {
		struct scmpc_cond c[3];
		size_t nc = 1 + below(&s, 3);
		unsigned usedargs = 0;
		for (size_t k = 0; k < nc; k++) {
			unsigned arg;
			do
				arg = below(&s, 6);
			while (usedargs & (1U << arg));
			usedargs |= 1U << arg;
			c[k] = (struct scmpc_cond){ .arg = arg,
						    .op = (enum scmpc_op)(1 + below(&s, 7)),
						    .value = value(&s) };
			if (c[k].op == SCMPC_OP_MASKED_EQ) {
				c[k].value = 0xffULL << (8 * below(&s, 4));
				c[k].value2 = value(&s) & c[k].value;
			}
		}
		uint32_t act = actions[below(&s, sizeof(actions) / sizeof(actions[0]))];
		if (act == def)
			act = SCMPC_ACT_ALLOW;
		struct scmpc_rule r = { .sz = sizeof(r),
					.syscall = calls[below(&s, sizeof(calls) / sizeof(calls[0]))],
					.action = act, .conds = c, .nconds = nc };
		/* a rule the ABIs lack or one libseccomp's merge refuses: skip */
		(void)scmpc_policy_add_rule(p, &r, NULL);
	}
	if (scmpc_compile(p, NULL, &prog, NULL) < 0)
		prog = NULL;
out:
	scmpc_policy_free(p);
	return prog;
}

scmpc_prog *shape_args_prog(uint64_t seed, size_t target, size_t *nabis)
{
	return shape_args_prog_on(seed, target, NULL, 0, nabis);
}

scmpc_prog *shape_args_prog_on(uint64_t seed, size_t target, const enum scmpc_arch *abis,
			       size_t nabis_on, size_t *nabis)
{
	scmpc_prog *best = NULL;
	/* grow the rule count until the program reaches TARGET */
	for (size_t n = 8; n <= 4096; n += n / 2) {
		scmpc_prog *p = build(seed, n, abis, nabis_on, nabis);
		if (!p || scmpc_prog_len(p) > 4096) {
			scmpc_prog_free(p);
			break;
		}
		scmpc_prog_free(best);
		best = p;
		if (scmpc_prog_len(p) >= target)
			break;
	}
	return best;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* scmp-compile explain: which rule of a policy decides one call, the
 * instructions its program runs for it, and whether the kernel caches it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static int run_explain(struct cli *c)
{
	enum scmpc_arch a = c->arch != SCMPC_ARCH_NONE ? c->arch : native_arch();
	uint64_t args[6] = { 0 }, v;
	char buf[128], act[32], num[24], line[320];
	struct filter f;
	int64_t nr;
	int status = EXIT_INPUT;

	if (c->npos < 2)
		return usage_error("explain needs a POLICY and a SYSCALL");
	if (c->npos > 8)
		return usage_error("a syscall has at most 6 arguments");
	for (int i = 2; i < c->npos; i++) {
		int pr = parse_u64(c->pos[i], &args[i - 2]);
		if (pr < 0)
			return usage_error("argument value '%s' is out of range (-9223372036854775808 "
					   "to 18446744073709551615)", c->pos[i]);
		if (!pr)
			return usage_error("invalid argument value '%s'", c->pos[i]);
	}
	int pn = parse_u64(c->pos[1], &v);
	if (pn) {
		if (pn < 0 || (v > UINT32_MAX && v < 0xffffffff80000000ULL))
			return usage_error("syscall number '%s' out of range", c->pos[1]);
		nr = (uint32_t)v;
		/* Numbers are accepted with or without the ABI's base (the x32
		 * bit, mips' 4000/5000/6000). */
		uint32_t base = abi_info(a).nr_base;
		if ((uint32_t)nr < base)
			nr += base;
	} else {
		nr = scmpc_syscall_resolve(a, c->pos[1]);
		if (nr < 0) {
			errorf("unknown syscall '%s' on %s", c->pos[1], scmpc_arch_name(a));
			return EXIT_INPUT;
		}
	}
	if (load_filter(c, c->pos[0], host_of(a), &f))
		goto out;
	if (!f.policy) {
		errorf("%s: explain needs a policy, not a compiled filter (see 'inspect')", f.name);
		goto out;
	}

	struct seccomp_data sd;
	int rule = -1;
	make_data(&sd, a, (uint32_t)nr, args);
	uint32_t want = scmpc_policy_eval(f.policy, &sd, &rule);

	printf("syscall: %s on %s", syscall_label(a, (uint32_t)nr, buf, sizeof(buf)),
	       scmpc_arch_name(a));
	int last = c->npos - 3;
	for (int i = 0; i <= last; i++)
		printf("%s%s", i ? ", " : ", arguments ", fmt_u64(args[i], num, sizeof(num)));
	putchar('\n');

	printf("action: %s\n", action_name(want, act, sizeof(act)));
	if (rule >= 0) {
		const char *origin = scmpc_policy_rule_origin(f.policy, (size_t)rule);

		printf("decided by: %s (rule %d)\n", origin ? origin : "a rule without origin", rule);
	} else {
		bool has_abi = false;

		for (size_t i = 0; i < scmpc_policy_arch_count(f.policy); i++)
			has_abi |= scmpc_policy_arch(f.policy, i) == a;
		if (!has_abi)
			printf("decided by: the bad-arch action (the policy has no %s section)\n",
			       scmpc_arch_name(a));
		else if (want == scmpc_policy_default_action(f.policy))
			printf("decided by: the default action (no rule matches)\n");
		else
			printf("decided by: the unknown-syscall action (the number is above the "
			       "policy's threshold for syscalls newer than it)\n");
	}

	uint32_t got = 0;
	size_t *path = malloc(f.len * sizeof(*path)), npath = 0;
	int rc = path ? scmpc_emulate_trace(f.insns, f.len, &sd, &got, path, f.len, &npath)
		      : -ENOMEM;

	if (rc >= 0)
		printf("filter: %s after %zu of %zu instructions\n",
		       action_name(got, act, sizeof(act)), npath, f.len);
	for (size_t i = 0; i < npath && rc >= 0; i++)
		if ((rc = insn_text(f.insns, f.len, path[i], a, line, sizeof(line))) >= 0)
			printf("  %4zu: %s\n", path[i], line);
	free(path);
	if (rc < 0) {
		status = report_failure(rc, EXIT_INPUT);
		goto out;
	}
	if (got != want)
		errorf("warning: the compiled filter returns %s where the policy says %s",
		       action_name(got, act, sizeof(act)), action_name(want, buf, sizeof(buf)));

	uint32_t stop = 0;
	if (!kernel_has_cache(c)) {
		printf("cache: never cached (" NO_CACHE_NOTE ")\n");
	} else if (!abi_info(a).cached) {
		printf("cache: never cached (%s numbers are outside the kernel's bitmaps)\n",
		       scmpc_arch_name(a));
	} else if ((uint32_t)nr >= CACHE_NR) {
		printf("cache: never cached (the number is outside the kernel's bitmap of %u)\n",
		       CACHE_NR);
	} else {
		uint8_t bits[(CACHE_NR + 7) / 8];
		rc = cache_bits(c, f.insns, f.len, a, bits);
		bool cached = rc >= 0 && (bits[nr / 8] >> (nr % 8)) & 1;
		int const_allow = scmpc_cache_const_allow(f.insns, f.len, scmpc_arch_audit(a),
							  (uint32_t)nr, &stop);
		int fr = stop < f.len ? insn_text(f.insns, f.len, stop, a, line, sizeof(line)) : 0;

		if (fr < 0) {
			status = report_failure(fr, EXIT_INPUT);
			goto out;
		}
		if (rc < 0)
			printf("cache: cannot be predicted (%s)\n", strerror(-rc));
		else if (cached && const_allow == 1)
			printf("cache: cached: the kernel allows the call without running the "
			       "filter\n");
		else if (cached)
			printf("cache: cached although the filter does not allow it: the kernel "
			       "lets this call bypass every filter\n");
		else if (stop < f.len && BPF_CLASS(f.insns[stop].code) == BPF_RET)
			printf("cache: not cached: the argument-free path ends in insn %u: %s\n",
			       stop, line);
		else if (stop < f.len)
			printf("cache: not cached: the kernel's check gives up at insn %u: %s\n",
			       stop, line);
		else
			printf("cache: not cached\n");
	}
	status = EXIT_OK;
out:
	filter_free(&f);
	return status;
}

const struct command explain_command = {
	"explain", run_explain, F_ARCH | F_POLICY,
	"Usage: " PROG_NAME " explain POLICY SYSCALL [ARG...] [-a ABI] [--caps LIST]\n"
	"                            [--kernel X.Y] [--strict] [--no-enosys]\n"
	"                            [--restrictive] [--runtime RT] [--bad-arch ACT] [-q]\n",
	"Say which rule of POLICY decides one call, the action, the instructions the\n"
	"compiled filter executes for it and whether the kernel caches it.  SYSCALL is\n"
	"a name or a number; up to six ARGs are integers (decimal, 0x hex, or negative\n"
	"after '--'), missing ones 0.  POLICY may be '-' for standard input.\n",
	EXIT_HELP,
};

/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Arbitrary bytes as a seccomp profile, read with each JSON flavor and a few
 * option sets.  What must hold:
 *  - the parser either gives a policy or fails with a negative errno and a
 *    message, never both and never neither;
 *  - a parsed policy compiles, or the compiler refuses it cleanly (too big,
 *    out of memory) and never with an "internal error";
 *  - the compiled program passes the kernel's rules and the semantic check
 *    again from outside (they already ran inside scmpc_compile), and renders
 *    in every format.
 */
#include <stdbool.h>
#include <stdint.h>
#include "fuzz_common.h"

struct optset {
	enum scmpc_json_flavor flavor;
	unsigned flags;
	enum scmpc_arch arch;
	const char *const *caps;
	unsigned kmaj, kmin;
};

static const char *const no_caps[] = { NULL };
static const char *const admin_caps[] = { "CAP_SYS_ADMIN", "CAP_SYS_PTRACE", "CAP_NET_ADMIN",
					   "CAP_SYS_MODULE", NULL };

/* Chosen to cover the flavors, the three flags, both hosts and the Docker
 * filters (capabilities, minKernel) without running every combination:
 * each input is compiled once per set. */
static const struct optset sets[] = {
	{ SCMPC_JSON_AUTO, 0, SCMPC_ARCH_X86_64, NULL, 6, 8 },
	{ SCMPC_JSON_OCI, SCMPC_JSON_STRICT | SCMPC_JSON_RESTRICTIVE, SCMPC_ARCH_AARCH64, no_caps,
	  5, 4 },
	{ SCMPC_JSON_DOCKER, SCMPC_JSON_NO_ENOSYS, SCMPC_ARCH_X86_64, admin_caps, 4, 14 },
};

static void check_policy(const scmpc_policy *p)
{
	struct scmpc_compile_opts co = { .sz = sizeof(co), .flags = 0 };
	scmpc_diag *d = scmpc_diag_new();
	scmpc_prog *prog = NULL;
	int rc;

	if (!d)
		return;
	rc = scmpc_compile(p, &co, &prog, d);
	if (rc < 0) {
		fuzz_check_failure("scmpc_compile", rc, d);
		if (prog)
			fuzz_bug("scmpc_compile failed but returned a program");
		if (rc != -E2BIG && rc != -ENOMEM)
			fuzz_bug("scmpc_compile refused a parsed policy: %d %s", rc,
				 scmpc_diag_message(d));
		scmpc_diag_free(d);
		return;
	}
	if (!prog || !scmpc_prog_len(prog))
		fuzz_bug("scmpc_compile succeeded without a program");

	const struct sock_filter *f = scmpc_prog_insns(prog);
	size_t len = scmpc_prog_len(prog);
	if ((rc = scmpc_verify_insns(f, len, d)) < 0)
		fuzz_bug("compiled program fails the kernel's rules: %s", scmpc_diag_message(d));
	if ((rc = scmpc_verify_policy(p, f, len, d)) < 0)
		fuzz_bug("compiled program disagrees with its policy: %s %s", scmpc_diag_where(d),
			 scmpc_diag_message(d));
	fuzz_check_formats(f, len, scmpc_policy_arch(p, 0));
	scmpc_prog_free(prog);
	scmpc_diag_free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Profiles are kilobytes; megabytes only slow the search down. */
	if (size > 256 * 1024)
		return 0;
	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		struct scmpc_json_opts o;
		scmpc_diag *d = scmpc_diag_new();
		scmpc_policy *p = NULL;

		if (!d)
			return 0;
		memset(&o, 0, sizeof(o));
		o.sz = sizeof(o);
		o.flavor = sets[i].flavor;
		o.flags = sets[i].flags;
		o.arch = sets[i].arch;
		o.caps = sets[i].caps;
		o.kernel_major = sets[i].kmaj;
		o.kernel_minor = sets[i].kmin;
		int rc = scmpc_policy_from_json((const char *)data, size, &o, &p, d);
		if (rc < 0) {
			fuzz_check_failure("scmpc_policy_from_json", rc, d);
			if (p)
				fuzz_bug("scmpc_policy_from_json failed but returned a policy");
		} else {
			if (rc != 0 || !p)
				fuzz_bug("scmpc_policy_from_json returned %d and policy %p", rc,
					 (void *)p);
			for (size_t w = 0; w < scmpc_diag_warning_count(d); w++)
				if (!scmpc_diag_warning(d, w) || !*scmpc_diag_warning(d, w))
					fuzz_bug("empty warning %zu", w);
			if (scmpc_policy_arch_count(p) == 0)
				fuzz_bug("a parsed policy has no architecture");
			check_policy(p);
		}
		scmpc_policy_free(p);
		scmpc_diag_free(d);
	}
	return 0;
}

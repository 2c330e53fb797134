/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * quickstart: allow everything except sockets of a family other than
 * AF_UNIX, which fail with EPERM.  Build the policy, compile it (the result
 * is verified against the policy), print its figures, install it in this
 * process and watch it decide two socket(2) calls.
 *
 *   cc quickstart.c $(pkg-config --cflags --libs scmpc) -o quickstart
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <scmpc.h>

static int fail(const char *what, const scmpc_diag *d)
{
	const char *where = scmpc_diag_where(d);
	fprintf(stderr, "quickstart: %s: %s%s%s\n", what, where, *where ? ": " : "",
		scmpc_diag_message(d));
	return 1;
}

int main(void)
{
	int ret = 1;
	scmpc_prog *prog = NULL;
	scmpc_diag *d = scmpc_diag_new();		/* errors: message + where */
	scmpc_policy *p = scmpc_policy_new(SCMPC_ACT_ALLOW);
	if (!d || !p) {
		fprintf(stderr, "quickstart: out of memory\n");
		goto out;
	}

	/* The ABI this program runs as; other ABIs get the bad-arch action. */
	enum scmpc_arch arch = scmpc_arch_native();
	if (arch == SCMPC_ARCH_NONE) {
		fprintf(stderr, "quickstart: no native seccomp ABI on this machine\n");
		goto out;
	}
	if (scmpc_policy_add_arch(p, arch, d) < 0) {
		ret = fail("add_arch", d);
		goto out;
	}

	/* socket(family != AF_UNIX, ...) -> ERRNO(EPERM); everything else ALLOW. */
	struct scmpc_cond not_unix = { .arg = 0, .op = SCMPC_OP_NE, .value = AF_UNIX };
	struct scmpc_rule r = { .sz = sizeof(r), .syscall = "socket",
				.action = SCMPC_ACT_ERRNO(EPERM),
				.conds = &not_unix, .nconds = 1 };
	if (scmpc_policy_add_rule(p, &r, d) < 0) {
		ret = fail("add_rule", d);
		goto out;
	}

	/* Compile: the program has passed the kernel's rules and the check
	 * against the policy, or this is an error naming a counterexample. */
	if (scmpc_compile(p, NULL, &prog, d) < 0) {
		ret = fail("compile", d);
		goto out;
	}
	printf("%s: %zu instructions (%zu eBPF), compiled and verified in %.3f ms\n",
	       scmpc_arch_name(arch), scmpc_prog_len(prog), scmpc_prog_ebpf_len(prog),
	       scmpc_prog_compile_ns(prog) / 1e6);

	struct scmpc_argsys_stats calls[16];
	SCMPC_OPTS(scmpc_arch_stats, st, .argsys = calls, .argsys_cap = 16);
	if (scmpc_stats(p, scmpc_prog_insns(prog), scmpc_prog_len(prog), 0, NULL, &st, d) < 0) {
		ret = fail("stats", d);
		goto out;
	}
	printf("argument-free calls: worst path %u, mean %.2f instructions\n",
	       st.worst_path, st.mean_path);
	printf("kernel action cache: %u of %u unconditionally allowed calls\n",
	       st.cacheable, st.allow_unconditional);
	for (unsigned i = 0; i < st.nargsys && i < st.argsys_cap; i++) {
		char name[64];
		if (!scmpc_syscall_name(arch, st.argsys[i].nr, name, sizeof(name)))
			snprintf(name, sizeof(name), "%u", (unsigned)st.argsys[i].nr);
		printf("%s checks arguments: %u to %u instructions\n", name,
		       st.argsys[i].best_path, st.argsys[i].worst_path);
	}

	/* Install it: checks the kernel's rules, probes flags and actions, sets
	 * no_new_privs, checks the chain budget, then seccomp(2).  It stays on
	 * this process (and its children) until it exits. */
	if (scmpc_load_prog(prog, p, NULL, NULL, d) < 0) {
		ret = fail("load", d);
		goto out;
	}
	printf("filter loaded\n");

	int fd = socket(AF_INET, SOCK_STREAM, 0);
	int err = errno;
	if (fd >= 0) {
		fprintf(stderr, "quickstart: socket(AF_INET) was allowed\n");
		close(fd);
		goto out;
	}
	printf("socket(AF_INET): %s\n", strerror(err));
	if (err != EPERM) {
		fprintf(stderr, "quickstart: socket(AF_INET) failed, but not with EPERM\n");
		goto out;
	}

	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0) {
		fprintf(stderr, "quickstart: socket(AF_UNIX): %s\n", strerror(errno));
		goto out;
	}
	printf("socket(AF_UNIX): fd %d\n", fd);
	close(fd);
	ret = 0;
out:
	scmpc_prog_free(prog);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
	return ret;
}

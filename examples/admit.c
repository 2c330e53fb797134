/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * admit: the admission check a container runtime makes before it runs a
 * pulled seccomp profile (Kubernetes KEP-6061): is CANDIDATE at least as
 * restrictive as the node's BASELINE on every call?  Both profiles are
 * read as runc reads them and compiled; scmpc_subset() answers over every
 * ABI, syscall number and argument value, so "admitted" is a proof, and
 * each refusal comes with a call that shows it.
 *
 *   cc admit.c $(pkg-config --cflags --libs scmpc) -o admit
 *   ./admit BASELINE.json CANDIDATE.json     (exit 0 admitted, 1 refused)
 *
 * A runtime in Go or Rust calls the same four functions through cgo or
 * its FFI: the answer is an opaque handle and each region a struct whose
 * first member is its own size.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <scmpc.h>

/* The file PATH compiled as runc would install it on this machine. */
static scmpc_prog *compile_file(const char *path, scmpc_diag *d)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long len = -1;
	scmpc_policy *p = NULL;
	scmpc_prog *prog = NULL;

	if (f && fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)len + 1)) && fread(buf, 1, (size_t)len, f) != (size_t)len)
		len = -1;
	if (f)
		fclose(f);
	if (!buf || len < 0) {
		perror(path);
		free(buf);
		return NULL;
	}
	struct scmpc_json_opts o = { .sz = sizeof(o), .runtime = SCMPC_RUNTIME_RUNC };
	if (scmpc_policy_from_json(buf, (size_t)len, &o, &p, d) < 0 ||
	    scmpc_compile(p, NULL, &prog, d) < 0)
		fprintf(stderr, "admit: %s: %s\n", path, scmpc_diag_message(d));
	free(buf);
	scmpc_policy_free(p);
	return prog;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: admit BASELINE.json CANDIDATE.json\n");
		return 2;
	}
	int ret = 2;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_prog *base = compile_file(argv[1], d), *cand = compile_file(argv[2], d);
	scmpc_answer *ans = NULL;
	if (!base || !cand)
		goto out;
	if (scmpc_subset(scmpc_prog_insns(base), scmpc_prog_len(base), scmpc_prog_insns(cand),
			 scmpc_prog_len(cand), NULL, &ans, d) < 0) {
		fprintf(stderr, "admit: %s\n", scmpc_diag_message(d));
		goto out;
	}
	size_t n = scmpc_answer_count(ans);
	for (size_t i = 0; i < n; i++) {
		struct scmpc_region r = { .sz = sizeof(r) };
		char a[32], b[32], name[64] = "?";
		if (scmpc_answer_region(ans, i, &r) < 0)
			continue;
		if (r.arch != SCMPC_ARCH_NONE)
			scmpc_syscall_name(r.arch, r.nr_lo, name, sizeof(name));
		scmpc_action_str(r.action[0], a, sizeof(a));
		scmpc_action_str(r.action[1], b, sizeof(b));
		printf("%s %s (%" PRIu32 "-%" PRIu32 ")%s%s: baseline %s, candidate %s; e.g. "
		       "args 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 "\n",
		       r.arch ? scmpc_arch_name(r.arch) : "other ABIs", name, r.nr_lo, r.nr_hi,
		       r.args[0] ? " if " : "", r.args, a, b, (uint64_t)r.witness.args[0],
		       (uint64_t)r.witness.args[1], (uint64_t)r.witness.args[2]);
	}
	printf("%s: %zu region%s where the candidate is less restrictive\n",
	       n ? "refused" : "admitted", n, n == 1 ? "" : "s");
	ret = n ? 1 : 0;
out:
	scmpc_answer_free(ans);
	scmpc_prog_free(base);
	scmpc_prog_free(cand);
	scmpc_diag_free(d);
	return ret;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * lsc-export PROFILE OUT.bpf: libseccomp's own program for a seccomp
 * profile, for the README's picture of libseccomp's chain beside scmpc's
 * tree (docs/meson.build).
 *
 * The profile is read as `scmp-compile compile --runtime libseccomp` reads
 * it (this machine's ABIs, the running kernel, Docker's default
 * capabilities: the rules a runtime hands libseccomp, without runc's
 * ENOSYS stub), and the rules go through the system's libseccomp at its
 * default optimisation level 1 by tests/lsc_ref.c, the reference the test
 * suites and bench/bench_compare use.  So both pictures show one rule set;
 * only the compiler differs.  The .bpf is written in this machine's byte
 * order, as seccomp_export_bpf() writes it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lsc_ref.h"
#include "scmpc.h"
#include "testutil.h"

int main(int argc, char **argv)
{
	char *text = NULL, err[512] = "";
	size_t len = 0, n = 0;
	struct sock_filter *insns = NULL;
	scmpc_policy *p = NULL;
	scmpc_diag *d = scmpc_diag_new();
	int rc;

	if (argc != 3) {
		fprintf(stderr, "usage: lsc-export PROFILE OUT.bpf\n");
		return 2;
	}
	if ((rc = testutil_load_file(argv[1], &text, &len)) < 0) {
		fprintf(stderr, "lsc-export: %s: %s\n", argv[1], strerror(-rc));
		return 1;
	}
	SCMPC_OPTS(scmpc_json_opts, o, .runtime = SCMPC_RUNTIME_LIBSECCOMP);
	if ((rc = scmpc_policy_from_json(text, len, &o, &p, d)) < 0) {
		fprintf(stderr, "lsc-export: %s: %s\n", argv[1], scmpc_diag_message(d));
		return 1;
	}
	if ((rc = lsc_compile(p, 1, &insns, &n, err, sizeof(err))) < 0) {
		fprintf(stderr, "lsc-export: libseccomp: %s\n", err);
		return 1;
	}
	FILE *f = fopen(argv[2], "wb");
	if (!f || fwrite(insns, sizeof(*insns), n, f) != n || fclose(f)) {
		fprintf(stderr, "lsc-export: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	free(insns);
	free(text);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
	return 0;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Profile-guided layout (--hot) on recorded workloads: Docker's packaged
 * profile for x86_64, compiled by libseccomp (levels 1 and 2), by scmpc
 * and by scmpc for each workload in bench/data (strace -f -c of a small
 * make -j2, perf trace -s of tar czf), side by side in one run.
 *
 * Each call of the workload is run through each program with zero
 * arguments (scmpc_emulate counts the instructions executed); a call the
 * kernel's action cache serves for that program (scmpc_cache_const_allow,
 * the kernel's own test) costs nothing.  Printed: the expected executed
 * path per call that pays, per call of the workload, and the worst path
 * over the first 1024 numbers with argument 0 at every value the policy
 * compares any argument with.
 *
 *   bench_hot [--csv FILE]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lsc_ref.h"
#include "testutil.h"

#ifndef BENCH_DATA
#define BENCH_DATA "bench/data"
#endif

struct prog {
	const char *label;
	struct sock_filter *insns;
	size_t len;
};

static unsigned steps(const struct prog *pr, uint32_t nr, uint64_t a0)
{
	uint64_t args[6] = { a0 };
	struct seccomp_data sd = testutil_sd(SCMPC_ARCH_X86_64, nr, args);
	uint32_t ret;
	unsigned n = 0;
	if (scmpc_emulate(pr->insns, pr->len, &sd, &ret, &n) < 0)
		return 0;
	return n;
}

struct figures {
	double per_paying, per_call, paying_share;
	unsigned worst;
};

static struct figures measure(const struct prog *pr, const scmpc_workload *w,
			      const uint64_t *a0s, size_t na0)
{
	struct figures f = { 0 };
	double paid = 0, calls = 0, npay = 0;
	uint32_t audit = scmpc_arch_audit(SCMPC_ARCH_X86_64);
	for (size_t i = 0; i < scmpc_workload_size(w); i++) {
		const char *name;
		uint64_t count;
		scmpc_workload_get(w, i, &name, NULL, &count);
		int64_t nr = scmpc_syscall_resolve(SCMPC_ARCH_X86_64, name);
		if (nr < 0)
			continue;
		calls += (double)count;
		if (scmpc_cache_const_allow(pr->insns, pr->len, audit, (uint32_t)nr, NULL) == 1)
			continue;
		npay += (double)count;
		paid += (double)count * steps(pr, (uint32_t)nr, 0);
	}
	f.per_paying = npay ? paid / npay : 0;
	f.per_call = calls ? paid / calls : 0;
	f.paying_share = calls ? npay / calls : 0;
	for (uint32_t nr = 0; nr < 1024; nr++)
		for (size_t k = 0; k < na0; k++) {
			unsigned s = steps(pr, nr, a0s[k]);
			f.worst = s > f.worst ? s : f.worst;
		}
	return f;
}

static int compile(const scmpc_policy *p, const scmpc_workload *w, struct prog *out)
{
	scmpc_diag *d = scmpc_diag_new();
	scmpc_prog *prog = NULL;
	SCMPC_OPTS(scmpc_compile_opts, o, .hot = w);
	int rc = scmpc_compile(p, &o, &prog, d);
	if (rc < 0) {
		fprintf(stderr, "bench_hot: compile: %s\n", scmpc_diag_message(d));
	} else {
		out->len = scmpc_prog_len(prog);
		out->insns = malloc(out->len * sizeof(*out->insns));
		if (out->insns)
			memcpy(out->insns, scmpc_prog_insns(prog), out->len * sizeof(*out->insns));
		printf("  %-34s compiled in %.3f ms\n", out->label,
		       (double)scmpc_prog_compile_ns(prog) / 1e6);
	}
	scmpc_prog_free(prog);
	scmpc_diag_free(d);
	return rc < 0 || !out->insns ? -1 : 0;
}

int main(int argc, char **argv)
{
	const char *csv_path = argc == 3 && !strcmp(argv[1], "--csv") ? argv[2] : NULL;
	static const char *const files[] = { "strace-c-make.txt", "perf-trace-s-tar.txt" };
	scmpc_policy *p = testutil_policy("docker-default.json", SCMPC_ARCH_X86_64);
	if (!p) {
		fprintf(stderr, "bench_hot: docker-default.json: %s\n", testutil_last_error());
		return 1;
	}
	FILE *csv = csv_path ? fopen(csv_path, "w") : NULL;
	if (csv)
		fprintf(csv, "workload,program,instructions,per_paying_call,per_call,paying_share,worst\n");

	/* Argument 0 at every value the policy compares an argument with. */
	scmpc_probes *ps = scmpc_probes_new();
	scmpc_probes_add_policy(ps, p, NULL);
	const uint64_t *a0s;
	size_t na0 = scmpc_probes_values(ps, 0, &a0s);

	struct prog base[3] = { { "libseccomp 2.5.4 level 1", NULL, 0 },
				{ "libseccomp 2.5.4 level 2", NULL, 0 },
				{ "scmpc", NULL, 0 } };
	char err[256];
	printf("docker-default.json, x86_64 (Docker 20.10.24's profile)\n");
	for (int l = 0; l < 2; l++)
		if (lsc_compile(p, l + 1, &base[l].insns, &base[l].len, err, sizeof(err)) < 0) {
			fprintf(stderr, "bench_hot: libseccomp: %s\n", err);
			return 1;
		}
	if (compile(p, NULL, &base[2]) < 0)
		return 1;

	int status = 0;
	for (size_t fi = 0; fi < sizeof(files) / sizeof(files[0]); fi++) {
		char path[4096], *text;
		size_t len;
		snprintf(path, sizeof(path), "%s/%s", BENCH_DATA, files[fi]);
		scmpc_workload *w = scmpc_workload_new();
		scmpc_diag *d = scmpc_diag_new();
		if (testutil_load_file(path, &text, &len) < 0 ||
		    scmpc_workload_parse(w, text, len, NULL, d) < 0) {
			fprintf(stderr, "bench_hot: %s: %s\n", path, scmpc_diag_message(d));
			return 1;
		}
		free(text);
		uint64_t total = 0;
		for (size_t i = 0; i < scmpc_workload_size(w); i++) {
			uint64_t c;
			scmpc_workload_get(w, i, NULL, NULL, &c);
			total += c;
		}
		printf("\n== %s: %zu syscalls, %llu calls\n", files[fi], scmpc_workload_size(w),
		       (unsigned long long)total);
		char label[96];
		snprintf(label, sizeof(label), "scmpc --hot %s", files[fi]);
		struct prog hot = { label, NULL, 0 };
		if (compile(p, w, &hot) < 0)
			return 1;
		printf("  %-34s %6s %12s %12s %8s %6s\n", "program", "insns", "per paying", "per call",
		       "paying", "worst");
		struct figures fb = { 0 };
		for (int k = 0; k < 4; k++) {
			const struct prog *pr = k < 3 ? &base[k] : &hot;
			struct figures f = measure(pr, w, a0s, na0);
			if (k == 2)
				fb = f;
			printf("  %-34s %6zu %12.3f %12.4f %7.3f%% %6u\n", pr->label, pr->len,
			       f.per_paying, f.per_call, 100 * f.paying_share, f.worst);
			if (csv)
				fprintf(csv, "%s,%s,%zu,%.4f,%.5f,%.5f,%u\n", files[fi], pr->label,
					pr->len, f.per_paying, f.per_call, f.paying_share, f.worst);
			if (k == 3) {
				printf("  --hot against scmpc: expected path per paying call x%.3f, worst "
				       "%+d (bound +%d)\n",
				       fb.per_paying ? f.per_paying / fb.per_paying : 0,
				       (int)f.worst - (int)fb.worst, SCMPC_HOT_SLACK);
				if (f.per_paying > fb.per_paying)
					status = 1;
			}
		}
		free(hot.insns);
		scmpc_diag_free(d);
		scmpc_workload_free(w);
	}
	for (int k = 0; k < 3; k++)
		free(base[k].insns);
	scmpc_probes_free(ps);
	scmpc_policy_free(p);
	if (csv)
		fclose(csv);
	return status;
}

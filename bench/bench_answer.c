/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Where the time of the exact answers goes, on the shapes issue #24
 * bounds: argument-heavy programs of up to 4096 instructions from random
 * policies of one to three ABIs (lift, each candidate compile, the proof,
 * and scmpc_optimize() whole), and a merge of 32 filters of ~1,000
 * instructions (the stack lifted, compiled, and scmpc_intersect() whole).
 *
 *   bench_answer [--quick | --merge | SEED TARGET]
 *
 * Each row prints the steps side by side in milliseconds, with the bound
 * (2 s) beside them; a step refused at a bound prints "bound" and the
 * message.  Public API only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shapes.h"

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* One program: lift, the three candidate compiles, the proof (a diff of
 * input and output) and optimize as a whole, each timed. */
static void one_prog(uint64_t seed, size_t target)
{
	size_t nabis = 0;
	scmpc_prog *in = shape_args_prog(seed, target, &nabis);
	if (!in) {
		printf("seed %llu: no program\n", (unsigned long long)seed);
		return;
	}
	const struct sock_filter *insns = scmpc_prog_insns(in);
	size_t len = scmpc_prog_len(in);
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = NULL;
	double t0 = now_ms();
	int rc = scmpc_lift(insns, len, NULL, &p, d);
	double t_lift = now_ms() - t0, t_comp[3] = { 0 }, t_proof = 0, t_opt = 0;
	size_t clen[3] = { 0 };
	static const unsigned layouts[] = { 0, SCMPC_COMPILE_SMALLEST, SCMPC_COMPILE_SHORTEST };
	const char *fail = NULL;
	char msg[512] = "";
	struct scmpc_optimize_info info = { .sz = sizeof(info) };
	if (rc < 0) {
		fail = "lift";
		snprintf(msg, sizeof(msg), "%s", scmpc_diag_message(d));
		goto print;
	}
	for (size_t k = 0; k < 3; k++) {
		struct scmpc_compile_opts co = { .sz = sizeof(co), .flags = layouts[k] };
		scmpc_prog *c = NULL;
		t0 = now_ms();
		rc = scmpc_compile(p, &co, &c, d);
		t_comp[k] = now_ms() - t0;
		if (rc < 0) {
			/* optimize keeps the input then, and is timed still
			 * (this compile's time includes the search for a
			 * split that its message names; optimize's does not) */
			fail = "compile";
			snprintf(msg, sizeof(msg), "%s", scmpc_diag_message(d));
			break;
		}
		clen[k] = scmpc_prog_len(c);
		if (k == 0) {
			scmpc_answer *ans = NULL;
			t0 = now_ms();
			rc = scmpc_diff(insns, len, scmpc_prog_insns(c), clen[k], NULL, &ans, d);
			t_proof = now_ms() - t0;
			scmpc_answer_free(ans);
		}
		scmpc_prog_free(c);
		if (rc < 0) {
			fail = "proof";
			snprintf(msg, sizeof(msg), "%s", scmpc_diag_message(d));
			goto print;
		}
	}
	scmpc_prog *o = NULL;
	t0 = now_ms();
	rc = scmpc_optimize(insns, len, NULL, &o, NULL, &info, d);
	t_opt = now_ms() - t0;
	scmpc_prog_free(o);
	if (rc < 0) {
		fail = "optimize";
		snprintf(msg, sizeof(msg), "%s", scmpc_diag_message(d));
	}
print:
	printf("%6llu %4zu %5zu %8.1f %8.1f %8.1f %8.1f %8.1f %9.1f  %5zu %5zu %5zu %s%s%s%s%s\n",
	       (unsigned long long)seed, nabis, len, t_lift, t_comp[0], t_comp[1], t_comp[2],
	       t_proof, t_opt, clen[0], clen[1], clen[2], t_opt > 2000 ? "OVER " : "",
	       fail ? fail : "", fail ? ": " : "", msg, info.kept_input ? "; kept the input" : "");
	fflush(stdout);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
	scmpc_prog_free(in);
}

/* A stack of N filters of ~TARGET instructions: merge_stack, the compile
 * of its policy, and intersect as a whole (with its proof). */
static void one_merge(uint64_t seed, size_t n, size_t target, bool shared)
{
	scmpc_prog **progs = calloc(n, sizeof(*progs));
	const struct sock_filter **insns = calloc(n, sizeof(*insns));
	size_t *lens = calloc(n, sizeof(*lens)), total = 0;
	scmpc_diag *d = scmpc_diag_new();
	if (!progs || !insns || !lens || !d)
		goto out;
	for (size_t i = 0; i < n; i++) {
		/* one stack serves one set of ABIs: two, as a runtime's does */
		static const enum scmpc_arch abis[] = { SCMPC_ARCH_X86_64, SCMPC_ARCH_I386 };
		progs[i] = shape_args_prog_on(seed * 1000 + i, target, abis, shared ? 2 : 0, NULL);
		if (!progs[i])
			goto out;
		insns[i] = scmpc_prog_insns(progs[i]);
		lens[i] = scmpc_prog_len(progs[i]);
		total += lens[i];
	}
	scmpc_policy *p = NULL;
	scmpc_prog *m = NULL;
	double t0 = now_ms();
	int rc = scmpc_merge_stack(insns, lens, n, NULL, &p, d);
	double t_lift = now_ms() - t0, t_comp = 0, t_all = 0;
	const char *fail = NULL;
	if (rc < 0) {
		fail = "merge_stack";
		goto print;
	}
	t0 = now_ms();
	rc = scmpc_compile(p, NULL, &m, d);
	t_comp = now_ms() - t0;
	scmpc_prog_free(m);
	m = NULL;
	if (rc < 0) {
		fail = "compile";
		goto print;
	}
	t0 = now_ms();
	rc = scmpc_intersect(insns, lens, n, NULL, &m, NULL, d);
	t_all = now_ms() - t0;
	if (rc < 0)
		fail = "intersect";
print:
	printf("%6llu %3zu %6s %6zu %8.1f %8.1f %9.1f  %5zu %s%s%s\n", (unsigned long long)seed, n,
	       shared ? "shared" : "random",
	       total, t_lift, t_comp, t_all, m ? scmpc_prog_len(m) : 0,
	       t_all > 2000 ? "OVER " : "", fail ? fail : "", fail ? scmpc_diag_message(d) : "");
	fflush(stdout);
	scmpc_prog_free(m);
	scmpc_policy_free(p);
out:
	for (size_t i = 0; progs && i < n; i++)
		scmpc_prog_free(progs[i]);
	free(progs);
	free(insns);
	free(lens);
	scmpc_diag_free(d);
}

int main(int argc, char **argv)
{
	bool quick = argc > 1 && !strcmp(argv[1], "--quick");
	/* bench_answer SEED TARGET: that program alone (for perf) */
	bool one = argc == 3;
	static const size_t targets[] = { 1000, 2000, 4096 };
	unsigned seeds = quick ? 3 : 8;
	/* bench_answer --merge: the merges alone */
	bool merge_only = argc == 2 && !strcmp(argv[1], "--merge");

	if (merge_only)
		goto merge;
	printf("optimize, ms (bound 2000 for the whole)\n");
	printf("%6s %4s %5s %8s %8s %8s %8s %8s %9s  %5s %5s %5s\n", "seed", "abis", "insns",
	       "lift", "cmp-def", "cmp-sml", "cmp-sht", "proof", "optimize", "def", "sml", "sht");
	if (one) {
		one_prog(strtoull(argv[1], NULL, 0), strtoull(argv[2], NULL, 0));
		return 0;
	}
	for (size_t t = 0; t < sizeof(targets) / sizeof(targets[0]); t++)
		for (unsigned s = 1; s <= seeds; s++)
			one_prog(s + 100 * t, targets[t]);
merge:
	/* ABIs: each filter its own 1-3 (the stack kills most calls, but
	 * the proof walks every filter's paths), or all on x86_64 + i386 */
	printf("\nmerge, ms (bound 2000 for intersect)\n");
	printf("%6s %3s %6s %6s %8s %8s %9s  %5s\n", "seed", "n", "abis", "insns", "stack",
	       "compile", "intersect", "out");
	for (unsigned s = 1; s <= (quick ? 1U : 3U); s++)
		for (int shared = 0; shared < 2; shared++)
			one_merge(s, 32, 1000, shared);
	return 0;
}

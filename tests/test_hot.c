/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Profile-guided layout (src/front/workload.c, src/compiler/layout.c): the workload parsers on
 * hand-written strace -c, perf trace -s and list inputs, the counts typed
 * by hand; and a compile for a workload whose hot call is argument-checked,
 * its expected path measured by running each call through the program
 * (scmpc_emulate_trace), weighted by the counts given here.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "scmpc.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static scmpc_workload *parse(const char *text, enum scmpc_workload_format f,
			     enum scmpc_arch arch, int64_t want, scmpc_diag *d)
{
	scmpc_workload *w = scmpc_workload_new();
	assert_non_null(w);
	SCMPC_OPTS(scmpc_workload_opts, o, .format = f, .arch = arch);
	int64_t rc = scmpc_workload_parse(w, text, strlen(text), &o, d);
	if (rc != want)
		fail_msg("parse gave %lld, wanted %lld: %s %s", (long long)rc, (long long)want,
			 scmpc_diag_where(d), scmpc_diag_message(d));
	return w;
}

static const char strace_text[] =
	"# SPDX line and notes before the table are not read\n"
	"% time     seconds  usecs/call     calls    errors syscall\n"
	"------ ----------- ----------- --------- --------- ----------------\n"
	" 85.01    0.633842       11318        56           wait4\n"
	"  7.21    0.053728           3     13583     13501 readlink\n"
	"  0.00    0.000000           0         1           dup\n"
	"  0.00    0.000000           0         3         1 syscall_0x1c3\n"
	"------ ----------- ----------- --------- --------- ----------------\n"
	"100.00    0.687570          50     13643     13502 total\n"
	"System call usage summary for 32 bit mode:\n"
	"% time     seconds  usecs/call     calls    errors syscall\n"
	"------ ----------- ----------- --------- --------- ----------------\n"
	"100.00    0.000010           1         7           read\n"
	"------ ----------- ----------- --------- --------- ----------------\n"
	"100.00    0.000010           1         7           total\n";

static void test_strace(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	/* wait4, readlink, dup, read; syscall_0x1c3 is no name. */
	scmpc_workload *w = parse(strace_text, SCMPC_WORKLOAD_AUTO, SCMPC_ARCH_X86_64, 4, d);
	assert_int_equal(scmpc_workload_size(w), 4);
	assert_true(scmpc_workload_calls(w, "wait4", SCMPC_ARCH_X86_64) == 56);
	assert_true(scmpc_workload_calls(w, "readlink", SCMPC_ARCH_X86_64) == 13583);
	assert_true(scmpc_workload_calls(w, "dup", SCMPC_ARCH_X86_64) == 1);
	/* The 32-bit table is i386's on an x86_64 kernel. */
	assert_true(scmpc_workload_calls(w, "read", SCMPC_ARCH_I386) == 7);
	assert_true(scmpc_workload_calls(w, "read", SCMPC_ARCH_X86_64) == 0);
	assert_true(scmpc_workload_calls(w, "total", SCMPC_ARCH_X86_64) == 0);
	assert_int_equal(scmpc_diag_warning_count(d), 1);
	assert_non_null(strstr(scmpc_diag_warning(d, 0), "line 7"));
	assert_non_null(strstr(scmpc_diag_warning(d, 0), "syscall_0x1c3"));
	const char *name;
	enum scmpc_arch a;
	uint64_t n;
	assert_int_equal(scmpc_workload_get(w, 1, &name, &a, &n), 0);
	assert_string_equal(name, "readlink");
	assert_int_equal(a, SCMPC_ARCH_X86_64);
	assert_true(n == 13583);
	assert_int_equal(scmpc_workload_get(w, 4, &name, &a, &n), -EINVAL);
	scmpc_workload_free(w);

	/* A row whose calls column is no number: an error at its line, and
	 * nothing of the text kept. */
	w = scmpc_workload_new();
	assert_int_equal(scmpc_workload_add(w, "read", SCMPC_ARCH_NONE, 5, d), 0);
	SCMPC_OPTS(scmpc_workload_opts, o, .format = SCMPC_WORKLOAD_STRACE);
	const char bad[] = "% time     seconds  usecs/call     calls    errors syscall\n"
			   "------ ----------- ----------- --------- --------- --------\n"
			   " 50.00    0.000001           1         2           read\n"
			   " 50.00    0.000001           1       two           write\n";
	assert_int_equal(scmpc_workload_parse(w, bad, strlen(bad), &o, d), -EINVAL);
	assert_string_equal(scmpc_diag_where(d), "line 4");
	assert_int_equal(scmpc_workload_size(w), 1);
	assert_true(scmpc_workload_calls(w, "read", SCMPC_ARCH_NONE) == 5);
	/* No table at all. */
	assert_int_equal(scmpc_workload_parse(w, "read 5\n", 7, &o, d), -EINVAL);
	scmpc_workload_free(w);
	scmpc_diag_free(d);
}

static void test_perf(void **state)
{
	(void)state;
	/* Two threads, the second in the older layout without errors. */
	static const char text[] =
		"\n Summary of events:\n\n"
		" make (1796), 652 events, 1.1%\n\n"
		"   syscall            calls  errors  total       min       avg       max       stddev\n"
		"                                     (msec)    (msec)    (msec)    (msec)        (%)\n"
		"   --------------- --------  ------ -------- --------- --------- ---------     ------\n"
		"   wait4                  2      0   164.726     8.855    82.363   155.871     89.25%\n"
		"   read                  12      0     0.058     0.011     0.012     0.012      2.11%\n"
		"\n\n"
		" cc1 (1805), 4504 events, 7.5%\n\n"
		"   syscall            calls    total       min       avg       max       stddev\n"
		"                               (msec)    (msec)    (msec)    (msec)        (%)\n"
		"   --------------- -------- --------- --------- --------- ---------     ------\n"
		"   read                 107     2.206     0.011     0.021     0.480     21.26%\n"
		"   openat               444     6.318     0.012     0.014     0.048      1.18%\n"
		"\n";
	scmpc_diag *d = scmpc_diag_new();
	scmpc_workload *w = parse(text, SCMPC_WORKLOAD_AUTO, SCMPC_ARCH_NONE, 4, d);
	assert_int_equal(scmpc_workload_size(w), 3);
	assert_true(scmpc_workload_calls(w, "wait4", SCMPC_ARCH_NONE) == 2);
	assert_true(scmpc_workload_calls(w, "read", SCMPC_ARCH_NONE) == 119);
	assert_true(scmpc_workload_calls(w, "openat", SCMPC_ARCH_NONE) == 444);
	assert_int_equal(scmpc_diag_warning_count(d), 0);
	scmpc_workload_free(w);
	scmpc_diag_free(d);
}

static void test_list(void **state)
{
	(void)state;
	static const char text[] = "# the hot calls\n"
				   "read\n"
				   "write 10\n"
				   "    12 openat\n"
				   "clone=3, futex:4 # comment\n"
				   "mmap munmap,\n"
				   "read\n"
				   "nosuchcall 5\n";
	scmpc_diag *d = scmpc_diag_new();
	scmpc_workload *w = parse(text, SCMPC_WORKLOAD_AUTO, SCMPC_ARCH_NONE, 8, d);
	static const struct {
		const char *name;
		uint64_t n;
	} want[] = { { "read", 2 }, { "write", 10 }, { "openat", 12 }, { "clone", 3 },
		     { "futex", 4 }, { "mmap", 1 }, { "munmap", 1 } };
	assert_int_equal(scmpc_workload_size(w), N(want));
	for (size_t i = 0; i < N(want); i++) {
		const char *name;
		uint64_t n;
		assert_int_equal(scmpc_workload_get(w, i, &name, NULL, &n), 0);
		assert_string_equal(name, want[i].name);
		assert_true(n == want[i].n);
	}
	assert_int_equal(scmpc_diag_warning_count(d), 1);
	assert_non_null(strstr(scmpc_diag_warning(d, 0), "line 8"));
	scmpc_workload_free(w);

	/* Three words, one a number: not a list item. */
	w = parse("read\nread 5 6\n", SCMPC_WORKLOAD_LIST, SCMPC_ARCH_NONE, -EINVAL, d);
	assert_string_equal(scmpc_diag_where(d), "line 2");
	assert_int_equal(scmpc_workload_size(w), 0);
	assert_int_equal(scmpc_workload_add(w, "nosuchcall", SCMPC_ARCH_NONE, 1, d), -EINVAL);
	assert_int_equal(scmpc_workload_add(NULL, "read", SCMPC_ARCH_NONE, 1, d), -EINVAL);
	/* An options struct from a newer caller with a field set we do not know. */
	struct {
		struct scmpc_workload_opts o;
		uint64_t newer;
	} big = { .o = { .sz = sizeof(big) }, .newer = 1 };
	assert_int_equal(scmpc_workload_parse(w, "read", 4, &big.o, d), -EINVAL);
	scmpc_workload_free(w);
	scmpc_diag_free(d);
}

/* ---- layout */

#define AF_UNIX_ 1
#define AF_INET_ 2

/* x86_64 only: ERRNO(1) by default, about 150 calls allowed, socket
 * allowed for AF_UNIX and AF_INET only, personality for 0 only. */
static scmpc_policy *test_policy(void)
{
	scmpc_policy *p = scmpc_policy_new(SCMPC_ACT_ERRNO(1));
	assert_non_null(p);
	assert_int_equal(scmpc_policy_add_arch(p, SCMPC_ARCH_X86_64, NULL), 0);
	for (uint32_t nr = 0; nr < 330; nr++) {
		bool allow = nr <= 40 || (nr >= 60 && nr <= 90) || (nr >= 100 && nr <= 140 && nr % 2 == 0) ||
			     (nr >= 200 && nr <= 260) || (nr >= 290 && nr <= 300);
		if (!allow || nr == 41 || nr == 135)
			continue;
		SCMPC_OPTS(scmpc_rule, r, .nr = nr, .arch = SCMPC_ARCH_X86_64, .action = SCMPC_ACT_ALLOW);
		assert_true(scmpc_policy_add_rule(p, &r, NULL) >= 0);
	}
	for (uint64_t fam = AF_UNIX_; fam <= AF_INET_; fam++) {
		struct scmpc_cond c = { .arg = 0, .op = SCMPC_OP_EQ, .value = fam };
		SCMPC_OPTS(scmpc_rule, r, .syscall = "socket", .action = SCMPC_ACT_ALLOW, .conds = &c,
			   .nconds = 1);
		assert_true(scmpc_policy_add_rule(p, &r, NULL) >= 0);
	}
	struct scmpc_cond c = { .arg = 0, .op = SCMPC_OP_EQ, .value = 0 };
	SCMPC_OPTS(scmpc_rule, r, .syscall = "personality", .action = SCMPC_ACT_ALLOW, .conds = &c,
		   .nconds = 1);
	assert_true(scmpc_policy_add_rule(p, &r, NULL) >= 0);
	return p;
}

static scmpc_prog *compile(const scmpc_policy *p, const scmpc_workload *w)
{
	scmpc_diag *d = scmpc_diag_new();
	scmpc_prog *prog = NULL;
	SCMPC_OPTS(scmpc_compile_opts, o, .hot = w);
	if (scmpc_compile(p, &o, &prog, d) < 0)
		fail_msg("compile: %s", scmpc_diag_message(d));
	scmpc_diag_free(d);
	return prog;
}

static struct seccomp_data call(uint32_t nr, uint64_t a0)
{
	struct seccomp_data sd;
	memset(&sd, 0, sizeof(sd));
	sd.nr = (int)nr;
	sd.arch = scmpc_arch_audit(SCMPC_ARCH_X86_64);
	sd.args[0] = a0;
	return sd;
}

static size_t path_of(const scmpc_prog *prog, const struct seccomp_data *sd, uint32_t *ret)
{
	size_t len = scmpc_prog_len(prog), npath = 0;
	size_t *path = calloc(len, sizeof(*path));
	assert_non_null(path);
	assert_int_equal(scmpc_emulate_trace(scmpc_prog_insns(prog), len, sd, ret, path, len, &npath),
			 0);
	free(path);
	return npath;
}

/* The calls of the workload below that pay for the filter, by hand: socket
 * is argument-checked, mount and reboot are denied (ERRNO is never
 * cached); read, allowed outright, is served by the cache. */
static const struct {
	const char *name;
	uint32_t nr;
	uint64_t a0;
	uint64_t count;
	bool pays;
} workload[] = {
	{ "socket", 41, AF_INET_, 5000, true },
	{ "mount", 165, 0, 300, true },
	{ "reboot", 169, 0, 20, true },
	{ "read", 0, 0, 100000, false },
};

static double expected_path(const scmpc_prog *prog)
{
	double sum = 0, n = 0;
	for (size_t i = 0; i < N(workload); i++) {
		if (!workload[i].pays)
			continue;
		struct seccomp_data sd = call(workload[i].nr, workload[i].a0);
		uint32_t ret;
		sum += (double)workload[i].count * (double)path_of(prog, &sd, &ret);
		n += (double)workload[i].count;
	}
	return sum / n;
}

/* The longest path over the first 1024 numbers, each with argument 0 set
 * to every value the policy compares it with and those around them. */
static size_t worst_path(const scmpc_prog *prog)
{
	static const uint64_t a0s[] = { 0, 1, 2, 3, UINT64_MAX, 1ull << 32 | 1 };
	size_t worst = 0;
	for (uint32_t nr = 0; nr < 1024; nr++)
		for (size_t k = 0; k < N(a0s); k++) {
			struct seccomp_data sd = call(nr, a0s[k]);
			uint32_t ret;
			size_t n = path_of(prog, &sd, &ret);
			worst = n > worst ? n : worst;
		}
	return worst;
}

static void test_layout(void **state)
{
	(void)state;
	scmpc_policy *p = test_policy();
	scmpc_workload *w = scmpc_workload_new();
	for (size_t i = 0; i < N(workload); i++)
		assert_int_equal(scmpc_workload_add(w, workload[i].name, SCMPC_ARCH_NONE,
						    workload[i].count, NULL), 0);
	scmpc_prog *plain = compile(p, NULL), *hot = compile(p, w);

	double ep = expected_path(plain), eh = expected_path(hot);
	size_t wp = worst_path(plain), wh = worst_path(hot);
	print_message("expected path %.3f -> %.3f, worst %zu -> %zu, %zu -> %zu instructions\n", ep,
		      eh, wp, wh, scmpc_prog_len(plain), scmpc_prog_len(hot));
	assert_true(eh < ep);
	assert_true(wh <= wp + SCMPC_HOT_SLACK);

	/* Both decide every probe alike, and as the policy does. */
	uint32_t *nrs = NULL;
	int nn = scmpc_arch_probe_numbers(SCMPC_ARCH_X86_64, &nrs, NULL);
	assert_true(nn > 0);
	scmpc_probes *ps = scmpc_probes_new();
	assert_int_equal(scmpc_probes_add_policy(ps, p, NULL), 0);
	const uint64_t *vals;
	size_t nv = scmpc_probes_values(ps, 0, &vals);
	for (int i = 0; i < nn; i++)
		for (size_t k = 0; k < nv; k++) {
			struct seccomp_data sd = call(nrs[i], vals[k]);
			uint32_t rp, rh;
			assert_int_equal(scmpc_emulate(scmpc_prog_insns(plain), scmpc_prog_len(plain), &sd,
						       &rp, NULL), 0);
			assert_int_equal(scmpc_emulate(scmpc_prog_insns(hot), scmpc_prog_len(hot), &sd, &rh,
						       NULL), 0);
			assert_int_equal(rp, rh);
			assert_int_equal(rh, scmpc_policy_eval(p, &sd, NULL));
		}
	free(nrs);
	scmpc_probes_free(ps);
	scmpc_prog_free(plain);
	scmpc_prog_free(hot);
	scmpc_workload_free(w);
	scmpc_policy_free(p);
}

/* A workload of calls the cache serves, or of another ABI, weighs nothing:
 * the program is the one compiled without it. */
static void test_free_calls(void **state)
{
	(void)state;
	scmpc_policy *p = test_policy();
	scmpc_workload *w = scmpc_workload_new();
	assert_int_equal(scmpc_workload_add(w, "read", SCMPC_ARCH_NONE, 100000, NULL), 0);
	assert_int_equal(scmpc_workload_add(w, "write", SCMPC_ARCH_X86_64, 5000, NULL), 0);
	assert_int_equal(scmpc_workload_add(w, "socket", SCMPC_ARCH_I386, 5000, NULL), 0);
	scmpc_prog *plain = compile(p, NULL), *hot = compile(p, w);
	assert_int_equal(scmpc_prog_len(plain), scmpc_prog_len(hot));
	assert_memory_equal(scmpc_prog_insns(plain), scmpc_prog_insns(hot),
			    scmpc_prog_len(plain) * sizeof(struct sock_filter));
	scmpc_prog_free(plain);
	scmpc_prog_free(hot);
	scmpc_workload_free(w);
	scmpc_policy_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strace),
		cmocka_unit_test(test_perf),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_free_calls),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

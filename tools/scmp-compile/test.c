/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * scmp-compile test: a profile (or a .bpf filter) against lines that say
 * what it must decide, checked for every call they cover with the
 * library's scmpc_expect(), so that `*` means every value, not a sample:
 *
 *   x86_64 openat(AT_FDCWD, *, O_RDONLY) -> ALLOW
 *   i386 socket(AF_NETLINK, *, 9) -> ERRNO(EINVAL)
 *   aarch64 * -> KILL_PROCESS            (every number the profile does not name)
 *   x86_64 personality(0xffffffff) -> ALLOW
 *   x86_64 uname -> ALLOW                (every argument value)
 *
 * Constants by name are the build machine's headers' (constants.c); a
 * value is a number (decimal, 0x hex, negative as the 64-bit register
 * glibc passes), a constant, or several joined by '|'.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* strerrorname_np() */
#endif
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

struct test_line {
	enum scmpc_arch arch;
	bool every_nr;		/* `*`: the numbers the profile does not name */
	uint32_t nr;
	unsigned any_args;
	uint64_t args[6];
	bool has_args;
	uint32_t action;
};

static const char *skip_space(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* One value: numbers and constants joined by '|', up to END; false with
 * *WHY set when it is none. */
static bool parse_value(const char *s, const char *end, uint64_t *out, const char **why)
{
	*out = 0;
	while (s < end) {
		s = skip_space(s);
		const char *t = s;
		while (t < end && *t != '|')
			t++;
		const char *e = t;
		while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		char word[96];
		uint64_t v;
		if (e == s || (size_t)(e - s) >= sizeof(word)) {
			*why = "an empty or overlong value";
			return false;
		}
		snprintf(word, sizeof(word), "%.*s", (int)(e - s), s);
		char *rest;
		errno = 0;
		if (word[0] == '-') {
			long long x = strtoll(word, &rest, 0);
			v = (uint64_t)x;
		} else {
			v = strtoull(word, &rest, 0);
		}
		if (errno || *rest) {
			if (!constant_value(word, strlen(word), &v)) {
				*why = "an unknown constant";
				return false;
			}
		}
		*out |= v;
		s = t < end ? t + 1 : t;
	}
	return true;
}

/* ERRNO(EINVAL) and ERRNO(22), TRACE(N), and the plain action names. */
static bool parse_action(const char *s, uint32_t *out)
{
	char buf[64];
	snprintf(buf, sizeof(buf), "%s", s);
	char *open = strchr(buf, '(');
	if (open && !strncasecmp(buf, "ERRNO", 5) && open[1] == 'E') {
		char *close = strchr(open, ')');
		if (!close)
			return false;
		*close = '\0';
		for (int e = 0; e < 4096; e++) {
			const char *n = strerrorname_np(e);
			if (n && !strcmp(n, open + 1)) {
				*out = SCMPC_ACT_ERRNO(e);
				return true;
			}
		}
		return false;
	}
	return scmpc_action_parse(buf, out) == 0;
}

/* "ABI CALL[(ARGS)] -> ACTION"; 0, or -1 with *WHY. */
static int parse_line(const char *line, struct test_line *t, const char **why)
{
	char abi[32], call[64];
	memset(t, 0, sizeof(*t));
	const char *s = skip_space(line), *e = s;
	while (*e && *e != ' ' && *e != '\t')
		e++;
	if (e == s || (size_t)(e - s) >= sizeof(abi))
		return *why = "no ABI", -1;
	snprintf(abi, sizeof(abi), "%.*s", (int)(e - s), s);
	if ((t->arch = scmpc_arch_from_name(abi)) == SCMPC_ARCH_NONE)
		return *why = "an unknown ABI", -1;
	s = skip_space(e);
	const char *arrow = strstr(s, "->");
	if (!arrow)
		return *why = "no '->' before the action", -1;
	const char *paren = memchr(s, '(', (size_t)(arrow - s));
	e = paren ? paren : arrow;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	if (e == s || (size_t)(e - s) >= sizeof(call))
		return *why = "no call", -1;
	snprintf(call, sizeof(call), "%.*s", (int)(e - s), s);
	if (!strcmp(call, "*")) {
		t->every_nr = true;
	} else {
		char *rest;
		errno = 0;
		unsigned long long n = strtoull(call, &rest, 0);
		if (!errno && !*rest && n <= UINT32_MAX) {
			t->nr = (uint32_t)n;
		} else {
			int64_t r = scmpc_syscall_resolve(t->arch, call);
			if (r < 0)
				return *why = "a call the ABI does not have", -1;
			t->nr = (uint32_t)r;
		}
	}
	t->any_args = 0x3f;
	if (paren) {
		const char *close = memchr(paren, ')', (size_t)(arrow - paren));
		if (!close || t->every_nr)
			return *why = "arguments without ')' or after '*'", -1;
		t->has_args = true;
		const char *a = paren + 1;
		for (unsigned i = 0; a < close; i++) {
			if (i == 6)
				return *why = "more than six arguments", -1;
			const char *comma = memchr(a, ',', (size_t)(close - a));
			const char *end = comma ? comma : close;
			const char *v = skip_space(a), *ve = end;
			while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
				ve--;
			if (ve - v == 1 && *v == '*') {
				a = end + 1;
				continue;
			}
			if (ve == v && !comma && i == 0)
				break;	/* "call()": no argument constrained */
			if (!parse_value(v, ve, &t->args[i], why))
				return -1;
			t->any_args &= ~(1U << i);
			a = end + 1;
		}
	}
	char act[64];
	snprintf(act, sizeof(act), "%s", skip_space(arrow + 2));
	size_t n = strlen(act);
	while (n && (act[n - 1] == ' ' || act[n - 1] == '\t' || act[n - 1] == '\n' ||
		     act[n - 1] == '\r'))
		act[--n] = '\0';
	if (!parse_action(act, &t->action))
		return *why = "an unknown action", -1;
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* The numbers policy P names on ABI A, sorted, each once. */
static size_t named_numbers(const scmpc_policy *p, enum scmpc_arch a, uint32_t **out)
{
	size_t n = scmpc_policy_rule_count(p), k = 0;
	uint32_t *v = malloc((n ? n : 1) * sizeof(*v));
	*out = v;
	for (size_t i = 0; v && i < n; i++) {
		struct scmpc_rule_info ri = { .sz = sizeof(ri) };
		if (scmpc_policy_rule(p, i, &ri) < 0)
			continue;
		if (ri.syscall) {
			if (ri.arch != SCMPC_ARCH_NONE && ri.arch != a)
				continue;
			int64_t r = scmpc_syscall_resolve(a, ri.syscall);
			if (r >= 0)
				v[k++] = (uint32_t)r;
		} else if (ri.arch == a) {
			v[k++] = ri.nr;
		}
	}
	if (!v)
		return 0;
	qsort(v, k, sizeof(*v), cmp_u32);
	size_t u = 0;
	for (size_t i = 0; i < k; i++)
		if (!u || v[u - 1] != v[i])
			v[u++] = v[i];
	return u;
}

static int run_test(struct cli *c)
{
	enum scmpc_arch target = host_of(c->arch != SCMPC_ARCH_NONE ? c->arch : native_arch());
	struct filter f;
	char *text = NULL;
	size_t size;
	int status = EXIT_INPUT;
	unsigned lines = 0, failed = 0;

	memset(&f, 0, sizeof(f));
	if (c->npos != 2)
		return usage_error("test needs a PROFILE (or FILE.bpf) and a file of TESTS");
	if (read_input(c->pos[1], &text, &size) || load_filter(c, c->pos[0], target, &f))
		goto out;
	scmpc_diag *d = scmpc_diag_new();
	if (!d) {
		errorf("%s", strerror(ENOMEM));
		goto out;
	}
	/* first pass: count the tests for TAP's plan */
	unsigned ntests = 0;
	for (char *l = text; l && *l;) {
		char *nl = strchr(l, '\n');
		const char *s = skip_space(l);
		if (*s && *s != '#' && *s != '\n')
			ntests++;
		l = nl ? nl + 1 : NULL;
	}
	if (c->tap)
		printf("TAP version 13\n1..%u\n", ntests);
	unsigned lineno = 0, testno = 0;
	for (char *l = text; l && *l;) {
		char *nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		lineno++;
		const char *s = skip_space(l);
		char *next = nl ? nl + 1 : NULL;
		if (!*s || *s == '#' || *s == '\r') {
			l = next;
			continue;
		}
		testno++;
		lines++;
		struct test_line t;
		const char *why = "";
		if (parse_line(s, &t, &why) < 0) {
			errorf("%s:%u: %s: %s", display_name(c->pos[1]), lineno, why, s);
			status = EXIT_USAGE;
			scmpc_diag_free(d);
			goto out;
		}
		struct scmpc_arch_info ai = abi_info(t.arch);
		struct scmpc_calls set = { .sz = sizeof(set), .arch = t.arch, .nr_lo = t.nr,
					   .nr_hi = t.nr, .any_args = t.any_args };
		memcpy(set.args, t.args, sizeof(set.args));
		uint32_t *named = NULL;
		if (t.every_nr) {
			/* x86_64's AUDIT_ARCH gives x32 the numbers from bit 30 up */
			set.nr_lo = t.arch == SCMPC_ARCH_X32 ? ai.nr_base : 0;
			set.nr_hi = t.arch == SCMPC_ARCH_X86_64 ? 0x3fffffffU : UINT32_MAX;
			if (f.policy) {
				set.nexcept = named_numbers(f.policy, t.arch, &named);
				set.except = named;
			}
		}
		struct seccomp_data w;
		uint32_t got = 0;
		int rc = scmpc_expect(f.insns, f.len, &set, t.action, &w, &got, d);
		free(named);
		if (rc < 0) {
			report_diag(c->cmd, d, rc);
			status = EXIT_USAGE;
			scmpc_diag_free(d);
			goto out;
		}
		char act[32], name[64] = "";
		if (rc == 1) {
			if (c->tap)
				printf("ok %u - %s\n", testno, s);
			else if (!c->quiet)
				printf("%s: ok\n", s);
		} else {
			failed++;
			scmpc_syscall_name(t.arch, (uint32_t)w.nr, name, sizeof(name));
			char call[320];
			snprintf(call, sizeof(call), "%s %s(%#" PRIx64 ", %#" PRIx64 ", %#" PRIx64
				 ", %#" PRIx64 ", %#" PRIx64 ", %#" PRIx64 ") [nr %" PRIu32 "]",
				 scmpc_arch_name(t.arch), name[0] ? name : "?", (uint64_t)w.args[0],
				 (uint64_t)w.args[1], (uint64_t)w.args[2], (uint64_t)w.args[3],
				 (uint64_t)w.args[4], (uint64_t)w.args[5], (uint32_t)w.nr);
			if (c->tap)
				printf("not ok %u - %s\n  ---\n  got: %s\n  call: %s\n  ...\n", testno, s,
				       action_name(got, act, sizeof(act)), call);
			else
				printf("%s:%u: FAILED: %s\n  %s gets %s\n", display_name(c->pos[1]),
				       lineno, s, call, action_name(got, act, sizeof(act)));
		}
		l = next;
	}
	scmpc_diag_free(d);
	if (!c->tap && !c->quiet)
		fprintf(stderr, "%s: %u of %u tests hold for every call they cover\n", PROG_NAME,
			lines - failed, lines);
	status = failed ? EXIT_INPUT : EXIT_OK;
out:
	free(text);
	filter_free(&f);
	return status;
}

const struct command test_command = {
	"test", run_test, F_ARCH | F_POLICY | F_TAP,
	"Usage: " PROG_NAME " test PROFILE|FILE.bpf TESTS [--tap] [-a ABI] [POLICY OPTIONS]\n",
	"Check what a profile decides against TESTS, one per line:\n"
	"  x86_64 openat(AT_FDCWD, *, O_RDONLY) -> ALLOW\n"
	"  i386 socket(AF_NETLINK, *, 9) -> ERRNO(EINVAL)\n"
	"  aarch64 * -> KILL_PROCESS      (every number the profile does not name)\n"
	"  x86_64 uname -> ALLOW          (every argument value)\n"
	"'*' is every value, and every value is checked: a line holds only when\n"
	"the program decides every call it covers so.  Values are numbers, the\n"
	"kernel headers' constants, or several joined by '|'.  Lines starting\n"
	"with '#' are comments.  A failing line is shown with a call it misjudges.\n",
	"Exit status: 0 every test holds, 1 a test fails or the input is bad, 2 usage.\n",
};

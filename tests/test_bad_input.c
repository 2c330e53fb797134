/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Hostile input through scmp-compile: every case of tests/data/bad/cases
 * (malformed JSON, numbers and types out of range, unknown names, broken
 * .bpf files) and the inputs too large to commit, generated here (100 000
 * rules, a policy past 4096 instructions, a 4097-instruction filter, a
 * 65 MiB file).  Each must end with the exact message a user should see and
 * a non-zero status, and a failing compile must leave an existing -o file
 * byte for byte as it was, with no temporary file beside it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include "scmpc.h"

#define MAX_LINES 8
#define MAX_RUNS 4
#define MAX_ARGS 8

/* What survives a failing compile: text and binary, so that a truncation or
 * a rewrite in either format shows. */
static const char sentinel[] = "previous filter: must survive\n\x06\x00\x00\x00\x00\x00\xff\x7f";

static char tmpdir[256];
static char outdir[300];
static char cli[4096];
static char datadir[4096];
static unsigned unclear_count;

struct run {
	char *argv[MAX_ARGS];
	int nargs;
	int status;
	const char *err[MAX_LINES];
	int nerr;
	const char *want[MAX_LINES];
	int nwant;
	const char *out[MAX_LINES];
	int nout;
};

struct bad_case {
	const char *file;
	struct run runs[MAX_RUNS];
	int nruns;
};

struct result {
	int status;
	char *out, *err;
};

/* ------------------------------------------------------------ running */

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (n + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 8192;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

static void put_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	assert_int_equal(close(fd), 0);
}

/* scmp-compile ARGV in directory CWD, output captured through files so that
 * no pipe can fill up; stdin is /dev/null. */
static struct result run_cli(const char *cwd, char *const *args)
{
	char out_path[512], err_path[512];
	char *argv[MAX_ARGS + 8];
	struct result r = { 0 };
	int n = 0, ws;
	pid_t pid;

	snprintf(out_path, sizeof(out_path), "%s/stdout", tmpdir);
	snprintf(err_path, sizeof(err_path), "%s/stderr", tmpdir);
	argv[n++] = cli;
	for (int i = 0; args[i]; i++) {
		assert_true(n < (int)(sizeof(argv) / sizeof(argv[0])) - 1);
		argv[n++] = args[i];
	}
	argv[n] = NULL;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int in = open("/dev/null", O_RDONLY);
		int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (in < 0 || o < 0 || e < 0 || chdir(cwd) || dup2(in, 0) < 0 || dup2(o, 1) < 0 ||
		    dup2(e, 2) < 0)
			_exit(126);
		execv(cli, argv);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &ws, 0), pid);
	r.status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	r.out = slurp(out_path, NULL);
	r.err = slurp(err_path, NULL);
	assert_non_null(r.out);
	assert_non_null(r.err);
	if (r.status >= 126)
		fail_msg("%s crashed or could not run (status %d)\nstderr:\n%s", cli, r.status, r.err);
	return r;
}

static void result_free(struct result *r)
{
	free(r->out);
	free(r->err);
}

/* STDERR is exactly LINES, each ending in a newline. */
static bool lines_match(const char *stderr_text, const char *const *lines, int n)
{
	const char *p = stderr_text;

	for (int i = 0; i < n; i++) {
		size_t l = strlen(lines[i]);

		if (strncmp(p, lines[i], l) || p[l] != '\n')
			return false;
		p += l + 1;
	}
	return *p == '\0';
}

static void print_lines(const char *title, const char *const *lines, int n)
{
	print_message("  %s:\n", title);
	if (!n)
		print_message("    (nothing)\n");
	for (int i = 0; i < n; i++)
		print_message("    %s\n", lines[i]);
}

/* The output directory holds OUT alone: a failed or interrupted write
 * leaves no temporary file behind. */
static void expect_no_leftovers(void)
{
	DIR *d = opendir(outdir);
	struct dirent *e;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, "out.bpf"))
			fail_msg("leftover file %s/%s", outdir, e->d_name);
	closedir(d);
}

static char *out_file(void)
{
	static char path[400];

	snprintf(path, sizeof(path), "%s/out.bpf", outdir);
	return path;
}

/* Check a run against its expectation; for compile, OUT must be untouched
 * when the run fails. */
static void check_run(const char *cwd, const char *file, const struct run *rn)
{
	char *args[MAX_ARGS + 6];
	int n = 0;
	bool compile = !strcmp(rn->argv[0], "compile");

	args[n++] = rn->argv[0];
	args[n++] = (char *)file;
	for (int i = 1; i < rn->nargs; i++)
		args[n++] = rn->argv[i];
	if (compile) {
		args[n++] = "-o";
		args[n++] = out_file();
		put_file(out_file(), sentinel, sizeof(sentinel));
	}
	args[n] = NULL;

	struct result r = run_cli(cwd, args);
	bool as_is = lines_match(r.err, rn->err, rn->nerr);
	bool as_wanted = rn->nwant && lines_match(r.err, rn->want, rn->nwant);

	if (r.status != rn->status || (!as_is && !as_wanted)) {
		print_message("%s %s: status %d (want %d), stderr:\n%s", rn->argv[0], file, r.status,
			      rn->status, r.err);
		print_lines("expected stderr", rn->err, rn->nerr);
		if (rn->nwant)
			print_lines("or, better", rn->want, rn->nwant);
		fail_msg("%s %s: unexpected result", rn->argv[0], file);
	}
	for (int i = 0; i < rn->nout; i++)
		if (!strstr(r.out, rn->out[i]))
			fail_msg("%s %s: stdout lacks '%s':\n%s", rn->argv[0], file, rn->out[i], r.out);
	if (rn->nwant && !as_wanted) {
		unclear_count++;
		print_message("UNCLEAR %s %s: the current message is accepted; a user should see\n",
			      rn->argv[0], file);
		for (int i = 0; i < rn->nwant; i++)
			print_message("    %s\n", rn->want[i]);
	} else if (rn->nwant) {
		print_message("NOW CLEAR %s %s: turn its want lines into err lines\n", rn->argv[0],
			      file);
	}
	if (compile) {
		size_t len;
		char *now = slurp(out_file(), &len);

		assert_non_null(now);
		if (rn->status != 0 && (len != sizeof(sentinel) || memcmp(now, sentinel, len)))
			fail_msg("compile %s failed but changed the existing output file", file);
		if (rn->status == 0 && (len == 0 || len % sizeof(struct sock_filter)))
			fail_msg("compile %s wrote %zu bytes, not a whole filter", file, len);
		free(now);
		expect_no_leftovers();
	}
	result_free(&r);
}

/* --------------------------------------------------------- the manifest */

static struct bad_case *cases;
static size_t ncases;

static char *skip_word(char *s, const char *word)
{
	size_t l = strlen(word);

	if (strncmp(s, word, l) || (s[l] != ' ' && s[l] != '\0'))
		return NULL;
	return s[l] ? s + l + 1 : s + l;
}

static void parse_manifest(const char *path)
{
	char *text = slurp(path, NULL);
	size_t cap = 0;
	struct bad_case *c = NULL;
	struct run *rn = NULL;
	int lineno = 0;

	if (!text) {
		fprintf(stderr, "test_bad_input: cannot read %s\n", path);
		exit(1);
	}
	/* The manifest lives as long as the program: lines point into it. */
	for (char *line = text, *next; line && *line; line = next) {
		char *arg;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		if (!*line || *line == '#')
			continue;
		if ((arg = skip_word(line, "case"))) {
			if (ncases == cap) {
				cap = cap ? cap * 2 : 64;
				cases = realloc(cases, cap * sizeof(*cases));
				if (!cases)
					abort();
			}
			c = &cases[ncases++];
			memset(c, 0, sizeof(*c));
			c->file = arg;
			rn = NULL;
		} else if (c && (arg = skip_word(line, "run")) && c->nruns < MAX_RUNS) {
			rn = &c->runs[c->nruns++];
			for (char *w = strtok(arg, " "); w && rn->nargs < MAX_ARGS; w = strtok(NULL, " "))
				rn->argv[rn->nargs++] = w;
		} else if (rn && (arg = skip_word(line, "status"))) {
			rn->status = atoi(arg);
		} else if (rn && (arg = skip_word(line, "err")) && rn->nerr < MAX_LINES) {
			rn->err[rn->nerr++] = arg;
		} else if (rn && (arg = skip_word(line, "want")) && rn->nwant < MAX_LINES) {
			rn->want[rn->nwant++] = arg;
		} else if (rn && (arg = skip_word(line, "out")) && rn->nout < MAX_LINES) {
			rn->out[rn->nout++] = arg;
		} else {
			fprintf(stderr, "%s:%d: cannot parse '%s'\n", path, lineno, line);
			exit(1);
		}
	}
	for (size_t i = 0; i < ncases; i++)
		if (!cases[i].nruns) {
			fprintf(stderr, "%s: case %s has no run\n", path, cases[i].file);
			exit(1);
		}
}

static void manifest_case(void **state)
{
	const struct bad_case *c = *state;

	for (int i = 0; i < c->nruns; i++)
		check_run(datadir, c->file, &c->runs[i]);
}

/* ------------------------------------------------------ generated cases */

static char *tmp_path(const char *name)
{
	static char bufs[4][512];
	static int k;
	char *b = bufs[k++ % 4];

	snprintf(b, sizeof(bufs[0]), "%s/%s", tmpdir, name);
	return b;
}

struct sbuf {
	char *s;
	size_t len, cap;
};

static void sb_add(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	assert_true(n >= 0);
	if (b->len + (size_t)n + 1 > b->cap) {
		b->cap = (b->len + (size_t)n + 1) * 2;
		b->s = realloc(b->s, b->cap);
		assert_non_null(b->s);
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

enum many { SAME, SPREAD, CONTIGUOUS };

/* N rules for read: the same unconditional rule N times, or each allowing
 * its own arg0 value, spread out so that no range folds them, or
 * contiguous, so that together they are one range. */
static void write_many_rules(const char *name, unsigned n, enum many shape)
{
	struct sbuf b = { 0 };

	sb_add(&b, "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"architectures\": [\"SCMP_ARCH_X86_64\"],"
		   " \"syscalls\": [\n");
	for (unsigned i = 0; i < n; i++) {
		if (shape != SAME)
			sb_add(&b, "%s{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\", \"args\": "
				   "[{\"index\": 0, \"value\": %" PRIu64 ", \"op\": \"SCMP_CMP_EQ\"}]}\n",
			       i ? "," : "", (uint64_t)i * (shape == SPREAD ? 7919 : 1));
		else
			sb_add(&b, "%s{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\"}\n",
			       i ? "," : "");
	}
	sb_add(&b, "]}\n");
	put_file(tmp_path(name), b.s, b.len);
	free(b.s);
}

static void expect_failure(const char *file, char **extra, const char *const *err, int nerr)
{
	struct run rn = { .status = 1 };

	rn.argv[rn.nargs++] = "compile";
	for (int i = 0; extra && extra[i]; i++)
		rn.argv[rn.nargs++] = extra[i];
	for (int i = 0; i < nerr; i++)
		rn.err[rn.nerr++] = err[i];
	check_run(tmpdir, file, &rn);
}

static void rules_100k_distinct(void **state)
{
	(void)state;
	write_many_rules("rules-100k.json", 100000, SPREAD);
	expect_failure("rules-100k.json", NULL, (const char *const[]){
		"scmp-compile: rules-100k.json: the policy is too complex to compile (reached at read "
		"on x86_64, 100000 rules): its decisions need more than the compiler's bound of 262144 "
		"distinct tests" }, 1);
}

static void rules_100k_same(void **state)
{
	(void)state;
	struct run rn = { .status = 0 };

	/* One rule, repeated: it must cost no more than once. */
	write_many_rules("rules-100k-same.json", 100000, SAME);
	rn.argv[rn.nargs++] = "compile";
	check_run(tmpdir, "rules-100k-same.json", &rn);
	size_t len;
	free(slurp(out_file(), &len));
	assert_true(len / sizeof(struct sock_filter) < 16);
}

/* 5000 values of one argument need at least one comparison each, whatever
 * the layout: the error must name the size the program would have had. */
static void past_4096_instructions(void **state)
{
	(void)state;
	char *args[] = { "compile", "conds-5000.json", "-o", out_file(), NULL };
	static const char head[] = "scmp-compile: conds-5000.json: the program needs ";
	static const char tail[] = " instructions; the kernel accepts at most 4096\n";
	unsigned long need = 0;
	char *end = NULL;

	write_many_rules("conds-5000.json", 5000, SPREAD);
	put_file(out_file(), sentinel, sizeof(sentinel));
	struct result r = run_cli(tmpdir, args);
	if (r.status != 1 || strncmp(r.err, head, strlen(head)))
		fail_msg("status %d, stderr:\n%s", r.status, r.err);
	need = strtoul(r.err + strlen(head), &end, 10);
	if (need <= 4096 || strcmp(end, tail))
		fail_msg("the size is missing or not above 4096:\n%s", r.err);
	result_free(&r);
	size_t len;
	char *now = slurp(out_file(), &len);
	assert_non_null(now);
	assert_int_equal(len, sizeof(sentinel));
	assert_memory_equal(now, sentinel, len);
	free(now);
	expect_no_leftovers();
}

/*
 * Fuzzing finding F1: 9000 rules allowing read for arg0 == 0, 1, ..., 8999
 * are together "arg0 < 9000".  The lowering used to copy every rule into
 * each of the 9001 value ranges and ran out of its work budget, refusing
 * the policy as too complex.  By hand: arch check (2), number dispatch
 * (at most 4), high and low word of arg0 (2 loads, 2 tests), three
 * returns: at most 16 instructions.
 */
static void collapsing_rules_fit(void **state)
{
	(void)state;
	char *args[] = { "compile", "eq-9000.json", "-o", out_file(), NULL };
	size_t len;

	write_many_rules("eq-9000.json", 9000, CONTIGUOUS);
	put_file(out_file(), sentinel, sizeof(sentinel));
	struct result r = run_cli(tmpdir, args);
	char *now = slurp(out_file(), &len);
	assert_non_null(now);
	if (r.status != 0 || *r.err || len % sizeof(struct sock_filter) != 0 ||
	    len / sizeof(struct sock_filter) > 16)
		fail_msg("status %d, %zu bytes written, stderr:\n%s", r.status, len, r.err);
	free(now);
	result_free(&r);
	expect_no_leftovers();
}

/*
 * Fuzzing finding F3: 11 rules "allow execve when bit I of arg0 is set and
 * bit 32+I is clear" need 75 instructions as a plain chain
 * (SCMPC_COMPILE_NAIVE), but the optimizer's tree doubled with every such
 * rule (4007 instructions for 10) and the policy was refused.  Per call the
 * plain chain is now kept when smaller: a few instructions over the chain.
 */
static void masked_rules_stay_small(void **state)
{
	(void)state;
	char *args[] = { "compile", "masks-11.json", "-o", out_file(), NULL };
	size_t len;

	put_file(out_file(), sentinel, sizeof(sentinel));
	struct result r = run_cli(datadir, args);
	char *now = slurp(out_file(), &len);
	assert_non_null(now);
	if (r.status != 0 || *r.err || len % sizeof(struct sock_filter) != 0 ||
	    len / sizeof(struct sock_filter) > 100)
		fail_msg("status %d, %zu bytes written, stderr:\n%s", r.status, len, r.err);
	free(now);
	result_free(&r);
	expect_no_leftovers();
}

static void bpf_4097_instructions(void **state)
{
	(void)state;
	struct sock_filter f[4097];
	struct run rn = { .status = 1 };

	for (size_t i = 0; i < 4096; i++)
		f[i] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0);
	f[4096] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ALLOW);
	put_file(tmp_path("long.bpf"), f, sizeof(f));
	rn.argv[rn.nargs++] = "inspect";
	rn.err[rn.nerr++] = "scmp-compile: long.bpf: program has 4097 instructions; the kernel "
			    "accepts at most 4096";
	rn.err[rn.nerr++] = "scmp-compile: long.bpf: rejected by the kernel's rules (1 problem)";
	check_run(tmpdir, "long.bpf", &rn);
}

/* Sparse, so it costs no disk; the CLI must stop reading at its limit. */
static void input_65mib(void **state)
{
	(void)state;
	int fd = open(tmp_path("huge.json"), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 65 << 20), 0);
	close(fd);
	expect_failure("huge.json", NULL, (const char *const[]){
		"scmp-compile: huge.json: larger than 64 MiB; not a policy or filter" }, 1);
	unlink(tmp_path("huge.json"));
}

static void input_is_directory(void **state)
{
	(void)state;
	assert_int_equal(mkdir(tmp_path("adir"), 0755), 0);
	expect_failure("adir", NULL, (const char *const[]){ "scmp-compile: adir: Is a directory" }, 1);
}

static void input_missing(void **state)
{
	(void)state;
	expect_failure("no-such.json", NULL,
		       (const char *const[]){ "scmp-compile: no-such.json: No such file or directory" },
		       1);
}

/* ------------------------------------------------------------------ main */

static int rm_entry(const char *dir, const char *name)
{
	char p[700];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return unlink(p) && rmdir(p) ? -1 : 0;
}

static void cleanup(void)
{
	static const char *const names[] = { "stdout", "stderr", "rules-100k.json",
					     "rules-100k-same.json", "conds-5000.json", "eq-9000.json",
					     "long.bpf", "huge.json", "adir" };

	rm_entry(outdir, "out.bpf");
	rmdir(outdir);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		rm_entry(tmpdir, names[i]);
	rmdir(tmpdir);
}

int main(void)
{
	const char *env_cli = getenv("SCMP_COMPILE");
	const char *env_data = getenv("SCMPC_TESTDATA");
	char manifest[4200];

	if (env_cli && *env_cli)
		snprintf(cli, sizeof(cli), "%s", env_cli);
	else if (!realpath("tools/scmp-compile", cli))
		snprintf(cli, sizeof(cli), "tools/scmp-compile");
	snprintf(datadir, sizeof(datadir), "%s/bad", env_data && *env_data ? env_data : "tests/data");
	snprintf(manifest, sizeof(manifest), "%s/cases", datadir);
	parse_manifest(manifest);

	snprintf(tmpdir, sizeof(tmpdir), "%s/scmpc-bad-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(outdir, sizeof(outdir), "%s/out", tmpdir);
	if (mkdir(outdir, 0755)) {
		perror("mkdir");
		return 1;
	}

	static const struct CMUnitTest generated[] = {
		cmocka_unit_test(rules_100k_distinct),
		cmocka_unit_test(rules_100k_same),
		cmocka_unit_test(past_4096_instructions),
		cmocka_unit_test(collapsing_rules_fit),
		cmocka_unit_test(masked_rules_stay_small),
		cmocka_unit_test(bpf_4097_instructions),
		cmocka_unit_test(input_65mib),
		cmocka_unit_test(input_is_directory),
		cmocka_unit_test(input_missing),
	};
	size_t ngen = sizeof(generated) / sizeof(generated[0]);
	struct CMUnitTest *tests = calloc(ncases + ngen, sizeof(*tests));
	if (!tests)
		return 1;
	for (size_t i = 0; i < ncases; i++) {
		tests[i].name = cases[i].file;
		tests[i].test_func = manifest_case;
		tests[i].initial_state = &cases[i];
	}
	memcpy(tests + ncases, generated, sizeof(generated));

	int failed = _cmocka_run_group_tests("bad_input", tests, ncases + ngen, NULL, NULL);
	if (unclear_count)
		print_message("%u run(s) pass with a message marked UNCLEAR in %s\n", unclear_count,
			      manifest);
	cleanup();
	free(tests);
	return failed;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * scmp-compile end to end: the built binary ($SCMP_COMPILE) is run with
 * fork/exec and judged by exit status, output and the files it leaves.
 * Expected strings are written from the documentation and the profiles'
 * content, not captured from the program.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include "scmpc.h"
#include "lsc_ref.h"
#include "shapes.h"
#include "testutil.h"

struct result {
	int status;		/* exit status, or 128 + signal */
	char *out, *err;
	size_t out_len, err_len;
};

static char tmpdir[256];

static const char *cli_path(void)
{
	const char *p = getenv("SCMP_COMPILE");
	return p && *p ? p : "tools/scmp-compile";
}

static char *path_in(const char *dir, const char *name)
{
	static char bufs[8][4096];
	static int next;
	char *b = bufs[next++ % 8];

	snprintf(b, sizeof(bufs[0]), "%s/%s", dir, name);
	return b;
}

static char *tmp(const char *name)
{
	return path_in(tmpdir, name);
}

/* A packaged profile by short name (testutil.h); a missing one fails the
 * test with the package to install. */
static char *policy(const char *name)
{
	static char bufs[8][4096];
	static int next;
	char *b = bufs[next++ % 8];

	if (!testutil_profile_path(name, b, sizeof(bufs[0])))
		fail_msg("%s", testutil_last_error());
	if (access(b, R_OK))
		fail_msg("%s: %s (install %s; tools/setup-debian does)", b, strerror(errno),
			 testutil_profile_package(name));
	return b;
}

static void append(char **buf, size_t *len, const char *data, size_t n)
{
	char *nb = realloc(*buf, *len + n + 1);

	assert_non_null(nb);
	memcpy(nb + *len, data, n);
	*len += n;
	nb[*len] = '\0';
	*buf = nb;
}

/* Run the CLI with ARGV (NULL-terminated, without argv[0]) and IN on its
 * standard input; both pipes are drained together so neither side blocks.
 * Unless ANY_STATUS, 127 and deaths by signal fail the test: the CLI's own
 * statuses stop at 2, but exec passes on env(1)'s and its command's. */
static struct result run_argv_ex(const char *in, char *const *args, bool any_status)
{
	int pin[2], pout[2], perr[2];
	struct result r = { 0 };
	char *argv[64];
	size_t n = 0, in_len = in ? strlen(in) : 0, in_off = 0;
	pid_t pid;

	argv[n++] = (char *)cli_path();
	for (size_t i = 0; args[i]; i++) {
		assert_true(n < 63);
		argv[n++] = args[i];
	}
	argv[n] = NULL;
	assert_int_equal(pipe2(pin, O_CLOEXEC), 0);
	assert_int_equal(pipe2(pout, O_CLOEXEC), 0);
	assert_int_equal(pipe2(perr, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(pin[0], 0);
		dup2(pout[1], 1);
		dup2(perr[1], 2);
		execv(argv[0], argv);
		_exit(127);
	}
	close(pin[0]);
	close(pout[1]);
	close(perr[1]);
	if (!in_len) {
		close(pin[1]);
		pin[1] = -1;
	} else {
		fcntl(pin[1], F_SETFL, O_NONBLOCK);
	}
	r.out = calloc(1, 1);
	r.err = calloc(1, 1);
	int open_fds = 2;
	while (open_fds) {
		struct pollfd pf[3] = {
			{ .fd = pout[0], .events = POLLIN },
			{ .fd = perr[0], .events = POLLIN },
			{ .fd = pin[1], .events = POLLOUT },
		};
		char buf[65536];

		assert_true(poll(pf, 3, 60000) > 0);
		for (int k = 0; k < 2; k++) {
			if (pf[k].fd < 0 || !(pf[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			ssize_t got = read(pf[k].fd, buf, sizeof(buf));
			if (got > 0) {
				if (k == 0)
					append(&r.out, &r.out_len, buf, (size_t)got);
				else
					append(&r.err, &r.err_len, buf, (size_t)got);
			} else if (got == 0 || errno != EINTR) {
				close(pf[k].fd);
				if (k == 0)
					pout[0] = -1;
				else
					perr[0] = -1;
				open_fds--;
			}
		}
		if (pin[1] >= 0 && (pf[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
			ssize_t w = write(pin[1], in + in_off, in_len - in_off);
			if (w > 0)
				in_off += (size_t)w;
			if (w < 0 || in_off == in_len) {
				close(pin[1]);
				pin[1] = -1;
			}
		}
	}
	if (pin[1] >= 0)
		close(pin[1]);
	int ws;
	assert_int_equal(waitpid(pid, &ws, 0), pid);
	r.status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	if (!any_status && (r.status >= 128 || r.status == 127))
		fail_msg("%s crashed or could not run (status %d)\nstderr: %s", argv[0], r.status,
			 r.err);
	return r;
}

static struct result run_argv(const char *in, char *const *args)
{
	return run_argv_ex(in, args, false);
}

#define RUN(...) run_argv(NULL, (char *const[]){ __VA_ARGS__, NULL })
#define RUN_IN(in, ...) run_argv(in, (char *const[]){ __VA_ARGS__, NULL })
#define RUN_ANY(...) run_argv_ex(NULL, (char *const[]){ __VA_ARGS__, NULL }, true)

static void result_free(struct result *r)
{
	free(r->out);
	free(r->err);
}

static void expect(const struct result *r, int status, const char *in_out, const char *in_err)
{
	if (r->status != status || (in_out && !strstr(r->out, in_out)) ||
	    (in_err && !strstr(r->err, in_err)))
		fail_msg("status %d (want %d), stdout %s %s, stderr %s %s\n--- stdout:\n%s\n--- stderr:\n%s",
			 r->status, status, in_out ? "should contain" : "", in_out ? in_out : "",
			 in_err ? "should contain" : "", in_err ? in_err : "", r->out, r->err);
}

static void write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
}

static void write_text(const char *path, const char *text)
{
	write_file(path, text, strlen(text));
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0;
	char chunk[4096];
	size_t got;

	if (!f)
		return NULL;
	buf = calloc(1, 1);
	while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0)
		append(&buf, &n, chunk, got);
	fclose(f);
	if (len)
		*len = n;
	return buf;
}

/* Files in the scratch directory whose names start with '.': what an
 * interrupted or failed atomic write would leave behind. */
static int hidden_files(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int setup_tmp(void **state)
{
	(void)state;
	const char *base = getenv("TMPDIR");

	snprintf(tmpdir, sizeof(tmpdir), "%s/scmpc-cli-XXXXXX", base && *base ? base : "/tmp");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown_tmp(void **state)
{
	(void)state;
	return nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* A small OCI policy for x86_64 only, so differences are easy to name. */
#define SMALL_POLICY(extra_names, socket_rule)                                   \
	"{\n"                                                                    \
	"  \"defaultAction\": \"SCMP_ACT_ERRNO\",\n"                             \
	"  \"architectures\": [\"SCMP_ARCH_X86_64\"],\n"                         \
	"  \"syscalls\": [\n"                                                    \
	"    {\"names\": [\"read\", \"write\", \"exit_group\"" extra_names "],\n" \
	"     \"action\": \"SCMP_ACT_ALLOW\"}" socket_rule "\n"                   \
	"  ]\n"                                                                  \
	"}\n"

#define SOCKET_NOT_40                                                            \
	",\n    {\"names\": [\"socket\"], \"action\": \"SCMP_ACT_ALLOW\",\n"     \
	"     \"args\": [{\"index\": 0, \"value\": 40, \"op\": \"SCMP_CMP_NE\"}]}"
#define SOCKET_ANY ",\n    {\"names\": [\"socket\"], \"action\": \"SCMP_ACT_ALLOW\"}"

/* An ABI exec must refuse: a filter for it would deny everything here. */
#if defined(__aarch64__)
#define FOREIGN_ABI "x86_64"
#else
#define FOREIGN_ABI "aarch64"
#endif

/* Allow everything but one call, which fails with EPERM: small filters
 * whose effect a stock command shows.  No "architectures": the native ABI. */
#define DENY_ONE(name)                                                              \
	"{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"" name \
	"\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 1}]}\n"

/* ------------------------------------------------------------------ tests */

static void test_help_and_version(void **state)
{
	(void)state;
	char want[64];
	struct result r;

	r = RUN("--help");
	expect(&r, 0, "Usage:", NULL);
	for (const char *const *w = (const char *const[]){ "compile", "explain", "inspect", "diff",
							   "exec", "dump", "--format", "--stats",
							   "--flags", "--keep-nnp", NULL };
	     *w; w++)
		assert_non_null(strstr(r.out, *w));
	assert_int_equal(r.err_len, 0);
	result_free(&r);

	r = RUN("compile", "--help");
	expect(&r, 0, "Usage:", NULL);
	result_free(&r);

	snprintf(want, sizeof(want), "scmp-compile %d.%d.%d\n", SCMPC_VERSION_MAJOR,
		 SCMPC_VERSION_MINOR, SCMPC_VERSION_MICRO);
	r = RUN("--version");
	expect(&r, 0, NULL, NULL);
	assert_string_equal(r.out, want);
	result_free(&r);
}

static void test_usage_errors(void **state)
{
	(void)state;
	char *docker = policy("docker-default.json");
	char *const *cases[] = {
		(char *const[]){ NULL },
		(char *const[]){ "frobnicate", NULL },
		(char *const[]){ "--bogus", NULL },
		(char *const[]){ "compile", NULL },
		(char *const[]){ "compile", docker, docker, NULL },
		(char *const[]){ "compile", docker, "--format", "elf", NULL },
		(char *const[]){ "compile", docker, "--arch", "sparc", NULL },
		(char *const[]){ "compile", docker, "--kernel", "six", NULL },
		(char *const[]){ "compile", docker, "--kernel", "0.0", NULL },
		(char *const[]){ "compile", docker, "--caps", "CAP_NOPE", NULL },
		(char *const[]){ "compile", docker, "-o", NULL },
		(char *const[]){ "compile", docker, "--frobnicate", NULL },
		(char *const[]){ "explain", docker, NULL },
		(char *const[]){ "explain", docker, "read", "zz", NULL },
		(char *const[]){ "explain", docker, "read", "1", "2", "3", "4", "5", "6", "7", NULL },
		(char *const[]){ "explain", docker, "read", "--stats", NULL },
		(char *const[]){ "inspect", NULL },
		(char *const[]){ "inspect", docker, "--format", "c", NULL },
		(char *const[]){ "diff", docker, NULL },
		(char *const[]){ "diff", "-", "-", NULL },
		(char *const[]){ "exec", NULL },
		(char *const[]){ "exec", docker, NULL },
		(char *const[]){ "exec", docker, "--", NULL },
		(char *const[]){ "exec", "--flags", "tsync,bogus", docker, "/bin/true", NULL },
		(char *const[]){ "exec", "--flags", "new_listener", docker, "/bin/true", NULL },
		(char *const[]){ "exec", "-o", "x.bpf", docker, "/bin/true", NULL },
		(char *const[]){ "exec", docker, "--stats", "/bin/true", NULL },
		(char *const[]){ "exec", "--arch", FOREIGN_ABI, docker, "/bin/true", NULL },
		(char *const[]){ "compile", docker, "--keep-nnp", NULL },
		(char *const[]){ "compile", docker, "--layout", "fast", NULL },
		(char *const[]){ "explain", docker, "read", "--layout", "size", NULL },
		(char *const[]){ "dump", NULL },
		(char *const[]){ "dump", "abc", NULL },
		(char *const[]){ "dump", "0", NULL },
		(char *const[]){ "dump", "1", "2", NULL },
		(char *const[]){ "dump", "1", "-o", "-", NULL },
		(char *const[]){ "dump", "1", "--caps", "all", NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct result r = run_argv(NULL, cases[i]);

		if (r.status != 2 || !strstr(r.err, "scmp-compile: ") || r.out_len)
			fail_msg("case %zu (%s %s): status %d, stderr: %s, stdout: %s", i,
				 cases[i][0] ? cases[i][0] : "", cases[i][0] && cases[i][1] ? cases[i][1] : "",
				 r.status, r.err, r.out);
		result_free(&r);
	}
}

static void test_compile_packaged_profiles(void **state)
{
	(void)state;
	const char *const *names = testutil_profile_names;

	for (size_t i = 0; names[i]; i++) {
		char out[256];
		size_t len = 0;
		struct result r;

		snprintf(out, sizeof(out), "%s.bpf", names[i]);
		r = RUN("compile", policy(names[i]), "-o", tmp(out), "-q");
		expect(&r, 0, NULL, NULL);
		assert_int_equal(r.out_len, 0);
		result_free(&r);
		char *data = read_file(tmp(out), &len);
		assert_non_null(data);
		if (len == 0 || len % 8 || len > 4096 * 8)
			fail_msg("%s: %zu bytes is not a filter", out, len);
		free(data);
	}
	assert_int_equal(hidden_files(), 0);
}

static void test_compile_formats(void **state)
{
	(void)state;
	char *docker = policy("docker-default.json");
	struct result r;
	size_t bpf_len, len;

	r = RUN("compile", docker, "-o", tmp("fmt.bpf"), "-q");
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	free(read_file(tmp("fmt.bpf"), &bpf_len));

	/* text is the default on stdout; one line per instruction at least */
	r = RUN("compile", docker, "-q");
	expect(&r, 0, NULL, NULL);
	size_t lines = 0;
	for (size_t i = 0; i < r.out_len; i++)
		lines += r.out[i] == '\n';
	assert_true(lines >= bpf_len / 8);
	result_free(&r);

	/* C by extension, with the array name asked for */
	r = RUN("compile", docker, "-o", tmp("fmt.c"), "--name", "docker_filter", "-q");
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	char *c = read_file(tmp("fmt.c"), &len);
	assert_non_null(c);
	assert_non_null(strstr(c, "struct sock_filter"));
	assert_non_null(strstr(c, "docker_filter"));
	free(c);

	/* an explicit format beats the extension */
	r = RUN("compile", docker, "-o", tmp("fmt-raw.txt"), "-f", "bpf", "-q");
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	free(read_file(tmp("fmt-raw.txt"), &len));
	assert_int_equal(len, bpf_len);

	/* '-' reads the policy from standard input */
	char *text = read_file(docker, NULL);
	assert_non_null(text);
	r = RUN_IN(text, "compile", "-", "-o", tmp("stdin.bpf"), "-q");
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	free(text);
	free(read_file(tmp("stdin.bpf"), &len));
	assert_int_equal(len, bpf_len);
	assert_int_equal(hidden_files(), 0);
}

static void test_failed_compile_keeps_old_output(void **state)
{
	(void)state;
	static const char old[] = "previous filter, must survive\n";
	static const char *const bad[] = {
		"{ \"defaultAction\": \"SCMP_ACT_FROBNICATE\" }\n",
		"{ \"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [ { \"names\": [\"read\"],",
		"not json at all\n",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct result r;
		size_t len;

		write_text(tmp("bad.json"), bad[i]);
		write_text(tmp("keep.bpf"), old);
		r = RUN("compile", tmp("bad.json"), "-o", tmp("keep.bpf"));
		expect(&r, 1, NULL, "scmp-compile: ");
		assert_non_null(strstr(r.err, "bad.json"));
		result_free(&r);
		char *now = read_file(tmp("keep.bpf"), &len);
		assert_non_null(now);
		assert_string_equal(now, old);
		free(now);
		assert_int_equal(hidden_files(), 0);
	}

	/* an output directory that does not exist: nothing is created */
	struct result nodir = RUN("compile", policy("docker-default.json"), "-q", "-o",
				  tmp("no-such-dir/x.bpf"));
	expect(&nodir, 1, NULL, "no-such-dir/x.bpf");
	result_free(&nodir);

	/* a successful run replaces the content but keeps the file's mode */
	struct stat st;
	write_text(tmp("mode.bpf"), old);
	assert_int_equal(chmod(tmp("mode.bpf"), 0600), 0);
	struct result ok = RUN("compile", policy("docker-default.json"), "-q", "-o",
			       tmp("mode.bpf"));
	expect(&ok, 0, NULL, NULL);
	result_free(&ok);
	assert_int_equal(stat(tmp("mode.bpf"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_true(st.st_size > 0 && st.st_size % 8 == 0);
	assert_int_equal(hidden_files(), 0);

	/* a missing policy is an input error, and creates no output */
	struct result r = RUN("compile", tmp("no-such.json"), "-o", tmp("never.bpf"));
	expect(&r, 1, NULL, "no-such.json");
	result_free(&r);
	assert_int_equal(access(tmp("never.bpf"), F_OK), -1);
}

static void test_malformed_json_position(void **state)
{
	(void)state;
	/* The stray comma is on line 4, after column 25. */
	write_text(tmp("malformed.json"), "{\n"
					  "  \"defaultAction\": \"SCMP_ACT_ALLOW\",\n"
					  "  \"syscalls\": [\n"
					  "    {\"names\": [\"read\"], }\n"
					  "  ]\n"
					  "}\n");
	struct result r = RUN("compile", tmp("malformed.json"));
	expect(&r, 1, NULL, "malformed.json: ");
	assert_non_null(strstr(r.err, "line 4"));
	assert_non_null(strstr(r.err, "column"));
	assert_int_equal(r.out_len, 0);
	result_free(&r);
}

static void test_warnings_and_strict(void **state)
{
	(void)state;
	write_text(tmp("unknown.json"),
		   "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"architectures\": [\"SCMP_ARCH_X86_64\"],\n"
		   " \"syscalls\": [{\"names\": [\"read\", \"no_such_syscall_xyz\"],"
		   " \"action\": \"SCMP_ACT_ALLOW\"}]}\n");
	struct result r = RUN("compile", tmp("unknown.json"), "-o", tmp("unknown.bpf"));
	expect(&r, 0, NULL, "scmp-compile: warning: ");
	assert_non_null(strstr(r.err, "no_such_syscall_xyz"));
	result_free(&r);

	r = RUN("compile", tmp("unknown.json"), "-o", tmp("unknown.bpf"), "-q");
	expect(&r, 0, NULL, NULL);
	assert_int_equal(r.err_len, 0);
	result_free(&r);

	r = RUN("compile", tmp("unknown.json"), "-o", tmp("unknown-strict.bpf"), "--strict");
	expect(&r, 1, NULL, "no_such_syscall_xyz");
	result_free(&r);
	assert_int_equal(access(tmp("unknown-strict.bpf"), F_OK), -1);
}

static void test_stats(void **state)
{
	(void)state;
	char *docker = policy("docker-default.json");

	/* to stdout when the filter goes to a file */
	struct result r = RUN("compile", docker, "-o", tmp("stats.bpf"), "--stats", "-q",
			      "--arch", "x86_64", "--kernel", "6.8");
	expect(&r, 0, "instructions: ", NULL);
	for (const char *const *w = (const char *const[]){ "cBPF", "eBPF", "x86_64: ", "i386: ",
							   "worst", "mean", "personality",
							   "argument-independent allows cacheable",
							   "compile time: ", NULL };
	     *w; w++)
		if (!strstr(r.out, *w))
			fail_msg("stats lack '%s':\n%s", *w, r.out);
	result_free(&r);

	/* to stderr when the filter goes to stdout */
	r = RUN("compile", docker, "--stats", "-q");
	expect(&r, 0, NULL, "instructions: ");
	assert_null(strstr(r.out, "compile time: "));
	result_free(&r);
}

/* --layout: 2,000 values of ioctl's first argument laid out for size are
 * a chain as long as the set, for the path a search of a few dozen
 * compares in more instructions; by default, no larger than libseccomp's
 * chain, the former. */
static unsigned stat_after(const char *out, const char *key)
{
	const char *at = strstr(out, key);
	if (!at)
		fail_msg("no '%s' in:\n%s", key, out);
	return (unsigned)strtoul(at + strlen(key), NULL, 10);
}

static void test_layout(void **state)
{
	(void)state;
	char *path = tmp("values.json");
	size_t cap = 2000 * 160 + 256, len = 0;
	char *text = malloc(cap);
	assert_non_null(text);
	len += (size_t)snprintf(text + len, cap - len, "{\"defaultAction\": \"SCMP_ACT_ERRNO\", "
				"\"architectures\": [\"SCMP_ARCH_X86_64\"], \"syscalls\": [");
	for (unsigned i = 0; i < 2000; i++)
		len += (size_t)snprintf(text + len, cap - len,
					"%s{\"names\": [\"ioctl\"], \"action\": \"SCMP_ACT_ALLOW\", "
					"\"args\": [{\"index\": 0, \"value\": %u, "
					"\"op\": \"SCMP_CMP_EQ\"}]}", i ? ", " : "", 3 + 3 * i);
	len += (size_t)snprintf(text + len, cap - len, "]}\n");
	write_text(path, text);
	free(text);
	static char *const how[] = { "size", "path", "default" };
	unsigned insns[3], worst[3];
	for (int k = 0; k < 3; k++) {
		struct result r = RUN("compile", path, "-o", tmp("values.bpf"), "--stats", "-q",
				      "--arch", "x86_64", "--layout", how[k]);
		expect(&r, 0, "instructions: ", NULL);
		insns[k] = stat_after(r.out, "instructions: ");
		worst[k] = stat_after(r.out, "argument-checked syscalls: ioctl ");
		result_free(&r);
	}
	assert_true(worst[0] >= 2000 && worst[1] < 40 && insns[0] < insns[1]);
	assert_int_equal(insns[2], insns[0]);
	assert_int_equal(worst[2], worst[0]);
}

static void test_explain_docker(void **state)
{
	(void)state;
	char *docker = policy("docker-default.json");
	struct result r;

	r = RUN("explain", docker, "read", "--arch", "x86_64", "--kernel", "6.8", "-q");
	expect(&r, 0, "action: ALLOW\n", NULL);
	assert_non_null(strstr(r.out, "decided by: syscalls[0]"));
	assert_non_null(strstr(r.out, "filter: ALLOW"));
	/* an unconditional allow on the native ABI is what the cache is for */
	assert_non_null(strstr(r.out, "cache: cached"));
	result_free(&r);

	/* without CAP_SYS_ADMIN, clone3 gets ENOSYS so that libc falls back
	 * (entry 16 of Docker 20.10's default.json) */
	r = RUN("explain", docker, "clone3", "--arch", "x86_64", "--kernel", "6.8", "-q");
	expect(&r, 0, "action: ERRNO(38)\n", NULL);
	assert_non_null(strstr(r.out, "decided by: syscalls[16]"));
	assert_non_null(strstr(r.out, "filter: ERRNO(38)"));
	result_free(&r);

	/* personality(9) matches none of the personality rules (entries 2-6):
	 * the default decides, after the filter has looked at the argument */
	r = RUN("explain", docker, "personality", "9", "--arch", "x86_64", "--kernel", "6.8", "-q");
	expect(&r, 0, "action: ERRNO(1)\n", NULL);
	assert_non_null(strstr(r.out, "decided by: the default action"));
	assert_non_null(strstr(r.out, "filter: ERRNO(1)"));
	assert_non_null(strstr(r.out, "cache: not cached"));
	assert_non_null(strstr(r.out, "args[0]"));
	result_free(&r);

	/* by number: personality is 135 on x86_64, PER_BSD (8) is entry 3 */
	r = RUN("explain", docker, "135", "0x8", "--arch", "x86_64", "--kernel", "6.8", "-q");
	expect(&r, 0, "action: ALLOW\n", NULL);
	assert_non_null(strstr(r.out, "decided by: syscalls[3]"));
	result_free(&r);

	/* a profile without "architectures" covers the target ABI only, and
	 * runc keeps libseccomp's bad-arch action, KILL_THREAD */
	r = RUN("explain", policy("docker-example.json"), "close", "--arch", "i386", "-q");
	expect(&r, 0, "action: KILL_THREAD\n", NULL);
	assert_non_null(strstr(r.out, "decided by: the bad-arch action"));
	result_free(&r);

	r = RUN("explain", docker, "no_such_syscall_xyz", "--arch", "x86_64", "-q");
	expect(&r, 1, NULL, "no_such_syscall_xyz");
	result_free(&r);
}

static void test_inspect(void **state)
{
	(void)state;
	struct result r;

	r = RUN("compile", policy("docker-default.json"), "-o", tmp("inspect.bpf"), "--arch", "x86_64",
		"--kernel", "6.8", "-q");
	expect(&r, 0, NULL, NULL);
	result_free(&r);

	r = RUN("inspect", tmp("inspect.bpf"));
	expect(&r, 0, "accepted by the kernel's rules", NULL);
	for (const char *const *w = (const char *const[]){ "x86_64", "i386", "x32",
							   "135 personality", "depends on arguments",
							   "ERRNO(38)", "cache: ", NULL };
	     *w; w++)
		if (!strstr(r.out, *w))
			fail_msg("inspect output lacks '%s':\n%s", *w, r.out);
	result_free(&r);

	r = RUN("inspect", tmp("inspect.bpf"), "--format", "text", "--arch", "x86_64");
	expect(&r, 0, "accepted by the kernel's rules", NULL);
	assert_null(strstr(r.out, "i386 ("));
	result_free(&r);
}

static void test_inspect_broken(void **state)
{
	(void)state;
	struct result r;

	/* 13 bytes: not whole instructions */
	write_file(tmp("short.bpf"), "0123456789abc", 13);
	r = RUN("inspect", tmp("short.bpf"));
	expect(&r, 1, NULL, "not a multiple of 8");
	result_free(&r);

	/* insn 1 jumps 9 ahead in a 3-instruction program */
	struct sock_filter jump[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 9, 0),
		BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ALLOW),
	};
	write_file(tmp("jump.bpf"), jump, sizeof(jump));
	r = RUN("inspect", tmp("jump.bpf"));
	expect(&r, 1, NULL, "insn 1");
	assert_non_null(strstr(r.err, "rejected by the kernel's rules"));
	result_free(&r);

	/* two problems: both are reported */
	struct sock_filter two[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 3),	/* misaligned */
		BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),	/* no return at the end */
	};
	write_file(tmp("two.bpf"), two, sizeof(two));
	r = RUN("inspect", tmp("two.bpf"));
	expect(&r, 1, NULL, "insn 0");
	assert_non_null(strstr(r.err, "insn 2"));
	result_free(&r);
}

static void test_diff(void **state)
{
	(void)state;
	char *docker = policy("docker-default.json");
	struct result r;

	r = RUN("diff", docker, docker, "-q");
	expect(&r, 0, NULL, NULL);
	assert_int_equal(r.out_len, 0);
	result_free(&r);

	/* a policy and its own compiled program are equivalent */
	r = RUN("compile", docker, "-o", tmp("diff.bpf"), "-q");
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	r = RUN("diff", docker, tmp("diff.bpf"), "-q");
	expect(&r, 0, NULL, NULL);
	assert_int_equal(r.out_len, 0);
	result_free(&r);

	/* getpid (39 on x86_64) only in A; socket unconditional only in B */
	write_text(tmp("a.json"), SMALL_POLICY(", \"getpid\"", SOCKET_NOT_40));
	write_text(tmp("b.json"), SMALL_POLICY("", SOCKET_ANY));
	r = RUN("diff", tmp("a.json"), tmp("b.json"), "--arch", "x86_64");
	expect(&r, 1, "x86_64 39 getpid: A=ALLOW B=ERRNO(1)", NULL);
	assert_non_null(strstr(r.out, "41 socket a0 == 0x28: A=ERRNO(1) B=ALLOW (e.g. nr 41 args "
				      "0x28,"));
	assert_null(strstr(r.out, " read"));
	result_free(&r);

	/* trouble is 2, as for cmp(1), so 1 always means "different" */
	r = RUN("diff", tmp("a.json"), tmp("no-such.json"));
	expect(&r, 2, NULL, "no-such.json");
	result_free(&r);
}

#define ALLOW_ALL "{\"defaultAction\": \"SCMP_ACT_ALLOW\", " \
		  "\"architectures\": [\"SCMP_ARCH_X86_64\"], \"syscalls\": []}"
/* ERRNO(E) for socket(16, *, 9) only (AF_NETLINK, NETLINK_AUDIT). */
#define SOCKET_16_9(e)                                                                  \
	"{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"architectures\": "                \
	"[\"SCMP_ARCH_X86_64\"], \"syscalls\": [{\"names\": [\"socket\"], "         \
	"\"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": " #e ", \"args\": ["           \
	"{\"index\": 0, \"value\": 16, \"op\": \"SCMP_CMP_EQ\"}, "                   \
	"{\"index\": 2, \"value\": 9, \"op\": \"SCMP_CMP_EQ\"}]}]}"

/* Differences behind two AND-ed conditions, as .bpf files: the old probing
 * diff called these equivalent.  diff and subset are proofs either way. */
static void test_diff_exact(void **state)
{
	(void)state;
	struct result r;

	write_text(tmp("allow.json"), ALLOW_ALL);
	write_text(tmp("sock22.json"), SOCKET_16_9(22));
	write_text(tmp("sock13.json"), SOCKET_16_9(13));
	const char *const names[] = { "allow", "sock22", "sock13" };
	for (size_t i = 0; i < 3; i++) {
		char src[64], dst[64];
		snprintf(src, sizeof(src), "%s.json", names[i]);
		snprintf(dst, sizeof(dst), "%s.bpf", names[i]);
		r = RUN("compile", tmp(src), "-o", tmp(dst), "-q");
		expect(&r, 0, NULL, NULL);
		result_free(&r);
	}
	r = RUN("diff", tmp("allow.bpf"), tmp("sock22.bpf"));
	expect(&r, 1, "x86_64 41 socket a0 == 0x10 && a2 == 0x9: A=ALLOW B=ERRNO(22) "
		      "(e.g. nr 41 args 0x10, 0x0, 0x9,", "1 region");
	result_free(&r);
	r = RUN("diff", tmp("allow.bpf"), tmp("sock22.bpf"), "--json", "-q");
	expect(&r, 1, "\"syscall\": \"socket\", \"args\": \"a0 == 0x10 && a2 == 0x9\", "
		      "\"A\": \"ALLOW\", \"B\": \"ERRNO(22)\"", NULL);
	assert_non_null(strstr(r.out, "\"args\": [16, 0, 9, 0, 0, 0]"));
	result_free(&r);
	r = RUN("diff", tmp("sock22.bpf"), tmp("sock22.json"));
	expect(&r, 0, NULL, "decide every call alike (proven");
	result_free(&r);

	/* subset: the deny is at least as restrictive as allowing everything,
	 * not the other way round; ERRNO(22) and ERRNO(13) are incomparable
	 * unless data is ignored */
	r = RUN("subset", tmp("allow.bpf"), tmp("sock22.bpf"));
	expect(&r, 0, NULL, "at least as restrictive");
	result_free(&r);
	r = RUN("subset", tmp("sock22.bpf"), tmp("allow.bpf"));
	expect(&r, 1, "41 socket a0 == 0x10 && a2 == 0x9: BASE=ERRNO(22) CANDIDATE=ALLOW", NULL);
	result_free(&r);
	r = RUN("subset", tmp("sock22.bpf"), tmp("sock13.bpf"));
	expect(&r, 1, "BASE=ERRNO(22) CANDIDATE=ERRNO(13)", NULL);
	result_free(&r);
	r = RUN("subset", tmp("sock22.bpf"), tmp("sock13.bpf"), "--ignore-data");
	expect(&r, 0, NULL, NULL);
	result_free(&r);

	/* Podman's profile under two capability sets: NETLINK_AUDIT sockets
	 * need CAP_AUDIT_WRITE, which Docker's default set has and Podman's
	 * (the one its profile gets unless --caps says otherwise) has not */
	char *podman = policy("podman-default.json");
	r = RUN("compile", podman, "-o", tmp("p1.bpf"), "-q");
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	r = RUN("compile", podman, "--caps", "docker", "-o", tmp("p2.bpf"), "-q");
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	r = RUN("diff", tmp("p1.bpf"), tmp("p2.bpf"), "-a", "x86_64");
	expect(&r, 1, "x86_64 41 socket a0 == 0x10 && a2 == 0x9: A=ERRNO(22) B=ALLOW", NULL);
	result_free(&r);
	/* Podman's set named, with CAP_AUDIT_WRITE added, or from a
	 * containers.conf that lists it */
	static char *const same[][2] = {
		{ "--caps", "podman" },
		{ "--caps", "podman,chown" },
	};
	for (size_t i = 0; i < 2; i++) {
		r = RUN("compile", podman, same[i][0], same[i][1], "-o", tmp("p3.bpf"), "-q");
		expect(&r, 0, NULL, NULL);
		result_free(&r);
		r = RUN("diff", tmp("p1.bpf"), tmp("p3.bpf"), "-a", "x86_64");
		expect(&r, 0, NULL, NULL);
		result_free(&r);
	}
	r = RUN("compile", podman, "--caps", "default,audit_write", "-o", tmp("p3.bpf"), "-q");
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	r = RUN("diff", tmp("p2.bpf"), tmp("p3.bpf"), "-a", "x86_64");
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	write_text(tmp("containers.conf"),
		   "[containers]\ndefault_capabilities = [\"CHOWN\", \"AUDIT_WRITE\", "
		   "\"SYS_CHROOT\"]\n");
	setenv("CONTAINERS_CONF", tmp("containers.conf"), 1);
	r = RUN("compile", podman, "-o", tmp("p3.bpf"), "-q");
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	r = RUN("diff", tmp("p2.bpf"), tmp("p3.bpf"), "-a", "x86_64");
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	write_text(tmp("containers.conf"), "[containers]\ndefault_capabilities = [3]\n");
	r = RUN("compile", podman, "-o", tmp("p3.bpf"));
	expect(&r, 0, NULL, "line 2: containers.conf: default_capabilities holds something other");
	result_free(&r);
	unsetenv("CONTAINERS_CONF");
	r = RUN("diff", tmp("p1.bpf"), tmp("p3.bpf"), "-a", "x86_64");
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	r = RUN("compile", podman, "--caps", "docker,podman", "-o", tmp("p3.bpf"));
	expect(&r, 2, NULL, "--caps names two default sets");
	result_free(&r);

	/* Docker's default against Podman's, both ways, and each against
	 * itself */
	char *docker = policy("docker-default.json");
	r = RUN("subset", docker, docker, "-q");
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	r = RUN("subset", docker, podman, "-q");
	expect(&r, 1, NULL, NULL);
	/* both exclude personality(8): the region says it once */
	assert_non_null(strstr(r.out, "a0.lo in 0x1..0x1ffff && a0.lo != 0x8:"));
	result_free(&r);
	r = RUN("subset", podman, docker, "-q");
	expect(&r, 1, NULL, NULL);
	result_free(&r);
}

/* The audit records the kernel printed since the reader RD opened
 * /dev/kmsg for commands named COMM, as syscall numbers (-1: the read
 * ends); count returned.  A record: "... comm=\"uname\" ... syscall=63 ..." */
static size_t kmsg_syscalls(int rd, const char *comm, long *out, size_t cap, bool *suppressed)
{
	char line[2048], want[64];
	size_t n = 0;
	ssize_t got;
	snprintf(want, sizeof(want), "comm=\"%s\"", comm);
	while ((got = read(rd, line, sizeof(line) - 1)) > 0) {
		line[got] = '\0';
		if (strstr(line, "callbacks suppressed"))
			*suppressed = true;
		const char *sc = strstr(line, " syscall=");
		if (!strstr(line, "type=1326") || !strstr(line, want) || !sc || n == cap)
			continue;
		if (!strstr(line, "code=0x7ffc0000"))
			continue;	/* not a LOG action's record */
		out[n++] = strtol(sc + 9, NULL, 10);
	}
	return n;
}

/* intersect Docker's and Podman's packaged defaults, in each runtime
 * mode: the program equals merge's of the two (diff exit 0) and is at
 * least as restrictive as each (subset --ignore-data exit 0: where both
 * deny, one ERRNO wins the data), but not equal to either
 * alone (diff exit 1).  -f oci writes a profile only when its compile in
 * that mode is proven to decide as the intersection: for these two it is
 * written in every mode, and compiled there it decides as merge of the two
 * (diff exit 0); a filter that allows only a number no table names cannot
 * be said by a profile, which names calls, and is refused, writing
 * nothing.  A pair it can say is written and proven in every mode, and one whose
 * personality x86_64 decides by the whole argument and i386 by its low
 * word is one entry for both (crun's and libseccomp's modes; runc's adds
 * x32).  compile refuses -f oci. */
static void test_intersect(void **state)
{
	(void)state;
	char *docker = policy("docker-default.json"), *podman = policy("podman-default.json");
	static char *const modes[] = { "runc", "runc-1.1", "crun", "libseccomp" };
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		struct result r = RUN("intersect", docker, podman, "--runtime", modes[i], "-q", "-o",
				      tmp("inter.bpf"));
		expect(&r, 0, "the most restrictive decision of the inputs", NULL);
		result_free(&r);
		r = RUN("merge", docker, podman, "--runtime", modes[i], "-q", "-o", tmp("merged.bpf"));
		expect(&r, 0, NULL, NULL);
		result_free(&r);
		r = RUN("diff", tmp("inter.bpf"), tmp("merged.bpf"));
		expect(&r, 0, NULL, "decide every call alike");
		result_free(&r);
		r = RUN("subset", docker, tmp("inter.bpf"), "--runtime", modes[i], "-q",
			"--ignore-data");
		expect(&r, 0, NULL, NULL);
		result_free(&r);
		r = RUN("subset", podman, tmp("inter.bpf"), "--runtime", modes[i], "-q",
			"--ignore-data");
		expect(&r, 0, NULL, NULL);
		result_free(&r);
		r = RUN("diff", docker, tmp("inter.bpf"), "--runtime", modes[i], "-q");
		expect(&r, 1, NULL, NULL);
		result_free(&r);
		unlink(tmp("inter.json"));
		r = RUN("intersect", docker, podman, "--runtime", modes[i], "-q", "-f", "oci", "-o",
			tmp("inter.json"));
		expect(&r, 0, NULL, NULL);
		result_free(&r);
		r = RUN("diff", tmp("inter.json"), tmp("merged.bpf"), "--runtime", modes[i], "-q");
		expect(&r, 0, NULL, NULL);
		result_free(&r);
	}
	/* x86_64 number 1000 allowed, everything else ERRNO(1): no name */
	struct sock_filter unnamed[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 4),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xc000003e, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1000, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ERRNO(1)),
	};
	write_file(tmp("unnamed.bpf"), unnamed, sizeof(unnamed));
	unlink(tmp("inter.json"));
	struct result r = RUN("intersect", tmp("unnamed.bpf"), "-q", "-f", "oci", "-o",
			      tmp("inter.json"));
	expect(&r, 1, NULL, "numbers no table names");
	assert_int_equal(access(tmp("inter.json"), F_OK), -1);
	result_free(&r);
	r = RUN("compile", docker, "-f", "oci", "-o", tmp("x.json"));
	expect(&r, 2, NULL, "applies to intersect only");
	result_free(&r);

	/* A pair -f oci can say: its profile, compiled in each mode, is the
	 * intersection (diff exit 0) and differs from either input. */
	write_text(tmp("ia.json"),
		   "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"defaultErrnoRet\": 1, "
		   "\"architectures\": [\"SCMP_ARCH_AARCH64\"], \"syscalls\": ["
		   "{\"names\": [\"read\", \"write\", \"close\", \"openat\", \"exit_group\"], "
		   "\"action\": \"SCMP_ACT_ALLOW\"}, {\"names\": [\"socket\"], \"action\": "
		   "\"SCMP_ACT_ALLOW\", \"args\": [{\"index\": 0, \"value\": 1, \"op\": "
		   "\"SCMP_CMP_EQ\"}]}]}");
	write_text(tmp("ib.json"),
		   "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"defaultErrnoRet\": 1, "
		   "\"architectures\": [\"SCMP_ARCH_AARCH64\"], \"syscalls\": ["
		   "{\"names\": [\"read\", \"write\", \"close\", \"exit_group\", \"mmap\", "
		   "\"openat\"], \"action\": \"SCMP_ACT_ALLOW\"}, {\"names\": [\"socket\"], "
		   "\"action\": \"SCMP_ACT_ALLOW\"}]}");
	write_text(tmp("pa.json"),
		   "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"defaultErrnoRet\": 1, "
		   "\"architectures\": [\"SCMP_ARCH_X86_64\", \"SCMP_ARCH_X86\"], \"syscalls\": ["
		   "{\"names\": [\"read\", \"write\", \"close\"], \"action\": \"SCMP_ACT_ALLOW\"}, "
		   "{\"names\": [\"personality\"], \"action\": \"SCMP_ACT_ALLOW\", \"args\": "
		   "[{\"index\": 0, \"value\": 0, \"op\": \"SCMP_CMP_EQ\"}]}, "
		   "{\"names\": [\"personality\"], \"action\": \"SCMP_ACT_ALLOW\", \"args\": "
		   "[{\"index\": 0, \"value\": 8, \"op\": \"SCMP_CMP_EQ\"}]}]}");
	write_text(tmp("pb.json"),
		   "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"defaultErrnoRet\": 1, "
		   "\"architectures\": [\"SCMP_ARCH_X86_64\", \"SCMP_ARCH_X86\"], \"syscalls\": ["
		   "{\"names\": [\"read\", \"write\"], \"action\": \"SCMP_ACT_ALLOW\"}, "
		   "{\"names\": [\"personality\"], \"action\": \"SCMP_ACT_ALLOW\", \"args\": "
		   "[{\"index\": 0, \"value\": 0, \"op\": \"SCMP_CMP_EQ\"}]}]}");
	static char *const lsc_modes[] = { "crun", "libseccomp" };
	for (size_t i = 0; i < sizeof(lsc_modes) / sizeof(lsc_modes[0]); i++) {
		unlink(tmp("pab.json"));
		r = RUN("intersect", tmp("pa.json"), tmp("pb.json"), "--runtime", lsc_modes[i], "-q",
			"-f", "oci", "-o", tmp("pab.json"));
		expect(&r, 0, NULL, NULL);
		result_free(&r);
		r = RUN("intersect", tmp("pa.json"), tmp("pb.json"), "--runtime", lsc_modes[i], "-q",
			"-o", tmp("pab.bpf"));
		expect(&r, 0, NULL, NULL);
		result_free(&r);
		r = RUN("diff", tmp("pab.json"), tmp("pab.bpf"), "--runtime", lsc_modes[i], "-q");
		expect(&r, 0, NULL, NULL);
		result_free(&r);
	}
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		unlink(tmp("iab.json"));
		r = RUN("intersect", tmp("ia.json"), tmp("ib.json"), "-a", "aarch64", "--runtime",
			modes[i], "-q", "-f", "oci", "-o", tmp("iab.json"));
		expect(&r, 0, NULL, NULL);
		result_free(&r);
		r = RUN("intersect", tmp("ia.json"), tmp("ib.json"), "-a", "aarch64", "--runtime",
			modes[i], "-q", "-o", tmp("iab.bpf"));
		expect(&r, 0, NULL, NULL);
		result_free(&r);
		r = RUN("diff", tmp("iab.json"), tmp("iab.bpf"), "-a", "aarch64", "--runtime",
			modes[i], "-q");
		expect(&r, 0, NULL, NULL);
		result_free(&r);
		r = RUN("diff", tmp("ib.json"), tmp("iab.json"), "-a", "aarch64", "--runtime",
			modes[i], "-q");
		expect(&r, 1, NULL, NULL);
		result_free(&r);
	}
}

/* merge --canary: Docker's default as it is, logging what a stricter
 * candidate (Docker's without mremap, uname and setsid) would stop.  The
 * program decides as Docker's everywhere but there (diff: only ALLOW ->
 * LOG regions, on those three calls), and the kernel logs those calls and
 * no other when the canary runs. */
static void test_canary(void **state)
{
	(void)state;
	char *docker = policy("docker-default.json");
	char *text = NULL;
	size_t len = 0;
	assert_int_equal(testutil_load_file(docker, &text, &len), 0);
	/* the candidate: the three names cut out of Docker's lists */
	static const char *const cut[] = { "\"mremap\",", "\"uname\",", "\"setsid\"," };
	for (size_t i = 0; i < 3; i++) {
		char *at = strstr(text, cut[i]);
		assert_non_null(at);
		memmove(at, at + strlen(cut[i]), strlen(at + strlen(cut[i])) + 1);
	}
	write_text(tmp("strict.json"), text);
	free(text);
	struct result r = RUN("merge", "--canary", docker, tmp("strict.json"), "-o",
			      tmp("canary.bpf"), "-q");
	expect(&r, 0, "logs the 9 regions of calls", NULL);
	assert_non_null(strstr(r.out, "logs x86_64 63 uname\n"));
	result_free(&r);
	r = RUN("diff", docker, tmp("canary.bpf"), "--json", "-q");
	expect(&r, 1, NULL, NULL);
	size_t regions = 0;
	for (const char *at = r.out; (at = strstr(at, "\"abi\": ")); at++) {
		const char *end = strchr(at, '}');
		assert_non_null(end);
		char one[1024];
		snprintf(one, sizeof(one), "%.*s", (int)(end - at), at);
		assert_non_null(strstr(one, "\"A\": \"ALLOW\", \"B\": \"LOG\""));
		assert_true(strstr(one, "\"mremap\"") || strstr(one, "\"uname\"") ||
			    strstr(one, "\"setsid\""));
		regions++;
	}
	assert_int_equal(regions, 9);
	result_free(&r);

	/* At the kernel: uname(1) under the canary makes exactly its uname(2)
	 * logged.  Where /dev/kmsg cannot be read, or the kernel dropped
	 * records (rate limit), the emulator's proof above stands alone. */
	int rd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (rd < 0 || lseek(rd, 0, SEEK_END) < 0) {
		print_message("kernel part skipped: /dev/kmsg: %s\n", strerror(errno));
		if (rd >= 0)
			close(rd);
		return;
	}
	r = RUN("exec", tmp("canary.bpf"), "--", "uname");
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	usleep(200000);
	long nrs[64];
	bool suppressed = false;
	size_t n = kmsg_syscalls(rd, "uname", nrs, 64, &suppressed);
	close(rd);
	if (suppressed || n == 0) {
		print_message("kernel part skipped: %s\n",
			      suppressed ? "the kernel suppressed records" : "no record printed");
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (nrs[i] != 63)
			fail_msg("the canary logged syscall %ld for uname(1)", nrs[i]);
	print_message("the kernel logged uname(2) %zu time(s), nothing else\n", n);
}

/* Run the CLI with its standard error on a new pseudo-terminal (standard
 * output to /dev/null); what the terminal got comes back in r.err. */
static struct result run_pty(char *const *args)
{
	struct result r = { 0 };
	char *argv[64], buf[4096];
	size_t n = 0;
	int ws;

	argv[n++] = (char *)cli_path();
	for (size_t i = 0; args[i]; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	assert_true(m >= 0);
	assert_int_equal(grantpt(m), 0);
	assert_int_equal(unlockpt(m), 0);
	char *sname = ptsname(m);
	assert_non_null(sname);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int s = open(sname, O_RDWR | O_NOCTTY);
		int null = open("/dev/null", O_WRONLY);
		if (s < 0 || null < 0)
			_exit(127);
		dup2(s, 2);
		dup2(null, 1);
		execv(argv[0], argv);
		_exit(127);
	}
	r.err = calloc(1, 1);
	r.out = calloc(1, 1);
	for (;;) {
		ssize_t got = read(m, buf, sizeof(buf));
		if (got > 0)
			append(&r.err, &r.err_len, buf, (size_t)got);
		else if (got < 0 && errno == EINTR)
			continue;
		else
			break;	/* EIO: the child closed the terminal's last fd */
	}
	assert_int_equal(waitpid(pid, &ws, 0), pid);
	close(m);
	r.status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	return r;
}

/* Progress: one line rewritten in place on a terminal (the delay set to
 * none by the test hook, so no test waits), nothing with -q, nothing when
 * standard error is a pipe. */
static void test_progress_tty(void **state)
{
	(void)state;
	struct result r = RUN("compile", policy("docker-default.json"), "-f", "bpf", "-o",
			      tmp("prog-in.bpf"), "-q");
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	setenv("SCMPC_PROGRESS_AFTER_MS", "0", 1);
	r = RUN("optimize", tmp("prog-in.bpf"), "-o", tmp("prog-out.bpf"));
	expect(&r, 0, NULL, NULL);
	assert_null(strchr(r.err, '\r'));
	result_free(&r);
	r = run_pty((char *const[]){ "optimize", tmp("prog-in.bpf"), "-o", tmp("prog-out.bpf"),
				     NULL });
	expect(&r, 0, NULL, "\rscmp-compile: optimize 1/6 (16%)\033[K");
	assert_non_null(strstr(r.err, "\rscmp-compile: optimize 6/6 (100%)\033[K\r\033[K"));
	result_free(&r);
	r = run_pty((char *const[]){ "optimize", tmp("prog-in.bpf"), "-o", tmp("prog-out.bpf"),
				     "-q", NULL });
	expect(&r, 0, NULL, NULL);
	assert_null(strchr(r.err, '\r'));
	result_free(&r);
	unsetenv("SCMPC_PROGRESS_AFTER_MS");
}

/* Warnings of one kind past the third are counted, not printed, with a
 * line saying how many there were; --verbose prints each, -q none. */
static void test_warning_groups(void **state)
{
	(void)state;
	char text[4096];
	size_t n = (size_t)snprintf(text, sizeof(text),
				    "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"bogus\": 1, "
				    "\"syscalls\": [{\"action\": \"SCMP_ACT_ALLOW\", \"names\": [\"read\"");
	for (int i = 0; i < 10; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, ", \"no_such_call_%d\"", i);
	snprintf(text + n, sizeof(text) - n, "]}]}");
	write_text(tmp("warny.json"), text);

	struct result r = RUN("compile", tmp("warny.json"), "-o", tmp("warny.bpf"));
	expect(&r, 0, NULL, "syscalls[0].names[3]: unknown syscall \"no_such_call_2\" skipped");
	assert_null(strstr(r.err, "no_such_call_3"));
	assert_non_null(strstr(r.err, "unknown key \"bogus\" ignored"));
	assert_non_null(strstr(r.err, "warny.json: 7 more like that: "
				      "unknown syscall \"*\" skipped\n"));
	assert_non_null(strstr(r.err, "warny.json: 11 warnings of 2 kinds, 4 shown "
				      "(--verbose prints every one)\n"));
	result_free(&r);

	r = RUN("compile", tmp("warny.json"), "-o", tmp("warny.bpf"), "--verbose");
	expect(&r, 0, NULL, "unknown syscall \"no_such_call_9\" skipped");
	assert_null(strstr(r.err, "more like that"));
	assert_null(strstr(r.err, "warnings of"));
	result_free(&r);

	r = RUN("compile", tmp("warny.json"), "-o", tmp("warny.bpf"), "-q");
	expect(&r, 0, NULL, NULL);
	assert_string_equal(r.err, "");
	result_free(&r);

	/* three alike are all printed, as before, with no summary */
	text[n] = '\0';
	char *cut = strstr(text, ", \"no_such_call_3\"");
	assert_non_null(cut);
	snprintf(cut, sizeof(text) - (size_t)(cut - text), "]}]}");
	write_text(tmp("warny.json"), text);
	r = RUN("compile", tmp("warny.json"), "-o", tmp("warny.bpf"));
	expect(&r, 0, NULL, "unknown syscall \"no_such_call_2\" skipped");
	assert_null(strstr(r.err, "more like that"));
	assert_null(strstr(r.err, "warnings of"));
	result_free(&r);
}

/* The test files of the packaged profiles hold, and stop holding when the
 * profile changes under them: Docker's without uname, Podman's with
 * personality unconditional.  The test command itself: a line checked for
 * every value of a '*' (a filter wrong at one argument value only fails),
 * TAP output, parse errors named by line. */
static void test_profile_tests(void **state)
{
	(void)state;
	const char *data = getenv("SCMPC_TESTDATA");
	char dtests[4096], ptests[4096];
	if (!data)
		skip();
	snprintf(dtests, sizeof(dtests), "%s/profile-tests/docker-default.tests", data);
	snprintf(ptests, sizeof(ptests), "%s/profile-tests/podman-default.tests", data);
	char *docker = policy("docker-default.json"), *podman = policy("podman-default.json");
	struct result r = RUN("test", docker, dtests, "-q");
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	r = RUN("test", podman, ptests, "-q");
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	r = RUN("test", docker, dtests, "--tap");
	expect(&r, 0, "TAP version 13\n1..", NULL);
	assert_non_null(strstr(r.out, "ok 1 - x86_64 read -> ALLOW"));
	assert_null(strstr(r.out, "not ok"));
	result_free(&r);

	/* mutations of the profiles */
	char *text = NULL;
	size_t len = 0;
	assert_int_equal(testutil_load_file(docker, &text, &len), 0);
	char *at = strstr(text, "\"uname\",");
	assert_non_null(at);
	memmove(at, at + 9, strlen(at + 9) + 1);
	write_text(tmp("no-uname.json"), text);
	free(text);
	r = RUN("test", tmp("no-uname.json"), dtests);
	expect(&r, 1, "FAILED: i386 uname -> ALLOW", NULL);
	result_free(&r);
	assert_int_equal(testutil_load_file(podman, &text, &len), 0);
	at = strstr(text, "\"names\": [");
	assert_non_null(at);
	/* an unconditional rule first: personality allowed whatever its argument */
	size_t off = (size_t)(at - text) + 10;
	char *mut = malloc(len + 64);
	assert_non_null(mut);
	snprintf(mut, len + 64, "%.*s\"personality\", %s", (int)off, text, text + off);
	free(text);
	write_text(tmp("podman-mut.json"), mut);
	free(mut);
	write_text(tmp("personality.tests"), "x86_64 personality(0) -> ALLOW\n"
					     "x86_64 personality(0x12345) -> ERRNO(ENOSYS)\n");
	r = RUN("test", podman, tmp("personality.tests"), "-q");
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	r = RUN("test", tmp("podman-mut.json"), tmp("personality.tests"));
	expect(&r, 1, "FAILED: x86_64 personality(0x12345) -> ERRNO(ENOSYS)", NULL);
	result_free(&r);

	/* '*' is every value: a filter wrong at one value of arg2 only */
	write_text(tmp("one-value.json"),
		   "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"architectures\": "
		   "[\"SCMP_ARCH_X86_64\"], \"syscalls\": [{\"names\": [\"ioctl\"], "
		   "\"action\": \"SCMP_ACT_ERRNO\", \"args\": [{\"index\": 2, "
		   "\"value\": 12345678901, \"op\": \"SCMP_CMP_EQ\"}]}]}");
	write_text(tmp("one-value.tests"), "x86_64 ioctl(*, TIOCSTI, *) -> ALLOW\n");
	r = RUN("test", tmp("one-value.json"), tmp("one-value.tests"));
	expect(&r, 1, "ioctl(0, 0x5412, 0x2dfdc1c35, 0, 0, 0) [nr 16] gets ERRNO(1)", NULL);
	result_free(&r);
	write_text(tmp("bad.tests"), "x86_64 read -> ALLOW\nx86_64 read(O_NOSUCH) -> ALLOW\n");
	r = RUN("test", tmp("one-value.json"), tmp("bad.tests"));
	expect(&r, 2, NULL, "bad.tests:2: an unknown constant");
	result_free(&r);
}

/* Remove NAME from the names lists of profile TEXT (in place): "name",
 * or a last "name" with the comma before it. */
static void drop_name(char *text, const char *name)
{
	char q[80];
	snprintf(q, sizeof(q), "\"%s\"", name);
	for (char *at; (at = strstr(text, q));) {
		char *end = at + strlen(q);
		char *after = end;
		while (*after == ' ' || *after == '\n' || *after == '\t')
			after++;
		if (*after == ',') {
			memmove(at, after + 1, strlen(after + 1) + 1);
			continue;
		}
		char *before = at;
		while (before > text && (before[-1] == ' ' || before[-1] == '\n' || before[-1] == '\t'))
			before--;
		if (before > text && before[-1] == ',')
			before--;
		memmove(before, end, strlen(end) + 1);
	}
}

/* record, then run under the recorded profile: the same output and
 * status as without it; with a call only the workload makes taken out,
 * the workload fails as that call's EPERM says.  --args auto profiles are
 * strictly smaller than name-only ones (subset one way, not the other). */
static bool unfiltered(void);

struct workload {
	const char *label;
	char *const *argv;
	const char *cut;	/* a call the workload cannot do without */
	const char *err;	/* what it says without it */
};

static void test_record_programs(void **state)
{
	(void)state;
	if (!unfiltered() || access("/proc/self/fd", R_OK)) {
		print_message("skipped: the recorder needs a process outside any filter\n");
		skip();
	}
	mkdir(tmp("tree"), 0755);
	write_text(tmp("tree/a.txt"), "alpha\n");
	write_text(tmp("tree/b.txt"), "beta\n");
	char tgz[4096], tree[4096];
	snprintf(tgz, sizeof(tgz), "%s", tmp("out.tgz"));
	snprintf(tree, sizeof(tree), "%s", tmp("tree"));
	static const char sock_py[] =
		"import socket\n"
		"s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(1)\n"
		"c = socket.create_connection(s.getsockname()); a, _ = s.accept()\n"
		"c.sendall(b'ping'); print(a.recv(4).decode())\n";
	static const char server_py[] =
		"import socket, threading\n"
		"s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(5)\n"
		"def serve():\n"
		"    for _ in range(5):\n"
		"        a, _ = s.accept(); a.sendall(a.recv(16).upper()); a.close()\n"
		"t = threading.Thread(target=serve); t.start()\n"
		"for i in range(5):\n"
		"    c = socket.create_connection(s.getsockname()); c.sendall(b'req%d' % i)\n"
		"    print(c.recv(16).decode()); c.close()\n"
		"t.join()\n";
	char *ls[] = { "ls", "-la", "/usr", NULL };
	char *tar[] = { "tar", "czf", tgz, "-C", tree, ".", NULL };
	char *py1[] = { "python3", "-c", (char *)sock_py, NULL };
	char *py2[] = { "python3", "-c", (char *)server_py, NULL };
	const struct workload w[] = {
		{ "ls -la /usr", ls, "getdents64", "Operation not permitted" },
		{ "tar czf", tar, "getdents64", "Operation not permitted" },
		{ "python3 sockets", py1, "socket", "PermissionError" },
		{ "python3 server", py2, "listen", "PermissionError" },
	};
	bool have_python = system("python3 -c pass 2>/dev/null") == 0;
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		if (w[i].argv[0][0] == 'p' && !have_python) {
			print_message("%s skipped: no python3\n", w[i].label);
			continue;
		}
		size_t argc = 0;
		while (w[i].argv[argc])
			argc++;
		char *args[24];
		size_t k = 0;
		const char *pre[] = { "record", "--runtime", "exec", "--args", "auto", "-o",
				      tmp("auto.json"), "-q", "--" };
		for (size_t j = 0; j < sizeof(pre) / sizeof(pre[0]); j++)
			args[k++] = (char *)pre[j];
		for (size_t j = 0; j < argc; j++)
			args[k++] = w[i].argv[j];
		args[k] = NULL;
		struct result r = run_argv(NULL, args);
		expect(&r, 0, "recorded ", NULL);
		char *plain_out = strdup(r.out ? r.out : "");
		result_free(&r);
		/* name-only too, the source of the mutation */
		args[4] = "none";
		args[6] = tmp("none.json");
		r = run_argv(NULL, args);
		expect(&r, 0, NULL, NULL);
		result_free(&r);
		free(plain_out);

		/* the workload plain and under each profile */
		char *run[24];
		k = 0;
		run[k++] = "exec";
		run[k++] = "-q";
		run[k++] = tmp("auto.json");
		run[k++] = "--";
		for (size_t j = 0; j < argc; j++)
			run[k++] = w[i].argv[j];
		run[k] = NULL;
		struct result under = run_argv_ex(NULL, run, true);
		pid_t pid;
		int st = 0;
		int pipefd[2];
		assert_int_equal(pipe(pipefd), 0);
		if ((pid = fork()) == 0) {
			dup2(pipefd[1], 1);
			close(pipefd[0]);
			execvp(w[i].argv[0], w[i].argv);
			_exit(127);
		}
		close(pipefd[1]);
		char out[8192];
		size_t got = 0;
		ssize_t nread;
		while ((nread = read(pipefd[0], out + got, sizeof(out) - 1 - got)) > 0)
			got += (size_t)nread;
		out[got] = '\0';
		close(pipefd[0]);
		waitpid(pid, &st, 0);
		if (under.status != WEXITSTATUS(st) || strcmp(under.out ? under.out : "", out))
			fail_msg("%s: under its recorded profile: status %d, output \"%.200s\"; "
				 "plain: status %d, output \"%.200s\"", w[i].label, under.status,
				 under.out ? under.out : "", WEXITSTATUS(st), out);
		result_free(&under);

		/* --args auto allows strictly less than name-only */
		r = RUN("subset", tmp("none.json"), tmp("auto.json"), "-q");
		expect(&r, 0, NULL, NULL);
		result_free(&r);
		r = RUN("subset", tmp("auto.json"), tmp("none.json"), "-q");
		expect(&r, 1, NULL, NULL);
		result_free(&r);

		/* without the call it cannot do without, it fails */
		char *text = NULL;
		size_t len = 0;
		assert_int_equal(testutil_load_file(tmp("none.json"), &text, &len), 0);
		drop_name(text, w[i].cut);
		write_text(tmp("cut.json"), text);
		free(text);
		run[2] = tmp("cut.json");
		under = run_argv_ex(NULL, run, true);
		if (under.status == 0 || !strstr(under.err ? under.err : "", w[i].err))
			fail_msg("%s without %s: status %d, stderr \"%.300s\"", w[i].label, w[i].cut,
				 under.status, under.err ? under.err : "");
		result_free(&under);
		print_message("%s: recorded, runs under its profile, fails without %s\n", w[i].label,
			      w[i].cut);
	}
}

/* record --merge BASE: a base that lacks a call of the workload widened to
 * the recording.  The result lets every recorded call run (--check), allows
 * everything the base allows and strictly more (subset one way and not the
 * other, proven by the exact engine), and runs the workload; merged again
 * into itself it is written back byte for byte, nothing added. */
static void test_record_merge(void **state)
{
	(void)state;
	if (!unfiltered() || access("/proc/self/fd", R_OK)) {
		print_message("skipped: the recorder needs a process outside any filter\n");
		skip();
	}
	struct result r = RUN("record", "-q", "-o", tmp("ls-full.json"), "--", "ls", "-la", "/usr");
	expect(&r, 0, "recorded ", NULL);
	result_free(&r);
	char *text = NULL;
	size_t len = 0;
	assert_int_equal(testutil_load_file(tmp("ls-full.json"), &text, &len), 0);
	assert_non_null(strstr(text, "\"getdents64\""));
	drop_name(text, "getdents64");
	write_text(tmp("ls-base.json"), text);
	free(text);

	r = RUN("record", "-q", "--args", "auto", "--merge", tmp("ls-base.json"), "-o",
		tmp("ls-merged.json"), "--save", tmp("ls.rec"), "--", "ls", "-la", "/usr");
	expect(&r, 0, "recorded ", NULL);
	assert_non_null(strstr(r.out, "merged into "));
	result_free(&r);
	/* the base alone stops the recording at getdents64; the union does not */
	r = RUN("record", "--check", tmp("ls.rec"), tmp("ls-base.json"));
	expect(&r, 1, "getdents64", NULL);
	result_free(&r);
	r = RUN("record", "--check", tmp("ls.rec"), tmp("ls-merged.json"));
	expect(&r, 0, NULL, "the profile runs the recording");
	result_free(&r);
	/* the base is at least as restrictive as the union, not the reverse */
	r = RUN("subset", tmp("ls-merged.json"), tmp("ls-base.json"), "-q");
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	r = RUN("subset", tmp("ls-base.json"), tmp("ls-merged.json"), "-q");
	expect(&r, 1, "getdents64", NULL);
	result_free(&r);
	/* the base's text is kept: its first entry ends the same way */
	char *base = NULL, *merged = NULL;
	size_t blen = 0, mlen = 0;
	assert_int_equal(testutil_load_file(tmp("ls-base.json"), &base, &blen), 0);
	assert_int_equal(testutil_load_file(tmp("ls-merged.json"), &merged, &mlen), 0);
	char *cut = strstr(base, "\"action\"");
	assert_non_null(cut);
	assert_memory_equal(base, merged, (size_t)(cut - base));
	free(base);
	/* the union runs ls */
	r = RUN_ANY("exec", "-q", tmp("ls-merged.json"), "--", "ls", "-la", "/usr");
	expect(&r, 0, "bin", NULL);
	result_free(&r);
	/* what allows the recording already comes back unchanged */
	r = RUN("record", "-q", "--merge", tmp("ls-merged.json"), "-o", tmp("ls-again.json"),
		"--from", tmp("ls.rec"));
	expect(&r, 0, NULL, NULL);
	assert_non_null(strstr(r.out, "0 added in 0 rules"));
	result_free(&r);
	char *again = NULL;
	size_t alen = 0;
	assert_int_equal(testutil_load_file(tmp("ls-again.json"), &again, &alen), 0);
	assert_int_equal(alen, mlen);
	assert_memory_equal(again, merged, mlen);
	free(again);
	free(merged);
	/* --default would replace the base's: refused */
	r = RUN("record", "--merge", tmp("ls-base.json"), "--default", "KILL_PROCESS", "--from",
		tmp("ls.rec"));
	expect(&r, 2, NULL, "default action");
	result_free(&r);
}

/* record --from reads perf trace's lines (tests/data/traces/: captured
 * with perf 6.1): each argument placed by its name, those perf leaves out
 * (its zeros) zero, perf's constants without their prefix read back
 * (CWD, RDONLY|CLOEXEC, NETLINK, WAKE|PRIVATE_FLAG, EX|NB, level TCP), a
 * descriptor's "<path>" and a pid's "(comm)" dropped, "[continued]" lines
 * not counted twice.  The expected values are the kernel headers'. */
static void test_record_perf_trace(void **state)
{
	(void)state;
	const char *data = getenv("SCMPC_TESTDATA");
	char trace[4096];
	if (!data)
		skip();
	snprintf(trace, sizeof(trace), "%s/traces/perf-trace-probe.txt", data);
	struct result r = RUN("record", "--from", trace, "--args", "auto", "-o",
			      tmp("perf.json"), "--save", tmp("perf.rec"));
	/* 113 call lines: 120 lines less 5 comments and 3 continuations,
	 * plus one hand-written */
	expect(&r, 0, "recorded 113 calls by a trace file", NULL);
	assert_null(strstr(r.err, "warning"));
	result_free(&r);
	char *rec = NULL, *json = NULL;
	size_t len = 0;
	assert_int_equal(testutil_load_file(tmp("perf.rec"), &rec, &len), 0);
	/* AUDIT_ARCH_X86_64, number, six arguments, count; all hex */
	static const char *const lines[] = {
		/* mmap(len: 8192, prot: READ|WRITE, flags: PRIVATE|ANONYMOUS):
		 * addr, fd and offset left out */
		"c000003e 9 0 2000 3 22 0 0 ",
		/* openat(dfd: CWD, filename: 0x..., flags: RDONLY|CLOEXEC) */
		"c000003e 101 ffffffffffffff9c ",
		/* socket(family: NETLINK, type: RAW|CLOEXEC, protocol: 9) */
		"c000003e 29 10 80003 9 0 0 0 1",
		/* Web (Content)/4242 socket(family: INET6,
		 * type: DGRAM|NONBLOCK|CLOEXEC, protocol: UDP) */
		"c000003e 29 a 80802 11 0 0 0 1",
		/* fcntl(fd: 7<socket:[...]>, cmd: SETFL, arg: RDONLY|NONBLOCK) */
		"c000003e 48 7 4 800 0 0 0 1",
		/* futex(uaddr: 0xa5b8f8, op: WAKE|PRIVATE_FLAG, val: 1), twice */
		"c000003e ca a5b8f8 81 1 0 0 0 2",
		/* prctl(option: SET_NO_NEW_PRIVS, arg2: 1) */
		"c000003e 9d 26 1 0 0 0 0 1",
		/* flock(fd: 7<socket:[...]>, cmd: EX|NB) */
		"c000003e 49 7 6 0 0 0 0 1",
		/* setsockopt(fd: 4<socket:[...]>, level: TCP, optname: 1, ...) */
		"c000003e 36 4 6 1 7ffe8127c9bc 4 0 1",
		/* kill(pid: 3822 (probe)): the signal 0 left out */
		"c000003e 3e eee 0 0 0 0 0 1",
		/* personality(personality: -1) */
		"c000003e 87 ffffffffffffffff 0 0 0 0 0 1",
	};
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		if (!strstr(rec, lines[i]))
			fail_msg("no \"%s\" in the recording:\n%s", lines[i], rec);
	free(rec);
	/* --args auto conditions what perf named */
	assert_int_equal(testutil_load_file(tmp("perf.json"), &json, &len), 0);
	assert_non_null(strstr(json, "\"names\": [\"futex\"],\n\t\t\t\"action\": \"SCMP_ACT_ALLOW\","
				     "\n\t\t\t\"args\": [\n\t\t\t\t{\"index\": 1, \"value\": 4294967295, "
				     "\"valueTwo\": 137,"));
	assert_non_null(strstr(json, "{\"index\": 1, \"value\": 4294967295, \"valueTwo\": 21505, "));
	free(json);
}

/* The distinct syscall numbers of a --save file (its second column),
 * sorted, as one string. */
static char *saved_numbers(const char *path)
{
	char *text = NULL;
	size_t len = 0;
	assert_int_equal(testutil_load_file(path, &text, &len), 0);
	static char nrs[1024][12];
	size_t n = 0;
	for (char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char nr[12];
		if (sscanf(l, "%*s %11s", nr) != 1)
			continue;
		bool seen = false;
		for (size_t i = 0; i < n && !seen; i++)
			seen = !strcmp(nrs[i], nr);
		if (!seen && n < 1024)
			snprintf(nrs[n++], sizeof(nrs[0]), "%s", nr);
	}
	free(text);
	qsort(nrs, n, sizeof(nrs[0]), (int (*)(const void *, const void *))strcmp);
	char *out = calloc(n + 1, sizeof(nrs[0]) + 1);
	assert_non_null(out);
	for (size_t i = 0; i < n; i++) {
		strcat(out, nrs[i]);
		strcat(out, " ");
	}
	return out;
}

/* record --via ptrace sees the same distinct calls of ls -la /usr as
 * seccomp user notification (the tracer's own fork and raise before the
 * command's execve left out), says so, and its profile runs ls.  Under a
 * filter that refuses seccomp(2) the recorder falls back to ptrace by
 * itself and says why; --via notify then fails. */
static void test_record_ptrace(void **state)
{
	(void)state;
	if (!unfiltered() || access("/proc/self/fd", R_OK)) {
		print_message("skipped: the recorder needs a process outside any filter\n");
		skip();
	}
	struct result r = RUN("record", "--via", "ptrace", "--save", tmp("pt.rec"), "-o",
			      tmp("pt.json"), "--", "ls", "-la", "/usr");
	expect(&r, 0, " calls by ptrace: ", NULL);
	result_free(&r);
	r = RUN("record", "--via", "notify", "--save", tmp("nt.rec"), "-o", tmp("nt.json"), "--",
		"ls", "-la", "/usr");
	expect(&r, 0, " calls by seccomp user notification: ", NULL);
	result_free(&r);
	char *pt = saved_numbers(tmp("pt.rec")), *nt = saved_numbers(tmp("nt.rec"));
	if (strcmp(pt, nt))
		fail_msg("distinct numbers by ptrace: %s\nby notification: %s", pt, nt);
	free(pt);
	free(nt);
	r = RUN_ANY("exec", "-q", tmp("pt.json"), "--", "ls", "-la", "/usr");
	expect(&r, 0, "bin", NULL);
	result_free(&r);

	/* no listener to be had: seccomp(2) refused */
	write_text(tmp("noseccomp.json"),
		   "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": "
		   "[\"seccomp\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 1}]}");
	r = RUN_ANY("exec", "-q", tmp("noseccomp.json"), "--", (char *)cli_path(), "record", "-o",
		    tmp("fb.json"), "--", "ls", "/usr");
	expect(&r, 0, " calls by ptrace: ", "notification unavailable");
	result_free(&r);
	r = RUN_ANY("exec", "-q", tmp("noseccomp.json"), "--", (char *)cli_path(), "record", "--via",
		    "notify", "-o", tmp("fb.json"), "--", "ls", "/usr");
	expect(&r, 1, NULL, "is seccomp user notification available");
	result_free(&r);
}

static void test_examples(void **state)
{
	(void)state;
	const char *dir = getenv("SCMPC_EXAMPLES");
	DIR *d = dir && *dir ? opendir(dir) : NULL;
	struct dirent *e;

	if (!d)
		skip();
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (n < 6 || strcmp(e->d_name + n - 5, ".json"))
			continue;
		struct result r = RUN("compile", path_in(dir, e->d_name), "-o", tmp("example.bpf"),
				      "-q");
		if (r.status != 0)
			fail_msg("%s: status %d: %s", e->d_name, r.status, r.err);
		result_free(&r);
	}
	closedir(d);
}

/* ------------------------------------------------------------ exec, dump */

/* A field of /proc/PID/status ("Seccomp_filters"), or -1. */
static long status_field(pid_t pid, const char *field)
{
	char path[64], line[256];
	size_t n = strlen(field);
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':')
			v = atol(line + n + 1);
	fclose(f);
	return v;
}

/* Tests that count filters or read them back need a test process outside
 * any sandbox. */
static bool unfiltered(void)
{
	return status_field(getpid(), "Seccomp") == 0;
}

static void test_exec_runs_command(void **state)
{
	(void)state;
	const char *ex = getenv("SCMPC_EXAMPLES");
	char container[4096];
	struct result r;

	if (!ex || !*ex)
		skip();
	snprintf(container, sizeof(container), "%s/container.json", ex);
	r = RUN("exec", container, "--", "/bin/true");
	expect(&r, 0, NULL, NULL);
	result_free(&r);

	/* The command's status and output pass through; its options stay its
	 * own, with or without '--'. */
	r = RUN("exec", "-q", container, "/bin/sh", "-c", "echo -q; exit 7");
	expect(&r, 7, "-q\n", NULL);
	result_free(&r);
	r = RUN("exec", container, "-q", "--", "/bin/echo", "--flags", "-o");
	expect(&r, 0, "--flags -o\n", NULL);
	result_free(&r);
	/* The command is searched in PATH, as env(1) does. */
	r = RUN("exec", container, "--", "true");
	expect(&r, 0, NULL, NULL);
	result_free(&r);
}

/* What exec refuses before installing anything, since once the filter is in
 * it may deny the very write(2) of the message (#28): a filter with no
 * program for this ABI, one that denies execve(2), and a set of programs
 * that each deny the seccomp(2) call installing the other. */
static void test_exec_refuses(void **state)
{
	(void)state;
	struct result r;
	char want[160];

	write_text(tmp("deny-uname.json"), DENY_ONE("uname"));
	r = RUN("compile", "-a", FOREIGN_ABI, tmp("deny-uname.json"), "-o", tmp("foreign.bpf"));
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	snprintf(want, sizeof(want), "no program for %s, the ABI this process runs (the filter "
		 "serves %s)", scmpc_arch_name(scmpc_arch_native()), FOREIGN_ABI);
	r = RUN("exec", tmp("foreign.bpf"), "--", "/bin/true");
	expect(&r, 1, NULL, want);
	assert_non_null(strstr(r.err, "--any-abi"));
	result_free(&r);
	/* the override installs it: the bad-arch action kills at execve */
	r = RUN_ANY("exec", "--any-abi", tmp("foreign.bpf"), "--", "/bin/true");
	assert_true(r.status > 128);
	result_free(&r);

	write_text(tmp("deny-execve.json"), DENY_ONE("execve"));
	r = RUN("exec", tmp("deny-execve.json"), "--", "/bin/true");
	expect(&r, 1, NULL, "denies execve(2) (rule syscalls[0]");
	result_free(&r);

	write_text(tmp("deny-seccomp.json"), DENY_ONE("seccomp"));
	for (int k = 1; k <= 2; k++) {
		char out[64];
		snprintf(out, sizeof(out), "blocked-%d.bpf", k);
		r = RUN("compile", tmp("deny-seccomp.json"), "-o", tmp(out));
		expect(&r, 0, NULL, NULL);
		result_free(&r);
	}
	r = RUN("exec", "--split", tmp("blocked"), "--", "/bin/true");
	expect(&r, 1, NULL, "program 1 of 2 denies seccomp(2)");
	assert_non_null(strstr(r.err, "no order installs the set"));
	assert_null(strstr(r.err, "neither seccomp(2)"));
	result_free(&r);
	/* one that denies seccomp(2) and one that does not: installed in the
	 * order that works */
	r = RUN("compile", tmp("deny-uname.json"), "-o", tmp("blocked-2.bpf"));
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	r = RUN("exec", "--split", tmp("blocked"), "--", "/bin/uname");
	expect(&r, 1, NULL, "Operation not permitted");
	result_free(&r);
	if (unfiltered()) {
		r = RUN("exec", "--split", tmp("blocked"), "--", "/bin/grep", "-h",
			"Seccomp_filters", "/proc/self/status");
		expect(&r, 0, "Seccomp_filters:\t2\n", NULL);
		result_free(&r);
	}
}

static void test_exec_denies(void **state)
{
	(void)state;
	struct result r;

	write_text(tmp("deny-uname.json"), DENY_ONE("uname"));
	r = RUN("exec", tmp("deny-uname.json"), "--", "/bin/uname");
	expect(&r, 1, NULL, "Operation not permitted");
	assert_int_equal(r.out_len, 0);
	result_free(&r);

	/* Under a filter that denies something else, the same command works. */
	write_text(tmp("deny-getcpu.json"), DENY_ONE("getcpu"));
	r = RUN("exec", tmp("deny-getcpu.json"), "--", "/bin/uname", "-s");
	expect(&r, 0, "Linux\n", NULL);
	result_free(&r);

	/* A compiled .bpf file is taken as is, told apart by content. */
	r = RUN("compile", tmp("deny-uname.json"), "-o", tmp("deny-uname.bin"), "-f", "bpf");
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	r = RUN("exec", tmp("deny-uname.bin"), "--", "/bin/uname");
	expect(&r, 1, NULL, "Operation not permitted");
	result_free(&r);

	/* Flags are passed on; no_new_privs is set unless --keep-nnp. */
	r = RUN("exec", "--flags", "log,tsync", tmp("deny-uname.json"), "--", "/bin/grep",
		"-E", "^(Seccomp|NoNewPrivs):", "/proc/self/status");
	expect(&r, 0, "NoNewPrivs:\t1\n", NULL);
	assert_non_null(strstr(r.out, "Seccomp:\t2\n"));
	result_free(&r);
	if (unfiltered()) {
		r = RUN("exec", tmp("deny-uname.json"), "--", "/bin/grep", "-h", "Seccomp_filters",
			"/proc/self/status");
		expect(&r, 0, "Seccomp_filters:\t1\n", NULL);
		result_free(&r);
	}

	/* Without no_new_privs the kernel wants CAP_SYS_ADMIN; either way the
	 * outcome is stated, never a filter-less run. */
	char nnp[32];
	snprintf(nnp, sizeof(nnp), "NoNewPrivs:\t%ld\n", status_field(getpid(), "NoNewPrivs"));
	r = RUN("exec", "--keep-nnp", tmp("deny-uname.json"), "--", "/bin/grep", "NoNewPrivs",
		"/proc/self/status");
	if (r.status == 0) {
		expect(&r, 0, nnp, NULL);	/* inherited, not set */
	} else {
		expect(&r, 1, NULL, "no_new_privs");
		assert_int_equal(r.out_len, 0);
	}
	result_free(&r);
}

static void test_exec_failures(void **state)
{
	(void)state;
	struct result r;

	write_text(tmp("deny-getcpu.json"), DENY_ONE("getcpu"));
	r = RUN_ANY("exec", tmp("deny-getcpu.json"), "--", "no-such-command-xyz", "arg");
	expect(&r, 127, NULL, "no-such-command-xyz");
	result_free(&r);
	r = RUN_ANY("exec", tmp("deny-getcpu.json"), "--", tmp("no-such-file"));
	expect(&r, 127, NULL, "no-such-file");
	result_free(&r);
	/* Found but not executable: 126, as env(1) says. */
	write_text(tmp("not-executable"), "#!/bin/sh\n");
	r = RUN_ANY("exec", tmp("deny-getcpu.json"), "--", tmp("not-executable"));
	expect(&r, 126, NULL, "not-executable");
	result_free(&r);
	/* A directory passes access(X_OK) but is no program: said before any
	 * filter is installed, so the filter is not blamed. */
	char want_dir[512];
	snprintf(want_dir, sizeof(want_dir), "scmp-compile: %s: Is a directory\n", tmpdir);
	r = RUN_ANY("exec", tmp("deny-getcpu.json"), "--", tmpdir);
	expect(&r, 126, NULL, NULL);
	assert_string_equal(r.err, want_dir);
	result_free(&r);
	/* A filter that denies execve: the command cannot run, which is said
	 * before the filter is installed (test_exec_refuses). */
	write_text(tmp("deny-execve.json"), DENY_ONE("execve"));
	r = RUN_ANY("exec", tmp("deny-execve.json"), "--", "/bin/true");
	expect(&r, 1, NULL, "denies execve(2)");
	result_free(&r);

	/* Nothing runs when the policy is bad, unreadable, or covers no ABI
	 * of this machine. */
	static const char *const bad[] = {
		"{\"defaultAction\": \"SCMP_ACT_FROBNICATE\"}\n",
		"{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\"]",
		"{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"architectures\": [\"SCMP_ARCH_" FOREIGN_ABI
		"\"]}\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_text(tmp("bad-exec.json"), bad[i]);
		r = RUN("exec", tmp("bad-exec.json"), "--", "/bin/touch", tmp("ran"));
		expect(&r, 1, NULL, "bad-exec.json");
		result_free(&r);
		assert_int_equal(access(tmp("ran"), F_OK), -1);
	}
	r = RUN("exec", tmp("no-such.json"), "--", "/bin/touch", tmp("ran"));
	expect(&r, 1, NULL, "no-such.json");
	result_free(&r);
	/* A .bpf file the kernel would reject: a jump past the end. */
	struct sock_filter jump[] = {
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 9, 0),
		BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ALLOW),
	};
	write_file(tmp("jump.bpf"), jump, sizeof(jump));
	r = RUN("exec", tmp("jump.bpf"), "--", "/bin/touch", tmp("ran"));
	expect(&r, 1, NULL, "insn 0");
	result_free(&r);
	assert_int_equal(access(tmp("ran"), F_OK), -1);
}

/* --keep-nnp without CAP_SYS_ADMIN and without an inherited no_new_privs:
 * the refusal names the option, not the library's SCMPC_LOAD_KEEP_NNP.  A
 * child drops CAP_SYS_ADMIN from its bounding set first, since root
 * regains at exec every capability that set holds. */
static void test_keep_nnp_refused(void **state)
{
	(void)state;
	static const char want[] =
		"--keep-nnp needs CAP_SYS_ADMIN or an inherited no_new_privs, and this process "
		"has neither: the kernel refuses the filter then (EACCES), because it could "
		"subvert a set-user-ID program; drop --keep-nnp or run with CAP_SYS_ADMIN\n";
	int ws;

	if (status_field(getpid(), "NoNewPrivs") != 0)
		skip();
	write_text(tmp("deny-getcpu.json"), DENY_ONE("getcpu"));
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* 21: CAP_SYS_ADMIN; without CAP_SETPCAP to drop it, a
		 * non-root caller lacks it anyway */
		if (prctl(PR_CAPBSET_DROP, 21, 0, 0, 0) < 0 && geteuid() == 0)
			_exit(77);
		struct result r = RUN_ANY("exec", "--keep-nnp", tmp("deny-getcpu.json"), "--",
					  "/bin/true");
		char *tail = strstr(r.err, ": --keep-nnp ");
		if (r.status != 1 || !tail || strcmp(tail + 2, want) || strstr(r.err, "SCMPC_")) {
			fprintf(stderr, "status %d, stderr:\n%s", r.status, r.err);
			_exit(1);
		}
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &ws, 0), pid);
	if (WIFEXITED(ws) && WEXITSTATUS(ws) == 77)
		skip();
	assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
}

/* --caps: "default" in a list is Docker's default set plus the rest
 * (Docker's --cap-add); "none" in a list contradicts it. */
static void test_caps_lists(void **state)
{
	(void)state;
	struct result r;

	write_text(tmp("caps.json"),
		   "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [\n"
		   "{\"names\": [\"mount\"], \"action\": \"SCMP_ACT_ALLOW\", "
		   "\"includes\": {\"caps\": [\"CAP_SYS_ADMIN\"]}},\n"
		   "{\"names\": [\"chroot\"], \"action\": \"SCMP_ACT_ALLOW\", "
		   "\"includes\": {\"caps\": [\"CAP_SYS_CHROOT\"]}}]}\n");
	/* CAP_SYS_CHROOT is in Docker's default set, CAP_SYS_ADMIN is not */
	r = RUN("explain", tmp("caps.json"), "chroot", "-q", "--caps", "default,CAP_SYS_ADMIN");
	expect(&r, 0, "action: ALLOW\n", NULL);
	result_free(&r);
	r = RUN("explain", tmp("caps.json"), "mount", "-q", "--caps", "default,sys_admin");
	expect(&r, 0, "action: ALLOW\n", NULL);
	result_free(&r);
	r = RUN("explain", tmp("caps.json"), "mount", "-q", "--caps", "default");
	expect(&r, 0, "action: ERRNO(", NULL);
	result_free(&r);
	r = RUN("explain", tmp("caps.json"), "chroot", "-q", "--caps", "CAP_SYS_ADMIN");
	expect(&r, 0, "action: ERRNO(", NULL);
	result_free(&r);
	r = RUN("compile", tmp("caps.json"), "--caps", "none,CAP_SYS_ADMIN");
	expect(&r, 2, NULL, "scmp-compile: 'none' cannot be combined with other capabilities\n");
	result_free(&r);
}

/* runc's own integration programs under their own profiles, at the kernel:
 * seccomp_syscall_test1.c asserts 24 outcomes (masked, OR-ed and AND-ed
 * argument rules, errnoRet, EPERM for denied calls, ENOSYS for syscall
 * 1000) and exits 0 only when all hold; seccomp_syscall_test2.c expects
 * chdir to fail with defaultErrnoRet (ENXIO).  They pass under runc's
 * filter, so they must pass under ours. */
static void test_exec_runc_programs(void **state)
{
	(void)state;
	for (int n = 1; n <= 2; n++) {
		char env[32], name[32];
		snprintf(env, sizeof(env), "SCMPC_RUNC_TEST%d", n);
		snprintf(name, sizeof(name), "runc-test%d.json", n);
		const char *prog = getenv(env);
		char *profile = policy(name);
		if (!prog || !*prog)
			fail_msg("%s is unset: runc's test programs were not built (install "
				 "golang-github-opencontainers-runc-dev, then meson setup "
				 "--reconfigure)", env);
		struct result r = RUN("exec", profile, "--", (char *)prog);
		expect(&r, 0, NULL, NULL);
		assert_int_equal(r.out_len, 0);
		result_free(&r);
	}
	/* The check can fail: without runc's ENOSYS above the profile's
	 * highest number, syscall 1000 gets the default EPERM. */
	struct result r = RUN("exec", "--no-enosys", policy("runc-test1.json"), "--",
			      (char *)getenv("SCMPC_RUNC_TEST1"));
	expect(&r, 32, "syscall(1000", NULL);
	result_free(&r);
}

/* A profile with SCMP_ACT_NOTIFY and a listenerPath: exec hands the
 * listener to the agent as runc does (one message on an AF_UNIX stream
 * socket, the state as JSON, the fd in SCM_RIGHTS), and the agent's answer
 * is what the command's uname(2) gets. */
static void test_exec_listener(void **state)
{
	(void)state;
	char sock_path[256], json[1024];
	snprintf(sock_path, sizeof(sock_path), "%s", tmp("agent.sock"));
	int srv = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	assert_true(srv >= 0 && strlen(sock_path) < sizeof(sa.sun_path));
	memcpy(sa.sun_path, sock_path, strlen(sock_path));
	assert_int_equal(bind(srv, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(srv, 1), 0);
	snprintf(json, sizeof(json),
		 "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"listenerPath\": \"%s\", "
		 "\"listenerMetadata\": \"meta-1\", \"syscalls\": [{\"names\": [\"uname\"], "
		 "\"action\": \"SCMP_ACT_NOTIFY\"}]}",
		 sock_path);
	write_text(tmp("notify.json"), json);

	int perr[2];
	assert_int_equal(pipe2(perr, O_CLOEXEC), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char *argv[] = { (char *)cli_path(), "exec", tmp("notify.json"), "--", "/bin/uname",
				 NULL };
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(perr[1], 2);
		execv(argv[0], argv);
		_exit(127);
	}
	close(perr[1]);
	struct pollfd pf = { .fd = srv, .events = POLLIN };
	if (poll(&pf, 1, 20000) != 1) {
		kill(pid, SIGKILL);
		fail_msg("the agent got no connection");
	}
	int conn = accept4(srv, NULL, NULL, SOCK_CLOEXEC);
	assert_true(conn >= 0);
	char text[4096];
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = text, .iov_len = sizeof(text) - 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
			      .msg_controllen = sizeof(ctl.buf) };
	ssize_t n = recvmsg(conn, &msg, MSG_CMSG_CLOEXEC);
	assert_true(n > 0);
	text[n] = '\0';
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
	assert_non_null(cm);
	assert_int_equal(cm->cmsg_type, SCM_RIGHTS);
	int listener;
	memcpy(&listener, CMSG_DATA(cm), sizeof(int));
	close(conn);
	close(srv);

	/* runc's message, field for field (specs.ContainerProcessState) */
	char want[4700], cwd[4096];
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	snprintf(want, sizeof(want),
		 "{\"ociVersion\":\"1.0.2\",\"fds\":[\"seccompFd\"],\"pid\":%d,\"metadata\":"
		 "\"meta-1\",\"state\":{\"ociVersion\":\"1.0.2\",\"id\":\"scmp-compile-exec-%d\","
		 "\"status\":\"creating\",\"pid\":%d,\"bundle\":\"%s\"}}",
		 (int)pid, (int)pid, (int)pid, cwd);
	assert_string_equal(text, want);

	/* Answer uname(2) with EXFULL. */
	scmpc_notify *nt;
	scmpc_diag *d = scmpc_diag_new();
	assert_int_equal(scmpc_notify_new(listener, &nt, d), 0);
	pf = (struct pollfd){ .fd = listener, .events = POLLIN };
	if (poll(&pf, 1, 20000) != 1) {
		kill(pid, SIGKILL);
		fail_msg("no notification came");
	}
	const struct seccomp_notif *req;
	assert_int_equal(scmpc_notify_receive(nt, &req, d), 0);
	assert_int_equal(req->pid, (uint32_t)pid);
	assert_int_equal(scmpc_notify_respond(nt, req->id, 0, EXFULL, 0, d), 0);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	char err[1024] = "";
	ssize_t en = read(perr[0], err, sizeof(err) - 1);
	if (en > 0)
		err[en] = '\0';
	close(perr[0]);
	if (!WIFEXITED(st) || WEXITSTATUS(st) == 0 || !strstr(err, strerror(EXFULL)))
		fail_msg("uname under the agent: status 0x%x, stderr: %s", st, err);
	scmpc_notify_free(nt);
	scmpc_diag_free(d);
	close(listener);
}

/* Wait until PID has exec'd COMM with WANT filters; false after 5 s. */
static bool wait_filtered(pid_t pid, const char *comm, long want)
{
	char path[64], buf[64];

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	for (int i = 0; i < 500; i++) {
		FILE *f = fopen(path, "re");
		bool named = false;

		if (f) {
			named = fgets(buf, sizeof(buf), f) && !strncmp(buf, comm, strlen(comm)) &&
				buf[strlen(comm)] == '\n';
			fclose(f);
		}
		if (named && status_field(pid, "Seccomp_filters") == want)
			return true;
		usleep(10000);
	}
	return false;
}

static void test_dump(void **state)
{
	(void)state;
	char pidstr[16], name[64], *want[2];
	size_t want_len[2];

	if (!unfiltered()) {
		print_message("skipped: the test runs under seccomp, and a filtered process "
			      "cannot read filters back\n");
		skip();
	}
	/* Two filters, stacked by two nested execs: dump must give them back
	 * oldest first, byte for byte what compile writes. */
	write_text(tmp("outer.json"), DENY_ONE("uname"));
	write_text(tmp("inner.json"), DENY_ONE("getcpu"));
	const char *pols[2] = { tmp("outer.json"), tmp("inner.json") };
	for (int i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "want-%d.bpf", i);
		struct result r = RUN("compile", (char *)pols[i], "-o", tmp(name));
		expect(&r, 0, NULL, NULL);
		result_free(&r);
		want[i] = read_file(tmp(name), &want_len[i]);
		assert_non_null(want[i]);
	}
	assert_int_equal(mkdir(tmp("dump"), 0755), 0);

	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(null, 1);
		execl(cli_path(), cli_path(), "exec", "-q", pols[0], "--", cli_path(), "exec", "-q",
		      pols[1], "--", "/bin/sleep", "10", (char *)NULL);
		_exit(127);
	}
	bool ready = wait_filtered(pid, "sleep", 2);
	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	struct result r = ready ? RUN("dump", pidstr, "-o", tmp("dump")) : (struct result){ 0 };
	/* While the process lives: dump's names are predictable, so what is
	 * already there (a file, a planted link, a link in DIR's place) is
	 * never replaced or followed, and a failed dump leaves nothing. */
	struct result again = { 0 }, planted = { 0 }, linked = { 0 };
	char victim[1024], pdir[1024], link1[1100];
	snprintf(victim, sizeof(victim), "%s", tmp("dump-victim"));
	snprintf(pdir, sizeof(pdir), "%s", tmp("dump-planted"));
	snprintf(link1, sizeof(link1), "%s/%d-1.bpf", pdir, (int)pid);
	if (ready && r.status == 0) {
		write_text(victim, "victim\n");
		if (!mkdir(pdir, 0755) && !symlink(victim, link1))
			planted = RUN("dump", pidstr, "-o", pdir);
		again = RUN("dump", pidstr, "-o", tmp("dump"));
		if (!symlink(tmp("dump"), tmp("dump-link")))
			linked = RUN("dump", pidstr, "-o", tmp("dump-link"));
	}
	kill(pid, SIGKILL);
	int ws;
	assert_int_equal(waitpid(pid, &ws, 0), pid);
	if (!ready)
		fail_msg("the nested exec did not reach sleep with 2 filters");
	if (r.status == 1 && (strstr(r.err, "CAP_SYS_ADMIN") || strstr(r.err, "not permitted"))) {
		print_message("skipped: %s", r.err);
		result_free(&r);
		free(want[0]);
		free(want[1]);
		skip();
	}
	expect(&r, 0, NULL, NULL);
	for (int i = 0; i < 2; i++) {
		char line[64];
		size_t len;

		snprintf(name, sizeof(name), "dump/%d-%d.bpf", (int)pid, i);
		char *got = read_file(tmp(name), &len);
		if (!got)
			fail_msg("%s was not written; stdout:\n%s", name, r.out);
		if (len != want_len[i] || memcmp(got, want[i], len))
			fail_msg("%s (%zu bytes) differs from compile's output (%zu bytes)", name,
				 len, want_len[i]);
		free(got);
		free(want[i]);
		/* "INDEX PATH: N instructions, ..." */
		snprintf(line, sizeof(line), "%d %s: %zu instructions, ", i, tmp(name), len / 8);
		if (!strstr(r.out, line))
			fail_msg("no line '%s' in:\n%s", line, r.out);
	}
	assert_non_null(strstr(r.out, "eBPF"));
	assert_non_null(strstr(r.out, "syscalls cached"));
	assert_non_null(strstr(r.out, "chain: 2 filters"));
	result_free(&r);
	snprintf(name, sizeof(name), "dump/%d-2.bpf", (int)pid);
	assert_int_equal(access(tmp(name), F_OK), -1);

	char want_err[1200];
	struct stat st;
	snprintf(want_err, sizeof(want_err), "%s: a symbolic link is in the way", link1);
	expect(&planted, 1, NULL, want_err);
	char *v = read_file(victim, NULL);
	assert_non_null(v);
	assert_string_equal(v, "victim\n");
	free(v);
	assert_int_equal(lstat(link1, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	snprintf(name, sizeof(name), "%d-0.bpf", (int)pid);
	assert_int_equal(access(path_in(pdir, name), F_OK), -1);
	snprintf(name, sizeof(name), "dump/%d-0.bpf", (int)pid);
	snprintf(want_err, sizeof(want_err), "%s: already exists", tmp(name));
	expect(&again, 1, NULL, want_err);
	snprintf(want_err, sizeof(want_err), "%s: a symbolic link; dump does not follow it",
		 tmp("dump-link"));
	expect(&linked, 1, NULL, want_err);
	result_free(&planted);
	result_free(&again);
	result_free(&linked);
}

static void test_dump_errors(void **state)
{
	(void)state;
	char pidstr[16];
	struct result r;

	/* The test process itself has no filters. */
	if (unfiltered()) {
		snprintf(pidstr, sizeof(pidstr), "%d", (int)getpid());
		r = RUN("dump", pidstr, "-o", tmpdir);
		expect(&r, 1, NULL, "no seccomp filters");
		assert_int_equal(r.out_len, 0);
		result_free(&r);
	}
	/* Above any pid_max the kernel allows. */
	r = RUN("dump", "1073741823", "-o", tmpdir);
	expect(&r, 1, NULL, "no process 1073741823");
	result_free(&r);
	/* A zombie still shows its filters in /proc but cannot be traced:
	 * that alone is said.  waitid(WNOWAIT) waits for the exit and leaves
	 * the zombie in place. */
	if (unfiltered()) {
		char want[256];
		siginfo_t si;
		write_text(tmp("deny-getcpu.json"), DENY_ONE("getcpu"));
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			int null = open("/dev/null", O_WRONLY);
			dup2(null, 1);
			dup2(null, 2);
			execl(cli_path(), cli_path(), "exec", tmp("deny-getcpu.json"), "--", "/bin/true",
			      (char *)NULL);
			_exit(127);
		}
		assert_int_equal(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
		snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
		r = RUN("dump", pidstr, "-o", tmpdir);
		snprintf(want, sizeof(want), "scmp-compile: process %d: thread %d is a zombie: it has "
			 "exited, and its filters can no longer be read\n", (int)pid, (int)pid);
		expect(&r, 1, NULL, NULL);
		assert_string_equal(r.err, want);
		result_free(&r);
		assert_int_equal(waitpid(pid, NULL, 0), pid);
	}
	snprintf(pidstr, sizeof(pidstr), "%d", (int)getpid());
	r = RUN("dump", pidstr, "-o", tmp("no-such-dir"));
	expect(&r, 1, NULL, "no-such-dir");
	result_free(&r);
}

/* ----------------------------------------------------------- output files */

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The policy and its compiled bytes the output tests write and compare. */
#define OUT_POLICY DENY_ONE("uname")

static char *out_policy(size_t *bpf_len, char **bpf)
{
	/* Its own buffer: tmp()'s are reused after a few calls. */
	static char pol[4096];

	snprintf(pol, sizeof(pol), "%s", tmp("out-policy.json"));
	write_text(pol, OUT_POLICY);
	if (bpf) {
		struct result r = RUN("compile", pol, "-f", "bpf", "-o", tmp("out-ref.bin"));
		expect(&r, 0, NULL, NULL);
		result_free(&r);
		*bpf = read_file(tmp("out-ref.bin"), bpf_len);
		assert_non_null(*bpf);
		assert_true(*bpf_len > 0);
	}
	return pol;
}

/* Become nobody in a forked child: what it creates belongs to another user. */
static bool become_nobody(void)
{
	return !setgroups(0, NULL) && !setgid(65534) && !setuid(65534);
}

/* Run the CLI with OUT as its standard output, as nobody when AS_NOBODY;
 * its standard error comes back in r.err, its standard output is OUT's. */
static struct result run_out(int out, bool as_nobody, char *const *args)
{
	struct result r = { 0 };
	char *argv[64], buf[4096];
	size_t n = 0;
	int perr[2], ws;
	ssize_t got;
	pid_t pid;

	argv[n++] = (char *)cli_path();
	for (size_t i = 0; args[i]; i++) {
		assert_true(n < 63);
		argv[n++] = args[i];
	}
	argv[n] = NULL;
	assert_int_equal(pipe2(perr, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		dup2(null, 0);
		dup2(out, 1);
		dup2(perr[1], 2);
		if (as_nobody && !become_nobody())
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	close(perr[1]);
	r.out = calloc(1, 1);
	r.err = calloc(1, 1);
	while ((got = read(perr[0], buf, sizeof(buf))) > 0 || (got < 0 && errno == EINTR))
		if (got > 0)
			append(&r.err, &r.err_len, buf, (size_t)got);
	close(perr[0]);
	assert_int_equal(waitpid(pid, &ws, 0), pid);
	r.status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	if (r.status >= 126)
		fail_msg("%s could not run%s (status %d)\nstderr: %s", argv[0],
			 as_nobody ? " as nobody" : "", r.status, r.err);
	return r;
}

#define RUN_OUT(fd, ...) run_out(fd, false, (char *const[]){ __VA_ARGS__, NULL })
#define RUN_NOBODY(...) run_out(STDERR_FILENO, true, (char *const[]){ __VA_ARGS__, NULL })

/* In a child that is nobody: a symlink to TARGET at PATH (TARGET NULL: a
 * regular file with MODE). */
static void as_nobody_make(const char *target, const char *path, mode_t mode)
{
	int ws;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		int fd;

		if (!become_nobody())
			_exit(1);
		if (target)
			_exit(symlink(target, path) ? 2 : 0);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
		_exit(fd < 0 || write(fd, "theirs\n", 7) != 7 || fchmod(fd, mode) ? 3 : 0);
	}
	assert_int_equal(waitpid(pid, &ws, 0), pid);
	if (!WIFEXITED(ws) || WEXITSTATUS(ws))
		fail_msg("nobody could not create %s (step %d)", path, WEXITSTATUS(ws));
}

/* Whether nobody can run the CLI and read PATH: a checkout under a 0700
 * directory keeps it out. */
static bool nobody_can_use(const char *path)
{
	int ws;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(become_nobody() && !access(cli_path(), X_OK) && !access(path, R_OK) ? 0 : 1);
	assert_int_equal(waitpid(pid, &ws, 0), pid);
	return WIFEXITED(ws) && WEXITSTATUS(ws) == 0;
}

static void assert_file_text(const char *path, const char *want)
{
	char *got = read_file(path, NULL);

	if (!got || strcmp(got, want))
		fail_msg("%s: holds '%s', want '%s'", path, got ? got : "(unreadable)", want);
	free(got);
}

static void assert_no_temp(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, ".scmpc-", 7))
			fail_msg("%s/%s left behind", dir, e->d_name);
	closedir(d);
}

/* A link at -o is replaced, never followed, except another user's link in a
 * sticky directory, which is refused; root and nobody see the same rule. */
static void test_output_symlink(void **state)
{
	(void)state;
	char *pol = out_policy(NULL, NULL);
	char sticky[1024], shared[1024], victim[1024];
	struct stat st;
	struct result r;

	snprintf(sticky, sizeof(sticky), "%s", tmp("sticky"));
	snprintf(shared, sizeof(shared), "%s", tmp("shared"));
	snprintf(victim, sizeof(victim), "%s", tmp("victim"));

	if (geteuid()) {
		print_message("skipped: needs root, to plant files as another user\n");
		skip();
	}
	/* nobody must reach the scratch directory to plant anything in it. */
	assert_int_equal(chmod(tmpdir, 0711), 0);
	assert_int_equal(mkdir(sticky, 0), 0);
	assert_int_equal(chmod(sticky, 01777), 0);
	assert_int_equal(mkdir(shared, 0), 0);
	assert_int_equal(chmod(shared, 0777), 0);
	write_text(victim, "victim\n");

	/* nobody's link in a sticky directory: refused, nothing written. */
	as_nobody_make(victim, path_in(sticky, "planted.bpf"), 0);
	r = RUN("compile", pol, "-o", path_in(sticky, "planted.bpf"));
	expect(&r, 1, NULL, "sticky/planted.bpf: a symbolic link owned by uid 65534");
	result_free(&r);
	assert_file_text(victim, "victim\n");
	assert_int_equal(lstat(path_in(sticky, "planted.bpf"), &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_no_temp(sticky);

	/* The caller's own link there: the link itself is replaced. */
	assert_int_equal(symlink(victim, path_in(sticky, "own.bpf")), 0);
	r = RUN("compile", pol, "-o", path_in(sticky, "own.bpf"));
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	assert_file_text(victim, "victim\n");
	assert_int_equal(lstat(path_in(sticky, "own.bpf"), &st), 0);
	assert_true(S_ISREG(st.st_mode) && st.st_uid == 0 && st.st_size > 0);

	/* nobody's link in a directory that is not sticky: replaced too. */
	as_nobody_make(victim, path_in(shared, "planted.bpf"), 0);
	r = RUN("compile", pol, "-o", path_in(shared, "planted.bpf"));
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	assert_file_text(victim, "victim\n");
	assert_int_equal(lstat(path_in(shared, "planted.bpf"), &st), 0);
	assert_true(S_ISREG(st.st_mode) && st.st_size > 0);

	/* A dangling link is replaced the same way, and creates nothing at
	 * the name it points to. */
	assert_int_equal(symlink(tmp("never-made"), tmp("dangling.bpf")), 0);
	r = RUN("compile", pol, "-o", tmp("dangling.bpf"));
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	assert_int_equal(access(tmp("never-made"), F_OK), -1);
	assert_int_equal(lstat(tmp("dangling.bpf"), &st), 0);
	assert_true(S_ISREG(st.st_mode));

	/* The same rule for nobody as the caller. */
	if (!nobody_can_use(pol)) {
		print_message("nobody cannot run %s here; its half is not run\n", cli_path());
	} else {
		/* root's link in the sticky directory: not nobody's, refused */
		assert_int_equal(symlink(victim, path_in(sticky, "roots.bpf")), 0);
		r = RUN_NOBODY("compile", pol, "-o", path_in(sticky, "roots.bpf"));
		expect(&r, 1, NULL, "sticky/roots.bpf: a symbolic link owned by uid 0");
		result_free(&r);
		assert_file_text(victim, "victim\n");
		/* nobody's own link: replaced, nobody's file behind it untouched */
		as_nobody_make(NULL, path_in(sticky, "theirs"), 0644);
		as_nobody_make(path_in(sticky, "theirs"), path_in(sticky, "theirs.bpf"), 0);
		r = RUN_NOBODY("compile", pol, "-o", path_in(sticky, "theirs.bpf"));
		expect(&r, 0, NULL, NULL);
		result_free(&r);
		assert_file_text(path_in(sticky, "theirs"), "theirs\n");
		assert_int_equal(lstat(path_in(sticky, "theirs.bpf"), &st), 0);
		assert_true(S_ISREG(st.st_mode) && st.st_uid == 65534);
		assert_no_temp(sticky);
	}
	assert_int_equal(chmod(tmpdir, 0700), 0);
}

/* -o naming the input, by any path, is refused before anything is written. */
static void test_output_is_input(void **state)
{
	(void)state;
	char *pol = out_policy(NULL, NULL);
	char want_err[4200];
	struct result r;

	assert_int_equal(symlink(pol, tmp("in-link.json")), 0);
	assert_int_equal(link(pol, tmp("in-hard.json")), 0);
	assert_int_equal(mkdir(tmp("in-sub"), 0755), 0);
	char *const outs[] = { pol, tmp("in-link.json"), tmp("in-hard.json"),
			       tmp("in-sub/../out-policy.json") };
	for (size_t i = 0; i < COUNT(outs); i++) {
		r = RUN("compile", pol, "-o", outs[i]);
		snprintf(want_err, sizeof(want_err),
			 "%s: the output is the same file as the input %s", outs[i], pol);
		expect(&r, 1, NULL, want_err);
		result_free(&r);
		assert_file_text(pol, OUT_POLICY);
		assert_int_equal(hidden_files(), 0);
	}
	struct stat st;
	assert_int_equal(lstat(tmp("in-link.json"), &st), 0);
	assert_true(S_ISLNK(st.st_mode));
}

/* The mode of the new file: 0644 less the umask when new; the caller's own
 * file keeps its permission bits but no setuid, setgid or sticky bit;
 * another user's file gives nothing. */
static void test_output_mode(void **state)
{
	(void)state;
	char *pol = out_policy(NULL, NULL);
	static const struct { mode_t mask, want; } fresh[] = { { 0, 0644 }, { 077, 0600 },
								 { 022, 0644 } };
	static const struct { mode_t had, want; } kept[] = {
		{ 04755, 0755 }, { 02775, 0775 }, { 01777, 0777 }, { 06711, 0711 }, { 0640, 0640 },
	};
	struct stat st;
	struct result r;
	mode_t saved = umask(022);

	for (size_t i = 0; i < COUNT(fresh); i++) {
		unlink(tmp("mode-new.bpf"));
		umask(fresh[i].mask);
		r = RUN("compile", pol, "-o", tmp("mode-new.bpf"));
		umask(022);
		expect(&r, 0, NULL, NULL);
		result_free(&r);
		assert_int_equal(stat(tmp("mode-new.bpf"), &st), 0);
		assert_int_equal(st.st_mode & 07777, fresh[i].want);
	}
	for (size_t i = 0; i < COUNT(kept); i++) {
		write_text(tmp("mode-old.bpf"), "old\n");
		assert_int_equal(chmod(tmp("mode-old.bpf"), kept[i].had), 0);
		r = RUN("compile", pol, "-o", tmp("mode-old.bpf"));
		expect(&r, 0, NULL, NULL);
		result_free(&r);
		assert_int_equal(stat(tmp("mode-old.bpf"), &st), 0);
		if ((st.st_mode & 07777) != kept[i].want)
			fail_msg("an output of mode %o became %o, want %o", (unsigned)kept[i].had,
				 (unsigned)(st.st_mode & 07777), (unsigned)kept[i].want);
	}
	if (geteuid()) {
		umask(saved);
		print_message("skipped the other user's file: needs root\n");
		return;
	}
	/* nobody's setuid file: root's new file takes nothing from it */
	write_text(tmp("mode-theirs.bpf"), "theirs\n");
	assert_int_equal(chown(tmp("mode-theirs.bpf"), 65534, 65534), 0);
	assert_int_equal(chmod(tmp("mode-theirs.bpf"), 04777), 0);
	r = RUN("compile", pol, "-o", tmp("mode-theirs.bpf"));
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	assert_int_equal(stat(tmp("mode-theirs.bpf"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_int_equal(st.st_uid, 0);
	umask(saved);
	assert_int_equal(hidden_files(), 0);
}

/* Devices and descriptors are written in place, as the caller opened them. */
static void test_output_devices(void **state)
{
	(void)state;
	char *bpf, *got, buf[65536];
	size_t bpf_len, len;
	char *pol = out_policy(&bpf_len, &bpf);
	struct stat st;
	struct result r;
	int fd, sv[2];

	/* /dev/null stays the device */
	r = RUN("compile", pol, "-f", "bpf", "-o", "/dev/null");
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	assert_int_equal(lstat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));

	/* stdout opened O_APPEND (a shell's >>): appended after what was there,
	 * by every name of standard output */
	static const char *const names[] = { "/dev/stdout", "/proc/self/fd/1", "/dev/fd/1",
					     "//dev/stdout", "-" };
	for (size_t i = 0; i < COUNT(names); i++) {
		write_text(tmp("appended"), "earlier\n");
		fd = open(tmp("appended"), O_WRONLY | O_APPEND | O_CLOEXEC);
		assert_true(fd >= 0);
		r = RUN_OUT(fd, "compile", pol, "-f", "bpf", "-o", (char *)names[i]);
		close(fd);
		expect(&r, 0, NULL, NULL);
		result_free(&r);
		got = read_file(tmp("appended"), &len);
		assert_non_null(got);
		if (len != 8 + bpf_len || memcmp(got, "earlier\n", 8) || memcmp(got + 8, bpf, bpf_len))
			fail_msg("-o %s with stdout in append mode: %zu bytes, want 8 + %zu",
				 names[i], len, bpf_len);
		free(got);
	}

	/* stdout a socket: reopening it fails, its descriptor works */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	r = RUN_OUT(sv[1], "compile", pol, "-f", "bpf", "-o", "/dev/stdout");
	close(sv[1]);
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	len = 0;
	for (ssize_t n; (n = read(sv[0], buf + len, sizeof(buf) - len)) > 0;)
		len += (size_t)n;
	close(sv[0]);
	assert_int_equal(len, bpf_len);
	assert_memory_equal(buf, bpf, bpf_len);

	/* stdout a deleted file: written there, and /dev/stdout stays a link */
	fd = open(tmp("deleted"), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(unlink(tmp("deleted")), 0);
	r = RUN_OUT(fd, "compile", pol, "-f", "bpf", "-o", "/dev/stdout");
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	assert_int_equal(pread(fd, buf, sizeof(buf), 0), (ssize_t)bpf_len);
	assert_memory_equal(buf, bpf, bpf_len);
	close(fd);
	assert_int_equal(lstat("/dev/stdout", &st), 0);
	assert_true(S_ISLNK(st.st_mode));

	/* a descriptor that is not open, or only for reading, is named */
	r = RUN("compile", pol, "-o", "/dev/fd/57");
	expect(&r, 1, NULL, "/dev/fd/57: descriptor 57 is not open");
	result_free(&r);
	fd = open(pol, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	r = RUN_OUT(fd, "compile", pol, "-o", "/dev/stdout");
	close(fd);
	expect(&r, 1, NULL, "/dev/stdout: descriptor 1 is open for reading only");
	result_free(&r);
	free(bpf);
	assert_int_equal(hidden_files(), 0);
}

/* Names up to NAME_MAX work: the temporary name does not grow with them. */
static void test_output_long_name(void **state)
{
	(void)state;
	char *bpf, name[256];
	size_t bpf_len, len;
	char *pol = out_policy(&bpf_len, &bpf);

	for (size_t n = 248; n <= 255; n++) {
		memset(name, 'n', n - 4);
		memcpy(name + n - 4, ".bpf", 5);
		struct result r = RUN("compile", pol, "-o", tmp(name));
		expect(&r, 0, NULL, NULL);
		result_free(&r);
		char *got = read_file(tmp(name), &len);
		assert_non_null(got);
		assert_int_equal(len, bpf_len);
		free(got);
		/* and again, replacing it */
		r = RUN("compile", pol, "-o", tmp(name));
		expect(&r, 0, NULL, NULL);
		result_free(&r);
	}
	free(bpf);
	assert_int_equal(hidden_files(), 0);
}

/* Not const char: RUN() builds a char *const argv. */
static char *const commands[] = { "compile", "explain", "inspect", "diff", "exec", "dump",
				  "optimize", "merge", "lint" };

/* COMMAND --help and -h: that command's usage and options on stdout, exit
 * 0, and nothing about the other commands. */
static void test_command_help(void **state)
{
	(void)state;
	char want[64], other[64];

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		for (int h = 0; h < 2; h++) {
			struct result r = RUN(commands[i], h ? "-h" : "--help");

			snprintf(want, sizeof(want), "Usage: scmp-compile %s ", commands[i]);
			expect(&r, 0, want, NULL);
			assert_int_equal(r.err_len, 0);
			assert_non_null(strstr(r.out, "  -h, --help "));
			assert_null(strstr(r.out, "Commands:"));
			for (size_t j = 0; j < sizeof(commands) / sizeof(commands[0]); j++) {
				snprintf(other, sizeof(other), "scmp-compile %s ", commands[j]);
				if (j != i && strstr(r.out, other))
					fail_msg("%s %s mentions '%s':\n%s", commands[i], h ? "-h" : "--help",
						 other, r.out);
			}
			result_free(&r);
		}
	}

	/* After operands too, as getopt reads options anywhere; for exec, up
	 * to the command. */
	struct result r = RUN("diff", "a.json", "b.json", "--help");
	expect(&r, 0, "Usage: scmp-compile diff ", NULL);
	result_free(&r);
	r = RUN("exec", "policy.json", "--help", "/bin/true");
	expect(&r, 0, "Usage: scmp-compile exec ", NULL);
	result_free(&r);

	/* The global help still lists every command, and says how to get one's. */
	r = RUN("--help");
	expect(&r, 0, "Commands:", NULL);
	assert_non_null(strstr(r.out, "scmp-compile COMMAND --help"));
	result_free(&r);
}

/* Each command's help lists exactly the options it accepts: an option is
 * in the list iff giving it to the command is not refused with "does not
 * apply".  Without operands every run is a usage error of its own. */
static void test_command_help_lists_accepted_options(void **state)
{
	(void)state;
	const struct {
		const char *column;	/* how the option list shows it */
		char *opt, *value;
	} opts[] = {
		{ "  -o, --output ", "--output", tmp("help-out") },
		{ "  -f, --format ", "--format", "text" },
		{ "  -a, --arch ", "--arch", "x86_64" },
		{ "  -s, --stats ", "--stats", NULL },
		{ "      --name ", "--name", "f" },
		{ "      --flags ", "--flags", "tsync" },
		{ "      --keep-nnp ", "--keep-nnp", NULL },
		{ "      --caps ", "--caps", "all" },
		{ "      --kernel ", "--kernel", "6.1" },
		{ "      --strict ", "--strict", NULL },
		{ "      --no-enosys ", "--no-enosys", NULL },
		{ "      --restrictive ", "--restrictive", NULL },
		{ "  -q, --quiet ", "--quiet", NULL },
		{ "      --json ", "--json", NULL },
		{ "      --audit ", "--audit", "x" },
	};

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		struct result help = RUN(commands[i], "--help");

		expect(&help, 0, "Options:", NULL);
		for (size_t k = 0; k < sizeof(opts) / sizeof(opts[0]); k++) {
			bool listed = strstr(help.out, opts[k].column) != NULL;
			struct result r = opts[k].value ? RUN(commands[i], opts[k].opt, opts[k].value)
							: RUN(commands[i], opts[k].opt);
			bool refused = strstr(r.err, "does not apply") != NULL;

			if (r.status != 2 || listed == refused)
				fail_msg("%s %s: status %d, %s in its --help, stderr: %s", commands[i],
					 opts[k].opt, r.status, listed ? "listed" : "not listed", r.err);
			result_free(&r);
		}
		result_free(&help);
	}
}

/* A usage error inside a command points to that command's --help; one
 * before any command, to the global one. */
static void test_command_usage_hint(void **state)
{
	(void)state;
	char want[64];

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		snprintf(want, sizeof(want), "Try 'scmp-compile %s --help'", commands[i]);
		struct result r = RUN(commands[i], "--frobnicate");
		expect(&r, 2, NULL, want);
		assert_int_equal(r.out_len, 0);
		result_free(&r);
		r = RUN(commands[i]);		/* a missing operand */
		expect(&r, 2, NULL, want);
		result_free(&r);
	}
	struct result r = RUN("dump", "--caps", "all");
	expect(&r, 2, NULL, "Try 'scmp-compile dump --help'");
	result_free(&r);
	r = RUN("frobnicate");
	expect(&r, 2, NULL, "Try 'scmp-compile --help'");
	result_free(&r);
	r = RUN("--frobnicate");
	expect(&r, 2, NULL, "Try 'scmp-compile --help'");
	result_free(&r);
}

/* ------------------------------------------------ optimize, merge, --pid */

/* The kernel's answer for a stack PROGS[0..N) (oldest first), worked out
 * here without the library's merge: each filter's return in installation
 * order, a later one taking over when its action ranks at or below the one
 * held ((int32_t)(action & 0xffff0000)): so the lowest wins, and between
 * equal actions the newer filter's data. */
static uint32_t stack_oracle(const struct sock_filter *const *progs, const size_t *lens, size_t n,
			     const struct seccomp_data *sd)
{
	uint32_t held = 0;
	bool any = false;

	for (size_t i = 0; i < n; i++) {
		uint32_t r;

		assert_int_equal(scmpc_emulate(progs[i], lens[i], sd, &r, NULL), 0);
		if (!any || (int32_t)(r & 0xffff0000U) <= (int32_t)(held & 0xffff0000U))
			held = r;
		any = true;
	}
	return held;
}

static bool reads_args(const struct sock_filter *f, size_t len, const struct seccomp_data *sd)
{
	struct scmpc_arg_use use = { .sz = sizeof(use) };

	assert_int_equal(scmpc_prog_arg_use(f, len, sd, &use, NULL), 0);
	return use.first_load >= 0;
}

/*
 * GOT (one program) must decide as the stack WANT[0..NW) on every probe:
 * each AUDIT_ARCH scmpc knows and two it does not; each ABI's probe numbers
 * and every constant the programs compare, with its neighbours; where any
 * program reads an argument, each argument over the values the programs
 * compare it with (the others all 0 or all 1) and random mixes of them.
 * Returns the number of probes.
 */
static unsigned long same_as_stack(const struct sock_filter *got, size_t got_len,
				   const struct sock_filter *const *want, const size_t *want_lens,
				   size_t nw, const char *label)
{
	scmpc_probes *ps = scmpc_probes_new();
	uint32_t extra[4096];
	size_t nextra = 0;
	unsigned long probes = 0;
	struct testutil_rng rng;

	testutil_rng_seed(&rng, 17);
	assert_non_null(ps);
	assert_int_equal(scmpc_probes_add_prog(ps, got, got_len, NULL), 0);
	for (size_t i = 0; i < nw; i++) {
		assert_int_equal(scmpc_probes_add_prog(ps, want[i], want_lens[i], NULL), 0);
		for (size_t k = 0; k < want_lens[i] && nextra + 3 <= 4096; k++) {
			if (BPF_CLASS(want[i][k].code) != BPF_JMP || BPF_OP(want[i][k].code) == BPF_JA)
				continue;
			extra[nextra++] = want[i][k].k;
			extra[nextra++] = want[i][k].k + 1;
			extra[nextra++] = want[i][k].k - 1;
		}
	}
	for (int a = 0; a <= SCMPC_ARCH_COUNT + 1; a++) {
		uint32_t audit = a == 0 ? 0x12345678U
				 : a > SCMPC_ARCH_COUNT ? 0 : scmpc_arch_audit((enum scmpc_arch)a);
		uint32_t *nrs = NULL;
		int nn = 0;

		if (a >= 1 && a <= SCMPC_ARCH_COUNT)
			nn = scmpc_arch_probe_numbers((enum scmpc_arch)a, &nrs, NULL);
		assert_true(nn >= 0);
		for (size_t j = 0; j < (size_t)nn + nextra; j++) {
			uint32_t nr = j < (size_t)nn ? nrs[j] : extra[j - (size_t)nn];
			struct seccomp_data sd = testutil_sd_audit(audit, nr, NULL);
			bool args = reads_args(got, got_len, &sd);
			uint64_t v[6];
			uint32_t g, w;

			for (size_t i = 0; i < nw; i++)
				args |= reads_args(want[i], want_lens[i], &sd);
			for (unsigned vec = 0;; vec++) {
				if (!args && vec > 0)
					break;
				if (vec < 12) {
					/* one argument swept below, the others all 0 or 1 */
					memset(v, vec & 1 ? 0xff : 0, sizeof(v));
				} else if (vec < 12 + 64) {
					for (unsigned k = 0; k < 6; k++) {
						const uint64_t *vals;
						size_t nv = scmpc_probes_values(ps, k, &vals);
						v[k] = vals[testutil_rng_below(&rng, (uint32_t)nv)];
					}
				} else {
					break;
				}
				const uint64_t *vals = NULL;
				size_t nv = vec < 12 ? scmpc_probes_values(ps, vec / 2, &vals) : 1;
				for (size_t x = 0; x < nv; x++) {
					if (vec < 12)
						v[vec / 2] = vals[x];
					sd = testutil_sd_audit(audit, nr, v);
					assert_int_equal(scmpc_emulate(got, got_len, &sd, &g, NULL), 0);
					w = stack_oracle(want, want_lens, nw, &sd);
					probes++;
					if (g != w)
						fail_msg("%s: audit 0x%08x nr %u args %#llx %#llx %#llx %#llx "
							 "%#llx %#llx: got %s, the stack gives %s", label,
							 audit, nr, (unsigned long long)v[0],
							 (unsigned long long)v[1], (unsigned long long)v[2],
							 (unsigned long long)v[3], (unsigned long long)v[4],
							 (unsigned long long)v[5], testutil_act(g),
							 testutil_act(w));
				}
			}
		}
		free(nrs);
	}
	scmpc_probes_free(ps);
	return probes;
}

/* "... N instructions -> M (...)" as optimize ends its figures. */
static void expect_sizes_line(const char *out, size_t before, size_t after)
{
	char want[96];

	snprintf(want, sizeof(want), "%zu instructions -> %zu (", before, after);
	if (!strstr(out, want))
		fail_msg("no '%s' in:\n%s", want, out);
}

/* libseccomp's programs of Docker's profile (level 1: a linear chain; 2: a
 * binary tree), optimized: the result decides every probe as libseccomp's
 * program does, and level 1 comes out under 30% of its size. */
static void test_optimize_libseccomp(void **state)
{
	(void)state;
	scmpc_policy *p = testutil_policy("docker-default.json", SCMPC_ARCH_X86_64);
	char err[256];

	if (!p)
		fail_msg("docker-default.json: %s", testutil_last_error());
	for (int level = 1; level <= 2; level++) {
		struct sock_filter *lsc = NULL;
		size_t len = 0, out_len = 0;
		char in[64], out[64];

		if (lsc_compile(p, level, &lsc, &len, err, sizeof(err)) < 0)
			fail_msg("libseccomp level %d: %s", level, err);
		snprintf(in, sizeof(in), "lsc-l%d.bpf", level);
		snprintf(out, sizeof(out), "lsc-l%d-opt.bpf", level);
		write_file(tmp(in), lsc, len * sizeof(*lsc));
		struct result r = RUN("optimize", tmp(in), "-o", tmp(out));
		expect(&r, 0, "before", NULL);
		struct sock_filter *opt = (struct sock_filter *)read_file(tmp(out), &out_len);
		assert_non_null(opt);
		assert_int_equal(out_len % sizeof(*opt), 0);
		out_len /= sizeof(*opt);
		expect_sizes_line(r.out, len, out_len);
		const struct sock_filter *want[1] = { lsc };
		unsigned long probes = same_as_stack(opt, out_len, want, &len, 1, in);
		print_message("libseccomp level %d Docker: %zu -> %zu instructions (%.1f%%), %lu "
			      "probes agree\n", level, len, out_len,
			      100.0 * (double)out_len / (double)len, probes);
		if (level == 1 && out_len * 100 >= len * 30)
			fail_msg("level 1: %zu -> %zu instructions, not under 30%%", len, out_len);
		/* To standard output as text (the default), the figures on
		 * stderr. */
		result_free(&r);
		r = RUN("optimize", tmp(in));
		expect(&r, 0, "A = arch", "after");
		result_free(&r);
		free(opt);
		free(lsc);
	}
	scmpc_policy_free(p);
}

#define LD_ABS(k) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (k))
#define RET_K(k) BPF_STMT(BPF_RET | BPF_K, (k))
#define JEQ_K(k, t, f) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), (t), (f))
#define JGT_K(k, t, f) BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, (k), (t), (f))

/* A program whose answer depends on instruction_pointer cannot be lifted
 * exactly: optimize and merge refuse it and name the instruction (as
 * `compile -f text` lists it) and, in a stack, the file.  One that loads
 * the pointer but answers alike either way is lifted. */
/* An argument-heavy policy on two ABIs, its program optimized: lifted and
 * compiled again, such programs can come out larger (749 -> 997
 * instructions before this was checked); optimize must then keep its
 * input, and say so, and never return a larger program or a longer worst
 * path.  The rules are drawn from a fixed LCG, so the case is the same on
 * every run. */
/* The next of a fixed sequence of draws below N. */
static unsigned lcg(uint32_t *seed, unsigned n)
{
	*seed = *seed * 1103515245u + 12345u;
	return (*seed >> 16) % n;
}

static void test_optimize_never_grows(void **state)
{
	(void)state;
	static const char *const names[] = { "read", "write", "openat", "close", "mmap", "ioctl",
					     "fcntl", "socket", "clone", "prctl", "futex", "kill" };
	static const char *const acts[] = { "SCMP_ACT_ALLOW", "SCMP_ACT_ERRNO",
					    "SCMP_ACT_KILL_PROCESS", "SCMP_ACT_TRAP", "SCMP_ACT_LOG" };
	static const char *const ops[] = { "SCMP_CMP_EQ", "SCMP_CMP_GT", "SCMP_CMP_NE",
					   "SCMP_CMP_LT", "SCMP_CMP_GE", "SCMP_CMP_LE" };
	static const unsigned long long vals[] = { 0, 1, 5, 0xff, 0x100000000ULL, 0xffffffff, 40 };
	uint32_t seed = 12345;
	char *buf = malloc(1 << 16);
	size_t at = 0;
	assert_non_null(buf);
	at += (size_t)snprintf(buf + at, (1 << 16) - at,
			       "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"architectures\": "
			       "[\"SCMP_ARCH_X86_64\", \"SCMP_ARCH_X86\"], \"syscalls\": [");
	for (int i = 0; i < 80; i++) {
		unsigned nm = lcg(&seed, 12), ac = lcg(&seed, 5), nargs = lcg(&seed, 3);
		at += (size_t)snprintf(buf + at, (1 << 16) - at,
				       "%s{\"names\": [\"%s\"], \"action\": \"%s\"", i ? ", " : "",
				       names[nm], acts[ac]);
		if (nargs)
			at += (size_t)snprintf(buf + at, (1 << 16) - at, ", \"args\": [");
		for (unsigned k = 0; k < nargs; k++) {
			unsigned ix = k * 2 + lcg(&seed, 2), v = lcg(&seed, 7), op = lcg(&seed, 6);
			at += (size_t)snprintf(buf + at, (1 << 16) - at,
					       "%s{\"index\": %u, \"value\": %llu, \"op\": \"%s\"}",
					       k ? ", " : "", ix, vals[v], ops[op]);
		}
		at += (size_t)snprintf(buf + at, (1 << 16) - at, "%s}", nargs ? "]" : "");
	}
	snprintf(buf + at, (1 << 16) - at, "]}");
	write_text(tmp("heavy.json"), buf);
	free(buf);
	struct result r = RUN("compile", tmp("heavy.json"), "--restrictive", "-o",
			      tmp("heavy.bpf"), "-q");
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	r = RUN("optimize", tmp("heavy.bpf"), "-o", tmp("heavy-opt.bpf"));
	expect(&r, 0, NULL, NULL);
	size_t n0 = 0, n1 = 0;
	unsigned w0 = 0, w1 = 0;
	const char *kept = strstr(r.out, "kept the input");
	const char *line = strstr(r.out, " instructions -> ");
	if (kept) {
		assert_int_equal(sscanf(kept, "kept the input: no layout of the lifted policy is "
					      "smaller without a longer worst path (%zu instructions, "
					      "worst path %u)", &n0, &w0), 2);
		n1 = n0;
		w1 = w0;
	} else {
		assert_non_null(line);
		while (line > r.out && line[-1] != '\n')
			line--;
		assert_int_equal(sscanf(line, "%zu instructions -> %zu (%*f%%), worst path %u -> %u",
					&n0, &n1, &w0, &w1), 4);
	}
	assert_true(n1 <= n0);
	assert_true(w1 <= w0);
	assert_non_null(strstr(r.out, "proven to decide every call alike: every ABI"));
	result_free(&r);
	size_t len = 0;
	void *opt = read_file(tmp("heavy-opt.bpf"), &len);
	assert_non_null(opt);
	assert_int_equal(len / 8, n1);
	free(opt);
	/* and the output decides as the input, by diff's own proof */
	r = RUN("diff", tmp("heavy.bpf"), tmp("heavy-opt.bpf"));
	expect(&r, 0, NULL, NULL);
	result_free(&r);

	/* -a says what it dropped and what the proof covers */
	r = RUN("optimize", tmp("heavy.bpf"), "-a", "x86_64", "-o", tmp("heavy-a.bpf"));
	expect(&r, 0, "(now the bad-arch action); proven to decide every call of x86_64 alike",
	       NULL);
	assert_non_null(strstr(r.out, "dropped "));
	assert_true(strstr(r.out, "i386") && strstr(r.out, "i386") < strstr(r.out, "(now the"));
	result_free(&r);
	r = RUN("diff", tmp("heavy.bpf"), tmp("heavy-a.bpf"), "-a", "x86_64");
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	r = RUN("diff", tmp("heavy.bpf"), tmp("heavy-a.bpf"), "-a", "i386", "-q");
	expect(&r, 1, NULL, NULL);
	result_free(&r);
}

/* A program whose lifted policy compiles to no program the kernel accepts
 * (tests/shapes.c's seed 306: 3,640 instructions, lifted to 4,300 and more):
 * optimize keeps it and says why, naming the bound, where it failed with
 * the compile's message; the file written is the input. */
static void test_optimize_unfit(void **state)
{
	(void)state;
	scmpc_prog *in = shape_args_prog(306, 3000, NULL);
	assert_non_null(in);
	size_t len = scmpc_prog_len(in);
	write_file(tmp("unfit.bpf"), scmpc_prog_insns(in), len * sizeof(struct sock_filter));
	struct result r = RUN("optimize", tmp("unfit.bpf"), "-o", tmp("unfit-opt.bpf"));
	char want[160];
	snprintf(want, sizeof(want), "the kernel accepts at most 4096 (%zu instructions, worst path ",
		 len);
	expect(&r, 0, "kept the input: the lifted policy compiles to no program: the program "
	       "needs ", NULL);
	expect(&r, 0, want, NULL);
	expect(&r, 0, "proven to decide every call alike", NULL);
	result_free(&r);
	size_t n = 0;
	char *out = read_file(tmp("unfit-opt.bpf"), &n);
	assert_non_null(out);
	assert_int_equal(n, len * sizeof(struct sock_filter));
	assert_memory_equal(out, scmpc_prog_insns(in), n);
	free(out);
	scmpc_prog_free(in);
}

static void test_optimize_refusals(void **state)
{
	(void)state;
	struct sock_filter ip_matters[] = {
		LD_ABS(4),
		JEQ_K(0xc000003eU, 1, 0),		/* AUDIT_ARCH_X86_64 */
		RET_K(SCMPC_ACT_KILL_PROCESS),
		LD_ABS(8),				/* instruction_pointer, low word */
		JGT_K(0x400000, 0, 1),
		RET_K(SCMPC_ACT_ALLOW),
		RET_K(SCMPC_ACT_ERRNO(1)),
	};
	struct sock_filter ip_ignored[] = {
		LD_ABS(4),
		JEQ_K(0xc000003eU, 1, 0),
		RET_K(SCMPC_ACT_KILL_PROCESS),
		LD_ABS(8),
		JGT_K(0x400000, 0, 0),
		LD_ABS(0),
		JEQ_K(63, 0, 1),			/* uname */
		RET_K(SCMPC_ACT_ERRNO(1)),
		RET_K(SCMPC_ACT_ALLOW),
	};
	struct result r;

	write_file(tmp("ip.bpf"), ip_matters, sizeof(ip_matters));
	write_file(tmp("ip-ignored.bpf"), ip_ignored, sizeof(ip_ignored));
	r = RUN("optimize", tmp("ip.bpf"), "-o", tmp("ip-opt.bpf"));
	expect(&r, 1, NULL, "insn 4");
	assert_non_null(strstr(r.err, "instruction_pointer"));
	assert_non_null(strstr(r.err, tmp("ip.bpf")));
	assert_non_null(strstr(r.err, "0004: if (A <= 0x400000) goto 0006"));
	assert_int_equal(access(tmp("ip-opt.bpf"), F_OK), -1);
	result_free(&r);

	r = RUN("merge", tmp("ip-ignored.bpf"), tmp("ip.bpf"), "-o", tmp("ip-merged.bpf"));
	expect(&r, 1, NULL, "insn 4");
	char want[512];
	snprintf(want, sizeof(want), "%s: cannot be lifted exactly", tmp("ip.bpf"));
	assert_non_null(strstr(r.err, want));
	assert_int_equal(access(tmp("ip-merged.bpf"), F_OK), -1);
	result_free(&r);

	size_t len;
	r = RUN("optimize", tmp("ip-ignored.bpf"), "-o", tmp("ip-ignored-opt.bpf"));
	expect(&r, 0, NULL, NULL);
	struct sock_filter *opt = (struct sock_filter *)read_file(tmp("ip-ignored-opt.bpf"), &len);
	assert_non_null(opt);
	const struct sock_filter *w[1] = { ip_ignored };
	size_t wl[1] = { sizeof(ip_ignored) / sizeof(ip_ignored[0]) };
	same_as_stack(opt, len / sizeof(*opt), w, wl, 1, "ip-ignored");
	free(opt);
	result_free(&r);

	/* A program that never tests the ABI: refused, unless -a names the
	 * one it serves and --bad-arch what the others get.  Expected by hand:
	 * x86_64 as the program (nr -1 included), its x32 numbers (bit 30)
	 * and every other AUDIT_ARCH killed. */
	struct sock_filter noarch[] = {
		LD_ABS(0),
		JEQ_K(63, 0, 1),
		RET_K(SCMPC_ACT_ERRNO(1)),
		RET_K(SCMPC_ACT_ALLOW),
	};
	struct sock_filter noarch_want[] = {
		LD_ABS(4),
		JEQ_K(0xc000003eU, 1, 0),
		RET_K(SCMPC_ACT_KILL_PROCESS),
		LD_ABS(0),
		JEQ_K(0xffffffffU, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x40000000U, 2, 0),
		JEQ_K(63, 2, 0),
		RET_K(SCMPC_ACT_ALLOW),
		RET_K(SCMPC_ACT_KILL_PROCESS),
		RET_K(SCMPC_ACT_ERRNO(1)),
	};
	write_file(tmp("noarch.bpf"), noarch, sizeof(noarch));
	r = RUN("optimize", tmp("noarch.bpf"), "-o", tmp("noarch-opt.bpf"));
	expect(&r, 1, NULL, "-a ABI");
	result_free(&r);
	r = RUN("optimize", tmp("noarch.bpf"), "-a", "x86_64", "--bad-arch", "kill_process", "-o",
		tmp("noarch-opt.bpf"));
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	opt = (struct sock_filter *)read_file(tmp("noarch-opt.bpf"), &len);
	assert_non_null(opt);
	w[0] = noarch_want;
	wl[0] = sizeof(noarch_want) / sizeof(noarch_want[0]);
	same_as_stack(opt, len / sizeof(*opt), w, wl, 1, "noarch -a x86_64");
	free(opt);

	/* A policy is not a filter to optimize. */
	write_text(tmp("opt-policy.json"), DENY_ONE("uname"));
	r = RUN("optimize", tmp("opt-policy.json"));
	expect(&r, 1, NULL, "'compile' makes its program");
	result_free(&r);
}

/* Three policies for a stack: two decide uname with ERRNO, the newer's
 * data must win; the middle one checks an argument of personality; the
 * newest kills getcpu and allows the rest. */
#define STACK_A                                                                     \
	"{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": ["                   \
	"{\"names\": [\"uname\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 1}," \
	"{\"names\": [\"getcpu\", \"sync\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 5}]}\n"
#define STACK_B                                                                       \
	"{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": ["                     \
	"{\"names\": [\"uname\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 2},"   \
	"{\"names\": [\"personality\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 22," \
	"  \"args\": [{\"index\": 0, \"value\": 8, \"op\": \"SCMP_CMP_NE\"}]}]}\n"
#define STACK_C                                                                   \
	"{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": ["                 \
	"{\"names\": [\"getcpu\"], \"action\": \"SCMP_ACT_KILL_PROCESS\"},"       \
	"{\"names\": [\"sync\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 9}]}\n"

/* Compile each policy with the CLI into NAME-I.bpf, read back into
 * PROGS/LENS (the caller frees PROGS[i]). */
static void make_stack(const char *const *texts, size_t n, struct sock_filter **progs,
		       size_t *lens, char paths[][512], char json[][512])
{
	for (size_t i = 0; i < n; i++) {
		char name[64];

		snprintf(name, sizeof(name), "stack-%zu.json", i);
		snprintf(json[i], 512, "%s", tmp(name));
		write_text(json[i], texts[i]);
		snprintf(name, sizeof(name), "stack-%zu.bpf", i);
		snprintf(paths[i], 512, "%s", tmp(name));
		struct result r = RUN("compile", json[i], "-o", paths[i], "-q");
		expect(&r, 0, NULL, NULL);
		result_free(&r);
		progs[i] = (struct sock_filter *)read_file(paths[i], &lens[i]);
		assert_non_null(progs[i]);
		lens[i] /= sizeof(struct sock_filter);
	}
}

static struct sock_filter *read_prog(const char *path, size_t *len)
{
	struct sock_filter *f = (struct sock_filter *)read_file(path, len);

	assert_non_null(f);
	assert_int_equal(*len % sizeof(*f), 0);
	*len /= sizeof(*f);
	return f;
}

static uint32_t native_audit(void)
{
	return scmpc_arch_audit(scmpc_arch_native());
}

/* merge of .bpf files (two of scmpc's and one of libseccomp's), and of
 * the policies themselves: one program deciding as the stack. */
static void test_merge_files(void **state)
{
	(void)state;
	const char *texts[3] = { STACK_A, STACK_B, STACK_C };
	struct sock_filter *progs[4];
	size_t lens[4], mlen, total = 0;
	char paths[4][512], json[3][512], line[128];
	struct result r;

	make_stack(texts, 3, progs, lens, paths, json);
	/* the newest filter is libseccomp's, of Docker's profile */
	scmpc_policy *p = testutil_policy("docker-default.json", scmpc_arch_native());
	char err[256];
	assert_non_null(p);
	if (lsc_compile(p, 2, &progs[3], &lens[3], err, sizeof(err)) < 0)
		fail_msg("libseccomp: %s", err);
	scmpc_policy_free(p);
	snprintf(paths[3], sizeof(paths[3]), "%s", tmp("stack-lsc.bpf"));
	write_file(paths[3], progs[3], lens[3] * sizeof(*progs[3]));

	r = RUN("merge", paths[0], paths[1], paths[2], "-o", tmp("merged.bpf"));
	expect(&r, 0, "stack", NULL);
	struct sock_filter *m = read_prog(tmp("merged.bpf"), &mlen);
	for (size_t i = 0; i < 3; i++)
		total += lens[i];
	snprintf(line, sizeof(line), "3 filters, %zu instructions -> 1 filter, %zu (", total, mlen);
	if (!strstr(r.out, line))
		fail_msg("no '%s' in:\n%s", line, r.out);
	result_free(&r);
	same_as_stack(m, mlen, (const struct sock_filter *const *)progs, lens, 3, "merge 3 .bpf");
	/* By hand: uname gets B's ERRNO(2) (equal actions: the newer's data),
	 * getcpu C's kill, sync C's ERRNO(9), personality(8) is allowed. */
	const struct {
		uint32_t nr;
		uint64_t a0;
		uint32_t want;
	} spot[] = {
		{ 63, 0, SCMPC_ACT_ERRNO(2) }, { 309, 0, SCMPC_ACT_KILL_PROCESS },
		{ 162, 0, SCMPC_ACT_ERRNO(9) }, { 135, 8, SCMPC_ACT_ALLOW },
		{ 135, 0, SCMPC_ACT_ERRNO(22) }, { 39, 0, SCMPC_ACT_ALLOW },
	};
	if (scmpc_arch_native() == SCMPC_ARCH_X86_64) {
		for (size_t i = 0; i < sizeof(spot) / sizeof(spot[0]); i++) {
			uint64_t args[6] = { spot[i].a0 };
			struct seccomp_data sd = testutil_sd_audit(native_audit(), spot[i].nr, args);
			uint32_t got;

			assert_int_equal(scmpc_emulate(m, mlen, &sd, &got, NULL), 0);
			if (got != spot[i].want)
				fail_msg("nr %u: %s, want %s", spot[i].nr, testutil_act(got),
					 testutil_act(spot[i].want));
		}
	}
	free(m);

	/* Four, libseccomp's among them, in both orders. */
	r = RUN("merge", paths[0], paths[3], paths[1], paths[2], "-o", tmp("merged4.bpf"));
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	m = read_prog(tmp("merged4.bpf"), &mlen);
	const struct sock_filter *order1[4] = { progs[0], progs[3], progs[1], progs[2] };
	size_t lens1[4] = { lens[0], lens[3], lens[1], lens[2] };
	same_as_stack(m, mlen, order1, lens1, 4, "merge with libseccomp's");
	free(m);
	r = RUN("merge", paths[2], paths[1], paths[0], paths[3], "-o", tmp("merged4r.bpf"));
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	m = read_prog(tmp("merged4r.bpf"), &mlen);
	const struct sock_filter *order2[4] = { progs[2], progs[1], progs[0], progs[3] };
	size_t lens2[4] = { lens[2], lens[1], lens[0], lens[3] };
	same_as_stack(m, mlen, order2, lens2, 4, "merge reversed");
	free(m);

	/* The policies: compiled as compile does, merged as their stack. */
	r = RUN("merge", json[0], json[1], json[2], "-q", "-o", tmp("merged-json.bpf"));
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	m = read_prog(tmp("merged-json.bpf"), &mlen);
	same_as_stack(m, mlen, (const struct sock_filter *const *)progs, lens, 3, "merge policies");
	free(m);

	/* Mixed: a policy then .bpf files. */
	r = RUN("merge", json[0], paths[1], paths[2], "-q", "-f", "bpf", "-o", tmp("merged-mix"));
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	m = read_prog(tmp("merged-mix"), &mlen);
	same_as_stack(m, mlen, (const struct sock_filter *const *)progs, lens, 3, "merge mixed");
	free(m);

	/* The output may not be one of the inputs, even the fifth. */
	r = RUN("merge", paths[0], paths[1], paths[2], paths[3], json[0], "-o", json[0]);
	expect(&r, 1, NULL, "the output is the same file as the input");
	result_free(&r);
	char *kept = read_file(json[0], NULL);
	assert_non_null(kept);
	assert_string_equal(kept, STACK_A);
	free(kept);
	r = RUN("merge", paths[0], "--pid", "1");
	expect(&r, 2, NULL, "not both");
	result_free(&r);
	for (size_t i = 0; i < 4; i++)
		free(progs[i]);
}

/* merge --pid and inspect --pid on a process holding the three filters:
 * exec'd three times over, as test_dump does. */
static void test_merge_pid(void **state)
{
	(void)state;
	const char *texts[3] = { STACK_A, STACK_B, STACK_C };
	struct sock_filter *progs[3];
	size_t lens[3], mlen;
	char paths[3][512], json[3][512], pidstr[16];

	if (!unfiltered()) {
		print_message("skipped: the test runs under seccomp, and a filtered process "
			      "cannot read filters back\n");
		skip();
	}
	make_stack(texts, 3, progs, lens, paths, json);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(null, 1);
		execl(cli_path(), cli_path(), "exec", "-q", json[0], "--", cli_path(), "exec", "-q",
		      json[1], "--", cli_path(), "exec", "-q", json[2], "--", "/bin/sleep", "10",
		      (char *)NULL);
		_exit(127);
	}
	bool ready = wait_filtered(pid, "sleep", 3);
	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	struct result m = { 0 }, in = { 0 };
	if (ready) {
		m = RUN("merge", "--pid", pidstr, "-o", tmp("merged-pid.bpf"));
		in = RUN("inspect", "--pid", pidstr);
	}
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	if (!ready)
		fail_msg("the nested exec did not reach sleep with 3 filters");
	if (m.status == 1 && (strstr(m.err, "CAP_SYS_ADMIN") || strstr(m.err, "not permitted"))) {
		print_message("skipped: %s", m.err);
		result_free(&m);
		result_free(&in);
		for (size_t i = 0; i < 3; i++)
			free(progs[i]);
		skip();
	}
	expect(&m, 0, "stack", NULL);
	struct sock_filter *merged = read_prog(tmp("merged-pid.bpf"), &mlen);
	same_as_stack(merged, mlen, (const struct sock_filter *const *)progs, lens, 3, "merge --pid");

	/* inspect --pid: each filter by its size, the stack beside the merged
	 * program, and the decision: uname gets the newer ERRNO(2). */
	char line[128];
	expect(&in, 0, NULL, NULL);
	snprintf(line, sizeof(line), "process %d: 3 filters, oldest first", (int)pid);
	assert_non_null(strstr(in.out, line));
	for (size_t i = 0; i < 3; i++) {
		snprintf(line, sizeof(line), "filter %zu: %zu instructions (", i, lens[i]);
		if (!strstr(in.out, line))
			fail_msg("no '%s' in:\n%s", line, in.out);
	}
	snprintf(line, sizeof(line), "%zu filters, %zu instructions -> 1 filter, %zu (", (size_t)3,
		 lens[0] + lens[1] + lens[2], mlen);
	if (!strstr(in.out, line))
		fail_msg("no '%s' in:\n%s", line, in.out);
	if (scmpc_arch_native() == SCMPC_ARCH_X86_64) {
		const char *u = strstr(in.out, "63 uname");
		assert_non_null(u);
		const char *eol = strchr(u, '\n');
		assert_non_null(eol);
		assert_non_null(strstr(u, "ERRNO(2)"));
		assert_true(strstr(u, "ERRNO(2)") < eol);
		const char *pe = strstr(in.out, "135 personality");
		assert_non_null(pe);
		assert_true(strstr(pe, "depends on arguments") < strchr(pe, '\n'));
	}
	free(merged);
	result_free(&m);
	result_free(&in);
	for (size_t i = 0; i < 3; i++)
		free(progs[i]);

	/* A process without filters: inspect says so, merge refuses. */
	snprintf(pidstr, sizeof(pidstr), "%d", (int)getpid());
	struct result r = RUN("inspect", "--pid", pidstr);
	expect(&r, 0, "has no seccomp filters", NULL);
	result_free(&r);
	r = RUN("merge", "--pid", pidstr);
	expect(&r, 1, NULL, "nothing to merge");
	result_free(&r);
}

/* ------------------------------------------------------- explain, lint */

/* One personality rule of a Docker-style profile (defaultAction ALLOW,
 * x86_64 only): ERRNO(E) when CONDS, a JSON list, hold. */
#define PERS(e, conds)                                                              \
	"{\"names\": [\"personality\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": " \
	#e ", \"args\": [" conds "]}"
#define ARG(i, v, op) "{\"index\": " #i ", \"value\": " #v ", \"op\": \"SCMP_CMP_" #op "\"}"
#define ALLOW_X86_64(rules)                                                          \
	"{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"architectures\": [\"SCMP_ARCH_X86_64\"], " \
	"\"syscalls\": [" rules "]}\n"

/* Issue #28: `a0 > 1` ERRNO(1), `a0 >= 1 && a1 != 1` ERRNO(2).  For
 * personality(1, 0xffffffff) crun's filter returns ALLOW: libseccomp's
 * tree reaches no action though rule 1 holds.  explain said "no rule
 * matches"; it must name rule 1 as overridden by the order. */
#define SHADOW_PROFILE ALLOW_X86_64(PERS(1, ARG(0, 1, GT)) ", " PERS(2, ARG(0, 1, GE) ", " ARG(1, 1, NE)))
/* Found by the library's search (test_policy.c): for (1, 5) the tree
 * gives ERRNO(2) through rule 0's comparisons, whose a0 < 1 is false;
 * explain said "decided by: syscalls[0].names[0] (rule 0)". */
#define ORDER_PROFILE ALLOW_X86_64(PERS(2, ARG(1, 3, NE) ", " ARG(0, 1, LT)) ", " \
				  PERS(4, ARG(0, 1, LE) ", " ARG(1, 0, NE)))

static void test_explain_order(void **state)
{
	(void)state;
	struct result r;

	write_text(tmp("shadow.json"), SHADOW_PROFILE);
	r = RUN("explain", tmp("shadow.json"), "personality", "1", "4294967295", "--runtime", "crun",
		"-a", "x86_64", "-q");
	expect(&r, 0, "action: ALLOW\n", NULL);
	assert_null(strstr(r.out, "no rule matches"));
	assert_non_null(strstr(r.out, "decided by: libseccomp's order of comparisons"));
	assert_non_null(strstr(r.out, "overridden: syscalls[1].names[0] (rule 1) holds and gives "
				      "ERRNO(2)"));
	assert_non_null(strstr(r.out, "  a0 >= 1: true (a0 = 0x1)\n  a1 != 1: true (a1 = 0xffffffff)\n"));
	assert_non_null(strstr(r.out, "filter: ALLOW after"));
	result_free(&r);
	/* Read as the rules say, rule 1 decides. */
	r = RUN("explain", tmp("shadow.json"), "personality", "1", "4294967295", "--restrictive",
		"-a", "x86_64", "-q");
	expect(&r, 0, "action: ERRNO(2)\ndecided by: syscalls[1].names[0] (rule 1)\n", NULL);
	result_free(&r);

	write_text(tmp("order.json"), ORDER_PROFILE);
	r = RUN("explain", tmp("order.json"), "personality", "1", "5", "--runtime", "crun", "-a",
		"x86_64", "-q");
	expect(&r, 0, "action: ERRNO(2)\n", NULL);
	assert_null(strstr(r.out, "decided by: syscalls[0].names[0] (rule 0)\n"));
	assert_non_null(strstr(r.out, "the comparisons of syscalls[0].names[0] (rule 0), whose "
				      "conditions do not all hold\n"));
	assert_non_null(strstr(r.out, "  a0 < 1: false (a0 = 0x1)\n"));
	assert_non_null(strstr(r.out, "overridden: syscalls[1].names[0] (rule 1) holds and gives "
				      "ERRNO(4)"));
	result_free(&r);
	/* Where the order and severity agree, the rule that holds decides,
	 * and only it. */
	r = RUN("explain", tmp("order.json"), "personality", "0", "5", "--runtime", "crun", "-a",
		"x86_64", "-q");
	expect(&r, 0, "action: ERRNO(2)\ndecided by: syscalls[0].names[0] (rule 0)\n"
		      "  a1 != 3: true (a1 = 0x5)\n  a0 < 1: true (a0 = 0x0)\n", NULL);
	assert_null(strstr(r.out, "overridden"));
	result_free(&r);
}

static bool cond_true(int op, uint64_t v, uint64_t x)
{
	switch (op) {
	case 0: return x == v;
	case 1: return x != v;
	case 2: return x < v;
	case 3: return x <= v;
	case 4: return x > v;
	default: return x >= v;
	}
}

/* Random profiles of 2-4 personality rules under crun, at most one
 * condition per argument (so rule N is entry N): the rule explain says
 * decides must hold by this test's own evaluation, one named as the
 * order's must not, and each printed truth value must be right. */
static void test_explain_attribution_fuzz(void **state)
{
	(void)state;
	static const char *const ops[] = { "EQ", "NE", "LT", "LE", "GT", "GE" };
	static const uint64_t vals[] = { 0, 1, 2, 3, 0xffffffff };
	unsigned seed = 24, orders = 0;

	for (int it = 0; it < 40; it++) {
		int nrules = 2 + (int)(rand_r(&seed) % 3), op[4][2], val[4][2];
		bool has[4][2];
		char json[4096];
		size_t n = (size_t)snprintf(json, sizeof(json), "{\"defaultAction\": \"SCMP_ACT_ALLOW\", "
					    "\"architectures\": [\"SCMP_ARCH_X86_64\"], \"syscalls\": [");
		for (int r = 0; r < nrules; r++) {
			n += (size_t)snprintf(json + n, sizeof(json) - n, "%s{\"names\": [\"personality\"], "
					      "\"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": %d, \"args\": [",
					      r ? ", " : "", r + 1);
			has[r][0] = rand_r(&seed) % 2;
			has[r][1] = !has[r][0] || rand_r(&seed) % 2;
			bool first = true;
			for (int a = 0; a < 2; a++) {
				op[r][a] = (int)(rand_r(&seed) % 6);
				val[r][a] = (int)(rand_r(&seed) % 4);
				if (!has[r][a])
					continue;
				n += (size_t)snprintf(json + n, sizeof(json) - n,
						      "%s{\"index\": %d, \"value\": %d, \"op\": \"SCMP_CMP_%s\"}",
						      first ? "" : ", ", a, val[r][a], ops[op[r][a]]);
				first = false;
			}
			n += (size_t)snprintf(json + n, sizeof(json) - n, "]}");
		}
		snprintf(json + n, sizeof(json) - n, "]}\n");
		write_text(tmp("fuzz.json"), json);
		for (int t = 0; t < 4; t++) {
			uint64_t a[2] = { vals[rand_r(&seed) % 5], vals[rand_r(&seed) % 5] };
			char a0[24], a1[24];
			snprintf(a0, sizeof(a0), "%" PRIu64, a[0]);
			snprintf(a1, sizeof(a1), "%" PRIu64, a[1]);
			struct result r = RUN("explain", tmp("fuzz.json"), "personality", a0, a1,
					      "--runtime", "crun", "-a", "x86_64", "-q");
			if (r.status == 1 && strstr(r.err, "refuses")) {	/* libseccomp's EEXIST */
				result_free(&r);
				continue;
			}
			expect(&r, 0, "action: ", NULL);
			const char *d = strstr(r.out, "decided by: ");
			assert_non_null(d);
			const char *eol = strchr(d, '\n'), *rn = strstr(d, "(rule ");
			orders += strstr(d, "libseccomp's order") && strstr(d, "libseccomp's order") < eol;
			if (rn && rn < eol) {
				int rule = atoi(rn + 6);
				bool holds = true;
				for (int k = 0; k < 2; k++)
					if (has[rule][k] && !cond_true(op[rule][k], (uint64_t)val[rule][k], a[k]))
						holds = false;
				bool order_rule = strstr(d, "do not all hold") &&
						  strstr(d, "do not all hold") < eol;
				if (holds == order_rule)
					fail_msg("rule %d %s, but explain says:\n%s\n%s", rule,
						 holds ? "holds" : "does not hold", json, r.out);
				/* The printed truth of each of its conditions. */
				for (int k = 0; k < 2; k++) {
					char line[96];
					if (!has[rule][k])
						continue;
					snprintf(line, sizeof(line), ": %s (a%d = ",
						 cond_true(op[rule][k], (uint64_t)val[rule][k], a[k]) ? "true"
													: "false", k);
					const char *at = strstr(eol, line);
					if (!at)
						fail_msg("no '%s' for rule %d:\n%s\n%s", line, rule, json, r.out);
				}
			}
			result_free(&r);
		}
	}
	assert_true(orders > 0);
}

/* Negative arguments after the syscall are numbers (two's complement),
 * not options: `explain POLICY openat -100` said "unknown option '-1'". */
static void test_explain_negative_args(void **state)
{
	(void)state;
	struct result r;

	write_text(tmp("cwd.json"),
		   "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"architectures\": [\"SCMP_ARCH_X86_64\"], "
		   "\"syscalls\": [{\"names\": [\"openat\"], \"action\": \"SCMP_ACT_ALLOW\", \"args\": "
		   "[{\"index\": 0, \"value\": 18446744073709551516, \"op\": \"SCMP_CMP_EQ\"}]}]}\n");
	r = RUN("explain", tmp("cwd.json"), "openat", "-100", "-a", "x86_64", "-q");
	expect(&r, 0, "arguments 0xffffffffffffff9c\n", NULL);
	assert_non_null(strstr(r.out, "action: ALLOW\ndecided by: syscalls[0].names[0] (rule 0)\n"));
	assert_non_null(strstr(r.out, "a0 == 0xffffffffffffff9c: true (a0 = 0xffffffffffffff9c)"));
	result_free(&r);
	/* before the options, between them, several of them, after '--' */
	r = RUN("explain", "-q", tmp("cwd.json"), "openat", "-1", "-a", "x86_64", "-0x10", "7");
	expect(&r, 0, "arguments 0xffffffffffffffff, 0xfffffffffffffff0, 7\n", NULL);
	assert_non_null(strstr(r.out, "action: ERRNO(1)"));
	result_free(&r);
	r = RUN("explain", tmp("cwd.json"), "-a", "x86_64", "-q", "--", "openat", "-100");
	expect(&r, 0, "action: ALLOW\n", NULL);
	result_free(&r);
	r = RUN("explain", tmp("cwd.json"), "openat", "-99999999999999999999", "-a", "x86_64");
	expect(&r, 2, NULL, "out of range");
	result_free(&r);
	/* An option's own argument stays its own; a word that is no number
	 * is still an option. */
	r = RUN("explain", tmp("cwd.json"), "openat", "-a", "-100");
	expect(&r, 2, NULL, "unknown ABI '-100'");
	result_free(&r);
	r = RUN("explain", tmp("cwd.json"), "openat", "-x");
	expect(&r, 2, NULL, "unknown option '-x'");
	result_free(&r);
	/* Commands that take no numbers still read options as options. */
	r = RUN("compile", tmp("cwd.json"), "-100");
	expect(&r, 2, NULL, "unknown option");
	result_free(&r);
}

/* A compiled filter names no rule: its decision and path. */
static void test_explain_bpf(void **state)
{
	(void)state;
	struct result r;

	write_text(tmp("shadow.json"), SHADOW_PROFILE);
	r = RUN("compile", tmp("shadow.json"), "--runtime", "crun", "-a", "x86_64", "-q", "-o",
		tmp("shadow.bpf"));
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	r = RUN("explain", tmp("shadow.bpf"), "personality", "1", "4294967295", "-a", "x86_64");
	expect(&r, 0, "action: ALLOW\ndecided by: the filter (a compiled program names no rule)\n",
	       NULL);
	assert_non_null(strstr(r.out, "filter: ALLOW after "));
	assert_non_null(strstr(r.out, "A = args[0] >> 32"));
	assert_null(strstr(r.out, "(rule "));
	result_free(&r);
	r = RUN("explain", tmp("shadow.bpf"), "personality", "2", "-a", "x86_64");
	expect(&r, 0, "action: ERRNO(1)\n", NULL);
	assert_non_null(strstr(r.out, "filter: ERRNO(1) after "));
	result_free(&r);
	r = RUN("explain", tmp("shadow.bpf"), "getpid", "-a", "x86_64", "--kernel", "6.8");
	expect(&r, 0, "action: ALLOW\n", "");
	assert_non_null(strstr(r.out, "cache: cached"));
	result_free(&r);
}

/* Records as auditd logs them and as the kernel's printk leaves them in
 * syslog (audit_seccomp(): arch in hex without 0x, syscall in decimal,
 * code in hex). */
#define AUDIT_SOCKET                                                                   \
	"type=SECCOMP msg=audit(1700000000.123:456): auid=1000 uid=1000 gid=1000 ses=3 " \
	"subj=unconfined pid=4242 comm=\"nc\" exe=\"/usr/bin/nc.openbsd\" sig=0 "       \
	"arch=c000003e syscall=41 compat=0 ip=0x7f1e2a3b4c5d code=0x50001"
#define AUDIT_SYSLOG                                                                     \
	"Nov 12 10:00:00 host kernel: [12345.678901] audit: type=1326 "                   \
	"audit(1700000000.123:457): auid=4294967295 uid=0 gid=0 ses=4294967295 "          \
	"subj=docker-default pid=777 comm=\"personality\" exe=\"/usr/bin/setarch\" sig=31 " \
	"arch=c000003e syscall=135 compat=0 ip=0x7f00 code=0x80000000"
#define AUDIT_I386                                                                       \
	"type=SECCOMP msg=audit(1.2:3): auid=0 uid=0 gid=0 ses=1 pid=9 comm=\"a\" exe=\"/a\" " \
	"sig=0 arch=40000003 syscall=20 compat=1 ip=0xf7f0 code=0x7fff0000"

static void test_explain_audit(void **state)
{
	(void)state;
	struct result r;

	/* Alone: the call and what the kernel did. */
	r = RUN("explain", "--audit", AUDIT_SOCKET);
	expect(&r, 0, "syscall: 41 socket on x86_64\n", NULL);
	assert_non_null(strstr(r.out, "pid 4242 (nc) /usr/bin/nc.openbsd; the kernel returned "
				      "ERRNO(1)\n"));
	assert_non_null(strstr(r.out, "carries no arguments"));
	result_free(&r);
	r = RUN("explain", "--audit", AUDIT_SYSLOG);
	expect(&r, 0, "syscall: 135 personality on x86_64\n", NULL);
	assert_non_null(strstr(r.out, "the kernel returned KILL_PROCESS, signal 31"));
	result_free(&r);
	r = RUN("explain", "--audit", AUDIT_I386);
	expect(&r, 0, "syscall: 20 getpid on i386\n", NULL);
	result_free(&r);
	/* x32's calls come under x86_64's AUDIT_ARCH with bit 30 */
	r = RUN("explain", "--audit", "arch=c000003e syscall=1073741863");
	expect(&r, 0, "on x32\n", NULL);
	result_free(&r);

	/* With a policy: the rule that decides, arguments 0 unless given. */
	write_text(tmp("shadow.json"), SHADOW_PROFILE);
	r = RUN("explain", tmp("shadow.json"), "--audit", AUDIT_SYSLOG, "-q");
	expect(&r, 0, "action: ALLOW\ndecided by: the default action", NULL);
	assert_non_null(strstr(r.out, "explained with arguments 0"));
	assert_non_null(strstr(r.out, "note: the record's call got KILL_PROCESS, not ALLOW"));
	result_free(&r);
	r = RUN("explain", tmp("shadow.json"), "--audit", AUDIT_SYSLOG, "-q", "2");
	expect(&r, 0, "syscall: 135 personality on x86_64, arguments 2\n", NULL);
	assert_non_null(strstr(r.out, "action: ERRNO(1)\ndecided by: syscalls[0].names[0] (rule 0)"));
	assert_null(strstr(r.out, "explained with arguments 0"));
	result_free(&r);

	/* What is not a seccomp record of a known ABI is refused. */
	r = RUN("explain", "--audit", "type=AVC msg=audit(1.2:3): arch=c000003e syscall=1");
	expect(&r, 2, NULL, "not a seccomp one");
	result_free(&r);
	r = RUN("explain", "--audit", "type=SECCOMP pid=1 syscall=1");
	expect(&r, 2, NULL, "no arch= field");
	result_free(&r);
	r = RUN("explain", "--audit", "type=SECCOMP arch=c000003e");
	expect(&r, 2, NULL, "no syscall= field");
	result_free(&r);
	r = RUN("explain", "--audit", "arch=zz syscall=1");
	expect(&r, 2, NULL, "arch=zz is not an AUDIT_ARCH");
	result_free(&r);
	r = RUN("explain", "--audit", "arch=12345678 syscall=1");
	expect(&r, 2, NULL, "arch=12345678 is no ABI");
	result_free(&r);
	r = RUN("explain", "--audit", "arch=c000003e syscall=x1");
	expect(&r, 2, NULL, "syscall=x1 is not");
	result_free(&r);
	r = RUN("explain", "--audit", AUDIT_SOCKET, "-a", "aarch64");
	expect(&r, 2, NULL, "of x86_64, not aarch64");
	result_free(&r);
}

/* explain --pid on a process holding two filters, stacked by nested
 * execs as test_dump does: each filter's decision and the stack's. */
static void test_explain_pid(void **state)
{
	(void)state;
	char pidstr[16], line[128];

	if (!unfiltered()) {
		print_message("skipped: the test runs under seccomp, and a filtered process "
			      "cannot read filters back\n");
		skip();
	}
	write_text(tmp("pid-outer.json"), DENY_ONE("uname"));
	write_text(tmp("pid-inner.json"),
		   "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"uname\"], "
		   "\"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 2}, {\"names\": [\"getcpu\"], "
		   "\"action\": \"SCMP_ACT_KILL_PROCESS\"}, {\"names\": [\"sync\"], \"action\": "
		   "\"SCMP_ACT_LOG\"}]}\n");
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(null, 1);
		execl(cli_path(), cli_path(), "exec", "-q", tmp("pid-outer.json"), "--", cli_path(),
		      "exec", "-q", tmp("pid-inner.json"), "--", "/bin/sleep", "10", (char *)NULL);
		_exit(127);
	}
	bool ready = wait_filtered(pid, "sleep", 2);
	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	struct result u = { 0 }, g = { 0 }, s = { 0 }, a = { 0 };
	if (ready) {
		u = RUN("explain", "--pid", pidstr, "uname");
		g = RUN("explain", "--pid", pidstr, "getcpu");
		s = RUN("explain", "--pid", pidstr, "sync");
		a = RUN("explain", "--pid", pidstr, "--audit", "arch=c000003e syscall=63");
	}
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	if (!ready)
		fail_msg("the nested exec did not reach sleep with 2 filters");
	if (u.status == 1 && (strstr(u.err, "CAP_SYS_ADMIN") || strstr(u.err, "not permitted"))) {
		print_message("skipped: %s", u.err);
		result_free(&u);
		result_free(&g);
		result_free(&s);
		result_free(&a);
		skip();
	}
	snprintf(line, sizeof(line), "process %d: 2 filters, oldest first\n", (int)pid);
	expect(&u, 0, line, NULL);
	/* equal actions: the newer filter's data */
	assert_non_null(strstr(u.out, "action: ERRNO(2)\ndecided by: filter 1 (of 2, oldest 0)"));
	assert_non_null(strstr(u.out, "filter 1: ERRNO(2) after "));
	assert_non_null(strstr(u.out, "filter 0: ERRNO(1) after "));
	expect(&g, 0, "action: KILL_PROCESS\ndecided by: filter 1 (of 2", NULL);
	assert_non_null(strstr(g.out, "filter 0: ALLOW after "));
	/* LOG is below ALLOW: the inner filter decides */
	expect(&s, 0, "action: LOG\ndecided by: filter 1", NULL);
	expect(&a, 0, "syscall: 63 uname on x86_64\n", NULL);
	assert_non_null(strstr(a.out, "action: ERRNO(2)"));
	result_free(&u);
	result_free(&g);
	result_free(&s);
	result_free(&a);

	/* not both a policy and --pid */
	struct result r = RUN("explain", tmp("pid-outer.json"), "uname", "--pid", pidstr);
	expect(&r, 2, NULL, "not both");
	result_free(&r);
}

/* lint: each kind of finding on a profile made to have it, its origin and
 * exit status 1; a clean profile exits 0. */
static void test_lint(void **state)
{
	(void)state;
	struct result r;

	/* The shadowed ERRNO(2) of issue #28: crun's filter never returns it. */
	write_text(tmp("shadow.json"), SHADOW_PROFILE);
	r = RUN("lint", tmp("shadow.json"), "--runtime", "crun");
	expect(&r, 1, "syscalls[1].names[0] (personality): shadowed: the rule holds for x86_64 135 "
		      "personality(", "1 shadowed");
	assert_non_null(strstr(r.out, "with ERRNO(2), but the runtime gives it ALLOW: "
				      "libseccomp's order of comparisons overrides it\n"));
	assert_null(strstr(r.out, "syscalls[0].names[0] (personality): shadowed"));
	result_free(&r);
	/* Read as the rules say, nothing is shadowed, and nothing is left. */
	r = RUN("lint", tmp("shadow.json"), "--runtime", "crun", "--restrictive");
	expect(&r, 0, NULL, "0 findings");
	assert_int_equal(r.out_len, 0);
	result_free(&r);
	r = RUN("lint", tmp("shadow.json"), "--runtime", "crun", "--json", "-q");
	expect(&r, 1, "[\n  {\"kind\": \"shadowed\", \"origin\": \"syscalls[1].names[0]\", "
		      "\"syscall\": \"personality\"", NULL);
	assert_non_null(strstr(r.out, "\"witness\": {\"abi\": \"x86_64\", \"arch\": 3221225534, "
				      "\"nr\": 135, \"args\": [1, "));
	assert_int_equal(r.err_len, 0);
	result_free(&r);

	/* Never decides: a0 > 5 after an unconditional rule of the call,
	 * whose ERRNO(1) wins under either reading. */
	write_text(tmp("never.json"),
		   "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"architectures\": [\"SCMP_ARCH_X86_64\"], "
		   "\"syscalls\": [{\"names\": [\"uname\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": "
		   "1}, {\"names\": [\"uname\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 2, "
		   "\"args\": [" ARG(0, 5, GT) "]}, {\"names\": [\"sync\"], \"action\": "
		   "\"SCMP_ACT_ERRNO\", \"errnoRet\": 3, \"args\": [" ARG(0, 5, GT) "]}]}\n");
	for (int restrictive = 0; restrictive < 2; restrictive++) {
		r = restrictive ? RUN("lint", tmp("never.json"), "--restrictive")
				: RUN("lint", tmp("never.json"));
		expect(&r, 1, "syscalls[1].names[0] (uname): never-decides: ", "1 never decide");
		assert_null(strstr(r.out, "syscalls[0]"));
		assert_null(strstr(r.out, "syscalls[2]"));	/* sync's decides a0 > 5 */
		assert_null(strstr(r.out, "shadowed"));
		result_free(&r);
	}

	/* Repeating the default, and names missing on an ABI or everywhere. */
	write_text(tmp("names.json"),
		   "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"architectures\": [\"SCMP_ARCH_X86_64\", "
		   "\"SCMP_ARCH_X86\"], \"syscalls\": [{\"names\": [\"read\", \"newfstatat\"], "
		   "\"action\": \"SCMP_ACT_ALLOW\"}, {\"names\": [\"uname\"], \"action\": "
		   "\"SCMP_ACT_ERRNO\"}, {\"names\": [\"no_such_call_xyz\", \"write\"], \"action\": "
		   "\"SCMP_ACT_ALLOW\"}]}\n");
	r = RUN("lint", tmp("names.json"));
	expect(&r, 1, "syscalls[1].names[0] (uname): repeats-default: repeats the default action "
		      "ERRNO(1)", NULL);
	assert_non_null(strstr(r.out, "syscalls[0].names[1] (newfstatat): missing-abi: newfstatat "
				      "is not a call of i386 (only of x86_64)"));
	assert_non_null(strstr(r.out, "syscalls[2].names[0] (no_such_call_xyz): unknown-name: "));
	assert_null(strstr(r.out, "(read)"));
	assert_null(strstr(r.out, "(write)"));
	/* an unknown name is a finding, not also a warning */
	assert_null(strstr(r.err, "warning"));
	assert_non_null(strstr(r.err, "3 findings (0 shadowed, 0 never decide, 1 repeat the "
				      "default, 1 missing on some ABI, 1 unknown names)"));
	result_free(&r);

	/* Clean, and errors. */
	write_text(tmp("clean.json"), SMALL_POLICY("", SOCKET_NOT_40));
	r = RUN("lint", tmp("clean.json"));
	expect(&r, 0, NULL, "0 findings");
	assert_int_equal(r.out_len, 0);
	result_free(&r);
	r = RUN("lint", tmp("no-such.json"));
	expect(&r, 2, NULL, "no-such.json");
	result_free(&r);
	r = RUN("lint", tmp("clean.json"), tmp("clean.json"));
	expect(&r, 2, NULL, "one PROFILE");
	result_free(&r);
	r = RUN("compile", tmp("clean.json"), "-q", "-o", tmp("clean.bpf"));
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	r = RUN("lint", tmp("clean.bpf"));
	expect(&r, 2, NULL, "compiled filter");
	result_free(&r);
}

static double now_ms_test(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The packaged profiles lint in a moment under each runtime; what they
 * find is summarized, not pinned: the profiles change with their
 * packages. */
static void test_lint_packaged(void **state)
{
	(void)state;
	static const char *const names[] = { "docker-default.json", "podman-default.json" };
	static char *const runtimes[] = { "runc", "crun" };

	for (size_t i = 0; i < 2; i++)
		for (size_t k = 0; k < 2; k++) {
			double t0 = now_ms_test();
			struct result r = RUN("lint", policy(names[i]), "--runtime", runtimes[k]);
			double ms = now_ms_test() - t0;
			if (r.status != 0 && r.status != 1)
				fail_msg("%s: status %d\n%s", names[i], r.status, r.err);
			/* every finding names its origin */
			for (const char *l = r.out; *l; l = strchr(l, '\n') + 1) {
				if (strncmp(l, "syscalls[", 9) && strncmp(l, "(no rule names it)", 18))
					fail_msg("a finding without its origin: %.*s", (int)strcspn(l, "\n"), l);
				if (!strchr(l, '\n'))
					break;
			}
			const char *sum = strstr(r.err, " finding");
			assert_non_null(sum);
			print_message("%s (%s): %.*s; %.0f ms\n", names[i], runtimes[k],
				      (int)strcspn(strstr(r.err, ": ") + 2, "\n"), strstr(r.err, ": ") + 2, ms);
			result_free(&r);
		}
}

/* ------------------------------------------------------------------ --dot */

/* The graph's lines that match WHAT, counted. */
static unsigned count_lines(const char *text, const char *what)
{
	unsigned n = 0;
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *eol = strchr(l, '\n');
		const char *hit = strstr(l, what);
		n += hit && (!eol || hit < eol);
	}
	return n;
}

static void expect_graph(const char *text, const char *what)
{
	if (strncmp(text, "digraph scmpc {\n", 16) || !strstr(text, "\n}\n"))
		fail_msg("%s: not one digraph:\n%.400s", what, text);
	if (count_lines(text, "{") != count_lines(text, "}"))
		fail_msg("%s: unbalanced braces", what);
}

/* inspect --dot draws the program: the ABI tests, the number dispatch and
 * the argument tests by what they compare, each action as a leaf with the
 * numbers that reach it; --hot draws a workload's paths red, with counts;
 * -o writes the same graph to a file. */
static void test_inspect_dot(void **state)
{
	(void)state;
	struct result r;

	r = RUN("compile", policy("docker-default.json"), "-o", tmp("dot.bpf"), "--arch", "x86_64",
		"--kernel", "6.8", "-q");
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	r = RUN("inspect", "--dot", tmp("dot.bpf"));
	expect(&r, 0, NULL, NULL);
	expect_graph(r.out, "inspect --dot");
	for (const char *const *w = (const char *const[]){
		     "instructions\"", "arch == x86_64, x32", "arch == i386", "nr >= ",
		     "(personality)", "arg0.lo == ", "label=\"yes\"", "label=\"no\"",
		     "KILL_THREAD", "ALLOW", "ERRNO(1)", NULL };
	     *w; w++)
		if (!strstr(r.out, *w))
			fail_msg("inspect --dot lacks '%s':\n%.2000s", *w, r.out);
	/* no workload, nothing red */
	assert_null(strstr(r.out, "#d62728"));
	char *plain = strdup(r.out);
	result_free(&r);

	r = RUN("inspect", "--dot", tmp("dot.bpf"), "-o", tmp("dot.dot"));
	expect(&r, 0, NULL, NULL);
	assert_int_equal(r.out_len, 0);
	result_free(&r);
	char *file = read_file(tmp("dot.dot"), NULL);
	assert_non_null(file);
	assert_string_equal(file, plain);
	free(file);
	free(plain);
	/* Graphviz takes it, where it is installed */
	if (access("/usr/bin/dot", X_OK) == 0) {
		char cmd[4200];
		snprintf(cmd, sizeof(cmd), "/usr/bin/dot -Tsvg -o /dev/null '%s'", tmp("dot.dot"));
		assert_int_equal(system(cmd), 0);
	}

	/* One denied call: its leaf holds that number alone. */
	write_text(tmp("dot-uname.json"), DENY_ONE("uname"));
	r = RUN("compile", tmp("dot-uname.json"), "-o", tmp("dot-uname.bpf"), "--arch", "x86_64");
	expect(&r, 0, NULL, NULL);
	result_free(&r);
	r = RUN("inspect", "--dot", tmp("dot-uname.bpf"));
	expect(&r, 0, NULL, NULL);
	expect_graph(r.out, "inspect --dot (uname)");
	if (scmpc_arch_native() == SCMPC_ARCH_X86_64) {
		assert_non_null(strstr(r.out, "ERRNO(1)\\nnr 63 (uname)"));
		assert_non_null(strstr(r.out, "ALLOW\\nnr 0-0x3fffffff"));
	}
	result_free(&r);

	/* --hot: 100 reads and 7 unames take the x86_64 ABI test, the 7 end
	 * at uname's leaf. */
	write_text(tmp("dot-hot.txt"), "read 100\nuname 7\n");
	r = RUN("inspect", "--dot", "--hot", tmp("dot-hot.txt"), "-a", "x86_64",
		tmp("dot-uname.bpf"));
	expect(&r, 0, "red: the paths of 107 calls", NULL);
	expect_graph(r.out, "inspect --dot --hot");
	assert_true(count_lines(r.out, "xlabel=\"107\"") >= 1);
	assert_true(count_lines(r.out, "xlabel=\"7\"") >= 1);
	assert_true(count_lines(r.out, "xlabel=\"100\"") >= 1);
	const char *leaf = strstr(r.out, "ERRNO(1)\\nnr 63 (uname)");
	assert_non_null(leaf);
	const char *eol = strchr(leaf, '\n');
	assert_non_null(strstr(leaf, "#d62728"));
	assert_true(strstr(leaf, "#d62728") < eol);
	result_free(&r);

	/* --hot and -o draw, they do not apply to the listing */
	r = RUN("inspect", "--hot", tmp("dot-hot.txt"), tmp("dot.bpf"));
	expect(&r, 2, NULL, "--hot applies to inspect --dot");
	result_free(&r);
	r = RUN("inspect", "-o", tmp("x.txt"), tmp("dot.bpf"));
	expect(&r, 2, NULL, "-o applies to inspect --dot");
	result_free(&r);
	r = RUN("inspect", "--dot", "-f", "text", tmp("dot.bpf"));
	expect(&r, 2, NULL, "one or the other");
	result_free(&r);
	r = RUN("dump", "1", "--hot", tmp("dot-hot.txt"));
	expect(&r, 2, NULL, "--hot applies to dump --dot");
	result_free(&r);
}

/* dump --dot writes PID-N.dot beside each PID-N.bpf; inspect --pid --dot
 * draws the stack, one cluster per filter. */
static void test_dump_dot(void **state)
{
	(void)state;
	char pidstr[16], name[64];

	if (!unfiltered()) {
		print_message("skipped: the test runs under seccomp, and a filtered process "
			      "cannot read filters back\n");
		skip();
	}
	write_text(tmp("dot-outer.json"), DENY_ONE("uname"));
	write_text(tmp("dot-inner.json"), DENY_ONE("getcpu"));
	assert_int_equal(mkdir(tmp("dot-dump"), 0755), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(null, 1);
		execl(cli_path(), cli_path(), "exec", "-q", tmp("dot-outer.json"), "--", cli_path(),
		      "exec", "-q", tmp("dot-inner.json"), "--", "/bin/sleep", "10", (char *)NULL);
		_exit(127);
	}
	bool ready = wait_filtered(pid, "sleep", 2);
	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	struct result d = { 0 }, in = { 0 };
	if (ready) {
		d = RUN("dump", pidstr, "-o", tmp("dot-dump"), "--dot");
		in = RUN("inspect", "--pid", pidstr, "--dot");
	}
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	if (!ready)
		fail_msg("the nested exec did not reach sleep with 2 filters");
	if (d.status == 1 && (strstr(d.err, "CAP_SYS_ADMIN") || strstr(d.err, "not permitted"))) {
		print_message("skipped: %s", d.err);
		result_free(&d);
		result_free(&in);
		skip();
	}
	expect(&d, 0, "chain: 2 filters", NULL);
	const char *calls[2] = { "uname", "getcpu" };
	for (int i = 0; i < 2; i++) {
		char title[64], leaf[64];
		snprintf(name, sizeof(name), "dot-dump/%d-%d.dot", (int)pid, i);
		char *g = read_file(tmp(name), NULL);
		if (!g)
			fail_msg("%s was not written; stdout:\n%s", name, d.out);
		expect_graph(g, name);
		snprintf(title, sizeof(title), "process %d, filter %d: ", (int)pid, i);
		snprintf(leaf, sizeof(leaf), "(%s)", calls[i]);
		if (!strstr(g, title) || (scmpc_arch_native() == SCMPC_ARCH_X86_64 && !strstr(g, leaf)))
			fail_msg("%s lacks '%s' or '%s':\n%s", name, title, leaf, g);
		free(g);
	}
	result_free(&d);

	expect(&in, 0, NULL, NULL);
	expect_graph(in.out, "inspect --pid --dot");
	assert_non_null(strstr(in.out, "subgraph cluster_0 {"));
	assert_non_null(strstr(in.out, "subgraph cluster_1 {"));
	assert_non_null(strstr(in.out, "2 filters; the kernel runs every one"));
	assert_non_null(strstr(in.out, "filter 1 (newest)"));
	result_free(&in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_help_and_version),
		cmocka_unit_test(test_usage_errors),
		cmocka_unit_test(test_compile_packaged_profiles),
		cmocka_unit_test(test_compile_formats),
		cmocka_unit_test(test_failed_compile_keeps_old_output),
		cmocka_unit_test(test_malformed_json_position),
		cmocka_unit_test(test_warnings_and_strict),
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_explain_docker),
		cmocka_unit_test(test_exec_runc_programs),
		cmocka_unit_test(test_exec_listener),
		cmocka_unit_test(test_inspect),
		cmocka_unit_test(test_inspect_broken),
		cmocka_unit_test(test_inspect_dot),
		cmocka_unit_test(test_dump_dot),
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_diff_exact),
		cmocka_unit_test(test_canary),
		cmocka_unit_test(test_profile_tests),
		cmocka_unit_test(test_record_programs),
		cmocka_unit_test(test_record_merge),
		cmocka_unit_test(test_record_perf_trace),
		cmocka_unit_test(test_record_ptrace),
		cmocka_unit_test(test_examples),
		cmocka_unit_test(test_exec_runs_command),
		cmocka_unit_test(test_exec_denies),
		cmocka_unit_test(test_exec_refuses),
		cmocka_unit_test(test_exec_failures),
		cmocka_unit_test(test_keep_nnp_refused),
		cmocka_unit_test(test_caps_lists),
		cmocka_unit_test(test_dump),
		cmocka_unit_test(test_dump_errors),
		cmocka_unit_test(test_output_symlink),
		cmocka_unit_test(test_output_is_input),
		cmocka_unit_test(test_output_mode),
		cmocka_unit_test(test_output_devices),
		cmocka_unit_test(test_output_long_name),
		cmocka_unit_test(test_command_help),
		cmocka_unit_test(test_command_help_lists_accepted_options),
		cmocka_unit_test(test_command_usage_hint),
		cmocka_unit_test(test_optimize_libseccomp),
		cmocka_unit_test(test_optimize_refusals),
		cmocka_unit_test(test_optimize_never_grows),
		cmocka_unit_test(test_optimize_unfit),
		cmocka_unit_test(test_merge_files),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_merge_pid),
		cmocka_unit_test(test_explain_order),
		cmocka_unit_test(test_explain_attribution_fuzz),
		cmocka_unit_test(test_explain_negative_args),
		cmocka_unit_test(test_explain_bpf),
		cmocka_unit_test(test_explain_audit),
		cmocka_unit_test(test_explain_pid),
		cmocka_unit_test(test_lint),
		cmocka_unit_test(test_lint_packaged),
		cmocka_unit_test(test_warning_groups),
		cmocka_unit_test(test_progress_tty),
		cmocka_unit_test(test_intersect),
	};

	return cmocka_run_group_tests(tests, setup_tmp, teardown_tmp);
}

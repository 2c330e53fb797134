/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * scmp-compile record: a command's system calls into the smallest profile
 * that allows them (the library's scmpc_record() and
 * scmpc_recording_profile()), with the calls the chosen runtime itself
 * makes between installing the filter and exec'ing the command added
 * (tails.c: recorded from the runtimes, not guessed); or the calls read
 * from a trace (--from); or a profile checked against a recording (--check).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "common.h"

/* ------------------------------------------------------------ traces */

/* One argument of an strace line as a number: decimal, hex, a constant,
 * several joined by '|'; strings, structures and arrays are pointers and
 * read as 0.  False when a word is none of these. */
static bool trace_arg(const char *s, size_t n, uint64_t *out)
{
	*out = 0;
	while (n && (*s == ' '))
		s++, n--;
	if (!n || *s == '"' || *s == '{' || *s == '[' || !strncmp(s, "NULL", 4))
		return true;
	while (n) {
		size_t k = 0;
		while (k < n && s[k] != '|')
			k++;
		char word[96];
		if (k >= sizeof(word))
			return false;
		snprintf(word, sizeof(word), "%.*s", (int)k, s);
		char *rest;
		errno = 0;
		uint64_t v = word[0] == '-' ? (uint64_t)strtoll(word, &rest, 0) : strtoull(word, &rest, 0);
		/* a number with strace's comment after it ("0x2 / * SEEK_END * /")
		 * is the number */
		if ((errno || *rest) && !(rest != word && *rest == ' ') &&
		    !constant_value(word, strlen(word), &v))
			return false;
		*out |= v;
		s += k;
		n -= k;
		if (n)
			s++, n--;
	}
	return true;
}

/* The next argument of a call's text at *P (just past the opening
 * parenthesis, or past the previous argument): [*S, *S + *N), split at
 * commas outside strings and brackets; false past the closing
 * parenthesis or at the end of a cut line. */
static bool next_arg(const char **p, const char **s, size_t *n)
{
	const char *q = *p;
	int depth = 0;
	bool quoted = false;
	if (!q)
		return false;
	for (; *q; q++) {
		if (quoted) {
			if (*q == '\\' && q[1])
				q++;
			else if (*q == '"')
				quoted = false;
			continue;
		}
		if (*q == '"')
			quoted = true;
		else if (*q == '{' || *q == '[' || *q == '(' ||
			 /* what a descriptor names, "3</etc/passwd>" (not a shift) */
			 (*q == '<' && q > *p && q[-1] >= '0' && q[-1] <= '9' && q[1] != '<'))
			depth++;
		else if ((*q == '}' || *q == ']' || *q == ')' || *q == '>') && depth > 0)
			depth--;
		else if ((*q == ',' || *q == ')') && depth == 0) {
			*s = *p;
			*n = (size_t)(q - *p);
			/* "f()" has no argument, not one empty one */
			if (*q == ')' && *n == 0) {
				*p = NULL;
				return false;
			}
			*p = *q == ')' ? NULL : q + 1;
			return true;
		}
	}
	*p = NULL;
	return false;
}

/* ------------------------------------------------------- perf trace */

/* Each call's argument names, as perf trace prints them, in order: perf
 * leaves out the arguments that are zero, so a value is placed by its
 * name.  Sorted by name. */
static const struct perf_call {
	const char *name;
	const char *args[6];
} perf_calls[] = {
#include "perf-args.h"
};

/* The prefixes perf trace strips from the constants of a flag or an
 * enumeration argument ("dfd: CWD" is AT_FDCWD, "prot: READ|WRITE"), by
 * the argument's name and, where the name alone does not say, the
 * call's (NULL: any call). */
static const struct perf_prefix {
	const char *call, *arg, *prefix;
} perf_prefixes[] = {
	{ NULL, "dfd", "AT_FD" }, { NULL, "olddfd", "AT_FD" }, { NULL, "newdfd", "AT_FD" },
	{ NULL, "prot", "PROT_" }, { "mmap", "flags", "MAP_" },
	{ "open", "flags", "O_" }, { "openat", "flags", "O_" }, { "fcntl", "arg", "FD_" },
	{ "fcntl", "arg", "O_" },
	{ NULL, "family", "AF_" }, { "socket", "type", "SOCK_" }, { "socketpair", "type", "SOCK_" },
	{ NULL, "protocol", "IPPROTO_" },
	{ NULL, "clone_flags", "CLONE_" }, { NULL, "unshare_flags", "CLONE_" },
	{ "setns", "flags", "CLONE_" },
	{ "prctl", "option", "PR_" }, { "arch_prctl", "option", "ARCH_" },
	{ "fcntl", "cmd", "F_" }, { "flock", "cmd", "LOCK_" }, { "futex", "op", "FUTEX_" },
	{ "rt_sigprocmask", "how", "SIG_" }, { NULL, "sig", "SIG" },
	{ "madvise", "behavior", "MADV_" }, { "seccomp", "op", "SECCOMP_" },
	{ NULL, "level", "SOL_" }, { NULL, "level", "IPPROTO_" }, { NULL, "optname", "SO_" },
};

static int cmp_perf_call(const void *key, const void *elt)
{
	return strcmp(key, ((const struct perf_call *)elt)->name);
}

/* The position of argument KEY[0, N) of call NAME; -1 when unknown. */
static int perf_arg_index(const char *name, const char *key, size_t n)
{
	const struct perf_call *pc = bsearch(name, perf_calls, ARRAY_SIZE(perf_calls),
					     sizeof(perf_calls[0]), cmp_perf_call);
	for (int i = 0; pc && i < 6 && pc->args[i]; i++)
		if (strlen(pc->args[i]) == n && !strncmp(pc->args[i], key, n))
			return i;
	return -1;
}

/* One word of a perf trace value: a number, a constant by its full name
 * (TCGETS, MADV_DONTNEED), or by the name perf prints without the
 * argument's prefix (CWD for AT_FDCWD). */
static bool perf_word(const char *call, const char *arg, const char *w, size_t n, uint64_t *v)
{
	char word[96], *rest;
	if (!n || n >= sizeof(word) - 16)
		return false;
	snprintf(word, sizeof(word), "%.*s", (int)n, w);
	errno = 0;
	*v = word[0] == '-' ? (uint64_t)strtoll(word, &rest, 0) : strtoull(word, &rest, 0);
	if (!errno && rest != word && !*rest)
		return true;
	if (constant_value(word, n, v))
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(perf_prefixes); i++) {
		const struct perf_prefix *pp = &perf_prefixes[i];
		if (strcmp(pp->arg, arg) || (pp->call && strcmp(pp->call, call)))
			continue;
		char full[112];
		int len = snprintf(full, sizeof(full), "%s%s", pp->prefix, word);
		if (len > 0 && constant_value(full, (size_t)len, v))
			return true;
	}
	return false;
}

/* A perf trace value of argument ARG of CALL: words joined by '|'; a
 * number perf follows with what it names ("3</etc/passwd>", "1234
 * (comm)") is the number; strings and structures are pointers, read as 0
 * as strace's are.  False when a word is none of these. */
static bool perf_value(const char *call, const char *arg, const char *s, size_t n, uint64_t *out)
{
	*out = 0;
	while (n && s[0] == ' ')
		s++, n--;
	while (n && s[n - 1] == ' ')
		n--;
	if (!n || *s == '"' || *s == '{' || *s == '[' || (n == 4 && !strncmp(s, "NULL", 4)))
		return true;
	char num[32], *rest;
	size_t k = 0;
	while (k < n && k < sizeof(num) - 1 && s[k] != '<' && s[k] != ' ' && s[k] != '|')
		k++;
	if (k < n && (s[k] == '<' || s[k] == ' ')) {
		snprintf(num, sizeof(num), "%.*s", (int)k, s);
		errno = 0;
		*out = num[0] == '-' ? (uint64_t)strtoll(num, &rest, 0) : strtoull(num, &rest, 0);
		return !errno && rest != num && !*rest;
	}
	while (n) {
		for (k = 0; k < n && s[k] != '|'; k++)
			;
		uint64_t v;
		if (!perf_word(call, arg, s, k, &v))
			return false;
		*out |= v;
		s += k;
		n -= k;
		if (n)
			s++, n--;
	}
	return true;
}

/* The call of a perf trace line ("  0.123 ( 0.004 ms): ls/1234
 * openat(dfd: CWD, filename: 0x..., flags: RDONLY|CLOEXEC) = 3"): its
 * name's start and its opening parenthesis, or false for a line that is
 * not one (a header, a summary, "... [continued]: read())", whose call
 * was read where it began, another event). */
static bool perf_line(char *l, char **name, char **paren)
{
	char *s = l;
	while (*s == ' ')
		s++;
	if (!((*s >= '0' && *s <= '9') || *s == '?'))
		return false;
	while ((*s >= '0' && *s <= '9') || *s == '.' || *s == '?')
		s++;
	while (*s == ' ')
		s++;
	char *rest = *s == '(' ? strstr(s, "): ") : NULL;
	if (!rest || strstr(rest, "[continued]:"))
		return false;
	rest += 3;
	/* the command may hold spaces and parentheses: the call is the
	 * first name( preceded by a space */
	for (char *p = strchr(rest, '('); p; p = strchr(p + 1, '(')) {
		char *b = p;
		while (b > rest && ((b[-1] >= 'a' && b[-1] <= 'z') || (b[-1] >= '0' && b[-1] <= '9') ||
				    b[-1] == '_'))
			b--;
		if (b < p && b > rest && b[-1] == ' ') {
			*name = b;
			*paren = p;
			return true;
		}
	}
	return false;
}

/* The arguments of perf trace's call NAME from its text at P, by their
 * names; those perf left out are zero (it prints no zeros).
 * *UNDECODED counts the ones a profile could condition that could not be
 * read or placed. */
static void perf_args(const char *name, enum scmpc_arch a, uint32_t nr, const char *p,
		      uint64_t args[6], size_t *undecoded)
{
	unsigned cond = scmpc_profile_cond_args(a, nr);
	const char *s;
	size_t n;
	while (next_arg(&p, &s, &n)) {
		while (n && *s == ' ')
			s++, n--;
		const char *colon = memchr(s, ':', n);
		char key[64];
		if (!colon || (size_t)(colon - s) >= sizeof(key)) {
			/* trace.show_arg_names=no: no place without the zeros */
			*undecoded += cond != 0;
			continue;
		}
		snprintf(key, sizeof(key), "%.*s", (int)(colon - s), s);
		int i = perf_arg_index(name, key, (size_t)(colon - s));
		uint64_t v;
		bool ok = perf_value(name, key, colon + 1, n - (size_t)(colon + 1 - s), &v);
		if (i < 0) {
			*undecoded += cond != 0;
			continue;
		}
		args[i] = v;
		if (!ok && (cond & (1U << i)))
			(*undecoded)++;
	}
}

/* Add the calls of trace TEXT: --save's lines ("AUDIT NR A0 ... A5 COUNT",
 * hex), strace -f output ("[pid N] name(args) = ret") or perf trace
 * output ("0.123 ( 0.004 ms): comm/tid name(arg: value, ...) = ret"), the
 * native ABI's names; *UNDECODED counts arguments a profile could
 * condition that no number or constant could be made of. */
static int read_trace(char *text, scmpc_recording *rec, size_t *undecoded, size_t *lines)
{
	enum scmpc_arch a = native_arch();
	uint32_t audit = scmpc_arch_audit(a);
	for (char *l = text, *next; l && *l; l = next) {
		next = strchr(l, '\n');
		if (next)
			*next++ = '\0';
		uint64_t v[8];
		uint32_t au;
		if (sscanf(l, "%" SCNx32 " %" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64
			   " %" SCNx64 " %" SCNx64 " %" SCNu64, &au, &v[0], &v[1], &v[2], &v[3], &v[4],
			   &v[5], &v[6], &v[7]) == 9) {
			if (scmpc_recording_add(rec, au, (uint32_t)v[0], &v[1], v[7]) < 0)
				return -ENOMEM;
			(*lines)++;
			continue;
		}
		char name[64], *s = l, *paren;
		uint64_t args[6] = { 0 };
		bool perf = perf_line(l, &s, &paren);
		if (!perf) {
			/* strace: an optional "[pid N] " or "N " prefix, then name( */
			if (!strncmp(s, "[pid ", 5)) {
				s = strchr(s, ']');
				if (!s)
					continue;
				s++;
			} else {
				while (*s >= '0' && *s <= '9')
					s++;
			}
			while (*s == ' ')
				s++;
			paren = strchr(s, '(');
		}
		if (!paren || paren == s || (size_t)(paren - s) >= sizeof(name))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(paren - s), s);
		int64_t nr = scmpc_syscall_resolve(a, name);
		if (nr < 0)
			continue;	/* "+++ exited", signals, unknown names */
		unsigned cond = scmpc_profile_cond_args(a, (uint32_t)nr);
		const char *p = paren + 1, *as;
		size_t an;
		if (perf)
			perf_args(name, a, (uint32_t)nr, p, args, undecoded);
		else
			for (int k = 0; k < 6 && next_arg(&p, &as, &an); k++)
				if (!trace_arg(as, an, &args[k]) && (cond & (1U << k)))
					(*undecoded)++;
		if (scmpc_recording_add(rec, audit, (uint32_t)nr, args, 1) < 0)
			return -ENOMEM;
		(*lines)++;
	}
	return 0;
}

static int save_trace(const char *path, const scmpc_recording *rec)
{
	size_t n = scmpc_recording_count(rec), cap = n * 160 + 1, at = 0;
	char *buf = malloc(cap);
	if (!buf) {
		errorf("%s", strerror(ENOMEM));
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		struct seccomp_data sd;
		uint64_t count;
		if (scmpc_recording_get(rec, i, &sd, &count) < 0)
			continue;
		at += (size_t)snprintf(buf + at, cap - at,
				       "%" PRIx32 " %" PRIx32 " %" PRIx64 " %" PRIx64 " %" PRIx64
				       " %" PRIx64 " %" PRIx64 " %" PRIx64 " %" PRIu64 "\n",
				       sd.arch, (uint32_t)sd.nr, (uint64_t)sd.args[0],
				       (uint64_t)sd.args[1], (uint64_t)sd.args[2], (uint64_t)sd.args[3],
				       (uint64_t)sd.args[4], (uint64_t)sd.args[5], count);
	}
	int rc = write_output(path, buf, at);
	free(buf);
	return rc;
}

/* ------------------------------------------------------------- check */

/* --check: every call of the recording against PROFILE's program. */
static int run_check(struct cli *c)
{
	struct filter f;
	char *text = NULL;
	size_t size, undecoded = 0, lines = 0;
	scmpc_recording *rec = scmpc_recording_new();
	int status = EXIT_INPUT;

	memset(&f, 0, sizeof(f));
	if (c->npos != 1) {
		scmpc_recording_free(rec);
		return usage_error("record --check RECORDING needs the PROFILE to check");
	}
	if (!rec || read_input(c->check, &text, &size) ||
	    load_filter(c, c->pos[0], host_of(native_arch()), &f))
		goto out;
	if (read_trace(text, rec, &undecoded, &lines) < 0) {
		errorf("%s", strerror(ENOMEM));
		goto out;
	}
	size_t n = scmpc_recording_count(rec), bad = 0;
	for (size_t i = 0; i < n; i++) {
		struct seccomp_data sd;
		uint32_t ret;
		char name[64] = "?", act[32];
		if (scmpc_recording_get(rec, i, &sd, NULL) < 0 ||
		    scmpc_emulate(f.insns, f.len, &sd, &ret, NULL) < 0)
			continue;
		if (ret == SCMPC_ACT_ALLOW || ret == SCMPC_ACT_LOG)
			continue;
		if (!bad++) {
			for (int a = 1; a <= SCMPC_ARCH_COUNT; a++)
				if (scmpc_arch_audit((enum scmpc_arch)a) == sd.arch &&
				    scmpc_syscall_name((enum scmpc_arch)a, (uint32_t)sd.nr, name,
						       sizeof(name)))
					break;
			printf("%s does not allow %s (nr %d, args 0x%" PRIx64 ", 0x%" PRIx64
			       ", 0x%" PRIx64 "...): %s\n", f.name, name, sd.nr,
			       (uint64_t)sd.args[0], (uint64_t)sd.args[1], (uint64_t)sd.args[2],
			       action_name(ret, act, sizeof(act)));
		}
	}
	fprintf(stderr, "%s: %zu of %zu distinct recorded calls allowed%s\n", PROG_NAME, n - bad, n,
		bad ? "" : ": the profile runs the recording");
	status = bad ? EXIT_INPUT : EXIT_OK;
out:
	free(text);
	filter_free(&f);
	scmpc_recording_free(rec);
	return status;
}

/* ------------------------------------------------------------ record */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The command once without the recorder, for --overhead. */
static double plain_run(char *const argv[])
{
	double t0 = now_s();
	pid_t pid = fork();
	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	int st;
	while (pid > 0 && waitpid(pid, &st, 0) < 0)
		;
	return now_s() - t0;
}

/* --merge BASE: the union of BASE and REC, BASE read as the command
 * line reads a profile (--runtime, --restrictive, ...).  -EIO when BASE
 * could not be read (said here); else the library's answer. */
static int merge_profile(const struct cli *c, const scmpc_recording *rec,
			 const struct scmpc_profile_opts *po, char **json, size_t *jlen,
			 struct scmpc_profile_merge_info *mi, scmpc_diag *d)
{
	char *base = NULL;
	size_t blen;
	if (read_input(c->merge, &base, &blen))
		return -EIO;
	struct scmpc_json_opts jo = { .sz = sizeof(jo), .flavor = SCMPC_JSON_AUTO,
				      .flags = c->json_flags, .runtime = c->runtime,
				      .bad_arch_action = c->bad_arch, .arch = native_arch(),
				      .caps = (const char *const *)c->caps,
				      .kernel_major = c->kernel_major,
				      .kernel_minor = c->kernel_minor };
	int rc = scmpc_recording_merge_profile(rec, base, blen, &jo, po, json, jlen, mi, d);
	free(base);
	return rc;
}

static int run_record(struct cli *c)
{
	if (c->check)
		return run_check(c);
	scmpc_recording *rec = scmpc_recording_new();
	scmpc_diag *d = scmpc_diag_new();
	char *text = NULL, *json = NULL;
	size_t size, jlen = 0, nconds = 0;
	int status = EXIT_INPUT;
	struct scmpc_record_info info = { .sz = sizeof(info), .method = "" };

	if (!rec || !d) {
		errorf("%s", strerror(ENOMEM));
		goto out;
	}
	if (c->merge && c->default_action) {
		status = usage_error("record --merge BASE keeps BASE's default action: no --default");
		goto out;
	}
	if (c->from) {
		size_t undecoded = 0, lines = 0;
		if (c->npos) {
			status = usage_error("record --from FILE takes no command");
			goto out;
		}
		if (read_input(c->from, &text, &size))
			goto out;
		if (read_trace(text, rec, &undecoded, &lines) < 0) {
			errorf("%s", strerror(ENOMEM));
			goto out;
		}
		if (undecoded && c->args_auto) {
			/* an argument read wrong would make a condition wrong */
			errorf("warning: %zu arguments of %s that a condition would compare are "
			       "neither numbers nor known constants (record with strace -e "
			       "raw=all): --args none taken",
			       undecoded, display_name(c->from));
			c->args_auto = false;
		}
		info.method = "a trace file";
		info.calls = lines;
	} else {
		if (!c->npos) {
			status = usage_error("record needs a command: record [OPTIONS] -- CMD [ARG...]");
			goto out;
		}
		struct scmpc_record_opts ro = { .sz = sizeof(ro),
						.flags = (c->tail ? SCMPC_RECORD_TAIL : 0) | c->via };
		int rc = scmpc_record(c->pos, &ro, rec, &info, d);
		if (rc < 0) {
			report_diag("record", d, rc);
			goto out;
		}
		if (WIFEXITED(info.status) && WEXITSTATUS(info.status) == 127)
			errorf("warning: %s exited 127: was it found?", c->pos[0]);
	}
	if (!c->tail && runtime_tail(c, rec) < 0) {
		errorf("%s", strerror(ENOMEM));
		goto out;
	}
	if (c->save && save_trace(c->save, rec))
		goto out;
	struct scmpc_profile_opts po = { .sz = sizeof(po), .default_action = c->default_action,
					 .flags = c->args_auto ? SCMPC_PROFILE_ARGS : 0 };
	struct scmpc_profile_merge_info mi = { .sz = sizeof(mi) };
	int rc = c->merge ? merge_profile(c, rec, &po, &json, &jlen, &mi, d)
			  : scmpc_recording_profile(rec, &po, &json, &jlen, &nconds, d);
	if (rc == -EIO)
		goto out;	/* BASE could not be read: said */
	if (rc < 0) {
		report_diag(c->merge ? display_name(c->merge) : "record", d, rc);
		goto out;
	}
	if (c->merge)
		nconds = mi.nconds;
	report_warnings("record", d, c->quiet);
	if (write_output(c->output, json, jlen))
		goto out;
	FILE *fo = c->output && strcmp(c->output, "-") ? stdout : stderr;
	fprintf(fo, "recorded %" PRIu64 " calls by %s: %zu distinct (ABI, number, arguments), "
		"%zu argument conditions chosen%s\n", info.calls, info.method,
		scmpc_recording_count(rec), nconds,
		scmpc_recording_truncated(rec) ? " (arguments past a million vectors dropped)" : "");
	if (!c->from) {
		fprintf(fo, "the command took %.3f s under the recorder", info.seconds);
		if (c->overhead) {
			double plain = plain_run(c->pos);
			fprintf(fo, ", %.3f s without (%.1fx)", plain,
				plain > 0 ? info.seconds / plain : 0.0);
		}
		fprintf(fo, "; it %s\n", WIFEXITED(info.status) ? "exited" : "was killed by a signal");
	}
	if (c->merge)
		fprintf(fo, "merged into %s: %zu distinct calls it allowed already, %zu added in "
			"%zu rules\n", display_name(c->merge), mi.allowed, mi.added, mi.rules);
	status = EXIT_OK;
out:
	free(text);
	free(json);
	scmpc_recording_free(rec);
	scmpc_diag_free(d);
	return status;
}

const struct command record_command = {
	"record", run_record, F_OUTPUT | F_RUNTIME | F_RECORD | F_QUIET | F_POLICY,
	"Usage: " PROG_NAME " record [-o PROFILE.json] [--runtime RT] [--args auto|none]\n"
	"                           [--default ACT|--merge BASE] [--save FILE] [--tail]\n"
	"                           [--overhead] [--via ptrace|notify]\n"
	"                           -- CMD [ARG...]\n"
	"       " PROG_NAME " record --from TRACE [-o PROFILE.json] [--args auto|none] ...\n"
	"       " PROG_NAME " record --check RECORDING PROFILE\n",
	"Run CMD, its threads and children under a recorder that lets every system\n"
	"call through (seccomp user notification, or ptrace where that is unavailable\n"
	"or with --via ptrace) and write the smallest OCI profile\n"
	"that allows exactly the calls made, on the ABIs they were made on; with\n"
	"--runtime RT (runc, runc-1.1, crun or exec) the calls that runtime itself\n"
	"makes between installing the filter and exec'ing the command are added, so\n"
	"the profile starts under it.  --from reads calls from an strace -f trace\n"
	"(raw arguments: -e raw=all), perf trace output or a --save file instead.\n"
	"--check says whether PROFILE allows every call of a recording, naming the\n"
	"first it does not.\n"
	"--merge BASE writes BASE with rules added for the recorded calls it does\n"
	"not allow, proven to allow them and everything BASE allows.\n",
	"Exit status: 0 success, 1 the command could not be recorded or a call is\n"
	"not allowed (--check), 2 usage error.\n",
};

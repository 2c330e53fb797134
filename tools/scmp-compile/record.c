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

/* Add the calls of trace TEXT: --save's lines ("AUDIT NR A0 ... A5 COUNT",
 * hex) or strace -f output ("[pid N] name(args) = ret", the native ABI's
 * names); *UNDECODED counts arguments no number or constant could be made
 * of. */
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
		/* strace: an optional "[pid N] " or "N " prefix, then name( */
		char *s = l;
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
		char *paren = strchr(s, '(');
		if (!paren || paren == s)
			continue;
		char name[64];
		if ((size_t)(paren - s) >= sizeof(name))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(paren - s), s);
		int64_t nr = scmpc_syscall_resolve(a, name);
		if (nr < 0)
			continue;	/* "+++ exited", signals, unknown names */
		/* split the arguments at top-level commas */
		uint64_t args[6] = { 0 };
		const char *p = paren + 1, *start = p;
		int depth = 0, k = 0;
		bool quoted = false;
		for (; *p && k < 6; p++) {
			if (quoted) {
				if (*p == '\\' && p[1])
					p++;
				else if (*p == '"')
					quoted = false;
				continue;
			}
			if (*p == '"')
				quoted = true;
			else if (*p == '{' || *p == '[' || *p == '(')
				depth++;
			else if ((*p == '}' || *p == ']' || *p == ')') && depth > 0)
				depth--;
			else if ((*p == ',' || *p == ')') && depth == 0) {
				if (!trace_arg(start, (size_t)(p - start), &args[k]))
					(*undecoded)++;
				k++;
				start = p + 1;
				if (*p == ')')
					break;
			}
		}
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
			errorf("warning: %zu arguments of %s are neither numbers nor known "
			       "constants (record with strace -e raw=all): --args none taken",
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
						.flags = c->tail ? SCMPC_RECORD_TAIL : 0 };
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
	"                           [--overhead]\n"
	"                           -- CMD [ARG...]\n"
	"       " PROG_NAME " record --from TRACE [-o PROFILE.json] [--args auto|none] ...\n"
	"       " PROG_NAME " record --check RECORDING PROFILE\n",
	"Run CMD, its threads and children under a recorder that lets every system\n"
	"call through (seccomp user notification) and write the smallest OCI profile\n"
	"that allows exactly the calls made, on the ABIs they were made on; with\n"
	"--runtime RT (runc, runc-1.1, crun or exec) the calls that runtime itself\n"
	"makes between installing the filter and exec'ing the command are added, so\n"
	"the profile starts under it.  --from reads calls from an strace -f trace\n"
	"(raw arguments: -e raw=all) or a --save file instead.  --check says whether\n"
	"PROFILE allows every call of a recording, naming the first it does not.\n"
	"--merge BASE writes BASE with rules added for the recorded calls it does\n"
	"not allow, proven to allow them and everything BASE allows.\n",
	"Exit status: 0 success, 1 the command could not be recorded or a call is\n"
	"not allowed (--check), 2 usage error.\n",
};

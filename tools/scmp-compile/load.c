/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* scmp-compile: a policy (compiled here) or a .bpf file as the program the
 * subcommands examine, and runs of it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

void filter_free(struct filter *f)
{
	scmpc_policy_free(f->policy);
	scmpc_prog_free(f->prog);
	free(f->raw);
	memset(f, 0, sizeof(*f));
}

int load_policy_text(const struct cli *c, const char *name, const char *text, size_t len,
		     enum scmpc_arch target, scmpc_policy **out)
{
	struct scmpc_json_opts o;
	char **podman;
	scmpc_diag *d;
	int rc;

	/* The library can only say what the bytes are; which command takes
	 * them is for the CLI to say. */
	if (scmpc_input_kind(text, len) == SCMPC_INPUT_FILTER) {
		errorf("%s: not a JSON policy (it looks like a compiled filter: use 'inspect')", name);
		*out = NULL;
		return -1;
	}
	if (!(d = scmpc_diag_new())) {
		errorf("%s", strerror(ENOMEM));
		return -1;
	}
	memset(&o, 0, sizeof(o));
	o.sz = sizeof(o);
	o.flavor = SCMPC_JSON_AUTO;
	o.flags = c->json_flags;
	o.runtime = c->runtime;
	o.bad_arch_action = c->bad_arch;
	o.arch = target;
	json_caps_opts(c, &o, &podman);
	o.kernel_major = c->kernel_major;
	o.kernel_minor = c->kernel_minor;
	rc = scmpc_policy_from_json(text, len, &o, out, d);
	free(podman);
	report_warnings(name, d, c->quiet);
	if (rc < 0) {
		report_diag(name, d, rc);
		*out = NULL;
	}
	scmpc_diag_free(d);
	return rc < 0 ? -1 : 0;
}

/* The library says when a stack of programs would fit; the CLI, how to
 * get one. */
static void split_pointer(const scmpc_diag *d, int rc)
{
	if (rc == -E2BIG && strstr(scmpc_diag_message(d), "scmpc_compile_split"))
		errorf("hint: 'compile --split -o PREFIX' writes those programs as PREFIX-1.bpf, "
		       "PREFIX-2.bpf, ...; 'exec --split' installs them");
}

int compile_policy(const char *name, const scmpc_policy *p, unsigned flags, scmpc_prog **out)
{
	struct cli_progress pr;
	struct scmpc_compile_opts o = { .sz = sizeof(o), .flags = flags, .progress = &pr.pr };
	scmpc_diag *d = scmpc_diag_new();
	int rc;

	if (!d) {
		errorf("%s", strerror(ENOMEM));
		return -1;
	}
	progress_start(&pr, quiet_progress);
	rc = scmpc_compile(p, &o, out, d);
	progress_end(&pr);
	if (rc < 0) {
		report_diag(name, d, rc);
		split_pointer(d, rc);
		*out = NULL;
	}
	scmpc_diag_free(d);
	return rc < 0 ? -1 : 0;
}

/* Check a raw program against the kernel's rules, printing every problem:
 * after each one the offending instruction is replaced by a harmless one so
 * the check can go on.  Returns the number of problems, or -1. */
static int verify_all(const char *name, const struct sock_filter *insns, size_t len)
{
	struct sock_filter *work;
	scmpc_diag *d = scmpc_diag_new();
	bool *patched;
	int problems = 0;

	work = malloc((len ? len : 1) * sizeof(*work));
	patched = calloc(len ? len : 1, sizeof(*patched));
	if (!d || !work || !patched) {
		errorf("%s", strerror(ENOMEM));
		problems = -1;
		goto out;
	}
	if (len)
		memcpy(work, insns, len * sizeof(*work));
	for (;;) {
		scmpc_diag_clear(d);
		int rc = scmpc_verify_insns(work, len, d);
		if (rc >= 0)
			break;
		problems++;
		report_diag(name, d, rc);
		long at = scmpc_diag_insn(d);
		if (at < 0 || (size_t)at >= len || patched[at])
			break;
		patched[at] = true;
		work[at] = (size_t)at == len - 1 ? (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0)
						  : (struct sock_filter)BPF_STMT(BPF_LD | BPF_IMM, 0);
	}
out:
	free(work);
	free(patched);
	scmpc_diag_free(d);
	return problems;
}

int load_raw(const char *name, const char *buf, size_t size, struct filter *f)
{
	int problems;

	if (size % sizeof(struct sock_filter)) {
		errorf("%s: size %zu is not a multiple of %zu (struct sock_filter)", name, size,
		       sizeof(struct sock_filter));
		return -1;
	}
	f->len = size / sizeof(struct sock_filter);
	f->raw = malloc(size ? size : 1);
	if (!f->raw) {
		errorf("%s", strerror(ENOMEM));
		return -1;
	}
	/* The library reads either byte order (a .bpf written for a
	 * big-endian target is byte-swapped on a little-endian host). */
	scmpc_prog *prog = NULL;
	if (size && scmpc_prog_from_bytes(buf, size, &prog, NULL) == 0) {
		memcpy(f->raw, scmpc_prog_insns(prog), size);
		scmpc_prog_free(prog);
	} else {
		memcpy(f->raw, buf, size);
	}
	f->insns = f->raw;
	problems = verify_all(name, f->raw, f->len);
	if (problems) {
		if (problems > 0)
			errorf("%s: rejected by the kernel's rules (%d problem%s)", name, problems,
			       problems == 1 ? "" : "s");
		return -1;
	}
	return 0;
}

int load_filter(const struct cli *c, const char *path, enum scmpc_arch target, struct filter *f)
{
	char *buf;
	size_t len;
	int rc;

	memset(f, 0, sizeof(*f));
	f->name = display_name(path);
	if (read_input(path, &buf, &len))
		return -1;
	/* Text in UTF-16 or UTF-32 is a policy saved in the wrong encoding:
	 * the JSON front end says so, where the .bpf reader would not. */
	enum scmpc_input_kind kind = scmpc_input_kind(buf, len);
	if (kind == SCMPC_INPUT_JSON || kind == SCMPC_INPUT_WIDE_TEXT) {
		rc = load_policy_text(c, f->name, buf, len, target, &f->policy);
		if (!rc)
			rc = compile_policy(f->name, f->policy, 0, &f->prog);
		if (!rc) {
			f->insns = scmpc_prog_insns(f->prog);
			f->len = scmpc_prog_len(f->prog);
		}
	} else {
		rc = load_raw(f->name, buf, len, f);
	}
	free(buf);
	return rc;
}

void make_data(struct seccomp_data *sd, enum scmpc_arch a, uint32_t nr, const uint64_t *args)
{
	memset(sd, 0, sizeof(*sd));
	sd->nr = (int)nr;
	sd->arch = scmpc_arch_audit(a);
	if (args)
		memcpy(sd->args, args, sizeof(sd->args));
}

int filter_run(const struct filter *f, enum scmpc_arch a, uint32_t nr, const uint64_t *args,
	       uint32_t *ret)
{
	struct seccomp_data sd;

	make_data(&sd, a, nr, args);
	return scmpc_emulate(f->insns, f->len, &sd, ret, NULL);
}

int filter_arg_use(const struct filter *f, enum scmpc_arch a, uint32_t nr,
		   struct scmpc_arg_use *out)
{
	struct seccomp_data sd;

	make_data(&sd, a, nr, NULL);
	memset(out, 0, sizeof(*out));
	out->sz = sizeof(*out);
	return scmpc_prog_arg_use(f->insns, f->len, &sd, out, NULL);
}

/* ---- sets of programs (--split) */

void filter_set_free(struct filter_set *s)
{
	scmpc_policy_free(s->policy);
	scmpc_prog_array_free(s->progs, s->n);
	memset(s, 0, sizeof(*s));
}

int compile_policy_split(const char *name, const scmpc_policy *p, bool quiet,
			 const scmpc_workload *hot, unsigned flags, scmpc_prog ***out, size_t *n)
{
	SCMPC_OPTS(scmpc_split_opts, o, .flags = flags, .hot = hot);
	scmpc_diag *d = scmpc_diag_new();
	int rc;

	*out = NULL;
	*n = 0;
	if (!d) {
		errorf("%s", strerror(ENOMEM));
		return -1;
	}
	struct cli_progress pr;
	progress_start(&pr, quiet);
	o.progress = &pr.pr;
	rc = scmpc_compile_split(p, &o, out, d);
	progress_end(&pr);
	/* the pieces' warnings are the policy's, said once by the parser or
	 * here: only what the split itself adds (the chain budget) is new */
	report_warnings(name, d, quiet);
	if (rc < 0)
		report_diag(name, d, rc);
	else
		*n = (size_t)rc;
	scmpc_diag_free(d);
	return rc < 0 ? -1 : 0;
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* PREFIX-1.bpf, PREFIX-2.bpf, ... until one is missing. */
static int load_numbered(const char *prefix, struct filter_set *s)
{
	size_t cap = 0;

	for (size_t i = 1;; i++) {
		char path[4096];
		char *buf;
		size_t len;
		struct filter f;
		scmpc_prog *prog = NULL;

		if ((size_t)snprintf(path, sizeof(path), "%s-%zu.bpf", prefix, i) >= sizeof(path)) {
			errorf("%s: name too long", prefix);
			return -1;
		}
		if (access(path, F_OK) < 0 && errno == ENOENT && i > 1)
			return 0;
		if (read_input(path, &buf, &len))
			return -1;
		memset(&f, 0, sizeof(f));
		int rc = load_raw(display_name(path), buf, len, &f);
		free(buf);
		if (!rc && scmpc_prog_new(f.insns, f.len, &prog, NULL) < 0) {
			errorf("%s: %s", path, strerror(ENOMEM));
			rc = -1;
		}
		filter_free(&f);
		if (rc)
			return -1;
		if (s->n == cap) {
			size_t nc = cap ? 2 * cap : 8;
			scmpc_prog **np = realloc(s->progs, nc * sizeof(*np));
			if (!np) {
				scmpc_prog_free(prog);
				errorf("%s", strerror(ENOMEM));
				return -1;
			}
			s->progs = np;
			cap = nc;
		}
		s->progs[s->n++] = prog;
	}
}

int load_filter_set(const struct cli *c, const char *path, enum scmpc_arch target,
		    struct filter_set *s)
{
	memset(s, 0, sizeof(*s));
	s->name = display_name(path);
	if (has_suffix(path, "-1.bpf")) {
		char prefix[4096];
		snprintf(prefix, sizeof(prefix), "%.*s", (int)(strlen(path) - 6), path);
		return load_numbered(prefix, s);
	}
	if (strcmp(path, "-") && access(path, F_OK) < 0)
		return load_numbered(path, s);

	char *buf;
	size_t len;
	int rc;
	if (read_input(path, &buf, &len))
		return -1;
	enum scmpc_input_kind kind = scmpc_input_kind(buf, len);
	if (kind == SCMPC_INPUT_JSON || kind == SCMPC_INPUT_WIDE_TEXT) {
		rc = load_policy_text(c, s->name, buf, len, target, &s->policy);
		if (!rc)
			rc = compile_policy_split(s->name, s->policy, c->quiet, NULL, 0, &s->progs,
						  &s->n);
	} else {
		/* one .bpf: a set of one */
		struct filter f;
		memset(&f, 0, sizeof(f));
		rc = load_raw(s->name, buf, len, &f);
		if (!rc && (!(s->progs = calloc(1, sizeof(*s->progs))) ||
			    scmpc_prog_new(f.insns, f.len, &s->progs[0], NULL) < 0)) {
			errorf("%s: %s", s->name, strerror(ENOMEM));
			rc = -1;
		}
		if (!rc)
			s->n = 1;
		filter_free(&f);
	}
	free(buf);
	return rc;
}

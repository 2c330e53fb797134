/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* scmp-compile: a policy (compiled here) or a .bpf file as the program the
 * subcommands examine, and runs of it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
	o.caps = (const char *const *)c->caps;
	o.kernel_major = c->kernel_major;
	o.kernel_minor = c->kernel_minor;
	/* Editors on Windows start UTF-8 files with a byte order mark, which
	 * JSON forbids but users cannot see. */
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) {
		text += 3;
		len -= 3;
	}
	rc = scmpc_policy_from_json(text, len, &o, out, d);
	report_warnings(name, d, c->quiet);
	if (rc < 0) {
		report_diag(name, d, rc);
		*out = NULL;
	}
	scmpc_diag_free(d);
	return rc < 0 ? -1 : 0;
}

int compile_policy(const char *name, const scmpc_policy *p, scmpc_prog **out)
{
	struct scmpc_compile_opts o = { .sz = sizeof(o), .flags = 0 };
	scmpc_diag *d = scmpc_diag_new();
	int rc;

	if (!d) {
		errorf("%s", strerror(ENOMEM));
		return -1;
	}
	rc = scmpc_compile(p, &o, out, d);
	if (rc < 0) {
		report_diag(name, d, rc);
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
			rc = compile_policy(f->name, f->policy, &f->prog);
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

/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* scmp-compile compile: a policy to a verified program, written as .bpf,
 * C or text, with its figures on request. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static void print_stats(FILE *out, const struct cli *c, const scmpc_policy *p,
			const scmpc_prog *prog, double parse_ms)
{
	struct scmpc_argsys_stats as[1024];	/* one per probed number at most */
	struct scmpc_stats_opts so;
	scmpc_diag *d = scmpc_diag_new();
	size_t len = scmpc_prog_len(prog), elen = scmpc_prog_ebpf_len(prog);
	size_t n = scmpc_policy_arch_count(p);

	memset(&so, 0, sizeof(so));
	so.sz = sizeof(so);
	so.cache.sz = sizeof(so.cache);
	if (c->seen & F_KERNEL)
		so.cache.kernel_version = SCMPC_KERNEL_VERSION(c->kernel_major, c->kernel_minor, 0);
	/* How many filters of this size one task can stack: the kernel's
	 * 32768-instruction path budget counts eBPF plus 4 per filter. */
	size_t fit = elen && elen <= 32768 ? (32768 - elen) / (elen + 4) + 1 : 0;
	fprintf(out, "instructions: %zu cBPF, %zu eBPF predicted (%zu such filters fit in a chain)\n",
		len, elen, fit);
	for (size_t i = 0; i < n; i++) {
		struct scmpc_arch_stats st = { .sz = sizeof(st), .argsys = as,
					       .argsys_cap = ARRAY_SIZE(as) };
		const struct scmpc_arch_stats *s = &st;
		int err = d ? scmpc_stats(p, scmpc_prog_insns(prog), len, i, &so, &st, d) : -ENOMEM;
		if (err < 0) {
			fflush(out);
			report_diag("stats", d, err);
			break;
		}
		const char *an = scmpc_arch_name(s->arch);

		fprintf(out, "%s: path over %u argument-free numbers: worst %u, mean %.2f\n", an,
			s->nr_probed, s->worst_path, s->mean_path);
		if (s->nargsys) {
			fprintf(out, "%s: worst path of argument-checked syscalls:", an);
			for (size_t k = 0; k < s->nargsys && k < s->argsys_cap; k++) {
				char name[64];

				if (!scmpc_syscall_name(s->arch, s->argsys[k].nr, name, sizeof(name)))
					fmt_u64(s->argsys[k].nr, name, sizeof(name));
				fprintf(out, "%s %s %u", k ? "," : "", name, s->argsys[k].worst_path);
			}
			fputc('\n', out);
		}
		if (!kernel_has_cache(c))
			fprintf(out, "%s: none cacheable (" NO_CACHE_NOTE ")\n", an);
		else if (abi_info(s->arch).cached)
			fprintf(out, "%s: %u of %u argument-independent allows cacheable\n", an,
				s->cacheable, s->allow_unconditional);
		else
			fprintf(out, "%s: none cacheable (the kernel never caches x32 calls)\n", an);
	}
	fprintf(out, "compile time: %.3f ms (JSON parsing %.3f ms)\n",
		(double)scmpc_prog_compile_ns(prog) / 1e6, parse_ms);
	scmpc_diag_free(d);
}

/* compile --hot: P compiled for the workload. */
static int compile_hot(const struct cli *c, const char *name, const scmpc_policy *p,
		       scmpc_prog **out)
{
	scmpc_workload *w = read_workload_file(c->hot, c->arch, c->quiet);
	scmpc_diag *d = NULL;
	int rc = -1;

	*out = NULL;
	if (!w)
		return -1;
	if (!(d = scmpc_diag_new())) {
		errorf("%s", strerror(ENOMEM));
		goto out;
	}
	struct cli_progress pr;
	progress_start(&pr, c->quiet);
	SCMPC_OPTS(scmpc_compile_opts, co, .hot = w, .flags = c->layout, .progress = &pr.pr);
	rc = scmpc_compile(p, &co, out, d);
	progress_end(&pr);
	if (rc < 0)
		report_diag(name, d, rc);
out:
	scmpc_workload_free(w);
	scmpc_diag_free(d);
	return rc < 0 ? -1 : 0;
}

/* compile --split: the programs as PREFIX-1.bpf ... PREFIX-N.bpf, and no
 * PREFIX-K.bpf of an earlier, longer split left past them, which exec
 * --split would install as one of the set. */
static int compile_split(const struct cli *c, const char *name, const scmpc_policy *p)
{
	const char *prefix = c->output;
	scmpc_prog **progs = NULL;
	size_t n = 0, total = 0;
	scmpc_diag *d = NULL;
	int status = EXIT_INPUT;
	char path[4096];

	scmpc_workload *w = c->hot ? read_workload_file(c->hot, c->arch, c->quiet) : NULL;
	if (c->hot && !w)
		return EXIT_INPUT;
	int split_rc = compile_policy_split(name, p, c->quiet, w, c->layout, &progs, &n);
	scmpc_workload_free(w);
	if (split_rc)
		return EXIT_INPUT;
	struct scmpc_format_opts fo;
	memset(&fo, 0, sizeof(fo));
	fo.sz = sizeof(fo);
	fo.arch = c->arch != SCMPC_ARCH_NONE ? c->arch
		: scmpc_policy_arch_count(p) ? scmpc_policy_arch(p, 0) : SCMPC_ARCH_NONE;
	if (!(d = scmpc_diag_new())) {
		errorf("%s", strerror(ENOMEM));
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		char *bytes = NULL;
		size_t len;
		int rc = scmpc_format(scmpc_prog_insns(progs[i]), scmpc_prog_len(progs[i]),
				      SCMPC_FORMAT_BPF, &fo, &bytes, &len, d);
		if (rc < 0) {
			report_diag(name, d, rc);
			goto out;
		}
		snprintf(path, sizeof(path), "%s-%zu.bpf", prefix, i + 1);
		rc = write_output(path, bytes, len);
		free(bytes);
		if (rc)
			goto out;
	}
	for (size_t k = n + 1;; k++) {
		snprintf(path, sizeof(path), "%s-%zu.bpf", prefix, k);
		if (unlink(path) == 0) {
			if (!c->quiet)
				errorf("%s: removed %s, left from an earlier split", name, path);
			continue;
		}
		if (errno == ENOENT)
			break;
		errorf("%s: %s is left from an earlier split and cannot be removed (%s): "
		       "exec --split would install it with the others", name, path, strerror(errno));
		goto out;
	}
	if (c->stats) {
		for (size_t i = 0; i < n; i++) {
			printf("%s-%zu.bpf: %zu cBPF instructions, %zu eBPF\n", prefix, i + 1,
			       scmpc_prog_len(progs[i]), scmpc_prog_ebpf_len(progs[i]));
			total += scmpc_prog_ebpf_len(progs[i]) + 4;
		}
		printf("%zu program%s, %zu of the chain's 32768 (eBPF + 4 each)\n", n,
		       n == 1 ? "" : "s", total);
	}
	status = EXIT_OK;
out:
	scmpc_diag_free(d);
	scmpc_prog_array_free(progs, n);
	return status;
}

static int run_compile(struct cli *c)
{
	const char *out = c->output;
	bool to_file = out && strcmp(out, "-");
	int format = c->format;
	char *text = NULL, *rendered = NULL;
	size_t text_len, rendered_len;
	scmpc_policy *p = NULL;
	scmpc_prog *prog = NULL;
	scmpc_diag *d = NULL;

	if (format == FORMAT_OCI)
		return usage_error("--format oci applies to intersect only");
	int status = EXIT_INPUT;
	const char *name;
	double t0;

	if (c->npos != 1)
		return usage_error(c->npos ? "compile takes one POLICY" : "compile needs a POLICY");
	name = display_name(c->pos[0]);
	if (format < 0) {
		format = SCMPC_FORMAT_TEXT;
		if (to_file && ends_with(out, ".bpf"))
			format = SCMPC_FORMAT_BPF;
		else if (to_file && (ends_with(out, ".c") || ends_with(out, ".h")))
			format = SCMPC_FORMAT_C;
	}
	if (format == SCMPC_FORMAT_BPF && !to_file && isatty(STDOUT_FILENO))
		return usage_error("refusing to write binary BPF to a terminal; use -o FILE");
	if ((c->seen & F_NAME) && format != SCMPC_FORMAT_C)
		return usage_error("--name applies to --format c only");
	if (c->split && (!to_file || ((c->seen & F_FORMAT) && c->format != SCMPC_FORMAT_BPF)))
		return usage_error("--split writes .bpf files: -o PREFIX gives PREFIX-1.bpf, ...");

	if (read_input(c->pos[0], &text, &text_len))
		goto out;
	t0 = now_ms();
	if (load_policy_text(c, name, text, text_len, c->arch, &p))
		goto out;
	double parse_ms = now_ms() - t0;
	if (c->split) {
		status = compile_split(c, name, p);
		goto out;
	}
	if (c->hot ? compile_hot(c, name, p, &prog) : compile_policy(name, p, c->layout, &prog))
		goto out;

	struct scmpc_format_opts fo;
	memset(&fo, 0, sizeof(fo));
	fo.sz = sizeof(fo);
	fo.c_name = c->c_name;
	fo.arch = c->arch != SCMPC_ARCH_NONE ? c->arch
		: scmpc_policy_arch_count(p) ? scmpc_policy_arch(p, 0) : SCMPC_ARCH_NONE;
	d = scmpc_diag_new();
	int rc = d ? scmpc_format(scmpc_prog_insns(prog), scmpc_prog_len(prog),
				  (enum scmpc_format)format, &fo, &rendered, &rendered_len, d)
		   : -ENOMEM;
	if (rc < 0) {
		report_diag(name, d, rc);
		goto out;
	}
	if (write_output(out, rendered, rendered_len))
		goto out;
	if (c->stats)
		print_stats(to_file ? stdout : stderr, c, p, prog, parse_ms);
	status = EXIT_OK;
out:
	free(text);
	free(rendered);
	scmpc_diag_free(d);
	scmpc_prog_free(prog);
	scmpc_policy_free(p);
	return status;
}

const struct command compile_command = {
	"compile", run_compile,
	F_OUTPUT | F_FORMAT | F_ARCH | F_POLICY | F_STATS | F_NAME | F_HOT | F_SPLIT | F_LAYOUT,
	"Usage: " PROG_NAME " compile POLICY [-o FILE] [-f bpf|c|text] [-a ABI] [--stats]\n"
	"                            [--caps LIST] [--kernel X.Y] [--strict]\n"
	"                            [--no-enosys] [--restrictive] [--runtime RT]\n"
	"                            [--bad-arch ACT] [--name NAME] [--hot FILE]\n"
	"                            [--layout size|path] [-q]\n"
	"       " PROG_NAME " compile --split POLICY -o PREFIX [POLICY OPTIONS] [--stats]\n",
	"Parse POLICY (an OCI, Docker or Podman seccomp profile; '-' for standard\n"
	"input), compile it into classic BPF, check the program against the kernel's\n"
	"rules and against the policy, and write it.\n",
	EXIT_HELP,
};

/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* scmp-compile optimize: an existing filter (libseccomp's, runc's, a
 * hand-written one) lifted to the decision it makes and compiled again,
 * with what it cost before and after.  Also what optimize and merge share:
 * saying why a program cannot be lifted, and writing the new program. */
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

int output_format(const struct cli *c, int *out)
{
	bool to_file = c->output && strcmp(c->output, "-");
	int format = c->format;

	if (format == FORMAT_OCI)
		return usage_error("--format oci applies to intersect only");
	if (format < 0) {
		format = SCMPC_FORMAT_TEXT;
		if (to_file && ends_with(c->output, ".bpf"))
			format = SCMPC_FORMAT_BPF;
		else if (to_file && (ends_with(c->output, ".c") || ends_with(c->output, ".h")))
			format = SCMPC_FORMAT_C;
	}
	if (format == SCMPC_FORMAT_BPF && !to_file && isatty(STDOUT_FILENO))
		return usage_error("refusing to write binary BPF to a terminal; use -o FILE");
	if ((c->seen & F_NAME) && format != SCMPC_FORMAT_C)
		return usage_error("--name applies to --format c only");
	*out = format;
	return EXIT_OK;
}

int write_program(const struct cli *c, const char *name, const scmpc_policy *p,
		  const scmpc_prog *prog, int format)
{
	struct scmpc_format_opts fo;
	scmpc_diag *d = scmpc_diag_new();
	char *rendered = NULL;
	size_t rendered_len = 0;
	int rc;

	memset(&fo, 0, sizeof(fo));
	fo.sz = sizeof(fo);
	fo.c_name = c->c_name;
	/* The lifted policy's first ABI sets the byte order, so a filter read
	 * byte-swapped (made for a big-endian target) is written back so. */
	fo.arch = scmpc_policy_arch_count(p) ? scmpc_policy_arch(p, 0) : SCMPC_ARCH_NONE;
	rc = d ? scmpc_format(scmpc_prog_insns(prog), scmpc_prog_len(prog),
			      (enum scmpc_format)format, &fo, &rendered, &rendered_len, d)
	       : -ENOMEM;
	if (rc < 0)
		report_diag(name, d, rc);
	else if (write_output(c->output, rendered, rendered_len))
		rc = -EIO;
	free(rendered);
	scmpc_diag_free(d);
	return rc < 0 ? -1 : 0;
}

/* The lifter names the filter by its place in the stack ("filter 2 (of 5,
 * oldest 0), insn 14: ..."); the user knows it by its file. */
void report_lift_error(const char *const *names, const struct sock_filter *const *progs,
		       const size_t *lens, size_t n, const scmpc_diag *d, int rc)
{
	const char *msg = d ? scmpc_diag_message(d) : "";
	long insn = d ? scmpc_diag_insn(d) : -1;
	unsigned which = 0, of = 0;
	int skip = 0;
	char text[320];

	if (n > 1 && sscanf(msg, "filter %u (of %u, oldest 0), %n", &which, &of, &skip) == 2 &&
	    skip > 0 && which < n) {
		msg += skip;
	} else if (n > 1) {
		/* not about one filter: the stack as a whole */
		errorf("%s: %s", "merge", *msg ? msg : strerror(rc < 0 ? -rc : EINVAL));
		return;
	}
	errorf("%s: cannot be lifted exactly: %s", names[which], *msg ? msg : strerror(-rc));
	if (insn >= 0 && (size_t)insn < lens[which] &&
	    insn_text(progs[which], lens[which], (size_t)insn, SCMPC_ARCH_NONE, text,
		      sizeof(text)) == 0)
		fprintf(stderr, "  %04ld: %s\n", insn, text);
}

void lift_opts_init(const struct cli *c, struct scmpc_lift_opts *lo, enum scmpc_arch *keep)
{
	memset(lo, 0, sizeof(*lo));
	lo->sz = sizeof(*lo);
	if (keep && c->arch != SCMPC_ARCH_NONE) {
		*keep = c->arch;
		lo->arches = keep;
		lo->narches = 1;
	}
	if (c->seen & F_BAD_ARCH) {
		lo->flags |= SCMPC_LIFT_BAD_ARCH;
		lo->bad_arch_action = c->bad_arch;
	}
}

/* ----------------------------------------------------------- the figures */

static void fig_row(FILE *out, const char *label, const char *before, const char *after)
{
	fprintf(out, "  %-54s %10s %10s\n", label, before, after);
}

static void print_figures(FILE *out, const struct cli *c, const scmpc_policy *p,
			  const scmpc_prog *old, const scmpc_prog *new)
{
	struct scmpc_argsys_stats as[2][1024];	/* one per probed number at most */
	const scmpc_prog *progs[2] = { old, new };
	struct scmpc_stats_opts so;
	scmpc_diag *d = scmpc_diag_new();
	char label[160], b[32], a[32];

	memset(&so, 0, sizeof(so));
	so.sz = sizeof(so);
	so.cache.sz = sizeof(so.cache);
	so.cache.nr_count = CACHE_NR;
	if (c->seen & F_KERNEL)
		so.cache.kernel_version = SCMPC_KERNEL_VERSION(c->kernel_major, c->kernel_minor, 0);
	size_t l0 = scmpc_prog_len(old), l1 = scmpc_prog_len(new);
	fig_row(out, "", "before", "after");
	snprintf(a, sizeof(a), "%zu", l1);
	snprintf(b, sizeof(b), "%zu", l0);
	fig_row(out, "instructions (cBPF)", b, a);
	snprintf(b, sizeof(b), "%zu", scmpc_prog_ebpf_len(old));
	snprintf(a, sizeof(a), "%zu", scmpc_prog_ebpf_len(new));
	fig_row(out, "instructions (eBPF predicted)", b, a);
	for (size_t i = 0; i < scmpc_policy_arch_count(p); i++) {
		/* Both programs measured against the one lifted policy: the
		 * same numbers count as argument-free, and the same probes
		 * reach the argument checks, on either side. */
		struct scmpc_arch_stats st[2];
		int err = d ? 0 : -ENOMEM;
		for (int k = 0; k < 2 && !err; k++) {
			st[k] = (struct scmpc_arch_stats){ .sz = sizeof(st[k]), .argsys = as[k],
							   .argsys_cap = ARRAY_SIZE(as[k]) };
			err = scmpc_stats(p, scmpc_prog_insns(progs[k]), scmpc_prog_len(progs[k]), i,
					  &so, &st[k], d);
		}
		if (err < 0) {
			fflush(out);
			report_diag("stats", d, err);
			break;
		}
		const struct scmpc_arch_stats *s0 = &st[0], *s1 = &st[1];
		const char *an = scmpc_arch_name(s0->arch);

		snprintf(label, sizeof(label), "%s: worst path, %u argument-free numbers", an,
			 s0->nr_probed);
		snprintf(b, sizeof(b), "%u", s0->worst_path);
		snprintf(a, sizeof(a), "%u", s1->worst_path);
		fig_row(out, label, b, a);
		snprintf(label, sizeof(label), "%s: mean path", an);
		snprintf(b, sizeof(b), "%.2f", s0->mean_path);
		snprintf(a, sizeof(a), "%.2f", s1->mean_path);
		fig_row(out, label, b, a);
		for (size_t k = 0; k < s0->nargsys && k < s1->nargsys && k < s0->argsys_cap; k++) {
			char name[64];

			if (!scmpc_syscall_name(s0->arch, s0->argsys[k].nr, name, sizeof(name)))
				fmt_u64(s0->argsys[k].nr, name, sizeof(name));
			snprintf(label, sizeof(label), "%s: worst path of %s (reads arguments)", an,
				 name);
			snprintf(b, sizeof(b), "%u", s0->argsys[k].worst_path);
			snprintf(a, sizeof(a), "%u", s1->argsys[k].worst_path);
			fig_row(out, label, b, a);
		}
		if (kernel_has_cache(c) && abi_info(s0->arch).cached) {
			snprintf(label, sizeof(label), "%s: unconditional allows cached (of %u)", an,
				 s0->allow_unconditional);
			snprintf(b, sizeof(b), "%u", s0->cacheable);
			snprintf(a, sizeof(a), "%u", s1->cacheable);
			fig_row(out, label, b, a);
		}
	}
	scmpc_diag_free(d);
}

/* ------------------------------------------------------------- optimize */

static int run_optimize(struct cli *c)
{
	struct filter f;
	struct scmpc_lift_opts lo;
	enum scmpc_arch keep;
	scmpc_policy *p = NULL;
	scmpc_prog *old = NULL, *new = NULL;
	scmpc_diag *d = NULL;
	char *buf = NULL;
	size_t size;
	int status = EXIT_INPUT, format, rc;

	memset(&f, 0, sizeof(f));
	if (c->npos != 1)
		return usage_error(c->npos ? "optimize takes one FILE" : "optimize needs a FILE");
	if ((rc = output_format(c, &format)) != EXIT_OK)
		return rc;
	f.name = display_name(c->pos[0]);
	if (read_input(c->pos[0], &buf, &size))
		goto out;
	if (scmpc_input_kind(buf, size) == SCMPC_INPUT_JSON) {
		errorf("%s: a JSON policy, not a compiled filter: 'compile' makes its program", f.name);
		goto out;
	}
	if (load_raw(f.name, buf, size, &f))
		goto out;
	if (!(d = scmpc_diag_new())) {
		errorf("%s", strerror(ENOMEM));
		goto out;
	}
	lift_opts_init(c, &lo, &keep);
	struct scmpc_optimize_info info = { .sz = sizeof(info) };
	struct cli_progress pr;
	progress_start(&pr, c->quiet);
	lo.progress = &pr.pr;
	rc = scmpc_optimize(f.insns, f.len, &lo, &new, &p, &info, d);
	progress_end(&pr);
	if (rc < 0) {
		report_lift_error(&f.name, &f.insns, &f.len, 1, d, rc);
		/* The library names its option; the user needs ours. */
		if (rc == -ENOTSUP && strstr(scmpc_diag_message(d), "seccomp_data.arch") &&
		    !(c->seen & F_BAD_ARCH))
			fprintf(stderr, "  (for a program that never tests the ABI, name the ABI it "
				"serves with -a ABI and what the others get with --bad-arch ACT)\n");
		goto out;
	}
	report_warnings(f.name, d, c->quiet);
	if ((rc = scmpc_prog_new(f.insns, f.len, &old, d)) < 0) {
		report_diag(f.name, d, rc);
		goto out;
	}
	if (write_program(c, f.name, p, new, format))
		goto out;
	bool to_file = c->output && strcmp(c->output, "-");
	FILE *fo = to_file ? stdout : stderr;
	print_figures(fo, c, p, old, new);
	if (info.kept_input)
		fprintf(fo, "kept the input: %s (%zu instructions, worst path %u)\n", info.kept_why,
			info.old_len, info.old_worst);
	else
		fprintf(fo, "%zu instructions -> %zu (%.1f%%), worst path %u -> %u\n", info.old_len,
			info.new_len, 100.0 * (double)info.new_len / (double)info.old_len,
			info.old_worst, info.new_worst);
	if (c->arch != SCMPC_ARCH_NONE) {
		struct abi_list served = { .n = 0 };
		char dropped[256] = "";
		size_t at = 0;
		abi_add_from_prog(&served, f.insns, f.len);
		for (size_t i = 0; i < served.n; i++)
			if (served.a[i] != c->arch && at < sizeof(dropped))
				at += (size_t)snprintf(dropped + at, sizeof(dropped) - at, "%s%s",
						       at ? ", " : "", scmpc_arch_name(served.a[i]));
		if (at)
			fprintf(fo, "dropped %s (now the bad-arch action); ", dropped);
		fprintf(fo, "proven to decide every call of %s alike (%zu joint paths); the "
			"other ABIs are not compared\n", scmpc_arch_name(c->arch), info.proof_paths);
	} else {
		fprintf(fo, "proven to decide every call alike: every ABI, number and argument "
			"value (%zu joint paths)\n", info.proof_paths);
	}
	status = EXIT_OK;
out:
	free(buf);
	scmpc_prog_free(old);
	scmpc_prog_free(new);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
	filter_free(&f);
	return status;
}

const struct command optimize_command = {
	"optimize", run_optimize, F_OUTPUT | F_FORMAT | F_ARCH | F_BAD_ARCH | F_NAME | F_QUIET |
		F_KERNEL,
	"Usage: " PROG_NAME " optimize FILE.bpf [-o FILE] [-f bpf|c|text] [-a ABI]\n"
	"                             [--bad-arch ACT] [--name NAME] [--kernel X.Y] [-q]\n",
	"Lift a compiled filter (libseccomp's, runc's, hand-written; '-' for standard\n"
	"input) to the decision it makes for every call, compile that again, prove\n"
	"the new program decides alike, write it, and print the figures of both side\n"
	"by side (to stderr, or stdout when the filter goes to a file).  A program\n"
	"that cannot be lifted exactly (one whose decision depends on\n"
	"instruction_pointer, say) is refused with the instruction that stops it.\n",
	EXIT_HELP,
};

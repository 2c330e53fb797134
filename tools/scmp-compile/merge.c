/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* scmp-compile merge: a stack of filters (.bpf files, policies, or what a
 * live process holds) as the one program that decides every call as the
 * kernel decides for the stack, and what each costs per call. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common.h"

/* The numbers scmpc_stats() and `compile --stats` measure: the first 1024
 * of each ABI, from its base. */
#define PROBE_NRS 1024U
/* Argument values tried per argument on a call that reads arguments: the
 * probes are sorted, so a stride keeps values from every region. */
#define ARG_SAMPLES 64U

int merge_programs(const char *const *names, scmpc_prog *const *progs, size_t n,
		   bool quiet, scmpc_policy **policy, scmpc_prog **out)
{
	const struct sock_filter **insns = calloc(n, sizeof(*insns));
	size_t *lens = calloc(n, sizeof(*lens));
	scmpc_diag *d = scmpc_diag_new();
	int rc = -1;

	*policy = NULL;
	*out = NULL;
	if (!insns || !lens || !d) {
		errorf("%s", strerror(ENOMEM));
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		insns[i] = scmpc_prog_insns(progs[i]);
		lens[i] = scmpc_prog_len(progs[i]);
	}
	/* What each filter returns for an unknown AUDIT_ARCH is part of what
	 * the stack decides.  scmpc_intersect() proves its program decides
	 * every call as the stack does, over every input. */
	struct cli_progress pr;
	progress_start(&pr, quiet);
	struct scmpc_compare_opts o = { .sz = sizeof(o), .progress = &pr.pr };
	int err = scmpc_intersect(insns, lens, n, &o, out, policy, d);
	progress_end(&pr);
	if (err < 0) {
		report_lift_error(names, insns, lens, n, d, err);
		*policy = NULL;
		goto out;
	}
	report_warnings("merge", d, false);
	rc = 0;
out:
	if (rc < 0) {
		scmpc_policy_free(*policy);
		*policy = NULL;
	}
	free(insns);
	free(lens);
	scmpc_diag_free(d);
	return rc;
}

/* ------------------------------------------------------------ the costs */

struct paths {
	unsigned nfree;		/* argument-free numbers measured */
	unsigned worst;
	double mean;
	unsigned nargs;		/* numbers whose decision reads arguments */
	unsigned args_worst;	/* the longest run over their probe values */
};

/* What one call costs the stack: the kernel runs every filter, whatever
 * the ones before returned. */
static int stack_steps(const struct sock_filter *const *progs, const size_t *lens, size_t n,
		       const struct seccomp_data *sd, unsigned *total)
{
	*total = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t ret;
		unsigned steps;
		int rc = scmpc_emulate(progs[i], lens[i], sd, &ret, &steps);

		if (rc < 0)
			return rc;
		*total += steps;
	}
	return 0;
}

/* The path of PROGS (all run, summed) over ABI A's first numbers.  Which
 * numbers are argument-free is asked of one program, REF (the merged one),
 * so every column counts the same numbers. */
static int paths_of(const struct sock_filter *const *progs, const size_t *lens, size_t n,
		    const struct sock_filter *ref, size_t reflen, const scmpc_probes *ps,
		    enum scmpc_arch a, struct paths *out)
{
	uint32_t base = abi_info(a).nr_base;
	uint64_t sum = 0;
	unsigned steps;
	int rc;

	memset(out, 0, sizeof(*out));
	for (uint32_t i = 0; i < PROBE_NRS; i++) {
		struct scmpc_arg_use use;
		struct seccomp_data sd;

		make_data(&sd, a, base + i, NULL);
		memset(&use, 0, sizeof(use));
		use.sz = sizeof(use);
		if ((rc = scmpc_prog_arg_use(ref, reflen, &sd, &use, NULL)) < 0)
			return rc;
		if (use.first_load < 0) {
			if ((rc = stack_steps(progs, lens, n, &sd, &steps)) < 0)
				return rc;
			out->nfree++;
			sum += steps;
			if (steps > out->worst)
				out->worst = steps;
			continue;
		}
		out->nargs++;
		for (int fill = 0; fill < 2; fill++) {
			for (unsigned k = 0; k < 6; k++) {
				const uint64_t *vals;
				size_t nv = scmpc_probes_values(ps, k, &vals);
				size_t stride = nv > ARG_SAMPLES ? nv / ARG_SAMPLES : 1;

				for (size_t j = 0; j < nv; j += stride) {
					memset(sd.args, fill ? 0xff : 0, sizeof(sd.args));
					sd.args[k] = vals[j];
					if ((rc = stack_steps(progs, lens, n, &sd, &steps)) < 0)
						return rc;
					if (steps > out->args_worst)
						out->args_worst = steps;
				}
			}
		}
	}
	out->mean = out->nfree ? (double)sum / out->nfree : 0.0;
	return 0;
}

static void row(FILE *out, const char *label, const char *stack, const char *merged)
{
	fprintf(out, "  %-46s %10s %10s\n", label, stack, merged);
}

static void row_u(FILE *out, const char *label, unsigned long stack, unsigned long merged)
{
	char s[24], m[24];

	snprintf(s, sizeof(s), "%lu", stack);
	snprintf(m, sizeof(m), "%lu", merged);
	row(out, label, s, m);
}

static void print_filter(FILE *out, size_t i, const scmpc_prog *prog, const scmpc_policy *p,
			 const struct paths *fp)
{
	enum scmpc_arch abis[SCMPC_ARCH_COUNT];
	int na = scmpc_prog_abis(scmpc_prog_insns(prog), scmpc_prog_len(prog), abis,
				 SCMPC_ARCH_COUNT);

	fprintf(out, "filter %zu: %zu instructions (%zu eBPF), ", i, scmpc_prog_len(prog),
		scmpc_prog_ebpf_len(prog));
	if (na <= 0)
		fprintf(out, "tests no AUDIT_ARCH");
	else
		fprintf(out, "serves");
	for (int k = 0; k < na && k < SCMPC_ARCH_COUNT; k++)
		fprintf(out, "%s %s", k ? "," : "", scmpc_arch_name(abis[k]));
	fputc('\n', out);
	for (size_t k = 0; k < scmpc_policy_arch_count(p); k++) {
		fprintf(out, "  %s: path worst %u, mean %.2f", scmpc_arch_name(scmpc_policy_arch(p, k)),
			fp[k].worst, fp[k].mean);
		if (fp[k].nargs)
			fprintf(out, "; calls checking arguments: worst %u", fp[k].args_worst);
		fputc('\n', out);
	}
}

int stack_figures(FILE *out, const struct cli *c, scmpc_prog *const *progs, size_t n,
		  const scmpc_policy *p, const scmpc_prog *merged, bool per_filter)
{
	size_t na = scmpc_policy_arch_count(p);
	const struct sock_filter **insns = calloc(n, sizeof(*insns));
	size_t *lens = calloc(n, sizeof(*lens));
	struct paths *fp = per_filter ? calloc(n * (na ? na : 1), sizeof(*fp)) : NULL;
	const struct sock_filter *m = scmpc_prog_insns(merged);
	size_t mlen = scmpc_prog_len(merged), total = 0, budget = 0;
	scmpc_probes *ps = scmpc_probes_new();
	struct paths sp[SCMPC_ARCH_COUNT], mp[SCMPC_ARCH_COUNT];
	char label[96];
	int rc = -ENOMEM;

	if (!insns || !lens || !ps || (per_filter && !fp))
		goto out;
	for (size_t i = 0; i < n; i++) {
		insns[i] = scmpc_prog_insns(progs[i]);
		lens[i] = scmpc_prog_len(progs[i]);
		total += lens[i];
		budget += scmpc_prog_ebpf_len(progs[i]) + 4;
		if ((rc = scmpc_probes_add_prog(ps, insns[i], lens[i], NULL)) < 0)
			goto out;
	}
	if ((rc = scmpc_probes_add_policy(ps, p, NULL)) < 0)
		goto out;
	for (size_t k = 0; k < na && k < SCMPC_ARCH_COUNT; k++) {
		enum scmpc_arch a = scmpc_policy_arch(p, k);

		if ((rc = paths_of(insns, lens, n, m, mlen, ps, a, &sp[k])) < 0 ||
		    (rc = paths_of(&m, &mlen, 1, m, mlen, ps, a, &mp[k])) < 0)
			goto out;
		for (size_t i = 0; per_filter && i < n; i++)
			if ((rc = paths_of(&insns[i], &lens[i], 1, m, mlen, ps, a, &fp[i * na + k])) < 0)
				goto out;
	}
	for (size_t i = 0; per_filter && i < n; i++)
		print_filter(out, i, progs[i], p, &fp[i * na]);

	row(out, "", "stack", "merged");
	row_u(out, "filters", n, 1);
	row_u(out, "instructions (cBPF)", total, mlen);
	row_u(out, "chain budget used (eBPF + 4 per filter)", budget,
	      scmpc_prog_ebpf_len(merged) + 4);
	for (size_t k = 0; k < na && k < SCMPC_ARCH_COUNT; k++) {
		enum scmpc_arch a = scmpc_policy_arch(p, k);
		const char *an = scmpc_arch_name(a);
		char s[24], mm[24];

		snprintf(label, sizeof(label), "%s: worst path, %u argument-free numbers", an,
			 sp[k].nfree);
		row_u(out, label, sp[k].worst, mp[k].worst);
		snprintf(label, sizeof(label), "%s: mean path", an);
		snprintf(s, sizeof(s), "%.2f", sp[k].mean);
		snprintf(mm, sizeof(mm), "%.2f", mp[k].mean);
		row(out, label, s, mm);
		if (sp[k].nargs) {
			snprintf(label, sizeof(label), "%s: worst path, %u call%s checking arguments",
				 an, sp[k].nargs, sp[k].nargs == 1 ? "" : "s");
			row_u(out, label, sp[k].args_worst, mp[k].args_worst);
		}
		if (!kernel_has_cache(c) || !abi_info(a).cached)
			continue;
		struct scmpc_cache_opts co;
		uint8_t bits[(CACHE_NR + 7) / 8];

		memset(&co, 0, sizeof(co));
		co.sz = sizeof(co);
		co.nr_count = CACHE_NR;
		if (c->seen & F_KERNEL)
			co.kernel_version = SCMPC_KERNEL_VERSION(c->kernel_major, c->kernel_minor, 0);
		/* The kernel caches a call only when every filter allows it
		 * without reading more than nr and arch. */
		int cs = scmpc_cache_bitmap(insns, lens, n, a, &co, bits);
		int cm = scmpc_cache_bitmap(&m, &mlen, 1, a, &co, bits);
		snprintf(label, sizeof(label), "%s: syscalls cached (of %u)", an, CACHE_NR);
		snprintf(s, sizeof(s), "%d", cs);
		snprintf(mm, sizeof(mm), "%d", cm);
		row(out, label, cs < 0 ? "?" : s, cm < 0 ? "?" : mm);
	}
	if (total)
		fprintf(out, "%zu filter%s, %zu instructions -> 1 filter, %zu (%.1f%%), deciding every "
			"call as the stack does\n", n, n == 1 ? "" : "s", total, mlen,
			100.0 * (double)mlen / (double)total);
	rc = 0;
out:
	if (rc < 0)
		report_failure(rc, EXIT_INPUT);
	scmpc_probes_free(ps);
	free(fp);
	free(insns);
	free(lens);
	return rc;
}

/* ---------------------------------------------------------------- merge */

/* files.c remembers the first few inputs to refuse an output that is one
 * of them; a stack can have more, and losing a filter to its merge would
 * be as bad as losing a policy to its compile. */
static bool output_is_input(const char *output, char **paths, int n)
{
	struct stat ost, ist;

	if (!output || !strcmp(output, "-") || lstat(output, &ost) || !S_ISREG(ost.st_mode))
		return false;
	for (int i = 0; i < n; i++) {
		if (strcmp(paths[i], "-") && !stat(paths[i], &ist) && ist.st_dev == ost.st_dev &&
		    ist.st_ino == ost.st_ino) {
			errorf("%s: the output is the same file as the input %s; nothing written",
			       output, paths[i]);
			return true;
		}
	}
	return false;
}

int load_stack_files(const struct cli *c, struct filter **fs, scmpc_prog ***progs)
{
	size_t n = (size_t)c->npos;
	int stdin_uses = 0, rc;

	*fs = NULL;
	*progs = NULL;
	for (int i = 0; i < c->npos; i++)
		stdin_uses += !strcmp(c->pos[i], "-");
	if (stdin_uses > 1)
		return usage_error("standard input ('-') can be read once");
	if (output_is_input(c->output, c->pos, c->npos))
		return EXIT_INPUT;
	*fs = calloc(n, sizeof(**fs));
	*progs = calloc(n, sizeof(**progs));
	if (!*fs || !*progs) {
		errorf("%s", strerror(ENOMEM));
		return EXIT_INPUT;
	}
	for (size_t i = 0; i < n; i++) {
		/* A policy is compiled for -a's ABI with the policy options,
		 * as compile would; a .bpf is taken as it is. */
		if (load_filter(c, c->pos[i], c->arch, &(*fs)[i]))
			return EXIT_INPUT;
		if ((rc = scmpc_prog_new((*fs)[i].insns, (*fs)[i].len, &(*progs)[i], NULL)) < 0) {
			report_failure(rc, EXIT_INPUT);
			return EXIT_INPUT;
		}
	}
	return EXIT_OK;
}

/* What load_stack_files() gave for N files, freed (either may be NULL). */
void free_stack_files(struct filter *fs, scmpc_prog **progs, size_t n)
{
	for (size_t i = 0; fs && i < n; i++)
		filter_free(&fs[i]);
	free(fs);
	scmpc_prog_array_free(progs, progs ? n : 0);
}

/* merge --canary ENFORCED CANDIDATE: one program deciding as ENFORCED but
 * logging each call CANDIDATE would stop; the calls it logs are listed. */
static int run_canary(struct cli *c)
{
	struct filter fe, fc;
	scmpc_prog *prog = NULL;
	scmpc_policy *p = NULL;
	scmpc_answer *ans = NULL;
	scmpc_diag *d = scmpc_diag_new();
	int status = EXIT_INPUT, format, rc;

	memset(&fe, 0, sizeof(fe));
	memset(&fc, 0, sizeof(fc));
	if (c->npos != 2 || c->pid) {
		scmpc_diag_free(d);
		return usage_error("merge --canary needs ENFORCED and CANDIDATE");
	}
	if ((rc = output_format(c, &format)) != EXIT_OK) {
		scmpc_diag_free(d);
		return rc;
	}
	if (!d) {
		errorf("%s", strerror(ENOMEM));
		goto out;
	}
	if (load_filter(c, c->pos[0], c->arch, &fe) || load_filter(c, c->pos[1], c->arch, &fc))
		goto out;
	struct cli_progress pr;
	progress_start(&pr, c->quiet);
	struct scmpc_compare_opts o = { .sz = sizeof(o), .progress = &pr.pr };
	rc = scmpc_canary(fe.insns, fe.len, fc.insns, fc.len, &o, &prog, &p, d);
	progress_end(&pr);
	if (rc < 0) {
		report_diag("merge --canary", d, rc);
		goto out;
	}
	if (write_program(c, "merge --canary", p, prog, format))
		goto out;
	/* what the canary logs: where it differs from ENFORCED */
	if ((rc = scmpc_diff(fe.insns, fe.len, scmpc_prog_insns(prog), scmpc_prog_len(prog), NULL,
			     &ans, d)) < 0) {
		report_diag("merge --canary", d, rc);
		goto out;
	}
	bool to_file = c->output && strcmp(c->output, "-");
	FILE *fo = to_file ? stdout : stderr;
	size_t n = scmpc_answer_count(ans);
	for (size_t i = 0; i < n; i++) {
		struct scmpc_region r = { .sz = sizeof(r) };
		char name[64];
		if (scmpc_answer_region(ans, i, &r) < 0 || r.other_arches)
			continue;
		fprintf(fo, "logs %s %s%s%s\n", scmpc_arch_name(r.arch),
			r.nr_lo == r.nr_hi ? syscall_label(r.arch, r.nr_lo, name, sizeof(name)) : "",
			r.args[0] ? " if " : "", r.args);
	}
	fprintf(fo, "%zu instructions: decides as %s, and logs the %zu region%s of calls %s would "
		"stop (proven over every input)\n", scmpc_prog_len(prog), fe.name, n,
		n == 1 ? "" : "s", fc.name);
	status = EXIT_OK;
out:
	scmpc_answer_free(ans);
	scmpc_prog_free(prog);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
	filter_free(&fe);
	filter_free(&fc);
	return status;
}

static int run_merge(struct cli *c)
{
	struct filter *fs = NULL;
	scmpc_prog **progs = NULL;
	const char **names = NULL;
	char (*labels)[48] = NULL;
	scmpc_policy *p = NULL;
	scmpc_prog *merged = NULL;
	size_t n = 0;
	int status = EXIT_INPUT, format, rc;

	if (c->canary)
		return run_canary(c);
	if (c->pid && c->npos)
		return usage_error("merge takes FILEs or --pid PID, not both");
	if (!c->pid && !c->npos)
		return usage_error("merge needs FILEs (oldest filter first) or --pid PID");
	if ((rc = output_format(c, &format)) != EXIT_OK)
		return rc;

	if (c->pid) {
		rc = read_stack(c->pid, &progs);
		if (rc < 0)
			goto out;
		if (rc == 0) {
			errorf("process %u has no seccomp filters: nothing to merge", c->pid);
			goto out;
		}
		n = (size_t)rc;
	} else {
		n = (size_t)c->npos;
		if ((status = load_stack_files(c, &fs, &progs)) != EXIT_OK)
			goto out;
		status = EXIT_INPUT;
	}
	names = calloc(n, sizeof(*names));
	labels = calloc(n, sizeof(*labels));
	if (!names || !labels) {
		errorf("%s", strerror(ENOMEM));
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (c->pid) {
			snprintf(labels[i], sizeof(labels[i]), "process %u, filter %zu", c->pid, i);
			names[i] = labels[i];
		} else {
			names[i] = fs[i].name;
		}
	}
	if (merge_programs(names, progs, n, c->quiet, &p, &merged))
		goto out;
	if (write_program(c, "merge", p, merged, format))
		goto out;
	bool to_file = c->output && strcmp(c->output, "-");
	if (stack_figures(to_file ? stdout : stderr, c, progs, n, p, merged, false) < 0)
		goto out;
	status = EXIT_OK;
out:
	free_stack_files(fs, progs, n);
	free(names);
	free(labels);
	scmpc_prog_free(merged);
	scmpc_policy_free(p);
	return status;
}

const struct command merge_command = {
	"merge", run_merge, F_OUTPUT | F_FORMAT | F_ARCH | F_POLICY | F_NAME | F_PID | F_CANARY,
	"Usage: " PROG_NAME " merge FILE... [-o FILE] [-f bpf|c|text] [-a ABI] [POLICY OPTIONS]\n"
	"       " PROG_NAME " merge --pid PID [-o FILE] [-f bpf|c|text]\n"
	"       " PROG_NAME " merge --canary ENFORCED CANDIDATE [-o FILE] [POLICY OPTIONS]\n",
	"Merge a stack of filters into one program that decides every call as the\n"
	"kernel decides for the stack (every filter runs, newest first; the most\n"
	"restrictive action wins, and between equal actions the newer filter's data).\n"
	"FILEs are in installation order, oldest first: compiled filters (.bpf) or\n"
	"policies, compiled as 'compile' would; --pid PID takes the filters the\n"
	"process holds.  The program is proven against the merged decision, written,\n"
	"and the stack's size and path per call are printed beside the merged\n"
	"program's (to stderr, or stdout when the filter goes to a file).\n"
	"With --canary: one program that decides every call as ENFORCED does but\n"
	"returns LOG where ENFORCED allows a call CANDIDATE would stop; installed in\n"
	"place of ENFORCED, the kernel's log shows what CANDIDATE would break.\n",
	EXIT_HELP,
};

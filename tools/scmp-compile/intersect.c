/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* scmp-compile intersect: one program that decides every call as the most
 * restrictive of its inputs (what the kernel makes of them stacked),
 * proven so over every input by scmpc_intersect(). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

/* The intersection OUT as an OCI profile for --runtime, written only when
 * its compile in that mode is proven to decide every call as OUT does. */
static int write_oci(const struct cli *c, const scmpc_prog *out)
{
	struct scmpc_oci_opts oo = { .sz = sizeof(oo), .runtime = c->runtime };
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *back = NULL;
	scmpc_prog *prog = NULL;
	scmpc_answer *ans = NULL;
	char *json = NULL;
	size_t len = 0;
	int rc = -1, err;

	if (!d) {
		errorf("%s", strerror(ENOMEM));
		return -1;
	}
	/* The intersection lifted again, in the shape a profile can say:
	 * what no table names decided by the default, the unknown-syscall
	 * action or a limit (the merge's lift may have chosen rules there). */
	struct scmpc_lift_opts lo = { .sz = sizeof(lo), .flags = SCMPC_LIFT_NAMED };
	scmpc_policy *named = NULL;
	if ((err = scmpc_lift(scmpc_prog_insns(out), scmpc_prog_len(out), &lo, &named, d)) < 0) {
		report_diag("intersect -f oci", d, err);
		goto out;
	}
	err = scmpc_policy_profile(named, &oo, &json, &len, d);
	scmpc_policy_free(named);
	if (err < 0) {
		report_diag("intersect -f oci", d, err);
		goto out;
	}
	/* The runtime's reading is not the lifted policy's (libseccomp's
	 * order, runc's stub): only a proof of the compile says the profile
	 * means the intersection. */
	if (load_policy_text(c, "the intersection's profile", json, len, c->arch, &back) ||
	    compile_policy("the intersection's profile", back, 0, &prog))
		goto out;
	if ((err = scmpc_diff(scmpc_prog_insns(out), scmpc_prog_len(out), scmpc_prog_insns(prog),
			      scmpc_prog_len(prog), NULL, &ans, d)) < 0) {
		report_diag("intersect -f oci", d, err);
		goto out;
	}
	if (scmpc_answer_count(ans)) {
		struct scmpc_region r = { .sz = sizeof(r) };
		char a0[32] = "", a1[32] = "";
		if (scmpc_answer_region(ans, 0, &r) == 0) {
			scmpc_action_str(r.action[0], a0, sizeof(a0));
			scmpc_action_str(r.action[1], a1, sizeof(a1));
		}
		errorf("the OCI profile of the intersection, compiled for %s, decides %zu region%s "
		       "of calls otherwise (first: %s nr %u%s%s: %s, the profile %s); nothing written",
		       scmpc_runtime_name(c->runtime), scmpc_answer_count(ans),
		       scmpc_answer_count(ans) == 1 ? "" : "s", scmpc_arch_name(r.arch), r.nr_lo,
		       r.args[0] ? " if " : "", r.args, a0, a1);
		goto out;
	}
	if (write_output(c->output, json, len))
		goto out;
	rc = 0;
out:
	scmpc_answer_free(ans);
	scmpc_prog_free(prog);
	scmpc_policy_free(back);
	free(json);
	scmpc_diag_free(d);
	return rc;
}

/* intersect A B...: the inputs loaded as merge loads them (a policy is
 * compiled for -a's ABI in --runtime's reading), intersected, written. */
static int run_intersect(struct cli *c)
{
	struct filter *fs = NULL;
	scmpc_prog **progs = NULL;
	const char **names = NULL;
	scmpc_policy *p = NULL;
	scmpc_prog *out = NULL;
	size_t n = (size_t)c->npos;
	int status = EXIT_INPUT, format, rc;

	if (c->npos < 1)
		return usage_error("intersect needs one or more FILEs");
	format = c->format;
	if (format != FORMAT_OCI && (rc = output_format(c, &format)) != EXIT_OK)
		return rc;
	if ((status = load_stack_files(c, &fs, &progs)) != EXIT_OK)
		goto out;
	status = EXIT_INPUT;
	if (!(names = calloc(n, sizeof(*names)))) {
		errorf("%s", strerror(ENOMEM));
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		names[i] = fs[i].name;
	/* The intersection is the stack's decision: scmpc_intersect() builds
	 * and proves it (merge_programs() reports its errors by input). */
	if (merge_programs(names, progs, n, c->quiet, &p, &out))
		goto out;
	if (format == FORMAT_OCI ? write_oci(c, out) : write_program(c, "intersect", p, out,
										 format))
		goto out;
	size_t total = 0;
	for (size_t i = 0; i < n; i++)
		total += fs[i].len;
	bool to_file = c->output && strcmp(c->output, "-");
	fprintf(to_file ? stdout : stderr, "%zu input%s, %zu instructions -> %zu: the most "
		"restrictive decision of the inputs for every call (proven over every input)\n",
		n, n == 1 ? "" : "s", total, scmpc_prog_len(out));
	status = EXIT_OK;
out:
	free_stack_files(fs, progs, n);
	free(names);
	scmpc_prog_free(out);
	scmpc_policy_free(p);
	return status;
}

const struct command intersect_command = {
	"intersect", run_intersect, F_OUTPUT | F_FORMAT | F_ARCH | F_POLICY | F_NAME,
	"Usage: " PROG_NAME " intersect FILE... [-o FILE] [-f bpf|c|text|oci] [-a ABI] [POLICY OPTIONS]\n",
	"One program that decides every call as the most restrictive of the FILEs\n"
	"(compiled filters, .bpf, or policies compiled as 'compile' would, in\n"
	"--runtime's reading): the kernel's precedence, KILL_PROCESS > KILL_THREAD >\n"
	"TRAP > ERRNO > USER_NOTIF > TRACE > LOG > ALLOW, and between equal actions\n"
	"the data of the last FILE that has it.  Proven over every input before it\n"
	"is written.  With -f oci: an OCI profile that compiles, in --runtime's\n"
	"reading (runc and crun read it so), to a filter proven to decide as the\n"
	"intersection; refused, naming a differing call, when none is found.\n",
	EXIT_HELP,
};

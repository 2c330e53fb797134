/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* scmp-compile diff and subset: exact comparisons of two filters (policies
 * or .bpf files) over every ABI, number and argument value, by the
 * library's scmpc_diff() and scmpc_subset(). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

/* "x86_64 41 socket", "x86_64 335-423", "AUDIT_ARCH 0x0 (no ABI)". */
static void region_where(const struct scmpc_region *r, char *buf, size_t len)
{
	char name[64];
	if (r->other_arches) {
		snprintf(buf, len, "other AUDIT_ARCH values (e.g. %#" PRIx32 ") numbers %#" PRIx32
			 "-%#" PRIx32, r->audit, r->nr_lo, r->nr_hi);
		return;
	}
	const char *abi = r->arch ? scmpc_arch_name(r->arch) : "?";
	if (r->nr_lo == r->nr_hi)
		snprintf(buf, len, "%s %s", abi, syscall_label(r->arch, r->nr_lo, name, sizeof(name)));
	else if (r->nr_lo == 0 && r->nr_hi == UINT32_MAX)
		snprintf(buf, len, "%s every number", abi);
	else
		snprintf(buf, len, "%s %" PRIu32 "-%" PRIu32, abi, r->nr_lo, r->nr_hi);
}

static void print_region_text(const struct scmpc_region *r, const char *la, const char *lb)
{
	char where[160], a[32], b[32];
	region_where(r, where, sizeof(where));
	printf("%s%s%s: %s=%s %s=%s (e.g. nr %" PRIu32 " args 0x%" PRIx64 ", 0x%" PRIx64
	       ", 0x%" PRIx64 ", 0x%" PRIx64 ", 0x%" PRIx64 ", 0x%" PRIx64 ")\n",
	       where, r->args[0] ? " " : "", r->args, la, action_name(r->action[0], a, sizeof(a)),
	       lb, action_name(r->action[1], b, sizeof(b)), (uint32_t)r->witness.nr,
	       (uint64_t)r->witness.args[0], (uint64_t)r->witness.args[1],
	       (uint64_t)r->witness.args[2], (uint64_t)r->witness.args[3],
	       (uint64_t)r->witness.args[4], (uint64_t)r->witness.args[5]);
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", (unsigned char)*s);
		else
			putchar(*s);
	}
	putchar('"');
}

static void print_region_json(const struct scmpc_region *r, bool first, const char *la,
			      const char *lb)
{
	char a[32], b[32], name[64];
	printf("%s\n  {\"abi\": ", first ? "" : ",");
	if (r->other_arches || !r->arch)
		printf("null");
	else
		json_string(scmpc_arch_name(r->arch));
	printf(", \"audit_arch\": %" PRIu32 ", \"other_arches\": %s, \"nr_lo\": %" PRIu32
	       ", \"nr_hi\": %" PRIu32 ", \"syscall\": ",
	       r->audit, r->other_arches ? "true" : "false", r->nr_lo, r->nr_hi);
	if (r->nr_lo == r->nr_hi && r->arch && scmpc_syscall_name(r->arch, r->nr_lo, name, sizeof(name)))
		json_string(name);
	else
		printf("null");
	printf(", \"args\": ");
	json_string(r->args);
	printf(", \"%s\": ", la);
	json_string(action_name(r->action[0], a, sizeof(a)));
	printf(", \"%s\": ", lb);
	json_string(action_name(r->action[1], b, sizeof(b)));
	printf(", \"witness\": {\"arch\": %" PRIu32 ", \"nr\": %" PRIu32 ", \"args\": [", r->witness.arch,
	       (uint32_t)r->witness.nr);
	for (int i = 0; i < 6; i++)
		printf("%s%" PRIu64, i ? ", " : "", (uint64_t)r->witness.args[i]);
	printf("]}}");
}

/* diff and subset: the inputs loaded (a policy compiled for the host of
 * -a's ABI, with the policy options), compared, the regions printed. */
static int run_compare(struct cli *c, bool subset)
{
	enum scmpc_arch target = host_of(c->arch != SCMPC_ARCH_NONE ? c->arch : native_arch());
	struct filter fa, fb;
	scmpc_answer *ans = NULL;
	scmpc_diag *d = NULL;
	int status = EXIT_USAGE;
	const char *la = subset ? "BASE" : "A", *lb = subset ? "CANDIDATE" : "B";

	memset(&fa, 0, sizeof(fa));
	memset(&fb, 0, sizeof(fb));
	if (c->npos != 2)
		return usage_error(subset ? "subset needs two inputs, BASE and CANDIDATE"
					  : "diff needs two inputs, A and B");
	if (!strcmp(c->pos[0], "-") && !strcmp(c->pos[1], "-"))
		return usage_error("only one of the inputs can be standard input");
	if (load_filter(c, c->pos[0], target, &fa) || load_filter(c, c->pos[1], target, &fb))
		goto out;
	if (!(d = scmpc_diag_new())) {
		errorf("%s", strerror(ENOMEM));
		goto out;
	}
	struct scmpc_compare_opts o = { .sz = sizeof(o),
					.flags = c->ignore_data ? SCMPC_COMPARE_IGNORE_DATA : 0 };
	int rc = subset ? scmpc_subset(fa.insns, fa.len, fb.insns, fb.len, &o, &ans, d)
			: scmpc_diff(fa.insns, fa.len, fb.insns, fb.len, &o, &ans, d);
	if (rc < 0) {
		report_diag(c->cmd, d, rc);
		status = rc == -ENOMEM ? EXIT_INPUT : EXIT_USAGE;
		goto out;
	}
	size_t shown = 0, n = scmpc_answer_count(ans);
	if (c->json)
		printf("[");
	for (size_t i = 0; i < n; i++) {
		struct scmpc_region r = { .sz = sizeof(r) };
		if (scmpc_answer_region(ans, i, &r) < 0)
			continue;
		/* -a: the regions of that ABI only */
		if (c->arch != SCMPC_ARCH_NONE && (r.other_arches || r.arch != c->arch))
			continue;
		if (c->json)
			print_region_json(&r, shown == 0, la, lb);
		else
			print_region_text(&r, la, lb);
		shown++;
	}
	if (c->json)
		printf("%s]\n", shown ? "\n" : "");
	if (!c->quiet && !c->json) {
		const char *scope = c->arch != SCMPC_ARCH_NONE ? scmpc_arch_name(c->arch) : NULL;
		if (!shown)
			fprintf(stderr, "%s: %s %s%s%s (proven over every %s%snumber and argument "
				"value: %zu joint paths)\n", PROG_NAME,
				subset ? "CANDIDATE" : "A and B",
				subset ? "is at least as restrictive as BASE"
				       : "decide every call alike",
				scope ? " on " : "", scope ? scope : "",
				scope ? "" : "ABI, ", scope ? "" : "", scmpc_answer_paths(ans));
		else
			fprintf(stderr, "%s: %zu region%s where %s%s%s\n", PROG_NAME, shown,
				shown == 1 ? "" : "s",
				subset ? "CANDIDATE is less restrictive than BASE"
				       : "A and B decide differently",
				scope ? " on " : "", scope ? scope : "");
	}
	status = shown ? EXIT_INPUT : EXIT_OK;
out:
	scmpc_answer_free(ans);
	scmpc_diag_free(d);
	filter_free(&fa);
	filter_free(&fb);
	return status;
}

static int run_diff(struct cli *c)
{
	return run_compare(c, false);
}

static int run_subset(struct cli *c)
{
	return run_compare(c, true);
}

const struct command diff_command = {
	"diff", run_diff, F_ARCH | F_POLICY | F_JSON,
	"Usage: " PROG_NAME " diff A B [-a ABI] [--json] [--caps LIST] [--kernel X.Y]\n"
	"                         [--strict] [--no-enosys] [--restrictive] [--runtime RT]\n"
	"                         [--bad-arch ACT] [-q]\n",
	"Every set of calls on which two filters decide differently: the ABI, the\n"
	"numbers, the argument values, both decisions and a call that shows it.\n"
	"A and B are each a policy, compiled first, or a raw .bpf filter; one of\n"
	"them may be '-' for standard input.  The comparison covers every ABI,\n"
	"every number and every argument value: an empty answer is a proof.\n",
	"Exit status: 0 equivalent, 1 different, 2 error (as cmp(1)).\n",
};

const struct command subset_command = {
	"subset", run_subset, F_ARCH | F_POLICY | F_JSON | F_IGNORE_DATA,
	"Usage: " PROG_NAME " subset BASE CANDIDATE [-a ABI] [--ignore-data] [--json]\n"
	"                         [POLICY OPTIONS]\n",
	"Whether CANDIDATE decides every call at least as restrictively as BASE,\n"
	"by the kernel's precedence (KILL_PROCESS, KILL_THREAD, TRAP, ERRNO,\n"
	"USER_NOTIF, TRACE, LOG, ALLOW); if not, every set of calls where it does\n"
	"not, with a call that shows it.  The same action with other data\n"
	"(ERRNO(1) against ERRNO(13)) is reported unless --ignore-data.  Each\n"
	"input is a policy, compiled first, or a raw .bpf filter.\n",
	"Exit status: 0 CANDIDATE is a subset of BASE (proven), 1 it is not, 2 error.\n",
};

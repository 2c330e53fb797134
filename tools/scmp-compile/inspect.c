/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* scmp-compile inspect: what a raw filter decides, number by number, per
 * ABI, and what it lets the kernel cache. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define MAX_OUTCOMES 4

struct decision {
	uint32_t nr;
	uint32_t act;			/* with zero arguments */
	bool dep;			/* depends on the arguments */
	uint32_t outcomes[MAX_OUTCOMES];
	unsigned nout;
};

static void outcome_add(struct decision *d, uint32_t act)
{
	for (unsigned i = 0; i < d->nout; i++)
		if (d->outcomes[i] == act)
			return;
	if (d->nout < MAX_OUTCOMES)
		d->outcomes[d->nout++] = act;
}

/* What F decides for (A, NR): with every argument 0, and, when the
 * arguments matter, the first few outcomes of varying one argument at a
 * time over the probes, from all zeros and from all ones. */
static int decide(const struct filter *f, const scmpc_probes *ps, enum scmpc_arch a,
		  uint32_t nr, struct decision *d)
{
	struct scmpc_arg_use use;
	uint64_t args[6];
	uint32_t act;
	int rc;

	memset(d, 0, sizeof(*d));
	d->nr = nr;
	if ((rc = filter_run(f, a, nr, NULL, &d->act)) < 0 ||
	    (rc = filter_arg_use(f, a, nr, &use)) < 0)
		return rc;
	d->dep = use.first_load >= 0;
	outcome_add(d, d->act);
	for (int base = 0; base < 2 && d->dep; base++) {
		for (int i = 0; i < 6; i++) {
			const uint64_t *vals;
			size_t nvals = scmpc_probes_values(ps, (unsigned)i, &vals);

			memset(args, base ? 0xff : 0, sizeof(args));
			for (size_t j = 0; j < nvals && d->nout < MAX_OUTCOMES; j++) {
				args[i] = vals[j];
				if ((rc = filter_run(f, a, nr, args, &act)) < 0)
					return rc;
				outcome_add(d, act);
			}
		}
	}
	return 0;
}

static void print_range(const struct decision *from, const struct decision *to, enum scmpc_arch a)
{
	char label[96], n1[24], n2[24], act[32];

	if (from == to)
		syscall_label(a, from->nr, label, sizeof(label));
	else
		snprintf(label, sizeof(label), "%s-%s", fmt_u64(from->nr, n1, sizeof(n1)),
			 fmt_u64(to->nr, n2, sizeof(n2)));
	printf("  %-28s ", label);
	if (!from->dep) {
		printf("%s\n", action_name(from->act, act, sizeof(act)));
		return;
	}
	printf("depends on arguments:");
	for (unsigned i = 0; i < from->nout; i++)
		printf("%s %s", i ? "," : "", action_name(from->outcomes[i], act, sizeof(act)));
	printf("\n");
}

static bool is_allow(uint32_t act)
{
	return (act & 0xffff0000U) == SCMPC_ACT_ALLOW;
}

/* Without CACHE the cache lines are left out: a merged program's cache is
 * not the stack's, which the stack's figures give. */
static int inspect_abi(const struct filter *f, const scmpc_probes *ps, enum scmpc_arch a,
		       const struct cli *c, bool cache)
{
	struct decision *ds = NULL;
	uint32_t *nrs = NULL;
	char label[96], buf[320];
	int rc = scmpc_arch_probe_numbers(a, &nrs, NULL);
	size_t n = rc > 0 ? (size_t)rc : 0;

	if (rc < 0)
		return rc;
	ds = calloc(n ? n : 1, sizeof(*ds));
	if (!ds) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if ((rc = decide(f, ps, a, nrs[i], &ds[i])) < 0)
			goto out;
	rc = 0;

	printf("%s (AUDIT_ARCH 0x%08x%s):\n", scmpc_arch_name(a), scmpc_arch_audit(a),
	       a == SCMPC_ARCH_X32 ? ", numbers with bit 30 set" : "");
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (!ds[i].dep && j + 1 < n && !ds[j + 1].dep && ds[j + 1].act == ds[i].act &&
		       ds[j + 1].nr == ds[j].nr + 1)
			j++;
		print_range(&ds[i], &ds[j], a);
		i = j + 1;
	}

	if (!cache)
		goto out;
	if (!kernel_has_cache(c)) {
		printf("  cache: never (" NO_CACHE_NOTE ")\n");
		goto out;
	}
	if (!abi_info(a).cached) {
		printf("  cache: never (x32 numbers are outside the kernel's bitmaps)\n");
		goto out;
	}
	uint8_t bits[(CACHE_NR + 7) / 8];
	int cached = cache_bits(c, f->insns, f->len, a, bits);
	if (cached < 0) {
		printf("  cache: cannot be predicted for %s (%s)\n", scmpc_arch_name(a),
		       strerror(-cached));
		goto out;
	}
	printf("  cache: %d of %u numbers cached\n", cached, CACHE_NR);
	bool header = false;
	for (size_t i = 0; i < n && ds[i].nr < CACHE_NR; i++) {
		bool allows = false;
		uint32_t stop = 0;

		for (unsigned k = 0; k < ds[i].nout; k++)
			allows |= is_allow(ds[i].outcomes[k]);
		if (!allows || (bits[ds[i].nr / 8] & (1U << (ds[i].nr % 8))))
			continue;
		if (!header)
			printf("  allowed but not cached:\n");
		header = true;
		scmpc_cache_const_allow(f->insns, f->len, scmpc_arch_audit(a), ds[i].nr, &stop);
		if (stop >= f->len)
			snprintf(buf, sizeof(buf), "(past the end)");
		else if ((rc = insn_text(f->insns, f->len, stop, a, buf, sizeof(buf))) < 0)
			goto out;
		printf("    %-26s insn %u: %s\n", syscall_label(a, ds[i].nr, label, sizeof(label)),
		       stop, buf);
	}
out:
	free(ds);
	free(nrs);
	return rc;
}

/* --dot: the programs DP[0..N) as one graph, to -o's file or stdout. */
static int inspect_dot(const struct cli *c, const struct dot_prog *dp, size_t n)
{
	enum scmpc_arch hot_arch = c->arch != SCMPC_ARCH_NONE ? c->arch : native_arch();
	scmpc_workload *w = NULL;
	char *buf = NULL;
	size_t len = 0;

	if (c->hot && !(w = read_workload_file(c->hot, c->arch, false)))
		return EXIT_INPUT;
	int rc = dot_text(dp, n, w, hot_arch, c->hot ? display_name(c->hot) : NULL, &buf, &len);
	scmpc_workload_free(w);
	if (rc < 0)
		return report_failure(rc, EXIT_INPUT);
	rc = write_output(c->output, buf, len);
	free(buf);
	return rc ? EXIT_INPUT : EXIT_OK;
}

/* inspect --pid --dot: each filter of the stack, a cluster of its own, as
 * the kernel holds them (the merged program is not what runs). */
static int inspect_pid_dot(const struct cli *c, scmpc_prog *const *progs, int n)
{
	struct dot_prog *dp = calloc((size_t)n, sizeof(*dp));
	char (*labels)[64] = calloc((size_t)n, sizeof(*labels));
	int status = EXIT_INPUT;

	if (!dp || !labels) {
		errorf("%s", strerror(ENOMEM));
		goto out;
	}
	for (int i = 0; i < n; i++) {
		snprintf(labels[i], sizeof(labels[i]), "process %u, filter %d%s", c->pid, i,
			 i == n - 1 && n > 1 ? " (newest)" : "");
		dp[i].name = labels[i];
		dp[i].insns = scmpc_prog_insns(progs[i]);
		dp[i].len = scmpc_prog_len(progs[i]);
	}
	status = inspect_dot(c, dp, (size_t)n);
out:
	free(dp);
	free(labels);
	return status;
}

/* inspect --pid: each filter of the stack, the decision they make
 * together (as ranges, from the merged program, which the merge proved to
 * decide as the stack), and the stack's cost beside the merged program's. */
static int inspect_pid(struct cli *c)
{
	struct abi_list abis = { .n = 0 };
	scmpc_prog **progs = NULL;
	scmpc_probes *ps = NULL;
	scmpc_policy *p = NULL;
	scmpc_prog *merged = NULL;
	const char **names = NULL;
	char (*labels)[48] = NULL;
	int n, rc, status = EXIT_INPUT;

	if (c->npos)
		return usage_error("inspect takes a FILE or --pid PID, not both");
	if (c->seen & F_FORMAT)
		return usage_error("--format text applies to inspect FILE only");
	n = read_stack(c->pid, &progs);
	if (n < 0)
		goto out;
	if (n == 0 && c->dot) {
		errorf("process %u has no seccomp filters: nothing to draw", c->pid);
		goto out;
	}
	if (n == 0) {
		printf("process %u has no seccomp filters: every call is allowed\n", c->pid);
		status = EXIT_OK;
		goto out;
	}
	if (c->dot) {
		status = inspect_pid_dot(c, progs, n);
		goto out;
	}
	names = calloc((size_t)n, sizeof(*names));
	labels = calloc((size_t)n, sizeof(*labels));
	if (!names || !labels) {
		errorf("%s", strerror(ENOMEM));
		goto out;
	}
	for (int i = 0; i < n; i++) {
		snprintf(labels[i], sizeof(labels[i]), "process %u, filter %d", c->pid, i);
		names[i] = labels[i];
	}
	printf("process %u: %d filter%s, oldest first; every call runs all of them, newest first\n",
	       c->pid, n, n == 1 ? "" : "s");
	if (merge_programs(names, progs, (size_t)n, true, &p, &merged))
		goto out;

	struct filter f;
	memset(&f, 0, sizeof(f));
	f.name = "merged";
	f.insns = scmpc_prog_insns(merged);
	f.len = scmpc_prog_len(merged);
	if (!(ps = scmpc_probes_new()) || scmpc_probes_add_prog(ps, f.insns, f.len, NULL) < 0) {
		errorf("%s", strerror(ENOMEM));
		goto out;
	}
	if (c->arch != SCMPC_ARCH_NONE) {
		abi_add(&abis, c->arch);
	} else {
		abi_add_host_group(&abis, native_arch());
		abi_add_from_prog(&abis, f.insns, f.len);
	}
	if (stack_figures(stdout, c, progs, (size_t)n, p, merged, true) < 0)
		goto out;
	printf("their decision together:\n");
	for (size_t i = 0; i < abis.n; i++) {
		if ((rc = inspect_abi(&f, ps, abis.a[i], c, false)) < 0) {
			status = report_failure(rc, EXIT_INPUT);
			goto out;
		}
	}
	status = EXIT_OK;
out:
	scmpc_probes_free(ps);
	scmpc_prog_array_free(progs, n > 0 ? (size_t)n : 0);
	scmpc_prog_free(merged);
	scmpc_policy_free(p);
	free(names);
	free(labels);
	return status;
}

static int run_inspect(struct cli *c)
{
	scmpc_probes *ps = NULL;
	struct abi_list abis = { .n = 0 };
	struct filter f;
	char *buf = NULL;
	size_t size;
	int status = EXIT_INPUT, rc;

	memset(&f, 0, sizeof(f));
	if ((c->seen & F_HOT) && !c->dot)
		return usage_error("--hot applies to inspect --dot (compile --hot lays a program out)");
	if ((c->seen & F_OUTPUT) && !c->dot)
		return usage_error("-o applies to inspect --dot; inspect prints its findings");
	if (c->dot && (c->seen & F_FORMAT))
		return usage_error("--dot draws the program; --format text lists it: one or the other");
	if (c->pid)
		return inspect_pid(c);
	if (c->npos != 1)
		return usage_error(c->npos ? "inspect takes one FILE" : "inspect needs a FILE");
	if ((c->seen & F_FORMAT) && c->format != SCMPC_FORMAT_TEXT)
		return usage_error("inspect prints --format text only");
	f.name = display_name(c->pos[0]);
	if (read_input(c->pos[0], &buf, &size))
		goto out;
	if (load_raw(f.name, buf, size, &f))
		goto out;
	if (c->dot) {
		struct dot_prog dp = { .name = f.name, .insns = f.insns, .len = f.len };
		status = inspect_dot(c, &dp, 1);
		goto out;
	}
	if (!(ps = scmpc_probes_new()) || scmpc_probes_add_prog(ps, f.insns, f.len, NULL) < 0) {
		errorf("%s", strerror(ENOMEM));
		goto out;
	}

	size_t elen = 0;
	scmpc_prog *wrapped = NULL;
	if (scmpc_prog_new(f.insns, f.len, &wrapped, NULL) == 0)
		elen = scmpc_prog_ebpf_len(wrapped);
	scmpc_prog_free(wrapped);
	printf("%s: %zu instructions (%zu eBPF), accepted by the kernel's rules\n", f.name, f.len,
	       elen);

	if (c->arch != SCMPC_ARCH_NONE) {
		abi_add(&abis, c->arch);
	} else {
		abi_add_host_group(&abis, native_arch());
		abi_add_from_prog(&abis, f.insns, f.len);
	}
	if (c->format == SCMPC_FORMAT_TEXT) {
		struct scmpc_format_opts fo;
		scmpc_diag *d = scmpc_diag_new();
		char *text = NULL;
		size_t tlen = 0;

		memset(&fo, 0, sizeof(fo));
		fo.sz = sizeof(fo);
		fo.arch = abis.a[0];
		rc = d ? scmpc_format(f.insns, f.len, SCMPC_FORMAT_TEXT, &fo, &text, &tlen, d)
		       : -ENOMEM;
		if (rc < 0) {
			report_diag(f.name, d, rc);
			scmpc_diag_free(d);
			goto out;
		}
		fwrite(text, 1, tlen, stdout);
		if (tlen && text[tlen - 1] != '\n')
			putchar('\n');
		free(text);
		scmpc_diag_free(d);
	}
	for (size_t i = 0; i < abis.n; i++) {
		if ((rc = inspect_abi(&f, ps, abis.a[i], c, true)) < 0) {
			status = report_failure(rc, EXIT_INPUT);
			goto out;
		}
	}
	status = EXIT_OK;
out:
	free(buf);
	scmpc_probes_free(ps);
	filter_free(&f);
	return status;
}

const struct command inspect_command = {
	"inspect", run_inspect, F_ARCH | F_FORMAT | F_KERNEL | F_PID | F_DOT | F_HOT | F_OUTPUT,
	"Usage: " PROG_NAME " inspect FILE.bpf [-a ABI] [-f text] [--kernel X.Y]\n"
	"       " PROG_NAME " inspect --pid PID [-a ABI] [--kernel X.Y]\n"
	"       " PROG_NAME " inspect FILE.bpf|--pid PID --dot [--hot FILE] [-a ABI] [-o FILE]\n",
	"Check a raw filter (a struct sock_filter array; '-' for standard input)\n"
	"against the kernel's rules, print what it decides for each syscall number\n"
	"as ranges per ABI, how many syscalls the kernel caches, and for each allowed\n"
	"syscall it cannot cache, the instruction that stops it.  With --pid, the\n"
	"stack of filters process PID holds: each filter's size and path, what they\n"
	"decide together, what the stack costs per call (every filter runs) and\n"
	"what one merged program would cost instead.  With --dot, the program (or\n"
	"each filter of the stack) as a Graphviz graph instead, for dot -Tsvg.\n",
	EXIT_HELP,
};

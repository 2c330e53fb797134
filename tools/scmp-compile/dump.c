/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* scmp-compile dump: write each filter of a live process to a .bpf file of
 * its own, and say what each costs and lets the kernel cache. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

int read_stack(unsigned pid, scmpc_prog ***out)
{
	scmpc_diag *d = scmpc_diag_new();
	int n;

	*out = NULL;
	if (!d) {
		errorf("%s", strerror(ENOMEM));
		return -1;
	}
	n = scmpc_introspect((pid_t)pid, NULL, out, d);
	report_warnings(usage_cmd, d, false);
	if (n < 0) {
		const char *msg = scmpc_diag_message(d);

		switch (-n) {
		case ESRCH: {
			char none[48];

			/* the library's other ESRCH reasons (a zombie, a thread
			 * gone while stopped) are passed on as they are */
			snprintf(none, sizeof(none), "no thread %u", pid);
			if (!*msg || !strcmp(msg, none))
				errorf("no process %u", pid);
			else
				errorf("process %u: %s", pid, msg);
			break;
		}
		case EPERM:
		case EACCES:
			errorf("process %u: %s%s", pid, *msg ? msg : strerror(-n),
			       geteuid() ? " (try as root)" : "");
			break;
		default:
			errorf("process %u: %s", pid, *msg ? msg : strerror(-n));
			break;
		}
		*out = NULL;
		n = -1;
	}
	scmpc_diag_free(d);
	return n;
}

/* dump --dot: filter I of PID as DIR/PID-I.dot, created as the .bpf is;
 * 0 or -1 after saying why. */
static int dump_dot(int dfd, const char *dir, unsigned pid, int i,
		    const struct sock_filter *insns, size_t len, const scmpc_workload *hot,
		    const char *hot_path)
{
	char title[64], name[64], path[PATH_MAX], *buf = NULL;
	size_t blen = 0;

	snprintf(title, sizeof(title), "process %u, filter %d", pid, i);
	snprintf(name, sizeof(name), "%u-%d.dot", pid, i);
	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path)) {
		errorf("%s: %s", dir, strerror(ENAMETOOLONG));
		return -1;
	}
	struct dot_prog dp = { .name = title, .insns = insns, .len = len };
	int rc = dot_text(&dp, 1, hot, native_arch(), hot_path ? display_name(hot_path) : NULL,
			  &buf, &blen);
	if (rc < 0) {
		errorf("%s: %s", path, strerror(-rc));
		return -1;
	}
	rc = create_new(dfd, path, name, buf, blen);
	free(buf);
	return rc;
}

static int run_dump(struct cli *c)
{
	enum scmpc_arch native = native_arch();
	const char *dir = c->output ? c->output : ".";
	scmpc_prog **progs = NULL;
	const struct sock_filter **insns = NULL;
	size_t *lens = NULL;
	struct stat st;
	unsigned pid;
	const char *end;
	int n = 0, status = EXIT_INPUT, dfd, written = 0;
	scmpc_workload *hot = NULL;
	char name[64], path[PATH_MAX];

	if (c->npos != 1)
		return usage_error(c->npos ? "dump takes one PID" : "dump needs a PID");
	if ((c->seen & F_HOT) && !c->dot)
		return usage_error("--hot applies to dump --dot");
	if (!parse_uint(c->pos[0], INT_MAX, &pid, &end) || *end || !pid)
		return usage_error("invalid process id '%s'", c->pos[0]);
	if (!strcmp(dir, "-"))
		return usage_error("dump writes one file per filter: -o names a directory");
	/* The files are created relative to this descriptor, so the
	 * directory checked is the one written to; a link in DIR's place is
	 * not followed, for the reason create_new() gives. */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) {
		if (errno == ENOTDIR && !lstat(dir, &st) && S_ISLNK(st.st_mode))
			errorf("%s: a symbolic link; dump does not follow it (name the directory "
			       "itself)", dir);
		else
			errorf("%s: %s", dir, strerror(errno));
		return EXIT_INPUT;
	}

	if (c->hot && !(hot = read_workload_file(c->hot, SCMPC_ARCH_NONE, false))) {
		close(dfd);
		return EXIT_INPUT;
	}
	n = read_stack(pid, &progs);
	if (n < 0)
		goto out;
	if (n == 0) {
		errorf("process %u has no seccomp filters: nothing to dump", pid);
		goto out;
	}

	insns = calloc((size_t)n, sizeof(*insns));
	lens = calloc((size_t)n, sizeof(*lens));
	if (!insns || !lens) {
		errorf("%s", strerror(ENOMEM));
		goto out;
	}
	struct scmpc_cache_opts co;
	memset(&co, 0, sizeof(co));
	co.sz = sizeof(co);
	co.nr_count = CACHE_NR;
	co.kernel_version = scmpc_kernel_running();
	uint8_t bits[(CACHE_NR + 7) / 8];
	size_t used = 0;
	for (; written < n; written++) {
		insns[written] = scmpc_prog_insns(progs[written]);
		lens[written] = scmpc_prog_len(progs[written]);
		snprintf(name, sizeof(name), "%u-%d.bpf", pid, written);
		if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path)) {
			errorf("%s: %s", dir, strerror(ENAMETOOLONG));
			goto out;
		}
		if (create_new(dfd, path, name, insns[written],
			       lens[written] * sizeof(struct sock_filter)))
			goto out;
		if (c->dot && dump_dot(dfd, dir, pid, written, insns[written], lens[written], hot,
				       c->hot))
			goto out;
	}
	for (int i = 0; i < n; i++) {
		size_t elen = scmpc_prog_ebpf_len(progs[i]);

		snprintf(path, sizeof(path), "%s/%u-%d.bpf", dir, pid, i);
		int cached = scmpc_cache_bitmap(&insns[i], &lens[i], 1, native, &co, bits);
		printf("%d %s: %zu instructions, %zu eBPF, ", i, path, lens[i], elen);
		if (cached < 0)
			printf("cache unknown (%s)\n", strerror(-cached));
		else
			printf("%d of %u %s syscalls cached\n", cached, CACHE_NR,
			       scmpc_arch_name(native));
		used += elen + 4;
	}
	/* The kernel caches a call only when every filter of the chain would
	 * allow it. */
	int cached = scmpc_cache_bitmap(insns, lens, (size_t)n, native, &co, bits);
	printf("chain: %d filter%s, %zu of %u eBPF instructions used, ", n, n == 1 ? "" : "s",
	       used, SCMPC_CHAIN_BUDGET);
	if (cached < 0)
		printf("cache unknown (%s)\n", strerror(-cached));
	else
		printf("%d of %u %s syscalls cached\n", cached, CACHE_NR, scmpc_arch_name(native));
	status = EXIT_OK;
out:
	/* All or nothing: a failed dump leaves no PID-N.bpf (or .dot) in a
	 * rerun's way; filter WRITTEN may have its .bpf without its .dot. */
	for (int i = written; status != EXIT_OK && i >= 0; i--) {
		snprintf(name, sizeof(name), "%u-%d.bpf", pid, i);
		if (i < written || c->dot)
			unlinkat(dfd, name, 0);
		snprintf(name, sizeof(name), "%u-%d.dot", pid, i);
		if (c->dot)
			unlinkat(dfd, name, 0);
	}
	close(dfd);
	scmpc_workload_free(hot);
	free(insns);
	free(lens);
	scmpc_prog_array_free(progs, n > 0 ? (size_t)n : 0);
	return status;
}

const struct command dump_command = {
	"dump", run_dump, F_OUTPUT | F_DOT | F_HOT,
	"Usage: " PROG_NAME " dump PID [-o DIR] [--dot [--hot FILE]]\n",
	"Write each seccomp filter of process PID (oldest first) to DIR/PID-N.bpf\n"
	"and say what each costs and lets the kernel cache.  With --dot, also each\n"
	"as a Graphviz graph, DIR/PID-N.dot.  Needs CAP_SYS_ADMIN and a caller not\n"
	"under seccomp itself.\n",
	EXIT_HELP,
};

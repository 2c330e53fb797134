/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Building filters through libseccomp's API: the compatible library
 * (src/compat, libseccomp.so.2 on scmpc) against the system's libseccomp
 * 2.5.4, one driver, one run.
 *
 *   bench_compat [--runs N] [--quick] [--before LIB] [--timeout S] [--csv FILE]
 *                [--only CASE] [--lib lsc|compat]
 *
 * --only runs the cases whose label contains CASE, --lib one library's
 * side; BENCH_TRACE=1 in the environment prints each add before it is
 * made (which one a library gets stuck on).  --timeout bounds each run.
 *
 * Each run is a fresh child that dlopen()s one library by its path (as
 * tests/test_compat.c does, RTLD_LOCAL and RTLD_DEEPBIND, so each one's
 * calls stay inside it), makes the library probe the kernel once (both
 * libraries do it on first use), then builds one filter the way runc does:
 * seccomp_init(), the no_new_privs attribute, the ABIs, and for each rule
 * the name resolved with seccomp_syscall_resolve_name() and the rule added
 * with seccomp_rule_add_array(); then seccomp_export_bpf() and
 * seccomp_release().  That is what is timed.  Runs of the libraries are
 * interleaved so that noise on the machine falls on both; the table gives
 * each one's median.  Memory is the child's peak resident set while it
 * builds, above what it had before (/proc/self/clear_refs resets the peak).
 *
 * Cases: Docker's and Podman's default profiles as runc adds them on amd64
 * (x86_64, x86, x32; one rule per name, conditions as given; entries kept
 * for Docker's default capabilities), 2,000 random argument rules on a few
 * dozen calls and 100,000 random rules on every x86_64 call (fixed seed).
 * Every return code and the exported program are hashed: the table says
 * whether the two libraries answered every add alike, and with --before
 * (another build of the compatible library, timed once per case) whether
 * the program is byte-identical to that build's.  Targets are printed,
 * never asserted.
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <seccomp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "scmpc.h"
#include "testutil.h"

#ifndef COMPAT_LIB
#error "COMPAT_LIB: the compatible library's path (bench/meson.build)"
#endif
#ifndef SYSTEM_LIB
#define SYSTEM_LIB "libseccomp.so.2"
#endif

/* ------------------------------------------------------------ the API */

struct api {
	scmp_filter_ctx (*init)(uint32_t);
	void (*release)(scmp_filter_ctx);
	int (*arch_add)(scmp_filter_ctx, uint32_t);
	int (*attr_set)(scmp_filter_ctx, enum scmp_filter_attr, uint32_t);
	int (*resolve_name)(const char *);
	int (*rule_add_array)(scmp_filter_ctx, uint32_t, int, unsigned int,
			      const struct scmp_arg_cmp *);
	int (*export_bpf)(const scmp_filter_ctx, int);
	const struct scmp_version *(*version)(void);
	unsigned (*api_get)(void);
};

static int api_open(const char *path, struct api *a)
{
	int flags = RTLD_NOW | RTLD_LOCAL;
#ifdef RTLD_DEEPBIND
	flags |= RTLD_DEEPBIND;
#endif
	void *h = dlopen(path, flags);
	if (!h) {
		fprintf(stderr, "bench_compat: %s\n", dlerror());
		return -1;
	}
#define SYM(field, name)                                              \
	do {                                                          \
		*(void **)&a->field = dlsym(h, name);                 \
		if (!a->field) {                                      \
			fprintf(stderr, "bench_compat: %s: no %s\n", path, name); \
			return -1;                                    \
		}                                                     \
	} while (0)
	SYM(init, "seccomp_init");
	SYM(release, "seccomp_release");
	SYM(arch_add, "seccomp_arch_add");
	SYM(attr_set, "seccomp_attr_set");
	SYM(resolve_name, "seccomp_syscall_resolve_name");
	SYM(rule_add_array, "seccomp_rule_add_array");
	SYM(export_bpf, "seccomp_export_bpf");
	SYM(version, "seccomp_version");
	SYM(api_get, "seccomp_api_get");
#undef SYM
	return 0;
}

/* ------------------------------------------------------------ the cases */

struct add {
	const char *name;	/* points into the case's name pool or a static list */
	uint32_t action;
	unsigned n;
	struct scmp_arg_cmp c[6];
};

struct bcase {
	const char *label;
	uint32_t def;
	uint32_t arches[3];	/* besides the native one */
	size_t narches;
	struct add *adds;
	size_t n, cap;
	unsigned runs;
	double time_target;	/* compat / libseccomp at most */
	const char *time_target_text;
	bool before;		/* time the --before library too */
	bool lsc_export;	/* libseccomp exports too, and the target counts it */
};

static void add_push(struct bcase *c, const struct add *a)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 256;
		c->adds = realloc(c->adds, c->cap * sizeof(*c->adds));
		if (!c->adds) {
			perror("bench_compat");
			exit(1);
		}
	}
	c->adds[c->n++] = *a;
}

/* Docker's default capabilities (moby's oci/caps/defaults.go). */
static const char *const default_caps[] = {
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FSETID", "CAP_FOWNER", "CAP_MKNOD",
	"CAP_NET_RAW", "CAP_SETGID", "CAP_SETUID", "CAP_SETFCAP", "CAP_SETPCAP",
	"CAP_NET_BIND_SERVICE", "CAP_SYS_CHROOT", "CAP_KILL", "CAP_AUDIT_WRITE",
};

static bool has_cap(const char *cap)
{
	for (size_t i = 0; i < sizeof(default_caps) / sizeof(default_caps[0]); i++)
		if (!strcmp(cap, default_caps[i]))
			return true;
	return false;
}

/* An entry's includes / excludes as Docker reads them for amd64 with the
 * default capabilities on a recent kernel. */
static bool entry_applies(json_object *e)
{
	json_object *inc, *exc, *v;
	if (json_object_object_get_ex(e, "includes", &inc)) {
		if (json_object_object_get_ex(inc, "caps", &v))
			for (size_t i = 0; i < json_object_array_length(v); i++)
				if (!has_cap(json_object_get_string(json_object_array_get_idx(v, i))))
					return false;
		if (json_object_object_get_ex(inc, "arches", &v)) {
			bool ok = false;
			for (size_t i = 0; i < json_object_array_length(v); i++)
				ok |= !strcmp(json_object_get_string(json_object_array_get_idx(v, i)),
					      "amd64");
			if (!ok)
				return false;
		}
	}
	if (json_object_object_get_ex(e, "excludes", &exc)) {
		if (json_object_object_get_ex(exc, "caps", &v))
			for (size_t i = 0; i < json_object_array_length(v); i++)
				if (has_cap(json_object_get_string(json_object_array_get_idx(v, i))))
					return false;
		if (json_object_object_get_ex(exc, "arches", &v))
			for (size_t i = 0; i < json_object_array_length(v); i++)
				if (!strcmp(json_object_get_string(json_object_array_get_idx(v, i)),
					    "amd64"))
					return false;
	}
	return true;
}

static uint32_t action_of(const char *s, json_object *errno_ret, uint32_t def_errno)
{
	uint32_t e = errno_ret ? (uint32_t)json_object_get_int(errno_ret) : def_errno;
	if (!strcmp(s, "SCMP_ACT_ALLOW"))
		return SCMP_ACT_ALLOW;
	if (!strcmp(s, "SCMP_ACT_ERRNO"))
		return SCMP_ACT_ERRNO(e);
	if (!strcmp(s, "SCMP_ACT_KILL") || !strcmp(s, "SCMP_ACT_KILL_THREAD"))
		return SCMP_ACT_KILL;
	if (!strcmp(s, "SCMP_ACT_KILL_PROCESS"))
		return SCMP_ACT_KILL_PROCESS;
	if (!strcmp(s, "SCMP_ACT_TRAP"))
		return SCMP_ACT_TRAP;
	if (!strcmp(s, "SCMP_ACT_LOG"))
		return SCMP_ACT_LOG;
	if (!strcmp(s, "SCMP_ACT_TRACE"))
		return SCMP_ACT_TRACE(e);
	return SCMP_ACT_ERRNO(e);
}

static enum scmp_compare op_of(const char *s)
{
	static const struct {
		const char *name;
		enum scmp_compare op;
	} ops[] = {
		{ "SCMP_CMP_NE", SCMP_CMP_NE }, { "SCMP_CMP_LT", SCMP_CMP_LT },
		{ "SCMP_CMP_LE", SCMP_CMP_LE }, { "SCMP_CMP_EQ", SCMP_CMP_EQ },
		{ "SCMP_CMP_GE", SCMP_CMP_GE }, { "SCMP_CMP_GT", SCMP_CMP_GT },
		{ "SCMP_CMP_MASKED_EQ", SCMP_CMP_MASKED_EQ },
	};
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(s, ops[i].name))
			return ops[i].op;
	return SCMP_CMP_EQ;
}

/* The profile at PATH as runc turns it into adds: one rule per name; when
 * two conditions test one argument, one rule per condition instead (runc's
 * matchCall, since libseccomp would refuse the pair). */
static bool load_profile(struct bcase *c, const char *short_name)
{
	char path[4096];
	char *text;
	size_t len;
	if (!testutil_profile_path(short_name, path, sizeof(path)) ||
	    testutil_load_file(path, &text, &len) < 0) {
		fprintf(stderr, "bench_compat: %s not found (%s)\n", short_name,
			testutil_profile_package(short_name));
		return false;
	}
	json_object *root = json_tokener_parse(text), *v, *calls;
	free(text);
	if (!root || !json_object_object_get_ex(root, "syscalls", &calls))
		return false;
	uint32_t def_errno = 1;
	if (json_object_object_get_ex(root, "defaultErrnoRet", &v))
		def_errno = (uint32_t)json_object_get_int(v);
	json_object_object_get_ex(root, "defaultAction", &v);
	c->def = action_of(json_object_get_string(v), NULL, def_errno);
	c->arches[0] = SCMP_ARCH_X86;
	c->arches[1] = SCMP_ARCH_X32;
	c->narches = 2;
	for (size_t i = 0; i < json_object_array_length(calls); i++) {
		json_object *e = json_object_array_get_idx(calls, i), *names, *act, *eret = NULL,
			    *args = NULL;
		if (!entry_applies(e) || !json_object_object_get_ex(e, "names", &names) ||
		    !json_object_object_get_ex(e, "action", &act))
			continue;
		json_object_object_get_ex(e, "errnoRet", &eret);
		json_object_object_get_ex(e, "args", &args);
		struct add a = { .action = action_of(json_object_get_string(act), eret, 1) };
		size_t nargs = args ? json_object_array_length(args) : 0;
		bool repeated = false;
		for (size_t k = 0; k < nargs && k < 6; k++) {
			json_object *x = json_object_array_get_idx(args, k), *f;
			struct scmp_arg_cmp *cmp = &a.c[a.n++];
			json_object_object_get_ex(x, "index", &f);
			cmp->arg = (unsigned)json_object_get_int(f);
			json_object_object_get_ex(x, "value", &f);
			cmp->datum_a = (uint64_t)json_object_get_int64(f);
			cmp->datum_b = 0;
			if (json_object_object_get_ex(x, "valueTwo", &f))
				cmp->datum_b = (uint64_t)json_object_get_int64(f);
			json_object_object_get_ex(x, "op", &f);
			cmp->op = op_of(json_object_get_string(f));
			for (unsigned j = 0; j + 1 < a.n; j++)
				repeated |= a.c[j].arg == cmp->arg;
		}
		for (size_t k = 0; k < json_object_array_length(names); k++) {
			a.name = strdup(json_object_get_string(json_object_array_get_idx(names, k)));
			if (!repeated) {
				add_push(c, &a);
				continue;
			}
			for (unsigned j = 0; j < a.n; j++) {
				struct add one = { .name = a.name, .action = a.action, .n = 1 };
				one.c[0] = a.c[j];
				add_push(c, &one);
			}
		}
	}
	json_object_put(root);
	return true;
}

/* splitmix64: the same rules on every machine. */
static uint64_t rng_state;
static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Mostly small constants, so that rules share comparisons and clash as
 * real ones on one call do, some wider ones and some whose high word
 * decides. */
static uint64_t rnd_value(void)
{
	unsigned k = (unsigned)(rnd() % 20);
	if (k < 17)
		return rnd() % 4;
	if (k < 19)
		return rnd() % 0x10000;
	return (1 + rnd() % 3) << 32 | (rnd() % 4);
}

static void rnd_rule(struct add *a, const char *name, unsigned minc, unsigned maxc)
{
	static const uint32_t acts[] = {
		SCMP_ACT_ALLOW, SCMP_ACT_ALLOW, SCMP_ACT_ALLOW, SCMP_ACT_ERRNO(1),
		SCMP_ACT_ERRNO(13), SCMP_ACT_KILL_PROCESS, SCMP_ACT_TRAP, SCMP_ACT_LOG,
	};
	static const enum scmp_compare ops[] = {
		SCMP_CMP_EQ, SCMP_CMP_EQ, SCMP_CMP_NE, SCMP_CMP_LT, SCMP_CMP_LE,
		SCMP_CMP_GT, SCMP_CMP_GE, SCMP_CMP_MASKED_EQ,
	};
	*a = (struct add){ .name = name, .action = acts[rnd() % 8] };
	unsigned n = minc + (unsigned)(rnd() % (maxc - minc + 1));
	bool used[6] = { false };
	unsigned last = 0;
	for (unsigned k = 0; k < n;) {
		unsigned arg = (unsigned)(rnd() % 6);
		if (!used[arg]) {
			used[arg] = true;
			last = arg > last ? arg : last;
			k++;
		}
	}
	for (unsigned arg = 0; arg < 6; arg++) {
		if (!used[arg])
			continue;
		struct scmp_arg_cmp *c = &a->c[a->n++];
		c->arg = arg;
		/* A 64-bit range or "!=" reaches the next condition from two
		 * comparisons, and libseccomp 2.5.4 can loop forever merging
		 * what follows such a pair: only the last condition has one. */
		c->op = arg == last ? ops[rnd() % 8] : rnd() % 4 ? SCMP_CMP_EQ : SCMP_CMP_MASKED_EQ;
		c->datum_a = rnd_value();
		c->datum_b = 0;
		if (c->op == SCMP_CMP_MASKED_EQ) {
			static const uint64_t masks[] = { 0xff, 0xf0, 0x3, 0x80000000 };
			c->datum_a = masks[rnd() % 4];
			c->datum_b = rnd_value() & c->datum_a;
		}
	}
}

static const char *const few_calls[] = {
	"read", "write", "openat", "close", "mmap", "mprotect", "ioctl", "fcntl",
	"socket", "connect", "sendto", "recvfrom", "setsockopt", "getsockopt", "clone",
	"futex", "prctl", "madvise", "kill", "tgkill", "lseek", "pread64", "pwrite64",
	"dup3", "pipe2", "epoll_ctl", "accept4", "bind", "listen", "shutdown",
	"personality", "setns", "unshare", "mount", "umount2", "ptrace", "keyctl", "bpf",
	"perf_event_open", "msgget", "semctl", "shmat",
};

static void random_case(struct bcase *c, size_t n, bool every_call, uint64_t seed)
{
	static char *names[1024];
	static size_t nnames;
	if (every_call && !nnames)
		for (uint32_t nr = 0; nr < 1024 && nnames < 1024; nr++) {
			char buf[64];
			if (scmpc_syscall_name(SCMPC_ARCH_X86_64, nr, buf, sizeof(buf)))
				names[nnames++] = strdup(buf);
		}
	rng_state = seed;
	c->def = SCMP_ACT_ERRNO(38);
	c->narches = 0;		/* the native ABI alone */
	size_t ncalls = sizeof(few_calls) / sizeof(few_calls[0]);
	for (size_t i = 0; i < n; i++) {
		struct add a;
		const char *name = every_call ? names[rnd() % nnames] : few_calls[rnd() % ncalls];
		rnd_rule(&a, name, 1, 3);
		add_push(c, &a);
	}
}

/* ------------------------------------------------------------ one run */

struct result {
	int status;		/* 0 done, 1 timed out, 2 failed */
	double add_ms, export_ms;	/* export_ms < 0: not exported */
	long add_kb, peak_kb;	/* peak resident set above the start: adds, all */
	int export_rc;
	uint64_t rc_hash, prog_hash;
	size_t ok, refused;	/* adds answered 0, and otherwise */
	size_t prog_len;
};

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

static long status_kb(const char *field)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;
	size_t n = strlen(field);
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':')
			kb = strtol(line + n + 1, NULL, 10);
	if (f)
		fclose(f);
	return kb;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* In the child: build C's filter once with the library at PATH, and
 * export it when EXPORT. */
static void child_run(const struct bcase *c, const char *path, bool export, int out)
{
	struct api a;
	struct result r = { .status = 2, .export_ms = -1 };
	if (api_open(path, &a) < 0) {
		(void)!write(out, &r, sizeof(r));
		_exit(1);
	}
	/* The probe of the kernel both libraries make on first use. */
	(void)a.api_get();
	(void)a.resolve_name("read");
	int fd = memfd_create("bench_compat", 0);
	FILE *clear = fopen("/proc/self/clear_refs", "w");
	if (clear) {
		fputs("5", clear);	/* reset the peak resident set */
		fclose(clear);
	}
	long base = status_kb("VmRSS");
	bool trace = getenv("BENCH_TRACE") != NULL;

	double t0 = now_ms();
	uint64_t h = 0xcbf29ce484222325ULL;
	scmp_filter_ctx ctx = a.init(c->def);
	a.attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
	for (size_t i = 0; i < c->narches; i++)
		a.arch_add(ctx, c->arches[i]);
	for (size_t i = 0; i < c->n; i++) {
		const struct add *x = &c->adds[i];
		int nr = a.resolve_name(x->name);
		if (nr == __NR_SCMP_ERROR)
			continue;
		if (trace) {
			/* which add a library gets stuck on */
			fprintf(stderr, "%zu %s act=%#x", i, x->name, x->action);
			for (unsigned k = 0; k < x->n; k++)
				fprintf(stderr, " a%u op%d %#" PRIx64 " %#" PRIx64, x->c[k].arg,
					x->c[k].op, (uint64_t)x->c[k].datum_a, (uint64_t)x->c[k].datum_b);
			fflush(stderr);
		}
		int rc = a.rule_add_array(ctx, x->action, nr, x->n, x->c);
		if (trace)	/* and its answer, to compare the libraries' */
			fprintf(stderr, " -> %d\n", rc);
		h = fnv(h, &rc, sizeof(rc));
		if (rc)
			r.refused++;
		else
			r.ok++;
	}
	double t1 = now_ms();
	r.add_kb = status_kb("VmHWM") - base;
	if (export)
		r.export_rc = a.export_bpf(ctx, fd);
	a.release(ctx);
	double t2 = now_ms();

	r.peak_kb = status_kb("VmHWM") - base;
	r.add_ms = t1 - t0;
	if (export)
		r.export_ms = t2 - t1;
	r.rc_hash = h;
	off_t len = lseek(fd, 0, SEEK_END);
	r.prog_len = len > 0 ? (size_t)len : 0;
	r.prog_hash = 0xcbf29ce484222325ULL;
	char *buf = r.prog_len ? malloc(r.prog_len) : NULL;
	if (buf && pread(fd, buf, r.prog_len, 0) == (ssize_t)r.prog_len)
		r.prog_hash = fnv(r.prog_hash, buf, r.prog_len);
	free(buf);
	r.status = 0;
	(void)!write(out, &r, sizeof(r));
	_exit(0);
}

static struct result run_once(const struct bcase *c, const char *path, bool export,
			      unsigned timeout_s)
{
	struct result r = { .status = 2 };
	int p[2];
	fflush(NULL);
	if (pipe(p) < 0)
		return r;
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		alarm(timeout_s);
		child_run(c, path, export, p[1]);
	}
	close(p[1]);
	ssize_t got = pid > 0 ? read(p[0], &r, sizeof(r)) : -1;
	close(p[0]);
	int st = 0;
	if (pid > 0)
		waitpid(pid, &st, 0);
	if (got != (ssize_t)sizeof(r)) {
		if (WIFSIGNALED(st) && WTERMSIG(st) != SIGALRM)
			fprintf(stderr, "bench_compat: %s: killed by signal %d\n", path, WTERMSIG(st));
		r = (struct result){ .status = WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM ? 1 : 2 };
	}
	return r;
}

/* ------------------------------------------------------------ the table */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	if (!n)
		return -1;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static FILE *csv;

static void usage(void)
{
	fprintf(stderr, "usage: bench_compat [--runs N] [--quick] [--before LIB] [--timeout S] "
			"[--csv FILE] [--only CASE] [--lib lsc|compat]\n");
	exit(2);
}

static void fmt_ms(char *buf, size_t len, size_t got, bool timed_out, double ms)
{
	if (ms < 0 && got)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, got ? "%.2f" : timed_out ? "timeout" : "failed", ms);
}

int main(int argc, char **argv)
{
	const char *before = NULL, *only = NULL, *lib_only = NULL;
	unsigned runs = 0, timeout_s = 300;
	bool quick = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick"))
			quick = true;
		else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
			runs = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--before") && i + 1 < argc)
			before = argv[++i];
		else if (!strcmp(argv[i], "--timeout") && i + 1 < argc)
			timeout_s = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--only") && i + 1 < argc)
			only = argv[++i];
		else if (!strcmp(argv[i], "--lib") && i + 1 < argc)
			lib_only = argv[++i];
		else if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
			if (!(csv = fopen(argv[++i], "w"))) {
				perror(argv[i]);
				return 1;
			}
		} else
			usage();
	}

	/* libseccomp 2.5.4's export of a few thousand argument rules takes
	 * minutes (it grows about cubically: 400 random rules 1.9 s, 800 18 s
	 * on the machine this was written on), so the random cases time its
	 * rule adds alone against the compatible library's; the compatible
	 * library's export is timed and shown all the same. */
	struct bcase cases[4] = {
		{ .label = "docker-default", .runs = 21, .time_target = 0.8,
		  .time_target_text = "<= 0.8x", .before = true, .lsc_export = true },
		{ .label = "podman-default", .runs = 21, .time_target = 0.8,
		  .time_target_text = "<= 0.8x", .before = true, .lsc_export = true },
		{ .label = "random-2000", .runs = 7, .time_target = 1.0,
		  .time_target_text = "<= 1x", .before = true },
		{ .label = "random-100000", .runs = 3, .time_target = -10000,
		  .time_target_text = "< 10 s" },
	};
	bool loaded[4] = {
		load_profile(&cases[0], "docker-default.json"),
		load_profile(&cases[1], "podman-default.json"),
		true, true,
	};
	random_case(&cases[2], 2000, false, 2026);
	random_case(&cases[3], 100000, true, 100000);

	printf("compatible library: %s\nlibseccomp:         %s\n", COMPAT_LIB, SYSTEM_LIB);
	if (before)
		printf("before:             %s (one run per case)\n", before);
	printf("each run a fresh child: init, ABIs, seccomp_syscall_resolve_name + "
	       "seccomp_rule_add_array per rule (adds), seccomp_export_bpf + release (export);\n"
	       "medians of interleaved runs; ratio = compat / libseccomp of what the target "
	       "names\n\n");
	printf("%-14s %6s %4s | %9s %9s | %9s %9s | %6s %-13s %-4s | %7s %7s %5s %-4s | %-4s %-11s",
	       "case", "rules", "runs", "lsc add", "lsc exp", "cmp add", "cmp exp", "ratio",
	       "target", "ok", "lsc KB", "cmp KB", "ratio", "ok", "rcs", "refused");
	if (before)
		printf(" | %10s %-4s", "before ms", "same");
	printf("\n");
	if (csv)
		fprintf(csv, "case,rules,runs,lsc_add_ms,lsc_export_ms,compat_add_ms,compat_export_ms,"
			     "ratio,time_ok,lsc_kb,compat_kb,mem_ratio,mem_ok,rcs_agree,compat_refused,"
			     "lsc_refused,before_ms,same_prog\n");

	unsigned passed = 0, targets = 0;
	for (size_t k = 0; k < 4; k++) {
		struct bcase *c = &cases[k];
		if (!loaded[k] || (only && !strstr(c->label, only)))
			continue;
		unsigned n = runs ? runs : quick ? (c->runs > 3 ? 3 : c->runs) : c->runs;
		/* per library: adds, export, total, memory */
		double *v[2][4];
		for (int l = 0; l < 2; l++)
			for (int m = 0; m < 4; m++)
				v[l][m] = calloc(n, sizeof(double));
		size_t got[2] = { 0, 0 };
		struct result last[2] = { { .status = 2 }, { .status = 2 } };
		bool timed_out[2] = { false, false }, rcs_agree = true;
		const char *paths[2] = { SYSTEM_LIB, COMPAT_LIB };
		for (unsigned i = 0; i < n; i++)
			for (int j = 0; j < 2; j++) {
				int l = (int)(i % 2 ? 1 - j : j);	/* alternate who goes first */
				if (timed_out[l] || (lib_only && strcmp(lib_only, l ? "compat" : "lsc")))
					continue;
				bool exp = l == 1 || c->lsc_export;
				struct result r = run_once(c, paths[l], exp, timeout_s);
				if (r.status == 1)
					timed_out[l] = true;
				if (r.status)
					continue;
				v[l][0][got[l]] = r.add_ms;
				v[l][1][got[l]] = r.export_ms;
				v[l][2][got[l]] = r.add_ms + (exp ? r.export_ms : 0);
				v[l][3][got[l]++] = (double)(c->lsc_export ? r.peak_kb : r.add_kb);
				if (last[1 - l].status == 0 && last[1 - l].rc_hash != r.rc_hash)
					rcs_agree = false;
				last[l] = r;
			}
		double med[2][4];
		for (int l = 0; l < 2; l++)
			for (int m = 0; m < 4; m++)
				med[l][m] = median(v[l][m], got[l]);
		bool have = got[0] && got[1];
		/* what the target compares: everything, or the adds alone */
		int what = c->lsc_export ? 2 : 0;
		double ratio = have ? med[1][what] / med[0][what] : -1;
		double mratio = have ? med[1][3] / med[0][3] : -1;
		bool tok = c->time_target > 0 ? have && ratio <= c->time_target
					      : got[1] && med[1][2] < -c->time_target;
		bool mok = have && mratio <= 2.0;
		targets += 1 + (c->time_target > 0);
		passed += tok + (c->time_target > 0 && mok);
		char f[4][32];
		fmt_ms(f[0], sizeof(f[0]), got[0], timed_out[0], med[0][0]);
		fmt_ms(f[1], sizeof(f[1]), got[0], timed_out[0], med[0][1]);
		fmt_ms(f[2], sizeof(f[2]), got[1], timed_out[1], med[1][0]);
		fmt_ms(f[3], sizeof(f[3]), got[1], timed_out[1], med[1][1]);
		char tt[32];
		snprintf(tt, sizeof(tt), "%s %s", c->time_target_text,
			 c->time_target < 0 ? "all" : c->lsc_export ? "all" : "adds");
		char refused[32];
		snprintf(refused, sizeof(refused), "%zu/%zu", last[1].refused, last[0].refused);
		printf("%-14s %6zu %4u | %9s %9s | %9s %9s | %6.3f %-13s %-4s | %7.0f %7.0f %5.2f %-4s "
		       "| %-4s %-11s",
		       c->label, c->n, n, f[0], f[1], f[2], f[3], ratio, tt, tok ? "PASS" : "FAIL",
		       med[0][3], med[1][3], mratio,
		       c->time_target < 0 ? "-" : mok ? "PASS" : "FAIL",
		       have ? (rcs_agree && last[0].rc_hash == last[1].rc_hash ? "same" : "DIFF") : "-",
		       refused);
		if (got[1] && last[1].export_rc)
			printf(" [compat export: %s]", strerror(-last[1].export_rc));
		double bms = -1;
		bool same = false;
		if (before && c->before) {
			struct result b = run_once(c, before, true, timeout_s);
			bms = b.status == 0 ? b.add_ms + b.export_ms : -1;
			same = b.status == 0 && last[1].status == 0 && b.prog_hash == last[1].prog_hash &&
			       b.prog_len == last[1].prog_len && b.rc_hash == last[1].rc_hash &&
			       b.export_rc == last[1].export_rc;
			if (b.status == 0)
				printf(" | %10.2f %-4s", bms, same ? "yes" : "NO");
			else
				printf(" | %10s %-4s", b.status == 1 ? "timeout" : "failed", "-");
		} else if (before) {
			printf(" | %10s %-4s", "-", "-");
		}
		printf("\n");
		fflush(stdout);
		if (csv)
			fprintf(csv, "%s,%zu,%u,%.3f,%.3f,%.3f,%.3f,%.4f,%d,%.0f,%.0f,%.3f,%d,%d,%zu,%zu,"
				"%.3f,%d\n",
				c->label, c->n, n, med[0][0], med[0][1], med[1][0], med[1][1], ratio, tok,
				med[0][3], med[1][3], mratio, mok, have && rcs_agree, last[1].refused,
				last[0].refused, bms, same);
		for (int l = 0; l < 2; l++)
			for (int m = 0; m < 4; m++)
				free(v[l][m]);
	}
	printf("\nms: median wall time; add = init, ABIs, names and rule adds; exp = export and "
	       "release ('-': not run)\n"
	       "KB: peak resident set above the child's start (while adding only where "
	       "libseccomp does not export); target <= 2x libseccomp's\n"
	       "refused: adds answered non-zero, compat/libseccomp; rcs: every add's return code "
	       "the same in both\n"
	       "same: --before's program, export code and add codes identical to this build's\n"
	       "%u of %u targets met\n", passed, targets);
	if (csv)
		fclose(csv);
	return 0;
}

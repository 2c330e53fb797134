/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The libseccomp-compatible library (src/compat, libseccomp.so.2 on scmpc)
 * against the real libseccomp 2.5 it replaces.
 *
 * Both libraries are dlopen()ed from their full paths (COMPAT_LIB and
 * SYSTEM_LIB, set by tests/meson.build) with RTLD_LOCAL and, where the
 * sanitizer allows it, RTLD_DEEPBIND, so that each one's calls to its own
 * seccomp_* functions stay inside it; this program does not link
 * libseccomp, so neither is in the global scope either.  Their API is
 * reached through a table of function pointers per library.
 *
 *  1. Differential: random filters (fixed seed, SCMPC_SEED; count,
 *     SCMPC_COMPAT_COUNT; one iteration, SCMPC_RANDOM_ONLY) built through
 *     both APIs call for call, every return code compared, both programs
 *     exported with seccomp_export_bpf() and run with scmpc_emulate() on
 *     the same probes: every ABI of the x86/ARM families (those the filter
 *     does not have test the bad-arch path), the numbers of the calls the
 *     rules name and of the multiplexers, -1, numbers past the tables and
 *     with and without x32's bit 30, arguments around every constant the
 *     rules compare.  libseccomp's side runs in a child with a time limit
 *     (SCMPC_COMPAT_TIMEOUT_MS): 2.5.4 can loop forever in
 *     seccomp_rule_add().  Every difference is printed (the filter as C
 *     calls, the seccomp_data, both results), labelled and counted.  Only
 *     differences that are libseccomp's own defects are not failures, and
 *     each must be shown to be one: the documented semantics decide alone
 *     and libseccomp's program does not follow them (see oracle()); or its
 *     answer is none of the matching rules' actions; or its program
 *     disagrees with its own PFC (its rule database as text, read by
 *     pfc_eval(); the reader must agree with libseccomp's programs on 99%
 *     of all probes, or it excuses nothing) while compat follows the PFC;
 *     or an order-dependent difference on a call where one of those was
 *     shown.  One difference is scmpc's on purpose: socketcall(2) and
 *     ipc(2) with bits in argument 0 that the kernel does not read as the
 *     call (ipc's version above the low 16 bits), where the compatible
 *     library tests the sub-call as the kernel decodes it and libseccomp
 *     compares the whole argument; each such difference must be what the
 *     semantics give under each reading.  Every other difference fails.  The first
 *     SCMPC_COMPAT_SHRINK differing filters are shrunk to a minimal one
 *     (SCMPC_COMPAT_SHRINK_KIND=N keeps a difference of label N;
 *     SCMPC_COMPAT_SHRINK_HANGS=1 shrinks filters libseccomp hangs on);
 *     SCMPC_COMPAT_VERBOSE=1 prints every difference; the run stops after
 *     SCMPC_COMPAT_SECONDS.  Name and number resolution and the ABI names
 *     are compared too.
 *  2. API behaviour, from libseccomp 2.5.4's regression tests
 *     (11-basic-basic_errors, 13-basic-attrs) and documentation, on both
 *     libraries where libseccomp has the call; the 2.6 calls (transactions,
 *     seccomp_export_bpf_mem) on the compatible library alone.
 *  3. A filter built and loaded with the compatible library in a child.
 *  4. libseccomp 2.6 and main on the compatible library (on libseccomp too
 *     where it is 2.6 or later): the API level against this test's own
 *     probe of the kernel, WAITKILL carried by a loaded filter (a signal
 *     to a notified child that is held off only with WAIT_KILLABLE_RECV),
 *     seccomp_notify_addfd() installing a descriptor in a notified child,
 *     and TRAP with data as the header allows it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <seccomp.h>

#include "pipe_io.h"
#include "scmpc.h"

#ifndef COMPAT_LIB
#error "COMPAT_LIB: the compatible library's path (tests/meson.build)"
#endif
#ifndef SYSTEM_LIB
#define SYSTEM_LIB "libseccomp.so.2"
#endif

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define SKIPPED 77

/* ASan refuses RTLD_DEEPBIND (it would bypass its interceptors). */
#if defined(__SANITIZE_ADDRESS__)
#define NO_DEEPBIND 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NO_DEEPBIND 1
#endif
#endif
#ifdef NO_DEEPBIND
#define DLFLAGS (RTLD_NOW | RTLD_LOCAL)
#else
#define DLFLAGS (RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND)
#endif

/* ------------------------------------------------------------ the two APIs */

/* seccomp.h 2.6 calls a 2.5 header does not declare. */
typedef int (*transaction_start_fn)(const scmp_filter_ctx);
typedef void (*transaction_reject_fn)(const scmp_filter_ctx);
typedef int (*transaction_commit_fn)(const scmp_filter_ctx);
typedef int (*export_bpf_mem_fn)(const scmp_filter_ctx, void *, size_t *);
typedef int (*precompute_fn)(const scmp_filter_ctx);
/* libseccomp main */
typedef int (*notify_addfd_fn)(int, struct seccomp_notif_addfd *);

/* seccomp.h 2.6's WAITKILL attribute, and the kernel's flag behind it. */
#define ATTR_WAITKILL ((enum scmp_filter_attr)10)
#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

struct api {
	const char *name, *path;
	void *h;
	__typeof__(&seccomp_init) init;
	__typeof__(&seccomp_reset) reset;
	__typeof__(&seccomp_release) release;
	__typeof__(&seccomp_merge) merge;
	__typeof__(&seccomp_arch_resolve_name) arch_resolve_name;
	__typeof__(&seccomp_arch_native) arch_native;
	__typeof__(&seccomp_arch_exist) arch_exist;
	__typeof__(&seccomp_arch_add) arch_add;
	__typeof__(&seccomp_arch_remove) arch_remove;
	__typeof__(&seccomp_load) load;
	__typeof__(&seccomp_attr_get) attr_get;
	__typeof__(&seccomp_attr_set) attr_set;
	__typeof__(&seccomp_syscall_resolve_num_arch) resolve_num_arch;
	__typeof__(&seccomp_syscall_resolve_name_arch) resolve_name_arch;
	__typeof__(&seccomp_syscall_resolve_name_rewrite) resolve_name_rewrite;
	__typeof__(&seccomp_syscall_resolve_name) resolve_name;
	__typeof__(&seccomp_syscall_priority) syscall_priority;
	__typeof__(&seccomp_rule_add) rule_add;
	__typeof__(&seccomp_rule_add_array) rule_add_array;
	__typeof__(&seccomp_rule_add_exact) rule_add_exact;
	__typeof__(&seccomp_rule_add_exact_array) rule_add_exact_array;
	__typeof__(&seccomp_export_pfc) export_pfc;
	__typeof__(&seccomp_export_bpf) export_bpf;
	__typeof__(&seccomp_api_get) api_get;
	__typeof__(&seccomp_api_set) api_set;
	__typeof__(&seccomp_version) version;
	__typeof__(&seccomp_notify_alloc) notify_alloc;
	__typeof__(&seccomp_notify_free) notify_free;
	__typeof__(&seccomp_notify_receive) notify_receive;
	__typeof__(&seccomp_notify_respond) notify_respond;
	__typeof__(&seccomp_notify_id_valid) notify_id_valid;
	__typeof__(&seccomp_notify_fd) notify_fd;
	/* optional: libseccomp main */
	notify_addfd_fn notify_addfd;
	/* optional: libseccomp 2.6 */
	precompute_fn precompute;
	transaction_start_fn transaction_start;
	transaction_reject_fn transaction_reject;
	transaction_commit_fn transaction_commit;
	export_bpf_mem_fn export_bpf_mem;
};

static struct api sys_api = { .name = "libseccomp", .path = SYSTEM_LIB };
static struct api cmp_api = { .name = "compat", .path = COMPAT_LIB };
static char load_err[1024];

static void *sym(struct api *L, const char *name, bool required)
{
	void *p = dlsym(L->h, name);
	if (!p && required && !load_err[0])
		snprintf(load_err, sizeof(load_err), "%s (%s) has no %s", L->name, L->path, name);
	return p;
}

#define RESOLVE(L, field, name, req)                                   \
	do {                                                           \
		void *p_ = sym(L, name, req);                          \
		memcpy(&(L)->field, &p_, sizeof(p_));                  \
	} while (0)

static int api_open(struct api *L)
{
	L->h = dlopen(L->path, DLFLAGS);
	if (!L->h) {
		snprintf(load_err, sizeof(load_err), "dlopen %s: %s", L->path, dlerror());
		return -1;
	}
	RESOLVE(L, init, "seccomp_init", true);
	RESOLVE(L, reset, "seccomp_reset", true);
	RESOLVE(L, release, "seccomp_release", true);
	RESOLVE(L, merge, "seccomp_merge", true);
	RESOLVE(L, arch_resolve_name, "seccomp_arch_resolve_name", true);
	RESOLVE(L, arch_native, "seccomp_arch_native", true);
	RESOLVE(L, arch_exist, "seccomp_arch_exist", true);
	RESOLVE(L, arch_add, "seccomp_arch_add", true);
	RESOLVE(L, arch_remove, "seccomp_arch_remove", true);
	RESOLVE(L, load, "seccomp_load", true);
	RESOLVE(L, attr_get, "seccomp_attr_get", true);
	RESOLVE(L, attr_set, "seccomp_attr_set", true);
	RESOLVE(L, resolve_num_arch, "seccomp_syscall_resolve_num_arch", true);
	RESOLVE(L, resolve_name_arch, "seccomp_syscall_resolve_name_arch", true);
	RESOLVE(L, resolve_name_rewrite, "seccomp_syscall_resolve_name_rewrite", true);
	RESOLVE(L, resolve_name, "seccomp_syscall_resolve_name", true);
	RESOLVE(L, syscall_priority, "seccomp_syscall_priority", true);
	RESOLVE(L, rule_add, "seccomp_rule_add", true);
	RESOLVE(L, rule_add_array, "seccomp_rule_add_array", true);
	RESOLVE(L, rule_add_exact, "seccomp_rule_add_exact", true);
	RESOLVE(L, rule_add_exact_array, "seccomp_rule_add_exact_array", true);
	RESOLVE(L, export_pfc, "seccomp_export_pfc", true);
	RESOLVE(L, export_bpf, "seccomp_export_bpf", true);
	RESOLVE(L, api_get, "seccomp_api_get", true);
	RESOLVE(L, api_set, "seccomp_api_set", true);
	RESOLVE(L, version, "seccomp_version", true);
	RESOLVE(L, notify_alloc, "seccomp_notify_alloc", true);
	RESOLVE(L, notify_free, "seccomp_notify_free", true);
	RESOLVE(L, notify_receive, "seccomp_notify_receive", true);
	RESOLVE(L, notify_respond, "seccomp_notify_respond", true);
	RESOLVE(L, notify_id_valid, "seccomp_notify_id_valid", true);
	RESOLVE(L, notify_fd, "seccomp_notify_fd", true);
	RESOLVE(L, notify_addfd, "seccomp_notify_addfd", false);
	RESOLVE(L, precompute, "seccomp_precompute", false);
	RESOLVE(L, transaction_start, "seccomp_transaction_start", false);
	RESOLVE(L, transaction_reject, "seccomp_transaction_reject", false);
	RESOLVE(L, transaction_commit, "seccomp_transaction_commit", false);
	RESOLVE(L, export_bpf_mem, "seccomp_export_bpf_mem", false);
	return load_err[0] ? -1 : 0;
}

static int setup(void **state)
{
	(void)state;
	if (api_open(&sys_api) < 0 || api_open(&cmp_api) < 0) {
		fprintf(stderr, "%s\n", load_err);
		return -1;
	}
	if (sys_api.h == cmp_api.h || sys_api.init == cmp_api.init) {
		fprintf(stderr, "%s and %s resolved to the same library\n", SYSTEM_LIB, COMPAT_LIB);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	/* Not dlclose()d: valgrind and ASan name the libraries in their
	 * reports only while they are mapped. */
	return 0;
}

static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *e = getenv(name);
	return e && *e ? strtoull(e, NULL, 0) : def;
}

/* ----------------------------------------------------------------- random */

static uint64_t rng;

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rnd(void)
{
	return splitmix(&rng);
}

static unsigned rndn(unsigned n)
{
	return (unsigned)(rnd() % n);
}

static bool chance(unsigned percent)
{
	return rndn(100) < percent;
}

/* ---------------------------------------------------------------- filters */

#define MAXR 12
#define MAXA 3

static const char *const sysnames[] = {
	"read", "write", "openat", "close", "mmap", "ioctl", "futex", "clone",
	"socket", "connect", "accept", "sendto", "accept4",
	"semop", "shmget", "msgsnd",
	"open", "time", "arch_prctl", "socketcall", "ipc",
};

/* The little-endian ABIs libseccomp can put together in one filter. */
static const struct {
	uint32_t token;
	enum scmpc_arch arch;
	const char *name;
} abis[] = {
	{ SCMP_ARCH_X86_64, SCMPC_ARCH_X86_64, "SCMP_ARCH_X86_64" },
	{ SCMP_ARCH_X86, SCMPC_ARCH_I386, "SCMP_ARCH_X86" },
	{ SCMP_ARCH_X32, SCMPC_ARCH_X32, "SCMP_ARCH_X32" },
	{ SCMP_ARCH_AARCH64, SCMPC_ARCH_AARCH64, "SCMP_ARCH_AARCH64" },
	{ SCMP_ARCH_ARM, SCMPC_ARCH_ARM, "SCMP_ARCH_ARM" },
};

static const uint32_t def_actions[] = {
	SCMP_ACT_ALLOW, SCMP_ACT_ERRNO(38), SCMP_ACT_KILL, SCMP_ACT_KILL_PROCESS, SCMP_ACT_TRAP,
	SCMP_ACT_LOG, SCMP_ACT_ERRNO(1),
};

static const uint32_t rule_actions[] = {
	SCMP_ACT_ALLOW, SCMP_ACT_ALLOW, SCMP_ACT_ERRNO(1), SCMP_ACT_ERRNO(2), SCMP_ACT_ERRNO(13),
	SCMP_ACT_TRAP, SCMP_ACT_KILL, SCMP_ACT_KILL_PROCESS, SCMP_ACT_LOG, SCMP_ACT_TRACE(1),
	SCMP_ACT_TRACE(7), SCMP_ACT_ERRNO(38),
};

/* Rarely: the edges of what an action may carry. */
static const uint32_t odd_actions[] = {
	SCMP_ACT_ERRNO(4095), SCMP_ACT_ERRNO(4096), SCMP_ACT_TRACE(0xffff), SCMP_ACT_NOTIFY,
	SCMP_ACT_ALLOW + 1, 0x00010000U,
};

static const uint64_t values[] = {
	0, 1, 2, 3, 5, 0x10, 0xff, 0x100, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff,
	0x100000000ULL, 0x100000001ULL, 0x100000005ULL, 0x1ffffffffULL, 0xffffffff00000000ULL,
	0xfffffffffffffffeULL, 0xffffffffffffffffULL, 0x8000000000000000ULL, 0x500000005ULL,
};

static const uint64_t masks[] = {
	0, 1, 0xf, 0xf0, 0xff, 0xffff, 0xffffffff, 0xffffffff00000000ULL, 0xff000000ffULL,
	0xffffffffffffffffULL, 0x100000000ULL, 0x1000000ffULL,
};

/* socketcall(2)/ipc(2) call numbers of the calls above (SYS_SOCKET,
 * SYS_CONNECT, SYS_ACCEPT, SYS_SENDTO, SYS_ACCEPT4; SEMOP, MSGSND,
 * SHMGET), and ipc's with a version in the high half. */
static const uint64_t mux_calls[] = { 1, 3, 5, 11, 18, 23, 0x10001, 0x1000b, 0x10017 };

enum how { ADD, ADD_ARRAY, ADD_EXACT, ADD_EXACT_ARRAY };

struct rule {
	const char *name;	/* NULL: raw number */
	int raw;
	uint32_t action;
	enum how how;
	unsigned n;
	struct scmp_arg_cmp c[6];
};

struct filter {
	uint32_t def;
	bool keep_native;
	unsigned ntok;
	uint32_t tok[MAXA];
	bool set_badarch, tskip, opt2;
	uint32_t badarch;
	unsigned nrules;
	struct rule r[MAXR];
};

static uint64_t rnd_value(void)
{
	uint64_t v = values[rndn(N(values))];
	switch (rndn(8)) {
	case 0: return v + 1;
	case 1: return v - 1;
	case 2: return mux_calls[rndn(N(mux_calls))];
	default: return v;
	}
}

static void gen_cmp(struct scmp_arg_cmp *c, unsigned arg)
{
	c->arg = arg;
	c->op = (enum scmp_compare)(1 + rndn(7));
	if (c->op == SCMP_CMP_MASKED_EQ) {
		c->datum_a = masks[rndn(N(masks))];
		c->datum_b = chance(60) ? rnd_value() & c->datum_a : rnd_value();
	} else {
		c->datum_a = rnd_value();
		c->datum_b = chance(10) ? rnd_value() : 0;	/* ignored */
	}
}

static void gen_filter(struct filter *f)
{
	memset(f, 0, sizeof(*f));
	f->def = def_actions[rndn(N(def_actions))];
	f->keep_native = chance(20);
	/* 1-3 distinct ABIs in a random order */
	f->ntok = 1 + rndn(MAXA);
	for (unsigned i = 0; i < f->ntok;) {
		uint32_t t = abis[rndn(N(abis))].token;
		bool dup = false;
		for (unsigned j = 0; j < i; j++)
			dup |= f->tok[j] == t;
		if (!dup || chance(3))
			f->tok[i++] = t;
	}
	if ((f->set_badarch = chance(25)))
		f->badarch = chance(50) ? SCMP_ACT_ERRNO(99) : rule_actions[rndn(N(rule_actions))];
	f->tskip = chance(5);
	f->opt2 = chance(30);

	/* a few calls per filter, so that rules meet */
	const char *pool[5];
	unsigned npool = 1 + rndn(N(pool));
	for (unsigned i = 0; i < npool; i++)
		pool[i] = sysnames[rndn(N(sysnames))];
	f->nrules = 1 + rndn(MAXR);
	for (unsigned i = 0; i < f->nrules; i++) {
		struct rule *r = &f->r[i];
		r->name = pool[rndn(npool)];
		if (chance(6)) {
			static const int raws[] = { 1000, -1, -10, -101, -201, __PNR_socketcall, 0 };
			r->name = NULL;
			r->raw = raws[rndn(N(raws))];
			if (!r->raw) {
				int64_t nr = scmpc_syscall_resolve(scmpc_arch_native(), pool[0]);
				r->raw = nr >= 0 ? (int)nr : 1000;
			}
		}
		if (chance(4))
			r->action = odd_actions[rndn(N(odd_actions))];
		else if (chance(15))
			r->action = f->def;
		else
			r->action = rule_actions[rndn(N(rule_actions))];
		unsigned h = rndn(100);
		r->how = h < 45 ? ADD : h < 85 ? ADD_ARRAY : h < 93 ? ADD_EXACT : ADD_EXACT_ARRAY;
		unsigned k = rndn(10);
		r->n = k < 3 ? 0 : k < 6 ? 1 : k < 9 ? 2 : 3;
		bool used[6] = { false };
		for (unsigned j = 0; j < r->n; j++) {
			unsigned arg;
			do {
				arg = chance(75) ? rndn(3) : rndn(6);
			} while (used[arg] && !chance(5));
			used[arg] = true;
			gen_cmp(&r->c[j], arg);
		}
	}
}

/* -------------------------------------------------------------- printing */

static const char *token_str(uint32_t t)
{
	static char buf[32];
	if (t == SCMP_ARCH_NATIVE)
		return "SCMP_ARCH_NATIVE";
	for (size_t i = 0; i < N(abis); i++)
		if (abis[i].token == t)
			return abis[i].name;
	snprintf(buf, sizeof(buf), "0x%" PRIx32, t);
	return buf;
}

static void act_str(uint32_t a, char *buf, size_t len)
{
	switch (a & 0xffff0000U) {
	case SCMP_ACT_KILL_PROCESS: snprintf(buf, len, "SCMP_ACT_KILL_PROCESS"); break;
	case SCMP_ACT_KILL_THREAD: snprintf(buf, len, "SCMP_ACT_KILL"); break;
	case SCMP_ACT_TRAP: snprintf(buf, len, "SCMP_ACT_TRAP"); break;
	case SCMP_ACT_NOTIFY: snprintf(buf, len, "SCMP_ACT_NOTIFY"); break;
	case SCMP_ACT_ERRNO(0): snprintf(buf, len, "SCMP_ACT_ERRNO(%u)", a & 0xffffU); return;
	case SCMP_ACT_TRACE(0): snprintf(buf, len, "SCMP_ACT_TRACE(%u)", a & 0xffffU); return;
	case SCMP_ACT_LOG: snprintf(buf, len, "SCMP_ACT_LOG"); break;
	case SCMP_ACT_ALLOW: snprintf(buf, len, "SCMP_ACT_ALLOW"); break;
	default: snprintf(buf, len, "0x%08" PRIx32, a); return;
	}
	if (a & 0xffffU) {
		size_t l = strlen(buf);
		snprintf(buf + l, len - l, " + %u", a & 0xffffU);
	}
}

static const char *const op_names[] = {
	"?", "SCMP_CMP_NE", "SCMP_CMP_LT", "SCMP_CMP_LE", "SCMP_CMP_EQ",
	"SCMP_CMP_GE", "SCMP_CMP_GT", "SCMP_CMP_MASKED_EQ",
};

static void print_rule(FILE *o, const struct rule *r)
{
	static const char *const fn[] = { "seccomp_rule_add", "seccomp_rule_add_array",
					   "seccomp_rule_add_exact",
					   "seccomp_rule_add_exact_array" };
	char a[48];
	act_str(r->action, a, sizeof(a));
	fprintf(o, "%s(ctx, %s, ", fn[r->how], a);
	if (r->name)
		fprintf(o, "SCMP_SYS(%s)", r->name);
	else
		fprintf(o, "%d", r->raw);
	fprintf(o, ", %u", r->n);
	for (unsigned j = 0; j < r->n; j++) {
		const struct scmp_arg_cmp *c = &r->c[j];
		fprintf(o, ", SCMP_A%u(%s, 0x%" PRIx64, c->arg,
			c->op < N(op_names) ? op_names[c->op] : "?", (uint64_t)c->datum_a);
		if (c->op == SCMP_CMP_MASKED_EQ || c->datum_b)
			fprintf(o, ", 0x%" PRIx64, (uint64_t)c->datum_b);
		fprintf(o, ")");
	}
	fprintf(o, ");");
}

/* ------------------------------------------------------------- building */

/* What building a filter through one API gave. */
struct built {
	bool init_ok;
	int arch_rc[MAXA + 1];
	int exist_rc[N(abis)];
	int attr_rc[3];
	int nr[MAXR];
	int rc[MAXR];
	int export_rc;
	int mem_rc;		/* seccomp_export_bpf_mem() matched export_bpf */
	size_t len;		/* instructions */
	size_t pfc_len;		/* bytes of the PFC text */
};

static int call_add(const struct api *L, scmp_filter_ctx ctx, const struct rule *r, int nr)
{
	const struct scmp_arg_cmp *c = r->c;
	bool exact = r->how == ADD_EXACT || r->how == ADD_EXACT_ARRAY;
	if (r->how == ADD_ARRAY)
		return L->rule_add_array(ctx, r->action, nr, r->n, r->n ? c : NULL);
	if (r->how == ADD_EXACT_ARRAY)
		return L->rule_add_exact_array(ctx, r->action, nr, r->n, r->n ? c : NULL);
	__typeof__(&seccomp_rule_add) add = exact ? L->rule_add_exact : L->rule_add;
	switch (r->n) {
	case 0: return add(ctx, r->action, nr, 0);
	case 1: return add(ctx, r->action, nr, 1, c[0]);
	case 2: return add(ctx, r->action, nr, 2, c[0], c[1]);
	case 3: return add(ctx, r->action, nr, 3, c[0], c[1], c[2]);
	default: return -9999;
	}
}

/* The program FD holds from its start, malloc'ed in *OUT. */
static int read_fd(int fd, struct sock_filter **out, size_t *len)
{
	off_t size = lseek(fd, 0, SEEK_END);
	*out = NULL;
	*len = 0;
	if (size < 0 || lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	if (size % (off_t)sizeof(struct sock_filter))
		return -EINVAL;
	struct sock_filter *p = malloc(size ? (size_t)size : 1);
	if (!p)
		return -ENOMEM;
	for (off_t done = 0; done < size;) {
		ssize_t r = read(fd, (char *)p + done, (size_t)(size - done));
		if (r <= 0) {
			free(p);
			return r < 0 ? -errno : -EIO;
		}
		done += r;
	}
	*out = p;
	*len = (size_t)size / sizeof(struct sock_filter);
	return 0;
}

static int export_prog(const struct api *L, scmp_filter_ctx ctx, struct sock_filter **out,
		       size_t *len)
{
	*out = NULL;
	*len = 0;
	int fd = memfd_create("scmpc-compat", MFD_CLOEXEC);
	if (fd < 0)
		return -1000 - errno;
	int rc = L->export_bpf(ctx, fd);
	if (rc == 0 && read_fd(fd, out, len) < 0)
		rc = -2000;
	close(fd);
	return rc;
}

/* The PFC text of CTX (malloc'ed, NUL-terminated), or NULL. */
static char *export_pfc_text(const struct api *L, scmp_filter_ctx ctx, size_t *len)
{
	*len = 0;
	int fd = memfd_create("scmpc-compat-pfc", MFD_CLOEXEC);
	if (fd < 0)
		return NULL;
	char *text = NULL;
	if (L->export_pfc(ctx, fd) == 0) {
		off_t end = lseek(fd, 0, SEEK_END);
		if (end > 0 && end < (1 << 24) && (text = malloc((size_t)end + 1)) &&
		    pread(fd, text, (size_t)end, 0) == end) {
			text[end] = 0;
			*len = (size_t)end;
		} else {
			free(text);
			text = NULL;
		}
	}
	close(fd);
	return text;
}

/* Build F through L; the program (malloc'ed) in *PROG, and when PFC is
 * not NULL the PFC text in *PFC. */
static void build(const struct api *L, const struct filter *f, struct built *b,
		  struct sock_filter **prog, char **pfc)
{
	memset(b, 0, sizeof(*b));
	*prog = NULL;
	if (pfc)
		*pfc = NULL;
	scmp_filter_ctx ctx = L->init(f->def);
	if (!(b->init_ok = ctx != NULL))
		return;
	unsigned k = 0;
	if (!f->keep_native)
		b->arch_rc[k] = L->arch_remove(ctx, SCMP_ARCH_NATIVE);
	k++;
	for (unsigned i = 0; i < f->ntok; i++)
		b->arch_rc[k++] = L->arch_add(ctx, f->tok[i]);
	for (size_t i = 0; i < N(abis); i++)
		b->exist_rc[i] = L->arch_exist(ctx, abis[i].token);
	if (f->set_badarch)
		b->attr_rc[0] = L->attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, f->badarch);
	if (f->tskip)
		b->attr_rc[1] = L->attr_set(ctx, SCMP_FLTATR_API_TSKIP, 1);
	if (f->opt2)
		b->attr_rc[2] = L->attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	for (unsigned i = 0; i < f->nrules; i++) {
		const struct rule *r = &f->r[i];
		b->nr[i] = r->name ? L->resolve_name(r->name) : r->raw;
		b->rc[i] = call_add(L, ctx, r, b->nr[i]);
	}
	b->export_rc = export_prog(L, ctx, prog, &b->len);
	if (pfc && b->export_rc == 0)
		*pfc = export_pfc_text(L, ctx, &b->pfc_len);
	if (L->export_bpf_mem && b->export_rc == 0) {
		size_t len = 0;
		int rc = L->export_bpf_mem(ctx, NULL, &len);
		void *buf = malloc(len ? len : 1);
		if (!rc && buf)
			rc = L->export_bpf_mem(ctx, buf, &len);
		if (!rc && (len != b->len * sizeof(struct sock_filter) ||
			    memcmp(buf, *prog, len)))
			rc = -1;
		b->mem_rc = rc;
		free(buf);
	}
	L->release(ctx);
}

/* libseccomp's side in a child: 2.5.4 can loop forever adding rules. */
#define SYS_TIMEOUT_MS 3000



static int build_in_child(const struct api *L, const struct filter *f, struct built *b,
			  struct sock_filter **prog, char **pfc)
{
	int fd[2];
	*prog = NULL;
	*pfc = NULL;
	if (pipe(fd) < 0)
		return -errno;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return -errno;
	}
	if (pid == 0) {
		struct sock_filter *p;
		char *text;
		close(fd[0]);
		build(L, f, b, &p, &text);
		bool ok = pipe_write_all(fd[1], b, sizeof(*b)) &&
			  (!b->len || pipe_write_all(fd[1], p, b->len * sizeof(*p))) &&
			  (!b->pfc_len || pipe_write_all(fd[1], text, b->pfc_len));
		_exit(ok ? 0 : 1);
	}
	close(fd[1]);
	uint64_t deadline = pipe_deadline(env_u64("SCMPC_COMPAT_TIMEOUT_MS", SYS_TIMEOUT_MS));
	int rc = pipe_read_all(fd[0], b, sizeof(*b), deadline);
	if (!rc && b->len) {
		if (b->len > 1 << 20 || !(*prog = malloc(b->len * sizeof(**prog))))
			rc = -ENOMEM;
		else
			rc = pipe_read_all(fd[0], *prog, b->len * sizeof(**prog), deadline);
	}
	if (!rc && b->pfc_len) {
		if (b->pfc_len > 1 << 24 || !(*pfc = malloc(b->pfc_len + 1)))
			rc = -ENOMEM;
		else if (!(rc = pipe_read_all(fd[0], *pfc, b->pfc_len, deadline)))
			(*pfc)[b->pfc_len] = 0;
	}
	close(fd[0]);
	if (rc == -ETIMEDOUT)
		kill(pid, SIGKILL);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (rc < 0) {
		free(*prog);
		*prog = NULL;
		free(*pfc);
		*pfc = NULL;
	}
	return rc;
}

/* ------------------------------------------------------- libseccomp's PFC */

/*
 * libseccomp's PFC is its rule database as text: nested comparisons ending
 * in actions, a branch that ends without one falling through to what
 * follows it.  Evaluating it gives what libseccomp means a call to get,
 * before its BPF generator lays the database out; where its program and
 * its PFC disagree and the compatible library follows the PFC, the
 * difference is a defect of libseccomp's generator, not a difference of
 * meaning.  Only this parser reads the text: compat's own PFC is not used.
 */
enum pfc_kind { P_IF, P_ELSE, P_ACTION };
enum pfc_what { W_ARCH, W_SYS_EQ, W_SYS_GT, W_ARG };

struct pline {
	unsigned indent;
	enum pfc_kind kind;
	enum pfc_what what;
	int half;		/* W_ARG: 1 hi32, 0 lo32, -1 the whole (32-bit) argument */
	unsigned arg;
	char op;		/* '=' ==, 'g' >=, '>' > */
	uint64_t mask, value;
	int x32;		/* W_ARCH: 1 the x32 block, 0 x86_64's, -1 other */
	uint32_t act;
};

struct pfc {
	struct pline *l;
	size_t n;
};

static bool pfc_action(const char *t, uint32_t *act)
{
	unsigned v;
	if (!strcmp(t, "KILL_PROCESS;"))
		*act = SCMP_ACT_KILL_PROCESS;
	else if (!strcmp(t, "KILL;"))
		*act = SCMP_ACT_KILL;
	else if (!strcmp(t, "TRAP;"))
		*act = SCMP_ACT_TRAP;
	else if (!strcmp(t, "LOG;"))
		*act = SCMP_ACT_LOG;
	else if (!strcmp(t, "ALLOW;"))
		*act = SCMP_ACT_ALLOW;
	else if (sscanf(t, "ERRNO(%u);", &v) == 1)
		*act = SCMP_ACT_ERRNO(v);
	else if (sscanf(t, "TRACE(%u);", &v) == 1)
		*act = SCMP_ACT_TRACE(v);
	else if (!strcmp(t, "NOTIFY;"))
		*act = SCMP_ACT_NOTIFY;
	else if (sscanf(t, "0x%x;", &v) == 1)
		*act = v;
	else
		return false;
	return true;
}

static bool pfc_cond(const char *c, struct pline *l, int x32)
{
	unsigned long long v, m;
	unsigned a;
	char half[8] = "";
	l->mask = ~0ULL;
	l->half = -1;
	if (sscanf(c, "$arch == %llu)", &v) == 1) {
		l->what = W_ARCH;
		l->value = v;
		l->x32 = x32;
		return true;
	}
	if (sscanf(c, "$syscall == %llu)", &v) == 1) {
		l->what = W_SYS_EQ;
		l->value = v;
		return true;
	}
	if (sscanf(c, "$syscall > %llu)", &v) == 1) {
		l->what = W_SYS_GT;
		l->value = v;
		return true;
	}
	l->what = W_ARG;
	const char *rest;
	if (sscanf(c, "$a%u.%4[hilo32]", &a, half) == 2) {
		l->half = !strcmp(half, "hi32");
		rest = strchr(c, ' ');
	} else if (sscanf(c, "$a%u", &a) == 1) {
		rest = strchr(c, ' ');
	} else {
		return false;
	}
	l->arg = a;
	if (!rest || a > 5)
		return false;
	if (sscanf(rest, " & 0x%llx == %llu)", &m, &v) == 2) {
		l->mask = m;
		l->op = '=';
	} else if (sscanf(rest, " == %llu)", &v) == 1) {
		l->op = '=';
	} else if (sscanf(rest, " >= %llu)", &v) == 1) {
		l->op = 'g';
	} else if (sscanf(rest, " > %llu)", &v) == 1) {
		l->op = '>';
	} else {
		return false;
	}
	l->value = v;
	return true;
}

/* Parse TEXT; false when a line is not understood (the PFC is then not
 * used). */
static bool pfc_parse(const char *text, struct pfc *out)
{
	out->l = NULL;
	out->n = 0;
	size_t cap = 0;
	int x32 = -1;
	for (const char *p = text; p && *p;) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char line[256];
		if (len >= sizeof(line))
			goto bad;
		memcpy(line, p, len);
		line[len] = 0;
		p = e ? e + 1 : NULL;
		unsigned sp = 0;
		while (line[sp] == ' ')
			sp++;
		const char *t = line + sp;
		if (!*t)
			continue;
		if (*t == '#') {
			char name[32];
			if (sscanf(t, "# filter for arch %31s", name) == 1)
				x32 = !strcmp(name, "x32") ? 1 : !strcmp(name, "x86_64") ? 0 : -1;
			continue;
		}
		if (out->n == cap) {
			cap = cap ? 2 * cap : 64;
			struct pline *nl = realloc(out->l, cap * sizeof(*nl));
			if (!nl)
				goto bad;
			out->l = nl;
		}
		struct pline *l = &out->l[out->n];
		memset(l, 0, sizeof(*l));
		l->indent = sp / 2;
		if (!strncmp(t, "if (", 4)) {
			l->kind = P_IF;
			if (!pfc_cond(t + 4, l, x32))
				goto bad;
		} else if (!strncmp(t, "else", 4)) {
			l->kind = P_ELSE;
		} else if (!strncmp(t, "action ", 7)) {
			l->kind = P_ACTION;
			if (!pfc_action(t + 7, &l->act))
				goto bad;
		} else {
			goto bad;
		}
		out->n++;
	}
	return true;
bad:
	free(out->l);
	out->l = NULL;
	out->n = 0;
	return false;
}

static bool pfc_test(const struct pline *l, const struct seccomp_data *sd)
{
	uint32_t nr = (uint32_t)sd->nr;
	switch (l->what) {
	case W_ARCH:
		if (sd->arch != l->value)
			return false;
		/* x32 shares x86_64's AUDIT_ARCH; libseccomp's program gives x32
		 * the numbers from 0x40000000 up, and x86_64 those below and -1. */
		if (l->x32 == 1)
			return nr >= 0x40000000U;
		if (l->x32 == 0)
			return nr < 0x40000000U || nr == 0xffffffffU;
		return true;
	case W_SYS_EQ:
		return nr == l->value;
	case W_SYS_GT:
		return nr > l->value;
	case W_ARG:
		break;
	}
	uint64_t v = sd->args[l->arg];
	v = l->half == 1 ? v >> 32 : v & 0xffffffffULL;
	v &= l->mask;
	return l->op == '=' ? v == l->value : l->op == 'g' ? v >= l->value : v > l->value;
}

static void pfc_skip(const struct pfc *P, size_t *i, unsigned d)
{
	while (*i < P->n && P->l[*i].indent >= d)
		(*i)++;
}

static bool pfc_run(const struct pfc *P, size_t *i, unsigned d, const struct seccomp_data *sd,
		    uint32_t *act)
{
	while (*i < P->n && P->l[*i].indent >= d) {
		const struct pline *l = &P->l[*i];
		if (l->indent > d || l->kind == P_ELSE) {
			(*i)++;
			pfc_skip(P, i, d + 1);
			continue;
		}
		if (l->kind == P_ACTION) {
			*act = l->act;
			return true;
		}
		bool c = pfc_test(l, sd);
		(*i)++;
		if (c && pfc_run(P, i, d + 1, sd, act))
			return true;
		pfc_skip(P, i, d + 1);
		if (*i < P->n && P->l[*i].indent == d && P->l[*i].kind == P_ELSE) {
			(*i)++;
			if (!c && pfc_run(P, i, d + 1, sd, act))
				return true;
			pfc_skip(P, i, d + 1);
		}
	}
	return false;
}

/* What libseccomp's PFC gives SD; false when it decides nothing. */
static bool pfc_eval(const struct pfc *P, const struct seccomp_data *sd, uint32_t *act)
{
	size_t i = 0;
	return P->n && pfc_run(P, &i, 0, sd, act);
}

/* --------------------------------------------------------------- probing */

/* The kinds of probe difference the differential tells apart (kind_names). */
enum {
	K_UNKNOWN, K_LSC, K_CMP, K_BOTH, K_LSC_OUT, K_CMP_OUT, K_LSC_CALL, K_LSC_PFC, K_MUX,
	K_MUX_READ, K_N
};

struct report {
	uint64_t seed;
	unsigned iter;
	const struct filter *f;
	const struct built *bs, *bc;
	bool quiet;		/* count only (the shrinker's trials) */
	const char *title;	/* the header's first words */
	bool header;		/* the filter was printed */
	bool no_sys;		/* libseccomp gave no results (it did not finish) */
	unsigned long kinds[K_N];	/* its probe differences by kind (K_*) */
	unsigned shown;		/* mismatch lines printed for it */
	unsigned long mismatches;
	/* The calls (AUDIT_ARCH, nr) on which libseccomp's program is shown
	 * wrong by some probe: found by a first, silent pass over the probes
	 * (PREPASS), so that an order-dependent difference on such a call is
	 * put down to the same defect (libseccomp lost a rule there). */
	bool prepass;
	const struct pfc *pfc;	/* libseccomp's PFC of the filter, or NULL */
	struct {
		uint32_t arch, nr;
	} wrong[64];
	unsigned nwrong;
};

static void print_filter(struct report *R)
{
	const struct filter *f = R->f;
	char a[48];
	if (R->header)
		return;
	R->header = true;
	FILE *o = stderr;
	fprintf(o, "\n=== %s: seed 0x%" PRIx64 " iteration %u (SCMPC_SEED=0x%" PRIx64
		   " SCMPC_RANDOM_ONLY=%u)\n",
		R->title ? R->title : "mismatch", R->seed, R->iter, R->seed, R->iter);
	if (!R->no_sys)
		fprintf(o, "  (each comment: libseccomp's value, then compat's; programs of %zu and "
			   "%zu instructions)\n",
			R->bs->len, R->bc->len);
	act_str(f->def, a, sizeof(a));
	fprintf(o, "  ctx = seccomp_init(%s);\n", a);
	if (!f->keep_native)
		fprintf(o, "  seccomp_arch_remove(ctx, SCMP_ARCH_NATIVE);\t/* rc %d %d */\n",
			R->bs->arch_rc[0], R->bc->arch_rc[0]);
	for (unsigned i = 0; i < f->ntok; i++)
		fprintf(o, "  seccomp_arch_add(ctx, %s);\t/* rc %d %d */\n", token_str(f->tok[i]),
			R->bs->arch_rc[i + 1], R->bc->arch_rc[i + 1]);
	if (f->set_badarch) {
		act_str(f->badarch, a, sizeof(a));
		fprintf(o, "  seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, %s);\t/* rc %d %d */\n",
			a, R->bs->attr_rc[0], R->bc->attr_rc[0]);
	}
	if (f->tskip)
		fprintf(o, "  seccomp_attr_set(ctx, SCMP_FLTATR_API_TSKIP, 1);\t/* rc %d %d */\n",
			R->bs->attr_rc[1], R->bc->attr_rc[1]);
	if (f->opt2)
		fprintf(o, "  seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);\t/* rc %d %d */\n",
			R->bs->attr_rc[2], R->bc->attr_rc[2]);
	for (unsigned i = 0; i < f->nrules; i++) {
		fprintf(o, "  ");
		print_rule(o, &f->r[i]);
		if (R->no_sys)
			fprintf(o, "\t/* compat: nr %d, rc %d */\n", R->bc->nr[i], R->bc->rc[i]);
		else
			fprintf(o, "\t/* nr %d %d, rc %d %d */\n", R->bs->nr[i], R->bc->nr[i],
				R->bs->rc[i], R->bc->rc[i]);
	}
}

static void mismatch(struct report *R, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void mismatch(struct report *R, const char *fmt, ...)
{
	R->mismatches++;
	if (R->quiet)
		return;
	print_filter(R);
	if (R->shown++ >= (env_u64("SCMPC_COMPAT_VERBOSE", 0) ? ~0U : 8)) {
		if (R->shown == 10)
			fprintf(stderr, "  ... (further mismatches of this filter counted, not shown)\n");
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "  ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
}

static void ret_str(int rc, uint32_t ret, char *buf, size_t len)
{
	if (rc < 0) {
		snprintf(buf, len, "emulate error %d", rc);
		return;
	}
	char a[48];
	scmpc_action_str(ret, a, sizeof(a));
	snprintf(buf, len, "%s (0x%08" PRIx32 ")", a, ret);
}

struct pool {
	uint64_t v[96];
	unsigned n;
};

static void pool_add(struct pool *p, uint64_t v)
{
	for (unsigned i = 0; i < p->n; i++)
		if (p->v[i] == v)
			return;
	if (p->n < N(p->v))
		p->v[p->n++] = v;
}

static void pool_around(struct pool *p, uint64_t c)
{
	pool_add(p, c);
	pool_add(p, c + 1);
	pool_add(p, c - 1);
	pool_add(p, c & 0xffffffffULL);
	pool_add(p, (c & 0xffffffffULL) + 1);
	pool_add(p, (c & 0xffffffffULL) - 1);
	pool_add(p, c | 0xffffffff00000000ULL);
	pool_add(p, (c & 0xffffffffULL) | 0x100000000ULL);
	pool_add(p, c >> 32);
	pool_add(p, c << 32);
}

static unsigned long nprobes;

/* ---------------------------------------------------------------- oracle */

/*
 * What libseccomp's documented semantics say a probe must get, where they
 * say it without depending on libseccomp's tree: the bad-arch action for
 * an ABI the filter lacks; the default when no rule the library accepted
 * matches; the first accepted unconditional rule of the call when there is
 * one (libseccomp drops later rules of a call that has one); the action of
 * the matching rules when they agree.  On x86, arm and x32 a comparison
 * sees the low words of the argument and the constant (and a MASKED_EQ
 * whose mask has no low bits is dropped).  On socketcall/ipc, a socket or
 * IPC rule counts with argument 0 tested for its call instead: the whole
 * argument as libseccomp compares it, or with KERNEL the bits the kernel
 * reads (ipc: the low 16, socketcall: the low 32).  Unknown
 * (false): rules that match with different actions (CAND then lists them),
 * raw pseudo numbers, nr -1.  Used only to label a difference.
 */
/* The multiplexer NAME goes through on A ("socketcall" or "ipc") and its
 * call number there (the kernel's SYS_* / IPC call numbers, socket.h and
 * ipc.h), or NULL. */
static const char *mux_call(const char *name, uint32_t *call)
{
	static const struct {
		const char *name, *mux;
		uint32_t call;
	} calls[] = { { "socket", "socketcall", 1 },  { "connect", "socketcall", 3 },
		      { "accept", "socketcall", 5 },  { "sendto", "socketcall", 11 },
		      { "accept4", "socketcall", 18 }, { "semop", "ipc", 1 },
		      { "msgsnd", "ipc", 11 },	      { "shmget", "ipc", 23 } };
	for (size_t i = 0; name && i < N(calls); i++)
		if (!strcmp(name, calls[i].name)) {
			*call = calls[i].call;
			return calls[i].mux;
		}
	return NULL;
}

static bool cond_holds(const struct scmp_arg_cmp *c, uint64_t arg, bool narrow, bool *dropped)
{
	uint64_t a = arg, d = c->datum_a, m = ~0ULL;
	*dropped = false;
	if (c->op == SCMP_CMP_MASKED_EQ) {
		m = c->datum_a;
		d = c->datum_b;
	}
	if (narrow) {
		a &= 0xffffffffULL;
		d &= 0xffffffffULL;
		m &= 0xffffffffULL;
		if (c->op == SCMP_CMP_MASKED_EQ && !m) {
			*dropped = true;
			return true;
		}
	}
	switch (c->op) {
	case SCMP_CMP_NE: return a != d;
	case SCMP_CMP_LT: return a < d;
	case SCMP_CMP_LE: return a <= d;
	case SCMP_CMP_EQ: return a == d;
	case SCMP_CMP_GE: return a >= d;
	case SCMP_CMP_GT: return a > d;
	case SCMP_CMP_MASKED_EQ: return (a & m) == (d & m);
	default: return false;
	}
}

/* What the semantics say SD gets: true with *EXP when they decide alone;
 * false when rules with different actions match (libseccomp's order then
 * decides) or the case is not modelled.  CAND[0..*NCAND) get the actions
 * of the rules that match (empty when not modelled): whatever the order,
 * the answer is one of them. */
static bool oracle(const struct filter *f, const struct built *b, const struct seccomp_data *sd,
		   bool kernel, uint32_t *exp, uint32_t *cand, unsigned *ncand)
{
	*ncand = 0;
	uint32_t badarch = f->set_badarch && b->attr_rc[0] == 0 ? f->badarch : SCMP_ACT_KILL;
	size_t ai = N(abis);
	for (size_t i = 0; i < N(abis); i++)
		if (scmpc_arch_audit(abis[i].arch) == sd->arch) {
			ai = i;
			break;
		}
	if (ai == N(abis)) {
		*exp = badarch;
		return true;
	}
	if (sd->nr == -1)
		return false;
	enum scmpc_arch a = abis[ai].arch;
	if (a == SCMPC_ARCH_X86_64 && (sd->nr & 0x40000000))
		a = SCMPC_ARCH_X32;
	for (ai = 0; abis[ai].arch != a; ai++)
		;
	if (b->exist_rc[ai] != 0) {
		*exp = badarch;
		return true;
	}
	uint32_t nr = (uint32_t)sd->nr;
	bool narrow = a == SCMPC_ARCH_I386 || a == SCMPC_ARCH_ARM || a == SCMPC_ARCH_X32;
	int64_t sc = scmpc_syscall_resolve(a, "socketcall"), ipc = scmpc_syscall_resolve(a, "ipc");
	bool mux = (sc >= 0 && nr == (uint32_t)sc) || (ipc >= 0 && nr == (uint32_t)ipc);
	bool first_uncond = false, any = false, agree = true;
	uint32_t act = 0, uncond = 0;
	for (unsigned i = 0; i < f->nrules; i++) {
		const struct rule *r = &f->r[i];
		if (b->rc[i] != 0)
			continue;
		if (!r->name && r->raw < 0)
			return *ncand = 0, false;
		char name[64];
		const char *nm = r->name;
		if (!nm) {
			if (!scmpc_syscall_name(scmpc_arch_native(), (uint32_t)r->raw, name,
						sizeof(name)))
				continue;
			nm = name;
		}
		/* A socket or IPC rule reaches the multiplexer as a copy whose
		 * argument 0 is tested for the call's number instead. */
		bool via_mux = false;
		uint32_t call;
		const char *mx = mux ? mux_call(nm, &call) : NULL;
		if (mx) {
			int64_t mn = scmpc_syscall_resolve(a, mx);
			if (mn < 0 || (uint32_t)mn != nr)
				continue;
			uint64_t a0 = sd->args[0];
			if (kernel)
				a0 &= strcmp(mx, "ipc") ? 0xffffffffULL : 0xffffULL;
			else if (narrow)
				a0 &= 0xffffffffULL;
			if (a0 != call)
				continue;
			via_mux = true;
		} else {
			int64_t rn = scmpc_syscall_resolve(a, nm);
			if (rn < 0 || (uint32_t)rn != nr)
				continue;
		}
		bool all = true, conditional = via_mux;
		for (unsigned j = 0; j < r->n; j++) {
			bool dropped;
			if (via_mux && r->c[j].arg == 0)
				continue;
			all &= cond_holds(&r->c[j], sd->args[r->c[j].arg], narrow, &dropped);
			conditional |= !dropped;
		}
		if (!conditional && !first_uncond) {
			first_uncond = true;
			uncond = r->action;
		}
		if (all) {
			if (any && act != r->action)
				agree = false;
			any = true;
			act = r->action;
			bool seen = false;
			for (unsigned k = 0; k < *ncand; k++)
				seen |= cand[k] == act;
			if (!seen && *ncand < 8)
				cand[(*ncand)++] = act;
		}
	}
	if (first_uncond) {
		*exp = uncond;
		*ncand = 0;
		return true;
	}
	if (!any) {
		*exp = f->def;
		return true;
	}
	*exp = act;
	return agree;
}

static const char *const kind_names[] = {
	"order-dependent or not modelled (a failure)",
	"libseccomp differs from the semantics",
	"compat differs from the semantics (a failure)",
	"both differ from the semantics (a failure)",
	"libseccomp gives none of the matching rules' actions",
	"compat gives none of the matching rules' actions (a failure)",
	"order-dependent, on a call where libseccomp is shown wrong",
	"libseccomp's program differs from its own PFC, compat follows the PFC",
	"the multiplexer's call read as the kernel reads it (scmpc's deliberate difference)",
	"compat reads bits of the multiplexer's call that the kernel ignores (a failure)",
};
/* libseccomp's own defects (see the file's header): counted and shown, not
 * failures.  Every other kind fails the test. */
static bool kind_allowed(int k)
{
	return k == K_LSC || k == K_LSC_OUT || k == K_LSC_CALL || k == K_LSC_PFC || k == K_MUX;
}
static unsigned long kinds[K_N];
static unsigned long pfc_probes, pfc_agree, pfc_dbg;

/* The ABI SD comes from (x32 told by bit 30), or SCMPC_ARCH_NONE. */
static enum scmpc_arch sd_arch(const struct seccomp_data *sd)
{
	enum scmpc_arch arch = SCMPC_ARCH_NONE;
	for (int i = 1; i <= SCMPC_ARCH_COUNT; i++)
		if (scmpc_arch_audit((enum scmpc_arch)i) == sd->arch) {
			arch = (enum scmpc_arch)i;
			break;
		}
	if (arch == SCMPC_ARCH_X86_64 && (sd->nr & 0x40000000))
		arch = SCMPC_ARCH_X32;
	return arch;
}

/* Whether SD calls socketcall(2) or ipc(2) with bits in argument 0 that
 * the kernel does not read as the call (ipc: above the low 16 bits;
 * socketcall: the high word); *K gets SD without them, *MUX the name. */
static bool mux_reduced(const struct seccomp_data *sd, struct seccomp_data *k, const char **mux)
{
	enum scmpc_arch a = sd_arch(sd);
	if (!a)
		return false;
	int64_t sc = scmpc_syscall_resolve(a, "socketcall"), ipc = scmpc_syscall_resolve(a, "ipc");
	uint32_t nr = (uint32_t)sd->nr;
	uint64_t keep = ipc >= 0 && nr == (uint32_t)ipc ? 0xffffULL
			: sc >= 0 && nr == (uint32_t)sc ? 0xffffffffULL
							 : ~0ULL;
	if (!(sd->args[0] & ~keep))
		return false;
	*mux = keep == 0xffffULL ? "ipc" : "socketcall";
	*k = *sd;
	k->args[0] &= keep;
	return true;
}

/* Whether a rule F's library accepted is on the multiplexer MUX itself
 * ("socketcall", "ipc") with a condition on argument 0: it reads the whole
 * argument, as its author asked, so bits the kernel does not read as the
 * call may decide there. */
static bool mux_arg0_rule(const struct filter *f, const struct built *b, const char *mux)
{
	for (unsigned i = 0; i < f->nrules; i++) {
		const struct rule *r = &f->r[i];
		char buf[64];
		const char *nm = r->name;
		if (b->rc[i] != 0)
			continue;
		if (!nm && r->raw >= 0 &&
		    scmpc_syscall_name(scmpc_arch_native(), (uint32_t)r->raw, buf, sizeof(buf)))
			nm = buf;
		if (!nm || strcmp(nm, mux))
			continue;
		for (unsigned j = 0; j < r->n; j++)
			if (r->c[j].arg == 0)
				return true;
	}
	return false;
}

/* Run both programs on SD (the ABI's arguments as the kernel gives them). */
static void probe(struct report *R, const struct sock_filter *ps, size_t ls,
		  const struct sock_filter *pc, size_t lc, struct seccomp_data *sd, bool narrow)
{
	if (narrow)
		for (int i = 0; i < 6; i++)
			sd->args[i] &= 0xffffffffULL;
	/* A multiplexer's call with bits the kernel ignores: the compatible
	 * library must decide it as the call without them, which is itself
	 * compared with libseccomp like any probe. */
	struct seccomp_data kd;
	const char *mux = NULL;
	bool mux_bits = mux_reduced(sd, &kd, &mux);
	uint32_t rk = 0;
	int ek = 0;
	if (mux_bits) {
		probe(R, ps, ls, pc, lc, &kd, narrow);
		ek = scmpc_emulate(pc, lc, &kd, &rk, NULL);
	}
	uint32_t rs = 0, rcv = 0;
	int es = scmpc_emulate(ps, ls, sd, &rs, NULL);
	int ec = scmpc_emulate(pc, lc, sd, &rcv, NULL);
	/* Unless a rule on the multiplexer itself reads all of argument 0,
	 * SD must be decided as KD: then any difference with libseccomp on
	 * SD is its whole-argument reading, KD being compared on its own. */
	bool mux_exempt = mux_bits && !mux_arg0_rule(R->f, R->bc, mux);
	bool mux_read = mux_exempt && (ek != ec || rk != rcv);
	if (!R->quiet && !R->title && !R->prepass) {
		nprobes++;
		/* The PFC reader excuses differences only if it reads what
		 * libseccomp's program mostly does: count how often. */
		uint32_t pv0;
		if (R->pfc && es == 0 && pfc_eval(R->pfc, sd, &pv0)) {
			pfc_probes++;
			pfc_agree += pv0 == rs;
			if (pv0 != rs && rs == rcv && getenv("SCMPC_COMPAT_PFC_DEBUG") && pfc_dbg++ < 20)
				fprintf(stderr, "PFC-DEBUG iter %u arch %x nr %d args %" PRIx64 " %" PRIx64
					" %" PRIx64 " %" PRIx64 " %" PRIx64 " %" PRIx64
					": both %x, pfc %x\n", R->iter, sd->arch, sd->nr, (uint64_t)sd->args[0],
					(uint64_t)sd->args[1], (uint64_t)sd->args[2], (uint64_t)sd->args[3], (uint64_t)sd->args[4], (uint64_t)sd->args[5], rs, pv0);
		}
	}
	if (es == ec && rs == rcv && !mux_read)
		return;
	char a[64], b[64];
	ret_str(es, rs, a, sizeof(a));
	ret_str(ec, rcv, b, sizeof(b));
	char name[64] = "?";
	enum scmpc_arch arch = sd_arch(sd);
	if (arch)
		scmpc_syscall_name(arch, (uint32_t)sd->nr, name, sizeof(name));
	uint32_t xs, xc, cs[8], cc[8];
	unsigned ns, nc;
	bool ks = oracle(R->f, R->bs, sd, false, &xs, cs, &ns),
	     kc = oracle(R->f, R->bc, sd, true, &xc, cc, &nc);
	int kind = !ks || !kc			? K_UNKNOWN
		   : xs != rs && xc != rcv ? K_BOTH
		   : xs != rs		   ? K_LSC
		   : xc != rcv		   ? K_CMP
					   : K_UNKNOWN;
	if (mux_exempt)
		kind = mux_read ? K_MUX_READ : K_MUX;
	/* Where the order decides, the answer must still be one of the
	 * matching rules' actions. */
	if (kind == K_UNKNOWN && !ks && !kc && ns && nc) {
		bool in_s = false, in_c = false;
		for (unsigned k = 0; k < ns; k++)
			in_s |= cs[k] == rs;
		for (unsigned k = 0; k < nc; k++)
			in_c |= cc[k] == rcv;
		kind = !in_c ? K_CMP_OUT : !in_s ? K_LSC_OUT : K_UNKNOWN;
	}
	uint32_t pv;
	if (kind == K_UNKNOWN && R->pfc && pfc_eval(R->pfc, sd, &pv) && pv == rcv && es == 0 &&
	    ec == 0)
		kind = K_LSC_PFC;
	if (R->prepass) {
		if ((kind == K_LSC || kind == K_LSC_OUT || kind == K_LSC_PFC) &&
		    R->nwrong < N(R->wrong)) {
			R->wrong[R->nwrong].arch = sd->arch;
			R->wrong[R->nwrong++].nr = (uint32_t)sd->nr;
		}
		return;
	}
	for (unsigned k = 0; kind == K_UNKNOWN && k < R->nwrong; k++)
		if (R->wrong[k].arch == sd->arch && R->wrong[k].nr == (uint32_t)sd->nr)
			kind = K_LSC_CALL;
	char e[192] = "";
	if (kind != K_UNKNOWN) {
		char x1[48], x2[48];
		scmpc_action_str(xs, x1, sizeof(x1));
		scmpc_action_str(xc, x2, sizeof(x2));
		snprintf(e, sizeof(e), " [%s; expected %s%s%s]", kind_names[kind], x1,
			 xs != xc ? "/" : "", xs != xc ? x2 : "");
	}
	R->kinds[kind]++;
	if (!R->quiet && !R->title)
		kinds[kind]++;
	mismatch(R,
		 "arch 0x%08" PRIx32 " (%s) nr %" PRIu32 " = 0x%" PRIx32 " (%s) args {0x%" PRIx64
		 ", 0x%" PRIx64 ", 0x%" PRIx64 ", 0x%" PRIx64 ", 0x%" PRIx64 ", 0x%" PRIx64
		 "}: libseccomp %s, compat %s%s",
		 sd->arch, arch ? scmpc_arch_name(arch) : "?", (uint32_t)sd->nr, (uint32_t)sd->nr,
		 name, (uint64_t)sd->args[0], (uint64_t)sd->args[1], (uint64_t)sd->args[2],
		 (uint64_t)sd->args[3], (uint64_t)sd->args[4], (uint64_t)sd->args[5], a, b, e);
}

static void nr_add(uint32_t *nrs, unsigned *n, unsigned max, uint32_t nr)
{
	for (unsigned i = 0; i < *n; i++)
		if (nrs[i] == nr)
			return;
	if (*n < max)
		nrs[(*n)++] = nr;
}

static void probe_all(struct report *R, const struct sock_filter *ps, size_t ls,
		      const struct sock_filter *pc, size_t lc)
{
	const struct filter *f = R->f;
	/* argument pools: around every constant compared, per argument */
	struct pool pool[6];
	memset(pool, 0, sizeof(pool));
	for (int i = 0; i < 6; i++) {
		pool_add(&pool[i], 0);
		pool_add(&pool[i], ~0ULL);
		pool_add(&pool[i], 0xffffffffULL);
		pool_add(&pool[i], 0x100000000ULL);
	}
	for (size_t i = 0; i < N(mux_calls); i++)
		pool_add(&pool[0], mux_calls[i]);
	for (unsigned i = 0; i < f->nrules; i++)
		for (unsigned j = 0; j < f->r[i].n; j++) {
			const struct scmp_arg_cmp *c = &f->r[i].c[j];
			struct pool *p = &pool[c->arg < 6 ? c->arg : 0];
			pool_around(p, c->datum_a);
			if (c->op == SCMP_CMP_MASKED_EQ) {
				pool_around(p, c->datum_b);
				pool_add(p, c->datum_b & c->datum_a);
				pool_add(p, c->datum_b | ~c->datum_a);
				pool_add(p, (c->datum_b & c->datum_a) ^ 0x100000000ULL);
				pool_add(p, ~c->datum_a);
			}
		}
	/* argument vectors: each pool value alone, then random mixes */
	static uint64_t vec[1024][6];
	unsigned nvec = 0;
	memset(vec[nvec++], 0, sizeof(vec[0]));
	for (int i = 0; i < 6; i++)
		if (pool[i].n > 4 || i == 0)
			for (unsigned j = 0; j < pool[i].n && nvec < N(vec); j++) {
				memset(vec[nvec], 0, sizeof(vec[0]));
				vec[nvec++][i] = pool[i].v[j];
			}
	for (unsigned k = 0; k < 96 && nvec < N(vec); k++, nvec++)
		for (int i = 0; i < 6; i++)
			vec[nvec][i] = chance(70) ? pool[i].v[rndn(pool[i].n)] : rnd_value();

	for (size_t ai = 0; ai < N(abis); ai++) {
		enum scmpc_arch a = abis[ai].arch;
		bool in = R->bc->exist_rc[ai] == 0 || R->bs->exist_rc[ai] == 0;
		bool narrow = a == SCMPC_ARCH_I386 || a == SCMPC_ARCH_ARM;
		uint32_t nrs[128];
		unsigned n = 0, full;
		/* the calls the rules name, their multiplexers, and raw rule numbers */
		for (unsigned i = 0; i < f->nrules; i++) {
			int64_t nr = f->r[i].name ? scmpc_syscall_resolve(a, f->r[i].name) : -1;
			if (nr >= 0)
				nr_add(nrs, &n, N(nrs), (uint32_t)nr);
			int sn = f->r[i].name ? sys_api.resolve_name_arch(abis[ai].token, f->r[i].name)
					      : f->r[i].raw;
			if (sn >= 0 || sn == -1)
				nr_add(nrs, &n, N(nrs), (uint32_t)sn);
		}
		int64_t m;
		if ((m = scmpc_syscall_resolve(a, "socketcall")) >= 0)
			nr_add(nrs, &n, N(nrs), (uint32_t)m);
		if ((m = scmpc_syscall_resolve(a, "ipc")) >= 0)
			nr_add(nrs, &n, N(nrs), (uint32_t)m);
		full = n;
		/* every other call of the list, and numbers at the edges */
		for (size_t i = 0; i < N(sysnames); i++)
			if ((m = scmpc_syscall_resolve(a, sysnames[i])) >= 0)
				nr_add(nrs, &n, N(nrs), (uint32_t)m);
		static const uint32_t edges[] = { 0, 0xffffffff, 0xfffffffe, 0x3fffffff, 0x40000000,
						  0x7fffffff, 0x80000000, 1000, 0x0f0005, 0x1000 };
		for (size_t i = 0; i < N(edges); i++)
			nr_add(nrs, &n, N(nrs), edges[i]);
		unsigned n0 = n;
		for (unsigned i = 0; i < n0; i++)
			nr_add(nrs, &n, N(nrs), nrs[i] ^ 0x40000000U);

		for (unsigned i = 0; i < n; i++) {
			/* all vectors where the rules look; a few elsewhere */
			bool many = i < full || (i >= n0 && i - n0 < full);
			unsigned nv = in && many ? nvec : 4;
			for (unsigned v = 0; v < nv; v++) {
				struct seccomp_data sd = { .nr = (int)nrs[i],
							   .arch = scmpc_arch_audit(a),
							   .instruction_pointer = 0x1000 + v };
				memcpy(sd.args, vec[v < nvec ? v : 0], sizeof(sd.args));
				probe(R, ps, ls, pc, lc, &sd, narrow);
			}
		}
	}
	/* an ABI of the other byte order and an unknown one: the bad-arch path */
	static const uint32_t foreign[] = { 0xc000003eU ^ 1, 0x80000016U /* s390x */ };
	for (size_t i = 0; i < N(foreign); i++) {
		struct seccomp_data sd = { .nr = 1, .arch = foreign[i] };
		probe(R, ps, ls, pc, lc, &sd, false);
	}
}

static void compare_built(struct report *R)
{
	const struct built *s = R->bs, *c = R->bc;
	const struct filter *f = R->f;
	if (s->init_ok != c->init_ok) {
		mismatch(R, "seccomp_init: libseccomp %s, compat %s", s->init_ok ? "ok" : "NULL",
			 c->init_ok ? "ok" : "NULL");
		return;
	}
	for (unsigned i = 0; i < f->ntok + 1; i++)
		if (s->arch_rc[i] != c->arch_rc[i])
			mismatch(R, "arch call %u: rc libseccomp %d, compat %d", i, s->arch_rc[i],
				 c->arch_rc[i]);
	for (size_t i = 0; i < N(abis); i++)
		if (s->exist_rc[i] != c->exist_rc[i])
			mismatch(R, "seccomp_arch_exist(%s): libseccomp %d, compat %d", abis[i].name,
				 s->exist_rc[i], c->exist_rc[i]);
	for (unsigned i = 0; i < 3; i++)
		if (s->attr_rc[i] != c->attr_rc[i])
			mismatch(R, "attribute %u: rc libseccomp %d, compat %d", i, s->attr_rc[i],
				 c->attr_rc[i]);
	for (unsigned i = 0; i < f->nrules; i++) {
		if (s->nr[i] != c->nr[i])
			mismatch(R, "rule %u: seccomp_syscall_resolve_name(%s): libseccomp %d, compat %d",
				 i, f->r[i].name ? f->r[i].name : "-", s->nr[i], c->nr[i]);
		if (s->rc[i] != c->rc[i])
			mismatch(R, "rule %u: rc libseccomp %d, compat %d", i, s->rc[i], c->rc[i]);
	}
	if (s->export_rc != c->export_rc)
		mismatch(R, "seccomp_export_bpf: libseccomp %d, compat %d", s->export_rc,
			 c->export_rc);
	if (c->mem_rc)
		mismatch(R, "compat: seccomp_export_bpf_mem() gave %d or other bytes than "
			    "seccomp_export_bpf()", c->mem_rc);
}

/* Build F with both libraries and compare everything; the number of
 * differences, or a negative errno when libseccomp did not finish.  The
 * probes' random vectors come from a generator seeded from VSEED, so that
 * a trial of the shrinker sees the same ones as the run. */
static long run_pair(const struct filter *f, struct report *R, uint64_t vseed, bool *exported)
{
	struct built bs, bc;
	struct sock_filter *ps = NULL, *pc = NULL;
	char *pfc_text = NULL;
	struct pfc pfc = { 0 };
	int rc = build_in_child(&sys_api, f, &bs, &ps, &pfc_text);
	build(&cmp_api, f, &bc, &pc, NULL);
	R->pfc = pfc_text && pfc_parse(pfc_text, &pfc) ? &pfc : NULL;
	free(pfc_text);
	R->f = f;
	R->bs = &bs;
	R->bc = &bc;
	R->header = false;
	R->shown = 0;
	R->mismatches = 0;
	memset(R->kinds, 0, sizeof(R->kinds));
	if (rc < 0) {
		free(pc);
		if (!R->quiet) {
			memset(&bs, 0, sizeof(bs));
			const char *t = R->title;
			R->title = rc == -ETIMEDOUT ? "libseccomp did not finish in time"
						    : "libseccomp's child failed";
			R->no_sys = true;
			print_filter(R);
			R->no_sys = false;
			R->title = t;
		}
		return rc;
	}
	compare_built(R);
	if (exported)
		*exported = false;
	if (bs.export_rc == 0 && bc.export_rc == 0 && ps && pc) {
		if (exported)
			*exported = true;
		uint64_t keep = rng;
		R->nwrong = 0;
		R->prepass = true;
		rng = vseed;
		probe_all(R, ps, bs.len, pc, bc.len);
		R->prepass = false;
		rng = vseed;
		probe_all(R, ps, bs.len, pc, bc.len);
		rng = keep;
	}
	free(ps);
	free(pc);
	free(pfc.l);
	R->pfc = NULL;
	R->f = NULL;
	R->bs = R->bc = NULL;
	return (long)R->mismatches;
}

/* Greedy shrinking: drop ABIs, rules, comparisons and attributes while a
 * difference remains; F becomes the smallest filter found. */
static void shrink(struct filter *f, uint64_t seed, unsigned it, uint64_t vseed, bool hang)
{
	struct report Q = { .seed = seed, .iter = it, .quiet = true };
	/* SCMPC_COMPAT_SHRINK_KIND=1..3 keeps a probe difference of that kind */
	long only_kind = (long)env_u64("SCMPC_COMPAT_SHRINK_KIND", 0) - 1;
	bool changed = true;
	unsigned trials = 0;
	while (changed && trials < 400) {
		changed = false;
		struct filter t;
#define TRY(edit)                                                                       \
	do {                                                                            \
		t = *f;                                                                 \
		edit;                                                                   \
		trials++;                                                               \
		long m_ = run_pair(&t, &Q, vseed, NULL);                                \
		if (hang ? m_ == -ETIMEDOUT : only_kind >= 0 ? Q.kinds[only_kind] > 0 : m_ > 0) { \
			*f = t;                                                         \
			changed = true;                                                 \
		}                                                                       \
	} while (0)
		for (unsigned i = 0; i < f->nrules; i++)
			TRY({
				memmove(&t.r[i], &t.r[i + 1], (t.nrules - i - 1) * sizeof(t.r[0]));
				t.nrules--;
			});
		for (unsigned i = 0; f->ntok > 1 && i < f->ntok; i++)
			TRY({
				memmove(&t.tok[i], &t.tok[i + 1], (t.ntok - i - 1) * sizeof(t.tok[0]));
				t.ntok--;
			});
		for (unsigned i = 0; i < f->nrules; i++)
			for (unsigned j = 0; j < f->r[i].n; j++)
				TRY({
					struct rule *r = &t.r[i];
					memmove(&r->c[j], &r->c[j + 1], (r->n - j - 1) * sizeof(r->c[0]));
					r->n--;
				});
		for (unsigned i = 0; i < f->nrules; i++) {
			if (f->r[i].how != ADD)
				TRY(t.r[i].how = ADD);
			for (unsigned j = 0; j < f->r[i].n; j++)
				if (f->r[i].c[j].op != SCMP_CMP_MASKED_EQ && f->r[i].c[j].datum_b)
					TRY(t.r[i].c[j].datum_b = 0);
		}
		if (f->keep_native)
			TRY(t.keep_native = false);
		if (f->set_badarch)
			TRY(t.set_badarch = false);
		if (f->opt2)
			TRY(t.opt2 = false);
		if (f->tskip)
			TRY(t.tskip = false);
#undef TRY
	}
	struct report R = { .seed = seed, .iter = it, .title = "shrunk to" };
	run_pair(f, &R, vseed, NULL);
}

static void test_differential(void **state)
{
	(void)state;
	uint64_t seed = env_u64("SCMPC_SEED", 0x5eccc0de2505ULL);
#ifdef NO_DEEPBIND
	unsigned count = 100;	/* sanitizer builds: every fork maps the shadow again */
#else
	unsigned count = 1000;
#endif
	count = (unsigned)env_u64("SCMPC_COMPAT_COUNT", count);
	long only = (long)env_u64("SCMPC_RANDOM_ONLY", (uint64_t)-1);
	if (only >= 0 && (unsigned long)only >= count)
		count = (unsigned)only + 1;
	/* the first few filters that differ are shrunk to a small reproducer */
#ifdef NO_DEEPBIND
	unsigned shrinks = (unsigned)env_u64("SCMPC_COMPAT_SHRINK", 3);
#else
	unsigned shrinks = (unsigned)env_u64("SCMPC_COMPAT_SHRINK", 10);
#endif
	/* slow hosts (sanitizers, emulators) stop early rather than time out */
	double budget = (double)env_u64("SCMPC_COMPAT_SECONDS", 40);
	fprintf(stderr, "compat differential: seed 0x%" PRIx64 ", %u filters (SCMPC_SEED, "
			"SCMPC_COMPAT_COUNT, SCMPC_RANDOM_ONLY, SCMPC_COMPAT_SHRINK)\n",
		seed, count);

	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	unsigned long total = 0, bad_filters = 0, hangs = 0, exported = 0;
	unsigned long rcs = 0, ran = 0;
	nprobes = 0;
	for (unsigned it = 0; it < count; it++) {
		if (only >= 0 && it != (unsigned long)only)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if ((double)(t1.tv_sec - t0.tv_sec) > budget) {
			fprintf(stderr, "compat differential: time budget of %.0f s spent after %lu "
					"filters (SCMPC_COMPAT_SECONDS)\n",
				budget, ran);
			break;
		}
		ran++;
		uint64_t s = seed ^ ((uint64_t)it * 0x2545f4914f6cdd1dULL);
		rng = splitmix(&s);
		struct filter f;
		gen_filter(&f);
		uint64_t vseed = rnd();
		struct report R = { .seed = seed, .iter = it };
		bool exp = false;
		long m = run_pair(&f, &R, vseed, &exp);
		if (m < 0) {
			/* not a difference we can compare: counted, shown above,
			 * shrunk on request (each step waits for the time limit) */
			hangs++;
			if (m == -ETIMEDOUT && env_u64("SCMPC_COMPAT_SHRINK_HANGS", 0))
				shrink(&f, seed, it, vseed, true);
			continue;
		}
		rcs += f.nrules;
		exported += exp;
		total += (unsigned long)m;
		bad_filters += m != 0;
		if (m > 0 && shrinks) {
			shrinks--;
			shrink(&f, seed, it, vseed, false);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	fprintf(stderr,
		"compat differential: %lu filters (%lu exported by both), %lu rules added, "
		"%lu probes, %.1f s; %lu differences in %lu filters; %lu filters libseccomp "
		"did not finish\n",
		ran, exported, rcs, nprobes, secs, total, bad_filters, hangs);
	fprintf(stderr, "  libseccomp's PFC read for %lu probes; its program agrees with it on %lu\n",
		pfc_probes, pfc_agree);
	if (pfc_probes && pfc_agree < pfc_probes - pfc_probes / 100)
		fail_msg("libseccomp's program and its PFC, as read here, disagree on more than 1%% "
			 "of the probes: the PFC reader cannot be trusted to excuse differences");
	unsigned long allowed = 0;
	for (int k = 0; k < K_N; k++) {
		fprintf(stderr, "  probe differences, %s: %lu\n", kind_names[k], kinds[k]);
		if (kind_allowed(k))
			allowed += kinds[k];
	}
	if (total > allowed)
		fail_msg("%lu differences between libseccomp and the compatible library that are "
			 "not libseccomp's own defects (see above)",
			 total - allowed);
}

/* ------------------------------------------------------------ resolution */

/* libseccomp 2.5.4's ABI names, and the tokens they stand for. */
static const struct {
	const char *name;
	uint32_t token;
} lsc_arches[] = {
	{ "x86", SCMP_ARCH_X86 },	  { "x86_64", SCMP_ARCH_X86_64 },
	{ "x32", SCMP_ARCH_X32 },	  { "arm", SCMP_ARCH_ARM },
	{ "aarch64", SCMP_ARCH_AARCH64 }, { "mips", SCMP_ARCH_MIPS },
	{ "mipsel", SCMP_ARCH_MIPSEL },	  { "mips64", SCMP_ARCH_MIPS64 },
	{ "mipsel64", SCMP_ARCH_MIPSEL64 }, { "mips64n32", SCMP_ARCH_MIPS64N32 },
	{ "mipsel64n32", SCMP_ARCH_MIPSEL64N32 }, { "parisc", SCMP_ARCH_PARISC },
	{ "parisc64", SCMP_ARCH_PARISC64 }, { "ppc", SCMP_ARCH_PPC },
	{ "ppc64", SCMP_ARCH_PPC64 },	  { "ppc64le", SCMP_ARCH_PPC64LE },
	{ "s390", SCMP_ARCH_S390 },	  { "s390x", SCMP_ARCH_S390X },
	{ "riscv64", SCMP_ARCH_RISCV64 },
};

static void test_arch_names(void **state)
{
	(void)state;
	unsigned bad = 0;
	for (size_t i = 0; i < N(lsc_arches); i++) {
		uint32_t s = sys_api.arch_resolve_name(lsc_arches[i].name);
		uint32_t c = cmp_api.arch_resolve_name(lsc_arches[i].name);
		if (s != lsc_arches[i].token || c != s) {
			fprintf(stderr, "seccomp_arch_resolve_name(\"%s\"): libseccomp 0x%" PRIx32
					", compat 0x%" PRIx32 ", seccomp.h 0x%" PRIx32 "\n",
				lsc_arches[i].name, s, c, lsc_arches[i].token);
			bad++;
		}
	}
	/* names libseccomp does not take (scmpc's and Docker's spellings,
	 * case, empty) and the 2.6 ABIs */
	static const char *const others[] = { "i386", "amd64", "arm64", "X86_64", "", "x86-64",
					      "bogus", "loongarch64", "m68k", "sh", "sheb" };
	/* A deliberate difference: the ABIs libseccomp 2.6 added are scmpc's
	 * too, under the names 2.6 gives them. */
	static const struct {
		const char *name;
		enum scmpc_arch arch;
	} newer[] = { { "loongarch64", SCMPC_ARCH_LOONGARCH64 }, { "m68k", SCMPC_ARCH_M68K },
		      { "sh", SCMPC_ARCH_SH }, { "sheb", SCMPC_ARCH_SHEB } };
	for (size_t i = 0; i < N(others); i++) {
		uint32_t s = sys_api.arch_resolve_name(others[i]);
		uint32_t c = cmp_api.arch_resolve_name(others[i]);
		bool newer_abi = false;
		for (size_t k = 0; k < N(newer); k++)
			newer_abi |= !strcmp(others[i], newer[k].name) && s == 0 &&
				     c == scmpc_arch_audit(newer[k].arch);
		if (s != c && !newer_abi) {
			fprintf(stderr, "seccomp_arch_resolve_name(\"%s\"): libseccomp 0x%" PRIx32
					", compat 0x%" PRIx32 "\n",
				others[i], s, c);
			bad++;
		}
	}
	assert_int_equal(sys_api.arch_resolve_name(NULL), cmp_api.arch_resolve_name(NULL));
	assert_int_equal(sys_api.arch_native(), cmp_api.arch_native());
	assert_int_equal(bad, 0);
}

/* Every name scmpc's table has on any ABI, the pseudo-call names, and a
 * few nobody has. */
static char **all_names(size_t *count)
{
	size_t n = 0, cap = 1024;
	char **v = malloc(cap * sizeof(*v));
	assert_non_null(v);
	static const char *const extra[] = { "bogus", "", "SYS_read", "READ", "socketcall", "ipc",
					     "socket", "semop", "shmat", "recv", "send" };
	for (size_t i = 0; i < N(extra); i++)
		v[n++] = strdup(extra[i]);
	for (int a = 1; a <= SCMPC_ARCH_COUNT; a++) {
		struct scmpc_arch_info ai = { .sz = sizeof(ai) };
		if (scmpc_arch_describe((enum scmpc_arch)a, &ai) < 0)
			continue;
		for (uint32_t nr = ai.nr_base; nr <= ai.table_max; nr++) {
			char name[64];
			if (!scmpc_syscall_name((enum scmpc_arch)a, nr, name, sizeof(name)))
				continue;
			bool dup = false;
			for (size_t j = 0; j < n && !dup; j++)
				dup = !strcmp(v[j], name);
			if (dup)
				continue;
			if (n == cap) {
				cap *= 2;
				v = realloc(v, cap * sizeof(*v));
				assert_non_null(v);
			}
			v[n++] = strdup(name);
		}
	}
	*count = n;
	return v;
}

/* Whether libseccomp 2.5.4 knows NAME at all (its answer for a known name
 * is a number or a pseudo number on every ABI, never -1). */
static bool lsc_knows(const char *name)
{
	return name && sys_api.resolve_name_arch(SCMP_ARCH_X86_64, name) != __NR_SCMP_ERROR;
}

/*
 * The deliberate differences of resolution, each checked for what it is.
 * scmpc's table is newer than libseccomp 2.5.4's: a name 2.5.4 does not
 * know (statmount, mseal, ..., and names its header gives a pseudo number
 * but its table lacks, such as oldwait4), or a call an ABI gained since
 * (map_shadow_stack on x32), resolves in compat to scmpc's number for it,
 * or to the header's pseudo number on an ABI that lacks it.  And
 * parisc64's _llseek, which the kernel dropped from that ABI, only
 * libseccomp still numbers.
 */
static enum scmpc_arch arch_of_token(uint32_t token)
{
	for (int i = 1; i <= SCMPC_ARCH_COUNT; i++)
		if (i == SCMPC_ARCH_X32 ? token == SCMP_ARCH_X32
					: scmpc_arch_audit((enum scmpc_arch)i) == token)
			return (enum scmpc_arch)i;
	return SCMPC_ARCH_NONE;
}

static int64_t own_number(uint32_t token, const char *name)
{
	enum scmpc_arch a = arch_of_token(token);
	return a && name ? scmpc_syscall_resolve(a, name) : -1;
}

static bool dropped_call(uint32_t token, const char *name)
{
	return token == SCMP_ARCH_PARISC64 && name && !strcmp(name, "_llseek");
}

/* Resolving NAME on TOKEN: libseccomp said S, compat C. */
static bool newer_name(uint32_t token, const char *name, int s, int c)
{
	if (dropped_call(token, name))
		return true;
	int64_t own = own_number(token, name);
	if (!lsc_knows(name))
		return own >= 0 ? c == own || c < -1 : c < -1 || c == __NR_SCMP_ERROR;
	return s < -1 && own >= 0 && c == own;
}

/* Naming NR on TOKEN: libseccomp said S, compat C (NULL: none). */
static bool newer_number(uint32_t token, const char *s, const char *c)
{
	if ((!s && dropped_call(token, c)) || (!c && dropped_call(token, s)))
		return true;
	if (!s && c)
		return !lsc_knows(c) || (sys_api.resolve_name_arch(token, c) < -1 &&
					 own_number(token, c) >= 0);
	if (s && !c)	/* a pseudo number for a call scmpc numbers there */
		return own_number(token, s) >= 0;
	return false;
}

static void test_syscall_resolve(void **state)
{
	(void)state;
	size_t nn;
	char **names = all_names(&nn);
	unsigned long bad = 0, calls = 0;
	/* only a few lines per kind of call, the counts at the end */
	unsigned shown[3] = { 0, 0, 0 };
	unsigned limit = (unsigned)env_u64("SCMPC_COMPAT_VERBOSE", 0) ? ~0U : 25;
	unsigned long kinds[3] = { 0, 0, 0 }, deliberate = 0;
	for (size_t a = 0; a < N(lsc_arches); a++) {
		uint32_t t = lsc_arches[a].token;
		for (size_t i = 0; i < nn; i++) {
			int s = sys_api.resolve_name_arch(t, names[i]);
			int c = cmp_api.resolve_name_arch(t, names[i]);
			calls++;
			if (s != c && newer_name(t, names[i], s, c)) {
				deliberate++;
			} else if (s != c) {
				bad++;
				kinds[0]++;
				if (shown[0]++ < limit)
					fprintf(stderr, "seccomp_syscall_resolve_name_arch(%s, \"%s\"): "
							"libseccomp %d, compat %d\n",
						lsc_arches[a].name, names[i], s, c);
			}
			s = sys_api.resolve_name_rewrite(t, names[i]);
			c = cmp_api.resolve_name_rewrite(t, names[i]);
			calls++;
			if (s != c && newer_name(t, names[i], s, c)) {
				deliberate++;
			} else if (s != c) {
				bad++;
				kinds[1]++;
				if (shown[1]++ < limit)
					fprintf(stderr, "seccomp_syscall_resolve_name_rewrite(%s, \"%s\"): "
							"libseccomp %d, compat %d\n",
						lsc_arches[a].name, names[i], s, c);
			}
		}
		/* numbers: the table's range with margins, x32's and mips'
		 * bases, the pseudo numbers */
		int ranges[][2] = { { -1, 1100 }, { 4000, 4500 }, { 5000, 5500 }, { 6000, 6500 },
				    { 0x40000000, 0x40000000 + 600 }, { -230, -100 },
				    { -10250, -10000 } };
		for (size_t r = 0; r < N(ranges); r++)
			for (int nr = ranges[r][0]; nr <= ranges[r][1]; nr++) {
				char *s = sys_api.resolve_num_arch(t, nr);
				char *c = cmp_api.resolve_num_arch(t, nr);
				calls++;
				bool differ = (s == NULL) != (c == NULL) || (s && strcmp(s, c));
				if (differ && newer_number(t, s, c)) {
					deliberate++;
				} else if (differ) {
					bad++;
					kinds[2]++;
					if (shown[2]++ < limit)
						fprintf(stderr, "seccomp_syscall_resolve_num_arch(%s, %d): "
								"libseccomp %s, compat %s\n",
							lsc_arches[a].name, nr, s ? s : "NULL",
							c ? c : "NULL");
				}
				free(s);
				free(c);
			}
	}
	/* the native ABI's shorthands */
	for (size_t i = 0; i < nn; i++) {
		calls++;
		int s = sys_api.resolve_name(names[i]), c = cmp_api.resolve_name(names[i]);
		if (s != c && newer_name(sys_api.arch_native(), names[i], s, c)) {
			deliberate++;
		} else if (s != c) {
			bad++;
			if (shown[0]++ < limit)
				fprintf(stderr, "seccomp_syscall_resolve_name(\"%s\"): libseccomp %d, "
						"compat %d\n",
					names[i], sys_api.resolve_name(names[i]),
					cmp_api.resolve_name(names[i]));
		}
	}
	assert_int_equal(sys_api.resolve_name_arch(SCMP_ARCH_X86_64, NULL),
			 cmp_api.resolve_name_arch(SCMP_ARCH_X86_64, NULL));
	assert_int_equal(sys_api.resolve_name_arch(0x12345678, "read"),
			 cmp_api.resolve_name_arch(0x12345678, "read"));
	assert_null(cmp_api.resolve_num_arch(0x12345678, 0));
	for (size_t i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	fprintf(stderr, "syscall resolution: %lu calls over %zu names and %zu ABIs, %lu different "
			"(name_arch %lu, name_rewrite %lu, num_arch %lu); %lu deliberate (names "
			"newer than libseccomp 2.5.4, parisc64's _llseek)\n",
		calls, nn, N(lsc_arches), bad, kinds[0], kinds[1], kinds[2], deliberate);
	assert_true(deliberate > 0);
	assert_int_equal(bad, 0);
}

/* ------------------------------------------------------------ API checks */

/* The ABI of the other byte order than the native one. */
static uint32_t other_endian(void)
{
	return scmpc_arch_big_endian(scmpc_arch_native()) ? SCMP_ARCH_X86_64 : SCMP_ARCH_S390X;
}

static int nr_of(const struct api *L, const char *name)
{
	int nr = L->resolve_name(name);
	assert_true(nr != __NR_SCMP_ERROR);
	return nr;
}

static void api_errors(const struct api *L)
{
	print_message("%s\n", L->name);
	int rd = nr_of(L, "read");
	assert_null(L->init(SCMP_ACT_ALLOW + 1));
	assert_null(L->init(SCMP_ACT_ERRNO(4096)));
	scmp_filter_ctx ctx = L->init(SCMP_ACT_ALLOW);
	assert_non_null(ctx);
	L->release(ctx);
	assert_int_equal(L->reset(NULL, SCMP_ACT_ALLOW), 0);

	/* NULL contexts */
	assert_int_equal(L->load(NULL), -EINVAL);
	assert_int_equal(L->syscall_priority(NULL, rd, 1), -EINVAL);
	assert_int_equal(L->rule_add(NULL, SCMP_ACT_ALLOW, rd, 1, SCMP_A0(SCMP_CMP_EQ, 0)), -EINVAL);
	assert_int_equal(L->rule_add_exact(NULL, SCMP_ACT_KILL, rd, 0), -EINVAL);
	assert_int_equal(L->export_pfc(NULL, STDOUT_FILENO), -EINVAL);
	assert_int_equal(L->export_bpf(NULL, STDOUT_FILENO), -EINVAL);
	if (L->precompute)
		assert_int_equal(L->precompute(NULL), -EINVAL);

	ctx = L->init(SCMP_ACT_ALLOW);
	assert_non_null(ctx);
	assert_int_equal(L->syscall_priority(ctx, -10, 1), -EINVAL);
	assert_int_equal(L->syscall_priority(ctx, rd, 1), 0);
	/* the default action, bad actions, bad argument lists */
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_ALLOW, rd, 0), -EACCES);
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_KILL - 1, rd, 0), -EINVAL);
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_ERRNO(0xffff), rd, 0), -EINVAL);
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_KILL, rd, 7), -EINVAL);
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_KILL, rd, 7, SCMP_A0(SCMP_CMP_EQ, 0),
				     SCMP_A1(SCMP_CMP_EQ, 0), SCMP_A2(SCMP_CMP_EQ, 0),
				     SCMP_A3(SCMP_CMP_EQ, 0), SCMP_A4(SCMP_CMP_EQ, 0),
				     SCMP_A5(SCMP_CMP_EQ, 0), SCMP_CMP(6, SCMP_CMP_EQ, 0)),
			 -EINVAL);
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_KILL, rd, 1, SCMP_A0(_SCMP_CMP_MIN, 0)), -EINVAL);
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_KILL, rd, 1, SCMP_A0(_SCMP_CMP_MAX, 0)), -EINVAL);
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_KILL, rd, 1, SCMP_CMP(6, SCMP_CMP_EQ, 0)), -EINVAL);
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_KILL, rd, 2, SCMP_A1(SCMP_CMP_EQ, 0),
				     SCMP_A1(SCMP_CMP_EQ, 1)),
			 -EINVAL);
	assert_int_equal(L->rule_add_array(ctx, SCMP_ACT_KILL, rd, 1, NULL), -EINVAL);
	assert_int_equal(L->rule_add_exact(ctx, SCMP_ACT_KILL, -10001, 0), -EDOM);
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_KILL, -10001, 0), 0);
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_KILL, -10, 0), -EINVAL);
	/* nr -1 only with API_TSKIP */
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_KILL, -1, 0), -EINVAL);
	assert_int_equal(L->attr_set(ctx, SCMP_FLTATR_API_TSKIP, 1), 0);
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_KILL, -1, 0), 0);
	/* attributes that do not exist */
	uint32_t v;
	assert_int_equal(L->attr_get(ctx, 1000, &v), -EINVAL);
	assert_int_equal(L->attr_set(ctx, 1000, 1), -EINVAL);
	assert_int_equal(L->attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ALLOW + 1), -EINVAL);
	assert_int_equal(L->attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 3), -EOPNOTSUPP);
	/* export to a descriptor that is not open */
	int badfd = (int)sysconf(_SC_OPEN_MAX) - 1;
	assert_int_equal(L->export_bpf(ctx, badfd), -ECANCELED);
	assert_int_equal(L->export_pfc(ctx, badfd), -ECANCELED);
	assert_int_equal(L->attr_set(ctx, SCMP_FLTATR_API_SYSRAWRC, 1), 0);
	assert_int_equal(L->export_bpf(ctx, badfd), -EBADF);
	assert_int_equal(L->merge(ctx, NULL), -EINVAL);
	L->release(ctx);

	/* exact rules on a multiplexed call with an argument-0 test */
	ctx = L->init(SCMP_ACT_ALLOW);
	assert_non_null(ctx);
	assert_int_equal(L->arch_remove(ctx, SCMP_ARCH_NATIVE), 0);
	assert_int_equal(L->arch_add(ctx, SCMP_ARCH_X86), 0);
	assert_int_equal(L->rule_add_exact(ctx, SCMP_ACT_KILL, L->resolve_name("socket"), 1,
					   SCMP_A0(SCMP_CMP_EQ, 2)),
			 -EINVAL);
	assert_int_equal(L->rule_add_exact(ctx, 0xdeadbeef, L->resolve_name("open"), 0), -EINVAL);
	L->release(ctx);

	/* a context without ABIs is not usable */
	ctx = L->init(SCMP_ACT_ALLOW);
	assert_non_null(ctx);
	assert_int_equal(L->arch_remove(ctx, SCMP_ARCH_NATIVE), 0);
	assert_int_equal(L->arch_remove(ctx, SCMP_ARCH_NATIVE), -EEXIST);
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_KILL, rd, 0), -EINVAL);
	assert_int_equal(L->attr_get(ctx, SCMP_FLTATR_ACT_DEFAULT, &v), -EINVAL);
	assert_int_equal(L->attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0), -EINVAL);
	assert_int_equal(L->export_bpf(ctx, STDOUT_FILENO), -EINVAL);
	/* the byte order is free again once the last ABI went */
	assert_int_equal(L->arch_add(ctx, other_endian()), 0);
	L->release(ctx);
}

static void test_api_errors(void **state)
{
	(void)state;
	api_errors(&sys_api);
	api_errors(&cmp_api);
	/* what libseccomp would crash on */
	uint32_t v;
	assert_int_equal(cmp_api.attr_get(NULL, SCMP_FLTATR_ACT_DEFAULT, &v), -EINVAL);
	assert_int_equal(cmp_api.attr_set(NULL, SCMP_FLTATR_CTL_NNP, 0), -EINVAL);
	assert_int_equal(cmp_api.arch_add(NULL, SCMP_ARCH_X86_64), -EINVAL);
	assert_int_equal(cmp_api.reset(NULL, SCMP_ACT_ALLOW + 1), 0);
}

static void api_arches(const struct api *L)
{
	print_message("%s\n", L->name);
	scmp_filter_ctx ctx = L->init(SCMP_ACT_KILL);
	assert_non_null(ctx);
	uint32_t native = L->arch_native();
	assert_int_equal(L->arch_exist(ctx, SCMP_ARCH_NATIVE), 0);
	assert_int_equal(L->arch_exist(ctx, native), 0);
	assert_int_equal(L->arch_add(ctx, SCMP_ARCH_NATIVE), -EEXIST);
	assert_int_equal(L->arch_add(ctx, native), -EEXIST);
	assert_int_equal(L->arch_add(ctx, 0x12345678), -EINVAL);
	assert_int_equal(L->arch_exist(ctx, 0x12345678), -EINVAL);
	assert_int_equal(L->arch_remove(ctx, 0x12345678), -EINVAL);
	/* the other byte order */
	assert_int_equal(L->arch_add(ctx, other_endian()), -EDOM);
	assert_int_equal(L->arch_exist(ctx, other_endian()), -EEXIST);
	/* the same byte order, twice */
	uint32_t same = native == SCMP_ARCH_AARCH64 ? SCMP_ARCH_ARM
			: scmpc_arch_big_endian(scmpc_arch_native()) ? SCMP_ARCH_PPC64
								      : SCMP_ARCH_AARCH64;
	if (native == SCMP_ARCH_S390X)
		same = SCMP_ARCH_S390;
	assert_int_equal(L->arch_add(ctx, same), 0);
	assert_int_equal(L->arch_add(ctx, same), -EEXIST);
	assert_int_equal(L->arch_exist(ctx, same), 0);
	assert_int_equal(L->arch_remove(ctx, same), 0);
	assert_int_equal(L->arch_remove(ctx, same), -EEXIST);
	assert_int_equal(L->arch_exist(ctx, same), -EEXIST);

	/* conflicting rules: same comparisons, another action */
	int rd = nr_of(L, "read");
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_ERRNO(1), rd, 1, SCMP_A0(SCMP_CMP_EQ, 5)), 0);
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_ERRNO(1), rd, 1, SCMP_A0(SCMP_CMP_EQ, 5)), 0);
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_ERRNO(2), rd, 1, SCMP_A0(SCMP_CMP_EQ, 5)), -EEXIST);
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_ERRNO(2), rd, 1, SCMP_A0(SCMP_CMP_EQ, 6)), 0);

	/* merge: the same ABI, another default action, then a good one */
	scmp_filter_ctx b = L->init(SCMP_ACT_KILL);
	assert_non_null(b);
	assert_int_equal(L->merge(ctx, b), -EEXIST);
	L->release(b);
	b = L->init(SCMP_ACT_ALLOW);
	assert_non_null(b);
	assert_int_equal(L->arch_remove(b, SCMP_ARCH_NATIVE), 0);
	assert_int_equal(L->arch_add(b, same), 0);
	assert_int_equal(L->merge(ctx, b), -EINVAL);
	L->release(b);
	b = L->init(SCMP_ACT_KILL);
	assert_non_null(b);
	assert_int_equal(L->arch_remove(b, SCMP_ARCH_NATIVE), 0);
	assert_int_equal(L->arch_add(b, same), 0);
	assert_int_equal(L->rule_add(b, SCMP_ACT_TRAP, nr_of(L, "close"), 0), 0);
	assert_int_equal(L->merge(ctx, b), 0);	/* b is gone */
	assert_int_equal(L->arch_exist(ctx, same), 0);

	/* reset: the native ABI only, attributes back to their defaults */
	assert_int_equal(L->attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0), 0);
	assert_int_equal(L->reset(ctx, SCMP_ACT_ERRNO(5)), 0);
	assert_int_equal(L->arch_exist(ctx, same), -EEXIST);
	assert_int_equal(L->arch_exist(ctx, SCMP_ARCH_NATIVE), 0);
	uint32_t v;
	assert_int_equal(L->attr_get(ctx, SCMP_FLTATR_ACT_DEFAULT, &v), 0);
	assert_int_equal(v, SCMP_ACT_ERRNO(5));
	assert_int_equal(L->attr_get(ctx, SCMP_FLTATR_CTL_NNP, &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(L->reset(ctx, SCMP_ACT_ALLOW + 1), -EINVAL);
	L->release(ctx);
}

static void test_api_arches(void **state)
{
	(void)state;
	api_arches(&sys_api);
	api_arches(&cmp_api);
}

/* 13-basic-attrs, and the defaults, on one library; the values it gets
 * land in OUT for the comparison of the two. */
static void api_attrs(const struct api *L, uint32_t out[16])
{
	print_message("%s\n", L->name);
	scmp_filter_ctx ctx = L->init(SCMP_ACT_ALLOW);
	assert_non_null(ctx);
	static const enum scmp_filter_attr attrs[] = {
		SCMP_FLTATR_ACT_DEFAULT, SCMP_FLTATR_ACT_BADARCH, SCMP_FLTATR_CTL_NNP,
		SCMP_FLTATR_CTL_TSYNC, SCMP_FLTATR_API_TSKIP, SCMP_FLTATR_CTL_LOG,
		SCMP_FLTATR_CTL_SSB, SCMP_FLTATR_CTL_OPTIMIZE, SCMP_FLTATR_API_SYSRAWRC,
	};
	uint32_t v = 0xdeadbeef;
	/* the defaults */
	for (size_t i = 0; i < N(attrs); i++) {
		assert_int_equal(L->attr_get(ctx, attrs[i], &v), 0);
		out[i] = v;
	}
	assert_int_equal(L->attr_get(ctx, SCMP_FLTATR_ACT_DEFAULT, &v), 0);
	assert_int_equal(v, SCMP_ACT_ALLOW);
	assert_int_equal(L->attr_set(ctx, SCMP_FLTATR_ACT_DEFAULT, v), -EACCES);
	assert_int_equal(L->attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ALLOW), 0);
	assert_int_equal(L->attr_get(ctx, SCMP_FLTATR_ACT_BADARCH, &v), 0);
	assert_int_equal(v, SCMP_ACT_ALLOW);
	assert_int_equal(L->attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0), 0);
	assert_int_equal(L->attr_get(ctx, SCMP_FLTATR_CTL_NNP, &v), 0);
	assert_int_equal(v, 0);
	int rc = L->attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
	out[9] = (uint32_t)rc;
	assert_true(rc == 0 || rc == -EOPNOTSUPP);
	assert_int_equal(L->attr_get(ctx, SCMP_FLTATR_CTL_TSYNC, &v), 0);
	assert_int_equal(v, rc == 0);
	assert_int_equal(L->attr_set(ctx, SCMP_FLTATR_API_TSKIP, 1), 0);
	assert_int_equal(L->attr_get(ctx, SCMP_FLTATR_API_TSKIP, &v), 0);
	assert_int_equal(v, 1);
	rc = L->attr_set(ctx, SCMP_FLTATR_CTL_LOG, 1);
	out[10] = (uint32_t)rc;
	if (rc == 0) {
		assert_int_equal(L->attr_get(ctx, SCMP_FLTATR_CTL_LOG, &v), 0);
		assert_int_equal(v, 1);
	}
	rc = L->attr_set(ctx, SCMP_FLTATR_CTL_SSB, 1);
	out[11] = (uint32_t)rc;
	if (rc == 0) {
		assert_int_equal(L->attr_get(ctx, SCMP_FLTATR_CTL_SSB, &v), 0);
		assert_int_equal(v, 1);
	}
	assert_int_equal(L->attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2), 0);
	assert_int_equal(L->attr_get(ctx, SCMP_FLTATR_CTL_OPTIMIZE, &v), 0);
	assert_int_equal(v, 2);
	assert_int_equal(L->attr_set(ctx, SCMP_FLTATR_API_SYSRAWRC, 1), 0);
	assert_int_equal(L->attr_get(ctx, SCMP_FLTATR_API_SYSRAWRC, &v), 0);
	assert_int_equal(v, 1);
	/* boolean attributes keep 0 or 1 */
	assert_int_equal(L->attr_set(ctx, SCMP_FLTATR_CTL_NNP, 7), 0);
	assert_int_equal(L->attr_get(ctx, SCMP_FLTATR_CTL_NNP, &v), 0);
	out[12] = v;
	assert_int_equal(L->attr_set(ctx, SCMP_FLTATR_API_TSKIP, 0), 0);
	assert_int_equal(L->attr_get(ctx, SCMP_FLTATR_API_TSKIP, &v), 0);
	assert_int_equal(v, 0);
	L->release(ctx);
}

static void test_api_attrs(void **state)
{
	(void)state;
	uint32_t s[16] = { 0 }, c[16] = { 0 };
	api_attrs(&sys_api, s);
	api_attrs(&cmp_api, c);
	for (size_t i = 0; i < 16; i++)
		if (s[i] != c[i])
			fprintf(stderr, "attribute value %zu: libseccomp 0x%" PRIx32 ", compat 0x%" PRIx32
					"\n",
				i, s[i], c[i]);
	assert_memory_equal(s, c, sizeof(s));
	/* the version and the API level */
	const struct scmp_version *vs = sys_api.version(), *vc = cmp_api.version();
	assert_non_null(vs);
	assert_non_null(vc);
	assert_int_equal(vc->major, SCMP_VER_MAJOR);
	assert_int_equal(vc->minor, SCMP_VER_MINOR);
	assert_int_equal(vc->micro, SCMP_VER_MICRO);
	/* the levels themselves: test_api_level() */
	assert_int_equal(cmp_api.api_set(0), -EINVAL);
	assert_int_equal(cmp_api.api_set(8), -EINVAL);
	unsigned level = cmp_api.api_get();
	assert_int_equal(cmp_api.api_set(1), 0);
	assert_int_equal(cmp_api.api_get(), 1);
	/* level 1: no TSYNC, LOG or KILL_PROCESS */
	scmp_filter_ctx ctx = cmp_api.init(SCMP_ACT_ALLOW);
	assert_non_null(ctx);
	assert_int_equal(cmp_api.rule_add(ctx, SCMP_ACT_LOG, nr_of(&cmp_api, "read"), 0), -EINVAL);
	assert_null(cmp_api.init(SCMP_ACT_KILL_PROCESS));
	cmp_api.release(ctx);
	assert_int_equal(cmp_api.api_set(level), 0);
	assert_int_equal(cmp_api.api_get(), level);
}

/* The program CTX gives (the compatible library), malloc'ed. */
static struct sock_filter *cmp_prog(scmp_filter_ctx ctx, size_t *len)
{
	struct sock_filter *p;
	assert_int_equal(export_prog(&cmp_api, ctx, &p, len), 0);
	assert_non_null(p);
	return p;
}

static uint32_t run(scmp_filter_ctx ctx, int nr, uint64_t a0)
{
	size_t len;
	struct sock_filter *p = cmp_prog(ctx, &len);
	struct seccomp_data sd = { .nr = nr, .arch = scmpc_arch_audit(scmpc_arch_native()),
				   .args = { a0 } };
	uint32_t ret = 0;
	assert_int_equal(scmpc_emulate(p, len, &sd, &ret, NULL), 0);
	free(p);
	return ret;
}

static void test_transactions(void **state)
{
	(void)state;
	const struct api *L = &cmp_api;
	if (!sys_api.transaction_start)
		print_message("libseccomp %s has no transactions: the compatible library's alone\n",
			      SYSTEM_LIB);
	if (!L->transaction_start || !L->transaction_reject || !L->transaction_commit) {
		print_message("skipped: %s has no seccomp_transaction_*\n", COMPAT_LIB);
		skip();
	}
	int rd = nr_of(L, "read"), wr = nr_of(L, "write"), cl = nr_of(L, "close");
	assert_int_equal(L->transaction_start(NULL), -EINVAL);
	assert_int_equal(L->transaction_commit(NULL), -EINVAL);
	L->transaction_reject(NULL);

	scmp_filter_ctx ctx = L->init(SCMP_ACT_ALLOW);
	assert_non_null(ctx);
	assert_int_equal(L->transaction_commit(ctx), -EINVAL);	/* none started */
	L->transaction_reject(ctx);				/* none: nothing happens */
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_ERRNO(1), rd, 0), 0);

	/* rejected: the rules added since the start go */
	assert_int_equal(L->transaction_start(ctx), 0);
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_ERRNO(2), wr, 0), 0);
	assert_int_equal(run(ctx, wr, 0), SCMP_ACT_ERRNO(2));
	L->transaction_reject(ctx);
	assert_int_equal(run(ctx, wr, 0), SCMP_ACT_ALLOW);
	assert_int_equal(run(ctx, rd, 0), SCMP_ACT_ERRNO(1));

	/* committed: they stay */
	assert_int_equal(L->transaction_start(ctx), 0);
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_ERRNO(3), wr, 0), 0);
	assert_int_equal(L->transaction_commit(ctx), 0);
	assert_int_equal(L->transaction_commit(ctx), -EINVAL);
	assert_int_equal(run(ctx, wr, 0), SCMP_ACT_ERRNO(3));

	/* nested: the inner reject undoes the inner rules only */
	assert_int_equal(L->transaction_start(ctx), 0);
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_ERRNO(4), cl, 1, SCMP_A0(SCMP_CMP_EQ, 1)), 0);
	assert_int_equal(L->transaction_start(ctx), 0);
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_ERRNO(5), cl, 1, SCMP_A0(SCMP_CMP_EQ, 2)), 0);
	assert_int_equal(run(ctx, cl, 2), SCMP_ACT_ERRNO(5));
	L->transaction_reject(ctx);
	assert_int_equal(run(ctx, cl, 2), SCMP_ACT_ALLOW);
	assert_int_equal(run(ctx, cl, 1), SCMP_ACT_ERRNO(4));
	assert_int_equal(L->transaction_commit(ctx), 0);
	assert_int_equal(run(ctx, cl, 1), SCMP_ACT_ERRNO(4));

	/* a rule refused inside a transaction leaves it as it was */
	assert_int_equal(L->transaction_start(ctx), 0);
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_ERRNO(9), cl, 1, SCMP_A0(SCMP_CMP_EQ, 1)), -EEXIST);
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_ALLOW, cl, 0), -EACCES);
	L->transaction_reject(ctx);
	assert_int_equal(run(ctx, cl, 1), SCMP_ACT_ERRNO(4));
	assert_int_equal(run(ctx, rd, 0), SCMP_ACT_ERRNO(1));

	/* ABIs are in the transaction too */
	uint32_t other = scmpc_arch_big_endian(scmpc_arch_native()) ? SCMP_ARCH_S390 : SCMP_ARCH_X86;
	if (L->arch_native() == other)
		other = SCMP_ARCH_X86_64;
	assert_int_equal(L->transaction_start(ctx), 0);
	assert_int_equal(L->arch_add(ctx, other), 0);
	L->transaction_reject(ctx);
	assert_int_equal(L->arch_exist(ctx, other), -EEXIST);
	assert_int_equal(L->arch_add(ctx, other), 0);
	assert_int_equal(L->transaction_start(ctx), 0);
	assert_int_equal(L->arch_remove(ctx, SCMP_ARCH_NATIVE), 0);
	L->transaction_reject(ctx);
	assert_int_equal(L->arch_exist(ctx, SCMP_ARCH_NATIVE), 0);
	assert_int_equal(L->arch_exist(ctx, other), 0);
	assert_int_equal(run(ctx, rd, 0), SCMP_ACT_ERRNO(1));

	/* a started transaction is released with its context */
	assert_int_equal(L->transaction_start(ctx), 0);
	assert_int_equal(L->transaction_start(ctx), 0);
	L->release(ctx);
}

/*
 * libseccomp refuses a rule (EEXIST) whose comparisons end, on some call,
 * where an earlier rule's end in another action; the compatible library
 * decides that one add at a time on its index of each ABI's rules by call
 * (src/compat/refusal.c).  These scripts set up refusals that only a
 * correct index gets right: clashes with a rule added long before, behind
 * many rules of other calls and of the same call; on socketcall(2) and
 * ipc(2), where the rules of several calls meet; an add one ABI refuses,
 * taken back on the ABI that took it; ABIs removed and added again;
 * contexts merged.  Each script runs on both libraries and every return
 * code is compared, besides the codes asserted here.
 */
#define MAX_RCS 128

struct rcs {
	int v[MAX_RCS];
	size_t n;
};

static int rc_put(struct rcs *r, int rc)
{
	assert_true(r->n < MAX_RCS);
	r->v[r->n++] = rc;
	return rc;
}

static void rcs_same(const struct rcs *s, const struct rcs *c, const char *what)
{
	assert_int_equal(s->n, c->n);
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i] != c->v[i]) {
			fprintf(stderr, "%s: return code %zu: libseccomp %d, compat %d\n", what, i,
				s->v[i], c->v[i]);
			fail();
		}
}

static bool x86_family(void)
{
	return scmpc_arch_native() == SCMPC_ARCH_X86_64;
}

/* Clashes with rules added long before, behind hundreds of others. */
static void refusals_far(const struct api *L, struct rcs *r)
{
	int rd = nr_of(L, "read"), wr = nr_of(L, "write"), io = nr_of(L, "ioctl");
	static const char *const others[] = { "openat", "close", "mmap", "futex", "fcntl", "lseek" };
	scmp_filter_ctx ctx = L->init(SCMP_ACT_ALLOW);
	assert_non_null(ctx);
	assert_int_equal(rc_put(r, L->rule_add(ctx, SCMP_ACT_ERRNO(1), wr, 1,
					       SCMP_A0(SCMP_CMP_EQ, 5))), 0);
	assert_int_equal(rc_put(r, L->rule_add(ctx, SCMP_ACT_ERRNO(1), io, 2, SCMP_A0(SCMP_CMP_EQ, 1),
					       SCMP_A1(SCMP_CMP_GT, 100))), 0);
	/* rules of other calls, and many of read with one action */
	for (unsigned i = 0; i < 300; i++) {
		int nr = nr_of(L, others[i % N(others)]);
		assert_int_equal(L->rule_add(ctx, SCMP_ACT_ERRNO(1 + i % 3), nr, 1,
					     SCMP_A1(SCMP_CMP_EQ, i)), 0);
		assert_int_equal(L->rule_add(ctx, SCMP_ACT_ERRNO(7), rd, 2, SCMP_A0(SCMP_CMP_EQ, i),
					     SCMP_A2(SCMP_CMP_MASKED_EQ, 0xf0, (i % 16) << 4)), 0);
	}
	/* the first rules still decide */
	assert_int_equal(rc_put(r, L->rule_add(ctx, SCMP_ACT_ERRNO(2), wr, 1,
					       SCMP_A0(SCMP_CMP_EQ, 5))), -EEXIST);
	assert_int_equal(rc_put(r, L->rule_add(ctx, SCMP_ACT_ERRNO(1), wr, 1,
					       SCMP_A0(SCMP_CMP_EQ, 5))), 0);
	assert_int_equal(rc_put(r, L->rule_add(ctx, SCMP_ACT_ERRNO(2), wr, 1,
					       SCMP_A0(SCMP_CMP_EQ, 6))), 0);
	rc_put(r, L->rule_add(ctx, SCMP_ACT_KILL, io, 2, SCMP_A0(SCMP_CMP_EQ, 1),
			      SCMP_A1(SCMP_CMP_GT, 100)));
	rc_put(r, L->rule_add(ctx, SCMP_ACT_KILL, io, 1, SCMP_A0(SCMP_CMP_EQ, 1)));
	/* the 300 rules of read: a clash with the 4th, none with a new value;
	 * then another action enters their tree */
	assert_int_equal(rc_put(r, L->rule_add(ctx, SCMP_ACT_TRAP, rd, 2, SCMP_A0(SCMP_CMP_EQ, 3),
					       SCMP_A2(SCMP_CMP_MASKED_EQ, 0xf0, 0x30))), -EEXIST);
	assert_int_equal(rc_put(r, L->rule_add(ctx, SCMP_ACT_TRAP, rd, 2, SCMP_A0(SCMP_CMP_EQ, 3),
					       SCMP_A2(SCMP_CMP_MASKED_EQ, 0xf0, 0x40))), 0);
	assert_int_equal(rc_put(r, L->rule_add(ctx, SCMP_ACT_TRAP, rd, 2, SCMP_A0(SCMP_CMP_EQ, 299),
					       SCMP_A2(SCMP_CMP_MASKED_EQ, 0xf0, 0xb0))), -EEXIST);
	assert_int_equal(rc_put(r, L->rule_add(ctx, SCMP_ACT_ERRNO(7), rd, 2,
					       SCMP_A0(SCMP_CMP_EQ, 3),
					       SCMP_A2(SCMP_CMP_MASKED_EQ, 0xf0, 0x40))), -EEXIST);
	/* an unconditional rule replaces read's tree: nothing clashes after it */
	assert_int_equal(rc_put(r, L->rule_add(ctx, SCMP_ACT_LOG, rd, 0)), 0);
	assert_int_equal(rc_put(r, L->rule_add(ctx, SCMP_ACT_TRAP, rd, 2, SCMP_A0(SCMP_CMP_EQ, 3),
					       SCMP_A2(SCMP_CMP_MASKED_EQ, 0xf0, 0x30))), 0);
	L->release(ctx);
}

/* x86 (and x86_64 beside it): socket and IPC calls meet on socketcall(2)
 * and ipc(2), an add refused on one ABI is taken back on the other. */
static void refusals_mux(const struct api *L, struct rcs *r)
{
	int sk = nr_of(L, "socket"), cn = nr_of(L, "connect"), st = nr_of(L, "sendto");
	int mg = nr_of(L, "msgget"), so = nr_of(L, "semop"), wr = nr_of(L, "write");
	scmp_filter_ctx ctx = L->init(SCMP_ACT_ALLOW);
	assert_non_null(ctx);
	assert_int_equal(L->arch_add(ctx, SCMP_ARCH_X86), 0);
	rc_put(r, L->rule_add(ctx, SCMP_ACT_ERRNO(1), sk, 1, SCMP_A0(SCMP_CMP_EQ, 2)));
	for (unsigned i = 0; i < 40; i++)
		rc_put(r, L->rule_add(ctx, SCMP_ACT_ERRNO(1), cn, 1, SCMP_A2(SCMP_CMP_EQ, i)));
	/* socket's copy on socketcall tests argument 0 for the call alone */
	rc_put(r, L->rule_add(ctx, SCMP_ACT_ERRNO(2), sk, 1, SCMP_A0(SCMP_CMP_EQ, 7)));
	rc_put(r, L->rule_add(ctx, SCMP_ACT_ERRNO(2), cn, 1, SCMP_A2(SCMP_CMP_EQ, 3)));
	rc_put(r, L->rule_add(ctx, SCMP_ACT_ERRNO(1), cn, 1, SCMP_A2(SCMP_CMP_EQ, 3)));
	rc_put(r, L->rule_add(ctx, SCMP_ACT_ERRNO(2), st, 1, SCMP_A1(SCMP_CMP_EQ, 3)));
	rc_put(r, L->rule_add(ctx, SCMP_ACT_ERRNO(3), st, 1, SCMP_A1(SCMP_CMP_EQ, 3)));
	rc_put(r, L->rule_add(ctx, SCMP_ACT_ERRNO(3), st, 1, SCMP_A1(SCMP_CMP_EQ, 4)));
	rc_put(r, L->rule_add(ctx, SCMP_ACT_ERRNO(1), mg, 1, SCMP_A1(SCMP_CMP_EQ, 1)));
	rc_put(r, L->rule_add(ctx, SCMP_ACT_ERRNO(2), so, 1, SCMP_A1(SCMP_CMP_EQ, 1)));
	rc_put(r, L->rule_add(ctx, SCMP_ACT_ERRNO(2), mg, 1, SCMP_A1(SCMP_CMP_EQ, 1)));
	rc_put(r, L->rule_add(ctx, SCMP_ACT_ERRNO(2), mg, 0));
	rc_put(r, L->rule_add(ctx, SCMP_ACT_ERRNO(3), mg, 1, SCMP_A1(SCMP_CMP_EQ, 1)));
	/* a constant whose high word x86 drops: write(0x100000005) is
	 * write(5) there, so the second rule clashes on x86 alone and must
	 * leave no trace on x86_64 */
	assert_int_equal(rc_put(r, L->rule_add(ctx, SCMP_ACT_ERRNO(1), wr, 1,
					       SCMP_A0(SCMP_CMP_EQ, 0x100000005ULL))), 0);
	/* (two actions on write already, so that x86_64 merges the next
	 * rule into a tree it keeps, and must take it out again) */
	assert_int_equal(rc_put(r, L->rule_add(ctx, SCMP_ACT_ERRNO(7), wr, 1,
					       SCMP_A0(SCMP_CMP_EQ, 0x400000009ULL))), 0);
	assert_int_equal(rc_put(r, L->rule_add(ctx, SCMP_ACT_ERRNO(2), wr, 1,
					       SCMP_A0(SCMP_CMP_EQ, 5))), -EEXIST);
	assert_int_equal(rc_put(r, L->rule_add(ctx, SCMP_ACT_ERRNO(3), wr, 1,
					       SCMP_A0(SCMP_CMP_EQ, 5))), -EEXIST);
	/* without x86: nothing left to clash with */
	assert_int_equal(rc_put(r, L->arch_remove(ctx, SCMP_ARCH_X86)), 0);
	assert_int_equal(rc_put(r, L->rule_add(ctx, SCMP_ACT_ERRNO(3), wr, 1,
					       SCMP_A0(SCMP_CMP_EQ, 5))), 0);
	assert_int_equal(rc_put(r, L->rule_add(ctx, SCMP_ACT_ERRNO(4), wr, 1,
					       SCMP_A0(SCMP_CMP_EQ, 5))), -EEXIST);
	/* x86 again, empty: the clash is x86_64's alone */
	assert_int_equal(rc_put(r, L->arch_add(ctx, SCMP_ARCH_X86)), 0);
	assert_int_equal(rc_put(r, L->rule_add(ctx, SCMP_ACT_ERRNO(4), wr, 1,
					       SCMP_A0(SCMP_CMP_EQ, 5))), -EEXIST);
	assert_int_equal(rc_put(r, L->rule_add(ctx, SCMP_ACT_ERRNO(4), wr, 1,
					       SCMP_A0(SCMP_CMP_EQ, 0x200000005ULL))), 0);
	assert_int_equal(rc_put(r, L->rule_add(ctx, SCMP_ACT_ERRNO(5), wr, 1,
					       SCMP_A0(SCMP_CMP_EQ, 0x300000005ULL))), -EEXIST);
	assert_int_equal(rc_put(r, L->arch_remove(ctx, SCMP_ARCH_NATIVE)), 0);
	assert_int_equal(rc_put(r, L->rule_add(ctx, SCMP_ACT_ERRNO(5), wr, 1,
					       SCMP_A0(SCMP_CMP_EQ, 0x300000005ULL))), -EEXIST);
	assert_int_equal(rc_put(r, L->rule_add(ctx, SCMP_ACT_ERRNO(4), wr, 1,
					       SCMP_A0(SCMP_CMP_EQ, 0x300000005ULL))), 0);
	L->release(ctx);
}

/* Merged contexts: the rules each brought still clash.  (The context
 * merged into has x86 alone: libseccomp 2.5.4 loses the ABIs of a context
 * merged into one that has x86_64.) */
static void refusals_merge(const struct api *L, struct rcs *r)
{
	int wr = nr_of(L, "write"), sk = nr_of(L, "socket");
	scmp_filter_ctx a = L->init(SCMP_ACT_ALLOW), b = L->init(SCMP_ACT_ALLOW);
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(L->arch_add(a, SCMP_ARCH_X86), 0);
	assert_int_equal(L->arch_remove(a, SCMP_ARCH_NATIVE), 0);
	rc_put(r, L->rule_add(b, SCMP_ACT_ERRNO(1), wr, 1, SCMP_A0(SCMP_CMP_EQ, 5)));
	rc_put(r, L->rule_add(a, SCMP_ACT_ERRNO(2), wr, 1, SCMP_A0(SCMP_CMP_EQ, 6)));
	rc_put(r, L->rule_add(a, SCMP_ACT_ERRNO(2), sk, 1, SCMP_A0(SCMP_CMP_EQ, 1)));
	assert_int_equal(rc_put(r, L->merge(a, b)), 0);
	assert_int_equal(rc_put(r, L->rule_add(a, SCMP_ACT_ERRNO(3), wr, 1,
					       SCMP_A0(SCMP_CMP_EQ, 5))), -EEXIST);
	assert_int_equal(rc_put(r, L->rule_add(a, SCMP_ACT_ERRNO(3), wr, 1,
					       SCMP_A0(SCMP_CMP_EQ, 6))), -EEXIST);
	assert_int_equal(rc_put(r, L->rule_add(a, SCMP_ACT_ERRNO(2), wr, 1,
					       SCMP_A0(SCMP_CMP_EQ, 6))), 0);
	assert_int_equal(rc_put(r, L->rule_add(a, SCMP_ACT_ERRNO(1), wr, 1,
					       SCMP_A0(SCMP_CMP_EQ, 7))), 0);
	assert_int_equal(rc_put(r, L->rule_add(a, SCMP_ACT_ERRNO(3), sk, 1,
					       SCMP_A0(SCMP_CMP_EQ, 1))), -EEXIST);
	L->release(a);
}

/* libseccomp prunes a call's tree before each add (db.c, db_rule_add and
 * _db_tree_prune): a rule that an earlier one of the same action covers
 * is dropped, and what a new rule covers with the same action goes.  A
 * later rule then meets fewer comparisons, and is taken where the rules as
 * added would clash.  (The first two scripts are the adds of bench_compat's
 * random-2000 that the compatible library refused before.) */
static void refusals_pruned(const struct api *L, struct rcs *r)
{
	int ac = nr_of(L, "accept4"), st = nr_of(L, "sendto"), rd = nr_of(L, "read");
	scmp_filter_ctx ctx = L->init(SCMP_ACT_ERRNO(38));
	assert_non_null(ctx);
	/* a2 == 2 covers the second rule, which goes: a0 == 3 meets nothing */
	rc_put(r, L->rule_add(ctx, SCMP_ACT_KILL_PROCESS, ac, 1, SCMP_A2(SCMP_CMP_EQ, 2)));
	rc_put(r, L->rule_add(ctx, SCMP_ACT_KILL_PROCESS, ac, 3, SCMP_A0(SCMP_CMP_EQ, 3),
			      SCMP_A2(SCMP_CMP_EQ, 2), SCMP_A4(SCMP_CMP_EQ, 3)));
	assert_int_equal(rc_put(r, L->rule_add(ctx, SCMP_ACT_ALLOW, ac, 1,
					       SCMP_A0(SCMP_CMP_EQ, 3))), 0);
	assert_int_equal(rc_put(r, L->rule_add(ctx, SCMP_ACT_ALLOW, ac, 1,
					       SCMP_A2(SCMP_CMP_EQ, 2))), -EEXIST);
	/* the same through a masked compare */
	rc_put(r, L->rule_add(ctx, SCMP_ACT_ALLOW, st, 1, SCMP_A4(SCMP_CMP_EQ, 0)));
	rc_put(r, L->rule_add(ctx, SCMP_ACT_ALLOW, st, 3, SCMP_A0(SCMP_CMP_MASKED_EQ, 0xf0, 0),
			      SCMP_A4(SCMP_CMP_EQ, 0), SCMP_A5(SCMP_CMP_EQ, 2)));
	assert_int_equal(rc_put(r, L->rule_add(ctx, SCMP_ACT_LOG, st, 1,
					       SCMP_A0(SCMP_CMP_MASKED_EQ, 0xf0, 0))), 0);
	/* the other way: a2 == 2 covers the rule before it, whose comparisons
	 * go, so a0 == 3 clashes with nothing */
	rc_put(r, L->rule_add(ctx, SCMP_ACT_ERRNO(1), rd, 2, SCMP_A0(SCMP_CMP_EQ, 3),
			      SCMP_A2(SCMP_CMP_EQ, 2)));
	rc_put(r, L->rule_add(ctx, SCMP_ACT_ERRNO(1), rd, 1, SCMP_A2(SCMP_CMP_EQ, 2)));
	assert_int_equal(rc_put(r, L->rule_add(ctx, SCMP_ACT_ERRNO(2), rd, 1,
					       SCMP_A0(SCMP_CMP_EQ, 3))), 0);
	assert_int_equal(rc_put(r, L->rule_add(ctx, SCMP_ACT_ERRNO(2), rd, 1,
					       SCMP_A2(SCMP_CMP_EQ, 2))), -EEXIST);
	L->release(ctx);
}

static void test_refusals(void **state)
{
	(void)state;
	struct rcs s = { .n = 0 }, c = { .n = 0 };
	refusals_far(&sys_api, &s);
	refusals_far(&cmp_api, &c);
	rcs_same(&s, &c, "clashes far back");
	s.n = c.n = 0;
	refusals_pruned(&sys_api, &s);
	refusals_pruned(&cmp_api, &c);
	rcs_same(&s, &c, "trees pruned");
	if (!x86_family()) {
		print_message("x86 ABIs: skipped on a host of another family\n");
		return;
	}
	s.n = c.n = 0;
	refusals_mux(&sys_api, &s);
	refusals_mux(&cmp_api, &c);
	rcs_same(&s, &c, "multiplexers and ABIs");
	s.n = c.n = 0;
	refusals_merge(&sys_api, &s);
	refusals_merge(&cmp_api, &c);
	rcs_same(&s, &c, "merged contexts");
}

/* Transactions (the compatible library's alone: 2.5.4 has none): a
 * rollback leaves the rules as they were, and the refusals with them. */
static void test_refusals_transactions(void **state)
{
	(void)state;
	const struct api *L = &cmp_api;
	if (!L->transaction_start || !L->transaction_reject || !L->transaction_commit)
		skip();
	int wr = nr_of(L, "write"), rd = nr_of(L, "read");
	scmp_filter_ctx ctx = L->init(SCMP_ACT_ALLOW);
	assert_non_null(ctx);
	if (x86_family())
		assert_int_equal(L->arch_add(ctx, SCMP_ARCH_X86), 0);
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_ERRNO(1), wr, 1, SCMP_A0(SCMP_CMP_EQ, 5)), 0);
	for (unsigned i = 0; i < 100; i++)
		assert_int_equal(L->rule_add(ctx, SCMP_ACT_ERRNO(1), rd, 1, SCMP_A0(SCMP_CMP_EQ, i)), 0);

	/* rules added in a rejected transaction clash no more, the older ones
	 * still do */
	assert_int_equal(L->transaction_start(ctx), 0);
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_ERRNO(2), wr, 1, SCMP_A0(SCMP_CMP_EQ, 6)), 0);
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_ERRNO(2), rd, 1, SCMP_A0(SCMP_CMP_EQ, 100)), 0);
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_ERRNO(3), wr, 1, SCMP_A0(SCMP_CMP_EQ, 6)), -EEXIST);
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_ERRNO(3), wr, 1, SCMP_A0(SCMP_CMP_EQ, 5)), -EEXIST);
	L->transaction_reject(ctx);
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_ERRNO(3), wr, 1, SCMP_A0(SCMP_CMP_EQ, 6)), 0);
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_ERRNO(3), rd, 1, SCMP_A0(SCMP_CMP_EQ, 100)), 0);
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_ERRNO(3), wr, 1, SCMP_A0(SCMP_CMP_EQ, 5)), -EEXIST);
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_ERRNO(4), rd, 1, SCMP_A0(SCMP_CMP_EQ, 99)), -EEXIST);

	/* committed: they stay, and so do their clashes; nested rejects */
	assert_int_equal(L->transaction_start(ctx), 0);
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_ERRNO(4), wr, 1, SCMP_A0(SCMP_CMP_EQ, 7)), 0);
	assert_int_equal(L->transaction_start(ctx), 0);
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_ERRNO(5), wr, 1, SCMP_A0(SCMP_CMP_EQ, 8)), 0);
	L->transaction_reject(ctx);
	assert_int_equal(L->transaction_commit(ctx), 0);
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_ERRNO(5), wr, 1, SCMP_A0(SCMP_CMP_EQ, 7)), -EEXIST);
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_ERRNO(6), wr, 1, SCMP_A0(SCMP_CMP_EQ, 8)), 0);
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_ERRNO(3), wr, 1, SCMP_A0(SCMP_CMP_EQ, 6)), 0);
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_ERRNO(1), wr, 1, SCMP_A0(SCMP_CMP_EQ, 6)), -EEXIST);

	/* an ABI added and removed inside a rejected transaction */
	if (x86_family()) {
		assert_int_equal(L->transaction_start(ctx), 0);
		assert_int_equal(L->arch_remove(ctx, SCMP_ARCH_X86), 0);
		assert_int_equal(L->arch_add(ctx, SCMP_ARCH_X86), 0);
		assert_int_equal(L->arch_remove(ctx, SCMP_ARCH_NATIVE), 0);
		assert_int_equal(L->rule_add(ctx, SCMP_ACT_ERRNO(9), wr, 1, SCMP_A0(SCMP_CMP_EQ, 5)), 0);
		L->transaction_reject(ctx);
		assert_int_equal(L->rule_add(ctx, SCMP_ACT_ERRNO(9), wr, 1, SCMP_A0(SCMP_CMP_EQ, 5)),
				 -EEXIST);
		assert_int_equal(L->arch_remove(ctx, SCMP_ARCH_NATIVE), 0);
		assert_int_equal(L->rule_add(ctx, SCMP_ACT_ERRNO(9), wr, 1, SCMP_A0(SCMP_CMP_EQ, 5)),
				 -EEXIST);
	}
	L->release(ctx);
}

static void test_export_bpf_mem(void **state)
{
	(void)state;
	const struct api *L = &cmp_api;
	if (!sys_api.export_bpf_mem)
		print_message("libseccomp %s has no seccomp_export_bpf_mem: the compatible "
			      "library's alone\n",
			      SYSTEM_LIB);
	if (!L->export_bpf_mem) {
		print_message("skipped: %s has no seccomp_export_bpf_mem\n", COMPAT_LIB);
		skip();
	}
	size_t len = 0;
	assert_int_equal(L->export_bpf_mem(NULL, NULL, &len), -EINVAL);
	scmp_filter_ctx ctx = L->init(SCMP_ACT_ALLOW);
	assert_non_null(ctx);
	assert_int_equal(L->export_bpf_mem(ctx, NULL, NULL), -EINVAL);
	assert_int_equal(L->rule_add(ctx, SCMP_ACT_ERRNO(1), nr_of(L, "read"), 1,
				     SCMP_A0(SCMP_CMP_GT, 3)),
			 0);
	/* the size alone */
	assert_int_equal(L->export_bpf_mem(ctx, NULL, &len), 0);
	size_t flen;
	struct sock_filter *p = cmp_prog(ctx, &flen);
	assert_int_equal(len, flen * sizeof(*p));
	/* too small a buffer: -ERANGE, nothing written */
	char *buf = malloc(len + 16);
	assert_non_null(buf);
	memset(buf, 0xa5, len + 16);
	size_t small = len - sizeof(*p);
	assert_int_equal(L->export_bpf_mem(ctx, buf, &small), -ERANGE);
	for (size_t i = 0; i < len + 16; i++)
		assert_int_equal((unsigned char)buf[i], 0xa5);
	/* a large enough one: the bytes of seccomp_export_bpf(), the size */
	size_t big = len + 16;
	assert_int_equal(L->export_bpf_mem(ctx, buf, &big), 0);
	assert_int_equal(big, len);
	assert_memory_equal(buf, p, len);
	assert_int_equal((unsigned char)buf[len], 0xa5);
	free(buf);
	free(p);
	L->release(ctx);
}

/* ------------------------------------------------------------------ load */

static void test_load_child(void **state)
{
	(void)state;
	const struct api *L = &cmp_api;
	int mode = prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
	if (mode < 0) {
		print_message("skipped: the kernel has no seccomp (PR_GET_SECCOMP: %s)\n",
			      strerror(errno));
		skip();
	}
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		scmp_filter_ctx ctx = L->init(SCMP_ACT_ALLOW);
		if (!ctx)
			_exit(10);
		int gp = L->resolve_name("getpid");
		if (gp < 0 || L->rule_add(ctx, SCMP_ACT_ERRNO(42), gp, 0) != 0)
			_exit(11);
		/* an argument-checked rule too: ERRNO(43) for close(-7) only */
		int cl = L->resolve_name("close");
		if (L->rule_add(ctx, SCMP_ACT_ERRNO(43), cl, 1,
				SCMP_A0(SCMP_CMP_EQ, (uint32_t)-7)) != 0)
			_exit(12);
		int rc = L->load(ctx);
		L->release(ctx);
		if (rc == -ECANCELED || rc == -EOPNOTSUPP)
			_exit(SKIPPED);
		if (rc != 0)
			_exit(13);
		errno = 0;
		long r = syscall(SYS_getpid);
		if (r != -1 || errno != 42)
			_exit(14);
		errno = 0;
		r = syscall(SYS_close, -7);
		if (r != -1 || errno != 43)
			_exit(15);
		errno = 0;
		r = syscall(SYS_close, -8);
		if (r != -1 || errno != EBADF)
			_exit(16);
		if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != 2)
			_exit(17);
		_exit(0);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		assert_int_equal(errno, EINTR);
	if (WIFEXITED(st) && WEXITSTATUS(st) == SKIPPED) {
		print_message("skipped: seccomp_load() could not load a filter here\n");
		skip();
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail_msg("child: %s %d (10 init, 11-12 rule_add, 13 load, 14 getpid, 15-16 close, "
			 "17 mode)",
			 WIFEXITED(st) ? "exit" : "signal",
			 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
}

/* ------------------------------------------------ libseccomp 2.6 and main */

/* Whether L is libseccomp 2.6 or later (level 7, WAITKILL). */
static bool api_26(const struct api *L)
{
	const struct scmp_version *v = L->version();
	return v->major > 2 || (v->major == 2 && v->minor >= 6);
}

/* seccomp(2) asked as libseccomp asks it, with no program: a flag set the
 * kernel accepts fails on the NULL pointer (EFAULT), one it refuses on the
 * flags (EINVAL).  This test's own probe, not the library's. */
static bool kernel_flags(unsigned long flags)
{
	errno = 0;
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, NULL) == -1 && errno == EFAULT;
}

static bool kernel_action(uint32_t act)
{
	return syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &act) == 0;
}

/* The API level libseccomp 2.6 gives this kernel (seccomp_api_get(3)):
 * each level needs the one below it and what it adds. */
static unsigned kernel_level(void)
{
	unsigned l = 1;
	if (kernel_flags(SECCOMP_FILTER_FLAG_TSYNC))
		l = 2;
	if (l == 2 && kernel_flags(SECCOMP_FILTER_FLAG_LOG) && kernel_action(SECCOMP_RET_LOG) &&
	    kernel_action(SECCOMP_RET_KILL_PROCESS))
		l = 3;
	if (l == 3 && kernel_flags(SECCOMP_FILTER_FLAG_SPEC_ALLOW))
		l = 4;
	if (l == 4 && kernel_flags(SECCOMP_FILTER_FLAG_NEW_LISTENER) &&
	    kernel_action(SECCOMP_RET_USER_NOTIF))
		l = 5;
	if (l == 5 && kernel_flags(SECCOMP_FILTER_FLAG_TSYNC_ESRCH))
		l = 6;
	if (l == 6 && kernel_flags(SECCOMP_FILTER_FLAG_NEW_LISTENER |
				   SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV))
		l = 7;
	return l;
}

static void need_seccomp(void)
{
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0) {
		print_message("skipped: the kernel has no seccomp (PR_GET_SECCOMP: %s)\n",
			      strerror(errno));
		skip();
	}
}

static void test_api_level(void **state)
{
	(void)state;
	need_seccomp();
	unsigned want = kernel_level();
	print_message("API level %u on this kernel (this test's probes)\n", want);
	/* the pair is what the kernel takes: WAIT_KILLABLE_RECV alone is
	 * refused even where it is known */
	if (want == 7)
		assert_false(kernel_flags(SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV));
	/* probed afresh (seccomp_reset(NULL) drops a level set before) */
	assert_int_equal(cmp_api.reset(NULL, 0), 0);
	assert_int_equal(cmp_api.api_get(), want);
	/* libseccomp 2.5 knows six levels */
	unsigned sys_max = api_26(&sys_api) ? 7 : 6;
	assert_int_equal(sys_api.api_get(), want < sys_max ? want : sys_max);

	/* every level libseccomp 2.6 has can be forced, and no other; a level
	 * refused leaves the one in force */
	const struct api *libs[] = { &cmp_api, &sys_api };
	for (size_t k = 0; k < N(libs); k++) {
		const struct api *L = libs[k];
		unsigned max = L == &cmp_api ? 7 : sys_max;
		for (unsigned l = 1; l <= max; l++) {
			assert_int_equal(L->api_set(l), 0);
			assert_int_equal(L->api_get(), l);
		}
		assert_int_equal(L->api_set(max + 1), -EINVAL);
		assert_int_equal(L->api_get(), max);
		assert_int_equal(L->api_set(0), -EINVAL);
		assert_int_equal(L->api_get(), max);
		assert_int_equal(L->api_set(want < max ? want : max), 0);
	}
}

/* Run FN(L, ARG) in a child and return its exit code: a filter is loaded
 * (and the process-wide API level changed) only there. */
static int in_child(int (*fn)(const struct api *, int), const struct api *L, int arg)
{
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		alarm(20);	/* a lost notification must not hang the suite */
		_exit(fn(L, arg));
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		assert_int_equal(errno, EINTR);
	if (WIFSIGNALED(st))
		fail_msg("%s: child killed by signal %d", L->name, WTERMSIG(st));
	return WEXITSTATUS(st);
}

static volatile sig_atomic_t got_usr1;

static void on_usr1(int sig)
{
	(void)sig;
	got_usr1 = 1;
}

/* A notified getppid() of a grandchild answered with VAL, or -1 when the
 * notification is gone.  FD the listener; SIGNAL_FIRST sends SIGUSR1 to
 * the grandchild once its notification has been received. */
static int answer(const struct api *L, int fd, long val, pid_t child, bool signal_first,
		  uint64_t *id)
{
	struct seccomp_notif *req = NULL;
	struct seccomp_notif_resp *resp = NULL;
	int rc = -1;
	if (L->notify_alloc(&req, &resp) != 0 || L->notify_receive(fd, req) != 0)
		goto out;
	*id = req->id;
	if (signal_first) {
		kill(child, SIGUSR1);
		/* time for the signal to end an interruptible wait */
		struct timespec t = { 0, 200 * 1000 * 1000 };
		nanosleep(&t, NULL);
	}
	if (L->notify_id_valid(fd, req->id) != 0)
		goto out;
	resp->id = req->id;
	resp->val = val;
	rc = L->notify_respond(fd, resp) == 0 ? 0 : -2;
out:
	L->notify_free(req, resp);
	return rc;
}

/* WAITKILL in a child: ARG's low byte the level to force (0: the probed
 * one), bit 8 the attribute's value.  A grandchild under the filter calls
 * getppid(), which is notified; the supervisor receives the notification,
 * signals the grandchild and answers 4242.  With WAIT_KILLABLE_RECV the
 * signal waits for the answer (exit 0), without it the call ends with
 * EINTR and the notification is gone (exit 1).  Exit 20-35 say which step
 * failed. */
static int waitkill_child(const struct api *L, int arg)
{
	unsigned level = (unsigned)arg & 0xff;
	if (level && L->api_set(level) != 0)
		return 20;
	scmp_filter_ctx ctx = L->init(SCMP_ACT_ALLOW);
	if (!ctx)
		return 21;
	uint32_t v = 7;
	if (L->attr_set(ctx, ATTR_WAITKILL, (arg >> 8) & 1) != 0)
		return 22;
	if (L->attr_get(ctx, ATTR_WAITKILL, &v) != 0 || v != (uint32_t)((arg >> 8) & 1))
		return 23;
	if (L->rule_add(ctx, SCMP_ACT_NOTIFY, L->resolve_name("getppid"), 0) != 0)
		return 24;
	int rc = L->load(ctx);
	if (rc != 0)
		return 25;
	int fd = L->notify_fd(ctx);
	L->release(ctx);
	if (fd < 0)
		return 26;
	pid_t b = fork();
	if (b < 0)
		return 27;
	if (b == 0) {
		struct sigaction sa = { .sa_handler = on_usr1 };	/* no SA_RESTART */
		sigemptyset(&sa.sa_mask);
		sigaction(SIGUSR1, &sa, NULL);
		errno = 0;
		long r = syscall(SYS_getppid);
		if (r == 4242 && got_usr1)
			_exit(0);
		_exit(r == -1 && errno == EINTR ? 1 : 2);
	}
	uint64_t id;
	int answered = answer(L, fd, 4242, b, true, &id);
	int st;
	if (waitpid(b, &st, 0) != b || !WIFEXITED(st))
		return 28;
	if (answered == 0 && WEXITSTATUS(st) == 0)
		return 0;
	if (answered == -1 && WEXITSTATUS(st) == 1)
		return 1;
	return 30 + WEXITSTATUS(st);
}

static void test_waitkill(void **state)
{
	(void)state;
	need_seccomp();
	const struct api *libs[] = { &cmp_api, &sys_api };
	for (size_t k = 0; k < N(libs); k++) {
		const struct api *L = libs[k];
		if (L == &sys_api && !api_26(L)) {
			print_message("libseccomp %s is older than 2.6: the compatible library alone\n",
				      SYSTEM_LIB);
			continue;
		}
		/* the attribute: off by default, taken at any level (libseccomp
		 * 2.6 checks it against nothing: it asks, seccomp_load() passes
		 * the flag with a listener only) */
		scmp_filter_ctx ctx = L->init(SCMP_ACT_ALLOW);
		assert_non_null(ctx);
		uint32_t v = 9;
		assert_int_equal(L->attr_get(ctx, ATTR_WAITKILL, &v), 0);
		assert_int_equal(v, 0);
		assert_int_equal(L->attr_set(ctx, ATTR_WAITKILL, 5), 0);
		assert_int_equal(L->attr_get(ctx, ATTR_WAITKILL, &v), 0);
		assert_int_equal(v, 1);
		L->release(ctx);

		/* below level 5 no NOTIFY rule, so no listener to wait on: the
		 * rule is refused, the attribute is not */
		assert_int_equal(in_child(waitkill_child, L, 4 | 0x100), 24);

		if (kernel_level() < 7) {
			print_message("skipped: this kernel lacks WAIT_KILLABLE_RECV (level %u)\n",
				      kernel_level());
			continue;
		}
		/* the loaded filter carries the flag when asked, not otherwise */
		int on = in_child(waitkill_child, L, 0x100), off = in_child(waitkill_child, L, 0);
		print_message("%s: a signalled notified call waits for its answer with WAITKILL "
			      "(%d), ends with EINTR without (%d)\n",
			      L->name, on, off);
		assert_int_equal(on, 0);
		assert_int_equal(off, 1);
		/* forced to 6, libseccomp 2.6 still passes the flag beside the
		 * listener: the level gates neither the attribute nor the load */
		assert_int_equal(in_child(waitkill_child, L, 6 | 0x100), 0);
		assert_int_equal(in_child(waitkill_child, L, 6), 1);
	}
}

/* seccomp_notify_addfd() in a child: a grandchild's two notified
 * getppid() calls are answered with descriptors the supervisor installs
 * in it (a pipe's read end, at the lowest free number, then at 100 with
 * close-on-exec); the grandchild reads what the supervisor wrote.  Exit
 * 0, or 40-69 for the step that failed. */
static int addfd_child(const struct api *L, int arg)
{
	(void)arg;
	struct seccomp_notif_addfd a = { .srcfd = 0 };
	/* below level 5: no notification API */
	if (L->api_set(4) != 0 || L->notify_addfd(-1, &a) != -EOPNOTSUPP)
		return 40;
	if (L->api_set(kernel_level()) != 0 || L->notify_addfd(-1, NULL) != -EINVAL)
		return 41;
	scmp_filter_ctx ctx = L->init(SCMP_ACT_ALLOW);
	if (!ctx || L->rule_add(ctx, SCMP_ACT_NOTIFY, L->resolve_name("getppid"), 0) != 0)
		return 42;
	if (L->load(ctx) != 0)
		return 43;
	int fd = L->notify_fd(ctx);
	L->release(ctx);
	int p[2];
	if (fd < 0 || pipe(p) != 0)
		return 44;
	static const char msg[] = "scmpc addfd";
	if (write(p[1], msg, sizeof(msg)) != (ssize_t)sizeof(msg))
		return 45;
	pid_t b = fork();
	if (b < 0)
		return 46;
	if (b == 0) {
		char buf[sizeof(msg)] = { 0 };
		struct stat s1, s2;
		long n = syscall(SYS_getppid);
		if (n < 0 || n == p[0] || fcntl((int)n, F_GETFD) != 0)
			_exit(50);
		if (read((int)n, buf, sizeof(buf)) != (ssize_t)sizeof(buf) || memcmp(buf, msg, sizeof(buf)))
			_exit(51);
		long m = syscall(SYS_getppid);
		if (m != 100 || fcntl(100, F_GETFD) != FD_CLOEXEC)
			_exit(52);
		if (fstat((int)n, &s1) != 0 || fstat(100, &s2) != 0 || s1.st_ino != s2.st_ino)
			_exit(53);
		_exit(0);
	}
	struct seccomp_notif *req = NULL;
	struct seccomp_notif_resp *resp = NULL;
	if (L->notify_alloc(&req, &resp) != 0)
		return 47;
	int rc = 0;
	/* first: the lowest free number in the grandchild */
	if (L->notify_receive(fd, req) != 0) {
		rc = 48;
		goto out;
	}
	a = (struct seccomp_notif_addfd){ .id = req->id, .srcfd = (uint32_t)p[0] };
	int got = L->notify_addfd(fd, &a);
	if (got < 0) {
		rc = 55;
		goto out;
	}
	/* a notification that does not exist */
	struct seccomp_notif_addfd bad = { .id = req->id + 1000, .srcfd = (uint32_t)p[0] };
	if (L->notify_addfd(fd, &bad) >= 0) {
		rc = 56;
		goto out;
	}
	*resp = (struct seccomp_notif_resp){ .id = req->id, .val = got };
	if (L->notify_respond(fd, resp) != 0) {
		rc = 57;
		goto out;
	}
	/* second: number 100, close-on-exec */
	if (L->notify_receive(fd, req) != 0) {
		rc = 58;
		goto out;
	}
	a = (struct seccomp_notif_addfd){ .id = req->id, .flags = SECCOMP_ADDFD_FLAG_SETFD,
					  .srcfd = (uint32_t)p[0], .newfd = 100,
					  .newfd_flags = O_CLOEXEC };
	if (L->notify_addfd(fd, &a) != 100) {
		rc = 59;
		goto out;
	}
	*resp = (struct seccomp_notif_resp){ .id = req->id, .val = 100 };
	if (L->notify_respond(fd, resp) != 0) {
		rc = 60;
		goto out;
	}
out:
	L->notify_free(req, resp);
	if (rc)
		kill(b, SIGKILL);
	int st;
	if (waitpid(b, &st, 0) != b)
		return 61;
	if (!rc && !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
		rc = WIFEXITED(st) ? WEXITSTATUS(st) : 62;
	return rc;
}

static void test_notify_addfd(void **state)
{
	(void)state;
	need_seccomp();
	if (!cmp_api.notify_addfd)
		fail_msg("%s does not export seccomp_notify_addfd", COMPAT_LIB);
	if (kernel_level() < 5) {
		print_message("skipped: no user notification on this kernel\n");
		skip();
	}
	int rc = in_child(addfd_child, &cmp_api, 0);
	if (rc)
		fail_msg("addfd child: exit %d (40-47 setup, 48-49/58 receive, 55 addfd, 56 addfd of "
			 "no notification succeeded, 57/60 respond, 59 SETFD, 50-53 the grandchild's "
			 "checks)",
			 rc);
}

#ifdef SCMP_ACT_TRAPX
/* si_code of a seccomp SIGSYS (SYS_SECCOMP, which glibc's signal.h keeps
 * out of a C11 build) */
#define SI_SECCOMP 1

static volatile sig_atomic_t sigsys_errno = -1;

static void on_sigsys(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	sigsys_errno = si->si_code == SI_SECCOMP ? si->si_errno : -2;
}

/* A TRAP rule with data 1234 on getppid, loaded: the data the SIGSYS
 * carried (si_errno), or 70-79 for the step that failed. */
static int trap_child(const struct api *L, int arg)
{
	(void)arg;
	scmp_filter_ctx ctx = L->init(SCMP_ACT_ALLOW);
	if (!ctx || L->rule_add(ctx, SCMP_ACT_TRAP | 1234, L->resolve_name("getppid"), 0) != 0)
		return 70;
	struct sigaction sa = { .sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO };
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSYS, &sa, NULL) != 0 || L->load(ctx) != 0)
		return 71;
	syscall(SYS_getppid);
	return sigsys_errno == 1234 ? 0 : 72;
}
#endif

/* TRAP with data is libseccomp main's SCMP_ACT_TRAPX: a library built
 * against a header that has it (the build test_compat_trapx checks) takes
 * it and the SIGSYS carries the data; built against a released header it
 * is refused, as by libseccomp up to 2.6. */
static void test_trap_data(void **state)
{
	(void)state;
	const struct api *L = &cmp_api;
	scmp_filter_ctx ctx = L->init(SCMP_ACT_ALLOW);
	assert_non_null(ctx);
	int gp = L->resolve_name("getppid");
	int rc = L->rule_add(ctx, SCMP_ACT_TRAP | 1234, gp, 0);
	assert_int_equal(L->attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_TRAP | 7),
			 rc == 0 ? 0 : -EINVAL);
	L->release(ctx);
	/* the default action too */
	ctx = L->init(SCMP_ACT_TRAP | 1);
#ifdef SCMP_ACT_TRAPX
	print_message("header with SCMP_ACT_TRAPX: TRAP data taken\n");
	assert_int_equal(rc, 0);
	assert_non_null(ctx);
	assert_int_equal(SCMP_ACT_TRAPX(1234), SCMP_ACT_TRAP | 1234);
	L->release(ctx);
	need_seccomp();
	assert_int_equal(in_child(trap_child, L, 0), 0);
#else
	print_message("header without SCMP_ACT_TRAPX: TRAP data refused\n");
	assert_int_equal(rc, -EINVAL);
	assert_null(ctx);
	/* as libseccomp refuses it */
	ctx = sys_api.init(SCMP_ACT_ALLOW);
	assert_non_null(ctx);
	assert_int_equal(sys_api.rule_add(ctx, SCMP_ACT_TRAP | 1234, gp, 0), -EINVAL);
	sys_api.release(ctx);
#endif
}

#if defined(__x86_64__)
/* An i386 call from this 64-bit process: the kernel takes the compat path,
 * the filter sees AUDIT_ARCH_I386. */
static long int80(long nr, unsigned long a0)
{
	long r;
	__asm__ volatile("int $0x80" : "=a"(r) : "0"(nr), "b"(a0) : "memory", "r8", "r9", "r10",
			 "r11");
	return (int)r;
}

#define I386_IPC 117
#define IPC_SEMOP 1
#define IPC_MSGRCV 12

/* In a child: a filter for i386 alone (its bad-arch action ALLOW lets this
 * process's own calls run) built through L: semop denied with EDOM (default
 * ALLOW), or with DENY_ALL false msgrcv allowed under an EPERM default.
 * Exits with the errno of ipc(CALL) via int $0x80 (0 when it returned
 * otherwise than with -EDOM or -EPERM: the kernel ran the call). */
static void ipc_child(const struct api *L, bool deny_semop, unsigned long call)
{
	scmp_filter_ctx ctx = L->init(deny_semop ? SCMP_ACT_ALLOW : SCMP_ACT_ERRNO(EPERM));
	if (!ctx || L->arch_remove(ctx, SCMP_ARCH_NATIVE) || L->arch_add(ctx, SCMP_ARCH_X86) ||
	    L->attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ALLOW))
		_exit(100);
	int rc = deny_semop ? L->rule_add(ctx, SCMP_ACT_ERRNO(EDOM), SCMP_SYS(semop), 0)
			    : L->rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(msgrcv), 0);
	if (rc)
		_exit(101);
	rc = L->load(ctx);
	L->release(ctx);
	if (rc)
		_exit(SKIPPED);
	long r = int80(I386_IPC, call);
	_exit(r == -EDOM ? EDOM : r == -EPERM ? EPERM : 0);
}

static int ipc_run(const struct api *L, bool deny_semop, unsigned long call)
{
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		ipc_child(L, deny_semop, call);
	int st;
	while (waitpid(pid, &st, 0) < 0)
		assert_int_equal(errno, EINTR);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/* The kernel reads ipc(2)'s call from its low 16 bits (a version above
 * them): a filter that denies semop must deny ipc(SEMOP | 1 << 16) too,
 * and one that allows msgrcv must allow it with glibc's version bits.
 * libseccomp compares the whole argument, so on this kernel its filter
 * runs semop there (printed, not asserted: it is libseccomp's answer). */
static void test_ipc_version_bits(void **state)
{
	(void)state;
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0 || int80(20, 0) != getpid()) {
		print_message("skipped: no seccomp or no i386 calls (int $0x80) here\n");
		skip();
	}
	int lsc = ipc_run(&sys_api, true, IPC_SEMOP | 1UL << 16);
	if (lsc == SKIPPED || ipc_run(&cmp_api, true, IPC_SEMOP) == SKIPPED) {
		print_message("skipped: seccomp_load() could not load a filter here\n");
		skip();
	}
	print_message("libseccomp's filter gives ipc(SEMOP | 1 << 16) %s\n",
		      lsc == EDOM ? "EDOM (denied)" : "to the kernel (semop ran)");
	assert_int_equal(ipc_run(&cmp_api, true, IPC_SEMOP), EDOM);
	assert_int_equal(ipc_run(&cmp_api, true, IPC_SEMOP | 1UL << 16), EDOM);
	assert_int_equal(ipc_run(&cmp_api, true, IPC_SEMOP | 0xffffUL << 16), EDOM);
	assert_int_equal(ipc_run(&cmp_api, false, IPC_MSGRCV), 0);
	assert_int_equal(ipc_run(&cmp_api, false, IPC_MSGRCV | 1UL << 16), 0);
	assert_int_equal(ipc_run(&cmp_api, false, IPC_SEMOP | 1UL << 16), EPERM);
}
#else
static void test_ipc_version_bits(void **state)
{
	(void)state;
	print_message("skipped: i386 calls need an x86_64 host\n");
	skip();
}
#endif

/* --------------------------------------------------------- SCMPC_COMPAT_LOG */

/* Copy COMPAT_LIB to DIR/libseccomp.so.2: dlopen() of another file is a
 * load of its own, with its constructors run again, where a second
 * dlopen() of COMPAT_LIB would hand back the copy this test already has. */
static int copy_lib(const char *dir, char *out, size_t len)
{
	snprintf(out, len, "%s/libseccomp.so.2", dir);
	int in = open(COMPAT_LIB, O_RDONLY | O_CLOEXEC);
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	char buf[65536];
	ssize_t n = -1;
	while (in >= 0 && fd >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(fd, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
	if (in >= 0)
		close(in);
	if (fd >= 0)
		close(fd);
	return n == 0 ? 0 : -1;
}

/* In a child: load LIB with SCMPC_COMPAT_LOG as ENV says at load time (NULL:
 * unset) and the opposite afterwards, stderr to LOG; export a filter to
 * BPF twice and load it.  Exit 0, or a code saying which step failed. */
static void log_child(const char *lib, const char *env, const char *log, const char *bpf)
{
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || dup2(fd, STDERR_FILENO) < 0)
		_exit(20);
	if (env)
		setenv("SCMPC_COMPAT_LOG", env, 1);
	else
		unsetenv("SCMPC_COMPAT_LOG");
	void *h = dlopen(lib, DLFLAGS);
	if (!h)
		_exit(21);
	/* read once, at load: changing it now changes nothing */
	if (env)
		unsetenv("SCMPC_COMPAT_LOG");
	else
		setenv("SCMPC_COMPAT_LOG", "1", 1);
	__typeof__(&seccomp_init) init;
	__typeof__(&seccomp_rule_add) rule_add;
	__typeof__(&seccomp_syscall_resolve_name) resolve;
	__typeof__(&seccomp_export_bpf) export_bpf;
	__typeof__(&seccomp_load) load;
	void *p;
	p = dlsym(h, "seccomp_init"), memcpy(&init, &p, sizeof(p));
	p = dlsym(h, "seccomp_rule_add"), memcpy(&rule_add, &p, sizeof(p));
	p = dlsym(h, "seccomp_syscall_resolve_name"), memcpy(&resolve, &p, sizeof(p));
	p = dlsym(h, "seccomp_export_bpf"), memcpy(&export_bpf, &p, sizeof(p));
	p = dlsym(h, "seccomp_load"), memcpy(&load, &p, sizeof(p));
	if (!init || !rule_add || !resolve || !export_bpf || !load)
		_exit(22);
	/* write(2) kills once the filter is in: the load's line must be out
	 * before, or the log would kill the process it describes */
	scmp_filter_ctx ctx = init(SCMP_ACT_ALLOW);
	if (!ctx || rule_add(ctx, SCMP_ACT_ERRNO(1), resolve("ptrace"), 0) ||
	    rule_add(ctx, SCMP_ACT_ERRNO(2), resolve("personality"), 1,
		     SCMP_A0(SCMP_CMP_EQ, 0x0008)) ||
	    rule_add(ctx, SCMP_ACT_KILL_PROCESS, resolve("write"), 0))
		_exit(23);
	int out = open(bpf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0 || export_bpf(ctx, out) || export_bpf(ctx, out))
		_exit(24);
	close(out);
	if (load(ctx))
		_exit(25);
	_exit(0);
}

static char *slurp_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = calloc(1, 65536);
	*len = 0;
	if (f && buf)
		*len = fread(buf, 1, 65535, f);
	if (f)
		fclose(f);
	return buf;
}

/* The library prints nothing unless SCMPC_COMPAT_LOG was set (and not "0")
 * when it was loaded; then each export and load says, in one line on
 * stderr, that scmpc compiled the program and what it costs. */
static void test_log(void **state)
{
	(void)state;
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0) {
		print_message("skipped: the kernel has no seccomp\n");
		skip();
	}
	char dir[] = "/tmp/scmpc-compat-log.XXXXXX";
	assert_non_null(mkdtemp(dir));
	const char *envs[] = { "1", NULL, "0" };
	char lib[3][256], log[3][256], bpf[3][256], sub[3][256];
	for (int k = 0; k < 3; k++) {
		snprintf(sub[k], sizeof(sub[k]), "%s/%d", dir, k);
		assert_int_equal(mkdir(sub[k], 0755), 0);
		assert_int_equal(copy_lib(sub[k], lib[k], sizeof(lib[k])), 0);
		snprintf(log[k], sizeof(log[k]), "%s/stderr", sub[k]);
		snprintf(bpf[k], sizeof(bpf[k]), "%s/filter.bpf", sub[k]);
		fflush(NULL);
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0)
			log_child(lib[k], envs[k], log[k], bpf[k]);
		int st;
		assert_int_equal(waitpid(pid, &st, 0), pid);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			fail_msg("SCMPC_COMPAT_LOG=%s child: status 0x%x", envs[k] ? envs[k] : "(unset)",
				 st);
	}

	size_t len, blen;
	char *text = slurp_file(log[0], &len);
	free(slurp_file(bpf[0], &blen));
	/* two exports of the same program */
	size_t insns = blen / 2 / sizeof(struct sock_filter);
	print_message("SCMPC_COMPAT_LOG=1:\n%s", text);
	char want[128];
	int lines = 0;
	for (char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		lines++;
		assert_non_null(strstr(l, " on scmpc "));
		snprintf(want, sizeof(want), "scmpc's program, %zu instructions, worst path ", insns);
		if (!strstr(l, want) || strstr(l, want) > strchr(l, '\n'))
			fail_msg("no '%s' in: %.*s", want, (int)strcspn(l, "\n"), l);
	}
	assert_int_equal(lines, 3);
	char *first_load = strstr(text, ": seccomp_load: ");
	char *first_export = strstr(text, ": seccomp_export_bpf: ");
	assert_non_null(first_export);
	assert_non_null(first_load);
	assert_true(first_export < first_load);
	assert_null(strstr(first_load, "failed"));
	free(text);

	for (int k = 1; k < 3; k++) {
		text = slurp_file(log[k], &len);
		if (len)
			fail_msg("SCMPC_COMPAT_LOG=%s at load: the library printed: %s",
				 envs[k] ? envs[k] : "(unset)", text);
		free(text);
	}
	for (int k = 0; k < 3; k++) {
		unlink(lib[k]);
		unlink(log[k]);
		unlink(bpf[k]);
		rmdir(sub[k]);
	}
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arch_names),
		cmocka_unit_test(test_syscall_resolve),
		cmocka_unit_test(test_api_errors),
		cmocka_unit_test(test_api_arches),
		cmocka_unit_test(test_api_attrs),
		cmocka_unit_test(test_transactions),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_refusals_transactions),
		cmocka_unit_test(test_export_bpf_mem),
		cmocka_unit_test(test_load_child),
		cmocka_unit_test(test_log),
		cmocka_unit_test(test_ipc_version_bits),
		cmocka_unit_test(test_api_level),
		cmocka_unit_test(test_waitkill),
		cmocka_unit_test(test_notify_addfd),
		cmocka_unit_test(test_trap_data),
		cmocka_unit_test(test_differential),
	};
#ifdef ONLY_TRAP_DATA
	/* test_compat_trapx: the library built with SCMP_ACT_TRAPX defined */
	cmocka_set_test_filter("test_trap_data");
#endif
	return cmocka_run_group_tests(tests, setup, teardown);
}

/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* scmp-compile: messages, numbers, ABIs and the action cache, for every
 * subcommand. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"

const char *usage_cmd;

/* "scmp-compile: MESSAGE", the newline left to the caller. */
__attribute__((format(printf, 1, 0)))
static void vmessage(const char *fmt, va_list ap)
{
	fputs(PROG_NAME ": ", stderr);
	vfprintf(stderr, fmt, ap);
}

void errorf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(fmt, ap);
	va_end(ap);
	if (usage_cmd)
		fprintf(stderr, "\nTry '" PROG_NAME " %s --help' for more information.\n",
			usage_cmd);
	else
		fputs("\nTry '" PROG_NAME " --help' for more information.\n", stderr);
	return EXIT_USAGE;
}

void report_diag(const char *name, const scmpc_diag *d, int rc)
{
	const char *where = scmpc_diag_where(d);
	const char *msg = scmpc_diag_message(d);

	size_t wl = where ? strlen(where) : 0;

	if (!msg || !*msg)
		msg = strerror(rc < 0 ? -rc : EINVAL);
	/* Some messages already start with their position. */
	if (wl && !strncmp(msg, where, wl) && msg[wl] == ':' && msg[wl + 1] == ' ')
		msg += wl + 2;
	if (where && *where)
		errorf("%s: %s: %s", name, where, msg);
	else
		errorf("%s: %s", name, msg);
}

bool verbose_warnings;
bool quiet_progress;

/* Warnings of one kind printed before the rest are only counted. */
#define WARN_SHOWN 3

/* One kind of warning and how many of it. */
struct wkind {
	const char *kind;
	size_t count, printed;
};

/* KIND as a reader sees it: each printf conversion, the part that varies,
 * written as '*'. */
static void print_kind(const char *kind)
{
	for (const char *p = kind; *p; p++) {
		if (*p != '%') {
			fputc(*p, stderr);
		} else if (p[1] == '%') {
			fputc('%', stderr);
			p++;
		} else {
			p += strspn(p + 1, "-+ #0123456789.*hlqjzt") + 1;
			fputc('*', stderr);
			if (!*p)
				break;
		}
	}
}

/* Every warning, unless one kind repeats past WARN_SHOWN: then the first
 * of each kind, a count of the rest, and a line saying how many there
 * were (a generated profile can give thousands alike). */
void report_warnings(const char *name, const scmpc_diag *d, bool quiet)
{
	size_t n = scmpc_diag_warning_count(d), nk = 0, held = 0;
	struct wkind *ks = NULL;
	size_t *of = NULL;

	if (quiet || !n)
		return;
	if (!verbose_warnings && (ks = calloc(n, sizeof(*ks))) && (of = calloc(n, sizeof(*of)))) {
		for (size_t i = 0; i < n; i++) {
			const char *k = scmpc_diag_warning_kind(d, i);
			size_t j;

			if (!k)
				k = scmpc_diag_warning(d, i);
			for (j = 0; j < nk; j++)
				if (ks[j].kind == k || !strcmp(ks[j].kind, k))
					break;
			if (j == nk)
				ks[nk++] = (struct wkind){ k, 0, 0 };
			of[i] = j;
			if (++ks[j].count > WARN_SHOWN)
				held++;
		}
	}
	for (size_t i = 0; i < n; i++) {
		/* the instances past the first few of their kind are held back */
		if (held && ks[of[i]].printed++ >= WARN_SHOWN)
			continue;
		fprintf(stderr, PROG_NAME ": warning: %s: %s\n", name, scmpc_diag_warning(d, i));
	}
	for (size_t k = 0; held && k < nk; k++) {
		if (ks[k].count <= WARN_SHOWN)
			continue;
		fprintf(stderr, PROG_NAME ": warning: %s: %zu more like that: ", name,
			ks[k].count - WARN_SHOWN);
		print_kind(ks[k].kind);
		fputc('\n', stderr);
	}
	if (held)
		fprintf(stderr, PROG_NAME ": %s: %zu warnings of %zu kinds, %zu shown "
			"(--verbose prints every one)\n", name, n, nk, n - held);
	free(ks);
	free(of);
}

int report_failure(int rc, int failed)
{
	if (rc == -ENOMEM) {
		errorf("%s", strerror(ENOMEM));
		return failed;
	}
	/* Only verified programs are analysed; a failure is a library bug,
	 * and a wrong answer would be worse than none. */
	errorf("internal error: the emulator rejected a verified program");
	return EXIT_USAGE;
}

const char *display_name(const char *path)
{
	return strcmp(path, "-") ? path : "<stdin>";
}

double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Small numbers read best in decimal, syscall numbers with x32 or ARM
 * private bits and argument masks in hex. */
const char *fmt_u64(uint64_t v, char *buf, size_t len)
{
	snprintf(buf, len, v < 0x10000 ? "%" PRIu64 : "0x%" PRIx64, v);
	return buf;
}

const char *action_name(uint32_t act, char *buf, size_t len)
{
	scmpc_action_str(act, buf, len);
	return buf;
}

const char *syscall_label(enum scmpc_arch a, uint32_t nr, char *buf, size_t len)
{
	char name[64], num[24];

	fmt_u64(nr, num, sizeof(num));
	if (scmpc_syscall_name(a, nr, name, sizeof(name)))
		snprintf(buf, len, "%s %s", num, name);
	else
		snprintf(buf, len, "%s", num);
	return buf;
}

const char *abi_names(char *buf, size_t len)
{
	size_t k = 0;
	buf[0] = '\0';
	for (int a = 1; a <= SCMPC_ARCH_COUNT && k < len; a++)
		k += (size_t)snprintf(buf + k, len - k, "%s%s", a > 1 ? ", " : "",
				      scmpc_arch_name((enum scmpc_arch)a));
	return buf;
}

/* ------------------------------------------------------------------ ABIs */

enum scmpc_arch native_arch(void)
{
	enum scmpc_arch a = scmpc_arch_native();

	return a == SCMPC_ARCH_NONE ? SCMPC_ARCH_X86_64 : a;
}

struct scmpc_arch_info abi_info(enum scmpc_arch a)
{
	struct scmpc_arch_info i = { .sz = sizeof(i) };
	if (scmpc_arch_describe(a, &i) < 0)
		memset(&i, 0, sizeof(i));
	return i;
}

enum scmpc_arch host_of(enum scmpc_arch a)
{
	enum scmpc_arch h = abi_info(a).host;
	return h == SCMPC_ARCH_NONE ? a : h;
}

void abi_add(struct abi_list *l, enum scmpc_arch a)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->a[i] == a)
			return;
	if (l->n < SCMPC_ARCH_COUNT && scmpc_arch_name(a))
		l->a[l->n++] = a;
}

void abi_add_host_group(struct abi_list *l, enum scmpc_arch host)
{
	abi_add(l, host);
	for (int a = 1; a <= SCMPC_ARCH_COUNT; a++)
		if ((enum scmpc_arch)a != host && abi_info((enum scmpc_arch)a).host == host)
			abi_add(l, (enum scmpc_arch)a);
}

void abi_add_from_prog(struct abi_list *l, const struct sock_filter *f, size_t len)
{
	enum scmpc_arch found[SCMPC_ARCH_COUNT];
	int n = scmpc_prog_abis(f, len, found, SCMPC_ARCH_COUNT);
	for (int i = 0; i < n && i < SCMPC_ARCH_COUNT; i++)
		abi_add(l, found[i]);
}

/* ----------------------------------------------------------------- cache */

bool kernel_has_cache(const struct cli *c)
{
	return !(c->seen & F_KERNEL) || c->kernel_major > 5 ||
	       (c->kernel_major == 5 && c->kernel_minor >= 11);
}

int cache_bits(const struct cli *c, const struct sock_filter *insns, size_t len,
	       enum scmpc_arch a, uint8_t bits[(CACHE_NR + 7) / 8])
{
	const struct sock_filter *progs[1] = { insns };
	size_t lens[1] = { len };
	struct scmpc_cache_opts co;

	memset(&co, 0, sizeof(co));
	co.sz = sizeof(co);
	co.nr_count = CACHE_NR;
	if (c->seen & F_KERNEL)
		co.kernel_version = SCMPC_KERNEL_VERSION(c->kernel_major, c->kernel_minor, 0);
	memset(bits, 0, (CACHE_NR + 7) / 8);
	return scmpc_cache_bitmap(progs, lens, 1, a, &co, bits);
}

int insn_text(const struct sock_filter *insns, size_t len, size_t pc, enum scmpc_arch a, char *buf,
	      size_t size)
{
	struct scmpc_format_opts fo;

	memset(&fo, 0, sizeof(fo));
	fo.sz = sizeof(fo);
	fo.arch = a;
	int rc = scmpc_format_insn(insns, len, pc, &fo, buf, size, NULL);
	return rc < 0 ? rc : 0;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Workloads for profile-guided layout: how often each call is made, read
 * from a plain list or from the summaries strace -c and perf trace -s
 * print, and resolved per ABI for the dispatch's range weights.
 *
 * The summaries are read by their column headers rather than by fixed
 * positions, since both tools have changed their columns over the years
 * (perf's "errors", strace's -U): a table is found by its header line, its
 * rows run to the next rule or blank line, and only the "calls" column and
 * the name are read.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "front/workload.h"

struct entry {
	char *name;
	enum scmpc_arch arch;
	uint64_t count;
};

struct scmpc_workload {
	struct entry *v;
	size_t n, cap;
};

SCMPC_API scmpc_workload *scmpc_workload_new(void)
{
	return calloc(1, sizeof(scmpc_workload));
}

SCMPC_API void scmpc_workload_free(scmpc_workload *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->n; i++)
		free(w->v[i].name);
	free(w->v);
	free(w);
}

static struct entry *find(const scmpc_workload *w, const char *name, enum scmpc_arch arch)
{
	for (size_t i = 0; i < w->n; i++)
		if (w->v[i].arch == arch && !strcmp(w->v[i].name, name))
			return &w->v[i];
	return NULL;
}

/* Add COUNT calls of NAME on ARCH to W, saturating; a new entry copies NAME. */
static int add(scmpc_workload *w, const char *name, enum scmpc_arch arch, uint64_t count)
{
	struct entry *e = find(w, name, arch);
	if (e) {
		e->count = count > UINT64_MAX - e->count ? UINT64_MAX : e->count + count;
		return 0;
	}
	if (!array_reserve(&w->v, &w->cap, w->n, sizeof(*w->v), 32))
		return -ENOMEM;
	char *s = strdup(name);
	if (!s)
		return -ENOMEM;
	w->v[w->n++] = (struct entry){ s, arch, count };
	return 0;
}

SCMPC_API int scmpc_workload_add(scmpc_workload *w, const char *name, enum scmpc_arch arch,
				 uint64_t count, scmpc_diag *d)
{
	if (!w || !name)
		return diag_err(d, -EINVAL, NULL, "no workload or no name");
	if (arch != SCMPC_ARCH_NONE && !arch_info(arch))
		return diag_err(d, -EINVAL, NULL, "unknown ABI %d", (int)arch);
	if (!syscall_name_known(name))
		return diag_err(d, -EINVAL, NULL, "no ABI has a system call '%s'", name);
	if (add(w, name, arch, count) < 0)
		return diag_err(d, -ENOMEM, NULL, "out of memory");
	return 0;
}

SCMPC_API size_t scmpc_workload_size(const scmpc_workload *w)
{
	return w ? w->n : 0;
}

SCMPC_API int scmpc_workload_get(const scmpc_workload *w, size_t i, const char **name,
				 enum scmpc_arch *arch, uint64_t *count)
{
	if (!w || i >= w->n)
		return -EINVAL;
	if (name)
		*name = w->v[i].name;
	if (arch)
		*arch = w->v[i].arch;
	if (count)
		*count = w->v[i].count;
	return 0;
}

SCMPC_API uint64_t scmpc_workload_calls(const scmpc_workload *w, const char *name,
					enum scmpc_arch arch)
{
	const struct entry *e = w && name ? find(w, name, arch) : NULL;
	return e ? e->count : 0;
}

/* ---- parsing */

/* One line of the text, and the words on it. */
#define MAX_WORDS 24
struct line {
	const char *s;
	size_t len;
	size_t no;			/* 1-based, for messages */
	const char *word[MAX_WORDS];
	size_t wlen[MAX_WORDS];
	size_t nwords;
};

struct reader {
	const char *text, *end, *next;
	size_t no;
};

/* The next line split at white space (and at SEPS too); false at the end. */
static bool next_line(struct reader *r, struct line *l, const char *seps)
{
	if (r->next >= r->end)
		return false;
	const char *s = r->next, *e = memchr(s, '\n', (size_t)(r->end - s));
	if (!e)
		e = r->end;
	r->next = e + 1;
	l->s = s;
	l->len = (size_t)(e - s);
	l->no = ++r->no;
	l->nwords = 0;
	for (const char *p = s; p < e;) {
		if (isspace((unsigned char)*p) || strchr(seps, *p)) {
			p++;
			continue;
		}
		const char *q = p;
		while (q < e && !isspace((unsigned char)*q) && !strchr(seps, *q))
			q++;
		if (l->nwords < MAX_WORDS) {
			l->word[l->nwords] = p;
			l->wlen[l->nwords++] = (size_t)(q - p);
		}
		p = q;
	}
	return true;
}

static bool word_is(const struct line *l, size_t i, const char *w)
{
	return i < l->nwords && l->wlen[i] == strlen(w) && !memcmp(l->word[i], w, l->wlen[i]);
}

static bool is_rule(const struct line *l)
{
	if (!l->nwords)
		return false;
	for (size_t i = 0; i < l->nwords; i++)
		for (size_t k = 0; k < l->wlen[i]; k++)
			if (l->word[i][k] != '-')
				return false;
	return true;
}

/* A decimal count; false when the word is not one or no 64 bits hold it. */
static bool parse_count(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	if (!len)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		unsigned dig = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - dig) / 10)
			return false;
		v = v * 10 + dig;
	}
	*out = v;
	return true;
}

static bool is_name(const char *s, size_t len)
{
	if (!len || isdigit((unsigned char)s[0]))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return false;
	return true;
}

struct parse {
	scmpc_workload *tmp;
	scmpc_diag *d;
	int64_t added;
};

/* Record COUNT calls of the word NAME, skipping with a warning a name no
 * ABI has. */
static int record(struct parse *ps, const struct line *l, const char *name, size_t len,
		  enum scmpc_arch arch, uint64_t count)
{
	char buf[64];
	if (len >= sizeof(buf) || !is_name(name, len)) {
		char where[32];
		snprintf(where, sizeof(where), "line %zu", l->no);
		return diag_err(ps->d, -EINVAL, where, "'%.*s' is not a system call name",
				(int)(len > 40 ? 40 : len), name);
	}
	memcpy(buf, name, len);
	buf[len] = '\0';
	if (!syscall_name_known(buf)) {
		diag_warn(ps->d, "line %zu: no ABI has a system call '%s' (skipped)", l->no, buf);
		return 0;
	}
	if (add(ps->tmp, buf, arch, count) < 0)
		return diag_err(ps->d, -ENOMEM, NULL, "out of memory");
	ps->added++;
	return 0;
}

static int line_err(struct parse *ps, const struct line *l, const char *msg)
{
	char where[32];
	snprintf(where, sizeof(where), "line %zu", l->no);
	return diag_err(ps->d, -EINVAL, where, "%s: '%.*s'", msg,
			(int)(l->len > 60 ? 60 : l->len), l->s);
}

/* LIST: items are lines, or parts of lines between commas. */
static int parse_list(struct parse *ps, struct reader *r, enum scmpc_arch arch)
{
	struct line l;
	while (next_line(r, &l, "")) {
		const char *s = l.s, *e = l.s + l.len;
		const char *hash = memchr(s, '#', l.len);
		if (hash)
			e = hash;
		while (s < e) {
			const char *c = memchr(s, ',', (size_t)(e - s));
			const char *ie = c ? c : e;
			/* The item's words, '=' and ':' separating too. */
			struct line it = l;
			struct reader ir = { s, ie, s, l.no - 1 };
			next_line(&ir, &it, "=:");
			uint64_t n;
			int rc = 0;
			if (it.nwords == 2 && parse_count(it.word[1], it.wlen[1], &n))
				rc = record(ps, &l, it.word[0], it.wlen[0], arch, n);
			else if (it.nwords == 2 && parse_count(it.word[0], it.wlen[0], &n))
				rc = record(ps, &l, it.word[1], it.wlen[1], arch, n);
			else
				for (size_t i = 0; i < it.nwords && rc == 0; i++)
					rc = record(ps, &l, it.word[i], it.wlen[i], arch, 1);
			if (rc < 0)
				return rc;
			s = c ? c + 1 : e;
		}
	}
	return 0;
}

/* The ABI strace's "32 bit mode" means on a kernel of HOST: the compat ABI
 * whose host it is, with its numbers from 0. */
static enum scmpc_arch compat_of(enum scmpc_arch host)
{
	for (int a = 1; a <= SCMPC_ARCH_COUNT; a++) {
		const struct arch_info *ai = arch_info((enum scmpc_arch)a);
		if (a != (int)host && ai->host == host && ai->compat32 && ai->nr_base == 0)
			return (enum scmpc_arch)a;
	}
	return SCMPC_ARCH_NONE;
}

static bool contains(const struct line *l, const char *s)
{
	size_t n = strlen(s);
	for (size_t i = 0; i + n <= l->len; i++)
		if (!memcmp(l->s + i, s, n))
			return true;
	return false;
}

/*
 * strace -c:
 *   % time     seconds  usecs/call     calls    errors syscall
 *   ------ ----------- ----------- --------- --------- ----------------
 *    85.01    0.633842       11318        56           wait4
 * The errors column is blank for calls that never failed, so the calls
 * column is found by its place among the columns before it, which are
 * always filled, and the name is the last word.
 */
static int parse_strace(struct parse *ps, struct reader *r, enum scmpc_arch arch)
{
	enum scmpc_arch host = arch != SCMPC_ARCH_NONE ? arch : scmpc_arch_native();
	enum scmpc_arch mode = arch;
	bool skip_mode = false;
	size_t tables = 0;
	struct line l;
	while (next_line(r, &l, "")) {
		if (contains(&l, "System call usage summary for")) {
			if (contains(&l, "x32 mode"))
				mode = SCMPC_ARCH_X32;
			else if (contains(&l, "32 bit mode"))
				mode = compat_of(host);
			else if (contains(&l, "64 bit mode"))
				mode = arch;
			else
				mode = SCMPC_ARCH_NONE;
			skip_mode = mode == SCMPC_ARCH_NONE && !contains(&l, "64 bit mode");
			if (skip_mode)
				diag_warn(ps->d, "line %zu: no ABI of %s for '%.*s' (its table skipped)",
					  l.no, scmpc_arch_name(host), (int)l.len, l.s);
			continue;
		}
		if (!(l.nwords >= 2 && word_is(&l, 0, "%") && word_is(&l, 1, "time")))
			continue;
		/* Columns: "% time" is one; the name's must be last. */
		size_t calls = SIZE_MAX, ncols = l.nwords - 1;
		for (size_t i = 2; i < l.nwords; i++)
			if (word_is(&l, i, "calls"))
				calls = i - 1;
			else if (word_is(&l, i, "errors") && calls == SIZE_MAX)
				return line_err(ps, &l, "an errors column before the calls column");
		if (calls == SIZE_MAX ||
		    !(word_is(&l, l.nwords - 1, "syscall") || word_is(&l, l.nwords - 1, "name")))
			return line_err(ps, &l, "a strace -c header without calls or syscall columns");
		struct line rule;
		if (!next_line(r, &rule, "") || !is_rule(&rule))
			return line_err(ps, &l, "a strace -c header not followed by a rule");
		tables++;
		while (next_line(r, &l, "") && l.nwords && !is_rule(&l)) {
			uint64_t n;
			if (l.nwords < calls + 2 || l.nwords > ncols ||
			    !parse_count(l.word[calls], l.wlen[calls], &n))
				return line_err(ps, &l, "a strace -c row without a count of calls");
			int rc = skip_mode ? 0
					   : record(ps, &l, l.word[l.nwords - 1], l.wlen[l.nwords - 1],
						    mode, n);
			if (rc < 0)
				return rc;
		}
	}
	if (!tables)
		return diag_err(ps->d, -EINVAL, NULL,
				"no strace -c table (a header line starting '%% time')");
	return 0;
}

/*
 * perf trace -s, one table per thread:
 *    syscall            calls  errors  total       min ...
 *                                      (msec)    (msec) ...
 *    --------------- --------  ------ -------- --------- ...
 *    read                1219      0    82.212     0.011 ...
 * Every column of a row is filled, so the header's word positions are the
 * row's.
 */
static int parse_perf(struct parse *ps, struct reader *r, enum scmpc_arch arch)
{
	size_t tables = 0;
	struct line l;
	while (next_line(r, &l, "")) {
		size_t calls = SIZE_MAX;
		for (size_t i = 1; i < l.nwords; i++)
			if (word_is(&l, i, "calls"))
				calls = i;
		if (!word_is(&l, 0, "syscall") || calls == SIZE_MAX)
			continue;
		/* The units line, if any, then the rule. */
		struct line rule;
		bool ok = next_line(r, &rule, "");
		if (ok && !is_rule(&rule))
			ok = next_line(r, &rule, "");
		if (!ok || !is_rule(&rule))
			return line_err(ps, &l, "a perf trace -s header not followed by a rule");
		tables++;
		while (next_line(r, &l, "") && l.nwords) {
			uint64_t n;
			if (l.nwords <= calls || !parse_count(l.word[calls], l.wlen[calls], &n))
				return line_err(ps, &l, "a perf trace -s row without a count of calls");
			int rc = record(ps, &l, l.word[0], l.wlen[0], arch, n);
			if (rc < 0)
				return rc;
		}
	}
	if (!tables)
		return diag_err(ps->d, -EINVAL, NULL,
				"no perf trace -s table (a header line 'syscall calls ...')");
	return 0;
}

static enum scmpc_workload_format detect(const char *text, size_t len)
{
	struct reader r = { text, text + len, text, 0 };
	struct line l;
	bool perf = false;
	while (next_line(&r, &l, "")) {
		if (l.nwords >= 2 && word_is(&l, 0, "%") && word_is(&l, 1, "time"))
			return SCMPC_WORKLOAD_STRACE;
		for (size_t i = 1; word_is(&l, 0, "syscall") && i < l.nwords; i++)
			perf |= word_is(&l, i, "calls");
	}
	return perf ? SCMPC_WORKLOAD_PERF : SCMPC_WORKLOAD_LIST;
}

SCMPC_API int64_t scmpc_workload_parse(scmpc_workload *w, const char *text, size_t len,
				       const struct scmpc_workload_opts *o, scmpc_diag *d)
{
	int err;
	if ((err = OPTS_VALID(o, scmpc_workload_opts, sz, d)) < 0)
		return err;
	struct scmpc_workload_opts opts;
	OPTS_COPY(opts, o);
	if (!w || (!text && len))
		return diag_err(d, -EINVAL, NULL, "no workload or no text");
	if (opts.arch != SCMPC_ARCH_NONE && !arch_info(opts.arch))
		return diag_err(d, -EINVAL, NULL, "unknown ABI %d", (int)opts.arch);
	if (memchr(text, '\0', len))
		return diag_err(d, -EINVAL, NULL, "a workload is text: it holds a NUL byte");

	struct parse ps = { .tmp = scmpc_workload_new(), .d = d };
	if (!ps.tmp)
		return diag_err(d, -ENOMEM, NULL, "out of memory");
	struct reader r = { text, text + len, text, 0 };
	enum scmpc_workload_format f = opts.format ? opts.format : detect(text, len);
	switch (f) {
	case SCMPC_WORKLOAD_LIST:
		err = parse_list(&ps, &r, opts.arch);
		break;
	case SCMPC_WORKLOAD_STRACE:
		err = parse_strace(&ps, &r, opts.arch);
		break;
	case SCMPC_WORKLOAD_PERF:
		err = parse_perf(&ps, &r, opts.arch);
		break;
	default:
		err = diag_err(d, -EINVAL, NULL, "unknown workload format %d", (int)f);
		break;
	}
	for (size_t i = 0; err == 0 && i < ps.tmp->n; i++)
		if (add(w, ps.tmp->v[i].name, ps.tmp->v[i].arch, ps.tmp->v[i].count) < 0)
			err = diag_err(d, -ENOMEM, NULL, "out of memory");
	scmpc_workload_free(ps.tmp);
	return err < 0 ? err : ps.added;
}

/* ---- the compiler's view */

static int cmp_call(const void *a, const void *b)
{
	const struct hot_call *x = a, *y = b;
	return x->nr < y->nr ? -1 : x->nr > y->nr;
}

long hot_calls(const scmpc_workload *w, const scmpc_policy *p, uint32_t audit,
	       enum scmpc_arch primary, struct hot_call **out)
{
	struct hot_call *v = NULL;
	size_t n = 0, cap = 0;
	*out = NULL;
	for (size_t i = 0; w && i < w->n; i++) {
		enum scmpc_arch a = w->v[i].arch ? w->v[i].arch : primary;
		if (!w->v[i].count || !policy_has_arch(p, a) || arch_info(a)->audit != audit)
			continue;
		int64_t nr = arch_resolve(arch_info(a), w->v[i].name);
		if (nr < 0)
			continue;
		if (!array_reserve(&v, &cap, n, sizeof(*v), 32)) {
			free(v);
			return -ENOMEM;
		}
		v[n++] = (struct hot_call){ (uint32_t)nr, w->v[i].count, arch_info(a)->cached };
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_call);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k && v[k - 1].nr == v[i].nr) {
			uint64_t c = v[k - 1].count;
			v[k - 1].count = v[i].count > UINT64_MAX - c ? UINT64_MAX : c + v[i].count;
		} else {
			v[k++] = v[i];
		}
	}
	*out = v;
	return (long)k;
}

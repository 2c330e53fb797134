/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* The error object: the caller owns it and reads it after a failed call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"

struct scmpc_diag {
	int err;
	long insn;
	char msg[512];
	char where[128];
	char **warnings;
	const char **kinds;	/* per warning: the format it was made from */
	size_t nwarnings, cap, kcap;
};

SCMPC_API scmpc_diag *scmpc_diag_new(void)
{
	scmpc_diag *d = calloc(1, sizeof(*d));
	if (d)
		d->insn = -1;
	return d;
}

SCMPC_API void scmpc_diag_clear(scmpc_diag *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nwarnings; i++)
		free(d->warnings[i]);
	d->nwarnings = 0;
	d->err = 0;
	d->insn = -1;
	d->msg[0] = d->where[0] = '\0';
}

SCMPC_API void scmpc_diag_free(scmpc_diag *d)
{
	if (!d)
		return;
	scmpc_diag_clear(d);
	free(d->warnings);
	free(d->kinds);
	free(d);
}

SCMPC_API int scmpc_diag_errno(const scmpc_diag *d) { return d ? d->err : 0; }
SCMPC_API const char *scmpc_diag_message(const scmpc_diag *d) { return d ? d->msg : ""; }
SCMPC_API const char *scmpc_diag_where(const scmpc_diag *d) { return d ? d->where : ""; }
SCMPC_API long scmpc_diag_insn(const scmpc_diag *d) { return d ? d->insn : -1; }
SCMPC_API size_t scmpc_diag_warning_count(const scmpc_diag *d) { return d ? d->nwarnings : 0; }

SCMPC_API const char *scmpc_diag_warning(const scmpc_diag *d, size_t i)
{
	return d && i < d->nwarnings ? d->warnings[i] : NULL;
}

SCMPC_API const char *scmpc_diag_warning_kind(const scmpc_diag *d, size_t i)
{
	return d && i < d->nwarnings ? d->kinds[i] : NULL;
}

/* Record error ERR in D with its message and place: WHERE, else "insn INSN", else none. */
static int diag_verr(scmpc_diag *d, int err, const char *where, long insn, const char *fmt,
		     va_list ap)
{
	if (!d)
		return err;
	d->err = err;
	d->insn = insn;
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	if (where)
		snprintf(d->where, sizeof(d->where), "%s", where);
	else if (insn >= 0)
		snprintf(d->where, sizeof(d->where), "insn %ld", insn);
	else
		d->where[0] = '\0';
	return err;
}

int diag_err(scmpc_diag *d, int err, const char *where, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_verr(d, err, where, -1, fmt, ap);
	va_end(ap);
	return err;
}

int diag_err_insn(scmpc_diag *d, int err, long insn, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_verr(d, err, NULL, insn, fmt, ap);
	va_end(ap);
	return err;
}

/* ONCE: not when the same text is already listed (a fact found once per
 * ABI or per rule copy is worth one line).  KIND: the warning's kind, a
 * string of static storage. */
__attribute__((format(printf, 4, 0)))
static void add_warning(scmpc_diag *d, bool once, const char *kind, const char *fmt, va_list ap)
{
	char buf[512];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	for (size_t i = 0; once && i < d->nwarnings; i++)
		if (!strcmp(d->warnings[i], buf))
			return;
	/* a warning lost to ENOMEM is not worth failing for */
	if (!array_reserve(&d->warnings, &d->cap, d->nwarnings, sizeof(*d->warnings), 8) ||
	    !array_reserve(&d->kinds, &d->kcap, d->nwarnings, sizeof(*d->kinds), 8))
		return;
	char *s = strdup(buf);
	if (s) {
		d->kinds[d->nwarnings] = kind;
		d->warnings[d->nwarnings++] = s;
	}
}

void diag_warn(scmpc_diag *d, const char *fmt, ...)
{
	va_list ap;

	if (!d)
		return;
	va_start(ap, fmt);
	add_warning(d, false, fmt, fmt, ap);
	va_end(ap);
}

void diag_warn_once(scmpc_diag *d, const char *fmt, ...)
{
	va_list ap;

	if (!d)
		return;
	va_start(ap, fmt);
	add_warning(d, true, fmt, fmt, ap);
	va_end(ap);
}

void diag_warn_kind(scmpc_diag *d, const char *kind, const char *fmt, ...)
{
	va_list ap;

	if (!d)
		return;
	va_start(ap, fmt);
	add_warning(d, false, kind ? kind : fmt, fmt, ap);
	va_end(ap);
}

void diag_copy_warnings(scmpc_diag *to, const scmpc_diag *from, bool once)
{
	for (size_t i = 0; to && from && i < from->nwarnings; i++) {
		bool seen = false;
		for (size_t k = 0; once && !seen && k < to->nwarnings; k++)
			seen = !strcmp(to->warnings[k], from->warnings[i]);
		if (!seen)
			diag_warn_kind(to, from->kinds[i], "%s", from->warnings[i]);
	}
}

void out_fill(void *out, size_t out_sz, const void *local, size_t local_sz)
{
	size_t n = out_sz < local_sz ? out_sz : local_sz;
	memcpy(out, local, n);
	memset((unsigned char *)out + n, 0, out_sz - n);
	memcpy(out, &out_sz, sizeof(out_sz));
}

int opts_check(const void *opts, size_t sz, size_t need, size_t known, const char *type,
	       scmpc_diag *d)
{
	if (sz < need)
		return diag_err(d, -EINVAL, NULL,
				"struct %s: sz is %zu, but this call reads its first %zu bytes "
				"(set sz = sizeof(struct %s))", type, sz, need, type);
	for (size_t i = known; i < sz; i++)
		if (((const unsigned char *)opts)[i])
			return diag_err(d, -EINVAL, NULL,
					"struct %s sets a field this version of scmpc does not know "
					"(byte %zu of %zu is not zero; this version knows %zu bytes)",
					type, i, sz, known);
	return 0;
}

int progress_check(const struct scmpc_progress *pr, scmpc_diag *d)
{
	return OPTS_VALID(pr, scmpc_progress, user, d);
}

void progress_report(const struct scmpc_progress *pr, const char *stage, uint64_t done,
		     uint64_t total)
{
	/* checked by progress_check(): sz covers fn and user */
	if (pr && pr->fn && total)
		pr->fn(pr->user, stage, done < total ? done : total, total);
}

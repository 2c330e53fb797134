/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Growable text: what the writers of C arrays, disassembly, PFC and OCI
 * profiles build in memory before they hand it out or write it whole, so
 * that a failure never leaves half an output. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "base/base.h"

bool textbuf_reserve(struct textbuf *t, size_t more)
{
	if (t->oom)
		return false;
	if (t->s && more < t->cap - t->len)
		return true;
	size_t cap = t->cap ? t->cap : 256;
	while (cap - t->len <= more) {
		if (cap > SIZE_MAX / 2) {
			t->oom = true;
			return false;
		}
		cap *= 2;
	}
	char *s = realloc(t->s, cap);
	if (!s) {
		t->oom = true;
		return false;
	}
	t->s = s;
	t->cap = cap;
	return true;
}

void textbuf_put(struct textbuf *t, const char *fmt, ...)
{
	va_list ap;
	if (t->oom)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		t->oom = true;
		return;
	}
	if (!textbuf_reserve(t, (size_t)n + 1))
		return;
	va_start(ap, fmt);
	vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
	va_end(ap);
	t->len += (size_t)n;
}

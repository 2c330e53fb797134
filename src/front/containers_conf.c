/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Podman's default capability set as a containers.conf sets it: the
 * [containers] table's default_capabilities, read from TOML text the
 * caller hands over (the library opens no file).  Only as much TOML as
 * skipping every other key needs: tables, bare, quoted and dotted keys,
 * the four string forms, arrays and inline tables nested, comments.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"

/* A position in the text, with its line for messages. */
struct toml {
	const char *s, *end;
	unsigned line;
	scmpc_diag *d;
};

/* -EINVAL naming T's line. */
static int terr(struct toml *t, const char *what)
{
	char where[32];
	snprintf(where, sizeof(where), "line %u", t->line);
	return diag_err(t->d, -EINVAL, where, "containers.conf: %s", what);
}

/* Skips blanks, and with NL newlines and comments too. */
static void skip_ws(struct toml *t, bool nl)
{
	while (t->s < t->end) {
		if (*t->s == ' ' || *t->s == '\t' || *t->s == '\r') {
			t->s++;
		} else if (*t->s == '#') {
			while (t->s < t->end && *t->s != '\n')
				t->s++;
		} else if (nl && *t->s == '\n') {
			t->line++;
			t->s++;
		} else {
			break;
		}
	}
}

/* T is at S. */
static bool at(const struct toml *t, const char *s)
{
	size_t n = strlen(s);
	return (size_t)(t->end - t->s) >= n && !memcmp(t->s, s, n);
}

/* Reads the string T is at (any of TOML's four forms); with BUF (SIZE
 * bytes) its value, cut to fit, goes there.  Escapes other than \" and
 * \\ keep their letter: no capability name has one. */
static int read_string(struct toml *t, char *buf, size_t size)
{
	char q = *t->s;
	bool multi = at(t, q == '"' ? "\"\"\"" : "'''");
	size_t n = 0;

	t->s += multi ? 3 : 1;
	for (;;) {
		if (t->s >= t->end || (!multi && *t->s == '\n'))
			return terr(t, "a string is not closed");
		if (multi ? at(t, q == '"' ? "\"\"\"" : "'''") : *t->s == q)
			break;
		if (*t->s == '\n')
			t->line++;
		if (q == '"' && *t->s == '\\' && t->s + 1 < t->end)
			t->s++;
		if (buf && n + 1 < size)
			buf[n++] = *t->s;
		t->s++;
	}
	t->s += multi ? 3 : 1;
	if (buf && size)
		buf[n] = '\0';
	return 0;
}

/* Skips the value T is at: a string, an array or inline table (nested),
 * or a scalar up to the end of its line, comma or bracket. */
static int skip_value(struct toml *t)
{
	int r;

	if (t->s >= t->end)
		return terr(t, "a key has no value");
	if (*t->s == '"' || *t->s == '\'')
		return read_string(t, NULL, 0);
	if (*t->s == '[' || *t->s == '{') {
		char close = *t->s == '[' ? ']' : '}';
		t->s++;
		for (;;) {
			skip_ws(t, close == ']');
			if (t->s >= t->end)
				return terr(t, "an array or inline table is not closed");
			if (*t->s == close) {
				t->s++;
				return 0;
			}
			if (*t->s == ',' || *t->s == '=') {
				t->s++;
				continue;
			}
			if ((r = skip_value(t)))
				return r;
		}
	}
	while (t->s < t->end && !strchr("\n#,]}=", *t->s))
		t->s++;
	return 0;
}

/* Reads a key, bare, quoted or dotted, T at its first character; its
 * dotted parts joined by '.' go to BUF (SIZE bytes, cut to fit). */
static int read_key(struct toml *t, char *buf, size_t size)
{
	size_t n = 0;
	int r;

	buf[0] = '\0';
	for (;;) {
		skip_ws(t, false);
		if (t->s < t->end && (*t->s == '"' || *t->s == '\'')) {
			char part[128];
			if ((r = read_string(t, part, sizeof(part))))
				return r;
			n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s", part);
		} else {
			const char *b = t->s;
			while (t->s < t->end && (strchr("-_", *t->s) || (*t->s >= '0' && *t->s <= '9') ||
						 ((*t->s | 0x20) >= 'a' && (*t->s | 0x20) <= 'z')))
				t->s++;
			if (t->s == b)
				return terr(t, "expected a key");
			if (n < size)
				n += (size_t)snprintf(buf + n, size - n, "%.*s", (int)(t->s - b), b);
		}
		if (n >= size)
			n = size - 1;
		skip_ws(t, false);
		if (t->s >= t->end || *t->s != '.')
			return 0;
		t->s++;
		if (n + 1 < size)
			buf[n++] = '.', buf[n] = '\0';
	}
}

/* Reads the array of strings T is at into a NULL-terminated list in one
 * allocation (*OUT, NULL for an empty array); returns its length. */
static int read_caps(struct toml *t, char ***out)
{
	const char *start = t->s;
	unsigned line = t->line;
	size_t n = 0, bytes = 0;
	char name[128], **list = NULL, *p = NULL;
	int r;

	*out = NULL;
	if (t->s >= t->end || *t->s != '[')
		return terr(t, "default_capabilities is not an array");
	/* two passes: count and size, then fill one block */
	for (int pass = 0; pass < 2; pass++) {
		t->s = start + 1;
		t->line = line;
		for (size_t i = 0;;) {
			skip_ws(t, true);
			if (t->s >= t->end)
				return free(list), terr(t, "default_capabilities is not closed");
			if (*t->s == ']') {
				t->s++;
				break;
			}
			if (*t->s == ',') {
				t->s++;
				continue;
			}
			if (*t->s != '"' && *t->s != '\'')
				return free(list), terr(t, "default_capabilities holds something "
							"other than strings");
			if ((r = read_string(t, name, sizeof(name))))
				return free(list), r;
			if (!pass) {
				n++;
				bytes += strlen(name) + 1;
			} else {
				list[i++] = strcpy(p, name);
				p += strlen(name) + 1;
			}
		}
		if (pass || !n)
			break;
		list = calloc(1, (n + 1) * sizeof(*list) + bytes);
		if (!list)
			return diag_err(t->d, -ENOMEM, NULL, "out of memory");
		p = (char *)(list + n + 1);
	}
	*out = list;
	return (int)n;
}

SCMPC_API int scmpc_containers_conf_caps(const char *text, size_t len, char ***out,
					 scmpc_diag *d)
{
	struct toml t = { text, text + len, 1, d };
	char table[128] = "", key[128];
	char **found = NULL;
	int n = 0, r;

	if (!out || (!text && len))
		return diag_err(d, -EINVAL, NULL, "no input or no output pointer");
	*out = NULL;
	for (;;) {
		skip_ws(&t, true);
		if (t.s >= t.end)
			break;
		if (*t.s == '[') {
			bool aot = at(&t, "[[");
			t.s += aot ? 2 : 1;
			if ((r = read_key(&t, table, sizeof(table))))
				return free(found), r;
			if (!at(&t, aot ? "]]" : "]"))
				return free(found), terr(&t, "a table header is not closed");
			t.s += aot ? 2 : 1;
			continue;
		}
		if ((r = read_key(&t, key, sizeof(key))))
			return free(found), r;
		if (t.s >= t.end || *t.s != '=')
			return free(found), terr(&t, "expected '=' after a key");
		t.s++;
		skip_ws(&t, false);
		/* a later setting of the key replaces an earlier one */
		if (!strcmp(table, "containers") && !strcmp(key, "default_capabilities")) {
			free(found);
			if ((r = read_caps(&t, &found)) < 0)
				return r;
			n = r;
		} else if ((r = skip_value(&t))) {
			return free(found), r;
		}
	}
	*out = found;
	return n;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * What the bytes are, and how a syntax error is named: the part of the
 * JSON text checks that speaks to the user (json_scan.h).
 *
 * Before json-c: a file saved as UTF-16 or UTF-32, or a compiled filter
 * given where a policy belongs, would otherwise surface as a NUL byte at
 * some column; the user needs to hear what the file is.
 *
 * When json-c fails: its messages name the state it was in ("unexpected
 * character", "quoted object property name expected"), not the mistake.
 * The byte it stopped at usually shows the mistake (a comment, a comma
 * before a closing bracket, a character nobody would type on purpose), so
 * that is what the message names.
 *
 * When the scan (json_scan.c) refuses a text: json-c's words for a mistake
 * are what scmpc has always said, so json-c is asked whether it refuses
 * the text too (json_verdict()), and only where it does not do the scan's
 * words stand.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "front/json_scan.h"

/* ------------------------------------------------------------ positions */

/* The line and column of S[OFF], both from 1, as editors count them. */
static void line_col(const char *s, size_t len, size_t off, unsigned *line, unsigned *col)
{
	unsigned l = 1, c = 1;
	for (size_t i = 0; i < off && i < len; i++) {
		if (s[i] == '\n') {
			l++;
			c = 1;
		} else if (((unsigned char)s[i] & 0xc0) != 0x80) {
			c++;	/* count characters, not UTF-8 continuation bytes */
		}
	}
	*line = l;
	*col = c;
}

/* Records "invalid JSON: ..." at the line and column of S[OFF] in D;
 * returns -EINVAL. */
__attribute__((format(printf, 5, 6)))
static int syntax_err(scmpc_diag *d, const char *s, size_t len, size_t off, const char *fmt, ...)
{
	unsigned line, col;
	char where[64], why[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	line_col(s, len, off, &line, &col);
	snprintf(where, sizeof(where), "line %u, column %u", line, col);
	return diag_err(d, -EINVAL, where, "invalid JSON: %s", why);
}

/* Length of the well-formed UTF-8 sequence at U (N bytes available) and
 * its code point in *CP; 0 when the bytes are not UTF-8. */
static size_t utf8_char(const unsigned char *u, size_t n, uint32_t *cp)
{
	uint32_t c = u[0], min;
	size_t len;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c < 0xe0) {
		len = 2, c &= 0x1f, min = 0x80;
	} else if (c >= 0xe0 && c < 0xf0) {
		len = 3, c &= 0x0f, min = 0x800;
	} else if (c >= 0xf0 && c < 0xf5) {
		len = 4, c &= 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((u[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (u[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c < 0xe000))
		return 0;
	*cp = c;
	return len;
}

/* Characters an editor shows as nothing or as a space: quoting them would
 * print an empty-looking "''". */
static bool invisible(uint32_t cp)
{
	return cp <= 0xa0 || cp == 0xad || (cp >= 0x2000 && cp <= 0x200f) ||
	       (cp >= 0x2028 && cp <= 0x202f) || (cp >= 0x205f && cp <= 0x206f) || cp == 0x3000 ||
	       cp == 0xfeff;
}

/* The character at S[OFF] as a message names it: 'x', "'", '“' (U+201C),
 * U+00A0, byte 0xff. */
void json_describe_char(const char *s, size_t n, size_t off, char *buf, size_t len)
{
	const unsigned char *u = (const unsigned char *)s + off;
	uint32_t cp;
	size_t l;

	if (off >= n)
		snprintf(buf, len, "end of input");
	else if (u[0] == '\'')
		snprintf(buf, len, "\"'\"");
	else if (u[0] >= 0x20 && u[0] < 0x7f)
		snprintf(buf, len, "'%c'", u[0]);
	else if (!(l = utf8_char(u, n - off, &cp)) || cp < 0x80)
		snprintf(buf, len, "byte 0x%02x", u[0]);
	else if (cp == 0xfeff)
		snprintf(buf, len, "byte order mark (U+FEFF)");
	else if (invisible(cp))
		snprintf(buf, len, "U+%04X", (unsigned)cp);
	else
		snprintf(buf, len, "'%.*s' (U+%04X)", (int)l, (const char *)u, (unsigned)cp);
}

/* --------------------------------------------------------- before json-c */

/* JSON text starts with an ASCII character, and no character of it is a
 * NUL or a control character other than white space; in UTF-16 or UTF-32
 * without a byte order mark that shows in the first code units. */
static bool wide_text(const unsigned char *u, size_t n, size_t width, bool le)
{
	size_t units = n / width < 4 ? n / width : 4;

	if (n % width || units < 2)
		return false;
	for (size_t i = 0; i < units; i++) {
		const unsigned char *p = u + i * width;
		unsigned ch = le ? p[0] : p[width - 1];
		for (size_t k = 1; k < width; k++)
			if (p[le ? k : k - 1])
				return false;
		if (ch >= 0x80 || (ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\r'))
			return false;
	}
	return true;
}

/* "UTF-16" or "UTF-32" when S is text in one of them, else NULL.  A byte
 * order mark settles it: FF and FE never occur in UTF-8. */
static const char *wide_encoding(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	if (n >= 4 && (!memcmp(u, "\xff\xfe\0\0", 4) || !memcmp(u, "\0\0\xfe\xff", 4)))
		return "UTF-32";
	if (n >= 2 && (!memcmp(u, "\xff\xfe", 2) || !memcmp(u, "\xfe\xff", 2)))
		return "UTF-16";
	if (wide_text(u, n, 4, true) || wide_text(u, n, 4, false))
		return "UTF-32";
	if (wide_text(u, n, 2, true) || wide_text(u, n, 2, false))
		return "UTF-16";
	return NULL;
}

bool json_is_filter(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	bool le = true, be = true;

	if (!n || n % 8)
		return false;
	/* Every opcode is below 0x100, so the high byte of each
	 * instruction's 16-bit code is zero in one byte order throughout.
	 * ASCII text in UTF-16 has that shape too. */
	for (size_t i = 0; i < n && (le || be); i += 8) {
		le = le && !u[i + 1];
		be = be && !u[i];
	}
	return (le || be) && !wide_encoding(s, n);
}

SCMPC_API enum scmpc_input_kind scmpc_input_kind(const void *buf, size_t len)
{
	const char *s = buf;
	size_t i = 0;

	if (!s)
		return SCMPC_INPUT_OTHER;
	if (json_is_filter(s, len))
		return SCMPC_INPUT_FILTER;
	if (wide_encoding(s, len))
		return SCMPC_INPUT_WIDE_TEXT;
	/* json-c would stop at a NUL: whatever the text is, it is no profile
	 * json-c can read in full. */
	if (memchr(s, '\0', len))
		return SCMPC_INPUT_OTHER;
	/* Editors on Windows start UTF-8 files with a byte order mark, which
	 * the user cannot see. */
	if (len >= 3 && !memcmp(s, "\xef\xbb\xbf", 3))
		i = 3;
	while (i < len && json_ws(s[i]))
		i++;
	return i < len && s[i] == '{' ? SCMPC_INPUT_JSON : SCMPC_INPUT_OTHER;
}

int json_precheck(const char *s, size_t n, scmpc_diag *d)
{
	const char *enc = wide_encoding(s, n), *nul;

	if (enc)
		return diag_err(d, -EINVAL, NULL, "the file is %s; save it as UTF-8", enc);
	if (json_is_filter(s, n))
		return diag_err(d, -EINVAL, NULL, "not a JSON policy (it looks like a compiled filter)");
	/* json-c stops at a NUL byte as if the input ended there. */
	if ((nul = memchr(s, '\0', n)))
		return syntax_err(d, s, n, (size_t)(nul - s), "NUL byte in the input");
	return 0;
}

/* ------------------------------------------------------- json-c's errors */

/* json-c stopped at OFF with error TE (json_tokener_continue: the input
 * ended early): records the error and its position in D, and returns
 * -EINVAL. */
static int jsonc_error(const char *s, size_t n, size_t off, enum json_tokener_error te,
		       scmpc_diag *d)
{
	char what[64];
	size_t p = off < n ? off : n;

	if (te == json_tokener_continue)
		return syntax_err(d, s, n, n, "unexpected end of input");
	/* json-c stops at the slash of a comment wherever it stands, each time
	 * with a message about what it expected instead. */
	if (p + 1 < n && s[p] == '/' && (s[p + 1] == '/' || s[p + 1] == '*'))
		return syntax_err(d, s, n, p, "comments are not allowed");
	/* Only white space stands between the bracket json-c stopped at and
	 * the comma, so the comma is no string's: it is a trailing comma. */
	if (p < n && (s[p] == ']' || s[p] == '}')) {
		size_t q = p;
		while (q > 0 && json_ws(s[q - 1]))
			q--;
		if (q > 0 && s[q - 1] == ',')
			return syntax_err(d, s, n, p, "unexpected '%c' after ','", s[p]);
	}
	if (te == json_tokener_error_parse_unexpected) {
		json_describe_char(s, n, p, what, sizeof(what));
		return syntax_err(d, s, n, p, "unexpected %s", what);
	}
	return syntax_err(d, s, n, p, "%s", json_tokener_error_desc(te));
}

/* --------------------------------------------------------- kinds of values */

enum json_type json_value_type(const char *s, size_t n, size_t at)
{
	bool dbl = false;

	switch (s[at]) {
	case '{': return json_type_object;
	case '[': return json_type_array;
	case '"': return json_type_string;
	case 't':
	case 'f': return json_type_boolean;
	case 'n': return json_type_null;
	case 'N':
	case 'I': return json_type_double;	/* json-c's NaN, Infinity */
	default: break;
	}
	if (s[at] == '-' && at + 1 < n && s[at + 1] == 'I')
		return json_type_double;
	for (size_t i = at; i < n && s[i] && ((s[i] >= '0' && s[i] <= '9') || strchr("+-.eE", s[i]));
	     i++)
		dbl = dbl || s[i] == '.' || s[i] == 'e' || s[i] == 'E';
	return dbl ? json_type_double : json_type_int;
}

const char *json_type_kind(enum json_type t)
{
	switch (t) {
	case json_type_null: return "null";
	case json_type_boolean: return "a boolean";
	case json_type_double: return "a non-integer number";
	case json_type_int: return "a number";
	case json_type_object: return "an object";
	case json_type_array: return "an array";
	case json_type_string: return "a string";
	}
	return "an unknown value";
}

const char *json_value_kind(const char *s, size_t n, size_t at)
{
	return at < n ? json_type_kind(json_value_type(s, n, at)) : "an unknown value";
}

/* ------------------------------------------------- after the scan's error */

/* How far past the scan's error json-c is given to find one of its own. */
#define JSONC_WINDOW (64 * 1024)

/*
 * The scan refused the text at st->at.  scmpc has always named json-c's
 * error when json-c refuses the text too, in json-c's terms as
 * jsonc_error() words them, and the scan's otherwise.  json-c does not
 * need what lies before: its state at the cursor of the innermost open
 * container depends only on the containers open there, so it reads a
 * skeleton of those followed by the text from the cursor, and holds no
 * tree of the document.  Past JSONC_WINDOW bytes after the scan's error
 * json-c is not asked: there, a second mistake would be named instead of
 * the first.
 */
int json_verdict(const struct json_stop *st, scmpc_diag *d)
{
	const char *s = st->s;
	size_t n = st->n, base = 0, skel = 0, end, first = 0, parsed;
	json_tokener *tok;
	json_object *v;
	enum json_tokener_error te;
	bool accepted = false;
	char *buf;
	int r = 1;

	while (first < n && json_ws(s[first]))
		first++;
	/* past a whole top-level object or array, json-c is done with it
	 * whatever it held; a number it reads again, since json-c's numbers
	 * end elsewhere than Go's ("0123") */
	if (st->nfr)
		base = st->fr[st->nfr - 1].cursor;
	else if (st->root_done && first < n && (s[first] == '{' || s[first] == '['))
		base = st->root_end;
	end = n - st->at > JSONC_WINDOW ? st->at + JSONC_WINDOW : n;
	if (!(buf = malloc(st->nfr * 6 + 2 + (end - base))) ||
	    !(tok = json_tokener_new_ex(JSON_MAX_DEPTH))) {
		free(buf);
		return diag_err(d, -ENOMEM, NULL, "out of memory");
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	for (size_t k = 0; k < st->nfr; k++) {
		const char *fill = st->fr[k].open == '{' ? "\"\":0," : "0,";
		buf[skel++] = st->fr[k].open;
		if (k + 1 < st->nfr && st->fr[k].open == '{')
			fill = "\"\":";
		else if (k + 1 < st->nfr || !st->fr[k].some)
			fill = "";
		memcpy(buf + skel, fill, strlen(fill));
		skel += strlen(fill);
	}
	if (!st->nfr && base) {
		memcpy(buf, "{}", 2);
		skel = 2;
	}
	memcpy(buf + skel, s + base, end - base);
	v = json_tokener_parse_ex(tok, buf, (int)(skel + end - base));
	te = json_tokener_get_error(tok);
	parsed = (size_t)json_tokener_get_parse_end(tok);
	if (!v && te == json_tokener_continue && end == n) {
		/* a terminating NUL tells json-c the input is complete */
		v = json_tokener_parse_ex(tok, "", 1);
		te = json_tokener_get_error(tok);
		if (!v && te != json_tokener_success)
			r = jsonc_error(s, n, n, json_tokener_continue, d);
		else
			accepted = true;
	} else if (te == json_tokener_success) {
		accepted = end == n;
	} else if (te != json_tokener_continue && parsed >= skel) {
		r = jsonc_error(s, n, base + parsed - skel, te, d);
	}
	json_object_put(v);
	json_tokener_free(tok);
	free(buf);
	if (r != 1)
		return r;
	/* json-c took the whole text: what it held was judged first */
	if (accepted && first < n && s[first] == 'n')
		return diag_err(d, -EINVAL, NULL, "expected a JSON object at the top level, got null");
	if (accepted && first < n && s[first] != '{')
		return diag_err(d, -EINVAL, "", "expected a JSON object at the top level, got %s",
				json_value_kind(s, n, first));
	return syntax_err(d, s, n, st->at, "%s", st->why);
}

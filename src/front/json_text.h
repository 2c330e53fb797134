/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The JSON front end's checks on the text itself (json_text.c), around
 * json-c: bytes that cannot be UTF-8 JSON, json-c's syntax errors in
 * clearer words, and what json-c lets through (RFC 8259 strictness,
 * integers past 64 bits, duplicate keys); and, once the text is known to be
 * good, its objects' members as Go's decoder sees them.
 */
#ifndef SCMPC_JSON_TEXT_H
#define SCMPC_JSON_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>
#include "base/base.h"

/* json-c's default of 32 is plenty for profiles; a config.json nests a few
 * levels more, and neither comes close to 64. */
#define JSON_MAX_DEPTH 64

/* "UTF-16" or "UTF-32" when S is text in one of them, else NULL. */
const char *json_text_wide_encoding(const char *s, size_t n);

/* S has the shape of a compiled classic BPF program (an array of struct
 * sock_filter in either byte order), not of text. */
bool json_text_is_filter(const char *s, size_t n);

/* Before json-c: 0, or -EINVAL with the reason in D when S cannot be UTF-8
 * JSON text (UTF-16 or UTF-32, a compiled filter, a NUL byte). */
int json_text_precheck(const char *s, size_t n, scmpc_diag *d);

/* json-c stopped at OFF with error TE (json_tokener_continue: the input
 * ended early): records the error and its position in D, and returns
 * -EINVAL. */
int json_text_syntax_error(const char *s, size_t n, size_t off, enum json_tokener_error te,
			   scmpc_diag *d);

/* The one pass over S, after json_text_precheck(): a syntax error is
 * named in json-c's words where json-c refuses S too, else as Go's decoder
 * refuses it; so is an integer past 64 bits at or below path PRE ("": the
 * whole document); each duplicated key is a warning.  Returns 0 or a
 * negative errno. */
int json_text_check(const char *s, size_t n, const char *pre, scmpc_diag *d);

/* json_text_check() in two steps, for a caller that reads the document in
 * between and must not have "the last value counts" said of a duplicate it
 * refuses.  The scan records syntax errors in D and returns them; on
 * success *OUT holds what else it found, for json_text_report().  PRE is
 * matched the way Go matches keys. */
struct json_text_report;
int json_text_scan(const char *s, size_t n, const char *pre, struct json_text_report **out,
		   scmpc_diag *d);
/* Warns of each duplicated key except those whose repetition starts at one
 * of the NSKIP offsets in SKIP; then returns the first integer past 64 bits
 * below PRE (IN_PRE) or anywhere as an error, or 0.  Frees R. */
int json_text_report(struct json_text_report *r, bool in_pre, const size_t *skip, size_t nskip,
		     scmpc_diag *d);

void json_text_report_free(struct json_text_report *r);

/* What json-c makes of the value at S[AT] (valid JSON text), as messages
 * name it: "an object", "a string", "a non-integer number", "null", ... */
const char *json_text_kind(const char *s, size_t n, size_t at);

/* KEY (KLEN bytes, decoded) names the field NAME for Go's encoding/json:
 * equal but for ASCII case, U+017F for 's' and U+212A for 'k'. */
bool json_text_fold_eq(const char *key, size_t klen, const char *name);

/* Navigation in text json_text_scan() accepted; offsets point at the first
 * character of a value. */

/* One member of an object, in text order, with its key decoded as Go
 * decodes it (a NUL character included, where json-c would cut the key). */
struct json_member {
	size_t key_at;		/* the key's opening quote */
	size_t koff, klen;	/* the key in json_members.keys */
	size_t at;		/* the value */
	bool repeat;		/* an earlier member has the very same key */
};

struct json_members {
	struct json_member *m;
	size_t n, cap;
	char *keys;
	size_t kcap;
};

/* Fills OUT (reused from call to call) with the members of the object at
 * S[AT].  Returns 0 or -ENOMEM. */
int json_text_members(const char *s, size_t n, size_t at, struct json_members *out);
void json_members_free(struct json_members *ms);

/* The offset just past the value at S[AT]. */
size_t json_text_skip(const char *s, size_t n, size_t at);

/* The first element of the array at S[AT], and the element after the one
 * at S[AT]; N when there is none. */
size_t json_text_first(const char *s, size_t n, size_t at);
size_t json_text_next(const char *s, size_t n, size_t at);
/* json_text_next() of the element that ends at END. */
size_t json_text_after(const char *s, size_t n, size_t end);

#endif

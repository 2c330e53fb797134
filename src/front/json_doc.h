/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The JSON document (json_doc.c): the one interface through which the
 * profile reader reads the text, over the text checks (json_scan.h) and
 * json-c.
 *
 * jdoc_open() checks the whole text once and hands out the top-level
 * object.  From there every value is a struct jval: where it starts in
 * the text, and json-c's object for it once there is one.  json-c never
 * holds the whole document, whose tree took 19 times the text: an object
 * or array the reader takes piece by piece stays in the text (lazy), and
 * its elements are parsed one at a time (jdoc_load()).  An object's
 * members are always listed from the text, their keys decoded as Go
 * decodes them (json-c keeps one entry per key, and cuts keys at a NUL);
 * their values, like an array's elements, come from json-c's tree where
 * json-c holds the object.  Which of the two answers a question is this
 * layer's business, not the reader's.
 *
 * The reader speaks to the document's own diag (jdoc.d); jdoc_close()
 * passes that on after the scan's warnings, less the duplicate keys the
 * reader refused (jdoc_unwarn()).
 */
#ifndef SCMPC_JSON_DOC_H
#define SCMPC_JSON_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>
#include "base/base.h"

struct json_scan_report;

/* A value of the document. */
struct jval {
	json_object *j;		/* json-c's object for it; NULL for null, for no
				 * value at all and while it is only in the text */
	size_t at;		/* where it starts in the text */
	bool lazy;		/* only in the text: json-c holds no object for it */
};

/* The value at AT, only in the text until jdoc_load(). */
static inline struct jval jval_at(size_t at)
{
	return (struct jval){ NULL, at, true };
}

/* V is there: neither null nor missing. */
static inline bool jval_has(struct jval v)
{
	return v.j || v.lazy;
}

/* One member of an object, in text order, with its key decoded as Go
 * decodes it (a NUL character included, where json-c would cut the key). */
struct jmember {
	size_t key_at;		/* the key's opening quote */
	size_t koff, klen;	/* the key in jmembers.keys */
	size_t at;		/* the value */
	bool null;		/* the value is null */
	bool repeat;		/* an earlier member has the very same key */
};

struct jmembers {
	struct jmember *m;
	size_t n, cap;
	char *keys;
	size_t kcap;
};

/* Member I's key (jmember.klen bytes, not NUL-terminated). */
static inline const char *jmember_key(const struct jmembers *ms, size_t i)
{
	return ms->keys + ms->m[i].koff;
}

/* A document being read.  Only D is the reader's; the rest is
 * json_doc.c's. */
struct jdoc {
	scmpc_diag *d;			/* where the reading speaks */
	scmpc_diag *out;		/* the caller's, where jdoc_close() passes it on */
	const char *text;		/* past any byte order marks */
	size_t len;
	struct json_scan_report *rep;	/* what the scan found, said at the close */
	struct jmembers mem;		/* reused by each jdoc_members() */
	json_tokener *tok;		/* for values parsed on their own */
	json_object **owned;		/* what jdoc_load() made, until jdoc_release() */
	size_t nowned, owncap;
	size_t *skip;			/* duplicate keys refused: no warning */
	size_t nskip, skipcap;
	size_t parsed_at, parsed_end;	/* the value parsed last, start and end */
};

/* Opens the LEN bytes at TEXT (NULL when LEN is 0) as a document: checks
 * the whole text (json_scan(), with PRE the path below which an integer
 * past 64 bits matters) and that it is one object, *ROOT.  Errors go to
 * D; on success the reading speaks to DOC->d until jdoc_close(). */
int jdoc_open(struct jdoc *doc, const char *text, size_t len, const char *pre, struct jval *root,
	      scmpc_diag *d);

/* Says what the scan found (IN_PRE: only integers past 64 bits below its
 * PRE count) and then what the reading said, R its result; frees DOC.
 * Returns R, or the scan's error, which makes what was read meaningless. */
int jdoc_close(struct jdoc *doc, bool in_pre, int r);

/* ---- values */

/* V is of json-c's type T (json_type_null for null). */
bool jdoc_is(const struct jdoc *doc, struct jval v, enum json_type t);

/* How messages name V's kind ("an object", "a non-integer number", ...),
 * and how they name type T. */
const char *jdoc_kind(const struct jdoc *doc, struct jval v);
const char *jdoc_type_name(enum json_type t);

/* V as the text spells it, for a message that quotes it: where it starts
 * (not NUL-terminated; "" past the end), and how many bytes it takes. */
const char *jdoc_text(const struct jdoc *doc, struct jval v);
size_t jdoc_text_len(const struct jdoc *doc, struct jval v);

/* Gives V, if only in the text, json-c's object: parsed on its own and
 * kept until jdoc_release().  Returns 0 or -ENOMEM, said in DOC->d. */
int jdoc_load(struct jdoc *doc, struct jval *v);

/* What jdoc_load() made from now on, and freeing it again. */
size_t jdoc_mark(const struct jdoc *doc);
void jdoc_release(struct jdoc *doc, size_t mark);

/* ---- objects */

/* The members of the object O in *OUT, valid until the next call.
 * Returns 0 or -ENOMEM, said in DOC->d at WHERE. */
int jdoc_members(struct jdoc *doc, struct jval o, const char *where, const struct jmembers **out);

/* Member I's key names the field NAME for Go's encoding/json: equal but
 * for ASCII case, U+017F for 's' and U+212A for 'k'. */
bool jdoc_key_is(const struct jmembers *ms, size_t i, const char *name);

/* The value of member I of O, as listed in MS.  From O's tree when json-c
 * holds O and kept this member's value (json-c keeps the last of the keys
 * it cuts alike at a NUL), else parsed on its own (see jdoc_load()); of an
 * object only in the text, an object or array stays there (PIECEWISE).
 * Returns 0 or -ENOMEM, said in DOC->d. */
int jdoc_member(struct jdoc *doc, struct jval o, const struct jmembers *ms, size_t i, bool piecewise,
		struct jval *out);

/* The duplicate key at KEY_AT is refused by the reader: no warning that
 * its last value counts.  Returns 0 or -ENOMEM, said in DOC->d. */
int jdoc_unwarn(struct jdoc *doc, size_t key_at);

/* ---- arrays */

/* The elements of the array A, in order:
 *
 *	for (struct jelems it = jdoc_elems(a); jdoc_elem_next(doc, &it);)
 *		... it.e, element it.i ...
 *
 * An element of an array json-c holds is its tree's; one of an array only
 * in the text is only in the text too, until jdoc_load(). */
struct jelems {
	struct jval a;
	struct jval e;		/* the element */
	size_t i;		/* its index */
	bool started;
	size_t n;		/* how many json-c's array holds */
};

static inline struct jelems jdoc_elems(struct jval a)
{
	return (struct jelems){ .a = a };
}

bool jdoc_elem_next(const struct jdoc *doc, struct jelems *it);

/* The array A has no element. */
bool jdoc_empty(const struct jdoc *doc, struct jval a);

#endif

/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The JSON document (json_doc.h): the text, checked once by json_scan.c,
 * read where the reader asks, and json-c's objects for the values it
 * takes whole.
 *
 * Navigation runs on the text alone, which the scan accepted: skipping a
 * value only has to find its end, and listing an object's members decodes
 * the keys as the scan did, so that keys equal for Go are equal here.
 * json-c parses one value at a time on a tokener of the document's own.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "front/json_doc.h"
#include "front/json_scan.h"

/* The longest key jdoc_member() looks up in json-c's tree: a key that names
 * a field spells each letter in at most 3 bytes (U+212A). */
#define KEY_LEN 64

/* ------------------------------------------------------------ the text */

/* S[I] opens a string; the offset past its closing quote.  memchr() runs
 * to the next quote at once: this is the hot loop of every walk. */
static size_t skip_string(const char *s, size_t n, size_t i)
{
	for (i++; i < n;) {
		const char *q = memchr(s + i, '"', n - i);
		size_t k, bs = 0;
		if (!q)
			return n;
		/* escaped when an odd number of backslashes stand before it */
		for (k = (size_t)(q - s); k > i && s[k - 1] == '\\'; k--)
			bs++;
		i = (size_t)(q - s) + 1;
		if (!(bs & 1))
			return i;
	}
	return n;
}

/* The offset just past the value at S[I]. */
static size_t skip_value(const char *s, size_t n, size_t i)
{
	size_t depth = 0;

	while (i < n) {
		char ch = s[i];
		if (ch == '"') {
			i = skip_string(s, n, i);
		} else if (ch == '{' || ch == '[') {
			depth++;
			i++;
		} else if (ch == '}' || ch == ']') {
			depth--;
			i++;
		} else if (json_ws(ch) || ch == ',' || ch == ':') {
			i++;
		} else {
			/* a number or a literal */
			while (i < n && !json_ws(s[i]) && s[i] != ',' && s[i] != ']' && s[i] != '}')
				i++;
		}
		if (!depth)
			return i;
	}
	return n;
}

/* The first offset from I that is not white space. */
static size_t skip_ws(const char *s, size_t n, size_t i)
{
	while (i < n && json_ws(s[i]))
		i++;
	return i;
}

/* The first element of the array at S[AT]; N when it has none. */
static size_t first_elem(const char *s, size_t n, size_t at)
{
	size_t i = skip_ws(s, n, at + 1);
	return i < n && s[i] != ']' ? i : n;
}

/* The element after the one that ends at END; N when it was the last. */
static size_t elem_after(const char *s, size_t n, size_t end)
{
	size_t i = skip_ws(s, n, end);
	return i < n && s[i] == ',' ? skip_ws(s, n, i + 1) : n;
}

/* The element after the one at AT, whose end is known when it was the
 * value parsed last. */
static size_t next_elem(const struct jdoc *doc, size_t at)
{
	if (at == doc->parsed_at && doc->parsed_end > at)
		return elem_after(doc->text, doc->len, doc->parsed_end);
	return elem_after(doc->text, doc->len, skip_value(doc->text, doc->len, at));
}

/* ------------------------------------------------------------ opening */

int jdoc_open(struct jdoc *doc, const char *text, size_t len, const char *pre, struct jval *root,
	      scmpc_diag *d)
{
	size_t first = 0;
	int r = 0;

	memset(doc, 0, sizeof(*doc));
	doc->d = doc->out = d;
	doc->text = text ? text : "";
	doc->len = len;
	/* Editors on Windows start UTF-8 files with a byte order mark, which
	 * JSON forbids but users cannot see; positions count from past it.
	 * Every leading one goes, so that a caller that took one off first
	 * (as scmp-compile did) gets what the text itself gets. */
	while (doc->len >= 3 && !memcmp(doc->text, "\xef\xbb\xbf", 3)) {
		doc->text += 3;
		doc->len -= 3;
	}
	if (doc->len > INT_MAX - 1)
		return diag_err(d, -E2BIG, NULL, "input of %zu bytes is too large", doc->len);
	/* The one pass over the whole text: json-c reads it in pieces
	 * afterwards, never all of it at once. */
	if ((r = json_precheck(doc->text, doc->len, d)) ||
	    (r = json_scan(doc->text, doc->len, pre, &doc->rep, d)))
		return r;
	while (first < doc->len && json_ws(doc->text[first]))
		first++;
	if (first < doc->len && doc->text[first] == 'n')
		r = diag_err(d, -EINVAL, NULL, "expected a JSON object at the top level, got null");
	else if (first >= doc->len || doc->text[first] != '{')
		r = diag_err(d, -EINVAL, "", "expected a JSON object at the top level, got %s",
			     json_value_kind(doc->text, doc->len, first));
	/* The text checks' warnings come first, yet must leave out a
	 * duplicate the reading refuses: the reading says its part to a diag
	 * of its own, passed on after them. */
	else if (d && !(doc->d = scmpc_diag_new()))
		r = diag_err(d, -ENOMEM, NULL, "out of memory");
	if (r) {
		json_scan_report_free(doc->rep);
		doc->rep = NULL;
		doc->d = d;
		return r;
	}
	*root = jval_at(first);
	return 0;
}

/* Passes on to TO what the reading said in FROM, R its result. */
static int replay(scmpc_diag *from, scmpc_diag *to, int r)
{
	if (from == to)
		return r;
	diag_copy_warnings(to, from, false);
	if (r)
		diag_err(to, r, scmpc_diag_where(from), "%s", scmpc_diag_message(from));
	return r;
}

int jdoc_close(struct jdoc *doc, bool in_pre, int r)
{
	/* an integer json-c could not hold makes what was read meaningless */
	int rt = json_scan_report(doc->rep, in_pre, doc->skip, doc->nskip, doc->out);

	r = rt ? rt : replay(doc->d, doc->out, r);
	jdoc_release(doc, 0);
	free(doc->owned);
	if (doc->tok)
		json_tokener_free(doc->tok);
	free(doc->mem.m);
	free(doc->mem.keys);
	free(doc->skip);
	if (doc->d != doc->out)
		scmpc_diag_free(doc->d);
	memset(doc, 0, sizeof(*doc));
	return r;
}

/* ------------------------------------------------------------ values */

bool jdoc_is(const struct jdoc *doc, struct jval v, enum json_type t)
{
	if (!v.lazy)
		return json_object_is_type(v.j, t);
	return v.at < doc->len && json_value_type(doc->text, doc->len, v.at) == t;
}

const char *jdoc_kind(const struct jdoc *doc, struct jval v)
{
	if (v.lazy)
		return json_value_kind(doc->text, doc->len, v.at);
	return json_type_kind(json_object_get_type(v.j));
}

const char *jdoc_type_name(enum json_type t)
{
	return json_type_kind(t);
}

const char *jdoc_text(const struct jdoc *doc, struct jval v)
{
	return v.at < doc->len ? doc->text + v.at : "";
}

size_t jdoc_text_len(const struct jdoc *doc, struct jval v)
{
	return v.at < doc->len ? skip_value(doc->text, doc->len, v.at) - v.at : 0;
}

/* The value at AT parsed on its own; NULL only without memory, since the
 * text is known to be good and null is never asked for. */
static json_object *parse_at(struct jdoc *doc, size_t at)
{
	size_t end = skip_value(doc->text, doc->len, at);
	json_object *v;

	doc->parsed_at = at;
	doc->parsed_end = end;
	if (!doc->tok) {
		if (!(doc->tok = json_tokener_new_ex(JSON_MAX_DEPTH)))
			return NULL;
		json_tokener_set_flags(doc->tok, JSON_TOKENER_STRICT);
	}
	json_tokener_reset(doc->tok);
	v = json_tokener_parse_ex(doc->tok, doc->text + at, (int)(end - at));
	/* a number needs to see where it ends */
	if (!v && json_tokener_get_error(doc->tok) == json_tokener_continue)
		v = json_tokener_parse_ex(doc->tok, "", 1);
	return v;
}

int jdoc_load(struct jdoc *doc, struct jval *v)
{
	if (!v->lazy)
		return 0;
	v->lazy = false;
	v->j = NULL;
	/* null is NULL, as json-c gives it */
	if (v->at >= doc->len || doc->text[v->at] == 'n')
		return 0;
	if (!array_reserve(&doc->owned, &doc->owncap, doc->nowned, sizeof(*doc->owned), 8) ||
	    !(v->j = parse_at(doc, v->at)))
		return diag_err(doc->d, -ENOMEM, NULL, "out of memory");
	doc->owned[doc->nowned++] = v->j;
	return 0;
}

size_t jdoc_mark(const struct jdoc *doc)
{
	return doc->nowned;
}

void jdoc_release(struct jdoc *doc, size_t mark)
{
	while (doc->nowned > mark)
		json_object_put(doc->owned[--doc->nowned]);
}

/* ------------------------------------------------------------ objects */

/* Sets each member's repeat flag: pair by pair for a small object, by
 * sorting for a large one, as the scan finds duplicates. */
static int mark_repeats(struct jmembers *ms)
{
	struct json_key *k;

	for (size_t j = 0; j < ms->n; j++) {
		ms->m[j].repeat = false;
		for (size_t i = 0; ms->n <= JSON_SMALL_OBJECT && i < j && !ms->m[j].repeat; i++)
			ms->m[j].repeat = ms->m[i].klen == ms->m[j].klen &&
					  !memcmp(jmember_key(ms, i), jmember_key(ms, j), ms->m[j].klen);
	}
	if (ms->n <= JSON_SMALL_OBJECT)
		return 0;
	if (!(k = malloc(ms->n * sizeof(*k))))
		return -ENOMEM;
	for (size_t i = 0; i < ms->n; i++) {
		k[i].len = ms->m[i].klen;
		k[i].pos = i;
		k[i].p = jmember_key(ms, i);
	}
	json_keys_sort(k, ms->n);
	for (size_t i = 1; i < ms->n; i++)
		ms->m[k[i].pos].repeat = k[i].len == k[i - 1].len && !memcmp(k[i].p, k[i - 1].p, k[i].len);
	free(k);
	return 0;
}

/* Lists the members of the object at AT into MS.  Returns 0 or -ENOMEM. */
static int list_members(const struct jdoc *doc, size_t at, struct jmembers *ms)
{
	const char *s = doc->text;
	size_t n = doc->len, i = skip_ws(s, n, at + 1), klen = 0;

	ms->n = 0;
	if (!ms->keys && !(ms->keys = malloc(ms->kcap = 256)))
		return -ENOMEM;
	while (i < n && s[i] == '"') {
		struct jmember *m;
		if (!array_reserve(&ms->m, &ms->cap, ms->n, sizeof(*ms->m), 16))
			return -ENOMEM;
		m = &ms->m[ms->n++];
		m->key_at = i;
		m->koff = klen;
		if (!(i = json_decode_string(s, n, i, &ms->keys, &klen, &ms->kcap)))
			return -ENOMEM;
		m->klen = klen - m->koff;
		/* the ':' */
		m->at = skip_ws(s, n, skip_ws(s, n, i) + 1);
		m->null = m->at < n && s[m->at] == 'n';
		i = skip_ws(s, n, skip_value(s, n, m->at));
		if (i < n && s[i] == ',')
			i = skip_ws(s, n, i + 1);
	}
	return mark_repeats(ms);
}

int jdoc_members(struct jdoc *doc, struct jval o, const char *where, const struct jmembers **out)
{
	int r = list_members(doc, o.at, &doc->mem);

	*out = &doc->mem;
	return r ? diag_err(doc->d, r, where, "out of memory") : 0;
}

bool jdoc_key_is(const struct jmembers *ms, size_t i, const char *name)
{
	return json_fold_eq(jmember_key(ms, i), ms->m[i].klen, name);
}

int jdoc_member(struct jdoc *doc, struct jval o, const struct jmembers *ms, size_t i, bool piecewise,
		struct jval *out)
{
	const struct jmember *m = &ms->m[i];
	char key[KEY_LEN];
	bool anew = !o.j;

	*out = jval_at(m->at);
	if (anew && piecewise && (doc->text[m->at] == '{' || doc->text[m->at] == '['))
		return 0;
	/* json-c keeps, for each key cut at its first NUL, the last value:
	 * this member's, unless a later key cuts to the same */
	for (size_t j = i + 1; j < ms->n && !anew; j++) {
		const char *kj = jmember_key(ms, j);
		const char *nul = memchr(kj, '\0', ms->m[j].klen);
		size_t cut = nul ? (size_t)(nul - kj) : ms->m[j].klen;
		anew = cut == m->klen && !memcmp(kj, jmember_key(ms, i), cut);
	}
	if (anew || m->klen >= KEY_LEN)
		return jdoc_load(doc, out);
	memcpy(key, jmember_key(ms, i), m->klen);
	key[m->klen] = '\0';
	out->lazy = false;
	json_object_object_get_ex(o.j, key, &out->j);
	return 0;
}

int jdoc_unwarn(struct jdoc *doc, size_t key_at)
{
	if (!array_reserve(&doc->skip, &doc->skipcap, doc->nskip, sizeof(*doc->skip), 8))
		return diag_err(doc->d, -ENOMEM, NULL, "out of memory");
	doc->skip[doc->nskip++] = key_at;
	return 0;
}

/* ------------------------------------------------------------ arrays */

bool jdoc_elem_next(const struct jdoc *doc, struct jelems *it)
{
	size_t i = it->started ? it->i + 1 : 0, at;

	/* json-c's array says how many; the text where each one is */
	if (!it->started && !it->a.lazy)
		it->n = json_object_array_length(it->a.j);
	if (!it->a.lazy && i >= it->n)
		return false;
	at = it->started ? next_elem(doc, it->e.at) : first_elem(doc->text, doc->len, it->a.at);
	if (it->a.lazy && at >= doc->len)
		return false;
	it->started = true;
	it->i = i;
	it->e = jval_at(at);
	if (!it->a.lazy) {
		it->e.j = json_object_array_get_idx(it->a.j, i);
		it->e.lazy = false;
	}
	return true;
}

bool jdoc_empty(const struct jdoc *doc, struct jval a)
{
	struct jelems it = jdoc_elems(a);

	return !jdoc_elem_next(doc, &it);
}

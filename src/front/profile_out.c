/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * A recording written as the smallest OCI profile that allows exactly its
 * calls: the recorded ABIs, one list of the calls allowed whatever their
 * arguments, and, with SCMPC_PROFILE_ARGS, one entry per distinct value
 * (or tuple) of the arguments that are flags or enumerations, when a call
 * saw few of them.  Everything else gets the default action.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arch/arch.h"
#include "front/profile_write.h"

/* The arguments worth a condition: each a flag word or an enumeration the
 * kernel switches on, never a pointer, a size or a descriptor.  INT32:
 * the kernel reads an int (or unsigned int), so only the low word is
 * compared (MASKED_EQ with 0xffffffff): a 64-bit caller may leave garbage
 * or a sign extension above it. */
static const struct cond_arg {
	const char *name;
	uint8_t args;		/* bit I: argument I */
	uint8_t int32;		/* bit I: argument I is an int */
	const char *why;
} cond_args[] = {
	{ "ioctl", 0x02, 0x02, "the request names the operation (its argument is a pointer)" },
	{ "socket", 0x07, 0x07, "domain, type and protocol say what the socket is" },
	{ "socketpair", 0x07, 0x07, "domain, type and protocol say what the sockets are" },
	{ "clone", 0x01, 0x00, "the flags say what the child shares, which namespaces it gets" },
	{ "unshare", 0x01, 0x01, "the flags say which namespaces the caller leaves" },
	{ "setns", 0x02, 0x02, "the type says which namespace the caller joins" },
	{ "prctl", 0x01, 0x01, "the option selects the operation" },
	{ "fcntl", 0x02, 0x02, "the command selects the operation" },
	{ "personality", 0x01, 0x01, "the persona changes how the kernel runs the process" },
	{ "madvise", 0x04, 0x04, "the advice selects the operation" },
	{ "mprotect", 0x04, 0x04, "the protection (executable memory among them)" },
	{ "futex", 0x02, 0x02, "the operation" },
	{ "arch_prctl", 0x01, 0x01, "the code selects the operation" },
	{ "seccomp", 0x01, 0x01, "the operation (installing a filter, probing actions)" },
	{ "kill", 0x02, 0x02, "the signal" },
	{ "tkill", 0x02, 0x02, "the signal" },
	{ "tgkill", 0x04, 0x04, "the signal" },
	{ "rt_sigprocmask", 0x01, 0x01, "how the mask changes" },
	{ "setsockopt", 0x06, 0x06, "level and option name select what is set" },
	{ "getsockopt", 0x06, 0x06, "level and option name select what is read" },
	{ "flock", 0x02, 0x02, "the operation" },
};

static const struct cond_arg *cond_arg_of(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(cond_args); i++)
		if (!strcmp(cond_args[i].name, name))
			return &cond_args[i];
	return NULL;
}

/* One call by name, with the tuples of its conditioned arguments seen. */
struct call {
	const char *name;
	const struct cond_arg *ca;
	uint64_t (*tuples)[6];
	size_t ntuples, cap;
	bool too_many;
};

static int cmp_call(const void *a, const void *b)
{
	return strcmp(((const struct call *)a)->name, ((const struct call *)b)->name);
}

static int cmp_tuple(const void *a, const void *b)
{
	return memcmp(a, b, 6 * sizeof(uint64_t));
}

const char *oci_action_name(uint32_t act, uint32_t *data)
{
	*data = act & 0xffffU;
	switch (act & 0xffff0000U) {
	case SCMPC_ACT_KILL_PROCESS: return "SCMP_ACT_KILL_PROCESS";
	case SCMPC_ACT_KILL_THREAD: return "SCMP_ACT_KILL_THREAD";
	case SCMPC_ACT_TRAP: return "SCMP_ACT_TRAP";
	case SCMPC_ACT_ERRNO(0): return "SCMP_ACT_ERRNO";
	case SCMPC_ACT_TRACE(0): return "SCMP_ACT_TRACE";
	case SCMPC_ACT_LOG: return "SCMP_ACT_LOG";
	case SCMPC_ACT_ALLOW: return "SCMP_ACT_ALLOW";
	default: return NULL;
	}
}


/* What rules_text() wrote besides the text. */
struct rules_out {
	bool abis[SCMPC_ARCH_COUNT + 1];	/* the ABIs of the calls written */
	size_t conds, unnamed, rules;
};

/* The "syscalls" entries that allow REC's calls into T, each opened with
 * SEP (",\n" or "") and the first with FIRST_SEP; the list of calls
 * allowed whatever their arguments comes first, left out when empty
 * unless KEEP_EMPTY (a standalone profile always had it). */
static int rules_text(const scmpc_recording *rec, const struct scmpc_profile_opts *opts,
		      struct textbuf *t, bool keep_empty, const char *first_sep,
		      struct rules_out *ro)
{
	size_t maxv = opts->max_values ? opts->max_values : 8;
	struct call *calls = NULL;
	size_t ncalls = 0, capcalls = 0;
	size_t n = scmpc_recording_count(rec);
	int err = 0;
	for (size_t i = 0; i < n && !err; i++) {
		struct seccomp_data sd;
		if ((err = scmpc_recording_get(rec, i, &sd, NULL)) < 0)
			break;
		enum scmpc_arch a = arch_of_call(sd.arch, (uint32_t)sd.nr);
		const struct arch_info *ai = arch_info(a);
		const char *name = ai ? arch_syscall_name(ai, (uint32_t)sd.nr) : NULL;
		if (!name) {
			ro->unnamed++;	/* nr -1, numbers no table names, foreign ABIs */
			continue;
		}
		ro->abis[a] = true;
		struct call *c = NULL;
		for (size_t k = 0; k < ncalls && !c; k++)
			if (calls[k].name == name)
				c = &calls[k];
		if (!c) {
			if (!array_reserve(&calls, &capcalls, ncalls, sizeof(*calls), 64)) {
				err = -ENOMEM;
				break;
			}
			c = &calls[ncalls++];
			*c = (struct call){ .name = name,
					    .ca = (opts->flags & SCMPC_PROFILE_ARGS) ? cond_arg_of(name)
										  : NULL };
		}
		if (!c->ca || c->too_many)
			continue;
		/* the tuple of the conditioned arguments, low words of ints;
		 * on a 32-bit ABI every argument is its low word */
		uint64_t tu[6] = { 0 };
		for (int k = 0; k < 6; k++)
			if (c->ca->args & (1U << k))
				tu[k] = (c->ca->int32 & (1U << k)) || ai->compat32 ? (uint32_t)sd.args[k]
										   : sd.args[k];
		bool seen = false;
		for (size_t k = 0; k < c->ntuples && !seen; k++)
			seen = !memcmp(c->tuples[k], tu, sizeof(tu));
		if (seen)
			continue;
		if (c->ntuples == maxv) {
			c->too_many = true;
			continue;
		}
		if (!array_reserve(&c->tuples, &c->cap, c->ntuples, sizeof(*c->tuples), 4)) {
			err = -ENOMEM;
			break;
		}
		memcpy(c->tuples[c->ntuples++], tu, sizeof(tu));
	}
	if (!err) {
		if (ncalls)	/* calls is NULL when nothing was added */
			qsort(calls, ncalls, sizeof(*calls), cmp_call);
		const char *sep = first_sep;
		size_t plain = 0;
		for (size_t k = 0; k < ncalls; k++)
			plain += !calls[k].ca || calls[k].too_many;
		if (plain || keep_empty) {
			textbuf_put(t, "%s\t\t{\n\t\t\t\"names\": [", sep);
			bool first = true;
			for (size_t k = 0; k < ncalls; k++)
				if (!calls[k].ca || calls[k].too_many) {
					textbuf_put(t, "%s\n\t\t\t\t\"%s\"", first ? "" : ",", calls[k].name);
					first = false;
				}
			textbuf_put(t, "\n\t\t\t],\n\t\t\t\"action\": \"SCMP_ACT_ALLOW\"\n\t\t}");
			ro->rules++;
			sep = ",\n";
		}
		for (size_t k = 0; k < ncalls; k++) {
			struct call *c = &calls[k];
			if (!c->ca || c->too_many)
				continue;
			qsort(c->tuples, c->ntuples, sizeof(*c->tuples), cmp_tuple);
			for (size_t j = 0; j < c->ntuples; j++) {
				textbuf_put(t, "%s\t\t{\n\t\t\t\"names\": [\"%s\"],\n\t\t\t\"action\": "
				    "\"SCMP_ACT_ALLOW\",\n\t\t\t\"args\": [", sep, c->name);
				sep = ",\n";
				ro->rules++;
				bool fa = true;
				for (int a = 0; a < 6; a++) {
					if (!(c->ca->args & (1U << a)))
						continue;
					if (c->ca->int32 & (1U << a))
						textbuf_put(t, "%s\n\t\t\t\t{\"index\": %d, \"value\": 4294967295, "
						    "\"valueTwo\": %" PRIu64 ", \"op\": "
						    "\"SCMP_CMP_MASKED_EQ\"}", fa ? "" : ",", a,
						    c->tuples[j][a]);
					else
						textbuf_put(t, "%s\n\t\t\t\t{\"index\": %d, \"value\": %" PRIu64
						    ", \"op\": \"SCMP_CMP_EQ\"}", fa ? "" : ",", a,
						    c->tuples[j][a]);
					fa = false;
					ro->conds++;
				}
				textbuf_put(t, "\n\t\t\t]\n\t\t}");
			}
		}
		if (t->oom)
			err = -ENOMEM;
	}
	for (size_t k = 0; k < ncalls; k++)
		free(calls[k].tuples);
	free(calls);
	return err;
}

/* The warning for calls no table names, which get the default action. */
static void warn_unnamed(scmpc_diag *d, size_t unnamed)
{
	if (unnamed)
		diag_warn(d, "%zu recorded call%s without a name in scmpc's table (nr -1, a number "
			  "no ABI names) left out: the profile gives them the default action",
			  unnamed, unnamed == 1 ? "" : "s");
}

SCMPC_API int scmpc_recording_profile(const scmpc_recording *rec,
				      const struct scmpc_profile_opts *o, char **out,
				      size_t *len, size_t *nconds, scmpc_diag *d)
{
	struct scmpc_profile_opts opts;
	int err;
	if ((err = OPTS_VALID(o, scmpc_profile_opts, sz, d)) < 0)
		return err;
	OPTS_COPY(opts, o);
	if (opts.flags & ~SCMPC_PROFILE_ARGS)
		return diag_err(d, -EINVAL, NULL, "unknown profile flags %#x", opts.flags);
	if (!rec || !out || !len)
		return diag_err(d, -EINVAL, NULL, "no recording or no output");
	uint32_t def = opts.default_action ? opts.default_action : SCMPC_ACT_ERRNO(1), ddata;
	const char *defname = oci_action_name(def, &ddata);
	if (!defname || def == SCMPC_ACT_ALLOW)
		return diag_err(d, -EINVAL, NULL, "default action %#x: an OCI profile of what was "
				"recorded needs one that stops the rest", def);

	/* the rules first, for the ABIs they name */
	struct textbuf rules = { 0 }, t = { 0 };
	struct rules_out ro = { .rules = 0 };
	err = rules_text(rec, &opts, &rules, true, "", &ro);
	if (!err) {
		textbuf_put(&t, "{\n\t\"defaultAction\": \"%s\",\n", defname);
		if (def != SCMPC_ACT_KILL_PROCESS && def != SCMPC_ACT_KILL_THREAD &&
		    def != SCMPC_ACT_TRAP && def != SCMPC_ACT_LOG)
			textbuf_put(&t, "\t\"defaultErrnoRet\": %" PRIu32 ",\n", ddata);
		textbuf_put(&t, "\t\"architectures\": [");
		bool first = true;
		for (int a = 1; a <= SCMPC_ARCH_COUNT; a++)
			if (ro.abis[a]) {
				textbuf_put(&t, "%s\"%s\"", first ? "" : ", ",
				    arch_info((enum scmpc_arch)a)->scmp_name);
				first = false;
			}
		textbuf_put(&t, "],\n\t\"syscalls\": [\n%s\n\t]\n}\n", rules.s ? rules.s : "");
		if (t.oom)
			err = -ENOMEM;
	}
	free(rules.s);
	if (err < 0) {
		free(t.s);
		return diag_err(d, err, NULL, "out of memory");
	}
	warn_unnamed(d, ro.unnamed);
	*out = t.s;
	*len = t.len;
	if (nconds)
		*nconds = ro.conds;
	return 0;
}

/* ------------------------------------------------- merged into a base */

static size_t skip_ws(const char *s, size_t n, size_t i)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
		i++;
	return i;
}

/* Where the JSON value at S[I] ends; the text was read whole by the
 * profile reader first, so it is valid JSON and this only counts
 * brackets outside strings. */
static size_t skip_value(const char *s, size_t n, size_t i)
{
	int depth = 0;
	for (; i < n; i++) {
		char c = s[i];
		if (c == '"') {
			for (i++; i < n && s[i] != '"'; i++)
				if (s[i] == '\\')
					i++;
			if (!depth)
				return i + 1;
		} else if (c == '[' || c == '{') {
			depth++;
		} else if (c == ']' || c == '}') {
			if (!depth)
				return i;
			if (!--depth)
				return i + 1;
		} else if (!depth && (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
			return i;
		}
	}
	return i;
}

/* Whether the key at S[I] (its opening quote) is WORD as Go's
 * encoding/json matches a field: ASCII case folded. */
static bool key_is(const char *s, size_t n, size_t i, const char *word)
{
	size_t k = strlen(word);
	if (i + k + 2 > n || s[i + k + 1] != '"')
		return false;
	for (size_t j = 0; j < k; j++) {
		char c = s[i + 1 + j];
		if ((c >= 'A' && c <= 'Z' ? c + 32 : c) != word[j])
			return false;
	}
	return true;
}

/* Where the rules go in BASE: BASE[FROM, TO) is replaced by PRE, the
 * rules, POST. */
struct splice {
	size_t from, to;
	const char *pre, *post;
};

/* The place in BASE's top-level "syscalls" array (the last such key: Go
 * keeps the last value) after its last entry, or a new "syscalls" member
 * when there is none or it is null.  -EINVAL when the top level has no
 * defaultAction (an OCI config.json, whose profile is linux.seccomp). */
static int find_splice(const char *s, size_t n, struct splice *sp, scmpc_diag *d)
{
	size_t i = skip_ws(s, n, 0), val = 0, end = 0, last = 0;
	bool found = false, has_default = false, members = false;
	if (i >= n || s[i] != '{')
		return diag_err(d, -EINVAL, NULL, "the base profile is not a JSON object");
	for (i = skip_ws(s, n, i + 1); i < n && s[i] == '"';) {
		size_t key = i, v = skip_ws(s, n, skip_value(s, n, i));
		if (v >= n || s[v] != ':')
			return diag_err(d, -EINVAL, NULL, "the base profile's top level is malformed");
		v = skip_ws(s, n, v + 1);
		size_t e = skip_value(s, n, v);
		members = true;
		last = e;
		if (key_is(s, n, key, "syscalls")) {
			found = true;
			val = v;
			end = e;
		}
		has_default |= key_is(s, n, key, "defaultaction");
		i = skip_ws(s, n, e);
		if (i < n && s[i] == ',')
			i = skip_ws(s, n, i + 1);
	}
	if (i >= n || s[i] != '}')
		return diag_err(d, -EINVAL, NULL, "the base profile's top level is malformed");
	if (!has_default)
		return diag_err(d, -EINVAL, NULL, "the base profile has no defaultAction at its top "
				"level (an OCI config.json? give its linux.seccomp as a file)");
	if (found && s[val] == '[') {
		size_t close = end - 1, tail = close;
		while (tail > val + 1 && strchr(" \t\r\n", s[tail - 1]))
			tail--;
		if (tail == val + 1)
			*sp = (struct splice){ val + 1, close, "\n", "\n\t" };
		else
			*sp = (struct splice){ tail, tail, ",\n", "" };
	} else if (found) {
		/* "syscalls": null */
		*sp = (struct splice){ val, end, "[\n", "\n\t]" };
	} else {
		*sp = (struct splice){ last, last, members ? ",\n\t\"syscalls\": [\n" :
				       "\n\t\"syscalls\": [\n", "\n\t]\n" };
		if (!members)
			sp->from = sp->to = i;
	}
	return 0;
}

/* TEXT read as JO says and compiled; messages into D. */
static int compile_json(const char *text, size_t len, const struct scmpc_json_opts *jo,
			scmpc_prog **out, scmpc_diag *d)
{
	scmpc_policy *p = NULL;
	int err = scmpc_policy_from_json(text, len, jo, &p, d);
	if (err >= 0)
		err = scmpc_compile(p, NULL, out, d);
	scmpc_policy_free(p);
	return err;
}

static bool lets_run(uint32_t act)
{
	return act == SCMPC_ACT_ALLOW || act == SCMPC_ACT_LOG;
}

/* SD's name into BUF (its number when no table names it); false then. */
static bool call_label(const struct seccomp_data *sd, char *buf, size_t len)
{
	const struct arch_info *ai = arch_info(arch_of_call(sd->arch, (uint32_t)sd->nr));
	const char *name = ai ? arch_syscall_name(ai, (uint32_t)sd->nr) : NULL;
	if (name)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "nr %d of AUDIT_ARCH %#x", sd->nr, sd->arch);
	return name != NULL;
}

SCMPC_API int scmpc_recording_merge_profile(const scmpc_recording *rec, const char *base,
					    size_t base_len, const struct scmpc_json_opts *jo,
					    const struct scmpc_profile_opts *o, char **out,
					    size_t *len, struct scmpc_profile_merge_info *info,
					    scmpc_diag *d)
{
	struct scmpc_profile_opts opts;
	struct scmpc_profile_merge_info res = { .sz = sizeof(res) };
	int err;
	if ((err = OPTS_VALID(o, scmpc_profile_opts, sz, d)) < 0)
		return err;
	OPTS_COPY(opts, o);
	if (opts.flags & ~SCMPC_PROFILE_ARGS)
		return diag_err(d, -EINVAL, NULL, "unknown profile flags %#x", opts.flags);
	if (opts.default_action)
		return diag_err(d, -EINVAL, NULL, "a default action with a base profile: the "
				"base's is kept");
	if (!rec || !base || !out || !len)
		return diag_err(d, -EINVAL, NULL, "no recording, no base profile or no output");
	if (info && info->sz < OPTS_END(scmpc_profile_merge_info, sz))
		return diag_err(d, -EINVAL, NULL, "a malformed struct scmpc_profile_merge_info");

	scmpc_prog *before = NULL, *after = NULL;
	scmpc_recording *extra = scmpc_recording_new();
	scmpc_diag *scratch = scmpc_diag_new();
	scmpc_answer *ans = NULL;
	struct textbuf rules = { 0 }, t = { 0 };
	struct rules_out ro = { .rules = 0 };
	struct splice sp = { 0, 0, "", "" };
	char label[96];
	if (!extra || !scratch) {
		err = diag_err(d, -ENOMEM, NULL, "out of memory");
		goto out;
	}
	if ((err = compile_json(base, base_len, jo, &before, d)) < 0 ||
	    (err = find_splice(base, base_len, &sp, d)) < 0)
		goto out;

	/* the recorded calls BASE does not let run, by BASE's own program */
	const struct sock_filter *bi = scmpc_prog_insns(before);
	size_t bl = scmpc_prog_len(before), n = scmpc_recording_count(rec);
	for (size_t i = 0; i < n; i++) {
		struct seccomp_data sd;
		uint64_t count;
		uint32_t ret;
		if ((err = scmpc_recording_get(rec, i, &sd, &count)) < 0 ||
		    (err = scmpc_emulate(bi, bl, &sd, &ret, NULL)) < 0) {
			err = diag_err(d, err, NULL, "the recording's call %zu could not be run", i);
			goto out;
		}
		if (lets_run(ret)) {
			res.allowed++;
			continue;
		}
		res.added++;
		if ((err = scmpc_recording_add(extra, sd.arch, (uint32_t)sd.nr,
					       (const uint64_t *)sd.args, count)) < 0) {
			err = diag_err(d, err, NULL, "out of memory");
			goto out;
		}
	}
	if ((err = rules_text(extra, &opts, &rules, false, sp.pre, &ro)) < 0) {
		err = diag_err(d, err, NULL, "out of memory");
		goto out;
	}
	if (!ro.rules) {
		/* BASE lets every call run already: BASE it is, byte for byte */
		textbuf_put(&t, "%.*s", (int)base_len, base);
	} else {
		textbuf_put(&t, "%.*s%s%s%.*s", (int)sp.from, base, rules.s, sp.post,
		    (int)(base_len - sp.to), base + sp.to);
	}
	if (t.oom) {
		err = diag_err(d, -ENOMEM, NULL, "out of memory");
		goto out;
	}
	res.rules = ro.rules;
	res.nconds = ro.conds;

	/* The result, read as BASE is: it lets every recorded call run ... */
	if ((err = compile_json(t.s, t.len, jo, &after, scratch)) < 0) {
		err = diag_err(d, err, NULL, "the merged profile: %s", scmpc_diag_message(scratch));
		goto out;
	}
	const struct sock_filter *ai = scmpc_prog_insns(after);
	size_t al = scmpc_prog_len(after);
	for (size_t i = 0; i < n; i++) {
		struct seccomp_data sd;
		uint32_t ret;
		/* calls no table names got no rule: warned about below */
		if (scmpc_recording_get(rec, i, &sd, NULL) < 0 ||
		    !call_label(&sd, label, sizeof(label)) ||
		    scmpc_emulate(ai, al, &sd, &ret, NULL) < 0 || lets_run(ret))
			continue;
		err = diag_err(d, -EPERM, NULL, "the merged profile still stops %s (args %#" PRIx64
			       ", %#" PRIx64 ", %#" PRIx64 ", ...) with %#x: a rule of the base "
			       "decides it, which an added ALLOW does not override in this "
			       "reading, or its ABI is not among the base's architectures", label,
			       (uint64_t)sd.args[0], (uint64_t)sd.args[1], (uint64_t)sd.args[2], ret);
		goto out;
	}
	/* ... and decides no call more permissively than BASE: BASE is at
	 * least as restrictive, proven over every input (ERRNO data aside: a
	 * runtime's ENOSYS stub covers the numbers up to the highest named,
	 * so a call added above it turns ENOSYS into the default's errno). */
	struct scmpc_compare_opts co = { .sz = sizeof(co), .flags = SCMPC_COMPARE_IGNORE_DATA };
	if ((err = scmpc_subset(ai, al, bi, bl, &co, &ans, d)) < 0)
		goto out;
	for (size_t i = 0; i < scmpc_answer_count(ans); i++) {
		struct scmpc_region r = { .sz = sizeof(r) };
		if (scmpc_answer_region(ans, i, &r) < 0)
			continue;
		if (lets_run(r.action[1])) {
			err = diag_err(d, -EPERM, NULL, "the merged profile stops %s (%s), which the "
				       "base lets run: the added rules change the base's decisions "
				       "in this reading",
				       (call_label(&r.witness, label, sizeof(label)), label),
				       r.args[0] ? r.args : "any arguments");
			goto out;
		}
		res.stricter++;
	}
	if (res.stricter)
		diag_warn(d, "the merged profile decides %zu region%s of calls the base stops more "
			  "strictly than the base (a runtime's ENOSYS stub moved to a number added)",
			  res.stricter, res.stricter == 1 ? "" : "s");
	warn_unnamed(d, ro.unnamed);
	*out = t.s;
	*len = t.len;
	t.s = NULL;
	if (info)
		OUT_FILL(info, res);
out:
	free(t.s);
	free(rules.s);
	scmpc_answer_free(ans);
	scmpc_prog_free(before);
	scmpc_prog_free(after);
	scmpc_recording_free(extra);
	scmpc_diag_free(scratch);
	return err;
}

SCMPC_API unsigned scmpc_profile_cond_args(enum scmpc_arch a, uint32_t nr)
{
	const struct arch_info *ai = arch_info(a);
	const char *name = ai ? arch_syscall_name(ai, nr) : NULL;
	const struct cond_arg *ca = name ? cond_arg_of(name) : NULL;
	return ca ? ca->args : 0;
}

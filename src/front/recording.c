/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * A recording: the system calls a command made (runtime/record.c records
 * them; a trace file may give them too), each once per (AUDIT_ARCH,
 * number, arguments) with how often it came.  Past RECORD_MAX_DISTINCT
 * distinct vectors only the numbers are kept, and the recording says so.
 * profile_out.c writes one as a profile.
 */
#include <stdlib.h>
#include <string.h>
#include "base/base.h"

#define RECORD_MAX_DISTINCT (1U << 20)

struct rec_entry {
	uint32_t arch, nr;
	uint64_t args[6];
	uint64_t count;
	bool used;
};

struct scmpc_recording {
	struct rec_entry *t;	/* open addressing, cap a power of two */
	size_t n, cap;
	bool truncated;		/* argument vectors past the bound were dropped */
	uint64_t calls;
};

SCMPC_API scmpc_recording *scmpc_recording_new(void)
{
	return calloc(1, sizeof(struct scmpc_recording));
}

SCMPC_API void scmpc_recording_free(scmpc_recording *r)
{
	if (!r)
		return;
	free(r->t);
	free(r);
}

static uint64_t entry_hash(uint32_t arch, uint32_t nr, const uint64_t *args)
{
	uint64_t h = ((uint64_t)arch << 32 | nr) * 0x9e3779b97f4a7c15ULL;
	for (int i = 0; i < 6; i++)
		h = (h ^ args[i]) * 0xff51afd7ed558ccdULL;
	return h ^ (h >> 31);
}

/* Double R's hash table and place every entry again; false without memory. */
static bool grow(scmpc_recording *r)
{
	size_t cap = r->cap ? 2 * r->cap : 1024;
	struct rec_entry *t = calloc(cap, sizeof(*t));
	if (!t)
		return false;
	for (size_t i = 0; i < r->cap; i++) {
		if (!r->t[i].used)
			continue;
		size_t j = entry_hash(r->t[i].arch, r->t[i].nr, r->t[i].args) & (cap - 1);
		while (t[j].used)
			j = (j + 1) & (cap - 1);
		t[j] = r->t[i];
	}
	free(r->t);
	r->t = t;
	r->cap = cap;
	return true;
}

SCMPC_API int scmpc_recording_add(scmpc_recording *r, uint32_t arch, uint32_t nr,
				  const uint64_t args[6], uint64_t count)
{
	static const uint64_t zero[6];
	if (!r)
		return -EINVAL;
	if (!args)
		args = zero;
	uint64_t kept[6];
	memcpy(kept, args, sizeof(kept));
	if (r->n >= RECORD_MAX_DISTINCT) {
		/* past the bound: the number only, its arguments as zeros */
		r->truncated = true;
		memset(kept, 0, sizeof(kept));
	}
	if ((r->n + 1) * 2 > r->cap && !grow(r))
		return -ENOMEM;
	size_t j = entry_hash(arch, nr, kept) & (r->cap - 1);
	while (r->t[j].used && (r->t[j].arch != arch || r->t[j].nr != nr ||
				memcmp(r->t[j].args, kept, sizeof(kept))))
		j = (j + 1) & (r->cap - 1);
	if (!r->t[j].used) {
		r->t[j] = (struct rec_entry){ .arch = arch, .nr = nr, .used = true };
		memcpy(r->t[j].args, kept, sizeof(kept));
		r->n++;
	}
	r->t[j].count += count;
	r->calls += count;
	return 0;
}

SCMPC_API size_t scmpc_recording_count(const scmpc_recording *r)
{
	return r ? r->n : 0;
}

SCMPC_API uint64_t scmpc_recording_calls(const scmpc_recording *r)
{
	return r ? r->calls : 0;
}

SCMPC_API bool scmpc_recording_truncated(const scmpc_recording *r)
{
	return r && r->truncated;
}

SCMPC_API int scmpc_recording_get(const scmpc_recording *r, size_t i, struct seccomp_data *sd,
				  uint64_t *count)
{
	if (!r || !sd || i >= r->n)
		return -EINVAL;
	/* the I-th used slot: callers walk 0..count-1 in order */
	for (size_t j = 0, k = 0; j < r->cap; j++) {
		if (!r->t[j].used)
			continue;
		if (k++ < i)
			continue;
		memset(sd, 0, sizeof(*sd));
		sd->arch = r->t[j].arch;
		sd->nr = (int)r->t[j].nr;
		memcpy(sd->args, r->t[j].args, sizeof(sd->args));
		if (count)
			*count = r->t[j].count;
		return 0;
	}
	return -EINVAL;
}


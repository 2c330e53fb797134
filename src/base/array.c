/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Growable arrays: one place for the doubling and its overflow check; and
 * sorted sets of numbers. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"

bool array_reserve(void *arrp, size_t *cap, size_t n, size_t size, size_t first)
{
	void **arr = arrp;
	if (n < *cap)
		return true;
	size_t c = *cap ? *cap * 2 : first;
	if (c < n + 1 || c > SIZE_MAX / size)
		return false;
	void *p = realloc(*arr, c * size);
	if (!p)
		return false;
	*arr = p;
	*cap = c;
	return true;
}

int cmp_uint32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

int cmp_uint64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

size_t sort_unique(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	char *v = base;
	size_t k = 0;

	if (!n)
		return 0;
	qsort(v, n, size, cmp);
	for (size_t i = 1; i < n; i++)
		if (cmp(v + k * size, v + i * size) && ++k != i)
			memcpy(v + k * size, v + i * size, size);
	return k + 1;
}

bool u64set_add(struct u64set *s, uint64_t x)
{
	if (!array_reserve(&s->v, &s->cap, s->n, sizeof(*s->v), 32))
		return false;
	s->v[s->n++] = x;
	return true;
}

void u64set_sort_unique(struct u64set *s)
{
	s->n = sort_unique(s->v, s->n, sizeof(*s->v), cmp_uint64);
}

size_t lower_bound_u32(const void *base, size_t n, size_t size, size_t key_off, uint32_t key)
{
	const unsigned char *b = base;
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint32_t k;
		memcpy(&k, b + mid * size + key_off, sizeof(k));
		if (k < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

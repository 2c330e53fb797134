/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Growable arrays: one place for the doubling and its overflow check. */
#include <stdint.h>
#include <stdlib.h>
#include "internal.h"

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

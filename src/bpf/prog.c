/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The program handle.  Wrapping does not verify: inspecting a broken
 * program from a file must still be possible, so callers run
 * scmpc_verify_insns() themselves when they need a loadable program.
 */
#include <stdlib.h>
#include <string.h>
#include "bpf/bpf.h"

/* On failure *OUT is NULL.  diag_err() lives in diag.c, so the compiler
 * cannot tell that what it returns is negative; without this it takes the
 * callers' `if (r < 0) return r;` as a way to reach *OUT unset. */
static int prog_alloc(size_t len, scmpc_prog **out, scmpc_diag *d)
{
	scmpc_prog *p;

	*out = NULL;
	if (len > SIZE_MAX / sizeof(struct sock_filter))
		return diag_err(d, -EOVERFLOW, NULL, "program of %zu instructions is too large", len);
	p = calloc(1, sizeof(*p));
	if (!p)
		return diag_err(d, -ENOMEM, NULL, "out of memory");
	p->insns = malloc(len * sizeof(struct sock_filter));
	if (!p->insns) {
		free(p);
		return diag_err(d, -ENOMEM, NULL, "out of memory");
	}
	p->len = len;
	*out = p;
	return 0;
}

SCMPC_API int scmpc_prog_new(const struct sock_filter *insns, size_t len, scmpc_prog **out,
			     scmpc_diag *d)
{
	scmpc_prog *p;
	int r;

	if (!out)
		return diag_err(d, -EINVAL, NULL, "no place to store the program");
	*out = NULL;
	if (len == 0)
		return diag_err(d, -EINVAL, NULL, "empty program");
	if (!insns)
		return diag_err(d, -EINVAL, NULL, "no instructions given");
	if ((r = prog_alloc(len, &p, d)) < 0)
		return r;
	memcpy(p->insns, insns, len * sizeof(*insns));
	*out = p;
	return 0;
}

bool host_big_endian(void)
{
	const uint16_t one = 1;
	return *(const uint8_t *)&one == 0;
}

void bpf_swap(struct sock_filter *insns, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		insns[i].code = (uint16_t)((insns[i].code >> 8) | (insns[i].code << 8));
		insns[i].k = __builtin_bswap32(insns[i].k);
	}
}

SCMPC_API int scmpc_prog_from_bytes(const void *buf, size_t size, scmpc_prog **out,
				    scmpc_diag *d)
{
	const size_t insn_size = sizeof(struct sock_filter);
	scmpc_prog *p;
	int r;

	if (!out)
		return diag_err(d, -EINVAL, NULL, "no place to store the program");
	*out = NULL;
	if (size == 0)
		return diag_err(d, -EINVAL, NULL, "empty program (0 bytes)");
	if (!buf)
		return diag_err(d, -EINVAL, NULL, "no data given");
	if (size % insn_size != 0)
		return diag_err(d, -EINVAL, NULL,
				"%zu bytes is not a whole number of %zu-byte instructions "
				"(%zu left over); is this a raw .bpf file?",
				size, insn_size, size % insn_size);
	if ((r = prog_alloc(size / insn_size, &p, d)) < 0)
		return r;
	/* BUF need not be aligned for struct sock_filter; copying bytes is. */
	memcpy(p->insns, buf, size);
	/* A .bpf written for a target of the other byte order: taken swapped
	 * when only the swapped reading is a program the kernel accepts. */
	if (scmpc_verify_insns(p->insns, p->len, NULL) < 0) {
		bpf_swap(p->insns, p->len);
		if (scmpc_verify_insns(p->insns, p->len, NULL) < 0)
			bpf_swap(p->insns, p->len);
		else
			p->swapped = true;
	}
	*out = p;
	return 0;
}

SCMPC_API void scmpc_prog_free(scmpc_prog *prog)
{
	if (!prog)
		return;
	free(prog->insns);
	free(prog);
}

SCMPC_API const struct sock_filter *scmpc_prog_insns(const scmpc_prog *prog)
{
	return prog ? prog->insns : NULL;
}

SCMPC_API size_t scmpc_prog_len(const scmpc_prog *prog)
{
	return prog ? prog->len : 0;
}

SCMPC_API size_t scmpc_prog_ebpf_len(const scmpc_prog *prog)
{
	return prog ? bpf_ebpf_len(prog->insns, prog->len) : 0;
}

SCMPC_API bool scmpc_prog_swapped(const scmpc_prog *prog)
{
	return prog && prog->swapped;
}

SCMPC_API uint64_t scmpc_prog_compile_ns(const scmpc_prog *prog)
{
	return prog ? prog->compile_ns : 0;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Prediction of the kernel's seccomp action cache (Linux 5.11+).  At attach
 * time the kernel runs a tiny constant-folding emulator over the original
 * program for every (arch, nr) and caches the calls whose single path ends
 * in exactly SECCOMP_RET_ALLOW; the cached set of a chain is the
 * intersection over its filters.  The analysis below must give the same
 * answer as the kernel, so it is deliberately no smarter than the kernel:
 * an instruction the kernel gives up on makes the call uncacheable even
 * when a better analysis could prove it harmless.
 */
#include <limits.h>
#include <linux/audit.h>
#include <string.h>
#include "arch/arch.h"
#include "bpf/bpf.h"
#include "bpf/insn.h"

#define DEFAULT_KERNEL SCMPC_KERNEL_VERSION(6, 18, 0)
#define DEFAULT_NR_COUNT 470	/* x86_64 and arm64 tables of Linux 6.18 */

/* The instructions seccomp_is_const_allow() folds: loads of nr and arch,
 * constant jumps, `and #k` and `ret #k`.  On anything else (a load of an
 * argument or of the IP, which is not constant, included) it gives up.
 * Which instructions, not what they mean: that is insn_step()'s. */
static bool kernel_folds(const struct sock_filter *f)
{
	switch (f->code) {
	case BPF_LD | BPF_W | BPF_ABS:
		return f->k == offsetof(struct seccomp_data, nr) ||
		       f->k == offsetof(struct seccomp_data, arch);
	case BPF_RET | BPF_K:
	case BPF_JMP | BPF_JA:
	case BPF_JMP | BPF_JEQ | BPF_K:
	case BPF_JMP | BPF_JGE | BPF_K:
	case BPF_JMP | BPF_JGT | BPF_K:
	case BPF_JMP | BPF_JSET | BPF_K:
	case BPF_ALU | BPF_AND | BPF_K:
		return true;
	default:
		return false;
	}
}

SCMPC_API int scmpc_cache_const_allow(const struct sock_filter *insns, size_t len,
				      uint32_t audit_arch, uint32_t nr, uint32_t *stop_pc)
{
	/* The kernel's emulation is the concrete one on a call whose words
	 * past nr and arch are never read (kernel_folds() stops first). */
	uint32_t words[INSN_NWORDS] = { [0] = nr, [1] = audit_arch };
	struct insn_regs r = { 0 };
	uint64_t pc = 0, next;
	uint32_t ret;
	int res = 0;

	if (!insns || len == 0)
		return -EINVAL;

	/* Jumps are taken in 64-bit arithmetic: on an unverified program a
	 * huge offset must end the walk, not wrap around into a loop. */
	while (pc < len) {
		const struct sock_filter *f = &insns[pc];

		if (!kernel_folds(f))
			goto out;
		switch (insn_step(&r, words, f, (size_t)pc, &next, &ret)) {
		case INSN_NEXT:
			pc = next;
			break;
		case INSN_RET:
			res = ret == SCMPC_ACT_ALLOW;
			goto out;
		default:
			goto out;	/* none of the folded ones is refused */
		}
	}
	/* Ran off the end (the kernel WARNs): only an unverified program can. */
	pc = len;
out:
	if (stop_pc)
		*stop_pc = pc > UINT32_MAX ? UINT32_MAX : (uint32_t)pc;
	return res;
}

/* seccomp_uprobe_exception(): checked before the program, for the native
 * ABI only.  The uretprobe exception was also backported to 6.13.y stable;
 * KERNEL_VERSION cannot tell those kernels apart, so 6.14 is used. */
static bool uprobe_exception(enum scmpc_arch a, unsigned kv, uint32_t nr)
{
	if (a != SCMPC_ARCH_X86_64)
		return false;
	const struct arch_info *ai = arch_info(a);
	if (nr == arch_resolve(ai, "uretprobe"))
		return kv >= SCMPC_KERNEL_VERSION(6, 14, 0);
	if (nr == arch_resolve(ai, "uprobe"))
		return kv >= SCMPC_KERNEL_VERSION(6, 18, 0);
	return false;
}

SCMPC_API int scmpc_cache_bitmap(const struct sock_filter *const *progs, const size_t *lens,
				 size_t nprogs, enum scmpc_arch a,
				 const struct scmpc_cache_opts *o, uint8_t *bits)
{
	struct scmpc_cache_opts opts;
	uint32_t audit;
	int count = 0;

	if (OPTS_VALID(o, scmpc_cache_opts, sz, NULL))
		return -EINVAL;
	OPTS_COPY(opts, o);
	unsigned kv = opts.kernel_version ? opts.kernel_version : DEFAULT_KERNEL;
	uint32_t nr_count = opts.nr_count ? opts.nr_count : DEFAULT_NR_COUNT;

	/* A kernel keeps a bitmap for its native ABI and its compat ABI
	 * (x86_64 and i386, aarch64 and arm, s390x and s390, ...); x32
	 * numbers (bit 30 set) lie beyond every bitmap, and n32 is neither
	 * ABI of a mips64 kernel. */
	const struct arch_info *ai = arch_info(a);
	if (!ai || !ai->cached)
		return -EINVAL;
	audit = ai->audit;
	/* The count is returned as an int. */
	if (!progs || !lens || nprogs == 0 || !bits || nr_count > INT_MAX)
		return -EINVAL;
	for (size_t i = 0; i < nprogs; i++)
		if (!progs[i] || lens[i] == 0)
			return -EINVAL;

	memset(bits, 0, ((size_t)nr_count + 7) / 8);
	/* Before 5.11 there is no cache: every call runs every filter. */
	if (kv < SCMPC_KERNEL_VERSION(5, 11, 0))
		return 0;

	for (uint32_t nr = 0; nr < nr_count; nr++) {
		/* The exception sits inside seccomp_is_const_allow(), so every
		 * filter of the chain keeps the bit. */
		bool cached = uprobe_exception(a, kv, nr);

		if (!cached) {
			/* Intersection: the bit survives only if every filter,
			 * oldest to newest, is const-ALLOW for the call. */
			cached = true;
			for (size_t i = 0; i < nprogs && cached; i++)
				cached = scmpc_cache_const_allow(progs[i], lens[i], audit, nr, NULL) == 1;
		}
		if (cached) {
			bits[nr / 8] |= (uint8_t)(1U << (nr % 8));
			count++;
		}
	}
	return count;
}

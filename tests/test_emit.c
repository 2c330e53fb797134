/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Emission: how a decision DAG becomes a program.  The DAGs are built by
 * hand, and each expected program (its size, and where it matters its
 * instructions) is worked out by hand from the emitter's rules: nodes in
 * reverse postorder with the false branch right after its test, a
 * conditional that cannot reach its target given a copy of it (a return)
 * or a `ja` right after it, and a block only one test enters placed right
 * after that test when that saves a `ja` without adding one elsewhere.
 * Decisions are checked by running the program against plain C written
 * here; the value-set policy is held against libseccomp's own programs.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <linux/audit.h>
#include "bpf/bpf.h"
#include "compiler/dag.h"
#include "compiler/emit.h"
#include "families.h"
#include "lsc_ref.h"
#include "oracle.h"
#include "scmpc.h"

#define RET_KILL SCMPC_ACT_KILL_THREAD
#define RET_ALLOW SCMPC_ACT_ALLOW
#define RET_E1 SCMPC_ACT_ERRNO(1)
#define X32_BIT 0x40000000U
#define NR_OFF offsetof(struct seccomp_data, nr)
#define ARCH_OFF offsetof(struct seccomp_data, arch)

static void emit(const struct dag *g, uint32_t root, struct sock_filter **f, size_t *len)
{
	scmpc_diag *d = scmpc_diag_new();
	assert_non_null(d);
	*f = NULL;
	if (emit_program(g, root, f, len, d) < 0)
		fail_msg("emit: %s", scmpc_diag_message(d));
	assert_int_equal(scmpc_verify_insns(*f, *len, d), 0);
	scmpc_diag_free(d);
}

static uint32_t run(const struct sock_filter *f, size_t len, uint32_t arch, uint32_t nr,
		    unsigned *steps)
{
	struct seccomp_data sd = { .nr = (int)nr, .arch = arch };
	uint32_t ret = 0;
	assert_int_equal(scmpc_emulate(f, len, &sd, &ret, steps), 0);
	return ret;
}

static unsigned count_ja(const struct sock_filter *f, size_t len)
{
	unsigned n = 0;
	for (size_t i = 0; i < len; i++)
		n += f[i].code == (BPF_JMP | BPF_JA);
	return n;
}

/*
 * The shape of a plain x86_64 section: arch test, then numbers from
 * 0x40000000 up go to a cold block (-1 gets the default ERRNO(1), the
 * rest KILL), below that a chain of M `nr ==` tests allowing 3, 6, ...
 * 3M, ERRNO(1) otherwise.  Returns the root.
 */
static uint32_t x86_section(struct dag *g, unsigned m)
{
	uint32_t kill = dag_ret(g, RET_KILL), allow = dag_ret(g, RET_ALLOW);
	uint32_t e1 = dag_ret(g, RET_E1);
	uint32_t chain = e1;
	for (unsigned i = m; i >= 1; i--)
		chain = dag_jmp(g, BPF_JEQ, 3 * i, allow, chain);
	uint32_t cold = dag_jmp(g, BPF_JGE, UINT32_MAX, e1, kill);
	uint32_t nr = dag_ld(g, NR_OFF, dag_jmp(g, BPF_JGE, X32_BIT, cold, chain));
	uint32_t root = dag_ld(g, ARCH_OFF, dag_jmp(g, BPF_JEQ, AUDIT_ARCH_X86_64, nr, kill));
	assert_int_not_equal(root, NODE_NONE);
	return root;
}

static uint32_t x86_want(uint32_t arch, uint32_t nr, unsigned m)
{
	if (arch != AUDIT_ARCH_X86_64)
		return RET_KILL;
	if (nr == UINT32_MAX)
		return RET_E1;
	if (nr >= X32_BIT)
		return RET_KILL;
	return nr >= 3 && nr <= 3 * m && nr % 3 == 0 ? RET_ALLOW : RET_E1;
}

static void check_x86(const struct sock_filter *f, size_t len, unsigned m)
{
	for (uint32_t nr = 0; nr <= 3 * m + 2; nr++)
		assert_int_equal(run(f, len, AUDIT_ARCH_X86_64, nr, NULL),
				 x86_want(AUDIT_ARCH_X86_64, nr, m));
	const uint32_t odd[] = { X32_BIT - 1, X32_BIT, X32_BIT + 3, 0x80000000U, UINT32_MAX - 1,
				 UINT32_MAX };
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++)
		assert_int_equal(run(f, len, AUDIT_ARCH_X86_64, odd[i], NULL),
				 x86_want(AUDIT_ARCH_X86_64, odd[i], m));
	assert_int_equal(run(f, len, AUDIT_ARCH_I386, 3, NULL), RET_KILL);
}

/*
 * Everything within reach: the program is the reverse postorder as it is,
 * the cold block after the chain (its test's false branch falls into the
 * chain), worked out instruction by instruction.
 */
static void test_small_layout(void **state)
{
	(void)state;
	struct dag g;
	dag_init(&g);
	uint32_t root = x86_section(&g, 3);
	struct sock_filter *f;
	size_t len;
	emit(&g, root, &f, &len);
	const struct sock_filter want[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARCH_OFF),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 7),	/* KILL at 9 */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, NR_OFF),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, X32_BIT, 4, 0),		/* cold at 8 */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 3, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 6, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 9, 0, 3),			/* ERRNO at 10 */
		BPF_STMT(BPF_RET | BPF_K, RET_ALLOW),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, UINT32_MAX, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, RET_KILL),
		BPF_STMT(BPF_RET | BPF_K, RET_E1),
	};
	assert_int_equal(len, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < len; i++) {
		assert_int_equal(f[i].code, want[i].code);
		assert_int_equal(f[i].jt, want[i].jt);
		assert_int_equal(f[i].jf, want[i].jf);
		assert_int_equal(f[i].k, want[i].k);
	}
	check_x86(f, len, 3);
	free(f);
	dag_fini(&g);
}

/*
 * 300 tests in the chain put the cold block out of its test's reach.  In
 * reverse postorder it would come last (LD arch, arch test, LD nr, x32
 * test, 300 tests, ALLOW, cold test, KILL, ERRNO: 308), and reaching it
 * would take a `ja` after the x32 test, plus a copy of KILL after the arch
 * test and one of ALLOW 255 tests before the end: 311.  Placed right
 * after its test instead (LD arch, arch test, LD nr, x32 test, cold test,
 * KILL, 300 tests, ERRNO, ALLOW: 308), the arch test reaches that KILL (4
 * ahead); the tests 1-45 reach ALLOW only through a copy placed after
 * test 45, and the cold test ERRNO through a copy right after it: 310, no
 * `ja`.  -1 and the x32 numbers then run 6 instructions, not 7.
 */
static void test_cold_block_follows_its_test(void **state)
{
	(void)state;
	struct dag g;
	dag_init(&g);
	uint32_t root = x86_section(&g, 300);
	struct sock_filter *f;
	size_t len;
	emit(&g, root, &f, &len);
	assert_int_equal(len, 310);
	assert_int_equal(count_ja(f, len), 0);
	/* The cold test right after the x32 test, its KILL shared with the
	 * arch test's. */
	assert_int_equal(f[3].k, X32_BIT);
	assert_int_equal(f[3].jt, 0);
	assert_int_equal(f[4].k, UINT32_MAX);
	assert_int_equal(f[1].jf, 4);
	assert_int_equal(f[6].code, BPF_RET | BPF_K);
	assert_int_equal(f[6].k, RET_KILL);
	unsigned steps;
	assert_int_equal(run(f, len, AUDIT_ARCH_X86_64, UINT32_MAX, &steps), RET_E1);
	assert_int_equal(steps, 6);
	assert_int_equal(run(f, len, AUDIT_ARCH_X86_64, X32_BIT, &steps), RET_KILL);
	assert_int_equal(steps, 6);
	/* The chain's path is what it was: 4 + 300 tests + the return. */
	assert_int_equal(run(f, len, AUDIT_ARCH_X86_64, 1, &steps), RET_E1);
	assert_int_equal(steps, 305);
	check_x86(f, len, 300);
	free(f);
	dag_fini(&g);
}

/*
 * A test whose two branches are both long chains (300 `nr ==` tests each,
 * with returns of their own): whichever follows it, the other takes a
 * `ja`.  The true branch placed next would move the `ja` to the false
 * branch, the same size, but a path through that edge would get longer,
 * so the reverse postorder stays: LD nr, the test, a `ja` to the true
 * chain right after it (the true branch's trampoline), the false chain
 * (300 tests, a copy of its jump target after test 45, its two returns),
 * the true chain (the same): 609 instructions.
 */
static void test_no_path_grows(void **state)
{
	(void)state;
	struct dag g;
	dag_init(&g);
	uint32_t c1 = dag_ret(&g, RET_E1), c2 = dag_ret(&g, SCMPC_ACT_ERRNO(2));
	for (unsigned i = 300; i >= 1; i--)
		c1 = dag_jmp(&g, BPF_JEQ, 0x10000 + i, dag_ret(&g, RET_ALLOW), c1);
	for (unsigned i = 300; i >= 1; i--)
		c2 = dag_jmp(&g, BPF_JEQ, i, dag_ret(&g, SCMPC_ACT_TRAP), c2);
	uint32_t root = dag_ld(&g, NR_OFF, dag_jmp(&g, BPF_JGE, 0x10000, c1, c2));
	assert_int_not_equal(root, NODE_NONE);
	struct sock_filter *f;
	size_t len;
	emit(&g, root, &f, &len);
	assert_int_equal(len, 609);
	assert_int_equal(f[1].k, 0x10000);
	assert_int_equal(f[1].jt, 0);			/* the `ja` */
	assert_int_equal(f[1].jf, 1);
	assert_int_equal(f[2].code, BPF_JMP | BPF_JA);
	assert_int_equal(f[3].k, 1);			/* the false chain follows */
	assert_int_equal(3 + f[2].k, 306);		/* the true chain's first test */
	assert_int_equal(f[306].k, 0x10001);
	for (uint32_t nr = 0; nr <= 0x10000 + 301; nr += nr == 301 ? 0x10000 - 301 : 1) {
		unsigned steps;
		uint32_t want;
		if (nr >= 0x10000)
			want = nr > 0x10000 && nr <= 0x10000 + 300 ? RET_ALLOW : RET_E1;
		else
			want = nr >= 1 && nr <= 300 ? SCMPC_ACT_TRAP : SCMPC_ACT_ERRNO(2);
		assert_int_equal(run(f, len, AUDIT_ARCH_X86_64, nr, &steps), want);
		assert_true(steps <= 304);
	}
	free(f);
	dag_fini(&g);
}

/*
 * The bench's family: one call allowed for N values of arg0, default
 * ERRNO(1), x86_64 alone.  libseccomp's level 1 tests -1 with the numbers
 * and shares the arch test's KILL with the x32 numbers'; scmpc's cold
 * block for those numbers must not cost more than that, so the program is
 * no larger than level 1's or level 2's and no path longer than level 2's.
 * Decisions: the rules' conditions by the oracle, the rest (x32 numbers,
 * -1, other calls, other ABIs) as libseccomp decides them.
 */
static unsigned worst_steps(const struct sock_filter *f, size_t len,
			    const struct seccomp_data *sd, size_t n, uint32_t *rets)
{
	unsigned worst = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned steps;
		assert_int_equal(scmpc_emulate(f, len, &sd[i], &rets[i], &steps), 0);
		worst = steps > worst ? steps : worst;
	}
	return worst;
}

static struct seccomp_data probe(uint32_t arch, uint32_t nr, uint64_t a0)
{
	return (struct seccomp_data){ .nr = (int)nr, .arch = arch, .args = { a0 } };
}

/* POLICY compiled by scmpc and by the system's libseccomp at both levels;
 * instructions and predicted eBPF of each (L[0] scmpc, L[1] and L[2]
 * libseccomp's levels), and the worst path over x86_64's numbers
 * 0..1023, whose decisions need no argument here. */
struct sizes {
	size_t len[3], ebpf[3];
	unsigned worst[3];
	size_t smallest;	/* scmpc's SCMPC_COMPILE_SMALLEST program */
};

static struct sizes three_sizes(scmpc_policy *p, const char *what)
{
	struct sizes z;
	struct sock_filter *f[3];
	scmpc_diag *d = scmpc_diag_new();
	struct scmpc_compile_opts o = { .sz = sizeof(o) };
	scmpc_prog *prog = NULL;
	char err[256];
	assert_non_null(p);
	if (scmpc_compile(p, &o, &prog, d) < 0)
		fail_msg("%s: compile: %s", what, scmpc_diag_message(d));
	z.len[0] = scmpc_prog_len(prog);
	f[0] = malloc(z.len[0] * sizeof(*f[0]));
	assert_non_null(f[0]);
	memcpy(f[0], scmpc_prog_insns(prog), z.len[0] * sizeof(*f[0]));
	scmpc_prog_free(prog);
	prog = NULL;
	o.flags = SCMPC_COMPILE_SMALLEST;
	if (scmpc_compile(p, &o, &prog, d) < 0)
		fail_msg("%s: compile for size: %s", what, scmpc_diag_message(d));
	z.smallest = scmpc_prog_len(prog);
	for (int level = 1; level <= 2; level++)
		if (lsc_compile(p, level, &f[level], &z.len[level], err, sizeof(err)) < 0)
			fail_msg("%s: libseccomp level %d: %s", what, level, err);
	struct seccomp_data *sd = calloc(1024, sizeof(*sd));
	uint32_t *rets = calloc(1024, sizeof(*rets));
	assert_true(sd && rets);
	for (uint32_t nr = 0; nr < 1024; nr++)
		sd[nr] = probe(AUDIT_ARCH_X86_64, nr, 0);
	for (int k = 0; k < 3; k++) {
		z.ebpf[k] = bpf_ebpf_len(f[k], z.len[k]);
		z.worst[k] = worst_steps(f[k], z.len[k], sd, 1024, rets);
		free(f[k]);
	}
	print_message("%s: scmpc %zu (%zu eBPF, worst %u), libseccomp L1 %zu (%zu, %u), "
		      "L2 %zu (%zu, %u)\n", what, z.len[0], z.ebpf[0], z.worst[0], z.len[1],
		      z.ebpf[1], z.worst[1], z.len[2], z.ebpf[2], z.worst[2]);
	free(sd);
	free(rets);
	scmpc_prog_free(prog);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
	return z;
}

/* Issue #26: a scattered allowlist of argument-free calls is no larger
 * than libseccomp's programs of it, where the path-first tree took up to
 * a third more (64 calls: 80 instructions against 60); its worst path is
 * then at most the linear chain's (level 1), whose size it keeps. */
static void test_scattered_within_libseccomp(void **state)
{
	(void)state;
	const unsigned sizes[] = { 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64 };
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		char what[64];
		snprintf(what, sizeof(what), "scattered allowlist of %u", sizes[i]);
		struct sizes z = three_sizes(family_scattered(sizes[i]), what);
		assert_true(z.len[0] <= z.len[1] && z.len[0] <= z.len[2]);
		assert_true(z.worst[0] <= z.worst[1]);
		/* Asked for the smallest program, never a larger one. */
		assert_true(z.smallest <= z.len[0]);
		/* Smaller, it is no larger in eBPF either (target A); as large
		 * as the chain, a tree's split can cost one `ja` more (48
		 * calls: 57 eBPF against 56). */
		if (z.len[0] < z.len[1] && z.len[0] < z.len[2])
			assert_true(z.ebpf[0] <= z.ebpf[1] && z.ebpf[0] <= z.ebpf[2]);
	}
}

/* Issue #26: where scmpc's program is smaller, its eBPF is no larger
 * than libseccomp's either: sets of 64-bit values (a tree's leaves jump
 * on both sides, a `ja` each in the kernel's conversion; 114 eBPF against
 * 103 before) and Firecracker's vCPU filters (102, 100 and 93 against
 * 100, 90 and 86). */
static void test_ebpf_within_libseccomp(void **state)
{
	(void)state;
	struct {
		const char *what;
		scmpc_policy *p;
	} cases[] = {
		{ "3 calls x 19 64-bit values", family_wide_sets(false) },
		{ "the same, values of their own", family_wide_sets(true) },
		{ "Firecracker vcpu", family_firecracker(2, 0, false) },
		{ "Firecracker vcpu v1", family_firecracker(2, 1, false) },
		{ "Firecracker vcpu v2", family_firecracker(2, 2, false) },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sizes z = three_sizes(cases[i].p, cases[i].what);
		assert_true(z.len[0] <= z.len[1] && z.len[0] <= z.len[2]);
		assert_true(z.ebpf[0] <= z.ebpf[1] && z.ebpf[0] <= z.ebpf[2]);
	}
}

/* slirp4netns's denylist (default ALLOW, 30 calls KILL_PROCESS on x86_64,
 * x32 and i386, as its filter lists them): the path-first tree of many
 * short jeq chains, each ending in a test that jumps on both sides, was
 * smaller than libseccomp's program but larger in eBPF (slirp4netns's own
 * filter through the compatible library: 96 and 139 against 98 and 106).
 * Here the number trees counted as the converter counts them are 2 eBPF
 * smaller than those with the fewest tests, which only tie. */
static void test_denylist_ebpf_within_libseccomp(void **state)
{
	(void)state;
	static const char *const names[] = {
		"execve", "ptrace", "pivot_root", "prctl", "chroot", "mount", "umount2",
		"reboot", "init_module", "delete_module", "lookup_dcookie", "kexec_load",
		"unshare", "name_to_handle_at", "open_by_handle_at", "setns",
		"process_vm_readv", "process_vm_writev", "finit_module", "kexec_file_load",
		"execveat", "pidfd_send_signal", "open_tree", "move_mount", "fsopen",
		"fsconfig", "fsmount", "fspick", "pidfd_open", "pidfd_getfd",
	};
	scmpc_policy *p = scmpc_policy_new(RET_ALLOW);
	assert_non_null(p);
	const enum scmpc_arch abis[] = { SCMPC_ARCH_X86_64, SCMPC_ARCH_X32, SCMPC_ARCH_I386 };
	for (size_t a = 0; a < 3; a++)
		assert_int_equal(scmpc_policy_add_arch(p, abis[a], NULL), 0);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct scmpc_rule r = { .sz = sizeof(r), .syscall = names[i],
					.action = SCMPC_ACT_KILL_PROCESS };
		assert_true(scmpc_policy_add_rule(p, &r, NULL) >= 0);
	}
	struct sizes z = three_sizes(p, "slirp4netns-like denylist");
	assert_true(z.len[0] <= z.len[1] && z.len[0] <= z.len[2]);
	assert_true(z.ebpf[0] <= z.ebpf[1] && z.ebpf[0] <= z.ebpf[2]);
}

static void test_value_set_within_libseccomp(void **state)
{
	(void)state;
	const unsigned sizes[] = { 300, 2000 };
	const uint32_t ioctl_nr = 16;
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		unsigned n = sizes[s];
		scmpc_diag *d = scmpc_diag_new();
		scmpc_policy *p = scmpc_policy_new(RET_E1);
		assert_int_equal(scmpc_policy_add_arch(p, SCMPC_ARCH_X86_64, d), 0);
		struct scmpc_cond *cs = calloc(n, sizeof(*cs));
		assert_non_null(cs);
		for (unsigned i = 0; i < n; i++) {
			cs[i] = (struct scmpc_cond){ .arg = 0, .op = SCMPC_OP_EQ,
						     .value = 3 + 3ULL * i };
			struct scmpc_rule r = { .sz = sizeof(r), .syscall = "ioctl",
						.action = RET_ALLOW, .conds = &cs[i], .nconds = 1 };
			assert_true(scmpc_policy_add_rule(p, &r, d) >= 0);
		}
		struct scmpc_compile_opts o = { .sz = sizeof(o) };
		scmpc_prog *prog = NULL;
		if (scmpc_compile(p, &o, &prog, d) < 0)
			fail_msg("compile: %s", scmpc_diag_message(d));
		struct sock_filter *lsc[2];
		size_t lsc_len[2];
		char err[256];
		for (int level = 1; level <= 2; level++)
			if (lsc_compile(p, level, &lsc[level - 1], &lsc_len[level - 1], err,
					sizeof(err)) < 0)
				fail_msg("libseccomp level %d: %s", level, err);

		size_t np = 0, cap = 3 * n + 64;
		struct seccomp_data *sd = calloc(cap, sizeof(*sd));
		uint32_t *ours = calloc(cap, sizeof(*ours)), *ref = calloc(cap, sizeof(*ref));
		assert_true(sd && ours && ref);
		for (uint64_t x = 0; x <= 3ULL * n + 4; x++)
			sd[np++] = probe(AUDIT_ARCH_X86_64, ioctl_nr, x);
		const uint64_t wide[] = { 3 | 1ULL << 32, 6ULL << 32, UINT64_MAX };
		for (size_t i = 0; i < 3; i++)
			sd[np++] = probe(AUDIT_ARCH_X86_64, ioctl_nr, wide[i]);
		const uint32_t nrs[] = { 0, 15, 17, 335, X32_BIT - 1, X32_BIT, X32_BIT + 16,
					 0x80000000U, UINT32_MAX - 1, UINT32_MAX };
		for (size_t i = 0; i < sizeof(nrs) / sizeof(nrs[0]); i++)
			sd[np++] = probe(AUDIT_ARCH_X86_64, nrs[i], 3);
		sd[np++] = probe(AUDIT_ARCH_I386, ioctl_nr, 3);

		const struct sock_filter *f = scmpc_prog_insns(prog);
		size_t len = scmpc_prog_len(prog);
		unsigned w = worst_steps(f, len, sd, np, ours);
		worst_steps(lsc[0], lsc_len[0], sd, np, ref);
		for (size_t i = 0; i < np; i++) {
			uint32_t want = ref[i];
			if (sd[i].nr == (int)ioctl_nr && sd[i].arch == AUDIT_ARCH_X86_64) {
				bool any = false;
				for (unsigned k = 0; k < n; k++)
					any |= oracle_cond(&cs[k], sd[i].args[0], false);
				want = any ? RET_ALLOW : RET_E1;
			}
			if (ours[i] != want)
				fail_msg("%u values, probe %zu (nr %#x, arg0 %#llx): %#x, want %#x",
					 n, i, (unsigned)sd[i].nr,
					 (unsigned long long)sd[i].args[0], ours[i], want);
		}
		unsigned w2 = worst_steps(lsc[1], lsc_len[1], sd, np, ref);
		print_message("%u values: scmpc %zu instructions, worst path %u; "
			      "libseccomp L1 %zu, L2 %zu (worst path %u)\n",
			      n, len, w, lsc_len[0], lsc_len[1], w2);
		assert_true(len <= lsc_len[0]);
		assert_true(len <= lsc_len[1]);
		assert_true(w <= w2);
		free(sd);
		free(ours);
		free(ref);
		free(lsc[0]);
		free(lsc[1]);
		free(cs);
		scmpc_prog_free(prog);
		scmpc_policy_free(p);
		scmpc_diag_free(d);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_layout),
		cmocka_unit_test(test_cold_block_follows_its_test),
		cmocka_unit_test(test_no_path_grows),
		cmocka_unit_test(test_value_set_within_libseccomp),
		cmocka_unit_test(test_scattered_within_libseccomp),
		cmocka_unit_test(test_ebpf_within_libseccomp),
		cmocka_unit_test(test_denylist_ebpf_within_libseccomp),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Arbitrary bytes as a .bpf file.  What must hold:
 *  - scmpc_prog_from_bytes() takes whole instructions and refuses anything
 *    else with a message;
 *  - scmpc_verify_insns() either accepts or names a reason (and an
 *    instruction inside the program);
 *  - an accepted program runs to a return in scmpc_emulate() on every
 *    input, in at most one step per instruction (jumps only go forward),
 *    and returns what an independent interpreter below returns, even when
 *    the scratch memory starts as garbage (the verifier must have made sure
 *    nothing reads a slot before writing it);
 *  - a call the cache analysis calls constant-ALLOW is allowed whatever its
 *    arguments and instruction pointer;
 *  - the emulator, the cache analysis and all export formats cope with
 *    rejected programs too, since `inspect` shows broken files;
 *  - where this kernel can be asked (x86_64 or aarch64, seccomp usable, not
 *    turned off with SCMPC_FUZZ_KERNEL=0): the kernel loads exactly the
 *    programs scmpc_verify_insns() accepts, and a loaded program does to
 *    harmless calls (getppid, getpid, getuid, getgid with chosen arguments)
 *    what scmpc_emulate() predicts.
 */
#include <linux/audit.h>
#include <stddef.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "fuzz_common.h"

#define MAX_CONSTS 12

/* The kernel's classic semantics for the seccomp subset, written apart from
 * src/bpf/emulate.c.  MEM starts as POISON, where the kernel has stack garbage.
 * Returns false when the program does something no accepted program may. */
static bool ref_run(const struct sock_filter *f, size_t len, const struct seccomp_data *sd,
		    uint32_t poison, uint32_t *ret)
{
	uint32_t a = 0, x = 0, mem[BPF_MEMWORDS];
	const unsigned char *raw = (const unsigned char *)sd;

	for (size_t i = 0; i < BPF_MEMWORDS; i++)
		mem[i] = poison;
	for (size_t pc = 0; pc < len; pc++) {
		const struct sock_filter *in = &f[pc];
		uint32_t k = in->k, src = BPF_SRC(in->code) == BPF_X ? x : k;

		switch (BPF_CLASS(in->code)) {
		case BPF_LD:
		case BPF_LDX: {
			uint32_t v;

			switch (in->code) {
			case BPF_LD | BPF_W | BPF_ABS:
				if (k > sizeof(*sd) - 4 || k % 4)
					return false;
				/* SD is this host's (little-endian) layout; a
				 * big-endian ABI's kernel has each 64-bit field's
				 * high half first.  AUDIT_ARCH says which. */
				if (k >= offsetof(struct seccomp_data, instruction_pointer) &&
				    !(sd->arch & __AUDIT_ARCH_LE))
					k ^= 4;
				memcpy(&v, raw + k, 4);
				break;
			case BPF_LD | BPF_W | BPF_LEN:
			case BPF_LDX | BPF_W | BPF_LEN:
				v = sizeof(*sd);
				break;
			case BPF_LD | BPF_IMM:
			case BPF_LDX | BPF_IMM:
				v = k;
				break;
			case BPF_LD | BPF_MEM:
			case BPF_LDX | BPF_MEM:
				if (k >= BPF_MEMWORDS)
					return false;
				v = mem[k];
				break;
			default:
				return false;
			}
			if (BPF_CLASS(in->code) == BPF_LD)
				a = v;
			else
				x = v;
			break;
		}
		case BPF_ST:
		case BPF_STX:
			if (in->code != BPF_ST && in->code != BPF_STX)
				return false;
			if (k >= BPF_MEMWORDS)
				return false;
			mem[k] = in->code == BPF_ST ? a : x;
			break;
		case BPF_ALU:
			switch (BPF_OP(in->code)) {
			case BPF_ADD: a += src; break;
			case BPF_SUB: a -= src; break;
			case BPF_MUL: a *= src; break;
			case BPF_OR: a |= src; break;
			case BPF_AND: a &= src; break;
			case BPF_XOR: a ^= src; break;
			case BPF_NEG:
				if (in->code != (BPF_ALU | BPF_NEG))
					return false;
				a = 0U - a;
				break;
			case BPF_DIV:
				if (src == 0) {
					if (BPF_SRC(in->code) == BPF_K)
						return false;
					*ret = 0;	/* the converter's guard */
					return true;
				}
				a /= src;
				break;
			case BPF_LSH:
			case BPF_RSH:
				if (BPF_SRC(in->code) == BPF_K && k >= 32)
					return false;
				src &= 31;
				a = BPF_OP(in->code) == BPF_LSH ? a << src : a >> src;
				break;
			default:
				return false;
			}
			break;
		case BPF_JMP: {
			bool t;

			switch (BPF_OP(in->code)) {
			case BPF_JA:
				if (in->code != (BPF_JMP | BPF_JA) || k >= len - pc - 1)
					return false;
				pc += k;
				continue;
			case BPF_JEQ: t = a == src; break;
			case BPF_JGT: t = a > src; break;
			case BPF_JGE: t = a >= src; break;
			case BPF_JSET: t = (a & src) != 0; break;
			default: return false;
			}
			pc += t ? in->jt : in->jf;
			if (pc + 1 >= len)
				return false;
			break;
		}
		case BPF_RET:
			if (in->code == (BPF_RET | BPF_K))
				*ret = k;
			else if (in->code == (BPF_RET | BPF_A))
				*ret = a;
			else
				return false;
			return true;
		case BPF_MISC:
			if (in->code == (BPF_MISC | BPF_TAX))
				x = a;
			else if (in->code == (BPF_MISC | BPF_TXA))
				a = x;
			else
				return false;
			break;
		}
	}
	return false;
}

/* Constants the program compares against: inputs that take its branches. */
static size_t program_consts(const struct sock_filter *f, size_t len, uint32_t *out)
{
	size_t n = 0;

	for (size_t i = 0; i < len && n < MAX_CONSTS; i++)
		if (BPF_CLASS(f[i].code) == BPF_JMP && BPF_OP(f[i].code) != BPF_JA)
			out[n++] = f[i].k;
	return n;
}

static const uint32_t audits[] = { AUDIT_ARCH_X86_64, AUDIT_ARCH_I386, AUDIT_ARCH_AARCH64,
				   AUDIT_ARCH_ARM, 0, 0xffffffffU };

static void kernel_check(const struct sock_filter *f, size_t len, bool verified,
			 const uint32_t *consts, size_t nc);

static void check_accepted(const struct sock_filter *f, size_t len)
{
	uint32_t consts[MAX_CONSTS];
	size_t nc = program_consts(f, len, consts);
	static const uint64_t ones[6] = { UINT64_MAX, UINT64_MAX, UINT64_MAX,
					  UINT64_MAX, UINT64_MAX, UINT64_MAX };

	/* Every (arch, nr) pair from the fixed set and the program's own
	 * constants, each with several argument vectors. */
	for (size_t ai = 0; ai < sizeof(audits) / sizeof(audits[0]) + nc; ai++) {
		uint32_t audit = ai < sizeof(audits) / sizeof(audits[0])
					 ? audits[ai] : consts[ai - sizeof(audits) / sizeof(audits[0])];

		for (size_t ni = 0; ni < 4 + nc; ni++) {
			static const uint32_t nrs[4] = { 0, 59, 0x40000000U, 0xffffffffU };
			uint32_t nr = ni < 4 ? nrs[ni] : consts[ni - 4];
			uint64_t var[6];

			for (int i = 0; i < 6; i++)
				var[i] = nc ? (uint64_t)consts[(ni + (size_t)i) % nc] << (i & 1 ? 32 : 0) |
						      consts[(ai + (size_t)i) % nc]
					    : (uint64_t)i;
			const uint64_t *argv[3] = { NULL, ones, var };
			for (int v = 0; v < 3; v++) {
				struct seccomp_data sd = fuzz_sd(audit, nr, argv[v], 0x7ffdeadbeef0ULL);
				uint32_t got = 0, want = 0, want_p = 0;
				unsigned steps = 0;
				int rc = scmpc_emulate(f, len, &sd, &got, &steps);

				if (rc != 0)
					fuzz_bug("scmpc_emulate failed (%d) on a verified program", rc);
				if (steps == 0 || steps > len)
					fuzz_bug("scmpc_emulate took %u steps in a %zu-insn program", steps,
						 len);
				if (!ref_run(f, len, &sd, 0, &want) ||
				    !ref_run(f, len, &sd, 0xa5a5a5a5U, &want_p))
					fuzz_bug("verified program faults in the reference interpreter");
				if (want != want_p)
					fuzz_bug("verified program reads uninitialised scratch memory "
						 "(arch 0x%x nr 0x%x: 0x%x vs 0x%x)", audit, nr, want, want_p);
				if (got != want)
					fuzz_bug("scmpc_emulate returned 0x%x, reference 0x%x (arch 0x%x nr "
						 "0x%x)", got, want, audit, nr);
			}
		}
	}

	/* A constant-ALLOW call never depends on its arguments. */
	for (size_t ai = 0; ai < 4; ai++) {
		for (size_t ni = 0; ni < 8 + nc; ni++) {
			uint32_t nr = ni < 8 ? (uint32_t)ni : consts[ni - 8];
			uint32_t stop = 0, got = 0;

			if (scmpc_cache_const_allow(f, len, audits[ai], nr, &stop) != 1)
				continue;
			if (stop >= len || f[stop].code != (BPF_RET | BPF_K))
				fuzz_bug("const-ALLOW stopped at insn %u, not at a return", stop);
			for (int v = 0; v < 2; v++) {
				uint64_t args[6];

				for (int i = 0; i < 6; i++)
					args[i] = v ? UINT64_MAX - (uint64_t)i : (uint64_t)nr << 32 | (uint64_t)i;
				struct seccomp_data sd = fuzz_sd(audits[ai], nr, args, v ? 0 : UINT64_MAX);
				if (scmpc_emulate(f, len, &sd, &got, NULL) != 0 || got != SCMPC_ACT_ALLOW)
					fuzz_bug("cache says arch 0x%x nr %u is constant ALLOW, but the "
						 "program returns 0x%x", audits[ai], nr, got);
			}
		}
	}

	static const enum scmpc_arch cache_arches[] = { SCMPC_ARCH_X86_64, SCMPC_ARCH_I386,
							SCMPC_ARCH_AARCH64, SCMPC_ARCH_ARM };
	for (size_t i = 0; i < sizeof(cache_arches) / sizeof(cache_arches[0]); i++) {
		const struct sock_filter *progs[1] = { f };
		size_t lens[1] = { len };
		uint8_t bits[(470 + 7) / 8];
		int set = 0;
		int n = scmpc_cache_bitmap(progs, lens, 1, cache_arches[i], NULL, bits);

		if (n < 0)
			fuzz_bug("scmpc_cache_bitmap failed (%d) on a verified program", n);
		for (size_t b = 0; b < sizeof(bits) * 8; b++)
			set += (bits[b / 8] >> (b % 8)) & 1;
		if (set != n)
			fuzz_bug("scmpc_cache_bitmap counts %d but sets %d bits", n, set);
	}
	fuzz_check_formats(f, len, SCMPC_ARCH_X86_64);
	kernel_check(f, len, true, consts, nc);
}

/* ------------------------------------------------------- kernel oracle */

#define KCALLS 4

/* Filled by the child, which can make no syscall it has not just filtered:
 * plain stores into a shared page are all it needs.  The request (program
 * and arguments) travels the same way. */
struct kshared {
	uint32_t len;
	struct sock_filter insns[BPF_MAXINSNS];
	uint64_t args[KCALLS][6];
	volatile int loaded;		/* seccomp(2)'s result: 0 or an errno */
	volatile int done;		/* calls made so far */
	volatile int current;		/* the call being made */
	volatile int trapped[KCALLS];	/* SIGSYS seen during call I */
	volatile long ret[KCALLS];
	volatile int err[KCALLS];
	volatile int finished;
};

static struct kshared *kshm;
static int to_server = -1, from_server = -1;

/* Returning would need rt_sigreturn, which the filter may refuse: the
 * child ends here, and the calls after a TRAP go unchecked.  Code that runs
 * under the filter is not sanitized: ASan's no-return hook before the trap
 * makes syscalls (sigaltstack) that the filter may refuse. */
#define UNSANITIZED __attribute__((no_sanitize("address", "undefined")))

UNSANITIZED static void on_sigsys(int sig)
{
	(void)sig;
	kshm->trapped[kshm->current] = 1;
	__builtin_trap();
}

/* The kernel's struct sigaction (x86_64 and arm64 alike). */
struct ksigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask;
};

/* Default disposition through the raw syscall: ASan's interceptors keep
 * its own SIGSEGV handler in place, and that handler makes syscalls the
 * filter refuses. */
static bool default_action(int sig)
{
	struct ksigaction ksa = { SIG_DFL, 0, NULL, 0 };

	return syscall(SYS_rt_sigaction, sig, &ksa, NULL, sizeof(ksa.mask)) == 0;
}

static const long kcall_nr[KCALLS] = { SYS_getppid, SYS_getpid, SYS_getuid, SYS_getgid };

UNSANITIZED static void kernel_child(void)
{
	struct sock_fprog prog = { .len = (unsigned short)kshm->len, .filter = kshm->insns };
	struct rlimit no_core = { 0, 0 };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigsys;
	/* A killed child must not leave a core file behind, and a fault must
	 * kill it outright: the sanitizers' handlers would make syscalls the
	 * filter refuses. */
	if (setrlimit(RLIMIT_CORE, &no_core) || sigaction(SIGSYS, &sa, NULL))
		_exit(3);
	static const int fatal[] = { SIGILL, SIGSEGV, SIGBUS, SIGFPE, SIGABRT, SIGTRAP };
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		if (!default_action(fatal[i]))
			_exit(3);
	sigset_t none;
	sigemptyset(&none);
	if (sigprocmask(SIG_SETMASK, &none, NULL) || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		_exit(3);
	long r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
	kshm->loaded = r == 0 ? 0 : errno;
	if (r == 0) {
		for (int i = 0; i < KCALLS; i++) {
			const uint64_t *a = kshm->args[i];

			kshm->current = i;
			errno = 0;
			long v = syscall(kcall_nr[i], a[0], a[1], a[2], a[3], a[4], a[5]);
			kshm->ret[i] = v;
			kshm->err[i] = v < 0 ? errno : 0;
			kshm->done = i + 1;
		}
	}
	kshm->finished = 1;
	/* Exiting is a syscall too, and the filter may refuse it; an illegal
	 * instruction ends the process without one. */
	__builtin_trap();
}

/* One byte over a pipe; libFuzzer's timeout alarm interrupts blocking calls. */
static bool xfer(int fd, bool out)
{
	char c = 0;
	ssize_t n;

	do
		n = out ? write(fd, &c, 1) : read(fd, &c, 1);
	while (n < 0 && errno == EINTR);
	return n == 1;
}

/* The fork server: started while the fuzzer is still small, it forks one
 * child per program (forking the grown, sanitized fuzzer itself would cost
 * more than everything else the harness does). */
static void fork_server(int in, int out)
{
	const struct timespec limit = { 2, 0 };
	sigset_t chld;

	/* SIGCHLD is waited for, with a time limit: a child stuck after a
	 * refused rt_sigreturn is killed instead of hanging the fuzzer. */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	while (xfer(in, false)) {
		pid_t pid = fork();
		int status;

		if (pid < 0)
			_exit(4);
		if (pid == 0)
			kernel_child();
		while (waitpid(pid, &status, WNOHANG) == 0)
			if (sigtimedwait(&chld, NULL, &limit) < 0 && errno == EAGAIN)
				kill(pid, SIGKILL);
		if (!xfer(out, true))
			_exit(5);
	}
	_exit(0);
}

static bool kernel_usable(void)
{
	return to_server >= 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *e = getenv("SCMPC_FUZZ_KERNEL");
	enum scmpc_arch n = scmpc_arch_native();
	int req[2], rsp[2];

	(void)argc;
	(void)argv;
	if ((e && !strcmp(e, "0")) || (n != SCMPC_ARCH_X86_64 && n != SCMPC_ARCH_AARCH64))
		return 0;
	kshm = mmap(NULL, sizeof(*kshm), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (kshm == MAP_FAILED || pipe(req) || pipe(rsp))
		return 0;
	pid_t pid = fork();
	if (pid < 0)
		return 0;
	if (pid == 0) {
		close(req[1]);
		close(rsp[0]);
		/* Gone with the fuzzer, whichever way it ends. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		fork_server(req[0], rsp[1]);
	}
	close(req[0]);
	close(rsp[1]);
	to_server = req[1];
	from_server = rsp[0];
	/* A dead server must end the oracle, not the fuzzer. */
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

/* What a call that the program answers with RET looks like from outside. */
enum kfate { K_RUNS, K_ERRNO, K_ENOSYS, K_TRAP, K_DIES };

static enum kfate kernel_fate(uint32_t ret, int *err)
{
	switch (ret & 0xffff0000U) {
	case SCMPC_ACT_ALLOW:
	case SCMPC_ACT_LOG:
		return K_RUNS;
	case SCMPC_ACT_ERRNO(0):
		/* the kernel caps the data at MAX_ERRNO */
		*err = (int)((ret & 0xffffU) > 4095 ? 4095 : ret & 0xffffU);
		return K_ERRNO;
	case SCMPC_ACT_TRACE(0):
	case SCMPC_ACT_USER_NOTIF:
		return K_ENOSYS;	/* no tracer, no listener */
	case SCMPC_ACT_TRAP:
		return K_TRAP;
	default:
		return K_DIES;		/* KILL_*, and every unknown action */
	}
}

static bool reads_ip(const struct sock_filter *f, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (f[i].code == (BPF_LD | BPF_W | BPF_ABS) && (f[i].k == 8 || f[i].k == 12))
			return true;
	return false;
}

/* VERIFIED is scmpc_verify_insns()'s verdict on the program. */
static void kernel_check(const struct sock_filter *f, size_t len, bool verified,
			 const uint32_t *consts, size_t nc)
{
	uint64_t args[KCALLS][6];

	if (!kernel_usable() || len > BPF_MAXINSNS)
		return;
	for (int c = 0; c < KCALLS; c++)
		for (int i = 0; i < 6; i++)
			args[c][i] = c == 0 || !nc ? 0 : (uint64_t)consts[(size_t)(c + i) % nc] |
					 (c == 3 ? (uint64_t)consts[(size_t)i % nc] << 32 : 0);
	memset((void *)&kshm->loaded, 0,
	       sizeof(*kshm) - offsetof(struct kshared, loaded));
	kshm->loaded = -1;
	kshm->len = (uint32_t)len;
	memcpy(kshm->insns, f, len * sizeof(*f));
	memcpy(kshm->args, args, sizeof(args));
	if (!xfer(to_server, true) || !xfer(from_server, false)) {
		int status = 0;

		/* Said once, so that a run without the oracle is not mistaken
		 * for one with it. */
		waitpid(-1, &status, WNOHANG);
		fprintf(stderr, "scmpc-fuzz: the kernel oracle's fork server is gone (status 0x%x); "
			"going on without it\n", status);
		close(to_server);
		to_server = -1;
		return;
	}
	if (kshm->loaded == -1)
		return;	/* the child could not set itself up */
	if (verified != (kshm->loaded == 0))
		fuzz_bug("scmpc_verify_insns %s a %zu-insn program the kernel %s (errno %d)",
			 verified ? "accepts" : "rejects", len,
			 kshm->loaded == 0 ? "loads" : "refuses", kshm->loaded);
	if (!verified || reads_ip(f, len))
		return;

	uint32_t audit = scmpc_arch_audit(scmpc_arch_native());
	for (int c = 0; c < KCALLS; c++) {
		struct seccomp_data sd = fuzz_sd(audit, (uint32_t)kcall_nr[c], args[c], 0);
		uint32_t ret = 0;
		int err = 0;

		if (scmpc_emulate(f, len, &sd, &ret, NULL) != 0)
			return;	/* reported by check_accepted() */
		enum kfate want = kernel_fate(ret, &err);
		/* After a SIGSYS handler, rt_sigreturn itself meets the filter:
		 * what happens next depends on its fate, so the check ends here. */
		if (want == K_TRAP && kshm->trapped[c])
			return;
		if (c >= kshm->done) {
			/* the first call that did not return must be one that kills */
			if (want != K_DIES)
				fuzz_bug("call %d (nr %ld): emulator says 0x%08x, but the child died", c,
					 kcall_nr[c], ret);
			return;
		}
		bool ok;
		switch (want) {
		case K_RUNS: ok = kshm->ret[c] >= 0 && !kshm->trapped[c]; break;
		case K_ERRNO: ok = err ? kshm->ret[c] == -1 && kshm->err[c] == err : kshm->ret[c] == 0; break;
		case K_ENOSYS: ok = kshm->ret[c] == -1 && kshm->err[c] == ENOSYS; break;
		case K_TRAP: ok = false; break;	/* trapped: returned above */
		default: ok = false; break;
		}
		if (!ok)
			fuzz_bug("call %d (nr %ld): emulator says 0x%08x, the kernel returned %ld errno "
				 "%d%s", c, kcall_nr[c], ret, kshm->ret[c], kshm->err[c],
				 kshm->trapped[c] ? " after SIGSYS" : "");
	}
}

/* Rejected programs are shown by `inspect`: the lenient paths must not
 * crash or read outside the program. */
static void check_rejected(const struct sock_filter *f, size_t len)
{
	static const uint64_t ones[6] = { UINT64_MAX, UINT64_MAX, UINT64_MAX,
					  UINT64_MAX, UINT64_MAX, UINT64_MAX };

	for (size_t ai = 0; ai < 4; ai++) {
		struct seccomp_data sd = fuzz_sd(audits[ai], (uint32_t)ai, ai & 1 ? ones : NULL, 0);
		uint32_t got, stop = 0;
		int rc = scmpc_emulate(f, len, &sd, &got, NULL);

		if (rc != 0 && rc != -EINVAL)
			fuzz_bug("scmpc_emulate returned %d", rc);
		rc = scmpc_cache_const_allow(f, len, audits[ai], (uint32_t)ai, &stop);
		if (rc != 0 && rc != 1)
			fuzz_bug("scmpc_cache_const_allow returned %d", rc);
		if (stop > len)
			fuzz_bug("scmpc_cache_const_allow stopped at %u in a %zu-insn program", stop,
				 len);
	}
	fuzz_check_formats(f, len, SCMPC_ARCH_AARCH64);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	scmpc_diag *d = scmpc_diag_new();
	scmpc_prog *prog = NULL;
	int rc;

	if (!d)
		return 0;
	rc = scmpc_prog_from_bytes(data, size, &prog, d);
	if (rc < 0) {
		fuzz_check_failure("scmpc_prog_from_bytes", rc, d);
		if (size && size % sizeof(struct sock_filter) == 0 && rc != -ENOMEM)
			fuzz_bug("scmpc_prog_from_bytes refused %zu bytes: %s", size,
				 scmpc_diag_message(d));
		if (prog)
			fuzz_bug("scmpc_prog_from_bytes failed but returned a program");
		scmpc_diag_free(d);
		return 0;
	}
	if (!prog || scmpc_prog_len(prog) * sizeof(struct sock_filter) != size)
		fuzz_bug("scmpc_prog_from_bytes changed the program's length");
	/* The bytes as they are, or (a big-endian target's file) each
	 * instruction's code and k in the other byte order, and then only
	 * when that order is the one the kernel would take. */
	const struct sock_filter *got = scmpc_prog_insns(prog);
	bool swapped = scmpc_prog_swapped(prog);
	for (size_t i = 0; i < scmpc_prog_len(prog); i++) {
		struct sock_filter raw;

		memcpy(&raw, (const uint8_t *)data + i * sizeof(raw), sizeof(raw));
		if (swapped) {
			raw.code = __builtin_bswap16(raw.code);
			raw.k = __builtin_bswap32(raw.k);
		}
		if (memcmp(&raw, &got[i], sizeof(raw)))
			fuzz_bug("scmpc_prog_from_bytes changed instruction %zu", i);
	}
	if (swapped) {
		struct sock_filter *as_is = malloc(size);

		if (as_is) {
			memcpy(as_is, data, size);
			if (scmpc_verify_insns(as_is, size / sizeof(*as_is), NULL) == 0)
				fuzz_bug("scmpc_prog_from_bytes swapped a program the kernel takes "
					 "as it is");
			free(as_is);
		}
	}

	const struct sock_filter *f = scmpc_prog_insns(prog);
	size_t len = scmpc_prog_len(prog);

	rc = scmpc_verify_insns(f, len, d);
	if (rc == 0) {
		check_accepted(f, len);
	} else {
		long at = scmpc_diag_insn(d);

		fuzz_check_failure("scmpc_verify_insns", rc, d);
		if (rc != -EINVAL)
			fuzz_bug("scmpc_verify_insns returned %d, not -EINVAL", rc);
		if (at < -1 || at >= (long)len)
			fuzz_bug("scmpc_verify_insns blames insn %ld of %zu", at, len);
		if (len <= BPF_MAXINSNS) {
			uint32_t consts[MAX_CONSTS];

			check_rejected(f, len);
			kernel_check(f, len, false, consts, program_consts(f, len, consts));
		}
	}
	(void)scmpc_prog_ebpf_len(prog);
	scmpc_prog_free(prog);
	scmpc_diag_free(d);
	return 0;
}

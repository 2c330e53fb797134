/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Constants a test line may name (`openat(AT_FDCWD, *, O_RDONLY)`), with
 * the values of this machine's kernel and libc headers, taken at build
 * time: the table lists names, the headers give the numbers.  A negative
 * constant is the 64-bit register value glibc passes for it (AT_FDCWD is
 * 0xffffffffffffff9c).  Chosen for the arguments profiles condition: flags
 * and enumerations of open, socket, clone, prctl, fcntl, mmap, madvise,
 * personality and the common ioctl requests.
 */
#include <fcntl.h>
#include <linux/futex.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <termios.h>
#include <netinet/in.h>
#if defined(__x86_64__) || defined(__i386__)
#include <asm/prctl.h>
#endif

#include "common.h"

#define C(x) { #x, (uint64_t)(int64_t)(x) }

static const struct {
	const char *name;
	uint64_t value;
} constants[] = {
	C(AT_FDCWD), C(AT_EMPTY_PATH), C(AT_SYMLINK_NOFOLLOW), C(AT_REMOVEDIR),
	C(O_RDONLY), C(O_WRONLY), C(O_RDWR), C(O_CREAT), C(O_EXCL), C(O_NOCTTY), C(O_TRUNC),
	C(O_APPEND), C(O_NONBLOCK), C(O_DSYNC), C(O_SYNC), C(O_DIRECTORY), C(O_NOFOLLOW),
	C(O_CLOEXEC), C(O_PATH), C(O_TMPFILE), C(O_NOATIME),
	C(AF_UNSPEC), C(AF_UNIX), C(AF_LOCAL), C(AF_INET), C(AF_INET6), C(AF_NETLINK),
	C(AF_PACKET), C(AF_KEY), C(AF_ALG), C(AF_VSOCK), C(AF_BLUETOOTH),
	C(SOCK_STREAM), C(SOCK_DGRAM), C(SOCK_RAW), C(SOCK_SEQPACKET), C(SOCK_NONBLOCK),
	C(SOCK_CLOEXEC),
	C(IPPROTO_IP), C(IPPROTO_TCP), C(IPPROTO_UDP), C(IPPROTO_ICMP), C(IPPROTO_ICMPV6),
	C(NETLINK_ROUTE), C(NETLINK_AUDIT), C(NETLINK_KOBJECT_UEVENT), C(NETLINK_GENERIC),
	C(NETLINK_NETFILTER), C(NETLINK_SOCK_DIAG),
	C(CLONE_VM), C(CLONE_FS), C(CLONE_FILES), C(CLONE_SIGHAND), C(CLONE_THREAD),
	C(CLONE_NEWNS), C(CLONE_NEWCGROUP), C(CLONE_NEWUTS), C(CLONE_NEWIPC), C(CLONE_NEWUSER),
	C(CLONE_NEWPID), C(CLONE_NEWNET), C(CLONE_SYSVSEM), C(CLONE_SETTLS),
	C(CLONE_PARENT_SETTID), C(CLONE_CHILD_CLEARTID), C(CLONE_CHILD_SETTID), C(CLONE_VFORK),
	C(CLONE_PTRACE), C(CLONE_UNTRACED), C(CLONE_IO),
	C(PR_SET_PDEATHSIG), C(PR_GET_DUMPABLE), C(PR_SET_DUMPABLE), C(PR_SET_NAME),
	C(PR_GET_NAME), C(PR_GET_SECCOMP), C(PR_SET_SECCOMP), C(PR_CAPBSET_READ),
	C(PR_CAPBSET_DROP), C(PR_SET_NO_NEW_PRIVS), C(PR_GET_NO_NEW_PRIVS), C(PR_SET_KEEPCAPS),
	C(PR_SET_CHILD_SUBREAPER), C(PR_CAP_AMBIENT), C(PR_SET_MM),
	C(F_DUPFD), C(F_GETFD), C(F_SETFD), C(F_GETFL), C(F_SETFL), C(F_GETLK), C(F_SETLK),
	C(F_SETLKW), C(F_DUPFD_CLOEXEC), C(F_SETOWN), C(F_GETOWN), C(F_SETPIPE_SZ),
	C(F_GETPIPE_SZ), C(F_ADD_SEALS), C(F_GET_SEALS), C(FD_CLOEXEC),
	C(PROT_NONE), C(PROT_READ), C(PROT_WRITE), C(PROT_EXEC),
	C(MAP_SHARED), C(MAP_PRIVATE), C(MAP_FIXED), C(MAP_ANONYMOUS), C(MAP_GROWSDOWN),
	C(MAP_NORESERVE), C(MAP_POPULATE), C(MAP_STACK),
	C(MADV_NORMAL), C(MADV_RANDOM), C(MADV_SEQUENTIAL), C(MADV_WILLNEED), C(MADV_DONTNEED),
	C(MADV_FREE), C(MADV_REMOVE), C(MADV_DONTFORK), C(MADV_DOFORK), C(MADV_MERGEABLE),
	C(MADV_HUGEPAGE), C(MADV_NOHUGEPAGE), C(MADV_DONTDUMP), C(MADV_DODUMP),
	C(PER_LINUX), C(PER_LINUX32), C(UNAME26), C(ADDR_NO_RANDOMIZE), C(READ_IMPLIES_EXEC),
	C(TCGETS), C(TCSETS), C(TIOCGWINSZ), C(TIOCSWINSZ), C(TIOCSTI), C(TIOCGPGRP),
	C(TIOCSPGRP), C(TIOCSCTTY), C(TIOCLINUX), C(FIONREAD), C(FIONBIO), C(FIOCLEX),
	C(SIGHUP), C(SIGINT), C(SIGQUIT), C(SIGKILL), C(SIGTERM), C(SIGSTOP), C(SIGCONT),
	C(SIGCHLD), C(SIGUSR1), C(SIGUSR2), C(SIGSYS),
	C(SECCOMP_SET_MODE_STRICT), C(SECCOMP_SET_MODE_FILTER), C(SECCOMP_GET_ACTION_AVAIL),
	/* what perf trace prints for futex, rt_sigprocmask, flock, arch_prctl
	 * and mmap (record --from), with its prefix put back */
	C(FUTEX_WAIT), C(FUTEX_WAKE), C(FUTEX_REQUEUE), C(FUTEX_CMP_REQUEUE), C(FUTEX_WAKE_OP),
	C(FUTEX_LOCK_PI), C(FUTEX_UNLOCK_PI), C(FUTEX_TRYLOCK_PI), C(FUTEX_WAIT_BITSET),
	C(FUTEX_WAKE_BITSET), C(FUTEX_WAIT_REQUEUE_PI), C(FUTEX_CMP_REQUEUE_PI),
	C(FUTEX_PRIVATE_FLAG), C(FUTEX_CLOCK_REALTIME),
	C(SIG_BLOCK), C(SIG_UNBLOCK), C(SIG_SETMASK),
	C(LOCK_SH), C(LOCK_EX), C(LOCK_NB), C(LOCK_UN),
	C(MAP_DENYWRITE), C(MAP_EXECUTABLE), C(MAP_LOCKED), C(MAP_NONBLOCK), C(MAP_HUGETLB),
	C(MAP_FIXED_NOREPLACE),
	C(SOL_SOCKET), C(SO_REUSEADDR), C(SO_KEEPALIVE), C(SO_BROADCAST), C(SO_SNDBUF),
	C(SO_RCVBUF), C(SO_REUSEPORT), C(SO_PASSCRED), C(SO_LINGER),
#ifdef ARCH_SET_FS
	C(ARCH_SET_FS), C(ARCH_GET_FS), C(ARCH_SET_GS), C(ARCH_GET_GS),
#endif
};

bool constant_value(const char *name, size_t len, uint64_t *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(constants); i++)
		if (strlen(constants[i].name) == len && !strncmp(constants[i].name, name, len)) {
			*out = constants[i].value;
			return true;
		}
	return false;
}

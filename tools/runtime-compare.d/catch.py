# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# Helper of tools/runtime-compare, for profiles under which no container
# stays alive to be dumped: a profile that denies execve (or, for runc 1.1,
# which loads the filter before it waits for `start`, openat) makes the
# runtime's init fail right after it installed the filter.
#
#   python3 catch.py OUTDIR TIMEOUT -- RUNTIME-COMMAND [ARG...]
#
# Runs RUNTIME-COMMAND (e.g. `runc --root R run -d --bundle B ID`) under
# ptrace, following every fork and clone, and stops each thread at the exit
# of every seccomp(SECCOMP_SET_MODE_FILTER) or prctl(PR_SET_SECCOMP,
# SECCOMP_MODE_FILTER) that succeeds.  There, before the thread runs another
# instruction, it reads the thread's whole filter chain with
# PTRACE_SECCOMP_GET_FILTER and writes it as OUTDIR/TGID-N.bpf, oldest
# first, the names `scmp-compile dump` uses.  Then it kills that process:
# its container could not run anyway, and a runtime init that may no longer
# make the calls it needs can spin in signal handlers that cannot return
# (rt_sigreturn denied), which under a tracer goes on and on.  From there on
# the tracer only lets every task run (PTRACE_CONT) until the command has
# exited (or TIMEOUT seconds passed); then it exits, which detaches whatever
# it still traces.  The last lines of the output say
#
#   result PATH COUNT     the newest filter of the last install, chain length
#   result none           nothing was installed
#
# Exit status: 0 with a result, 1 without, 2 on a usage or ptrace error.
import ctypes
import os
import signal
import struct
import sys
import time

PTRACE_TRACEME = 0
PTRACE_CONT = 7
PTRACE_SYSCALL = 24
PTRACE_SETOPTIONS = 0x4200
PTRACE_SECCOMP_GET_FILTER = 0x420C
PTRACE_GET_SYSCALL_INFO = 0x420E
OPTIONS = (0x1          # TRACESYSGOOD
           | 0x2        # TRACEFORK
           | 0x4        # TRACEVFORK
           | 0x8        # TRACECLONE
           | 0x10)      # TRACEEXEC (else a successful exec raises SIGTRAP)
INFO_ENTRY, INFO_EXIT = 1, 2
WALL = 0x40000000
SECCOMP_SET_MODE_FILTER = 1
PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2

# audit arch -> (seccomp nr, prctl nr)
INSTALL_NRS = {
    0xC000003E: (317, 157),  # x86_64
    0x40000003: (354, 172),  # i386
    0xC00000B7: (277, 167),  # aarch64
    0x40000028: (383, 172),  # arm
}

libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.restype = ctypes.c_long
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]


class PtraceError(Exception):
    pass


def ptrace(req, pid, addr=0, data=0):
    ctypes.set_errno(0)
    r = libc.ptrace(req, pid, ctypes.c_void_p(addr), ctypes.c_void_p(data) if isinstance(data, int) else data)
    if r == -1 and ctypes.get_errno() != 0:
        e = ctypes.get_errno()
        raise PtraceError("ptrace(%#x, %d): %s" % (req, pid, os.strerror(e)), e)
    return r


def syscall_info(tid):
    buf = ctypes.create_string_buffer(88)
    n = ptrace(PTRACE_GET_SYSCALL_INFO, tid, 88, buf)
    raw = buf.raw[: max(0, min(n, 88))]
    if len(raw) < 24:
        return None
    op = raw[0]
    arch = struct.unpack_from("<I", raw, 4)[0]
    if op == INFO_ENTRY and len(raw) >= 80:
        nr = struct.unpack_from("<Q", raw, 24)[0]
        args = struct.unpack_from("<6Q", raw, 32)
        return op, arch, nr, args
    if op == INFO_EXIT and len(raw) >= 33:
        rval = struct.unpack_from("<q", raw, 24)[0]
        is_error = raw[32]
        return op, arch, rval, is_error
    return op, arch, None, None


def get_filters(tid):
    progs = []
    index = 0
    while True:
        try:
            n = ptrace(PTRACE_SECCOMP_GET_FILTER, tid, index, 0)
        except PtraceError as e:
            if e.args[1] == 2:  # ENOENT: past the oldest filter
                break
            raise
        buf = ctypes.create_string_buffer(n * 8)
        got = ptrace(PTRACE_SECCOMP_GET_FILTER, tid, index, buf)
        progs.append(buf.raw[: got * 8])
        index += 1
    progs.reverse()  # index 0 is the newest
    return progs


def tgid_of(tid):
    try:
        with open("/proc/%d/status" % tid) as f:
            for line in f:
                if line.startswith("Tgid:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return tid


def is_install(arch, nr, args):
    nrs = INSTALL_NRS.get(arch)
    if not nrs:
        return False
    if nr == nrs[0]:
        return args[0] == SECCOMP_SET_MODE_FILTER and args[2] != 0
    if nr == nrs[1]:
        return args[0] == PR_SET_SECCOMP and args[1] == SECCOMP_MODE_FILTER
    return False


def main(argv):
    if len(argv) < 5 or argv[3] != "--":
        sys.stderr.write("usage: catch.py OUTDIR TIMEOUT -- COMMAND [ARG...]\n")
        return 2
    outdir, timeout, cmd = argv[1], float(argv[2]), argv[4:]
    deadline = time.monotonic() + timeout

    child = os.fork()
    if child == 0:
        try:
            ptrace(PTRACE_TRACEME, 0)
            os.kill(os.getpid(), signal.SIGSTOP)
            os.execvp(cmd[0], cmd)
        except Exception as e:  # noqa: BLE001 - report anything, then leave
            sys.stderr.write("catch: cannot run %s: %s\n" % (cmd[0], e))
        os._exit(127)

    _, status = os.waitpid(child, WALL)
    if not os.WIFSTOPPED(status):
        sys.stderr.write("catch: the command did not start\n")
        return 2
    ptrace(PTRACE_SETOPTIONS, child, 0, OPTIONS)
    ptrace(PTRACE_SYSCALL, child)

    pending = {}     # tid -> True when its current syscall installs a filter
    seen = {child}
    result = None
    count = 0
    resume = PTRACE_SYSCALL
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            sys.stderr.write("catch: time out; detaching\n")
            break
        try:
            tid, status = os.waitpid(-1, WALL | os.WNOHANG)
        except ChildProcessError:
            break
        if tid == 0:
            time.sleep(0.001)
            continue
        if os.WIFEXITED(status) or os.WIFSIGNALED(status):
            pending.pop(tid, None)
            if tid == child:
                break
            continue
        if not os.WIFSTOPPED(status):
            continue
        sig = os.WSTOPSIG(status)
        event = status >> 16
        inject = 0
        if tid not in seen:
            seen.add(tid)
            if sig == signal.SIGSTOP and event == 0:
                sig = -1  # the stop every auto-attached task starts with
        try:
            if sig == (signal.SIGTRAP | 0x80):
                info = syscall_info(tid)
                if info and info[0] == INFO_ENTRY:
                    pending[tid] = is_install(info[1], info[2], info[3])
                elif info and info[0] == INFO_EXIT:
                    if pending.pop(tid, False) and not info[3] and info[2] >= 0:
                        progs = get_filters(tid)
                        tgid = tgid_of(tid)
                        for i, prog in enumerate(progs):
                            path = os.path.join(outdir, "%d-%d.bpf" % (tgid, i))
                            with open(path + ".tmp", "wb") as f:
                                f.write(prog)
                            os.rename(path + ".tmp", path)
                            print("%d %s: %d instructions (thread %d, right after it installed a filter)"
                                  % (i, path, len(prog) // 8, tid))
                        if progs:
                            result = os.path.join(outdir, "%d-%d.bpf" % (tgid, len(progs) - 1))
                            count = len(progs)
                            try:
                                os.kill(tgid, signal.SIGKILL)
                            except OSError:
                                pass
                            resume = PTRACE_CONT
            elif sig > 0 and event == 0 and sig != signal.SIGTRAP:
                inject = sig  # a signal for the tracee: deliver it
            ptrace(resume, tid, 0, inject)
        except PtraceError as e:
            if e.args[1] == 3:  # ESRCH: killed meanwhile
                continue
            sys.stderr.write("catch: %s\n" % e)
            break
    if result:
        print("result %s %d" % (result, count))
        sys.stdout.flush()
        return 0
    print("result none")
    sys.stdout.flush()
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))

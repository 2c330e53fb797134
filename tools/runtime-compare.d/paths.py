# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# Helper of tools/runtime-compare: the executed-path figures that
# `scmp-compile compile --stats` prints for scmpc's own program ("ABI: path
# over 1024 argument-free numbers: worst W, mean M"), for any raw filter,
# such as one dumped from a container.  The CLI offers them only for a
# program it compiled, so this calls the same library function,
# scmpc_stats(), through ctypes: the profile is read with the options
# compile would get (which numbers are argument-free is the policy's to
# say, so two programs of one profile are measured over the same numbers),
# and each FILE.bpf is run by scmpc's emulator for every number.
#
#   python3 paths.py LIBSCMPC PROFILE ABI [POLICY OPTIONS] -- FILE.bpf...
#
# LIBSCMPC is the shared library (build/libscmpc.so.0); POLICY OPTIONS are
# scmp-compile's --caps LIST|default|none, --kernel X.Y, --runtime RT,
# --strict, --no-enosys, --restrictive, --bad-arch ACT and -q.  One line per
# file:
#
#   FILE worst W mean M argsys N      (N: argument-checked syscalls, apart)
#   FILE error MESSAGE
#
# Exit status: 0 when every file was measured, 1 otherwise, 2 on a usage or
# library error.
import ctypes
import sys


class JsonOpts(ctypes.Structure):
    _fields_ = [("sz", ctypes.c_size_t), ("flavor", ctypes.c_int), ("flags", ctypes.c_uint),
                ("arch", ctypes.c_int), ("caps", ctypes.POINTER(ctypes.c_char_p)),
                ("kernel_major", ctypes.c_uint), ("kernel_minor", ctypes.c_uint),
                ("runtime", ctypes.c_int), ("bad_arch_action", ctypes.c_uint32)]


class CacheOpts(ctypes.Structure):
    _fields_ = [("sz", ctypes.c_size_t), ("kernel_version", ctypes.c_uint),
                ("nr_count", ctypes.c_uint32)]


class StatsOpts(ctypes.Structure):
    _fields_ = [("sz", ctypes.c_size_t), ("probe_limit", ctypes.c_uint32), ("cache", CacheOpts)]


class ArgSys(ctypes.Structure):
    _fields_ = [("nr", ctypes.c_uint32), ("worst_path", ctypes.c_uint), ("best_path", ctypes.c_uint)]


class ArchStats(ctypes.Structure):
    _fields_ = [("sz", ctypes.c_size_t), ("arch", ctypes.c_int), ("nr_probed", ctypes.c_uint32),
                ("worst_path", ctypes.c_uint), ("mean_path", ctypes.c_double),
                ("cacheable", ctypes.c_uint), ("allow_unconditional", ctypes.c_uint),
                ("nargsys", ctypes.c_uint), ("argsys", ctypes.POINTER(ArgSys)),
                ("argsys_cap", ctypes.c_size_t)]


JSON_STRICT, JSON_NO_ENOSYS, JSON_RESTRICTIVE, JSON_BAD_ARCH = 0x1, 0x2, 0x4, 0x8


def die(msg):
    sys.stderr.write("paths.py: %s\n" % msg)
    sys.exit(2)


def main(argv):
    if "--" not in argv or len(argv) < 4:
        die("usage: paths.py LIBSCMPC PROFILE ABI [POLICY OPTIONS] -- FILE.bpf...")
    sep = argv.index("--")
    libpath, profile, abi = argv[0], argv[1], argv[2]
    opts, files = argv[3:sep], argv[sep + 1:]
    try:
        lib = ctypes.CDLL(libpath)
    except OSError as e:
        die("cannot load %s: %s" % (libpath, e))
    lib.scmpc_diag_new.restype = ctypes.c_void_p
    lib.scmpc_diag_message.restype = ctypes.c_char_p
    lib.scmpc_diag_message.argtypes = [ctypes.c_void_p]
    lib.scmpc_arch_from_name.argtypes = [ctypes.c_char_p]
    lib.scmpc_runtime_from_name.argtypes = [ctypes.c_char_p]
    lib.scmpc_action_parse.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_uint32)]
    lib.scmpc_policy_from_json.argtypes = [ctypes.c_char_p, ctypes.c_size_t,
                                           ctypes.POINTER(JsonOpts),
                                           ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p]
    lib.scmpc_stats.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t,
                                ctypes.c_size_t, ctypes.POINTER(StatsOpts),
                                ctypes.POINTER(ArchStats), ctypes.c_void_p]
    lib.scmpc_policy_arch_count.restype = ctypes.c_size_t
    lib.scmpc_policy_arch_count.argtypes = [ctypes.c_void_p]
    lib.scmpc_policy_arch.argtypes = [ctypes.c_void_p, ctypes.c_size_t]

    o = JsonOpts()
    o.sz = ctypes.sizeof(JsonOpts)
    arch = lib.scmpc_arch_from_name(abi.encode())
    if arch <= 0:
        die("unknown ABI %s" % abi)
    o.arch = arch
    caps_keep = None
    i = 0
    while i < len(opts):
        a = opts[i]
        val = opts[i + 1] if i + 1 < len(opts) else None
        if a in ("--caps", "--kernel", "--runtime", "--bad-arch") and val is None:
            die("%s needs a value" % a)
        if a == "--caps":
            if val.lower() == "default":
                caps_keep = None
            elif val.lower() == "all":
                die("--caps all is not supported here; list the capabilities")
            else:
                names = [] if val.lower() == "none" else [
                    (c if c.upper().startswith("CAP_") else "CAP_" + c).upper()
                    for c in (s.strip() for s in val.split(",")) if c]
                caps_keep = (ctypes.c_char_p * (len(names) + 1))(*[n.encode() for n in names], None)
            i += 2
        elif a == "--kernel":
            try:
                major, minor = (int(x) for x in val.split(".")[:2])
            except ValueError:
                die("invalid --kernel %s" % val)
            o.kernel_major, o.kernel_minor = major, minor
            i += 2
        elif a == "--runtime":
            r = lib.scmpc_runtime_from_name(val.encode())
            if r < 0:
                die("unknown runtime %s" % val)
            o.runtime = r
            i += 2
        elif a == "--bad-arch":
            act = ctypes.c_uint32()
            if lib.scmpc_action_parse(val.encode(), ctypes.byref(act)) < 0:
                die("invalid action %s" % val)
            o.bad_arch_action = act.value
            o.flags |= JSON_BAD_ARCH
            i += 2
        elif a == "--strict":
            o.flags |= JSON_STRICT
            i += 1
        elif a == "--no-enosys":
            o.flags |= JSON_NO_ENOSYS
            i += 1
        elif a == "--restrictive":
            o.flags |= JSON_RESTRICTIVE
            i += 1
        elif a in ("-q", "--quiet"):
            i += 1
        else:
            die("unknown option %s" % a)
    if caps_keep is not None:
        o.caps = ctypes.cast(caps_keep, ctypes.POINTER(ctypes.c_char_p))

    with open(profile, "rb") as f:
        text = f.read()
    if text.startswith(b"\xef\xbb\xbf"):
        text = text[3:]
    d = lib.scmpc_diag_new()
    pol = ctypes.c_void_p()
    rc = lib.scmpc_policy_from_json(text, len(text), ctypes.byref(o), ctypes.byref(pol), d)
    if rc < 0:
        die("%s: %s" % (profile, (lib.scmpc_diag_message(d) or b"").decode(errors="replace")))

    so = StatsOpts()
    so.sz = ctypes.sizeof(StatsOpts)
    so.cache.sz = ctypes.sizeof(CacheOpts)
    status = 0
    for path in files:
        try:
            with open(path, "rb") as f:
                prog = f.read()
        except OSError as e:
            print("%s error %s" % (path, e.strerror))
            status = 1
            continue
        # The profile's section for ABI: its index among the policy's ABIs.
        idx = [i for i in range(lib.scmpc_policy_arch_count(pol))
               if lib.scmpc_policy_arch(pol, i) == arch]
        s = ArchStats()
        s.sz = ctypes.sizeof(ArchStats)
        n = lib.scmpc_stats(pol, prog, len(prog) // 8, idx[0], ctypes.byref(so),
                            ctypes.byref(s), d) if idx else 0
        if n < 0 or not idx:
            msg = (lib.scmpc_diag_message(d) or b"").decode(errors="replace") if n < 0 else \
                "the profile has no %s section" % abi
            print("%s error %s" % (path, msg or "scmpc_stats failed (%d)" % n))
            status = 1
            continue
        print("%s worst %u mean %.2f argsys %u" % (path, s.worst_path, s.mean_path, s.nargsys))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# Helper of tools/runtime-compare: turn one seccomp profile into the OCI
# linux.seccomp object a container engine hands to runc or crun, and write
# the bundle's config.json with it.
#
#   python3 resolve.py kind PROFILE
#       print "oci" (a plain OCI linux.seccomp object, passed on verbatim)
#       or "docker" (Docker/Podman format, resolved first)
#   python3 resolve.py resolve PROFILE OUT.json --kernel X.Y --caps A,B,...
#       write the resolved linux.seccomp object (Docker/Podman rules:
#       archMap for the host, includes/excludes by arches, caps and
#       minKernel in file order, name -> names, errno names -> numbers)
#   python3 resolve.py config BASE.json SECCOMP.json OUT.json --caps A,B,...
#       write BASE (a `runc spec` config.json) with the seccomp object
#       spliced in byte for byte, no terminal, args ["sleep", "1000"] and
#       the capability set as bounding, effective and permitted
#
# The Docker rules are moby's profiles/seccomp setupSeccomp (20.10) with
# what containers/common adds for Podman (defaultErrno, errno); written
# here from their documented behaviour, not copied.
import errno
import json
import os
import platform
import sys

# uname -m -> (Go arch name as moby compares it, libseccomp arch of archMap)
HOST_ARCH = {
    "x86_64": ("amd64", "SCMP_ARCH_X86_64"),
    "aarch64": ("arm64", "SCMP_ARCH_AARCH64"),
    "i686": ("x86", "SCMP_ARCH_X86"),
    "i386": ("x86", "SCMP_ARCH_X86"),
    "armv7l": ("arm", "SCMP_ARCH_ARM"),
    "ppc64le": ("ppc64le", "SCMP_ARCH_PPC64LE"),
    "s390x": ("s390x", "SCMP_ARCH_S390X"),
    "riscv64": ("riscv64", "SCMP_ARCH_RISCV64"),
}

# Keys that exist only in the Docker/Podman format.
DOCKER_TOP = ("archMap", "defaultErrno")
DOCKER_CALL = ("name", "includes", "excludes", "errno")


class ProfileError(Exception):
    pass


def die(msg):
    sys.stderr.write("resolve.py: %s\n" % msg)
    sys.exit(2)


def kind(profile):
    if not isinstance(profile, dict):
        raise ProfileError("the profile is not a JSON object")
    if any(k in profile for k in DOCKER_TOP):
        return "docker"
    for call in profile.get("syscalls") or []:
        if not isinstance(call, dict):
            continue
        for k in DOCKER_CALL:
            v = call.get(k)
            if v not in (None, "", {}, []):
                return "docker"
    return "oci"


def parse_version(text, what):
    """'X.Y[...]' -> (X, Y), as moby reads minKernel and uname."""
    parts = str(text).split(".")
    try:
        major = int(parts[0])
        digits = ""
        for ch in parts[1] if len(parts) > 1 else "":
            if not ch.isdigit():
                break
            digits += ch
        minor = int(digits)
    except (ValueError, IndexError):
        raise ProfileError("%s: invalid kernel version %r" % (what, text))
    return (major, minor)


def errno_number(name, where):
    if isinstance(name, int):
        return name
    num = getattr(errno, str(name), None)
    if not isinstance(num, int):
        raise ProfileError("%s: unknown errno name %r" % (where, name))
    return num


def resolve(profile, kernel, caps, machine):
    goarch, seccomp_arch = HOST_ARCH.get(machine, (machine, None))
    out = {}
    if not profile.get("defaultAction") and not profile.get("syscalls"):
        raise ProfileError("no defaultAction and no syscalls: seccomp would be disabled")
    arches = profile.get("architectures") or []
    archmap = profile.get("archMap") or []
    if arches and archmap:
        raise ProfileError("both 'architectures' and 'archMap' are given")
    result_arches = list(arches)
    if archmap and seccomp_arch:
        for entry in archmap:
            if entry.get("architecture") == seccomp_arch:
                result_arches.append(entry["architecture"])
                result_arches.extend(entry.get("subArchitectures") or [])
                break
    out["defaultAction"] = profile.get("defaultAction")
    if profile.get("defaultErrnoRet") is not None:
        out["defaultErrnoRet"] = profile["defaultErrnoRet"]
    elif profile.get("defaultErrno"):
        out["defaultErrnoRet"] = errno_number(profile["defaultErrno"], "defaultErrno")
    if result_arches:
        out["architectures"] = result_arches
    for key in ("flags", "listenerPath", "listenerMetadata"):
        if key in profile:
            out[key] = profile[key]

    calls = []
    for i, call in enumerate(profile.get("syscalls") or []):
        where = "syscalls[%d]" % i
        exc = call.get("excludes") or {}
        inc = call.get("includes") or {}
        if exc.get("arches") and goarch in exc["arches"]:
            continue
        if exc.get("caps") and any(c in caps for c in exc["caps"]):
            continue
        if exc.get("minKernel") and kernel >= parse_version(exc["minKernel"], where + ".excludes.minKernel"):
            continue
        if inc.get("arches") and goarch not in inc["arches"]:
            continue
        if inc.get("caps") and not all(c in caps for c in inc["caps"]):
            continue
        if inc.get("minKernel") and kernel < parse_version(inc["minKernel"], where + ".includes.minKernel"):
            continue
        if call.get("name") and call.get("names"):
            raise ProfileError("%s: both 'name' and 'names' are given" % where)
        new = {}
        new["names"] = [call["name"]] if call.get("name") else list(call.get("names") or [])
        new["action"] = call.get("action")
        if call.get("errnoRet") is not None:
            new["errnoRet"] = call["errnoRet"]
        elif call.get("errno"):
            new["errnoRet"] = errno_number(call["errno"], where + ".errno")
        args = []
        for arg in call.get("args") or []:
            a = {"index": arg.get("index", 0), "value": arg.get("value", 0)}
            if "valueTwo" in arg:
                a["valueTwo"] = arg["valueTwo"]
            a["op"] = arg.get("op")
            args.append(a)
        if args:
            new["args"] = args
        calls.append(new)
    out["syscalls"] = calls
    return out


def make_config(base_path, seccomp_path, out_path, caps):
    with open(base_path) as f:
        cfg = json.load(f)
    proc = cfg.setdefault("process", {})
    proc["terminal"] = False
    proc["args"] = ["sleep", "1000"]
    proc["noNewPrivileges"] = True
    proc["capabilities"] = {"bounding": list(caps), "effective": list(caps), "permitted": list(caps)}
    linux = cfg.setdefault("linux", {})
    marker = "@@SCMPC-RUNTIME-COMPARE-SECCOMP@@"
    linux["seccomp"] = marker
    text = json.dumps(cfg, indent=1)
    with open(seccomp_path) as f:
        raw = f.read()
    json.loads(raw)  # must be JSON; it goes in as written
    text = text.replace(json.dumps(marker), raw.strip(), 1)
    with open(out_path, "w") as f:
        f.write(text + "\n")


def option(args, name, default=None):
    if name in args:
        i = args.index(name)
        if i + 1 >= len(args):
            die("%s needs a value" % name)
        return args[i + 1]
    return default


def main(argv):
    if len(argv) < 2:
        die("usage: resolve.py kind|resolve|config ...")
    cmd, args = argv[1], argv[2:]
    caps_text = option(args, "--caps", "")
    caps = [c for c in caps_text.split(",") if c]
    try:
        if cmd == "kind":
            with open(args[0]) as f:
                print(kind(json.load(f)))
        elif cmd == "resolve":
            kernel = parse_version(option(args, "--kernel", platform.release()), "--kernel")
            machine = option(args, "--machine", os.uname().machine)
            with open(args[0]) as f:
                profile = json.load(f)
            out = resolve(profile, kernel, caps, machine)
            with open(args[1], "w") as f:
                json.dump(out, f, indent=1)
                f.write("\n")
        elif cmd == "config":
            make_config(args[0], args[1], args[2], caps)
        else:
            die("unknown command %r" % cmd)
    except (OSError, ValueError, ProfileError) as e:
        die(str(e))


if __name__ == "__main__":
    main(sys.argv)

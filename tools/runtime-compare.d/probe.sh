# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# Helper of tools/runtime-compare, run inside the busybox container
# (`RUNTIME exec ID sh /probe.sh`) under the container's seccomp filter:
# a few commands whose outcome the filter decides, or that show it at
# work, each reported as one line
#
#   NAME|EXIT STATUS|first line of its output
#
# so that two runs (libseccomp's program, the compat library's) can be
# compared line for line.  Under Docker's default profile, without
# CAP_SYS_ADMIN: unshare(2), mount(2) and syslog(2) are refused with EPERM by
# the filter; socket/connect, personality(PER_LINUX32) (an argument-checked
# rule), chroot (CAP_SYS_CHROOT) and sethostname are allowed.  Nothing here
# reaches outside the container: its namespaces are its own, and it lacks
# the capabilities for anything else.
p() {
	name=$1
	shift
	out=$("$@" </dev/null 2>&1)
	rc=$?
	printf '%s|%d|%s\n' "$name" "$rc" "$(printf '%s\n' "$out" | head -n 1)"
}
p seccomp busybox grep -E '^Seccomp:' /proc/self/status
p filters busybox grep -E '^Seccomp_filters:' /proc/self/status
p id busybox id
p unshare-user busybox unshare -U true
p unshare-net busybox unshare -n true
p mount-tmpfs busybox mount -t tmpfs none /tmp
p dmesg busybox dmesg
p nc-connect busybox nc -w 2 127.0.0.1 9
p ping busybox ping -c 1 -W 1 127.0.0.1
p linux32 busybox linux32 busybox uname -m
p chroot busybox chroot / true
p renice busybox renice -n -5 -p 1
p hostname busybox hostname rc-probe
p ionice busybox ionice -c 3 true
exit 0

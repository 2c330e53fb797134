# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
# Sourced by tools/bindings-check and tools/bindings-suites: how a check is
# counted and shown, and how packages and programs are brought in.  The
# caller sets $work (a scratch directory) before it installs packages.

npass=0 nfail=0 nskip=0
pass() { printf '  ok    %s\n' "$1"; npass=$((npass + 1)); }
failed() { printf '  FAIL  %s\n' "$1"; nfail=$((nfail + 1)); }
skipped() { printf '  SKIP  %s\n' "$1"; nskip=$((nskip + 1)); }
note() { printf '        %s\n' "$*"; }
# indent a file's first lines under a failed check
show() { sed -n "1,${2:-15}p" "$1" | sed 's/^/        | /'; }

# ensure_pkgs PKG...: 0 when all are installed (installing them as root);
# otherwise 1 with the reason in $why
ensure_pkgs() {
	local p missing=()
	for p; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" != 0 ]; then
		why="not installed, and not root to install them: ${missing[*]}"
		return 1
	fi
	echo "installing ${missing[*]}"
	if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >"$work/apt.log" 2>&1; then
		# a fresh container has no package lists yet
		apt-get update -q >>"$work/apt.log" 2>&1
		if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >>"$work/apt.log" 2>&1; then
			why="apt-get install ${missing[*]} failed: $(grep -E '^E:' "$work/apt.log" | head -2 | tr '\n' ' ')"
			return 1
		fi
	fi
	return 0
}

pkgver() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null; }

# run OUT [ENV...] -- CMD...: run CMD ($run_timeout s at most, 60 unless
# the caller sets it) with stdout and stderr in OUT.out / OUT.err
run() {
	local out=$1; shift
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	env "${envs[@]}" timeout "${run_timeout:-60}" "$@" >"$out.out" 2>"$out.err"
}

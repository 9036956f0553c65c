#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/deps.sh - install everything DCB lab needs on a Debian 12 machine.
#
#   scripts/deps.sh            install what is missing (make deps, make check,
#                              make demo, .ci/run)
#   scripts/deps.sh --check    only report the packages plain `make` needs
#                              that are missing (exit 1 if any); no apt-get
#
# Idempotent: when every package is already installed this only runs one
# dpkg-query and (re)writes the stamp file the Makefile depends on.
# Otherwise it runs `apt-get update` once and installs the missing packages.
#
# The guest kernel (linux-image-amd64) and the headers we build against
# (linux-headers-amd64) must be the same version, or modules built with
# `make` would not load in the VM; this is checked after installing.
#
# Debian 12's second kernel, 6.12 LTS (bookworm-security), for `make check
# KVER=6.12` and `make check-smoke KVER=6.12`: linux-source-6.12 (rdma_rxe
# is built from it) and the headers and image of the same release.  The
# release follows linux-source-6.12's version, the installed one or else
# apt's candidate: 6.12.117-1~deb12u1 -> linux-headers-6.12.117+deb12-amd64
# and linux-image-6.12.117+deb12-amd64.

set -euo pipefail

STAMP_DIR=/var/lib/dcblab
STAMP=$STAMP_DIR/deps-v6

PKGS=(
	qemu-system-x86 linux-image-amd64 linux-headers-amd64 linux-source-6.1
	busybox-static iproute2 iperf3 netsniff-ng tshark tcpdump jq
	sparse rdma-core ibverbs-utils rdmacm-utils perftest python3-pyverbs
	libnl-3-dev libibverbs-dev librdmacm-dev pkg-config python3-scapy
	kmod cpio xz-utils ethtool
	gcc make bc flex bison libelf-dev libssl-dev iputils-ping procps
	python3-docutils dkms python3-pandas python3-matplotlib mininet
	linux-source-6.12
)
# What plain `make` needs: the compiler and kernel build tools, headers
# and source of the 6.1 kernel (rdma_rxe is built from linux-source-6.1),
# libnl for dcbmon, libibverbs and librdmacm for rdmaflow, rst2man for the
# man pages.
BUILD_PKGS=(
	gcc make bc flex bison libelf-dev libssl-dev linux-headers-amd64
	linux-source-6.1 libnl-3-dev libibverbs-dev librdmacm-dev pkg-config
	xz-utils
	python3-docutils
)

die() { echo "deps.sh: error: $*" >&2; exit 1; }
say() { echo "deps.sh: $*" >&2; }

command -v dpkg-query >/dev/null 2>&1 ||
	die "dpkg-query not found: DCB lab supports Debian 12 (bookworm) hosts only"

# Print the packages of PKGS that are not fully installed.
missing_pkgs() {
	local installed
	installed=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' \
		"${PKGS[@]}" 2>/dev/null | awk '$1 == "ii" { print $2 }') || true
	local p
	for p in "${PKGS[@]}"; do
		grep -qxF "$p" <<<"$installed" || echo "$p"
	done
}

pkg_version() {
	dpkg-query -W -f='${Version}' "$1" 2>/dev/null || true
}

# The version of package $1 if it is fully installed, else nothing.
installed_version() {
	dpkg-query -W -f='${db:Status-Abbrev} ${Version}\n' "$1" 2>/dev/null |
		awk '$1 == "ii" { print $2 }' || true
}

candidate_version() {
	apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ && $2 != "(none)" { print $2 }'
}

# The kernel release of the 6.12 packages whose source package version is
# $1: 6.12.117-1~deb12u1 -> 6.12.117+deb12-amd64.
k612_abi() {
	echo "${1%%-*}+deb12-amd64"
}

# The concrete package a meta-package (linux-image-amd64, ...) points at,
# e.g. "linux-image-6.1.0-56-amd64".
meta_target() {
	dpkg-query -W -f='${Depends}' "$1" 2>/dev/null |
		tr ',' '\n' | awk 'NR == 1 { print $1 }'
}

check_kernel_versions() {
	local iv hv it ht iabi habi
	iv=$(pkg_version linux-image-amd64)
	hv=$(pkg_version linux-headers-amd64)
	if [ "$iv" != "$hv" ]; then
		die "linux-image-amd64 ($iv) and linux-headers-amd64 ($hv) differ.
  The VM boots linux-image-amd64's kernel and modules are built against
  linux-headers-amd64, so they must match. Fix with:
    apt-get install linux-image-amd64=$hv   (or linux-headers-amd64=$iv)"
	fi
	it=$(meta_target linux-image-amd64)
	ht=$(meta_target linux-headers-amd64)
	iabi=${it#linux-image-}
	iabi=${iabi%-unsigned}
	habi=${ht#linux-headers-}
	if [ -z "$iabi" ] || [ "$iabi" != "$habi" ]; then
		die "kernel ABI mismatch: linux-image-amd64 -> '$it', linux-headers-amd64 -> '$ht'"
	fi
	[ -d "/lib/modules/$iabi/kernel" ] ||
		die "/lib/modules/$iabi is missing although $it is installed"
	[ -e "/boot/vmlinuz-$iabi" ] ||
		die "/boot/vmlinuz-$iabi is missing although $it is installed"
	[ -d "/usr/src/linux-headers-$habi" ] ||
		die "/usr/src/linux-headers-$habi is missing although $ht is installed"
}

# The 6.12 kernel of K612_ABI: what make KVER=6.12 and vm-run --kver 6.12
# use.
check_k612() {
	[ -e /usr/src/linux-source-6.12.tar.xz ] ||
		die "/usr/src/linux-source-6.12.tar.xz is missing although linux-source-6.12 is installed"
	[ -d "/usr/src/linux-headers-$K612_ABI" ] ||
		die "/usr/src/linux-headers-$K612_ABI is missing although linux-headers-$K612_ABI is installed"
	[ -e "/boot/vmlinuz-$K612_ABI" ] ||
		die "/boot/vmlinuz-$K612_ABI is missing although linux-image-$K612_ABI is installed"
	[ -d "/lib/modules/$K612_ABI/kernel" ] ||
		die "/lib/modules/$K612_ABI is missing although linux-image-$K612_ABI is installed"
}

as_root() {
	if [ "$(id -u)" = 0 ]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		die "need root to run: $*"
	fi
}

if [ "${1:-}" = --check ]; then
	PKGS=("${BUILD_PKGS[@]}")
	mapfile -t MISSING < <(missing_pkgs)
	[ ${#MISSING[@]} -eq 0 ] && exit 0
	echo "deps.sh: missing packages for the build: ${MISSING[*]}" >&2
	echo "  install them with: apt-get install ${MISSING[*]}   (or: make deps, which installs everything)" >&2
	exit 1
fi
[ $# -eq 0 ] || die "unknown argument $1 (usage: deps.sh [--check])"

# An installed linux-source-6.12 names the 6.12 release; otherwise it is
# resolved from apt's candidate after apt-get update, below.
K612_VER=$(installed_version linux-source-6.12)
K612_ABI=
if [ -n "$K612_VER" ]; then
	K612_ABI=$(k612_abi "$K612_VER")
	PKGS+=("linux-headers-$K612_ABI" "linux-image-$K612_ABI")
fi

mapfile -t MISSING < <(missing_pkgs)

# Both kernel meta-packages present but at different versions: asking apt
# to install both again upgrades the older one to the candidate.
if [ ${#MISSING[@]} -eq 0 ] &&
   [ "$(pkg_version linux-image-amd64)" != "$(pkg_version linux-headers-amd64)" ]; then
	MISSING=(linux-image-amd64 linux-headers-amd64)
fi

if [ ${#MISSING[@]} -gt 0 ]; then
	say "installing: ${MISSING[*]}"
	export DEBIAN_FRONTEND=noninteractive
	as_root apt-get update
	# Before installing, make sure apt would pick matching kernel versions.
	ic=$(apt-cache policy linux-image-amd64 | awk '/Candidate:/ { print $2 }')
	hc=$(apt-cache policy linux-headers-amd64 | awk '/Candidate:/ { print $2 }')
	if [ -n "$ic" ] && [ -n "$hc" ] && [ "$ic" != "$hc" ]; then
		die "apt candidates differ: linux-image-amd64 $ic, linux-headers-amd64 $hc
  (mixed suites/pinning?); make them match, then rerun scripts/deps.sh"
	fi
	if [ -z "$K612_ABI" ]; then
		K612_VER=$(candidate_version linux-source-6.12)
		[ -n "$K612_VER" ] ||
			die "apt knows no linux-source-6.12: add bookworm-security to the apt sources
  (deb http://deb.debian.org/debian-security bookworm-security main)"
		K612_ABI=$(k612_abi "$K612_VER")
		for p in "linux-headers-$K612_ABI" "linux-image-$K612_ABI"; do
			[ "$(candidate_version "$p")" = "$K612_VER" ] ||
				die "linux-source-6.12 is $K612_VER, but apt has no $p of that version"
		done
		PKGS+=("linux-headers-$K612_ABI" "linux-image-$K612_ABI")
		MISSING=("${MISSING[@]/#linux-source-6.12/linux-source-6.12=$K612_VER}"
			"linux-headers-$K612_ABI" "linux-image-$K612_ABI")
	fi
	as_root env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y --no-install-recommends "${MISSING[@]}"
	mapfile -t STILL < <(missing_pkgs)
	[ ${#STILL[@]} -eq 0 ] || die "still missing after install: ${STILL[*]}"
fi

check_kernel_versions
check_k612

if [ ! -e "$STAMP" ]; then
	as_root mkdir -p "$STAMP_DIR"
	{
		echo "# written by scripts/deps.sh"
		echo "kernel=$(meta_target linux-image-amd64) $(pkg_version linux-image-amd64)"
		echo "kernel-6.12=linux-image-$K612_ABI $(pkg_version "linux-image-$K612_ABI")"
	} | as_root tee "$STAMP" >/dev/null
	say "all dependencies present; wrote $STAMP"
fi
exit 0

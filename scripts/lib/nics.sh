# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# scripts/lib/nics.sh - the emulated NIC pairs of a scripts/vm-run guest
# (vm-run --nic-pairs).  DCBLAB_NICS lists them, "MODEL:nicKa:nicKb ...";
# pair K's ends have the MACs 52:54:00:dc:KK:0a and 52:54:00:dc:KK:0b.
#
#	. "$TOP/scripts/lib/nics.sh"
#	nics_home [TIMEOUT]   load the drivers, wait (TIMEOUT s, default 30)
#	                      until every end is in this namespace, name it
#	                      nicKa/nicKb, down; NICS_ERR says why it failed
#	nics_of MODEL         the pairs of MODEL, "nicKa nicKb" a line
#
# A namespace that is deleted gives its physical devices back to the
# initial namespace under the names they had in it, later (the kernel's
# cleanup_net work): nics_home waits for them and renames them.

# _nics_mac NAME: the MAC of the end NAME (nicKa, nicKb)
_nics_mac() {
	local k=${1#nic} e=${1: -1}
	k=${k%?}
	printf '52:54:00:dc:%02x:0%s' "$k" "$e"
}

nics_home() {
	local tmo=${1:-30} p m a b name mac want=() t0 f addr left
	NICS_ERR=
	[ -n "${DCBLAB_NICS:-}" ] || return 0
	for p in $DCBLAB_NICS; do
		IFS=: read -r m a b <<<"$p"
		case $m in virtio) m=virtio_net ;; esac
		[ -d "/sys/module/$m" ] || modprobe "$m" ||
			{ NICS_ERR="modprobe $m failed"; return 1; }
		want+=("$a" "$b")
	done
	t0=$SECONDS
	while :; do
		left=()
		for name in "${want[@]}"; do
			mac=$(_nics_mac "$name")
			[ "$(cat "/sys/class/net/$name/address" 2>/dev/null)" = "$mac" ] && continue
			for f in /sys/class/net/*/address; do
				read -r addr <"$f" 2>/dev/null || continue
				[ "$addr" = "$mac" ] || continue
				f=${f%/address}
				ip link set dev "${f##*/}" down &&
					ip link set dev "${f##*/}" name "$name" 2>/dev/null
				break
			done
			[ "$(cat "/sys/class/net/$name/address" 2>/dev/null)" = "$mac" ] ||
				left+=("$name")
		done
		[ ${#left[@]} -gt 0 ] || break
		if [ $((SECONDS - t0)) -ge "$tmo" ]; then
			NICS_ERR="not back in the initial namespace after ${tmo}s: ${left[*]}"
			return 1
		fi
		sleep 0.2
	done
	for name in "${want[@]}"; do ip link set dev "$name" down; done
}

nics_of() {
	local p m a b
	for p in ${DCBLAB_NICS:-}; do
		IFS=: read -r m a b <<<"$p"
		[ "$m" = "$1" ] && echo "$a $b"
	done
	return 0
}

# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# scripts/lib/nics.sh - the emulated NIC pairs of a scripts/vm-run guest
# (vm-run --nic-pairs).  DCBLAB_NICS lists them, "MODEL:nicKa:nicKb ...";
# pair K's ends have the MACs 52:54:00:dc:KK:0a and 52:54:00:dc:KK:0b.
#
#	. "$TOP/scripts/lib/nics.sh"
#	nics_home [TIMEOUT]   load the drivers, wait (TIMEOUT s, default 30)
#	                      until every end is in this namespace, give it
#	                      its name and MAC back, down; NICS_ERR says why
#	                      it failed.  A model whose driver this kernel
#	                      lacks leaves DCBLAB_NICS and joins
#	                      DCBLAB_NICS_LACK (a test then does without it,
#	                      or skips, and says so), with a warning
#	nics_of MODEL         the pairs of MODEL, "nicKa nicKb" a line
#
# A namespace that is deleted gives its physical devices back to the
# initial namespace under the names (and MACs) they had in it, later (the
# kernel's cleanup_net work): nics_home waits for them and knows them by
# their permanent address.

# _nics_mac NAME: the MAC of the end NAME (nicKa, nicKb)
_nics_mac() {
	local k=${1#nic} e=${1: -1}
	k=${k%?}
	printf '52:54:00:dc:%02x:0%s' "$k" "$e"
}

# (NICS_ERR is the callers')
# shellcheck disable=SC2034
nics_home() {
	local tmo=${1:-30} p m a b name t0 line dev mac perm left drv keep=
	local -A want=() at=()
	NICS_ERR=
	[ -n "${DCBLAB_NICS:-}" ] || return 0
	for p in $DCBLAB_NICS; do
		IFS=: read -r m a b <<<"$p"
		drv=$m
		case $m in virtio) drv=virtio_net ;; esac
		if [ ! -d "/sys/module/$drv" ] && ! modprobe -q "$drv"; then
			case " ${DCBLAB_NICS_LACK:-} " in
			*" $m "*) ;;
			*)	echo "nics: this kernel has no $drv driver: its $m NICs are left out" >&2
				DCBLAB_NICS_LACK="${DCBLAB_NICS_LACK:+$DCBLAB_NICS_LACK }$m" ;;
			esac
			continue
		fi
		keep="${keep:+$keep }$p"
		want[$(_nics_mac "$a")]=$a
		want[$(_nics_mac "$b")]=$b
	done
	export DCBLAB_NICS=$keep DCBLAB_NICS_LACK=${DCBLAB_NICS_LACK:-}
	t0=$SECONDS
	while :; do
		# an end is known by its permanent address: a namespace may
		# have given it another (Mininet does)
		at=()
		while read -r line; do
			[[ $line =~ ^[0-9]+:\ ([^:@ ]+).*link/ether\ ([0-9a-f:]+) ]] || continue
			dev=${BASH_REMATCH[1]} mac=${BASH_REMATCH[2]} perm=$mac
			[[ $line =~ permaddr\ ([0-9a-f:]+) ]] && perm=${BASH_REMATCH[1]}
			name=${want[$perm]:-}
			[ -n "$name" ] || continue
			if [ "$dev" != "$name" ] || [ "$mac" != "$perm" ]; then
				ip link set dev "$dev" down || continue
				ip link set dev "$dev" name "$name" address "$perm" || continue
			fi
			at[$name]=1
		done < <(ip -o link show)
		left=()
		for name in "${want[@]}"; do [ -n "${at[$name]:-}" ] || left+=("$name"); done
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

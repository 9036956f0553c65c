#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# suite: long
#
# make install and make uninstall, in the guest (its root is a tmpfs
# overlay: nothing reaches the host).  After `make install`:
#  - modinfo finds our rdma_rxe (updates/dcblab and the depmod.d override)
#    and `modprobe rdma_rxe` loads it, the one the tree built, with its
#    dependencies;
#  - `echo dcqcn > cc/algo` loads rxe_cc_dcqcn by its alias, then pcn the
#    same way; an unknown name, one in upper case and a path fail with
#    ENOENT and load nothing;
#  - tc, without TC_LIB_DIR, finds q_dcb.so and the kernel loads the
#    tree's sch_dcb; netem's distribution table (beside the distribution's
#    plugins) still loads;
#  - dcbmon runs from PREFIX/sbin, PREFIX/bin/dcblab links to the
#    checkout's, tc-dcb(8), dcbmon(8) and dcblab(1) are in PREFIX/share/man.
# After `make uninstall`: modinfo names the distribution's rdma_rxe again,
# tc no longer knows dcb, dcbmon, dcblab and the man pages are gone.
# /lib/modules/KVER is replaced (bind mount) by a tmpfs tree holding the
# distribution's modules the test loads (rdma_rxe and what it depends on,
# crc32, veth, sch_netem): depmod over all the distribution's modules
# through 9p takes minutes in a TCG guest, over these next to nothing
# (notebook/results-history.rst).
. "$(dirname "$0")/lib.sh"

need_cmd make modprobe modinfo depmod rdma tc
in_vm || skip "installs into /lib/modules: only in a scripts/vm-run guest"
RXE_KO=${DCBLAB_BUILD:-$TOP/build}/rxe_cc/rdma_rxe.ko
kver=$(uname -r)
[ -f "$DCB_KO" ] && [ -f "$RXE_KO" ] || fail "modules not built (run make)"
unset TC_LIB_DIR
# KVER on make's command line means another kernel's build, in
# build/X.Y/rxe_cc: name the rxe modules the tests load instead.  Without
# DCBLAB_BUILD, which make check KVER=6.12 points at build/6.12 for the
# tests only: make built the man pages in build/man.
MK=(env -u DCBLAB_BUILD make -s -C "$TOP" KVER="$kver" DCB_KO="$DCB_KO"
	RXE_BUILD="$(dirname "$RXE_KO")" PREFIX=/usr/local)
NS=i88
out=$(mktemp)

# our modules out of the way (earlier tests insmod them from the tree)
unload_all() {
	local m
	for m in rxe_cc_dcqcn rxe_cc_pcn rxe_cc_ldcp rdma_rxe sch_dcb; do
		[ ! -d "/sys/module/$m" ] || rmmod "$m" || return 1
	done
}
cleanup() {
	ip netns del "$NS" 2>/dev/null
	unload_all
	"${MK[@]}" uninstall >/dev/null 2>&1
	rm -f "$out"
}
unload_all || fail "cannot unload our modules before the test"
at_exit cleanup

src=/lib/modules/$kver
tree=$(mktemp -d)
mount -t tmpfs -o mode=0755 mods "$tree" || fail "tmpfs"
at_exit "umount '$tree'; rmdir '$tree'"
for f in modules.builtin modules.builtin.modinfo modules.order; do
	[ ! -f "$src/$f" ] || cp "$src/$f" "$tree/"
done
# the distribution's modules the test loads, with what they depend on
# (rxe asks the crypto API for crc32, which loads it by alias)
for m in rdma_rxe veth sch_netem crypto-crc32; do
	modprobe --show-depends "$m" 2>/dev/null | awk '$1 == "insmod" { print $2 }'
done | sort -u >"$out"
while read -r p; do
	d=${p#"$src"/}
	mkdir -p "$tree/$(dirname "$d")" && cp "$p" "$tree/$d" || fail "copy $p"
done <"$out"
mount --bind "$tree" "$src" || fail "bind mount the module tree"
at_exit "umount '$src'"
log "module tree: $(find "$tree" -name '*.ko*' | wc -l) distribution modules"

"${MK[@]}" install >"$out" 2>&1 || { cat "$out"; fail "make install"; }
log "installed: $(find "/lib/modules/$kver/updates/dcblab" -name '*.ko' -printf '%f ')"

# rdma_rxe: ours, found by modprobe, with its dependencies
p=$(modinfo -n rdma_rxe)
[ "$p" = "/lib/modules/$kver/updates/dcblab/rdma_rxe.ko" ] || check_err 1 "modinfo -n rdma_rxe: $p"
modprobe rdma_rxe || fail "modprobe rdma_rxe"
grep -qw rxe_cc_register /proc/kallsyms
check_err $? "the loaded rdma_rxe is not ours"
for m in $(modinfo -F depends rdma_rxe | tr , ' '); do
	[ -d "/sys/module/$m" ] || check_err 1 "dependency $m not loaded"
done
log "modprobe rdma_rxe loaded $p with $(modinfo -F depends rdma_rxe)"
log_test "modprobe rdma_rxe: ours, with its dependencies"

# a device in a namespace, then the algorithms by name
ip netns add "$NS" || fail "netns"
e=$(ip -n "$NS" link add v88a type veth peer name v88b 2>&1) || fail "veth: $e ($(modprobe -n -v veth 2>&1 | head -n2))"
ip -n "$NS" link set v88a up && ip -n "$NS" link set v88b up && ip -n "$NS" addr add 10.88.0.1/24 dev v88a ||
	fail "veth up"
ip netns exec "$NS" rdma link add i88rxe type rxe netdev v88a || fail "rdma link add"
algo=/sys/class/infiniband/i88rxe/cc/algo
# (rdma's shared namespace mode: the device's files are in every one)
setalgo() { (echo "$1" >"$algo") 2>&1; }
for bad in nosuch Dcqcn ../dcqcn; do
	if e=$(setalgo "$bad"); then
		check_err 1 "cc/algo accepted '$bad'"
	else
		grep -q 'No such file' <<<"$e"
		check_err $? "cc/algo '$bad': $e (expected ENOENT)"
	fi
done
[ ! -d /sys/module/rxe_cc_dcqcn ] || check_err 1 "a refused name loaded rxe_cc_dcqcn"
log_test "cc/algo: nosuch, Dcqcn, ../dcqcn refused with ENOENT, nothing loaded"
for a in dcqcn pcn; do
	if e=$(setalgo "$a"); then
		[ -d "/sys/module/rxe_cc_$a" ] || check_err 1 "rxe_cc_$a not loaded"
		[ "$(cat "$algo")" = "$a" ] || check_err 1 "cc/algo is not $a"
		log "echo $a > cc/algo loaded rxe_cc_$a ($(modinfo -n "rxe_cc_$a" 2>&1))"
	else
		check_err 1 "echo $a > cc/algo: $e"
	fi
done
log_test "cc/algo: dcqcn and pcn loaded by their aliases"
setalgo none >/dev/null || fail "echo none > cc/algo"
ip netns exec "$NS" rdma link del i88rxe || fail "rdma link del"

# tc finds the plugin where the distribution's tc looks; the kernel
# loads sch_dcb, the tree's
if ip netns exec "$NS" tc qdisc add dev v88a root dcb rate 10mbit limit 100kb >"$out" 2>&1; then
	[ -d /sys/module/sch_dcb ] || check_err 1 "sch_dcb not loaded"
	s=$(ip netns exec "$NS" tc qdisc show dev v88a)
	grep -q 'dcb.*rate 10Mbit' <<<"$s"
	check_err $? "tc qdisc show: $s"
	log "$(head -n1 <<<"$s" | cut -c1-80)"
else
	cat "$out"
	check_err 1 "tc qdisc add dcb without TC_LIB_DIR"
fi
ip netns exec "$NS" tc qdisc add dev v88b root netem delay 10ms 1ms distribution normal
check_err $? "netem with its distribution table, without TC_LIB_DIR"
log_test "tc: the dcb plugin and netem's table without TC_LIB_DIR"
/usr/local/sbin/dcbmon -h >"$out" 2>&1; rc=$?
grep -qi 'usage' "$out"
check_err $? "dcbmon -h (rc $rc): $(head -n2 "$out")"
[ "$(readlink /usr/local/bin/dcblab)" = "$TOP/scripts/dcblab" ] ||
	check_err 1 "/usr/local/bin/dcblab is not a link to the checkout's"
for m in man8/tc-dcb.8 man8/dcbmon.8 man1/dcblab.1; do
	grep -q '^\.TH' "/usr/local/share/man/$m" 2>/dev/null
	check_err $? "man page $m not installed"
done
log_test "dcbmon, dcblab, tc-dcb(8), dcbmon(8), dcblab(1) installed"
ip netns del "$NS"

# uninstall: the distribution's rdma_rxe is back, ours is gone
unload_all || fail "unload before uninstall"
"${MK[@]}" uninstall >"$out" 2>&1 || { cat "$out"; fail "make uninstall"; }
p=$(modinfo -n rdma_rxe 2>/dev/null)
case $p in
"/lib/modules/$kver/kernel/"*) ;;
*) check_err 1 "after uninstall modinfo -n rdma_rxe: '$p'" ;;
esac
ip netns add "$NS" && ip -n "$NS" link add v88a type veth peer name v88b || fail "netns"
! ip netns exec "$NS" tc qdisc add dev v88a root dcb rate 10mbit >/dev/null 2>&1
check_err $? "tc still knows dcb after uninstall"
[ ! -e /usr/local/sbin/dcbmon ] || check_err 1 "dcbmon still installed"
[ ! -L /usr/local/bin/dcblab ] || check_err 1 "dcblab still installed"
[ ! -e /usr/local/share/man/man8/tc-dcb.8 ] || check_err 1 "tc-dcb.8 still installed"
[ ! -e /etc/depmod.d/dcblab.conf ] || check_err 1 "depmod.d file still installed"
log "uninstalled; modinfo -n rdma_rxe: $p"
log_test "make uninstall: the distribution's rdma_rxe, nothing of ours left"
tests_exit

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# On a fresh machine the first `make demo` (or check) resolves KDIR before
# scripts/deps.sh has installed the kernel headers; the `$(MAKE) all` that
# follows deps.sh must find them instead of inheriting the empty KDIR.
# Replayed here in a private mount namespace: /usr/src is empty while the
# top-level make reads the Makefile, and the real one is back (as after
# deps.sh) before the sub-make runs.  Runs on the host, no VM.
#
# timeout: 60

. "$(dirname "$0")/../net/lib.sh"

need_cmd unshare make
ls -d /usr/src/linux-headers-6.1.*-amd64 >/dev/null 2>&1 ||
	skip "no /usr/src/linux-headers-6.1.*-amd64 to find (run scripts/deps.sh)"
[ -z "$(ls -d "/lib/modules/$(uname -r)/build" 2>/dev/null)" ] ||
	skip "the running kernel has a build dir: KDIR never depends on /usr/src here"

tmp=$(mktemp -d /var/tmp/test_make_kdir.XXXXXX)
at_exit "rm -rf '$tmp'"
mkdir -p "$tmp/empty"
# stands in for $(DEPS_STAMP)'s recipe: the headers appear, then the
# target goes on with a sub-make, as demo and check do
cat >"$tmp/fresh.mk" <<'MK'
fresh:
	umount /usr/src
	$(MAKE) --no-print-directory -f $(TOP)/Makefile -f $(FRESH_MK) show-kdir
show-kdir:
	@echo "KDIR=$(KDIR)"
MK
out=$(unshare -m --propagation private bash -c '
	mount --bind "$1/empty" /usr/src || exit 3
	env -u KDIR make --no-print-directory -C "$2" -f "$2/Makefile" -f "$1/fresh.mk" \
		FRESH_MK="$1/fresh.mk" fresh
' _ "$tmp" "$TOP" 2>&1)
rc=$?
[ $rc != 3 ] || skip "cannot bind-mount over /usr/src in a mount namespace"
[ $rc = 0 ] || fail "make failed ($rc): $out"
kdir=$(sed -n 's/^KDIR=//p' <<<"$out" | tail -n1)
want=$(ls -d /usr/src/linux-headers-6.1.*-amd64 | sort -V | tail -n1)
[ "$kdir" = "$want" ] ||
	fail "the sub-make after the headers appeared has KDIR='$kdir', expected $want"
echo "ok: the sub-make finds KDIR=$kdir"
exit 0

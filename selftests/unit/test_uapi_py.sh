#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The Python module of sch_dcb's uAPI (scripts/gen_uapi.py ->
# scripts/dcbanalysis/uapi.py) says what the C compiler says: every
# constant has the value C gives it, every struct member the offset C
# gives it in the "=" (no padding) layout of the struct module, and every
# struct its C size.  And the generator refuses a field list that is not
# struct tc_dcb_stats.  Runs on the host.
#
# timeout: 60
. "$(dirname "$0")/../net/lib.sh"

need_cmd python3 "${CC:-gcc}"
tmp=$(mktemp -d)
at_exit "rm -rf '$tmp'"

python3 "$TOP/scripts/gen_uapi.py" -o "$tmp/uapi.py" || fail "gen_uapi.py"
# a C program printing, for every name of the module, C's value
python3 - "$tmp" >"$tmp/check.c" <<'PY' || fail "writing the C check"
import struct, sys
sys.path.insert(0, sys.argv[1])
import uapi
print('#include <stdio.h>\n#include <stddef.h>\n#include "pkt_sched_dcb.h"\nint main(void)\n{')
for name in dir(uapi):
    if name[0].isupper() and isinstance(getattr(uapi, name), int):
        print('\tprintf("%s %%lld\\n", (long long)%s);' % (name, name))
for s, members in uapi.STRUCTS.items():
    print('\tprintf("sizeof %s %%zu\\n", sizeof(struct %s));' % (s, s))
    for m, _ in members:
        print('\tprintf("%s.%s %%zu\\n", offsetof(struct %s, %s));' % (s, m, s, m))
print('\treturn 0;\n}')
PY
python3 - "$tmp" >"$tmp/want" <<'PY' || fail "reading the module"
import struct, sys
sys.path.insert(0, sys.argv[1])
import uapi
for name in dir(uapi):
    if name[0].isupper() and isinstance(getattr(uapi, name), int):
        print("%s %d" % (name, getattr(uapi, name)))
for s, members in uapi.STRUCTS.items():
    print("sizeof %s %d" % (s, struct.calcsize(uapi.struct_format(s))))
    off = 0
    for m, f in members:
        print("%s.%s %d" % (s, m, off))
        off += struct.calcsize("=" + f)
PY
"${CC:-gcc}" -Wall -Werror -I"$TOP/sch_dcb/uapi" -o "$tmp/check" "$tmp/check.c" ||
	fail "the module's names do not compile against the header"
"$tmp/check" >"$tmp/got" || fail "running the C check"
diff -u "$tmp/got" "$tmp/want" || fail "the Python module differs from C"
log "ok: $(grep -vc '^sizeof\|\.' "$tmp/want") constants and $(grep -c '^sizeof' "$tmp/want") structs as C has them"

# a field list that is not the struct: refused
sed 's/X(pause_lapses)/X(pause_lapses)\t\\\n\tX(new_counter)/' "$TOP/include/dcb_stats_fields.h" >"$tmp/fields.h"
grep -q new_counter "$tmp/fields.h" || fail "could not extend the field list"
python3 "$TOP/scripts/gen_uapi.py" --fields "$tmp/fields.h" -o "$tmp/bad.py" 2>"$tmp/err" &&
	fail "gen_uapi.py accepted a field list that is not the struct"
grep -q "is not struct tc_dcb_stats" "$tmp/err" || fail "gen_uapi.py: $(cat "$tmp/err")"
log "ok: a field list that differs from the struct is refused"

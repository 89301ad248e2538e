#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The full-kernel lane: boot Debian's stock kernel under qemu (t/vm/run-in-vm.sh), run every
# t/live test inside (t/vm/live-job.sh) and re-emit their TAP here, each line prefixed with
# the test file's name: so the host's results show what ran in the full kernel and what was
# skipped there, and why. A test that crashes, hangs or exits non-zero without a "not ok"
# fails here too; so does a VM that panics or passes its wall-clock limit.
#   FTK_VM_TIMEOUT (default 2400 s: every t/live test under TCG) wall-clock limit; FTK_VM_TESTS globs of t/live names.
. "$top_srcdir/t/tap.sh"
lane vm
why=$(. "$top_srcdir/t/vm/vm.sh" && vm_need) || skip_all "$why"

log=$top_builddir/t/vm/t8000-vm-live.console.log
mkdir -p "${log%/*}"
envs=()
[ -n "${FTK_VM_TESTS:-}" ] && envs=(-e "FTK_VM_TESTS=$FTK_VM_TESTS")
t0=$(date +%s)
err=$("$top_srcdir/t/vm/run-in-vm.sh" -t "${FTK_VM_TIMEOUT:-2400}" -l "$log" "${envs[@]}" \
	"$top_srcdir/t/vm/live-job.sh" 2>&1)
rc=$?
diag "$err"
is "$rc" 0 "the VM booted, ran t/vm/live-job.sh and powered off ($(($(date +%s) - t0)) s)"

# emit RESULT TEXT: one host TAP line (RESULT ok / not ok), numbered here.
emit() {
	tap_run=$((tap_run + 1))
	[ "$1" = "not ok" ] && tap_failed=$((tap_failed + 1))
	echo "$1 $tap_run - $2"
}

name= planned= ran= bad= skipped=
while IFS= read -r line; do
	line=${line%$'\r'}
	case $line in
	*'### FTK-VM-FTINFO-BEGIN'*) infolines=1; diag "ftinfo in the VM:"; continue ;;
	*'### FTK-VM-FTINFO-END'*) infolines=; continue ;;
	*'### FTK-VM-TEST-BEGIN '*)
		name=${line##*FTK-VM-TEST-BEGIN }
		planned= ran=0 bad=0 skipped=0
		continue ;;
	*'### FTK-VM-TEST-END '*)
		set -- ${line##*FTK-VM-TEST-END }
		trc=${2#rc=} secs=${3#secs=}
		if [ -n "$planned" ] && [ "$planned" != "$ran" ] && [ "$planned" != 0 ]; then
			emit "not ok" "$name: planned $planned tests, ran $ran"
		elif [ -z "$planned" ]; then
			emit "not ok" "$name: no TAP plan (the test died: exit status $trc)"
		fi
		if [ "$trc" != 0 ] && [ "$bad" = 0 ]; then
			killed=
			case $trc in 137|143) killed=" (killed after ${FTK_VM_TEST_TIMEOUT:-300} s?)" ;; esac
			emit "not ok" "$name: exit status $trc without a failed test$killed"
		fi
		diag "$name in the VM: $ran run, $bad failed, $skipped skipped, exit $trc, $secs s"
		name=
		continue ;;
	esac
	if [ -n "${infolines:-}" ]; then
		diag "  $line"
		continue
	fi
	[ -n "$name" ] || continue
	case $line in
	'1..0 # SKIP'*|'1..0 # skip'*)
		planned=0
		echo "ok $((tap_run += 1)) # SKIP $name: ${line#1..0 # [Ss][Kk][Ii][Pp]}" ;;
	1..[0-9]*)
		planned=${line#1..}; planned=${planned%% *} ;;
	'ok '*|'not ok '*)
		ran=$((ran + 1))
		res=ok; [ "${line#not ok}" != "$line" ] && res="not ok" && bad=$((bad + 1))
		rest=${line#"$res "}
		[[ $rest =~ ^[0-9]+\ *(-\ )?(.*)$ ]] && rest=${BASH_REMATCH[2]}
		case $rest in
		*'# SKIP'*|*'# skip'*)
			skipped=$((skipped + 1))
			echo "ok $((tap_run += 1)) # SKIP $name: ${rest#*# [Ss][Kk][Ii][Pp]}" ;;
		*) emit "$res" "$name: $rest" ;;
		esac ;;
	'Bail out!'*)
		bad=$((bad + 1)); planned=${planned:-$ran}
		emit "not ok" "$name: ${line}" ;;
	'#'*) line=${line#\#}; echo "# $name: ${line# }" ;;
	'') ;;
	*) echo "# $name| $line" ;;
	esac
done < <(tr -d '\r' < "$log" 2>/dev/null)
[ -n "$name" ] && emit "not ok" "$name: no end marker (the VM stopped in the middle of it)"
ok "the VM ran at least one t/live test" grep -q 'FTK-VM-TEST-END' "$log"
done_testing

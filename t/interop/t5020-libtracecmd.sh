#!/bin/bash
# Every shape of file ftrecord writes (version 7 and 6, zstd, zlib and no
# compression, a named instance, marks from the command, an instance's buffer
# beside the top one) is read by a second,
# independent reader: libtracecmd, trace-cmd's own library, through
# t/helpers/tracecmd-read. Its per-CPU and merged reads must agree with each
# other, and its records per CPU and per event, first and last time stamps,
# clock, version and compression with what ftreport --stat says; its records
# per CPU and first and last stamps with trace-cmd report -t.
. "$top_srcdir/t/tap.sh"
lane interop
need_root
need events instances raw_buffers
reader="$top_builddir/t/helpers/tracecmd-read"
command -v ftrecord > /dev/null || skip_all "ftrecord is not built here"
[ -x "$reader" ] || skip_all "libtracecmd is not installed (apt-get install libtracecmd-dev; contrib/install-deps.sh --test), so t/helpers/tracecmd-read was not built"
command -v trace-cmd > /dev/null || skip_all "trace-cmd is not installed"
tmp=$(mktemp -d /tmp/ftk-t5020-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
inst="ftkit-t5020-$$"
work='for i in 1 2 3 4 5; do cat /proc/version > /dev/null; done'
marks='ftmark t5020-mark-one; ftmark t5020-mark-two; ftmark t5020-mark-three'

# ftreport --stat, as "key value" facts
stat_facts() {
	awk '
	/^version:/ { print "version", $2; c = $3; gsub(/[()]/, "", c); print "compression", c }
	/^buffer:/ && $2 == "(top)" { split($3, a, "="); print "clock", a[2] }
	/^events:/ { print "records", $2 }
	/^first:/ { print "first", $2 }
	/^last:/ { print "last", $2 }
	/^  cpu[0-9]/ { c = $1; sub("cpu", "", c); print "cpu", c, $3 }
	/^per event:/ { pe = 1; next }
	pe && NF == 2 { print "event", $1, $2 }' "$1" | sort
}

# tracecmd-read's output (top buffer), as the same facts
tc_facts() {
	awk '
	/^version / { print "version", $2 }
	/^compression / { print "compression", $2 }
	/^clock / { print "clock", $2 }
	/^records / { print "records", $2 }
	/^cpu [0-9]+ records/ {
		print "cpu", $2, $4
		if ($4 > 0) {
			if (first == "" || $6 < first) first = $6
			if (last == "" || $8 > last) last = $8
		}
	}
	/^event / { print "event", $2, $3 }
	END {
		if (first != "") printf "first %d.%09d\nlast %d.%09d\n",
			int(first / 1e9), first % 1e9, int(last / 1e9), last % 1e9
	}' "$1" | sort
}

# trace-cmd report -t: records per CPU, first and last stamps
report_facts() {
	awk 'match($0, / \[[0-9]+\] +[0-9]+\.[0-9]+:/) {
		s = substr($0, RSTART, RLENGTH); gsub(/\[|\]|:/, " ", s); split(s, a, " ")
		n[a[1] + 0]++; if (first == "") first = a[2]; last = a[2]; total++
	}
	END {
		for (c in n) print "cpu", c, n[c]
		print "records", total + 0; print "first", first; print "last", last
	}' "$1" | sort
}

check_file() {	# name file [marks]
	local name=$1 f=$2
	if ! "$reader" "$f" > "$tmp/tc" 2> "$tmp/tc.err"; then
		_tap_result 1 "$name: libtracecmd reads the file, per-CPU and merged reads agree"
		sed 's/^/# /' "$tmp/tc.err"
		return
	fi
	_tap_result 0 "$name: libtracecmd reads the file, per-CPU and merged reads agree"
	is "$(sed -n 's/^backwards //p' "$tmp/tc")" 0 "$name: libtracecmd's merged read never goes back in time"
	ftreport --stat "$f" > "$tmp/stat" 2>&1
	stat_facts "$tmp/stat" > "$tmp/a"
	tc_facts "$tmp/tc" > "$tmp/b"
	if [ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b" && grep -q '^records [1-9]' "$tmp/a"; then
		_tap_result 0 "$name: records per CPU and event, stamps, clock, version as ftreport --stat"
	else
		_tap_result 1 "$name: records per CPU and event, stamps, clock, version as ftreport --stat"
		diff "$tmp/a" "$tmp/b" | head -10 | sed 's/^/# /'
	fi
	trace-cmd report -t "$f" > "$tmp/rep" 2>/dev/null
	report_facts "$tmp/rep" > "$tmp/c"
	grep -E '^(cpu [0-9]+ [1-9]|records|first|last)' "$tmp/b" > "$tmp/b2"
	if [ -s "$tmp/c" ] && cmp -s "$tmp/b2" "$tmp/c"; then
		_tap_result 0 "$name: records per CPU and first and last stamps as trace-cmd report"
	else
		_tap_result 1 "$name: records per CPU and first and last stamps as trace-cmd report"
		diff "$tmp/b2" "$tmp/c" | head -10 | sed 's/^/# /'
	fi
	if [ -n "${3:-}" ]; then
		for m in one two three; do
			ok "$name: trace-cmd report shows mark $m" grep -q "t5020-mark-$m" "$tmp/rep"
		done
		ok "$name: libtracecmd counts the marks as ftrace:print" \
			awk '$1 == "event" && $2 == "ftrace:print" && $3 >= 3 { f = 1 } END { exit !f }' "$tmp/tc"
	fi
}

zlib_ok=$(trace-cmd list -c 2>/dev/null | grep -c zlib)
for v in "default" "--file-version 6" "--compression zstd" "--compression none" \
	 "--compression zlib" "-B $inst" "marks"; do
	f="$tmp/r.dat"
	rm -f "$f"
	args=$v cmd=$work
	case $v in
	default) args= ;;
	marks) args= cmd=$marks ;;
	esac
	if [ "$v" = "--compression zlib" ] && [ "$zlib_ok" = 0 ]; then
		skip "ftrecord $v: this libtracecmd reads zstd only (trace-cmd list -c); t5010 reads it with ftreport"
		continue
	fi
	# shellcheck disable=SC2086
	if ! ftrecord -q -e sched -e raw_syscalls $args -o "$f" -- sh -c "$cmd" > "$tmp/rec.log" 2>&1; then
		_tap_result 1 "ftrecord $v"
		sed 's/^/# /' "$tmp/rec.log"
		continue
	fi
	check_file "ftrecord $v" "$f" "$([ "$v" = marks ] && echo marks)"
done

# Two buffers (events before and after -B), v7 and v6: libtracecmd finds the
# instance and counts in it the events trace-cmd report prints under its name.
for fv in 7 6; do
	f=$tmp/b.dat
	if ! ftrecord -q --file-version $fv -e sched:sched_process_exec -B "$inst" \
		-e sched:sched_process_exit -o "$f" -- sh -c "$work" > "$tmp/rec.log" 2>&1; then
		_tap_result 1 "ftrecord v$fv, two buffers"
		sed 's/^/# /' "$tmp/rec.log"
		continue
	fi
	"$reader" "$f" > "$tmp/tc" 2> "$tmp/tc.err"
	is "$?" 0 "v$fv, two buffers: libtracecmd reads both, per-CPU and merged reads agree"
	is "$(sed -n 's/^instances //p' "$tmp/tc")" 1 "v$fv, two buffers: libtracecmd finds one instance"
	n=$(awk -v b="$inst" '$1 == "buffer" { cur = $2 }
		cur == b && $1 == "event" && $2 == "sched:sched_process_exit" { print $3 }' "$tmp/tc")
	want=$(trace-cmd report "$f" 2>/dev/null | grep -c "^ *$inst: .*sched_process_exit:")
	ok "v$fv, two buffers: libtracecmd counts ${n:-no} exits in $inst, as trace-cmd report ($want)" \
		test "${n:-0}" = "$want" -a "$want" -gt 0
done
done_testing

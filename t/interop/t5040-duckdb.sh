#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A fleet's recordings in SQL (issue 27.4): three boxes' files, each with a
# known number of trace_marker lines, exported with ftreport -o csv (merged,
# -i A -i B -i C) and -o json (one file a box) and loaded into DuckDB
# (@duckdb/node-api, in /usr/local/lib/ftkit-node; FTK_NODE_MODULES
# overrides): the columns are ftreport(1)'s SCHEMA, each box holds its
# markers, and the count of each event of each box is ftreport --stat's.
# The README's queries run on the same table.
. "$top_srcdir/t/tap.sh"
. "$top_srcdir/t/lib/tracefs-snap.sh"
lane interop
need_root
need events instances trace_marker
command -v ftrecord > /dev/null || skip_all "ftrecord is not built here"
command -v node > /dev/null || skip_all "node is not installed (contrib/install-deps.sh --test)"
NODE_PATH=${FTK_NODE_MODULES:-/usr/local/lib/ftkit-node/node_modules}
export NODE_PATH
node -e 'require("@duckdb/node-api")' 2>/dev/null ||
	skip_all "@duckdb/node-api is not in $NODE_PATH (contrib/install-deps.sh --test)"

tmp=$(mktemp -d /tmp/ftk-t5040-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
T=$(tracefs_dir)
I="ftkit-t5040-$$"
export T I

sql() {
	node "$top_srcdir/t/helpers/duckdb-query.js" "$@" 2> "$tmp/sql.err" || sed 's/^/# /' "$tmp/sql.err" >&2
}

# Three boxes: box1, box2, box3 write 40, 70, 110 markers.
boxes="box1:40 box2:70 box3:110"
for b in $boxes; do
	name=${b%%:*} n=${b#*:}
	ftrecord -q -B "$I" -e sched:sched_switch -e sched:sched_wakeup -o "$tmp/$name.dat" -- \
		bash -c 'for ((i = 0; i < '"$n"'; i++)); do echo "ftk5040 $i" > "$T/instances/$I/trace_marker"; done' \
		> "$tmp/rec.log" 2>&1
	is_exit "$?" 0 "$name: ftrecord of $n markers exits 0" "$tmp/rec.log"
done
cd "$tmp" || exit 1

# The truth: each file's ftreport --stat, as "FILE SYSTEM EVENT COUNT" lines.
for b in $boxes; do
	ftreport --stat "${b%%:*}.dat" |
		awk -v f="${b%%:*}.dat" '/^per event:/ { s = 1; next } s && /^$/ { exit }
			s { split($1, e, ":"); print f "\t" e[1] "\t" e[2] "\t" $2 }'
done | LC_ALL=C sort > stat
ok "ftreport --stat counts events in every box" test "$(cut -f1 stat | sort -u | wc -l)" = 3

ftreport -o csv -i box1.dat -i box2.dat -i box3.dat > boxes.csv 2> err
is_exit "$?" 0 "ftreport -o csv -i box1.dat -i box2.dat -i box3.dat exits 0" err
for b in $boxes; do
	ftreport -o json "${b%%:*}.dat" > "${b%%:*}.json" 2> err
	is_exit "$?" 0 "ftreport -o json ${b%%:*}.dat exits 0" err
done

load_csv="create table ev as select * from read_csv_auto('boxes.csv')"
load_json="create table ev as select * from read_json_auto('box*.json')"
want_marks=$(for b in $boxes; do printf '%s.dat\t%s\n' "${b%%:*}" "${b#*:}"; done)
marks="select file, count(*) from ev where system = 'ftrace' and event = 'print'
	and info like '%ftk5040 %' group by file order by file"
counts="select file, system, event, count(*) n from ev group by all order by file, n desc"

is "$(sql "$load_csv" "select string_agg(column_name || ':' || column_type, ' ') from (describe ev)")" \
	"file:VARCHAR ts:BIGINT cpu:BIGINT pid:BIGINT comm:VARCHAR buffer:VARCHAR system:VARCHAR event:VARCHAR missed:BIGINT fields:VARCHAR info:VARCHAR" \
	"csv: read_csv_auto finds the columns and types of ftreport(1)'s SCHEMA"
is "$(sql "$load_csv" "$marks")" "$want_marks" "csv: each box holds its own markers (40, 70, 110)"
is "$(sql "$load_csv" "$counts" | LC_ALL=C sort)" "$(cat stat)" \
	"csv: the events of each box and type are ftreport --stat's"
is "$(sql "$load_csv" "select count(*) from ev where ts <> 0 and cpu >= 0 and pid >= 0 and missed >= 0
	and json_valid(fields) and (event <> 'sched_switch' or (fields::json->>'next_pid') is not null)")" \
	"$(awk -F'\t' '{ n += $4 } END { print n }' stat)" "csv: every row has a stamp, a CPU, a pid and its fields as JSON"

is "$(sql "$load_json" "select string_agg(column_name, ' ') from (describe ev)")" \
	"file ts cpu pid comm buffer system event missed fields info" \
	"json: read_json_auto finds the keys of ftreport(1)'s SCHEMA"
is "$(sql "$load_json" "$marks")" "$want_marks" "json: each box holds its own markers (40, 70, 110)"
is "$(sql "$load_json" "$counts" | LC_ALL=C sort)" "$(cat stat)" \
	"json: the events of each box and type are ftreport --stat's"
is "$(sql "$load_json" "select count(*) from ev where event = 'sched_switch' and fields.next_pid is not null")" \
	"$(awk -F'\t' '$3 == "sched_switch" { n += $4 } END { print n + 0 }' stat)" \
	"json: the fields are a struct (fields.next_pid of every sched_switch)"

# The README's slowest wake-ups: each sched_wakeup to the next sched_switch
# onto its pid, on the same box; a wake-up is never after its switch.
lat="with w as (select file, ts, (fields::json->>'pid')::int pid from ev where event = 'sched_wakeup'),
	s as (select file, ts, (fields::json->>'next_pid')::int pid from ev where event = 'sched_switch')
	select w.file, w.pid, s.ts - w.ts ns from w asof join s
	on w.file = s.file and w.pid = s.pid and s.ts >= w.ts
	qualify row_number() over (partition by w.file order by ns desc) <= 3 order by w.file, ns desc"
sql "$load_csv" "$lat" > lat
sed 's/^/# /' lat
ok "the README's slowest wake-ups: up to 3 a box, none negative" \
	awk -F'\t' '{ n[$1]++; if ($3 < 0 || n[$1] > 3) bad = 1 } END { exit bad || NR == 0 }' lat
done_testing

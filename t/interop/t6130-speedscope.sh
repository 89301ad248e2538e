#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ftkit's profiles in speedscope (its built web app from npm) in headless
# Chromium, opened through its Browse button as a user does
# (t/helpers/speedscope-browser.js, puppeteer-core):
#  - `ftprofile -f script` of t/helpers/profile-work (main -> a -> b -> spin);
#  - `ftreport -o chrome` of t/fixtures/synth-v6-graph.dat (function_graph
#    entries and returns: the slices speedscope draws; trace_marker lines
#    become instant events, which speedscope's importer drops, so a marker
#    trace would give it nothing to show).
# Checked for each: the import succeeds (speedscope sets the window title
# "NAME - speedscope" only once a profile imported; it alert()s a file it
# cannot read), it offers exactly the profiles (threads) expected, by name,
# and each profile's Sandwich table (the DOM list of every frame; the flame
# graphs are canvas pixels) holds exactly the frame names expected; spin
# has the most self time in profile-work; no console error, page error or
# alert. The expected names are read from the files by other means: the
# script text by awk here (so its content is checked on its own: it holds
# the known chain spin <- b <- a <- main), the trace by trace-cmd (the
# fixture's .report). A truncated file fails the import check, a frame
# renamed in ftreport's output fails the frame names.
# contrib/install-deps.sh --test installs Chromium, puppeteer-core and
# speedscope (in /usr/local/lib/ftkit-node; FTK_NODE_MODULES overrides).
. "$top_srcdir/t/tap.sh"
. "$top_srcdir/t/lib/browser.sh"
lane interop
need perf_software

W=$top_builddir/t/helpers/profile-work
[ -x "$W" ] || skip_all "t/helpers/profile-work is not built (make check builds it)"
need_browser
index=$NODE_PATH/speedscope/dist/release/index.html
[ -f "$index" ] || skip_all "speedscope is not in $NODE_PATH (contrib/install-deps.sh --test)"
tmp=$(mktemp -d /tmp/ftk-t6130-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# Run the browser on PROFILE against EXPECT; its TAP lines renumbered into ours.
browse() {
	timeout 180 node "$top_srcdir/t/helpers/speedscope-browser.js" "$chromium" "$index" \
		"$1" "$2" > "$tmp/tap" 2> "$tmp/node.err"
	local rc=$?
	tap_merge "$tmp/tap" "$3"
	is "$rc" 0 "$3: the browser run exits 0" || sed 's/^/# /' "$tmp/node.err" | head -20
}

# 1. ftprofile -f script: perf script's text, which speedscope imports.
ftprofile -F 999 -f script -o "$tmp/run.txt" -- "$W" fixed 3000 2> "$tmp/err"
is "$?" 0 "ftprofile -f script records profile-work" || sed 's/^/# /' "$tmp/err"
ok "the script has a stack spin <- b <- a <- main" awk '
	/^[ \t]+[0-9a-f]+ spin\+/ { s = NR } /^[ \t]+[0-9a-f]+ b\+/ && NR == s + 1 { b = NR }
	/^[ \t]+[0-9a-f]+ a\+/ && NR == b + 1 { a = NR } /^[ \t]+[0-9a-f]+ main\+/ && NR == a + 1 { f = 1 }
	END { exit !f }' "$tmp/run.txt"
# Each sample: "COMM PID/TID [CPU] TIME: PERIOD EVENT:", then "\tADDR SYM+OFF (FILE)"
# lines. speedscope names a profile "COMM pid: PID tid: TID" and a frame by
# its symbol without the offset, "[unknown]" as "??? (FILE)"; it titles the
# window with the one profile's name, or with the file's if there are more.
awk '
/^[^ \t#]/ {
	if (!match($0, / [0-9]+\/[0-9]+ +\[/)) next
	id = substr($0, RSTART + 1, RLENGTH - 1); sub(/ +\[$/, "", id)
	split(id, pt, "/"); cur = substr($0, 1, RSTART - 1) " pid: " pt[1] " tid: " pt[2]
	if (!(cur in seen)) { seen[cur] = 1; order[++np] = cur }
	leaf = 1; next
}
/^[ \t]+[0-9a-f]+ .* \(.*\)$/ && cur != "" {
	s = $0; sub(/^[ \t]+[0-9a-f]+ +/, "", s)
	file = s; sub(/^.* \(/, "", file); sub(/\)$/, "", file)
	sub(/ \([^()]*\)$/, "", s); sub(/\+0x[0-9a-f]+$/, "", s)
	if (s == "[unknown]") s = "??? (" file ")"
	fr[cur, s] = 1; names[cur] = names[cur] SUBSEP s
	if (leaf) { self[cur, s]++; leaf = 0 }
}
END {
	print "title " (np == 1 ? order[1] : "run.txt") " - speedscope"
	for (i = 1; i <= np; i++) {
		p = order[i]; print "profile " p
		n = split(names[p], l, SUBSEP); best = ""; delete done
		for (j = 2; j <= n; j++) if (!(l[j] in done)) {
			done[l[j]] = 1; print "frame " l[j]
			if (best == "" || self[p, l[j]] > self[p, best]) best = l[j]
		}
		if (p ~ /^profile-work /) print "top " best
	}
}' "$tmp/run.txt" > "$tmp/run.expect"
ok "the script names the profile-work thread" grep -q '^profile profile-work pid: ' "$tmp/run.expect"
browse "$tmp/run.txt" "$tmp/run.expect" "ftprofile -f script"

# 2. ftreport -o chrome of function_graph records. trace-cmd's report of the
# same file (the fixture's .report) gives the threads with funcgraph_entry
# records and the functions each entered; speedscope names a thread's
# profile "COMM (pid P, tid P)" from the thread_name metadata ftreport
# writes. A function with no symbol is "ffffffff90000000" in trace-cmd's
# report and "0x..." in ftreport's.
fx=$top_srcdir/t/fixtures/synth-v6-graph
ftreport -o chrome --output "$tmp/graph.json" "$fx.dat" 2> "$tmp/err"
is "$?" 0 "ftreport -o chrome reads the function_graph fixture" || sed 's/^/# /' "$tmp/err"
{
	echo "title graph.json - speedscope"
	awk '$0 ~ /: funcgraph_entry: / {
		t = $1; pid = t; sub(/.*-/, "", pid); comm = t; sub(/-[0-9]+$/, "", comm)
		p = comm " (pid " pid ", tid " pid ")"
		f = $0; sub(/.*\| */, "", f); sub(/\(\).*$/, "", f)
		if (f ~ /^[0-9a-f]+$/) f = "0x" f
		if (!(p in seen)) { seen[p] = 1; order[++np] = p }
		if (!((p, f) in fr)) { fr[p, f] = 1; list[p] = list[p] SUBSEP f }
	}
	END {
		for (i = 1; i <= np; i++) {
			print "profile " order[i]
			n = split(list[order[i]], l, SUBSEP)
			for (j = 2; j <= n; j++) print "frame " l[j]
		}
	}' "$fx.report"
} > "$tmp/graph.expect"
ok "trace-cmd's report has function_graph threads" grep -q '^frame ' "$tmp/graph.expect"
browse "$tmp/graph.json" "$tmp/graph.expect" "ftreport -o chrome"
done_testing

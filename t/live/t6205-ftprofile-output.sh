#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ftprofile's output file (issue 24, items 5 and 6): checked before the
# command runs, an existing file replaced whole, "-" standard output, a
# device or /dev/stdout written as it is; with a command and no -o, the
# stacks go to ftprofile.FORMAT, never mixed with the command's own output;
# -i refuses a line that is no folded stack, naming it.
. "$top_srcdir/t/tap.sh"
lane live
need_root
need perf_software

W=$top_builddir/t/helpers/profile-work
[ -x "$W" ] || skip_all "t/helpers/profile-work is not built (make check builds it)"
tmp=$(mktemp -d /tmp/ftkit-t6205.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || bail_out "cannot enter $tmp"

# stacks FILE: the samples in a folded file (0 when it has none or is missing)
stacks() { awk '{ n += $NF } END { print n + 0 }' "$1" 2>/dev/null || echo 0; }
# The command prints a line that looks like a stack, then works.
CMD=(sh -c 'echo done 13803471505900157720; exec "$0" chain 0.3' "$W")

# --- an existing file is replaced at the end, with the whole profile
echo old > x.folded
ftprofile -o x.folded "${CMD[@]}" > cmd.out 2> err; is "$?" 0 "-o over an existing file: exit 0"
ok "the existing file now holds the stacks ($(stacks x.folded) samples)" \
	test "$(stacks x.folded)" -gt 5 -a "$(grep -c '^old$' x.folded)" = 0
is "$(cat cmd.out)" "done 13803471505900157720" "the command's output alone on standard output"
ok "no temporary left beside it" test "$(ls -A | grep -c '^\.x\.folded')" = 0

# --- a bad output fails before the command runs
for bad in "$tmp/nodir/x.folded" "$tmp"; do
	rm -f ran
	ftprofile -o "$bad" sh -c 'touch ran' 2> err
	is "$?" 2 "-o $bad: exit 2"
	ok "-o $bad: the command never ran" test ! -e ran
	ok "-o $bad: 'cannot write' names it" grep -q "cannot write '$bad'" err
done

# --- devices and descriptors are written as they are
ftprofile -o /dev/null "$W" chain 0.2 2> err; is "$?" 0 "-o /dev/null: exit 0"
ok "/dev/null is still a character device" test -c /dev/null
ftprofile -o /dev/stdout "$W" chain 0.3 > so.folded 2> err; is "$?" 0 "-o /dev/stdout: exit 0"
ok "-o /dev/stdout: the stacks went where standard output goes ($(stacks so.folded) samples)" \
	test "$(stacks so.folded)" -gt 5
ok "/dev/stdout is still a link" test -L /dev/stdout
ftprofile -o - "$W" chain 0.3 > dash.folded 2> err; is "$?" 0 "-o -: exit 0"
ok "-o -: the stacks on standard output ($(stacks dash.folded) samples)" \
	test "$(stacks dash.folded)" -gt 5
ok "-o -: no file named '-'" test ! -e ./-
mkfifo fifo
cat fifo > fifo.folded & cat=$!
ftprofile -o fifo "$W" chain 0.3 2> err; is "$?" 0 "-o FIFO: exit 0"
wait $cat
ok "-o FIFO: the stacks came through it ($(stacks fifo.folded) samples)" test "$(stacks fifo.folded)" -gt 5
ok "the FIFO is still a FIFO" test -p fifo

# --- with a command and no -o: ftprofile.FORMAT, said on stderr
ftprofile "${CMD[@]}" > cmd.out 2> err; is "$?" 0 "no -o: exit 0"
is "$(cat cmd.out)" "done 13803471505900157720" "no -o: standard output holds the command's output only"
ok "no -o: ftprofile.folded holds the stacks ($(stacks ftprofile.folded) samples)" \
	test "$(stacks ftprofile.folded)" -gt 5
ok "no -o: stderr names the file" grep -q "'ftprofile.folded'" err
ftprofile -f svg "$W" chain 0.2 > /dev/null 2> err; is "$?" 0 "-f svg, no -o: exit 0"
ok "-f svg, no -o: ftprofile.svg is the flame graph" grep -q '<svg' ftprofile.svg
mkdir pid && (cd pid && ftprofile -p $$ -D 0.2 > ../pid.folded 2> ../err)
is "$?" 0 "-p PID, no -o: exit 0"
ok "-p PID, no -o: standard output, no file made" test -z "$(ls -A pid)"

# --- -i refuses what is no folded stack, naming the line
printf 'main;a 3\ndone 13803471505900157720\n' > mixed.folded
ftprofile -i mixed.folded > /dev/null 2> err; is "$?" 2 "-i: a program's line among the stacks: exit 2"
ok "-i: the message names line 2" grep -q "mixed.folded:2: not a folded stack" err
printf 'main;a 3\nhello world\n' > words.folded
ftprofile -i words.folded > /dev/null 2> err; is "$?" 2 "-i: a line without a count: exit 2"
ok "-i: the message names line 2" grep -q "words.folded:2: not a folded stack" err
printf 'main;a 3\nmain;b 4\n' > good.folded
is "$(ftprofile -i good.folded -o - | awk '{ n += $NF } END { print n }')" 7 "-i: good stacks are read whole"
done_testing

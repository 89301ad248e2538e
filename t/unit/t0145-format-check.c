// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The own check of event formats from files (lib/format-check.c): every
 * shape that crashes libtraceevent 1.7.1 (t/fixtures/fuzz-*.dat and
 * reading its parser) loses its print fmt before libtraceevent sees it,
 * and the kernel's own shapes (divisions by constants, nested ternaries,
 * casts, helpers) pass untouched. The kept part is then parsed by
 * libtraceevent, here in the test's own process: a crash fails the test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "format-check.h"
#include "tap.h"

#define HEAD "name: ev\nID: 7\nformat:\n" \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n" \
	"\tfield:long prev_state;\toffset:8;\tsize:8;\tsigned:1;\n" \
	"\tfield:int b;\toffset:16;\tsize:4;\tsigned:1;\n" \
	"\tfield:int arr[4];\toffset:20;\tsize:16;\tsigned:1;\n" \
	"\tfield:__data_loc char[] name;\toffset:36;\tsize:4;\tsigned:1;\n\n" \
	"print fmt: "

static const struct {
	const char	*args;
	int		bad;
	const char	*what;
} cases[] = {
	/* shapes that crash libtraceevent 1.7.1 */
	{ "\"%d\", (0x%00000000 | 1)", 1, "constant folding 0x % 0 (fuzz-format-div0)" },
	{ "\"%s\", (REC->prev_state & 3) ? \"x\" :VIF_P REC->prev_state & 1 ? \"+\" : \"\"", 1,
	  "an item run into REC-> after ':' (fuzz-bad-ternary)" },
	{ "\"%d\", REC->b / 0", 1, "division by the constant 0" },
	{ "\"%d\", REC->b % REC->b", 1, "modulo by a field (traps at print time)" },
	{ "\"%d\", REC->b / 5 * REC->b", 1, "a divisor libtraceevent extends to 5 * field" },
	{ "\"%d\", REC->b / -1", 1, "a negative divisor (LLONG_MIN / -1 traps)" },
	{ "\"%d\", REC->b / sizeof(REC->b)", 1, "sizeof a field, which a format can make 0" },
	{ "\"%d\", REC->arr[1][2]", 1, "two subscripts: '[' after ']'" },
	{ "\"%d\", REC->arr[REC->b ? 1 : 2]", 1, "']' right after the else of '?:'" },
	{ "\"%d\", ((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((("
	  "(((((((((((((((((((((((((((((((((((((((((((((((((((((((((((1", 1,
	  "nesting deeper than the check allows" },
	{ "\"%s\", __print_symbolic(REC->nosuch, { 0, \"A\" })", 1,
	  "__print_symbolic of a name that is not a field (fuzz-print-symbolic-unknown-field)" },
	{ "\"%s\", __print_flags(REC->nosuch & 3, \"|\", { 1, \"A\" })", 1,
	  "__print_flags of a name that is not a field" },
	{ "\"%d\", REC->b + REC->arrr[1]", 1, "REC-> of a name that is not a field, elsewhere" },
	/* the kernel's own shapes */
	{ "\"%lu\", REC->prev_state / 1000L", 0, "a division by a literal (timer:itimer_state)" },
	{ "\"%lu\", (REC->prev_state - REC->b) / 250, REC->b", 0, "writeback's jiffies / 250" },
	{ "\"%d\", __get_dynamic_array_len(name) / sizeof(u64)", 0, "dma's len / sizeof(u64)" },
	{ "\"%d %s\", REC->b, REC->b ? REC->b > 1 ? \"a\" : \"b\" : \"c\"", 0, "nested ternaries" },
	{ "\"%s%s\", (REC->prev_state & 255) ? __print_flags(REC->prev_state & 255, \"|\", "
	  "{ 0x01, \"S\" }, { 0x02, \"D\" }) : \"R\", REC->prev_state & 256 ? \"+\" : \"\"", 0,
	  "sched_switch's flags" },
	{ "\"%d %s\", (int)REC->arr[1], __get_str(name)", 0, "a cast, a subscript, a string" },
	{ "\"%lx\", (unsigned long)(REC->prev_state) % 4096", 0, "modulo by a literal" },
	{ "\"%s %d\", __print_symbolic(REC->common_pid, { 0, \"A\" }), REC->arr[0]", 0,
	  "__print_symbolic of a common field" },
};

/* field lines: an unclosed '[' crashes event_read_fields() (libtraceevent 1.7.1) */
static const struct {
	const char	*line;
	int		bad;
	const char	*what;
} fields[] = {
	{ "char buf[", 1, "'[' then the end of the format (fuzz-field-unclosed-bracket)" },
	{ "char buf[\n16];\toffset:2;\tsize:16;\tsigned:0;", 1, "']' on the next line" },
	{ "char buf[\"]\";\toffset:2;\tsize:16;\tsigned:0;", 1, "']' only inside a string" },
	{ "char buf[16];\toffset:2;\tsize:16;\tsigned:0;", 0, "an array" },
	{ "__data_loc char[] s;\toffset:2;\tsize:4;\tsigned:0;", 0, "a dynamic array" },
};

int main(void)
{
	size_t i, keep;
	const char *why;
	char buf[4096];
	int n, ret;

	tep_set_loglevel(TEP_LOG_NONE);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tep_handle *tep = tep_alloc();
		struct tep_event *ev;

		n = snprintf(buf, sizeof(buf), HEAD "%s\n", cases[i].args);
		ret = ftk_format_check(buf, n, &keep, &why);
		ok(ret == cases[i].bad, "%s: %s%s%s", cases[i].what,
		   ret ? "print fmt left out: " : "accepted", ret ? why : "", "");
		if (ret)
			ok(keep == strlen(HEAD) - strlen("print fmt: "),
			   "%s: the fields are kept, up to the print fmt", cases[i].what);
		tep_set_long_size(tep, 8);
		tep_parse_event(tep, buf, keep, "t");
		ev = tep_find_event(tep, 7);
		ok(ev && tep_find_field(ev, "b"), "%s: libtraceevent parses what is kept",
		   cases[i].what);
		tep_free(tep);
	}
	ret = ftk_format_check(HEAD, strlen(HEAD), &keep, &why);
	ok(ret == 0 && keep == strlen(HEAD), "a format cut before its arguments is left alone");
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		struct tep_handle *tep = tep_alloc();

		n = snprintf(buf, sizeof(buf), "name: ev\nID: 7\nformat:\n"
			     "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
			     "\tfield:%s\n\nprint fmt: \"%%d\", REC->common_type\n", fields[i].line);
		ret = ftk_format_check(buf, n, &keep, &why);
		ok(ret == (fields[i].bad ? 2 : 0), "field %s: %s%s", fields[i].what,
		   ret ? "format left out: " : "accepted", ret ? why : "");
		ok(ret != 2 || keep == 0, "field %s: nothing kept when left out", fields[i].what);
		tep_set_long_size(tep, 8);
		if (keep)
			tep_parse_event(tep, buf, keep, "t");
		ok(fields[i].bad || tep_find_event(tep, 7), "field %s: libtraceevent parses it",
		   fields[i].what);
		tep_free(tep);
	}
	return done_testing();
}

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * format-check: the own first reading of an event format that comes from
 * a file, before libtraceevent parses it.
 *
 * libtraceevent 1.7.1 trusts event formats. Reading its parser
 * (src/event-parse.c) and running the fuzz fixtures against an ASan build
 * of it gave these shapes of a print fmt's arguments that crash it, all
 * inside tep_parse_event() or later in tep_print_event():
 *
 *  1. '/' or '%' whose divisor is not a positive constant.
 *     consolidate_op_arg() folds two constants at parse time and divides
 *     (SIGFPE on "0x%00"), and eval_num_arg() divides by a field value at
 *     print time, signed (SIGFPE on 0, and on LLONG_MIN / -1). Kernel
 *     formats divide only by constants: "REC->value_nsec / 1000L",
 *     "__get_dynamic_array_len(x) / sizeof(u64)".
 *  2. An operator libtraceevent does not know (get_op_prio() == -1: "->",
 *     "]", "}", "[", ";", "=", ...) right after the else operand of "?:"
 *     or after "[i]": process_op() then recurses on its NULL right operand
 *     (SIGSEGV on "... : VIF_P REC->prev_state ...").
 *  3. Nesting deep enough to run the recursive-descent parser out of
 *     stack: every operator and parenthesis is a level of recursion.
 *  4. "REC->X" where X is not a field the format declares: as the value
 *     of __print_symbolic() or __print_flags(), process_entry()
 *     (event-parse.c:2547) writes through the NULL tep_find_any_field()
 *     gives for X (SIGSEGV). Kernel formats name only their own fields.
 *
 * A format with any of them is handed to libtraceevent without its
 * "print fmt:" line: the event and its fields stay known, and it prints
 * as trace-cmd prints any format libtraceevent cannot parse.
 *
 * One shape crashes libtraceevent before the print fmt, so a format with
 * it is not handed to libtraceevent at all (the event stays unknown):
 *
 *  5. A field line whose '[' is not closed by a ']' on the same line:
 *     event_read_fields() (event-parse.c:1797) reads on for the ']' and
 *     strcmp()s the NULL token it gets at the end of the format or at a
 *     character it has no token for ("field:char buf[" then EOF).
 *
 * The
 * tokenizer below follows libtraceevent's __read_token(), so that both
 * see the same tokens.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "format-check.h"

#define MAX_TOKENS	(1 << 20)
#define MAX_OPS		2048	/* operators: each is a recursion in process_op() */
#define MAX_NEST	128	/* parentheses, brackets and braces */

struct tok {
	enum tok_type	type;
	unsigned int	len;
	const char	*s;
};

struct lexer {
	const char	*buf;
	size_t		size, pos;
};

enum tok_type ftk_tep_char_type(int ch)
{
	if (ch == '\n')
		return T_NEWLINE;
	if (isspace(ch))
		return T_SPACE;
	if (isalnum(ch) || ch == '_')
		return T_ITEM;
	if (ch == '\'')
		return T_SQUOTE;
	if (ch == '"')
		return T_DQUOTE;
	if (!isprint(ch))
		return T_NONE;
	if (ch == '(' || ch == ')' || ch == ',')
		return T_DELIM;
	return T_OP;
}

static int lx_peek(const struct lexer *l)
{
	return l->pos < l->size ? (unsigned char)l->buf[l->pos] : -1;
}

static int lx_get(struct lexer *l)
{
	return l->pos < l->size ? (unsigned char)l->buf[l->pos++] : -1;
}

/* One token as __read_token() cuts it; spaces and newlines are skipped. */
static enum tok_type lx_next(struct lexer *l, struct tok *t)
{
	enum tok_type type;
	int ch, last, next;
	size_t save;

	do {
		ch = lx_get(l);
		if (ch < 0)
			return t->type = T_NONE;
		type = ftk_tep_char_type(ch);
	} while (type == T_SPACE || type == T_NEWLINE);
	t->s = l->buf + l->pos - 1;
	t->type = type;
	switch (type) {
	case T_NONE:
	case T_DELIM:
		break;
	case T_OP:
		switch (ch) {
		case '-':
			if (lx_peek(l) == '>') {
				lx_get(l);
				break;
			}
			/* fall through */
		case '+': case '|': case '&': case '>': case '<':
			next = lx_peek(l);
			if (next == ch) {
				lx_get(l);
				if (ch != '>' && ch != '<')
					break;
			}
			if (lx_peek(l) == '=')
				lx_get(l);
			break;
		case '!': case '=':
			if (lx_peek(l) == '=')
				lx_get(l);
			break;
		default:
			break;
		}
		break;
	case T_DQUOTE:
	case T_SQUOTE:
		/* as __read_token(), whose handling of "\\" this keeps */
		last = 0;
		for (;;) {
			do {
				last = ch;
				ch = lx_get(l);
				if (ch == '\\' && last == '\\')
					last = 0;
				if (ch <= 0)
					break;
			} while ((ch != t->s[0] && isprint(ch)) || last == '\\' || ch == '\n');
			if (ch <= 0)
				return t->type = T_NONE;
			if (type != T_DQUOTE)
				break;
			/* adjacent strings are one, as in libtraceevent */
			save = l->pos;
			do {
				ch = lx_get(l);
			} while (ch >= 0 && isspace(ch));
			if (ch != '"') {
				l->pos = save;
				break;
			}
		}
		break;
	case T_ITEM:
	default:
		while (ftk_tep_char_type(lx_peek(l)) == type)
			lx_get(l);
		break;
	}
	t->len = (unsigned int)(l->buf + l->pos - t->s);
	/* libtraceevent turns these three names into strings (its force_token()) */
	if (type == T_ITEM && ((t->len == 12 && !memcmp(t->s, "LOCAL_PR_FMT", 12)) ||
			       (t->len == 10 && (!memcmp(t->s, "STA_PR_FMT", 10) ||
						 !memcmp(t->s, "VIF_PR_FMT", 10)))))
		t->type = type = T_DQUOTE;
	return type;
}

static int is(const struct tok *t, enum tok_type type, const char *s)
{
	return t->type == type && t->len == strlen(s) && !memcmp(t->s, s, t->len);
}

/* libtraceevent's get_op_prio(): -1 for an operator it does not know. */
static int op_prio(const struct tok *t)
{
	static const char *const two[] = { "++", "--", ">>", "<<", ">=", "<=", "==", "!=",
					   "&&", "||" };
	static const int two_prio[] = { 3, 3, 8, 8, 9, 9, 10, 10, 14, 15 };
	size_t i;

	if (t->len == 1) {
		switch (t->s[0]) {
		case '~': case '!': return 4;
		case '*': case '/': case '%': return 6;
		case '+': case '-': return 7;
		case '<': case '>': return 9;
		case '&': return 11;
		case '^': return 12;
		case '|': return 13;
		case '?': return 16;
		default: return -1;
		}
	}
	for (i = 0; i < ARRAY_SIZE(two); i++)
		if (is(t, T_OP, two[i]))
			return two_prio[i];
	return -1;
}

/* Index just past the parenthesis that closes the one at @i, or @n. */
static size_t close_paren(const struct tok *t, size_t n, size_t i)
{
	int depth = 0;

	for (; i < n; i++) {
		if (is(&t[i], T_DELIM, "("))
			depth++;
		else if (is(&t[i], T_DELIM, ")") && --depth == 0)
			return i + 1;
	}
	return n;
}

/*
 * Where the operand starting at @i ends, as process_arg_token() reads it;
 * (size_t)-1 where libtraceevent takes a path that cannot reach shape 2
 * (a unary operator parses its own tail with a real operand).
 */
static size_t operand_end(const struct tok *t, size_t n, size_t i, int depth)
{
	size_t k;

	if (i >= n || depth > MAX_NEST)
		return (size_t)-1;
	switch (t[i].type) {
	case T_ITEM:
		if (is(&t[i], T_ITEM, "REC"))
			return i + 2 < n && is(&t[i + 1], T_OP, "->") && t[i + 2].type == T_ITEM ?
			       i + 3 : (size_t)-1;
		if (i + 1 < n && is(&t[i + 1], T_DELIM, "("))
			return close_paren(t, n, i + 1);
		for (k = i + 1; k < n && t[k].type == T_ITEM; k++)
			;
		return k;
	case T_DQUOTE:
	case T_SQUOTE:
		return i + 1;
	case T_DELIM:
		if (!is(&t[i], T_DELIM, "("))
			return (size_t)-1;
		k = close_paren(t, n, i);
		/* "(type) x" is a cast of the operand that follows */
		if (k < n && (t[k].type == T_ITEM || t[k].type == T_DQUOTE ||
			      t[k].type == T_SQUOTE || is(&t[k], T_DELIM, "(")))
			return operand_end(t, n, k, depth + 1);
		return k;
	default:
		return (size_t)-1;
	}
}

/* After an operand: a token that sends process_op() to a NULL operand? */
static int bad_follow(const struct tok *t, size_t n, size_t k)
{
	return k < n && t[k].type == T_OP && !is(&t[k], T_OP, ":") && op_prio(&t[k]) < 0;
}

/* A positive constant libtraceevent reads as such: 1 .. LLONG_MAX, C suffixes allowed. */
static int positive_literal(const struct tok *t)
{
	unsigned long long v;
	char num[32], *end;

	if (t->type != T_ITEM || t->len >= sizeof(num) || !isdigit((unsigned char)t->s[0]))
		return 0;
	memcpy(num, t->s, t->len);
	num[t->len] = 0;
	errno = 0;
	v = strtoull(num, &end, 0);
	if (errno || end == num || v == 0 || v > LLONG_MAX)
		return 0;
	while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
		end++;
	return !*end;
}

/*
 * The divisor after the '/' or '%' at @i: a positive constant or
 * sizeof(a type), followed by something that cannot take it as its left
 * operand (libtraceevent makes "a / 5 * b" into a / (5 * b)).
 */
static int safe_divisor(const struct tok *t, size_t n, size_t i)
{
	size_t k = i + 1, j;
	int prio;

	if (k < n && positive_literal(&t[k])) {
		k++;
	} else if (k + 2 < n && is(&t[k], T_ITEM, "sizeof") && is(&t[k + 1], T_DELIM, "(")) {
		j = close_paren(t, n, k + 1);
		if (j == n && !is(&t[n - 1], T_DELIM, ")"))
			return 0;
		for (k += 2; k < j - 1; k++)	/* a type: sizeof(REC->f) may be 0 */
			if (t[k].type != T_ITEM || is(&t[k], T_ITEM, "REC"))
				return 0;
		k = j;
	} else {
		return 0;
	}
	if (k >= n || t[k].type == T_DELIM)
		return 1;
	if (t[k].type != T_OP)
		return 0;
	if (is(&t[k], T_OP, ":") || is(&t[k], T_OP, "]") || is(&t[k], T_OP, "}"))
		return 1;
	prio = op_prio(&t[k]);
	return prio > 6;
}

/* The names of the fields a format declares, as tokens into its text. */
struct fields {
	struct tok	*name;
	size_t		n, cap;
};

static int is_field(const struct fields *f, const struct tok *t)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (f->name[i].len == t->len && !memcmp(f->name[i].s, t->s, t->len))
			return 1;
	return 0;
}

/*
 * Read the field line at @line (up to @end): its name goes into @f (the
 * last word before ';' outside brackets, as event_read_fields() takes
 * it). Returns -1 (with *why) when a '[' is not closed on the line: shape
 * 5 above. Tokens are cut as libtraceevent cuts them, so that a ']'
 * inside a string does not count.
 */
static int check_field_line(const char *line, const char *end, struct fields *f,
			    const char **why)
{
	struct lexer l = { .buf = line, .size = (size_t)(end - line) };
	struct tok t, name = { .type = T_NONE };
	int depth = 0, named = 0;

	if (lx_next(&l, &t) != T_ITEM || !is(&t, T_ITEM, "field") ||
	    lx_next(&l, &t) != T_OP || !is(&t, T_OP, ":"))
		return 0;	/* not a field line */
	while (lx_next(&l, &t) != T_NONE) {
		if (is(&t, T_OP, "["))
			depth++;
		else if (is(&t, T_OP, "]") && depth > 0)
			depth--;
		else if (!depth && is(&t, T_OP, ";"))
			named = 1;
		else if (!depth && !named && t.type == T_ITEM)
			name = t;
	}
	/* a string or a character libtraceevent has no token for also ends the line here */
	if (depth) {
		*why = "a field whose '[' is not closed on its line";
		return -1;
	}
	if (name.type != T_ITEM)
		return 0;
	if (f->n == f->cap) {
		struct tok *nn;

		f->cap = f->cap ? f->cap * 2 : 32;
		nn = realloc(f->name, f->cap * sizeof(*nn));
		if (!nn)
			return -ENOMEM;
		f->name = nn;
	}
	f->name[f->n++] = name;
	return 0;
}

/* Check the arguments of the print fmt that starts at @p. */
static int check_args(const char *p, size_t size, const struct fields *f, const char **why)
{
	struct lexer l = { .buf = p, .size = size };
	struct tok *t = NULL, one;
	size_t n = 0, cap = 0, i;
	int depth = 0, ops = 0, ret = 0;

	/* "print" "fmt" ":" then the format string, then "," and the arguments */
	if (lx_next(&l, &one) != T_ITEM || lx_next(&l, &one) != T_ITEM ||
	    lx_next(&l, &one) != T_OP || lx_next(&l, &one) != T_DQUOTE)
		return 0;	/* libtraceevent will not get as far as the arguments */
	while (lx_next(&l, &one) == T_DQUOTE)
		;
	if (one.type != T_DELIM)
		return 0;
	while (lx_next(&l, &one) != T_NONE) {
		if (n == cap) {
			struct tok *nt;

			if (cap >= MAX_TOKENS) {
				*why = "too many tokens";
				ret = -1;
				goto out;
			}
			cap = cap ? cap * 2 : 256;
			nt = realloc(t, cap * sizeof(*t));
			if (!nt) {
				ret = -ENOMEM;
				goto out;
			}
			t = nt;
		}
		t[n++] = one;
	}
	for (i = 0; i < n; i++) {
		if (is(&t[i], T_DELIM, "(") || is(&t[i], T_OP, "[") || is(&t[i], T_OP, "{")) {
			if (++depth > MAX_NEST) {
				*why = "nested too deeply";
				ret = -1;
				break;
			}
		} else if (is(&t[i], T_DELIM, ")") || is(&t[i], T_OP, "]") || is(&t[i], T_OP, "}")) {
			depth--;
		}
		if (t[i].type == T_OP && ++ops > MAX_OPS) {
			*why = "too many operators";
			ret = -1;
			break;
		}
		if ((is(&t[i], T_OP, "/") || is(&t[i], T_OP, "%")) && !safe_divisor(t, n, i)) {
			*why = "a division by something other than a positive constant";
			ret = -1;
			break;
		}
		if (is(&t[i], T_OP, ":") && bad_follow(t, n, operand_end(t, n, i + 1, 0))) {
			*why = "an unknown operator after the else part of '?:'";
			ret = -1;
			break;
		}
		if (is(&t[i], T_ITEM, "REC") && i + 2 < n && is(&t[i + 1], T_OP, "->") &&
		    t[i + 2].type == T_ITEM && !is_field(f, &t[i + 2])) {
			*why = "REC-> of a name that is not one of its fields";
			ret = -1;
			break;
		}
		if (is(&t[i], T_OP, "]") && bad_follow(t, n, i + 1)) {
			*why = "an unknown operator after '[...]'";
			ret = -1;
			break;
		}
	}
out:
	free(t);
	return ret;
}

/**
 * ftk_format_check() - whether libtraceevent may parse an event format
 * @buf: the format, as in events/SYSTEM/EVENT/format
 * @size: its length
 * @keep: receives how many bytes to hand to tep_parse_event()
 * @why: receives the reason when part of the format is left out
 *
 * Return: 0 when the whole format is safe (*keep == @size), 1 when only
 * the part before "print fmt:" is (*keep is where it starts, *why says
 * why), 2 when none of it is (*keep == 0, *why says why), or -ENOMEM.
 */
int ftk_format_check(const char *buf, size_t size, size_t *keep, const char **why)
{
	struct fields f = { 0 };
	const char *p, *first = NULL, *end;
	int ret = 0;

	*keep = size;
	*why = NULL;
	/* Every field line, wherever it is: shape 5, and the names for shape 4. */
	for (p = buf; p < buf + size; p = end + 1) {
		end = memchr(p, '\n', size - (p - buf));
		if (!end)
			end = buf + size;
		ret = check_field_line(p, end, &f, why);
		if (ret == -ENOMEM)
			goto out;
		if (ret) {
			*keep = 0;
			ret = 2;
			goto out;
		}
	}
	/* Every "print" libtraceevent could take for the start of the print fmt. */
	for (p = buf; (p = memmem(p, size - (p - buf), "print", 5)); p += 5) {
		/* where libtraceevent looks for it: at the start of a line */
		if (!first && (p == buf || p[-1] == '\n'))
			first = p;
		ret = check_args(p, size - (p - buf), &f, why);
		if (ret == -ENOMEM)
			goto out;
		if (ret) {
			*keep = (first ? first : p) - buf;
			ret = 1;
			goto out;
		}
	}
out:
	free(f.name);
	return ret;
}

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * filter-check: ftk_filter_add(), libtraceevent's record filters
 * (trace-cmd report -F) without the shapes that crash it.
 *
 * tep_filter_add_filter_str() of libtraceevent 1.7.1 parses the filter
 * once per event it names (src/parse-filter.c, process_filter()), and
 * some filters it accepts, or fails on, crash it:
 *
 *  1. An unfinished expression at the end ("A || x", "A ||", "x ==",
 *     "x &", "!x ==") or a second boolean operator ("A || || B"): the
 *     tree keeps a NULL operand and collapse_tree() -> test_arg()
 *     (parse-filter.c:810) dereferences it. trace-cmd report -F dies the
 *     same way (SIGSEGV). An unclosed string ends the input there.
 *  2. Error paths that free a node twice: a "!" after a boolean operator
 *     whose operand fails ("A || !"), a comparison after a complete one
 *     ("A || B C == 1"), a "!" whose operand is followed by a boolean
 *     operator ("!!A || B"): process_filter()'s fail: label frees
 *     current_op and current_exp, and current_exp is inside current_op.
 *  3. '/' or '%' by a field or by 0: get_exp_value() divides (SIGFPE);
 *     '<<' or '>>' by a field or by 64 or more (undefined).
 *  4. Nesting: every '(' and '!' is a recursion of process_filter().
 *  5. A ',' after the ':' is taken as an event-name separator, and the
 *     length of that "name" goes negative (a huge malloc()).
 *  6. A string compared with a field that is not a string ("pid ==
 *     \"1\"", CPU too): get_field_str() prints the number into a local
 *     buffer that test_str() reads after it is gone (found by
 *     t/fuzz/run.sh filter; ASan: stack-use-after-scope).
 *
 * Which operands are fields, and so the tree's shape, depends on the
 * event: a word that is not a field of it becomes FALSE ("sched:
 * prev_pid == 0" is FALSE for sched_wakeup, as in trace-cmd). So the
 * check runs libtraceevent's tokenizer and parser here, node for node
 * (without building the real filter), once for each event the filter
 * names, and refuses the filter if any of them would reach one of the
 * shapes above. Everything else goes to libtraceevent unchanged, so the
 * records kept are trace-cmd's. Written by hand because libtraceevent
 * exports neither its tokenizer nor any check of a filter.
 */
#include <ctype.h>
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include <ftkit/print.h>

#include "internal.h"
#include "comm-local.h"
#include "format-check.h"

#define FC_MAX_DEPTH	32	/* '(' and '!' nested */
#define FC_MAX_OPS	1024	/* operators in one filter */

/* The node types of struct tep_filter_arg. */
enum fc_type { N_NONE, N_BOOL, N_FIELD, N_VALUE, N_OP, N_NUM, N_EXP, N_STR };
enum fc_val { V_NUMBER, V_STRING, V_CHAR };
enum fc_opk { K_NONE, K_BOOL, K_NOT, K_EXP, K_CMP };

struct fc_node {
	enum fc_type		type;
	int			sub;		/* op, cmp or exp kind */
	enum fc_val		vtype;
	unsigned long long	val;
	int			text;		/* N_FIELD: a string field, or COMM */
	struct fc_node		*l, *r;
	int			freed;
};

struct fc {
	const char		*in;		/* the filter's body */
	size_t			len, pos;
	struct tep_event	*event;
	char			*tok;		/* the last token */
	size_t			toklen, tokcap;
	struct fc_node		*pool;
	size_t			npool, used;
	int			depth, ops;
	const char		*why;		/* set: refused */
};

/* ------------------------------------------------------------ tokenizer */

static int fc_read(struct fc *c)
{
	return c->pos < c->len ? c->in[c->pos++] : -1;	/* as char: signed */
}

static int fc_peek(struct fc *c)
{
	return c->pos < c->len ? c->in[c->pos] : -1;
}

static void fc_put(struct fc *c, int ch)
{
	if (c->toklen + 2 > c->tokcap) {
		size_t cap = c->tokcap ? c->tokcap * 2 : 64;
		char *t = realloc(c->tok, cap);

		if (!t) {
			c->why = "out of memory";
			return;
		}
		c->tok = t;
		c->tokcap = cap;
	}
	c->tok[c->toklen++] = (char)ch;
	c->tok[c->toklen] = '\0';
}

/* event-parse.c __read_token() */
static enum tok_type fc_token1(struct fc *c)
{
	int ch, last, quote;
	enum tok_type type;

	c->toklen = 0;
	fc_put(c, 0);
	c->toklen = 0;
	ch = fc_read(c);
	if (ch < 0)
		return T_NONE;
	type = ftk_tep_char_type(ch);
	if (type == T_NONE)
		return type;
	switch (type) {
	case T_NEWLINE:
	case T_DELIM:
		fc_put(c, ch);
		return type;
	case T_OP:
		fc_put(c, ch);
		switch (ch) {
		case '-':
			if (fc_peek(c) == '>') {
				fc_put(c, fc_read(c));
				return type;
			}
			/* fall through */
		case '+': case '|': case '&': case '>': case '<':
			last = ch;
			if (fc_peek(c) != last)
				goto test_equal;
			fc_put(c, fc_read(c));
			if (last == '>' || last == '<')
				goto test_equal;
			return type;
		case '!': case '=':
			goto test_equal;
		default:
			return type;
		}
test_equal:
		if (fc_peek(c) == '=')
			fc_put(c, fc_read(c));
		return type;
	case T_DQUOTE:
	case T_SQUOTE:
		quote = ch;
concat:
		do {
			last = ch;
			ch = fc_read(c);
			fc_put(c, ch);
			if (ch == '\\' && last == '\\')
				last = 0;
			if (ch <= 0)
				break;
		} while ((ch != quote && isprint(ch)) || last == '\\' || ch == '\n');
		c->tok[--c->toklen] = '\0';	/* the closing quote */
		if (ch <= 0)
			type = T_NONE;
		if (type == T_DQUOTE) {
			size_t save = c->pos;

			do
				ch = fc_read(c);
			while (isspace(ch));
			if (ch == '"')
				goto concat;
			c->pos = save;
		}
		return type;
	default:
		break;
	}
	fc_put(c, ch);
	while (ftk_tep_char_type(fc_peek(c)) == type)
		fc_put(c, fc_read(c));
	/* event-parse.c replaces these three words by strings */
	if (type == T_ITEM && (!strcmp(c->tok, "LOCAL_PR_FMT") || !strcmp(c->tok, "STA_PR_FMT") ||
			       !strcmp(c->tok, "VIF_PR_FMT")))
		type = T_DQUOTE;
	return type;
}

/* parse-filter.c filter_read_token(): spaces skipped, "=~" and "!~" joined */
static enum tok_type fc_token(struct fc *c)
{
	enum tok_type type;

	do
		type = fc_token1(c);
	while (type == T_NEWLINE || type == T_SPACE);
	if ((!strcmp(c->tok, "=") || !strcmp(c->tok, "!")) && fc_peek(c) == '~') {
		char first = c->tok[0];

		(void)fc_token1(c);	/* the '~' */
		c->toklen = 0;
		fc_put(c, first);
		fc_put(c, '~');
	}
	return type;
}

/* --------------------------------------------------------------- nodes */

static struct fc_node *fc_alloc(struct fc *c, enum fc_type type)
{
	struct fc_node *n;

	if (c->used == c->npool) {
		c->why = "filter too long";
		return NULL;
	}
	n = &c->pool[c->used++];
	memset(n, 0, sizeof(*n));
	n->type = type;
	return n;
}

/* parse-filter.c free_arg(), noting a node freed twice */
static void fc_free(struct fc *c, struct fc_node *n)
{
	if (!n)
		return;
	if (n->freed) {
		c->why = "libtraceevent would free a node twice on this syntax error";
		return;
	}
	n->freed = 1;
	if (n->type == N_NUM || n->type == N_EXP || n->type == N_OP) {
		fc_free(c, n->l);
		fc_free(c, n->r);
	}
}

/* create_arg_item(): a number, a string, a field, or FALSE for another word */
static struct fc_node *fc_item(struct fc *c, enum tok_type type)
{
	struct fc_node *n = fc_alloc(c, N_VALUE);
	struct tep_format_field *f;

	if (!n)
		return NULL;
	if (type == T_SQUOTE || type == T_DQUOTE) {
		n->vtype = type == T_DQUOTE ? V_STRING : V_CHAR;
	} else if (isdigit((unsigned char)c->tok[0])) {
		n->vtype = V_NUMBER;
		n->val = strtoull(c->tok, NULL, 0);
	} else if ((f = tep_find_any_field(c->event, c->tok))) {
		n->type = N_FIELD;
		n->text = !!(f->flags & TEP_FIELD_IS_STRING);
	} else if (!strcmp(c->tok, "COMM") || !strcmp(c->tok, "CPU")) {
		n->type = N_FIELD;
		n->text = c->tok[1] == 'O';
	} else {
		n->type = N_BOOL;
	}
	return n;
}

/* add_right(): 0, or -1 for libtraceevent's error */
static int fc_add_right(struct fc *c, struct fc_node *op, struct fc_node *arg)
{
	struct fc_node *left;
	regex_t re;
	int cmp;

	switch (op->type) {
	case N_EXP:
	case N_OP:
		if (op->r)
			return -1;
		op->r = arg;
		return 0;
	case N_NUM:
		if (op->r)
			return -1;
		/*
		 * A field on the right: libtraceevent reads value.type out of
		 * the union that holds the field's pointer, and fails.
		 */
		if (arg->type == N_FIELD) {
			c->why = "a field on the right of a comparison";
			return -1;
		}
		if (arg->type != N_VALUE)
			return -1;
		cmp = op->sub;
		if (arg->vtype == V_CHAR && strlen(c->tok) == 1 && cmp != TEP_FILTER_CMP_REGEX &&
		    cmp != TEP_FILTER_CMP_NOT_REGEX)
			arg->vtype = V_NUMBER;
		if (arg->vtype == V_NUMBER) {
			if (cmp == TEP_FILTER_CMP_REGEX || cmp == TEP_FILTER_CMP_NOT_REGEX)
				return -1;
			op->r = arg;
			return 0;
		}
		/* a string compare; the node is reset first */
		left = op->l;
		op->type = N_NONE;
		op->l = op->r = NULL;
		if (left->type == N_BOOL) {
			fc_free(c, left);
			fc_free(c, arg);
			op->type = N_BOOL;
			return 0;
		}
		if (left->type != N_FIELD)
			return -1;
		if (cmp == TEP_FILTER_CMP_REGEX || cmp == TEP_FILTER_CMP_NOT_REGEX) {
			if (regcomp(&re, c->tok, REG_ICASE | REG_NOSUB))
				return -1;
			regfree(&re);
		} else if (cmp != TEP_FILTER_CMP_EQ && cmp != TEP_FILTER_CMP_NE) {
			return -1;
		}
		/*
		 * get_field_str() gives the text of a field that is not a
		 * string in a local buffer of its own (char hex[64]), which
		 * test_str() then reads after it returned.
		 */
		if (!left->text) {
			c->why = "a string compared with a field that is not a string";
			return -1;
		}
		fc_free(c, arg);
		fc_free(c, left);
		op->type = N_STR;
		return 0;
	default:
		return -1;
	}
}

/* add_left() */
static int fc_add_left(struct fc_node *op, struct fc_node *arg)
{
	struct fc_node *t;

	if ((op->type == N_EXP || op->type == N_NUM) && arg->type == N_OP) {
		t = arg->r;		/* rotate_op_right() */
		arg->r = op;
		arg = t;
	}
	switch (op->type) {
	case N_EXP:
	case N_OP:
		op->l = arg;
		return 0;
	case N_NUM:
		if (!arg || (arg->type != N_FIELD && arg->type != N_BOOL))
			return -1;
		op->l = arg;
		return 0;
	default:
		return -1;
	}
}

/* process_op() */
static enum fc_opk fc_op(const char *t, int *sub)
{
	static const char *const exps[] = {
		[TEP_FILTER_EXP_ADD] = "+", [TEP_FILTER_EXP_SUB] = "-",
		[TEP_FILTER_EXP_MUL] = "*", [TEP_FILTER_EXP_DIV] = "/",
		[TEP_FILTER_EXP_MOD] = "%", [TEP_FILTER_EXP_RSHIFT] = ">>",
		[TEP_FILTER_EXP_LSHIFT] = "<<", [TEP_FILTER_EXP_AND] = "&",
		[TEP_FILTER_EXP_OR] = "|", [TEP_FILTER_EXP_XOR] = "^",
		[TEP_FILTER_EXP_NOT] = "~",
	};
	static const char *const cmps[] = {
		[TEP_FILTER_CMP_EQ] = "==", [TEP_FILTER_CMP_NE] = "!=",
		[TEP_FILTER_CMP_GT] = ">", [TEP_FILTER_CMP_LT] = "<",
		[TEP_FILTER_CMP_GE] = ">=", [TEP_FILTER_CMP_LE] = "<=",
		[TEP_FILTER_CMP_REGEX] = "=~", [TEP_FILTER_CMP_NOT_REGEX] = "!~",
	};
	size_t i;

	*sub = 0;
	if (!strcmp(t, "&&") || !strcmp(t, "||")) {
		*sub = t[0] == '&' ? TEP_FILTER_OP_AND : TEP_FILTER_OP_OR;
		return K_BOOL;
	}
	if (!strcmp(t, "!")) {
		*sub = TEP_FILTER_OP_NOT;
		return K_NOT;
	}
	for (i = 0; i < ARRAY_SIZE(exps); i++)
		if (exps[i] && !strcmp(t, exps[i])) {
			*sub = (int)i;
			return K_EXP;
		}
	for (i = 0; i < ARRAY_SIZE(cmps); i++)
		if (cmps[i] && !strcmp(t, cmps[i])) {
			*sub = (int)i;
			return K_CMP;
		}
	return K_NONE;
}

/*
 * The tree parse-filter.c's test_arg() and test_filter() walk: no NULL
 * operand, and no division or shift whose right side is not a constant
 * they can take.
 */
static void fc_tree(struct fc *c, const struct fc_node *n)
{
	if (!n || c->why)
		return;
	switch (n->type) {
	case N_OP:
		if ((n->sub != TEP_FILTER_OP_NOT && !n->l) || !n->r) {
			c->why = "an unfinished expression";
			return;
		}
		fc_tree(c, n->l);
		fc_tree(c, n->r);
		return;
	case N_NUM:
	case N_EXP:
		if (!n->l || !n->r) {
			c->why = "an unfinished expression";
			return;
		}
		if (n->type == N_EXP &&
		    (n->sub == TEP_FILTER_EXP_DIV || n->sub == TEP_FILTER_EXP_MOD) &&
		    (n->r->type != N_VALUE || n->r->vtype != V_NUMBER || !n->r->val)) {
			c->why = "'/' or '%' by something else than a constant above 0";
			return;
		}
		if (n->type == N_EXP &&
		    (n->sub == TEP_FILTER_EXP_LSHIFT || n->sub == TEP_FILTER_EXP_RSHIFT) &&
		    (n->r->type != N_VALUE || n->r->vtype != V_NUMBER || n->r->val >= 64)) {
			c->why = "'<<' or '>>' by something else than a constant below 64";
			return;
		}
		fc_tree(c, n->l);
		fc_tree(c, n->r);
		return;
	default:
		return;
	}
}

/*
 * process_filter(), step for step: *parg gets the level's tree. Returns 0,
 * 1 for the ')' that ends a level, or -1 for a syntax error; c->why is set
 * when libtraceevent would crash.
 */
static int fc_level(struct fc *c, struct fc_node **parg, int not)
{
	struct fc_node *op = NULL, *exp = NULL, *left = NULL, *arg = NULL;
	enum tok_type type;
	enum fc_opk k;
	int ret, sub;

	*parg = NULL;
	if (++c->depth > FC_MAX_DEPTH) {
		c->why = "'(' or '!' nested too deep";
		return -1;
	}
	do {
		type = fc_token(c);
		if (c->why)
			return -1;
		switch (type) {
		case T_SQUOTE:
		case T_DQUOTE:
		case T_ITEM:
			arg = fc_item(c, type);
			if (!arg)
				return -1;
			if (!left) {
				left = arg;
			} else if (exp) {
				if (fc_add_right(c, exp, arg) < 0)
					goto fail;
				left = NULL;
				if (not) {
					arg = NULL;
					if (op)
						goto fail;
					*parg = exp;
					c->depth--;
					return 0;
				}
			} else {
				goto fail;
			}
			arg = NULL;
			break;
		case T_DELIM:
			if (c->tok[0] == ',')
				goto fail;
			if (c->tok[0] == '(') {
				if (left || exp)
					goto fail;
				ret = fc_level(c, &arg, 0);
				if (ret != 1)
					goto fail;
				if (not) {
					if (op)
						goto fail;
					*parg = arg;
					c->depth--;
					return 0;
				}
				if (op) {
					if (fc_add_right(c, op, arg) < 0)
						goto fail;
				} else {
					exp = arg;
				}
			} else {
				if (!op && !exp)
					goto fail;
				/* check_op_done() */
				if (exp && (exp->type == N_EXP || exp->type == N_OP ||
					    exp->type == N_NUM) && !exp->r)
					goto fail;
				if (exp && exp->type != N_EXP && exp->type != N_OP &&
				    exp->type != N_NUM && exp->type != N_STR && exp->type != N_BOOL)
					goto fail;
				if (op && !op->r)
					goto fail;
				*parg = op ? op : exp;
				c->depth--;
				return 1;
			}
			break;
		case T_OP:
			if (++c->ops > FC_MAX_OPS) {
				c->why = "too many operators";
				return -1;
			}
			k = fc_op(c->tok, &sub);
			if (k == K_NONE)
				goto fail;
			if (k == K_BOOL && !exp && !op)
				goto fail;
			if ((k == K_BOOL || k == K_NOT) && left)
				goto fail;
			if ((k == K_EXP || k == K_CMP) && !left)
				goto fail;
			if (k == K_BOOL) {
				arg = fc_alloc(c, N_OP);
				if (!arg)
					return -1;
				arg->sub = sub;
				fc_add_left(arg, op ? op : exp);
				op = arg;
				exp = NULL;
			} else if (k == K_NOT) {
				arg = fc_alloc(c, N_OP);
				if (!arg)
					return -1;
				arg->sub = sub;
				if (op && fc_add_right(c, op, arg) < 0)
					goto fail;
				exp = arg;
				/* its ')' too is a failure there */
				if (fc_level(c, &arg, 1) != 0)
					goto fail;
				if (fc_add_right(c, exp, arg) < 0)
					goto fail;
			} else {
				arg = fc_alloc(c, k == K_EXP ? N_EXP : N_NUM);
				if (!arg)
					return -1;
				arg->sub = sub;
				if (op && fc_add_right(c, op, arg) < 0)
					goto fail;
				if (fc_add_left(arg, left) < 0) {
					arg = NULL;
					goto fail;
				}
				exp = arg;
			}
			arg = NULL;
			break;
		case T_NONE:
			break;
		default:
			goto fail;
		}
	} while (type != T_NONE && !c->why);
	if (c->why)
		return -1;
	if (!op && !exp)
		goto fail;
	if (!op)
		op = exp;
	fc_tree(c, op);
	*parg = op;
	c->depth--;
	return c->why ? -1 : 0;
fail:
	/* process_filter()'s fail: label */
	fc_free(c, op);
	fc_free(c, exp);
	fc_free(c, arg);
	c->depth--;
	return -1;
}

/* NULL, or why the filter @body would crash libtraceevent for @event. */
static const char *fc_event(struct fc *c, struct tep_event *event, const char *body)
{
	struct fc_node *root;

	c->in = body;
	c->len = strlen(body);
	c->pos = 0;
	c->event = event;
	c->used = 0;
	c->depth = 0;
	c->ops = 0;
	c->why = NULL;
	(void)fc_level(c, &root, 0);
	return c->why;
}

/* find_event(): each event "SYS/NAME" or "NAME" (both anchored, case-blind regexes) names */
static int fc_events_named(struct tep_handle *tep, const char *names, struct tep_event ***out)
{
	struct tep_event **all = tep_list_events(tep, TEP_EVENT_SORT_ID);
	struct tep_event **hits = NULL;
	char *list, *one, *sys, *name, *re, *sp1, *sp2;
	regex_t sreg, ereg;
	size_t n = 0;
	int i, hit;

	*out = NULL;
	list = strdup(names);
	if (!list || !all) {
		free(list);
		return -ENOMEM;
	}
	for (one = strtok_r(list, ",", &sp1); one; one = strtok_r(NULL, ",", &sp1)) {
		sys = strtok_r(one, "/", &sp2);
		name = strtok_r(NULL, "/", &sp2);
		if (!sys)
			continue;
		if (!name) {
			name = sys;
			sys = NULL;
		}
		while (isspace((unsigned char)*name))
			name++;
		for (i = (int)strlen(name); i > 0 && isspace((unsigned char)name[i - 1]); i--)
			name[i - 1] = '\0';
		if (asprintf(&re, "^%s$", name) < 0)
			goto nomem;
		hit = regcomp(&ereg, re, REG_ICASE | REG_NOSUB);
		free(re);
		if (hit)
			continue;		/* libtraceevent says so */
		if (sys) {
			while (isspace((unsigned char)*sys))
				sys++;
			for (i = (int)strlen(sys); i > 0 && isspace((unsigned char)sys[i - 1]); i--)
				sys[i - 1] = '\0';
			if (asprintf(&re, "^%s$", sys) < 0) {
				regfree(&ereg);
				goto nomem;
			}
			hit = regcomp(&sreg, re, REG_ICASE | REG_NOSUB);
			free(re);
			if (hit) {
				regfree(&ereg);
				continue;
			}
		}
		for (i = 0; all[i]; i++) {
			if (sys)
				hit = !regexec(&sreg, all[i]->system, 0, NULL, 0) &&
				      !regexec(&ereg, all[i]->name, 0, NULL, 0);
			else
				hit = !regexec(&ereg, all[i]->system, 0, NULL, 0) ||
				      !regexec(&ereg, all[i]->name, 0, NULL, 0);
			if (hit) {
				struct tep_event **h = realloc(hits, (n + 2) * sizeof(*h));

				if (!h) {
					if (sys)
						regfree(&sreg);
					regfree(&ereg);
					goto nomem;
				}
				hits = h;
				hits[n++] = all[i];
				hits[n] = NULL;
			}
		}
		if (sys)
			regfree(&sreg);
		regfree(&ereg);
	}
	free(list);
	*out = hits;
	return 0;
nomem:
	free(list);
	free(hits);
	return -ENOMEM;
}

/**
 * ftk_filter_add() - add a trace-cmd report -F filter, refusing crashers
 * @filter: libtraceevent's filter (tep_filter_alloc())
 * @str: "EVENTS: EXPRESSION" or "EVENTS", as tep_filter_add_filter_str()
 * @why: where a reason goes on failure
 * @len: size of @why
 *
 * Checks @str for each event it names against the shapes that crash
 * libtraceevent 1.7.1's filter parser or its matching (an unfinished
 * expression, a syntax error it frees twice, a division by a field or 0,
 * a shift by a field, deep nesting, a ',' in the expression, a string
 * compared with a field that is not a string) and refuses
 * it, or hands it to tep_filter_add_filter_str(). A word that is not a
 * field of an event is FALSE for that event, as in trace-cmd report.
 *
 * Return: 0, -EINVAL (refused by the check or by libtraceevent, with the
 * reason in @why), or -ENOMEM.
 */
int ftk_filter_add(struct tep_event_filter *filter, const char *str, char *why, size_t len)
{
	struct tep_handle *tep;
	struct tep_event **events = NULL;
	const char *colon, *bad = NULL;
	struct fc c = { 0 };
	char *names;
	int i, ret;

	if (!filter || !str || !why || !len)
		return ftk_err(-EINVAL);
	why[0] = '\0';
	tep = filter->tep;
	colon = strchr(str, ':');
	if (colon) {
		if (strchr(colon, ',')) {
			snprintf(why, len, "a ',' after the ':' (libtraceevent reads it as "
				 "another event name)");
			return ftk_err(-EINVAL);
		}
		names = strndup(str, (size_t)(colon - str));
		if (!names)
			return ftk_err(-ENOMEM);
		ret = fc_events_named(tep, names, &events);
		free(names);
		if (ret < 0)
			return ftk_err(ret);
		c.npool = strlen(colon) + 4;
		c.pool = calloc(c.npool, sizeof(*c.pool));
		if (!c.pool) {
			free(events);
			return ftk_err(-ENOMEM);
		}
		for (i = 0; events && events[i] && !bad; i++) {
			bad = fc_event(&c, events[i], colon + 1);
			if (bad)
				snprintf(why, len, "%s (for %s/%s), a shape libtraceevent 1.7.1 "
					 "mishandles",
					 bad, events[i]->system, events[i]->name);
		}
		free(c.pool);
		free(c.tok);
		free(events);
		if (bad)
			return ftk_err(-EINVAL);
	}
	/* libtraceevent's filter asks libtraceevent for a COMM */
	if (strstr(str, "COMM") && ftk_comms_to_tep(tep))
		return ftk_err(-ENOMEM);
	ret = tep_filter_add_filter_str(filter, str);
	if (ret < 0) {
		if (ret == TEP_ERRNO__MEM_ALLOC_FAILED)
			return ftk_err(-ENOMEM);
		tep_filter_strerror(filter, ret, why, len);
		return ftk_err(-EINVAL);
	}
	return 0;
}

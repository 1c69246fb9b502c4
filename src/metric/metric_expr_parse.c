/* SPDX-License-Identifier: MIT */
/*
 * The metric expression parser: perf's tokens (expr.l: the longest match wins, a keyword or a number over a
 * symbol of the same length) and a recursive-descent parser of perf's grammar (expr.y), one function per
 * precedence level. The tree lives in one array of nodes.
 */
#include "metric/metric_expr.h"

#include "core/error.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum tok {
	T_END, T_NUM, T_NAME, T_LITERAL, T_IF, T_ELSE, T_MIN, T_MAX, T_D_RATIO, T_SOURCE_COUNT, T_HAS_EVENT,
	T_CPUID, T_NAN, T_PUNCT,
};

struct parser {
	struct tly_expr *expr;
	const char *text;
	size_t pos;           /* after the current token */
	size_t tok_start;
	enum tok tok;
	char punct;           /* T_PUNCT's character */
	double num;
	char *name;           /* T_NAME, T_LITERAL: unescaped, owned until taken */
	int runtime;
	int err;
	int depth;
};

/* Deep enough for every vendor expression (the deepest nest a few dozen), shallow enough for the stack. */
#define MAX_DEPTH 200

static const struct {
	const char *word;
	enum tok tok;
} keywords[] = {
	{ "if", T_IF }, { "else", T_ELSE }, { "min", T_MIN }, { "max", T_MAX }, { "d_ratio", T_D_RATIO },
	{ "source_count", T_SOURCE_COUNT }, { "has_event", T_HAS_EVENT }, { "strcmp_cpuid_str", T_CPUID },
	{ "NaN", T_NAN },
};

static int fail(struct parser *p, size_t at, const char *what)
{
	if (p->err)
		return p->err;
	/* a window of the text around the offset, so that the caret fits the last error's text */
	size_t from = at > 40 ? at - 40 : 0;
	p->err = tly_error(-EINVAL, "metric expression: %s at offset %zu\n  %s%.80s\n  %*s^", what, at,
	                   from ? "..." : "", p->text + from, (int)(at - from + (from ? 3 : 0)), "");
	return p->err;
}

/* Length of perf's number token at s: ([0-9]+\.?[0-9]*|[0-9]*\.?[0-9]+)(e-?[0-9]+)? */
static size_t number_len(const char *s)
{
	size_t i = 0, digits = 0;
	while (isdigit((unsigned char)s[i]))
		i++, digits++;
	if (s[i] == '.') {
		size_t j = i + 1;
		while (isdigit((unsigned char)s[j]))
			j++, digits++;
		i = j;
	}
	if (!digits)
		return 0;
	if (s[i] == 'e') {
		size_t j = i + 1 + (s[i + 1] == '-');
		if (isdigit((unsigned char)s[j])) {
			while (isdigit((unsigned char)s[j]))
				j++;
			i = j;
		}
	}
	return i;
}

static bool symbol_char(char c)
{
	return isalnum((unsigned char)c) || strchr("_.:@?", c);
}

/* Length of a symbol at s: characters of [0-9a-zA-Z_.:@?] and the escapes \- \, \= */
static size_t symbol_len(const char *s)
{
	size_t i = 0;
	for (;;) {
		if (s[i] && symbol_char(s[i]))
			i++;
		else if (s[i] == '\\' && s[i + 1] && strchr("-,=", s[i + 1]))
			i += 2;
		else
			return i;
	}
}

/* The symbol's text without its backslashes, '?' as the runtime parameter. */
static char *unescape(const struct parser *p, const char *s, size_t len)
{
	char rt[16];
	int rt_len = snprintf(rt, sizeof(rt), "%d", p->runtime);
	char *out = malloc(len * (size_t)rt_len + 1);
	if (!out)
		return NULL;
	size_t o = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\\')
			i++;
		if (s[i] == '?') {
			memcpy(out + o, rt, (size_t)rt_len);
			o += (size_t)rt_len;
		} else {
			out[o++] = s[i];
		}
	}
	out[o] = '\0';
	return out;
}

static enum tok keyword(const char *s, size_t len)
{
	for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
		if (strlen(keywords[i].word) == len && strncmp(keywords[i].word, s, len) == 0)
			return keywords[i].tok;
	return T_NAME;
}

static int lex_word(struct parser *p, const char *s)
{
	size_t nlen = number_len(s), slen = symbol_len(s);
	if (nlen && nlen >= slen) {
		char buf[64];
		if (nlen >= sizeof(buf))
			return fail(p, p->tok_start, "number too long");
		memcpy(buf, s, nlen);
		buf[nlen] = '\0';
		p->num = strtod(buf, NULL);
		p->tok = T_NUM;
		p->pos += nlen;
		return 0;
	}
	p->tok = keyword(s, slen);
	p->num = NAN;
	p->pos += slen;
	if (p->tok == T_NAME && !(p->name = unescape(p, s, slen)))
		return p->err = -ENOMEM;
	return 0;
}

static int lex_literal(struct parser *p, const char *s)
{
	size_t len = 1;
	while (isalnum((unsigned char)s[len]) || (s[len] && strchr("_.-", s[len])))
		len++;
	if (len == 1)
		return fail(p, p->tok_start, "'#' without a literal's name");
	if (!(p->name = strndup(s, len)))
		return p->err = -ENOMEM;
	if (!tly_metric_literal_known(p->name))
		return fail(p, p->tok_start, "unknown literal");
	p->tok = T_LITERAL;
	p->pos += len;
	return 0;
}

/* The next token into p. Blanks separate tokens; any other character perf's lexer skips is an error here,
 * so that a typo is not read as a different expression. */
static int next(struct parser *p)
{
	free(p->name);
	p->name = NULL;
	while (isspace((unsigned char)p->text[p->pos]))
		p->pos++;
	p->tok_start = p->pos;
	const char *s = p->text + p->pos;
	if (!*s) {
		p->tok = T_END;
		return 0;
	}
	if (*s == '#')
		return lex_literal(p, s);
	if (symbol_len(s) || number_len(s))
		return lex_word(p, s);
	if (strchr("|^&<>+-*/%(),", *s)) {
		p->tok = T_PUNCT;
		p->punct = *s;
		p->pos++;
		return 0;
	}
	return fail(p, p->pos, "unexpected character");
}

static bool at_punct(const struct parser *p, char c)
{
	return p->tok == T_PUNCT && p->punct == c;
}

static uint32_t add_node(struct parser *p, enum tly_expr_op op, uint32_t a, uint32_t b, uint32_t c,
                         size_t start)
{
	struct tly_expr *e = p->expr;
	if (p->err)
		return TLY_EXPR_NONE;
	if (e->n == e->cap) {
		uint32_t cap = e->cap ? e->cap * 2 : 16;
		struct tly_expr_node *nodes = realloc(e->nodes, cap * sizeof(*nodes));
		if (!nodes) {
			p->err = -ENOMEM;
			return TLY_EXPR_NONE;
		}
		e->nodes = nodes;
		e->cap = cap;
	}
	uint32_t end = (uint32_t)p->tok_start;
	while (end > start && isspace((unsigned char)p->text[end - 1]))
		end--;
	e->nodes[e->n] = (struct tly_expr_node){ .op = op, .a = a, .b = b, .c = c, .start = (uint32_t)start,
		                                 .end = end };
	return e->n++;
}

static int expect(struct parser *p, char c)
{
	if (p->err)
		return p->err;
	if (!at_punct(p, c)) {
		char what[32];
		snprintf(what, sizeof(what), "expected '%c'", c);
		return fail(p, p->tok_start, what);
	}
	return next(p);
}

static uint32_t parse_if(struct parser *p);
static uint32_t parse_binary(struct parser *p, int level);

/* A leaf holding the current token's name or number; the token is consumed. */
static uint32_t leaf(struct parser *p, enum tly_expr_op op, size_t start)
{
	char *name = p->name;
	double num = p->num;
	p->name = NULL;
	if (next(p)) {
		free(name);
		return TLY_EXPR_NONE;
	}
	uint32_t n = add_node(p, op, TLY_EXPR_NONE, TLY_EXPR_NONE, TLY_EXPR_NONE, start);
	if (n == TLY_EXPR_NONE) {
		free(name);
		return n;
	}
	p->expr->nodes[n].name = name;
	p->expr->nodes[n].num = num;
	return n;
}

/* source_count(NAME), has_event(NAME), strcmp_cpuid_str(NAME) */
static uint32_t parse_name_call(struct parser *p, enum tly_expr_op op, size_t start)
{
	if (next(p) || expect(p, '('))
		return TLY_EXPR_NONE;
	if (p->tok != T_NAME) {
		fail(p, p->tok_start, "expected an event name");
		return TLY_EXPR_NONE;
	}
	char *name = p->name;
	p->name = NULL;
	if (next(p) || expect(p, ')')) {
		free(name);
		return TLY_EXPR_NONE;
	}
	uint32_t n = add_node(p, op, TLY_EXPR_NONE, TLY_EXPR_NONE, TLY_EXPR_NONE, start);
	if (n == TLY_EXPR_NONE)
		free(name);
	else
		p->expr->nodes[n].name = name;
	return n;
}

/* min(a, b), max(a, b), d_ratio(a, b) */
static uint32_t parse_pair_call(struct parser *p, enum tly_expr_op op, size_t start)
{
	if (next(p) || expect(p, '('))
		return TLY_EXPR_NONE;
	uint32_t a = parse_binary(p, 0);
	if (expect(p, ','))
		return TLY_EXPR_NONE;
	uint32_t b = parse_binary(p, 0);
	if (expect(p, ')'))
		return TLY_EXPR_NONE;
	return add_node(p, op, a, b, TLY_EXPR_NONE, start);
}

static uint32_t parse_primary(struct parser *p)
{
	size_t start = p->tok_start;
	if (p->err)
		return TLY_EXPR_NONE;
	if (++p->depth > MAX_DEPTH) {
		fail(p, start, "expression nested too deep");
		return TLY_EXPR_NONE;
	}
	uint32_t n = TLY_EXPR_NONE;
	switch (p->tok) {
	case T_NUM: n = leaf(p, TLY_EXPR_NUM, start); break;
	case T_NAN: n = leaf(p, TLY_EXPR_NUM, start); break;
	case T_NAME: n = leaf(p, TLY_EXPR_NAME, start); break;
	case T_LITERAL: n = leaf(p, TLY_EXPR_LITERAL, start); break;
	case T_SOURCE_COUNT: n = parse_name_call(p, TLY_EXPR_SOURCE_COUNT, start); break;
	case T_HAS_EVENT: n = parse_name_call(p, TLY_EXPR_HAS_EVENT, start); break;
	case T_CPUID: n = parse_name_call(p, TLY_EXPR_CPUID, start); break;
	case T_MIN: n = parse_pair_call(p, TLY_EXPR_MIN, start); break;
	case T_MAX: n = parse_pair_call(p, TLY_EXPR_MAX, start); break;
	case T_D_RATIO: n = parse_pair_call(p, TLY_EXPR_D_RATIO, start); break;
	case T_PUNCT:
		if (p->punct == '-') {
			if (next(p))
				break;
			uint32_t a = parse_primary(p);
			n = add_node(p, TLY_EXPR_NEG, a, TLY_EXPR_NONE, TLY_EXPR_NONE, start);
		} else if (p->punct == '(') {
			if (next(p))
				break;
			n = parse_if(p);
			if (expect(p, ')'))
				n = TLY_EXPR_NONE;
		} else {
			fail(p, start, "expected a value");
		}
		break;
	default: fail(p, start, p->tok == T_END ? "unexpected end" : "expected a value"); break;
	}
	p->depth--;
	return p->err ? TLY_EXPR_NONE : n;
}

/* The binary operators by level, lowest first, as expr.y's %left lines. */
static const struct {
	const char *punct;
	enum tly_expr_op ops[3];
} levels[] = {
	{ "|", { TLY_EXPR_OR } },
	{ "^", { TLY_EXPR_XOR } },
	{ "&", { TLY_EXPR_AND } },
	{ "<>", { TLY_EXPR_LT, TLY_EXPR_GT } },
	{ "+-", { TLY_EXPR_ADD, TLY_EXPR_SUB } },
	{ "*/%", { TLY_EXPR_MUL, TLY_EXPR_DIV, TLY_EXPR_MOD } },
};
#define NR_LEVELS (int)(sizeof(levels) / sizeof(levels[0]))

/* Left-associative operators of one level and above. */
static uint32_t parse_binary(struct parser *p, int level)
{
	if (level == NR_LEVELS)
		return parse_primary(p);
	size_t start = p->tok_start;
	uint32_t left = parse_binary(p, level + 1);
	while (!p->err && p->tok == T_PUNCT && strchr(levels[level].punct, p->punct)) {
		enum tly_expr_op op = levels[level].ops[strchr(levels[level].punct, p->punct) - levels[level].punct];
		if (next(p))
			break;
		uint32_t right = parse_binary(p, level + 1);
		left = add_node(p, op, left, right, TLY_EXPR_NONE, start);
	}
	return p->err ? TLY_EXPR_NONE : left;
}

/* a if cond else b: the else part may itself be an if (right-associative, as expr.y's if_expr). */
static uint32_t parse_if(struct parser *p)
{
	size_t start = p->tok_start;
	uint32_t value = parse_binary(p, 0);
	if (p->err || p->tok != T_IF)
		return value;
	if (++p->depth > MAX_DEPTH) {
		fail(p, start, "expression nested too deep");
		return TLY_EXPR_NONE;
	}
	uint32_t cond = TLY_EXPR_NONE, other = TLY_EXPR_NONE;
	if (!next(p))
		cond = parse_binary(p, 0);
	if (!p->err && p->tok != T_ELSE)
		fail(p, p->tok_start, "expected 'else'");
	if (!p->err && !next(p))
		other = parse_if(p);
	p->depth--;
	return add_node(p, TLY_EXPR_IF, value, cond, other, start);
}

void tly_expr_free(struct tly_expr *expr)
{
	if (!expr)
		return;
	for (uint32_t i = 0; i < expr->n; i++)
		free(expr->nodes[i].name);
	free(expr->nodes);
	free(expr->text);
	free(expr);
}

int tly_expr_parse(const char *text, int runtime, struct tly_expr **out)
{
	if (!text || !out)
		return tly_null_arg("tly_expr_parse");
	*out = NULL;
	struct tly_expr *e = calloc(1, sizeof(*e));
	if (!e || !(e->text = strdup(text))) {
		free(e);
		return -ENOMEM;
	}
	struct parser p = { .expr = e, .text = e->text, .runtime = runtime };
	if (!next(&p)) {
		e->root = parse_if(&p);
		if (!p.err && p.tok != T_END)
			fail(&p, p.tok_start, "unexpected text after the expression");
	}
	free(p.name);
	if (p.err) {
		tly_expr_free(e);
		return p.err;
	}
	*out = e;
	return 0;
}

int tly_expr_names(const struct tly_expr *expr, int (*fn)(void *ctx, const char *name), void *ctx)
{
	for (uint32_t i = 0; i < expr->n; i++) {
		const struct tly_expr_node *n = &expr->nodes[i];
		if (n->op == TLY_EXPR_NAME || n->op == TLY_EXPR_SOURCE_COUNT) {
			int r = fn(ctx, n->name);
			if (r)
				return r;
		}
	}
	return 0;
}

int tly_expr_event_spec(const char *name, char *out, size_t size)
{
	size_t len = strlen(name);
	if (len >= size)
		return -ENAMETOOLONG;
	for (size_t i = 0; i <= len; i++)
		out[i] = name[i] == '@' ? '/' : name[i];
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* A command's options as one table, as perf's tools/lib/subcmd/parse-options.h: one entry per option, with
 * its help, drives getopt_long(3) (so its rules hold: unique prefixes of long options, "--", the first
 * non-option ends the options) and prints the usage. Uses no libtally. */
#ifndef TALLY_TOOLS_PARSE_OPTIONS_H
#define TALLY_TOOLS_PARSE_OPTIONS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum parse_result {
	PARSE_OK,       /* go on */
	PARSE_DONE,     /* the option did all there is to do (--help): stop, successfully */
	PARSE_ERROR,    /* a message was printed to stderr */
	PARSE_WANTS,    /* a callback's answer: the argument is refused with the entry's .wants */
};

enum option_kind {
	OPTION_SET_TRUE,    /* the bool at .offset becomes true */
	OPTION_SET_FALSE,   /* ... false */
	OPTION_SET_INT,     /* the int (or enum) at .offset takes .value */
	OPTION_STRING,      /* the const char * at .offset points to the argument */
	OPTION_UNSIGNED,    /* the unsigned at .offset: a decimal number in [.min, .max] */
	OPTION_CALLBACK,    /* .callback does it */
	OPTION_NOOP,        /* accepted, changing nothing */
};

enum option_arg { OPTION_ARG_NONE, OPTION_ARG_REQUIRED, OPTION_ARG_OPTIONAL };

struct option_entry;
/* dest: what the parse fills; arg: the argument, NULL for none. */
typedef enum parse_result option_callback(const struct option_entry *opt, void *dest, const char *arg);

struct option_entry {
	const char *long_name;     /* without "--" */
	char short_name;           /* 0: none */
	enum option_kind kind;
	enum option_arg arg;
	const char *arg_name;      /* the usage's name of the argument: "SPEC", or "[=L2]" for an optional one */
	size_t offset;             /* of the field in dest */
	int value;                 /* OPTION_SET_INT's */
	unsigned long min, max;    /* OPTION_UNSIGNED's range, or a callback's */
	const char *needs;         /* an empty argument is refused: "<option> needs <needs>" */
	const char *wants;         /* an argument refused: "<option> wants <wants>, not '<arg>'" */
	option_callback *callback;
	const char *help;          /* lines split by '\n'; NULL: not in the usage (accepted or refused quietly) */
};

/* The entries, one line each (f: the field's offset in the parse's destination, offsetof). */
#define OPT_BOOLEAN(s, l, f, h)                                                                                 \
	{ .long_name = (l), .short_name = (s), .kind = OPTION_SET_TRUE, .offset = (f), .help = (h) }
#define OPT_CLEAR(s, l, f, h)                                                                                   \
	{ .long_name = (l), .short_name = (s), .kind = OPTION_SET_FALSE, .offset = (f), .help = (h) }
#define OPT_SET_INT(s, l, f, v, h)                                                                              \
	{ .long_name = (l), .short_name = (s), .kind = OPTION_SET_INT, .offset = (f), .value = (v), .help = (h) }
#define OPT_NOOP(s, l, h) { .long_name = (l), .short_name = (s), .kind = OPTION_NOOP, .help = (h) }
/* n: what an empty argument lacks, NULL to take one. */
#define OPT_STRING(s, l, f, a, n, h)                                                                            \
	{ .long_name = (l), .short_name = (s), .kind = OPTION_STRING, .arg = OPTION_ARG_REQUIRED, .arg_name = (a),  \
	  .offset = (f), .needs = (n), .help = (h) }
#define OPT_UNSIGNED(s, l, f, a, lo, hi, w, h)                                                                  \
	{ .long_name = (l), .short_name = (s), .kind = OPTION_UNSIGNED, .arg = OPTION_ARG_REQUIRED, .arg_name = (a), \
	  .offset = (f), .min = (lo), .max = (hi), .wants = (w), .help = (h) }
/* A callback's entry: these fields, then its argument (OPT_ARG, OPT_OPTIONAL_ARG) and messages
 * (.needs, .wants, .min, .max) as designated initializers, all in one pair of braces. */
#define OPT_CALLBACK(s, l, cb, h)                                                                               \
	.long_name = (l), .short_name = (s), .kind = OPTION_CALLBACK, .callback = (cb), .help = (h)
#define OPT_ARG(a) .arg = OPTION_ARG_REQUIRED, .arg_name = (a)
#define OPT_OPTIONAL_ARG(a) .arg = OPTION_ARG_OPTIONAL, .arg_name = (a)

struct option_table {
	const char *prog;                  /* "tally stat": what every message begins with */
	const char *usage;                 /* the usage's lines before the options */
	const struct option_entry *entries;
	size_t nr;
};

/* Parses argv (argv[0] is the command's name) into dest up to the first non-option or "--"; *rest is
 * the index of what follows. Returns PARSE_OK, PARSE_DONE, or PARSE_ERROR with its message printed. */
enum parse_result parse_options(const struct option_table *t, int argc, char **argv, void *dest, int *rest);

/* The usage text: t->usage, then each entry that has a help, in the table's order. */
void parse_options_usage(const struct option_table *t, FILE *out);

/* "<prog>: <message>\n(see <prog> --help)\n" on stderr; returns PARSE_ERROR. */
enum parse_result parse_options_error(const char *prog, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
enum parse_result parse_options_verror(const char *prog, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/* A whole non-negative decimal number in [min, max] (no sign, no space). */
bool parse_options_unsigned(const char *text, unsigned long min, unsigned long max, unsigned *out);

#endif

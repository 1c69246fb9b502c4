/* SPDX-License-Identifier: MIT */
#include "lib/parse_options.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

/* getopt_long's value of an entry without a short name: past every char. Each entry has a value of its
 * own, so that a prefix of two long names is ambiguous (glibc accepts one that names entries alike). */
#define LONG_ONLY_BASE 256
/* The usage's help column, and the longest option text kept on the help's line (longer: the help on the
 * next one, in the column). */
#define HELP_COLUMN 27
#define INLINE_MAX 32

enum parse_result parse_options_verror(const char *prog, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n(see %s --help)\n", prog);
	return PARSE_ERROR;
}

enum parse_result parse_options_error(const char *prog, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	parse_options_verror(prog, fmt, ap);
	va_end(ap);
	return PARSE_ERROR;
}

bool parse_options_unsigned(const char *text, unsigned long min, unsigned long max, unsigned *out)
{
	char *end;
	errno = 0;
	if (text[0] < '0' || text[0] > '9')
		return false;
	unsigned long v = strtoul(text, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*out = (unsigned)v;
	return true;
}

/* The option as messages name it: its short name if it has one ("-r"), else its long one. */
static const char *option_name(const struct option_entry *e, char *buf, size_t len)
{
	if (e->short_name)
		snprintf(buf, len, "-%c", e->short_name);
	else
		snprintf(buf, len, "--%s", e->long_name);
	return buf;
}

static enum parse_result take(const struct option_table *t, const struct option_entry *e, void *dest,
                              const char *arg)
{
	char name[64];
	char *field = (char *)dest + e->offset;
	enum parse_result r = PARSE_OK;
	if (e->needs && arg && !*arg)
		return parse_options_error(t->prog, "%s needs %s", option_name(e, name, sizeof(name)), e->needs);
	switch (e->kind) {
	case OPTION_SET_TRUE: *(bool *)field = true; break;
	case OPTION_SET_FALSE: *(bool *)field = false; break;
	case OPTION_SET_INT: *(int *)field = e->value; break;
	case OPTION_STRING: *(const char **)field = arg; break;
	case OPTION_UNSIGNED:
		if (!parse_options_unsigned(arg, e->min, e->max, (unsigned *)field))
			r = PARSE_WANTS;
		break;
	case OPTION_CALLBACK: r = e->callback(e, dest, arg); break;
	case OPTION_NOOP: break;
	}
	if (r == PARSE_WANTS)
		return parse_options_error(t->prog, "%s wants %s, not '%s'", option_name(e, name, sizeof(name)),
		                           e->wants, arg);
	return r;
}

/* getopt_long's '?' (opterr is off: the message is ours). */
static enum parse_result refuse_unknown(const struct option_table *t, char **argv)
{
	/* A long option given a value it does not take ("--summary=x"): glibc's optopt is then that option's
	 * val, which no unknown letter can be (a letter of a cluster such as "-Zq" is unknown only when no
	 * entry has it), so the option is found in the table, not in argv: in the middle of a cluster argv[optind - 1]
	 * is still the argument before it. */
	for (size_t i = 0; optopt && i < t->nr; i++) {
		const struct option_entry *e = &t->entries[i];
		if (optopt != (e->short_name ? (unsigned char)e->short_name : LONG_ONLY_BASE + (int)i))
			continue;
		/* Named as given where that is the argument ("--summ=x"), else by the table's name. */
		const char *given = argv[optind - 1];
		int len = (int)strcspn(given, "=");
		if (strncmp(given, "--", 2) == 0 && len > 2 && strncmp(given + 2, e->long_name, (size_t)len - 2) == 0)
			return parse_options_error(t->prog, "%.*s takes no value", len, given);
		return parse_options_error(t->prog, "--%s takes no value", e->long_name);
	}
	if (optopt)
		return parse_options_error(t->prog, "unknown option -%c", optopt);
	return parse_options_error(t->prog, "unknown option %s", argv[optind - 1]);
}

enum parse_result parse_options(const struct option_table *t, int argc, char **argv, void *dest, int *rest)
{
	static const int has_arg[] = { [OPTION_ARG_NONE] = no_argument, [OPTION_ARG_REQUIRED] = required_argument,
		                       [OPTION_ARG_OPTIONAL] = optional_argument };
	struct option *longs = calloc(t->nr + 1, sizeof(*longs));
	/* '+': stop at the first non-option, so the command's own flags are left to it. ':': report a
	 * missing argument distinctly. */
	char *shorts = malloc(3 * t->nr + 3), *s = shorts;
	if (!longs || !shorts) {
		free(longs);
		free(shorts);
		return parse_options_error(t->prog, "out of memory");
	}
	*s++ = '+';
	*s++ = ':';
	for (size_t i = 0; i < t->nr; i++) {
		const struct option_entry *e = &t->entries[i];
		int val = e->short_name ? (unsigned char)e->short_name : LONG_ONLY_BASE + (int)i;
		longs[i] = (struct option){ e->long_name, has_arg[e->arg], NULL, val };
		if (!e->short_name)
			continue;
		*s++ = e->short_name;
		for (enum option_arg a = OPTION_ARG_NONE; a < e->arg; a++)
			*s++ = ':';
	}
	*s = '\0';
	/* optind = 0 makes glibc start afresh. */
	optind = 0;
	opterr = 0;
	enum parse_result r = PARSE_OK;
	for (int c; r == PARSE_OK && (c = getopt_long(argc, argv, shorts, longs, NULL)) != -1;) {
		const struct option_entry *e = c >= LONG_ONLY_BASE ? &t->entries[c - LONG_ONLY_BASE] : NULL;
		for (size_t i = 0; !e && i < t->nr; i++)
			if (c == (unsigned char)t->entries[i].short_name)
				e = &t->entries[i];
		if (c == ':')
			r = parse_options_error(t->prog, "%s needs a value", argv[optind - 1]);
		else if (!e)
			r = refuse_unknown(t, argv);
		else
			r = take(t, e, dest, optarg);
	}
	free(longs);
	free(shorts);
	*rest = optind;
	return r;
}

/* "  -e, --event SPEC", then the help in its column, its further lines under it. */
static void print_entry(FILE *out, const struct option_entry *e)
{
	char left[128];
	int len = snprintf(left, sizeof(left), "  %c%c%c --%s%s%s", e->short_name ? '-' : ' ',
	                   e->short_name ? e->short_name : ' ', e->short_name ? ',' : ' ', e->long_name,
	                   e->arg == OPTION_ARG_REQUIRED ? " " : "", e->arg_name ? e->arg_name : "");
	fputs(left, out);
	if (len > INLINE_MAX)
		fprintf(out, "\n%*s", HELP_COLUMN, "");
	else
		fprintf(out, "%*s", len <= HELP_COLUMN - 2 ? HELP_COLUMN - len : 2, "");
	for (const char *line = e->help;;) {
		size_t n = strcspn(line, "\n");
		fwrite(line, 1, n, out);
		fputc('\n', out);
		if (!line[n])
			break;
		line += n + 1;
		fprintf(out, "%*s", HELP_COLUMN, "");
	}
}

void parse_options_usage(const struct option_table *t, FILE *out)
{
	fputs(t->usage, out);
	for (size_t i = 0; i < t->nr; i++)
		if (t->entries[i].help)
			print_entry(out, &t->entries[i]);
}

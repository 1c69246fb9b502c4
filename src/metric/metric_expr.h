/* SPDX-License-Identifier: MIT */
/*
 * The expression language of the vendors' metric tables (perf's MetricExpr and MetricThreshold): a text
 * parsed once into a tree, then evaluated from whatever supplies the names' values.
 *
 *   metric_expr_parse.c   the lexer (perf's tokens: symbols with \-, \, and \= escapes, #literals, numbers
 *                         with exponents) and a recursive-descent parser of perf's grammar
 *   metric_expr_eval.c    the evaluation: "not available" with the reason, never 0, wherever an input is
 *                         missing or a divisor is 0; d_ratio's 0; lazy if/else
 *   metric_literals.c     the #literals (#smt_on, #num_cpus_online, ...) from the machine's sysfs
 *   metric_table.c        a table of metric definitions: names to expressions, references between metrics
 *                         resolved recursively with cycle detection
 *
 * The grammar, lowest precedence first (perf's expr.y, 6.1 and 6.12):
 *   if_expr := expr [ 'if' expr 'else' if_expr ]
 *   expr    := expr ('|' | '^' | '&' | '<' | '>' | '+' | '-' | '*' | '/' | '%') expr    (that order)
 *            | '-' expr | NUMBER | 'NaN' | #LITERAL | NAME | '(' if_expr ')'
 *            | ('min' | 'max' | 'd_ratio') '(' expr ',' expr ')'
 *            | ('source_count' | 'has_event' | 'strcmp_cpuid_str') '(' NAME ')'
 * A NAME is an event ("INST_RETIRED.ANY", "cpu@INT_MISC.RECOVERY_CYCLES,cmask=1,edge@", "msr@tsc@",
 * "duration_time") or another metric; the tree holds it unescaped, '?' replaced by the runtime parameter.
 */
#ifndef TLY_METRIC_EXPR_H
#define TLY_METRIC_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum tly_expr_op {
	TLY_EXPR_NUM,     /* num (NaN for 'NaN') */
	TLY_EXPR_LITERAL, /* name: "#smt_on" */
	TLY_EXPR_NAME,    /* name: an event or a metric */
	TLY_EXPR_SOURCE_COUNT,
	TLY_EXPR_HAS_EVENT,
	TLY_EXPR_CPUID,   /* strcmp_cpuid_str(name) */
	TLY_EXPR_NEG,     /* -a */
	TLY_EXPR_OR,
	TLY_EXPR_XOR,
	TLY_EXPR_AND,
	TLY_EXPR_LT,
	TLY_EXPR_GT,
	TLY_EXPR_ADD,
	TLY_EXPR_SUB,
	TLY_EXPR_MUL,
	TLY_EXPR_DIV,
	TLY_EXPR_MOD,
	TLY_EXPR_MIN,
	TLY_EXPR_MAX,
	TLY_EXPR_D_RATIO,
	TLY_EXPR_IF,      /* a if b else c */
};

#define TLY_EXPR_NONE UINT32_MAX

struct tly_expr_node {
	enum tly_expr_op op;
	uint32_t a, b, c;   /* operands: node indices, TLY_EXPR_NONE where unused */
	double num;
	char *name;         /* LITERAL, NAME and the functions of a name */
	uint32_t start, end; /* the node's span in the text, for reasons ("CPU_CLK_UNHALTED.THREAD is 0") */
};

struct tly_expr {
	char *text;          /* a copy of the parsed text */
	struct tly_expr_node *nodes;
	uint32_t n, cap;
	uint32_t root;
};

/* Parses text; runtime replaces '?' in names (perf's runtime parameter; 0 outside power metrics). Returns 0
 * with *out (free with tly_expr_free), -EINVAL with "metric expression: <what> at offset N" and the text
 * with a caret in the last error, -ENOMEM. */
int tly_expr_parse(const char *text, int runtime, struct tly_expr **out);
void tly_expr_free(struct tly_expr *expr);

/* The names an expression reads (NAME and SOURCE_COUNT nodes; not those only has_event asks about), each
 * passed to fn once per occurrence; fn returning nonzero stops the walk and is returned. */
int tly_expr_names(const struct tly_expr *expr, int (*fn)(void *ctx, const char *name), void *ctx);

/* A name as an event spec: perf writes a PMU's event as "cpu@EVENT,cmask=1@" (a '/' would be a division);
 * "@" becomes "/" in out. -ENAMETOOLONG when out is too small. */
int tly_expr_event_spec(const char *name, char *out, size_t size);

/* ---- evaluation ---- */

struct tly_expr_val {
	double v;
	bool ok;     /* v holds the value; else the evaluation's reason says why not */
	bool scaled; /* some input was an estimate (multiplexed) */
};

#define TLY_EXPR_REASON 160

/* Where an evaluation gets its names' values. Each callback writes its reason with tly_expr_fail. */
struct tly_expr_env {
	void *ctx;
	/* The value of an event or metric name; source_count: how many events were summed for it. */
	struct tly_expr_val (*name)(void *ctx, const char *name, bool source_count, char *reason);
	/* 1 when the machine has the event, 0 when not, negative when unknown. NULL: unknown. */
	int (*has_event)(void *ctx, const char *name);
	/* 1 when the CPU's id matches the pattern, 0 when not, negative when unknown. NULL: unknown. */
	int (*cpuid_match)(void *ctx, const char *pattern);
	/* The machine's facts for #literals (metric_literals.c), or NULL: every literal is unknown. */
	const struct tly_metric_facts *facts;
};

/* Evaluates expr: the value, or ok false with the reason in reason[TLY_EXPR_REASON]. */
struct tly_expr_val tly_expr_eval(const struct tly_expr *expr, const struct tly_expr_env *env, char *reason);

/* The names an evaluation can read, as perf's compute_ids: an if/else whose condition is a constant here
 * (numbers, #literals, has_event, strcmp_cpuid_str: env's, with no name's value) gives the names of the
 * branch taken only; a d_ratio by a constant 0 none. fn as tly_expr_names. */
int tly_expr_names_taken(const struct tly_expr *expr, const struct tly_expr_env *env,
                         int (*fn)(void *ctx, const char *name), void *ctx);

/* A failed value, with the reason written (the first reason wins: reason already set is kept). */
struct tly_expr_val tly_expr_fail(char *reason, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- the #literals ---- */

struct tly_metric_topology;

/* The machine's facts behind perf's literals; NaN where unknown (the literal is then not available). */
struct tly_metric_facts {
	double smt_on, num_cpus, num_cpus_online, num_cores, num_dies, num_packages, core_wide, slots,
	        system_tsc_freq, has_pmem;
	/* #num_cores, #num_dies and #num_packages take every online CPU's topology files (4 apiece: 900 on
	 * a 224-CPU server), which most metrics never ask for: tly_metric_facts_read leaves them to the
	 * first literal that does (tly_metric_literal, thread-safe). NULL where the facts are given whole. */
	struct tly_metric_topology *topology;
};

/* Reads the facts from <sysfs_root> (NULL: $TALLY_SYSFS_ROOT, else /sys) and /proc/cpuinfo's TSC, the
 * topology's on first use; core_wide says whether the counting covers whole cores (system-wide, or every
 * CPU of a core listed). Free with tly_metric_facts_fini. */
void tly_metric_facts_read(const char *sysfs_root, bool core_wide, struct tly_metric_facts *facts);
void tly_metric_facts_fini(struct tly_metric_facts *facts);

/* Whether name is a literal perf knows ("#smt_on"; case-insensitive as perf's), and its value in facts
 * (NaN when unknown or facts is NULL). */
bool tly_metric_literal_known(const char *name);
double tly_metric_literal(const struct tly_metric_facts *facts, const char *name);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Parses each line of stdin as a metric expression (tests/test_metric_expr_perf.sh feeds it every
 * MetricExpr and MetricThreshold of perf's vendor tables) and prints the lines that do not parse, with the
 * error; the last line says how many parsed. Exit status 1 when any did not.
 */
#include "metric/metric_expr.h"

#include <stdio.h>
#include <string.h>
#include <tally/common.h>

int main(void)
{
	static char line[1 << 16];
	unsigned parsed = 0, failed = 0;
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		struct tly_expr *e = NULL;
		if (tly_expr_parse(line, 0, &e) == 0) {
			parsed++;
		} else {
			failed++;
			printf("FAIL %s\n  %s\n", line, tally_last_error());
		}
		tly_expr_free(e);
	}
	printf("%u parsed, %u failed\n", parsed, failed);
	return failed != 0;
}

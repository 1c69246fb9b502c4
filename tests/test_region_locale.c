/* SPDX-License-Identifier: MIT */
/*
 * Region results are written with a decimal point whatever LC_NUMERIC the program chose. A file of its
 * own: glibc's newlocale keeps a block when LOCPATH is set (valgrind and LeakSanitizer call it lost), which
 * must not fail the other region tests there.
 */
#include "harness.h"

#include <locale.h>
#include <stdlib.h>
#include <tally/region.h>

#if defined(__SANITIZE_ADDRESS__)
#define LEAK_CHECKED() true
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LEAK_CHECKED() true
#endif
#endif
#ifndef LEAK_CHECKED
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define LEAK_CHECKED() (RUNNING_ON_VALGRIND || getenv("TALLY_UNDER_VALGRIND"))
#else
#define LEAK_CHECKED() (getenv("TALLY_UNDER_VALGRIND") != NULL)
#endif
#endif

/* de_DE.UTF-8 (a decimal comma), built from the locale sources into a private LOCPATH when it is not
 * installed (as tests/test_cli_locale.sh does), but not where leaks are checked (valgrind, AddressSanitizer:
 * glibc keeps a block then);
 * (locale_t)0 when neither can be had. */
static locale_t comma_locale(void)
{
	locale_t comma = newlocale(LC_NUMERIC_MASK, "de_DE.UTF-8", (locale_t)0);
	char dir[] = "/tmp/tally-locale-XXXXXX", cmd[128];
	if (comma != (locale_t)0 || LEAK_CHECKED() || !mkdtemp(dir))
		return comma;
	snprintf(cmd, sizeof(cmd), "localedef -i de_DE -f UTF-8 %s/de_DE.UTF-8 >/dev/null 2>&1", dir);
	if (system(cmd) == 0) {
		setenv("LOCPATH", dir, 1);
		comma = newlocale(LC_NUMERIC_MASK, "de_DE.UTF-8", (locale_t)0);
		unsetenv("LOCPATH");
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return comma;
}

/* A program that set a decimal comma still gets a point in the numbers (JSON and CSV readers need it). */
static void numbers_ignore_the_programs_locale(void)
{
	locale_t comma = comma_locale();
	if (comma == (locale_t)0)
		SKIP("no de_DE.UTF-8 locale can be had here (localedef or the locale sources absent)");
	tally_region_set *s;
	CHECK_INT(tally_region_set_new("page-faults", NULL, &s), 0);
	int id = tally_region_id(s, "r");
	tally_region_begin_id(s, id);
	tally_region_end_id(s, id);
	locale_t before = uselocale(comma);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	CHECK_INT(tally_region_set_write(s, f, TALLY_REGION_JSON), 0);
	fclose(f);
	uselocale(before);
	freelocale(comma);
	CHECK_CONTAINS(text, "\"stddev\":0.000,\"min\":"); /* one call: no deviation */
	free(text);
	tally_region_set_free(s);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "numbers_ignore_the_programs_locale", numbers_ignore_the_programs_locale },
		{ NULL, NULL },
	};
	return harness_run(cases);
}

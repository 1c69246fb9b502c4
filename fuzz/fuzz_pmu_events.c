/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the vendor table readers: the input is read both as a pmu-events JSON file (the
 * run-time reader of TALLY_PMU_EVENTS trees), as a table's text (the .events format a lookup
 * binary-searches in place: a corrupt data file must give an error, never a read out of bounds) and as a
 * sysmap (its rows' fields and compat regexes, whatever they hold).
 */
#include "fuzz_common.h"
#include "machine/pmu_events.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static void check_json(const uint8_t *data, size_t size)
{
	struct tly_json_objects list;
	size_t at = SIZE_MAX;
	int rc = tly_json_objects_parse((const char *)data, size, &list, &at);
	REQUIRE(rc == 0 || rc == -EBADMSG);
	if (rc) {
		REQUIRE(at <= size && list.nr == 0);
		return;
	}
	for (size_t i = 0; i < list.nr; i++)
		for (size_t k = 0; k < list.v[i].nr; k++)
			REQUIRE(list.v[i].key[k] != NULL &&
			        (tly_json_get(&list.v[i], list.v[i].key[k]) != NULL || list.v[i].value[k] == NULL));
	tly_json_objects_free(&list);
}

static void check_table(const uint8_t *data, size_t size)
{
	struct tly_pmu_events_text text = { 0 };
	for (int i = 0; i < 3; i++) {
		text.part[i] = malloc(size + 1);
		if (!text.part[i])
			goto out;
		memcpy(text.part[i], data, size);
		text.part[i][size] = '\0';
		text.len[i] = size;
	}
	struct tly_pmu_events *t;
	if (tly_pmu_events_adopt("/fuzz", "x86", "model", "model", "v1", &text, &t))
		goto out;
	static const char *const names[] = { "", "a", "inst_retired.any", "zzzz", "\t" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t pos = tly_pmu_events_seek(t, names[i]);
		REQUIRE(pos <= size);
		struct tly_pmu_events_rec rec;
		int got = tly_pmu_events_next(t, &pos, &rec);
		REQUIRE(got == 0 || got == 1 || got == -EBADMSG);
		if (got == 1) {
			struct tly_pmu_events_desc d;
			if (tly_pmu_events_describe(t, &rec, &d) == 0)
				tly_pmu_events_desc_free(&d);
		}
	}
	size_t pos = 0, n = 0;
	struct tly_pmu_events_rec rec;
	for (size_t before = pos; tly_pmu_events_next(t, &pos, &rec) == 1; before = pos, n++)
		REQUIRE(pos > before && pos <= size);
	REQUIRE(n <= tly_pmu_events_count(t));
	tly_pmu_events_close(t);
out:
	for (int i = 0; i < 3; i++)
		free(text.part[i]);
}

static void check_sysmap(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return;
	memcpy(text, data, size);
	text[size] = '\0';
	static const char *const pmus[] = { "imx8_ddr0", "arm_cmn_0", "hisi_sicl0_cpa0", "a" };
	char model[64];
	for (size_t i = 0; i < sizeof(pmus) / sizeof(pmus[0]); i++) {
		bool named = tly_pmu_sysmap_names(text, pmus[i]);
		int rc = tly_pmu_sysmap_find(text, pmus[i], "43c01", model, sizeof(model));
		REQUIRE(rc == 0 || rc == -ENOENT);
		REQUIRE(rc != 0 || (named && memchr(model, '\0', sizeof(model))));
	}
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 65536)
		return 0;
	check_json(data, size);
	check_table(data, size);
	check_sysmap(data, size);
	return 0;
}

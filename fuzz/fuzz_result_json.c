/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for what tally merge and tally compare read from outside: the strict JSON reader and
 * the reading of one rank's result document. Checked beyond "no crash, leak or UB": a refused text has a
 * message and a position inside it (a truncated one at its very end); an accepted document is either read
 * as a rank's results, whose arrays hold what their counts say, or refused with a message.
 */
#include "fuzz_common.h"

#include "lib/json_reader.h"
#include "lib/text_escape.h"
#include "results/merge_input.h"
#include "results/result_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_value doc;
	struct json_read_error err;
	if (json_read((const char *)data, size, &doc, &err) != 0) {
		REQUIRE(err.message[0] != '\0' && err.offset <= size);
		REQUIRE(!err.truncated || err.offset == size);
		return 0;
	}
	struct merge_rank rank;
	if (merge_input_from("fuzz.json", &doc, &rank) == 0 && rank.supported) {
		for (size_t i = 0; i < rank.nr_events; i++)
			REQUIRE(rank.event_names[i] && rank.units[i]);
		for (size_t k = 0; k < rank.nr_regions; k++)
			REQUIRE(rank.regions[k].name && rank.regions[k].values);
		REQUIRE(rank.host != NULL);
	}
	merge_input_free(&rank);
	json_value_free(&doc);
	return 0;
}

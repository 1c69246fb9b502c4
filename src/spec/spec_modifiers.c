/* SPDX-License-Identifier: MIT */
#include "spec/spec_modifiers.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

void tly_modifiers_defaults(struct perf_event_attr *attr)
{
	attr->exclude_guest = 1;
}

void tly_modifiers_clear(struct perf_event_attr *attr, bool *exclude_gh)
{
	attr->exclude_user = attr->exclude_kernel = attr->exclude_hv = 0;
	attr->exclude_guest = attr->exclude_host = attr->exclude_idle = 0;
	attr->precise_ip = 0;
	attr->pinned = attr->exclusive = 0;
	*exclude_gh = false;
}

void tly_modifiers_space(struct perf_event_attr *attr, enum tally_space space)
{
	if (space == TALLY_SPACE_AS_WRITTEN)
		return;
	attr->exclude_user = space == TALLY_SPACE_KERNEL;
	attr->exclude_kernel = space == TALLY_SPACE_USER;
}

/* perf's rules (tools/perf/util/parse-events.c, get_event_modifier): the first of u/k/h excludes all
 * three privilege levels and each letter then includes its own; G/H likewise between guest and host; u
 * and p also exclude the guest unless G or H was given (guest time cannot be split by privilege level
 * from the host, and x86 PEBS did not work inside guests). */
int tly_modifiers_apply(struct perf_event_attr *a, bool *exclude_gh, const char *letters, size_t n, bool leader)
{
	bool eu = a->exclude_user, ek = a->exclude_kernel, eh = a->exclude_hv;
	bool eG = a->exclude_guest, eH = a->exclude_host, eI = a->exclude_idle;
	bool exclude = eu || ek || eh, gh = *exclude_gh;
	/* A member keeps its own bits: perf gives a group's D and e to the leader only (parse-events.c,
	 * evsel__is_group_leader), since the kernel refuses a pinned or exclusive member with EINVAL
	 * (perf_event_open: "Only a group leader can be exclusive or pinned"). */
	bool pinned = a->pinned, exclusive = a->exclusive;
	unsigned precise = a->precise_ip;
	for (size_t i = 0; i < n; i++) {
		char c = letters[i];
		if (c == 'u' || c == 'k' || c == 'h') {
			if (!exclude)
				exclude = eu = ek = eh = true;
			if (c == 'u' && !gh)
				eG = true;
			if (c == 'u')
				eu = false;
			else if (c == 'k')
				ek = false;
			else
				eh = false;
		} else if (c == 'G' || c == 'H') {
			if (!gh)
				gh = eG = eH = true;
			if (c == 'G')
				eG = false;
			else
				eH = false;
		} else if (c == 'I') {
			eI = true;
		} else if (c == 'D') {
			pinned = pinned || leader;
		} else if (c == 'e') {
			exclusive = exclusive || leader;
		} else if (c == 'p') {
			precise++;
			if (!gh)
				eG = true;
		}
	}
	if (precise > TLY_MAX_PRECISE)
		return -ERANGE;
	a->exclude_user = eu;
	a->exclude_kernel = ek;
	a->exclude_hv = eh;
	a->exclude_guest = eG;
	a->exclude_host = eH;
	a->exclude_idle = eI;
	a->precise_ip = precise;
	a->pinned = pinned;
	a->exclusive = exclusive;
	*exclude_gh = gh;
	return 0;
}

static bool same_bits(const struct perf_event_attr *a, const struct perf_event_attr *b)
{
	return a->exclude_user == b->exclude_user && a->exclude_kernel == b->exclude_kernel &&
	       a->exclude_hv == b->exclude_hv && a->exclude_guest == b->exclude_guest &&
	       a->exclude_host == b->exclude_host && a->exclude_idle == b->exclude_idle &&
	       a->precise_ip == b->precise_ip && a->pinned == b->pinned && a->exclusive == b->exclusive;
}

void tly_modifiers_text(const struct perf_event_attr *a, char out[static 17])
{
	struct perf_event_attr fresh;
	memset(&fresh, 0, sizeof(fresh));
	tly_modifiers_defaults(&fresh);
	out[0] = '\0';
	if (same_bits(a, &fresh))
		return;
	size_t n = 0;
	if (a->exclude_user || a->exclude_kernel || a->exclude_hv) {
		if (!a->exclude_user)
			out[n++] = 'u';
		if (!a->exclude_kernel)
			out[n++] = 'k';
		if (!a->exclude_hv)
			out[n++] = 'h';
	}
	if (a->exclude_idle)
		out[n++] = 'I';
	if (a->pinned)
		out[n++] = 'D';
	if (a->exclusive)
		out[n++] = 'e';
	for (unsigned i = 0; i < a->precise_ip && i < TLY_MAX_PRECISE; i++)
		out[n++] = 'p';
	out[n] = '\0';
	/* The letters set the guest/host bits as side effects; add whichever of G, H or both brings them
	 * to attr's. */
	static const char *const guest_host[] = { "", "G", "H", "GH" };
	/* No letters at all would mean the defaults, which the bits are not. */
	for (size_t g = n ? 0 : 1; g < sizeof(guest_host) / sizeof(guest_host[0]); g++) {
		char letters[17];
		snprintf(letters, sizeof(letters), "%s%s", out, guest_host[g]);
		struct perf_event_attr trial;
		bool gh = false;
		memset(&trial, 0, sizeof(trial));
		if (tly_modifiers_apply(&trial, &gh, letters, strlen(letters), true) == 0 && same_bits(&trial, a)) {
			strcpy(out, letters);
			return;
		}
	}
}

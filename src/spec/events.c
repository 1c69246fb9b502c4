/* SPDX-License-Identifier: MIT */
/* The public face of a parsed event list: parsing entry point, accessors and encoding text. */
#include "core/error.h"
#include "core/opts.h"
#include "machine/pmu.h"
#include "spec/builtin_events.h"
#include "spec/event_list.h"
#include "spec/spec_modifiers.h"
#include "spec/spec_parse.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int tally_events_parse(const char *spec, const struct tally_parse_opts *opts, tally_events **out)
{
	if (out)
		*out = NULL;
	if (!spec || !out)
		return tly_error(-EINVAL, "tally_events_parse: spec and out must not be NULL");
	if (!TLY_OPTS_VALID(opts, tally_parse_opts))
		return -TALLY_EOPTS;
	enum tally_space space = TLY_OPT(opts, space, TALLY_SPACE_AS_WRITTEN);
	if (space != TALLY_SPACE_AS_WRITTEN && space != TALLY_SPACE_USER && space != TALLY_SPACE_KERNEL)
		return tly_error(-EINVAL, "tally_events_parse: space %d is none of enum tally_space", (int)space);
	const tally_pmus *pmus = TLY_OPT(opts, pmus, NULL);
	tally_pmus *loaded = NULL;
	if (!pmus) {
		int ret = tly_pmus_new(TLY_OPT(opts, sysfs_root, NULL), &loaded);
		if (ret)
			return ret;
		pmus = loaded;
	}
	tally_events *list = calloc(1, sizeof(*list));
	int ret = list ? tly_spec_parse(spec, pmus, list, TLY_OPT(opts, error_offset, NULL))
	               : tly_error(-ENOMEM, "out of memory while parsing an event spec");
	for (size_t i = 0; !ret && i < list->nr; i++)
		tly_modifiers_space(&list->v[i].attr, space);
	if (!ret)
		ret = tly_events_finish(list);
	tally_pmus_free(loaded);
	if (ret) {
		tally_events_free(list);
		return ret;
	}
	*out = list;
	return 0;
}

void tally_events_free(tally_events *events)
{
	if (!events)
		return;
	for (size_t i = 0; i < events->nr; i++)
		tly_event_release(&events->v[i]);
	free(events->v);
	free(events);
}

size_t tally_events_count(const tally_events *events)
{
	return events ? events->nr : 0;
}

int tally_events_at(const tally_events *events, size_t i, struct tally_event_info *info)
{
	if (!events || !info)
		return tly_error(-EINVAL, "tally_events_at: events and info must not be NULL");
	if (i >= events->nr)
		return tly_error(-ERANGE, "tally_events_at: index %zu is past the %zu events", i, events->nr);
	const struct tly_event *ev = &events->v[i];
	struct tally_event_info full = {
		.sz = sizeof(full),
		.name = ev->name,
		.canonical = ev->canonical,
		.pmu = ev->pmu,
		.attr = &ev->attr,
		.group = ev->group,
		.leader = ev->leader,
		.origin = ev->origin,
		.nr_origins = ev->nr_origins,
		.unit = ev->unit,
		.scale = ev->scale,
		.family = ev->family,
		.per_core_pmu = ev->per_core_pmu,
		.origin_name = ev->origin_name ? ev->origin_name : ev->name,
	};
	return TLY_INFO_COPY(info, &full, tally_event_info);
}

int tally_events_encoding(const tally_events *events, size_t i, char *buf, size_t len)
{
	if (!events || (!buf && len))
		return tly_error(-EINVAL, "tally_events_encoding: events and buf must not be NULL");
	if (i >= events->nr)
		return tly_error(-ERANGE, "tally_events_encoding: index %zu is past the %zu events", i, events->nr);
	const struct perf_event_attr *a = &events->v[i].attr;
	const struct {
		const char *name;
		unsigned value;
	} bits[] = {
		{ "exclude_user", a->exclude_user },   { "exclude_kernel", a->exclude_kernel },
		{ "exclude_hv", a->exclude_hv },       { "exclude_idle", a->exclude_idle },
		{ "exclude_host", a->exclude_host },   { "exclude_guest", a->exclude_guest },
		{ "pinned", a->pinned },               { "exclusive", a->exclusive },
		{ "precise_ip", a->precise_ip },       { "bp_type", a->bp_type },
	};
	int n = snprintf(buf, len, "type=%u,config=%#llx,config1=%#llx,config2=%#llx", a->type,
	                 (unsigned long long)a->config, (unsigned long long)a->config1, (unsigned long long)a->config2);
	for (size_t b = 0; b < sizeof(bits) / sizeof(bits[0]) && n >= 0; b++) {
		if (!bits[b].value)
			continue;
		size_t used = (size_t)n < len ? (size_t)n : len;
		/* The size is spelled 0 with a NULL buf (len is 0 then anyway) for gcc -O3's -Wformat-truncation. */
		int more = snprintf(buf ? buf + used : NULL, buf ? len - used : 0, ",%s=%u", bits[b].name, bits[b].value);
		n = more < 0 ? more : n + more;
	}
	return n < 0 ? tly_error(-EIO, "tally_events_encoding: formatting failed") : n;
}

size_t tally_builtin_count(void)
{
	return tly_builtin_nr();
}

int tally_builtin_at(size_t i, struct tally_builtin_info *info)
{
	if (!info)
		return tly_error(-EINVAL, "tally_builtin_at: info must not be NULL");
	const struct tly_builtin *b = tly_builtin_get(i);
	if (!b)
		return tly_error(-ERANGE, "tally_builtin_at: index %zu is past the %zu builtin events", i,
		                 tly_builtin_nr());
	struct tally_builtin_info full = {
		.sz = sizeof(full),
		.name = b->name,
		.alias = b->alias,
		.kind = b->kind,
		.type = b->type,
		.config = b->config,
	};
	return TLY_INFO_COPY(info, &full, tally_builtin_info);
}

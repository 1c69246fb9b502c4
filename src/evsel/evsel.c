/* SPDX-License-Identifier: MIT */
/* One event over a CPU map x a thread map: open, group membership, ioctls, reads, close. */
#include "evsel/evsel.h"

#include "core/error.h"
#include "core/out_array.h"
#include "core/sys.h"
#include "evsel/cpumap.h"
#include "evsel/group_read.h"
#include "evsel/threadmap.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Never PERF_FORMAT_LOST unless the caller asks: it counts lost samples, always 0 for counting, and
 * costs 8 bytes per member on every read and room in the kernel's 16 KiB limit on a group's read. */
uint64_t tly_evsel_read_format(uint64_t caller_read_format, bool group)
{
	uint64_t f = (caller_read_format & ~(uint64_t)PERF_FORMAT_GROUP) | PERF_FORMAT_TOTAL_TIME_ENABLED |
	             PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
	return group ? f | PERF_FORMAT_GROUP : f;
}

static uint64_t evsel_read_format(const tally_evsel *e)
{
	return tly_evsel_read_format(e->caller_read_format, e->nr_members != 0);
}

int tally_evsel_new(const struct perf_event_attr *attr, tally_evsel **out)
{
	if (!attr || !out)
		return tly_error(-EINVAL, "tally_evsel_new: NULL argument");
	*out = NULL;
	tally_evsel *e = calloc(1, sizeof(*e));
	char name[48];
	snprintf(name, sizeof(name), "%" PRIu32 ":%#llx", attr->type, (unsigned long long)attr->config);
	if (e)
		e->name = strdup(name);
	if (!e || !e->name) {
		free(e);
		return tly_error(-ENOMEM, "event %s: out of memory", name);
	}
	e->attr = *attr;
	e->attr.size = sizeof(e->attr);
	e->caller_read_format = attr->read_format;
	e->leader = e;
	e->attr.read_format = evsel_read_format(e);
	*out = e;
	return 0;
}

int tly_evsel_new_tool(const struct perf_event_attr *attr, enum tly_tool_kind kind,
                       tly_tool_cpu_time_fn cpu_time, void *arg, tally_evsel **out)
{
	struct tly_tool *tool = calloc(1, sizeof(*tool));
	if (!tool)
		return tly_error(-ENOMEM, "tool event: out of memory");
	*tool = (struct tly_tool){ .kind = kind, .cpu_time = cpu_time, .arg = arg };
	int err = tally_evsel_new(attr, out);
	if (err)
		free(tool);
	else
		(*out)->tool = tool;
	return err;
}

int tally_evsel_set_name(tally_evsel *evsel, const char *name)
{
	if (!evsel || !name)
		return tly_error(-EINVAL, "tally_evsel_set_name: NULL argument");
	char *copy = strdup(name);
	if (!copy)
		return tly_error(-ENOMEM, "event %s: out of memory", name);
	free(evsel->name);
	evsel->name = copy;
	return 0;
}

const char *tally_evsel_name(const tally_evsel *evsel)
{
	return evsel ? evsel->name : NULL;
}

const struct perf_event_attr *tally_evsel_attr(const tally_evsel *evsel)
{
	return evsel ? &evsel->attr : NULL;
}

tally_evsel *tally_evsel_leader(tally_evsel *evsel)
{
	return evsel ? evsel->leader : NULL;
}

size_t tally_evsel_nr_members(const tally_evsel *evsel)
{
	return evsel ? evsel->nr_members : 0;
}

static void detach_from_leader(tally_evsel *member)
{
	tally_evsel *leader = member->leader;
	if (leader == member)
		return;
	for (size_t k = member->member_index + 1; k < leader->nr_members; k++) {
		leader->members[k - 1] = leader->members[k];
		leader->members[k - 1]->member_index = k - 1;
	}
	leader->nr_members--;
	leader->attr.read_format = evsel_read_format(leader);
	member->leader = member;
	member->member_index = 0;
}

int tally_evsel_set_leader(tally_evsel *member, tally_evsel *leader)
{
	if (!member)
		return tly_error(-EINVAL, "tally_evsel_set_leader: NULL member");
	if (member->open || member->leader->open || (leader && leader->open))
		return tly_error(-TALLY_ESTATE, "event '%s': groups change only while their events are closed",
		                 member->name);
	if (leader && leader != member) {
		/* perf 6.1 lets a tool event into a group, whose read then gives its members nothing. */
		if (member->tool || leader->tool)
			return tly_error(-EINVAL, "event '%s' cannot join '%s''s group: tool events count alone",
			                 member->name, leader->name);
		if (leader->leader != leader)
			return tly_error(-EINVAL, "event '%s' cannot lead a group: it is a member of '%s''s group",
			                 leader->name, leader->leader->name);
		if (member->nr_members)
			return tly_error(-EINVAL, "event '%s' cannot join '%s''s group: it leads a group itself",
			                 member->name, leader->name);
	}
	detach_from_leader(member);
	if (!leader || leader == member)
		return 0;
	tally_evsel **grown = realloc(leader->members, (leader->nr_members + 1) * sizeof(*grown));
	if (!grown)
		return tly_error(-ENOMEM, "group of '%s': out of memory", leader->name);
	leader->members = grown;
	member->member_index = leader->nr_members;
	leader->members[leader->nr_members++] = member;
	member->leader = leader;
	leader->attr.read_format = evsel_read_format(leader);
	return 0;
}

static int cpu_of(const tally_evsel *e, size_t slot)
{
	return e->cpus->cpu[slot / e->grid.nthreads];
}

/* The task a slot counts: -1 (every task) for a cgroup's slot. */
static pid_t tid_of(const tally_evsel *e, size_t slot)
{
	return tally_threads_at(e->threads, slot % e->grid.nthreads);
}

static int cgroup_of(const tally_evsel *e, size_t slot)
{
	pid_t tid;
	int cgroup;
	tly_threads_place(e->threads, slot % e->grid.nthreads, &tid, &cgroup);
	return cgroup;
}

int tly_evsel_failure_position(const struct tly_evsel_failure *f, char *buf, size_t len)
{
	char where_cpu[24] = "any CPU", where_tid[40] = "the opening thread";
	if (f->cpu >= 0)
		snprintf(where_cpu, sizeof(where_cpu), "cpu %d", f->cpu);
	if (f->cgroup >= 0)
		snprintf(where_tid, sizeof(where_tid), "the target's cgroup #%d", f->cgroup);
	else if (f->tid > 0)
		snprintf(where_tid, sizeof(where_tid), "tid %d", (int)f->tid);
	else if (f->tid < 0)
		snprintf(where_tid, sizeof(where_tid), "every thread");
	return snprintf(buf, len, "%s, %s", where_cpu, where_tid);
}

static void append_position(const tally_evsel *e, size_t slot)
{
	struct tly_evsel_failure where = {
		.cpu = cpu_of(e, slot), .tid = tid_of(e, slot), .cgroup = cgroup_of(e, slot)
	};
	char text[64];
	tly_evsel_failure_position(&where, text, sizeof(text));
	tly_error_append(" (at %s)", text);
}

/* The one place a failed system call on an event becomes a code: recorded on the evsel for the layer that
 * gives up to explain (tly_diag_evsel, tally_evsel_explain), with a last-error text that says what failed
 * where and no more. */
static int report_failure(tally_evsel *e, size_t slot, enum tly_diag_op op, const char *request, int err)
{
	static const char *const calls[] = {
		[TLY_DIAG_OPEN] = "perf_event_open", [TLY_DIAG_IOCTL] = "ioctl",
		[TLY_DIAG_READ] = "read", [TLY_DIAG_MMAP] = "mmap",
	};
	e->failed = (struct tly_evsel_failure){
		.op = op,
		.err = err,
		.request = request,
		.cpu = cpu_of(e, slot),
		.tid = tid_of(e, slot),
		.cgroup = cgroup_of(e, slot),
		.fds_needed = e->grid.ncpus * e->grid.nthreads * (1 + e->leader->nr_members),
		.read_size = e->read_size,
	};
	const char *desc = strerrordesc_np(err), *name = strerrorname_np(err);
	tly_error(-err, "event '%s': %s%s%s failed: %s (%s)", e->name, calls[op], request ? " " : "",
	          request ? request : "", desc ? desc : "Unknown error", name ? name : "?");
	append_position(e, slot);
	return -err;
}

static int open_retrying(struct perf_event_attr *attr, pid_t tid, int cpu, int group_fd, unsigned long flags)
{
	int fd;
	do
		fd = tly_sys->perf_event_open(attr, tid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC | flags);
	while (fd < 0 && errno == EINTR);
	return fd;
}

static int ioctl_retrying(int fd, unsigned long request, unsigned long arg)
{
	int r;
	do
		r = tly_sys->ioctl(fd, request, arg);
	while (r < 0 && errno == EINTR);
	return r;
}

static ssize_t read_retrying(int fd, void *buf, size_t size)
{
	ssize_t n;
	do
		n = tly_sys->read(fd, buf, size);
	while (n < 0 && errno == EINTR);
	return n;
}

/* Returns an evsel to the closed state, whatever part of an open it got through. */
static void release(tally_evsel *e)
{
	size_t closed = tly_fdgrid_close(&e->grid);
	if (e->open || closed)
		tly_log(TALLY_LOG_DEBUG, "closed '%s': %zu descriptors", e->name, closed);
	tly_fdgrid_free(&e->grid);
	tally_cpus_free(e->cpus);
	tally_threads_free(e->threads);
	free(e->read_buf);
	free(e->group_ids);
	free(e->group_counts);
	e->cpus = NULL;
	e->threads = NULL;
	e->read_buf = NULL;
	e->group_ids = NULL;
	e->group_counts = NULL;
	e->read_size = 0;
	e->group_entry_size = 0;
	e->open = false;
}

static int alloc_open_state(tally_evsel *e, const tally_cpus *cpus, const tally_threads *threads)
{
	int err = tly_cpus_dup(cpus, &e->cpus);
	if (!err)
		err = tly_threads_dup(threads, &e->threads);
	if (!err)
		err = tly_fdgrid_alloc(&e->grid, e->cpus->nr, e->threads->nr);
	if (err)
		return err;
	size_t group = 1 + e->nr_members;
	size_t slots = e->grid.ncpus * e->grid.nthreads;
	e->read_size = tly_read_size(e->attr.read_format, e->leader == e ? group : 1);
	e->read_buf = malloc(e->read_size);
	/* The layout of struct tly_group_head: what tly_read_decode_group_in_order takes. */
	uint64_t group_read = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |
	                      PERF_FORMAT_TOTAL_TIME_RUNNING;
	if ((e->attr.read_format & group_read) == group_read)
		e->group_entry_size = sizeof(struct tly_group_entry) +
		                      ((e->attr.read_format & PERF_FORMAT_LOST) ? sizeof(uint64_t) : 0);
	if (e->leader == e) {
		e->group_ids = calloc(slots * group, sizeof(*e->group_ids));
		e->group_counts = calloc(group, sizeof(*e->group_counts));
	}
	if (!e->read_buf || (e->leader == e && (!e->group_ids || !e->group_counts)))
		return tly_error(-ENOMEM, "event '%s': out of memory", e->name);
	return 0;
}

/* Where this event's id goes in its leader's per-slot id table. */
static uint64_t *group_id_slot(const tally_evsel *e, size_t slot)
{
	const tally_evsel *leader = e->leader;
	size_t group = 1 + leader->nr_members;
	size_t position = leader == e ? 0 : 1 + e->member_index;
	return &leader->group_ids[slot * group + position];
}

static int open_slot(tally_evsel *e, size_t slot)
{
	int group_fd = e->leader == e ? -1 : e->leader->grid.fd[slot];
	int cpu = cpu_of(e, slot);
	/* A cgroup map's entry is the cgroup's directory descriptor, which the pid argument takes. */
	pid_t tid = e->threads->tid[slot % e->grid.nthreads];
	bool cgroup = e->threads->cgroups && tid >= 0;
	int fd = open_retrying(&e->attr, tid, cpu, group_fd, cgroup ? PERF_FLAG_PID_CGROUP : 0);
	if (fd < 0)
		return report_failure(e, slot, TLY_DIAG_OPEN, NULL, errno);
	e->grid.fd[slot] = fd;
	uint64_t id = 0;
	if (ioctl_retrying(fd, PERF_EVENT_IOC_ID, (unsigned long)&id) < 0)
		return report_failure(e, slot, TLY_DIAG_IOCTL, "PERF_EVENT_IOC_ID", errno);
	e->grid.id[slot] = id;
	*group_id_slot(e, slot) = id;
	tly_log(TALLY_LOG_DEBUG, "opened '%s' on cpu %d, %s %d (group fd %d): fd %d, id %" PRIu64, e->name,
	        cpu, cgroup ? "cgroup fd" : "tid", (int)tid, group_fd, fd, id);
	return 0;
}

/* One position and no descriptor: the first CPU and the first thread of the maps (the target's, for
 * parts; every thread, -1, for a CPU-wide target). */
static int open_tool(tally_evsel *e, const tally_cpus *cpus, const tally_threads *threads)
{
	pid_t tid = tally_threads_at(threads, 0);
	/* A CPU-wide target's first CPU, where perf 6.1 shows its tool events (-A: CPU0). */
	int cpu = cpus && tally_cpus_count(cpus) ? tally_cpus_at(cpus, 0) : -1;
	char list[16];
	snprintf(list, sizeof(list), "%d", cpu);
	int err = cpu >= 0 ? tally_cpus_parse(list, &e->cpus) : tally_cpus_any(&e->cpus);
	if (!err)
		err = tid == -1 ? tally_threads_any(&e->threads) : tally_threads_new(&tid, 1, &e->threads);
	if (!err)
		err = tly_fdgrid_alloc(&e->grid, 1, 1);
	if (err) {
		release(e);
		return err;
	}
	*e->tool = (struct tly_tool){ .kind = e->tool->kind, .cpu_time = e->tool->cpu_time, .arg = e->tool->arg };
	e->open = true;
	tly_log(TALLY_LOG_DEBUG, "opened tool event '%s' (no descriptor: tally counts it)", e->name);
	return 0;
}

int tally_evsel_open(tally_evsel *evsel, const tally_cpus *cpus, const tally_threads *threads)
{
	if (!evsel)
		return tly_error(-EINVAL, "tally_evsel_open: NULL evsel");
	if (evsel->open)
		return tly_error(-TALLY_ESTATE, "event '%s' is already open", evsel->name);
	const tally_evsel *leader = evsel->leader;
	if (leader != evsel) {
		if (!leader->open)
			return tly_error(-TALLY_ESTATE, "event '%s': open its group leader '%s' first", evsel->name,
			                 leader->name);
		cpus = leader->cpus;
		threads = leader->threads;
	}
	if (evsel->tool)
		return open_tool(evsel, cpus, threads);
	evsel->attr.read_format = evsel_read_format(evsel);
	int err = alloc_open_state(evsel, cpus, threads);
	size_t slots = evsel->grid.ncpus * evsel->grid.nthreads;
	for (size_t slot = 0; !err && slot < slots; slot++)
		err = open_slot(evsel, slot);
	if (err) {
		release(evsel);
		return err;
	}
	evsel->open = true;
	return 0;
}

void tally_evsel_close(tally_evsel *evsel)
{
	if (!evsel)
		return;
	/* Members first: a leader closed under open members would leave them counting as singletons. */
	for (size_t k = 0; k < evsel->nr_members; k++)
		tally_evsel_close(evsel->members[k]);
	if (evsel->leader != evsel && evsel->leader->group_ids && evsel->open)
		for (size_t slot = 0; slot < evsel->grid.ncpus * evsel->grid.nthreads; slot++)
			*group_id_slot(evsel, slot) = 0;
	release(evsel);
}

void tally_evsel_free(tally_evsel *evsel)
{
	if (!evsel)
		return;
	tally_evsel_close(evsel);
	detach_from_leader(evsel);
	for (size_t k = 0; k < evsel->nr_members; k++) {
		evsel->members[k]->leader = evsel->members[k];
		evsel->members[k]->member_index = 0;
	}
	free(evsel->members);
	free(evsel->name);
	free(evsel->tool);
	free(evsel);
}

const tally_cpus *tally_evsel_cpus(const tally_evsel *evsel)
{
	return evsel && evsel->open ? evsel->cpus : NULL;
}

const tally_threads *tally_evsel_threads(const tally_evsel *evsel)
{
	return evsel && evsel->open ? evsel->threads : NULL;
}

static bool valid_slot(const tally_evsel *e, size_t cpu_idx, size_t thread_idx)
{
	return e && e->open && cpu_idx < e->grid.ncpus && thread_idx < e->grid.nthreads;
}

int tally_evsel_fd(const tally_evsel *evsel, size_t cpu_idx, size_t thread_idx)
{
	if (!valid_slot(evsel, cpu_idx, thread_idx))
		return -1;
	return evsel->grid.fd[tly_fdgrid_slot(&evsel->grid, cpu_idx, thread_idx)];
}

uint64_t tally_evsel_id(const tally_evsel *evsel, size_t cpu_idx, size_t thread_idx)
{
	if (!valid_slot(evsel, cpu_idx, thread_idx))
		return 0;
	return evsel->grid.id[tly_fdgrid_slot(&evsel->grid, cpu_idx, thread_idx)];
}

static int ioctl_every_slot(tally_evsel *e, unsigned long request, const char *request_name,
                            unsigned long flag)
{
	if (!e->open)
		return tly_error(-TALLY_ESTATE, "event '%s' is not open (%s)", e->name, request_name);
	size_t slots = e->grid.ncpus * e->grid.nthreads;
	for (size_t slot = 0; slot < slots; slot++)
		if (ioctl_retrying(e->grid.fd[slot], request, flag) < 0)
			return report_failure(e, slot, TLY_DIAG_IOCTL, request_name, errno);
	return 0;
}

/* On a leader, PERF_IOC_FLAG_GROUP carries the ioctl to every member (kernel: perf_event_for_each). */
static unsigned long group_flag(const tally_evsel *e)
{
	return e->nr_members ? PERF_IOC_FLAG_GROUP : 0;
}

int tally_evsel_enable(tally_evsel *evsel)
{
	/* Not one ENABLE with PERF_IOC_FLAG_GROUP: that turns the leader on before its members, and a member
	 * enabled into a group already on the PMU stays off it until the group is next scheduled in (seen on
	 * 6.18: 0 of 100 page faults counted after a disable/enable cycle). Members enabled while their
	 * leader is off wait for it; the leader's own ENABLE then puts the whole group on at once. */
	if (!evsel)
		return tly_null_arg(__func__);
	if (evsel->tool && evsel->open)
		return tly_tool_enable(evsel->tool);
	for (size_t k = 0; evsel->open && k < evsel->nr_members; k++) {
		int err = ioctl_every_slot(evsel->members[k], PERF_EVENT_IOC_ENABLE, "PERF_EVENT_IOC_ENABLE", 0);
		if (err)
			return err;
	}
	return ioctl_every_slot(evsel, PERF_EVENT_IOC_ENABLE, "PERF_EVENT_IOC_ENABLE", 0);
}

int tly_evsel_enable_tool(tally_evsel *evsel)
{
	return evsel->tool && evsel->open ? tly_tool_enable(evsel->tool) : 0;
}

int tally_evsel_disable(tally_evsel *evsel)
{
	if (!evsel)
		return tly_null_arg(__func__);
	if (evsel->tool && evsel->open)
		return tly_tool_disable(evsel->tool);
	/* One ioctl stops the whole group at the same instant. */
	return ioctl_every_slot(evsel, PERF_EVENT_IOC_DISABLE, "PERF_EVENT_IOC_DISABLE", group_flag(evsel));
}

int tally_evsel_reset(tally_evsel *evsel)
{
	if (!evsel)
		return tly_null_arg(__func__);
	/* A tool's count runs on, as a kernel count's times do: the counter's window subtracts it. */
	if (evsel->tool && evsel->open)
		return 0;
	return ioctl_every_slot(evsel, PERF_EVENT_IOC_RESET, "PERF_EVENT_IOC_RESET", group_flag(evsel));
}

static int check_read(const tally_evsel *e, size_t cpu_idx, size_t thread_idx, const void *counts,
                      const char *fn)
{
	if (!e || !counts)
		return tly_null_arg(fn);
	if (!e->open)
		return tly_error(-TALLY_ESTATE, "event '%s' is not open", e->name);
	if (cpu_idx >= e->grid.ncpus || thread_idx >= e->grid.nthreads)
		return tly_error(-EINVAL, "event '%s': no (cpu %zu, thread %zu) position (open on %zu x %zu)",
		                 e->name, cpu_idx, thread_idx, e->grid.ncpus, e->grid.nthreads);
	return 0;
}

/* What read(2) of slot's fd returned (got bytes in e->read_buf, or -1 with errno) decoded against
 * ids[0 .. n), or the failure explained. */
static int decode_slot(tally_evsel *e, size_t slot, ssize_t got, const uint64_t *ids, size_t n,
                       struct tally_count *counts)
{
	if (got < 0)
		return report_failure(e, slot, TLY_DIAG_READ, NULL, errno);
	int err = tly_read_decode(e->read_buf, (size_t)got, e->attr.read_format, ids, n, counts);
	if (err) {
		tly_error_append(" reading event '%s'", e->name);
		append_position(e, slot);
	}
	return err;
}

/* One read(2) of slot's fd decoded against ids[0 .. n). The hot path: no allocation, one system call. */
static int read_slot(tally_evsel *e, size_t slot, const uint64_t *ids, size_t n, struct tally_count *counts)
{
	return decode_slot(e, slot, read_retrying(e->grid.fd[slot], e->read_buf, e->read_size), ids, n, counts);
}

_Static_assert(sizeof(struct tally_count) == TLY_COUNT_SZ_V1, "tally_count grew: see out_array.h");

static bool count_sz_valid(size_t count_sz)
{
	return tly_out_valid(count_sz, TLY_COUNT_SZ_V1, alignof(struct tally_count), "tally_count");
}

int tally_evsel_read_group(tally_evsel *leader, size_t cpu_idx, size_t thread_idx,
                           struct tally_count *counts, size_t n, size_t count_sz)
{
	int err = check_read(leader, cpu_idx, thread_idx, counts, __func__);
	if (err)
		return err;
	if (!count_sz_valid(count_sz))
		return -TALLY_EOPTS;
	if (leader->leader != leader)
		return tly_error(-EINVAL, "event '%s' is a member of '%s''s group; read the group by its leader",
		                 leader->name, leader->leader->name);
	size_t group = 1 + leader->nr_members;
	if (n < group)
		return tly_error(-ENOSPC, "group of '%s' has %zu events; %zu counts given", leader->name, group, n);
	size_t slot = tly_fdgrid_slot(&leader->grid, cpu_idx, thread_idx);
	if (count_sz == sizeof(struct tally_count))
		return tly_evsel_read_group_slot(leader, slot, counts);
	/* A caller of another version: through scratch, then out element by element. */
	struct tally_count one, *scratch = group == 1 ? &one : leader->group_counts;
	err = tly_evsel_read_group_slot(leader, slot, scratch);
	for (size_t k = 0; k < group && !err; k++)
		tly_out_put(tly_out_at(counts, k, count_sz), count_sz, &scratch[k], sizeof(scratch[k]));
	return err;
}

int tly_evsel_read_group_rest(tally_evsel *leader, size_t slot, ssize_t got, struct tally_count *counts)
{
	size_t group = 1 + leader->nr_members;
	const uint64_t *ids = &leader->group_ids[slot * group];
	if (got < 0 && errno == EINTR)
		return read_slot(leader, slot, ids, group, counts);
	return decode_slot(leader, slot, got, ids, group, counts);
}

int tally_evsel_read(tally_evsel *evsel, size_t cpu_idx, size_t thread_idx, struct tally_count *count,
                     size_t count_sz)
{
	int err = check_read(evsel, cpu_idx, thread_idx, count, __func__);
	if (err)
		return err;
	if (!count_sz_valid(count_sz))
		return -TALLY_EOPTS;
	size_t slot = tly_fdgrid_slot(&evsel->grid, cpu_idx, thread_idx);
	struct tally_count one;
	if (evsel->tool)
		err = tly_tool_read(evsel->tool, &one);
	else if (evsel->nr_members == 0)
		err = read_slot(evsel, slot, &evsel->grid.id[slot], 1, &one);
	else
		err = read_slot(evsel, slot, &evsel->group_ids[slot * (1 + evsel->nr_members)],
		                1 + evsel->nr_members, evsel->group_counts);
	if (!err)
		tly_out_put(count, count_sz, evsel->nr_members ? &evsel->group_counts[0] : &one, sizeof(one));
	return err;
}

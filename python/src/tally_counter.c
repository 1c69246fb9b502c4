/* SPDX-License-Identifier: MIT */
/*
 * tally._tally.Counter over tally_counter (tally/counter.h): made from a spec and a target, opened,
 * started, read (Result records, or the bare values), stopped and closed, as in C; snapshots and their
 * delta (tally/snapshot.h); the metrics the counter was asked for, evaluated by the library
 * (tally/metrics.h). A launched command is waited for with the GIL released. As in C, a counter is used
 * by one thread at a time (the GIL makes each call atomic, not a sequence of calls); only the thread that
 * opened it reads from user space, any other through read(2).
 */
#include "tally_py.h"

#include <stdlib.h>
#include <time.h>
#include <tally/metrics.h>
#include <tally/snapshot.h>

typedef struct {
	PyObject_HEAD
	tally_counter *counter;
	struct tally_target target;
	char **argv;                /* the command's copy, kept while the counter may launch it */
	pid_t *tids;
	char *cpus;
	size_t n;                   /* events */
	struct tally_result *results; /* the latest read, n of them */
	uint64_t *values;
	double started, seconds;    /* CLOCK_MONOTONIC at start; the time counted until the latest read or stop */
	bool running;
	bool busy;                  /* a call runs with the GIL released (wait, close): the C counter is used by
	                             * one thread at a time, so any other call on it is refused until it ends */
} CounterObject;

typedef struct {
	PyObject_HEAD
	CounterObject *owner;       /* a reference: names and notes come from it */
	tally_snapshot *snapshot;
} SnapshotObject;

static PyStructSequence_Field result_fields[] = {
	{ "name", "the event's display name" },
	{ "value", "the raw count" },
	{ "enabled", "ns enabled" },
	{ "running", "ns on a counter" },
	{ "scaled", "value extrapolated to the enabled time: the count" },
	{ "ratio", "running / enabled: 1.0 exact, 0 not counted" },
	{ "status", "'counted', 'scaled', 'not-counted' or 'not-supported'" },
	{ "note", "why not supported, narrowed, regrouped or idle; '' when nothing to say" },
	{ "error", "the open's code when not supported (negative), else 0" },
	{ NULL, NULL },
};

static PyStructSequence_Desc result_desc = {
	"tally.Result", "One event's reading (struct tally_result), immutable.", result_fields, 9,
};

PyObject *tpy_result_new(const char *name, const struct tally_result *r, const char *note)
{
	PyObject *o = PyStructSequence_New(tpy.result);
	if (!o)
		return NULL;
	PyObject *items[9] = {
		PyUnicode_FromString(name ? name : ""), PyLong_FromUnsignedLongLong(r->value),
		PyLong_FromUnsignedLongLong(r->enabled), PyLong_FromUnsignedLongLong(r->running),
		PyLong_FromUnsignedLongLong(r->scaled), PyFloat_FromDouble(r->ratio),
		PyUnicode_FromString(tally_status_name(r->status)), PyUnicode_FromString(note ? note : ""),
		PyLong_FromLong(r->error),
	};
	bool ok = true;
	for (int i = 0; i < 9; i++) {
		if (!items[i])
			ok = false;
		else
			PyStructSequence_SetItem(o, i, items[i]); /* steals */
	}
	if (!ok)
		Py_CLEAR(o);
	return o;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int counter_fail(CounterObject *self, int rc)
{
	tpy_raise(rc, self->counter ? tally_counter_last_error(self->counter) : NULL);
	return -1;
}

/* A command's argv: a list of str, copied NULL-terminated. */
static int take_argv(CounterObject *self, PyObject *command)
{
	PyObject *seq = PySequence_Fast(command, "command must be a list of str");
	if (!seq)
		return -1;
	Py_ssize_t n = PySequence_Size(seq);
	self->argv = calloc((size_t)n + 1, sizeof(char *));
	int rc = self->argv && n > 0 ? 0 : -1;
	if (!self->argv)
		PyErr_NoMemory();
	else if (n == 0)
		PyErr_SetString(tpy.usage, "command: an empty argv");
	for (Py_ssize_t i = 0; rc == 0 && i < n; i++) {
		PyObject *item = PySequence_GetItem(seq, i);
		self->argv[i] = item ? tpy_strdup(item) : NULL;
		Py_XDECREF(item);
		if (!self->argv[i])
			rc = -1;
	}
	Py_DECREF(seq);
	self->target.kind = TALLY_TARGET_COMMAND;
	self->target.argv = self->argv;
	return rc;
}

/* tid: one int or a sequence of them. */
static int take_tids(CounterObject *self, PyObject *tid)
{
	PyObject *seq = PyLong_Check(tid) ? Py_BuildValue("(O)", tid) : PySequence_Tuple(tid);
	if (!seq)
		return -1;
	Py_ssize_t n = PyTuple_Size(seq);
	self->tids = calloc((size_t)n + 1, sizeof(pid_t));
	int rc = self->tids ? 0 : (PyErr_NoMemory(), -1);
	for (Py_ssize_t i = 0; rc == 0 && i < n; i++) {
		long v = PyLong_AsLong(PyTuple_GetItem(seq, i));
		if (v == -1 && PyErr_Occurred())
			rc = -1;
		self->tids[i] = (pid_t)v;
	}
	Py_DECREF(seq);
	self->target.kind = TALLY_TARGET_TIDS;
	self->target.tids = self->tids;
	self->target.nr_tids = (size_t)n;
	return rc;
}

/* The target from the keywords: command, then pid, tid, cpus, process; the calling thread by default. */
static int take_target(CounterObject *self, PyObject *pid, PyObject *tid, PyObject *cpus, PyObject *command,
                       int process)
{
	memset(&self->target, 0, sizeof(self->target));
	self->target.sz = sizeof(self->target);
	self->target.kind = process ? TALLY_TARGET_PROCESS : TALLY_TARGET_THREAD;
	if (cpus != Py_None) {
		if (!(self->cpus = tpy_strdup(cpus)))
			return -1;
		self->target.kind = TALLY_TARGET_CPUS;
		self->target.cpus = self->cpus;
	}
	if (pid != Py_None) {
		self->target.kind = TALLY_TARGET_PID;
		self->target.pid = (pid_t)PyLong_AsLong(pid);
		if (PyErr_Occurred())
			return -1;
	}
	if (tid != Py_None && take_tids(self, tid) < 0)
		return -1;
	if (command != Py_None && take_argv(self, command) < 0)
		return -1;
	return 0;
}

static int counter_init(CounterObject *self, PyObject *args, PyObject *kwds)
{
	static char *kwlist[] = { "spec", "pid", "tid", "cpus", "command", "inherit", "process", "metrics",
		                  "no_packing", "no_user_reads", NULL };
	const char *spec, *metrics = NULL;
	PyObject *pid = Py_None, *tid = Py_None, *cpus = Py_None, *command = Py_None;
	int inherit = 1, process = 0, no_packing = 0, no_user_reads = 0;
	if (self->counter) {
		PyErr_SetString(tpy.usage, "Counter.__init__ called twice");
		return -1;
	}
	if (!PyArg_ParseTupleAndKeywords(args, kwds, "s|$OOOOppzpp", kwlist, &spec, &pid, &tid, &cpus, &command,
	                                 &inherit, &process, &metrics, &no_packing, &no_user_reads))
		return -1;
	if (take_target(self, pid, tid, cpus, command, process) < 0)
		return -1;
	struct tally_counter_opts o;
	memset(&o, 0, sizeof(o));
	o.sz = sizeof(o);
	o.no_inherit = !inherit;
	o.no_packing = no_packing;
	o.no_user_reads = no_user_reads;
	o.metrics = metrics;
	/* A launched command runs even where nothing can be counted, as tally stat's does; each event's
	 * result then says why. */
	o.open_without_events = command != Py_None;
	int rc = tally_counter_new(spec, &o, &self->counter);
	if (rc < 0)
		return counter_fail(self, rc);
	self->n = tally_counter_count(self->counter);
	self->results = calloc(self->n + 1, sizeof(*self->results));
	self->values = calloc(self->n + 1, sizeof(*self->values));
	if (!self->results || !self->values) {
		PyErr_NoMemory();
		return -1;
	}
	return 0;
}

static void counter_dealloc(CounterObject *self)
{
	tally_counter *c = self->counter;
	if (c) {
		Py_BEGIN_ALLOW_THREADS /* a started command is waited for */
		tally_counter_free(c);
		Py_END_ALLOW_THREADS
	}
	for (size_t i = 0; self->argv && self->argv[i]; i++)
		free(self->argv[i]);
	free(self->argv);
	free(self->tids);
	free(self->cpus);
	free(self->results);
	free(self->values);
	tpy_free((PyObject *)self);
}

static int need(CounterObject *self)
{
	if (self->counter && !self->busy)
		return 0;
	PyErr_SetString(tpy.usage, self->busy ? "Counter in use: another thread waits in wait() or close() on it"
	                                      : "Counter not initialised");
	return -1;
}

/* The calls that take no argument and return 0 or a code; start and stop also keep the counted time. */
static PyObject *counter_call(CounterObject *self, int (*fn)(tally_counter *))
{
	if (need(self) < 0)
		return NULL;
	int rc = fn(self->counter);
	if (rc < 0)
		return counter_fail(self, rc), NULL;
	Py_RETURN_NONE;
}

static PyObject *counter_open(CounterObject *self, PyObject *unused)
{
	(void)unused;
	if (need(self) < 0)
		return NULL;
	int rc = tally_counter_open(self->counter, &self->target);
	if (rc < 0)
		return counter_fail(self, rc), NULL;
	Py_RETURN_NONE;
}

static PyObject *counter_start(CounterObject *self, PyObject *unused)
{
	(void)unused;
	PyObject *r = counter_call(self, tally_counter_start);
	if (r) {
		self->started = now_s();
		self->seconds = 0;
		self->running = true;
	}
	return r;
}

static PyObject *counter_resume(CounterObject *self, PyObject *unused)
{
	(void)unused;
	PyObject *r = counter_call(self, tally_counter_resume);
	if (r && !self->running) {
		self->started = now_s() - self->seconds;
		self->running = true;
	}
	return r;
}

static PyObject *counter_stop(CounterObject *self, PyObject *unused)
{
	(void)unused;
	PyObject *r = counter_call(self, tally_counter_stop);
	if (r && self->running) {
		self->seconds = now_s() - self->started;
		self->running = false;
	}
	return r;
}

static PyObject *counter_reset(CounterObject *self, PyObject *unused)
{
	(void)unused;
	PyObject *r = counter_call(self, tally_counter_reset);
	if (r) {
		self->started = now_s();
		self->seconds = 0;
	}
	return r;
}

static PyObject *counter_close(CounterObject *self, PyObject *unused)
{
	(void)unused;
	if (need(self) < 0)
		return NULL;
	self->busy = true;
	Py_BEGIN_ALLOW_THREADS
	tally_counter_close(self->counter);
	Py_END_ALLOW_THREADS
	self->busy = false;
	self->running = false;
	Py_RETURN_NONE;
}

/* A tuple of Result records from n results (a read's, or a delta's). */
static PyObject *results_tuple(CounterObject *self, const struct tally_result *r, size_t n)
{
	PyObject *t = PyTuple_New((Py_ssize_t)n);
	for (size_t i = 0; t && i < n; i++) {
		const char *note = r[i].has_note ? tally_counter_note(self->counter, i) : "";
		PyObject *item = tpy_result_new(tally_counter_name(self->counter, i), &r[i], note);
		if (!item || PyTuple_SetItem(t, (Py_ssize_t)i, item) < 0)
			Py_CLEAR(t);
	}
	return t;
}

static PyObject *counter_read(CounterObject *self, PyObject *unused)
{
	(void)unused;
	if (need(self) < 0)
		return NULL;
	int rc = tally_counter_read(self->counter, self->results, self->n, sizeof(self->results[0]));
	if (rc < 0)
		return counter_fail(self, rc), NULL;
	if (self->running)
		self->seconds = now_s() - self->started;
	return results_tuple(self, self->results, (size_t)rc);
}

/* read_values() -> the scaled counts as a tuple of int, without building results: the cheapest read
 * (tally_counter_read_values). A count that did not count reads 0 here: read() says which. */
static PyObject *counter_read_values(CounterObject *self, PyObject *unused)
{
	(void)unused;
	if (need(self) < 0)
		return NULL;
	int rc = tally_counter_read_values(self->counter, self->values, self->n);
	if (rc < 0)
		return counter_fail(self, rc), NULL;
	PyObject *t = PyTuple_New(rc);
	for (int i = 0; t && i < rc; i++) {
		PyObject *v = PyLong_FromUnsignedLongLong(self->values[i]);
		if (!v || PyTuple_SetItem(t, i, v) < 0)
			Py_CLEAR(t);
	}
	return t;
}

static PyObject *exit_dict(const struct tally_exit *e)
{
	return Py_BuildValue("{s:d,s:d,s:d,s:i,s:i,s:i}", "wall_s", e->wall_s, "user_s", e->user_s, "sys_s",
	                     e->sys_s, "pid", (int)e->pid, "status", e->status, "code", e->code);
}

/* wait() -> the launched command's exit as a dict (wall_s, user_s, sys_s, pid, status, code); the GIL is
 * released while it runs, so other Python threads go on. */
static PyObject *counter_wait(CounterObject *self, PyObject *unused)
{
	(void)unused;
	if (need(self) < 0)
		return NULL;
	struct tally_exit e;
	memset(&e, 0, sizeof(e));
	int rc;
	self->busy = true;
	Py_BEGIN_ALLOW_THREADS
	rc = tally_counter_wait(self->counter, &e, sizeof(e));
	Py_END_ALLOW_THREADS
	self->busy = false;
	if (rc < 0)
		return counter_fail(self, rc), NULL;
	return exit_dict(&e);
}

/* One metric of the latest read as a dict (tally_metric_eval over the read's results). */
static PyObject *metric_dict(CounterObject *self, size_t metric)
{
	struct tally_metric_sample s;
	memset(&s, 0, sizeof(s));
	s.sz = sizeof(s);
	s.events = tally_counter_events(self->counter);
	s.results = self->results;
	s.n = self->n;
	s.elem_sz = sizeof(self->results[0]);
	s.seconds = self->seconds;
	struct tally_metric_value v;
	memset(&v, 0, sizeof(v));
	v.sz = sizeof(v);
	int rc = tally_metric_eval(&s, metric, &v);
	if (rc < 0)
		return tpy_raise(rc, NULL);
	return Py_BuildValue("{s:s,s:O,s:d,s:s,s:O,s:s}", "name", v.name, "available", v.available ? Py_True : Py_False,
	                     "value", v.value, "unit", v.unit, "scaled", v.scaled ? Py_True : Py_False, "reason",
	                     v.reason);
}

/* metrics() -> [dict] for the metrics asked for, from the latest read: name, available, value, unit,
 * scaled, reason. */
static PyObject *counter_metrics(CounterObject *self, PyObject *unused)
{
	(void)unused;
	if (need(self) < 0)
		return NULL;
	size_t idx[64];
	int n = tally_counter_metrics(self->counter, idx, 64);
	if (n < 0)
		return tpy_raise(n, NULL);
	PyObject *list = PyList_New(0);
	for (int i = 0; list && i < n && i < 64; i++) {
		PyObject *d = metric_dict(self, idx[i]);
		if (!d || PyList_Append(list, d) < 0)
			Py_CLEAR(list);
		Py_XDECREF(d);
	}
	return list;
}

static PyObject *counter_snapshot(CounterObject *self, PyObject *unused)
{
	(void)unused;
	if (need(self) < 0)
		return NULL;
	SnapshotObject *snap = PyObject_New(SnapshotObject, tpy.snapshot);
	if (!snap)
		return NULL;
	snap->owner = self;
	Py_INCREF(self);
	snap->snapshot = NULL;
	int rc = tally_snapshot_new(self->counter, &snap->snapshot);
	if (rc == 0)
		rc = tally_counter_snapshot(self->counter, snap->snapshot);
	if (rc < 0) {
		Py_DECREF(snap);
		return counter_fail(self, rc), NULL;
	}
	return (PyObject *)snap;
}

static PyObject *counter_names(CounterObject *self, void *closure)
{
	(void)closure;
	if (need(self) < 0)
		return NULL;
	PyObject *t = PyTuple_New((Py_ssize_t)self->n);
	for (size_t i = 0; t && i < self->n; i++) {
		PyObject *s = PyUnicode_FromString(tally_counter_name(self->counter, i));
		if (!s || PyTuple_SetItem(t, (Py_ssize_t)i, s) < 0)
			Py_CLEAR(t);
	}
	return t;
}

static PyObject *counter_pid(CounterObject *self, void *closure)
{
	(void)closure;
	return PyLong_FromLong(self->counter ? tally_counter_pid(self->counter) : 0);
}

static PyMethodDef counter_methods[] = {
	{ "open", TPY_FN(counter_open), METH_NOARGS, "Opens the events on the target (tally_counter_open)." },
	{ "start", TPY_FN(counter_start), METH_NOARGS, "Starts counting; launches the command, if any." },
	{ "stop", TPY_FN(counter_stop), METH_NOARGS, "Stops counting; the counts stay readable." },
	{ "resume", TPY_FN(counter_resume), METH_NOARGS, "Counts again in the same window." },
	{ "reset", TPY_FN(counter_reset), METH_NOARGS, "Zeroes the counts, begins a new window." },
	{ "read", TPY_FN(counter_read), METH_NOARGS, "Reads every event: a tuple of Result." },
	{ "read_values", TPY_FN(counter_read_values), METH_NOARGS, "The scaled counts only, as a tuple of int." },
	{ "snapshot", TPY_FN(counter_snapshot), METH_NOARGS, "A Snapshot; after - before gives the interval." },
	{ "wait", TPY_FN(counter_wait), METH_NOARGS, "Waits for the command (GIL released): its exit as a dict." },
	{ "metrics", TPY_FN(counter_metrics), METH_NOARGS, "The metrics asked for, from the latest read." },
	{ "close", TPY_FN(counter_close), METH_NOARGS, "Closes every descriptor; the counter can be opened again." },
	{ NULL, NULL, 0, NULL },
};

static PyGetSetDef counter_getset[] = {
	{ "names", (getter)counter_names, NULL, "The events' display names, in result order.", NULL },
	{ "pid", (getter)counter_pid, NULL, "The launched command's pid (0: none).", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyType_Slot counter_slots[] = {
	{ Py_tp_doc, "Counter(spec, *, pid=None, tid=None, cpus=None, command=None, inherit=True, process=False, "
	             "metrics=None, no_packing=False, no_user_reads=False): tally_counter." },
	{ Py_tp_new, PyType_GenericNew },
	{ Py_tp_init, counter_init },
	{ Py_tp_dealloc, counter_dealloc },
	{ Py_tp_methods, counter_methods },
	{ Py_tp_getset, counter_getset },
	{ 0, NULL },
};

static PyType_Spec counter_spec = {
	"tally._tally.Counter", sizeof(CounterObject), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, counter_slots,
};

static void snapshot_dealloc(SnapshotObject *self)
{
	tally_snapshot_free(self->snapshot);
	Py_XDECREF(self->owner);
	tpy_free((PyObject *)self);
}

/* after - before: the counts between two snapshots of one counter (tally_snapshot_delta), as Results. */
static PyObject *snapshot_sub(PyObject *a, PyObject *b)
{
	if (!PyObject_TypeCheck(a, tpy.snapshot) || !PyObject_TypeCheck(b, tpy.snapshot))
		Py_RETURN_NOTIMPLEMENTED;
	SnapshotObject *after = (SnapshotObject *)a, *before = (SnapshotObject *)b;
	CounterObject *c = after->owner;
	struct tally_result *out = calloc(c->n + 1, sizeof(*out));
	if (!out)
		return PyErr_NoMemory();
	int rc = tally_snapshot_delta(before->snapshot, after->snapshot, out, c->n, sizeof(out[0]));
	PyObject *t = rc < 0 ? tpy_raise(rc, NULL) : results_tuple(c, out, (size_t)rc);
	free(out);
	return t;
}

static PyType_Slot snapshot_slots[] = {
	{ Py_tp_doc, "A counter's raw reading at one moment (tally_snapshot); after - before is the interval's "
	             "tuple of Result, scaled part by part." },
	{ Py_tp_dealloc, snapshot_dealloc },
	{ Py_nb_subtract, snapshot_sub },
	{ 0, NULL },
};

static PyType_Spec snapshot_spec = {
	"tally._tally.Snapshot", sizeof(SnapshotObject), 0, Py_TPFLAGS_DEFAULT, snapshot_slots,
};

int tpy_counter_init(PyObject *m)
{
	tpy.result = PyStructSequence_NewType(&result_desc);
	if (!tpy.result)
		return -1;
	Py_INCREF(tpy.result);
	if (PyModule_AddObject(m, "Result", (PyObject *)tpy.result) < 0)
		return -1;
	return tpy_add_type(m, "Counter", &counter_spec, &tpy.counter) < 0 ||
	       tpy_add_type(m, "Snapshot", &snapshot_spec, &tpy.snapshot) < 0 ? -1 : 0;
}

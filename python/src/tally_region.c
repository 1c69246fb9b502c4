/* SPDX-License-Identifier: MIT */
/*
 * Regions from Python (tally/region.h): `Region(name)` is the zero-configuration form's context manager
 * (tally_region_begin/end by name: the same TALLY_EVENTS, TALLY_OUTPUT, calibration and output at exit as
 * a C program's), `RegionSet` the handle form for libraries (ids, per-set results), and `_Nop` a context
 * manager that does nothing, the floor any `with` block costs (bench/bench_python.py). __enter__ and
 * __exit__ are C methods that call the region API directly, so that a region from Python costs the
 * interpreter's `with` and the C region, nothing more. The GIL is held: begin and end never block.
 */
#include "tally_py.h"

#include <stdlib.h>
#include <tally/region.h>

typedef struct {
	PyObject_HEAD
	char *name;
} RegionObject;

typedef struct {
	PyObject_HEAD
	tally_region_set *set;
} RegionSetObject;

typedef struct {
	PyObject_HEAD
	RegionSetObject *owner;
	int id;
} SetRegionObject;

/* ---- Region(name): the zero-configuration session ---------------------------------------------------- */

static int region_init(RegionObject *self, PyObject *args, PyObject *kwds)
{
	static char *kwlist[] = { "name", NULL };
	PyObject *name;
	if (!PyArg_ParseTupleAndKeywords(args, kwds, "U", kwlist, &name))
		return -1;
	free(self->name);
	self->name = tpy_strdup(name);
	return self->name ? 0 : -1;
}

static void region_dealloc(RegionObject *self)
{
	free(self->name);
	tpy_free((PyObject *)self);
}

static PyObject *region_enter(RegionObject *self, PyObject *unused)
{
	(void)unused;
	tally_region_begin(self->name);
	Py_INCREF(self);
	return (PyObject *)self;
}

static PyObject *region_exit(RegionObject *self, PyObject *args)
{
	(void)args;
	tally_region_end(self->name);
	Py_RETURN_NONE;
}

static PyObject *region_name(RegionObject *self, void *closure)
{
	(void)closure;
	return PyUnicode_FromString(self->name ? self->name : "");
}

static PyMethodDef region_methods[] = {
	{ "__enter__", TPY_FN(region_enter), METH_NOARGS, "tally_region_begin(name)." },
	{ "__exit__", TPY_FN(region_exit), METH_VARARGS, "tally_region_end(name)." },
	{ "begin", TPY_FN(region_enter), METH_NOARGS, "tally_region_begin(name); returns the region." },
	{ "end", TPY_FN(region_exit), METH_VARARGS, "tally_region_end(name)." },
	{ NULL, NULL, 0, NULL },
};

static PyGetSetDef region_getset[] = {
	{ "name", (getter)region_name, NULL, "The region's name.", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyType_Slot region_slots[] = {
	{ Py_tp_doc, "Region(name): a named region of the process-wide session (tally_region_begin/end)." },
	{ Py_tp_new, PyType_GenericNew },
	{ Py_tp_init, region_init },
	{ Py_tp_dealloc, region_dealloc },
	{ Py_tp_methods, region_methods },
	{ Py_tp_getset, region_getset },
	{ 0, NULL },
};

static PyType_Spec region_spec = {
	"tally._tally.Region", sizeof(RegionObject), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, region_slots,
};

/* regions_write(): the session's results to TALLY_OUTPUT now (tally_regions_write). */
static PyObject *mod_regions_write(PyObject *self, PyObject *unused)
{
	(void)self;
	(void)unused;
	int rc = tally_regions_write();
	if (rc < 0)
		return tpy_raise(rc, NULL);
	Py_RETURN_NONE;
}

/* ---- RegionSet: the handle form ---------------------------------------------------------------------- */

static int set_init(RegionSetObject *self, PyObject *args, PyObject *kwds)
{
	static char *kwlist[] = { "spec", "metrics", "subtract_overhead", "max_regions", "no_user_reads", NULL };
	const char *spec = NULL, *metrics = NULL;
	int subtract = 0, no_user_reads = 0;
	Py_ssize_t max_regions = 0;
	if (self->set) {
		PyErr_SetString(tpy.usage, "RegionSet.__init__ called twice");
		return -1;
	}
	if (!PyArg_ParseTupleAndKeywords(args, kwds, "|z$zpnp", kwlist, &spec, &metrics, &subtract, &max_regions,
	                                 &no_user_reads))
		return -1;
	struct tally_region_opts o;
	memset(&o, 0, sizeof(o));
	o.sz = sizeof(o);
	o.metrics = metrics;
	o.subtract_overhead = subtract;
	o.max_regions = max_regions > 0 ? (size_t)max_regions : 0;
	o.no_user_reads = no_user_reads;
	int rc = tally_region_set_new(spec, &o, &self->set);
	return rc < 0 ? (tpy_raise(rc, NULL), -1) : 0;
}

static void set_dealloc(RegionSetObject *self)
{
	tally_region_set_free(self->set);
	tpy_free((PyObject *)self);
}

static int set_need(RegionSetObject *self)
{
	if (self->set)
		return 0;
	PyErr_SetString(tpy.usage, "RegionSet not initialised");
	return -1;
}

static PyObject *set_id(RegionSetObject *self, PyObject *name)
{
	if (set_need(self) < 0)
		return NULL;
	char *s = PyUnicode_Check(name) ? tpy_strdup(name) : NULL;
	if (!s) {
		if (!PyErr_Occurred())
			PyErr_SetString(PyExc_TypeError, "a region name is a str");
		return NULL;
	}
	int id = tally_region_id(self->set, s);
	free(s);
	return id < 0 ? tpy_raise(id, NULL) : PyLong_FromLong(id);
}

static PyObject *set_mark(RegionSetObject *self, PyObject *arg, int (*fn)(tally_region_set *, int))
{
	long id = PyLong_AsLong(arg);
	if (id == -1 && PyErr_Occurred())
		return NULL;
	if (set_need(self) < 0)
		return NULL;
	int rc = fn(self->set, (int)id);
	return rc < 0 ? tpy_raise(rc, NULL) : (Py_INCREF(Py_None), Py_None);
}

static PyObject *set_begin(RegionSetObject *self, PyObject *id)
{
	return set_mark(self, id, tally_region_begin_id);
}

static PyObject *set_end(RegionSetObject *self, PyObject *id)
{
	return set_mark(self, id, tally_region_end_id);
}

/* region(name) -> a context manager for that id of this set. */
static PyObject *set_region(RegionSetObject *self, PyObject *name)
{
	PyObject *id = set_id(self, name);
	if (!id)
		return NULL;
	SetRegionObject *r = PyObject_New(SetRegionObject, tpy.set_region);
	if (r) {
		r->owner = self;
		Py_INCREF(self);
		r->id = (int)PyLong_AsLong(id);
	}
	Py_DECREF(id);
	return (PyObject *)r;
}

static PyObject *event_dict(const struct tally_region_event *e)
{
	return Py_BuildValue("{s:K,s:K,s:K,s:d,s:d,s:K,s:d,s:s,s:O}", "sum", (unsigned long long)e->sum, "min",
	                     (unsigned long long)e->min, "max", (unsigned long long)e->max, "mean", e->mean, "stddev",
	                     e->stddev, "counted", (unsigned long long)e->counted, "ratio", e->ratio, "status",
	                     tally_status_name(e->status), "low", e->low ? Py_True : Py_False);
}

/* One region over all threads as a dict: name, calls, wall_ns, open, stray_ends, error, events. */
static PyObject *region_dict(const tally_region_set *set, size_t region, struct tally_region_event *ev, size_t n)
{
	struct tally_region_info info;
	memset(&info, 0, sizeof(info));
	info.sz = sizeof(info);
	int rc = tally_region_set_read(set, region, TALLY_REGION_ALL_THREADS, &info, ev, n, sizeof(ev[0]));
	if (rc < 0)
		return tpy_raise(rc, NULL);
	PyObject *events = PyDict_New();
	for (size_t i = 0; events && i < n && i < (size_t)rc; i++) {
		PyObject *d = event_dict(&ev[i]);
		if (!d || PyDict_SetItemString(events, tally_region_set_event_name(set, i), d) < 0)
			Py_CLEAR(events);
		Py_XDECREF(d);
	}
	if (!events)
		return NULL;
	return Py_BuildValue("{s:s,s:K,s:K,s:K,s:K,s:s,s:N}", "name", info.name, "calls",
	                     (unsigned long long)info.calls, "wall_ns", (unsigned long long)info.wall_ns, "open",
	                     (unsigned long long)info.open, "stray_ends", (unsigned long long)info.stray_ends, "error",
	                     info.error ? info.error : "", "events", events);
}

/* read() -> [dict], every region over all threads. */
static PyObject *set_read(RegionSetObject *self, PyObject *unused)
{
	(void)unused;
	if (set_need(self) < 0)
		return NULL;
	size_t n = tally_region_set_events(self->set);
	struct tally_region_event *ev = calloc(n + 1, sizeof(*ev));
	PyObject *list = ev ? PyList_New(0) : PyErr_NoMemory();
	for (size_t r = 0; list && r < tally_region_set_regions(self->set); r++) {
		PyObject *d = region_dict(self->set, r, ev, n);
		if (!d || PyList_Append(list, d) < 0)
			Py_CLEAR(list);
		Py_XDECREF(d);
	}
	free(ev);
	return list;
}

/* write(format='table'|'csv'|'json') -> the set's output as text (tally_region_set_write). */
static PyObject *set_write(RegionSetObject *self, PyObject *args)
{
	const char *format = "table";
	if (!PyArg_ParseTuple(args, "|s", &format) || set_need(self) < 0)
		return NULL;
	enum tally_region_format f = !strcmp(format, "json") ? TALLY_REGION_JSON
	                           : !strcmp(format, "csv")  ? TALLY_REGION_CSV
	                                                     : TALLY_REGION_TABLE;
	if (f == TALLY_REGION_TABLE && strcmp(format, "table")) {
		PyErr_Format(tpy.usage, "format '%s': table, csv or json", format);
		return NULL;
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	if (!mem)
		return PyErr_NoMemory();
	int rc = tally_region_set_write(self->set, mem, f);
	fclose(mem);
	PyObject *text = rc < 0 ? tpy_raise(rc, NULL) : PyUnicode_FromStringAndSize(buf, (Py_ssize_t)len);
	free(buf);
	return text;
}

static PyObject *set_error(RegionSetObject *self, void *closure)
{
	(void)closure;
	return PyUnicode_FromString(self->set ? tally_region_set_error(self->set) : "");
}

static PyObject *set_overhead(RegionSetObject *self, void *closure)
{
	(void)closure;
	if (set_need(self) < 0)
		return NULL;
	PyObject *d = PyDict_New();
	for (size_t i = 0; d && i < tally_region_set_events(self->set); i++) {
		PyObject *v = PyLong_FromUnsignedLongLong(tally_region_set_overhead(self->set, i));
		if (!v || PyDict_SetItemString(d, tally_region_set_event_name(self->set, i), v) < 0)
			Py_CLEAR(d);
		Py_XDECREF(v);
	}
	return d;
}

/* _loop(id, n): n begin+end pairs of region id in C, for bench/bench_python.py: the C region's cost in
 * this process, on this set, beside the same pairs from Python. */
static PyObject *set_loop(RegionSetObject *self, PyObject *args)
{
	int id;
	Py_ssize_t n;
	if (!PyArg_ParseTuple(args, "in", &id, &n) || set_need(self) < 0)
		return NULL;
	for (Py_ssize_t i = 0; i < n; i++) {
		tally_region_begin_id(self->set, id);
		tally_region_end_id(self->set, id);
	}
	Py_RETURN_NONE;
}

static PyMethodDef set_methods[] = {
	{ "id", TPY_FN(set_id), METH_O, "id(name): the region's id, registered on first request." },
	{ "begin", TPY_FN(set_begin), METH_O, "begin(id): tally_region_begin_id." },
	{ "end", TPY_FN(set_end), METH_O, "end(id): tally_region_end_id." },
	{ "region", TPY_FN(set_region), METH_O, "region(name): a context manager for that region." },
	{ "read", TPY_FN(set_read), METH_NOARGS, "read(): every region over all threads, as dicts." },
	{ "write", TPY_FN(set_write), METH_VARARGS, "write(format='table'): the output as text (csv, json)." },
	{ "_loop", TPY_FN(set_loop), METH_VARARGS, "_loop(id, n): n begin+end pairs in C (the benchmark's)." },
	{ NULL, NULL, 0, NULL },
};

static PyGetSetDef set_getset[] = {
	{ "error", (getter)set_error, NULL, "Why the set does not count ('' when it does).", NULL },
	{ "overhead", (getter)set_overhead, NULL, "The calibrated count of an empty region, per event.", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyType_Slot set_slots[] = {
	{ Py_tp_doc, "RegionSet(spec=None, *, metrics=None, subtract_overhead=False, max_regions=0, "
	             "no_user_reads=False): tally_region_set, the handle form." },
	{ Py_tp_new, PyType_GenericNew },
	{ Py_tp_init, set_init },
	{ Py_tp_dealloc, set_dealloc },
	{ Py_tp_methods, set_methods },
	{ Py_tp_getset, set_getset },
	{ 0, NULL },
};

static PyType_Spec set_spec = {
	"tally._tally.RegionSet", sizeof(RegionSetObject), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, set_slots,
};

static void set_region_dealloc(SetRegionObject *self)
{
	Py_XDECREF(self->owner);
	tpy_free((PyObject *)self);
}

static PyObject *set_region_enter(SetRegionObject *self, PyObject *unused)
{
	(void)unused;
	tally_region_begin_id(self->owner->set, self->id);
	Py_INCREF(self);
	return (PyObject *)self;
}

static PyObject *set_region_exit(SetRegionObject *self, PyObject *args)
{
	(void)args;
	tally_region_end_id(self->owner->set, self->id);
	Py_RETURN_NONE;
}

static PyMethodDef set_region_methods[] = {
	{ "__enter__", TPY_FN(set_region_enter), METH_NOARGS, "tally_region_begin_id." },
	{ "__exit__", TPY_FN(set_region_exit), METH_VARARGS, "tally_region_end_id." },
	{ NULL, NULL, 0, NULL },
};

static PyType_Slot set_region_slots[] = {
	{ Py_tp_doc, "A region of a RegionSet, as a context manager (RegionSet.region(name))." },
	{ Py_tp_dealloc, set_region_dealloc },
	{ Py_tp_methods, set_region_methods },
	{ 0, NULL },
};

static PyType_Spec set_region_spec = {
	"tally._tally.SetRegion", sizeof(SetRegionObject), 0, Py_TPFLAGS_DEFAULT, set_region_slots,
};

/* ---- _Nop: the floor ------------------------------------------------------------------------------- */

static PyObject *nop_enter(PyObject *self, PyObject *unused)
{
	(void)unused;
	Py_INCREF(self);
	return self;
}

static PyObject *nop_exit(PyObject *self, PyObject *args)
{
	(void)self;
	(void)args;
	Py_RETURN_NONE;
}

static PyMethodDef nop_methods[] = {
	{ "__enter__", TPY_FN(nop_enter), METH_NOARGS, "Nothing." },
	{ "__exit__", TPY_FN(nop_exit), METH_VARARGS, "Nothing." },
	{ NULL, NULL, 0, NULL },
};

static PyType_Slot nop_slots[] = {
	{ Py_tp_doc, "A context manager in C that does nothing: what any `with` block costs." },
	{ Py_tp_new, PyType_GenericNew },
	{ Py_tp_methods, nop_methods },
	{ 0, NULL },
};

static PyType_Spec nop_spec = {
	"tally._tally._Nop", sizeof(PyObject), 0, Py_TPFLAGS_DEFAULT, nop_slots,
};

static PyMethodDef region_functions[] = {
	{ "regions_write", TPY_FN(mod_regions_write), METH_NOARGS, "Writes the session's results now." },
	{ NULL, NULL, 0, NULL },
};

int tpy_region_init(PyObject *m)
{
	if (tpy_add_type(m, "Region", &region_spec, &tpy.region) < 0 ||
	    tpy_add_type(m, "RegionSet", &set_spec, &tpy.region_set) < 0 ||
	    tpy_add_type(m, "SetRegion", &set_region_spec, &tpy.set_region) < 0 ||
	    tpy_add_type(m, "_Nop", &nop_spec, &tpy.nop) < 0)
		return -1;
	return PyModule_AddFunctions(m, region_functions);
}

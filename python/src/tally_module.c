/* SPDX-License-Identifier: MIT */
/*
 * The module `tally._tally`: its exceptions (tally's explanation as the message, the code and errno as
 * attributes), the machine's facts (tally doctor's), the names an event spec can use (tally list's), and
 * the version. The Python package (python/tally/) builds the documented API on top.
 */
#include "tally_py.h"

#include <stdlib.h>
#include <tally/events.h>
#include <tally/pmu.h>
#include <tally/probe.h>

struct tpy_types tpy;

char *tpy_strdup(PyObject *str)
{
	PyObject *bytes = PyUnicode_AsUTF8String(str);
	if (!bytes)
		return NULL;
	char *copy = strdup(PyBytes_AsString(bytes));
	Py_DECREF(bytes);
	if (!copy)
		PyErr_NoMemory();
	return copy;
}

int tpy_add_type(PyObject *m, const char *name, PyType_Spec *spec, PyTypeObject **out)
{
	*out = (PyTypeObject *)PyType_FromSpec(spec);
	if (!*out)
		return -1;
	Py_INCREF(*out);
	return PyModule_AddObject(m, name, (PyObject *)*out);
}

void tpy_free(PyObject *self)
{
	PyTypeObject *type = Py_TYPE(self);
	freefunc tp_free = (freefunc)PyType_GetSlot(type, Py_tp_free);
	tp_free(self);
	Py_DECREF(type);
}

/* Which class a code raises: the spec's, "cannot be counted here", permissions, or a call that does not
 * fit (state, arguments); everything else is the base class. */
static PyObject *class_of(int code)
{
	switch (-code) {
	case TALLY_ESPEC:
		return tpy.spec_error;
	case TALLY_ENOPMU:
	case TALLY_ENOPFM:
	case ENOENT:
	case ENODEV:
	case EOPNOTSUPP:
		return tpy.not_supported;
	case EACCES:
	case EPERM:
		return tpy.permission;
	case TALLY_ESTATE:
	case TALLY_EOPTS:
	case EINVAL:
	case ERANGE:
		return tpy.usage;
	default:
		return tpy.error;
	}
}

PyObject *tpy_raise(int code, const char *text)
{
	if (!text || !*text)
		text = tally_last_error();
	if (!*text)
		text = tally_strerror(code);
	PyObject *cls = class_of(code);
	PyObject *exc = PyObject_CallFunction(cls, "s", text);
	if (!exc)
		return NULL;
	PyObject *err = -code < TALLY_EBASE ? PyLong_FromLong(-code) : (Py_INCREF(Py_None), Py_None);
	PyObject *num = PyLong_FromLong(code);
	if (err && num && PyObject_SetAttrString(exc, "errno", err) == 0 &&
	    PyObject_SetAttrString(exc, "code", num) == 0)
		PyErr_SetObject(cls, exc);
	Py_XDECREF(err);
	Py_XDECREF(num);
	Py_DECREF(exc);
	return NULL;
}

/* exception(code, message) -> the instance tpy_raise would raise, for the package's own checks (a result
 * that did not count raises with its note). */
static PyObject *mod_exception(PyObject *self, PyObject *args)
{
	int code;
	const char *text;
	(void)self;
	if (!PyArg_ParseTuple(args, "is", &code, &text))
		return NULL;
	tpy_raise(code, text);
	PyObject *type, *value, *tb;
	PyErr_Fetch(&type, &value, &tb);
	Py_XDECREF(type);
	Py_XDECREF(tb);
	return value;
}

static int put(PyObject *dict, const char *key, PyObject *value)
{
	if (!value)
		return -1;
	int rc = PyDict_SetItemString(dict, key, value);
	Py_DECREF(value);
	return rc;
}

static PyObject *fact_int(int v)
{
	if (v == TALLY_FACT_UNKNOWN)
		Py_RETURN_NONE;
	return PyLong_FromLong(v);
}

static PyObject *fact_bool(bool known, bool v)
{
	if (!known)
		Py_RETURN_NONE;
	return PyBool_FromLong(v);
}

/* doctor() -> the machine's facts (tally_facts_probe) as a dict; None where a fact is unknown. */
static PyObject *mod_doctor(PyObject *self, PyObject *unused)
{
	(void)self;
	(void)unused;
	struct tally_facts f;
	memset(&f, 0, sizeof(f));
	f.sz = sizeof(f);
	int rc;
	Py_BEGIN_ALLOW_THREADS
	rc = tally_facts_probe(NULL, &f);
	Py_END_ALLOW_THREADS
	if (rc < 0)
		return tpy_raise(rc, NULL);
	PyObject *d = PyDict_New();
	if (!d)
		return NULL;
	if (put(d, "pmus", f.pmus_known ? PyUnicode_FromString(f.pmu_names) : (Py_INCREF(Py_None), Py_None)) ||
	    put(d, "nr_pmus", PyLong_FromUnsignedLong(f.nr_pmus)) ||
	    put(d, "nr_core_pmus", PyLong_FromUnsignedLong(f.nr_core_pmus)) ||
	    put(d, "has_hw_pmu", fact_bool(f.pmus_known, f.has_hw_pmu)) ||
	    put(d, "perf_event_paranoid", fact_int(f.perf_event_paranoid)) ||
	    put(d, "cap_perfmon", fact_bool(f.caps_known, f.cap_perfmon)) ||
	    put(d, "cap_sys_admin", fact_bool(f.caps_known, f.cap_sys_admin)) ||
	    put(d, "seccomp", fact_int(f.seccomp)) || put(d, "nmi_watchdog", fact_int(f.nmi_watchdog)) ||
	    put(d, "rdpmc", fact_int(f.rdpmc)) || put(d, "perf_user_access", fact_int(f.perf_user_access)) ||
	    put(d, "nofile_soft", PyLong_FromUnsignedLongLong(f.nofile_soft)) ||
	    put(d, "nofile_hard", PyLong_FromUnsignedLongLong(f.nofile_hard)) ||
	    put(d, "online_cpus", PyLong_FromUnsignedLong(f.online_cpus)) ||
	    put(d, "kernel", PyUnicode_FromString(f.kernel_release)) ||
	    put(d, "has_format_lost", PyBool_FromLong(f.has_format_lost)) ||
	    put(d, "has_user_time", PyBool_FromLong(f.has_user_time)) ||
	    put(d, "cpu_model", PyUnicode_FromString(f.cpu_model))) {
		Py_DECREF(d);
		return NULL;
	}
	return d;
}

static const char *const builtin_kinds[] = { "hardware", "software", "cache", "tool" };

/* builtins() -> [(name, alias or None, kind)], the names tally knows without sysfs. */
static PyObject *mod_builtins(PyObject *self, PyObject *unused)
{
	(void)self;
	(void)unused;
	PyObject *list = PyList_New(0);
	for (size_t i = 0; list && i < tally_builtin_count(); i++) {
		struct tally_builtin_info b;
		memset(&b, 0, sizeof(b));
		b.sz = sizeof(b);
		if (tally_builtin_at(i, &b) < 0)
			continue;
		PyObject *item = Py_BuildValue("(szs)", b.name, b.alias, builtin_kinds[b.kind & 3]);
		if (!item || PyList_Append(list, item) < 0)
			Py_CLEAR(list);
		Py_XDECREF(item);
	}
	return list;
}

static int append_alias(PyObject *list, const tally_pmu *pmu, size_t i, const char *pmu_name)
{
	struct tally_alias_info a;
	memset(&a, 0, sizeof(a));
	a.sz = sizeof(a);
	if (tally_pmu_alias_at(pmu, i, &a) < 0)
		return 0;
	PyObject *item = PyUnicode_FromFormat("%s/%s/", pmu_name, a.name);
	int rc = item ? PyList_Append(list, item) : -1;
	Py_XDECREF(item);
	return rc;
}

/* pmu_events() -> ["pmu/alias/"], every sysfs alias of every PMU. */
static PyObject *mod_pmu_events(PyObject *self, PyObject *unused)
{
	(void)self;
	(void)unused;
	tally_pmus *pmus;
	int rc = tally_pmus_load(NULL, &pmus);
	if (rc < 0)
		return tpy_raise(rc, NULL);
	PyObject *list = PyList_New(0);
	for (size_t p = 0; list && p < tally_pmus_count(pmus); p++) {
		const tally_pmu *pmu = tally_pmus_at(pmus, p);
		struct tally_pmu_info info;
		memset(&info, 0, sizeof(info));
		info.sz = sizeof(info);
		if (tally_pmu_get_info(pmu, &info) < 0)
			continue;
		for (size_t i = 0; list && i < info.nr_aliases; i++)
			if (append_alias(list, pmu, i, info.name) < 0)
				Py_CLEAR(list);
	}
	tally_pmus_free(pmus);
	return list;
}

static int add_tracepoint(const char *system, const char *event, void *arg)
{
	PyObject *item = PyUnicode_FromFormat("%s:%s", system, event);
	int rc = item ? PyList_Append(arg, item) : -1;
	Py_XDECREF(item);
	return rc < 0 ? 1 : 0;
}

/* tracepoints() -> ["system:event"]; [] where tracefs cannot be read (the reason is not an error here:
 * a listing shows what there is). */
static PyObject *mod_tracepoints(PyObject *self, PyObject *unused)
{
	(void)self;
	(void)unused;
	PyObject *list = PyList_New(0);
	if (list && tally_tracepoints(NULL, add_tracepoint, list) == 1)
		Py_CLEAR(list);
	return list;
}

static PyObject *mod_version(PyObject *self, PyObject *unused)
{
	(void)self;
	(void)unused;
	return PyUnicode_FromString(tally_version());
}

static PyObject *mod_strerror(PyObject *self, PyObject *args)
{
	int code;
	(void)self;
	if (!PyArg_ParseTuple(args, "i", &code))
		return NULL;
	return PyUnicode_FromString(tally_strerror(code));
}

static PyMethodDef module_methods[] = {
	{ "exception", mod_exception, METH_VARARGS, "exception(code, message): the tally.Error a code raises." },
	{ "doctor", mod_doctor, METH_NOARGS, "doctor(): the machine's facts for counting, as a dict." },
	{ "builtins", mod_builtins, METH_NOARGS, "builtins(): [(name, alias, kind)] known without sysfs." },
	{ "pmu_events", mod_pmu_events, METH_NOARGS, "pmu_events(): every PMU's sysfs aliases, 'pmu/alias/'." },
	{ "tracepoints", mod_tracepoints, METH_NOARGS, "tracepoints(): every tracepoint, 'system:event'." },
	{ "version", mod_version, METH_NOARGS, "version(): libtally's version." },
	{ "strerror", mod_strerror, METH_VARARGS, "strerror(code): tally_strerror's short text." },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef module_def = {
	PyModuleDef_HEAD_INIT, "tally._tally", "libtally's public API, for the tally package.", -1,
	module_methods, NULL, NULL, NULL, NULL,
};

/* One exception class: its name, bases, and the docstring. */
static PyObject *add_error(PyObject *m, const char *name, PyObject *bases, const char *doc)
{
	char full[64];
	snprintf(full, sizeof(full), "tally.%s", name);
	PyObject *cls = PyErr_NewExceptionWithDoc(full, doc, bases, NULL);
	if (cls && PyModule_AddObject(m, name, (Py_INCREF(cls), cls)) < 0)
		Py_DECREF(cls);
	return cls;
}

static int add_errors(PyObject *m)
{
	tpy.error = add_error(m, "Error", NULL,
	                      "A tally call failed: str(e) is tally's explanation (cause and fix); e.code is the "
	                      "library's code (negative), e.errno the errno or None.");
	if (!tpy.error)
		return -1;
	PyObject *b1 = Py_BuildValue("(OO)", tpy.error, PyExc_ValueError);
	PyObject *b2 = Py_BuildValue("(OO)", tpy.error, PyExc_PermissionError);
	PyObject *b3 = Py_BuildValue("(O)", tpy.error);
	if (b1 && b2 && b3) {
		tpy.spec_error = add_error(m, "SpecError", b1, "The event spec does not parse: the message shows it "
		                           "with a caret under the bad character and the names it might mean.");
		tpy.usage = add_error(m, "UsageError", b1, "The call does not fit: bad arguments, or the handle's "
		                      "state (read before open).");
		tpy.permission = add_error(m, "PermissionError", b2, "The kernel refused: the message names the "
		                           "fix (perf_event_paranoid, CAP_PERFMON).");
		tpy.not_supported = add_error(m, "NotSupportedError", b3, "This machine cannot count the event "
		                              "(no hardware PMU, unknown to this kernel): the message says why.");
	}
	Py_XDECREF(b1);
	Py_XDECREF(b2);
	Py_XDECREF(b3);
	return tpy.spec_error && tpy.usage && tpy.permission && tpy.not_supported ? 0 : -1;
}

PyMODINIT_FUNC PyInit__tally(void);

PyMODINIT_FUNC PyInit__tally(void)
{
	PyObject *m = PyModule_Create(&module_def);
	if (!m)
		return NULL;
	if (add_errors(m) < 0 || tpy_counter_init(m) < 0 || tpy_region_init(m) < 0 ||
	    PyModule_AddIntConstant(m, "ESPEC", -TALLY_ESPEC) < 0 ||
	    PyModule_AddIntConstant(m, "ENOTCOUNTED", -TALLY_ENOTCOUNTED) < 0 ||
	    PyModule_AddIntConstant(m, "ESTATE", -TALLY_ESTATE) < 0) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}

/* SPDX-License-Identifier: MIT */
/*
 * The `tally._tally` extension: what its files share. Built for CPython's stable ABI (Py_LIMITED_API
 * 3.9, one abi3 build for every later Python), over libtally's public API only, as tools/ is.
 *
 * Files: tally_module.c (the module, its exceptions, the machine's facts and the event lists),
 * tally_counter.c (Counter, Snapshot, the Result record, metrics), tally_region.c (regions: the
 * zero-configuration context manager, the handle form, and the empty `with` block the benchmark takes as
 * the floor of any context manager).
 */
#ifndef TALLY_PY_H
#define TALLY_PY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <tally/counter.h>

/* Method tables take PyCFunction; one with keywords has three parameters, so the cast goes through a
 * function type of no parameters (which -Wcast-function-type accepts). */
#define TPY_FN(f) ((PyCFunction)(void (*)(void))(f))

/* Raises the tally.Error subclass for code (negative errno-style or -TALLY_E*), its message text (NULL:
 * tally_last_error(), else tally_strerror(code)); errno and code set as attributes. Returns NULL. */
PyObject *tpy_raise(int code, const char *text);

/* The exception classes and the types, made once at import and never changed after: the module is
 * single-phase (one per process, no subinterpreters), so one static table is its state. */
struct tpy_types {
	PyObject *error, *spec_error, *not_supported, *permission, *usage;
	PyTypeObject *result, *counter, *snapshot, *region, *region_set, *set_region, *nop;
};
extern struct tpy_types tpy;

/* A Python str as a C string owned by the caller (free() it); NULL with an exception set. */
char *tpy_strdup(PyObject *str);

/* Makes the type of spec, keeps it in *out and adds it to the module as name; 0 or -1. */
int tpy_add_type(PyObject *module, const char *name, PyType_Spec *spec, PyTypeObject **out);

/* The end of every dealloc: frees the object through its type's tp_free and drops the type (each object of
 * a heap type holds a reference to it). */
void tpy_free(PyObject *self);

/* Each file adds its types to the module; 0 or -1 with an exception set. */
int tpy_counter_init(PyObject *module);
int tpy_region_init(PyObject *module);

/* The Result record of one event (tally_counter_read, tally_snapshot_delta). */
PyObject *tpy_result_new(const char *name, const struct tally_result *r, const char *note);

#endif

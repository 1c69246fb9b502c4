# SPDX-License-Identifier: MIT
"""The extension tally._tally, built for the stable ABI (abi3, Python 3.9+) against an installed
libtally (`make install`): pkg-config's tally.pc when it is found, else $TALLY_PREFIX (default
/usr/local). The library's directory is recorded as the extension's RPATH, so that no LD_LIBRARY_PATH is
needed, unless TALLY_RPATH=0 (a distribution's package, whose libtally is in the loader's own directories:
debian/rules). Everything else is in pyproject.toml."""
import glob
import os
import subprocess

from setuptools import Extension, setup


def pkg_config(*args):
    try:
        out = subprocess.run(["pkg-config", *args, "tally"], check=True, capture_output=True, text=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return out.stdout.split()


prefix = os.environ.get("TALLY_PREFIX")
cflags = None if prefix else pkg_config("--cflags")
libs = None if prefix else pkg_config("--libs-only-L")
prefix = prefix or "/usr/local"
include_dirs = [f[2:] for f in cflags or [] if f.startswith("-I")] or [os.path.join(prefix, "include")]
library_dirs = [f[2:] for f in libs or [] if f.startswith("-L")]
if not library_dirs:
    library_dirs = [d for d in (os.path.join(prefix, "lib"), os.path.join(prefix, "lib64")) if os.path.isdir(d)]
    library_dirs += glob.glob(os.path.join(prefix, "lib", "*-linux-gnu"))

here = os.path.dirname(os.path.abspath(__file__))
setup(ext_modules=[Extension(
    "tally._tally",
    sources=sorted(os.path.relpath(p, here) for p in glob.glob(os.path.join(here, "src", "*.c"))),
    include_dirs=include_dirs,
    library_dirs=library_dirs,
    runtime_library_dirs=[] if os.environ.get("TALLY_RPATH") == "0" else library_dirs,
    libraries=["tally"],
    define_macros=[("Py_LIMITED_API", "0x03090000"), ("_GNU_SOURCE", None)],
    py_limited_api=True,
)])

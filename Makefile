# Thin front door to CMake. `make` builds, `make test` runs every test through CTest, `make run` runs the
# main job. Other targets: install, pmu-events, check-asan, fuzz, check-nopfm, check-abi, abi-baseline,
# check-arm64, check-hw, coverage, mutation, deb, clean.
BUILD      ?= build
PREFIX     ?= /usr/local
JOBS       ?= $(shell nproc)
CMAKE_ARGS ?=
FUZZ_SECONDS ?= 60

.PHONY: all configure test run install pmu-events check-asan check-valgrind fuzz check-nopfm abi-lib check-abi \
        abi-baseline check-arm64 check-hw coverage mutation deb clean

all: configure
	cmake --build $(BUILD) -j $(JOBS)

configure:
	@test -f $(BUILD)/CMakeCache.txt || cmake -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_ARGS)

test: all
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# The main job: the default events of `tally stat` around a short command.
run: all
	$(BUILD)/tools/tally stat -- sleep 0.1

# Reconfigures with PREFIX so that tally.pc names the prefix the files land in, even when $(BUILD) was
# configured earlier with another one. DESTDIR=... stages the install (cmake --install honours it).
install:
	cmake -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_ARGS)
	cmake --build $(BUILD) -j $(JOBS)
	cmake --install $(BUILD)

# The vendor event tables (data/pmu-events) again from a perf-format pmu-events tree: the kernel's
# tools/perf/pmu-events/arch (Debian: linux-source-6.12's tarball under /usr/src, extracted) or a vendor's
# perf export. The data is the kernel's, GPL-2.0: shipped as data files, never compiled into libtally.
PMU_EVENTS_SRC ?= /usr/src/linux-source-6.12/tools/perf/pmu-events/arch
PMU_EVENTS_ORIGIN ?= Linux 6.12 tools/perf/pmu-events/arch (Debian linux-source-6.12)
pmu-events:
	rm -rf data/pmu-events/x86 data/pmu-events/arm64
	python3 tools/pmu_events/generate.py $(PMU_EVENTS_SRC) data/pmu-events --source "$(PMU_EVENTS_ORIGIN)" \
	  --licence GPL-2.0-only

# Clang with AddressSanitizer + UndefinedBehaviorSanitizer; any report aborts the test that hit it.
check-asan:
	cmake -S . -B build-asan -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug \
	  -DCMAKE_C_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
	  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
	  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" $(CMAKE_ARGS)
	cmake --build build-asan -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	  ctest --test-dir build-asan --output-on-failure -j $(JOBS)

# Every C test under valgrind's memcheck (errors and definite leaks fail), on the `make test` build.
check-valgrind: all
	bash tests/run_valgrind.sh $(abspath $(BUILD))

# libFuzzer targets, each for FUZZ_SECONDS, starting from the seed corpora under fuzz/corpus/ (and with the
# dictionary fuzz/<target>.dict where there is one).
fuzz:
	cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DTALLY_FUZZ=ON -DTALLY_TESTS=OFF -DCMAKE_BUILD_TYPE=Debug \
	  -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all" $(CMAKE_ARGS)
	cmake --build build-fuzz -j $(JOBS)
	@set -e; targets=$$(ls build-fuzz/fuzz/fuzz_* 2>/dev/null || true); \
	if [ -z "$$targets" ]; then echo "no fuzz targets (fuzz/fuzz_*.c)"; exit 1; fi; \
	for t in $$targets; do \
	  name=$$(basename $$t); mkdir -p build-fuzz/corpus/$$name; \
	  seeds=fuzz/corpus/$$name; [ -d $$seeds ] || seeds=; \
	  dict=fuzz/$$name.dict; if [ -f $$dict ]; then dict=-dict=$$dict; else dict=; fi; \
	  echo "== $$name for $(FUZZ_SECONDS)s"; \
	  $$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 $$dict build-fuzz/corpus/$$name $$seeds; \
	done

# The same tests in a build that ignores libpfm4 even where it is installed.
check-nopfm:
	cmake -S . -B build-nopfm -DTALLY_WITH_LIBPFM=OFF $(CMAKE_ARGS)
	cmake --build build-nopfm -j $(JOBS)
	ctest --test-dir build-nopfm --output-on-failure -j $(JOBS)

# The library's ABI (libabigail: Debian's abigail-tools) against the committed baseline abi/libtally.abi.
# libtally.so is built in its own directory with debug info (abidw reads the types from DWARF), whatever
# $(BUILD) was configured with. The options make the baseline depend on the ABI only: no paths, no source
# lines, no undefined (libc) symbols, only the types the public headers declare, ids by hash. check-abi
# passes when the ABI is unchanged or only adds symbols, and fails on anything else (a removed function, a
# changed signature, a struct that changed size or layout): run `make abi-baseline` to accept a change on
# purpose and say why in the commit.
ABI_BUILD    ?= build-abi
ABI_BASELINE := abi/libtally.abi
ABIDW_FLAGS  := --no-corpus-path --no-comp-dir-path --no-show-locs --drop-private-types --drop-undefined-syms \
                --headers-dir include/tally --type-id-style hash

abi-lib:
	cmake -S . -B $(ABI_BUILD) -DCMAKE_BUILD_TYPE=Debug -DTALLY_TESTS=OFF $(CMAKE_ARGS) >/dev/null
	cmake --build $(ABI_BUILD) --target tally -j $(JOBS)

# Both sides go through abidw with the same options: abidiff reading the .so itself with --headers-dir2
# classifies types differently and filtered out a changed field type (uint32_t -> uint64_t) as private.
check-abi: abi-lib
	abidw $(ABIDW_FLAGS) --out-file $(ABI_BUILD)/libtally.abi $(ABI_BUILD)/libtally.so
	abidiff --no-added-syms --suppressions abi/opaque-handles.suppr $(ABI_BASELINE) $(ABI_BUILD)/libtally.abi || \
	  { echo "check-abi: the ABI of libtally.so differs from $(ABI_BASELINE) (above);" \
	         "if that is on purpose, run make abi-baseline and commit it"; exit 1; }
	@echo "check-abi: libtally.so matches $(ABI_BASELINE) (added symbols are allowed)"

abi-baseline: abi-lib
	@mkdir -p abi
	abidw $(ABIDW_FLAGS) --out-file $(ABI_BASELINE) $(ABI_BUILD)/libtally.so
	@echo "abi-baseline: wrote $(ABI_BASELINE); commit it with the reason for the change"

# Line and branch coverage of src/ and tools/ by the whole suite (gcovr; Debian package gcovr), in a build
# of its own with --coverage and no optimisation, so that lines and branches map to the source; the counters
# updated atomically, as the suite's threads race on plain ones and gcov then writes negative branch counts
# that gcovr refuses ("branch 3 taken -6" in region_set.c).
coverage:
	cmake -S . -B build-coverage -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS="--coverage -fprofile-update=atomic -O0" \
	  -DCMAKE_EXE_LINKER_FLAGS=--coverage -DCMAKE_SHARED_LINKER_FLAGS=--coverage $(CMAKE_ARGS)
	cmake --build build-coverage -j $(JOBS)
	find build-coverage -name '*.gcda' -delete
	-ctest --test-dir build-coverage --output-on-failure -j $(JOBS)
	gcovr -r . --object-directory build-coverage --filter src/ --filter tools/ --txt
	gcovr -r . --object-directory build-coverage --filter src/ --filter tools/ --txt --branches

# Mutation testing: MUTANTS single-point changes (seeded) to src/ and tools/, each rebuilt and run against
# the suite; prints the survivors and the score. It edits the sources in place and puts each back: run it
# in a clone you can spare.
MUTANTS ?= 40
mutation: all
	python3 tests/mutation/mutate.py --build $(BUILD) --count $(MUTANTS)

# The hardware suite on an arm64 kernel under QEMU's emulated PMU (see README).
check-arm64:
	bash tests/arm64/run.sh

# The hardware suite on this machine's own PMU (tests/hw/run.sh; see README, "Hardware check"): builds what
# it needs in $(HW_BUILD)/ (RelWithDebInfo), each case under timeout. Every case skips with its reason on a
# machine without a hardware PMU (exit 0; HW_REQUIRE_PMU=1 makes that a failure); a failed case exits 1.
HW_BUILD ?= build-hw
check-hw:
	HW_BUILD=$(HW_BUILD) JOBS=$(JOBS) bash tests/hw/run.sh

# The Debian packages (debian/) into $(DEB_BUILD)/: dpkg-buildpackage on a copy of the tree (the build
# products of this one left out), so that the packages land in $(DEB_BUILD)/ and not beside the checkout.
# The source package too, its upstream tarball made of the copy without debian/ (a tarball that held it
# would leave the Debian side no changes of its own: lintian's no-debian-changes), in a stable order with
# no dates, so that it is the same for the same tree. The copy's files are dated now (tar -m), later than
# the changelog's date, to which dh_builddeb then clamps every file of the packages: the checkout's own
# dates would pass into the .debs otherwise; and none is writable but by its owner, whatever the umask of
# the checkout (git archive's is 002). DEB_BUILD_OPTIONS=nocheck skips the test suite;
# parallel= is $(JOBS).
DEB_BUILD   ?= build-deb
DEB_VERSION := $(shell sed -n "s/^project.tally VERSION \([0-9.]*\).*/\1/p" CMakeLists.txt)
deb:
	rm -rf $(DEB_BUILD)/tally-$(DEB_VERSION) && mkdir -p $(DEB_BUILD)/tally-$(DEB_VERSION)
	tar -c --exclude-vcs --exclude=./build --exclude='./build-*' --exclude=./.cache --exclude='__pycache__' \
	  --exclude='*.pyc' --exclude='*.log' . | tar -x -m -C $(DEB_BUILD)/tally-$(DEB_VERSION)
	chmod -R go-w $(DEB_BUILD)/tally-$(DEB_VERSION)
	tar -c -C $(DEB_BUILD) --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
	  --exclude=tally-$(DEB_VERSION)/debian tally-$(DEB_VERSION) | gzip -n >$(DEB_BUILD)/tally_$(DEB_VERSION).orig.tar.gz
	cd $(DEB_BUILD)/tally-$(DEB_VERSION) && \
	  DEB_BUILD_OPTIONS="parallel=$(JOBS) $(DEB_BUILD_OPTIONS)" dpkg-buildpackage -us -uc
	@ls -l $(DEB_BUILD)/*.deb $(DEB_BUILD)/*.dsc

clean:
	rm -rf $(BUILD) build-asan build-fuzz build-nopfm build-coverage $(ABI_BUILD) $(HW_BUILD) $(DEB_BUILD)

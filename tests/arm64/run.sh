#!/usr/bin/env bash
# The hardware suite: libtally and the guest suite cross-compiled for aarch64, packed into an initramfs with
# static busybox, and booted on an arm64 Debian kernel under qemu-system-aarch64, whose emulated PMUv3 runs the
# kernel's real armv8_pmuv3 driver. With -icount, user-mode instruction counts are exact and repeatable, and
# cycles = 2^shift x instructions, so the suite can demand exact values.
#
# Boots (each about 3 s):
#   pmu     -icount shift=1: the whole suite, cycles = 2 x instructions
#   wrap    -icount shift=5: exact counts again with cycles = 32 x instructions, and counts past 2^32
#   nopmu   -cpu max,pmu=off: no hardware PMU at all; software events must still count
#   n1      -cpu neoverse-n1: tally finds the core's vendor table from its MIDR and counts its names exactly
#
# Prints the suite's output of each boot, then every failed case again with its detail lines (they may be far
# above), a line "arm64: failed: BOOT/CASE, ..." naming them, and last "N passed, N failed, N skipped" over all
# boots, so that the tail of a CI log says what failed; exits non-zero on any failure and on a boot that ends
# without its result line (crash, hang, timeout).
#   TALLY_ARM64_CACHE   cache folder (default .cache/arm64): downloads, the cross build, the initramfs
#   TALLY_ARM64_BOOTS   boots to run (default "pmu wrap nopmu n1")
#   TALLY_ARM64_TIMEOUT seconds one boot may take (default 180)
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cache=${TALLY_ARM64_CACHE:-$root/.cache/arm64}
boots=${TALLY_ARM64_BOOTS:-pmu wrap nopmu n1}
boot_timeout=${TALLY_ARM64_TIMEOUT:-180}
start=$SECONDS

bash "$root/tests/arm64/setup.sh" "$cache"

# libtally and the tally CLI, both static, for aarch64. Configured every time (a fraction of a second) so
# that a cache from before an option existed picks it up.
build=$cache/build
cmake -S "$root" -B "$build" -DCMAKE_TOOLCHAIN_FILE="$root/cmake/aarch64-linux-gnu.cmake" \
	-DTALLY_TESTS=OFF -DTALLY_WITH_LIBPFM=OFF -DTALLY_CLI_STATIC=ON >/dev/null
cmake --build "$build" --target tally_static tally_cli -j "$(nproc)" >/dev/null

# The guest programs, linked statically: the suite, the examples and the CLI it runs, and the CLI's
# workload /loop, freestanding so that its instruction count is known from its listing.
cc=aarch64-linux-gnu-gcc
cflags=(-std=c11 -D_GNU_SOURCE -O2 -g0 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
	-Wpointer-arith -Wformat=2 -Wundef -Wvla -I"$root/include")
stage=$cache/initramfs
rm -rf "$stage"
mkdir -p "$stage"/{bin,proc,sys,dev,tmp,examples}
# libtally.a wants libm (tally.pc's Libs.private): fmod for the metric expressions' %, sqrt for regions.
$cc "${cflags[@]}" -static -o "$stage/suite" "$root"/tests/arm64/{suite,loops,program}.c "$build/libtally.a" -lm
$cc "${cflags[@]}" -nostdlib -static -o "$stage/loop" "$root/tests/arm64/loop_prog.c"
aarch64-linux-gnu-strip -o "$stage/tally" "$build/tools/tally"
for example in "$root"/examples/*.c; do
	[ -e "$example" ] || continue
	name=$(basename "$example" .c)
	$cc "${cflags[@]}" -static -o "$stage/examples/$name" "$example" "$build/libtally.a" -lm
done
# The arm64 vendor tables: the n1 boot's, and the vendor metrics' case (/init sets TALLY_PMU_EVENTS=/pmu-events);
# the MANIFEST marks the folder as converted tables (without it the reader takes it for a perf JSON tree).
mkdir -p "$stage/pmu-events/arm64"
cp "$root/data/pmu-events/MANIFEST" "$stage/pmu-events/"
cp "$root"/data/pmu-events/arm64/{mapfile.csv,descriptions,arm-neoverse-n1.events,arm-neoverse-n1.metrics} \
	"$stage/pmu-events/arm64/"
cp "$cache/busybox" "$stage/bin/busybox"
install -m 755 "$root/tests/arm64/init" "$stage/init"
(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -1 > "$cache/initramfs.gz"
echo "arm64: built and packed in $((SECONDS - start)) s ($(cat "$cache/kernel-package"))"

# The failed cases, each named (BOOT/CASE; BOOT/CASE.json for a host check) on a line "NAME:" and followed by
# its detail lines indented, printed again at the end. A file, since failed_case ends pipelines (subshells).
failures=$cache/failures.txt
: > "$failures"
failed_case() { # NAME, then the detail lines on standard input
	{ echo "$1:"; awk '{ print "    " $0 }'; } >> "$failures"
}

# The guest's failed cases of a console log (kernel lines removed) as "NAME<TAB>DETAIL" lines: a case's output
# is what the log holds between the result line ("ok   NAME", "FAIL NAME", "SKIP NAME") before it and its own;
# its details are the lines that name it ("[NAME] ...", "file:line: [NAME] CHECK failed ...", by the
# harness's convention), or, where none does, the last 10 lines of its output. JSON documents for the host are
# left out (the host's own check reports on them).
guest_failures() {
	awk -v OFS='\t' '
	/^(ok  |FAIL|SKIP) [A-Za-z0-9_]+$/ {
		if ($1 == "FAIL") {
			tag = "[" $2 "]"; shown = 0
			for (i = 1; i <= n; i++)
				if (index(block[i], tag)) { print $2, block[i]; shown++ }
			if (!shown)
				print $2, n ? "(no line names the case; its last lines:)" : "(the case printed nothing)"
			for (i = (n > 10 ? n - 9 : 1); !shown && i <= n; i++)
				print $2, block[i]
		}
		n = 0; json = 0; next
	}
	/^tally-arm64-json-begin / { json = 1; next }
	/^tally-arm64-json-end / { json = 0; next }
	!json { block[++n] = $0 }'
}

passed=0; failed=0; skipped=0
for boot in $boots; do
	cpu=max,pauth=off; shift=1
	case "$boot" in
	pmu) ;;
	# cortex-a57 has PMUv3 without v3p5: its event counters are truly 32 bits wide, and long=1 chains two.
	wrap) cpu=cortex-a57; shift=5 ;;
	nopmu) cpu=max,pauth=off,pmu=off ;;
	n1) cpu=neoverse-n1 ;;
	*) echo "arm64: unknown boot '$boot'" >&2; exit 2 ;;
	esac
	log=$cache/console-$boot.log
	t0=$SECONDS
	# pauth=off: emulating pointer authentication makes the boot 2-3x slower and tests nothing of ours.
	# -smp 1: with more CPUs -icount counts stop being exact. -nic none: no network ROM to look for.
	timeout -k 5 "$boot_timeout" qemu-system-aarch64 -M virt -cpu "$cpu" -smp 1 -m 512 -nographic -no-reboot \
		-nic none -icount "shift=$shift,sleep=off" -kernel "$cache/vmlinuz" -initrd "$cache/initramfs.gz" \
		-append "console=ttyAMA0 panic=-1 quiet tally.mode=$boot tally.shift=$shift" </dev/null 2>&1 \
		| tr -d '\r' > "$log" || true
	# The suite's lines (tests/harness.h): "ok  NAME", "FAIL NAME", "SKIP NAME", the details of failed
	# checks, and last "N cases, N checks failed, N skipped", which shows that it ran to its end.
	grep -v '^\[ *[0-9]*\.[0-9]*\] ' "$log" | sed "s/^/$boot: /" || true
	# The JSON documents of the CLI cases, parsed and checked here (the guest has no JSON parser): one
	# more case each, in the same "ok   NAME" / "FAIL NAME" form.
	# A crash of the checker itself (status above 1) counts as one more failure.
	host_status=0
	host=$(python3 "$root/tests/arm64/check_json.py" "$log" "$root/docs/json-schema.json" 2>&1) || host_status=$?
	[ -z "$host" ] || printf '%s\n' "$host" | sed "s/^/$boot: host: /"
	host_failed=$( (printf '%s\n' "$host" | grep -c '^FAIL ') || true)
	[ "$host_status" -le 1 ] || host_failed=$((host_failed + 1))
	[ "$host_status" -le 1 ] || printf '%s\n' "$host" | tail -n 10 | failed_case "$boot/check_json.py (exit status $host_status)"
	# A failed host check: "FAIL CASE.json", then its reasons indented.
	for name in $(printf '%s\n' "$host" | sed -n 's/^FAIL //p'); do
		printf '%s\n' "$host" | awk -v head="FAIL $name" '$0 == head { on = 1; next } on && /^  / { print substr($0, 3); next } { on = 0 }' |
			failed_case "$boot/$name"
	done
	if ! grep -Eq '^[0-9]+ cases, [0-9]+ checks failed, [0-9]+ skipped$' "$log"; then
		echo "$boot: FAIL: the boot ended without the suite's closing line after $((SECONDS - t0)) s; console tail:"
		tail -n 20 "$log" | sed 's/^/    /'
		tail -n 20 "$log" | failed_case "$boot/(the boot ended without the suite's closing line)"
		failed=$((failed + 1))
		continue
	fi
	guest=$(grep -v '^\[ *[0-9]*\.[0-9]*\] ' "$log" | guest_failures || true)
	for name in $(grep '^FAIL ' "$log" | cut -d' ' -f2); do
		printf '%s\n' "$guest" | awk -F '\t' -v name="$name" '$1 == name { print substr($0, length(name) + 2) }' |
			failed_case "$boot/$name"
	done
	p=$(($(grep -c '^ok  ' "$log" || true) + $( (printf '%s\n' "$host" | grep -c '^ok  ') || true)))
	f=$(($(grep -c '^FAIL ' "$log" || true) + host_failed))
	s=$(grep -c '^SKIP ' "$log" || true)
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
	echo "arm64: boot $boot: $p passed, $f failed, $s skipped in $((SECONDS - t0)) s"
done

# The region cases print their constant (instructions of a region around a loop beyond the loop's own,
# and of an empty region): the same binary must count the same in every boot with a PMU.
constants=$(for boot in $boots; do cat "$cache/console-$boot.log"; done | grep '^tally-arm64-region-constant ' |
	sort -u || true)
if [ "$(printf '%s\n' "$constants" | grep -c .)" -gt 1 ]; then
	echo "FAIL region_constant_every_boot: $(printf '%s\n' "$constants" | tr '\n' ';')"
	printf '%s\n' "$constants" | failed_case "region_constant_every_boot"
	failed=$((failed + 1))
elif [ -n "$constants" ]; then
	echo "ok   region_constant_every_boot: ${constants#tally-arm64-region-constant }"
	passed=$((passed + 1))
fi

echo "arm64: total $((SECONDS - start)) s"
if [ -s "$failures" ]; then
	echo "arm64: the failed cases again, with their details:"
	sed 's/^/  /' "$failures"
	echo "arm64: failed: $(sed -n 's/^\([^ ].*\):$/\1/p' "$failures" | paste -sd, - | sed 's/,/, /g')"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]

/* SPDX-License-Identifier: MIT */
/* The event spec parser, table-driven: each row is a spec on one PMU snapshot (a fixture machine or this
 * machine's /sys) and the encoding, display name and group of one resulting attr. Every row's canonical
 * text must parse back to the same encoding. */
#include "fixture_tree.h"
#include "harness.h"

#include <stdbool.h>
#include <tally/events.h>
#include <tally/pmu.h>

/* Encodings as tally_events_encoding() writes them. */
#define ENC(type, config) "type=" #type ",config=" config ",config1=0,config2=0"
#define HW(config) ENC(0, config)
#define SW(config) ENC(1, config)
#define CACHE(config) ENC(3, config)
#define RAW(config) ENC(4, config)
/* An event without modifiers excludes the guest, as perf stat's events do. */
#define PLAIN ",exclude_guest=1"
/* What the modifiers add, in the order the encoding lists the bits (perf's exclude rules). */
#define U ",exclude_kernel=1,exclude_hv=1,exclude_guest=1"
#define K ",exclude_user=1,exclude_hv=1"
#define H ",exclude_user=1,exclude_kernel=1"

enum machine { REAL, INTEL, AMD, HYBRID, ARM64, BIGLITTLE, NOVPMU, NR_MACHINES };
static const char *const machine_dirs[NR_MACHINES] = {
	[REAL] = NULL, [INTEL] = "intel", [AMD] = "amd", [HYBRID] = "hybrid",
	[ARM64] = "arm64", [BIGLITTLE] = "arm64-biglittle", [NOVPMU] = "novpmu",
};

struct row {
	enum machine machine;
	const char *spec;
	const char *encoding;
	size_t index;        /* which attr of the spec this row describes */
	size_t count;        /* how many attrs the spec gives; 0 means 1 */
	const char *name;    /* NULL: the spec itself */
	int group;           /* -1 outside braces */
	bool leader;
};

/* A spec with one attr outside braces, named as written. */
#define ONE(m, spec, enc) { m, spec, enc, 0, 1, NULL, -1, false }
/* A topdown metric event alone outside braces: the parser adds slots before it (spec_topdown.c). */
#define TD(m, spec, enc) { m, spec, enc, 1, 2, NULL, -1, false }
/* Attr i of n. */
#define NTH(m, spec, i, n, enc, name, group, leader) { m, spec, enc, i, n, name, group, leader }

static const struct row rows[] = {
	/* generic hardware names and their perf aliases */
	ONE(INTEL, "cycles", HW("0") PLAIN),
	ONE(INTEL, "cpu-cycles", HW("0") PLAIN),
	ONE(INTEL, "instructions", HW("0x1") PLAIN),
	ONE(INTEL, "cache-references", HW("0x2") PLAIN),
	ONE(INTEL, "cache-misses", HW("0x3") PLAIN),
	ONE(INTEL, "branch-instructions", HW("0x4") PLAIN),
	ONE(INTEL, "branches", HW("0x4") PLAIN),
	ONE(INTEL, "branch-misses", HW("0x5") PLAIN),
	ONE(INTEL, "bus-cycles", HW("0x6") PLAIN),
	ONE(INTEL, "stalled-cycles-frontend", HW("0x7") PLAIN),
	ONE(INTEL, "idle-cycles-frontend", HW("0x7") PLAIN),
	ONE(INTEL, "stalled-cycles-backend", HW("0x8") PLAIN),
	ONE(INTEL, "idle-cycles-backend", HW("0x8") PLAIN),
	ONE(INTEL, "ref-cycles", HW("0x9") PLAIN),
	/* software */
	ONE(INTEL, "cpu-clock", SW("0") PLAIN),
	ONE(INTEL, "task-clock", SW("0x1") PLAIN),
	ONE(INTEL, "page-faults", SW("0x2") PLAIN),
	ONE(INTEL, "faults", SW("0x2") PLAIN),
	ONE(INTEL, "context-switches", SW("0x3") PLAIN),
	ONE(INTEL, "cs", SW("0x3") PLAIN),
	ONE(INTEL, "cpu-migrations", SW("0x4") PLAIN),
	ONE(INTEL, "migrations", SW("0x4") PLAIN),
	ONE(INTEL, "minor-faults", SW("0x5") PLAIN),
	ONE(INTEL, "major-faults", SW("0x6") PLAIN),
	ONE(INTEL, "alignment-faults", SW("0x7") PLAIN),
	ONE(INTEL, "emulation-faults", SW("0x8") PLAIN),
	ONE(INTEL, "dummy", SW("0x9") PLAIN),
	ONE(INTEL, "bpf-output", SW("0xa") PLAIN),
	ONE(INTEL, "cgroup-switches", SW("0xb") PLAIN),
	/* every cache combination the kernel defines: cache | op << 8 | result << 16 */
	ONE(INTEL, "L1-dcache-loads", CACHE("0") PLAIN),
	ONE(INTEL, "L1-dcache-load-misses", CACHE("0x10000") PLAIN),
	ONE(INTEL, "L1-dcache-stores", CACHE("0x100") PLAIN),
	ONE(INTEL, "L1-dcache-store-misses", CACHE("0x10100") PLAIN),
	ONE(INTEL, "L1-dcache-prefetches", CACHE("0x200") PLAIN),
	ONE(INTEL, "L1-dcache-prefetch-misses", CACHE("0x10200") PLAIN),
	ONE(INTEL, "L1-icache-loads", CACHE("0x1") PLAIN),
	ONE(INTEL, "L1-icache-load-misses", CACHE("0x10001") PLAIN),
	ONE(INTEL, "L1-icache-prefetches", CACHE("0x201") PLAIN),
	ONE(INTEL, "L1-icache-prefetch-misses", CACHE("0x10201") PLAIN),
	ONE(INTEL, "LLC-loads", CACHE("0x2") PLAIN),
	ONE(INTEL, "LLC-load-misses", CACHE("0x10002") PLAIN),
	ONE(INTEL, "LLC-stores", CACHE("0x102") PLAIN),
	ONE(INTEL, "LLC-store-misses", CACHE("0x10102") PLAIN),
	ONE(INTEL, "LLC-prefetches", CACHE("0x202") PLAIN),
	ONE(INTEL, "LLC-prefetch-misses", CACHE("0x10202") PLAIN),
	ONE(INTEL, "dTLB-loads", CACHE("0x3") PLAIN),
	ONE(INTEL, "dTLB-load-misses", CACHE("0x10003") PLAIN),
	ONE(INTEL, "dTLB-stores", CACHE("0x103") PLAIN),
	ONE(INTEL, "dTLB-store-misses", CACHE("0x10103") PLAIN),
	ONE(INTEL, "dTLB-prefetches", CACHE("0x203") PLAIN),
	ONE(INTEL, "dTLB-prefetch-misses", CACHE("0x10203") PLAIN),
	ONE(INTEL, "iTLB-loads", CACHE("0x4") PLAIN),
	ONE(INTEL, "iTLB-load-misses", CACHE("0x10004") PLAIN),
	ONE(INTEL, "branch-loads", CACHE("0x5") PLAIN),
	ONE(INTEL, "branch-load-misses", CACHE("0x10005") PLAIN),
	ONE(INTEL, "node-loads", CACHE("0x6") PLAIN),
	ONE(INTEL, "node-load-misses", CACHE("0x10006") PLAIN),
	ONE(INTEL, "node-stores", CACHE("0x106") PLAIN),
	ONE(INTEL, "node-store-misses", CACHE("0x10106") PLAIN),
	ONE(INTEL, "node-prefetches", CACHE("0x206") PLAIN),
	ONE(INTEL, "node-prefetch-misses", CACHE("0x10206") PLAIN),
	/* perf's other cache spellings: part aliases, defaults, either order, singular/plural */
	ONE(INTEL, "L1-dcache", CACHE("0") PLAIN),
	ONE(INTEL, "L1-dcache-load", CACHE("0") PLAIN),
	ONE(INTEL, "L1-dcache-load-miss", CACHE("0x10000") PLAIN),
	ONE(INTEL, "L1-dcache-misses", CACHE("0x10000") PLAIN),
	ONE(INTEL, "L1-dcache-misses-load", CACHE("0x10000") PLAIN),
	ONE(INTEL, "L1-dcache-stores-misses", CACHE("0x10100") PLAIN),
	ONE(INTEL, "L1-dcache-refs", CACHE("0") PLAIN),
	ONE(INTEL, "L1-dcache-Reference", CACHE("0") PLAIN),
	ONE(INTEL, "L1-dcache-speculative-read", CACHE("0x200") PLAIN),
	ONE(INTEL, "L1-dcache-speculative-load-miss", CACHE("0x10200") PLAIN),
	ONE(INTEL, "l1-d-loads", CACHE("0") PLAIN),
	ONE(INTEL, "l1d-miss", CACHE("0x10000") PLAIN),
	ONE(INTEL, "L1-data-write", CACHE("0x100") PLAIN),
	ONE(INTEL, "l1i-prefetch", CACHE("0x201") PLAIN),
	ONE(INTEL, "l1-i", CACHE("0x1") PLAIN),
	ONE(INTEL, "L1-instruction-load-misses", CACHE("0x10001") PLAIN),
	ONE(INTEL, "L2-loads", CACHE("0x2") PLAIN),
	ONE(INTEL, "LLC-ops", CACHE("0x2") PLAIN),
	ONE(INTEL, "LLC-read-access", CACHE("0x2") PLAIN),
	ONE(INTEL, "d-tlb-store-misses", CACHE("0x10103") PLAIN),
	ONE(INTEL, "Data-TLB", CACHE("0x3") PLAIN),
	ONE(INTEL, "i-tlb-miss", CACHE("0x10004") PLAIN),
	ONE(INTEL, "Instruction-TLB-loads", CACHE("0x4") PLAIN),
	ONE(INTEL, "bpu", CACHE("0x5") PLAIN),
	ONE(INTEL, "btb-misses", CACHE("0x10005") PLAIN),
	ONE(INTEL, "bpc-load-miss", CACHE("0x10005") PLAIN),
	ONE(INTEL, "branches-misses", CACHE("0x10005") PLAIN),
	ONE(INTEL, "branch", CACHE("0x5") PLAIN),
	ONE(INTEL, "node", CACHE("0x6") PLAIN),
	ONE(INTEL, "node-write", CACHE("0x106") PLAIN),
	/* raw codes */
	ONE(INTEL, "r1c2", RAW("0x1c2") PLAIN),
	ONE(INTEL, "r0", RAW("0") PLAIN),
	ONE(INTEL, "r1C2", RAW("0x1c2") PLAIN),
	ONE(INTEL, "rAbC", RAW("0xabc") PLAIN),
	ONE(INTEL, "rffffffffffffffff", RAW("0xffffffffffffffff") PLAIN),
	ONE(INTEL, "r1c2:u", RAW("0x1c2") U),
	/* pmu/terms/ over the Intel format: event=config:0-7 umask=8-15 edge=18 inv=23 cmask=24-31 in_tx=32
	 * frontend=config1:0-23 ldlat=config1:0-15 offcore_rsp=config1:0-63 */
	ONE(INTEL, "cpu/event=0x3c/", ENC(4, "0x3c") PLAIN),
	ONE(INTEL, "cpu/event=60/", ENC(4, "0x3c") PLAIN),
	ONE(INTEL, "cpu/event=0x3c,umask=0x01/", ENC(4, "0x13c") PLAIN),
	ONE(INTEL, "cpu/event=0x3c,edge/", ENC(4, "0x4003c") PLAIN),
	ONE(INTEL, "cpu/event=0xc0,inv,cmask=1/", ENC(4, "0x18000c0") PLAIN),
	ONE(INTEL, "cpu/in_tx,event=0x3c/", ENC(4, "0x10000003c") PLAIN),
	ONE(INTEL, "cpu/event=0xcd,umask=1,ldlat=3/", "type=4,config=0x1cd,config1=0x3,config2=0" PLAIN),
	ONE(INTEL, "cpu/frontend=0x123/", "type=4,config=0,config1=0x123,config2=0" PLAIN),
	ONE(INTEL, "cpu/offcore_rsp=0xffffffffffffffff/", "type=4,config=0,config1=0xffffffffffffffff,config2=0" PLAIN),
	ONE(INTEL, "cpu/config=0x1234/", ENC(4, "0x1234") PLAIN),
	ONE(INTEL, "cpu/config=0x1,config1=0x2,config2=0x3/", "type=4,config=0x1,config1=0x2,config2=0x3" PLAIN),
	ONE(INTEL, "cpu/config=0xffff,event=0x3c/", ENC(4, "0xff3c") PLAIN),
	ONE(INTEL, "cpu//", ENC(4, "0") PLAIN),
	NTH(INTEL, "cpu/event=0x3c,name=mycycles/", 0, 1, ENC(4, "0x3c") PLAIN, "mycycles", -1, false),
	ONE(INTEL, "cpu/event=0x3c/u", ENC(4, "0x3c") U),
	ONE(INTEL, "cpu/event=0x3c/:k", ENC(4, "0x3c") K),
	ONE(INTEL, "cpu/event=0x3c/ppp", ENC(4, "0x3c") ",exclude_guest=1,precise_ip=3"),
	/* sysfs aliases, with and without the PMU */
	TD(INTEL, "cpu/topdown-retiring/", ENC(4, "0x8000") PLAIN),
	TD(INTEL, "topdown-retiring", ENC(4, "0x8000") PLAIN),
	TD(INTEL, "topdown-fe-bound:u", ENC(4, "0x8200") U),
	TD(INTEL, "cpu/topdown-retiring,umask=0x81/", ENC(4, "0x8100") PLAIN),
	/* the added slots: named as the metric event names its PMU, with its modifiers */
	NTH(INTEL, "topdown-retiring", 0, 2, ENC(4, "0x400") PLAIN, "slots", -1, false),
	NTH(INTEL, "cpu/topdown-retiring/", 0, 2, ENC(4, "0x400") PLAIN, "cpu/slots/", -1, false),
	NTH(INTEL, "topdown-fe-bound:u", 0, 2, ENC(4, "0x400") U, "slots", -1, false),
	NTH(INTEL, "topdown-be-bound,slots:u,topdown-retiring", 0, 3, ENC(4, "0x8300") PLAIN, "topdown-be-bound", -1, false),
	NTH(INTEL, "topdown-be-bound,slots:u,topdown-retiring", 1, 3, ENC(4, "0x400") U, "slots:u", -1, false),
	/* slots alone, and a raw metric code of a PMU without PERF_METRICS, get nothing */
	ONE(INTEL, "slots", ENC(4, "0x400") PLAIN),
	ONE(AMD, "r8000", ENC(4, "0x8000") PLAIN),
	ONE(INTEL, "cpu/mem-loads/", "type=4,config=0x1cd,config1=0x3,config2=0" PLAIN),
	ONE(INTEL, "mem-stores", ENC(4, "0x2cd") PLAIN),
	ONE(INTEL, "cpu/cycles-t/", ENC(4, "0x10000003c") PLAIN),
	ONE(INTEL, "cpu/instructions/", ENC(4, "0xc0") PLAIN),
	ONE(INTEL, "cpu/cycles/", HW("0") PLAIN),
	ONE(INTEL, "cpu/L1-dcache-load-misses/", CACHE("0x10000") PLAIN),
	ONE(INTEL, "msr/tsc/", ENC(10, "0") PLAIN),
	ONE(INTEL, "tsc", ENC(10, "0") PLAIN),
	ONE(INTEL, "aperf:u", ENC(10, "0x1") U),
	ONE(INTEL, "msr/event=0x7/", ENC(10, "0x7") PLAIN),
	ONE(INTEL, "cstate_core/c6-residency/", ENC(11, "0x2") PLAIN),
	NTH(INTEL, "c6-residency", 0, 2, ENC(11, "0x2") PLAIN, "cstate_core/c6-residency/", -1, false),
	NTH(INTEL, "c6-residency", 1, 2, ENC(12, "0x2") PLAIN, "cstate_pkg/c6-residency/", -1, false),
	ONE(INTEL, "power/energy-pkg/", ENC(13, "0x2") PLAIN),
	ONE(INTEL, "energy-cores", ENC(13, "0x1") PLAIN),
	ONE(INTEL, "uncore_imc_0/cas_count_read/", ENC(15, "0x304") PLAIN),
	ONE(INTEL, "uncore_imc_0/event=0x4,umask=0x3,thresh=2/", ENC(15, "0x2000304") PLAIN),
	ONE(INTEL, "cas_count_write", ENC(15, "0xc04") PLAIN),
	ONE(INTEL, "software/config=2/", SW("0x2") PLAIN),
	ONE(INTEL, "software/config=0x3/k", SW("0x3") K),
	ONE(INTEL, "tracepoint/config=0x123/", ENC(2, "0x123") PLAIN),
	ONE(INTEL, "kprobe/retprobe/", ENC(6, "0x1") PLAIN),
	ONE(INTEL, "uprobe/ref_ctr_offset=0x10/", ENC(7, "0x1000000000") PLAIN),
	/* modifiers, as perf sets the bits */
	ONE(INTEL, "cycles:u", HW("0") U),
	ONE(INTEL, "cycles:k", HW("0") K),
	ONE(INTEL, "cycles:h", HW("0") H),
	ONE(INTEL, "cycles:uk", HW("0") ",exclude_hv=1,exclude_guest=1"),
	ONE(INTEL, "cycles:ku", HW("0") ",exclude_hv=1,exclude_guest=1"),
	ONE(INTEL, "cycles:kh", HW("0") ",exclude_user=1"),
	ONE(INTEL, "cycles:ukh", HW("0") ",exclude_guest=1"),
	ONE(INTEL, "cycles:G", HW("0") ",exclude_host=1"),
	ONE(INTEL, "cycles:H", HW("0") ",exclude_guest=1"),
	ONE(INTEL, "cycles:GH", HW("0")),
	ONE(INTEL, "cycles:I", HW("0") ",exclude_idle=1"),
	ONE(INTEL, "cycles:D", HW("0") ",pinned=1"),
	ONE(INTEL, "cycles:e", HW("0") ",exclusive=1"),
	ONE(INTEL, "cycles:p", HW("0") ",exclude_guest=1,precise_ip=1"),
	ONE(INTEL, "cycles:pp", HW("0") ",exclude_guest=1,precise_ip=2"),
	ONE(INTEL, "cycles:ppp", HW("0") ",exclude_guest=1,precise_ip=3"),
	ONE(INTEL, "cycles:kG", HW("0") K ",exclude_host=1"),
	ONE(INTEL, "cycles:uG", HW("0") ",exclude_kernel=1,exclude_hv=1,exclude_host=1"),
	ONE(INTEL, "cycles:uGH", HW("0") ",exclude_kernel=1,exclude_hv=1"),
	ONE(INTEL, "cycles:Gp", HW("0") ",exclude_host=1,precise_ip=1"),
	ONE(INTEL, "cycles:Dp", HW("0") ",exclude_guest=1,pinned=1,precise_ip=1"),
	ONE(INTEL, "cycles:upp", HW("0") U ",precise_ip=2"),
	ONE(INTEL, "cycles:hI", HW("0") H ",exclude_idle=1"),
	ONE(INTEL, "instructions:uD", HW("0x1") U ",pinned=1"),
	ONE(INTEL, "task-clock:kDe", SW("0x1") K ",pinned=1,exclusive=1"),
	ONE(INTEL, "L1-dcache-load-misses:k", CACHE("0x10000") K),
	/* comma lists and groups; a group's modifiers apply on top of each member's bits, defaults included */
	NTH(INTEL, "cycles,instructions", 1, 2, HW("0x1") PLAIN, "instructions", -1, false),
	NTH(INTEL, "{cycles,instructions}", 0, 2, HW("0") PLAIN, "cycles", 0, true),
	NTH(INTEL, "{cycles,instructions}", 1, 2, HW("0x1") PLAIN, "instructions", 0, false),
	NTH(INTEL, "{cycles,instructions}:u", 0, 2, HW("0") U, "cycles", 0, true),
	NTH(INTEL, "{cycles,instructions}:u", 1, 2, HW("0x1") U, "instructions", 0, false),
	NTH(INTEL, "{cycles:k,instructions}:u", 0, 2, HW("0") ",exclude_hv=1,exclude_guest=1", "cycles:k", 0, true),
	NTH(INTEL, "{cycles:k,instructions}:u", 1, 2, HW("0x1") U, "instructions", 0, false),
	NTH(INTEL, "{cycles:G}:u", 0, 1, HW("0") ",exclude_kernel=1,exclude_hv=1,exclude_host=1", "cycles:G", 0, true),
	NTH(INTEL, "{cycles:p,instructions}:p", 0, 2, HW("0") ",exclude_guest=1,precise_ip=2", "cycles:p", 0, true),
	NTH(INTEL, "{cycles}:D", 0, 1, HW("0") ",exclude_guest=1,pinned=1", "cycles", 0, true),
	/* D and e of a group pin or reserve the leader only: the kernel refuses a pinned or exclusive member
	 * (EINVAL), and perf sets them on the leader alone. */
	NTH(INTEL, "{task-clock,page-faults,minor-faults}:D", 0, 3, SW("0x1") ",exclude_guest=1,pinned=1", "task-clock", 0, true),
	NTH(INTEL, "{task-clock,page-faults,minor-faults}:D", 1, 3, SW("0x2") PLAIN, "page-faults", 0, false),
	NTH(INTEL, "{task-clock,page-faults,minor-faults}:D", 2, 3, SW("0x5") PLAIN, "minor-faults", 0, false),
	NTH(INTEL, "{task-clock,page-faults,minor-faults}:e", 0, 3, SW("0x1") ",exclude_guest=1,exclusive=1", "task-clock", 0, true),
	NTH(INTEL, "{task-clock,page-faults,minor-faults}:e", 1, 3, SW("0x2") PLAIN, "page-faults", 0, false),
	NTH(INTEL, "{task-clock,page-faults,minor-faults}:e", 2, 3, SW("0x5") PLAIN, "minor-faults", 0, false),
	NTH(INTEL, "{cycles,instructions,branches}:uD", 0, 3, HW("0") U ",pinned=1", "cycles", 0, true),
	NTH(INTEL, "{cycles,instructions,branches}:uD", 2, 3, HW("0x4") U, "branches", 0, false),
	/* W (perf's weak group) sets no bit: the group may be split where it cannot be scheduled whole */
	NTH(INTEL, "{cycles,instructions}:W", 0, 2, HW("0") PLAIN, "cycles", 0, true),
	NTH(INTEL, "{cycles,instructions}:uW", 1, 2, HW("0x1") U, "instructions", 0, false),
	NTH(INTEL, "cycles:W", 0, 1, HW("0"), "cycles:W", -1, false), /* perf 6.1: no exclude_guest either */
	NTH(INTEL, "{cycles,instructions},{cache-misses,branches}:k", 2, 4, HW("0x3") K PLAIN, "cache-misses", 1, true),
	NTH(INTEL, "{cycles,instructions},{cache-misses,branches}:k", 3, 4, HW("0x4") K PLAIN, "branches", 1, false),
	NTH(INTEL, "cycles,{instructions,branches}", 0, 3, HW("0") PLAIN, "cycles", -1, false),
	NTH(INTEL, "cycles,{instructions,branches}", 1, 3, HW("0x1") PLAIN, "instructions", 0, true),
	NTH(INTEL, "{task-clock,cpu/event=0x3c/u}", 1, 2, ENC(4, "0x3c") U, "cpu/event=0x3c/u", 0, false),
	/* slots leads a group with topdown metric events: moved first, or added (the kernel's rule) */
	NTH(INTEL, "{topdown-retiring,slots}", 0, 2, ENC(4, "0x400") PLAIN, "slots", 0, true),
	NTH(INTEL, "{topdown-retiring,slots}", 1, 2, ENC(4, "0x8000") PLAIN, "topdown-retiring", 0, false),
	NTH(INTEL, "{instructions,topdown-retiring,slots}:D", 0, 3, ENC(4, "0x400") PLAIN ",pinned=1", "slots", 0, true),
	NTH(INTEL, "{instructions,topdown-retiring,slots}:D", 1, 3, HW("0x1") PLAIN, "instructions", 0, false),
	NTH(INTEL, "{topdown-retiring,topdown-be-bound}:u", 0, 3, ENC(4, "0x400") U, "slots", 0, true),
	NTH(INTEL, "{topdown-retiring,topdown-be-bound}:u", 1, 3, ENC(4, "0x8000") U, "topdown-retiring", 0, false),
	NTH(INTEL, "task-clock,{cpu/topdown-retiring/}", 1, 3, ENC(4, "0x400") PLAIN, "cpu/slots/", 0, true),
	NTH(INTEL, "{cycles},{slots,topdown-retiring}", 1, 3, ENC(4, "0x400") PLAIN, "slots", 1, true),

	/* whitespace between the parts, as perf's lexer skips it; display names lose the outer spaces */
	NTH(INTEL, "cycles, instructions", 1, 2, HW("0x1") PLAIN, "instructions", -1, false),
	NTH(INTEL, " task-clock ", 0, 1, SW("0x1") PLAIN, "task-clock", -1, false),
	NTH(INTEL, "task-clock,\n\tpage-faults", 1, 2, SW("0x2") PLAIN, "page-faults", -1, false),
	ONE(INTEL, "task-clock : u", SW("0x1") U),
	ONE(INTEL, "software/ config=1 /", SW("0x1") PLAIN),
	ONE(INTEL, "cpu / event = 0x3c , umask=1 / u", ENC(4, "0x13c") U),
	NTH(INTEL, "{ task-clock , page-faults } :u", 1, 2, SW("0x2") U, "page-faults", 0, false),
	/* terms: an alias as the event= value or as ALIAS=1 (perf's pmu_find_alias), raw codes, bare configs,
	 * quoted names */
	ONE(INTEL, "cpu/event=instructions/", ENC(4, "0xc0") PLAIN),
	TD(INTEL, "cpu/event=topdown-retiring/u", ENC(4, "0x8000") U),
	ONE(INTEL, "cpu/EVENT=mem-loads/", "type=4,config=0x1cd,config1=0x3,config2=0" PLAIN),
	ONE(INTEL, "msr/event=tsc/", ENC(10, "0") PLAIN),
	ONE(INTEL, "msr/tsc=1/", ENC(10, "0") PLAIN),
	/* aliases match without regard to case, as perf's strcasecmp() lookups do */
	ONE(INTEL, "msr/TSC/", ENC(10, "0") PLAIN),
	ONE(INTEL, "APERF:u", ENC(10, "0x1") U),
	TD(INTEL, "cpu/event=Topdown-Retiring/", ENC(4, "0x8000") PLAIN),
	/* an alias that only a case-blind match finds, where its own spelling would read as the generic event */
	NTH(HYBRID, "cpu-cycLes", 0, 2, ENC(10, "0x3c") PLAIN, "cpu_atom/cpu-cycLes/", -1, false),
	ONE(INTEL, "cpu/r1c2/", ENC(4, "0x1c2") PLAIN),
	NTH(INTEL, "cpu/r0x1c2,name=x/", 0, 1, ENC(4, "0x1c2") PLAIN, "x", -1, false),
	ONE(INTEL, "software/r1a/", SW("0x1a") PLAIN),
	ONE(INTEL, "cpu/config/", ENC(4, "0x1") PLAIN),
	ONE(INTEL, "cpu/config1/", "type=4,config=0,config1=0x1,config2=0" PLAIN),
	ONE(INTEL, "cpu/config2,event=1/", "type=4,config=0x1,config1=0,config2=0x1" PLAIN),
	NTH(INTEL, "cpu/event=0x3c,name='my,cycles'/", 0, 1, ENC(4, "0x3c") PLAIN, "my,cycles", -1, false),
	NTH(INTEL, "cpu/event=0x3c,name=\"c:1=2\"/", 0, 1, ENC(4, "0x3c") PLAIN, "c:1=2", -1, false),
	NTH(INTEL, "cpu/event=0x3c,name=\"it's\"/", 0, 1, ENC(4, "0x3c") PLAIN, "it's", -1, false),
	/* a quoted '/' is the name's, not the end of the term list (it said the quote is never closed) */
	NTH(INTEL, "cpu/event=0x3c,name='a,b:c/d'/", 0, 1, ENC(4, "0x3c") PLAIN, "a,b:c/d", -1, false),
	NTH(INTEL, "page-faults/name=\"x/y\"/u", 0, 1, SW("0x2") U, "x/y", -1, false),
	NTH(INTEL, "page-faults/name=it's/,page-faults/name='x'/", 1, 2, SW("0x2") PLAIN, "x", -1, false),
	/* a name is free text: its spaces and non-ASCII kept, the spaces around it not */
	NTH(INTEL, "software/config=1, name= Z\xc3\xa4hlung der Fehler /", 0, 1, SW("0x1") PLAIN, "Z\xc3\xa4hlung der Fehler",
	    -1, false),
	/* terms after an event of no PMU: config, config1, config2, rNNNN and name */
	NTH(INTEL, "instructions/name=insn/", 0, 1, HW("0x1") PLAIN, "insn", -1, false),
	ONE(INTEL, "cycles//u", HW("0") U),
	NTH(INTEL, "r1234/name=rawpmu/", 0, 1, RAW("0x1234") PLAIN, "rawpmu", -1, false),
	NTH(INTEL, "L1-dcache-loads/name=x/", 0, 1, CACHE("0") PLAIN, "x", -1, false),
	ONE(INTEL, "L1-dcache-loads//:k", CACHE("0") K),
	ONE(INTEL, "task-clock/config=2/", SW("0x2") PLAIN),
	ONE(INTEL, "task-clock/r2/", SW("0x2") PLAIN),
	ONE(INTEL, "task-clock/config1=2/", "type=1,config=0x1,config1=0x2,config2=0" PLAIN),
	ONE(INTEL, "cycles/config=0x63/", HW("0x63") PLAIN),
	NTH(INTEL, "r1c2/config1=3,name=x/u", 0, 1, "type=4,config=0x1c2,config1=0x3,config2=0" U, "x", -1, false),
	NTH(HYBRID, "instructions/name=insn/", 0, 2, HW("0xa00000001") PLAIN, "cpu_atom/insn/", -1, false),
	NTH(HYBRID, "r1c2/config1=1/k", 1, 2, "type=4,config=0x1c2,config1=0x1,config2=0" K, "cpu_core/r1c2/config1=1/k/",
	    -1, false),
	/* the numeric form TYPE:CONFIG, decimal or hex, with terms and modifiers */
	ONE(INTEL, "1:1", SW("0x1") PLAIN),
	ONE(INTEL, "1:1:hp", SW("0x1") H ",exclude_guest=1,precise_ip=1"),
	ONE(INTEL, "0x4:0x1c2", RAW("0x1c2") PLAIN),
	ONE(INTEL, "3:0x10000", CACHE("0x10000") PLAIN),
	ONE(INTEL, "10:1", ENC(10, "0x1") PLAIN),
	ONE(INTEL, "1 : 99", SW("0x63") PLAIN),
	NTH(INTEL, "0:1/name=x/u", 0, 1, HW("0x1") U, "x", -1, false),
	NTH(HYBRID, "0:0", 1, 2, HW("0x400000000") PLAIN, "cpu_core/0:0/", -1, false),
	/* named groups, perf's name token before the brace; their modifiers as any group's */
	NTH(INTEL, "group1{cycles,instructions}", 1, 2, HW("0x1") PLAIN, "instructions", 0, false),
	NTH(INTEL, "g{cycles,instructions}:u", 0, 2, HW("0") U, "cycles", 0, true),
	NTH(INTEL, "_a{cycles},b.2 {instructions}:k", 1, 2, HW("0x1") K PLAIN, "instructions", 1, true),

	/* AMD: split-range formats */
	ONE(AMD, "instructions", HW("0x1") PLAIN),
	ONE(AMD, "cpu/event=0xff/", ENC(4, "0xff") PLAIN),
	ONE(AMD, "cpu/event=0x1ff/", ENC(4, "0x1000000ff") PLAIN),
	ONE(AMD, "cpu/event=0xfff,umask=0x3/", ENC(4, "0xf000003ff") PLAIN),
	ONE(AMD, "amd_df/event=0x3fff/", ENC(10, "0x1800000f000000ff") PLAIN),
	ONE(AMD, "amd_l3/event=1,umask=2,slicemask=0xf,threadmask=0xff/", ENC(11, "0xff0f000000000201") PLAIN),
	ONE(AMD, "cpu/instructions/", ENC(4, "0xc0") PLAIN),
	ONE(AMD, "cpu/stalled-cycles-frontend/", ENC(4, "0xa9") PLAIN),
	ONE(AMD, "energy-pkg", ENC(13, "0x2") PLAIN),
	ONE(AMD, "irperf", ENC(12, "0x6") PLAIN),
	ONE(AMD, "r76", RAW("0x76") PLAIN),

	/* hybrid x86: cpu_atom (type 10) and cpu_core (type 4), in name order */
	NTH(HYBRID, "cycles", 0, 2, HW("0xa00000000") PLAIN, "cpu_atom/cycles/", -1, false),
	NTH(HYBRID, "cycles", 1, 2, HW("0x400000000") PLAIN, "cpu_core/cycles/", -1, false),
	NTH(HYBRID, "instructions:u", 0, 2, HW("0xa00000001") U, "cpu_atom/instructions:u/", -1, false),
	NTH(HYBRID, "instructions:u", 1, 2, HW("0x400000001") U, "cpu_core/instructions:u/", -1, false),
	NTH(HYBRID, "L1-dcache-loads", 0, 2, CACHE("0xa00000000") PLAIN, "cpu_atom/L1-dcache-loads/", -1, false),
	NTH(HYBRID, "LLC-load-misses", 1, 2, CACHE("0x400010002") PLAIN, "cpu_core/LLC-load-misses/", -1, false),
	NTH(HYBRID, "r1c2", 0, 2, ENC(10, "0x1c2") PLAIN, "cpu_atom/r1c2/", -1, false),
	NTH(HYBRID, "r1c2", 1, 2, ENC(4, "0x1c2") PLAIN, "cpu_core/r1c2/", -1, false),
	ONE(HYBRID, "cpu_core/cycles/", HW("0x400000000") PLAIN),
	ONE(HYBRID, "cpu_atom/instructions/", HW("0xa00000001") PLAIN), /* generic, as in perf, not the alias */
	ONE(HYBRID, "cpu_atom/mem-stores/", ENC(10, "0x6d0") PLAIN),
	ONE(HYBRID, "cpu_atom/branch-load-misses/", CACHE("0xa00010005") PLAIN),
	TD(HYBRID, "cpu_core/topdown-retiring/", ENC(4, "0x8000") PLAIN),
	TD(HYBRID, "topdown-retiring", ENC(4, "0x8000") PLAIN),
	NTH(HYBRID, "topdown-retiring", 0, 2, ENC(4, "0x400") PLAIN, "slots", -1, false),
	/* a group over both core PMUs: only cpu_core's copy has topdown (cpu_atom has no slots) */
	NTH(HYBRID, "{cycles,cpu_core/topdown-retiring/}", 0, 4, HW("0xa00000000") PLAIN, "cpu_atom/cycles/", 0, true),
	NTH(HYBRID, "{cycles,cpu_core/topdown-retiring/}", 1, 4, ENC(4, "0x400") PLAIN, "cpu_core/slots/", 1, true),
	NTH(HYBRID, "{cycles,cpu_core/topdown-retiring/}", 2, 4, HW("0x400000000") PLAIN, "cpu_core/cycles/", 1, false),
	NTH(HYBRID, "mem-loads", 0, 2, "type=10,config=0x5d0,config1=0x3,config2=0" PLAIN, "cpu_atom/mem-loads/", -1, false),
	NTH(HYBRID, "mem-loads", 1, 2, "type=4,config=0x1cd,config1=0x3,config2=0" PLAIN, "cpu_core/mem-loads/", -1, false),
	ONE(HYBRID, "cpu_atom/event=0x3c,edge/", ENC(10, "0x4003c") PLAIN),
	ONE(HYBRID, "task-clock", SW("0x1") PLAIN),
	ONE(HYBRID, "tsc", ENC(11, "0") PLAIN),
	/* a group may not span PMUs: one group per core PMU */
	NTH(HYBRID, "{cycles,instructions}", 0, 4, HW("0xa00000000") PLAIN, "cpu_atom/cycles/", 0, true),
	NTH(HYBRID, "{cycles,instructions}", 1, 4, HW("0xa00000001") PLAIN, "cpu_atom/instructions/", 0, false),
	NTH(HYBRID, "{cycles,instructions}", 2, 4, HW("0x400000000") PLAIN, "cpu_core/cycles/", 1, true),
	NTH(HYBRID, "{cycles,instructions}", 3, 4, HW("0x400000001") PLAIN, "cpu_core/instructions/", 1, false),
	NTH(HYBRID, "{cycles,task-clock}:k", 1, 3, SW("0x1") K PLAIN, "task-clock", 0, false),
	NTH(HYBRID, "{cycles,task-clock}:k", 2, 3, HW("0x400000000") K PLAIN, "cpu_core/cycles/", 1, true),

	/* arm64, one core PMU (armv8_pmuv3, type 8): generic names stay generic unless the PMU is named */
	ONE(ARM64, "cycles", HW("0") PLAIN),
	ONE(ARM64, "L1-dcache-loads", CACHE("0") PLAIN),
	ONE(ARM64, "r11", RAW("0x11") PLAIN),
	ONE(ARM64, "inst_retired", ENC(8, "0x8") PLAIN),
	ONE(ARM64, "cpu_cycles:u", ENC(8, "0x11") U),
	ONE(ARM64, "armv8_pmuv3/event=0x11/", ENC(8, "0x11") PLAIN),
	ONE(ARM64, "armv8_pmuv3/event=0x11,long/", "type=8,config=0x11,config1=0x1,config2=0" PLAIN),
	ONE(ARM64, "armv8_pmuv3/rdpmc,event=8/", "type=8,config=0x8,config1=0x2,config2=0" PLAIN),
	ONE(ARM64, "armv8_pmuv3/cycles/", ENC(8, "0x11") PLAIN),
	ONE(ARM64, "armv8_pmuv3/instructions/", ENC(8, "0x8") PLAIN),
	ONE(ARM64, "armv8_pmuv3/branch-instructions/", ENC(8, "0xc") PLAIN),
	ONE(ARM64, "armv8_pmuv3/stalled-cycles-backend/", ENC(8, "0x24") PLAIN),
	ONE(ARM64, "armv8_pmuv3/L1-icache-load-misses/", ENC(8, "0x1") PLAIN),
	ONE(ARM64, "armv8_pmuv3/dTLB-loads/", ENC(8, "0x25") PLAIN),
	ONE(ARM64, "armv8_pmuv3/LLC-load-misses/", ENC(8, "0x37") PLAIN),
	ONE(ARM64, "armv8_pmuv3/branch-loads/", ENC(8, "0x12") PLAIN),

	/* arm64 big.LITTLE: armv8_cortex_a53 (type 8) and armv8_cortex_a72 (type 9) */
	NTH(BIGLITTLE, "cycles", 0, 2, ENC(8, "0x11") PLAIN, "armv8_cortex_a53/cycles/", -1, false),
	NTH(BIGLITTLE, "cycles", 1, 2, ENC(9, "0x11") PLAIN, "armv8_cortex_a72/cycles/", -1, false),
	NTH(BIGLITTLE, "instructions", 1, 2, ENC(9, "0x8") PLAIN, "armv8_cortex_a72/instructions/", -1, false),
	NTH(BIGLITTLE, "branch-misses", 0, 2, ENC(8, "0x10") PLAIN, "armv8_cortex_a53/branch-misses/", -1, false),
	NTH(BIGLITTLE, "cache-references", 0, 2, ENC(8, "0x4") PLAIN, "armv8_cortex_a53/cache-references/", -1, false),
	NTH(BIGLITTLE, "cache-misses", 0, 2, ENC(8, "0x3") PLAIN, "armv8_cortex_a53/cache-misses/", -1, false),
	NTH(BIGLITTLE, "bus-cycles", 0, 2, ENC(8, "0x1d") PLAIN, "armv8_cortex_a53/bus-cycles/", -1, false),
	NTH(BIGLITTLE, "L1-icache-loads", 0, 2, ENC(8, "0x14") PLAIN, "armv8_cortex_a53/L1-icache-loads/", -1, false),
	NTH(BIGLITTLE, "iTLB-load-misses", 1, 2, ENC(9, "0x2") PLAIN, "armv8_cortex_a72/iTLB-load-misses/", -1, false),
	NTH(BIGLITTLE, "branch-load-misses:u", 0, 2, ENC(8, "0x10") U, "armv8_cortex_a53/branch-load-misses:u/", -1,
	    false),
	NTH(BIGLITTLE, "inst_retired", 1, 2, ENC(9, "0x8") PLAIN, "armv8_cortex_a72/inst_retired/", -1, false),
	NTH(BIGLITTLE, "r11", 1, 2, ENC(9, "0x11") PLAIN, "armv8_cortex_a72/r11/", -1, false),
	ONE(BIGLITTLE, "armv8_cortex_a72/cpu_cycles/", ENC(9, "0x11") PLAIN),
	NTH(BIGLITTLE, "{cycles,instructions}", 2, 4, ENC(9, "0x11") PLAIN, "armv8_cortex_a72/cycles/", 1, true),

	/* a VM without a virtual PMU: generic events keep their generic encoding */
	ONE(NOVPMU, "cycles", HW("0") PLAIN),
	ONE(NOVPMU, "r1c2", RAW("0x1c2") PLAIN),
	ONE(NOVPMU, "task-clock:u", SW("0x1") U),

	/* this machine: ABI-numbered types only (the dynamic PMU types differ between machines) */
	ONE(REAL, "cycles", HW("0") PLAIN),
	ONE(REAL, "task-clock:u", SW("0x1") U),
	ONE(REAL, "r1c2", RAW("0x1c2") PLAIN),
	ONE(REAL, "L1-dcache-load-misses", CACHE("0x10000") PLAIN),
	ONE(REAL, "software/config=2/", SW("0x2") PLAIN),
	NTH(REAL, "{cpu-clock,task-clock}:k", 1, 2, SW("0x1") K PLAIN, "task-clock", 0, false),
};

static tally_pmus *machines[NR_MACHINES];
static bool machine_loaded[NR_MACHINES];

static tally_pmus *machine(enum machine m)
{
	if (!machine_loaded[m]) {
		machines[m] = fixture_pmus(machine_dirs[m]);
		machine_loaded[m] = true;
	}
	return machines[m];
}

static tally_events *parse(enum machine m, const char *spec)
{
	TALLY_OPTS(tally_parse_opts, opts, .pmus = machine(m));
	tally_events *events = NULL;
	int ret = tally_events_parse(spec, &opts, &events);
	if (ret)
		fprintf(stderr, "[%s] '%s': %s\n", harness_case, spec, tally_last_error());
	CHECK_INT(ret, 0);
	return events;
}

static void encoding_of(const tally_events *events, size_t i, char *buf, size_t len)
{
	int n = tally_events_encoding(events, i, buf, len);
	CHECK(n > 0 && (size_t)n < len);
}

static void test_table(void)
{
	CHECK(sizeof(rows) / sizeof(rows[0]) >= 150);
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		const struct row *row = &rows[r];
		tally_events *events = parse(row->machine, row->spec);
		if (!events)
			continue;
		CHECK_INT(tally_events_count(events), row->count);
		TALLY_OPTS(tally_event_info, info);
		if (tally_events_at(events, row->index, &info) != 0) {
			fprintf(stderr, "  spec '%s' has no attr %zu\n", row->spec, row->index);
			CHECK(false);
			tally_events_free(events);
			continue;
		}
		char enc[512];
		encoding_of(events, row->index, enc, sizeof(enc));
		if (strcmp(enc, row->encoding) != 0)
			fprintf(stderr, "  spec '%s' [%zu]\n", row->spec, row->index);
		CHECK_STR(enc, row->encoding);
		CHECK_STR(info.name, row->name ? row->name : row->spec);
		CHECK_INT(info.group, row->group);
		CHECK_INT(info.leader, row->leader);

		/* the canonical text parses back to the same attr (a topdown metric event's with the slots event
		 * the parser adds before it) */
		tally_events *again = parse(row->machine, info.canonical);
		if (again) {
			char enc_again[512];
			size_t n_again = tally_events_count(again);
			CHECK(n_again == 1 || (n_again == 2 && strncmp(enc, "type=4,config=0x8", 17) == 0));
			encoding_of(again, n_again - 1, enc_again, sizeof(enc_again));
			if (strcmp(enc_again, enc) != 0)
				fprintf(stderr, "  canonical '%s' of '%s'\n", info.canonical, row->spec);
			CHECK_STR(enc_again, enc);
			tally_events_free(again);
		}
		tally_events_free(events);
	}
}

static const struct tally_event_info *info_at(const tally_events *events, size_t i, struct tally_event_info *info)
{
	info->sz = sizeof(*info);
	CHECK_INT(tally_events_at(events, i, info), 0);
	return info;
}

static void test_canonical_text(void)
{
	static const struct {
		enum machine m;
		const char *spec;
		const char *canonical;
	} cases[] = {
		{ INTEL, "cpu-cycles:ku", "cycles:uk" },
		{ INTEL, "cs", "context-switches" },
		{ INTEL, "l1d-miss", "L1-dcache-load-misses" },
		{ INTEL, "r01C2", "r1c2" },
		{ INTEL, "cpu/event=0x3c,umask=1/u", "cpu/config=0x13c/u" },
		{ INTEL, "cpu/event=0x3c,name=x/", "cpu/config=0x3c,name=x/" },
		{ INTEL, "topdown-retiring", "cpu/slots/" },
		{ INTEL, "cycles:G", "cycles:G" },
		{ INTEL, "cycles:H", "cycles" }, /* the default bits: no modifiers needed */
		{ INTEL, "cycles:uGH", "cycles:uGH" },
		{ INTEL, "cycles:pp", "cycles:pp" },
		{ HYBRID, "cycles:k", "cpu_atom/cycles/k" },
		{ HYBRID, "r1c2", "cpu_atom/config=0x1c2/" },
		{ INTEL, "1:1:u", "task-clock:u" },
		{ INTEL, "TSC", "msr/tsc/" },
		{ HYBRID, "cpu-cycLes", "cpu_atom/config=0x3c/" },
		{ INTEL, "cpu/config2,name=-'\"\"/", "cpu/config=0,config1=0,config2=0x1,name=-'\"\"/" },
		{ INTEL, "cpu/config2,name=\"a,'b\"/", "cpu/config=0,config1=0,config2=0x1,name=\"a,'b\"/" },
		{ INTEL, "cpu/config=1,name=\"'a\"/", "cpu/config=0x1,name=\"'a\"/" },
		{ INTEL, "0x1:0x63", "1:0x63" },
		{ INTEL, "cycles/name='a b'/", "cycles/name=a b/" },
		{ INTEL, "cycles/name=' a,b'/", "cycles/name=' a,b'/" },
		{ INTEL, "cycles/name='a/b'/", "cycles/name='a/b'/" },
		{ INTEL, "r1c2//u", "r1c2:u" },
		{ INTEL, "task-clock/config1=2,name=x/k", "task-clock/config1=0x2,config2=0,name=x/k" },
		{ INTEL, "cpu/event=0x3c,name=\"it's\"/", "cpu/config=0x3c,name=it's/" },
		{ HYBRID, "instructions/name=insn/", "cpu_atom/instructions,name=insn/" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		tally_events *events = parse(cases[i].m, cases[i].spec);
		if (!events)
			continue;
		struct tally_event_info info;
		CHECK_STR(info_at(events, 0, &info)->canonical, cases[i].canonical);
		tally_events_free(events);
	}
}

static void test_info_fields(void)
{
	tally_events *events = parse(INTEL, "energy-pkg,cycles,task-clock");
	if (!events)
		return;
	struct tally_event_info info;
	info_at(events, 0, &info);
	CHECK_STR(info.pmu, "power");
	CHECK_STR(info.unit, "Joules");
	CHECK(info.scale > 2.32e-10 && info.scale < 2.33e-10);
	CHECK_INT(info.origin, 0);
	CHECK_INT(info.nr_origins, 1);
	CHECK_INT(info.attr->size, sizeof(struct perf_event_attr));
	info_at(events, 1, &info);
	CHECK_STR(info.pmu, "cpu");
	CHECK(info.unit == NULL);
	CHECK(info.scale == 1.0);
	CHECK_INT(info.origin, 1);
	info_at(events, 2, &info);
	CHECK_STR(info.pmu, "software");
	tally_events_free(events);

	events = parse(NOVPMU, "cycles");
	if (events) {
		CHECK(info_at(events, 0, &info)->pmu == NULL);
		tally_events_free(events);
	}

	/* hybrid expansions share their origin and know how many they are */
	events = parse(HYBRID, "task-clock,cycles,instructions");
	if (events) {
		CHECK_INT(tally_events_count(events), 5);
		CHECK_INT(info_at(events, 1, &info)->origin, 1);
		CHECK_INT(info.nr_origins, 2);
		CHECK_STR(info.pmu, "cpu_atom");
		CHECK_INT(info_at(events, 2, &info)->origin, 1);
		CHECK_STR(info.pmu, "cpu_core");
		CHECK_INT(info_at(events, 3, &info)->origin, 2);
		CHECK_INT(info_at(events, 0, &info)->nr_origins, 1);
		tally_events_free(events);
	}
}

/* An older caller's smaller info struct gets only the fields it has room for. */
static void test_info_sizes(void)
{
	tally_events *events = parse(INTEL, "cycles");
	if (!events)
		return;
	struct tally_event_info info;
	memset(&info, 0xa5, sizeof(info));
	info.sz = offsetof(struct tally_event_info, canonical);
	CHECK_INT(tally_events_at(events, 0, &info), 0);
	CHECK_STR(info.name, "cycles");
	CHECK(info.canonical == (const char *)(uintptr_t)0xa5a5a5a5a5a5a5a5ull);
	info.sz = 0;
	CHECK_INT(tally_events_at(events, 0, &info), -TALLY_EOPTS);
	CHECK_INT(tally_events_at(events, 1, &info), -ERANGE);

	char small[8];
	int need = tally_events_encoding(events, 0, small, sizeof(small));
	CHECK_INT(need, (int)strlen("type=0,config=0,config1=0,config2=0,exclude_guest=1"));
	CHECK_STR(small, "type=0,");
	CHECK_INT(tally_events_encoding(events, 0, NULL, 0), need);
	tally_events_free(events);
}

static void test_builtins(void)
{
	size_t n = tally_builtin_count(), cache = 0, hw = 0, sw = 0;
	CHECK(n > 50);
	for (size_t i = 0; i < n; i++) {
		TALLY_OPTS(tally_builtin_info, b);
		CHECK_INT(tally_builtin_at(i, &b), 0);
		cache += b.kind == TALLY_BUILTIN_CACHE;
		hw += b.kind == TALLY_BUILTIN_HARDWARE;
		sw += b.kind == TALLY_BUILTIN_SOFTWARE;
		/* every builtin name (and alias) parses to its own type and config */
		for (int spelling = 0; spelling < 2; spelling++) {
			const char *name = spelling ? b.alias : b.name;
			if (!name)
				continue;
			tally_events *events = parse(INTEL, name);
			if (!events)
				continue;
			struct tally_event_info info;
			info_at(events, 0, &info);
			CHECK_INT(info.attr->type, b.type);
			CHECK_U64(info.attr->config, b.config);
			tally_events_free(events);
		}
	}
	/* 7 caches: L1-dcache, LLC, dTLB, node have 3 operations, L1-icache 2, iTLB and branch 1; x2 results */
	CHECK_INT(cache, 32);
	CHECK_INT(hw, 10);
	CHECK_INT(sw, 12);
	TALLY_OPTS(tally_builtin_info, b);
	CHECK_INT(tally_builtin_at(n, &b), -ERANGE);
}

/* With no snapshot given, the parser loads the one under sysfs_root. */
static void test_sysfs_root_option(void)
{
	char root[4096];
	TALLY_OPTS(tally_parse_opts, opts, .sysfs_root = fixture_sysfs(root, sizeof(root), "intel"));
	tally_events *events = NULL;
	CHECK_INT(tally_events_parse("topdown-retiring", &opts, &events), 0);
	CHECK_INT(tally_events_count(events), 2); /* with the slots event it needs */
	tally_events_free(events);
	CHECK_INT(tally_events_parse(NULL, &opts, &events), -EINVAL);
	CHECK(events == NULL);
	tally_events_free(NULL);
	CHECK_INT(tally_events_count(NULL), 0);
}

/* perf stat's --all-user and --all-kernel (util/stat.c, create_perf_stat_counter): the user and kernel bits
 * set over every event's own modifiers, the others (":u"'s exclude_hv) kept; names as written; canonical
 * texts that parse back to the same bits. */
static void test_space_option(void)
{
	static const struct {
		const char *spec;
		enum tally_space space;
		const char *encoding;
	} cases[] = {
		{ "cycles", TALLY_SPACE_USER, "type=0,config=0,config1=0,config2=0,exclude_kernel=1,exclude_guest=1" },
		{ "cycles:k", TALLY_SPACE_USER,
		  "type=0,config=0,config1=0,config2=0,exclude_kernel=1,exclude_hv=1" },
		{ "cycles", TALLY_SPACE_KERNEL, "type=0,config=0,config1=0,config2=0,exclude_user=1,exclude_guest=1" },
		{ "page-faults:u", TALLY_SPACE_KERNEL,
		  "type=1,config=0x2,config1=0,config2=0,exclude_user=1,exclude_hv=1,exclude_guest=1" },
		{ "{cycles,instructions}:u", TALLY_SPACE_AS_WRITTEN,
		  "type=0,config=0,config1=0,config2=0,exclude_kernel=1,exclude_hv=1,exclude_guest=1" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		TALLY_OPTS(tally_parse_opts, opts, .pmus = machine(INTEL), .space = cases[i].space);
		tally_events *events = NULL;
		CHECK_INT(tally_events_parse(cases[i].spec, &opts, &events), 0);
		if (!events)
			continue;
		char enc[256], again_enc[256];
		encoding_of(events, 0, enc, sizeof(enc));
		CHECK_STR(enc, cases[i].encoding);
		struct tally_event_info info;
		CHECK_STR(info_at(events, 0, &info)->name, strchr(cases[i].spec, '{') ? "cycles" : cases[i].spec);
		tally_events *again = parse(INTEL, info.canonical);
		if (again) {
			encoding_of(again, 0, again_enc, sizeof(again_enc));
			CHECK_STR(again_enc, enc);
		}
		tally_events_free(again);
		tally_events_free(events);
	}
	TALLY_OPTS(tally_parse_opts, bad, .pmus = machine(INTEL), .space = (enum tally_space)3);
	tally_events *events = NULL;
	CHECK_INT(tally_events_parse("cycles", &bad, &events), -EINVAL);
	CHECK(events == NULL);
}

static void free_machines(void)
{
	for (int m = 0; m < NR_MACHINES; m++)
		tally_pmus_free(machines[m]);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "table", test_table },
		{ "canonical_text", test_canonical_text },
		{ "info_fields", test_info_fields },
		{ "info_sizes", test_info_sizes },
		{ "builtins", test_builtins },
		{ "sysfs_root_option", test_sysfs_root_option },
		{ "space_option", test_space_option },
		{ NULL, NULL },
	};
	int ret = harness_run(cases);
	free_machines();
	return ret;
}

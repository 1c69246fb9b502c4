/* SPDX-License-Identifier: MIT */
/* CPU maps: list parsing, online CPUs from a (fake) sysfs, the dummy map, PMU cpumask intersection. */
#include "fault.h"
#include "harness.h"

#include <limits.h>
#include <sys/stat.h>
#include <tally/counter.h>
#include <tally/evlist.h>
#include <unistd.h>

/* Renders a map as "0,1,2" to compare in one CHECK_STR. */
static const char *render(const tally_cpus *cpus)
{
	static char text[256];
	size_t used = 0;
	text[0] = '\0';
	for (size_t i = 0; i < tally_cpus_count(cpus) && used < sizeof(text); i++)
		used += (size_t)snprintf(text + used, sizeof(text) - used, "%s%d", i ? "," : "",
		                         tally_cpus_at(cpus, i));
	return text;
}

static void expect_list(const char *list, const char *expected)
{
	tally_cpus *cpus = NULL;
	int err = tally_cpus_parse(list, &cpus);
	CHECK_INT(err, 0);
	if (!err)
		CHECK_STR(render(cpus), expected);
	tally_cpus_free(cpus);
}

static void parses_sysfs_lists(void)
{
	expect_list("0", "0");
	expect_list("0-3", "0,1,2,3");
	expect_list("0-3,8,10-11", "0,1,2,3,8,10,11");
	expect_list("0-1\n", "0,1");
	expect_list(" 2 , 0 - 1 ", "0,1,2");
	/* Unsorted and overlapping input comes out sorted and unique. */
	expect_list("8,2-4,3,0", "0,2,3,4,8");
	expect_list("5,5,5", "5");
}

static void rejects_malformed_lists(void)
{
	static const char *const bad[] = { "", "  ", "a", "1-", "-1", "3-1", "1,,2", "1,", "0x1", "1 2",
		                           "1-2-3", "99999999999" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		tally_cpus *cpus = (tally_cpus *)&cpus;
		int err = tally_cpus_parse(bad[i], &cpus);
		if (err == 0)
			fprintf(stderr, "accepted \"%s\"\n", bad[i]);
		CHECK(err == -EINVAL || err == -ERANGE);
		CHECK(cpus == NULL);
		CHECK(tally_last_error()[0] != '\0');
	}
	tally_cpus *cpus;
	CHECK_INT(tally_cpus_parse("3-1", &cpus), -EINVAL);
	CHECK_CONTAINS(tally_last_error(), "backwards");
	CHECK_INT(tally_cpus_parse("0-2000000000", &cpus), -ERANGE);
	/* Every CPU number is in range, but the list repeats them past what a map can hold. */
	CHECK_INT(tally_cpus_parse("0-1048575,0", &cpus), -ERANGE);
	CHECK(cpus == NULL);
	/* Every CPU a map can hold, once each, fits. */
	CHECK_INT(tally_cpus_parse("0-1048575", &cpus), 0);
	CHECK_INT(cpus ? tally_cpus_count(cpus) : 0, 1048576);
	tally_cpus_free(cpus);
}

static void dummy_map(void)
{
	tally_cpus *any = NULL;
	CHECK_INT(tally_cpus_any(&any), 0);
	CHECK_INT(tally_cpus_count(any), 1);
	CHECK_INT(tally_cpus_at(any, 0), -1);
	CHECK_INT(tally_cpus_count(NULL), 1);
	CHECK_INT(tally_cpus_at(NULL, 0), -1);
	CHECK_INT(tally_cpus_index(any, -1), 0);
	CHECK_INT(tally_cpus_index(any, 0), -ENOENT);
	tally_cpus_free(any);
}

static void index_and_bounds(void)
{
	tally_cpus *cpus = NULL;
	CHECK_INT(tally_cpus_parse("2,4,6", &cpus), 0);
	CHECK_INT(tally_cpus_index(cpus, 4), 1);
	CHECK_INT(tally_cpus_index(cpus, 5), -ENOENT);
	CHECK_INT(tally_cpus_at(cpus, 3), -1);
	tally_cpus_free(cpus);
}

static void intersects_pmu_cpumask(void)
{
	tally_cpus *cpus = NULL, *out = NULL;
	CHECK_INT(tally_cpus_parse("0-7", &cpus), 0);
	/* A two-socket uncore PMU counts on the first CPU of each socket. */
	CHECK_INT(tally_cpus_intersect_mask(cpus, "0,4", &out), 0);
	CHECK_STR(render(out), "0,4");
	tally_cpus_free(out);
	CHECK_INT(tally_cpus_intersect_mask(cpus, "4,12-13", &out), 0);
	CHECK_STR(render(out), "4");
	tally_cpus_free(out);
	CHECK_INT(tally_cpus_intersect_mask(cpus, "16", &out), -ENODEV);
	CHECK(out == NULL);
	CHECK_CONTAINS(tally_last_error(), "cpumask");
	CHECK_INT(tally_cpus_intersect_mask(cpus, "junk", &out), -EINVAL);
	tally_cpus_free(cpus);
	/* "Any CPU" narrowed by a mask is the mask. */
	CHECK_INT(tally_cpus_intersect_mask(NULL, "0,2", &out), 0);
	CHECK_STR(render(out), "0,2");
	tally_cpus_free(out);
}

/* A throwaway sysfs root holding devices/system/cpu/online. */
/* The difference of two maps, and a map as perf's CPU-list text: what -C's "not online here" says. */
static void subtracts_and_formats(void)
{
	static const struct {
		const char *cpus, *minus, *difference;
	} cases[] = {
		{ "0-7", "0-1", "2-7" },
		{ "0-7", "0,2,4,6", "1,3,5,7" },
		{ "0-3,8,10-11", "3,10", "0-2,8,11" },
		{ "0-1", "0-7", "" },
		{ "5", "0-3", "5" },
		{ "0,1023", "1-1022", "0,1023" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		tally_cpus *a, *b, *d;
		CHECK_INT(tally_cpus_parse(cases[i].cpus, &a), 0);
		CHECK_INT(tally_cpus_parse(cases[i].minus, &b), 0);
		CHECK_INT(tally_cpus_subtract(a, b, &d), 0);
		char text[64];
		int n = tally_cpus_format(d, text, sizeof(text));
		CHECK_STR(text, cases[i].difference);
		CHECK_INT(n, strlen(cases[i].difference));
		/* The text parses back to the same map (empty aside: no CPU list is empty). */
		if (tally_cpus_count(d)) {
			tally_cpus *again;
			CHECK_INT(tally_cpus_parse(text, &again), 0);
			CHECK_INT(tally_cpus_count(again), tally_cpus_count(d));
			for (size_t k = 0; k < tally_cpus_count(d); k++)
				CHECK_INT(tally_cpus_at(again, k), tally_cpus_at(d, k));
			tally_cpus_free(again);
		}
		tally_cpus_free(a);
		tally_cpus_free(b);
		tally_cpus_free(d);
	}
	/* snprintf's rule: cut and terminated, the whole length returned; nothing written with len 0. */
	tally_cpus *m;
	CHECK_INT(tally_cpus_parse("0-3,8,10-11", &m), 0);
	char small[6] = "xxxxx";
	CHECK_INT(tally_cpus_format(m, small, sizeof(small)), 11);
	CHECK_STR(small, "0-3,8");
	CHECK_INT(tally_cpus_format(m, small, 0), 11);
	CHECK_STR(small, "0-3,8");
	/* The dummy map is "-1", and it is no operand of a difference. */
	tally_cpus *any, *d = (tally_cpus *)1;
	CHECK_INT(tally_cpus_any(&any), 0);
	char text[8];
	CHECK_INT(tally_cpus_format(any, text, sizeof(text)), 2);
	CHECK_STR(text, "-1");
	CHECK_INT(tally_cpus_subtract(m, any, &d), -EINVAL);
	CHECK(d == NULL);
	CHECK_INT(tally_cpus_subtract(NULL, m, &d), -EINVAL);
	CHECK_INT(tally_cpus_subtract(m, m, NULL), -EINVAL);
	tally_cpus_free(any);
	tally_cpus_free(m);
}

static void make_fake_sysfs(char *root, size_t size, const char *online)
{
	snprintf(root, size, "/tmp/tally-cpumap-XXXXXX");
	CHECK(mkdtemp(root) != NULL);
	char path[PATH_MAX];
	const char *dirs[] = { "/devices", "/devices/system", "/devices/system/cpu" };
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s%s", root, dirs[i]);
		CHECK_INT(mkdir(path, 0755), 0);
	}
	snprintf(path, sizeof(path), "%s/devices/system/cpu/online", root);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(online, f);
		fclose(f);
	}
}

static void remove_fake_sysfs(const char *root)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/devices/system/cpu/online", root);
	unlink(path);
	const char *dirs[] = { "/devices/system/cpu", "/devices/system", "/devices", "" };
	for (int i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s%s", root, dirs[i]);
		rmdir(path);
	}
}

static void online_from_fake_sysfs(void)
{
	char root[64];
	make_fake_sysfs(root, sizeof(root), "0-2,5\n");
	tally_cpus *cpus = NULL;
	CHECK_INT(tally_cpus_online(root, &cpus), 0);
	CHECK_STR(render(cpus), "0,1,2,5");
	tally_cpus_free(cpus);
	/* The environment variable stands in for a NULL root, as it does for the PMU snapshot. */
	setenv("TALLY_SYSFS_ROOT", root, 1);
	CHECK_INT(tally_cpus_online(NULL, &cpus), 0);
	CHECK_STR(render(cpus), "0,1,2,5");
	tally_cpus_free(cpus);
	unsetenv("TALLY_SYSFS_ROOT");
	/* A read failure names the file and passes the errno on. */
	fault_install();
	fault_arm(FAULT_READ, 1, EIO);
	CHECK_INT(tally_cpus_online(root, &cpus), -EIO);
	CHECK_CONTAINS(tally_last_error(), "devices/system/cpu/online");
	fault_uninstall();
	remove_fake_sysfs(root);
	CHECK_INT(tally_cpus_online(root, &cpus), -ENOENT);
	make_fake_sysfs(root, sizeof(root), "garbage");
	CHECK_INT(tally_cpus_online(root, &cpus), -EINVAL);
	CHECK_CONTAINS(tally_last_error(), "devices/system/cpu/online");
	remove_fake_sysfs(root);
}

/* A list of CPUs that are not all online is refused with the ones that are not, by tally_cpus_check_online
 * and by tally_counter_open, instead of the kernel's EINVAL that reads as a bad encoding. */
static void offline_cpus_refused(void)
{
	char root[64];
	make_fake_sysfs(root, sizeof(root), "0-2,5\n");
	tally_cpus *cpus = NULL, *any = NULL;
	CHECK_INT(tally_cpus_parse("0-2", &cpus), 0);
	CHECK_INT(tally_cpus_check_online(root, cpus), 0);
	tally_cpus_free(cpus);
	CHECK_INT(tally_cpus_parse("0-3,5-7", &cpus), 0);
	CHECK_INT(tally_cpus_check_online(root, cpus), -ENODEV);
	CHECK_STR(tally_last_error(), "not online here (absent or offline): 3,6-7; the online CPUs are 0-2,5");
	tally_cpus_free(cpus);
	CHECK_INT(tally_cpus_any(&any), 0);
	CHECK_INT(tally_cpus_check_online(root, any), 0);
	CHECK_INT(tally_cpus_check_online(root, NULL), 0);
	tally_cpus_free(any);
	/* The counter's open: the CPUs of this machine's online list and one past its last. */
	tally_cpus *online = NULL;
	CHECK_INT(tally_cpus_online(NULL, &online), 0);
	char list[64];
	snprintf(list, sizeof(list), "0,%d", tally_cpus_at(online, tally_cpus_count(online) - 1) + 1);
	tally_cpus_free(online);
	tally_counter *c = NULL;
	CHECK_INT(tally_counter_new("page-faults", NULL, &c), 0);
	TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_CPUS, .cpus = list);
	CHECK_INT(tally_counter_open(c, &t), -ENODEV);
	CHECK_CONTAINS(tally_last_error(), "not online here (absent or offline)");
	CHECK_CONTAINS(tally_last_error(), list);
	tally_counter_free(c);
	remove_fake_sysfs(root);
}

/* Writes <root>/devices/system/cpu/cpu<cpu>/topology/<file> (directories made as needed). */
static void write_topology(const char *root, int cpu, const char *file, const char *text)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d", root, cpu);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/topology", root, cpu);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/topology/%s", root, cpu, file);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void topology_from_fake_sysfs(void)
{
	char root[64];
	make_fake_sysfs(root, sizeof(root), "0-1\n");
	write_topology(root, 0, "physical_package_id", "1\n");
	write_topology(root, 0, "core_id", "12\n");
	write_topology(root, 0, "die_id", "3\n");
	write_topology(root, 1, "physical_package_id", "0\n");
	write_topology(root, 1, "core_id", "7\n");
	TALLY_OPTS(tally_cpu_topology, t);
	CHECK_INT(tally_cpu_topology(root, 0, &t), 0);
	CHECK_INT(t.package, 1);
	CHECK_INT(t.die, 3);
	CHECK_INT(t.core, 12);
	/* No die_id (kernels before 5.2): one die per package. */
	CHECK_INT(tally_cpu_topology(root, 1, &t), 0);
	CHECK_INT(t.package, 0);
	CHECK_INT(t.die, -1);
	CHECK_INT(t.core, 7);
	/* The NUMA node: a node<M> entry under the CPU's directory (sysfs links it), else node 0; looked up
	 * through the syscall table as every sysfs access is. */
	char node[PATH_MAX];
	snprintf(node, sizeof(node), "%s/devices/system/cpu/cpu0/node1", root);
	CHECK_INT(mkdir(node, 0755), 0);
	fault_install();
	CHECK_INT(tally_cpu_topology(root, 0, &t), 0);
	CHECK_INT(t.node, 1);
	CHECK_INT(fault_calls(FAULT_OPENDIR), 1);
	CHECK_INT(fault_calls(FAULT_CLOSEDIR), 1);
	fault_uninstall();
	CHECK_INT(tally_cpu_topology(root, 1, &t), 0);
	CHECK_INT(t.node, 0);
	/* A CPU without topology files, and one whose file is not a number. */
	CHECK_INT(tally_cpu_topology(root, 2, &t), -ENOENT);
	CHECK_CONTAINS(tally_last_error(), "cpu2/topology/physical_package_id");
	write_topology(root, 1, "core_id", "seven\n");
	CHECK_INT(tally_cpu_topology(root, 1, &t), -TALLY_ESYSFS);
	CHECK_INT(tally_cpu_topology(root, -1, &t), -EINVAL);
	struct tally_cpu_topology unsized = { 0 };
	CHECK_INT(tally_cpu_topology(root, 0, &unsized), -TALLY_EOPTS);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	CHECK_INT(system(cmd), 0);
}

static void topology_on_this_machine(void)
{
	TALLY_OPTS(tally_cpu_topology, t);
	CHECK_INT(tally_cpu_topology(NULL, 0, &t), 0);
	FILE *f = fopen("/sys/devices/system/cpu/cpu0/topology/core_id", "r");
	int core = -2;
	if (f) {
		CHECK_INT(fscanf(f, "%d", &core), 1);
		fclose(f);
	}
	CHECK_INT(t.core, core);
	CHECK(t.package >= 0);
}

static void online_on_this_machine(void)
{
	tally_cpus *cpus = NULL;
	CHECK_INT(tally_cpus_online("/sys", &cpus), 0);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	CHECK_INT(tally_cpus_count(cpus), n);
	CHECK_INT(tally_cpus_index(cpus, 0), 0);
	tally_cpus_free(cpus);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "parses_sysfs_lists", parses_sysfs_lists },
		{ "rejects_malformed_lists", rejects_malformed_lists },
		{ "dummy_map", dummy_map },
		{ "index_and_bounds", index_and_bounds },
		{ "intersects_pmu_cpumask", intersects_pmu_cpumask },
		{ "subtracts_and_formats", subtracts_and_formats },
		{ "online_from_fake_sysfs", online_from_fake_sysfs },
		{ "offline_cpus_refused", offline_cpus_refused },
		{ "topology_from_fake_sysfs", topology_from_fake_sysfs },
		{ "topology_on_this_machine", topology_on_this_machine },
		{ "online_on_this_machine", online_on_this_machine },
		{ NULL, NULL },
	};
	return harness_run(cases);
}

/* test_witness.c - the kernel's counts of a block device read and
 * subtracted (io/devstat), and who set a phase's figures
 * (phase_bottleneck), each with its exact answer. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core/rc.h"
#include "core/stats.h"
#include "io/devstat.h"
#include "run/phase_witness.h"
#include "tap.h"

/* phase_bottleneck of: instant engine, spinning engine, held by design,
 * host served, in flight, allowed, on a CPU, waiting for one, others' % */
static const char *verdict_of(int instant, int spinning, int held, int served, double mean, double allowed,
			      double busy, double waited, double other, int unseen, unsigned workers, unsigned cpus)
{
	const struct bottleneck_in in = { .instant_engine = instant, .spinning_engine = spinning,
					  .held_by_design = held, .host_served = served, .inflight_mean = mean,
					  .allowed = allowed, .cpu_busiest = busy, .cpu_waited = waited,
					  .other_user_pct = other, .others_unseen = unseen, .workers = workers, .cpus = cpus };

	return phase_bottleneck(&in);
}

/* ... with 4 workers on 4 CPUs: as many as could hold every CPU */
static const char *verdict(int instant, int spinning, int held, int served, double mean, double allowed,
			   double busy, double waited, double other)
{
	return verdict_of(instant, spinning, held, served, mean, allowed, busy, waited, other, 0, 4, 4);
}

static void bottlenecks(void)
{
	ok(!strcmp(verdict(1, 0, 0, 0, 32, 32, 0.1, 0.5, 90), "tool"), "engine null: tool, whatever else");
	ok(!strcmp(verdict(0, 0, 0, 0, 31.9, 32, 0.2, 0, 0), "device"), "a full queue, an idle CPU: device");
	ok(!strcmp(verdict(0, 0, 0, 0, 31.9, 32, 0.85, 0, 0), "tool"), "a worker on a CPU 85 %% of its time: tool");
	ok(!strcmp(verdict(0, 0, 0, 0, 31.9, 32, 0.849, 0, 0), "device"), "84.9 %%: device");
	ok(!strcmp(verdict(0, 0, 1, 0, 28.7, 32, 0.99, 0.5, 90), "rate"), "paced with 28.7 of 32 in flight: rate, busy or not");
	ok(!strcmp(verdict(0, 0, 1, 0, 28.8, 32, 0.2, 0, 0), "device"), "paced with 28.8 (90 %%) of 32: the rate is not what held it");
	ok(!strcmp(verdict(0, 1, 0, 0, 16, 16, 1.0, 0, 0), "device"), "engine sim spins while it waits: its CPU share is not asked");
	ok(!strcmp(verdict(0, 0, 0, 1, 1, 1, 0.3, 0, 0), "tool"), "the host's memory served it (tmpfs, the page cache): tool");
	ok(!strcmp(verdict(0, 0, 1, 1, 0.5, 1, 0.3, 0, 0), "rate"), "a rate held it on tmpfs: rate");
	/* waiting for a CPU: others held it (host), or iomoon's own threads did (tool) */
	ok(!strcmp(verdict(0, 0, 0, 0, 0.7, 1, 0.5, 0.35, 60), "host"),
	   "QD 1, waiting for a CPU 35 %% of its time while others held 60 %%: host, not tool");
	ok(!strcmp(verdict(0, 1, 0, 0, 16, 16, 1.0, 0.5, 90), "device"),
	   "sim waiting 50 %% while others held 90 %%: it spins, its waits are not asked: device");
	ok(!strcmp(verdict(0, 0, 0, 0, 31, 32, 0.3, 0.099, 90), "device"), "waiting 9.9 %%: not the host's");
	ok(!strcmp(verdict(0, 0, 0, 0, 31, 32, 0.4, 0.5, 9.9), "tool"),
	   "on a CPU 40 %% and waiting 50 %% with others at 9.9 %%: iomoon's own threads held the CPUs: tool");
	ok(!strcmp(verdict(0, 0, 0, 0, 0.7, 1, 0.4, 0.05, 0), "device"), "QD 1 with 0.7 in flight, a CPU 45 %% busy: device");
	ok(!strcmp(verdict_of(0, 0, 0, 0, 4, 4, 0.13, 0.74, 0, 1, 1, 2), "host"),
	   "one worker on 2 CPUs waiting 74 %% in a 4 ms phase (others' share unseen in 10 ms ticks): host, not tool");
	ok(!strcmp(verdict_of(0, 0, 0, 0, 4, 4, 0.13, 0.74, 0, 1, 2, 2), "tool"),
	   "two workers on 2 CPUs waiting 74 %%, others unseen: iomoon's own threads may hold them: tool");
	ok(!strcmp(verdict_of(0, 0, 0, 0, 4, 4, 0.13, 0.74, 0, 0, 1, 2), "tool"),
	   "one worker on 2 CPUs waiting 74 %% over a long phase with no other work: iomoon's own (io-wq): tool");
}

/* Other work: the machine's busy ticks less this process's, and of it
 * other processes in user mode. On a quiet machine a loop device's
 * workers (kernel threads, in system time) are no other process. */
static void others(void)
{
	const double hz = (double)sysconf(_SC_CLK_TCK);
	/* 10 s of 2 CPUs; iomoon 2 s user and 4 s system; the machine 2.2 s
	 * user (0.2 s another process's), 13 s system (9 s a loop device's) */
	const struct cpu_mark a = { 0 }, b = { .user_s = 2, .sys_s = 4, .user = (uint64_t)(2.2 * hz),
					       .sys = (uint64_t)(13 * hz), .total = (uint64_t)(20 * hz) };
	struct cpu_use u;

	cpu_between(&a, &b, &u);
	ok(u.util_pct > 75.9 && u.util_pct < 76.1 && u.self_pct > 29.9 && u.self_pct < 30.1, "busy 76 %%, iomoon 30 %%");
	ok(u.other_pct > 45.9 && u.other_pct < 46.1, "other work 46 %%: the loop device's workers are in it");
	ok(u.other_user_pct > 0.9 && u.other_user_pct < 1.1, "other processes in user mode 1 %%: they are not");
	ok(!strcmp(verdict(0, 0, 0, 0, 100, 128, 0.3, 0.25, u.other_user_pct), "device"),
	   "a loop device's workers took the CPU a worker waited for: device, not host");
}

static void counts(void)
{
	struct devstat a = { .ios = { 10, 20, 1, 2 }, .sectors = { 80, 160, 8, 0 }, .ticks_ms = { 5, 7, 1, 3 },
			     .io_ticks_ms = 100, .in_queue_ms = 400 };
	struct devstat b = a, d, sum = { 0 };
	struct stat st;
	unsigned maj = 0, min = 0;
	char name[32] = "";
	struct target t = { .kind = TARGET_FILE };

	b.ios[0] += 1000;
	b.sectors[0] += 8000;
	b.ticks_ms[0] += 250;
	b.in_queue_ms += 900;
	devstat_sub(&b, &a, &d);
	ok(d.ios[0] == 1000 && d.sectors[0] == 8000 && d.ticks_ms[0] == 250 && d.ios[1] == 0 && d.in_queue_ms == 900,
	   "b - a, field by field");
	devstat_add(&sum, &d);
	devstat_add(&sum, &d);
	ok(sum.ios[0] == 2000 && sum.in_queue_ms == 1800, "summed over two devices");
	/* the device under this very file, and its counts, as sysfs has them */
	if (stat("/proc/self/exe", &st) == 0 && major(st.st_dev) != 0) {
		int found, read;

		t.id_dev = st.st_dev;
		found = devstat_device(&t, &maj, &min, name, sizeof(name)) == RC_OK;
		ok(found && maj == major(st.st_dev) && min == minor(st.st_dev) && name[0],
		   "the device under the test binary: %u:%u %s", maj, min, name);
		read = devstat_read(maj, min, &a) == RC_OK;
		ok(read && a.ios[0] > 0, "its counts read: %llu reads so far", (unsigned long long)a.ios[0]);
	} else {
		ok(1, "# SKIP the test binary is on an anonymous device");
		ok(1, "# SKIP the test binary is on an anonymous device");
	}
	t.id_dev = makedev(0, 42);
	ok(devstat_device(&t, &maj, &min, name, sizeof(name)) == RC_FAIL, "an anonymous device (tmpfs): none");
	t.id_dev = st.st_dev;
	t.net = (const struct engine_ops *)&t; /* any engine: a network target */
	ok(devstat_device(&t, &maj, &min, name, sizeof(name)) == RC_FAIL, "a network target: none");
}

int main(void)
{
	bottlenecks();
	others();
	counts();
	return tap_done();
}

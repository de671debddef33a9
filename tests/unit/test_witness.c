/* test_witness.c - the kernel's counts of a block device read and
 * subtracted (io/devstat), and who set a phase's figures
 * (phase_bottleneck), each with its exact answer. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "core/rc.h"
#include "io/devstat.h"
#include "run/phase_witness.h"
#include "tap.h"

static void bottlenecks(void)
{
	/* instant engine, spinning engine, held by design, mean, allowed, cpu */
	ok(!strcmp(phase_bottleneck(1, 0, 0, 0, 32, 32, 0.1), "tool"), "engine null: tool, whatever else");
	ok(!strcmp(phase_bottleneck(0, 0, 0, 0, 31.9, 32, 0.2), "device"), "a full queue, an idle CPU: device");
	ok(!strcmp(phase_bottleneck(0, 0, 0, 0, 31.9, 32, 0.85), "tool"), "a worker on a CPU 85 %% of its time: tool");
	ok(!strcmp(phase_bottleneck(0, 0, 0, 0, 31.9, 32, 0.849), "device"), "84.9 %%: device");
	ok(!strcmp(phase_bottleneck(0, 0, 1, 0, 28.7, 32, 0.99), "rate"), "paced with 28.7 of 32 in flight: rate, busy or not");
	ok(!strcmp(phase_bottleneck(0, 0, 1, 0, 28.8, 32, 0.2), "device"), "paced with 28.8 (90 %%) of 32: the rate is not what held it");
	ok(!strcmp(phase_bottleneck(0, 1, 0, 0, 16, 16, 1.0), "device"), "engine sim spins while it waits: its CPU share is not asked");
	ok(!strcmp(phase_bottleneck(0, 0, 0, 1, 1, 1, 0.3), "tool"), "the host's memory served it (tmpfs, the page cache): tool");
	ok(!strcmp(phase_bottleneck(0, 0, 1, 1, 0.5, 1, 0.3), "rate"), "a rate held it on tmpfs: rate");
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
	counts();
	return tap_done();
}

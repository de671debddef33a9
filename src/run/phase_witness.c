/* phase_witness.c - the block devices under a phase, read by the kernel's
 * own counts before and after its measured time. */
#include "run/phase_witness.h"

#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>

#include "core/clock.h"
#include "core/rc.h"

/* Add target t's device to w, once. 0, or -1 when it has none to read or
 * there are too many. */
static int add_device(struct witness *w, const struct target *t)
{
	unsigned maj, min;
	char name[32];
	size_t len = strlen(w->names);

	if (devstat_device(t, &maj, &min, name, sizeof(name)) != RC_OK)
		return -1;
	for (unsigned i = 0; i < w->n; i++)
		if (w->maj[i] == maj && w->min[i] == min)
			return 0;
	if (w->n == WITNESS_MAX_DEVS)
		return -1;
	w->maj[w->n] = maj;
	w->min[w->n++] = min;
	snprintf(w->names + len, sizeof(w->names) - len, "%s%s", len ? "+" : "", name);
	return 0;
}

/* Is t a file in memory (tmpfs, ramfs)? A block device is not, though
 * its node's /dev is devtmpfs (which says TMPFS_MAGIC). */
static int in_memory(const struct target *t)
{
	struct statfs fs;

	return t->path && t->kind != TARGET_BLOCK && statfs(t->path, &fs) == 0 &&
	       (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC);
}

void witness_setup(struct witness *w, const struct phase_spec *sp)
{
	int memory = 1, fail = 0;

	memset(w, 0, sizeof(*w));
	for (unsigned i = 0; i < phase_nstreams(sp); i++) {
		const struct phase_spec *s = phase_stream(sp, i);

		for (unsigned t = 0; t < s->ntargets; t++) {
			memory = memory && !s->engine->net && strcmp(s->engine->name, "sim") &&
				 strcmp(s->engine->name, "null") && in_memory(s->targets[t]);
			fail = fail || add_device(w, s->targets[t]) < 0;
		}
	}
	if (fail)
		w->n = 0;
	w->in_memory = memory;
}

void witness_begin(struct witness *w)
{
	w->a_ns = 0;
	for (unsigned i = 0; i < w->n; i++)
		if (devstat_read(w->maj[i], w->min[i], &w->a[i]) != RC_OK)
			return;
	w->a_ns = w->n ? clock_ns() : 0;
}

void witness_end(struct witness *w, struct phase_result *out)
{
	struct device_result *d = &out->device;
	uint64_t now;

	out->has_device = 0;
	out->in_memory = w->in_memory;
	if (!w->a_ns)
		return;
	memset(d, 0, sizeof(*d));
	for (unsigned i = 0; i < w->n; i++) {
		struct devstat b, diff;

		if (devstat_read(w->maj[i], w->min[i], &b) != RC_OK)
			return;
		devstat_sub(&b, &w->a[i], &diff);
		devstat_add(&d->counts, &diff);
	}
	now = clock_ns();
	snprintf(d->name, sizeof(d->name), "%s", w->names);
	d->devices = w->n;
	d->seconds = (double)(now - w->a_ns) / 1e9;
	out->has_device = d->seconds > 0;
}

const char *phase_bottleneck(const struct bottleneck_in *in)
{
	if (in->instant_engine)
		return "tool";
	if (in->held_by_design && in->inflight_mean < 0.9 * in->allowed)
		return "rate";
	if (in->host_served)
		return "tool";
	if (in->spinning_engine) /* on a CPU or waiting for one, it spins: its figures are simulated */
		return "device";
	if (in->cpu_waited >= HOST_WAIT &&
	    (in->other_user_pct >= HOST_OTHER_PCT || (in->others_unseen && in->workers < in->cpus)))
		return "host";
	return in->cpu_busiest + in->cpu_waited >= BUSY_SHARE ? "tool" : "device";
}

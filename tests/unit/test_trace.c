/* test_trace.c - what a loaded trace holds beyond its records (trace.h):
 * each device's extent (dev_end) and the span, for a file in order, out of
 * order, cut to a device and to a window, and a trace sealed by hand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/workload.h"
#include "tap.h"
#include "trace/trace.h"

static char dir[] = "/tmp/test_trace.XXXXXX";

/* Write text to dir/name; its path. */
static const char *put(const char *name, const char *text)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

static struct trace *load(const char *path, const struct trace_opts *o)
{
	struct trace *t = NULL;
	char why[WHY_LEN] = "";

	if (trace_load(path, o, &t, why, sizeof(why)) != RC_OK)
		printf("# %s\n", why);
	return t;
}

int main(void)
{
	struct trace_opts o = { 0 };
	struct trace *t;
	const char *p;

	if (!mkdtemp(dir))
		return 1;
	/* a: 4096 + 8192 at 100 s; b: 1 MiB at 0, then 512 at 0 */
	p = put("a.csv", "time_ns,op,offset,len,device\n"
			 "5000,read,0,4096,a\n7000,write,1048576,512,b\n9000,write,100000,8192,a\n"
			 "11000,sync,0,0,b\n12000,trim,0,512,b\n");
	t = load(p, &o);
	ok(t && t->n == 5 && t->io[0].t_ns == 0 && t->span_ns == 7000, "in order: rebased to 0, span 7000 ns");
	ok(t && t->dev_end[0] == 108192 && t->dev_end[1] == 1049088, "in order: extents a %llu, b %llu",
	   t ? (unsigned long long)t->dev_end[0] : 0, t ? (unsigned long long)t->dev_end[1] : 0);
	trace_free(t);

	/* out of order: the second line is the earliest */
	p = put("b.csv", "time_ns,op,offset,len,device\n"
			 "5000,read,0,4096,a\n3000,write,1048576,512,b\n9000,write,100000,8192,a\n");
	t = load(p, &o);
	ok(t && t->n == 3 && t->io[0].t_ns == 0 && t->io[0].op == OP_WRITE && t->io[1].t_ns == 2000 &&
		   t->span_ns == 6000, "out of order: sorted, rebased to the earliest, span 6000 ns");
	ok(t && t->dev_end[0] == 108192 && t->dev_end[1] == 1049088, "out of order: the same extents");
	trace_free(t);

	o.device = "b";
	p = put("c.csv", "time_ns,op,offset,len,device\n"
			 "5000,read,0,4096,a\n7000,write,1048576,512,b\n9000,write,100000,8192,a\n"
			 "12000,trim,0,512,b\n");
	t = load(p, &o);
	ok(t && t->n == 2 && t->ndevs == 1 && !strcmp(t->devs[0], "b") && t->io[0].dev == 0 &&
		   t->dev_end[0] == 1049088 && t->span_ns == 5000, "device b: its records as device 0, its extent");
	trace_free(t);

	o = (struct trace_opts){ .has_from = 1, .from_ns = 3000, .has_to = 1, .to_ns = 5000 };
	t = load(p, &o);
	ok(t && t->n == 1 && t->io[0].offset == 100000 && t->dev_end[0] == 108192 && t->dev_end[1] == 0 &&
		   t->span_ns == 0, "window [3 us, 5 us): one record, extents of what is kept");
	trace_free(t);

	t = calloc(1, sizeof(*t));
	t->io = calloc(3, sizeof(*t->io));
	t->n = 3;
	t->ndevs = 1;
	strcpy(t->devs[0], "x");
	t->io[0] = (struct trace_io){ .t_ns = 500, .offset = 4096, .len = 4096, .op = OP_READ };
	t->io[1] = (struct trace_io){ .t_ns = 200, .offset = 0, .len = 512, .op = OP_WRITE };
	t->io[2] = (struct trace_io){ .t_ns = 200, .offset = 65536, .len = 512, .op = OP_READ };
	{
		char why[WHY_LEN];

		ok(trace_seal(t, why, sizeof(why)) == RC_OK && t->io[0].t_ns == 0 && t->io[0].op == OP_WRITE &&
			   t->io[1].offset == 65536 && t->io[2].t_ns == 300 && t->span_ns == 300 &&
			   t->dev_end[0] == 66048, "trace_seal: stable sort, rebased, span and extent");
	}
	trace_free(t);
	unlink(put("a.csv", ""));
	unlink(put("b.csv", ""));
	unlink(put("c.csv", ""));
	rmdir(dir);
	return tap_done();
}

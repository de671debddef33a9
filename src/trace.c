/* trace.c - load and save traces (trace.h). */
#include "trace.h"

#include <stdio.h>
#include <stdlib.h>

static const char *const format_names[TRACE_NFORMATS] = {
	"auto", "iolog2", "iolog3", "blktrace", "msr", "alibaba", "csv",
};

const char *trace_format_name(enum trace_format f)
{
	return (unsigned)f < TRACE_NFORMATS ? format_names[f] : "?";
}

int trace_load(const char *path, const struct trace_opts *o, struct trace **out, char *why, size_t why_len)
{
	(void)o;
	*out = NULL;
	snprintf(why, why_len, "%s: traces cannot be loaded yet", path);
	return RC_INPUT;
}

void trace_free(struct trace *t)
{
	if (t) {
		free(t->io);
		free(t);
	}
}

int trace_save(const struct trace *t, const char *path, enum trace_format format, char *why, size_t why_len)
{
	(void)t;
	(void)format;
	snprintf(why, why_len, "%s: traces cannot be saved yet", path);
	return RC_FAIL;
}

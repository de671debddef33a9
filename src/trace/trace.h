/* trace.h - recorded block I/O: load a trace, keep it compact, save one.
 *
 * A trace is an array of records in time order, one per I/O, each with
 * its time since the first record kept, its op (workload.h's OP_READ,
 * OP_WRITE, OP_TRIM, OP_SYNC), its byte offset and length and the device
 * it went to. It is loaded once (trace_load: fio iolog v2/v3, blktrace,
 * SNIA MSR Cambridge and Alibaba CSVs, a CSV with named columns), is
 * read-only afterwards, and is shared by the workers that replay it
 * (worker.c) and the summaries drawn from it (trace_profile.c) without a
 * copy. doc/replay.md says what each format's fields become.
 */
#ifndef IOMOON_TRACE_H
#define IOMOON_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "core/rc.h"

/* One recorded I/O: 24 bytes (doc/replay.md says so). */
struct trace_io {
	uint64_t t_ns;   /* recorded time, since the first record kept */
	uint64_t offset; /* bytes (0 for a sync) */
	uint32_t len;    /* bytes (0 for a sync) */
	uint8_t op;      /* OP_READ, OP_WRITE, OP_TRIM or OP_SYNC */
	uint8_t flags;   /* 0; reserved */
	uint16_t dev;    /* index into trace.devs */
};

enum trace_format {
	TRACE_AUTO,     /* detected from the content */
	TRACE_IOLOG2,   /* fio iolog version 2 */
	TRACE_IOLOG3,   /* fio iolog version 3 (timestamped) */
	TRACE_BLKTRACE, /* blktrace binary, one per CPU or merged by blkparse -d */
	TRACE_MSR,      /* SNIA IOTTA MSR Cambridge CSV */
	TRACE_ALIBABA,  /* SNIA IOTTA Alibaba block trace CSV */
	TRACE_CSV,      /* a CSV with named columns (trace_opts.columns) */
	TRACE_NFORMATS
};

#define TRACE_MAX_DEVS 256
#define TRACE_DEV_NAME 64

struct trace {
	struct trace_io *io;
	uint64_t n;
	enum trace_format format;
	unsigned ndevs;
	char devs[TRACE_MAX_DEVS][TRACE_DEV_NAME]; /* as the trace names them, first seen first */
	uint64_t dev_end[TRACE_MAX_DEVS];           /* highest offset + len seen on each device */
	uint64_t span_ns;   /* the last record's t_ns */
	uint64_t skipped;   /* malformed lines or records skipped (skip_bad) */
	uint64_t first_bad_line; /* the first of them (0: none) */
	char path[256];     /* the file it came from */
};

/* The generic CSV's columns: 1-based column numbers (0: absent) and the
 * units the values are in. */
struct trace_columns {
	unsigned time, op, offset, len, dev;
	double time_ns;     /* nanoseconds per unit of the time column */
	uint64_t offset_unit, len_unit; /* bytes per unit (512 for sectors) */
	int header;         /* the first line names the columns */
	/* with header: columns named by the header's words (NULL: by number) */
	const char *time_name, *op_name, *offset_name, *len_name, *dev_name;
};

struct trace_opts {
	enum trace_format format;  /* TRACE_AUTO: detect */
	const char *device;        /* keep only this device (NULL: all) */
	int has_from, has_to;
	uint64_t from_ns, to_ns;   /* keep records in [from, to), times from the trace's first record */
	int skip_bad;              /* count malformed lines instead of failing */
	struct trace_columns columns; /* TRACE_CSV only */
	int any_iolog;             /* format "iolog": version 2 or 3, as the file's first line says */
};

/* Load a trace. RC_OK with *out set; RC_INPUT with why (a malformed line:
 * its number and what was wrong; an unknown device; an empty window);
 * RC_FAIL with why (the file cannot be read, no memory). */
int trace_load(const char *path, const struct trace_opts *o, struct trace **out, char *why, size_t why_len);
void trace_free(struct trace *t);
/* A trace built by hand (t->io, t->n > 0, devs, times from any origin):
 * sorted by time (stable), rebased to its first record, span_ns and
 * dev_end set, as trace_load leaves one. RC_OK, or RC_FAIL/RC_INPUT with why. */
int trace_seal(struct trace *t, char *why, size_t why_len);

/* Write t as fio iolog version 3 (format TRACE_IOLOG3: times in
 * microseconds, the unit fio's code reads) or as CSV (TRACE_CSV:
 * time_ns,op,offset,len,device, with that header), atomically (outfile.h).
 * RC_OK; RC_INPUT with why (path refused: a directory, no parent; a device
 * name fio cannot read); RC_FAIL with why (a write failed: the previous
 * file is kept). */
int trace_save(const struct trace *t, const char *path, enum trace_format format, char *why, size_t why_len);

const char *trace_format_name(enum trace_format f);
/* "read", "write", "trim", "sync" by OP_*. */
extern const char *const trace_op_names[4];
/* An op word of len bytes (read, r, write, w, trim, t, discard, d, sync, s,
 * flush, f, datasync; any case) as OP_*, or -1. */
int trace_op_word(const char *s, size_t len);

#endif

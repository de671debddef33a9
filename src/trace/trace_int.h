/* trace_int.h - what the trace readers (trace.c, trace_iolog.c,
 * trace_blk.c, trace_csv.c) share: the record array being built, the
 * malformed-line rule, and a line reader. */
#ifndef IOMOON_TRACE_INT_H
#define IOMOON_TRACE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "trace/trace.h"

/* A trace being loaded: records in file order, raw times in ns. */
struct tbuild {
	struct trace *t;
	uint64_t cap;            /* records allocated */
	const struct trace_opts *o;
	const char *path;        /* shown (control bytes escaped) */
	char *why;
	size_t why_len;
	uint64_t line;           /* the line (or event) being read, from 1 */
	int events;              /* messages say "event N" (blktrace), not "line N" */
	int last_dev;            /* the device of the last record (a cache) */
	int unsorted;            /* a record came before its predecessor */
	uint64_t base;           /* the first record's time, subtracted from all (when based) */
	int based;
	int ends_known;          /* tb_push kept t->dev_end (trace_seal's records did not) */
};

/* Append one record; RC_FAIL (no memory) with why. */
int tb_push(struct tbuild *b, uint64_t t_ns, unsigned op, uint64_t off, uint64_t len, int dev);
/* The index of device name[0..len), added when new; -1 with why (RC_INPUT:
 * too many devices or too long a name). */
int tb_dev(struct tbuild *b, const char *name, size_t len);
/* A malformed line: with skip_bad counted and RC_OK (the caller skips it),
 * else RC_INPUT with "PATH: line N: " and the message in why. */
int tb_bad(struct tbuild *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Lines of a file, read in blocks: each NUL-terminated, without its
 * newline (nor a CR before it). */
struct lines {
	int fd;
	char *buf;
	size_t cap, start, end;
	int eof;
	uint64_t line;  /* lines returned so far */
};
/* Open a trace file for reading (never blocking on a FIFO): RC_OK with
 * *fd; RC_INPUT when it is not a regular file, RC_FAIL when it cannot be
 * opened (why written). */
int trace_open(const char *path, int *fd, char *why, size_t why_len);
int lines_open(struct lines *r, const char *path, char *why, size_t why_len);
/* The next line (len in *len), or NULL at the end or on an error (*err set,
 * why written: 2 for a line longer than the buffer, an input error). */
char *lines_next(struct lines *r, size_t *len, int *err, const char *path, char *why, size_t why_len);
void lines_close(struct lines *r);

/* Whole decimal number s (digits only, at least one): 0, or -1. */
int trace_u64(const char *s, const char **end, uint64_t *v);

/* The readers: each fills b->t in file order (trace.c then sorts, cuts and
 * rebases). RC_OK, RC_INPUT or RC_FAIL with why. */
int trace_read_iolog(struct tbuild *b, const char *path, int version);
int trace_read_blktrace(struct tbuild *b, const char *path);
int trace_read_csv(struct tbuild *b, const char *path, enum trace_format f);

#endif

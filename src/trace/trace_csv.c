/* trace_csv.c - the CSV traces (doc/replay.md, "Reading traces"), each
 * line parsed by libcsv (quotes, spaces around fields):
 *
 *   msr      SNIA IOTTA MSR Cambridge: Timestamp (Windows FILETIME, 100 ns
 *            units), Hostname, DiskNumber, Type (Read, Write), Offset and
 *            Size (bytes), ResponseTime (ignored); device "Hostname/Disk".
 *   alibaba  Alibaba block traces: device_id, opcode (R, W), offset and
 *            length (bytes), timestamp (microseconds); device device_id.
 *   csv      columns named in trace_opts.columns, by number or by the
 *            header's names, in the units given; also what trace_save
 *            writes (time_ns,op,offset,len,device).
 * A line without a quote is split at its commas directly (the same fields,
 * twice as fast); libcsv reads the others.
 */
#include <csv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/op.h"
#include "trace/trace_int.h"

#define MAX_FIELDS 64

struct row {
	char *buf;          /* the fields' text, each NUL-terminated */
	size_t cap, used;
	size_t at[MAX_FIELDS];
	unsigned n;         /* fields in the row (more than MAX_FIELDS: MAX_FIELDS + 1) */
	int nomem;
};

static void on_field(void *s, size_t len, void *ctx)
{
	struct row *r = ctx;

	if (r->n >= MAX_FIELDS) {
		r->n = MAX_FIELDS + 1;
		return;
	}
	if (r->used + len + 1 > r->cap) {
		size_t cap = (r->used + len + 1) * 2;
		char *p = realloc(r->buf, cap);

		if (!p) {
			r->nomem = 1;
			return;
		}
		r->buf = p;
		r->cap = cap;
	}
	memcpy(r->buf + r->used, s ? s : "", len);
	r->buf[r->used + len] = 0;
	r->at[r->n++] = r->used;
	r->used += len + 1;
}

static void on_row(int c, void *ctx)
{
	(void)c;
	(void)ctx;
}

static const char *fld(const struct row *r, unsigned i)
{
	return r->buf + r->at[i];
}

/* Field i (from 0) as a whole number; 0, or -1. */
static int fld_u64(const struct row *r, unsigned i, uint64_t *v)
{
	const char *end, *s = fld(r, i);

	return trace_u64(s, &end, v) || *end ? -1 : 0;
}

/* One MSR Cambridge row. */
static int msr_row(struct tbuild *b, const struct row *r)
{
	uint64_t ts, off, len;
	char name[TRACE_DEV_NAME * 2];
	int op, dev;

	if (r->n != 7)
		return tb_bad(b, "%u fields (expected 7: Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime)",
			      r->n);
	if (fld_u64(r, 0, &ts) || ts > UINT64_MAX / 100)
		return tb_bad(b, "Timestamp '%.40s' is not a Windows FILETIME (a whole number of 100 ns)", fld(r, 0));
	op = trace_op_word(fld(r, 3), strlen(fld(r, 3)));
	if (op != OP_READ && op != OP_WRITE)
		return tb_bad(b, "Type '%.40s' is not Read or Write", fld(r, 3));
	if (fld_u64(r, 4, &off) || fld_u64(r, 5, &len) || len > UINT32_MAX || off + len < off)
		return tb_bad(b, "Offset '%.40s' or Size '%.40s' is not a whole number of bytes (Size below 4 GiB)",
			      fld(r, 4), fld(r, 5));
	snprintf(name, sizeof(name), "%s/%s", fld(r, 1), fld(r, 2));
	dev = tb_dev(b, name, strlen(name));
	if (dev < 0)
		return b->o->skip_bad ? RC_OK : RC_INPUT;
	return tb_push(b, ts * 100, (unsigned)op, off, len, dev);
}

/* One Alibaba row. */
static int alibaba_row(struct tbuild *b, const struct row *r)
{
	uint64_t ts, off, len;
	int op, dev;

	if (r->n != 5)
		return tb_bad(b, "%u fields (expected 5: device_id,opcode,offset,length,timestamp)", r->n);
	op = strlen(fld(r, 1)) == 1 ? trace_op_word(fld(r, 1), 1) : -1;
	if (op != OP_READ && op != OP_WRITE)
		return tb_bad(b, "opcode '%.40s' is not R or W", fld(r, 1));
	if (fld_u64(r, 2, &off) || fld_u64(r, 3, &len) || len > UINT32_MAX || off + len < off)
		return tb_bad(b, "offset '%.40s' or length '%.40s' is not a whole number of bytes (length below 4 GiB)",
			      fld(r, 2), fld(r, 3));
	if (fld_u64(r, 4, &ts) || ts > UINT64_MAX / 1000)
		return tb_bad(b, "timestamp '%.40s' is not a whole number of microseconds", fld(r, 4));
	dev = tb_dev(b, fld(r, 0), strlen(fld(r, 0)));
	if (dev < 0)
		return b->o->skip_bad ? RC_OK : RC_INPUT;
	return tb_push(b, ts * 1000, (unsigned)op, off, len, dev);
}

/* A time field in units of c->time_ns ns: whole or decimal; 0, or -1. */
static int csv_time(const struct trace_columns *c, const char *s, uint64_t *ns)
{
	uint64_t v;
	const char *end;
	char *dend;
	double d;

	if (!trace_u64(s, &end, &v) && !*end && c->time_ns == floor(c->time_ns) &&
	    (c->time_ns == 0 || v <= UINT64_MAX / (uint64_t)c->time_ns)) {
		*ns = v * (uint64_t)c->time_ns;
		return 0;
	}
	d = strtod(s, &dend);
	if (dend == s || *dend || !(d >= 0) || d * c->time_ns > 1.8e19)
		return -1;
	*ns = (uint64_t)(d * c->time_ns + 0.5); /* llround stops at INT64_MAX */
	return 0;
}

/* A whole number field times unit, at most max; 0, or -1. */
static int csv_scaled(const char *s, uint64_t unit, uint64_t max, uint64_t *v)
{
	const char *end;
	uint64_t x;

	if (trace_u64(s, &end, &x) || *end || (unit && x > max / unit))
		return -1;
	*v = x * unit;
	return 0;
}

/* One row of the named-columns CSV. */
static int columns_row(struct tbuild *b, const struct row *r)
{
	const struct trace_columns *c = &b->o->columns;
	unsigned need = c->op > c->offset ? c->op : c->offset;
	uint64_t ns = 0, off, len;
	int op, dev;

	need = need > c->len ? need : c->len;
	need = need > c->time ? need : c->time;
	need = need > c->dev ? need : c->dev;
	if (r->n < need)
		return tb_bad(b, "%u fields (expected at least %u)", r->n, need);
	op = trace_op_word(fld(r, c->op - 1), strlen(fld(r, c->op - 1)));
	if (op < 0)
		return tb_bad(b, "op '%.40s' is not an op (R, Read, W, Write, T, Trim, Discard, F, Flush, Sync)",
			      fld(r, c->op - 1));
	if (c->time && csv_time(c, fld(r, c->time - 1), &ns))
		return tb_bad(b, "time '%.40s' is not a time (a number >= 0 in the time unit)", fld(r, c->time - 1));
	if (csv_scaled(fld(r, c->offset - 1), c->offset_unit, UINT64_MAX / 2, &off))
		return tb_bad(b, "offset '%.40s' is not a whole number (of %llu bytes)", fld(r, c->offset - 1),
			      (unsigned long long)c->offset_unit);
	if (csv_scaled(fld(r, c->len - 1), c->len_unit, UINT32_MAX, &len))
		return tb_bad(b, "len '%.40s' is not a whole number (of %llu bytes, below 4 GiB in all)", fld(r, c->len - 1),
			      (unsigned long long)c->len_unit);
	if (op == OP_SYNC)
		off = len = 0;
	dev = c->dev ? tb_dev(b, fld(r, c->dev - 1), strlen(fld(r, c->dev - 1))) : tb_dev(b, "0", 1);
	if (dev < 0)
		return b->o->skip_bad ? RC_OK : RC_INPUT;
	return tb_push(b, ns, (unsigned)op, off, len, dev);
}

/* The header row names the columns: their numbers into c. */
static int header_row(struct tbuild *b, const struct row *r, struct trace_columns *c)
{
	const char *names[5] = { c->time_name, c->op_name, c->offset_name, c->len_name, c->dev_name };
	unsigned *nums[5] = { &c->time, &c->op, &c->offset, &c->len, &c->dev };
	static const char *const what[5] = { "time", "op", "offset", "len", "device" };

	for (unsigned k = 0; k < 5; k++) {
		if (!names[k])
			continue;
		*nums[k] = 0;
		for (unsigned i = 0; i < r->n && i < MAX_FIELDS; i++)
			if (!strcmp(fld(r, i), names[k]))
				*nums[k] = i + 1;
		if (!*nums[k]) {
			snprintf(b->why, b->why_len, "%s: line 1: no column named '%.60s' in the header (columns.%s)",
				 b->path, names[k], what[k]);
			return RC_INPUT;
		}
	}
	if (!c->op || !c->offset || !c->len) {
		snprintf(b->why, b->why_len, "columns: op, offset and len are needed (a column number or a header name)");
		return RC_INPUT;
	}
	return RC_OK;
}

/* A line without quotes split at its commas, blanks around each field
 * dropped (as libcsv reads it, without its per-byte callbacks). */
static void split_plain(struct row *r, const char *s, size_t len)
{
	const char *end = s + len;

	for (;;) {
		const char *c = memchr(s, ',', (size_t)(end - s)), *e = c ? c : end;

		while (s < e && (*s == ' ' || *s == '\t'))
			s++;
		while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		on_field((void *)s, (size_t)(e - s), r);
		if (!c)
			return;
		s = c + 1;
	}
}

/* One line into r; 0, or -1 when libcsv runs out of memory. */
static int parse_line(struct csv_parser *p, struct row *r, const char *s, size_t len)
{
	r->n = 0;
	r->used = 0;
	if (!memchr(s, '"', len)) {
		split_plain(r, s, len);
		return r->nomem ? -1 : 0;
	}
	if (csv_parse(p, s, len, on_field, on_row, r) != len || csv_fini(p, on_field, on_row, r) || r->nomem)
		return -1;
	return 0;
}

/* One data row of format f. */
static int data_row(struct tbuild *b, const struct row *r, enum trace_format f)
{
	if (r->n > MAX_FIELDS)
		return tb_bad(b, "more than %d fields", MAX_FIELDS);
	if (f == TRACE_MSR)
		return msr_row(b, r);
	if (f == TRACE_ALIBABA)
		return alibaba_row(b, r);
	return columns_row(b, r);
}

int trace_read_csv(struct tbuild *b, const char *path, enum trace_format f)
{
	struct trace_columns cols = b->o->columns;
	struct trace_opts o = *b->o;
	const struct trace_opts *given = b->o;
	struct csv_parser p;
	struct row r = { 0 };
	struct lines lr;
	size_t len;
	char *s;
	int err = 0, header = f == TRACE_CSV && cols.header, rc = lines_open(&lr, path, b->why, b->why_len);

	if (rc)
		return rc;
	if (csv_init(&p, CSV_APPEND_NULL)) {
		lines_close(&lr);
		snprintf(b->why, b->why_len, "%s: no memory", b->path);
		return RC_FAIL;
	}
	o.columns = cols;
	b->o = &o;
	b->line = 0;
	while (rc == RC_OK && (s = lines_next(&lr, &len, &err, path, b->why, b->why_len))) {
		b->line++;
		const char *nul = memchr(s, 0, len);

		if (!nul && !s[strspn(s, " \t")])
			continue;
		if (nul) {
			rc = tb_bad(b, "a NUL byte at column %zu (a text line)", (size_t)(nul - s) + 1);
		} else if (parse_line(&p, &r, s, len)) {
			snprintf(b->why, b->why_len, "%s: no memory", b->path);
			rc = RC_FAIL;
		} else if (header) {
			header = 0;
			rc = header_row(b, &r, &o.columns);
		} else if (f == TRACE_CSV && (!o.columns.op || !o.columns.offset || !o.columns.len)) {
			snprintf(b->why, b->why_len, "columns: op, offset and len are needed (a column number or a "
				 "header name)");
			rc = RC_INPUT;
		} else {
			rc = data_row(b, &r, f);
		}
	}
	csv_free(&p);
	free(r.buf);
	lines_close(&lr);
	b->o = given;
	return err == 2 ? RC_INPUT : err ? RC_FAIL : rc;
}

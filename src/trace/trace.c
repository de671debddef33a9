/* trace.c - load and save traces (trace.h): the record array, the format
 * detection, the sort, device and window cuts and rebase every format
 * shares, and the writers (fio iolog v3, CSV). The readers are in
 * trace_iolog.c, trace_blk.c and trace_csv.c. */
#include "trace/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/op.h"
#include "core/outfile.h"
#include "core/shown.h"
#include "trace/trace_int.h"

static const char *const format_names[TRACE_NFORMATS] = {
	"auto", "iolog2", "iolog3", "blktrace", "msr", "alibaba", "csv",
};

const char *trace_format_name(enum trace_format f)
{
	return (unsigned)f < TRACE_NFORMATS ? format_names[f] : "?";
}

const char *const trace_op_names[OP_NTYPES] = { "read", "write", "trim", "sync" };

/* ---- the record array ---- */

int tb_push(struct tbuild *b, uint64_t t_ns, unsigned op, uint64_t off, uint64_t len, int dev)
{
	struct trace *t = b->t;
	struct trace_io *io;

	if (off + len < off || off + len > (uint64_t)INT64_MAX) /* Lua's integers hold what is below */
		return tb_bad(b, "offset %llu + length %llu ends past 2^63 bytes (no device is that large)",
			      (unsigned long long)off, (unsigned long long)len);
	if (t->n == b->cap) {
		uint64_t cap = b->cap ? b->cap + b->cap / 2 : 4096;
		void *p = realloc(t->io, cap * sizeof(*t->io));

		if (!p) {
			snprintf(b->why, b->why_len, "%s: no memory for %llu records", b->path, (unsigned long long)cap);
			return RC_FAIL;
		}
		t->io = p;
		b->cap = cap;
	}
	if (!t->n) {
		b->base = t_ns;
		b->based = 1;
	} else if (b->based && t_ns < b->base) {
		for (uint64_t i = 0; i < t->n; i++) /* before the first: times kept as read from here */
			t->io[i].t_ns += b->base;
		b->based = 0;
	}
	if (b->based)
		t_ns -= b->base; /* the first record at 0: finish has no pass to make over a whole trace */
	if (t->n && t_ns < t->io[t->n - 1].t_ns)
		b->unsorted = 1;
	if (off + len > t->dev_end[dev])
		t->dev_end[dev] = off + len;
	io = &t->io[t->n++];
	io->t_ns = t_ns;
	io->offset = off;
	io->len = (uint32_t)len;
	io->op = (uint8_t)op;
	io->flags = 0;
	io->dev = (uint16_t)dev;
	return RC_OK;
}

int tb_dev(struct tbuild *b, const char *name, size_t len)
{
	struct trace *t = b->t;
	char buf[TRACE_DEV_NAME * 4];

	if (b->last_dev >= 0 && !strncmp(t->devs[b->last_dev], name, len) && !t->devs[b->last_dev][len])
		return b->last_dev;
	for (unsigned i = 0; i < t->ndevs; i++)
		if (!strncmp(t->devs[i], name, len) && !t->devs[i][len])
			return b->last_dev = (int)i;
	if (len >= TRACE_DEV_NAME || memchr(name, 0, len)) {
		snprintf(buf, sizeof(buf), "%.*s", (int)(len < 80 ? len : 80), name);
		tb_bad(b, "device name '%s%s' is longer than %d bytes or holds a NUL (a shorter name)", buf,
		       len > 80 ? "..." : "", TRACE_DEV_NAME - 1);
		return -1;
	}
	if (t->ndevs == TRACE_MAX_DEVS) {
		tb_bad(b, "a device more than the %d a trace may name (give fewer devices)", TRACE_MAX_DEVS);
		return -1;
	}
	memcpy(t->devs[t->ndevs], name, len);
	t->devs[t->ndevs][len] = 0;
	return b->last_dev = (int)t->ndevs++;
}

int tb_bad(struct tbuild *b, const char *fmt, ...)
{
	char msg[WHY_LEN];
	va_list ap;

	if (b->o->skip_bad) {
		if (!b->t->skipped++)
			b->t->first_bad_line = b->line;
		return RC_OK;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(b->why, b->why_len, "%s: %s %llu: %s", b->path, b->events ? "event" : "line",
		 (unsigned long long)b->line, msg);
	return RC_INPUT;
}

/* ---- small parsers ---- */

int trace_u64(const char *s, const char **end, uint64_t *v)
{
	uint64_t x = 0;
	const char *p = s;

	while (*p >= '0' && *p <= '9') {
		unsigned d = (unsigned)(*p - '0');

		if (x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
		p++;
	}
	if (p == s)
		return -1;
	*end = p;
	*v = x;
	return 0;
}

int trace_op_word(const char *s, size_t len)
{
	static const struct {
		const char *w;
		int op;
	} words[] = {
		{ "r", OP_READ }, { "read", OP_READ }, { "w", OP_WRITE }, { "write", OP_WRITE }, { "t", OP_TRIM },
		{ "trim", OP_TRIM }, { "d", OP_TRIM }, { "discard", OP_TRIM }, { "f", OP_SYNC }, { "flush", OP_SYNC },
		{ "sync", OP_SYNC }, { "datasync", OP_SYNC }, { "s", OP_SYNC },
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i].w) == len && !strncasecmp(words[i].w, s, len))
			return words[i].op;
	return -1;
}

/* ---- lines ---- */

#define LINES_BUF (1u << 20)

int trace_open(const char *path, int *fd, char *why, size_t why_len)
{
	char sp[256];
	struct stat st;

	*fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* a FIFO without a writer must not block */
	if (*fd < 0) {
		snprintf(why, why_len, "%s: cannot be read: %s", shown(path, sp, sizeof(sp)), strerror(errno));
		return RC_FAIL;
	}
	if (fstat(*fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(why, why_len, "%s: not a regular file (a trace is a file, or a directory of blktrace files; "
			 "not a FIFO, device or socket)", shown(path, sp, sizeof(sp)));
		close(*fd);
		*fd = -1;
		return RC_INPUT;
	}
	fcntl(*fd, F_SETFL, fcntl(*fd, F_GETFL) & ~O_NONBLOCK);
	return RC_OK;
}

int lines_open(struct lines *r, const char *path, char *why, size_t why_len)
{
	char sp[256];
	int rc;

	memset(r, 0, sizeof(*r));
	rc = trace_open(path, &r->fd, why, why_len);
	if (rc)
		return rc;
	r->cap = LINES_BUF;
	r->buf = malloc(r->cap + 1);
	if (!r->buf) {
		close(r->fd);
		snprintf(why, why_len, "%s: no memory", shown(path, sp, sizeof(sp)));
		return RC_FAIL;
	}
	return RC_OK;
}

/* Read more of the file behind what is left; 0, or -1 with why. */
static int lines_fill(struct lines *r, const char *path, char *why, size_t why_len)
{
	char sp[256];
	ssize_t n;

	memmove(r->buf, r->buf + r->start, r->end - r->start);
	r->end -= r->start;
	r->start = 0;
	do
		n = read(r->fd, r->buf + r->end, r->cap - r->end);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		snprintf(why, why_len, "%s: read failed: %s", shown(path, sp, sizeof(sp)), strerror(errno));
		return -1;
	}
	if (n == 0)
		r->eof = 1;
	r->end += (size_t)n;
	return 0;
}

char *lines_next(struct lines *r, size_t *len, int *err, const char *path, char *why, size_t why_len)
{
	char sp[256], *s, *nl;

	*err = 0;
	for (;;) {
		nl = memchr(r->buf + r->start, '\n', r->end - r->start);
		if (nl || (r->eof && r->start < r->end))
			break;
		if (r->eof)
			return NULL;
		if (r->start == 0 && r->end == r->cap) {
			snprintf(why, why_len, "%s: line %llu: longer than %u bytes (is it a trace?)",
				 shown(path, sp, sizeof(sp)), (unsigned long long)r->line + 1, LINES_BUF);
			*err = 2;
			return NULL;
		}
		if (lines_fill(r, path, why, why_len)) {
			*err = 1;
			return NULL;
		}
	}
	s = r->buf + r->start;
	if (!nl)
		nl = r->buf + r->end;
	*nl = 0;
	r->start = (size_t)(nl - r->buf) + 1;
	if (r->start > r->end)
		r->start = r->end;
	*len = (size_t)(nl - s);
	if (*len && s[*len - 1] == '\r')
		s[--*len] = 0;
	r->line++;
	return s;
}

void lines_close(struct lines *r)
{
	if (r->fd >= 0)
		close(r->fd);
	free(r->buf);
	r->buf = NULL;
	r->fd = -1;
}

/* ---- format detection ---- */

/* Fields of a comma-separated line (no quotes considered), at most max;
 * each NUL-terminated in place. */
static unsigned split_commas(char *s, char **f, unsigned max)
{
	unsigned n = 0;

	while (n < max) {
		f[n++] = s;
		s = strchr(s, ',');
		if (!s)
			break;
		*s++ = 0;
	}
	return n;
}

/* Whether the first line is the header trace_save writes for CSV. */
#define OWN_CSV_HEADER "time_ns,op,offset,len,device"

/* The format of the file at path from its first bytes; TRACE_AUTO when
 * none fits (why written). A directory holds blktrace per-CPU files. */
static enum trace_format detect(const char *path, const struct trace_opts *o, int *own_csv, char *why, size_t why_len)
{
	char head[4097], sp[256], *f[8];
	struct stat st;
	ssize_t n;
	uint32_t m;
	unsigned k;
	int fd;

	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		return TRACE_BLKTRACE;
	n = trace_open(path, &fd, why, why_len);
	if (n)
		return n == RC_INPUT ? TRACE_AUTO : TRACE_NFORMATS;
	n = read(fd, head, sizeof(head) - 1);
	close(fd);
	if (n < 0)
		n = 0;
	head[n] = 0;
	if (n >= 4) {
		memcpy(&m, head, 4);
		if ((m & 0xffffff00u) == 0x65617400u || (__builtin_bswap32(m) & 0xffffff00u) == 0x65617400u)
			return TRACE_BLKTRACE;
	}
	if (!strncmp(head, "fio version 2 iolog", 19))
		return TRACE_IOLOG2;
	if (!strncmp(head, "fio version 3 iolog", 19))
		return TRACE_IOLOG3;
	head[strcspn(head, "\r\n")] = 0;
	if (!strcmp(head, OWN_CSV_HEADER)) {
		*own_csv = 1;
		return TRACE_CSV;
	}
	k = split_commas(head, f, 8);
	if (k == 7 && (!strcasecmp(f[3], "read") || !strcasecmp(f[3], "write")))
		return TRACE_MSR;
	if (k == 5 && (!strcasecmp(f[1], "r") || !strcasecmp(f[1], "w")))
		return TRACE_ALIBABA;
	if (o->columns.op || o->columns.op_name)
		return TRACE_CSV;
	snprintf(why, why_len, "%s: the format cannot be told from its first line (give format = \"iolog\", "
		 "\"blktrace\", \"msr\", \"alibaba\", or \"csv\" with columns)", shown(path, sp, sizeof(sp)));
	return TRACE_AUTO;
}

/* ---- after reading: sort, cut, rebase ---- */

/* A stable sort of t->io by time (bottom-up merge sort). */
static int sort_records(struct trace *t)
{
	struct trace_io *a = t->io, *b = malloc(t->n * sizeof(*b));

	if (!b)
		return -1;
	for (uint64_t w = 1; w < t->n; w *= 2) {
		for (uint64_t lo = 0; lo < t->n; lo += 2 * w) {
			uint64_t mid = lo + w < t->n ? lo + w : t->n, hi = lo + 2 * w < t->n ? lo + 2 * w : t->n;
			uint64_t i = lo, j = mid, k = lo;

			while (i < mid && j < hi)
				b[k++] = a[j].t_ns < a[i].t_ns ? a[j++] : a[i++];
			while (i < mid)
				b[k++] = a[i++];
			while (j < hi)
				b[k++] = a[j++];
		}
		struct trace_io *x = a;
		a = b;
		b = x;
	}
	if (a != t->io) {
		memcpy(t->io, a, t->n * sizeof(*a));
		b = a;
	}
	free(b);
	return 0;
}

/* The index of opts.device among the devices seen; -1 with why listing them. */
static int find_device(struct tbuild *b, const char *name)
{
	struct trace *t = b->t;
	char list[WHY_LEN / 2] = "", sn[128];

	for (unsigned i = 0; i < t->ndevs; i++)
		if (!strcmp(t->devs[i], name))
			return (int)i;
	for (unsigned i = 0; i < t->ndevs && strlen(list) + 8 < sizeof(list); i++) {
		char one[TRACE_DEV_NAME * 4 + 4];

		snprintf(one, sizeof(one), "%s\"%s\"", i ? ", " : "", shown(t->devs[i], sn, sizeof(sn)));
		strncat(list, one, sizeof(list) - strlen(list) - 1);
	}
	snprintf(b->why, b->why_len, "device: \"%s\" is not a device of %s (its devices: %s)", shown(name, sn, sizeof(sn)),
		 b->path, t->ndevs ? list : "none");
	return -1;
}

/* Keep the chosen device and the window, rebase times to the first kept
 * record, sum up (span, dev_end) and shrink the array. */
static int finish(struct tbuild *b)
{
	struct trace *t = b->t;
	const struct trace_opts *o = b->o;
	int dev = -1, cut;
	uint64_t t0, k = 0;

	if (!t->n) {
		snprintf(b->why, b->why_len, "%s: no records in the trace", b->path);
		return RC_INPUT;
	}
	if (b->unsorted && sort_records(t)) {
		snprintf(b->why, b->why_len, "%s: no memory to sort %llu records", b->path, (unsigned long long)t->n);
		return RC_FAIL;
	}
	if (o->device && (dev = find_device(b, o->device)) < 0)
		return RC_INPUT;
	t0 = t->io[0].t_ns;
	cut = dev >= 0 || o->has_from || o->has_to;
	if (!cut)
		k = t->n; /* nothing to cut: no pass over the records */
	for (uint64_t i = 0; cut && i < t->n; i++) {
		struct trace_io r = t->io[i];
		uint64_t rel = r.t_ns - t0;

		if ((dev >= 0 && r.dev != dev) || (o->has_from && rel < o->from_ns) || (o->has_to && rel >= o->to_ns))
			continue;
		if (dev >= 0)
			r.dev = 0;
		t->io[k++] = r;
	}
	if (!k) {
		snprintf(b->why, b->why_len, "%s: no records%s%s (of %llu; give another %s)", b->path,
			 dev >= 0 ? " of the device" : "", o->has_from || o->has_to ? " in the window from..to" : "",
			 (unsigned long long)t->n, o->has_from || o->has_to ? "window" : "device");
		return RC_INPUT;
	}
	t->n = k;
	if (dev >= 0) {
		memmove(t->devs[0], t->devs[dev], TRACE_DEV_NAME);
		t->ndevs = 1;
	}
	t0 = t->io[0].t_ns;
	if (t0 || cut || !b->ends_known)
		memset(t->dev_end, 0, sizeof(t->dev_end));
	for (uint64_t i = 0; (t0 || cut || !b->ends_known) && i < k; i++) {
		struct trace_io *r = &t->io[i];

		r->t_ns -= t0;
		if (r->offset + r->len > t->dev_end[r->dev])
			t->dev_end[r->dev] = r->offset + r->len;
	}
	t->span_ns = t->io[k - 1].t_ns;
	if (t->span_ns > (uint64_t)INT64_MAX) {
		snprintf(b->why, b->why_len, "%s: the records span %.0f s, more than 2^63 ns (292 years: a time is "
			 "wrong, or give from/to)", b->path, (double)t->span_ns / 1e9);
		return RC_INPUT;
	}
	b->cap = k;
	struct trace_io *p = realloc(t->io, k * sizeof(*t->io));
	if (p)
		t->io = p;
	return RC_OK;
}

int trace_seal(struct trace *t, char *why, size_t why_len)
{
	struct trace_opts o = { 0 };
	char sp[256];
	struct tbuild b = { .t = t, .o = &o, .why = why, .why_len = why_len, .path = shown(t->path, sp, sizeof(sp)),
			    .unsorted = 1, .cap = t->n };

	return finish(&b);
}

/* The reader of format f over path. */
static int read_format(struct tbuild *b, const char *path, enum trace_format f)
{
	switch (f) {
	case TRACE_IOLOG2:
	case TRACE_IOLOG3:
		return trace_read_iolog(b, path, f == TRACE_IOLOG2 ? 2 : 3);
	case TRACE_BLKTRACE:
		return trace_read_blktrace(b, path);
	default:
		return trace_read_csv(b, path, f);
	}
}

int trace_load(const char *path, const struct trace_opts *o, struct trace **out, char *why, size_t why_len)
{
	struct trace_opts lo = *o;
	struct tbuild b = { .o = &lo, .why = why, .why_len = why_len, .last_dev = -1, .ends_known = 1 };
	char sp[256];
	int own = 0, rc;

	*out = NULL;
	shown(path, sp, sizeof(sp));
	b.path = sp;
	if (access(path, R_OK)) { /* a trace that is not there (or not ours to read) is the input's fault */
		snprintf(why, why_len, "%s: cannot be read: %s", sp, strerror(errno));
		return errno == ENOENT || errno == ENOTDIR || errno == EACCES ? RC_INPUT : RC_FAIL;
	}
	if (lo.format == TRACE_AUTO || lo.any_iolog) {
		enum trace_format f = detect(path, &lo, &own, why, why_len);

		if (f == TRACE_NFORMATS)
			return RC_FAIL;
		if (f == TRACE_AUTO)
			return RC_INPUT;
		if (lo.any_iolog && f != TRACE_IOLOG2 && f != TRACE_IOLOG3) {
			snprintf(why, why_len, "%s: line 1: not a fio iolog (expected \"fio version 2 iolog\" or "
				 "\"fio version 3 iolog\"; format = \"iolog\" was given)", sp);
			return RC_INPUT;
		}
		lo.format = f;
	}
	if (own) {
		lo.columns = (struct trace_columns){ .time = 1, .op = 2, .offset = 3, .len = 4, .dev = 5, .time_ns = 1,
						     .offset_unit = 1, .len_unit = 1, .header = 1 };
	}
	b.t = calloc(1, sizeof(*b.t));
	if (!b.t) {
		snprintf(why, why_len, "%s: no memory", sp);
		return RC_FAIL;
	}
	b.t->format = lo.format;
	snprintf(b.t->path, sizeof(b.t->path), "%s", path);
	rc = read_format(&b, path, lo.format);
	if (rc == RC_OK)
		rc = finish(&b);
	if (rc != RC_OK) {
		trace_free(b.t);
		return rc;
	}
	*out = b.t;
	return RC_OK;
}

void trace_free(struct trace *t)
{
	if (t) {
		free(t->io);
		free(t);
	}
}

/* ---- saving ---- */

struct wbuf {
	struct outfile out;
	char buf[1 << 16];
	size_t n;
	int rc;
	char *why;
	size_t why_len;
};

static void wflush(struct wbuf *w)
{
	if (w->rc == RC_OK && w->n && outfile_write(&w->out, w->buf, w->n, w->why, w->why_len))
		w->rc = RC_FAIL;
	w->n = 0;
}

static void wput(struct wbuf *w, const char *s, size_t len)
{
	if (w->n + len > sizeof(w->buf))
		wflush(w);
	if (len > sizeof(w->buf)) {
		if (w->rc == RC_OK && outfile_write(&w->out, s, len, w->why, w->why_len))
			w->rc = RC_FAIL;
		return;
	}
	memcpy(w->buf + w->n, s, len);
	w->n += len;
}

static void wstr(struct wbuf *w, const char *s)
{
	wput(w, s, strlen(s));
}

/* v in decimal, then the character c (0: none). */
static void wnum(struct wbuf *w, uint64_t v, char c)
{
	char d[24];
	int i = 23;

	if (c)
		d[i--] = c;
	do {
		d[i--] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	wput(w, d + i + 1, (size_t)(23 - i));
}

/* fio iolog version 3: times in microseconds (fio's log_io_u and
 * read_iolog), every I/O line with an offset and a length (a sync's are 0:
 * fio reads a line of 5 fields only), each file added and opened at 0 and
 * closed at the end. */
static void save_iolog(struct wbuf *w, const struct trace *t)
{
	uint64_t end = t->n ? t->io[t->n - 1].t_ns / 1000 : 0;

	wstr(w, "fio version 3 iolog\n");
	for (unsigned d = 0; d < t->ndevs; d++) {
		wstr(w, "0 ");
		wstr(w, t->devs[d]);
		wstr(w, " add\n0 ");
		wstr(w, t->devs[d]);
		wstr(w, " open\n");
	}
	for (uint64_t i = 0; i < t->n; i++) {
		const struct trace_io *r = &t->io[i];

		wnum(w, r->t_ns / 1000, ' ');
		wstr(w, t->devs[r->dev]);
		wput(w, " ", 1);
		wstr(w, trace_op_names[r->op]);
		wput(w, " ", 1);
		wnum(w, r->offset, ' ');
		wnum(w, r->len, '\n');
	}
	for (unsigned d = 0; d < t->ndevs; d++) {
		wnum(w, end, ' ');
		wstr(w, t->devs[d]);
		wstr(w, " close\n");
	}
}

/* A CSV field: plain, or quoted (quotes doubled) when it holds a comma, a
 * quote or a line end. */
static void wcsv_field(struct wbuf *w, const char *s)
{
	if (!s[strcspn(s, ",\"\r\n")]) {
		wstr(w, s);
		return;
	}
	wput(w, "\"", 1);
	for (; *s; s++)
		wput(w, *s == '"' ? "\"\"" : s, *s == '"' ? 2 : 1);
	wput(w, "\"", 1);
}

static void save_csv(struct wbuf *w, const struct trace *t)
{
	wstr(w, OWN_CSV_HEADER "\n");
	for (uint64_t i = 0; i < t->n; i++) {
		const struct trace_io *r = &t->io[i];

		wnum(w, r->t_ns, ',');
		wstr(w, trace_op_names[r->op]);
		wput(w, ",", 1);
		wnum(w, r->offset, ',');
		wnum(w, r->len, ',');
		wcsv_field(w, t->devs[r->dev]);
		wput(w, "\n", 1);
	}
}

/* A device name fio's iolog cannot hold (fio reads names with %256s). */
static int iolog_name_ok(const char *s)
{
	if (!*s || strlen(s) > 256)
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || *s == 0x7f)
			return 0;
	return 1;
}

int trace_save(const struct trace *t, const char *path, enum trace_format format, char *why, size_t why_len)
{
	struct wbuf *w;
	char sp[256], sd[128];

	if (format != TRACE_IOLOG3 && format != TRACE_CSV) {
		snprintf(why, why_len, "format: traces are saved as \"iolog\" (fio version 3) or \"csv\", not %s",
			 trace_format_name(format));
		return RC_INPUT;
	}
	for (unsigned d = 0; format == TRACE_IOLOG3 && d < t->ndevs; d++)
		if (!iolog_name_ok(t->devs[d])) {
			snprintf(why, why_len, "%s: device name \"%s\" holds a space or control byte, which fio's iolog "
				 "cannot hold (save as \"csv\")", shown(path, sp, sizeof(sp)),
				 shown(t->devs[d], sd, sizeof(sd)));
			return RC_INPUT;
		}
	w = malloc(sizeof(*w));
	if (!w) {
		snprintf(why, why_len, "%s: no memory", shown(path, sp, sizeof(sp)));
		return RC_FAIL;
	}
	w->n = 0;
	w->rc = RC_OK;
	w->why = why;
	w->why_len = why_len;
	if (outfile_begin(&w->out, path, why, why_len) != RC_OK) {
		free(w);
		return RC_INPUT;
	}
	if (format == TRACE_IOLOG3)
		save_iolog(w, t);
	else
		save_csv(w, t);
	wflush(w);
	if (w->rc != RC_OK)
		outfile_abort(&w->out);
	else if (outfile_commit(&w->out, why, why_len) != RC_OK)
		w->rc = RC_FAIL;
	int rc = w->rc;
	free(w);
	return rc;
}

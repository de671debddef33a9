/* csv.c - CSV read and write on libcsv (RFC 4180 quoting); files are
 * replaced through outfile.c. */
#include "csv.h"

#include <csv.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "outfile.h"

struct csvw {
	struct outfile out;
	struct csvbuf buf;
	int failed;
	char why[512];
};

/* Make room for `more` bytes at the end of b. */
static int csvbuf_reserve(struct csvbuf *b, size_t more)
{
	size_t cap = b->cap ? b->cap : 4096;
	char *s;

	while (cap - b->len < more) {
		if (cap > SIZE_MAX / 2)
			return -1;
		cap *= 2;
	}
	if (cap == b->cap)
		return 0;
	s = realloc(b->s, cap);
	if (!s)
		return -1;
	b->s = s;
	b->cap = cap;
	return 0;
}

int csv_format_row(struct csvbuf *b, const char *const *fields, const size_t *lens, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		/* every byte may double, plus the two quotes and a comma */
		if (lens[i] > (SIZE_MAX - 8) / 2 || csvbuf_reserve(b, 2 * lens[i] + 3) < 0)
			return -1;
		if (i)
			b->s[b->len++] = ',';
		b->len += csv_write2(b->s + b->len, b->cap - b->len, fields[i], lens[i], '"');
	}
	if (csvbuf_reserve(b, 2) < 0)
		return -1;
	b->s[b->len++] = '\r';
	b->s[b->len++] = '\n';
	return 0;
}

struct csvw *csvw_open(const char *path, char *why, size_t why_len)
{
	struct csvw *w = calloc(1, sizeof(*w));

	if (!w) {
		snprintf(why, why_len, "out of memory");
		return NULL;
	}
	if (outfile_begin(&w->out, path, why, why_len) < 0) {
		free(w);
		return NULL;
	}
	return w;
}

int csvw_row(struct csvw *w, const char *const *fields, const size_t *lens, size_t n)
{
	if (w->failed)
		return -1;
	w->buf.len = 0;
	if (csv_format_row(&w->buf, fields, lens, n) < 0) {
		snprintf(w->why, sizeof(w->why), "%s: out of memory", w->out.path);
		w->failed = 1;
	} else if (outfile_write(&w->out, w->buf.s, w->buf.len, w->why, sizeof(w->why)) < 0) {
		w->failed = 1;
	}
	return w->failed ? -1 : 0;
}

int csvw_close(struct csvw *w, int commit, char *why, size_t why_len)
{
	int rc = 0;

	if (commit && w->failed) {
		snprintf(why, why_len, "%s", w->why);
		rc = -1;
	}
	if (commit && !w->failed)
		rc = outfile_commit(&w->out, why, why_len);
	else
		outfile_abort(&w->out);
	free(w->buf.s);
	free(w);
	return rc;
}

struct read_ctx {
	void (*field)(void *, const char *, size_t);
	void (*row_end)(void *);
	void *ctx;
};

static void cb_field(void *s, size_t len, void *data)
{
	struct read_ctx *r = data;

	r->field(r->ctx, s ? s : "", s ? len : 0);
}

static void cb_row(int c, void *data)
{
	struct read_ctx *r = data;

	(void)c;
	r->row_end(r->ctx);
}

int csv_read_file(const char *path, void (*field)(void *ctx, const char *s, size_t len),
		  void (*row_end)(void *ctx), void *ctx, char *why, size_t why_len)
{
	struct read_ctx r = { field, row_end, ctx };
	struct csv_parser p;
	char buf[65536];
	size_t n;
	FILE *f = fopen(path, "rb");

	if (!f) {
		snprintf(why, why_len, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (csv_init(&p, CSV_APPEND_NULL) != 0) {
		fclose(f);
		snprintf(why, why_len, "csv: cannot initialise the parser");
		return -1;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		if (csv_parse(&p, buf, n, cb_field, cb_row, &r) != n) {
			snprintf(why, why_len, "%s: %s", path, csv_strerror(csv_error(&p)));
			csv_free(&p);
			fclose(f);
			return -1;
		}
	}
	csv_fini(&p, cb_field, cb_row, &r);
	csv_free(&p);
	if (ferror(f)) {
		snprintf(why, why_len, "%s: read error", path);
		fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

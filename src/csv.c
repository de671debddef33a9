/* csv.c - CSV read and write on libcsv (RFC 4180 quoting). */
#include "csv.h"

#include <csv.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct csvw {
	FILE *f;
	char *path, *tmp;
	int failed;
};

struct csvw *csvw_open(const char *path, char *why, size_t why_len)
{
	struct csvw *w = calloc(1, sizeof(*w));
	size_t n = strlen(path) + 32;

	if (!w)
		goto nomem;
	w->path = strdup(path);
	w->tmp = malloc(n);
	if (!w->path || !w->tmp)
		goto nomem;
	snprintf(w->tmp, n, "%s.tmp-%ld", path, (long)getpid());
	w->f = fopen(w->tmp, "w");
	if (!w->f) {
		snprintf(why, why_len, "%s: %s", path, strerror(errno));
		free(w->path);
		free(w->tmp);
		free(w);
		return NULL;
	}
	return w;
nomem:
	snprintf(why, why_len, "out of memory");
	if (w) {
		free(w->path);
		free(w->tmp);
		free(w);
	}
	return NULL;
}

int csvw_row(struct csvw *w, const char *const *fields, const size_t *lens, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (i && fputc(',', w->f) == EOF)
			w->failed = 1;
		if (csv_fwrite(w->f, fields[i], lens[i]))
			w->failed = 1;
	}
	if (fputs("\r\n", w->f) == EOF)
		w->failed = 1;
	return w->failed ? -1 : 0;
}

int csvw_close(struct csvw *w, int commit, char *why, size_t why_len)
{
	int rc = 0;

	if (fflush(w->f) || fsync(fileno(w->f)))
		w->failed = 1;
	if (fclose(w->f))
		w->failed = 1;
	if (commit && !w->failed && rename(w->tmp, w->path) < 0)
		w->failed = 1;
	if (!commit || w->failed) {
		if (commit) {
			snprintf(why, why_len, "%s: %s", w->path, strerror(errno));
			rc = -1;
		}
		unlink(w->tmp);
	}
	free(w->path);
	free(w->tmp);
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

/* csv.c - CSV fields written and files read on libcsv (RFC 4180 quoting). */
#include "core/csv.h"

#include <csv.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

size_t csv_put_field(char *dst, size_t i, const char *s, size_t len)
{
	size_t n = 0;

	if (i)
		dst[n++] = ',';
	return n + csv_write2(dst + n, CSV_FIELD_ROOM(len) - n, s, len, '"');
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

/* csv.h - CSV on libcsv: rows formatted into a buffer, an atomic file
 * writer, and a whole-file reader.
 *
 * Every field is quoted (libcsv's csv_write2), quotes doubled, rows end in
 * CRLF (RFC 4180). The writer writes through outfile.c: a temporary file
 * beside PATH (O_EXCL), every write checked, fsync, rename over PATH, fsync
 * of the directory on close; a reader never sees half a file, and a failed
 * or unclosed writer leaves the previous file intact and no temporary.
 */
#ifndef IOMOON_CSV_H
#define IOMOON_CSV_H

#include <stddef.h>

/* A growing buffer of CSV text; start it zeroed, free(b.s) when done. */
struct csvbuf {
	char *s;
	size_t len, cap;
};

/* Append one row of n fields to b; -1 when out of memory. */
int csv_format_row(struct csvbuf *b, const char *const *fields, const size_t *lens, size_t n);

struct csvw;

struct csvw *csvw_open(const char *path, char *why, size_t why_len);
/* Write one row of n fields; -1 on an I/O error (reported again by close). */
int csvw_row(struct csvw *w, const char *const *fields, const size_t *lens, size_t n);
/* Sync and rename into place (commit=1) or discard (commit=0). */
int csvw_close(struct csvw *w, int commit, char *why, size_t why_len);

/* Parse a file; field(i, s, len) for each field, row_end() after each row. */
int csv_read_file(const char *path, void (*field)(void *ctx, const char *s, size_t len),
		  void (*row_end)(void *ctx), void *ctx, char *why, size_t why_len);

#endif

/* csv.h - CSV files on libcsv: an atomic writer and a whole-file reader.
 *
 * The writer writes to "PATH.tmp-PID" and renames it over PATH on close, so a
 * reader never sees half a file and a crash leaves the old file intact.
 */
#ifndef IOMOON_CSV_H
#define IOMOON_CSV_H

#include <stddef.h>

struct csvw;

struct csvw *csvw_open(const char *path, char *why, size_t why_len);
/* Write one row of n fields; -1 on an I/O error. */
int csvw_row(struct csvw *w, const char *const *fields, const size_t *lens, size_t n);
/* Flush and rename into place (commit=1) or discard (commit=0). */
int csvw_close(struct csvw *w, int commit, char *why, size_t why_len);

/* Parse a file; field(i, s, len) for each field, row_end() after each row. */
int csv_read_file(const char *path, void (*field)(void *ctx, const char *s, size_t len),
		  void (*row_end)(void *ctx), void *ctx, char *why, size_t why_len);

#endif

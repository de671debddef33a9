/* csv.h - CSV on libcsv: one field formatted into the caller's buffer, and
 * a whole-file reader.
 *
 * Every field is quoted (libcsv's csv_write2), quotes doubled, other bytes
 * (commas, CR, LF, control bytes, NUL) kept as they are, rows end in CRLF
 * (RFC 4180). The caller puts the text where it goes: lua_csv.c into a Lua
 * buffer (iomoon.csv.format) or, row by row, into outfile.c's atomic
 * writer (iomoon.csv.writer).
 */
#ifndef IOMOON_CSV_H
#define IOMOON_CSV_H

#include <stddef.h>

/* The most bytes a field of len bytes takes: a comma, two quotes, every
 * byte doubled (len must be below SIZE_MAX / 2 - 2). */
#define CSV_FIELD_ROOM(len) (2 * (size_t)(len) + 3)
/* What ends a row. */
#define CSV_ROW_END "\r\n"

/* Write field i (from 0) of a row into dst, which has CSV_FIELD_ROOM(len)
 * bytes: a comma first unless i is 0, then the field quoted. Returns the
 * bytes written. */
size_t csv_put_field(char *dst, size_t i, const char *s, size_t len);

/* Parse a file; field(i, s, len) for each field, row_end() after each row. */
int csv_read_file(const char *path, void (*field)(void *ctx, const char *s, size_t len),
		  void (*row_end)(void *ctx), void *ctx, char *why, size_t why_len);

#endif

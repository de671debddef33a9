/* units.h - parsing of the sizes and durations users type ("4k", "0.5k", "2m", "500us").
 *
 * Sizes are binary (k = 1024, as IOMeter and fio mean "4K"); durations are
 * seconds unless suffixed. Both return RC_OK (rc.h), or RC_INPUT with a
 * message in `why` (what was wrong and what would be right; WHY_LEN is
 * enough).
 */
#ifndef IOMOON_UNITS_H
#define IOMOON_UNITS_H

#include <stddef.h>
#include <stdint.h>

int units_parse_size(const char *s, uint64_t *bytes, char *why, size_t why_len);
int units_parse_duration(const char *s, uint64_t *ns, char *why, size_t why_len);

/* "4 KiB", "1.5 MiB": the shortest exact-ish human form, for messages. */
void units_format_size(uint64_t bytes, char *out, size_t out_len);

#endif

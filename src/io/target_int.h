/* target_int.h - what the three parts of a target share: its inspection
 * and opening (target.c), the policy on writing it (target_write.c) and
 * its creation and fill (target_fill.c).
 */
#ifndef IOMOON_TARGET_INT_H
#define IOMOON_TARGET_INT_H

#include <stdint.h>
#include <sys/stat.h>

#include "io/target.h"

/* Logical sector and buffer alignment for O_DIRECT on the file at path. */
void target_file_alignment(const char *path, uint32_t *sector, uint32_t *mem);
/* Is st the file or device recorded in t? Record st as t's object. */
int target_same_object(const struct target *t, const struct stat *st);
void target_record_object(struct target *t, const struct stat *st);
/* Open t's path and check it still names what was inspected: a descriptor,
 * or a negative rc that target_open_failed explains (field first). */
int target_open_checked(const struct target *t, int flags, struct stat *st);
void target_open_failed(const struct target *t, int rc, const char *field, char *why, size_t why_len);
/* The first hole at or after from, below size, of the file open at fd; -1: none. */
int64_t target_first_hole(int fd, uint64_t from, uint64_t size);
/* The mark (user.iomoon) the file open at fd would carry if iomoon made
 * it; does it carry it? */
int target_mark_value(int fd, char *v, size_t len);
int target_mark_matches(int fd);
/* Has something else claimed what fd is (a mount, swap, a loop device,
 * a signature, a probe that cannot tell)? 1 with what naming it. */
int target_claimed(const struct target *t, int fd, const struct stat *st, char *what, size_t what_len);

#endif

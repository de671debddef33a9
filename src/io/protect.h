/* protect.h - files a run must not do I/O to: its own report (--output),
 * its script or suite file. The command line registers them before any
 * phase is checked; a phase whose target is one of them is bad input, so a
 * report can never be written over a target, nor a target over a report.
 */
#ifndef IOMOON_PROTECT_H
#define IOMOON_PROTECT_H

#include <stddef.h>

#define PROTECT_MAX 16

/* Remember path (as the same file by device and inode where it exists,
 * and by its absolute name, for a file still to be created) as `what`
 * ("the report file (--output)"). 0, or -1 when the list is full. */
int protect_add(const char *path, const char *what);
/* Is path one of them? NULL, or what it is. */
const char *protect_find(const char *path);
/* path's absolute name: its directory resolved (links, ".", ".."), then
 * its last component; "" when the directory does not resolve. */
void path_absolute(const char *path, char *out, size_t len);

#endif

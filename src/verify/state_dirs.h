/* state_dirs.h - where the verification states of genmap.h live.
 *
 * A state lives in a directory: a phase's verify_state, else the state
 * directory ($IOMOON_STATE_DIR, else /var/lib/iomoon for root, else
 * $XDG_STATE_HOME/iomoon or ~/.local/state/iomoon). A state knows only
 * the writes of the runs that kept it, so one kept in another directory
 * is named in a list beside the default directory's state of the target
 * (.iomoon-dirs: one absolute path a line): a writer of the target,
 * verifying or not, with whatever directory, marks every other state of
 * it stale (genmap.c), and a later check against one of them is refused,
 * not a false alarm. Best effort beside the default directory: a run
 * with another IOMOON_STATE_DIR sees another list.
 */
#ifndef IOMOON_STATE_DIRS_H
#define IOMOON_STATE_DIRS_H

#include <stddef.h>

#include "verify/genmap.h"

/* At most this many other directories are listed (the oldest goes). */
#define SDIR_LIST_MAX 64

/* The default state directory; never NULL (buf may hold it). */
const char *sdir_default(char *buf, size_t len);
/* dir when given, else the default. */
const char *sdir_of(const char *dir, char *buf, size_t len);
/* Do a and b (NULL: the default) name one directory? By name, else by
 * identity when both exist. */
int sdir_same(const char *a, const char *b);
/* The state file of the identity m holds (dev, ino) in dir (NULL: the
 * default): file-MAJ-MIN-INO.iomoon-verify, blockdev-MAJ-MIN.iomoon-verify.
 * Malloc'd, NULL without memory. */
char *sdir_state_path(const struct gen_map *m, const char *dir);
/* mkdir -p of the directory holding path (errors show at the open). */
void sdir_make_parents(const char *path);
/* The little text file beside state `state` (ext for .iomoon-verify:
 * ".iomoon-device", a block device's identity in words) written with
 * text (best effort), or read into buf (1 when it holds something). */
void sdir_side_write(const char *state, const char *ext, const char *text);
int sdir_side_read(const char *state, const char *ext, char *buf, size_t len);
/* The other directories listed for id, malloc'd, into dirs; how many
 * (none when the list is of another device or file at that name: its
 * first line, "id HEX", is the identity it is of, devid.h). */
unsigned sdir_list_read(const struct gen_map *id, char *dirs[SDIR_LIST_MAX]);
void sdir_list_free(char *dirs[], unsigned n);
/* List dir (a state of id is made there) beside the default directory's
 * state, unless it is the default or listed; directories gone drop out. */
void sdir_list_add(const struct gen_map *id, const char *dir);
/* Does another process hold the lock of the state at path (a run
 * verifying a region of its own with that state)? */
int sdir_state_in_use(const char *path);

#endif

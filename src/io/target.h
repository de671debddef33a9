/* target.h - what a phase does I/O to: a regular file or a block device.
 *
 * A target records a path, its usable size and its logical sector size.
 * Phases open their own descriptors (direct or buffered, read-only or
 * read-write) through target_open, so one target serves phases of every
 * kind. Creating and filling a file happens once, in target_prepare.
 */
#ifndef IOMOON_TARGET_H
#define IOMOON_TARGET_H

/* The extended attribute that marks a file iomoon created: its value names
 * the inode ("iomoon-2 ino=N btime=S.NS", or "dev=MAJ:MIN" for the birth
 * time where there is none); a file whose mark does not match is anyone's. */
#define TARGET_XATTR "user.iomoon"
/* what iomoon's own writes left that a signature probe finds (target_note_seen) */
#define TARGET_SEEN_XATTR "user.iomoon.seen"

#include <stddef.h>
#include <stdint.h>

struct gen_map; /* verify/genmap.h */


/* TARGET_NONE: the nominal region of the null and sim engines, which do no
 * I/O: no path on disk, never opened for data, never written. */
enum target_kind { TARGET_FILE, TARGET_BLOCK, TARGET_NONE };
enum target_fill { FILL_NONE, FILL_RANDOM, FILL_ZERO };

struct target_opts {
	const char *what;     /* the field in messages: "target" when NULL */
	const char *path;
	uint64_t size;        /* 0: the file's or device's own size */
	int create;           /* create a missing file (needs size) */
	enum target_fill fill;
	int allow_write;      /* block devices, and files iomoon did not create,
			       * are read-only without it */
	int force;            /* write even over a claimed target: mounted,
			       * swap, a loop device's backing file, a signature */
};

struct target {
	char *path;
	enum target_kind kind;
	uint64_t size;        /* bytes usable by phases */
	uint32_t sector;      /* logical sector: the unit of direct I/O */
	uint32_t mem_align;   /* buffer alignment for direct I/O */
	int allow_write;
	int force;
	int ours;             /* a file iomoon created (now or before): its mark matches */
	int exists;           /* the path existed when inspected */
	int created;          /* this run created the file */
	/* what was inspected or created, checked again at every open: st_dev and
	 * st_ino of a file, st_rdev (and 0) of a block device */
	uint64_t id_dev, id_ino;
	/* crc32c verification: the generation map of this file or device
	 * (genmap.h), shared by every target object of it in this process */
	struct gen_map *gmap;
	/* a network block device (netblk.h; kind TARGET_BLOCK): its URL with
	 * any password (path has none, and is what is printed), its engine */
	char *url;
	const struct engine_ops *net;
	int net_trims, net_flushes, net_read_only; /* what the server said */
	int net_fua;          /* the server honours Force Unit Access on a write */
	uint64_t net_size;    /* a file in an export (nfs://): its size when inspected */
};

/* Errors (rc.h; why holds WHY_LEN bytes, a longer message is cut): RC_INPUT
 * bad input or a refusal (why names field, value, what would be right),
 * RC_FAIL a system failure (why says which call and errno). */

/* Everything that can be known without writing: kind, size, sector, whose
 * a file is, and whether what target_materialize would write (extension,
 * fill) is allowed. A missing file gets the size asked and its directory's
 * sector. Opens only regular files and block devices, read-only. */
int target_inspect(struct target *t, const struct target_opts *o, char *why, size_t why_len);
/* Create a missing file (O_EXCL: one that appeared since inspection is
 * refused, RC_INPUT), extend a short one, fill its holes (opened for writing
 * only if it has one; stops with RC_FAIL when phase_interrupt is set).
 * Every open checks the path still names what was inspected (RC_INPUT if
 * not). */
int target_materialize(struct target *t, const struct target_opts *o, char *why, size_t why_len);
/* Both, in order; on failure, a file this call created is removed. */
int target_prepare(struct target *t, const struct target_opts *o, char *why, size_t why_len);
/* May phases write to t? RC_OK, or RC_INPUT with why: a block device, or a file
 * iomoon did not create, needs allow_write; then nothing may claim it
 * (mount, swap, a sysfs holder, a loop device, any signature or a probe
 * that cannot tell, and for a block device an exclusive open the kernel
 * refuses) unless force. Reads t, writes nothing. */
int target_may_write(const struct target *t, char *why, size_t why_len);
/* After a phase wrote t, a file of ours: probe it as target_may_write does.
 * Random payloads match libblkid's weakest probes (2 bytes at a fixed
 * offset: hfsplus, minix) about once in 30,000 writes that cover them; what
 * is found now is iomoon's own data, and is noted with the file's mtime and
 * size (TARGET_SEEN_XATTR), so target_may_write does not refuse that
 * finding while both stay as they are. Anything else writing the file
 * (mkfs, dd, a loop device) changes its mtime, and it is probed as before.
 * Without a finding the note is removed. Best effort: writes nothing else. */
void target_note_seen(const struct target *t);
/* Open a descriptor on t (O_DIRECT if direct, read-write if write, and
 * sync_flags: O_DSYNC or O_SYNC or 0, as ioping -y and -Y open reads too), or
 * RC_INPUT (replaced since inspected, or no O_DIRECT there) or RC_FAIL with
 * why; whether t may be written is target_may_write's to say, before this. */
int target_open(const struct target *t, int direct, int write, int sync_flags, char *why, size_t why_len);
/* Remove the file this run created, only if its name still names the
 * inode created (lstat: a link or another file put there is left alone).
 * 1 when it was removed. */
int target_unlink_created(const struct target *t);
void target_free(struct target *t);
/* Does the block device under t do polled I/O (queue/io_poll)? 1, 0, or -1
 * when it cannot be told; dev gets the device's name. */
int target_polls(const struct target *t, char *dev, size_t dev_len);

#endif

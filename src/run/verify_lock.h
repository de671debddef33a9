/* verify_lock.h - one verifying phase per target at a time, across
 * processes on one host.
 *
 * Two processes that write one target with crc32c each keep a generation
 * map and a target id of their own: wherever the other wrote last, a
 * verify reports healthy storage as foreign, lost or missing. So a phase
 * that writes or verifies with crc32c locks, from the end of its check
 * until its state is saved, with non-blocking OFD locks (fcntl
 * F_OFD_SETLK):
 *   - the whole of its state's lock file, DIR/file-MAJ-MIN-INO.iomoon-lock
 *     or DIR/blockdev-MAJ-MIN.iomoon-lock beside the state (which is
 *     replaced by rename, so cannot carry a lock): a write lock to write
 *     with verification, a read lock to verify only. The holder writes its
 *     pid into it (an OFD lock does not say whose it is). Two processes
 *     with one state directory: the second is refused, whatever regions.
 *   - the bytes of the target it writes (write lock) or verifies (read
 *     lock), through a descriptor of its own: processes with state
 *     directories of their own (ranks of a cluster on one host) are
 *     refused over overlapping regions, and run together on disjoint ones.
 * Advisory locks: the I/O is not touched. A refusal is RC_INPUT (exit 2,
 * nothing written), its message naming phase.verify, the target and the
 * rule. Locks are local: hosts each running their own iomoon against one
 * SAN LUN, outside MPI, cannot see each other (doc/cluster.md).
 */
#ifndef IOMOON_VERIFY_LOCK_H
#define IOMOON_VERIFY_LOCK_H

#include <stddef.h>

struct phase_spec;

/* Lock every target of sp that exists now, when sp verifies with crc32c:
 * its region, or this rank's slice of it (phase_region_of). A target this
 * process holds already is left as it is. field: "phase" or
 * "phase.streams[2]", which messages start with. RC_OK, RC_INPUT (another
 * process holds it: why says who and the rule), RC_FAIL. */
int vlock_phase(const struct phase_spec *sp, const char *field, char *why, size_t why_len);

/* Give back every lock this process holds (after the phase, or when it
 * is refused). */
void vlock_release(void);

#endif

/* cluster.h - many hosts: the same script on every rank under MPI.
 *
 * Launched by mpirun (Open MPI's environment says so), iomoon initialises
 * MPI and every rank runs the same script; iomoon.run is then collective.
 * Each collective point is an agreement (cluster_agree): every rank says
 * where it is (check, create, start, exit), whether it failed and why, and
 * the shape of the phase it is at; all ranks leave with the same answer,
 * so they all raise the same error or all go on. A phase's start is such
 * an agreement (a barrier), its run a series of small non-blocking rounds
 * that carry the stop flag and the intervals (cluster_phase.c), and its
 * end an exact reduction of everything counted. Only the thread that runs
 * Lua (and samples phases) calls MPI.
 *
 * Without mpirun nothing of this runs: rank 0 of 1, no MPI call made.
 * Built without MPI (no libopenmpi-dev), the same, and `iomoon list` says so.
 */
#ifndef IOMOON_CLUSTER_H
#define IOMOON_CLUSTER_H

#include <stddef.h>
#include <stdint.h>

#define CLUSTER_HOST_LEN 64
#define CLUSTER_MSG_LEN 512

/* Where a rank is when it agrees: the order of a phase's points. */
enum cluster_point {
	CLUSTER_CHECK = 1,   /* iomoon.run: the phase table checked */
	CLUSTER_CREATE = 2,  /* its targets created */
	CLUSTER_START = 3,   /* workers ready: the barrier before go */
	CLUSTER_EXIT = 4,    /* the script ended */
};

/* What ranks must have in common to run a phase together: differences
 * are an input error naming the first field that differs. */
#define CLUSTER_SHAPE 9
struct cluster_shape {
	int64_t v[CLUSTER_SHAPE];
};

/* The answer of an agreement, the same on every rank. */
struct cluster_answer {
	int failed_rank;     /* the lowest rank that failed; -1: none */
	int rc;              /* its rc.h code (RC_INPUT, RC_FAIL) */
	int diverged;        /* ranks are at different points */
	int exiting_rank;    /* a rank at CLUSTER_EXIT while others are not; -1: none */
	int exit_code;       /* its exit code */
	int shape_field;     /* the first shape value that differs; -1: none */
	char msg[CLUSTER_MSG_LEN]; /* the failing rank's message */
};

/* Initialise MPI when launched by mpirun (OMPI_COMM_WORLD_SIZE or
 * PMIX_RANK set); else nothing. 0, or -1 with why. Ranks but 0 send
 * their standard output to /dev/null and their standard error to memory
 * unless IOMOON_ALL_RANKS=1: what they have to say (an error, a failure)
 * reaches rank 0 through the agreements and the merged result; the last
 * message of a rank that ends its script early goes with the exit
 * agreement. */
int cluster_init(int *argc, char ***argv, char *why, size_t why_len);
/* The exit agreement (until every rank is at its exit), then MPI_Finalize. */
void cluster_finish(int rc);
int cluster_on(void);
unsigned cluster_rank(void);
unsigned cluster_ranks(void);
/* This host's name (gethostname). */
const char *cluster_host(void);
/* How iomoon was built: "mpi (Open MPI x.y.z)" or why not. */
const char *cluster_build(void);

/* Every rank at point p says whether it failed (rc != RC_OK, with why;
 * at CLUSTER_EXIT rc is the exit code, said to ranks not there yet)
 * and its shape (NULL: none at this point). Fills ans; returns 1 when
 * the ranks must not go on (some rank failed, ranks diverged or their
 * shapes differ), 0 when they go on together. Without a cluster: ans
 * says this rank's failure only. */
int cluster_agree(enum cluster_point p, int rc, const char *why, const struct cluster_shape *shape,
		  struct cluster_answer *ans);

/* Which ranks name the same thing: keys[0..n) are this rank's (distinct,
 * not 0); for each, *count gets how many ranks have it among theirs and
 * *index how many of those are below this rank. Every rank must call it
 * at the same point (collective: an MPI_Allreduce of the longest list,
 * one of whether all have the memory, an MPI_Allgather of the lists).
 * 0, or -1 when some rank has no memory (on every rank). Without a
 * cluster: each key is this rank's alone. */
int cluster_share(const uint64_t *keys, unsigned n, unsigned *count, unsigned *index);

/* A barrier of all ranks; returns the monotonic clock read as this rank
 * leaves it, and the realtime clock read just after (the spread of the
 * ranks' realtime readings is the skew of their starts). */
uint64_t cluster_barrier(int64_t *realtime_ns);

#endif

/* cluster.c - MPI set-up, ranks and hosts, agreements (cluster.h).
 *
 * An agreement is one MPI_Allreduce of a small vector under MPI_MAX (a
 * minimum travels as a maximum of negated values), then, when some rank
 * failed or is leaving, one MPI_Bcast of that rank's code and message:
 * two collectives whose shape is the same at every point, so ranks at
 * different points still meet, see that they differ, and say so.
 */
#include "cluster/cluster.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/rc.h"
#include "core/shown.h"
#include "run/phase.h"

#ifdef HAVE_MPI
#include <mpi.h>
#endif

static int on;
static unsigned rank, ranks = 1;
static char host[CLUSTER_HOST_LEN];
static int finished;

/* The answer of an agreement this rank makes alone: its own failure. */
static int local_answer(int rc, const char *why, struct cluster_answer *ans)
{
	memset(ans, 0, sizeof(*ans));
	ans->failed_rank = ans->exiting_rank = ans->shape_field = -1;
	if (rc == RC_OK)
		return 0;
	ans->failed_rank = 0;
	ans->rc = rc;
	snprintf(ans->msg, sizeof(ans->msg), "%s", why);
	return 1;
}

int cluster_on(void)
{
	return on;
}

unsigned cluster_rank(void)
{
	return rank;
}

unsigned cluster_ranks(void)
{
	return ranks;
}

const char *cluster_host(void)
{
	if (!host[0] && gethostname(host, sizeof(host) - 1))
		snprintf(host, sizeof(host), "localhost");
	return host;
}

/* Launched by mpirun? Open MPI's launcher (ORTE or PRRTE) sets these. */
static int launched(void)
{
	return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK");
}

#ifdef HAVE_MPI

static int err_kept; /* a rank but 0: its standard error kept in a memfd (last_said) */

/* The speaker's code and message, from the rank that says them. */
struct speech {
	int code;
	char msg[CLUSTER_MSG_LEN];
};

const char *cluster_build(void)
{
	static char s[MPI_MAX_LIBRARY_VERSION_STRING + 64];
	char v[MPI_MAX_LIBRARY_VERSION_STRING];
	int len = 0;

	MPI_Get_library_version(v, &len);
	v[strcspn(v, ",\n")] = 0;
	snprintf(s, sizeof(s), "mpi (%s): run under mpirun for many hosts", v);
	return s;
}

int cluster_init(int *argc, char ***argv, char *why, size_t why_len)
{
	int provided = 0, r = 0, n = 1;

	cluster_host();
	if (!launched())
		return 0;
	if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
		snprintf(why, why_len, "MPI_Init_thread failed under mpirun");
		return -1;
	}
	if (provided < MPI_THREAD_FUNNELED) {
		snprintf(why, why_len, "MPI gives no MPI_THREAD_FUNNELED support (got level %d)", provided);
		MPI_Finalize();
		return -1;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	rank = (unsigned)r;
	ranks = (unsigned)n;
	on = 1;
	if (rank) {
		const char *all = getenv("IOMOON_ALL_RANKS");
		int fd;

		if (!(all && !strcmp(all, "1")) && (fd = open("/dev/null", O_WRONLY | O_CLOEXEC)) >= 0) {
			int mem = memfd_create("iomoon-stderr", MFD_CLOEXEC);

			fflush(stdout);
			dup2(fd, 1);
			dup2(mem >= 0 ? mem : fd, 2);
			err_kept = mem >= 0;
			close(fd);
			if (mem >= 0)
				close(mem);
		}
	}
	return 0;
}

/* The last message this rank wrote to its kept standard error: its last
 * line that is not part of a stack traceback, shown on one line; or "". */
static void last_said(char *out, size_t len)
{
	char buf[2048];
	off_t end = err_kept ? lseek(2, 0, SEEK_END) : -1;
	ssize_t n = 0;
	char *line, *said = NULL;

	out[0] = 0;
	fflush(stderr);
	if (end > 0)
		n = pread(2, buf, sizeof(buf) - 1, end > (off_t)sizeof(buf) - 1 ? end - (off_t)sizeof(buf) + 1 : 0);
	if (n <= 0)
		return;
	buf[n] = 0;
	for (line = strtok(buf, "\r\n"); line; line = strtok(NULL, "\r\n"))
		if (line[0] != '\t' && strcmp(line, "stack traceback:"))
			said = line;
	if (said)
		shown(said, out, len);
}

/* Every rank at its exit: rank 0 says the lowest other rank that ends
 * with a failure, and its last message (its standard error is not seen). */
static void exit_report(int rc, const char *why)
{
	int64_t v = rc ? (int64_t)(ranks - rank) : 0, m = 0;
	struct speech s = { 0 };

	MPI_Allreduce(&v, &m, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
	if (!m || ranks - m == 0)
		return;
	if (ranks - m == rank) {
		s.code = rc;
		snprintf(s.msg, sizeof(s.msg), "%s", why);
	}
	MPI_Bcast(&s, (int)sizeof(s), MPI_BYTE, (int)(ranks - m), MPI_COMM_WORLD);
	if (!rank)
		fprintf(stderr, "iomoon: rank %u ended its script with exit status %d%s%s\n", (unsigned)(ranks - m),
			s.code, s.msg[0] ? ": " : "", s.msg);
}

/* Keep the kept standard error small over a run of days: past 64 KiB,
 * its last 4 KiB (last_said reads no more) move to its start. */
static void trim_err(void)
{
	char buf[4096];
	off_t end = err_kept ? lseek(2, 0, SEEK_END) : -1;
	ssize_t n;

	if (end <= 65536)
		return;
	fflush(stderr);
	n = pread(2, buf, sizeof(buf), end - (off_t)sizeof(buf));
	if (n > 0 && ftruncate(2, 0) == 0 && pwrite(2, buf, (size_t)n, 0) == n)
		lseek(2, n, SEEK_SET);
}

void cluster_finish(int rc)
{
	struct cluster_answer a;
	char why[CLUSTER_MSG_LEN / 2];

	if (!on || finished)
		return;
	finished = 1;
	fflush(stdout);
	if (rc)
		last_said(why, sizeof(why));
	else
		why[0] = 0;
	/* every rank leaves together: a rank still running phases meets this
	 * one's exit at its next agreement, fails there, and ends its script */
	while (cluster_agree(CLUSTER_EXIT, rc, why, NULL, &a) && a.diverged)
		;
	exit_report(rc, why);
	/* every rank is past its reports: a rank that exits now (non-zero)
	 * makes mpirun kill the others, so none may leave before */
	if (phase_interrupt)
		return; /* mpirun was signalled: it kills every rank a second after
			 * its SIGTERM, and MPI_Finalize would wait for that (Open MPI 4.1) */
	MPI_Finalize();
}

#define AGREE_FIXED 4
#define AGREE_LEN (AGREE_FIXED + 2 * CLUSTER_SHAPE)


int cluster_agree(enum cluster_point p, int rc, const char *why, const struct cluster_shape *shape,
		  struct cluster_answer *ans)
{
	int64_t v[AGREE_LEN] = { 0 }, m[AGREE_LEN];
	struct speech s = { 0 };
	int speaker;

	if (!on)
		return local_answer(rc, why, ans);
	memset(ans, 0, sizeof(*ans));
	ans->failed_rank = ans->exiting_rank = ans->shape_field = -1;
	if (p == CLUSTER_CHECK)
		trim_err(); /* once a phase */
	v[0] = p;
	v[1] = -(int64_t)p;
	v[2] = p != CLUSTER_EXIT && rc != RC_OK ? (int64_t)(ranks - rank) : 0;
	v[3] = p == CLUSTER_EXIT ? (int64_t)(ranks - rank) : 0;
	for (int i = 0; shape && i < CLUSTER_SHAPE; i++) {
		v[AGREE_FIXED + 2 * i] = shape->v[i];
		v[AGREE_FIXED + 2 * i + 1] = -shape->v[i];
	}
	MPI_Allreduce(v, m, AGREE_LEN, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
	ans->diverged = m[0] != -m[1];
	ans->failed_rank = m[2] ? (int)(ranks - m[2]) : -1;
	ans->exiting_rank = ans->diverged && m[3] ? (int)(ranks - m[3]) : -1;
	for (int i = 0; !ans->diverged && shape && i < CLUSTER_SHAPE; i++)
		if (m[AGREE_FIXED + 2 * i] != -m[AGREE_FIXED + 2 * i + 1]) {
			ans->shape_field = i;
			break;
		}
	speaker = ans->failed_rank >= 0 ? ans->failed_rank : ans->exiting_rank;
	if (speaker >= 0) {
		if ((unsigned)speaker == rank) {
			s.code = rc;
			if (p == CLUSTER_EXIT) /* what it last said, if anything */
				snprintf(s.msg, sizeof(s.msg), "%s", why ? why : "");
			else
				snprintf(s.msg, sizeof(s.msg), "%s (on rank %u of %u, host %s)", why ? why : "", rank,
					 ranks, cluster_host());
		}
		MPI_Bcast(&s, (int)sizeof(s), MPI_BYTE, speaker, MPI_COMM_WORLD);
		if (ans->failed_rank >= 0) {
			ans->rc = s.code;
			memcpy(ans->msg, s.msg, sizeof(ans->msg));
		} else {
			ans->exit_code = s.code;
			memcpy(ans->msg, s.msg, sizeof(ans->msg));
		}
	}
	return ans->failed_rank >= 0 || ans->diverged || ans->shape_field >= 0;
}

/* Each of this rank's keys: how many ranks hold it, how many below this. */
static void count_shares(const uint64_t *all, unsigned per, const uint64_t *keys, unsigned n, unsigned *count,
			 unsigned *index)
{
	for (unsigned i = 0; i < n; i++) {
		count[i] = index[i] = 0;
		for (unsigned r = 0; r < ranks; r++)
			for (unsigned j = 0; j < per; j++)
				if (all[(size_t)r * per + j] == keys[i]) {
					count[i]++;
					index[i] += r < rank;
					break;
				}
	}
}

int cluster_share(const uint64_t *keys, unsigned n, unsigned *count, unsigned *index)
{
	int64_t most = n, failed;
	uint64_t *mine, *all;

	if (!on) {
		for (unsigned i = 0; i < n; i++) {
			count[i] = 1;
			index[i] = 0;
		}
		return 0;
	}
	MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
	mine = calloc(most ? (size_t)most : 1, sizeof(*mine)); /* 0 pads a shorter list */
	all = calloc(most ? (size_t)most * ranks : 1, sizeof(*all));
	failed = !mine || !all;
	MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
	if (!failed) {
		memcpy(mine, keys, n * sizeof(*keys));
		MPI_Allgather(mine, (int)most, MPI_UINT64_T, all, (int)most, MPI_UINT64_T, MPI_COMM_WORLD);
		count_shares(all, (unsigned)most, keys, n, count, index);
	}
	free(mine);
	free(all);
	return failed ? -1 : 0;
}

uint64_t cluster_barrier(int64_t *realtime_ns)
{
	struct timespec ts;
	uint64_t t;

	if (on)
		MPI_Barrier(MPI_COMM_WORLD);
	t = clock_ns();
	clock_gettime(CLOCK_REALTIME, &ts);
	*realtime_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	return t;
}

#else /* !HAVE_MPI */

const char *cluster_build(void)
{
	return "off: built without MPI (install libopenmpi-dev and rebuild; make deps does)";
}

int cluster_init(int *argc, char ***argv, char *why, size_t why_len)
{
	(void)argc;
	(void)argv;
	cluster_host();
	if (launched()) {
		snprintf(why, why_len, "launched by mpirun, but this iomoon was built without MPI "
			 "(install libopenmpi-dev and rebuild; make deps does)");
		return -1;
	}
	return 0;
}

void cluster_finish(int rc)
{
	(void)rc;
	finished = 1;
}

int cluster_agree(enum cluster_point p, int rc, const char *why, const struct cluster_shape *shape,
		  struct cluster_answer *ans)
{
	(void)p;
	(void)shape;
	return local_answer(rc, why, ans);
}

int cluster_share(const uint64_t *keys, unsigned n, unsigned *count, unsigned *index)
{
	(void)keys;
	for (unsigned i = 0; i < n; i++) {
		count[i] = 1;
		index[i] = 0;
	}
	return 0;
}

uint64_t cluster_barrier(int64_t *realtime_ns)
{
	struct timespec ts;
	uint64_t t = clock_ns();

	clock_gettime(CLOCK_REALTIME, &ts);
	*realtime_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	return t;
}

#endif

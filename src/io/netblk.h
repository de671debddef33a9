/* netblk.h - block devices reached over the network: an iSCSI LUN
 * (engine_iscsi.c, libiscsi) or an NBD export (engine_nbd.c, libnbd); and
 * a file inside an NFS export (engine_nfs.c, libnfs), which follows the
 * rules of a local file instead (net_info.is_file).
 *
 * A target whose path is a URL (iscsi://..., nbd://..., nbd+unix://...,
 * nbds://...) is a network block device: target.c inspects it through its
 * engine's net_ops (one short connection: size, block size, whether it is
 * read-only, can trim, can flush), treats it as a block device for the
 * safety rules (writing needs allow_write; the first and last MiB, read
 * through the engine, are probed for signatures unless force), and never
 * opens it as a file. Each worker's engine makes its own connection in
 * init. Every network wait has a timeout: NET_CONNECT_TIMEOUT_NS to connect
 * and log in, NET_IO_TIMEOUT_NS for an I/O in flight with no reply; and
 * every one gives up within NET_STOP_POLL_NS of a stop signal (net_stopped),
 * a phase's I/Os as engine.h's `drops` says.
 *
 * A URL may hold a password (iscsi://user%password@host/...): the target's
 * path is the URL without it (net_redact), and only target.url, never
 * printed, has it. Schemes are matched in any case; target.url has its
 * scheme in lower case (net_url_normalize), as the libraries want it.
 */
#ifndef IOMOON_NETBLK_H
#define IOMOON_NETBLK_H

#include <stddef.h>
#include <stdint.h>

#define NET_CONNECT_TIMEOUT_NS 10000000000ull /* connect, negotiate, log in */
#define NET_IO_TIMEOUT_NS 30000000000ull      /* no completion for this long with I/O in flight */

/* How long a network wait blocks at most before it looks at net_stopped(). */
#define NET_STOP_POLL_NS 50000000ull

/* 1 once a stop signal arrived (SIGINT, SIGTERM, SIGHUP: phase_interrupt):
 * connecting, logging in and the short commands of inspect and read then
 * give up at once ("interrupted"). */
int net_stopped(void);

/* The I/O timeout in use: NET_IO_TIMEOUT_NS, or the seconds in the
 * environment's IOMOON_NET_IO_TIMEOUT (a slow link, a test). */
uint64_t net_io_timeout_ns(void);

/* What one short connection learns of a LUN or export. */
struct net_info {
	uint64_t size;     /* bytes */
	uint32_t block;    /* the unit of I/O: offsets and lengths are whole blocks */
	int read_only, can_trim, can_flush, can_fua;
	char model[64];    /* vendor and product, where the protocol says */
	/* a file in an export (nfs://): the safety rules of a local file. Does
	 * it exist; does its mark say iomoon created it (engine_nfs.c) */
	int is_file, exists, ours;
};

struct net_ops {
	const char *const *schemes; /* URL prefixes, NULL-ended: "nbd://", ... */
	/* Connect, learn *ni, disconnect. RC_OK; RC_INPUT with why for a URL
	 * that cannot be parsed; RC_FAIL with why for anything the network or
	 * the server said (refused, login failure, no such LUN or export,
	 * timeout). */
	int (*inspect)(const char *url, struct net_info *ni, char *why, size_t why_len);
	/* Read len bytes at off over a connection of its own. RC_OK or RC_FAIL. */
	int (*read)(const char *url, uint64_t off, void *buf, size_t len, char *why, size_t why_len);
	/* A file (is_file): create it if create (refused if it appeared since),
	 * marked as iomoon's; make it size bytes; fill what it did not hold
	 * before with fill.h's data of key (random), or leave it to the server
	 * (zero). RC_OK, RC_INPUT (it appeared, or the server refuses), RC_FAIL. */
	int (*prepare)(const char *url, int create, uint64_t size, int random, uint64_t key, char *why,
		       size_t why_len);
};

struct engine_ops;
struct target;
struct target_opts;

/* target_inspect of a LUN or an export (e: its engine, net_engine_for): one
 * short connection through the engine for its size, block size and what
 * it can do; t->path the URL without its password, t->url the URL to
 * connect to, its scheme in lower case. RC_OK, RC_INPUT or RC_FAIL with why. */
int net_target_inspect(struct target *t, const struct target_opts *o, const struct engine_ops *e, char *why,
		       size_t why_len);
/* The network engine whose scheme starts path (in any case), or NULL (a
 * local path). */
const struct engine_ops *net_engine_for(const char *path);
/* text without any URL's password into out (redact_copy, redact.h: the
 * one redaction of everything iomoon shows). */
void net_redact(const char *text, char *out, size_t len);
/* url with its scheme in lower case (libiscsi and libnbd know "iscsi://",
 * not "ISCSI://") into out; RC_INPUT when it does not fit. */
int net_url_normalize(const char *url, char *out, size_t len);
/* Does what a LUN or export holds in its first and last MiB carry a
 * filesystem, RAID or partition-table signature? (claims_signatures on a
 * sparse copy.) 1 with what, 0 none, RC_FAIL with what when the data
 * cannot be read. */
int net_signatures(const struct net_ops *net, const char *url, uint64_t size, char *what, size_t what_len);
/* A 64-bit identity of a network target, for state files (genmap.h):
 * FNV-1a of its URL without a password. */
uint64_t net_identity(const char *redacted);

#endif

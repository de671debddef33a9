/* nfs_file.h - a file inside an NFS export through libnfs: one mounted
 * connection (struct conn) and the calls waited for in place that
 * inspect, create, fill and read a file for target.c (netblk.h's
 * net_ops), which engine_nfs.c's workers share. Only with HAVE_LIBNFS.
 *
 * Sizes of one RPC: NFSv3 asks the server (FSINFO's rtmax and wtmax, 1 MiB
 * at most here); libnfs 4.0 asks nothing over NFSv4 and encodes a COMPOUND
 * in a 4 KiB buffer, so a WRITE carries NFS4_WRITE_MAX bytes at most and a
 * READ NFS4_READ_MAX (a 4 KiB write is two WRITEs there: doc/lua-api.md,
 * "NFS").
 *
 * Every wait has a timeout: mounting NET_CONNECT_TIMEOUT_NS, a call
 * net_io_timeout_ns(); a stop signal ends either at once. libnfs's
 * automatic reconnection is off: a connection the server closed fails.
 */
#ifndef IOMOON_NFS_FILE_H
#define IOMOON_NFS_FILE_H

#ifdef HAVE_LIBNFS
#include <stddef.h>
#include <stdint.h>
#include <sys/time.h>
/* libnfs.h needs struct timeval and uint64_t before it */
#include <nfsc/libnfs.h>

struct net_info;

#define NFS_URL_FORM "nfs://HOST[:PORT]/EXPORT/PATH?version=3|4&nfsport=N"
#define NFS4_WRITE_MAX 3584u        /* under libnfs 4.0's 4 KiB COMPOUND buffer, in whole sectors */
#define NFS4_READ_MAX (1u << 20)
#define NFS_RPC_MAX (1u << 20)      /* NFSv3: what the server offers, this at most */

/* A call of inspect, prepare or read, waited for in place. It lives in the
 * connection, so a callback that comes late (the context destroyed after a
 * timeout cancels it) still writes to memory that is there. */
struct call {
	int done, status;
	void *out;      /* where a reply's data is copied (stat, read), or NULL */
	size_t out_len;
	void *ptr;      /* what the reply points to (a file handle) */
	char err[256];
};

/* One mounted connection to one export. */
struct conn {
	struct nfs_context *n;
	struct nfs_url *u;   /* server, export (path) and file ("/NAME") */
	struct call c;
	char shown[512];     /* the URL without a password */
	uint32_t rmax, wmax; /* bytes of one READ, one WRITE */
};


/* libnfs's callback of a call: its status and data into the call (priv). */
void nfs_call_cb(int status, struct nfs_context *n, void *data, void *priv);
/* A fresh call on c (out: where its reply's data goes), for nfs_call_cb. */
struct call *nfs_call(struct conn *c, void *out, size_t out_len);
/* Wait until the socket is ready for what libnfs wants, or deadline,
 * NET_STOP_POLL_NS at most; then let libnfs read, write and time out.
 * 0, or -ENOTCONN for a connection that is gone. */
int nfs_drive(struct nfs_context *n, uint64_t deadline);
/* Wait for the call started on c until deadline: 0, the call's -errno,
 * -ETIMEDOUT, -EINTR (a stop signal) or -ENOTCONN. */
int nfs_wait(struct conn *c, uint64_t deadline);
/* What a failed call (r) was, as why: "URL: what: the server's words". */
void nfs_why(struct conn *c, const char *what, int r, char *why, size_t why_len);
/* Connect to url and mount its export: RC_OK, RC_INPUT (a URL libnfs
 * cannot parse), RC_FAIL (why). */
int nfs_conn_open(struct conn *c, const char *url, char *why, size_t why_len);
/* Destroy the context: what is in flight is cancelled, its callbacks see
 * an error. */
void nfs_conn_close(struct conn *c);
/* Open (or with O_CREAT create) path on c, waited for: 0 or -errno. */
int nfs_file_open(struct conn *c, const char *path, int flags, struct nfsfh **fh);
int nfs_file_close(struct conn *c, struct nfsfh *fh);
/* The mark ("iomoon-nfs-1 fileid=N"): a file at path saying iomoon made
 * the file or directory of fileid. matches: 1 or 0; write: 0 or -errno. */
int nfs_mark_matches(struct conn *c, const char *path, uint64_t fileid);
int nfs_mark_write(struct conn *c, const char *path, uint64_t fileid);

/* netblk.h's net_ops of a file in an export */
int nfs_file_inspect(const char *url, struct net_info *ni, char *why, size_t why_len);
int nfs_file_read(const char *url, uint64_t off, void *buf, size_t len, char *why, size_t why_len);
int nfs_file_prepare(const char *url, int create, uint64_t size, int random, uint64_t key, char *why,
		     size_t why_len);
#endif

#endif

/* netblk.c - what network block devices share (netblk.h). */
#include "io/netblk.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/rc.h"
#include "core/redact.h"
#include "core/stop.h"
#include "io/claims.h"
#include "io/engine.h"
#include "io/target.h"

const struct engine_ops *net_engine_for(const char *path)
{
	const struct engine_ops *const *e = engine_all();

	for (unsigned i = 0; path && e[i]; i++)
		for (unsigned k = 0; e[i]->net && e[i]->net->schemes[k]; k++)
			if (!strncasecmp(path, e[i]->net->schemes[k], strlen(e[i]->net->schemes[k])))
				return e[i]; /* a scheme is case-insensitive (RFC 3986, 3.1) */
	return NULL;
}

int net_url_normalize(const char *url, char *out, size_t len)
{
	size_t n = strcspn(url, ":");

	if (snprintf(out, len, "%s", url) >= (int)len)
		return RC_INPUT;
	for (size_t i = 0; i < n; i++)
		out[i] = (char)tolower((unsigned char)out[i]);
	return RC_OK;
}

void net_redact(const char *text, char *out, size_t len)
{
	redact_copy(text, out, len);
}

/* A file in an export (nfs://): the rules of a local file (target.c).
 * A missing one needs create and a size; growing one iomoon did not create
 * needs allow_write; t->exists stays 0 until target_materialize made it. */
static int net_file_inspect(struct target *t, const struct target_opts *o, const struct engine_ops *e,
			    const struct net_info *ni, char *why, size_t why_len)
{
	const char *W = o->what ? o->what : "target";

	t->kind = TARGET_FILE;
	t->net = e;
	t->sector = ni->block;
	t->mem_align = 4096;
	t->net_flushes = ni->can_flush;
	t->net_read_only = ni->read_only;
	t->id_dev = net_identity(t->path);
	t->id_ino = 1;
	t->exists = ni->exists;
	t->ours = ni->ours;
	if (!ni->exists) {
		if (!o->create) {
			snprintf(why, why_len, "%s.path: %s does not exist (set create=true and a size to make it)", W, t->path);
			return RC_INPUT;
		}
		if (!o->size) {
			snprintf(why, why_len, "%s.size: needed to create %s (e.g. size=\"1g\")", W, t->path);
			return RC_INPUT;
		}
		if (ni->read_only) {
			snprintf(why, why_len, "%s.path: cannot create %s: the server offers the export read-only", W, t->path);
			return RC_INPUT;
		}
		t->size = o->size;
		return RC_OK;
	}
	t->size = o->size ? o->size : ni->size;
	if (!t->size) {
		snprintf(why, why_len, "%s.size: %s is empty; give a size to extend it", W, t->path);
		return RC_INPUT;
	}
	if (t->size > ni->size && !t->ours && !o->allow_write) {
		snprintf(why, why_len, "%s.size: %s is %llu bytes and iomoon did not create it; making it %llu bytes "
			 "writes to it: give allow_write=true (--allow-write)", W, t->path, (unsigned long long)ni->size,
			 (unsigned long long)t->size);
		return RC_INPUT;
	}
	if (t->size > ni->size && ni->read_only) {
		snprintf(why, why_len, "%s.size: %s is %llu bytes, and the server offers it read-only: give a size of "
			 "at most that", W, t->path, (unsigned long long)ni->size);
		return RC_INPUT;
	}
	t->net_size = ni->size;
	return RC_OK;
}

int net_target_inspect(struct target *t, const struct target_opts *o, const struct engine_ops *e, char *why,
		       size_t why_len)
{
	const char *W = o->what ? o->what : "target";
	char url[4096], shown_url[1024], err[WHY_LEN];
	struct net_info ni;
	int rc;

	t->allow_write = o->allow_write;
	t->force = o->force;
	redact_keep(o->path); /* its password, however it is spelled, is never shown */
	net_redact(o->path, shown_url, sizeof(shown_url));
	if (net_url_normalize(o->path, url, sizeof(url)) != RC_OK) {
		snprintf(why, why_len, "%s.path: %.64s...: a URL longer than %zu bytes", W, shown_url, sizeof(url) - 1);
		return RC_INPUT;
	}
	net_redact(url, shown_url, sizeof(shown_url)); /* ISCSI://... is shown as iscsi://..., as it is used */
	t->path = strdup(shown_url);
	t->url = strdup(url);
	if (!t->path || !t->url) {
		snprintf(why, why_len, "out of memory");
		return RC_FAIL;
	}
	rc = e->net->inspect(url, &ni, err, sizeof(err));
	if (rc != RC_OK) {
		snprintf(why, why_len, "%s.path: %s", W, err);
		return rc;
	}
	if (ni.is_file)
		return net_file_inspect(t, o, e, &ni, why, why_len);
	if (o->size > ni.size) {
		snprintf(why, why_len, "%s.size: %llu bytes is larger than %s (%llu bytes)", W, (unsigned long long)o->size,
			 shown_url, (unsigned long long)ni.size);
		return RC_INPUT;
	}
	t->kind = TARGET_BLOCK; /* a LUN is a block device for every safety rule */
	t->net = e;
	t->exists = 1;
	t->size = o->size ? o->size : ni.size;
	t->sector = ni.block;
	t->mem_align = 4096;
	t->net_trims = ni.can_trim;
	t->net_flushes = ni.can_flush;
	t->net_fua = ni.can_fua;
	t->id_dev = net_identity(shown_url);
	t->id_ino = 1;
	if (ni.read_only && o->allow_write)
		t->allow_write = 0; /* target_may_write says why */
	t->net_read_only = ni.read_only;
	return RC_OK;
}

uint64_t net_io_timeout_ns(void)
{
	static uint64_t t;

	if (!__atomic_load_n(&t, __ATOMIC_RELAXED)) {
		const char *e = getenv("IOMOON_NET_IO_TIMEOUT");
		double s = e ? strtod(e, NULL) : 0;

		__atomic_store_n(&t, s > 0 && s < 1e6 ? (uint64_t)(s * 1e9) : NET_IO_TIMEOUT_NS, __ATOMIC_RELAXED);
	}
	return __atomic_load_n(&t, __ATOMIC_RELAXED);
}

int net_stopped(void)
{
	return phase_interrupt != 0;
}

uint64_t net_identity(const char *redacted)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (const unsigned char *p = (const unsigned char *)redacted; *p; p++)
		h = (h ^ *p) * 0x100000001b3ull;
	return h;
}

#define PROBE_BYTES (1u << 20)

/* Copy [off, off + len) of the device into fd at the same offset. */
static int copy_range(const struct net_ops *net, const char *url, int fd, uint64_t off, size_t len, char *buf,
		      char *what, size_t what_len)
{
	if (net->read(url, off, buf, len, what, what_len) != RC_OK)
		return RC_FAIL;
	if (pwrite(fd, buf, len, (off_t)off) != (ssize_t)len) {
		snprintf(what, what_len, "the signature probe's memory file: %s", strerror(errno));
		return RC_FAIL;
	}
	return RC_OK;
}

int net_signatures(const struct net_ops *net, const char *url, uint64_t size, char *what, size_t what_len)
{
	size_t head = size < PROBE_BYTES ? (size_t)size : PROBE_BYTES;
	char *buf = malloc(PROBE_BYTES);
	int fd = memfd_create("iomoon-probe", MFD_CLOEXEC), rc = RC_FAIL;

	if (!buf || fd < 0 || ftruncate(fd, (off_t)size) < 0) {
		snprintf(what, what_len, "no memory for the signature probe");
		goto out;
	}
	if (copy_range(net, url, fd, 0, head, buf, what, what_len) != RC_OK)
		goto out;
	if (size > PROBE_BYTES &&
	    copy_range(net, url, fd, size - PROBE_BYTES, PROBE_BYTES, buf, what, what_len) != RC_OK)
		goto out;
	rc = claims_signatures(fd, what, what_len);
out:
	free(buf);
	if (fd >= 0)
		close(fd);
	return rc;
}

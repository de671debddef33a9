/* netblk.c - what network block devices share (netblk.h). */
#include "netblk.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "claims.h"
#include "engine.h"
#include "phase.h"
#include "rc.h"

const struct engine_ops *net_engine_for(const char *path)
{
	const struct engine_ops *const *e = engine_all();

	for (unsigned i = 0; path && e[i]; i++)
		for (unsigned k = 0; e[i]->net && e[i]->net->schemes[k]; k++)
			if (!strncmp(path, e[i]->net->schemes[k], strlen(e[i]->net->schemes[k])))
				return e[i];
	return NULL;
}

void net_redact(const char *url, char *out, size_t len)
{
	const char *auth = strstr(url, "://"), *at, *slash, *cut;

	snprintf(out, len, "%s", url);
	if (!auth)
		return;
	auth += 3;
	slash = strchr(auth, '/');
	at = memchr(auth, '@', slash ? (size_t)(slash - auth) : strlen(auth));
	if (!at)
		return;
	/* user%password (libiscsi) or user:password (URI userinfo) */
	for (cut = auth; cut < at && *cut != '%' && *cut != ':'; cut++)
		;
	if (cut == at)
		return;
	snprintf(out, len, "%.*s%s", (int)(cut - url), url, at);
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

/* metrics_http.c - GET /metrics over HTTP, on libmicrohttpd (metrics.h).
 *
 * Debian's libmicrohttpd parses the requests: an HTTP parser is where a
 * hostile client attacks, and a well-kept library is a better place for
 * that work than one written here. Its one internal thread polls every
 * connection (no thread per client), so a slow or hostile client holds a
 * connection slot, never a worker nor the sampler: each answer is a copy
 * of the text the sampler last published, taken under the publishing
 * lock. A connection may hold CONN_MEMORY bytes (headers included; a
 * request body past it is refused, never buffered), and an idle one is
 * closed after IDLE_S seconds.
 *
 * Slots: a client that sends a header line now and then is never idle,
 * and the library refuses a connection past its limits, so a few such
 * clients on loopback would keep every scraper out (Prometheus on the
 * same host comes from 127.0.0.1 too). So the library's limits are wide
 * (CONN_LIMIT, PER_IP) and iomoon keeps its own: when a connection
 * arrives and KEEP are open, the oldest is shut down (its request not
 * begun being answered first), so the newest client, a scraper, is
 * always served; a request not whole within REQUEST_S seconds is shut
 * down at the next arrival as well.
 *
 * GET /metrics answers the OpenMetrics text, or Prometheus' 0.0.4 text
 * when the Accept header asks for text/plain and not for OpenMetrics;
 * any other path is 404, any other method 405.
 */
#include "run/metrics.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/rc.h"

#define CONN_MEMORY 16384
#define CONN_LIMIT 64
#define PER_IP 32
#define KEEP 16
#define IDLE_S 10
#define REQUEST_S 5

#define CT_OM "application/openmetrics-text; version=1.0.0; charset=utf-8"
#define CT_TEXT "text/plain; version=0.0.4; charset=utf-8"

static struct MHD_Daemon *daemon_;

/* The open connections, as the library's thread (the only one to touch
 * them) saw them arrive. */
static struct conn {
	struct MHD_Connection *c;
	int fd;
	int answered;  /* a request of it reached on_request */
	int shut;      /* shut down by iomoon: on its way out */
	double born_s;
} conns[CONN_LIMIT + 1];

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void shut(struct conn *k)
{
	if (k->fd >= 0)
		shutdown(k->fd, SHUT_RDWR); /* the library sees the end and closes it */
	k->shut = 1;
}

/* A connection arrived as k: shut down those whose request is not whole
 * after REQUEST_S, then the oldest while more than KEEP are open. */
static void make_room(struct conn *k)
{
	const double now = mono_s();
	unsigned open = 0;

	for (unsigned i = 0; i <= CONN_LIMIT; i++) {
		if (conns[i].c && &conns[i] != k && !conns[i].shut && !conns[i].answered &&
		    now - conns[i].born_s > REQUEST_S)
			shut(&conns[i]);
		open += conns[i].c && !conns[i].shut;
	}
	while (open > KEEP) {
		struct conn *old = NULL;

		for (unsigned i = 0; i <= CONN_LIMIT; i++) {
			struct conn *x = &conns[i];

			if (!x->c || x->shut || x == k)
				continue;
			if (!old || (old->answered && !x->answered) ||
			    (old->answered == x->answered && x->born_s < old->born_s))
				old = x;
		}
		if (!old)
			break;
		shut(old);
		open--;
	}
}

static void on_connection(void *cls, struct MHD_Connection *c, void **ctx, enum MHD_ConnectionNotificationCode toe)
{
	(void)cls;
	if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (*ctx)
			memset(*ctx, 0, sizeof(struct conn));
		*ctx = NULL;
		return;
	}
	for (unsigned i = 0; i <= CONN_LIMIT; i++) {
		if (conns[i].c)
			continue;
		const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);

		conns[i] = (struct conn){ .c = c, .fd = ci ? ci->connect_fd : -1, .born_s = mono_s() };
		*ctx = &conns[i];
		make_room(&conns[i]);
		return;
	}
}

/* Does the scraper want OpenMetrics? Yes unless it names text/plain and
 * not application/openmetrics-text (Prometheus names both, with the
 * OpenMetrics one first; curl names neither). */
static int wants_om(struct MHD_Connection *c)
{
	const char *a = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);

	if (!a || strstr(a, "application/openmetrics-text"))
		return 1;
	return !strstr(a, "text/plain");
}

static void copy_out(const char *text, size_t len, void *arg)
{
	*(struct MHD_Response **)arg =
		MHD_create_response_from_buffer(len, (void *)text, MHD_RESPMEM_MUST_COPY);
}

static enum MHD_Result answer(struct MHD_Connection *c, unsigned status, const char *type, const char *text)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

/* Every request is answered on its first call, before any body is read
 * (the library then closes a connection whose body is left unread). */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
				  const char *version, const char *upload_data, size_t *upload_data_size,
				  void **req_cls)
{
	struct MHD_Response *r = NULL;
	enum MHD_Result ret;
	int om;

	(void)cls, (void)version, (void)upload_data, (void)upload_data_size, (void)req_cls;
	if (strcmp(method, MHD_HTTP_METHOD_GET))
		return answer(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", "only GET /metrics is served\n");
	if (strcmp(url, "/metrics"))
		return answer(c, MHD_HTTP_NOT_FOUND, "text/plain", "not found: only /metrics is served\n");
	{
		const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

		if (ci && ci->socket_context)
			((struct conn *)ci->socket_context)->answered = 1;
	}
	om = wants_om(c);
	metrics_with_text(om, copy_out, &r);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, om ? CT_OM : CT_TEXT);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

/* ---- the listening socket ---- */

static int is_loopback(const struct sockaddr *a)
{
	if (a->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)a)->sin_addr.s_addr) >> 24) == 127;
	if (a->sa_family == AF_INET6) {
		const struct in6_addr *x = &((const struct sockaddr_in6 *)a)->sin6_addr;

		return IN6_IS_ADDR_LOOPBACK(x) || (IN6_IS_ADDR_V4MAPPED(x) && x->s6_addr[12] == 127);
	}
	return 0;
}

/* Split ADDR:PORT ([V6]:PORT; PORT alone or :PORT: 127.0.0.1; localhost:
 * 127.0.0.1) into host and port. */
static int split_listen(const char *spec, char *host, size_t hlen, char *port, size_t plen)
{
	const char *colon;

	if (spec[0] == '[') {
		const char *end = strchr(spec, ']');

		if (!end || end[1] != ':' || (size_t)(end - spec) >= hlen)
			return -1;
		snprintf(host, hlen, "%.*s", (int)(end - spec - 1), spec + 1);
		colon = end + 1;
	} else if ((colon = strrchr(spec, ':'))) {
		if ((size_t)(colon - spec) >= hlen || memchr(spec, ':', (size_t)(colon - spec)))
			return -1; /* a bare IPv6 address: give it in brackets */
		snprintf(host, hlen, "%.*s", (int)(colon - spec), spec);
	} else {
		host[0] = 0;
		colon = spec - 1;
	}
	if (!host[0] || !strcmp(host, "localhost"))
		snprintf(host, hlen, "127.0.0.1");
	snprintf(port, plen, "%s", colon + 1);
	if (!port[0] || strspn(port, "0123456789") != strlen(port) || strlen(port) > 5 || atoi(port) > 65535)
		return -1;
	return 0;
}

/* The listening socket for spec, bound; RC_INPUT with why. */
int metrics_http_bind(const char *spec, int public_ok, char *addr, size_t addr_len, char *why, size_t why_len)
{
	char host[64], port[16], name[NI_MAXHOST], serv[NI_MAXSERV];
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV };
	struct addrinfo *ai = NULL;
	struct sockaddr_storage got;
	socklen_t glen = sizeof(got);
	int fd, one = 1, e;

	if (split_listen(spec, host, sizeof(host), port, sizeof(port)) ||
	    getaddrinfo(host, port, &hints, &ai) || !ai) {
		snprintf(why, why_len, "listen: '%s' is not ADDR:PORT (say 127.0.0.1:9464, [::1]:9464 or :9464)", spec);
		if (ai)
			freeaddrinfo(ai);
		return RC_INPUT;
	}
	if (!public_ok && !is_loopback(ai->ai_addr)) {
		snprintf(why, why_len, "listen: %s is not a local address: the figures would be open to the network "
			 "(give --metrics-public, or public = true, to mean it)", spec);
		freeaddrinfo(ai);
		return RC_INPUT;
	}
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 16)) {
		e = errno;
		snprintf(why, why_len, "listen: %s: %s%s", spec, strerror(e),
			 e == EADDRINUSE    ? " (something listens there already: give another port)"
			 : e == EADDRNOTAVAIL ? " (not an address of this host)"
			 : e == EACCES      ? " (a port below 1024 needs privileges)"
					    : "");
		if (fd >= 0)
			close(fd);
		freeaddrinfo(ai);
		return RC_INPUT;
	}
	freeaddrinfo(ai);
	if (!getsockname(fd, (struct sockaddr *)&got, &glen) &&
	    !getnameinfo((struct sockaddr *)&got, glen, name, sizeof(name), serv, sizeof(serv),
			 NI_NUMERICHOST | NI_NUMERICSERV))
		snprintf(addr, addr_len, strchr(name, ':') ? "[%s]:%s" : "%s:%s", name, serv);
	return fd;
}

/* ---- the server ---- */

int metrics_http_start(int fd, char *why, size_t why_len)
{
	daemon_ = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL, 0, NULL, NULL, on_request, NULL,
				   MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONN_MEMORY,
				   MHD_OPTION_CONNECTION_LIMIT, (unsigned)CONN_LIMIT, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
				   (unsigned)PER_IP, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)IDLE_S,
				   MHD_OPTION_NOTIFY_CONNECTION, on_connection, NULL, MHD_OPTION_END);
	if (!daemon_) {
		snprintf(why, why_len, "the HTTP server (libmicrohttpd) did not start");
		return RC_FAIL;
	}
	return RC_OK;
}

void metrics_http_stop(void)
{
	if (daemon_)
		MHD_stop_daemon(daemon_);
	daemon_ = NULL;
}

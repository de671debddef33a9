/* metrics_http.c - GET /metrics over HTTP, on libmicrohttpd (metrics.h).
 *
 * Debian's libmicrohttpd parses the requests: an HTTP parser is where a
 * hostile client attacks, and a well-kept library is a better place for
 * that work than one written here. Its one internal thread polls every
 * connection (no thread per client), so a slow or hostile client holds a
 * connection slot, never a worker nor the sampler: each answer is a copy
 * of the text the sampler last published, taken under the publishing
 * lock. A connection may hold CONN_MEMORY bytes (headers included; a
 * request body past it is refused, never buffered), at most CONN_LIMIT
 * connections are open (PER_IP from one address), and an idle one is
 * closed after IDLE_S seconds.
 *
 * GET /metrics answers the OpenMetrics text, or Prometheus' 0.0.4 text
 * when the Accept header asks for text/plain and not for OpenMetrics;
 * any other path is 404, any other method 405.
 */
#include "run/metrics.h"

#include <microhttpd.h>
#include <stdio.h>
#include <string.h>

#include "core/rc.h"

#define CONN_MEMORY 16384
#define CONN_LIMIT 16
#define PER_IP 8
#define IDLE_S 10

#define CT_OM "application/openmetrics-text; version=1.0.0; charset=utf-8"
#define CT_TEXT "text/plain; version=0.0.4; charset=utf-8"

static struct MHD_Daemon *daemon_;

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

int metrics_http_start(int fd, char *why, size_t why_len)
{
	daemon_ = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL, 0, NULL, NULL, on_request, NULL,
				   MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONN_MEMORY,
				   MHD_OPTION_CONNECTION_LIMIT, (unsigned)CONN_LIMIT, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
				   (unsigned)PER_IP, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)IDLE_S, MHD_OPTION_END);
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

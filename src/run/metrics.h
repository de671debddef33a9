/* metrics.h - a run's live figures for whoever watches it: an OpenMetrics
 * (and Prometheus 0.0.4) exposition served over HTTP (metrics_http.c),
 * the same text written to a file after every interval (node_exporter's
 * textfile collector), and one JSON line per interval and stream.
 *
 * The phase's sampling thread (phase_metrics.c, from phase.c's ticks) is
 * the only writer: after each interval it updates the series of the
 * running phase, writes the JSON lines, renders both text forms and
 * publishes them (a pointer swap under a lock only this module holds);
 * the HTTP thread copies the published text. No worker's counter is read
 * here, and nothing is allocated per interval once the buffers have grown.
 *
 * Series are kept by (phase, stream): a phase run again under the same
 * name adds to its counters (they only grow within a run); at most
 * METRICS_MAX_SERIES are kept, the oldest finished ones dropped first.
 */
#ifndef IOMOON_METRICS_H
#define IOMOON_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "core/hist.h"
#include "core/op.h"

#define METRICS_MAX_SERIES 64
/* The latency histogram's upper bounds (le), in seconds, +Inf last. */
#define METRICS_NLE 24
extern const double metrics_le_s[METRICS_NLE - 1];

struct metrics_config {
	const char *listen; /* ADDR:PORT to serve /metrics on; NULL: no server */
	int public_ok;      /* a non-loopback listen address is allowed */
	const char *file;   /* the textfile, rewritten atomically; NULL: none */
	const char *live;   /* JSON lines: a path, "-" for standard output; NULL: none */
	const char *host;   /* the host label */
};

/* Start exporting: the listening socket bound (a port in use, an address
 * that is not local without public_ok: RC_INPUT), the textfile's folder
 * checked writable, the live file opened. Once per process (RC_INPUT the
 * second time). On failure nothing is left open or created. */
int metrics_start(const struct metrics_config *c, char *why, size_t why_len);
/* Is anything exported? */
int metrics_on(void);
/* The address served ("127.0.0.1:9464", the port the kernel chose for 0). */
const char *metrics_address(void);
/* Stop the server, close the live file (atexit does it too). */
void metrics_stop(void);

/* One workload of a phase (the phase, or one of its streams). */
struct metrics_unit {
	const char *phase, *stream; /* stream NULL: a phase without streams */
	const char *engine, *target;
	int merged;                 /* a cluster's merged figures (rank 0): labelled host="all" */
	int rank;                   /* in a cluster: the rank whose own figures these are (a rank label); -1: none */
	const char *host;           /* its host label; NULL: this process's */
	int remote;                 /* another rank's, from the merged intervals: I/Os and bytes only */
};

/* What a workload counted since its phase's measurement began, at the
 * end of an interval (or of the phase). */
struct metrics_sample {
	uint64_t ios[OP_NDATA], bytes[OP_NDATA], errors[OP_NDATA];
	const struct hist *lat[OP_NDATA]; /* its latency so far (bucket counts) */
	double t_s, len_s;     /* the interval's end (since measurement began) and length */
	uint64_t inflight_ns;  /* I/Os in flight x ns so far */
	double rate_iops;      /* its target rate now; < 0: closed loop */
	double progress;       /* the phase's share done, 0..1 */
	int64_t time_ns;       /* the wall clock at the interval's end (CLOCK_REALTIME) */
};

/* A phase starts: its workloads' series (made, or found by name); the
 * handle of each into ids. RC_FAIL when out of memory. */
int metrics_phase_begin(const struct metrics_unit *u, unsigned n, int *ids);
/* An interval of workload id ended: its series updated, its JSON line
 * written. iv: the interval's histogram (all ops). */
void metrics_update(int id, const struct metrics_sample *s, const struct hist *iv);
/* After the updates of an interval: render, publish, rewrite the file. */
void metrics_publish(void);
/* The phase ended (after its last update): its series stay, finished. */
void metrics_phase_end(const int *ids, unsigned n);

/* The exposition as published: OpenMetrics (om) or Prometheus 0.0.4
 * text; fn called with it under the publishing lock (HTTP thread). */
void metrics_with_text(int om, void (*fn)(const char *text, size_t len, void *arg), void *arg);

/* metrics_http.c: the listening socket for spec (ADDR:PORT), bound, its
 * address as bound in addr; RC_INPUT (negative) with why. Then the server
 * on it. */
int metrics_http_bind(const char *spec, int public_ok, char *addr, size_t addr_len, char *why, size_t why_len);
int metrics_http_start(int fd, char *why, size_t why_len);
void metrics_http_stop(void);

#endif

/* metrics.c - the series of a run's live figures, their exposition, the
 * textfile and the JSON lines (metrics.h); the HTTP side is
 * metrics_http.c.
 *
 * Only the phase's sampling thread calls in here, but for
 * metrics_with_text (the HTTP thread), which copies the published text
 * under pub_lock; the sampler holds that lock only to swap two pointers.
 * The text is rendered into buffers that are reused (double-buffered per
 * form), so a day of intervals allocates nothing once they are big enough.
 * Every name a series shows (phase, stream, host, engine, target) is
 * stored as the report shows it, a URL's password left out (redact.h), so
 * the labels, the textfile and the JSON lines never carry one.
 */
#include "run/metrics.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/rc.h"
#include "core/shown.h"

/* 1 us to 10 s, 1-2.5-5 a decade: the latency histogram's upper bounds. */
const double metrics_le_s[METRICS_NLE - 1] = {
	1e-6, 2.5e-6, 5e-6, 1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3,
	1e-2, 2.5e-2, 5e-2, 0.1,  0.25,   0.5,  1,    2.5,    5,    10,   30,
};
static const char *const le_text[METRICS_NLE] = {
	"0.000001", "0.0000025", "0.000005", "0.00001", "0.000025", "0.00005", "0.0001", "0.00025",
	"0.0005",   "0.001",     "0.0025",   "0.005",   "0.01",     "0.025",   "0.05",   "0.1",
	"0.25",     "0.5",       "1.0",      "2.5",     "5.0",      "10.0",    "30.0",   "+Inf",
};
static const char *const op_name[OP_NDATA] = { "read", "write", "trim" };

struct series {
	int used, running;
	uint64_t seq;             /* when it last began: the oldest finished goes first */
	char phase[128], stream[128], engine[32], target[256];
	int has_stream;
	int merged;               /* a cluster's merged figures (host "all"): no histogram until the end */
	int rank;                 /* a rank label; -1: none */
	int remote;               /* another rank's (I/Os and bytes only) */
	char host[128];           /* its host label; "": this process's */
	char labels[1600];        /* phase="..",stream="..",host=".." as rendered (a byte: 3 at most) */
	size_t labels_len;
	/* counted by earlier phases of the same name, and by this one */
	uint64_t base_ios[OP_NDATA], base_bytes[OP_NDATA], base_err[OP_NDATA], base_le[OP_NDATA][METRICS_NLE];
	double base_sum[OP_NDATA];
	uint64_t ios[OP_NDATA], bytes[OP_NDATA], err[OP_NDATA], le[OP_NDATA][METRICS_NLE];
	double sum[OP_NDATA];
	int has_q;
	double q_s[3];            /* p50, p99, p99.9 of the last interval */
	double inflight, rate_iops, progress;
	uint64_t last_ios, last_bytes, last_err, last_inflight_ns; /* at the last update: the interval's deltas */
};

struct buf {
	char *p;
	size_t len, cap;
	int failed;
};

static struct {
	int on;
	char addr[80];
	char host[128];
	char *file, *file_tmp;
	FILE *live;
	int live_is_stdout;
	double start_s;
	uint64_t seq;
	struct series s[METRICS_MAX_SERIES];
	uint8_t le_of[HIST_BUCKETS]; /* the le bucket each of iomoon's buckets counts in */
	struct buf work[2], pub[2];  /* [0] OpenMetrics, [1] 0.0.4 */
	pthread_mutex_t pub_lock;
	int warned_file, warned_live;
} m = { .pub_lock = PTHREAD_MUTEX_INITIALIZER };

/* ---- text ---- */

static void buf_add(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void buf_add(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->failed = 1;
			return;
		}
		if (b->p && b->len + (size_t)n < b->cap) {
			b->len += (size_t)n;
			return;
		}
		size_t ncap = b->cap ? b->cap * 2 : 16384;
		while (ncap <= b->len + (size_t)n)
			ncap *= 2;
		char *p = realloc(b->p, ncap);
		if (!p) {
			b->failed = 1;
			return;
		}
		b->p = p;
		b->cap = ncap;
	}
}

/* Append n bytes of s. */
static void buf_put(struct buf *b, const char *s, size_t n)
{
	if (b->len + n >= b->cap)
		buf_add(b, "%.*s", (int)n, s); /* grows it */
	else {
		memcpy(b->p + b->len, s, n);
		b->len += n;
		b->p[b->len] = 0;
	}
}

/* A label value as both text forms quote it: \\, \" and \n escaped, and a
 * byte that is not UTF-8 as U+FFFD (both forms are UTF-8: one label value
 * that is not would make the whole scrape unparsable). */
static void add_label(struct buf *b, const char *name, const char *v)
{
	const unsigned char *s = (const unsigned char *)v;

	buf_put(b, name, strlen(name));
	buf_put(b, "=\"", 2);
	while (*s) {
		const size_t n = shown_utf8_len(s);

		if (*s == '\\' || *s == '"' || *s == '\n')
			buf_put(b, *s == '\n' ? "\\n" : *s == '"' ? "\\\"" : "\\\\", 2);
		else if (n)
			buf_put(b, (const char *)s, n);
		else
			buf_put(b, "\xef\xbf\xbd", 3);
		s += n ? n : 1;
	}
	buf_put(b, "\"", 1);
}

/* A string in JSON: quotes, backslashes and control bytes escaped, a byte
 * that is not UTF-8 as U+FFFD, so a line always parses. */
static void json_str(FILE *f, const char *v)
{
	const unsigned char *s = (const unsigned char *)v;

	fputc('"', f);
	while (*s) {
		size_t n = shown_utf8_len(s);

		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if (*s < 0x20 || *s == 0x7f)
			fprintf(f, "\\u%04x", *s);
		else if (n)
			fwrite(s, 1, n, f);
		else
			fputs("\\ufffd", f);
		s += n ? n : 1;
	}
	fputc('"', f);
}

/* The labels of a series: phase, stream (when the phase has streams), host. */
static void make_labels(struct series *s)
{
	struct buf b = { 0 };

	add_label(&b, "phase", s->phase);
	if (s->has_stream) {
		buf_put(&b, ",", 1);
		add_label(&b, "stream", s->stream);
	}
	buf_put(&b, ",", 1);
	add_label(&b, "host", s->merged ? "all" : s->host[0] ? s->host : m.host);
	if (s->rank >= 0) {
		char r[16];

		snprintf(r, sizeof(r), "%d", s->rank);
		buf_put(&b, ",", 1);
		add_label(&b, "rank", r);
	}
	s->labels_len = !b.failed && b.len < sizeof(s->labels) ? b.len : 0;
	memcpy(s->labels, b.p ? b.p : "", s->labels_len);
	free(b.p);
}

static void add_labels(struct buf *b, const struct series *s)
{
	buf_put(b, s->labels, s->labels_len);
}

/* A family's header: TYPE (OpenMetrics names a counter without _total,
 * and knows info; 0.0.4 calls info a gauge) and HELP. */
static void family(struct buf *b, int om, const char *name, const char *type, const char *help)
{
	char fam[64];
	size_t n = strlen(name);

	snprintf(fam, sizeof(fam), "%s", name);
	if (om && !strcmp(type, "counter") && n > 6 && !strcmp(name + n - 6, "_total"))
		fam[n - 6] = 0;
	if (om && !strcmp(type, "info") && n > 5 && !strcmp(name + n - 5, "_info"))
		fam[n - 5] = 0;
	buf_add(b, "# TYPE %s %s\n# HELP %s %s\n", fam, !om && !strcmp(type, "info") ? "gauge" : type, fam, help);
}

/* Has the series its latency (histogram, sum)? Not another rank's, nor
 * the cluster's merged figures until the end. */
static int has_lat(const struct series *s)
{
	return !s->remote && !(s->merged && s->running);
}

/* Does the series show op? Reads and writes always, trims once it has some. */
static int shows_op(const struct series *s, int op)
{
	return op < OP_TRIM || s->base_ios[op] + s->ios[op] > 0;
}

static void counter(struct buf *b, int om, const char *name, const char *help, int which)
{
	family(b, om, name, "counter", help);
	for (unsigned i = 0; i < METRICS_MAX_SERIES; i++) {
		const struct series *s = &m.s[i];

		for (int op = 0; s->used && op < OP_NDATA; op++) {
			const uint64_t v = which == 0   ? s->base_ios[op] + s->ios[op]
					   : which == 1 ? s->base_bytes[op] + s->bytes[op]
							: s->base_err[op] + s->err[op];

			if (!shows_op(s, op) || (which == 2 && s->remote)) /* another rank's errors: in its result */
				continue;
			buf_add(b, "%s{", name);
			add_labels(b, s);
			buf_add(b, ",op=\"%s\"} %llu\n", op_name[op], (unsigned long long)v);
		}
	}
}

static void histogram(struct buf *b, int om)
{
	family(b, om, "iomoon_latency_seconds", "histogram",
	       "Latency of completed I/Os (from the intended start when paced), iomoon's histogram in fixed buckets.");
	for (unsigned i = 0; i < METRICS_MAX_SERIES; i++) {
		const struct series *s = &m.s[i];

		for (int op = 0; s->used && op < OP_NDATA; op++) {
			uint64_t acc = 0;

			if (!shows_op(s, op) || !has_lat(s)) /* merged: buckets of all ops only */
				continue;
			for (int k = 0; k < METRICS_NLE; k++) {
				acc += s->base_le[op][k] + s->le[op][k];
				buf_add(b, "iomoon_latency_seconds_bucket{");
				add_labels(b, s);
				buf_add(b, ",op=\"%s\",le=\"%s\"} %llu\n", op_name[op], le_text[k], (unsigned long long)acc);
			}
			buf_add(b, "iomoon_latency_seconds_count{");
			add_labels(b, s);
			buf_add(b, ",op=\"%s\"} %llu\n", op_name[op], (unsigned long long)acc);
			buf_add(b, "iomoon_latency_seconds_sum{");
			add_labels(b, s);
			buf_add(b, ",op=\"%s\"} %.9g\n", op_name[op], s->base_sum[op] + s->sum[op]);
		}
	}
}

/* A gauge per series; which: 0 quantiles, 1 in flight, 2 rate, 3 progress, 4 info. */
static void gauges(struct buf *b, int which)
{
	static const char *const qname[3] = { "0.5", "0.99", "0.999" };

	for (unsigned i = 0; i < METRICS_MAX_SERIES; i++) {
		const struct series *s = &m.s[i];

		if (!s->used)
			continue;
		for (int q = 0; which == 0 && s->has_q && q < 3; q++) {
			buf_add(b, "iomoon_latency_quantile_seconds{");
			add_labels(b, s);
			buf_add(b, ",quantile=\"%s\"} %.9g\n", qname[q], s->q_s[q]);
		}
		if (which == 0 && has_lat(s)) { /* merged: no sum until the end */
			uint64_t n = 0;
			double sum = 0;

			for (int op = 0; op < OP_NDATA; op++) {
				n += s->base_ios[op] + s->ios[op];
				sum += s->base_sum[op] + s->sum[op];
			}
			buf_add(b, "iomoon_latency_quantile_seconds_sum{");
			add_labels(b, s);
			buf_add(b, "} %.9g\n", sum);
			buf_add(b, "iomoon_latency_quantile_seconds_count{");
			add_labels(b, s);
			buf_add(b, "} %llu\n", (unsigned long long)n);
		}
		if ((which == 1 && !s->remote) || (which == 2 && s->rate_iops >= 0) || which == 3) {
			buf_add(b, "%s{", which == 1 ? "iomoon_inflight" : which == 2 ? "iomoon_rate_target_iops"
										: "iomoon_phase_progress_ratio");
			add_labels(b, s);
			buf_add(b, "} %.6g\n", which == 1 ? s->inflight : which == 2 ? s->rate_iops : s->progress);
		}
		if (which == 4) {
			buf_add(b, "iomoon_phase_info{");
			add_labels(b, s);
			buf_add(b, ",");
			add_label(b, "engine", s->engine);
			buf_add(b, ",");
			add_label(b, "target", s->target);
			buf_add(b, ",running=\"%s\"} 1\n", s->running ? "yes" : "no");
		}
	}
}

/* The whole exposition in one form. */
static void render(struct buf *b, int om)
{
	b->len = 0;
	b->failed = 0;
	family(b, om, "iomoon_run_start_time_seconds", "gauge", "When the run began (Unix time).");
	buf_add(b, "iomoon_run_start_time_seconds{");
	add_label(b, "host", m.host);
	buf_add(b, "} %.3f\n", m.start_s);
	counter(b, om, "iomoon_ios_total", "I/Os completed in the measured time.", 0);
	counter(b, om, "iomoon_bytes_total", "Bytes moved (trims: discarded) by completed I/Os.", 1);
	counter(b, om, "iomoon_errors_total", "Failed I/Os (and verification failures).", 2);
	histogram(b, om);
	family(b, om, "iomoon_latency_quantile_seconds", "summary",
	       "Latency quantiles of the last interval (all ops); _sum and _count of the whole phase.");
	gauges(b, 0);
	family(b, om, "iomoon_inflight", "gauge", "I/Os in flight, the mean over the last interval.");
	gauges(b, 1);
	family(b, om, "iomoon_rate_target_iops", "gauge", "The rate asked of a paced workload now.");
	gauges(b, 2);
	family(b, om, "iomoon_phase_info", "info", "A phase's workload: its engine and target.");
	gauges(b, 4);
	family(b, om, "iomoon_phase_progress_ratio", "gauge", "How much of the phase is done, 0 to 1.");
	gauges(b, 3);
	if (om)
		buf_add(b, "# EOF\n");
}

/* ---- the textfile ---- */

/* Write the 0.0.4 text beside the file and rename it over: a reader sees
 * the old text or the new, never part of one. No fsync: the reader needs
 * atomicity, not durability, and the sampler must not wait on a disk. */
static int write_file(const struct buf *b, char *why, size_t why_len)
{
	int fd = open(m.file_tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	size_t off = 0;

	if (fd < 0) {
		snprintf(why, why_len, "%s: %s", m.file_tmp, strerror(errno));
		return RC_FAIL;
	}
	while (off < b->len) {
		ssize_t n = write(fd, b->p + off, b->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(why, why_len, "%s: %s", m.file_tmp, n < 0 ? strerror(errno) : "short write");
			close(fd);
			unlink(m.file_tmp);
			return RC_FAIL;
		}
		off += (size_t)n;
	}
	if (close(fd) || rename(m.file_tmp, m.file)) {
		snprintf(why, why_len, "%s: %s", m.file, strerror(errno));
		unlink(m.file_tmp);
		return RC_FAIL;
	}
	return RC_OK;
}

void metrics_publish(void)
{
	char why[WHY_LEN];

	if (!m.on)
		return;
	for (int om = 0; om < 2; om++) {
		struct buf t;

		render(&m.work[om], om == 0);
		if (m.work[om].failed)
			continue;
		pthread_mutex_lock(&m.pub_lock);
		t = m.pub[om];
		m.pub[om] = m.work[om];
		m.work[om] = t;
		pthread_mutex_unlock(&m.pub_lock);
	}
	if (m.file && m.pub[1].p && write_file(&m.pub[1], why, sizeof(why)) != RC_OK && !m.warned_file++)
		fprintf(stderr, "iomoon: warning: --metrics-file: %s (tried again after each interval)\n", why);
	if (m.live) {
		fflush(m.live);
		if (ferror(m.live) && !m.warned_live++)
			fprintf(stderr, "iomoon: warning: --live: a write failed: %s\n", strerror(errno));
	}
}

void metrics_with_text(int om, void (*fn)(const char *text, size_t len, void *arg), void *arg)
{
	const struct buf *b;

	pthread_mutex_lock(&m.pub_lock);
	b = &m.pub[om ? 0 : 1];
	if (b->p)
		fn(b->p, b->len, arg);
	else
		fn(om ? "# EOF\n" : "", om ? 6 : 0, arg);
	pthread_mutex_unlock(&m.pub_lock);
}

/* ---- series ---- */

/* The series of unit u (its names as shown: a password left out, as in
 * the report), found or made; NULL when every slot holds a running one. */
static struct series *find_series(const struct metrics_unit *u)
{
	struct series *free_slot = NULL, *oldest = NULL;
	char phase[sizeof(free_slot->phase)], stream[sizeof(free_slot->stream)], host[sizeof(free_slot->host)];

	redact_copy(u->phase, phase, sizeof(phase));
	redact_copy(u->stream ? u->stream : "", stream, sizeof(stream));
	redact_copy(u->host ? u->host : "", host, sizeof(host));
	shown_canon(phase); /* names that read the same are one series: else two of one label set */
	shown_canon(stream);
	shown_canon(host);
	for (unsigned i = 0; i < METRICS_MAX_SERIES; i++) {
		struct series *s = &m.s[i];

		if (!s->used) {
			if (!free_slot)
				free_slot = s;
			continue;
		}
		if (!strcmp(s->phase, phase) && s->has_stream == (u->stream != NULL) && s->merged == u->merged &&
		    s->rank == u->rank && !strcmp(s->host, host) && !strcmp(s->stream, stream))
			return s;
		if (!s->running && (!oldest || s->seq < oldest->seq))
			oldest = s;
	}
	if (!free_slot && oldest)
		free_slot = oldest;
	if (free_slot) {
		memset(free_slot, 0, sizeof(*free_slot));
		memcpy(free_slot->phase, phase, sizeof(phase));
		memcpy(free_slot->stream, stream, sizeof(stream));
		memcpy(free_slot->host, host, sizeof(host));
		free_slot->has_stream = u->stream != NULL;
		free_slot->merged = u->merged;
		free_slot->rank = u->rank;
		free_slot->remote = u->remote;
	}
	return free_slot;
}

int metrics_phase_begin(const struct metrics_unit *u, unsigned n, int *ids)
{
	for (unsigned i = 0; i < n; i++) {
		struct series *s = m.on ? find_series(&u[i]) : NULL;

		ids[i] = s ? (int)(s - m.s) : -1;
		if (!s)
			continue;
		s->used = s->running = 1;
		s->seq = ++m.seq;
		make_labels(s);
		redact_copy(u[i].engine, s->engine, sizeof(s->engine));
		redact_copy(u[i].target, s->target, sizeof(s->target));
		for (int op = 0; op < OP_NDATA; op++) {
			s->ios[op] = s->bytes[op] = s->err[op] = 0;
			memset(s->le[op], 0, sizeof(s->le[op]));
			s->sum[op] = 0;
		}
		s->has_q = 0;
		s->inflight = s->progress = 0;
		s->rate_iops = -1;
		s->last_ios = s->last_bytes = s->last_err = s->last_inflight_ns = 0;
	}
	metrics_publish();
	return RC_OK;
}

/* The le buckets (not cumulative) and the sum (bucket midpoints) of h. */
static void fold_hist(const struct hist *h, uint64_t *le, double *sum_s)
{
	double sum = 0;

	memset(le, 0, METRICS_NLE * sizeof(*le));
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		if (!h->buckets[i])
			continue;
		le[m.le_of[i]] += h->buckets[i];
		sum += (double)h->buckets[i] * ((double)hist_bucket_low(i) + (double)(hist_bucket_width(i) - 1) / 2);
	}
	*sum_s = sum / 1e9;
}

/* One JSON line: the interval of series s just updated with sample x. */
static void live_line(const struct series *s, const struct metrics_sample *x, const struct hist *iv, uint64_t ios,
		      uint64_t bytes, uint64_t err)
{
	FILE *f = m.live;
	const double len = x->len_s > 0 ? x->len_s : 0;

	fprintf(f, "{\"time\":%.3f,\"phase\":", (double)x->time_ns / 1e9);
	json_str(f, s->phase);
	fputs(",\"stream\":", f);
	if (s->has_stream)
		json_str(f, s->stream);
	else
		fputs("null", f);
	fputs(",\"host\":", f);
	json_str(f, s->merged ? "all" : s->host[0] ? s->host : m.host);
	if (s->rank >= 0)
		fprintf(f, ",\"rank\":%d", s->rank);
	fprintf(f, ",\"t_s\":%.3f,\"interval_s\":%.3f,\"ios\":%llu,\"bytes\":%llu,\"iops\":%.1f,\"mb_per_s\":%.3f",
		x->t_s, len, (unsigned long long)ios, (unsigned long long)bytes, len > 0 ? (double)ios / len : 0,
		len > 0 ? (double)bytes / len / 1e6 : 0);
	if (s->remote) { /* another rank's: its latency, errors and in flight are in its result */
		fputs(",\"p50_ns\":null,\"p99_ns\":null,\"p999_ns\":null,\"errors\":null,\"inflight\":null}\n", f);
		return;
	}
	fprintf(f, ",\"p50_ns\":%llu,\"p99_ns\":%llu,\"p999_ns\":%llu,\"errors\":%llu,\"inflight\":%.4g}\n",
		(unsigned long long)hist_percentile(iv, 50), (unsigned long long)hist_percentile(iv, 99),
		(unsigned long long)hist_percentile(iv, 99.9), (unsigned long long)err, s->inflight);
}

void metrics_update(int id, const struct metrics_sample *x, const struct hist *iv)
{
	struct series *s;
	uint64_t ios = 0, bytes = 0, err = 0;

	if (!m.on || id < 0)
		return;
	s = &m.s[id];
	for (int op = 0; op < OP_NDATA; op++) {
		s->ios[op] = x->ios[op];
		s->bytes[op] = op < OP_TRIM ? x->bytes[op] : 0; /* trims move no data */
		s->err[op] = x->errors[op];
		if (x->lat[op])
			fold_hist(x->lat[op], s->le[op], &s->sum[op]);
		ios += s->ios[op];
		bytes += s->bytes[op];
		err += s->err[op];
	}
	s->has_q = iv->count > 0;
	s->q_s[0] = (double)hist_percentile(iv, 50) / 1e9;
	s->q_s[1] = (double)hist_percentile(iv, 99) / 1e9;
	s->q_s[2] = (double)hist_percentile(iv, 99.9) / 1e9;
	s->inflight = x->len_s > 0 && x->inflight_ns >= s->last_inflight_ns
			      ? (double)(x->inflight_ns - s->last_inflight_ns) / (x->len_s * 1e9)
			      : 0;
	s->rate_iops = x->rate_iops;
	s->progress = x->progress < 0 ? 0 : x->progress > 1 ? 1 : x->progress;
	if (m.live && (x->len_s > 0 || ios != s->last_ios))
		live_line(s, x, iv, ios - s->last_ios, bytes - s->last_bytes, err - s->last_err);
	s->last_ios = ios;
	s->last_bytes = bytes;
	s->last_err = err;
	s->last_inflight_ns = x->inflight_ns;
}

void metrics_phase_end(const int *ids, unsigned n)
{
	for (unsigned i = 0; m.on && i < n; i++) {
		struct series *s;

		if (ids[i] < 0)
			continue;
		s = &m.s[ids[i]];
		for (int op = 0; op < OP_NDATA; op++) {
			s->base_ios[op] += s->ios[op];
			s->base_bytes[op] += s->bytes[op];
			s->base_err[op] += s->err[op];
			for (int k = 0; k < METRICS_NLE; k++)
				s->base_le[op][k] += s->le[op][k];
			s->base_sum[op] += s->sum[op];
			s->ios[op] = s->bytes[op] = s->err[op] = 0;
			memset(s->le[op], 0, sizeof(s->le[op]));
			s->sum[op] = 0;
		}
		s->running = 0;
		s->inflight = 0;
		s->rate_iops = -1;
		s->progress = 1;
	}
	metrics_publish();
}

/* ---- start and stop ---- */

/* Can the textfile be written (its temporary file made beside it)? */
static int check_file(const char *path, char *why, size_t why_len)
{
	size_t n = strlen(path) + 16;
	struct stat st;
	int fd;

	if (!lstat(path, &st) && !S_ISREG(st.st_mode)) { /* renamed over, it would be replaced: /dev/stdout as root */
		snprintf(why, why_len, "file: %s is %s, not a regular file: the textfile is written beside it and renamed "
			 "over it (give the path of a file of its own)", path,
			 S_ISLNK(st.st_mode) ? "a symbolic link" : S_ISDIR(st.st_mode) ? "a directory" : "a special file");
		return RC_INPUT;
	}
	m.file = strdup(path);
	m.file_tmp = malloc(n);
	if (!m.file || !m.file_tmp) {
		snprintf(why, why_len, "out of memory");
		return RC_FAIL;
	}
	snprintf(m.file_tmp, n, "%s.iomoon-tmp", path);
	fd = open(m.file_tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(why, why_len, "file: %s cannot be written beside: %s", path, strerror(errno));
		return RC_INPUT;
	}
	close(fd);
	unlink(m.file_tmp);
	return RC_OK;
}

/* The live file at path, made or emptied: a regular file, never through a
 * symbolic link (one planted in a shared directory would have iomoon, as
 * root, empty what it names), nor a FIFO that would wait for a reader. */
static FILE *open_live(const char *path, char *why, size_t why_len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
	struct stat st;
	FILE *f;

	if (fd < 0) {
		snprintf(why, why_len, "live: %s: %s%s", path, strerror(errno),
			 errno == ELOOP ? " (a symbolic link: give the path of the file itself)"
			 : errno == ENXIO ? " (a FIFO no one reads: give a regular file)" : "");
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(why, why_len, "live: %s is not a regular file (give a file, or \"-\" for standard output)", path);
		close(fd);
		return NULL;
	}
	if (ftruncate(fd, 0) || fcntl(fd, F_SETFL, 0) || !(f = fdopen(fd, "w"))) {
		snprintf(why, why_len, "live: %s: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	return f;
}

static void free_config(void)
{
	free(m.file);
	free(m.file_tmp);
	m.file = m.file_tmp = NULL;
}

int metrics_start(const struct metrics_config *c, char *why, size_t why_len)
{
	struct timespec ts;
	int fd = -1, rc;

	if (m.on) {
		snprintf(why, why_len, "already exporting (once per run)");
		return RC_INPUT;
	}
	if (c->listen && (fd = metrics_http_bind(c->listen, c->public_ok, m.addr, sizeof(m.addr), why, why_len)) < 0)
		return fd;
	if (c->file && (rc = check_file(c->file, why, why_len)) != RC_OK)
		goto fail;
	if (c->live && !strcmp(c->live, "-")) {
		m.live = stdout;
		m.live_is_stdout = 1;
	} else if (c->live && !(m.live = open_live(c->live, why, why_len))) {
		rc = RC_INPUT;
		goto fail;
	}
	if (fd >= 0 && (rc = metrics_http_start(fd, why, why_len)) != RC_OK) {
		if (m.live && !m.live_is_stdout) {
			fclose(m.live);
			unlink(c->live);
		}
		m.live = NULL;
		goto fail;
	}
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		const double mid_s = ((double)hist_bucket_low(i) + (double)(hist_bucket_width(i) - 1) / 2) / 1e9;
		unsigned k = 0;

		while (k < METRICS_NLE - 1 && mid_s > metrics_le_s[k])
			k++;
		m.le_of[i] = (uint8_t)k;
	}
	redact_copy(c->host ? c->host : "localhost", m.host, sizeof(m.host));
	clock_gettime(CLOCK_REALTIME, &ts);
	m.start_s = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	m.on = 1;
	metrics_publish();
	return RC_OK;
fail:
	if (fd >= 0)
		close(fd);
	m.live = NULL;
	m.live_is_stdout = 0;
	free_config();
	m.addr[0] = 0;
	return rc;
}

int metrics_on(void)
{
	return m.on;
}

const char *metrics_address(void)
{
	return m.addr;
}

void metrics_stop(void)
{
	if (!m.on)
		return;
	metrics_http_stop();
	if (m.live) {
		fflush(m.live);
		if (!m.live_is_stdout)
			fclose(m.live);
	}
	m.live = NULL;
	free_config();
	for (int i = 0; i < 2; i++) {
		free(m.work[i].p);
		free(m.pub[i].p);
		m.work[i] = m.pub[i] = (struct buf){ 0 };
	}
	m.on = 0;
}

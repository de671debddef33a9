/* data.c - the data of data.h: pattern regions built once, a window and
 * stamps per write, an LZ4 sample now and then. */
#include "run/data.h"

#include <lz4.h>
#include <zlib.h>
#include <zstd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/crc32c.h"
#include "core/rc.h"
#include "core/rng.h"
#include "run/phase.h"

/* The distinct content a worker's regions hold by default, and the most. */
#define DATA_REGION_MIN (1u << 20)
#define DATA_REGION_MAX (16u << 20)
/* A slot's region is twice its buffer (a window to move in) while the
 * worker's regions stay under this. */
#define DATA_REGION_TWICE (64u << 20)
#define DATA_STAMP_AREA 32u
#define DATA_DUP_TAG 0x44555045494f4d4full /* "IOMOEPUD" */

int data_reduces(const struct phase_spec *sp)
{
	return sp->compress > 1.0 || sp->dedupe > 1.0;
}

static uint32_t chunk_of(uint32_t unit)
{
	return unit < 4096 ? unit : 4096;
}

double data_max_compress(uint32_t unit)
{
	double m = (double)chunk_of(unit) / (DATA_STAMP_AREA + 16);

	return m < DATA_MAX_COMPRESS ? m : DATA_MAX_COMPRESS;
}

static uint64_t round_up(uint64_t x, uint64_t to)
{
	return (x + to - 1) / to * to;
}

/* The step a window moves by: a unit, and never below 4 KiB (O_DIRECT's
 * memory alignment). */
static uint64_t step_of(uint32_t unit)
{
	return unit > 4096 ? unit : 4096;
}

static uint64_t sets_per_worker(const struct phase_spec *sp)
{
	return sp->dedupe_sets ? (sp->dedupe_sets + sp->workers - 1) / sp->workers : 0;
}

size_t data_slot_len(const struct phase_spec *sp, size_t buf_len)
{
	const uint64_t step = step_of(sp->dedupe_unit);
	uint64_t want = sets_per_worker(sp) * sp->dedupe_unit, per;

	if (!data_reduces(sp))
		return buf_len;
	want = want < DATA_REGION_MIN ? DATA_REGION_MIN : want > DATA_REGION_MAX ? DATA_REGION_MAX : want;
	per = round_up(want / sp->qd, step);
	if (per < buf_len)
		per = buf_len;
	if (per < 2 * buf_len && (uint64_t)sp->qd * 2 * buf_len <= DATA_REGION_TWICE)
		per = 2 * buf_len;
	return (size_t)round_up(per, step);
}

/* One chunk of a base: the stamp area and `lit` random bytes, then
 * repeats of those lit bytes (never of the stamp area, which writes
 * change) to the end. */
static void fill_chunk(unsigned char *p, uint32_t len, uint32_t lit, struct rng *r)
{
	uint32_t head = DATA_STAMP_AREA + lit < len ? DATA_STAMP_AREA + lit : len;

	for (uint32_t i = 0; i < head; i += 8) {
		uint64_t v = rng_next(r);

		memcpy(p + i, &v, head - i < 8 ? head - i : 8);
	}
	for (uint32_t i = head; i < len; i++)
		p[i] = p[i - lit];
}

/* Base b's content, the same wherever it is placed. */
static void fill_base(const struct data_gen *g, unsigned char *p, uint32_t b, uint32_t lit, uint64_t seed)
{
	for (uint32_t o = 0; o < g->unit; o += g->chunk) {
		struct rng r;

		rng_seed(&r, seed ^ 0x6461746162617365ull, ((uint64_t)g->worker << 40) | ((uint64_t)b << 8) | (o / g->chunk));
		fill_chunk(p + o, g->chunk, lit, &r);
	}
}

static int init_reduce(struct data_gen *g, const struct phase_spec *sp, char *why, size_t why_len)
{
	const uint32_t per_slot = (uint32_t)(g->slot_len / g->unit);
	const uint64_t positions = (uint64_t)per_slot * sp->qd, sets = sets_per_worker(sp);
	double lit = (double)g->chunk / (sp->compress > 1.0 ? sp->compress : 1.0) - DATA_STAMP_AREA;

	g->slot_units = per_slot;
	g->nbases = (uint32_t)(sets && sets < positions ? sets : positions);
	g->dedupe = sp->dedupe > 1.0 ? sp->dedupe : 1.0;
	g->dup_tag = DATA_DUP_TAG ^ sp->seed;
	g->checks = g->dedupe > 1.0 && sp->verify == VERIFY_NONE;
	g->shift = calloc(sp->qd, sizeof(*g->shift));
	g->touched = calloc(g->nbases / 8 + 1, 1);
	g->set_crc = calloc(g->nbases, sizeof(*g->set_crc));
	if (!g->shift || !g->touched || !g->set_crc) {
		snprintf(why, why_len, "out of memory for the dedupe sets of worker %u", g->worker);
		return RC_FAIL;
	}
	if (lit < 16)
		lit = 16;
	for (uint64_t q = 0; q < positions; q++)
		fill_base(g, (unsigned char *)g->bufs + q / per_slot * g->slot_len + q % per_slot * g->unit,
			  (uint32_t)(q % g->nbases), (uint32_t)(lit + 0.5), sp->seed);
	return RC_OK;
}

int data_init(struct data_gen *g, const struct phase_spec *sp, unsigned worker, char *bufs, size_t slot_len,
	      char *why, size_t why_len)
{
	memset(g, 0, sizeof(*g));
	g->worker = (uint16_t)worker;
	g->bufs = bufs;
	g->slot_len = slot_len;
	g->unit = sp->dedupe_unit ? sp->dedupe_unit : 4096;
	if (!data_reduces(sp) && sp->pattern != PATTERN_REPEAT && sp->pattern != PATTERN_REUSE)
		g->unit = 4096; /* what worker.c's stamps make unique */
	g->chunk = chunk_of(g->unit);
	g->seq = (uint64_t)worker << 48;
	g->sample_left = 1; /* the first unit written */
	g->mode = data_reduces(sp) ? DATA_REDUCE : sp->pattern == PATTERN_REPEAT ? DATA_REPEAT
					   : sp->pattern == PATTERN_REUSE ? DATA_REUSE : DATA_PLAIN;
	g->plain_unique = sp->pattern != PATTERN_ZERO;
	g->scratch_len = LZ4_compressBound((int)g->unit);
	g->scratch2_len = ZSTD_compressBound(g->unit) > compressBound(g->unit) ? ZSTD_compressBound(g->unit)
									       : compressBound(g->unit);
	g->scratch = malloc((size_t)g->scratch_len);
	g->scratch2 = malloc(g->scratch2_len);
	if (!g->scratch || !g->scratch2) {
		snprintf(why, why_len, "out of memory for the data sample of worker %u", worker);
		return RC_FAIL;
	}
	if (g->mode == DATA_REUSE) { /* every slot the same random bytes, every worker's alike */
		struct rng r;

		rng_seed(&r, sp->seed, 999);
		for (size_t j = 0; j < slot_len / 8; j++)
			((uint64_t *)bufs)[j] = rng_next(&r);
		for (unsigned j = 1; j < sp->qd; j++)
			memcpy(bufs + j * slot_len, bufs, slot_len);
	}
	return g->mode == DATA_REDUCE ? init_reduce(g, sp, why, why_len) : RC_OK;
}

void data_free(struct data_gen *g)
{
	free(g->shift);
	free(g->touched);
	free(g->set_crc);
	free(g->scratch);
	free(g->scratch2);
	memset(g, 0, sizeof(*g));
}

static inline void put_stamp(unsigned char *p, uint64_t a, uint64_t b)
{
	uint64_t v[2] = { a, b };

	memcpy(p, v, sizeof(v));
}

/* Is unit n+1 (n written, d distinct) to be a new one? Distinct units
 * stay at 1 / dedupe of those written. */
static inline int wants_unique(const struct data_gen *g, const struct data_counts *c)
{
	return (double)c->distinct * g->dedupe < (double)(c->units + 1);
}

static void fill_reduce(struct data_gen *g, struct io_slot *s, struct data_counts *c)
{
	const uint32_t len = s->op.len, U = g->unit, j = s->index;
	const uint64_t step = step_of(U);
	uint64_t at = g->shift[j];
	unsigned char *region = (unsigned char *)g->bufs + (size_t)j * g->slot_len, *p;
	const uint64_t seq = g->seq++;

	if (at + len > g->slot_len)
		at = 0;
	g->shift[j] = (uint32_t)(at + round_up(len, step));
	s->buf = p = region + at;
	for (uint32_t o = 0; o < len; o += U) {
		const uint64_t q = (uint64_t)j * g->slot_units + (at + o) / U;
		const uint32_t b = (uint32_t)(q < g->nbases ? q : q % g->nbases);
		const int whole = o + U <= len;

		if (whole && g->dedupe > 1.0 && !wants_unique(g, c)) {
			for (uint32_t k = 0; k < U; k += g->chunk)
				put_stamp(p + o + k, g->dup_tag, (1ull << 63) | ((uint64_t)g->worker << 48) |
									 ((uint64_t)b << 8) | (k / g->chunk));
			if (!(g->touched[b / 8] & (1u << (b % 8)))) {
				g->touched[b / 8] |= (uint8_t)(1u << (b % 8));
				c->distinct++;
			}
		} else {
			for (uint32_t k = 0; k < U && o + k + 16 <= len; k += g->chunk)
				put_stamp(p + o + k, s->op.offset + o + k, seq);
			c->distinct++;
		}
		c->units++;
	}
}

void data_fill(struct data_gen *g, struct io_slot *s, struct data_counts *c)
{
	const uint64_t n = s->op.len >= g->unit ? s->op.len / g->unit : 1;
	unsigned v;

	switch (g->mode) {
	case DATA_REDUCE:
		fill_reduce(g, s, c);
		return;
	case DATA_REPEAT:
		v = (unsigned)(g->seq++ & 0xff);
		memset(s->buf, (int)v, s->op.len);
		c->values[v / 64] |= 1ull << (v % 64);
		c->units += n;
		return;
	case DATA_REUSE:
		c->units += n;
		if (n > c->distinct_max)
			c->distinct_max = n; /* the buffer's first n units, the same for every write */
		return;
	case DATA_PLAIN:
		return;
	}
}

/* The dedupe set of the unit at p: the base of its place in its region. */
static uint32_t set_of(const struct data_gen *g, const struct io_slot *s, const unsigned char *p)
{
	const size_t at = (size_t)(p - (const unsigned char *)g->bufs);
	const uint64_t q = (uint64_t)s->index * g->slot_units + at % g->slot_len / g->unit;

	return (uint32_t)(q % g->nbases);
}

/* A sampled unit's crc32c against its set's: a duplicate's must be its
 * set's, a unique unit's must not. */
static void check_unit(struct data_gen *g, const struct io_slot *s, const unsigned char *p, struct data_counts *c)
{
	uint64_t w1;
	uint32_t b = set_of(g, s, p), crc = crc32c(0, p, g->unit) | 1; /* 0 is "none yet" */
	int dup;

	memcpy(&w1, p + 8, sizeof(w1));
	dup = (int)(w1 >> 63);
	if (!g->set_crc[b]) {
		if (dup)
			g->set_crc[b] = crc;
		return;
	}
	c->checked++;
	if ((g->set_crc[b] == crc) != dup)
		c->check_failed++;
}

/* zstd (level 3, ZFS's default) and zlib (level 6, gzip's) on one sample
 * in DATA_OTHERS_EVERY: their figures beside LZ4's. */
static void sample_others(struct data_gen *g, const unsigned char *p, uint32_t len, struct data_counts *c)
{
	size_t z = ZSTD_compress(g->scratch2, g->scratch2_len, p, len, 3);
	uLongf zl = (uLongf)g->scratch2_len;

	c->other_bytes += len;
	c->zstd_bytes += ZSTD_isError(z) ? len : z;
	c->zlib_bytes += compress2((Bytef *)g->scratch2, &zl, p, len, 6) == Z_OK ? zl : len;
}

int data_sample(struct data_gen *g, const struct io_slot *s, struct data_counts *c)
{
	const uint32_t units = s->op.len >= g->unit ? s->op.len / g->unit : 1;
	const uint32_t i = g->sample_at++ % units, len = s->op.len < g->unit ? s->op.len : g->unit;
	const unsigned char *p = (const unsigned char *)s->buf + (size_t)i * g->unit;
	int z;

	g->sample_left += DATA_SAMPLE_EVERY;
	z = LZ4_compress_default((const char *)p, g->scratch, (int)len, g->scratch_len);
	c->sampled++;
	c->sampled_bytes += len;
	c->compressed_bytes += z > 0 ? (uint64_t)z : len;
	if (c->sampled % DATA_OTHERS_EVERY == 1)
		sample_others(g, p, len, c);
	if (g->checks && len == g->unit)
		check_unit(g, s, p, c);
	return 1;
}

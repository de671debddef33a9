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
#include "core/clock.h"
#include "core/rng.h"
#include "run/phase.h"
#include "verify/verify.h"

/* The distinct content a worker's regions hold by default, and the most. */
#define DATA_REGION_MIN (1u << 20)
#define DATA_REGION_MAX (16u << 20)
/* and the most it grows to for a dedupe ratio a smaller one cannot hold */
#define DATA_REGION_LIMIT (64u << 20)
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

static uint64_t step_of(uint32_t unit)
{
	return data_step(unit);
}

/* The dedupe sets of a worker: its share of dedupe_sets, or by default one
 * for every DATA_SETS_DEFAULT duplicate places of its regions. */
#define DATA_SETS_DEFAULT 64u

static uint64_t sets_asked(const struct phase_spec *sp)
{
	return sp->dedupe_sets ? (sp->dedupe_sets + sp->workers - 1) / sp->workers : 0;
}

/* The places a region of `places` units holds unique at `dedupe`
 * (place_unique: where floor(q / dedupe) moves on). */
static uint64_t uniques_of(uint64_t places, double dedupe)
{
	return places ? (uint64_t)((double)(places - 1) / dedupe) + 1 : 0;
}

/* Does a worker's region of `places` units carry the asked ratio, within
 * 1 %? (Over a phase its writes go round the region: the ratio is places
 * over unique places, the sets aside.) */
static int ratio_holds(uint64_t places, double dedupe)
{
	return dedupe <= 1.0 || (double)places >= 0.99 * dedupe * (double)uniques_of(places, dedupe);
}

/* The bytes of each slot's region: by default DATA_REGION_MIN a worker
 * (more for many dedupe_sets, up to DATA_REGION_MAX), at least a write,
 * and grown, up to DATA_REGION_LIMIT, until the region holds the ratio. */
static uint64_t region_per_slot(const struct phase_spec *sp, size_t io_len)
{
	const uint64_t step = step_of(sp->dedupe_unit), unit = sp->dedupe_unit;
	uint64_t want = sets_asked(sp) * sp->dedupe_unit * DATA_SETS_DEFAULT, per;

	want = want < DATA_REGION_MIN ? DATA_REGION_MIN : want > DATA_REGION_MAX ? DATA_REGION_MAX : want;
	per = round_up(want / sp->qd, step);
	if (per < io_len)
		per = round_up(io_len, step); /* the buffers hold the distinct content already: no more memory to go through */
	while (!ratio_holds(per / unit * sp->qd, sp->dedupe) && (per + step) * sp->qd <= DATA_REGION_LIMIT)
		per += step;
	return per;
}

/* A write's slot: its read area (io_len bytes) then its region. */
size_t data_slot_len(const struct phase_spec *sp, size_t io_len)
{
	if (sp->pattern == PATTERN_REUSE && !data_reduces(sp))
		return 2 * io_len;
	if (!data_reduces(sp))
		return io_len;
	return io_len + (size_t)region_per_slot(sp, io_len);
}

int data_dedupe_room(const struct phase_spec *sp, size_t io_len, double *ratio, uint64_t *sets)
{
	const uint64_t places = region_per_slot(sp, io_len) / sp->dedupe_unit * sp->qd;
	const uint64_t u = uniques_of(places, sp->dedupe);

	*ratio = (double)places / (double)u;
	*sets = (places - u) * sp->workers;
	return ratio_holds(places, sp->dedupe) && sets_asked(sp) <= places - u;
}

/* DATA_FRESH: the default random data without verification. */
static int data_fresh(const struct phase_spec *sp)
{
	return sp->pattern == PATTERN_RANDOM && !data_reduces(sp) && sp->verify == VERIFY_NONE;
}

/* DATA_FRESH's bands: a band's bytes, and how many. With nbands bands a
 * write finds a free window unless nbands other windows lie on its place:
 * QD 32 of 4 KiB random writes over 4 bands leaves one write in some 10^5
 * to its slot's buffer. At most DATA_BANDS_MAX bytes a worker. */
#define DATA_BANDS_MAX (64u << 20)

static uint32_t band_len_of(size_t io_len)
{
	return (uint32_t)round_up(DATA_BAND + io_len, 4096);
}

static uint32_t nbands_of(const struct phase_spec *sp, size_t io_len)
{
	uint64_t n = 4 + ((uint64_t)sp->qd * io_len + DATA_BAND - 1) / DATA_BAND, most = DATA_BANDS_MAX / band_len_of(io_len);

	if (n > sp->qd)
		n = sp->qd;
	if (n > most)
		n = most;
	return n ? (uint32_t)n : 1;
}

size_t data_shared_len(const struct phase_spec *sp, size_t io_len)
{
	return data_fresh(sp) ? (size_t)nbands_of(sp, io_len) * band_len_of(io_len) : 0;
}

/* The bands' random bytes and the windows' bookkeeping; the key is the
 * seed and the time, so no two phases or runs write the same bytes. */
static int init_fresh(struct data_gen *g, const struct phase_spec *sp, uint32_t align, char *why, size_t why_len)
{
	struct rng r;
	const uint64_t t = (uint64_t)clock_realtime_ns();

	g->band_len = band_len_of(g->io_len);
	g->nbands = nbands_of(sp, g->io_len);
	g->pos_mask = (DATA_BAND - 1) & ~((align > 512 ? align : 512) - 1);
	g->key = data_mix(sp->seed ^ data_mix(t + g->worker));
	g->busy = calloc((size_t)g->nbands * (g->band_len >> 12), 1);
	g->win = malloc(sp->qd * sizeof(*g->win));
	g->win_n = calloc(sp->qd, sizeof(*g->win_n));
	if (!g->busy || !g->win || !g->win_n) {
		snprintf(why, why_len, "out of memory for the data windows of worker %u", g->worker);
		return RC_FAIL;
	}
	memset(g->win, 0xff, sp->qd * sizeof(*g->win));
	rng_seed(&r, g->key, 0x62616e6473ull); /* "bands" */
	for (size_t j = 0; j < (size_t)g->nbands * g->band_len / 8; j++)
		((uint64_t *)g->bands)[j] = rng_next(&r);
	return RC_OK;
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

/* The tag in a duplicate's stamps: set, chunk, worker and a top bit no
 * unique stamp has (those hold the worker in bits 48-55 and a count). */
static uint64_t dup_tag(const struct data_gen *g, uint32_t set, uint32_t chunk)
{
	return (1ull << 63) | ((uint64_t)g->worker << 48) | ((uint64_t)set << 8) | chunk;
}

/* The content of place q: a unique base of its own, or its set's, with
 * the set's stamps (they stay: writes stamp unique places only). */
static void fill_place(const struct data_gen *g, unsigned char *p, uint64_t q, int unique, uint32_t set,
		       uint32_t lit, uint64_t seed)
{
	const uint64_t id = unique ? q : (1ull << 39) | set;

	for (uint32_t o = 0; o < g->unit; o += g->chunk) {
		struct rng r;

		rng_seed(&r, seed ^ 0x6461746162617365ull, ((uint64_t)g->worker << 48) | (id << 8) | (o / g->chunk));
		fill_chunk(p + o, g->chunk, lit, &r);
		if (!unique)
			data_put_stamp(p + o, g->dup_tag, dup_tag(g, set, o / g->chunk));
	}
}

/* Place q is unique when floor(q / dedupe) moves on there: 1 / dedupe of
 * any run of places, evenly spread. */
static int place_unique(uint64_t q, double dedupe)
{
	return dedupe <= 1.0 || q == 0 || (uint64_t)((double)q / dedupe) != (uint64_t)((double)(q - 1) / dedupe);
}

static int init_reduce(struct data_gen *g, const struct phase_spec *sp, char *why, size_t why_len)
{
	const uint32_t per_slot = (uint32_t)((g->stride - g->io_len) / g->unit);
	const uint64_t places = (uint64_t)per_slot * sp->qd;
	const double ded = sp->dedupe > 1.0 ? sp->dedupe : 1.0;
	double lit = (double)g->chunk / (sp->compress > 1.0 ? sp->compress : 1.0) - DATA_STAMP_AREA;
	/* Places a step apart come first: with a unit under the step (4 KiB)
	 * a write shorter than the step reaches only the first places of
	 * each step, and those must hold 1 / dedupe unique too. */
	const uint64_t k = data_step(g->unit) / g->unit, row = places / k;
	uint64_t dups = 0, d = 0;

	g->slot_units = per_slot;
	g->nslots = sp->qd;
	g->dup_tag = DATA_DUP_TAG ^ sp->seed;
	g->checks = sp->dedupe > 1.0 && sp->verify == VERIFY_NONE;
	for (uint64_t q = 0; q < places; q++)
		dups += !place_unique(q, ded);
	g->nsets = (uint32_t)(sets_asked(sp) ? sets_asked(sp) : dups / DATA_SETS_DEFAULT ? dups / DATA_SETS_DEFAULT : 1);
	g->unique = calloc(places / 64 + 2, sizeof(*g->unique));
	g->place_set = calloc(places, sizeof(*g->place_set));
	g->reached = calloc(places / 64 + 2, sizeof(*g->reached));
	g->shift = calloc(sp->qd, sizeof(*g->shift));
	g->set_crc = calloc(g->nsets, sizeof(*g->set_crc));
	if (!g->unique || !g->place_set || !g->reached || !g->shift || !g->set_crc) {
		snprintf(why, why_len, "out of memory for the dedupe sets of worker %u", g->worker);
		return RC_FAIL;
	}
	if (sp->verify == VERIFY_CRC && sp->verify_unit) { /* what verification writes beside the stamp */
		const uint32_t vu = sp->verify_unit < g->chunk ? sp->verify_unit : g->chunk;

		lit -= (double)(g->chunk / vu - 1) * VERIFY_HDR + (double)(g->chunk / vu) * (vu / 512 - 1) * 16;
		if (vu > 512) /* and each sector's own crc32c (verify.h) */
			lit -= (double)(g->chunk / vu) * (vu / 512) * 4;
	}
	g->sector_stamps = sp->verify != VERIFY_CRC && g->unit > 512;
	g->key = data_mix(sp->seed ^ data_mix((uint64_t)clock_realtime_ns() + g->worker));
	if (g->sector_stamps) /* the 8 bytes each other sector's stamp takes */
		lit -= (double)(g->chunk / 512 - 1) * 14; /* and a match it breaks */
	if (lit < 16)
		lit = 16;
	for (uint64_t rank = 0; rank < places; rank++) {
		const uint64_t q = rank % row * k + rank / row;
		const int u = place_unique(rank, ded);
		const uint32_t set = u ? 0 : (uint32_t)(d++ % g->nsets);

		if (u)
			g->unique[q / 64] |= 1ull << (q % 64);
		g->place_set[q] = set;
		fill_place(g, (unsigned char *)g->bufs + q / per_slot * g->stride + g->io_len + q % per_slot * g->unit, q, u,
			   set, (uint32_t)(lit + 0.5), sp->seed);
	}
	return RC_OK;
}

int data_init(struct data_gen *g, const struct phase_spec *sp, unsigned worker, char *bufs, size_t stride,
	      size_t io_len, char *shared, uint32_t align, char *why, size_t why_len)
{
	memset(g, 0, sizeof(*g));
	g->worker = (uint16_t)worker;
	g->bufs = bufs;
	g->stride = stride;
	g->io_len = io_len;
	g->unit = sp->dedupe_unit ? sp->dedupe_unit : 4096;
	if (!data_reduces(sp) && sp->pattern != PATTERN_REPEAT && sp->pattern != PATTERN_REUSE)
		g->unit = 4096; /* what worker.c's stamps make unique */
	g->chunk = chunk_of(g->unit);
	g->unit_shift = (uint32_t)__builtin_ctz(g->unit);
	g->seq = (uint64_t)worker << 48;
	g->sample_left = 1; /* the first unit written */
	g->mode = data_reduces(sp) ? DATA_REDUCE : sp->pattern == PATTERN_REPEAT ? DATA_REPEAT
					   : sp->pattern == PATTERN_REUSE ? DATA_REUSE : data_fresh(sp) ? DATA_FRESH : DATA_PLAIN;
	g->plain_unique = sp->pattern != PATTERN_ZERO;
	g->scratch_len = LZ4_compressBound((int)g->unit);
	g->scratch2_len = ZSTD_compressBound(g->unit) > compressBound(g->unit) ? ZSTD_compressBound(g->unit)
									       : compressBound(g->unit);
	g->scratch = malloc((size_t)g->scratch_len);
	g->scratch2 = malloc(g->scratch2_len);
	if (!g->scratch || !g->scratch2 || data_record_init(g)) {
		snprintf(why, why_len, "out of memory for the data sample of worker %u", worker);
		return RC_FAIL;
	}
	if (g->mode == DATA_REUSE) { /* every slot's region the same random bytes, every worker's alike */
		struct rng r;

		rng_seed(&r, sp->seed, 999);
		for (size_t j = 0; j < io_len / 8; j++)
			((uint64_t *)(bufs + io_len))[j] = rng_next(&r);
		for (unsigned j = 1; j < sp->qd; j++)
			memcpy(bufs + j * stride + io_len, bufs + io_len, io_len);
	}
	g->bands = shared;
	if (g->mode == DATA_FRESH)
		return init_fresh(g, sp, align, why, why_len);
	return g->mode == DATA_REDUCE ? init_reduce(g, sp, why, why_len) : RC_OK;
}

void data_free(struct data_gen *g)
{
	free(g->shift);
	free(g->unique);
	free(g->place_set);
	free(g->reached);
	free(g->set_crc);
	free(g->scratch);
	free(g->scratch2);
	data_record_free(g);
	free(g->busy);
	free(g->win);
	free(g->win_n);
	memset(g, 0, sizeof(*g));
}

void data_finish(struct data_gen *g, struct data_counts *c)
{
	const uint64_t places = (uint64_t)g->slot_units * g->nslots;
	uint8_t *touched;

	data_record_finish(g, c);
	if (g->mode != DATA_REDUCE || !g->reached || !(touched = calloc(g->nsets / 8 + 1, 1)))
		return;
	for (uint64_t q = 0; q < places; q++) { /* the duplicate places some write reached */
		const uint32_t set = g->place_set[q];

		if ((g->reached[q / 64] & ~g->unique[q / 64]) >> (q % 64) & 1 && !(touched[set / 8] & (1u << (set % 8)))) {
			touched[set / 8] |= (uint8_t)(1u << (set % 8));
			c->distinct++;
		}
	}
	free(touched);
}

void data_fill(struct data_gen *g, struct io_slot *s, struct data_counts *c)
{
	const uint64_t n = s->op.len >> g->unit_shift ? s->op.len >> g->unit_shift : 1;
	unsigned v;

	switch (g->mode) {
	case DATA_REDUCE:
		data_fill_reduce(g, s, c);
		return;
	case DATA_REPEAT:
		v = (unsigned)(g->seq++ & 0xff);
		memset(s->buf, (int)v, s->op.len);
		c->values[v / 64] |= 1ull << (v % 64);
		c->units += n;
		return;
	case DATA_REUSE:
		s->buf = g->bufs + (size_t)s->index * g->stride + g->io_len;
		c->units += n;
		if (n > c->distinct_max)
			c->distinct_max = n; /* the buffer's first n units, the same for every write */
		return;
	case DATA_FRESH:
		data_fill_fresh(g, s);
		data_count_plain(g, s->op.len, c);
		return;
	case DATA_PLAIN:
		return;
	}
}

/* A sampled duplicate's crc32c against its set's (from the first sample
 * of the set): they must match. */
static void check_unit(struct data_gen *g, const unsigned char *p, struct data_counts *c)
{
	uint64_t w1;
	uint32_t set, crc;

	memcpy(&w1, p + 8, sizeof(w1));
	if (!(w1 >> 63))
		return; /* unique */
	set = (uint32_t)((w1 >> 8) & 0xffffffffffull);
	if (set >= g->nsets)
		return;
	crc = crc32c(0, p, g->unit) | 1; /* 0 is "none yet" */
	if (!g->set_crc[set]) {
		g->set_crc[set] = crc;
		return;
	}
	c->checked++;
	c->check_failed += g->set_crc[set] != crc;
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

int data_sample(struct data_gen *g, const struct io_slot *s, struct data_counts *c, uint64_t now)
{
	const uint32_t units = s->op.len >= g->unit ? s->op.len / g->unit : 1;
	const uint32_t i = g->sample_at++ % units, len = s->op.len < g->unit ? s->op.len : g->unit;
	const unsigned char *p = (const unsigned char *)s->buf + (size_t)i * g->unit;
	int z;

	g->sample_left = DATA_SAMPLE_EVERY; /* from here: a sample the gap held back is not owed */
	g->next_sample_ns = now + DATA_SAMPLE_GAP_NS;
	z = LZ4_compress_default((const char *)p, g->scratch, (int)len, g->scratch_len);
	c->sampled++;
	c->sampled_bytes += len;
	c->compressed_bytes += z > 0 ? (uint64_t)z : len;
	if (c->sampled % DATA_OTHERS_EVERY == 1)
		sample_others(g, p, len, c);
	if (g->checks && len == g->unit)
		check_unit(g, p, c);
	return 1;
}

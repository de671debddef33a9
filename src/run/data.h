/* data.h - what a phase's writes carry: compressible and deduplicable data,
 * IOMeter's repeating bytes and reused buffer, and the measure of it.
 *
 * Everything is built before the start barrier. With compress or dedupe
 * (data_reduces) each slot has a read area (reads must not overwrite the
 * data) and a region of "places", one per dedupe unit, each prepared once:
 * every chunk of it (the unit, or 4 KiB of it) is a 32-byte stamp area,
 * then L random bytes, then repeats of those L bytes to its end, L + 32
 * being the chunk's size over the ratio. No byte of the filler is zero:
 * only a compressor that finds repeats (LZ4, zstd, zlib) gets the ratio; a
 * zero-suppressing array gets nothing for free. A place is unique or a
 * duplicate, 1 / dedupe of them unique, evenly spread (over the first
 * places of every 4 KiB, then the second...: a write shorter than 4 KiB
 * reaches only the first ones); a duplicate place
 * holds its dedupe set's content and stamps (the same bytes wherever that
 * set is placed). Per write the slot's window moves on by the write's
 * units (no copy: the I/O is handed the region at its new place) and each
 * unique place in it gets a 16-byte stamp per chunk, its offset and the
 * write's sequence; duplicates are written as they are. Over the phase,
 * distinct units = unique units written + the sets of the duplicate places
 * written (a bitmap of the places reached; by default one
 * set per DATA_SETS_DEFAULT duplicate places: a few per worker).
 *
 * Measure: every DATA_SAMPLE_EVERY-th unit written (the first included),
 * but none within DATA_SAMPLE_GAP_NS of the last, is compressed with LZ4
 * (one in DATA_OTHERS_EVERY of those with zstd and zlib too) and, for a
 * duplicate, its crc32c held to its set's first sample. The distinct count
 * is by construction. CPU: at 1 GB/s of 4 KiB units about 1900 samples a
 * second, 1.3 us each in LZ4 (0.25 % of a core), zstd (26 us) and zlib
 * (100 us) on one in 64 (0.4 %); never more than 2000 samples a second,
 * however fast the engine (doc/performance.md). Memory is flat: bitmaps and a crc per set, allocated here,
 * nothing per I/O. Records of several writes, as a compressing filesystem
 * sees them: data_record.c (worker 0's first MiB, compressed after the
 * loop).
 */
#ifndef IOMOON_DATA_H
#define IOMOON_DATA_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/stats.h"
#include "io/engine.h"

struct phase_spec;

#define DATA_SAMPLE_EVERY 128u
/* and at most one sample in this time per worker (a null engine writes
 * a hundred GB/s: a count alone would not bound the CPU) */
#define DATA_SAMPLE_GAP_NS 500000u
/* zstd and zlib see one LZ4 sample in this many (zlib is slow). */
#define DATA_OTHERS_EVERY 64u
/* The largest ratio compress takes; also bounded by the unit (data_max_compress). */
#define DATA_MAX_COMPRESS 16.0
#define DATA_MAX_DEDUPE 1000.0

/* Records (data_record.c): the first DATA_RECORD bytes of a worker's
 * writes end to end, and their first DATA_RECORD_SMALL, compressed whole
 * after the loop. */
#define DATA_RECORD (1u << 20)
#define DATA_RECORD_SMALL (128u << 10)
#define DATA_RECORD_WORKERS 1u

enum data_mode {
	DATA_PLAIN,  /* random, zero, offset: worker.c fills and stamps as it always did */
	DATA_REDUCE, /* compress and/or dedupe */
	DATA_REPEAT, /* IOMeter's repeating bytes: one byte value per write */
	DATA_REUSE,  /* IOMeter's pseudo random: one random buffer for every write */
	DATA_FRESH,  /* random without verification (the default): a window chosen by offset, each sector stamped */
};

/* DATA_FRESH. A worker's random bytes lie in bands of DATA_BAND bytes
 * (and a write's length past it, so no window wraps). A write at offset
 * o is handed the window at o mod DATA_BAND in the first band where no
 * other slot's window lies (else its slot's own buffer): within any
 * aligned record of up to DATA_BAND bytes on disk, whoever wrote it and
 * in whatever order, no two blocks share bytes, so a compressor of the
 * record finds nothing. The first 8 bytes of every 512 are the write's
 * key plus the sector's place in memory times GAMMA: two sectors at one
 * place differ (another write, another key), two at different places
 * differ in their random bytes. No copy, no pass over the data: one
 * store per sector. */
#define DATA_BAND (1u << 20)
#define DATA_FRESH_GAMMA 0x9e3779b97f4a7c15ull

struct data_gen {
	enum data_mode mode;
	uint32_t unit, chunk;   /* the dedupe unit, and the chunk each of whose repeats is the ratio */
	uint32_t unit_shift;    /* log2 of unit */
	uint32_t slot_units;    /* units in each slot's region */
	uint32_t nslots, nsets; /* the worker's slots, its dedupe sets */
	size_t stride, io_len;  /* a slot's bytes: its read area (io_len) then its region */
	char *bufs;             /* the worker's slots, one after another */
	uint32_t *shift;        /* per slot: where its window is in its region, in bytes */
	uint64_t *reached;      /* per place: some write carried it (a bit each) */
	uint64_t *unique;       /* per place: unique (a bit each), else a duplicate of place_set[] */
	uint32_t *place_set;
	uint32_t *set_crc;      /* per set: the crc32c of a sampled unit of it (0: none yet) */
	uint64_t seq, dup_tag;
	uint16_t worker;
	int64_t sample_left;    /* units until the next sample */
	uint64_t next_sample_ns; /* and not before (DATA_SAMPLE_GAP_NS after the last) */
	uint32_t sample_at;     /* which unit of the write the next sample takes */
	char *scratch;          /* LZ4's output */
	int scratch_len;
	char *scratch2;         /* zstd's and zlib's */
	size_t scratch2_len;
	int checks;             /* dedupe: crc check the samples */
	int plain_unique;       /* DATA_PLAIN: every unit new (random, offset), else all alike (zero) */
	/* DATA_FRESH */
	char *bands;            /* nbands of band_len bytes (after the slots, in the same allocation) */
	uint32_t nbands, band_len, pos_mask;
	uint8_t *busy;          /* per band, per 4 KiB of it: some slot's window holds it */
	uint32_t *win;          /* per slot: its window, band * blocks a band + first block, or UINT32_MAX */
	uint32_t *win_n;        /* and its 4 KiB blocks */
	uint64_t key;           /* the phase's per-worker key (its start time and the seed, mixed) */
	int sector_stamps;      /* DATA_REDUCE: stamp every sector of a unique unit (not under verification) */
	/* records (data_record.c) */
	char *rec, *rec_out;    /* the record being filled, and the compressors' output */
	size_t rec_out_len;
	uint32_t rec_fill;
	int rec_on;             /* the record is being filled */
};

/* Does the phase ask for compressible or deduplicable data? */
int data_reduces(const struct phase_spec *sp);
/* The largest compress a unit of `unit` bytes can carry (its stamp area
 * and at least 16 random bytes per chunk). */
double data_max_compress(uint32_t unit);
/* The bytes of each slot for a phase whose I/Os are at most io_len bytes:
 * io_len, or with data_reduces and pattern "reuse" a read area of io_len
 * (reads must not overwrite the prepared data) and the region after it. */
size_t data_slot_len(const struct phase_spec *sp, size_t io_len);
/* Can a worker's region (at most 64 MiB) carry the phase's dedupe, within
 * 1 %, and its dedupe_sets (each set needs a duplicate place)? 1 if so;
 * *ratio is the most it carries, *sets the most sets (all workers). */
int data_dedupe_room(const struct phase_spec *sp, size_t io_len, double *ratio, uint64_t *sets);
/* The bytes a worker needs past its slots (DATA_FRESH's bands), for a
 * phase whose I/Os are at most io_len bytes. */
size_t data_shared_len(const struct phase_spec *sp, size_t io_len);
/* Fill a worker's slots (qd of stride bytes at bufs) and its
 * data_shared_len bytes at shared, and set g up; align: the memory
 * alignment a window needs (O_DIRECT's). RC_OK, or RC_FAIL with why
 * (memory). */
int data_init(struct data_gen *g, const struct phase_spec *sp, unsigned worker, char *bufs, size_t stride,
	      size_t io_len, char *shared, uint32_t align, char *why, size_t why_len);
/* At the worker's end: the dedupe sets its writes touched, each a distinct unit. */
void data_finish(struct data_gen *g, struct data_counts *c);
void data_free(struct data_gen *g);
/* Where a read goes: the slot's read area, not its prepared data. */
static inline void *data_read_buf(const struct data_gen *g, unsigned slot)
{
	return g->bufs + (size_t)slot * g->stride;
}

/* Do writes point their slot elsewhere than its buffer (prepared data,
 * bands)? Then a read must be pointed back (data_read_buf). */
static inline int data_moves_writes(const struct data_gen *g)
{
	return g->mode == DATA_REDUCE || g->mode == DATA_REUSE || g->mode == DATA_FRESH;
}

/* A write's data, for the modes but DATA_PLAIN: its window, its stamps,
 * its counts. Called before a verification header goes in. */
void data_fill(struct data_gen *g, struct io_slot *s, struct data_counts *c);
static inline void data_put_stamp(unsigned char *p, uint64_t a, uint64_t b)
{
	uint64_t v[2] = { a, b };

	memcpy(p, v, sizeof(v));
}

/* The step a window moves by: a unit, and never below 4 KiB (O_DIRECT's
 * memory alignment). */
static inline uint64_t data_step(uint32_t unit)
{
	return unit > 4096 ? unit : 4096;
}

/* splitmix64's output function: a bijection of 64-bit words. */
static inline uint64_t data_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A unique unit's stamps: each chunk's offset, the write's sequence; and
 * the first 8 bytes of every other sector a key of the write plus the
 * sector's place, so no two sectors written alike (a chunk's filler
 * repeats, and its place is rewritten: issue 48). Verification's sector
 * tags take those bytes over. */
static inline void data_stamp_unique(const struct data_gen *g, unsigned char *p, uint32_t room, uint64_t off,
				     uint64_t seq)
{
	const uint32_t end = g->unit < room ? g->unit : room;
	uint64_t w = data_mix(g->key + seq);

	if (g->unit == g->chunk) {
		if (room >= 16)
			data_put_stamp(p, off, seq);
	} else {
		for (uint32_t k = 0; k < g->unit && k + 16 <= room; k += g->chunk)
			data_put_stamp(p + k, off + k, seq);
	}
	for (uint32_t k = 512; g->sector_stamps && k + 8 <= end; k += 512) {
		w += DATA_FRESH_GAMMA;
		if (k % g->chunk)
			memcpy(p + k, &w, 8);
	}
}

/* DATA_REDUCE: the window moves on by the write's units; its unique
 * places get their stamps (a duplicate place holds its set's from the
 * start). What the write counts: its units and its unique ones (the sets
 * it touches are counted at the end, data_finish). Inline: a 4 KiB write
 * on the null engine is some 30 ns in all. */
static inline void data_fill_reduce(struct data_gen *g, struct io_slot *s, struct data_counts *c)
{
	const uint32_t len = s->op.len, j = s->index, sh = g->unit_shift;
	const uint64_t seq = g->seq++, step = data_step(g->unit), room = g->stride - g->io_len;
	uint64_t at = g->shift[j], uniques = 0, q0, q, end, full;
	unsigned char *p;

	if (len == g->unit && g->unit == step) { /* one place of 4 KiB or more: the common case, short */
		if (__builtin_expect(at + len > room, 0))
			at = 0;
		g->shift[j] = (uint32_t)(at + len);
		s->buf = p = (unsigned char *)g->bufs + (size_t)j * g->stride + g->io_len + at;
		q = (uint64_t)j * g->slot_units + (at >> sh);
		g->reached[q / 64] |= 1ull << (q % 64);
		if (g->unique[q / 64] >> (q % 64) & 1) {
			data_stamp_unique(g, p, len, s->op.offset, seq);
			c->distinct++;
		}
		c->units++;
		return;
	}
	if (__builtin_expect(at + len > room, 0))
		at = 0;
	g->shift[j] = (uint32_t)(at + ((len + step - 1) & ~(step - 1)));
	s->buf = p = (unsigned char *)g->bufs + (size_t)j * g->stride + g->io_len + at;
	q0 = (uint64_t)j * g->slot_units + (at >> sh);
	end = q0 + ((len + g->unit - 1) >> sh);
	full = q0 + (len >> sh); /* a tail under the unit (a replay's) is a unit of its own, never a duplicate */
	for (q = q0; q < end;) {
		uint64_t w = g->unique[q / 64] >> (q % 64);
		const uint64_t left = end - q, whole = full > q ? full - q : 0;

		if (left < 64 - q % 64)
			w &= (1ull << left) - 1;
		if (whole)
			g->reached[q / 64] |= (whole < 64 - q % 64 ? (1ull << whole) - 1 : ~0ull) << (q % 64);
		while (w) {
			const uint64_t o = (q + (uint64_t)__builtin_ctzll(w) - q0) << sh;

			data_stamp_unique(g, p + o, len - (uint32_t)o, s->op.offset + o, seq);
			uniques++;
			w &= w - 1;
		}
		q += 64 - q % 64;
	}
	c->units += end - q0;
	c->distinct += uniques + (full < end && !(g->unique[full / 64] >> (full % 64) & 1));
}

/* Mark n 4 KiB blocks of a band taken (v 1) or free (0). */
static inline void data_busy_set(uint8_t *b, uint32_t n, uint8_t v)
{
	if (n == 1)
		*b = v;
	else
		memset(b, v, n);
}

/* The first 8 bytes of each 512 at p (len bytes): w, w + GAMMA, ... */
static inline void data_stamp_sectors(unsigned char *p, uint32_t len, uint64_t w)
{
	if (len == 4096) { /* the common case: unrolled */
#pragma GCC unroll 8
		for (uint32_t i = 0; i < 4096; i += 512, w += DATA_FRESH_GAMMA)
			memcpy(p + i, &w, 8);
		return;
	}
	for (uint32_t i = 0; i + 8 <= len; i += 512, w += DATA_FRESH_GAMMA)
		memcpy(p + i, &w, 8);
}

/* DATA_FRESH: the write's window (its slot's last one given back first),
 * and its sector stamps. */
static inline void data_fill_fresh(struct data_gen *g, struct io_slot *s)
{
	const uint32_t j = s->index, len = s->op.len, bpb = g->band_len >> 12;
	const uint32_t pos = (uint32_t)s->op.offset & g->pos_mask, b0 = pos >> 12, n = ((pos + len - 1) >> 12) - b0 + 1;
	const uint64_t w = data_mix(g->key + g->seq++);
	uint64_t k;
	uint32_t band;

	if (g->win[j] != UINT32_MAX)
		data_busy_set(g->busy + g->win[j], g->win_n[j], 0);
	for (band = 0; band < g->nbands; band++) {
		const uint8_t *b = g->busy + band * bpb + b0;

		if (n == 1 ? !b[0] : !memchr(b, 1, n))
			break;
	}
	if (__builtin_expect(band < g->nbands, 1)) {
		g->win[j] = band * bpb + b0;
		g->win_n[j] = n;
		data_busy_set(g->busy + g->win[j], n, 1);
		k = ((uint64_t)band * g->band_len + pos) / 512;
		s->buf = (unsigned char *)g->bands + (size_t)band * g->band_len + pos;
	} else { /* every band's window taken: the slot's own buffer, places of its own */
		g->win[j] = UINT32_MAX;
		k = ((uint64_t)g->nbands * g->band_len + (uint64_t)j * g->io_len) / 512;
		s->buf = (unsigned char *)g->bufs + (size_t)j * g->stride;
	}
	data_stamp_sectors(s->buf, len, w + k * DATA_FRESH_GAMMA);
}

/* Count a DATA_PLAIN write's units. */
static inline void data_count_plain(const struct data_gen *g, uint32_t len, struct data_counts *c)
{
	const uint64_t n = len >> g->unit_shift ? len >> g->unit_shift : 1;

	c->units += n;
	if (g->plain_unique)
		c->distinct += n;
	else
		c->distinct_max = 1;
}
int data_sample(struct data_gen *g, const struct io_slot *s, struct data_counts *c, uint64_t now);
/* Records: set up (0, or -1: no memory) for the first DATA_RECORD_WORKERS
 * workers; a write's data into the record being filled. */
int data_record_init(struct data_gen *g);
void data_record_free(struct data_gen *g);
void data_record_add(struct data_gen *g, const struct io_slot *s);
/* After the loop: the record filled, compressed (data_finish calls it). */
void data_record_finish(struct data_gen *g, struct data_counts *c);
/* After the write's data is final (now: the loop's clock): its sample
 * when one is due (1: it took one, the clock should be read again). */
static inline int data_after(struct data_gen *g, const struct io_slot *s, struct data_counts *c, uint64_t now)
{
	g->sample_left -= s->op.len >> g->unit_shift ? s->op.len >> g->unit_shift : 1;
	if (__builtin_expect(g->rec_on, 0))
		data_record_add(g, s); /* the first MiB written: a copy, compressed after the loop */
	return g->sample_left > 0 || now < g->next_sample_ns ? 0 : data_sample(g, s, c, now);
}

#endif

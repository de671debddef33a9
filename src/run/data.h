/* data.h - what a phase's writes carry: compressible and deduplicable data,
 * IOMeter's repeating bytes and reused buffer, and the measure of it.
 *
 * Everything is built before the start barrier. With compress or dedupe
 * (data_reduces) each slot's buffer is a window on a larger region of its
 * own whose every dedupe unit is a precomputed "base": a chunk (the unit,
 * or 4 KiB of it) holds a 32-byte stamp area, then L random bytes, then
 * repeats of those L bytes to the chunk's end, L + 32 being the chunk's
 * size over the ratio. No byte of the filler is zero: only a compressor
 * that finds repeats (LZ4, zstd, zlib) gets the ratio, and a zero-suppressing
 * array gets nothing for free. Per write the slot's window moves on by the
 * write's units (no copy: the I/O is handed the region at its new place)
 * and each unit gets a 16-byte stamp per chunk: its offset and the write's
 * sequence (a unique unit), or the tag of its dedupe set (a duplicate: the
 * same 16 bytes wherever that set is written, and the set is its base). Which
 * units repeat is steered so that distinct units / units written stays at
 * 1 / dedupe from the first I/Os on: a duplicate when the count of distinct
 * units would exceed its share, else a unique unit.
 *
 * Measure: every DATA_SAMPLE_EVERY-th unit written (the first included) is
 * compressed with LZ4 (one in DATA_OTHERS_EVERY of those with zstd and
 * zlib too) and, for dedupe, its crc32c checked against the one
 * its set had (a duplicate must match it, a unique unit must not). The
 * distinct count is by construction. Memory is flat: a bitmap and a crc per
 * set, allocated here, nothing per I/O.
 */
#ifndef IOMOON_DATA_H
#define IOMOON_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "core/stats.h"
#include "io/engine.h"

struct phase_spec;

#define DATA_SAMPLE_EVERY 128u
/* zstd and zlib see one LZ4 sample in this many (zlib is slow). */
#define DATA_OTHERS_EVERY 32u
/* The largest ratio compress takes; also bounded by the unit (data_max_compress). */
#define DATA_MAX_COMPRESS 16.0
#define DATA_MAX_DEDUPE 1000.0

enum data_mode {
	DATA_PLAIN,  /* random, zero, offset: worker.c fills and stamps as it always did */
	DATA_REDUCE, /* compress and/or dedupe */
	DATA_REPEAT, /* IOMeter's repeating bytes: one byte value per write */
	DATA_REUSE,  /* IOMeter's pseudo random: one random buffer for every write */
};

struct data_gen {
	enum data_mode mode;
	uint32_t unit, chunk;   /* the dedupe unit, and the chunk each of whose repeats is the ratio */
	uint32_t slot_units;    /* units in each slot's region */
	uint32_t nbases;        /* distinct bases (the dedupe sets) over the worker's regions */
	size_t slot_len;        /* bytes of each slot's region */
	char *bufs;             /* the worker's regions, slot after slot */
	uint32_t *shift;        /* per slot: where its window is, in units */
	uint8_t *touched;       /* per set: written already (a bit each) */
	uint32_t *set_crc;      /* per set: the crc32c of a sampled unit of it (0: none yet) */
	double dedupe;
	uint64_t seq, dup_tag;
	uint16_t worker;
	int64_t sample_left;    /* units until the next sample */
	uint32_t sample_at;     /* which unit of the write the next sample takes */
	char *scratch;          /* LZ4's output */
	int scratch_len;
	char *scratch2;         /* zstd's and zlib's */
	size_t scratch2_len;
	int checks;             /* dedupe: crc check the samples */
	int plain_unique;       /* DATA_PLAIN: every unit new (random, offset), else all alike (zero) */
};

/* Does the phase ask for compressible or deduplicable data? */
int data_reduces(const struct phase_spec *sp);
/* The largest compress a unit of `unit` bytes can carry (its stamp area
 * and at least 16 random bytes per chunk). */
double data_max_compress(uint32_t unit);
/* The bytes of each slot's region for a phase whose I/O buffers are
 * buf_len bytes (more than buf_len when data_reduces). */
size_t data_slot_len(const struct phase_spec *sp, size_t buf_len);
/* Fill a worker's regions (qd of slot_len bytes at bufs) and set g up;
 * RC_OK, or RC_FAIL with why (memory). */
int data_init(struct data_gen *g, const struct phase_spec *sp, unsigned worker, char *bufs, size_t slot_len,
	      char *why, size_t why_len);
void data_free(struct data_gen *g);

/* A write's data, for the modes but DATA_PLAIN: its window, its stamps,
 * its counts. Called before a verification header goes in. */
void data_fill(struct data_gen *g, struct io_slot *s, struct data_counts *c);
/* Count a DATA_PLAIN write's units. */
static inline void data_count_plain(const struct data_gen *g, uint32_t len, struct data_counts *c)
{
	const uint64_t n = len >= g->unit ? len / g->unit : 1;

	c->units += n;
	if (g->plain_unique)
		c->distinct += n;
	else
		c->distinct_max = 1;
}
int data_sample(struct data_gen *g, const struct io_slot *s, struct data_counts *c);
/* After the write's data is final: its sample when one is due (1: it
 * took one, the clock should be read again). */
static inline int data_after(struct data_gen *g, const struct io_slot *s, struct data_counts *c)
{
	g->sample_left -= s->op.len >= g->unit ? s->op.len / g->unit : 1;
	return g->sample_left > 0 ? 0 : data_sample(g, s, c);
}

#endif

/* data_record.c - records as a compressing filesystem or array sees them
 * (data.h): the first 1 MiB of a worker's writes laid end to end, and its
 * first 128 KiB, compressed whole with LZ4 and zstd -3 (and the 128 KiB
 * with zlib -6).
 *
 * A unit compressed alone (data_sample) misses what a record holds of
 * several writes: the duplicates of dedupe, reuse's one buffer, repeat's
 * runs. The record is filled from the worker's first writes in the order
 * it issues them (a sequential pass lays them so on disk; random writes
 * put other ones side by side, drawn alike): a copy of each write until
 * 1 MiB is full, nothing after. It is compressed after the loop, never
 * inside the measured time (some 5-15 ms in all), in the first
 * DATA_RECORD_WORKERS workers only (memory: 1 MiB and the compressors'
 * bound each). */
#include "run/data.h"

#include <lz4.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

static size_t bound_of(size_t len)
{
	size_t a = (size_t)LZ4_compressBound((int)len), b = ZSTD_compressBound(len), c = compressBound(len);

	return a > b ? (a > c ? a : c) : (b > c ? b : c);
}

int data_record_init(struct data_gen *g)
{
	if (g->worker >= DATA_RECORD_WORKERS)
		return 0;
	g->rec_out_len = bound_of(DATA_RECORD);
	g->rec = malloc(DATA_RECORD);
	g->rec_out = malloc(g->rec_out_len);
	if (!g->rec || !g->rec_out)
		return -1;
	g->rec_fill = 0;
	g->rec_on = 1; /* the first record starts with the first write */
	return 0;
}

void data_record_free(struct data_gen *g)
{
	free(g->rec);
	free(g->rec_out);
	g->rec = g->rec_out = NULL;
}

/* One record size's figures: bytes after LZ4, zstd and (with_zlib) zlib. */
static void squeeze(struct data_gen *g, uint32_t len, uint64_t *out, int with_zlib)
{
	size_t z = ZSTD_compress(g->rec_out, g->rec_out_len, g->rec, len, 3);
	uLongf zl = (uLongf)g->rec_out_len;
	int l = LZ4_compress_default(g->rec, g->rec_out, (int)len, (int)g->rec_out_len);

	out[0] += l > 0 ? (uint64_t)l : len;
	out[1] += ZSTD_isError(z) ? len : z;
	if (with_zlib)
		out[2] += compress2((Bytef *)g->rec_out, &zl, (const Bytef *)g->rec, len, 6) == Z_OK ? zl : len;
}

void data_record_add(struct data_gen *g, const struct io_slot *s)
{
	const uint32_t n = s->op.len < DATA_RECORD - g->rec_fill ? s->op.len : DATA_RECORD - g->rec_fill;

	memcpy(g->rec + g->rec_fill, s->buf, n);
	g->rec_fill += n;
	g->rec_on = g->rec_fill < DATA_RECORD;
}

void data_record_finish(struct data_gen *g, struct data_counts *c)
{
	if (!g->rec || g->rec_fill < DATA_RECORD)
		return; /* none, or the worker wrote less than a record */
	squeeze(g, DATA_RECORD_SMALL, c->rec_small, 1);
	squeeze(g, DATA_RECORD, c->rec_large, 0); /* zlib -6 on a MiB of random bytes: 30-130 ms, per phase */
	c->records++;
}

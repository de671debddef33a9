/* phase_region.c - where a phase does I/O: its targets (each once, over
 * its streams), their regions, the slices of them that workers writing
 * with crc32c verification each get (and ranks of a cluster verifying one
 * target: each rank's slice, its workers' slices of that), each worker's
 * part of its target's region (where its sequential stream starts; a
 * phase reading the region once reads just that), and the parts of a byte
 * quota (phase.h). */
#include "run/phase.h"

#include <assert.h>
#include <stdio.h>

#include "verify/crash.h"
#include "verify/genmap.h"


/* Are the workers of a target given slices of its region? */
int phase_sliced(const struct phase_spec *sp)
{
	return sp->verify == VERIFY_CRC && sp->workers > sp->ntargets && phase_writes(sp);
}

/* What slices are made of: whole units of verification (512 bytes when
 * none) and whole alignments of every spec. */
static uint64_t slice_grain(const struct phase_spec *sp)
{
	uint64_t g = sp->verify_unit ? sp->verify_unit : 512;

	for (unsigned k = 0; k < sp->wl->nspecs; k++)
		if (sp->wl->spec[k].align > g)
			g = sp->wl->spec[k].align;
	return g;
}

/* Worker i's slice of its target's region [*off, *off + *len): whole
 * units and alignments, the same size for every worker of the target. */
void phase_slice_of(const struct phase_spec *sp, unsigned i, uint64_t *off, uint64_t *len)
{
	const unsigned nt = sp->ntargets, t = i % nt, n = sp->workers / nt + (t < sp->workers % nt);
	const uint64_t g = slice_grain(sp), s = *len / n / g * g;

	*off += s * (i / nt);
	*len = s;
}

void phase_part_of(const struct phase_spec *sp, unsigned i, unsigned *part, unsigned *nparts)
{
	const unsigned nt = sp->ntargets, t = i % nt;

	*part = phase_sliced(sp) ? 0 : i / nt;
	*nparts = phase_sliced(sp) ? 1 : sp->workers / nt + (t < sp->workers % nt);
}

uint64_t phase_read_once_bytes(const struct phase_spec *sp)
{
	uint64_t grid = UINT64_MAX, off, len, sum = 0;

	for (unsigned k = 0; k < sp->wl->nspecs; k++)
		if (sp->wl->spec[k].align < grid)
			grid = sp->wl->spec[k].align;
	for (unsigned t = 0; t < sp->ntargets; t++) {
		phase_region_of(sp, t, &off, &len);
		sum += len - len % grid;
	}
	return sum;
}

uint64_t phase_tail_written(const struct phase_spec *sp, unsigned t, uint64_t *len)
{
	const struct gen_map *m = sp->targets[t]->gmap;
	const struct crash_rec *c = m ? m->crash : NULL;
	uint64_t grid = UINT64_MAX, off, all;

	for (unsigned k = 0; k < sp->wl->nspecs; k++)
		if (sp->wl->spec[k].align < grid)
			grid = sp->wl->spec[k].align;
	phase_region_of(sp, t, &off, &all);
	*len = all % grid;
	for (uint64_t i = m && m->unit ? (off + all - *len) / m->unit : 0; m && i < m->n && i * m->unit < off + all; i++)
		if (m->gens[i] || (c && i < c->n && (c->durable[i] || c->issued[i])))
			return i * m->unit;
	return 0;
}

uint64_t phase_region_len(const struct phase_spec *sp, unsigned t)
{
	return sp->region_len ? sp->region_len : sp->targets[t]->size - sp->region_off;
}

void phase_region_of(const struct phase_spec *sp, unsigned t, uint64_t *off, uint64_t *len)
{
	const uint32_t n = sp->rank_parts[t];
	uint64_t g, s;

	*off = sp->region_off;
	*len = phase_region_len(sp, t);
	if (n < 2)
		return;
	g = slice_grain(sp);
	s = *len / n / g * g;
	*off += s * sp->rank_part[t];
	*len = s;
}

/* Ranks that share a target verified with crc32c (rank_parts) get a slice
 * of its region each: refused when a spec has a region of its own or a
 * slice is smaller than the largest block. */
static int check_rank_slices(const struct phase_spec *sp, char *why, size_t why_len)
{
	for (unsigned t = 0; t < sp->ntargets; t++) {
		uint64_t off, len;

		if (sp->rank_parts[t] < 2)
			continue;
		for (unsigned k = 0; k < sp->wl->nspecs; k++)
			if (sp->wl->spec[k].region_len) {
				snprintf(why, why_len, "phase.target: %u ranks verify %s with crc32c under that one path, "
					 "so each gets a slice of the region, but spec %u has a region of its own (give "
					 "the region on the phase, or each rank a path of its own with {rank} or {host})",
					 sp->rank_parts[t], sp->targets[t]->path, k + 1);
				return RC_INPUT;
			}
		phase_region_of(sp, t, &off, &len);
		if (len < wl_max_bs(sp->wl)) {
			snprintf(why, why_len, "phase.target: %u ranks verify %s with crc32c under that one path, so "
				 "each gets a slice of the region, %llu bytes, less than a block of %llu (give fewer "
				 "ranks, a larger region, or each rank a path of its own with {rank} or {host})",
				 sp->rank_parts[t], sp->targets[t]->path, (unsigned long long)len,
				 (unsigned long long)wl_max_bs(sp->wl));
			return RC_INPUT;
		}
	}
	return RC_OK;
}

int phase_check_slices(const struct phase_spec *sp, char *why, size_t why_len)
{
	if (sp->verify == VERIFY_CRC && check_rank_slices(sp, why, why_len))
		return RC_INPUT;
	if (!phase_sliced(sp))
		return RC_OK;
	for (unsigned k = 0; k < sp->wl->nspecs; k++)
		if (sp->wl->spec[k].region_len) {
			snprintf(why, why_len, "phase.workers: %u workers writing with verification share %u target(s), "
				 "so each gets a slice of the region, but spec %u has a region of its own (give one "
				 "worker per target)", sp->workers, sp->ntargets, k + 1);
			return RC_INPUT;
		}
	for (unsigned i = 0; i < sp->workers && i < sp->ntargets * 2; i++) {
		uint64_t off, len;

		phase_region_of(sp, i % sp->ntargets, &off, &len);
		phase_slice_of(sp, i, &off, &len);
		if (len < wl_max_bs(sp->wl)) {
			snprintf(why, why_len, "phase.workers: %u workers writing with verification get a slice of "
				 "the region each, %llu bytes, less than a block of %llu (give fewer workers or a "
				 "larger region)", sp->workers, (unsigned long long)len,
				 (unsigned long long)wl_max_bs(sp->wl));
			return RC_INPUT;
		}
	}
	return RC_OK;
}


uint64_t phase_bytes_part(const struct phase_spec *sp, uint64_t q, unsigned n, unsigned i)
{
	const uint64_t bs = wl_min_bs(sp->wl);

	if (bs > 1 && bs == wl_max_bs(sp->wl) && q % bs == 0)
		return (q / bs / n + (i < q / bs % n)) * bs;
	return q / n + (i < q % n);
}

/* Is t the same target as u (the nowhere of null and sim is one)? */
static int same_target(const struct target *t, const struct target *u)
{
	return t == u || (t->kind == TARGET_NONE && u->kind == TARGET_NONE);
}

unsigned phase_targets(const struct phase_spec *ph, const struct target **out)
{
	unsigned n = 0;

	for (unsigned k = 0; k < phase_nstreams(ph); k++)
		for (unsigned i = 0; i < phase_stream(ph, k)->ntargets; i++) {
			const struct target *t = phase_stream(ph, k)->targets[i];
			unsigned j = 0;

			while (j < n && !same_target(out[j], t))
				j++;
			assert(j < PHASE_MAX_WORKERS); /* phase_check: at most that many workers, one a target at least */
			if (j == n && n < PHASE_MAX_WORKERS)
				out[n++] = t;
		}
	return n;
}

unsigned phase_target_index(const struct phase_spec *ph, const struct target *t)
{
	const struct target *all[PHASE_MAX_WORKERS];
	const unsigned n = phase_targets(ph, all);

	for (unsigned j = 0; j < n; j++)
		if (same_target(all[j], t))
			return j;
	assert(0 && "a target of the phase is in phase_targets");
	return 0;
}

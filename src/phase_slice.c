/* phase_slice.c - the regions of a phase's targets, the slices of them
 * that workers writing with crc32c verification each get, and the parts
 * of a byte quota (phase.h). */
#include <stdio.h>

#include "phase.h"

/* Are the workers of a target given slices of its region? */
int phase_sliced(const struct phase_spec *sp)
{
	return sp->verify == VERIFY_CRC && sp->workers > sp->ntargets && phase_writes(sp);
}

/* Worker i's slice of its target's region [*off, *off + *len): whole
 * units and alignments, the same size for every worker of the target. */
void phase_slice_of(const struct phase_spec *sp, unsigned i, uint64_t *off, uint64_t *len)
{
	const unsigned nt = sp->ntargets, t = i % nt, n = sp->workers / nt + (t < sp->workers % nt);
	uint64_t g = sp->verify_unit ? sp->verify_unit : 512, s;

	for (unsigned k = 0; k < sp->wl->nspecs; k++)
		if (sp->wl->spec[k].align > g)
			g = sp->wl->spec[k].align;
	s = *len / n / g * g;
	*off += s * (i / nt);
	*len = s;
}

uint64_t phase_region_len(const struct phase_spec *sp, unsigned t)
{
	return sp->region_len ? sp->region_len : sp->targets[t]->size - sp->region_off;
}

int phase_check_slices(const struct phase_spec *sp, char *why, size_t why_len)
{
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
		uint64_t off = sp->region_off, len = phase_region_len(sp, i % sp->ntargets);

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

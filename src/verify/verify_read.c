/* verify_read.c - a verifying read's units, written or never written,
 * judged and counted (verify_read.h). Headers are verify.c's to check,
 * the fill is fill.c's to recognise. */
#include "verify/verify_read.h"

#include <stddef.h>
#include <string.h>

#include "io/fill.h"
#include "verify/crash.h"
#include "verify/verify.h"

void verify_view_init(struct verify_view *v, const struct gen_map *m, uint32_t unit, int strict, int skip_unwritten)
{
	*v = (struct verify_view){ .unit = unit, .strict = strict, .skip_unwritten = skip_unwritten };
	if (!m)
		return;
	v->gens = m->gens;
	v->ngens = m->n;
	v->tid = m->tid;
	v->high = m->next_gen;
	v->fill_key = fill_key(m->dev, m->ino, m->ino ? m->btime_ns : 0); /* a device's: by number (devid.h) */
}

void verify_view_crash(struct verify_view *v, const struct crash_rec *c, int atomic)
{
	if (!v->gens || c->n > v->ngens)
		return;
	v->ncrash = c->n; /* fewer than the map's when the file grew since the crash */
	v->durable = c->durable;
	v->issued = c->issued;
	v->after_crash = 1;
	v->atomic = atomic;
	v->horizon = v->high + CRASH_GEN_SLACK;
}

static int never_written(const struct verify_view *v, const unsigned char *u, uint64_t at, uint64_t *expected,
			 uint64_t *found);

/* After a crash: unit u at offset at (index idx) classed and counted
 * (crash.h); a failing class returns its VERR_*. */
static int crash_unit(const struct verify_view *v, const unsigned char *u, uint64_t at, uint64_t idx,
		      struct verify_counts *vc, uint64_t *expected, uint64_t *found)
{
	const uint64_t d = idx < v->ncrash ? v->durable[idx] : 0, a = idx < v->ngens ? v->gens[idx] : 0,
		       i = idx < v->ncrash ? v->issued[idx] : 0, w = a > i ? a : i;
	uint64_t lo, hi;
	int cls;

	vc->crash.judged = 1;
	if (!d && !w && v->skip_unwritten) {
		uint32_t magic;

		/* a unit nothing was written to holds the target's old data,
		 * which says nothing of what the storage kept; one with an
		 * iomoon header is judged still (a misdirected write lands there) */
		memcpy(&magic, u, sizeof(magic));
		if (magic != VERIFY_MAGIC) {
			vc->units_skipped++;
			return 0;
		}
	}
	cls = crash_judge(u, v->unit, at, v->fill_key, v->tid, d, w, v->horizon, &lo, &hi);
	if (cls == CRASH_UNWRITTEN) {
		vc->units_unwritten++;
		return 0;
	}
	vc->units_checked++;
	crash_count(&vc->crash, cls, at);
	*expected = d;
	*found = lo;
	switch (cls) {
	case CRASH_LOST_DURABLE: return VERR_LOST_DURABLE;
	case CRASH_CORRUPT: {
		uint64_t bad;
		int e;

		if (!d && !w) { /* never written with verification: what the check without a crash says of it */
			if ((e = never_written(v, u, at, expected, found)))
				vc->units_unexpected++;
			return e ? e : VERR_CORRUPT;
		}
		/* the header's own account: no header (missing), or its checksum's stored and computed values */
		e = verify_check_id(u, v->unit, at, 0, v->unit, NULL, 0, 1, 0, &bad, expected, found);
		return e && e != VERR_MISDIRECTED ? e : VERR_CORRUPT;
	}
	case CRASH_MISDIRECTED:
		*expected = at;
		memcpy(found, u + offsetof(struct verify_hdr, offset), sizeof(*found));
		return VERR_MISDIRECTED;
	case CRASH_FOREIGN: {
		uint32_t id;

		memcpy(&id, u + offsetof(struct verify_hdr, seed), sizeof(id));
		*expected = v->tid;
		*found = id;
		return VERR_FOREIGN;
	}
	case CRASH_TORN:
		*expected = hi;
		return v->atomic ? VERR_TORN : 0;
	default: return 0;
	}
}

/* A unit the map says was never written (u, at offset at): blank, or
 * what it holds instead. 0 when blank, or when it holds an intact header
 * of this target's own id written for this offset: a write completed by
 * a process whose state was never saved (it was killed before its phase
 * ended); such a unit cannot be judged, and is not another's data. */
static int never_written(const struct verify_view *v, const unsigned char *u, uint64_t at, uint64_t *expected,
			 uint64_t *found)
{
	uint64_t where, bad;
	int e;

	if (fill_blank(u, v->unit, v->fill_key, at, &where, expected, found))
		return 0;
	/* an intact header, wherever it was written for: a writer the map
	 * does not know of */
	e = verify_check_id(u, v->unit, at, 0, v->unit, NULL, 0, 1, 0, &bad, &where, &bad);
	if (e == 0 && v->tid) {
		uint32_t id;

		memcpy(&id, u + offsetof(struct verify_hdr, seed), sizeof(id));
		if (id == v->tid) /* this target's own write, intact and in place, by a process that
				   * ended before it saved the state (killed, a power cut): not foreign */
			return 0;
	}
	if (e == 0 || e == VERR_MISDIRECTED) {
		memcpy(found, u + offsetof(struct verify_hdr, generation), sizeof(*found));
		*expected = 0;
		return VERR_UNEXPECTED_HDR;
	}
	return VERR_UNEXPECTED;
}

int verify_read(const struct verify_view *v, const void *buf, uint32_t len, uint64_t offset, uint32_t from,
		struct verify_counts *vc, uint64_t *bad_offset, uint64_t *expected, uint64_t *found)
{
	const uint32_t unit = v->unit;

	for (uint32_t o = from; o + unit <= len; o += unit) {
		const unsigned char *u = (const unsigned char *)buf + o;
		const uint64_t at = offset + o, idx = at / unit;
		uint32_t magic;
		int e;

		*bad_offset = at;
		if (v->after_crash) {
			e = crash_unit(v, u, at, idx, vc, expected, found);
			if (e)
				return e;
			continue;
		}
		memcpy(&magic, u, sizeof(magic));
		if (!v->strict && !v->gens && magic != VERIFY_MAGIC) {
			vc->units_skipped++; /* no map: nothing says it was written */
			continue;
		}
		if (!v->strict && v->gens && (idx >= v->ngens || !v->gens[idx])) {
			if (v->skip_unwritten) {
				vc->units_skipped++;
				continue;
			}
			e = never_written(v, u, at, expected, found);
			if (e) {
				vc->units_unexpected++;
				return e;
			}
			vc->units_unwritten++;
			continue;
		}
		vc->units_checked++;
		e = verify_check_id(buf, o + unit, offset, o, unit, v->gens, v->ngens, v->strict, v->tid, bad_offset,
				    expected, found);
		if (e)
			return e;
	}
	return 0;
}

uint64_t verify_written_end(const struct gen_map *m)
{
	for (uint64_t i = m->n; i > 0; i--)
		if (__atomic_load_n(&m->gens[i - 1], __ATOMIC_RELAXED))
			return i * (uint64_t)m->unit;
	return 0;
}

/* phase_read.h - the readers of the phase fields with structure, shared by
 * phase_fields.c (the field table) and the files that hold them:
 * phase_mix.c (mix, bs, dist) and phase_pace.c (rate, schedule, think).
 * A reader gets the field's value at stack index v (nil when absent: its
 * default is its own), fills rs, and raises an input error naming field. */
#ifndef IOMOON_PHASE_READ_H
#define IOMOON_PHASE_READ_H

#include <lua.h>

#include "lua/lua_phase.h"

typedef void field_reader(lua_State *L, int v, struct run_state *rs, const char *field);

field_reader read_mix, read_dist, read_rate, read_schedule, read_think;
/* A schedule's length (0: none; a rate is one endless segment), and how
 * far past the measured start a start_delay puts its workers' start (the
 * ramp being ramp_ns): a schedule counts from there (phase_pace.c). */
uint64_t pace_schedule_ns(const struct pace *p);
uint64_t pace_late_ns(const struct phase_spec *sp, uint64_t ramp_ns);
/* phase_prio.c */
field_reader read_ioprio, read_cmdprio;
/* phase_replay.c */
field_reader read_replay;

/* A region: a size, or {offset=, size=}; size 0 refused. need_size: a
 * table must give its size (a spec's region). */
void phase_read_region(lua_State *L, int v, const char *field, uint64_t *off, uint64_t *len, int need_size);

/* w[0..n) in percent to cumulative thresholds on the 2^32 scale, the
 * last exactly WL_ONE, written to *cum, then every stride bytes. */
void phase_cumulate(const double *w, unsigned n, uint64_t *cum, size_t stride);

#endif

/* lua_cluster.h - the cluster in Lua (lua_cluster.c, cluster.h). */
#ifndef IOMOON_LUA_CLUSTER_H
#define IOMOON_LUA_CLUSTER_H

#include <lua.h>

#include "cluster/cluster.h"
#include "cluster/cluster_phase.h"
#include "run/phase.h"

struct run_state;

/* iomoon.cluster, pushed. */
void api_push_cluster_table(lua_State *L);
/* path with {rank} and {host} replaced (path itself when it has neither);
 * the string lives as long as L. */
const char *api_expand_path(lua_State *L, const char *path);
/* In a cluster: what a checked phase counts for the cluster (ios, bytes,
 * rates) is shared by the ranks: RC_INPUT with why when a quota cannot be
 * split; rates are split from here on (phase_spec.rate_share). */
int api_cluster_split(struct run_state *rs, char *why, size_t why_len);

/* In a cluster, after the check's agreement (collective: every rank
 * calls it): a target written or verified with crc32c under one path by
 * several ranks (one device or file they share) gives each rank a slice
 * of its region, as a phase's workers get theirs (phase_spec.rank_parts;
 * verify_only's default bytes become the rank's slice). RC_INPUT with why
 * when a slice cannot be made (phase_check_slices), RC_FAIL. */
int api_cluster_share(struct run_state *rs, char *why, size_t why_len);

/* The fields apply changes for the run, kept to be put back. */
struct cluster_saved {
	uint64_t ios[PHASE_MAX_STREAMS + 1], bytes[PHASE_MAX_STREAMS + 1], seed[PHASE_MAX_STREAMS + 1];
};
/* In a cluster, for the run only: this rank's share of the quotas, and
 * its own random sequence (offsets, arrivals); the result shows the
 * phase as asked (restore). */
void api_cluster_apply(struct run_state *rs, struct cluster_saved *saved);
void api_cluster_restore(struct run_state *rs, const struct cluster_saved *saved);
/* In a cluster: agree at point p on this rank's rc (why) and phase (rs,
 * or NULL). RC_OK when every rank goes on; else RC_INPUT or RC_FAIL,
 * the same on every rank, with the same message in out. */
int api_cluster_agree(enum cluster_point p, const struct run_state *rs, int rc, const char *why, char *out,
		      size_t out_len);
/* How an agreement's refusal names a phase: its name, the kind of phase
 * ("phases", "files phases"), the names of its shape's fields, and what
 * may differ between ranks. */
struct cluster_phrases {
	const char *name, *kind;
	const char *const *fields;
	const char *may_differ;
};
/* The same with a shape of the caller's making (sh, or NULL when this
 * rank's check failed), the refusal phrased by `say`. */
int api_cluster_agreed(enum cluster_point p, int rc, const char *why, const struct cluster_shape *sh,
		       const struct cluster_phrases *say, char *out, size_t out_len);
/* result.cluster and result.hosts into the result on top (clustered only). */
void api_push_cluster_result(lua_State *L, const struct phase_result *r);
/* The same from c (NULL: nothing), as a files phase has them. */
void api_push_cluster(lua_State *L, const struct cluster_result *c);
/* May this rank write reports (iomoon.write_atomic)? */
int api_cluster_writes(void);

#endif

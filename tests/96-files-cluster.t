#!/bin/bash
# Files phases under MPI (doc/cluster.md "Files phases"): mpirun -n 2 x 1
# worker x 2 dirs x 25 files. Each rank's own subtree (r0w0, r1w0) on
# disk; create, stat and delete exactly 100 operations merged, 50 per
# rank in result.hosts, every rank the same result; the tree gone after
# rmdir; a mix's ios split over the ranks. A shared tree (mdtest without -u): its 50 files split between
# the ranks, none made twice. Refusals on every rank, nothing made.
# Run outside the ASan pass, as 93-cluster (Open MPI's allocations are not ours).
. "$(dirname "$0")/lib.sh"
trap cleanup EXIT
cd "$TMP" || exit 1

case "$IOMOON" in *asan*)
	skip "MPI runs: not under ASan (Open MPI's allocations are not ours)"
	done_testing
	exit 0
esac
if ! command -v mpirun >/dev/null || ! "$IOMOON" list 2>/dev/null | grep -q '^many hosts: mpi '; then
	skip "mpirun or MPI support missing (make deps installs libopenmpi-dev and openmpi-bin)"
	done_testing
	exit 0
fi
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_base_warn_component_unused=0 OMPI_MCA_rmaps_base_oversubscribe=1
mpi() {
	timeout -k 5 120 mpirun --allow-run-as-root --oversubscribe --bind-to none -n 2 "$IOMOON" run --format none "$@"
}
D="$TMP/nas"
# (out.* removed first, and err shown when a run fails, so that a failed
# run is never read as the run before it)
tree() {
	local rc
	rm -f out.0 out.1
	mpi "$LUA_DIR/tree.lua" "$D" "$@"
	rc=$?
	[ $rc = 0 ] || { echo "# tree $* exited $rc:"; sed 's/^/#   /' err 2>/dev/null | head -20; }
	return $rc
}
same() { python3 -c 'import json,sys; a=[json.dumps(json.load(open("res.%d.json" % i)), sort_keys=True) for i in (0, 1)]; print(a[0] == a[1])'; }
rm -rf "$D"; mkdir -p "$D"

tree false psync 1 create 2>err; rc=$?
is "$rc" 0 "mpirun -n 2: a create phase runs on both ranks"
is "$(cat out.0)" "create 100 0 100 0 2 50+50 true" "create: 100 operations merged, 100 files made, 50 per rank in result.hosts"
is "$(cat out.1)" "$(cat out.0)" "rank 1 returns the same figures"
is "$(same)" "True" "both ranks return the very same result"
is "$(cd "$D/iomoon-files" && for s in r0w0 r1w0; do find "$s" -type f | wc -l; done | tr '\n' ' ')" "50 50 " \
	"each rank's subtree on disk (r0w0, r1w0), 50 files each"
tree false io_uring 4 stat,delete,rmdir 2>err; rc=$?
is "$rc" 0 "stat, delete, rmdir on io_uring, both ranks"
is "$(cat out.0 | tr '\n' '|')" "stat 100 0 0 0 2 50+50 true|delete 100 0 0 100 2 50+50 true|rmdir 4 0 0 0 2 2+2 true|" \
	"stat 100, delete 100, rmdir 4, merged exactly"
is "$(ls -A "$D")" "" "the tree is gone after rmdir"

tree true psync 1 create 2>err; rc=$?
is "$(cat out.0)" "create 50 0 50 0 2 25+25 true" "shared tree: its 50 files split between the ranks, none made twice (O_EXCL: no error)"
is "$(find "$D/iomoon-files" -mindepth 1 -maxdepth 1 -type d)" "$D/iomoon-files/shared" "shared tree: one subtree for both ranks"
is "$(find "$D/iomoon-files/shared" -type f | wc -l)" "50" "shared tree: 50 files on disk"
tree true io_uring 4 stat,delete,rmdir 2>err
is "$(cat out.1 | tr '\n' '|')" "stat 50 0 0 0 2 25+25 true|delete 50 0 0 50 2 25+25 true|rmdir 2 0 0 0 2 1+1 true|" \
	"shared tree: stat 50, delete 50, rmdir 2, split and merged"
is "$(ls -A "$D")" "" "shared tree: gone after rmdir"

# a mix's ios is the cluster's: split over the ranks (151 + 150)
out=$(mpi "$LUA_DIR/mix.lua" "$D" 2>err)
is "$out" $'301\t151+150\t0' "a mix of ios = 301 over 2 ranks: 301 operations, 151 and 150 per rank, no error"
is "$(ls -A "$D")" "" "the mix's trees removed after"

# refused on every rank, with the message, nothing made
out=$(mpi "$LUA_DIR/refuse.lua" "$D" ios 2>&1); rc=$?
is "$rc" 2 "ios = 1 over 2 ranks: exit 2"
like "$out" "phase.ios: 1 cannot be split over 2 ranks" "the message names ios, the value and why"
is "$(ls -A "$D")" "" "nothing made"
out=$(mpi "$LUA_DIR/refuse.lua" "$D" dir 2>&1); rc=$?
is "$rc" 2 "rank 1's dir missing: exit 2 on every rank"
like "$out" "files.dir: $D/missing is not a directory.*on rank 1 of 2" "the message is rank 1's, naming the rank"
is "$(ls -A "$D")" "" "nothing made on rank 0 either"
out=$(mpi "$LUA_DIR/refuse.lua" "$D" depth 2>&1); rc=$?
is "$rc" 2 "a shared tree's mkdir at depth 2 over 2 ranks: exit 2"
like "$out" "phase.files.depth: 2; a tree shared by 2 ranks makes and removes its directories" "the message says depth 1 only (dirs = N)"
is "$(ls -A "$D")" "" "nothing made"
done_testing

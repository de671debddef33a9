#!/bin/bash
# test: timed (holds a measurement to a bound: make bench-timing runs it alone with IOMOON_TIMING=1)
# iomoon.trace.profile, to_phase and print_profile on traces the test
# writes (tests/lua/trace_profile.lua); the synthetic phase run on sim and
# on a file gives the trace's read share and IOPS. Sequential streams that
# interleave on one device (tests/lua/trace_streams.lua): a PostgreSQL-like
# capture's WAL found, and to_phase's phase of streams run.
. "$(dirname "$0")/lib.sh"
lua_tap "$T/lua/trace_profile.lua" "$T" "$TMP"
lua_tap "$T/lua/trace_streams.lua" "$T" "$TMP"
done_testing

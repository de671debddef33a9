#!/bin/sh
# unit tests in C: see tests/unit/test_trace_profile.c (trace profiles of traces built in memory)
exec "$(dirname "$0")/../${UNIT_DIR:-build}/test_trace_profile"

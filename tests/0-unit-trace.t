#!/bin/sh
# unit tests in C: see tests/unit/test_trace.c
exec "$(dirname "$0")/../${UNIT_DIR:-build}/test_trace"

#!/bin/sh
# unit tests in C: see tests/unit/test_clock.c (make test-asan runs the sanitized build)
exec "$(dirname "$0")/../${UNIT_DIR:-build}/test_clock"

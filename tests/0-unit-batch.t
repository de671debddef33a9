#!/bin/sh
# unit tests in C: see tests/unit/test_batch.c (batch = "auto"'s search on simulated devices)
exec "$(dirname "$0")/../${UNIT_DIR:-build}/test_batch"

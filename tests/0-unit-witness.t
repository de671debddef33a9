#!/bin/sh
# unit tests in C: see tests/unit/test_witness.c (the kernel's device counts, and who set the figures)
exec "$(dirname "$0")/../${UNIT_DIR:-build}/test_witness"

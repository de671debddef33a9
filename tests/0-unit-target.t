#!/bin/sh
# unit tests in C: see tests/unit/test_target.c (a file appearing or replaced between
# inspection and creation, the mark, an interrupted fill)
exec "$(dirname "$0")/../${UNIT_DIR:-build}/test_target"

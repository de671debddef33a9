#!/bin/sh
# unit tests in C: see tests/unit/test_units.c
exec "$(dirname "$0")/../build/test_units"

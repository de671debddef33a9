#!/bin/sh
# unit tests in C: see tests/unit/test_hist.c
exec "$(dirname "$0")/../build/test_hist"

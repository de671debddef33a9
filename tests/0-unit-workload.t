#!/bin/sh
# unit tests in C: see tests/unit/test_workload.c
exec "$(dirname "$0")/../build/test_workload"

#!/usr/bin/env python3
"""kernel_has.py WHAT - does this kernel (and whatever filters its system
calls here) let a process use WHAT? Asks the kernel directly, not iomoon, so
tests can tell a machine without it from an iomoon that gets it wrong.

WHAT: io_uring, sqpoll, defer_taskrun (io_uring set-up flags), libaio.
Exit 0 when it works; 1 when not, with the reason on stdout (for a TAP skip
or an expected refusal); 2 for an architecture or WHAT it does not know.
"""
import ctypes
import os
import platform
import sys

IO_URING_SETUP = 425  # one number on every architecture since Linux 5.1
IO_SETUP = {"x86_64": (206, 207), "aarch64": (0, 1)}  # io_setup, io_destroy
SQPOLL, SINGLE_ISSUER, DEFER_TASKRUN = 1 << 1, 1 << 12, 1 << 13

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def failed(call):
    err = ctypes.get_errno()
    print(f"{call}: {os.strerror(err)}")
    return 1


def uring(flags, idle=0):
    params = ctypes.create_string_buffer(120)  # struct io_uring_params
    ctypes.c_uint32.from_buffer(params, 8).value = flags
    ctypes.c_uint32.from_buffer(params, 16).value = idle
    fd = libc.syscall(IO_URING_SETUP, 2, params)
    if fd < 0:
        return failed("io_uring_setup")
    os.close(fd)
    return 0


def aio():
    nrs = IO_SETUP.get(platform.machine())
    if not nrs:
        print(f"io_setup: no system call number known for {platform.machine()}")
        return 2
    ctx = ctypes.c_ulong(0)
    if libc.syscall(nrs[0], 1, ctypes.byref(ctx)) < 0:
        return failed("io_setup")
    libc.syscall(nrs[1], ctx)
    return 0


PROBES = {
    "io_uring": lambda: uring(0),
    "sqpoll": lambda: uring(SQPOLL, 100),
    "defer_taskrun": lambda: uring(SINGLE_ISSUER | DEFER_TASKRUN),
    "libaio": aio,
}

if len(sys.argv) != 2 or sys.argv[1] not in PROBES:
    print("usage: kernel_has.py " + "|".join(PROBES))
    sys.exit(2)
sys.exit(PROBES[sys.argv[1]]())

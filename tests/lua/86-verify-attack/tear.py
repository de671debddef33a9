#!/usr/bin/env python3
# tear.py FILE UNIT MODE [OLD RECORD]: damage unit UNIT (4 KiB) of FILE
# as a power cut or a scribbling disk would (verify.h's layout: a 32-byte
# header, each later sector a 16-byte tag of generation and offset, each
# sector's own crc32c after the header or tag).
#   futuregen  sectors 4-7 tagged g+1 (never issued), sector 5 scribbled
#   hugegen    sectors 4-7 tagged 2^63, sector 5's bytes 16.. zeroed
#   forged     sectors 4-7 tagged g+2^33 (past any generation issued),
#              their own crc32c made to match
#   torn       sectors 4-7 from OLD (an older write of the unit), and the
#              durability record RECORD told that only OLD's write was
#              made durable there: a genuine tear of a later write
#   inflight   the same, and RECORD told that only OLD's write was issued
#              there too: the later write was in flight at the power cut,
#              issued after the record's last sync, so the record never
#              learnt of it (crash.h)
import struct
import sys

def crc32c(data, crc=0):
    crc ^= 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 & -(crc & 1))
    return crc ^ 0xFFFFFFFF

def sector_crc(s, k):
    at = 16 if k else 32
    b = bytearray(s)
    b[at:at + 4] = bytes(4)
    if not k:
        b[4:8] = bytes(4)
    return crc32c(bytes(b))

path, u, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with open(path, "r+b") as f:
    f.seek(u * 4096)
    b = bytearray(f.read(4096))
    g = struct.unpack_from("<Q", b, 16)[0]
    if mode in ("torn", "inflight"):
        with open(sys.argv[4], "rb") as o:
            o.seek(u * 4096)
            old = o.read(4096)
        b[2048:4096] = old[2048:4096]
        g1 = struct.unpack_from("<Q", old, 16)[0]
        with open(sys.argv[5], "r+b") as r:
            n = struct.unpack_from("<Q", r.read(24), 16)[0]
            r.seek(4096 + 8 * u)
            d = struct.unpack("<Q", r.read(8))[0]
            r.seek(4096 + 8 * u)
            r.write(struct.pack("<Q", min(d, g1)))
            if mode == "inflight":
                r.seek(4096 + 8 * n + 8 * u)
                r.write(struct.pack("<Q", g1))
            assert 0 < g1 < g, (g1, g)
            assert n > u
    else:
        ng = {"futuregen": g + 1, "hugegen": 1 << 63, "forged": g + (1 << 33)}[mode]
        for k in range(4, 8):
            struct.pack_into("<Q", b, 512 * k, ng)
        if mode == "futuregen":
            b[512 * 5 + 16:512 * 5 + 500] = (b"\xde\xad" * 300)[:484]
        elif mode == "hugegen":
            b[512 * 5 + 16:512 * 5 + 512] = bytes(496)
        else:
            for k in range(4, 8):
                s = b[512 * k:512 * k + 512]
                struct.pack_into("<I", b, 512 * k + 16, sector_crc(s, k))
    f.seek(u * 4096)
    f.write(b)

#!/usr/bin/env python3
# Rewrite an uncompressed version 7 trace.dat (little endian) as a zlib
# compressed one: every metadata section compressed, the CPU data in zlib
# chunks of CHUNK pages, as trace-cmd.dat.v7(5) describes. Debian's
# trace-cmd cannot write zlib files; this lets the tests read one whose
# uncompressed twin trace-cmd can report.
#   v7-recompress.py IN OUT
import struct, sys, zlib

CHUNK = 4    # pages per chunk: several chunks per CPU

def u(fmt, b, o):
    return struct.unpack_from('<' + fmt, b, o)

src = open(sys.argv[1], 'rb').read()
assert src[:10] == b'\x17\x08\x44tracing' and src[10:12] == b'7\0' and src[12] == 0
pos = 13
lsize = src[pos]; pos += 1
page, = u('I', src, pos); pos += 4
comp_end = src.index(b'\0', pos); assert src[pos:comp_end] == b'none'
pos = src.index(b'\0', comp_end + 1) + 1
opt_off, = u('Q', src, pos); pos += 8

def section(off):
    sid, flags, sdesc, size = u('HHIQ', src, off)
    assert flags == 0
    return sid, sdesc, src[off + 16: off + 16 + size]

out = bytearray(src[:13]) + bytes([lsize]) + struct.pack('<I', page) + b'zlib\x001.2.13\x00'
opt_at = len(out)
out += b'\0' * 8

def put_section(sid, sdesc, data):
    off = len(out)
    c = zlib.compress(data)
    out.extend(struct.pack('<HHIQ', sid, 1, sdesc, 8 + len(c)))
    out.extend(struct.pack('<II', len(c), len(data)) + c)
    return off

# Walk the options sections, copying each option; sections they point to are
# rewritten compressed and the offsets fixed.
options = []
off = opt_off
while off:
    sid, sdesc, body = section(off)
    assert sid == 0
    p = 0
    off = 0
    while p < len(body):
        oid, osize = u('HI', body, p)
        data = body[p + 6: p + 6 + osize]
        p += 6 + osize
        if oid == 0:
            off, = u('Q', data, 0)
            break
        options.append([oid, data, sdesc])
new_opts = bytearray()
for oid, data, sdesc in options:
    if 16 <= oid <= 21:
        s_id, s_desc, s_body = section(u('Q', data, 0)[0])
        data = struct.pack('<Q', put_section(s_id, s_desc, s_body))
    elif oid == 3:
        boff, = u('Q', data, 0)
        p = 8
        name_end = data.index(b'\0', p); clock_end = data.index(b'\0', name_end + 1)
        head = data[8:clock_end + 1]
        bpage, ncpu = u('II', data, clock_end + 1)
        p = clock_end + 9
        s_id, s_desc, _ = section(boff)
        sec_off = len(out)
        out.extend(struct.pack('<HHIQ', s_id, 1, s_desc, 0))
        while len(out) % bpage:
            out.append(0)
        cpus = bytearray()
        for i in range(ncpu):
            cpu, coff, csize = u('IQQ', data, p)
            p += 20
            raw = src[coff: coff + csize]
            start = len(out)
            chunks = [raw[k: k + CHUNK * bpage] for k in range(0, len(raw), CHUNK * bpage)]
            out.extend(struct.pack('<I', len(chunks)))
            for ch in chunks:
                c = zlib.compress(ch)
                out.extend(struct.pack('<II', len(c), len(ch)) + c)
            cpus += struct.pack('<IQQ', cpu, start, len(out) - start - 4)
        struct.pack_into('<Q', out, sec_off + 8, len(out) - sec_off - 16)
        data = struct.pack('<Q', sec_off) + head + struct.pack('<II', bpage, ncpu) + cpus
    new_opts += struct.pack('<HI', oid, len(data)) + data
new_opts += struct.pack('<HIQ', 0, 8, 0)
struct.pack_into('<Q', out, opt_at, put_section(0, options[0][2] if options else 0, bytes(new_opts)))
open(sys.argv[2], 'wb').write(out)

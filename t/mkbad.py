#!/usr/bin/env python3
# Craft damaged trace.dat files from good ones (little endian), for the
# memory-bound tests (t/unit/t0160-memory-bound.sh):
#   mkbad.py v6-page SIZE IN OUT      header page size SIZE
#   mkbad.py v6-cpus N IN OUT         N CPUs, all pointing at CPU 0's data
#   mkbad.py v7-buffer PAGE N IN OUT  every BUFFER option: page PAGE, N CPUs on CPU 0's data
#   mkbad.py v7-chunk ULEN IN OUT     (compressed) CPU 0's first chunk claims ULEN bytes
#   mkbad.py v7-optloop IN OUT        the options section names itself as the next one
#   mkbad.py v7-bigsec SIZE IN OUT    the first metadata section claims SIZE bytes
import struct, sys, zlib

def u(fmt, b, o):
    return struct.unpack_from('<' + fmt, b, o)

kind = sys.argv[1]
args, src_path, out_path = sys.argv[2:-2], sys.argv[-2], sys.argv[-1]
src = bytearray(open(src_path, 'rb').read())
assert src[:10] == b'\x17\x08\x44tracing'
version = src[10:src.index(b'\0', 10)].decode()

if version == '6':
    if kind == 'v6-page':
        struct.pack_into('<I', src, 14, int(args[0], 0))
        open(out_path, 'wb').write(src)
        sys.exit(0)
    assert kind == 'v6-cpus'
    n = int(args[0], 0)
    p = 18
    p = src.index(b'\0', p) + 1            # "header_page\0"
    size, = u('Q', src, p); p += 8 + size
    p = src.index(b'\0', p) + 1            # "header_event\0"
    size, = u('Q', src, p); p += 8 + size
    cnt, = u('I', src, p); p += 4
    for _ in range(cnt):
        size, = u('Q', src, p); p += 8 + size
    systems, = u('I', src, p); p += 4
    for _ in range(systems):
        p = src.index(b'\0', p) + 1
        cnt, = u('I', src, p); p += 4
        for _ in range(cnt):
            size, = u('Q', src, p); p += 8 + size
    size, = u('I', src, p); p += 4 + size  # kallsyms
    size, = u('I', src, p); p += 4 + size  # printk
    size, = u('Q', src, p); p += 8 + size  # cmdlines
    ncpu, = u('I', src, p)
    cpu_at = p
    p += 4
    tag = bytes(src[p:p + 10])
    opts = b''
    if tag == b'options  \0':
        q = p + 10
        while True:
            oid, = u('H', src, q)
            if oid == 0:
                q += 2
                break
            osize, = u('I', src, q + 2)
            q += 6 + osize
        opts = bytes(src[p:q])
        p = q
    assert bytes(src[p:p + 10]) == b'flyrecord\0'
    off0, size0 = u('QQ', src, p + 10)
    out = bytearray(src[:cpu_at]) + struct.pack('<I', n) + opts + b'flyrecord\0'
    table_at = len(out)
    out += b'\0' * (16 * n) + struct.pack('<Q', 6) + b'local\n'
    page, = u('I', src, 14)
    while len(out) % page:
        out.append(0)
    data_at = len(out)
    out += src[off0:off0 + size0]
    for i in range(n):
        struct.pack_into('<QQ', out, table_at + 16 * i, data_at, size0)
    open(out_path, 'wb').write(out)
    sys.exit(0)

# version 7
p = 13
page, = u('I', src, p + 1)
p += 5
comp_end = src.index(b'\0', p)
comp = bytes(src[p:comp_end])
p = src.index(b'\0', comp_end + 1) + 1
opt_at = p
opt_off, = u('Q', src, p)

def section(off):
    sid, flags, sdesc, size = u('HHIQ', src, off)
    body = bytes(src[off + 16: off + 16 + size])
    if flags & 1:
        clen, ulen = u('II', body, 0)
        body = zlib.decompress(body[8:8 + clen])
    return sid, flags, sdesc, body

def options():
    """[(oid, data)] of every options section, in order."""
    res, off = [], opt_off
    while off:
        sid, flags, sdesc, body = section(off)
        q, off = 0, 0
        while q < len(body):
            oid, osize = u('HI', body, q)
            data = body[q + 6: q + 6 + osize]
            q += 6 + osize
            if oid == 0:
                off, = u('Q', data, 0) if osize >= 8 else (0,)
                break
            res.append((oid, data))
    return res

def put_options(opts, next_off=0, self_loop=False):
    body = bytearray()
    for oid, data in opts:
        body += struct.pack('<HI', oid, len(data)) + data
    at = len(src)
    body += struct.pack('<HIQ', 0, 8, at if self_loop else next_off)
    src.extend(struct.pack('<HHIQ', 0, 0, 0, len(body)) + body)
    struct.pack_into('<Q', src, opt_at, at)

if kind == 'v7-buffer':
    bpage, n = int(args[0], 0), int(args[1], 0)
    new = []
    for oid, data in options():
        if oid == 3:
            name_end = data.index(b'\0', 8)
            clock_end = data.index(b'\0', name_end + 1)
            _, ncpu = u('II', data, clock_end + 1)
            cpu, coff, csize = u('IQQ', data, clock_end + 9)
            cpus = b''.join(struct.pack('<IQQ', i, coff, csize) for i in range(n))
            data = data[:clock_end + 1] + struct.pack('<II', bpage, n) + cpus
        new.append((oid, data))
    put_options(new)
elif kind == 'v7-optloop':
    put_options(options(), self_loop=True)
elif kind == 'v7-chunk':
    assert comp != b'none'
    for oid, data in options():
        if oid == 3:
            clock_end = data.index(b'\0', data.index(b'\0', 8) + 1)
            cpu, coff, csize = u('IQQ', data, clock_end + 9)
            struct.pack_into('<I', src, coff + 8, int(args[0], 0))   # count, clen, ULEN
            break
elif kind == 'v7-bigsec':
    for oid, data in options():
        if 16 <= oid <= 21:
            off, = u('Q', data, 0)
            struct.pack_into('<Q', src, off + 8, int(args[0], 0))
            break
else:
    sys.exit('mkbad.py: unknown kind ' + kind)
open(out_path, 'wb').write(src)

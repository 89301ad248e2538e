#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A trace-cmd protocol v3 sender written from the protocol, for tests of
the collector (ftrecord --listen): well-behaved or hostile.

  net-client.py PORT send FILE.dat [break]   send a v6 trace.dat: its metadata,
                                             its CPU data on TCP data ports;
                                             'break': half the data, no CLOSE
  net-client.py PORT hostile CASE            one hostile client; prints what the
                                             collector did ("closed", "rinit")
  net-client.py PORT many N SECONDS          N connections at once that send
                                             nothing, held SECONDS
  net-client.py PORT tee DIR PORTFILE        between one sender and the collector:
                                             a collector of its own on a port written
                                             to PORTFILE, it passes everything on and
                                             keeps in DIR what the sender sent (tinit,
                                             meta, tail, cpuN)
  net-client.py PORT replay DIR CASE         send what tee kept, the tail as kept
                                             ('intact') or damaged (see damage())
"""
import os
import socket
import struct
import sys
import threading
import time

HOST = "127.0.0.1"
MSG_TINIT, MSG_RINIT, MSG_SEND_DATA, MSG_FIN_DATA, MSG_CLOSE = 1, 2, 3, 4, 0


def msg(cmd, fixed=b"", payload=b"", size=None, cmd_size=None):
    total = 12 + len(fixed) + len(payload)
    return struct.pack(">III", total if size is None else size, cmd,
                       len(fixed) if cmd_size is None else cmd_size) + fixed + payload


def recv_exact(s, n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            raise EOFError
        b += c
    return b


def connect(port):
    s = socket.create_connection((HOST, port), timeout=30)
    if recv_exact(s, 8) != b"tracecmd":
        raise SystemExit("no greeting")
    return s


def v3(s):
    s.sendall(b"-1V3\0")
    if recv_exact(s, 3) != b"V3\0":
        raise SystemExit("no V3")
    s.sendall(b"766679\0\0")
    if recv_exact(s, 2) != b"OK":
        raise SystemExit("no OK")


def rinit(s, ncpus):
    hdr = recv_exact(s, 12)
    size, cmd, csz = struct.unpack(">III", hdr)
    body = recv_exact(s, size - 12)
    if cmd != MSG_RINIT or struct.unpack(">I", body[:4])[0] != ncpus:
        raise SystemExit("bad RINIT")
    return [int(p) for p in body[4:].split(b"\0")[:ncpus]]


def send_file(port, path, brk):
    d = open(path, "rb").read()
    if d[10:12] != b"6\0":
        raise SystemExit("want a v6 file")
    fly = d.find(b"flyrecord\0")
    psz = struct.unpack("<I", d[14:18])[0]
    # the CPU count is the u32 before "options  \0"
    opt = d.find(b"options  \0")
    ncpus = struct.unpack("<I", d[opt - 4:opt])[0]
    table = fly + 10
    cpus = [struct.unpack("<QQ", d[table + 16 * i:table + 16 * i + 16]) for i in range(ncpus)]
    s = connect(port)
    v3(s)
    s.sendall(msg(MSG_TINIT, struct.pack(">III", ncpus, psz, 1), b"tcp\0"))
    ports = rinit(s, ncpus)
    data = [socket.create_connection((HOST, p)) for p in ports]
    meta = d[:fly]
    for i in range(0, len(meta), 8000):
        s.sendall(msg(MSG_SEND_DATA, b"", meta[i:i + 8000]))
    s.sendall(msg(MSG_FIN_DATA))
    for i, (off, size) in enumerate(cpus):
        if brk:
            size = size // 2 + 100	# a partial page at the end
        data[i].sendall(d[off:off + size])
        data[i].close()
    if brk:
        s.close()
        return
    time.sleep(0.2)
    s.sendall(msg(MSG_CLOSE))
    s.close()


def hostile(port, case):
    s = connect(port)
    try:
        if case == "truncated":
            s.sendall(b"-1V")
        elif case == "v1":
            s.sendall(b"2\0" + b"4096\0" + b"0\0")
        elif case == "badmagic":
            s.sendall(b"-1V3\0")
            recv_exact(s, 3)
            s.sendall(b"777777\0\0")
        elif case == "noversion":
            s.sendall(b"x" * 100)
        else:
            v3(s)
            if case == "cpus":
                s.sendall(msg(MSG_TINIT, struct.pack(">III", 0xffffffff, 4096, 0)))
            elif case == "pagesize":
                s.sendall(msg(MSG_TINIT, struct.pack(">III", 2, 0x7fffffff, 0)))
            elif case == "optcount":
                s.sendall(msg(MSG_TINIT, struct.pack(">III", 2, 4096, 1000000), b"tcp\0"))
            elif case == "hugemsg":
                s.sendall(struct.pack(">III", 0xffffffff, MSG_TINIT, 12) + b"\0" * 64)
            elif case == "cmdsize":
                s.sendall(msg(MSG_TINIT, struct.pack(">III", 2, 4096, 0), cmd_size=0xfffffff0))
            elif case == "names":
                # option strings are never names: ignored
                s.sendall(msg(MSG_TINIT, struct.pack(">III", 1, 4096, 2),
                              b"../../../tmp/evil\0/etc/passwd\0"))
                ports = rinit(s, 1)
                s.sendall(msg(MSG_SEND_DATA, b"", b"../../x/" * 100))
                s.sendall(msg(MSG_FIN_DATA))
                s.sendall(msg(MSG_CLOSE))
            elif case == "badmeta":
                # a v7 header whose first options section lies past the end
                s.sendall(msg(MSG_TINIT, struct.pack(">III", 1, 4096, 1), b"tcp\0"))
                rinit(s, 1)
                head = (b"\x17\x08Dtracing7\0\0\x08" + struct.pack("<I", 4096) + b"none\0\0" +
                        struct.pack("<Q", 1 << 60))
                s.sendall(msg(MSG_SEND_DATA, b"", head + b"\0" * 64))
                s.sendall(msg(MSG_FIN_DATA))
                s.sendall(msg(MSG_CLOSE))
            elif case == "metaloop":
                # an options section that links to itself
                s.sendall(msg(MSG_TINIT, struct.pack(">III", 1, 4096, 1), b"tcp\0"))
                rinit(s, 1)
                head = b"\x17\x08Dtracing7\0\0\x08" + struct.pack("<I", 4096) + b"none\0\0"
                at = len(head) + 8
                sec = struct.pack("<HHIQ", 0, 0, 0, 14) + struct.pack("<HIQ", 0, 8, at)
                s.sendall(msg(MSG_SEND_DATA, b"", head + struct.pack("<Q", at) + sec))
                s.sendall(msg(MSG_FIN_DATA))
                s.sendall(msg(MSG_CLOSE))
            elif case == "bigmeta":
                s.sendall(msg(MSG_TINIT, struct.pack(">III", 1, 4096, 1), b"tcp\0"))
                rinit(s, 1)
                chunk = msg(MSG_SEND_DATA, b"", b"\0" * 8000)
                for _ in range(200):	# 1.6 MB, over a 1 MiB limit
                    s.sendall(chunk)
            elif case in ("bigtail", "twotails"):
                # after FIN_DATA, a tail over the 16 MiB limit, or a second one
                s.sendall(msg(MSG_TINIT, struct.pack(">III", 1, 4096, 1), b"tcp\0"))
                hdr = recv_exact(s, 12)
                body = recv_exact(s, struct.unpack(">III", hdr)[0] - 12)
                if body[4:].split(b"\0")[1:2] != [b"ftkit-tail"]:
                    print("no tail offered")
                    return
                s.sendall(msg(MSG_SEND_DATA, b"", b"\0" * 64))
                s.sendall(msg(MSG_FIN_DATA))
                chunk = msg(MSG_SEND_DATA, b"", b"\0" * 8000)
                if case == "twotails":
                    s.sendall(chunk + msg(MSG_FIN_DATA) + chunk)
                else:
                    for _ in range(2200):	# 17.6 MB
                        s.sendall(chunk)
            elif case == "stall":
                s.sendall(msg(MSG_TINIT, struct.pack(">III", 1, 4096, 1), b"tcp\0"))
                rinit(s, 1)
                s.sendall(struct.pack(">I", 100))	# a header cut short, then nothing
            elif case == "garbage":
                s.sendall(bytes(range(256)) * 40)
        s.settimeout(30)
        while s.recv(4096):
            pass
        print("closed")
    except (EOFError, ConnectionResetError, BrokenPipeError):
        print("closed")
    except socket.timeout:
        print("still open")


def many(port, n, secs):
    socks = []
    for _ in range(n):
        try:
            socks.append(socket.create_connection((HOST, port), timeout=10))
        except OSError as e:
            print("connect failed:", e)
            break
    print(len(socks), "connected", flush=True)
    time.sleep(secs)
    for s in socks:
        s.close()


def read_msg(s):
    """One message whole, as sent: (cmd, its bytes)."""
    hdr = recv_exact(s, 12)
    size, cmd, _ = struct.unpack(">III", hdr)
    if size < 12 or size > 8192:
        raise SystemExit("bad message size %d" % size)
    return cmd, hdr + recv_exact(s, size - 12)


def payload(raw):
    return raw[12 + struct.unpack(">I", raw[8:12])[0]:]


def rinit_ports(raw, ncpus):
    """The ports of a RINIT and whether the tail is offered after them."""
    words = payload(raw).split(b"\0")
    return [int(p) for p in words[:ncpus]], words[ncpus:ncpus + 1] == [b"ftkit-tail"]


def tee(port, out, portfile):
    lsock = socket.socket()
    lsock.bind((HOST, 0))
    lsock.listen(1)
    with open(portfile + ".new", "w") as f:
        f.write("%d\n" % lsock.getsockname()[1])
    os.rename(portfile + ".new", portfile)
    lsock.settimeout(60)
    snd, _ = lsock.accept()
    snd.settimeout(60)
    # the sender's side: as a collector
    snd.sendall(b"tracecmd")
    ver = b""
    while not ver.endswith(b"\0"):
        ver += recv_exact(snd, 1)
    if ver != b"-1V3\0":
        raise SystemExit("the sender offered %r" % ver)
    snd.sendall(b"V3\0")
    if recv_exact(snd, 8) != b"766679\0\0":
        raise SystemExit("bad magic from the sender")
    snd.sendall(b"OK")
    cmd, tinit = read_msg(snd)
    if cmd != MSG_TINIT:
        raise SystemExit("no TINIT")
    ncpus = struct.unpack(">I", tinit[12:16])[0]
    open(os.path.join(out, "tinit"), "wb").write(tinit)
    # the collector's side: as a sender, the same TINIT
    col = connect(port)
    v3(col)
    col.sendall(tinit)
    cmd, rinit = read_msg(col)
    if cmd != MSG_RINIT:
        raise SystemExit("no RINIT from the collector")
    cports, tail_ok = rinit_ports(rinit, ncpus)
    lis = []
    for _ in range(ncpus):
        l = socket.socket()
        l.bind((HOST, 0))
        l.listen(1)
        l.settimeout(60)
        lis.append(l)
    body = b"".join(b"%d\0" % l.getsockname()[1] for l in lis)
    if tail_ok:
        body += b"ftkit-tail\0"
    snd.sendall(msg(MSG_RINIT, struct.pack(">I", ncpus), body))

    def relay(cpu):
        a, _ = lis[cpu].accept()
        b = socket.create_connection((HOST, cports[cpu]))
        with open(os.path.join(out, "cpu%d" % cpu), "wb") as f:
            while True:
                d = a.recv(65536)
                if not d:
                    break
                f.write(d)
                b.sendall(d)
        a.close()
        b.close()

    th = [threading.Thread(target=relay, args=(i,)) for i in range(ncpus)]
    for t in th:
        t.start()
    parts = {"meta": b"", "tail": b""}
    fins = 0
    while True:
        cmd, raw = read_msg(snd)
        if cmd == MSG_CLOSE:
            break
        if cmd == MSG_SEND_DATA and fins < 2:
            parts["meta" if fins == 0 else "tail"] += payload(raw)
        elif cmd == MSG_FIN_DATA:
            fins += 1
        col.sendall(raw)
    for t in th:	# the sender ended its data connections before CLOSE
        t.join()
    for k, v in parts.items():
        open(os.path.join(out, k), "wb").write(v)
    col.sendall(msg(MSG_CLOSE))
    col.settimeout(60)
    while col.recv(4096):	# the collector closes once the file is complete
        pass
    col.close()
    snd.close()


def options(tail, fmt):
    """The tail's options: [id, size, data] each (all of it must parse)."""
    opts, pos = [], 0
    while pos < len(tail):
        oid, size = struct.unpack(fmt + "HI", tail[pos:pos + 6])
        opts.append([oid, size, tail[pos + 6:pos + 6 + size]])
        pos += 6 + size
    if pos != len(tail):
        raise SystemExit("the kept tail does not parse")
    return opts


OPT_CMDLINES, OPT_PROCMAPS = 21, 10	# trace-cmd's TRACECMD_OPTION_CMDLINES, _PROCMAPS


def damage(tail, fmt, case):
    """The tail sent for CASE (the ids and layout from the trace.dat v7 format)."""
    if case == "intact":
        return tail
    if case.startswith("short"):	# short1 .. short5: not even one option header
        return tail[:int(case[5:])]
    opts = options(tail, fmt)
    ids = [o[0] for o in opts]
    if case == "overrun":	# the last option one byte longer than what is left
        opts[-1][1] += 1
    elif case == "hugesize":	# the first option's size 0xffffffff
        opts[0][1] = 0xffffffff
    elif case == "cmdlen":	# CMDLINES: its text longer than the option
        o = opts[ids.index(OPT_CMDLINES)]
        o[2] = struct.pack(fmt + "Q", o[1] - 8 + 1) + o[2][8:]
    elif case == "procnul":	# a PROCMAPS without its final NUL
        o = opts[ids.index(OPT_PROCMAPS)]
        o[2] = o[2][:-1] + b"\n"
    else:
        raise SystemExit("unknown case " + case)
    return b"".join(struct.pack(fmt + "HI", i, n) + d for i, n, d in opts)


def replay(port, kept, case):
    rd = lambda n: open(os.path.join(kept, n), "rb").read()
    tinit, meta = rd("tinit"), rd("meta")
    ncpus = struct.unpack(">I", tinit[12:16])[0]
    fmt = ">" if meta[12] else "<"	# after "\x17\x08Dtracing7\0": the byte order
    tail = damage(rd("tail"), fmt, case)
    s = connect(port)
    v3(s)
    s.sendall(tinit)
    cmd, rinit = read_msg(s)
    ports, tail_ok = rinit_ports(rinit, ncpus)
    if cmd != MSG_RINIT or not tail_ok:
        raise SystemExit("no RINIT offering a tail")
    data = [socket.create_connection((HOST, p)) for p in ports]
    for i in range(0, len(meta), 8000):
        s.sendall(msg(MSG_SEND_DATA, b"", meta[i:i + 8000]))
    s.sendall(msg(MSG_FIN_DATA))
    for i, d in enumerate(data):
        d.sendall(rd("cpu%d" % i))
        d.close()
    for i in range(0, len(tail), 8000):
        s.sendall(msg(MSG_SEND_DATA, b"", tail[i:i + 8000]))
    s.sendall(msg(MSG_FIN_DATA))
    s.sendall(msg(MSG_CLOSE))
    s.settimeout(60)
    while s.recv(4096):
        pass
    s.close()


def main():
    port = int(sys.argv[1])
    what = sys.argv[2]
    if what == "send":
        send_file(port, sys.argv[3], len(sys.argv) > 4 and sys.argv[4] == "break")
    elif what == "hostile":
        hostile(port, sys.argv[3])
    elif what == "many":
        many(port, int(sys.argv[3]), float(sys.argv[4]))
    elif what == "tee":
        tee(port, sys.argv[3], sys.argv[4])
    elif what == "replay":
        replay(port, sys.argv[3], sys.argv[4])


if __name__ == "__main__":
    main()

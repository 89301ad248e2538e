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
"""
import socket
import struct
import sys
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


def main():
    port = int(sys.argv[1])
    what = sys.argv[2]
    if what == "send":
        send_file(port, sys.argv[3], len(sys.argv) > 4 and sys.argv[4] == "break")
    elif what == "hostile":
        hostile(port, sys.argv[3])
    elif what == "many":
        many(port, int(sys.argv[3]), float(sys.argv[4]))


if __name__ == "__main__":
    main()

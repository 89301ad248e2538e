#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# The workload of t/interop/t4420-report-futex-net.sh: threads that wake
# and wait on one condition (futex calls: FUTEX_WAKE and FUTEX_WAIT_BITSET,
# private) and loopback traffic (TCP connections over 127.0.0.1 and ::1,
# each through its states; UDP datagrams), for SECONDS (default 1).
# Usage: futex-net-workload.py [SECONDS]
import socket
import sys
import threading
import time

end = time.time() + (float(sys.argv[1]) if len(sys.argv) > 1 else 1.0)
cond = threading.Condition()


def contend():
    while time.time() < end:
        with cond:
            cond.notify_all()
            cond.wait(0.0005)


def echo_server(family, addr):
    s = socket.socket(family, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, 0))
    s.listen(16)

    def serve():
        while True:
            try:
                c, _ = s.accept()
            except OSError:
                return
            c.sendall(c.recv(4096))
            c.close()
    threading.Thread(target=serve, daemon=True).start()
    return s.getsockname()[1]


servers = []
for family, addr in ((socket.AF_INET, '127.0.0.1'), (socket.AF_INET6, '::1')):
    try:
        servers.append((addr, echo_server(family, addr)))
    except OSError as e:  # no IPv6 here: IPv4 alone
        print(f"futex-net-workload: {addr}: {e}", file=sys.stderr)
threads = [threading.Thread(target=contend) for _ in range(4)]
for t in threads:
    t.start()
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.bind(('127.0.0.1', 0))
while time.time() < end:
    for addr, port in servers:
        c = socket.create_connection((addr, port))
        c.sendall(b'x' * 200)
        c.recv(4096)
        c.close()
    u.sendto(b'y' * 64, u.getsockname())
    u.recv(100)
for t in threads:
    t.join()

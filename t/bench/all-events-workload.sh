#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The workload of the `-e all` shape (t/bench/b0100-ftreport.sh,
# t/interop/t5010-ftrecord-ftreport.sh): a short run that touches files,
# direct I/O, sockets, mmap, fork and exec, so that a recording of every
# event the kernel offers holds the events of those paths (kmem, mm,
# block, ext4/jbd2, net, sock, tcp, sched, signal, timer, workqueue, ...).
#
# Usage: all-events-workload.sh DIR [ROUNDS]   (DIR: where a scratch
# directory of its own is made, on a real file system; ROUNDS, default 1,
# scales the run; one round is about 400k events of `ftrecord -e all` on
# an idle 2-CPU host, most of them python's start-up). Without python3 (the test VM) the sockets and
# the mapped file are left out; a step that fails does not stop the rest.
base=${1:?usage: all-events-workload.sh DIR [ROUNDS]}
rounds=${2:-1}
dir=$base/ftk-all-events.$$	# its own, removed at the end
mkdir -p "$dir" || exit 2
for r in $(seq "$rounds"); do
	# files: create, write, fsync, read back, rename, remove
	for i in 1 2 3 4; do
		head -c 65536 /dev/urandom > "$dir/f$i"
		sync "$dir/f$i" 2>/dev/null || sync
		cat "$dir/f$i" > /dev/null
		mv "$dir/f$i" "$dir/g$i"
	done
	rm -f "$dir"/g*
	# direct I/O: written and read around the page cache
	dd if=/dev/zero of="$dir/direct" bs=64k count=8 oflag=direct status=none 2>/dev/null ||
		dd if=/dev/zero of="$dir/direct" bs=64k count=8 status=none
	dd if="$dir/direct" of=/dev/null bs=64k iflag=direct status=none 2>/dev/null || true
	rm -f "$dir/direct"
	# sockets (TCP over loopback and a UNIX pair) and mmap, in one process
	command -v python3 > /dev/null && python3 - "$dir" <<'EOF'
import mmap, os, socket, sys
d = sys.argv[1]
srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.bind(("127.0.0.1", 0))
srv.listen(1)
cli = socket.create_connection(srv.getsockname())
con, _ = srv.accept()
for _ in range(50):
    cli.sendall(b"x" * 4096)
    n = 0
    while n < 4096:
        n += len(con.recv(4096 - n))
for s in (cli, con, srv):
    s.close()
a, b = socket.socketpair()
a.sendall(b"ping")
b.recv(4)
a.close(); b.close()
p = os.path.join(d, "map")
with open(p, "wb") as f:
    f.truncate(1 << 20)
with open(p, "r+b") as f:
    m = mmap.mmap(f.fileno(), 1 << 20)
    for off in range(0, 1 << 20, 4096):
        m[off] = 1
    m.flush()
    m.close()
anon = mmap.mmap(-1, 4 << 20)
for off in range(0, 4 << 20, 4096):
    anon[off] = 1
anon.close()
os.unlink(p)
EOF
	# fork and exec
	for i in $(seq 20); do /bin/true; done
	ls / > /dev/null
	sh -c 'echo $$ > /dev/null' &
	wait
done
rm -rf "$dir"
exit 0

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * net: trace-cmd's network protocol, the collector and the sender.
 *
 * Written from trace-cmd 3.1's behaviour (trace-msg.c, trace-listen.c,
 * trace-record.c) and checked against Debian's trace-cmd 3.1.6; libtracecmd
 * has the protocol but not as an API a collector can drive with bounds of
 * its own, so the messages are done here.
 *
 * The connection, as both ends of trace-cmd 3.1 speak it:
 *
 *	collector: "tracecmd"				8 bytes
 *	sender:    "-1V3\0"				v1 senders send their CPU count here
 *	collector: "V3\0"
 *	sender:    "766679\0\0"				the v3 magic
 *	collector: "OK"
 *	sender:    TINIT {cpus, page_size, opt_num} "tcp\0"	no "tcp": UDP data ports
 *	collector: RINIT {cpus} "port\0" x cpus
 *	sender:    one connection per CPU to its port: raw ring buffer pages
 *	sender:    SEND_DATA x n (the trace.dat up to the CPU data), FIN_DATA
 *	sender:    SEND_DATA x n, FIN_DATA		the tail: ftkit at both ends only
 *	sender:    CLOSE				after the data connections end
 *
 * The tail is what is known only at the end (the names of tasks that
 * started during the recording, --proc-map's maps), sent as trace-cmd
 * sends late options (tracecmd_msg_send_options(): the raw options, the
 * receiver adds the section around them). trace-cmd record -N sends no
 * tail and trace-cmd listen takes none (it answers NOT_SUPP to anything
 * but CLOSE after FIN_DATA), so an ftkit collector says that it takes one:
 * the string "ftkit-tail" after the ports in RINIT (trace-cmd record -N
 * reads the ports it asked for and no further; an option in TINIT instead
 * would make trace-cmd listen print that it does not understand it). An
 * ftkit sender sends a tail only when it read that. Its options: PROCMAPS as in
 * the file, and CMDLINES holding the command lines themselves (size and
 * text, as the CMDLINES section does): the collector writes a CMDLINES
 * section of them after the CPU data and points a CMDLINES option in the
 * last options section at it, which readers take over the first (version
 * 7 only: a version 6 file has its command lines at a fixed place).
 *
 * A message is a header of three big-endian u32 (size of the whole message,
 * command, size of the command's fixed part), the fixed part, then the
 * payload; trace-cmd refuses messages over 8192 bytes, and so does this.
 *
 * Version 1 (before trace-cmd 2.7: no messages, the file sent raw on the
 * control connection) is not spoken: a v1 sender is told nothing and
 * dropped with a message saying so; trace-cmd 3.1 always offers v3 first.
 *
 * The collector takes each connection in a thread of its own with fixed
 * buffers (one message, one page): the metadata goes straight to the file
 * and the CPU data to anonymous files in the same directory, so the memory
 * a connection holds does not depend on what the sender says. Every size,
 * count and offset in a message or in the metadata is checked before use.
 * File names come from the sender's numeric address, never from its data.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <ftkit/net.h>
#include <ftkit/tracewrite.h>

#include "internal.h"
#include "tracefile-local.h"

#define MSG_MAX_LEN	8192
#define MSG_HDR_LEN	12
#define V3_CPU		"-1V3"		/* sent with its NUL: 5 bytes */
#define V3_MAGIC	"766679\0"	/* sent as sizeof(): 8 bytes */
#define MAX_OPTS	32
#define TAIL_OPT	"ftkit-tail"	/* RINIT trailer: the collector takes a tail */
#define TAIL_MAX	(16u << 20)	/* bytes of tail a collector takes */

enum msg_cmd {
	MSG_CLOSE = 0, MSG_TINIT, MSG_RINIT, MSG_SEND_DATA, MSG_FIN_DATA, MSG_NOT_SUPP,
	MSG_TRACE_REQ, MSG_TRACE_RESP, MSG_CLOSE_RESP, MSG_TIME_SYNC, MSG_TRACE_PROXY, MSG_CONT,
	MSG_NR,
};

/* One received message: header fields in host order, the payload in buf. */
struct msg {
	uint32_t	size, cmd, cmd_size;
	uint32_t	fixed[4];	/* the command's fixed part (TINIT: 3, RINIT: 1) */
	uint32_t	len;		/* payload bytes in buf */
	char		buf[MSG_MAX_LEN];
};

/* ------------------------------------------------------------ I/O */

/* Wait until @fd is readable, at most @ms (< 0: forever); 0, -ETIMEDOUT, -errno. */
static int wait_in(int fd, int ms, int stop_fd)
{
	struct pollfd p[2] = { { .fd = fd, .events = POLLIN }, { .fd = stop_fd, .events = POLLIN } };
	int n;

	for (;;) {
		n = poll(p, stop_fd >= 0 ? 2 : 1, ms);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ETIMEDOUT;
		if (stop_fd >= 0 && p[1].revents)
			return -ECANCELED;
		return 0;
	}
}

/* Read exactly @n bytes, each wait at most @ms; -ENOTCONN at EOF. */
static int read_full(int fd, void *p, size_t n, int ms, int stop_fd)
{
	ssize_t r;
	int ret;

	while (n) {
		ret = wait_in(fd, ms, stop_fd);
		if (ret)
			return ret;
		r = read(fd, p, n);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -ENOTCONN;
		p = (char *)p + r;
		n -= r;
	}
	return 0;
}

static int write_full(int fd, const void *p, size_t n)
{
	ssize_t r;

	while (n) {
		r = send(fd, p, n, MSG_NOSIGNAL);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		p = (const char *)p + r;
		n -= r;
	}
	return 0;
}

/* The fixed part's size of each command trace-cmd 3.1 knows. */
static uint32_t cmd_fixed_size(uint32_t cmd)
{
	switch (cmd) {
	case MSG_TINIT:		return 12;
	case MSG_RINIT:		return 4;
	default:		return 0;
	}
}

/* Send @cmd with fixed words @fixed (host order) and payload @p of @n bytes. */
static int msg_send(int fd, uint32_t cmd, const uint32_t *fixed, const void *p, size_t n)
{
	uint32_t fsz = cmd_fixed_size(cmd);
	char out[MSG_MAX_LEN];
	uint32_t w[3 + 3];
	size_t i, total = MSG_HDR_LEN + fsz + n;

	if (total > MSG_MAX_LEN)
		return -EMSGSIZE;
	w[0] = htonl(total);
	w[1] = htonl(cmd);
	w[2] = htonl(fsz);
	for (i = 0; i < fsz / 4; i++)
		w[3 + i] = htonl(fixed[i]);
	memcpy(out, w, MSG_HDR_LEN + fsz);
	if (n)
		memcpy(out + MSG_HDR_LEN + fsz, p, n);
	return write_full(fd, out, total);
}

/*
 * Receive one message, checked: the size within [12, 8192], the fixed part
 * within the size and not shorter than the command's, the command known.
 * -EBADMSG for a message that breaks these.
 */
static int msg_recv(int fd, struct msg *m, int ms, int stop_fd)
{
	uint32_t h[3], want, skip;
	char junk[64];
	int ret, i;

	ret = read_full(fd, h, sizeof(h), ms, stop_fd);
	if (ret)
		return ret;
	m->size = ntohl(h[0]);
	m->cmd = ntohl(h[1]);
	m->cmd_size = ntohl(h[2]);
	if (m->size < MSG_HDR_LEN || m->size > MSG_MAX_LEN || m->cmd >= MSG_NR ||
	    m->cmd_size > m->size - MSG_HDR_LEN)
		return -EBADMSG;
	want = cmd_fixed_size(m->cmd);
	if (m->cmd_size < want)
		return -EBADMSG;
	memset(m->fixed, 0, sizeof(m->fixed));
	if (want) {
		ret = read_full(fd, m->fixed, want, ms, stop_fd);
		if (ret)
			return ret;
		for (i = 0; i < (int)(want / 4); i++)
			m->fixed[i] = ntohl(m->fixed[i]);
	}
	/* A longer fixed part (a newer sender): the rest is skipped. */
	for (skip = m->cmd_size - want; skip; skip -= want) {
		want = skip < sizeof(junk) ? skip : sizeof(junk);
		ret = read_full(fd, junk, want, ms, stop_fd);
		if (ret)
			return ret;
	}
	m->len = m->size - MSG_HDR_LEN - m->cmd_size;
	return m->len ? read_full(fd, m->buf, m->len, ms, stop_fd) : 0;
}

/* "HOST:PORT" of a socket address, numeric. */
static int addr_text(const struct sockaddr *sa, socklen_t len, char *host, size_t hlen,
		     char *port, size_t plen)
{
	return getnameinfo(sa, len, host, hlen, port, plen, NI_NUMERICHOST | NI_NUMERICSERV) ?
	       -EINVAL : 0;
}

static bool same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return !memcmp(&((const struct sockaddr_in *)a)->sin_addr,
			       &((const struct sockaddr_in *)b)->sin_addr, sizeof(struct in_addr));
	if (a->ss_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr,
			       sizeof(struct in6_addr));
	return false;
}

static void set_port(struct sockaddr_storage *a, unsigned int port)
{
	if (a->ss_family == AF_INET)
		((struct sockaddr_in *)a)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)a)->sin6_port = htons(port);
}

static int get_port(const struct sockaddr_storage *a)
{
	return ntohs(a->ss_family == AF_INET ? ((const struct sockaddr_in *)a)->sin_port :
			  ((const struct sockaddr_in6 *)a)->sin6_port);
}

/* ------------------------------------------------------------ collector */

struct ftk_net_collector;

/* One CPU's data connection of a client. */
struct ccpu {
	int		lfd;		/* listening TCP socket, or the UDP socket */
	int		fd;		/* the accepted TCP connection */
	int		spool;		/* anonymous file in the directory */
	uint64_t	bytes;
	bool		eof;
};

struct client {
	struct ftk_net_collector *c;
	pthread_t		thread;
	int			fd;
	struct sockaddr_storage	peer;
	socklen_t		peer_len;
	char			host[NI_MAXHOST], port[NI_MAXSERV];
	char			name[PATH_MAX];	/* the file's name in the directory */
	int			ofd;		/* the file */
	uint64_t		meta_len;
	int			ncpus, udp, version;
	int			tail;		/* anonymous file of the tail, -1: none */
	uint64_t		tail_len;
	uint64_t		data_len;	/* CPU data in the file (whole pages) */
	bool			tail_done;	/* its FIN_DATA came */
	uint32_t		page_size;
	struct ccpu		*cpus;
	char			*page;
	struct msg		m;
	struct ftk_errmsg	err;
	bool			meta_done, closed, done;
	struct client		*next;
};

struct ftk_net_collector {
	struct ftk_net_collector_opts o;
	char			*dir, *prefix;
	int			dirfd, lfd, stop_fd, port;
	pthread_mutex_t		lock;
	struct client		*clients;
	int			nr_clients;
	struct ftk_errmsg	err;
};

static int cfail(struct client *cl, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int cfail(struct client *cl, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ftk_errmsg_vset(&cl->err, FTK_ERRMSG_KEEP, NULL, err, fmt, ap);
	va_end(ap);
	return err;
}

/* The handshake up to TINIT read and checked. */
static int handshake(struct client *cl)
{
	struct ftk_net_collector *c = cl->c;
	int ms = c->o.timeout_ms, ret, i, tries = 0, opts;
	char s[32], magic[8];
	const char *p, *end;
	struct msg *m = &cl->m;

	ret = write_full(cl->fd, "tracecmd", 8);
	if (ret)
		return cfail(cl, ret, "cannot greet: %s", strerror(-ret));
again:
	/* A NUL-terminated string: "-1V3" (v3), a CPU count (v1). */
	for (i = 0; i < (int)sizeof(s); i++) {
		ret = read_full(cl->fd, s + i, 1, ms, c->stop_fd);
		if (ret)
			return cfail(cl, ret, "handshake: %s", strerror(-ret));
		if (!s[i])
			break;
	}
	if (i == (int)sizeof(s))
		return cfail(cl, -EPROTO, "handshake: no version string");
	if (strcmp(s, V3_CPU)) {
		if (!strncmp(s, "-1V", 3) && ++tries < 3) {
			/* another version offered: say which one we speak */
			ret = write_full(cl->fd, "V3", 3);
			if (ret)
				return cfail(cl, ret, "handshake: %s", strerror(-ret));
			goto again;
		}
		if (s[0] >= '0' && s[0] <= '9')
			return cfail(cl, -EPROTONOSUPPORT, "the sender speaks protocol v1 (trace-cmd "
				     "before 2.7): only v3 is supported");
		return cfail(cl, -EPROTO, "handshake: not trace-cmd's protocol");
	}
	ret = write_full(cl->fd, "V3", 3);
	if (!ret)
		ret = read_full(cl->fd, magic, sizeof(magic), ms, c->stop_fd);
	if (ret)
		return cfail(cl, ret, "handshake: %s", strerror(-ret));
	if (memcmp(magic, V3_MAGIC, sizeof(magic)))
		return cfail(cl, -EPROTO, "handshake: bad v3 magic");
	ret = write_full(cl->fd, "OK", 2);
	if (!ret)
		ret = msg_recv(cl->fd, m, ms, c->stop_fd);
	if (ret)
		return cfail(cl, ret, "handshake: %s", ret == -EBADMSG ? "malformed message" :
			     strerror(-ret));
	if (m->cmd != MSG_TINIT)
		return cfail(cl, -EPROTO, "handshake: message %u instead of TINIT", m->cmd);
	if (m->fixed[0] < 1 || m->fixed[0] > (uint32_t)c->o.max_cpus)
		return cfail(cl, -ERANGE, "TINIT: %u CPUs (1 to %d taken)", m->fixed[0],
			     c->o.max_cpus);
	if (m->fixed[1] < 1024 || m->fixed[1] > (1u << 20) || (m->fixed[1] & (m->fixed[1] - 1)))
		return cfail(cl, -ERANGE, "TINIT: page size %u (a power of two, 1 KiB to 1 MiB)",
			     m->fixed[1]);
	if (m->fixed[2] > MAX_OPTS)
		return cfail(cl, -ERANGE, "TINIT: %u options", m->fixed[2]);
	cl->ncpus = m->fixed[0];
	cl->page_size = m->fixed[1];
	cl->udp = 1;
	opts = m->fixed[2];
	if (opts && (!m->len || m->buf[m->len - 1]))
		return cfail(cl, -EBADMSG, "TINIT: options not NUL-terminated");
	for (p = m->buf, end = m->buf + m->len, i = 0; i < opts; i++, p += strlen(p) + 1) {
		if (p >= end)
			return cfail(cl, -EBADMSG, "TINIT: fewer options than announced");
		if (!strcmp(p, "tcp"))
			cl->udp = 0;
		else if (!strcmp(p, "vsock"))
			return cfail(cl, -EPROTONOSUPPORT, "TINIT: vsock data connections not "
				     "supported");
	}
	return 0;
}

/* Bind @fd to @a with port 0, or the first free one of the data port range. */
static int data_port_bind(struct ftk_net_collector *c, int fd, struct sockaddr_storage *a,
			  socklen_t len)
{
	int port;

	if (!c->o.data_port_min) {
		set_port(a, 0);
		return bind(fd, (struct sockaddr *)a, len);
	}
	for (port = c->o.data_port_min; port <= c->o.data_port_max; port++) {
		set_port(a, port);
		if (!bind(fd, (struct sockaddr *)a, len))
			return 0;
		if (errno != EADDRINUSE)
			return -1;
	}
	errno = EADDRINUSE;
	return -1;
}

/* One data socket per CPU on the control connection's local address; RINIT. */
static int open_ports(struct client *cl)
{
	struct sockaddr_storage local;
	socklen_t len = sizeof(local);
	char *ports, *p;
	int cpu, fd, ret;
	uint32_t n = cl->ncpus;

	if (getsockname(cl->fd, (struct sockaddr *)&local, &len) < 0)
		return cfail(cl, -errno, "getsockname: %s", strerror(errno));
	cl->cpus = calloc(cl->ncpus, sizeof(*cl->cpus));
	ports = malloc((size_t)cl->ncpus * 6 + sizeof(TAIL_OPT));
	if (!cl->cpus || !ports) {
		free(ports);
		return cfail(cl, -ENOMEM, "out of memory");
	}
	for (cpu = 0; cpu < cl->ncpus; cpu++)
		cl->cpus[cpu].lfd = cl->cpus[cpu].fd = cl->cpus[cpu].spool = -1;
	p = ports;
	for (cpu = 0; cpu < cl->ncpus; cpu++) {
		struct ccpu *cc = &cl->cpus[cpu];
		struct sockaddr_storage a = local;
		socklen_t alen = len;

		fd = socket(a.ss_family, (cl->udp ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC, 0);
		if (fd >= 0 && data_port_bind(cl->c, fd, &a, len) < 0)
			fd = (close(fd), -1);
		if (fd < 0 || (!cl->udp && listen(fd, 1) < 0) ||
		    getsockname(fd, (struct sockaddr *)&a, &alen) < 0) {
			ret = -errno;
			if (fd >= 0)
				close(fd);
			free(ports);
			return cfail(cl, ret, "cannot open a data port for cpu%d: %s", cpu,
				     strerror(-ret));
		}
		cc->lfd = fd;
		cc->spool = ftk_file_tmp(cl->c->dir);
		if (cc->spool < 0) {
			free(ports);
			return cfail(cl, cc->spool, "cannot make a file in '%s': %s", cl->c->dir,
				     strerror(-cc->spool));
		}
		p += sprintf(p, "%d", get_port(&a)) + 1;
	}
	/* the tail is taken when there is room to say so (not beyond some 1300 CPUs) */
	if (p - ports + sizeof(TAIL_OPT) + MSG_HDR_LEN + 4 <= MSG_MAX_LEN) {
		memcpy(p, TAIL_OPT, sizeof(TAIL_OPT));
		p += sizeof(TAIL_OPT);
	}
	if (p - ports + MSG_HDR_LEN + 4 > MSG_MAX_LEN) {
		free(ports);
		return cfail(cl, -E2BIG, "%d CPUs: the port list does not fit a message", cl->ncpus);
	}
	ret = msg_send(cl->fd, MSG_RINIT, &n, ports, p - ports);
	free(ports);
	return ret ? cfail(cl, ret, "cannot send the ports: %s", strerror(-ret)) : 0;
}

/* Store @n bytes of CPU data, within the limit. */
static int cpu_store(struct client *cl, struct ccpu *cc, const char *p, size_t n)
{
	uint64_t max = cl->c->o.max_cpu_bytes;
	ssize_t w;

	if (max && cc->bytes + n > max)
		return cfail(cl, -EFBIG, "more CPU data than the limit of %llu bytes",
			     (unsigned long long)max);
	while (n) {
		w = write(cc->spool, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return cfail(cl, w < 0 ? -errno : -EIO, "cannot store CPU data in '%s': %s",
				     cl->c->dir, strerror(w < 0 ? errno : EIO));
		cc->bytes += w;
		p += w;
		n -= w;
	}
	return 0;
}

/* Data on a CPU socket: accept the connection, read a chunk or a datagram. */
static int cpu_input(struct client *cl, struct ccpu *cc)
{
	struct sockaddr_storage from;
	socklen_t flen = sizeof(from);
	ssize_t r;
	int fd;

	if (!cl->udp && cc->fd < 0) {
		fd = accept4(cc->lfd, (struct sockaddr *)&from, &flen, SOCK_CLOEXEC);
		if (fd < 0)
			return errno == EINTR || errno == EAGAIN ? 0 : cfail(cl, -errno,
				"accept: %s", strerror(errno));
		if (!same_host(&from, &cl->peer)) {
			close(fd);	/* only the sender's own host may send its data */
			return 0;
		}
		cc->fd = fd;
		close(cc->lfd);
		cc->lfd = -1;
		return 0;
	}
	if (cl->udp) {
		r = recvfrom(cc->lfd, cl->page, cl->page_size, MSG_DONTWAIT | MSG_TRUNC,
			     (struct sockaddr *)&from, &flen);
		if (r < 0)
			return errno == EINTR || errno == EAGAIN ? 0 : cfail(cl, -errno,
				"recvfrom: %s", strerror(errno));
		if (!same_host(&from, &cl->peer) || r > (ssize_t)cl->page_size)
			return 0;	/* someone else's, or not a page: dropped */
		return cpu_store(cl, cc, cl->page, r);
	}
	r = read(cc->fd, cl->page, cl->page_size);
	if (r < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : cfail(cl, -errno,
			"cpu data: %s", strerror(errno));
	if (r == 0) {
		cc->eof = true;
		close(cc->fd);
		cc->fd = -1;
		return 0;
	}
	return cpu_store(cl, cc, cl->page, r);
}

/* Tail bytes (after the metadata's FIN_DATA), within TAIL_MAX, into the tail file. */
static int tail_input(struct client *cl)
{
	struct msg *m = &cl->m;
	ssize_t w;
	size_t off;

	if (cl->tail_done)
		return cfail(cl, -EPROTO, "a second tail");
	if (cl->tail < 0) {
		cl->tail = ftk_file_tmp(cl->c->dir);
		if (cl->tail < 0)
			return cfail(cl, cl->tail, "cannot make a file in '%s': %s", cl->c->dir,
				     strerror(-cl->tail));
	}
	if (cl->tail_len + m->len > TAIL_MAX)
		return cfail(cl, -EFBIG, "a tail longer than the limit of %u bytes", TAIL_MAX);
	for (off = 0; off < m->len; off += w) {
		w = pwrite(cl->tail, m->buf + off, m->len - off, cl->tail_len + off);
		if (w <= 0)
			return cfail(cl, w < 0 ? -errno : -EIO, "cannot store the tail in '%s': %s",
				     cl->c->dir, strerror(w < 0 ? errno : EIO));
	}
	cl->tail_len += m->len;
	return 0;
}

/* A control message after the handshake. */
static int ctrl_input(struct client *cl)
{
	struct ftk_net_collector *c = cl->c;
	struct msg *m = &cl->m;
	ssize_t w;
	size_t off;
	int ret;

	ret = msg_recv(cl->fd, m, c->o.timeout_ms, c->stop_fd);
	if (ret)
		return cfail(cl, ret, "%s", ret == -EBADMSG ? "malformed message" :
			     ret == -ENOTCONN ? "connection closed before CLOSE" :
			     ret == -ETIMEDOUT ? "a message cut short: timed out" : strerror(-ret));
	switch (m->cmd) {
	case MSG_SEND_DATA:
		if (cl->meta_done)
			return tail_input(cl);
		if (cl->meta_len + m->len > c->o.max_meta)
			return cfail(cl, -EFBIG, "more metadata than the limit of %llu bytes",
				     (unsigned long long)c->o.max_meta);
		for (off = 0; off < m->len; off += w) {
			w = pwrite(cl->ofd, m->buf + off, m->len - off, cl->meta_len + off);
			if (w <= 0)
				return cfail(cl, w < 0 ? -errno : -EIO, "cannot write '%s': %s",
					     cl->name, strerror(w < 0 ? errno : EIO));
		}
		cl->meta_len += m->len;
		return 0;
	case MSG_FIN_DATA:
		if (cl->meta_done && cl->tail >= 0)
			cl->tail_done = true;	/* an empty tail is none */
		cl->meta_done = true;
		return 0;
	case MSG_CLOSE:
		cl->closed = true;
		return 0;
	case MSG_NOT_SUPP:
		return 0;
	default:
		return cfail(cl, -EPROTO, "unexpected message %u", m->cmd);
	}
}

/* ---------------------------------------------- completing the file */

/* Reading and writing the sender's metadata in its byte order. */
struct meta {
	int		fd;
	uint64_t	len;
	bool		big;
	uint32_t	page_size;
	int		version;
	char		clock[64];
};

static uint16_t m16(const struct meta *mt, const void *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return mt->big ? be16toh(v) : le16toh(v);
}

static uint32_t m32(const struct meta *mt, const void *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return mt->big ? be32toh(v) : le32toh(v);
}

static uint64_t m64(const struct meta *mt, const void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return mt->big ? be64toh(v) : le64toh(v);
}

static void put16(const struct meta *mt, char *p, uint16_t v)
{
	v = mt->big ? htobe16(v) : htole16(v);
	memcpy(p, &v, 2);
}

static void put32(const struct meta *mt, char *p, uint32_t v)
{
	v = mt->big ? htobe32(v) : htole32(v);
	memcpy(p, &v, 4);
}

static void put64(const struct meta *mt, char *p, uint64_t v)
{
	v = mt->big ? htobe64(v) : htole64(v);
	memcpy(p, &v, 8);
}

static int pread_full(int fd, void *p, size_t n, uint64_t at)
{
	ssize_t r = pread(fd, p, n, at);

	return r == (ssize_t)n ? 0 : r < 0 ? -errno : -EBADMSG;
}

/* The file header: magic, version, byte order, long size, page size; *@after its end. */
static int meta_header(struct client *cl, struct meta *mt, uint64_t *after)
{
	char h[64];
	size_t vl;

	if (mt->len < 32 || pread_full(mt->fd, h, sizeof(h) < mt->len ? sizeof(h) : mt->len, 0))
		return cfail(cl, -EBADMSG, "metadata too short for a trace.dat header");
	if (memcmp(h, TRACEFILE_MAGIC, TRACEFILE_MAGIC_LEN))
		return cfail(cl, -EBADMSG, "metadata is not a trace.dat (bad magic)");
	vl = strnlen(h + 10, 8);
	if (vl == 8 || (strcmp(h + 10, "6") && strcmp(h + 10, "7")))
		return cfail(cl, -EPROTONOSUPPORT, "trace.dat version '%.8s' (6 or 7 taken)",
			     h + 10);
	mt->version = h[10] - '0';
	mt->big = h[10 + vl + 1] != 0;
	mt->page_size = m32(mt, h + 10 + vl + 3);
	if (mt->page_size < 1024 || mt->page_size > (1u << 20) ||
	    (mt->page_size & (mt->page_size - 1)))
		return cfail(cl, -EBADMSG, "metadata page size %u", mt->page_size);
	*after = 10 + vl + 1 + 1 + 1 + 4;
	return 0;
}

/* The clock name in a TRACECLOCK option's text ("[local] global ..."). */
static void clock_of(struct meta *mt, const char *text, size_t n)
{
	const char *a = memchr(text, '[', n), *b;

	if (!a)
		return;
	b = memchr(a, ']', n - (a - text));
	if (b && b - a - 1 > 0 && (size_t)(b - a - 1) < sizeof(mt->clock)) {
		memcpy(mt->clock, a + 1, b - a - 1);
		mt->clock[b - a - 1] = '\0';
	}
}

/*
 * Version 7: follow the options sections from the header to the last one;
 * *@patch is where its DONE option's next-section offset is (0 there). Each
 * section must lie in the metadata and come after the one before (no loop).
 */
static int v7_last_options(struct client *cl, struct meta *mt, uint64_t hdr_end,
			   uint64_t *patch)
{
	char h[600], sec[TRACEFILE_SEC_HDR_LEN], oh[6], *body;
	uint64_t at, end, size, pos, prev = 0;
	uint32_t olen;
	size_t cl1, cl2;
	int ret;

	ret = pread_full(mt->fd, h, mt->len - hdr_end < sizeof(h) ? mt->len - hdr_end : sizeof(h),
			 hdr_end);
	if (ret)
		return cfail(cl, -EBADMSG, "metadata: short version 7 header");
	cl1 = strnlen(h, 300);
	cl2 = cl1 < 300 ? strnlen(h + cl1 + 1, 250) : 250;
	if (cl1 >= 300 || cl2 >= 250 || hdr_end + cl1 + cl2 + 2 + 8 > mt->len)
		return cfail(cl, -EBADMSG, "metadata: bad compression names");
	at = m64(mt, h + cl1 + cl2 + 2);
	for (;;) {
		if (at <= prev || at + TRACEFILE_SEC_HDR_LEN > mt->len)
			return cfail(cl, -EBADMSG, "metadata: options section at %llu out of order "
				     "or outside it", (unsigned long long)at);
		if (pread_full(mt->fd, sec, sizeof(sec), at))
			return cfail(cl, -EBADMSG, "metadata: cannot read a section header");
		if (m16(mt, sec) != TF_OPT_DONE || (m16(mt, sec + 2) & TRACEFILE_SEC_COMPRESSED))
			return cfail(cl, -EBADMSG, "metadata: not an uncompressed options section");
		size = m64(mt, sec + 8);
		end = at + TRACEFILE_SEC_HDR_LEN + size;
		if (size > mt->len || end > mt->len)
			return cfail(cl, -EBADMSG, "metadata: options section past the end");
		for (pos = at + TRACEFILE_SEC_HDR_LEN; ; pos += 6 + olen) {
			if (pos + 6 > end || pread_full(mt->fd, oh, 6, pos))
				return cfail(cl, -EBADMSG, "metadata: options without DONE");
			olen = m32(mt, oh + 2);
			if (olen > end - pos - 6)
				return cfail(cl, -EBADMSG, "metadata: option longer than its section");
			if (m16(mt, oh) == TF_OPT_TRACECLOCK && olen && olen < 512) {
				body = h;
				if (!pread_full(mt->fd, body, olen, pos + 6))
					clock_of(mt, body, olen);
			}
			if (m16(mt, oh) == TF_OPT_DONE)
				break;
		}
		if (olen != 8 || pread_full(mt->fd, oh, 6, pos) || pread_full(mt->fd, h, 8, pos + 6))
			return cfail(cl, -EBADMSG, "metadata: bad DONE option");
		prev = at;
		at = m64(mt, h);
		if (!at) {
			*patch = pos + 6;
			return 0;
		}
	}
}

/* Copy @n bytes of @in from @from to @out at @at. */
static int copy_data(int in, uint64_t from, int out, uint64_t at, uint64_t n)
{
	loff_t ioff = from, ooff = at;
	ssize_t r;

	while (n) {
		r = copy_file_range(in, &ioff, out, &ooff, n, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		n -= r;
	}
	return 0;
}

/*
 * The tail's options one by one: *@pos at the next, its id and size out;
 * 0 at the end, -EBADMSG for one that does not fit in the tail.
 */
static int tail_next(struct client *cl, const struct meta *mt, uint64_t *pos, uint16_t *id,
		     uint32_t *size)
{
	char h[6];

	if (*pos >= cl->tail_len)
		return 0;
	if (cl->tail_len - *pos < 6 || pread_full(cl->tail, h, 6, *pos))
		return -EBADMSG;
	*id = m16(mt, h);
	*size = m32(mt, h + 2);
	if (*size > cl->tail_len - *pos - 6)
		return -EBADMSG;
	*pos += 6;
	return 1;
}

/*
 * The whole tail checked before any of it is used: every option within
 * it, CMDLINES' text within its option, each PROCMAPS NUL-terminated. A
 * tail that breaks one is left out whole and said (the file is kept
 * without it: the names and maps of the metadata sent at the start).
 */
static void tail_check(struct client *cl, const struct meta *mt)
{
	uint64_t pos = 0, at = 0;
	const char *why = NULL;
	uint32_t size;
	uint16_t id;
	char b[8];
	int ret;

	while ((ret = tail_next(cl, mt, &pos, &id, &size)) > 0) {
		if (id == TF_OPT_CMDLINES && (size < 8 || pread_full(cl->tail, b, 8, pos) ||
					      m64(mt, b) > size - 8))
			why = "CMDLINES text longer than its option";
		else if (id == TF_OPT_PROCMAPS && (!size || pread_full(cl->tail, b, 1,
									pos + size - 1) || b[0]))
			why = "PROCMAPS not NUL-terminated";
		if (why)
			break;
		pos += size;
		at = pos;
	}
	if (ret < 0)
		why = "an option past its end";
	if (!why)
		return;
	cfail(cl, -EBADMSG, "the tail (%llu bytes) left out: %s at byte %llu",
	      (unsigned long long)cl->tail_len, why, (unsigned long long)at);
	cl->tail_done = false;
}

/*
 * The tail's CMDLINES option (size and text, checked) as a CMDLINES
 * section at *@at, which moves past it; its offset in *@sec (0: none).
 */
static int tail_cmdlines(struct client *cl, const struct meta *mt, uint64_t *at, uint64_t *sec)
{
	uint64_t pos = 0, n;
	char h[TRACEFILE_SEC_HDR_LEN];
	uint32_t size;
	uint16_t id;
	int ret;

	while (tail_next(cl, mt, &pos, &id, &size) > 0) {
		if (id != TF_OPT_CMDLINES) {
			pos += size;
			continue;
		}
		if (pread_full(cl->tail, h, 8, pos))
			return -EIO;
		n = m64(mt, h);
		put16(mt, h, TF_OPT_CMDLINES);
		put16(mt, h + 2, 0);
		put32(mt, h + 4, 0);
		put64(mt, h + 8, 8 + n);
		ret = pwrite(cl->ofd, h, sizeof(h), *at) == sizeof(h) ? 0 : -EIO;
		if (!ret)
			ret = copy_data(cl->tail, pos, cl->ofd, *at + sizeof(h), 8 + n);
		if (ret)
			return ret;
		*sec = *at;
		*at += sizeof(h) + 8 + n;
		return 0;
	}
	return 0;
}

/* The tail's PROCMAPS options (checked) copied to *@at. */
static int tail_options(struct client *cl, const struct meta *mt, uint64_t *at)
{
	uint64_t pos = 0;
	uint32_t size;
	uint16_t id;
	int ret;

	while (tail_next(cl, mt, &pos, &id, &size) > 0) {
		if (id == TF_OPT_PROCMAPS) {
			ret = copy_data(cl->tail, pos - 6, cl->ofd, *at, 6 + size);
			if (ret)
				return ret;
			*at += 6 + size;
		}
		pos += size;
	}
	return 0;
}

/*
 * Append the CPU data after the metadata, as trace-cmd listen does: version
 * 6 a "flyrecord" with its CPU table and clock; version 7 a BUFFER section
 * and an options section holding its BUFFER option, linked from the last
 * options section. Whole pages only: a connection broken mid-page leaves
 * its partial page out.
 */
static int complete_file(struct client *cl)
{
	struct meta mt = { .fd = cl->ofd, .len = cl->meta_len };
	uint64_t hdr_end = 0, patch = 0, at, sec, optsec, *sizes;
	char *b = NULL, link[8];
	size_t blen, bl;
	int cpu, ret;

	strcpy(mt.clock, "local");
	ret = meta_header(cl, &mt, &hdr_end);
	if (!ret && mt.version == 7)
		ret = v7_last_options(cl, &mt, hdr_end, &patch);
	if (ret)
		return ret;
	cl->version = mt.version;
	sizes = calloc(cl->ncpus, sizeof(*sizes));
	blen = 64 + (size_t)cl->ncpus * 20 + 64 + 14;
	b = malloc(blen);
	if (!sizes || !b) {
		free(sizes);
		free(b);
		return cfail(cl, -ENOMEM, "out of memory");
	}
	for (cpu = 0; cpu < cl->ncpus; cpu++) {
		sizes[cpu] = cl->cpus[cpu].bytes / mt.page_size * mt.page_size;
		cl->data_len += sizes[cpu];
	}

	at = cl->meta_len;
	if (mt.version == 6) {
		char clock[80];
		int clen = snprintf(clock, sizeof(clock), "[%s]\n", mt.clock);

		memcpy(b, TRACEFILE_V6_FLYRECORD, TRACEFILE_V6_TAG_LEN);
		bl = TRACEFILE_V6_TAG_LEN;
		sec = at + bl + 16 * (uint64_t)cl->ncpus + 8 + clen;
		for (cpu = 0; cpu < cl->ncpus; cpu++) {
			sec = (sec + mt.page_size - 1) / mt.page_size * mt.page_size;
			put64(&mt, b + bl, sec);
			put64(&mt, b + bl + 8, sizes[cpu]);
			bl += 16;
			sec += sizes[cpu];
		}
		put64(&mt, b + bl, clen);
		memcpy(b + bl + 8, clock, clen);
		bl += 8 + clen;
		ret = pwrite(cl->ofd, b, bl, at) == (ssize_t)bl ? 0 : -EIO;
		at += bl;
	} else {
		/* the BUFFER section: header, then page aligned data */
		sec = at;
		put16(&mt, b, TF_OPT_BUFFER);
		put16(&mt, b + 2, 0);
		put32(&mt, b + 4, 0);
		put64(&mt, b + 8, 0);
		ret = pwrite(cl->ofd, b, TRACEFILE_SEC_HDR_LEN, at) == TRACEFILE_SEC_HDR_LEN ? 0 :
		      -EIO;
		at += TRACEFILE_SEC_HDR_LEN;
	}
	for (cpu = 0; cpu < cl->ncpus && !ret; cpu++) {
		at = (at + mt.page_size - 1) / mt.page_size * mt.page_size;
		cl->cpus[cpu].bytes = at;	/* now: where its data is */
		ret = copy_data(cl->cpus[cpu].spool, 0, cl->ofd, at, sizes[cpu]);
		at += sizes[cpu];
	}
	if (!ret && mt.version == 7) {
		char sz[8];
		uint64_t cmd_sec = 0;

		put64(&mt, sz, at - sec - TRACEFILE_SEC_HDR_LEN);
		ret = pwrite(cl->ofd, sz, 8, sec + 8) == 8 ? 0 : -EIO;
		if (cl->tail_done)
			tail_check(cl, &mt);
		if (!ret && cl->tail_done)
			ret = tail_cmdlines(cl, &mt, &at, &cmd_sec);
		/* the options section: BUFFER (offset, "", clock, page size, CPUs), the tail's, DONE */
		optsec = at;
		bl = TRACEFILE_SEC_HDR_LEN + 6;
		put64(&mt, b + bl, sec);
		bl += 8;
		b[bl++] = '\0';
		memcpy(b + bl, mt.clock, strlen(mt.clock) + 1);
		bl += strlen(mt.clock) + 1;
		put32(&mt, b + bl, mt.page_size);
		put32(&mt, b + bl + 4, cl->ncpus);
		bl += 8;
		for (cpu = 0; cpu < cl->ncpus; cpu++) {
			put32(&mt, b + bl, cpu);
			put64(&mt, b + bl + 4, cl->cpus[cpu].bytes);
			put64(&mt, b + bl + 12, sizes[cpu]);
			bl += 20;
		}
		put16(&mt, b + TRACEFILE_SEC_HDR_LEN, TF_OPT_BUFFER);
		put32(&mt, b + TRACEFILE_SEC_HDR_LEN + 2, bl - TRACEFILE_SEC_HDR_LEN - 6);
		if (cmd_sec) {
			put16(&mt, b + bl, TF_OPT_CMDLINES);
			put32(&mt, b + bl + 2, 8);
			put64(&mt, b + bl + 6, cmd_sec);
			bl += 14;
		}
		if (!ret)
			ret = pwrite(cl->ofd, b, bl, optsec) == (ssize_t)bl ? 0 : -EIO;
		at = optsec + bl;
		if (!ret && cl->tail_done)
			ret = tail_options(cl, &mt, &at);
		put16(&mt, b, TF_OPT_DONE);
		put32(&mt, b + 2, 8);
		put64(&mt, b + 6, 0);
		if (!ret)
			ret = pwrite(cl->ofd, b, 14, at) == 14 ? 0 : -EIO;
		at += 14;
		put16(&mt, b, TF_OPT_DONE);
		put16(&mt, b + 2, 0);
		put32(&mt, b + 4, 0);
		put64(&mt, b + 8, at - optsec - TRACEFILE_SEC_HDR_LEN);
		if (!ret)
			ret = pwrite(cl->ofd, b, TRACEFILE_SEC_HDR_LEN, optsec) ==
			      TRACEFILE_SEC_HDR_LEN ? 0 : -EIO;
		put64(&mt, link, optsec);
		if (!ret)
			ret = pwrite(cl->ofd, link, 8, patch) == 8 ? 0 : -EIO;
	}
	free(b);
	free(sizes);
	if (ret)
		return cfail(cl, ret, "cannot write '%s': %s", cl->name, strerror(-ret));
	return 0;
}

/* ------------------------------------------------------------ a client */

/* Create DIR/NAME new (a file left there by an earlier sender is replaced, no link followed). */
static int create_file(struct client *cl)
{
	struct ftk_net_collector *c = cl->c;
	struct stat st;
	int fd, tries;

	snprintf(cl->name, sizeof(cl->name), "%s.%s:%s.dat", c->prefix, cl->host, cl->port);
	if (strchr(cl->name, '/'))	/* numeric host and port: never, but checked */
		return cfail(cl, -EINVAL, "bad file name");
	for (tries = 0; tries < 2; tries++) {
		fd = openat(c->dirfd, cl->name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0644);
		if (fd >= 0) {
			cl->ofd = fd;
			return 0;
		}
		if (errno != EEXIST || fstatat(c->dirfd, cl->name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !(S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) ||
		    unlinkat(c->dirfd, cl->name, 0) < 0)
			break;
	}
	return cfail(cl, -errno, "cannot create '%s/%s': %s", c->dir, cl->name, strerror(errno));
}

/* Read the CPU connections after CLOSE until each ends (UDP: what is queued). */
static int drain_cpus(struct client *cl)
{
	struct pollfd *p;
	int cpu, n, ret = 0, open;

	p = calloc(cl->ncpus, sizeof(*p));
	if (!p)
		return -ENOMEM;
	for (;;) {
		open = 0;
		for (cpu = 0; cpu < cl->ncpus; cpu++) {
			struct ccpu *cc = &cl->cpus[cpu];

			p[cpu] = (struct pollfd){ .fd = cl->udp ? cc->lfd : cc->fd, .events = POLLIN };
			if (p[cpu].fd >= 0)
				open++;
		}
		if (!open)
			break;
		n = poll(p, cl->ncpus, cl->udp ? 200 : cl->c->o.timeout_ms);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (cpu = 0; cpu < cl->ncpus && !ret; cpu++)
			if (p[cpu].revents)
				ret = cpu_input(cl, &cl->cpus[cpu]);
		if (ret)
			break;
	}
	free(p);
	return ret;
}

/* The recording: control messages and CPU data until CLOSE, a break or stop. */
static int receive(struct client *cl)
{
	struct ftk_net_collector *c = cl->c;
	int n = cl->ncpus + 2, i, ret = 0, ms;
	struct pollfd *p = calloc(n, sizeof(*p));

	if (!p)
		return cfail(cl, -ENOMEM, "out of memory");
	while (!cl->closed && !ret) {
		p[0] = (struct pollfd){ .fd = cl->fd, .events = POLLIN };
		p[1] = (struct pollfd){ .fd = c->stop_fd, .events = POLLIN };
		for (i = 0; i < cl->ncpus; i++) {
			struct ccpu *cc = &cl->cpus[i];

			p[2 + i] = (struct pollfd){ .fd = cc->fd >= 0 ? cc->fd : cc->lfd,
						    .events = POLLIN };
		}
		/* Until the metadata is in, a silent sender is dropped; then it may record long. */
		ms = cl->meta_done ? -1 : c->o.timeout_ms;
		i = poll(p, n, ms);
		if (i < 0 && errno == EINTR)
			continue;
		if (i < 0) {
			ret = cfail(cl, -errno, "poll: %s", strerror(errno));
			break;
		}
		if (i == 0) {
			ret = cfail(cl, -ETIMEDOUT, "no metadata for %d ms", c->o.timeout_ms);
			break;
		}
		if (p[1].revents) {
			ret = cfail(cl, -ECANCELED, "collector stopped");
			break;
		}
		for (i = 0; i < cl->ncpus && !ret; i++)
			if (p[2 + i].revents)
				ret = cpu_input(cl, &cl->cpus[i]);
		if (!ret && p[0].revents)
			ret = ctrl_input(cl);
	}
	free(p);
	if (!ret)
		ret = drain_cpus(cl);
	return ret;
}

static void client_free(struct client *cl)
{
	int cpu;

	for (cpu = 0; cl->cpus && cpu < cl->ncpus; cpu++) {
		struct ccpu *cc = &cl->cpus[cpu];

		if (cc->lfd >= 0)
			close(cc->lfd);
		if (cc->fd >= 0)
			close(cc->fd);
		if (cc->spool >= 0)
			close(cc->spool);
	}
	if (cl->tail >= 0)
		close(cl->tail);
	free(cl->cpus);
	free(cl->page);
	if (cl->ofd >= 0)
		close(cl->ofd);
	if (cl->fd >= 0)
		close(cl->fd);
	free(cl);
}

/*
 * The sender's host name, as trace-cmd listen names its files (the address
 * when it has none). A name from reverse DNS is the sender's to choose: one
 * with anything but letters, digits, '.', '-' and '_' keeps the address.
 */
static void peer_name(struct client *cl)
{
	char name[NI_MAXHOST];
	size_t i, n;

	if (getnameinfo((struct sockaddr *)&cl->peer, cl->peer_len, name, sizeof(name), NULL, 0,
			NI_NAMEREQD))
		return;
	n = strlen(name);
	if (!n || n > 200 || name[0] == '.')
		return;
	for (i = 0; i < n; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
		      (name[i] >= '0' && name[i] <= '9') || strchr(".-_", name[i])))
			return;
	memcpy(cl->host, name, n + 1);
}

static void *client_main(void *arg)
{
	struct client *cl = arg;
	struct ftk_net_collector *c = cl->c;
	struct ftk_net_report r = { 0 };
	char peer[NI_MAXHOST + NI_MAXSERV + 2];
	int ret, kept;

	peer_name(cl);
	snprintf(peer, sizeof(peer), "%s:%s", cl->host, cl->port);
	ret = handshake(cl);
	if (!ret) {
		cl->page = malloc(cl->page_size);
		ret = cl->page ? open_ports(cl) : cfail(cl, -ENOMEM, "out of memory");
	}
	if (!ret)
		ret = create_file(cl);
	if (!ret)
		ret = receive(cl);
	/* Whatever arrived is kept when the metadata did: ftreport reads it up to the break. */
	kept = cl->ofd >= 0 && cl->meta_done && !complete_file(cl);
	if (cl->ofd >= 0 && !kept) {
		unlinkat(c->dirfd, cl->name, 0);
		if (!ret && !cl->err.text[0])
			ret = cfail(cl, -EBADMSG, "no metadata");
		else if (!ret)
			ret = -EBADMSG;
	}
	r.peer = peer;
	r.path = kept ? cl->name : NULL;
	r.err = ret;
	r.text = cl->err.text;
	r.cpus = cl->ncpus;
	r.version = cl->version;
	if (kept)
		r.bytes = cl->data_len;
	if (c->o.report)
		c->o.report(c->o.report_arg, &r);
	pthread_mutex_lock(&c->lock);
	cl->done = true;
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/* Join and free the clients whose threads ended; all of them with @all. */
static void reap(struct ftk_net_collector *c, bool all)
{
	struct client **pp, *cl;

	pthread_mutex_lock(&c->lock);
	for (pp = &c->clients; (cl = *pp);) {
		if (!cl->done && !all) {
			pp = &cl->next;
			continue;
		}
		*pp = cl->next;
		c->nr_clients--;
		pthread_mutex_unlock(&c->lock);
		pthread_join(cl->thread, NULL);
		client_free(cl);
		pthread_mutex_lock(&c->lock);
	}
	pthread_mutex_unlock(&c->lock);
}

/**
 * ftk_net_collector_new() - bind a collector's port
 * @opts: where the files go and the limits (FTK_OPTS(ftk_net_collector_opts, ...))
 * @out: the collector
 *
 * Binds and listens on @opts->port (TCP), on @opts->addr or every address,
 * and opens the directory the files go to (which must exist). Nothing is
 * accepted before ftk_net_collector_run().
 *
 * Return: 0 and a collector to free with ftk_net_collector_free(), or a
 * negative errno; on failure *@out is still set when the handle could be
 * made, so that ftk_net_collector_errmsg() says why (free it).
 */
FTK_API int ftk_net_collector_new(const struct ftk_net_collector_opts *opts,
				  struct ftk_net_collector **out)
{
	struct addrinfo hints = { .ai_flags = AI_PASSIVE | AI_NUMERICSERV,
				  .ai_socktype = SOCK_STREAM }, *res = NULL, *ai;
	struct ftk_net_collector *c;
	struct sockaddr_storage a;
	socklen_t alen = sizeof(a);
	char port[16];
	int ret, one = 1;

	*out = NULL;
	if (!opts || opts->port < 0 || opts->port > 65535)
		return ftk_err(-EINVAL);
	c = calloc(1, sizeof(*c));
	if (!c)
		return ftk_err(-ENOMEM);
	*out = c;
	memcpy(&c->o, opts, opts->sz < sizeof(c->o) ? opts->sz : sizeof(c->o));
	c->o.sz = sizeof(c->o);
	c->dirfd = c->lfd = c->stop_fd = -1;
	pthread_mutex_init(&c->lock, NULL);
	if (c->o.max_clients <= 0)
		c->o.max_clients = 32;
	if (c->o.timeout_ms <= 0)
		c->o.timeout_ms = 10000;
	if (c->o.max_cpus <= 0 || c->o.max_cpus > 4096)
		c->o.max_cpus = c->o.max_cpus > 4096 ? 4096 : 1024;
	if (!c->o.max_meta)
		c->o.max_meta = 256ull << 20;
	if (c->o.data_port_min < 0 || c->o.data_port_max > 65535 ||
	    c->o.data_port_max < c->o.data_port_min || (!c->o.data_port_min && c->o.data_port_max))
		return ftk_err(-EINVAL);
	c->dir = strdup(c->o.dir ? c->o.dir : ".");
	c->prefix = strdup(c->o.prefix ? c->o.prefix : "trace");
	c->o.dir = c->o.prefix = c->o.addr = NULL;
	if (!c->dir || !c->prefix)
		return ftk_err(-ENOMEM);
	if (!*c->prefix || strchr(c->prefix, '/') || !strcmp(c->prefix, ".") ||
	    !strcmp(c->prefix, ".."))
		return ftk_err(ftk_errmsg_set(&c->err, 0, NULL, -EINVAL, "bad file name prefix "
					      "'%s': no '/'", c->prefix));
	c->dirfd = open(c->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->dirfd < 0)
		return ftk_err(ftk_errmsg_set(&c->err, 0, NULL, -errno, "cannot open '%s': %s",
					      c->dir, strerror(errno)));
	c->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (c->stop_fd < 0)
		return ftk_err(-errno);
	snprintf(port, sizeof(port), "%d", opts->port);
	ret = getaddrinfo(opts->addr, port, &hints, &res);
	if (ret)
		return ftk_err(ftk_errmsg_set(&c->err, 0, NULL, -EADDRNOTAVAIL, "cannot use '%s': %s",
					      opts->addr ? opts->addr : "*", gai_strerror(ret)));
	ret = -EADDRNOTAVAIL;
	/* IPv6 first where it takes IPv4 too ("::" with v6only off). */
	for (ai = res; ai; ai = ai->ai_next) {
		int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);

		if (fd < 0)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 64) < 0) {
			ret = -errno;
			close(fd);
			continue;
		}
		c->lfd = fd;
		break;
	}
	freeaddrinfo(res);
	if (c->lfd < 0)
		return ftk_err(ftk_errmsg_set(&c->err, 0, NULL, ret, "cannot listen on port %d: %s",
					      opts->port, strerror(-ret)));
	if (getsockname(c->lfd, (struct sockaddr *)&a, &alen) == 0)
		c->port = get_port(&a);
	return 0;
}

/**
 * ftk_net_collector_port() - the TCP port the collector listens on
 * @c: the collector
 *
 * Return: the port (the one chosen by the kernel when @opts->port was 0).
 */
FTK_API int ftk_net_collector_port(const struct ftk_net_collector *c)
{
	return c->port;
}

/**
 * ftk_net_collector_clients() - connections being served now
 * @c: the collector
 *
 * Return: how many senders are connected.
 */
FTK_API int ftk_net_collector_clients(struct ftk_net_collector *c)
{
	int n;

	pthread_mutex_lock(&c->lock);
	n = c->nr_clients;
	pthread_mutex_unlock(&c->lock);
	return n;
}

/**
 * ftk_net_collector_run() - accept senders until stopped
 * @c: the collector
 *
 * Each connection is served by a thread of its own: the handshake, one data
 * port per CPU, the metadata into DIR/PREFIX.HOST:PORT.dat, the CPU data
 * into anonymous files in DIR, and at CLOSE (or when the sender goes away
 * after its metadata) the data appended to the file. A connection beyond
 * @opts->max_clients is closed at once; a sender that breaks the protocol,
 * a limit, or stays silent @opts->timeout_ms before its metadata is in, is
 * dropped without disturbing the others. @opts->report is told of each.
 *
 * Context: returns after ftk_net_collector_stop() (from another thread or a
 * signal handler), once every connection's thread has ended.
 *
 * Return: 0, or a negative errno when accepting failed for good.
 */
FTK_API int ftk_net_collector_run(struct ftk_net_collector *c)
{
	struct pollfd p[2] = { { .fd = c->lfd, .events = POLLIN },
			       { .fd = c->stop_fd, .events = POLLIN } };
	struct sockaddr_storage a;
	pthread_attr_t attr;
	struct client *cl;
	socklen_t alen;
	int fd, ret = 0, n, one = 1;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	for (;;) {
		reap(c, false);
		n = poll(p, 2, 1000);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = ftk_errmsg_set(&c->err, 0, NULL, -errno, "poll: %s", strerror(errno));
			break;
		}
		if (p[1].revents)
			break;
		if (!p[0].revents)
			continue;
		alen = sizeof(a);
		fd = accept4(c->lfd, (struct sockaddr *)&a, &alen, SOCK_CLOEXEC);
		if (fd < 0) {
			/* out of fds or memory: the others go on; wait for some to end */
			if (errno == EMFILE || errno == ENFILE || errno == ENOMEM || errno == ENOBUFS)
				poll(&p[1], 1, 100);
			continue;
		}
		if (ftk_net_collector_clients(c) >= c->o.max_clients) {
			struct ftk_net_report r = { .err = -EUSERS,
						    .text = "too many senders: connection refused" };
			char host[NI_MAXHOST], port[NI_MAXSERV], peer[sizeof(host) + sizeof(port)];

			if (!addr_text((struct sockaddr *)&a, alen, host, sizeof(host), port,
				       sizeof(port))) {
				snprintf(peer, sizeof(peer), "%s:%s", host, port);
				r.peer = peer;
				if (c->o.report)
					c->o.report(c->o.report_arg, &r);
			}
			close(fd);
			continue;
		}
		cl = calloc(1, sizeof(*cl));
		if (!cl) {
			close(fd);
			continue;
		}
		cl->c = c;
		cl->fd = fd;
		cl->ofd = -1;
		cl->tail = -1;
		cl->peer = a;
		cl->peer_len = alen;
		setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
		if (addr_text((struct sockaddr *)&a, alen, cl->host, sizeof(cl->host), cl->port,
			      sizeof(cl->port))) {
			client_free(cl);
			continue;
		}
		pthread_mutex_lock(&c->lock);
		cl->next = c->clients;
		c->clients = cl;
		c->nr_clients++;
		pthread_mutex_unlock(&c->lock);
		if (pthread_create(&cl->thread, &attr, client_main, cl)) {
			pthread_mutex_lock(&c->lock);
			c->clients = cl->next;
			c->nr_clients--;
			pthread_mutex_unlock(&c->lock);
			client_free(cl);
		}
	}
	pthread_attr_destroy(&attr);
	reap(c, true);
	return ftk_err(ret);
}

/**
 * ftk_net_collector_stop() - make ftk_net_collector_run() return
 * @c: the collector
 *
 * Connections being served end as they are: those whose metadata is in
 * leave a file with the data received so far.
 *
 * Context: async-signal-safe (one write(2) to an eventfd).
 */
FTK_API void ftk_net_collector_stop(struct ftk_net_collector *c)
{
	uint64_t one = 1;

	if (c && c->stop_fd >= 0 && write(c->stop_fd, &one, sizeof(one)) < 0)
		return;
}

/**
 * ftk_net_collector_errmsg() - why the last call failed
 * @c: the collector
 *
 * Return: the text, owned by @c ("" when there is none).
 */
FTK_API const char *ftk_net_collector_errmsg(const struct ftk_net_collector *c)
{
	return c ? c->err.text : "";
}

/**
 * ftk_net_collector_free() - close a collector
 * @c: the collector, or NULL
 *
 * Call it after ftk_net_collector_run() returned (or instead of running it).
 */
FTK_API void ftk_net_collector_free(struct ftk_net_collector *c)
{
	if (!c)
		return;
	if (c->lfd >= 0)
		close(c->lfd);
	if (c->stop_fd >= 0)
		close(c->stop_fd);
	if (c->dirfd >= 0)
		close(c->dirfd);
	pthread_mutex_destroy(&c->lock);
	free(c->dir);
	free(c->prefix);
	free(c);
}

/* ------------------------------------------------------------ sender */

struct ftk_net_sender {
	int			fd;
	int			ncpus;
	unsigned int		page_size;	/* announced in TINIT */
	bool			tail_ok;	/* the collector takes a tail (RINIT) */
	bool			closed;		/* CLOSE sent */
	int			*cpu_fds;
	struct ftk_errmsg	err;
};

#define SEND_TIMEOUT_MS	10000

static int sfail(struct ftk_net_sender *s, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int sfail(struct ftk_net_sender *s, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ftk_errmsg_vset(&s->err, FTK_ERRMSG_KEEP, NULL, err, fmt, ap);
	va_end(ap);
	return err;
}

/* The v3 handshake and TINIT/RINIT; the ports into @ports. */
static int sender_handshake(struct ftk_net_sender *s, unsigned int page_size,
			    unsigned int *ports)
{
	uint32_t tinit[3] = { s->ncpus, page_size, 1 };
	char buf[16];
	struct msg *m;
	const char *p, *end;
	int ret, cpu;
	long v;

	ret = read_full(s->fd, buf, 8, SEND_TIMEOUT_MS, -1);
	if (ret)
		return sfail(s, ret, "no greeting from the collector: %s", strerror(-ret));
	if (memcmp(buf, "tracecmd", 8))
		return sfail(s, -EPROTO, "not a trace-cmd collector (no \"tracecmd\" greeting)");
	ret = write_full(s->fd, V3_CPU, sizeof(V3_CPU));
	if (!ret)
		ret = read_full(s->fd, buf, 3, SEND_TIMEOUT_MS, -1);
	if (ret)
		return sfail(s, ret, "handshake: %s", strerror(-ret));
	if (memcmp(buf, "V3", 3))
		return sfail(s, -EPROTONOSUPPORT, "the collector speaks only protocol v1 (trace-cmd "
			     "before 2.7): not supported");
	ret = write_full(s->fd, V3_MAGIC, sizeof(V3_MAGIC));
	if (!ret)
		ret = read_full(s->fd, buf, 2, SEND_TIMEOUT_MS, -1);
	if (ret)
		return sfail(s, ret, "handshake: %s", strerror(-ret));
	if (memcmp(buf, "OK", 2))
		return sfail(s, -EPROTO, "handshake: the collector did not accept v3");
	ret = msg_send(s->fd, MSG_TINIT, tinit, "tcp", 4);
	if (ret)
		return sfail(s, ret, "cannot send TINIT: %s", strerror(-ret));
	m = malloc(sizeof(*m));
	if (!m)
		return sfail(s, -ENOMEM, "out of memory");
	ret = msg_recv(s->fd, m, SEND_TIMEOUT_MS, -1);
	if (ret) {
		free(m);
		return sfail(s, ret, "no port list from the collector: %s", ret == -EBADMSG ?
			     "malformed message" : strerror(-ret));
	}
	if (m->cmd != MSG_RINIT || m->fixed[0] != (uint32_t)s->ncpus || !m->len ||
	    m->buf[m->len - 1]) {
		free(m);
		return sfail(s, -EPROTO, "the collector refused the recording (no valid port list)");
	}
	for (p = m->buf, end = m->buf + m->len, cpu = 0; cpu < s->ncpus; cpu++, p += strlen(p) + 1) {
		char *e;

		v = p < end ? strtol(p, &e, 10) : -1;
		if (p >= end || *e || v <= 0 || v > 65535) {
			free(m);
			return sfail(s, -EPROTO, "bad port list from the collector");
		}
		ports[cpu] = v;
	}
	s->tail_ok = p < end && !strcmp(p, TAIL_OPT);
	free(m);
	return 0;
}

/*
 * A data connection to @a. trace-cmd listen's reader of a CPU calls
 * listen(2) in a process it forks, which may run after the port list was
 * sent: a refused connection is tried again, for up to a second.
 */
static int data_connect(const struct sockaddr_storage *a, socklen_t len)
{
	const struct timespec pause = { 0, 20 * 1000000L };
	int fd, tries, err;

	for (tries = 0; tries < 50; tries++) {
		fd = socket(a->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -errno;
		if (connect(fd, (const struct sockaddr *)a, len) == 0)
			return fd;
		err = errno;
		close(fd);
		if (err != ECONNREFUSED)
			return -err;
		nanosleep(&pause, NULL);
	}
	return -ECONNREFUSED;
}

/**
 * ftk_net_sender_open() - connect to a collector for one recording
 * @host: the collector's name or address
 * @port: its port (a number or a service name)
 * @ncpus: the CPUs whose data will be sent (one connection each)
 * @page_size: the ring buffer's page size
 * @out: the sender
 *
 * Connects, speaks protocol v3 (the data connections over TCP) and opens
 * the data connection of every CPU, all to the address the control
 * connection reached.
 *
 * Return: 0 and a sender to free with ftk_net_sender_free(), or a negative
 * errno; *@out is set on failure too when the handle could be made, for
 * ftk_net_sender_errmsg() (free it).
 */
FTK_API int ftk_net_sender_open(const char *host, const char *port, int ncpus,
				unsigned int page_size, struct ftk_net_sender **out)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res = NULL, *ai;
	struct sockaddr_storage peer;
	socklen_t plen = sizeof(peer);
	struct ftk_net_sender *s;
	unsigned int *ports;
	int ret, cpu, fd = -1;

	*out = NULL;
	if (!host || !port || ncpus < 1 || ncpus > 4096 || page_size < 1024)
		return ftk_err(-EINVAL);
	s = calloc(1, sizeof(*s));
	if (!s)
		return ftk_err(-ENOMEM);
	*out = s;
	s->fd = -1;
	s->ncpus = ncpus;
	s->page_size = page_size;
	ret = getaddrinfo(host, port, &hints, &res);
	if (ret)
		return ftk_err(sfail(s, -EHOSTUNREACH, "cannot find '%s:%s': %s", host, port,
				     gai_strerror(ret)));
	ret = -ECONNREFUSED;
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		ret = -errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		return ftk_err(sfail(s, ret, "cannot connect to '%s:%s': %s", host, port,
				     strerror(-ret)));
	s->fd = fd;
	s->cpu_fds = malloc(ncpus * sizeof(int));
	ports = calloc(ncpus, sizeof(*ports));
	if (!s->cpu_fds || !ports) {
		free(ports);
		return ftk_err(sfail(s, -ENOMEM, "out of memory"));
	}
	for (cpu = 0; cpu < ncpus; cpu++)
		s->cpu_fds[cpu] = -1;
	ret = sender_handshake(s, page_size, ports);
	if (!ret && getpeername(s->fd, (struct sockaddr *)&peer, &plen) < 0)
		ret = sfail(s, -errno, "getpeername: %s", strerror(errno));
	for (cpu = 0; !ret && cpu < ncpus; cpu++) {
		struct sockaddr_storage a = peer;

		set_port(&a, ports[cpu]);
		fd = data_connect(&a, plen);
		if (fd < 0) {
			ret = sfail(s, fd, "cannot connect cpu%d's data port %u: %s", cpu,
				    ports[cpu], strerror(-fd));
			break;
		}
		s->cpu_fds[cpu] = fd;
	}
	free(ports);
	return ftk_err(ret);
}

/**
 * ftk_net_sender_cpu_fd() - the data connection of a CPU
 * @s: the sender
 * @cpu: the CPU
 *
 * Write (or splice) whole ring buffer pages of @cpu here, as read from
 * trace_pipe_raw (ftk_capture_opts.cpu_fds does).
 *
 * Return: the socket, owned by @s; -EINVAL for a CPU out of range.
 */
FTK_API int ftk_net_sender_cpu_fd(const struct ftk_net_sender *s, int cpu)
{
	if (cpu < 0 || cpu >= s->ncpus)
		return ftk_err(-EINVAL);
	return s->cpu_fds[cpu];
}

/**
 * ftk_net_sender_meta() - send the metadata
 * @s: the sender
 * @fd: a file holding it (from offset 0 to its end): a trace.dat written
 *	with FTK_TRACEWRITE_META_ONLY
 *
 * Sends it in SEND_DATA messages, then FIN_DATA. Call it once, early: trace-cmd
 * listen drops a sender whose metadata does not come within seconds.
 *
 * Return: 0, or a negative errno with the reason in ftk_net_sender_errmsg().
 */
FTK_API int ftk_net_sender_meta(struct ftk_net_sender *s, int fd)
{
	const size_t chunk = MSG_MAX_LEN - MSG_HDR_LEN;
	char buf[MSG_MAX_LEN];
	off_t off = 0;
	ssize_t r;
	int ret;

	for (;;) {
		r = pread(fd, buf, chunk, off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return ftk_err(sfail(s, -errno, "cannot read the metadata: %s",
					     strerror(errno)));
		if (r == 0)
			break;
		ret = msg_send(s->fd, MSG_SEND_DATA, NULL, buf, r);
		if (ret)
			return ftk_err(sfail(s, ret, "cannot send the metadata: %s", strerror(-ret)));
		off += r;
	}
	ret = msg_send(s->fd, MSG_FIN_DATA, NULL, NULL, 0);
	return ftk_err(ret ? sfail(s, ret, "cannot send the metadata: %s", strerror(-ret)) : 0);
}

/**
 * ftk_net_sender_tail() - send what is known only at the end
 * @s: the sender
 * @w: a writer of the recording's buffer (ftk_tracewrite_new()), holding
 *	what ftk_tracewrite_comm() and ftk_tracewrite_procmaps() added, made
 *	from metadata read at the end (ftk_tracemeta_new()): its command
 *	lines are the ones sent
 *
 * Sends the names of the tasks seen so far (saved_cmdlines and @w's) and
 * @w's process maps after the recording, before ftk_net_sender_close(), to
 * a collector that takes them (ftrecord --listen): it stores them in the
 * file (version 7) and readers take these names over those sent at the
 * start. trace-cmd listen takes nothing after the metadata.
 *
 * Return: 0; -EOPNOTSUPP when the collector takes no tail (nothing sent),
 * or another negative errno with the reason in ftk_net_sender_errmsg().
 */
FTK_API int ftk_net_sender_tail(struct ftk_net_sender *s, struct ftk_tracewrite *w)
{
	int fd, ret;

	if (!s->tail_ok)
		return ftk_err(sfail(s, -EOPNOTSUPP, "the collector takes nothing after the "
				     "metadata (trace-cmd listen)"));
	fd = memfd_create("ftk-net-tail", MFD_CLOEXEC);
	if (fd < 0)
		return ftk_err(sfail(s, -errno, "cannot make the tail: %s", strerror(errno)));
	ret = tf_write_tail(w, fd);
	if (ret)
		ret = sfail(s, ret, "cannot make the tail: %s", ftk_tracewrite_errmsg(w)[0] ?
			    ftk_tracewrite_errmsg(w) : strerror(-ret));
	else
		ret = ftk_net_sender_meta(s, fd);
	close(fd);
	return ftk_err(ret);
}

/* How long ftk_net_sender_write() waits for the collector to finish its file. */
#define WRITE_DONE_MS	30000

/* The collector ended the connection (its file is complete), or @ms passed: 0 or -ETIMEDOUT. */
static int wait_peer_end(int fd, int ms)
{
	char buf[256];
	ssize_t r;
	int ret;

	for (;;) {
		ret = wait_in(fd, ms, -1);
		if (ret)
			return ret;
		r = read(fd, buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return 0;
	}
}

static void close_data(struct ftk_net_sender *s)
{
	int cpu;

	for (cpu = 0; cpu < s->ncpus; cpu++)
		if (s->cpu_fds[cpu] >= 0) {
			close(s->cpu_fds[cpu]);
			s->cpu_fds[cpu] = -1;
		}
}

/**
 * ftk_net_sender_write() - send a recording held whole by a trace.dat writer, and end it
 * @s: the sender, just opened (nothing sent on it yet)
 * @w: a writer holding the recording as ftk_tracewrite_save() would write
 *	it: its metadata (ftk_tracemeta_new(), made when the data was taken)
 *	and its top buffer's CPU data (ftk_capture_add_to(), ftk_tracewrite_add()),
 *	with what ftk_tracewrite_comm(), _date() or _procmaps() added
 *
 * For a recording that is complete before it is sent, such as a flight
 * recorder's window: each CPU's pages on its data connection, then the
 * metadata, as FTK_TRACEWRITE_META_ONLY makes it (built in memory, a
 * memfd), in SEND_DATA messages and FIN_DATA, then CLOSE. Everything is
 * known by then, so nothing needs a tail. The call returns once the
 * collector ended the connection, its file complete (or after 30 s): the
 * file is the one ftk_tracewrite_save() would have written (uncompressed
 * data: a collector stores the pages as sent). ftk_net_sender_close()
 * after it does nothing.
 *
 * The data connections stay open until CLOSE is sent: trace-cmd listen
 * reads the metadata in a process that a reader's exit (at the end of its
 * data) interrupts, and stops its readers a second after CLOSE; so with
 * it they are closed once it ended the connection, with ftrecord --listen
 * (which reads each to its end after CLOSE) right after CLOSE.
 *
 * Return: 0; -EINVAL when @w holds several buffers (a connection each is
 * the protocol's way) or a CPU count or page size other than @s announced;
 * or another negative errno. The reason is in ftk_net_sender_errmsg().
 */
FTK_API int ftk_net_sender_write(struct ftk_net_sender *s, struct ftk_tracewrite *w)
{
	uint32_t psz;
	int fd, ret = 0, cpu, ncpus;

	if (s->closed)
		return ftk_err(sfail(s, -EINVAL, "the recording was ended already"));
	if (tf_write_layout(w, &ncpus, &psz))
		return ftk_err(sfail(s, -EINVAL, "the recording holds several buffers or no data: "
				     "a connection per buffer"));
	if (ncpus != s->ncpus || psz != s->page_size)
		return ftk_err(sfail(s, -EINVAL, "the recording has %d CPUs and pages of %u bytes; "
				     "the collector was told %d and %u", ncpus, psz, s->ncpus,
				     s->page_size));
	for (cpu = 0; cpu < s->ncpus && !ret; cpu++) {
		ret = tf_write_cpu(w, cpu, s->cpu_fds[cpu]);
		if (ret)
			ret = sfail(s, ret, "cannot send cpu%d's pages: %s", cpu, strerror(-ret));
	}
	if (ret)
		return ftk_err(ret);
	fd = memfd_create("ftk-net-meta", MFD_CLOEXEC);
	if (fd < 0)
		return ftk_err(sfail(s, -errno, "cannot make the metadata: %s", strerror(errno)));
	ret = tf_write_meta(w, fd);
	if (ret)
		ret = sfail(s, ret, "%s", ftk_tracewrite_errmsg(w)[0] ? ftk_tracewrite_errmsg(w) :
			    strerror(-ret));
	else
		ret = ftk_net_sender_meta(s, fd);
	close(fd);
	if (!ret) {
		ret = msg_send(s->fd, MSG_CLOSE, NULL, NULL, 0);
		if (ret)
			ret = sfail(s, ret, "cannot send CLOSE: %s", strerror(-ret));
	}
	if (ret)
		return ftk_err(ret);
	s->closed = true;
	shutdown(s->fd, SHUT_WR);
	/* (tail_ok: the RINIT of ftrecord --listen) */
	if (s->tail_ok)
		close_data(s);
	if (wait_peer_end(s->fd, WRITE_DONE_MS))
		pr_warn("%s: the collector did not end the connection within %d s of CLOSE\n",
			"ftk_net_sender_write", WRITE_DONE_MS / 1000);
	close_data(s);
	return 0;
}

/**
 * ftk_net_sender_close() - end the recording
 * @s: the sender
 *
 * Ends every data connection (after what was written to it), then sends
 * CLOSE: the collector completes its file.
 *
 * Return: 0, or a negative errno with the reason in ftk_net_sender_errmsg().
 */
FTK_API int ftk_net_sender_close(struct ftk_net_sender *s)
{
	int ret;

	if (s->closed)
		return 0;	/* ftk_net_sender_write() did */
	close_data(s);
	ret = msg_send(s->fd, MSG_CLOSE, NULL, NULL, 0);
	if (ret)
		return ftk_err(sfail(s, ret, "cannot send CLOSE: %s", strerror(-ret)));
	s->closed = true;
	shutdown(s->fd, SHUT_WR);
	return 0;
}

/**
 * ftk_net_sender_errmsg() - why the last call failed
 * @s: the sender
 *
 * Return: the text, owned by @s ("" when there is none).
 */
FTK_API const char *ftk_net_sender_errmsg(const struct ftk_net_sender *s)
{
	return s ? s->err.text : "";
}

/**
 * ftk_net_sender_free() - close a sender
 * @s: the sender, or NULL
 *
 * Without ftk_net_sender_close() first, the collector sees the connection
 * break and keeps what it received.
 */
FTK_API void ftk_net_sender_free(struct ftk_net_sender *s)
{
	int cpu;

	if (!s)
		return;
	for (cpu = 0; s->cpu_fds && cpu < s->ncpus; cpu++)
		if (s->cpu_fds[cpu] >= 0)
			close(s->cpu_fds[cpu]);
	free(s->cpu_fds);
	if (s->fd >= 0)
		close(s->fd);
	free(s);
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * net: trace-cmd's network protocol ("tracecmd msg", version 3), both ends.
 *
 * A sender (ftrecord -N, trace-cmd record -N) connects to a collector
 * (ftrecord --listen, trace-cmd listen), says how many CPUs it has and its
 * page size, gets one data port per CPU back, streams each CPU's raw ring
 * buffer pages on its own connection, sends the trace.dat metadata (up to
 * the CPU data) in SEND_DATA messages ended by FIN_DATA, and at the end
 * CLOSE. The collector writes one trace.dat per connection, named
 * PREFIX.HOST:PORT.dat after the sender's address, as trace-cmd listen does.
 *
 * The protocol has no authentication and no encryption (as trace-cmd's):
 * run the collector on a trusted network or behind ssh port forwarding.
 *
 * Collector:
 *	ftk_net_collector_new(&opts, &c);	binds, listens
 *	ftk_net_collector_run(c);		until ftk_net_collector_stop()
 *	ftk_net_collector_free(c);
 *
 * Sender:
 *	ftk_net_sender_open(host, port, ncpus, page_size, &s);	handshake, data connections
 *	ftk_net_sender_cpu_fd(s, cpu);		write each CPU's pages here
 *	ftk_net_sender_meta(s, fd);		the metadata (FTK_TRACEWRITE_META_ONLY)
 *	... record ...
 *	ftk_net_sender_tail(s, w);		late names and maps (ftrecord --listen only)
 *	ftk_net_sender_close(s);		data connections shut, CLOSE sent
 *	ftk_net_sender_free(s);
 *
 * A recording that is whole before it is sent (a flight recorder's window,
 * held by a trace.dat writer) goes on one connection of its own:
 *	ftk_net_sender_open(host, port, ncpus, page_size, &s);
 *	ftk_net_sender_write(s, w);		each CPU's pages, metadata, CLOSE;
 *						back when the collector has the file
 *	ftk_net_sender_free(s);
 */
#ifndef FTKIT_NET_H
#define FTKIT_NET_H

#include <stdint.h>

#include <ftkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ftk_net_collector;
struct ftk_net_sender;

/* What became of one connection, for the collector's report callback. */
struct ftk_net_report {
	const char	*peer;		/* "HOST:PORT" */
	const char	*path;		/* the file written, or NULL when none was */
	int		err;		/* 0: closed normally; else why it ended (-errno) */
	const char	*text;		/* the reason, or what a file written was
					 * left without (err 0: a tail that did not
					 * parse), or "" */
	uint64_t	bytes;		/* CPU data stored (whole pages) */
	int		cpus;		/* CPUs the sender announced */
	int		version;	/* trace.dat version the sender sent (6 or 7), 0: none */
};

struct ftk_net_collector_opts {
	size_t		sz;
	const char	*dir;		/* directory of the files; NULL: "." */
	const char	*prefix;	/* file names PREFIX.HOST:PORT.dat; NULL: "trace" */
	const char	*addr;		/* address to bind; NULL: every address */
	int		port;		/* TCP port; 0: any (see ftk_net_collector_port()) */
	int		max_clients;	/* connections at once; 0: 32; more are closed at once */
	int		timeout_ms;	/* handshake and metadata: a client silent this long is
					 * dropped; 0: 10000 */
	int		max_cpus;	/* CPUs a sender may announce; 0: 1024 */
	uint64_t	max_meta;	/* metadata bytes per connection; 0: 256 MiB */
	uint64_t	max_cpu_bytes;	/* CPU data per CPU per connection; 0: no limit */
	/*
	 * Data ports from this range (the first free ones), for a firewall or
	 * ssh forwarding; 0: any the kernel gives.
	 */
	int		data_port_min, data_port_max;
	/* Called from the connection's thread when it ends; may be NULL. */
	void		(*report)(void *arg, const struct ftk_net_report *r);
	void		*report_arg;
};

FTK_API int ftk_net_collector_new(const struct ftk_net_collector_opts *opts,
				  struct ftk_net_collector **out);
FTK_API int ftk_net_collector_port(const struct ftk_net_collector *c);
FTK_API int ftk_net_collector_run(struct ftk_net_collector *c);
FTK_API void ftk_net_collector_stop(struct ftk_net_collector *c);
FTK_API int ftk_net_collector_clients(struct ftk_net_collector *c);
FTK_API const char *ftk_net_collector_errmsg(const struct ftk_net_collector *c);
FTK_API void ftk_net_collector_free(struct ftk_net_collector *c);

FTK_API int ftk_net_sender_open(const char *host, const char *port, int ncpus,
				unsigned int page_size, struct ftk_net_sender **out);
FTK_API int ftk_net_sender_cpu_fd(const struct ftk_net_sender *s, int cpu);
FTK_API int ftk_net_sender_meta(struct ftk_net_sender *s, int fd);
struct ftk_tracewrite;
FTK_API int ftk_net_sender_tail(struct ftk_net_sender *s, struct ftk_tracewrite *w);
FTK_API int ftk_net_sender_write(struct ftk_net_sender *s, struct ftk_tracewrite *w);
FTK_API int ftk_net_sender_close(struct ftk_net_sender *s);
FTK_API const char *ftk_net_sender_errmsg(const struct ftk_net_sender *s);
FTK_API void ftk_net_sender_free(struct ftk_net_sender *s);

#ifdef __cplusplus
}
#endif
#endif

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trace.dat format constants (trace-cmd.dat.v6(5), trace-cmd.dat.v7(5)),
 * shared by the reader and the writer.
 */
#ifndef FTKIT_TRACEFILE_LOCAL_H
#define FTKIT_TRACEFILE_LOCAL_H

#define TRACEFILE_MAGIC		"\027\010\104tracing"	/* 10 bytes */
#define TRACEFILE_MAGIC_LEN	10

#define TRACEFILE_V6_OPTIONS	"options  "	/* 10 bytes with the NUL */
#define TRACEFILE_V6_FLYRECORD	"flyrecord"
#define TRACEFILE_V6_LATENCY	"latency  "

/* Section header flags (v7). */
#define TRACEFILE_SEC_COMPRESSED	(1 << 0)

/* Option (and v7 section) ids. */
enum tracefile_option {
	TF_OPT_DONE		= 0,
	TF_OPT_DATE		= 1,
	TF_OPT_CPUSTAT		= 2,
	TF_OPT_BUFFER		= 3,
	TF_OPT_TRACECLOCK	= 4,
	TF_OPT_UNAME		= 5,
	TF_OPT_HOOK		= 6,
	TF_OPT_OFFSET		= 7,
	TF_OPT_CPUCOUNT		= 8,
	TF_OPT_VERSION		= 9,
	TF_OPT_PROCMAPS		= 10,
	TF_OPT_TRACEID		= 11,
	TF_OPT_TIME_SHIFT	= 12,
	TF_OPT_GUEST		= 13,
	TF_OPT_TSC2NSEC		= 14,
	TF_OPT_STRINGS		= 15,
	TF_OPT_HEADER_INFO	= 16,
	TF_OPT_FTRACE_EVENTS	= 17,
	TF_OPT_EVENT_FORMATS	= 18,
	TF_OPT_KALLSYMS		= 19,
	TF_OPT_PRINTK		= 20,
	TF_OPT_CMDLINES		= 21,
	TF_OPT_BUFFER_TEXT	= 22,
};

#endif

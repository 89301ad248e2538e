// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the kernel tells user space about turning TSC cycles into
 * nanoseconds: a perf event's mmap page, as trace-cmd record reads it for
 * its TSC2NSEC option. Prints "cap_user_time MULT SHIFT" when the kernel
 * sets cap_user_time, "none" when it does not, and exits 0; exits 2 when
 * no perf event can be opened. t4167 checks ftrecord's files against it.
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	struct perf_event_attr a;
	struct perf_event_mmap_page *pg;
	long psz = sysconf(_SC_PAGESIZE);
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.exclude_kernel = 1;
	fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		perror("tsc-caps: perf_event_open");
		return 2;
	}
	pg = mmap(NULL, psz, PROT_READ, MAP_SHARED, fd, 0);
	if (pg == MAP_FAILED) {
		perror("tsc-caps: mmap");
		return 2;
	}
	if (pg->cap_user_time && pg->time_mult)
		printf("cap_user_time %u %u\n", pg->time_mult, (unsigned int)pg->time_shift);
	else
		printf("none\n");
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the ELF reader as the profiler uses it: the input is
 * an object mapped into a made-up process; addresses across it are named
 * (program headers, symbol tables, sections, the build-id note and
 * .gnu_debuglink), a stack is unwound through its .eh_frame_hdr and
 * .eh_frame (libunwind over our accessors), and a uprobe offset is looked
 * up in it. Build and run with t/fuzz/run.sh elf.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <asm/perf_regs.h>

#include <ftkit/ftkit.h>

#include "elf-local.h"

#define BASE	0x400000ULL
#define PID	0x7ffffff0

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/ftk-fuzz-XXXXXX", err[256];
	static unsigned char stack[512];
	struct ftk_symbols *s;
	struct ftk_unwind *u;
	struct ftk_sample smp;
	struct ftk_frame f;
	uint64_t ips[64], off;
	uint32_t ip = 0;
	int fd, i;

	if (size < 8)
		return 0;
	setenv("FTK_DEBUG_DIR", "/nonexistent", 1);
	fd = mkstemp(path);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		unlink(path);
		return 0;
	}
	close(fd);
	if (ftk_symbols_new(FTK_SYMBOLS_NO_PROC | FTK_SYMBOLS_NO_KERNEL, &s))
		goto out;
	ftk_symbols_mmap(s, PID, BASE, 1 << 24, 0, path, 0, 0, 0);
	for (i = 0; i < 32; i++)
		ftk_symbols_resolve(s, PID, BASE + (uint64_t)i * size / 32, &f);
	/* A sample whose IP the input's last bytes give, its stack the input's first. */
	memcpy(&ip, data + size - 4, 4);
	memset(&smp, 0, sizeof(smp));
	smp.type = PERF_RECORD_SAMPLE;
	smp.pid = smp.tid = PID;
	smp.regs_abi = PERF_SAMPLE_REGS_ABI_64;
	smp.regs_mask = 1ULL << PERF_REG_X86_IP | 1ULL << PERF_REG_X86_SP | 1ULL << PERF_REG_X86_BP;
	smp.regs[PERF_REG_X86_IP] = BASE + ip % (1 << 24);
	smp.regs[PERF_REG_X86_SP] = 0x7ff000000000ULL;
	smp.regs[PERF_REG_X86_BP] = 0x7ff000000000ULL + 64;
	memset(stack, 0, sizeof(stack));
	memcpy(stack, data, size < sizeof(stack) ? size : sizeof(stack));
	smp.stack = stack;
	smp.stack_size = sizeof(stack);
	if (!ftk_unwind_new(s, &u)) {
		ftk_unwind_user(u, &smp, ips, 64);
		ftk_unwind_free(u);
	}
	ftk_symbols_free(s);
	ftk_elf_uprobe_offset(path, "main", 4, &off, NULL, err, sizeof(err));
out:
	unlink(path);
	return 0;
}

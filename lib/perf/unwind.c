// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * unwind: user stacks of samples, unwound after the fact with libunwind.
 *
 * libunwind's remote API (unw_create_addr_space() with our accessors)
 * unwinds a stack that is not ours: registers come from the sample,
 * memory from the sample's copy of the stack, and the unwind tables from
 * the objects the symbols module has mapped. For an IP, find_proc_info
 * hands libunwind the object's .eh_frame_hdr binary search table
 * (UNW_INFO_FORMAT_REMOTE_TABLE) and libunwind reads the FDEs and CIEs
 * through access_mem, which serves those addresses from the object's file.
 * This is the way perf's util/unwind-libunwind-local.c works too.
 *
 * .debug_frame is not searched: Debian's libunwind 1.6 does not export
 * dwarf_find_debug_frame() and its remote table search reads .eh_frame
 * FDEs only; every x86_64 object built by GCC or Clang has .eh_frame
 * unless built with -fno-asynchronous-unwind-tables.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <asm/perf_regs.h>
#include <libunwind.h>

#include <ftkit/unwind.h>

#include "internal.h"
#include "symbols-local.h"

/* UNW_OBJ(dwarf_search_unwind_table): exported by libunwind, declared by no header. */
extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip,
					      unw_dyn_info_t *di, unw_proc_info_t *pi,
					      int need_unwind_info, void *arg);
#define dwarf_search_unwind_table UNW_OBJ(dwarf_search_unwind_table)

#define DW_EH_PE_udata4		0x03
#define DW_EH_PE_sdata4		0x0b
#define DW_EH_PE_pcrel		0x10
#define DW_EH_PE_datarel	0x30
#define NR_OBJS			16

struct ftk_unwind {
	struct ftk_symbols	*syms;
	unw_addr_space_t	as;
	pid_t			last_pid;
	/* The current sample, for the accessors. */
	const struct ftk_sample	*smp;
	struct sym_where	objs[NR_OBJS];	/* objects met during this unwind */
	size_t			nr_objs;
};

/* libunwind's x86_64 register numbers -> PERF_REG_X86_*. */
static int perf_reg(int unw)
{
	static const int map[] = {
		[UNW_X86_64_RAX] = PERF_REG_X86_AX, [UNW_X86_64_RDX] = PERF_REG_X86_DX,
		[UNW_X86_64_RCX] = PERF_REG_X86_CX, [UNW_X86_64_RBX] = PERF_REG_X86_BX,
		[UNW_X86_64_RSI] = PERF_REG_X86_SI, [UNW_X86_64_RDI] = PERF_REG_X86_DI,
		[UNW_X86_64_RBP] = PERF_REG_X86_BP, [UNW_X86_64_RSP] = PERF_REG_X86_SP,
		[UNW_X86_64_R8] = PERF_REG_X86_R8, [UNW_X86_64_R9] = PERF_REG_X86_R9,
		[UNW_X86_64_R10] = PERF_REG_X86_R10, [UNW_X86_64_R11] = PERF_REG_X86_R11,
		[UNW_X86_64_R12] = PERF_REG_X86_R12, [UNW_X86_64_R13] = PERF_REG_X86_R13,
		[UNW_X86_64_R14] = PERF_REG_X86_R14, [UNW_X86_64_R15] = PERF_REG_X86_R15,
		[UNW_X86_64_RIP] = PERF_REG_X86_IP,
	};

	if (unw < 0 || unw >= (int)ARRAY_SIZE(map))
		return -1;
	return map[unw];
}

/* The object holding @addr, from this unwind's cache or the symbols index. */
static const struct sym_where *where(struct ftk_unwind *u, uint64_t addr, int exec_only)
{
	struct sym_where w;
	size_t i;

	for (i = 0; i < u->nr_objs; i++) {
		const struct sym_where *o = &u->objs[i];

		if (exec_only ? addr >= o->lo && addr < o->hi : addr >= o->start && addr < o->end)
			return o;
	}
	if (symbols_where(u->syms, u->smp->pid, addr, &w))
		return NULL;
	if (u->nr_objs == NR_OBJS)
		u->nr_objs = 0;
	u->objs[u->nr_objs] = w;
	return &u->objs[u->nr_objs++];
}

static int find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
			  int need_unwind_info, void *arg)
{
	struct ftk_unwind *u = arg;
	const struct sym_where *w = where(u, ip, 0);
	unsigned char hdr[4];
	uint32_t count;
	unw_dyn_info_t di;

	if (!w || !w->eh_hdr_vaddr || w->eh_hdr_size < 12)
		return -UNW_ENOINFO;
	if (elf_read_vaddr(w->elf, w->eh_hdr_vaddr, hdr, sizeof(hdr)) ||
	    elf_read_vaddr(w->elf, w->eh_hdr_vaddr + 8, &count, sizeof(count)))
		return -UNW_ENOINFO;
	/* Version 1, eh_frame_ptr pcrel sdata4, fde_count udata4, table datarel sdata4. */
	if (hdr[0] != 1 || hdr[2] != DW_EH_PE_udata4 ||
	    hdr[3] != (DW_EH_PE_datarel | DW_EH_PE_sdata4))
		return -UNW_ENOINFO;
	if ((uint64_t)count * 8 > w->eh_hdr_size - 12)
		return -UNW_ENOINFO;
	memset(&di, 0, sizeof(di));
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = w->lo;
	di.end_ip = w->hi;
	di.u.rti.segbase = w->bias + w->eh_hdr_vaddr;
	di.u.rti.table_data = w->bias + w->eh_hdr_vaddr + 12;
	di.u.rti.table_len = count * 8 / sizeof(unw_word_t);
	return dwarf_search_unwind_table(as, ip, &di, pi, need_unwind_info, arg);
}

static void put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	(void)as, (void)pi, (void)arg;
}

static int get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *dil, void *arg)
{
	(void)as, (void)dil, (void)arg;
	return -UNW_ENOINFO;
}

static int access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val, int write,
		      void *arg)
{
	struct ftk_unwind *u = arg;
	const struct ftk_sample *s = u->smp;
	uint64_t sp = s->regs[PERF_REG_X86_SP];
	const struct sym_where *w;

	(void)as;
	if (write)
		return -UNW_EINVAL;
	/* The copied stack first: saved registers and return addresses. */
	if (addr >= sp && addr - sp < s->stack_size && s->stack_size - (addr - sp) >= sizeof(*val)) {
		memcpy(val, (const char *)s->stack + (addr - sp), sizeof(*val));
		return 0;
	}
	/* Then the objects' files: .eh_frame_hdr, .eh_frame. */
	w = where(u, addr, 0);
	if (w && !elf_read_vaddr(w->elf, addr - w->bias, val, sizeof(*val)))
		return 0;
	*val = 0;
	return -UNW_EINVAL;
}

static int access_reg(unw_addr_space_t as, unw_regnum_t regnum, unw_word_t *val, int write,
		      void *arg)
{
	struct ftk_unwind *u = arg;
	int r = perf_reg(regnum);

	(void)as;
	if (write)
		return -UNW_EREADONLYREG;
	if (r < 0 || !(u->smp->regs_mask & (1ULL << r)))
		return -UNW_EBADREG;
	*val = u->smp->regs[r];
	return 0;
}

static int access_fpreg(unw_addr_space_t as, unw_regnum_t num, unw_fpreg_t *val, int write,
			void *arg)
{
	(void)as, (void)num, (void)val, (void)write, (void)arg;
	return -UNW_EINVAL;
}

static int resume(unw_addr_space_t as, unw_cursor_t *cu, void *arg)
{
	(void)as, (void)cu, (void)arg;
	return -UNW_EINVAL;
}

static int get_proc_name(unw_addr_space_t as, unw_word_t addr, char *bufp, size_t buf_len,
			 unw_word_t *offp, void *arg)
{
	(void)as, (void)addr, (void)bufp, (void)buf_len, (void)offp, (void)arg;
	return -UNW_EINVAL;
}

static unw_accessors_t accessors = {
	.find_proc_info		= find_proc_info,
	.put_unwind_info	= put_unwind_info,
	.get_dyn_info_list_addr	= get_dyn_info_list_addr,
	.access_mem		= access_mem,
	.access_reg		= access_reg,
	.access_fpreg		= access_fpreg,
	.resume			= resume,
	.get_proc_name		= get_proc_name,
};

/**
 * ftk_unwind_new() - an unwinder over a symbols index
 * @syms: the index that knows the processes' mappings; it must outlive the unwinder
 * @out: the unwinder
 *
 * Return: 0, or -ENOMEM. *@out must be freed with ftk_unwind_free().
 */
FTK_API int ftk_unwind_new(struct ftk_symbols *syms, struct ftk_unwind **out)
{
	struct ftk_unwind *u;

	*out = NULL;
	u = calloc(1, sizeof(*u));
	if (!u)
		return ftk_err(-ENOMEM);
	u->syms = syms;
	u->as = unw_create_addr_space(&accessors, 0);
	if (!u->as) {
		free(u);
		return ftk_err(-ENOMEM);
	}
	unw_set_caching_policy(u->as, UNW_CACHE_GLOBAL);
	u->last_pid = -1;
	*out = u;
	return 0;
}

/** ftk_unwind_free() - free an unwinder; NULL is fine */
FTK_API void ftk_unwind_free(struct ftk_unwind *u)
{
	if (!u)
		return;
	unw_destroy_addr_space(u->as);
	free(u);
}

/**
 * ftk_unwind_user() - the user call stack of a DWARF-mode sample
 * @u: the unwinder
 * @smp: a PERF_RECORD_SAMPLE with user registers and stack
 *	 (FTK_CALLCHAIN_DWARF); its process's mappings known to the index
 * @ips: where to put the addresses, the sample's IP first, then each
 *	 caller's return address
 * @max: room in @ips
 *
 * Unwinds until libunwind finds the outermost frame (main's caller, a
 * thread's start: their CFI marks the end), the copied stack ends, or an
 * IP has no unwind table; what was found until then is returned.
 *
 * Return: the number of addresses put in @ips (0 for a sample of kernel
 * code without user registers), or -EINVAL when @smp has no user stack.
 */
FTK_API int ftk_unwind_user(struct ftk_unwind *u, const struct ftk_sample *smp, uint64_t *ips,
			    size_t max)
{
	unw_cursor_t c;
	unw_word_t ip;
	size_t n = 0;

	if (smp->type != PERF_RECORD_SAMPLE)
		return ftk_err(-EINVAL);
	if (!smp->regs_abi || !(smp->regs_mask & (1ULL << PERF_REG_X86_IP)))
		return 0;
	if (!max)
		return 0;
	if (smp->pid != u->last_pid) {
		/* The cache is by IP: another process may map other code there. */
		unw_flush_cache(u->as, 0, 0);
		u->last_pid = smp->pid;
	}
	u->smp = smp;
	u->nr_objs = 0;
	ips[n++] = smp->regs[PERF_REG_X86_IP];
	if (!smp->stack || unw_init_remote(&c, u->as, u))
		goto out;
	while (n < max && unw_step(&c) > 0) {
		if (unw_get_reg(&c, UNW_REG_IP, &ip) || !ip)
			break;
		ips[n++] = ip;
	}
out:
	u->smp = NULL;
	return n;
}

#!/bin/sh
# Build a fuzz target with clang's libFuzzer, ASan and UBSan, and run it.
#
#	t/fuzz/run.sh [TARGET] [SECONDS]
#
# TARGET is tracefile (the trace.dat reader, the default), format (the
# print-format compiler), filter (ftreport -F's event filter parser), probe
# (the probe and trigger definition parsers), perf (the perf.data reader of
# ftprofile -i), elf (ELF symbols and .eh_frame unwinding), folded (folded
# stacks and their outputs) or perfmap (JIT perf maps); SECONDS defaults to 300. The
# whole library is built in (every lib/*/*.c). Each target's corpus starts from
# its seeds: t/fixtures/*.dat, the host's event formats, filters and probe
# and trigger specs. Needs clang and libclang-rt-14-dev. Crashes land in
# t/fuzz/crash-*; FTK_FUZZ_FORK=1 keeps going after one. Keep each as a
# fixture (t/fixtures/fuzz-*.dat for the
# reader and the format compiler, read by t/unit/t0140-fuzz-inputs; the
# parsers' as t/fixtures/fuzz-TARGET-*.txt, read by t/unit/t0141-fuzz-text;
# the profiler's as t/fixtures/fuzz-{perf,elf,folded,perfmap}-*, read by
# t/unit/t6210-profile-inputs).
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
target=tracefile
case ${1:-} in
''|*[!0-9]*) [ -n "${1:-}" ] && { target=$1; shift; } ;;
esac
secs=${1:-300}
[ -f "$top/t/fuzz/fuzz-$target.c" ] || { echo "run.sh: no target '$target'" >&2; exit 1; }
build=${FTK_FUZZ_BUILD:-/tmp/ftk-fuzz-build}
corpus=$build/corpus-$target
mkdir -p "$corpus" "$build/ftkit"
printf '#define _GNU_SOURCE 1\n#define FTK_TEP_PLUGIN_DIR "/nonexistent"\n' > "$build/config.h"
sed -e 's/@FTK_VERSION_[A-Z]*@/0/' -e 's/@PACKAGE_VERSION@/fuzz/' \
	"$top/include/ftkit/version.h.in" > "$build/ftkit/version.h"
# libtraceevent's parsers are where the formats and filters go: with
# FTK_FUZZ_TEP_SRC (a checkout of libtraceevent, e.g. 1.7.1 as Debian 12
# ships) they are built in with coverage, so that the fuzzer sees them; the
# installed library is not instrumented and the fuzzer would be blind there.
# Its NULL bsearch() of an empty array and its unaligned loads of record
# fields (fine on x86) are left out of UBSan's checks.
tep_objs=
if [ -n "${FTK_FUZZ_TEP_SRC:-}" ]; then
	mkdir -p "$build/tep"
	for c in "$FTK_FUZZ_TEP_SRC"/src/*.c; do
		o=$build/tep/$(basename "$c" .c).o
		[ "$o" -nt "$c" ] || clang -g -O1 -fsanitize=fuzzer-no-link,address,undefined \
			-fno-sanitize-recover=undefined -fno-sanitize=nonnull-attribute,alignment -D_GNU_SOURCE -w \
			-I"$FTK_FUZZ_TEP_SRC/include" -I"$FTK_FUZZ_TEP_SRC/include/traceevent" \
			-I"$FTK_FUZZ_TEP_SRC/src" -c "$c" -o "$o"
		tep_objs="$tep_objs $o"
	done
fi
# FTK_FUZZ_NO_BUILD=1: run the target built last time
[ -n "${FTK_FUZZ_NO_BUILD:-}" ] && [ -x "$build/fuzz-$target" ] ||
# shellcheck disable=SC2086
# lib/analysis/latency.c's syscall names, generated as Makefile.am does.
echo '#include <sys/syscall.h>' | cpp -dM - |
	sed -n 's/^#define __NR_\([a-z0-9_]*\) \([0-9][0-9]*\)$/	[\2] = "\1",/p' |
	sort -t'[' -k2 -n > "$build/syscall-names.h"
clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-std=gnu11 -include "$build/config.h" -DFTK_FUZZ_TOP="\"$top\"" \
	-I"$top/include" -I"$build" $(for d in "$top"/lib/*/; do printf -- "-I%s " "$d"; done) \
	"$top/t/fuzz/fuzz-$target.c" "$top"/lib/*/*.c $tep_objs \
	$(pkg-config --cflags --libs libtraceevent libtracefs libzstd zlib libunwind-generic) -liberty \
	-lpthread -lm \
	-o "$build/fuzz-$target"

seed() { printf '%s' "$2" > "$corpus/seed-$1"; }
case $target in
tracefile)
	cp "$top"/t/fixtures/*.dat "$corpus/" 2>/dev/null || true ;;
format)
	# each of the host's event formats, with three records of it
	n=0
	for f in /sys/kernel/tracing/events/*/*/format; do
		[ -r "$f" ] || continue
		n=$((n + 1))
		{ cat "$f"; printf '\0'; 
		  id=$(sed -n 's/^ID: //p' "$f")
		  for r in 1 2 3; do
			printf "\\$(printf %o 40)"
			printf "\\$(printf %o $((id & 255)))\\$(printf %o $((id >> 8 & 255)))"
			head -c 38 /dev/urandom
		  done; } > "$corpus/seed-$n"
		[ $n -ge 400 ] && break
	done
	cp "$top"/t/fixtures/fuzz-format-*.dat "$corpus/" 2>/dev/null || true ;;
filter)
	seed 1 'prev_pid == 1 && next_comm ~ "bash"'
	seed 2 'sched/sched_switch: prev_state & 1 || next_prio > 120'
	seed 3 'sched_wakeup: pid != 0 && comm == "sshd"'
	seed 4 '!(common_pid < 100) && COMM ~ "k*"'
	seed 5 "$(printf 'sched_switch\nftkit/blob: len > 3')"
	seed 6 'print: buf ~ "*hello*" || ip == 0x10' ;;
probe)
	for s in 'p:ftkit/open do_sys_openat2 dfd=%di:s32 name=+0(%si):ustring' \
		 'r:myret vfs_read+0 ret=$retval' 'r10 vfs_read%return' \
		 '/bin/true:main' 'p /bin/true:main+4 a=$arg1:u64 b=%ax' \
		 'e:ftkit/sw sched/sched_switch prev=$prev_pid:u32' \
		 "$(printf 'libc.so.6:malloc%%return\nsize=$arg1\nptr=$retval:x64')" \
		 'p:g/n 0x1234' 'main'; do
		n=$((${n:-0} + 1)); printf '\000%s' "$s" > "$corpus/seed-p$n"
	done
	for s in 'traceon' 'traceoff:5 if prev_pid == 1' 'stacktrace:3' \
		 'hist:keys=common_pid:vals=hitcount:sort=hitcount.descending:size=4096 if comm ~ "b*"' \
		 'snapshot' 'enable_event:sched:sched_wakeup:2' '!hist:keys=pid' \
		 'hist:keys=pid:ts0=common_timestamp.usecs:onmatch(sched.sched_wakeup).trace(lat,$ts0)'; do
		n=$((${n:-0} + 1)); printf '\001%s' "$s" > "$corpus/seed-t$n"
	done ;;
perf)
	cp "$top"/t/fixtures/perf-*.data "$corpus/" 2>/dev/null || true ;;
elf)
	for f in /usr/bin/true /usr/bin/env /usr/lib/x86_64-linux-gnu/libdl.so.2 \
		 /usr/lib/x86_64-linux-gnu/librt.so.1; do
		[ -f "$f" ] && cp "$f" "$corpus/seed-$(basename "$f")"
	done
	# one with .symtab, .eh_frame_hdr and a build-id
	cc -O1 -g -o "$corpus/seed-profile-work" "$top/t/helpers/profile-work.c" 2>/dev/null || true ;;
folded)
	seed 1 "$(printf 'bash;main;spin 3\nbash;main;wait;read_[k] 2\nperl;[unknown] 1\n')"
	seed 2 "$(printf 'java;Interpreter_[j];foo::bar(int) 7\n# comment\n\nx 1\n')"
	seed 3 "$(printf 'a;b;c;d;e;f;g;h 1\na;b;c;d;x 2\na;b 3\n')" ;;
perfmap)
	seed 1 "$(printf '7f0000001000 40 Interpreter\n7f0000001040 100 LFoo;bar\n')"
	seed 2 "$(printf '1000 10 a\n1000 10 b\n1008 ffffffffffffffff c d e\n')" ;;
esac
for f in "$top"/t/fixtures/fuzz-"$target"-*; do
	[ -f "$f" ] && cp "$f" "$corpus/"
done

cd "$build"
export ASAN_OPTIONS=detect_leaks=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# FTK_FUZZ_FORK=1: keep going after a crash (each one is still written out)
fork=
[ -n "${FTK_FUZZ_FORK:-}" ] && fork="-fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1"
# shellcheck disable=SC2086
exec ./fuzz-$target $fork -max_total_time="$secs" -max_len=200000 -timeout=20 -rss_limit_mb=2048 \
	-detect_leaks=0 -print_final_stats=1 -artifact_prefix="$top/t/fuzz/crash-$target-" "$corpus"

#!/bin/sh
# Build the trace.dat reader fuzz target with clang's libFuzzer and ASan, and
# run it for $1 seconds (default 300) on a corpus seeded from t/fixtures.
# Needs clang and libclang-rt-14-dev. Crashes land in t/fuzz/crash-*; keep
# each as t/fixtures/fuzz-*.dat and t/unit/t0140-fuzz-inputs reads them all.
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${FTK_FUZZ_BUILD:-/tmp/ftk-fuzz-build}
secs=${1:-300}
mkdir -p "$build/corpus"
cp "$top"/t/fixtures/*.dat "$build/corpus/" 2>/dev/null || true
printf '#define _GNU_SOURCE 1\n#define FTK_TEP_PLUGIN_DIR "/nonexistent"\n' > "$build/config.h"
printf '#define FTK_VERSION_MAJOR 0\n#define FTK_VERSION_MINOR 1\n#define FTK_VERSION_PATCH 0\n' > "$build/version.h"
mkdir -p "$build/ftkit" && cp "$build/version.h" "$build/ftkit/version.h"
clang -g -O1 -fsanitize=fuzzer,address,undefined -std=gnu11 -include "$build/config.h" \
	-I"$top/include" -I"$build" -I"$top/lib" \
	"$top/t/fuzz/fuzz-tracefile.c" "$top/lib/stream.c" "$top/lib/merge.c" \
	"$top/lib/tracefile-read.c" "$top/lib/tracefile-live.c" "$top/lib/common.c" \
	"$top/lib/print.c" "$top/lib/print-compile.c" "$top/lib/print-text.c" \
	"$top/lib/print-json.c" "$top/lib/print-graph.c" \
	"$top/lib/compress.c" "$top/lib/format-check.c" "$top/lib/tracefs.c" \
	$(pkg-config --cflags --libs libtraceevent libtracefs libzstd zlib) \
	-o "$build/fuzz-tracefile"
cd "$build"
export ASAN_OPTIONS=detect_leaks=0
./fuzz-tracefile -max_total_time="$secs" -max_len=200000 -timeout=20 -detect_leaks=0 \
	-artifact_prefix="$top/t/fuzz/" corpus

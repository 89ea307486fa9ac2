#!/usr/bin/env bash
# Fuzz every parser of outside input with libFuzzer (clang, ASan + UBSan), then replay the regression
# corpus. Usage: scripts/fuzz.sh [SECONDS_PER_TARGET (default 60)] [TARGET ...]
#   targets: gguf hf_config cards calibration tokenizer published runtime (default: all)
# A crash, a hang (> 5 s on one input) or memory above 2 GB fails the run; the input that did it is
# kept under $ROOFTOP_FUZZ_OUT (default build-san/findings) with the command to reproduce it.
# Longer local session: scripts/fuzz.sh 600   (10 minutes per target, two targets at a time).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SECONDS_PER_TARGET="${1:-60}"
shift || true
case "$SECONDS_PER_TARGET" in
  ''|*[!0-9]*|0) echo "fuzz.sh: seconds per target must be a whole number >= 1 (got '$SECONDS_PER_TARGET')" >&2; exit 2 ;;
esac
TARGETS=("$@")
((${#TARGETS[@]})) || TARGETS=(gguf hf_config cards calibration tokenizer published runtime)
source "$ROOT/scripts/san-build.sh"
BUILD="$SAN_BUILD"
OUT="${ROOFTOP_FUZZ_OUT:-$BUILD/findings}"
JOBS="${ROOFTOP_JOBS:-$(nproc)}"
say() { echo "[fuzz] $*" >&2; }

"$ROOT/scripts/setup.sh"  # packages (clang and its sanitizer runtimes among them) and the model file
san_build $(printf 'fuzz_%s ' "${TARGETS[@]}")

export ASAN_OPTIONS="detect_leaks=0:allocator_may_return_null=1"  # leaks: not a finding of a one-shot parser
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
mkdir -p "$OUT"
run_one() {
  local t="$1" bin="$BUILD/fuzz/fuzz_$1" work="$OUT/corpus_$1" dict="$ROOT/tests/fuzz/dict/$1.dict"
  local dirs=()
  IFS=';' read -r -a dirs < "$BUILD/fuzz/fuzz_$t.dirs" || true  # the file has no final newline
  mkdir -p "$work"
  local args=(-max_total_time="$SECONDS_PER_TARGET" -timeout=5 -rss_limit_mb=2048 -malloc_limit_mb=2048
              -max_len=65536 -print_final_stats=1 -artifact_prefix="$OUT/$t-")
  [ -f "$dict" ] && args+=(-dict="$dict")
  if "$bin" "${args[@]}" "$work" "${dirs[@]}" > "$OUT/$t.log" 2>&1; then
    echo "$t: $(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$OUT/$t.log" | grep -o '[0-9]*$') execs in ${SECONDS_PER_TARGET} s, no finding"
  else
    echo "$t: FINDING, see $OUT/$t.log; reproduce: $bin $(ls -t "$OUT/$t-"{crash,timeout,oom,leak,slow-unit}-* 2>/dev/null | head -1)"
    tail -30 "$OUT/$t.log" >&2
    return 1
  fi
}
export -f run_one say
export BUILD OUT SECONDS_PER_TARGET ROOT
status=0
printf '%s\n' "${TARGETS[@]}" | xargs -P "$JOBS" -I{} bash -c 'run_one "$1"' _ {} || status=1

# The regression corpus: every past finding, run once each.
for t in "${TARGETS[@]}"; do
  dir="$ROOT/tests/fuzz/regressions/$t"
  [ -d "$dir" ] || continue
  if ! "$BUILD/fuzz/fuzz_$t" -timeout=5 -rss_limit_mb=2048 "$dir"/* > "$OUT/$t-regressions.log" 2>&1; then
    echo "$t: a regression input fails again, see $OUT/$t-regressions.log"
    status=1
  else
    echo "$t: $(ls "$dir" | wc -l) regression inputs pass"
  fi
done
exit $status

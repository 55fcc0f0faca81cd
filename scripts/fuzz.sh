#!/usr/bin/env bash
# Runs one fuzz target with cargo-fuzz (libFuzzer) for a while: its growing corpus in
# target/fuzz-corpus/TARGET, seeded from target/fuzz-seeds/TARGET (scripts/fuzz-seeds.sh
# makes them, if ../shared is there), the grammar dictionary for the readers, and crashes
# minimised into fuzz/artifacts/TARGET (each one then becomes a regression test under
# tests/ and is fixed at its root). Exit status non-zero on a crash.
#
# Usage: scripts/fuzz.sh TARGET SECONDS [extra libFuzzer flags]
#   scripts/fuzz.sh readers 60          # CI's short run
#   scripts/fuzz.sh readers 3600        # a campaign of an hour
# Needs a nightly toolchain (cargo +nightly) and cargo-fuzz (`cargo install cargo-fuzz`).
set -euo pipefail
target="$1"; seconds="$2"; shift 2
root="$(cd "$(dirname "$0")/.." && pwd)"
corpus="$root/target/fuzz-corpus/$target"
seeds="$root/target/fuzz-seeds/$target"
mkdir -p "$corpus" "$root/fuzz/artifacts/$target"
if [ ! -d "$seeds" ] && [ -d "$root/../shared/corpora" ]; then
    "$root/scripts/fuzz-seeds.sh" >&2
fi
dict=()
[ "$target" = readers ] && dict=(-dict="$root/fuzz/dict/readers.dict")
dirs=("$corpus")
[ -d "$seeds" ] && dirs+=("$seeds")
cd "$root/fuzz"
exec cargo +nightly fuzz run --release "$target" "${dirs[@]}" -- \
    -max_total_time="$seconds" -max_len=65536 -timeout=30 -rss_limit_mb=4096 \
    -artifact_prefix="$root/fuzz/artifacts/$target/" -print_final_stats=1 "${dict[@]}" "$@"

#!/usr/bin/env bash
# Seed corpora for the fuzz targets, made from ../shared/corpora and the repository's own
# fixtures, into target/fuzz-seeds/TARGET (nothing large is committed):
#   readers:   start and pre-RA dumps of every corpus and every syntax (at most 16 KB each,
#              every 20th of the corpus's files in path order), Mesa's final-code listings
#              cut to their first program, and the .eu fixtures' inputs;
#   generated: 300 random byte strings (the generator reads bytes, not text).
# Usage: scripts/fuzz-seeds.sh   (run from anywhere; archives are unpacked once into
# target/corpora like the tests do)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
shared="$root/../shared/corpora"
out="$root/target/fuzz-seeds"
[ -d "$shared" ] || { echo "fuzz-seeds: $shared not found" >&2; exit 1; }
mkdir -p "$out/readers" "$out/generated" "$root/target/corpora"
for archive in "$shared"/*.tar.xz; do
    name="$(basename "$archive" .tar.xz)"
    if [ ! -f "$root/target/corpora/$name.unpacked" ]; then
        tar xJf "$archive" -C "$root/target/corpora" && touch "$root/target/corpora/$name.unpacked"
    fi
done
n=0
for dir in "$shared/shaderdb-skl" "$root"/target/corpora/*/; do
    [ -d "$dir" ] || continue
    find "$dir" -type f \( -name '*-00-00-start' -o -name '*pre_register_allocate' \) -size -16k \
        | sort | awk 'NR % 20 == 1' | while read -r f; do
            cp "$f" "$out/readers/dump-$(printf '%s' "$f" | md5sum | cut -c1-16)"
        done
    find "$dir" -name asm.txt | sort | awk 'NR % 20 == 1' | while read -r f; do
        # The first program of the listing (up to the second "Native code" header), at
        # most 16 KB (head closing the pipe early is no error).
        { awk '/^Native code/ { if (seen++) exit } { print }' "$f" | head -c 16384 \
            > "$out/readers/asm-$(printf '%s' "$f" | md5sum | cut -c1-16)"; } || true
        done
    n=$((n + 1))
done
for f in "$root"/tests/fixtures/*/*.fixture; do
    sed -n '/^input:$/,/^expected:$/p' "$f" | sed '1d;$d' > "$out/readers/fixture-$(basename "$f" .fixture)"
done
for i in $(seq 1 300); do
    head -c $((64 + i % 1500)) /dev/urandom > "$out/generated/random-$i"
done
echo "fuzz-seeds: $(ls "$out/readers" | wc -l) reader seeds, $(ls "$out/generated" | wc -l) generator seeds in $out"

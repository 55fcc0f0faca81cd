#!/usr/bin/env bash
# Prints every opcode name Mesa's IR printer can print for gen7 and later, one per line,
# from a Mesa source tree: the virtual opcodes' names in `brw_instruction_name`
# (src/intel/compiler/brw_shader.cpp in Mesa 22.3/23.0, brw_print.cpp in Mesa 25) and the
# hardware opcodes' names in brw_eu.c's `opcode_descs` (rows for gen5 and older, or gen6
# only, left out: eubatch's targets are gen7 on). The output is what
# crates/ir/tests/data/mesa-*-opcode-names.txt hold, and what crates/ir/tests/opcode_names.rs
# imports name by name.
#   usage: scripts/mesa-opcode-names.sh MESA_SOURCE_DIR
set -euo pipefail
src="$1/src/intel/compiler"
printer=""
for f in "$src/brw_print.cpp" "$src/brw/brw_print.cpp" "$src/brw_shader.cpp" "$src/brw_fs.cpp"; do
    if [ -f "$f" ] && grep -q '^brw_instruction_name' "$f"; then printer="$f"; break; fi
done
[ -n "$printer" ] || { echo "no brw_instruction_name under $src" >&2; exit 1; }
eu="$src/brw_eu.c"; [ -f "$eu" ] || eu="$src/brw/brw_eu.c"
{
    awk '/^brw_instruction_name/,/^}/' "$printer" | grep -o 'return "[^"]*"' | sed 's/return "//; s/"$//'
    grep -E '^ *\{ *BRW_OPCODE_[A-Z0-9_]+, *[0-9]+, *"' "$eu" | grep -v -E 'GFX_LE\(GFX5\)|, *GFX6 *\}' |
        sed -E 's/.*"([^"]*)".*/\1/'
} | sort -u

#!/bin/bash
# make-corpus.sh: makes a corpus of Mesa's own back-end dumps from piglit's .shader_test files,
# in the layout of ../shared/corpora/README.md ("Layout"), the way those corpora were made.
#
#   scripts/make-corpus/make-corpus.sh all            # mesa, piglit, runner, corpus, pack
#   scripts/make-corpus/make-corpus.sh mesa|piglit|runner|corpus|pack...   # those steps, in order
#   PLATFORM=hsw scripts/make-corpus/make-corpus.sh corpus pack     # piglit-coverage-hsw
#
# Steps:
#   mesa    Debian bookworm's Mesa source package (apt-get source mesa=$MESA_VERSION, needs a
#           deb-src entry for bookworm) unpacked in $BUILD, with the one local addition of the
#           shared corpora (mesa-22.3.6-pre-ra-dump.patch: a `*-90-90-pre_register_allocate`
#           dump at the start of fs_visitor::allocate_registers() and just before
#           reg_allocate() in vec4_visitor::run()), built as a release build with the iris and
#           crocus Gallium drivers, EGL and GBM, the Intel no-op DRM shim
#           (-Dtools=drm-shim,intel), no Vulkan, no LLVM, installed in $BUILD/install.
#           Build dependencies: meson ninja-build python3-mako libdrm-dev flex bison
#           libexpat1-dev zlib1g-dev libzstd-dev pkg-config libelf-dev (apt-get install).
#   piglit  piglit's .shader_test files: Debian's piglit source package if it can be fetched,
#           else Debian's binary package piglit=$PIGLIT_VERSION (the same tests, installed under
#           /usr/lib/x86_64-linux-gnu/piglit/{tests,generated_tests}), unpacked in $BUILD/piglit.
#   runner  builds run-shader-test.c (our own runner, doing what shader-db's `run` does: see
#           its header) against that Mesa into $BUILD/run-shader-test.
#   corpus  for every test named in $LIST (paths under piglit's root), one at a time, in its
#           own fresh directory, runs the runner with the shim: INTEL_STUB_GPU_PLATFORM=$PLATFORM,
#           MESA_SHADER_CACHE_DISABLE=true, INTEL_DEBUG=optimizer,vs,fs,gs,tcs,tes,cs,hex.
#           Mesa writes optimizer dumps into the current directory only when not root
#           (backend_shader::dump_instructions checks geteuid() != 0), so as root the runner runs
#           as user nobody (setpriv). Kept in $OUT/<test path without .shader_test>/:
#             source.shader_test                  the test
#             STAGE-NAME-00-00-start              the first optimizer dump
#             STAGE-NAME-90-90-pre_register_allocate   the added dump
#             asm.txt                             the "Native code for ..." sections of stderr
#                                                 (native-code.awk: each up to and with the
#                                                 blank line that is not before a LABELn:)
#             stats.txt                           the runner's stdout and `rc=STATUS`
#           Every other optimizer dump and the NIR printouts are dropped. A test that gives
#           no dump at all (skipped for a missing extension or GLSL version, or failing to
#           compile) is left out and named in $OUT.log with the runner's SKIP/ERROR lines.
#   pack    $CORPUS.tar.xz (tar cJf, one top directory $CORPUS) in $DEST.
#
# Settings (environment): MESA (22, or 25 for Mesa 25.0.7: see step_mesa25), BUILD
# (/work/build-mesa, /work/build-mesa25), PLATFORM (skl), CORPUS (piglit-coverage-$PLATFORM,
# piglit-coverage-$PLATFORM-mesa25), OUT ($BUILD/corpora/$CORPUS), LIST (piglit-coverage.list beside
# this script), DEST (corpora/ of the repository), JOBS (2, for ninja), TIMEOUT (120 s a test).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
MESA=${MESA:-22}
PLATFORM=${PLATFORM:-skl}
if [ "$MESA" = 25 ]; then
    BUILD=${BUILD:-/work/build-mesa25}
    CORPUS=${CORPUS:-piglit-coverage-$PLATFORM-mesa25}
    MESA_VERSION=25.0.7-2+deb13u1
    SRC=$BUILD/mesa-25.0.7
else
    BUILD=${BUILD:-/work/build-mesa}
    CORPUS=${CORPUS:-piglit-coverage-$PLATFORM}
    MESA_VERSION=22.3.6-1+deb12u2
    SRC=$BUILD/mesa-22.3.6
fi
OUT=${OUT:-$BUILD/corpora/$CORPUS}
LIST=${LIST:-$HERE/piglit-coverage.list}
DEST=${DEST:-$REPO/corpora}
JOBS=${JOBS:-2}
TIMEOUT=${TIMEOUT:-120}
PIGLIT_VERSION=0~git20220119-124bca3c9-1
PREFIX=$BUILD/install
LIBDIR=$PREFIX/lib/x86_64-linux-gnu
PIGLIT=$BUILD/piglit/usr/lib/x86_64-linux-gnu/piglit
RUNNER=$BUILD/run-shader-test
# Debian's python3 (with mako), not a pyenv or venv one, for meson; for Mesa 25 a venv
# with meson >= 1.1 (bookworm has 1.0.1) over Debian's python3, and LLVM 15's tools.
export PATH=/usr/bin:/bin:$PATH
if [ "$MESA" = 25 ]; then
    export PATH=$BUILD/venv/bin:/usr/lib/llvm-15/bin:$PATH
fi

step_mesa() {
    mkdir -p "$BUILD"
    if [ "$MESA" = 25 ]; then
        step_mesa25
        return
    fi
    if [ ! -d "$SRC" ]; then
        (cd "$BUILD" && apt-get source "mesa=$MESA_VERSION")
    fi
    if ! grep -q 90-90-pre_register_allocate "$SRC/src/intel/compiler/brw_fs.cpp"; then
        (cd "$SRC" && patch -p1 < "$HERE/mesa-22.3.6-pre-ra-dump.patch")
    fi
    if [ ! -f "$BUILD/build/build.ninja" ]; then
        meson setup "$BUILD/build" "$SRC" --prefix="$PREFIX" --buildtype=release \
            -Db_ndebug=true -Dgallium-drivers=iris,crocus -Dvulkan-drivers= -Dllvm=disabled \
            -Dtools=drm-shim,intel -Dplatforms= -Dglx=disabled -Degl=enabled -Dgbm=enabled \
            -Dgles1=disabled -Dgles2=enabled -Dopengl=true -Dshared-glapi=enabled \
            -Dvalgrind=disabled -Dlibunwind=disabled -Dbuild-tests=false \
            -Dgallium-vdpau=disabled -Dgallium-va=disabled -Dgallium-xa=disabled \
            -Dgallium-omx=disabled -Dgallium-nine=false -Dgallium-opencl=disabled \
            -Dosmesa=false -Dlmsensors=disabled -Dzstd=enabled -Dshader-cache=enabled \
            -Dintel-clc=disabled -Dmicrosoft-clc=disabled
    fi
    ninja -C "$BUILD/build" -j"$JOBS" install
}

# Mesa 25.0.7, Debian trixie's source package (needs a deb-src entry for trixie), with
# Debian's patches and no local change (Mesa 25 writes the pre_register_allocate dump
# itself). iris needs mesa_clc (its internal shaders are OpenCL C), so LLVM is enabled,
# for that only: llvm-15-dev libclang-15-dev libclang-cpp15-dev libclc-15-dev libclc-15
# llvm-spirv-15 libllvmspirvlib-15-dev python3-yaml python3-ply glslang-tools from
# bookworm, and meson 1.4.1 from PyPI in $BUILD/venv. It is built with glvnd (Mesa 25's
# default): the runner links Debian's glvnd libEGL, which loads this build's libEGL_mesa.so.0
# from $LIBDIR through LD_LIBRARY_PATH (the dumps' syntax and asm.txt's `src_hash` show it).
step_mesa25() {
    if [ ! -d "$SRC" ]; then
        (cd "$BUILD" && apt-get source "mesa=$MESA_VERSION")
    fi
    if [ ! -x "$BUILD/venv/bin/meson" ]; then
        /usr/bin/python3 -m venv --system-site-packages "$BUILD/venv"
        "$BUILD/venv/bin/pip" install "meson==1.4.1"
    fi
    if [ ! -f "$BUILD/build/build.ninja" ]; then
        meson setup "$BUILD/build" "$SRC" --prefix="$PREFIX" --buildtype=release \
            -Db_ndebug=true -Dgallium-drivers=iris,crocus -Dvulkan-drivers= -Dllvm=enabled \
            -Dtools=drm-shim,intel -Dplatforms= -Dglx=disabled -Degl=enabled -Dgbm=enabled \
            -Dgles1=disabled -Dgles2=enabled -Dopengl=true -Dvalgrind=disabled \
            -Dlibunwind=disabled -Dbuild-tests=false -Dgallium-vdpau=disabled \
            -Dgallium-va=disabled -Dlmsensors=disabled -Dzstd=enabled -Dshader-cache=enabled
    fi
    ninja -C "$BUILD/build" -j"$JOBS" install
}

step_piglit() {
    mkdir -p "$BUILD"
    if [ -d "$PIGLIT/tests" ]; then return; fi
    cd "$BUILD"
    if apt-get source "piglit=$PIGLIT_VERSION" && [ -d "$BUILD"/piglit-*/tests ]; then
        # The source package: tests/ and generated tests are not generated here, so only
        # tests/ is there; keep the binary package's layout.
        mkdir -p "$PIGLIT" && cp -r "$BUILD"/piglit-*/tests "$PIGLIT/"
        cp "$BUILD"/piglit-*/COPYING "$BUILD/piglit/COPYING"
    else
        apt-get download "piglit=$PIGLIT_VERSION"
        dpkg-deb -x "$BUILD"/piglit_*_amd64.deb "$BUILD/piglit"
    fi
}

step_runner() {
    cc -O2 -Wall -Wextra -o "$RUNNER" "$HERE/run-shader-test.c" \
        -I"$SRC/include" -I"$PREFIX/include" -L"$LIBDIR" -Wl,-rpath,"$LIBDIR" -lEGL -lgbm
}

# Runs one test; $1 = path under $PIGLIT.
run_one() {
    local t=$1 rel=${1%.shader_test} work rc
    work=$(mktemp -d "$BUILD/work.XXXXXX")
    cp "$PIGLIT/$t" "$work/source.shader_test"
    local as=()
    if [ "$(id -u)" = 0 ]; then
        chown 65534:65534 "$work"
        as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
    fi
    rc=0
    (cd "$work" && env -i PATH=/usr/bin:/bin HOME="$work" \
        LD_LIBRARY_PATH="$LIBDIR" LD_PRELOAD="$LIBDIR/libintel_noop_drm_shim.so" \
        LIBGL_DRIVERS_PATH="$LIBDIR/dri" INTEL_STUB_GPU_PLATFORM="$PLATFORM" \
        MESA_SHADER_CACHE_DISABLE=true INTEL_DEBUG=optimizer,vs,fs,gs,tcs,tes,cs,hex \
        timeout "$TIMEOUT" "${as[@]}" "$RUNNER" source.shader_test \
        > "$work/stdout" 2> "$work/stderr") || rc=$?
    if ls "$work"/*-00-00-start > /dev/null 2>&1; then
        local d="$OUT/$rel"
        mkdir -p "$d"
        cp "$work/source.shader_test" "$d/"
        cp "$work"/*-00-00-start "$d/"
        cp "$work"/*-90-90-pre_register_allocate "$d/" 2> /dev/null || true
        awk -f "$HERE/native-code.awk" "$work/stderr" > "$d/asm.txt"
        { cat "$work/stdout"; echo "rc=$rc"; } > "$d/stats.txt"
        echo "ok $t rc=$rc" >> "$OUT.log"
    else
        echo "left out $t rc=$rc: $(grep -E '^(SKIP|ERROR)' "$work/stderr" | head -3 | tr '\n' ' ')" \
            >> "$OUT.log"
    fi
    grep -E '^(SKIP|ERROR)' "$work/stderr" | sed "s|^|  $t: |" >> "$OUT.log" || true
    rm -rf "$work"
}

step_corpus() {
    rm -rf "$OUT" "$OUT.log"
    mkdir -p "$OUT"
    local n=0
    while read -r t; do
        [ -z "$t" ] && continue
        run_one "$t"
        n=$((n + 1))
        if [ $((n % 50)) = 0 ]; then echo "$n tests"; fi
    done < "$LIST"
    echo "$n tests run; $(grep -c '^ok ' "$OUT.log" || true) kept, $(grep -c '^left out ' "$OUT.log" || true) left out (see $OUT.log)"
}

step_pack() {
    mkdir -p "$DEST"
    tar -C "$(dirname "$OUT")" --sort=name --owner=0 --group=0 --numeric-owner \
        --mtime=2026-01-01 -cf - "$CORPUS" | xz -9e -T1 > "$DEST/$CORPUS.tar.xz"
    ls -l "$DEST/$CORPUS.tar.xz"
}

[ $# = 0 ] && set -- all
for step in "$@"; do
    case "$step" in
        mesa) step_mesa ;;
        piglit) step_piglit ;;
        runner) step_runner ;;
        corpus) step_corpus ;;
        pack) step_pack ;;
        all) step_mesa; step_piglit; step_runner; step_corpus; step_pack ;;
        *) echo "usage: $0 [mesa|piglit|runner|corpus|pack|all]..." >&2; exit 2 ;;
    esac
done

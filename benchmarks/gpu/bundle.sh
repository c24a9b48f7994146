#!/usr/bin/env bash
# Prepare what a GPU machine without internet needs to run benchmarks/gpu/run.sh, on a machine that
# reaches a PyPI index (here: the local mirror pip is configured with).
#
#   benchmarks/gpu/bundle.sh [--out DIR]          (default: _build/gpu-bundle, ignored by git)
#   ROSETTA_DATA=/path/to/data benchmarks/gpu/bundle.sh
#
# Writes DIR/wheels/: the wheels, for CPython 3.12 on manylinux x86_64, of what the GPU machine's
# Python lacks: the build's notebook machinery (nbclient, nbformat, jupytext, jupyter_client), the
# kernel (ipykernel) and Keras 3 for the keras-torch and keras-jax rows, with their dependencies, at
# the versions of envs/docs.lock and envs/jax.lock; DIR/wheels/requirements.txt names what run.sh
# installs. What that Python already has (benchmarks/gpu/gpu-python-has.txt: numpy, torch, jax...)
# is left out. With ROSETTA_DATA (folders separated by ':'), the data archives found there are copied
# into DIR/data/. Prints the sizes: the device tool carries 64 MiB in all, working tree included.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
OUT="$REPO/_build/gpu-bundle"
PIP_PYTHON="${ROSETTA_BUNDLE_PYTHON:-python3}"     # any Python with pip: only `pip download` runs
TARGET_PYTHON="3.12"                                # the GPU machine's Python
while [ $# -gt 0 ]; do
    case "$1" in
        --out) OUT="$2"; shift 2 ;;
        --python-version) TARGET_PYTHON="$2"; shift 2 ;;
        -h|--help) sed -n '2,/^set -e/{/^set -e/!p}' "$0"; exit 0 ;;
        *) echo "bundle.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
TAG="cp${TARGET_PYTHON/./}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
WHEELS="$OUT/wheels"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

pin() {   # pin NAME LOCK...: "name==version" from the first lock that pins it (no environment marker)
    local name="$1"; shift
    local found
    found="$(grep -h -i -E "^${name}==[^ ;]+\s*$" "$@" | head -1 | tr -d '[:space:]')"
    if [ -z "$found" ]; then echo "bundle.sh: no pin for $name in $*" >&2; exit 1; fi
    echo "$found"
}

# What run.sh installs: the build's notebook machinery as envs/docs.lock pins it, and Keras as the
# framework environments pin it (envs/jax.lock; envs/pytorch.lock pins the same release).
{
    for name in nbclient nbformat jupytext jupyter-client ipykernel; do pin "$name" "$REPO/envs/docs.lock"; done
    pin keras "$REPO/envs/jax.lock" "$REPO/envs/pytorch.lock"
} > "$WORK/requirements.txt"
if [ "$(pin keras "$REPO/envs/jax.lock")" != "$(pin keras "$REPO/envs/pytorch.lock")" ]; then
    echo "bundle.sh: note: envs/jax.lock and envs/pytorch.lock pin different Keras releases; using jax.lock's" >&2
fi

# The rest at the locks' versions where they pin it (docs.lock first, then the framework locks),
# except what the GPU Python has: its own versions are used there, whatever the locks say.
normalise() { tr '[:upper:]_.' '[:lower:]--' ; }
grep -v -E '^\s*(#|$)' "$HERE/gpu-python-has.txt" | normalise | sort -u > "$WORK/has.txt"
cat "$REPO/envs/docs.lock" "$REPO/envs/jax.lock" "$REPO/envs/pytorch.lock" \
    | grep -E '^[A-Za-z0-9][A-Za-z0-9._-]*==[^ ;]+\s*$' \
    | awk -F'==' 'NR == FNR { has[$1] = 1; next }
                  { name = tolower($1); gsub(/[_.]+/, "-", name)
                    if (!(name in has) && !(name in seen)) { seen[name] = 1; print name "==" $2 } }' \
          "$WORK/has.txt" - > "$WORK/constraints.txt"

echo "bundle: downloading wheels for $TAG manylinux x86_64 ..."
# (pip's note about this machine's second index, absent for some names, is not news: filtered out)
"$PIP_PYTHON" -m pip download --disable-pip-version-check -q \
    --only-binary=:all: --python-version "$TARGET_PYTHON" --implementation cp --abi "$TAG" --abi abi3 --abi none \
    --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64 \
    --platform any \
    -r "$WORK/requirements.txt" -c "$WORK/constraints.txt" --dest "$WORK/download" 2>&1 \
    | { grep -v "is ignored: it is neither a file nor a directory" || true; }

# Needed by the packages above but not imported unless asked for: the kernel's debugger (debugpy,
# 5 MiB; ipykernel turns its debugger off without it) and IPython's tab completion (jedi, 5 MiB, and
# its parser parso; IPython imports them at the first completion). Nobody debugs or completes in a
# benchmark run, and the device tool carries 64 MiB: left out.
OPTIONAL="debugpy jedi parso"

rm -rf "$WHEELS"
mkdir -p "$WHEELS/fallback"
dropped=() optional=() fallback=()
{
    echo "# What run.sh installs (pip install --no-deps --no-index --find-links .): the packages below, resolved"
    echo "# by pip for CPython $TARGET_PYTHON from: $(tr '\n' ' ' < "$WORK/requirements.txt")"
    echo "# less what the GPU Python has (benchmarks/gpu/gpu-python-has.txt) and: $OPTIONAL (not imported)."
} > "$WHEELS/requirements.txt"
for wheel in "$WORK"/download/*.whl; do
    file="$(basename "$wheel")"
    name="$(echo "${file%%-*}" | normalise)"
    version="$(echo "$file" | cut -d- -f2)"
    size=$(stat -c %s "$wheel")
    if [[ " $OPTIONAL " == *" $name "* ]]; then
        optional+=("$name ($((size / 1024)) KiB)")
    elif grep -q -x -F "$name" "$WORK/has.txt"; then
        # The GPU Python has it. A small pure-Python copy is kept in fallback/: run.sh installs it only
        # where `pip check` says the GPU's version does not satisfy a requirement.
        if [[ "$file" == *-none-any.whl ]] && [ "$size" -lt 1048576 ]; then
            fallback+=("$name"); cp "$wheel" "$WHEELS/fallback/"
        else
            dropped+=("$name ($((size / 1024)) KiB)")
        fi
    else
        cp "$wheel" "$WHEELS/"
        echo "$name==$version" >> "$WHEELS/requirements.txt"
    fi
done
echo "bundle: asked for: $(tr '\n' ' ' < "$WORK/requirements.txt")"
echo "bundle: installed by run.sh: $(grep -v '^#' "$WHEELS/requirements.txt" | tr '\n' ' ')"
echo "bundle: left out, the GPU Python has them: ${dropped[*]:-none}"
echo "bundle: left out, not imported in a run: ${optional[*]:-none}"
echo "bundle: fallback copies (fallback/) of small pure-Python packages the GPU Python has: ${fallback[*]:-none}"

# Data: the archives the loaders look for (README.md, "Data"), copied from ROSETTA_DATA's folders.
if [ -n "${ROSETTA_DATA:-}" ]; then
    mkdir -p "$OUT/data"
    IFS=':' read -r -a folders <<< "$ROSETTA_DATA"
    for folder in "${folders[@]}"; do
        [ -d "$folder" ] || { echo "bundle.sh: ROSETTA_DATA folder $folder does not exist" >&2; exit 1; }
        for entry in "$folder"/cifar* "$folder"/aclImdb*; do
            [ -e "$entry" ] || continue
            target="$OUT/data/$(basename "$entry")"
            if [ -f "$entry" ] && [ -f "$target" ] && [ "$(stat -c %s "$entry")" = "$(stat -c %s "$target")" ]; then
                continue                                    # already there
            fi
            rm -rf "$target"
            cp -rL --no-preserve=mode "$entry" "$target"
        done
    done
    echo "bundle: data:" "$OUT"/data/*
fi

mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }
wheels_bytes=$(du -sb "$WHEELS" | cut -f1)
data_bytes=$( [ -d "$OUT/data" ] && du -sb "$OUT/data" | cut -f1 || echo 0)
# What else the device tool carries: the tracked and untracked-not-ignored files of the working tree.
tree_bytes=$(cd "$REPO" && git ls-files -z --cached --others --exclude-standard \
             | xargs -0 -r stat -c %s 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
total=$((wheels_bytes + data_bytes + tree_bytes))
count=$(find "$WHEELS" -maxdepth 1 -name '*.whl' | wc -l)
echo "bundle: $OUT: wheels $count files (+ fallback/), $(mib "$wheels_bytes"); data $(mib "$data_bytes")"
echo "bundle: with the working tree ($(mib "$tree_bytes")) the device carries $(mib "$total") of its 64 MiB"
if [ "$total" -gt $((64 * 1048576)) ]; then
    echo "bundle.sh: over the device tool's 64 MiB: carry less (one data set, or fewer wheels)" >&2
    exit 1
fi

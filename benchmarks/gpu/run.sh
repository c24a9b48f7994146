#!/usr/bin/env bash
# The prepared GPU run: on a machine with an NVIDIA GPU and no internet, whose existing Python has
# PyTorch, torchvision, JAX, Flax and Optax, measure every row that runs in those two environments
# (pytorch, keras-torch, jax, keras-jax) and write a results folder. See benchmarks/gpu/README.md.
#
#   benchmarks/gpu/run.sh --out DIR [--profile full] [--python PYTHON] [--wheels DIR] [--data DIRS]
#                         [--overlay DIR] [--deadline SECONDS] [--setup-only] [--no-venv] [-- BUILD_DOCS_ARGS...]
#
# Settings (a flag wins over its variable):
#   --python    ROSETTA_EXISTING_PYTHON  the existing Python (default python3)
#   --wheels    ROSETTA_GPU_WHEELS       the wheels folder made by bundle.sh (needed only when the overlay lacks
#                                        the kernel and build packages)
#   --data      ROSETTA_DATA             the data folders (':'-separated), as for the build
#   --out                                the results root written (DIR/<machine>/machine.json, gpu-stack.json, ...)
#   --overlay                            where the overlay environment is made (default _build/gpu-overlay)
#   --deadline  ROSETTA_GPU_DEADLINE     seconds for this whole script: the build is stopped in time for the
#                                        summary (results written so far are kept)
#   --setup-only                         stop after the overlay, its packages and gpu-stack.json
#   --no-venv                            no overlay venv: the packages go to a folder on PYTHONPATH (what
#                                        happens anyway when the existing Python cannot make a venv)
#   ROSETTA_GPU_ENVIRONMENTS             the environments the existing Python stands for (default "pytorch jax")
#   ROSETTA_PYTHON_<ENVIRONMENT>         given by the caller, that interpreter runs that environment instead of
#                                        the overlay (a CPU machine whose torch and jax live apart)
#   ROSETTA_WEIGHTS                      default random: no pretrained weights can be downloaded offline
# Anything after `--` goes to build_docs.py (e.g. -- --lessons none --examples cnn_cifar10).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
EXISTING="${ROSETTA_EXISTING_PYTHON:-python3}"
WHEELS="${ROSETTA_GPU_WHEELS:-}"
DATA="${ROSETTA_DATA:-}"
OUT="" PROFILE="full" OVERLAY="$REPO/_build/gpu-overlay" DEADLINE="${ROSETTA_GPU_DEADLINE:-}" SETUP_ONLY="" NO_VENV=""
EXTRA=()
while [ $# -gt 0 ]; do
    case "$1" in
        --out) OUT="$2"; shift 2 ;;
        --profile) PROFILE="$2"; shift 2 ;;
        --python) EXISTING="$2"; shift 2 ;;
        --wheels) WHEELS="$2"; shift 2 ;;
        --data) DATA="$2"; shift 2 ;;
        --overlay) OVERLAY="$2"; shift 2 ;;
        --deadline) DEADLINE="$2"; shift 2 ;;
        --setup-only) SETUP_ONLY=1; shift ;;
        --no-venv) NO_VENV=1; shift ;;
        --) shift; EXTRA=("$@"); break ;;
        -h|--help) sed -n '2,/^set -e/{/^set -e/!p}' "$0"; exit 0 ;;
        *) echo "run.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
[ -n "$OUT" ] || { echo "run.sh: --out DIR is required (the results folder to write)" >&2; exit 2; }
mkdir -p "$OUT" "$(dirname "$OVERLAY")"
OUT="$(cd "$OUT" && pwd)"
OVERLAY="$(cd "$(dirname "$OVERLAY")" && pwd)/$(basename "$OVERLAY")"
cd "$REPO"
STARTED=$SECONDS
section() { echo; echo "== $* (at $((SECONDS - STARTED)) s)"; }
read -r -a ENVIRONMENTS <<< "${ROSETTA_GPU_ENVIRONMENTS:-pytorch jax}"
variable_of() { echo "ROSETTA_PYTHON_$(echo "$1" | tr '[:lower:]' '[:upper:]' | tr -c 'A-Z0-9\n' '_')"; }

section "the GPU"
if command -v nvidia-smi > /dev/null; then
    nvidia-smi || echo "(nvidia-smi failed: status $?)"
else
    echo "nvidia-smi: not found: no NVIDIA GPU here; the frameworks run on the CPU"
fi

section "the existing Python: $EXISTING"
if ! command -v "$EXISTING" > /dev/null; then
    echo "run.sh: no Python $EXISTING (set ROSETTA_EXISTING_PYTHON or --python)" >&2; exit 1
fi
EXISTING="$(command -v "$EXISTING")"
EXISTING="$(cd "$(dirname "$EXISTING")" && pwd)/$(basename "$EXISTING")"    # absolute; a venv's link kept
"$EXISTING" -c 'import sys, platform; print(platform.python_version(), sys.executable, "prefix", sys.prefix)'

# The overlay: a venv made from the existing Python that sees all of its packages (its CUDA stack stays
# exactly as it is) and gets only what it lacks. `--system-site-packages` shows the base interpreter's
# packages; where the existing Python is itself a venv (the lent GPU machine's python3 is
# /opt/torch/.venv), a .pth file adds that venv's site-packages behind the overlay's own.
section "overlay environment $OVERLAY"
rm -rf "$OVERLAY"
TARGET=()
if [ -z "$NO_VENV" ] && "$EXISTING" -m venv --without-pip --system-site-packages "$OVERLAY"; then
    PY="$OVERLAY/bin/python"
    SITE="$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
    "$EXISTING" - "$SITE/rosetta-existing-python.pth" <<'EOF'
import site, sys
base = site.getsitepackages([sys.base_prefix, sys.base_exec_prefix])   # --system-site-packages shows these
dirs = [d for d in [*site.getsitepackages(), site.getusersitepackages() if site.ENABLE_USER_SITE else ""]
        if d and d not in base]
with open(sys.argv[1], "w") as pth:      # one line: `import` lines of .pth files are executed
    pth.write(f"import site; list(map(site.addsitedir, {dirs!r}))\n")
print("sees the packages of:", ", ".join(dirs) or "(the base interpreter only)")
EOF
else
    # No venv (--no-venv, or the existing Python cannot make one): the packages go into a folder that
    # PYTHONPATH puts before the existing Python's own, for the build and every kernel it starts.
    echo "no venv: packages go to $OVERLAY/site, on PYTHONPATH; the existing Python runs the build"
    rm -rf "$OVERLAY"; mkdir -p "$OVERLAY/site"
    export PYTHONPATH="$OVERLAY/site${PYTHONPATH:+:$PYTHONPATH}"
    PY="$EXISTING"
    TARGET=(--target "$OVERLAY/site")
fi

# Which environments the overlay stands for (the others were given by the caller).
SERVED=()
for environment in "${ENVIRONMENTS[@]}"; do
    variable="$(variable_of "$environment")"
    if [ -n "${!variable:-}" ]; then
        echo "$environment: $variable=${!variable} (given)"
    else
        export "$variable=$PY"
        SERVED+=("$environment")
        echo "$environment: $variable=$PY (the overlay)"
    fi
done
# The build needs the notebook machinery; a kernel needs ipykernel, and the Keras rows Keras.
MODULES=(nbclient nbformat jupytext jupyter_client)
[ ${#SERVED[@]} -eq 0 ] || MODULES+=(ipykernel keras)
# (imported, so that a missing dependency shows; Keras only found: importing it picks a backend)
imports() { "$PY" -c "import importlib, importlib.util, sys
def fails(name):
    if name == 'keras':
        return importlib.util.find_spec(name) is None
    try:
        importlib.import_module(name)
    except Exception as exc:
        print(f'{name}: {type(exc).__name__}: {exc}', file=sys.stderr)
        return True
missing = [name for name in sys.argv[1:] if fails(name)]
print(' '.join(missing)); sys.exit(1 if missing else 0)" "${MODULES[@]}" 2> "$OVERLAY.imports.log"; }

section "packages"
if missing="$(imports)"; then
    echo "pip install skipped: the overlay already imports ${MODULES[*]}"
else
    echo "missing: $missing"
    if [ -z "$WHEELS" ] || [ ! -f "$WHEELS/requirements.txt" ]; then
        echo "run.sh: the overlay lacks $missing and no wheels folder was given (ROSETTA_GPU_WHEELS or --wheels:" \
             "the wheels/ folder that benchmarks/gpu/bundle.sh makes)" >&2
        exit 1
    fi
    # pip: the overlay's (the existing Python's), else python3's pip pointed at it (pip >= 22.3: --python)
    if "$PY" -c "import pip" 2> /dev/null; then PIP=("$PY" -m pip)
    elif python3 -c "import pip" 2> /dev/null; then PIP=(python3 -m pip --python "$PY")
    else echo "run.sh: no pip: neither $PY nor python3 has it" >&2; exit 1
    fi
    pip_install() { "${PIP[@]}" install --disable-pip-version-check --no-cache-dir --no-index --no-deps \
                        --no-compile -q --find-links "$WHEELS" --find-links "$WHEELS/fallback" "${TARGET[@]}" "$@"; }
    # --no-deps: exactly the packages bundle.sh resolved for this Python, less what the existing one has.
    pip_install -r "$WHEELS/requirements.txt"
    echo "installed: $(grep -c -v '^#' "$WHEELS/requirements.txt") packages from $WHEELS"
    # Where the existing Python's own version of a dependency of these packages does not do (or it has none),
    # the fallback copy goes in (then its own dependencies, likewise); conflicts among the existing Python's
    # own packages are left as they are.
    mapfile -t ours < <(grep -v '^#' "$WHEELS/requirements.txt" | cut -d= -f1)
    for round in 1 2 3; do
        fallbacks=()
        for name in $("${PIP[@]}" check 2>&1 | "$PY" -c '
import re, sys
normal = lambda name: re.sub(r"[-_.]+", "-", name).lower()
ours = {normal(name) for name in sys.argv[1:]}
for line in sys.stdin:   # "a 1.0 has requirement b>=2, but you have b 1.5." / "a 1.0 requires b, which is not installed."
    found = re.match(r"(\S+) \S+ (?:has requirement|requires) ([A-Za-z0-9._-]+)", line)
    if found and normal(found.group(1)) in ours:
        print(normal(found.group(2)))' "${ours[@]}" | sort -u); do
            for wheel in "$WHEELS"/fallback/*.whl; do     # file names spell a project with "_" for "-"
                file="$(basename "$wheel" | tr '[:upper:]' '[:lower:]')"
                if [ "${file%%-*}" = "${name//-/_}" ] && [[ " ${ours[*]} " != *" $name "* ]]; then
                    fallbacks+=("$wheel"); ours+=("$name")
                fi
            done
        done
        [ ${#fallbacks[@]} -gt 0 ] || break
        echo "fallback copies, for what pip check found (round $round): ${fallbacks[*]##*/}"
        pip_install "${fallbacks[@]}"
    done
    echo "pip check (what remains; debugpy and jedi are left out on purpose):"
    "${PIP[@]}" check 2>&1 | head -20 || true
    if ! missing="$(imports)"; then
        echo "run.sh: the overlay still lacks $missing:" >&2; cat "$OVERLAY.imports.log" >&2; exit 1
    fi
fi

# The rows whose environment is one of these (envs/<row>.toml: `environment`, default the row itself).
ROWS="$("$PY" - "${ENVIRONMENTS[@]}" <<'EOF'
import sys, tomllib
from pathlib import Path
wanted = set(sys.argv[1:])
rows = []
for path in sorted(Path("envs").glob("*.toml")):
    if path.stem != "docs" and tomllib.loads(path.read_text()).get("environment", path.stem) in wanted:
        rows.append(path.stem)
print(",".join(rows))
EOF
)"
[ -n "$ROWS" ] || { echo "run.sh: no row runs in ${ENVIRONMENTS[*]}" >&2; exit 1; }
# The machine's name includes the band of its float32 rate, which the build measures (once per machine):
# the stack's description waits beside the folders until the name is known, then goes into its folder.
machine_name() {
    "$PY" -c 'import sys; from pathlib import Path; from rosetta.project import Project
from rosetta.build.results import this_machine
print(this_machine(Project(root=Path.cwd(), results=Path(sys.argv[1])))[0])' "$OUT"
}
file_stack() { MACHINE="$(machine_name)"; mkdir -p "$OUT/$MACHINE"; mv "$OUT/.gpu-stack.json" "$OUT/$MACHINE/gpu-stack.json"; }

section "versions: CUDA and cuDNN as the frameworks see them -> $OUT/<machine>/gpu-stack.json"
mkdir -p "$OUT"
PYTHONS=()
for environment in "${ENVIRONMENTS[@]}"; do
    variable="$(variable_of "$environment")"; PYTHONS+=(--python "${!variable}")
done
"$PY" "$HERE/versions.py" --describe "${PYTHONS[@]}" > "$OUT/.gpu-stack.json"
echo "overlay: $("$PY" -c 'import importlib.metadata as m
print(", ".join(f"{n} {m.version(n)}" for n in ("ipykernel", "nbclient", "nbformat", "jupytext", "keras")
                if __import__("importlib.util").util.find_spec(n.replace("-", "_"))))')"

if [ -n "$SETUP_ONLY" ]; then
    file_stack
    section "setup done (--setup-only): rows $ROWS, machine $MACHINE (its rate not measured yet)"
    exit 0
fi

# Only the environments named above: a checkout's own .envs/ (other frameworks) stays out of this run.
export ROSETTA_VENVS="${ROSETTA_VENVS:-$OVERLAY/venvs}"
export ROSETTA_WEIGHTS="${ROSETTA_WEIGHTS:-random}"
[ -z "$DATA" ] || export ROSETTA_DATA="$DATA"
export PYTHONUNBUFFERED=1
BUILD=("$PY" build_docs.py --measure-only --profile "$PROFILE" --results "$OUT" --frameworks "$ROWS" "${EXTRA[@]}")
if [ -n "$DEADLINE" ]; then
    left=$((DEADLINE - (SECONDS - STARTED) - 30))        # 30 s kept for the summary
    [ "$left" -gt 0 ] || { echo "run.sh: the deadline of $DEADLINE s has passed before the build" >&2; exit 1; }
    BUILD=(timeout --kill-after=15 "$left" "${BUILD[@]}")
fi
section "measure: rows $ROWS, profile $PROFILE, weights $ROSETTA_WEIGHTS, data ${ROSETTA_DATA:--}"
echo "\$ ${BUILD[*]}"
status=0
"${BUILD[@]}" || status=$?
if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    echo "run.sh: the build was stopped at the deadline ($DEADLINE s in all); the results written so far are kept"
fi

file_stack
section "results in $OUT/$MACHINE (build status $status)"
"$PY" "$HERE/summary.py" "$OUT" --machine "$MACHINE" --profile "$PROFILE" || true
echo "done in $((SECONDS - STARTED)) s"
exit "$status"

#!/usr/bin/env bash
# The libmkb wheel as a user gets it: build it from this checkout (pip wheel, scikit-build-core),
# install it into a fresh virtual environment, and from a folder outside the repository, with no
# MKB_* variable set, run a compile-only session through it (tests/wheel/smoke.py). Any failing
# step fails the script. PYTHON picks the interpreter (default python3); the CMake build is kept in
# build-wheel/ and goes through ccache where it is installed.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
python=${PYTHON:-python3}
start=$SECONDS
work=$(mktemp -d "${TMPDIR:-/tmp}/mkb-wheel.XXXXXX")
trap 'rm -rf "$work"' EXIT

step() { echo "== wheel test [$((SECONDS - start))s]: $*"; }

if ! "$python" -c 'import venv, ensurepip' 2>/dev/null; then
  echo "wheel test: $python cannot make a virtual environment (Debian: apt-get install python3-venv)" >&2
  exit 1
fi

step "building the wheel"
# In a venv of its own: a stock Debian python3 has venv but may lack pip.
"$python" -m venv "$work/builder"
export SKBUILD_BUILD_DIR="$repo/build-wheel"
if command -v ccache >/dev/null; then
  export SKBUILD_CMAKE_ARGS="-DCMAKE_CXX_COMPILER_LAUNCHER=ccache;-DCMAKE_C_COMPILER_LAUNCHER=ccache"
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$repo}
fi
"$work/builder/bin/python" -m pip wheel --no-deps --quiet --wheel-dir "$work/dist" "$repo"
wheels=("$work"/dist/libmkb-*.whl)
[ -f "${wheels[0]}" ] || { echo "wheel test: pip wheel produced no libmkb wheel" >&2; exit 1; }
step "built $(basename "${wheels[0]}") ($(du -k "${wheels[0]}" | cut -f1) KiB)"

step "installing it into a fresh virtual environment"
"$python" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --no-index "${wheels[0]}"

step "a compile-only session from outside the repository, no MKB_* variable"
mkdir "$work/outside"
unset_mkb=()
for name in $(compgen -e); do
  case $name in MKB_*) unset_mkb+=(-u "$name") ;; esac
done
(cd "$work/outside" && env "${unset_mkb[@]}" "$work/venv/bin/python" -I \
  "$repo/tests/wheel/smoke.py" "$repo/problems" "$work/cache")

step "passed"

#!/usr/bin/env bash
# .ci/device-pack, which lays out what a GPU machine reached through small transfers needs, one folder
# per call, and .ci/dsl-site, which joins the packed DSL site again there. A mistake in either costs
# device time nobody has spare, so this checks them here, on a small scale (a limit of 3 MiB a call):
#   1. every call, the tree included, stays under the limit with the MiB device-pack keeps spare;
#   2. call0 holds the build and the whole compile cache;
#   3. the site pieces, taken in call order, are the packed site byte for byte, named NN-of-MM for the
#      number of calls, and no more calls are made than the bytes need;
#   4. .ci/dsl-site, given the pieces as they arrive, unpacks nothing until all have come, then the
#      site's files exactly;
#   5. CUTLASS's wheel rides in call0 where it costs no extra call, and stays out (saying so) where it
#      would;
#   6. without a build, device-pack refuses with a message naming what is missing.
# Runs on a copy of the scripts in a temporary git repository; writes nothing in the checkout.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAILED: $*" >&2; exit 1; }
mib=$((1 << 20))
limit=$((3 * mib))

# A repository laid out as ours is, with only what device-pack reads.
make_repo() { # make_repo DIR: the scripts, a tracked file of 200 KiB, a build and a compile cache
  mkdir -p "$1/.ci" "$1/build-device/carry" "$1/build-device/cache/ab"
  cp "$repo/.ci/device-pack" "$repo/.ci/dsl-site" "$1/.ci/"
  head -c $((200 << 10)) /dev/urandom >"$1/tracked.bin"
  printf '/.device/\n/.whl/\n/build-device/\n' >"$1/.gitignore"
  git -C "$1" init -q && git -C "$1" add -A
  head -c $((300 << 10)) /dev/urandom >"$1/build-device/carry/build.txz"
  head -c $((100 << 10)) /dev/urandom >"$1/build-device/cache/ab/entry.cubin"
  echo key >"$1/build-device/cache/ab/entry.key"
}
call_bytes() { du -cb "$1"/* | tail -1 | cut -f1; }
tree_bytes() { git -C "$1" ls-files -z --cached --others --exclude-standard | (cd "$1" && xargs -0 stat -c %s) | awk '{s += $1} END {print s}'; }

# 1-4: a packed site of about 5 MiB (incompressible, so its size is what travels) over three calls.
one=$work/one
make_repo "$one"
mkdir -p "$work/site/pkg" "$one/.whl/parts"
head -c $((5 * mib)) /dev/urandom >"$work/site/pkg/blob.bin"
echo 'answer = 42' >"$work/site/pkg/__init__.py"
tar -C "$work/site" -c . | xz -0 >"$work/site.txz"
split -b $((2 * mib)) -d -a 2 "$work/site.txz" "$one/.whl/parts/site."
(cd "$one/.whl/parts" && for piece in site.0?; do mv "$piece" "$piece-of-03"; done)
MKB_CARRY_LIMIT=$limit bash "$one/.ci/device-pack" >"$work/one.log" 2>&1 || { cat "$work/one.log"; fail "device-pack"; }

tree=$(tree_bytes "$one")
calls=$(ls -d "$one"/.device/call* | wc -l)
for folder in "$one"/.device/call*; do
  bytes=$(call_bytes "$folder")
  [ $((tree + bytes)) -le $((limit - mib)) ] || fail "$(basename "$folder") carries $((tree + bytes)) bytes with the tree, over $((limit - mib))"
done
[ -f "$one/.device/call0/build.txz" ] || fail "call0 lacks the build"
cmp -s "$one/.device/call0/build.txz" "$one/build-device/carry/build.txz" || fail "call0's build differs from the build"
tar -tzf "$one/.device/call0/cache.tgz" | grep -q 'ab/entry.cubin' || fail "call0's cache lacks an entry"
pieces=()
for ((n = 0; n < calls; n++)); do
  piece=$one/.device/call$n/$(printf 'site.%02d-of-%02d' "$n" "$calls")
  [ -f "$piece" ] || fail "call$n lacks $(basename "$piece")"
  pieces+=("$piece")
done
[ "$(ls "$one"/.device/call*/site.* | wc -l)" -eq "$calls" ] || fail "more pieces than the $calls calls"
cmp -s <(cat "${pieces[@]}") "$work/site.txz" || fail "the pieces joined are not the packed site"
# As few calls as the bytes need: what call0 has left after the build and the cache, then whole calls.
room=$((limit - tree - mib))
left=$((room - $(call_bytes "$one/.device/call0") + $(stat -c %s "${pieces[0]}")))
needed=$((1 + ($(stat -c %s "$work/site.txz") - left + room - 1) / room))
[ "$calls" -eq "$needed" ] || fail "$calls calls where $needed carry the site"

parts=$work/arrived
mkdir -p "$parts"
cp "$one/.device/call0"/site.* "$parts/"
(cd "$one" && MKB_WHEEL_PARTS=$parts MKB_DSL_SITE=$work/unpacked . .ci/dsl-site) 2>"$work/site.log"
grep -q "1 of $calls pieces" "$work/site.log" || fail "dsl-site did not say it waits for pieces: $(cat "$work/site.log")"
[ ! -e "$work/unpacked/.mkb-site" ] || fail "dsl-site unpacked a site with pieces missing"
cp "$one"/.device/call*/site.* "$parts/"
(cd "$one" && MKB_WHEEL_PARTS=$parts MKB_DSL_SITE=$work/unpacked . .ci/dsl-site && echo "$PYTHONPATH" >"$work/pythonpath")
diff -r "$work/site" "$work/unpacked" -x .mkb-site >/dev/null || fail "the unpacked site differs from the packed one"
grep -q "$work/unpacked" "$work/pythonpath" || fail "dsl-site did not put the site on PYTHONPATH"

# 5: the wheel goes along only where the calls stay as many. The site here is random bytes of an exact
# size (device-pack reads no more than the sizes): first a site with a MiB of slack in its last call,
# then one that fills its last call to within 10 KiB, where a 100 KiB wheel would need another.
wheel_case() { # wheel_case NAME SLACK: the log of device-pack with a site leaving SLACK bytes in its last call
  local dir=$work/$1
  make_repo "$dir"
  mkdir -p "$dir/.whl/parts"
  head -c $((100 << 10)) /dev/urandom >"$dir/.whl/nvidia_cutlass-4.2.0.0-py3-none-any.whl"
  local room=$((limit - $(tree_bytes "$dir") - mib))
  local first=$((room - 300 * 1024 - $(tar -czf - -C "$dir/build-device/cache" . | wc -c)))
  head -c $((first + room - $2)) /dev/urandom >"$dir/.whl/parts/site.00-of-01"
  MKB_CARRY_LIMIT=$limit bash "$dir/.ci/device-pack" 2>&1
}
log=$(wheel_case roomy $mib)
ls "$work/roomy/.device/call0"/nvidia_cutlass-*.whl >/dev/null 2>&1 || fail "the wheel stayed out though it costs no call: $log"
[ "$(ls -d "$work/roomy"/.device/call* | wc -l)" -eq 2 ] || fail "the roomy site took other than 2 calls"
log=$(wheel_case tight $((10 << 10)))
! ls "$work/tight/.device/call0"/nvidia_cutlass-*.whl >/dev/null 2>&1 || fail "the wheel went along at the cost of a call"
[ "$(ls -d "$work/tight"/.device/call* | wc -l)" -eq 2 ] || fail "the tight site took other than 2 calls"
grep -q "CUTLASS's wheel is left out" <<<"$log" || fail "no word that the wheel is left out: $log"

# 6: no build, no packing.
rm -rf "$work/tight/build-device/carry"
if log=$(bash "$work/tight/.ci/device-pack" 2>&1); then fail "device-pack packed without a build"; fi
grep -q "build-device/carry/build.txz is missing" <<<"$log" || fail "the refusal does not name the build: $log"
echo "device-pack: $calls calls of at most $((limit >> 20)) MiB, site rejoined and unpacked, wheel rule both ways"

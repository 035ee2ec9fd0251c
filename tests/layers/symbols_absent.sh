#!/bin/sh
# symbols_absent.sh <nm> <binary> <forbidden objects list> <required objects list>
# Fails when <binary> defines a symbol that the forbidden objects define as strong globals (the layers
# it must not link), or lacks one of the required objects' (so that a stripped binary, which would
# show no symbols at all, cannot pass). Lists hold one object file a line. Local symbols are compared
# by name: the build's hidden visibility makes every internal symbol local in the linked binary.
set -eu
nm=$1 binary=$2 forbidden=$3 required=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

strong_globals() { # the strong global definitions (text, data, bss, read-only) of the listed objects
  grep -v '^$' "$1" | while read -r object; do "$nm" -P --defined-only "$object"; done |
    awk '$2 ~ /^[TDBR]$/ { print $1 }' | sort -u
}
"$nm" -P --defined-only "$binary" | awk '{ print $1 }' | sort -u >"$work/binary"
strong_globals "$forbidden" >"$work/forbidden"
strong_globals "$required" >"$work/required"

status=0
if comm -12 "$work/forbidden" "$work/binary" >"$work/found" && [ -s "$work/found" ]; then
  echo "$binary defines $(wc -l <"$work/found") symbols of layers it must not link, among them:"
  head -n 20 "$work/found"
  status=1
fi
comm -23 "$work/required" "$work/binary" >"$work/missing"
if [ -s "$work/missing" ] || [ ! -s "$work/required" ]; then
  echo "$binary lacks $(wc -l <"$work/missing") of $(wc -l <"$work/required") symbols of layers it must link (stripped?), among them:"
  head -n 20 "$work/missing"
  status=1
fi
[ $status -ne 0 ] ||
  echo "$binary: none of $(wc -l <"$work/forbidden") forbidden symbols, all of $(wc -l <"$work/required") required ones"
exit $status

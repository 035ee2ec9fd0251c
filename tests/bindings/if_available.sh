#!/bin/sh
# if_available.sh CHECK -- COMMAND...: runs COMMAND when the shell command CHECK succeeds; otherwise
# says what is missing and exits 77, which CTest reports as "Skipped" (never as passed).
check=$1
shift 2
if ! sh -c "$check" >/dev/null 2>&1; then
  echo "skipped: '$check' failed here (install it to run this test; .ci/run does)"
  exit 77
fi
exec "$@"

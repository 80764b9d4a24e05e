#!/bin/sh
# `afxdp demo` when an afxdp-demo is found beside afxdp but cannot be executed (an empty file:
# execv fails with ENOEXEC): one line on stderr naming execv, exit 1; not std::terminate's abort.
set -u
afxdp=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp "$afxdp" "$dir/afxdp"
: >"$dir/afxdp-demo"
chmod +x "$dir/afxdp-demo"
"$dir/afxdp" demo >"$dir/out" 2>"$dir/err"
code=$?
lines=$(wc -l <"$dir/err")
if [ "$code" -ne 1 ] || [ "$lines" -ne 1 ] || ! grep -q '^afxdp: execv(' "$dir/err"; then
  echo "expected exit 1 and one line 'afxdp: execv(...)' on stderr; got exit $code and:" >&2
  cat "$dir/err" >&2
  exit 1
fi

#!/bin/sh
# The installed `afxdp` must not link the test network (afxdp_lab: namespaces, veth pairs): no
# symbol of afxdp::lab may be defined in it. Only afxdp-demo links it.
set -eu
binary=$1
symbols=$(nm -C --defined-only "$binary")
# A stripped binary would pass for the wrong reason.
if ! printf '%s\n' "$symbols" | grep -q 'afxdp::tool::'; then
  echo "$binary: no afxdp::tool symbols to look at (stripped?)" >&2
  exit 1
fi
found=$(printf '%s\n' "$symbols" | grep 'afxdp::lab::' || true)
if [ -n "$found" ]; then
  echo "$binary links the test network (afxdp::lab):" >&2
  printf '%s\n' "$found" | head -n 10 >&2
  exit 1
fi

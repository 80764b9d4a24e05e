#!/usr/bin/env bash
# holds_no_test_double.sh LIBAFXDP: the product does not contain its test double; testing::Loopback
# is libafxdp-testing's (docs/architecture.md, "The kernel seam").
set -euo pipefail
symbols=$(nm -C --defined-only "$1")
if grep -Ei 'loopback' <<<"$symbols"; then
  echo "$1 holds the Loopback's code (above): it belongs in afxdp::testing" >&2
  exit 1
fi
echo "$1: no Loopback symbol"

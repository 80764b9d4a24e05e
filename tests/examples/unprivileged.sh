#!/bin/sh
# unprivileged.sh PROGRAM [ARGS]: run PROGRAM as nobody (uid and gid 65534, no supplementary
# groups, no capabilities) when started as root; as it is otherwise. Fails when the program would
# still run with a capability.
set -eu
if [ "$(id -u)" = 0 ]; then
  # nobody may not reach the build tree (a clone under /root, say): run a copy from a directory
  # of its own.
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
  cp "$0" "$1" "$dir/"
  chmod -R a+rX "$dir"
  program="$dir/$(basename "$1")"
  shift
  cd "$dir"
  status=0
  setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
    "$dir/$(basename "$0")" "$program" "$@" || status=$?
  exit "$status"
fi
effective=$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)
if [ "$effective" != 0000000000000000 ]; then
  echo "unprivileged.sh: still holds capabilities $effective as uid $(id -u)" >&2
  exit 1
fi
exec "$@"

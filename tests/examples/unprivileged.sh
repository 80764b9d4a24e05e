#!/bin/sh
# unprivileged.sh PROGRAM [ARGS]: run PROGRAM as nobody (uid and gid 65534, no supplementary
# groups, no capabilities) when started as root; as it is otherwise. Fails when the program would
# still run with a capability.
set -eu
if [ "$(id -u)" = 0 ]; then
  exec setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$0" "$@"
fi
effective=$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)
if [ "$effective" != 0000000000000000 ]; then
  echo "unprivileged.sh: still holds capabilities $effective as uid $(id -u)" >&2
  exit 1
fi
exec "$@"

#!/usr/bin/env bash
# check_no_indirect.sh BINARY: no indirect call or jump (call *, jmp *, a retpoline thunk) in the
# machine code of the probe functions that run Queue::serve, forward and receive (and the
# multi-buffer serve_packets, receive_packets) with a handler, and of a UDP echo over net.hpp;
# and the check itself must catch the control probe, whose handler is called through a pointer.
set -euo pipefail
binary=$1
indirect='(call|jmp)[a-z]*[[:space:]]+\*|__x86_indirect_thunk|__x86_return_thunk_indirect'

body() {  # the disassembly of one function
  objdump -d --no-show-raw-insn --disassemble="$1" "$binary" | sed -n '/^[0-9a-f]* <'"$1"'>:/,/^$/p'
}

status=0
# The net probe inlines parse(); update_checksums and the sum under it are libafxdp's.
for probe in afxdp_probe_serve afxdp_probe_forward afxdp_probe_receive \
             afxdp_probe_serve_packets afxdp_probe_receive_packets afxdp_probe_serve_udp_echo \
             _ZN5afxdp3net16update_checksumsERNS0_7HeadersE \
             _ZN5afxdp3net19ones_complement_sumESt4spanIKSt4byteLm18446744073709551615EEj; do
  code=$(body "$probe")
  if [ -z "$code" ]; then
    echo "$probe: not found in $binary" >&2
    status=1
  elif grep -Eq "$indirect" <<<"$code"; then
    echo "$probe: indirect branch on the data path:" >&2
    grep -En "$indirect" <<<"$code" >&2
    status=1
  else
    echo "$probe: $(grep -c . <<<"$code") lines, no indirect call or jump"
  fi
done
if ! grep -Eq "$indirect" <<<"$(body afxdp_probe_control)"; then
  echo "afxdp_probe_control: the check missed a call through a pointer" >&2
  status=1
fi
exit $status

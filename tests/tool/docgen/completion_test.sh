#!/bin/bash
# Drives the generated bash completion as bash does: COMP_WORDS and COMP_CWORD set, _afxdp
# called, COMPREPLY checked. usage: completion_test.sh COMPLETION_FILE
set -euo pipefail
script=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
touch "$dir/capture.pcap" "$dir/capture.txt"
mkdir "$dir/cap-dir"
failed=0

# expect "WORDS..." "EXPECTED REPLY (sorted, space-separated)"
expect() {
  local line=$1 want=$2 got
  got=$(bash -c '
    source "$1"
    read -ra COMP_WORDS <<< "$2"
    [[ $2 == *" " ]] && COMP_WORDS+=("")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    _afxdp
    printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' _ "$script" "$line")
  got=${got% }
  if [ "$got" != "$want" ]; then
    echo "FAIL: '$line' completes to '$got', expected '$want'" >&2
    failed=1
  fi
}

expect "afxdp rx" "rxdrop rxq-info"
expect "afxdp --v" "--version"
expect "afxdp rxdrop --sh" "--shared-umem"
expect "afxdp l2fwd --spin-b" "--spin-before-sleep"
expect "afxdp demo --mode " "native skb"
expect "afxdp demo --ref" "--reference --reference-dpdk"
expect "afxdp rxdrop -q " ""           # a queue number: nothing to offer, and not the flags
expect "afxdp rxdrop -i " "$(ls /sys/class/net | sort | tr '\n' ' ' | sed 's/ $//')"
expect "afxdp rxdrop -i eth0 -d 1 --jso" "--json"
expect "afxdp dump -w $dir/capture.p" "$dir/capture.pcap"
expect "afxdp txpush --pcap $dir/cap" "$dir/cap-dir $dir/capture.pcap $dir/capture.txt"
exit $failed

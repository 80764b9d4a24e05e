#!/bin/bash
# The Debian packages on this machine: installs dist/afxdp_*.deb and dist/libafxdp-dev_*.deb
# (built by scripts/package first when missing: minutes), as `apt install ./...deb` would (dpkg -i,
# then apt-get -f install for what is missing), then runs the tool, reads a man page, completes a
# word, builds the consumer of tests/install against /usr through find_package(afxdp) and through
# pkg-config (`pkg-config --cflags --libs`, no --static), builds the examples libafxdp-dev ships
# in /usr/share/doc/libafxdp-dev/examples with cmake alone and runs two of them, purges the
# packages and checks that none of their files is left. Whatever fails, the trap purges what this
# test installed.
#
#   package_test.sh SOURCE_DIR WORK_DIR        exit 77: skipped (not root, or afxdp installed)
set -euo pipefail
source_dir=$1
work=$2
dist=${AFXDP_DIST:-$source_dir/dist}
skip() { echo "SKIP: $*"; exit 77; }

[ "$(id -u)" -eq 0 ] || skip "installing packages needs root"
for package in afxdp libafxdp-dev; do
  if dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'ok installed'; then
    skip "$package is installed on this machine already: this test would remove it"
  fi
done
if ! compgen -G "$dist/afxdp_*.deb" >/dev/null || ! compgen -G "$dist/libafxdp-dev_*.deb" >/dev/null; then
  echo "package_test: no packages in $dist: scripts/package (a release build)"
  "$source_dir/scripts/package" "$dist"
fi
debs=("$dist"/afxdp_*.deb "$dist"/libafxdp-dev_*.deb)

rm -rf "$work"
mkdir -p "$work"
dpkg-query -W -f='${Package}\n' | sort > "$work/before"
cleanup() {
  dpkg --purge afxdp libafxdp-dev >/dev/null 2>&1 || true
  # What apt-get added for the test (their dependencies, man-db), if anything.
  dpkg-query -W -f='${Package}\n' | sort > "$work/after-cleanup"
  local added; added=$(comm -13 "$work/before" "$work/after-cleanup")
  [ -z "$added" ] || apt-get purge -y $added >/dev/null 2>&1 || true
}
trap cleanup EXIT

step() { echo "+ $*"; "$@"; }
# man itself, when this machine lacks it (the cleanup purges what was added).
command -v man > /dev/null || step apt-get install -y -qq --no-install-recommends man-db > /dev/null
if ! dpkg -i "${debs[@]}"; then
  step apt-get -f install -y
fi
step dpkg-query -W afxdp libafxdp-dev
version=$(dpkg-query -W -f='${Version}' afxdp)

# The tool, the demo it runs from libexec, a man page, the completion.
step afxdp --version | tee "$work/version"
grep -q "^afxdp ${version%-*} " "$work/version"
step afxdp rxq-info --help > /dev/null
step afxdp demo --help > /dev/null  # execs /usr/libexec/afxdp/afxdp-demo
page=$(MANPAGER=cat MANWIDTH=80 man afxdp-dump 2>&1)
grep -q "EXIT STATUS" <<< "$page" || { echo "man afxdp-dump: $page"; exit 1; }
completion=$(bash -c 'source /usr/share/bash-completion/completions/afxdp
  COMP_WORDS=(afxdp dump --wri); COMP_CWORD=2; _afxdp; echo "${COMPREPLY[*]}"')
[ "$completion" = "--write" ] || { echo "completion of 'afxdp dump --wri': '$completion'"; exit 1; }

# The consumer (and a copy of examples/test_your_handler.cpp) against /usr alone.
cp "$source_dir/examples/test_your_handler.cpp" "$work/"
for consume in find_package pkg-config; do
  step cmake -S "$source_dir/tests/install/consumer" -B "$work/$consume" -DAFXDP_CONSUME=$consume \
    -DHANDLER_TEST="$work/test_your_handler.cpp" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF > /dev/null
  step cmake --build "$work/$consume" > /dev/null
  step "$work/$consume/consumer"
  step "$work/$consume/test_your_handler" > /dev/null
done
# pkg-config as a Makefile uses it: --cflags --libs, no --static; afxdp-testing brings GoogleTest
# and its main().
step c++ -std=c++20 -o "$work/pc_consumer" "$source_dir/tests/install/consumer/consumer.cpp" \
  $(pkg-config --cflags --libs afxdp)
step "$work/pc_consumer"
step c++ -std=c++20 -o "$work/pc_handler_test" "$work/test_your_handler.cpp" \
  $(pkg-config --cflags --libs afxdp-testing)
step "$work/pc_handler_test" > /dev/null

# What the README points to, shipped: the docs, and the examples built from /usr/share/doc with
# cmake alone (out of source: the package's directory is only read).
doc=/usr/share/doc/libafxdp-dev
for file in README.md docs/api.md docs/testing.md examples/CMakeLists.txt examples/lab/lab.cpp; do
  [ -f "$doc/$file" ] || { echo "not in libafxdp-dev: $doc/$file"; exit 1; }
done
step cmake -S "$doc/examples" -B "$work/examples" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF > /dev/null
step cmake --build "$work/examples" -j"$(nproc)" > /dev/null
step "$work/examples/test_your_handler" > /dev/null
# One of them on its private network (root: this test is): 0 when it saw every frame it sent.
rc=0
step "$work/examples/count" || rc=$?
[ "$rc" = 0 ] || [ "$rc" = 77 ] || { echo "the shipped count example failed ($rc)"; exit 1; }

# Removed, nothing left: every file the packages listed is gone.
dpkg -L afxdp libafxdp-dev | sort -u > "$work/files"
step dpkg --purge afxdp libafxdp-dev
left=""
while read -r path; do
  if [ -e "$path" ] && [ ! -d "$path" ]; then left+="$path "; fi
done < "$work/files"
# Directories only the packages made (their doc, include, cmake and libexec ones).
for dir in /usr/include/afxdp /usr/libexec/afxdp /usr/share/doc/afxdp /usr/share/doc/libafxdp-dev \
  "/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/cmake/afxdp"; do
  [ ! -e "$dir" ] || left+="$dir "
done
[ -z "$left" ] || { echo "left behind after dpkg --purge: $left"; exit 1; }
if dpkg-query -W -f='${Status}' afxdp 2>/dev/null | grep -q installed; then
  echo "afxdp is still installed"; exit 1
fi
echo "package_test: installed, used and purged ${debs[*]##*/}"

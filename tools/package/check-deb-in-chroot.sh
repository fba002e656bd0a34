#!/usr/bin/env bash
# Installs bankviz's Debian package on a fresh Debian 12 (bookworm, debootstrap's minbase: no X,
# no GPU, none of the build's libraries) and runs both programs there: apt must pull the package's
# Debian dependencies itself. Not run by CI (it downloads the base system, about 100 MB); run it
# by hand as root after a change to packaging/, to the programs' libraries or to their data:
#
#   sudo tools/package/check-deb-in-chroot.sh [PACKAGE.deb]
#
# Without a package it builds one from the configuration a machine without the CUDA toolkit gets
# (build-deb/: Release, -DBANKVIZ_CUDA=OFF, the desktop app included) with cpack -G DEB. The
# chroot is made once in $BANKVIZ_CHROOT (default /tmp/bankviz-bookworm) from $DEBIAN_MIRROR
# (default http://deb.debian.org/debian) and kept for the next run; each run installs into a
# copy of it, so every run starts from the bare system. Prints each command and its output;
# exits 1 at the first check that fails.
set -euo pipefail
cd "$(dirname "$0")/../.."
[[ $(id -u) == 0 ]] || { echo "check-deb-in-chroot: run as root (debootstrap and chroot)" >&2; exit 2; }
for tool in debootstrap chroot; do
  command -v "$tool" >/dev/null ||
    { echo "check-deb-in-chroot: $tool is missing (apt-get install debootstrap)" >&2; exit 2; }
done
fail() {
  echo "check-deb-in-chroot: FAILED: $*" >&2
  exit 1
}

deb=${1:-}
if [[ -z $deb ]]; then
  cmake -S . -B build-deb -DCMAKE_BUILD_TYPE=Release -DBANKVIZ_CUDA=OFF -DBANKVIZ_GUI=ON \
    -DBANKVIZ_BENCHMARKS=OFF -DBANKVIZ_TESTS=OFF >/dev/null
  cmake --build build-deb -j "$(nproc)"
  rm -rf build-deb/package
  cpack -G DEB --config build-deb/CPackConfig.cmake -B build-deb/package >/dev/null
  debs=(build-deb/package/bankviz_*.deb)
  deb=${debs[0]}
fi
[[ -f $deb ]] || fail "no package at '$deb'"

base=${BANKVIZ_CHROOT:-/tmp/bankviz-bookworm}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
if [[ ! -x $base/usr/bin/apt-get ]]; then
  echo "+ debootstrap --variant=minbase bookworm $base $mirror"
  debootstrap --variant=minbase bookworm "$base" "$mirror" >"${base%/}.debootstrap.log" 2>&1 ||
    fail "debootstrap (log: ${base%/}.debootstrap.log)"
fi
root=$(mktemp -d /tmp/bankviz-chroot.XXXXXX)
cleanup() {
  umount "$root/proc" 2>/dev/null || true
  rm -rf "$root"
}
trap cleanup EXIT
cp -a "$base/." "$root/"
mount -t proc proc "$root/proc"
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp "$deb" "$root/tmp/"
pkg=/tmp/$(basename "$deb")

# Runs a command in the chroot as a user's shell would (no DISPLAY, a HOME, a C.UTF-8 locale),
# printing it and its output.
in_root() {
  echo "+ $*"
  chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
    TERM=dumb /bin/sh -c "$*"
}

echo "package: $(basename "$deb")"
dpkg-deb --field "$deb" Depends Recommends
in_root "cat /etc/debian_version"
in_root "apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $pkg \
  >/tmp/apt.log 2>&1 || { tail -30 /tmp/apt.log; exit 1; }; \
  echo \"\$(grep -c '^Setting up' /tmp/apt.log) packages set up, among them:\"; \
  grep -E '^Setting up (bankviz|libglfw3|libegl1|libegl-mesa0|libgl1|libstb0|fonts-dejavu-core)[ :]' /tmp/apt.log" ||
  fail "apt-get install of the package"
in_root "dpkg -s bankviz | grep -E '^(Status|Version)'" || fail "the package is not installed"
in_root "command -v bankviz && command -v bankviz-cli" || fail "the programs are not on PATH"
in_root "bankviz-cli --version" || fail "bankviz-cli --version"
in_root "bankviz --version" || fail "bankviz --version"
in_root "cd /tmp && bankviz-cli analyze --preset row-write-column-read --no-pictures" ||
  fail "bankviz-cli analyze"
in_root "bankviz-cli presets | wc -l" || fail "bankviz-cli presets"
in_root "bankviz-cli lessons --check" || fail "bankviz-cli lessons --check"
in_root "ls /usr/share/man/man1/bankviz.1.gz /usr/share/man/man1/bankviz-cli.1.gz /usr/share/applications/org.bankviz.bankviz.desktop" ||
  fail "the man pages or the desktop entry are missing"
# The app without a display: it must say so, and its --screenshot draws without one (EGL).
set +e
in_root "cd /tmp && bankviz; echo \"exit status \$?\""
set -e
in_root "cd /tmp && bankviz --screenshot /tmp/shot.png && ls -l /tmp/shot.png" ||
  fail "bankviz --screenshot without a display"
echo "check-deb-in-chroot: passed: $(basename "$deb") installs on Debian $(cat "$root/etc/debian_version") and runs"

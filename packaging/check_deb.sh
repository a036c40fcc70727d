#!/bin/sh
# Install the .deb on a bare Debian 12, run it, remove it, and check that nothing is left behind.
#
#   sudo sh packaging/check_deb.sh dist/vramlab_<version>_amd64.deb        (or: make deb-check)
#
# The "bare Debian 12" is a debootstrap chroot (--variant=minbase: dpkg, apt and little else; no X, no fonts,
# no Python). The first run builds it from the Debian mirror and caches it as build/deb-check/bookworm.tar
# (git-ignored; a few minutes); every run starts from a fresh copy of that tarball, so runs do not leak into
# each other. Steps, each failing the script if it fails:
#   1. apt-get install --no-install-recommends ./vramlab.deb   (the declared Depends alone must be enough)
#   2. every library in /opt/vramlab resolves (ldd) with only the declared dependencies installed; then, as an
#      unprivileged user, vramlab --version, --smoke-test and --screenshot (offscreen); any traceback fails;
#      then (Xvfb added) a real X11 window: the app starts on the xcb platform and paints its first frame
#   3. apt-get purge vramlab, then every file the package installed must be gone, /opt/vramlab and
#      /usr/bin/vramlab included.
# Needs root (chroot, mounts) and debootstrap (apt-get install debootstrap). MIRROR overrides the mirror.
set -eu
cd "$(dirname "$0")/.."
deb=$(realpath "$1")
mirror=${MIRROR:-http://deb.debian.org/debian}
cache=build/deb-check
tarball=$cache/bookworm.tar

say() { printf '\n== check_deb: %s\n' "$*"; }
fail() { printf 'check_deb: FAIL: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || fail "needs root (chroot and mounts): sudo sh $0 $1"
[ -f "$deb" ] || fail "no such .deb: $1 (run make dist)"
command -v debootstrap >/dev/null || fail "debootstrap missing: apt-get install debootstrap"

mkdir -p "$cache"
if [ ! -f "$tarball" ]; then
    say "building a bare Debian 12 (bookworm, minbase) from $mirror; cached as $tarball"
    rm -rf "$cache/rootfs"
    debootstrap --variant=minbase bookworm "$cache/rootfs" "$mirror"
    tar -C "$cache/rootfs" -cf "$tarball.part" . && mv "$tarball.part" "$tarball"
    rm -rf "$cache/rootfs"
fi

root=$(mktemp -d /tmp/vramlab-deb-check.XXXXXX)
cleanup() {
    for m in "$root/dev" "$root/proc" "$root/sys"; do
        if mountpoint -q "$m" 2>/dev/null; then umount -l "$m" || true; fi
    done
    rm -rf --one-file-system "$root"  # never into a mount that failed to go away (the host's /dev)
}
trap cleanup EXIT INT TERM
tar -C "$root" -xf "$tarball"
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
mount -t sysfs sysfs "$root/sys" 2>/dev/null || true
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp "$deb" "$root/tmp/vramlab.deb"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
apt() { in_root env DEBIAN_FRONTEND=noninteractive apt-get -y -qq -o Dpkg::Use-Pty=0 "$@"; }  # no pty in the chroot

say "1. install $(basename "$deb") with its declared dependencies only"
before=$(in_root dpkg-query -W -f='${Package}\n' | wc -l)
apt update
apt install --no-install-recommends /tmp/vramlab.deb > "$root/tmp/install.log" 2>&1 \
    || { cat "$root/tmp/install.log"; fail "apt-get install"; }
after=$(in_root dpkg-query -W -f='${Package}\n' | wc -l)
echo "installed vramlab and $((after - before - 1)) dependencies"
in_root dpkg -L vramlab > "$root/tmp/files.txt"
for path in /opt/vramlab/vramlab /usr/bin/vramlab /usr/share/applications/vramlab.desktop \
            /usr/share/icons/hicolor/scalable/apps/vramlab.svg /usr/share/icons/hicolor/256x256/apps/vramlab.png; do
    [ -e "$root$path" ] || fail "not installed: $path"
done

say "2. run it: libraries resolve, then offscreen as a user, then in a real X11 window"
# 2a. ldd every binary with the bundle's own folder on the path, as PyInstaller's bootloader sets it
in_root sh -c 'cd /opt/vramlab && find . -type f \( -name "*.so*" -o -name vramlab \) | while read -r f; do
    LD_LIBRARY_PATH=/opt/vramlab/_internal ldd "$f" 2>/dev/null | sed -n "s|^\t*\(.*\) => not found|$f needs \1|p"
done' > "$root/tmp/unresolved.txt"
if [ -s "$root/tmp/unresolved.txt" ]; then
    cat "$root/tmp/unresolved.txt"; fail "libraries not found (a missing Depends?)"
fi
echo "every library in /opt/vramlab resolves"
# 2b. offscreen, as an ordinary user (nothing may need root or write into /opt)
in_root useradd --create-home tester
as_user() { in_root su tester -s /bin/sh -c "QT_QPA_PLATFORM=offscreen $*"; }
version=$(as_user "vramlab --version") || fail "vramlab --version"
echo "$version"
smoke=$root/tmp/smoke.log
as_user "vramlab --smoke-test" > "$smoke" 2>&1 || { cat "$smoke"; fail "vramlab --smoke-test"; }
if grep -q Traceback "$smoke"; then cat "$smoke"; fail "traceback in the smoke test"; fi
sed 's/^/  stderr: /' "$smoke"
as_user "vramlab --screenshot /tmp/shots" > /dev/null 2>&1 || fail "vramlab --screenshot"
rm -rf "$cache/shots" && cp -r "$root/tmp/shots" "$cache/shots"
echo "smoke test passed; screenshots (with the chroot's fonts) in $cache/shots:" $(ls "$cache/shots")
# 2c. a real X11 window (xcb platform, GLX/EGL from the system) under Xvfb; the probe quits at the first paint
apt install --no-install-recommends xvfb xauth > /dev/null 2>&1 || fail "apt-get install xvfb"
window=$(in_root su tester -s /bin/sh -c "VRAMLAB_STARTUP_PROBE=1 xvfb-run -a vramlab" 2>&1) \
    || { echo "$window"; fail "vramlab in an X11 window (Xvfb)"; }
echo "$window" | grep -q '^startup_s=' || { echo "$window"; fail "no first paint in an X11 window (Xvfb)"; }
echo "X11 window (Xvfb, xcb platform): first frame painted"

say "3. purge, then look for leftovers"
apt purge vramlab > /dev/null || fail "apt-get purge"
left=""
while read -r path; do
    if [ -e "$root$path" ] && [ ! -d "$root$path" ]; then left="$left $path"; fi
done < "$root/tmp/files.txt"
[ ! -e "$root/opt/vramlab" ] || left="$left /opt/vramlab"
[ ! -e "$root/usr/bin/vramlab" ] || left="$left /usr/bin/vramlab"
[ -z "$left" ] || fail "left behind after purge:$left"
in_root dpkg-query -W vramlab >/dev/null 2>&1 && fail "dpkg still lists vramlab"
echo "nothing left: $(grep -c . "$root/tmp/files.txt") paths installed, all removed;" \
     "/opt/vramlab and /usr/bin/vramlab gone"

say "PASS: $(basename "$deb") installs, runs and uninstalls cleanly on a bare Debian 12"

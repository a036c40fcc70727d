#!/bin/sh
# Build the .deb from the onedir bundle with dpkg-deb (no root needed: --root-owner-group).
#
#   sh packaging/build_deb.sh ONEDIR ICON_DIR OUT.deb        (make dist calls it)
#
# Layout: the bundle in /opt/vramlab; /usr/bin/vramlab (packaging/vramlab.sh); the .desktop entry; the SVG icon
# and the PNG renders (packaging/render_icons.py) in the hicolor theme; /usr/share/doc/vramlab/copyright.
# Depends: libc6 at least the newest GLIBC_x.y symbol version the bundle's binaries use, then
# packaging/deb/depends.txt. DEB_COMPRESS picks the compressor and DEB_LEVEL its level: xz -6 by default (53 MB,
# about a minute on 2 cores); zstd -9 is 64 MB in 3 s. dpkg reads zstd since 1.21.18 (Debian 12, Ubuntu 21.10),
# older than any system with the glibc 2.36 the bundle needs. DEB_STAGE: where the file tree is assembled.
set -eu
cd "$(dirname "$0")/.."
onedir=$1 icons=$2 out=$3
compress=${DEB_COMPRESS:-xz}
level=${DEB_LEVEL:-6}
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' pyproject.toml | head -n 1)
[ -x "$onedir/vramlab" ] || { echo "build_deb: no bundle at $onedir (run make bundle)" >&2; exit 1; }
[ -n "$version" ] || { echo "build_deb: no version in pyproject.toml" >&2; exit 1; }

stage=${DEB_STAGE:-build/deb}/vramlab  # the package's file tree, as it will be installed
rm -rf "$stage"
mkdir -p "$stage/DEBIAN" "$stage/opt" "$stage/usr/bin" "$stage/usr/share/applications" \
         "$stage/usr/share/icons/hicolor/scalable/apps" "$stage/usr/share/doc/vramlab"
cp -a "$onedir" "$stage/opt/vramlab"
chmod -R u+rwX,go+rX,go-w "$stage/opt/vramlab"  # readable by every user whatever the build's umask
install -m 755 packaging/vramlab.sh "$stage/usr/bin/vramlab"
install -m 644 packaging/vramlab.desktop "$stage/usr/share/applications/vramlab.desktop"
install -m 644 assets/icons/vramlab.svg "$stage/usr/share/icons/hicolor/scalable/apps/vramlab.svg"
for png in "$icons"/vramlab-*.png; do
    size=${png##*-}; size=${size%.png}
    install -D -m 644 "$png" "$stage/usr/share/icons/hicolor/${size}x${size}/apps/vramlab.png"
done
install -m 644 packaging/deb/copyright "$stage/usr/share/doc/vramlab/copyright"

# The newest glibc symbol version any bundled binary needs (objdump is in binutils; 2.36 is what Debian 12 builds need).
glibc=$(find "$stage/opt" -type f \( -name '*.so*' -o -name vramlab \) -exec objdump -T {} + 2>/dev/null \
        | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -Vu | tail -n 1) || true
glibc=${glibc:-2.36}
depends=$(grep -v '^#' packaging/deb/depends.txt | grep . | paste -sd, - | sed 's/,/, /g')
installed_kb=$(du -sk --apparent-size --exclude=DEBIAN "$stage" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@INSTALLED_SIZE@/$installed_kb/" -e "s/@GLIBC@/$glibc/" \
    -e "s/@DEPENDS@/$depends/" packaging/deb/control.in > "$stage/DEBIAN/control"

mkdir -p "$(dirname "$out")"
dpkg-deb --root-owner-group -Z"$compress" -z"$level" --build "$stage" "$out"

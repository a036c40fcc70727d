#!/bin/sh
# /usr/bin/vramlab, installed by the .deb: starts the bundle under /opt/vramlab with the same arguments.
# A script rather than a symbolic link so that the bundle can move (or gain environment settings) in one place.
exec /opt/vramlab/vramlab "$@"

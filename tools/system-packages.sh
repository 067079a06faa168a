#!/usr/bin/env bash
# The Debian packages the tests use, installed by apt-get (run as root): GNU Backgammon (the
# independent engine the reference is compared with, also driven through its external interface),
# BSD backgammon (bsdgames: /usr/games/backgammon), headless chromium and its driver (the tests
# that open bgconf's pages in a real browser), and Node.js with npm (the JavaScript engines).
#
# Node.js and npm come from Debian only where the machine has none: a Node.js from another
# package source (NodeSource's, say, which brings its own npm) conflicts with Debian's npm, and
# asking apt for both would stop with "held broken packages". The README's test commands and
# .ci/run both run this script, so that what they install cannot drift apart.
#
#   bash tools/system-packages.sh        # QUIET=1: apt-get -qq, its output discarded
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

apt() {
    if [ -n "${QUIET:-}" ]; then
        apt-get "$1" -y -qq --no-install-recommends "${@:2}" >/dev/null
    else
        apt-get "$1" -y --no-install-recommends "${@:2}"
    fi
}

apt update
apt install gnubg bsdgames chromium chromium-driver
command -v node >/dev/null || apt install nodejs
if ! command -v npm >/dev/null; then
    apt install npm || {
        echo "warning: npm is missing, and Debian's npm cannot be installed beside this Node.js" \
             "($(command -v node)): install npm from where Node.js came from; the npm engines' tests skip" >&2
    }
fi

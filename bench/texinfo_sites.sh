#!/usr/bin/env bash
# Build the Texinfo dev site of bench/retrieval.py (``texinfo-m4``): the GNU M4 1.4.19
# manual, doc/m4.texi of github.com/autotools-mirror/m4 at commit a886ea40, with
# Debian 12's makeinfo 6.8 (apt-get install texinfo=6.8-6+b1), split by node as
# ``makeinfo --html`` does by default, into $DOCS_PANEL_GENSITES/m4-texinfo.
# Usage: bench/texinfo_sites.sh M4_CHECKOUT   (a clone of that repository)
set -euo pipefail
m4="${1:?usage: $0 M4_CHECKOUT}"
out="${DOCS_PANEL_GENSITES:-/work/gensites}/m4-texinfo"
have="$(dpkg-query -W -f='${Version}' texinfo)"
[ "$have" = "6.8-6+b1" ] || { echo "texinfo is $have, want 6.8-6+b1" >&2; exit 1; }
src="$(mktemp -d)"
trap 'rm -rf "$src"' EXIT
git -C "$m4" show a886ea40a29a08954ff80772e267828a1d440cc9:doc/m4.texi >"$src/m4.texi"
git -C "$m4" show a886ea40a29a08954ff80772e267828a1d440cc9:doc/fdl-1.3.texi >"$src/fdl-1.3.texi"
# version.texi is made by the release's build; gpl-3.0.texi comes from gnulib.
printf '@set UPDATED 13 January 2023\n@set UPDATED-MONTH January 2023\n@set EDITION 1.4.19\n@set VERSION 1.4.19\n' >"$src/version.texi"
printf 'The GNU General Public License, version 3: @uref{https://www.gnu.org/licenses/gpl-3.0.html}.\n' >"$src/gpl-3.0.texi"
rm -rf "$out"
(cd "$src" && makeinfo --html -o "$out" m4.texi)
echo "built $(ls "$out" | wc -l) pages in $out"

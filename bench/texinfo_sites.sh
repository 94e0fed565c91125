#!/usr/bin/env bash
# Build the Texinfo dev sites of bench/retrieval.py with Debian 12's makeinfo 6.8
# (apt-get install texinfo=6.8-6+b1), split by node as ``makeinfo --html`` does by
# default, into $DOCS_PANEL_GENSITES (default /work/gensites):
#   texinfo-m4:       m4-texinfo, the GNU M4 1.4.19 manual, doc/m4.texi of
#                     github.com/autotools-mirror/m4 at a886ea40
#   texinfo-readline: readline-texinfo, the GNU Readline library manual,
#                     lib/readline/doc/rlman.texi of github.com/bminor/bash at 637f5c86
# Usage: bench/texinfo_sites.sh M4_CLONE BASH_CLONE   (clones of those repositories)
set -euo pipefail
m4="${1:?usage: $0 M4_CLONE BASH_CLONE}"
bash_repo="${2:?usage: $0 M4_CLONE BASH_CLONE}"
sites="${DOCS_PANEL_GENSITES:-/work/gensites}"
have="$(dpkg-query -W -f='${Version}' texinfo)"
[ "$have" = "6.8-6+b1" ] || { echo "texinfo is $have, want 6.8-6+b1" >&2; exit 1; }
src="$(mktemp -d)"
trap 'rm -rf "$src"' EXIT

mkdir "$src/m4"
for file in m4.texi fdl-1.3.texi; do
  git -C "$m4" show "a886ea40a29a08954ff80772e267828a1d440cc9:doc/$file" >"$src/m4/$file"
done
# version.texi is made by the release's build; gpl-3.0.texi comes from gnulib.
printf '@set UPDATED 13 January 2023\n@set UPDATED-MONTH January 2023\n@set EDITION 1.4.19\n@set VERSION 1.4.19\n' >"$src/m4/version.texi"
printf 'The GNU General Public License, version 3: @uref{https://www.gnu.org/licenses/gpl-3.0.html}.\n' >"$src/m4/gpl-3.0.texi"
rm -rf "$sites/m4-texinfo"
(cd "$src/m4" && makeinfo --html -o "$sites/m4-texinfo" m4.texi)

mkdir "$src/readline"
for file in rlman.texi rluser.texi rltech.texi fdl.texi version.texi; do
  git -C "$bash_repo" show "637f5c8696a6adc9b4519f1cd74aa78492266b7f:lib/readline/doc/$file" \
    >"$src/readline/$file"
done
rm -rf "$sites/readline-texinfo"
(cd "$src/readline" && makeinfo --html -o "$sites/readline-texinfo" rlman.texi)
echo "built $(ls "$sites/m4-texinfo" | wc -l) and $(ls "$sites/readline-texinfo" | wc -l) pages"

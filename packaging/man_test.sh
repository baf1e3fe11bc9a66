#!/usr/bin/env bash
# tuner(1) describes the binary it ships with: every command in 'tuner --help' and
# every option in 'tuner help COMMAND' is named in packaging/man/tuner.1, and the page
# renders without groff warnings; bash completion and the Ansible module name the
# built-in benchmarks the binary has.
#   man_test.sh PATH/TO/tuner         (CTest package/man)
set -uo pipefail
tuner=${1:?usage: man_test.sh PATH/TO/tuner}
page=$(dirname "$0")/man/tuner.1
missing=""
# roff writes '-' as '\-'; the page's text with that undone.
text=$(sed 's/\\-/-/g' "$page")
commands=$("$tuner" --help | awk '/^commands:/ { on = 1; next } on && NF == 0 { exit } on { print $1 }')
[[ -n "$commands" ]] || { echo "FAIL: package/man: no commands in 'tuner --help'"; exit 1; }
for c in $commands; do
  # Each command is a .TP tag of its own: a line that starts with it in bold.
  grep -q "^\\\\fB$c\\\\fR" <<<"$text" || missing+=" command:$c"
  for o in $("$tuner" help "$c" | grep -o -- '--[a-z][a-z-]*' | sort -u); do
    grep -q -- "$o\b" <<<"$text" || missing+=" $c:$o"
  done
done
[[ -z "$missing" ]] || { echo "FAIL: package/man: not in tuner.1:$missing"; exit 1; }
# The built-in benchmarks as the binary lists them (kAllBenchKinds) are the ones bash
# completes after --bench and the Ansible module documents.
builtins=$("$tuner" help bench | sed -n 's/.*run benchmarks (\(.*\), or a profile.*/\1/p' | tr -d ,)
[[ -n "$builtins" ]] || { echo "FAIL: package/man: no built-in benchmarks in 'tuner help bench'"; exit 1; }
here=$(dirname "$0")
completed=$(sed -n 's/.*--bench | --name).*compgen -W "\([^"]*\)".*/\1/p' "$here/bash-completion/tuner")
[[ "$completed" == "$builtins" ]] ||
  { echo "FAIL: package/man: bash completes --bench with '$completed', tuner has '$builtins'"; exit 1; }
module=$here/ansible/ansible_collections/tuner/node/plugins/modules/tuner.py
for b in $builtins; do
  grep -q "C($b)" "$module" || { echo "FAIL: package/man: the Ansible module's doc lacks C($b)"; exit 1; }
done
if command -v groff >/dev/null; then
  warnings=$(groff -man -ww -z "$page" 2>&1)
  [[ -z "$warnings" ]] || { echo "FAIL: package/man: groff: $warnings"; exit 1; }
fi
echo "PASS: package/man: $(wc -w <<<"$commands") commands and their options are in tuner.1"

#!/usr/bin/env bash
# Lint: the tree is formatted (.clang-format) and clang-tidy finds nothing (.clang-tidy)
# in the project's own sources (base/ probes/ rollback/ tuner/ tests/ fuzz/, not the fixtures).
# Exits non-zero on any finding.
#   lint.sh [BUILD_DIR]                 clang-format check on every file, then clang-tidy
#                                       on every project .cc file of
#                                       BUILD_DIR/compile_commands.json (default: build)
#   lint.sh --changed REF [BUILD_DIR]   the same, but clang-tidy only on the .cc files
#                                       changed since the merge base with REF (committed
#                                       or not), and those that include a changed header;
#                                       when REF is unknown here or is HEAD itself (a
#                                       fresh clone), since .ci/tidy-base, the last commit
#                                       that passed a whole-tree clang-tidy; every file
#                                       when neither helps or .clang-tidy changed (all
#                                       files take ~45 min on 2 cores)
#   lint.sh --format-only               the clang-format check alone (the
#                                       lint/clang-format CTest); exits 77 (skip) when
#                                       clang-format 14 is not installed
# The tools are Debian 12's clang-format and clang-tidy (LLVM 14): another version
# formats differently, so it is refused rather than trusted.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
dirs=(base probes rollback tuner tests fuzz)

format_only=0 changed_ref=""
case "${1:-}" in
  --format-only) format_only=1; shift ;;
  --changed)
    changed_ref=${2:?"--changed needs a git ref (origin/main)"}
    shift 2
    ;;
esac
build=${1:-$src/build}

# A tool of LLVM 14: NAME-14 if installed, else NAME when it says version 14.
find_tool() {
  local name=$1 path
  for path in "$(command -v "$name-14" || true)" "$(command -v "$name" || true)"; do
    [[ -n "$path" ]] || continue
    if "$path" --version | grep -q 'version 14\.'; then
      echo "$path"
      return 0
    fi
  done
  return 1
}

in_git() { git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; }

# The project's own C++ files, NUL-separated: what git tracks in a checkout, else what
# lies in the folders.
sources() {
  if in_git; then
    git -C "$src" ls-files -z -- "${dirs[@]/%//*.cc}" "${dirs[@]/%//*.h}" |
      grep -zv '^tests/fixtures/'
  else
    (cd "$src" && find "${dirs[@]}" -path tests/fixtures -prune -o \
      \( -name '*.cc' -o -name '*.h' \) -type f -print0)
  fi
}

# With --changed: the .cc files (relative paths, one a line) clang-tidy is to check, or
# "all". Changed .cc files, and the .cc files that include a changed header directly.
changed_sources() {
  local base="" recorded=""
  in_git && base=$(git -C "$src" merge-base "$changed_ref" HEAD 2>/dev/null) || true
  # A clone with nothing to compare against (no $changed_ref, or HEAD is it: a fresh
  # clone of the commit under test) starts from the last commit a whole-tree clang-tidy
  # passed, so it still checks every file changed since.
  if [[ -z "$base" || "$base" == "$(git -C "$src" rev-parse HEAD 2>/dev/null)" ]] &&
    [[ -f "$src/.ci/tidy-base" ]]; then
    recorded=$(tr -d '[:space:]' <"$src/.ci/tidy-base")
    if git -C "$src" merge-base --is-ancestor "$recorded" HEAD 2>/dev/null; then
      echo "lint: comparing with the last whole-tree clang-tidy, $recorded (.ci/tidy-base)" >&2
      base=$recorded
    fi
  fi
  if [[ -z "$base" ]]; then
    echo "lint: no merge base with $changed_ref here: clang-tidy checks every file" >&2
    echo all
    return
  fi
  local changed
  # Committed and uncommitted changes, and new files git does not track yet (a diff
  # leaves those out, and they are the newest code).
  changed=$({
    git -C "$src" diff --name-only --diff-filter=d "$base" -- \
      .clang-tidy "${dirs[@]/%//*.cc}" "${dirs[@]/%//*.h}"
    git -C "$src" ls-files --others --exclude-standard -- "${dirs[@]/%//*.cc}" "${dirs[@]/%//*.h}"
  } | grep -v '^tests/fixtures/' || true)
  if grep -qx '.clang-tidy' <<<"$changed"; then
    echo "lint: .clang-tidy changed since $changed_ref: clang-tidy checks every file" >&2
    echo all
    return
  fi
  {
    grep '\.cc$' <<<"$changed" || true
    local h
    for h in $(grep '\.h$' <<<"$changed" || true); do
      git -C "$src" grep -l -F "#include \"$h\"" -- "${dirs[@]/%//*.cc}" || true
    done
  } | sort -u
}

if ! clang_format=$(find_tool clang-format); then
  if ((format_only)); then
    echo "SKIP: clang-format 14 (Debian 12's clang-format) is not installed"
    exit 77
  fi
  echo "lint: clang-format 14 is needed (packaging/install-deps.sh --test)" >&2
  exit 2
fi

echo "== clang-format ($("$clang_format" --version | grep -o 'version [0-9.]*'))"
(cd "$src" && sources | xargs -0 "$clang_format" --dry-run --Werror)
echo "clang-format: clean"
((format_only)) && exit 0

if ! clang_tidy=$(find_tool clang-tidy); then
  echo "lint: clang-tidy 14 is needed (packaging/install-deps.sh --test)" >&2
  exit 2
fi
run_clang_tidy=$(command -v run-clang-tidy-14 || command -v run-clang-tidy || true)
if [[ -z "$run_clang_tidy" ]]; then
  echo "lint: run-clang-tidy is needed (Debian's clang-tidy package has it)" >&2
  exit 2
fi
if [[ ! -f "$build/compile_commands.json" ]]; then
  echo "lint: no $build/compile_commands.json: configure with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON" >&2
  exit 2
fi

# run-clang-tidy takes regular expressions on the compile database's absolute paths.
# Every .cc file the build compiles is the project's own; headers are checked through
# them (.clang-tidy's HeaderFilterRegex).
patterns=('/(base|probes|rollback|tuner|tests|fuzz)/.*\.cc$')
what="every project .cc file"
if [[ -n "$changed_ref" ]]; then
  files=$(changed_sources)
  if [[ "$files" != all ]]; then
    if [[ -z "$files" ]]; then
      echo "clang-tidy: no C++ file changed since the merge base with $changed_ref"
      exit 0
    fi
    patterns=()
    while IFS= read -r f; do
      patterns+=("/$(sed 's/[.[\*^$()+?{}|]/\\&/g' <<<"$f")\$")
    done <<<"$files"
    what="${#patterns[@]} .cc file(s) changed since the merge base with $changed_ref (or .ci/tidy-base, above)"
  fi
fi

echo "== clang-tidy ($("$clang_tidy" --version | grep -o 'version [0-9.]*'), -j$(nproc)): $what"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$SECONDS
status=0
"$run_clang_tidy" -quiet -p "$build" -j"$(nproc)" -clang-tidy-binary "$clang_tidy" \
  "${patterns[@]}" >"$log" 2>&1 || status=$?
# The findings, without run-clang-tidy's command lines, colours and tallies.
sed -r 's/\x1b\[[0-9;]*m//g' "$log" |
  grep -v -E "^($clang_tidy |[0-9]+ warnings?( and [0-9]+ errors?)? generated\.$)" || true
echo "clang-tidy: $((SECONDS - start)) s"
if ((status != 0)); then
  echo "lint: clang-tidy found problems (above)" >&2
  exit 1
fi
echo "clang-tidy: clean"

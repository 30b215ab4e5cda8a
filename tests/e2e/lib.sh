# Shared by the end-to-end tests: $1 = kgate binary, $2 = source root.
set -uo pipefail
# Absolute, so a test may cd into its work folder whatever paths it was given.
KGATE="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
SRC="$(cd "$2" && pwd)"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fails=0
check() {  # check "what" expected_rc actual_rc
  if [ "$2" != "$3" ]; then echo "FAIL: $1: exit $3, expected $2"; fails=$((fails + 1)); else echo "ok: $1"; fi
}
expect_grep() {  # expect_grep "what" pattern file
  if grep -q -- "$2" "$3"; then echo "ok: $1"; else echo "FAIL: $1: no '$2' in $3:"; cat "$3"; fails=$((fails + 1)); fi
}
finish() { [ "$fails" -eq 0 ] && echo "all passed" && exit 0; echo "$fails failed"; exit 1; }

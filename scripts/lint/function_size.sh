#!/usr/bin/env bash
# Lists every host function longer than a limit (default 80 lines, signature to closing brace)
# in the C++ and CUDA sources under the given folders; exits 1 when there is one. Device code
# (__global__ and __device__ functions) is judged by its SASS and registers, not by this count.
# Usage: function_size.sh [--limit N] DIR...   (needs Universal Ctags: Debian universal-ctags)
set -euo pipefail
limit=80
if [ "${1:-}" = "--limit" ]; then limit="$2"; shift 2; fi
[ $# -gt 0 ] || { echo "usage: $0 [--limit N] DIR..." >&2; exit 2; }
command -v ctags >/dev/null || { echo "function_size: ctags not found (apt install universal-ctags)" >&2; exit 2; }
ctags --version | grep -q "Universal Ctags" || { echo "function_size: needs Universal Ctags" >&2; exit 2; }
files=$(find "$@" -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) | sort)
[ -n "$files" ] || { echo "function_size: no C++ or CUDA sources under $*" >&2; exit 2; }
# One line per function: end line, start line, file, name. Lambdas are counted inside the
# function that holds them, not on their own.
# shellcheck disable=SC2086
ctags --languages=C++ --langmap=C++:+.cu.cuh --kinds-C++=f --fields=+ne -x \
  --_xformat="%{end} %{line} %{input} %{name}" $files |
  awk -v limit="$limit" '
    $4 ~ /^__anon/ { next }
    { n = $1 - $2 + 1; if (n < limit) next
      # The signature: the tag line and the two before it (a template line, __launch_bounds__).
      from = $2 > 2 ? $2 - 2 : 1; sig = ""
      cmd = "sed -n \"" from "," $2 "p\" \"" $3 "\""
      while ((cmd | getline l) > 0) sig = sig " " l
      close(cmd)
      if (sig ~ /__global__|__device__/) next
      printf "%s:%s: %s is %d lines (limit %d)\n", $3, $2, $4, n, limit; bad++ }
    END { exit bad > 0 }'

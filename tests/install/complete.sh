#!/usr/bin/env bash
# Completes a command line as bash would with the cursor at its end: prints the completion
# function's answers, one a line. bash-completion's helpers (_init_completion, _filedir) are
# stood in for, so the test needs no bash-completion package.
# Usage: complete.sh COMPLETION_FILE PROGRAM WORD...
comp=$1 cli=$2
shift 2
_init_completion() {
  words=("${COMP_WORDS[@]}") cword=$COMP_CWORD
  cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
}
_filedir() { :; }
# shellcheck source=/dev/null
source "$comp"
COMP_WORDS=("$cli" "$@")
COMP_CWORD=$#
_bankviz_cli "$cli" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
printf '%s\n' "${COMPREPLY[@]}"

# shellcheck shell=bash
# What the action's scripts share: the words of an input, and text made safe for a
# workflow command.
#
# split_words splits an action input into words as a POSIX shell splits a command line,
# without a shell: nothing in the text is expanded or run.
#
#   split_words "--select 'a,b' --baseline \"my file.json\""   # words=(--select a,b --baseline "my file.json")
#
# - spaces, tabs and line breaks separate words;
# - '…' keeps everything literally; "…" too, but for \" \\ \$ \` (the character) and a
#   backslash before a line break (nothing); outside quotes a backslash keeps the next
#   character (before a line break: nothing);
# - a word that starts with # begins a comment, to the end of the line;
# - $(…), `…`, $NAME, ~ and glob characters stay as they are: retrylint expands quoted
#   globs itself, and nothing else is expanded.
#
# Sets the array `words`; returns 1, with `split_error` saying why, on an unclosed quote.
# Written for bash 3.2 (macOS): no namerefs, no mapfile.

split_words() {
  local text="$1" length=${#1} at=0 char next word="" started=false quote=""
  words=()
  # shellcheck disable=SC2034 # read by the caller
  split_error=""
  while [ "$at" -lt "$length" ]; do
    char="${text:at:1}"
    next="${text:at+1:1}"
    if [ "$quote" = "'" ]; then
      if [ "$char" = "'" ]; then quote=""; else word+="$char"; fi
    elif [ "$quote" = '"' ]; then
      if [ "$char" = '"' ]; then
        quote=""
      elif [ "$char" = "\\" ]; then
        case "$next" in
          '"' | "\\" | '$' | '`')
            word+="$next"
            at=$((at + 1))
            ;;
          $'\n') at=$((at + 1)) ;;
          *) word+="$char" ;;
        esac
      else
        word+="$char"
      fi
    else
      case "$char" in
        ' ' | $'\t' | $'\n' | $'\r')
          if $started; then
            words+=("$word")
            word=""
            started=false
          fi
          ;;
        "'" | '"')
          quote="$char"
          started=true
          ;;
        "\\")
          if [ -z "$next" ]; then
            word+="$char"
            started=true
          elif [ "$next" != $'\n' ]; then
            word+="$next"
            started=true
          fi
          at=$((at + 1))
          ;;
        '#')
          if $started; then
            word+="$char"
          else
            while [ "$at" -lt "$length" ] && [ "${text:at:1}" != $'\n' ]; do at=$((at + 1)); done
          fi
          ;;
        *)
          word+="$char"
          started=true
          ;;
      esac
    fi
    at=$((at + 1))
  done
  if [ -n "$quote" ]; then
    # shellcheck disable=SC2034 # read by the caller
    split_error="an unclosed $quote quote"
    return 1
  fi
  if $started; then words+=("$word"); fi
  return 0
}

# A workflow command's message (`::error::…`): `%`, CR and LF encoded as the runner
# decodes them, so a value cannot end the command or start another.
workflow_escape() {
  local text="$1"
  text="${text//%/%25}"
  text="${text//$'\r'/%0D}"
  text="${text//$'\n'/%0A}"
  printf '%s' "$text"
}

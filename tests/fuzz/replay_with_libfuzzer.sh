#!/bin/sh
# Runs a libFuzzer binary once over every file of the given folders, in sorted order, as
# replay_main.cpp does in builds without libFuzzer. Given files (not folders), libFuzzer runs each
# once and writes nothing beside them. Usage: replay_with_libfuzzer.sh BINARY DIR...
set -eu
binary=$1
shift
files=$(for dir in "$@"; do if [ -d "$dir" ]; then find "$dir" -type f; fi; done | LC_ALL=C sort)
if [ -z "$files" ]; then
  echo "no inputs under $*" >&2
  exit 1
fi
# The committed inputs' names have no spaces (they are hashes and short words).
# shellcheck disable=SC2086
exec "$binary" $files

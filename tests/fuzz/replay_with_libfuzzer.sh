#!/bin/sh
# Runs a libFuzzer binary once over every file of the given folders, in sorted order, as
# replay_main.cpp does in builds without libFuzzer. Given files (not folders), libFuzzer runs each
# once and writes nothing beside them. Usage: replay_with_libfuzzer.sh BINARY DIR...
# A folder that does not exist is skipped (git keeps no empty regressions/ folder).
set -eu
binary=$1
shift
count=0
for dir in "$@"; do
  if [ -d "$dir" ]; then count=$((count + $(find "$dir" -type f | wc -l))); fi
done
if [ "$count" -eq 0 ]; then
  echo "no inputs under $*" >&2
  exit 1
fi
# NUL-separated: paths with spaces stay whole. xargs exits non-zero if any run does.
for dir in "$@"; do
  if [ -d "$dir" ]; then find "$dir" -type f -print0; fi
done | LC_ALL=C sort -z | xargs -0 "$binary"

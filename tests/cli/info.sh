#!/bin/sh
# SPDX-License-Identifier: MIT
# engpass info on the real machine: one valid JSON document with the
# fields the foundation issue asks for, and a readable table.
. "$(dirname "$0")/lib.sh"

run info --json --no-calibrate
check "info --json exits 0" [ "$RC" = 0 ]
jqt "info --json is one valid JSON document" . "$T_TMP/out"
jqt "schema is engpass/1" '.schema == "engpass/1"' "$T_TMP/out"
for key in cpu memory swap block_devices mounts network kernel virtualization io_uring features; do
	jqt "info has $key" ".info | has(\"$key\")" "$T_TMP/out"
done

run info
check "info table exits 0" [ "$RC" = 0 ]
check "info table names the frequency source" grep -qi "MHz\|frequency" "$T_TMP/out"
check "info table says which optional libraries it was built without" grep -q "built without" "$T_TMP/out"

done_testing

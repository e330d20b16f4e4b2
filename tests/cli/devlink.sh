#!/bin/sh
# SPDX-License-Identifier: MIT
# The device link in every disk result (method "device link", docs/disk.md):
# the disk under a directory here (virtio on the development VM: not
# reported, with the reason), and, as root, a loop device (not reported:
# names its backing file). The links of the other buses are checked from
# the fixture tree by info.sh and the unit tests (test_devlink, test_verdict).
. "$(dirname "$0")/lib.sh"

LOOP=""
cleanup() {
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	rm -rf "$T_TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

mkdir -p "$T_TMP/dir"
run disk "$T_TMP/dir" --workload seq-read --size 8M --time 500ms --json --no-history
check "disk exits 0" [ "$RC" = 0 ]
jqt "the disk result's method has a device link" '.results[0].method["device link"] | type == "string" and length > 0' "$T_TMP/out"
disk=$(jq -r '.info.block_devices[].name' "$T_TMP/out" 2>/dev/null | head -1)
if readlink -f "/sys/class/block/$(findmnt -no SOURCE -T "$T_TMP" 2>/dev/null | sed 's|^/dev/||')" 2>/dev/null | grep -q /virtio; then
	jqt "on virtio the device link is not reported, and says why" \
		'.results[0].method["device link"] | test("^not reported: virtio .*paravirtual")' "$T_TMP/out"
	jqt "a link not below its capability adds no note" '[.results[0].notes[] | select(test("below its capability"))] | length == 0' "$T_TMP/out"
else
	skip "on virtio the device link is not reported" "the test directory is not on a virtio disk ($disk)"
	skip "a link not below its capability adds no note" "not on virtio"
fi

if [ "$(id -u)" != 0 ] || ! command -v losetup >/dev/null 2>&1; then
	skip "a loop device's link is not reported and names its file" "needs root and losetup"
else
	truncate -s 16M "$T_TMP/img"
	if LOOP=$(losetup --show -f "$T_TMP/img" 2>/dev/null); then
		run disk "$LOOP" -t --time 500ms --json --no-history
		jqt "a loop device's link is not reported and names its file" \
			".results[0].method[\"device link\"] | test(\"^not reported: a loop device over '$T_TMP/img'\")" "$T_TMP/out"
		losetup -d "$LOOP" && LOOP=""
		check "the loop device of this test is gone" [ -z "$(losetup -j "$T_TMP/img")" ]
	else
		skip "a loop device's link is not reported and names its file" "losetup failed"
	fi
fi

done_testing

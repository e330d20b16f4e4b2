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

# Every block device carries its negotiated link, or why none is reported.
run info --json --no-calibrate --no-history
jqt "info: every block device has a link object" '[.info.block_devices[] | .link | type == "object"] | all' "$T_TMP/out"
if [ -e /sys/block/vda ] && readlink -f /sys/block/vda | grep -q /virtio; then
	jqt "info: the virtio disk's link is not reported, and says why" \
		'.info.block_devices[] | select(.name == "vda") | .link | .bus == "virtio" and .reported == false and (.why_not_reported | test("paravirtual"))' "$T_TMP/out"
else
	skip "info: the virtio disk's link is not reported" "no virtio disk vda here"
fi

# The links fixture (tests/fixtures/sysfs/links): one disk on every bus.
ENGPASS_SYS_ROOT=$ENGPASS_FIXTURES/sysfs/links
export ENGPASS_SYS_ROOT
run info --json --no-calibrate --no-history
jqt "fixture: a USB 3 stick at 480 Mbit/s on a SuperSpeed port is below both" \
	'.info.block_devices[] | select(.name == "sdb") | .link | .bus == "usb" and .judgement == "below both"
	 and .negotiated.bits_per_second_per_lane == 480000000 and .device_supports.bits_per_second_per_lane == 5000000000
	 and .port_supports.bits_per_second_per_lane == 5000000000' "$T_TMP/out"
jqt "fixture: a 5 Gbit/s stick at 5 Gbit/s is at capability" \
	'.info.block_devices[] | select(.name == "sdc") | .link | .judgement == "at capability" and .below_capability == false' "$T_TMP/out"
jqt "fixture: a USB 3 stick in a USB 2 only port: the port limits" \
	'.info.block_devices[] | select(.name == "sdd") | .link | .judgement == "port limits"' "$T_TMP/out"
jqt "fixture: SATA at 1.5 of 6 Gbps is below both, with libata's limit" \
	'.info.block_devices[] | select(.name == "sda") | .link | .bus == "sata" and .judgement == "below both"
	 and .negotiated.text == "1.5 Gbps" and .device_supports.text == "6.0 Gbps" and (.limit | test("sata_spd_limit"))' "$T_TMP/out"
jqt "fixture: NVMe at Gen3 x2 of Gen4 x4 is below both" \
	'.info.block_devices[] | select(.name == "nvme0n1") | .link | .bus == "pcie" and .judgement == "below both"
	 and .negotiated.text == "8.0 GT/s x2" and .device_supports.text == "16.0 GT/s x4" and .port_supports.lanes == 4' "$T_TMP/out"
jqt "fixture: virtio is not reported although its PCI function says 2.5 GT/s" \
	'.info.block_devices[] | select(.name == "vda") | .link | .bus == "virtio" and .reported == false' "$T_TMP/out"
jqt "fixture: a loop device is not reported and names its file" \
	'.info.block_devices[] | select(.name == "loop0") | .link | .reported == false and (.why_not_reported | test("/var/tmp/img"))' "$T_TMP/out"
run info --no-calibrate --no-history
check "fixture table: sdb's line says BELOW CAPABILITY with both rates" \
	grep -q "^  sdb *BELOW CAPABILITY: USB 480 Mbit/s negotiated .*the device supports 5 Gbit/s" "$T_TMP/out"
check "fixture table: sdc's line has no BELOW" sh -c "grep '^  sdc ' '$T_TMP/out' | grep -qv BELOW"
check "fixture table: vda's line says not reported" grep -q "^  vda *not reported: virtio" "$T_TMP/out"
unset ENGPASS_SYS_ROOT

done_testing

/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for src/core/kernel/devlink.c against tests/fixtures/sysfs/links/
 * (one box with every bus: a USB 3 stick at high speed on a SuperSpeed
 * port, a 5 Gbit/s stick at 5 Gbit/s, a USB 3 stick in a USB 2 only port,
 * a SATA disk at 1.5 of 6 Gbps, an NVMe drive at Gen3 x2 of Gen4 x4, a
 * virtio disk on a PCI function that reports a link, a loop device), and
 * the parsers on their own: BOS descriptors, IDENTIFY word 76, rate text.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/kernel/devlink.h"

static char root[PATH_MAX];

static int setup(void **state)
{
	const char *d = getenv("ENGPASS_FIXTURES");

	(void)state;
	snprintf(root, sizeof(root), "%s/sysfs/links", d ? d : "tests/fixtures");
	return 0;
}

static void read_ok(const char *name, struct devlink *l)
{
	int r = devlink_read(root, name, l);

	if (r)
		fail_msg("devlink_read(%s, %s): %s", root, name, strerror(-r));
}

static void contains(const char *text, const char *part)
{
	if (!strstr(text, part))
		fail_msg("'%s' not in '%s'", part, text);
}

/* A USB 3 stick negotiated at 480 Mbit/s on a port whose peer is SuperSpeed: below both. */
static void usb3_stick_at_high_speed(void **state)
{
	struct devlink l;
	char buf[1024];

	(void)state;
	read_ok("sdb", &l);
	assert_int_equal(l.bus, DEVLINK_BUS_USB);
	assert_true(l.reported);
	assert_true(l.cur.bps == 480e6);
	assert_true(l.dev.bps == 5e9);
	assert_true(l.port.bps == 5e9);
	assert_int_equal(l.cause, DEVLINK_BELOW_BOTH);
	assert_true(devlink_below(&l));
	assert_false(l.full_duplex);
	assert_true(fabs(l.usable_bytes_per_s - 40.0 * 1024 * 1024) < 1);
	assert_true(l.capable_bytes_per_s == 450e6);
	assert_string_equal(l.node, "usb 1-2");
	assert_string_equal(l.product, "Ultra");
	devlink_describe(&l, buf, sizeof(buf));
	contains(buf, "USB 480 Mbit/s negotiated");
	contains(buf, "the device supports 5 Gbit/s");
	contains(buf, "peer usb2-port2 on usb2 5000 Mbit/s");
	contains(buf, "negotiated below what both support");
	/* 38 MiB/s read over USB 2: 95 % of the 40 MiB/s assumed. */
	assert_true(fabs(devlink_share(&l, 38.0 * 1024 * 1024, 0) - 0.95) < 1e-9);
	/* Half duplex: reads and writes share the link. */
	assert_true(fabs(devlink_share(&l, 20.0 * 1024 * 1024, 20.0 * 1024 * 1024) - 1.0) < 1e-9);
}

/* A partition is taken as its disk. */
static void partition_is_its_disk(void **state)
{
	struct devlink l;

	(void)state;
	read_ok("sdb1", &l);
	assert_string_equal(l.disk, "sdb");
	assert_int_equal(l.cause, DEVLINK_BELOW_BOTH);
}

/* bcdUSB 3.20 with a 5 Gbit/s BOS at 5000 on a 5000 hub: at capability, full duplex. */
static void usb3_stick_on_usb3(void **state)
{
	struct devlink l;

	(void)state;
	read_ok("sdc", &l);
	assert_int_equal(l.bus, DEVLINK_BUS_USB);
	assert_true(l.cur.bps == 5e9);
	assert_true(l.dev.bps == 5e9);
	assert_true(l.port.bps == 5e9);
	assert_int_equal(l.cause, DEVLINK_AT_CAPABILITY);
	assert_false(devlink_below(&l));
	assert_true(l.full_duplex);
	assert_true(l.usable_bytes_per_s == 450e6);
	assert_true(isnan(l.capable_bytes_per_s));
	/* Full duplex: the larger direction counts. */
	assert_true(fabs(devlink_share(&l, 225e6, 90e6) - 0.5) < 1e-9);
}

/* A USB 3 stick in a USB 2 only port: the port is what limits. */
static void usb3_stick_in_usb2_port(void **state)
{
	struct devlink l;
	char buf[1024];

	(void)state;
	read_ok("sdd", &l);
	assert_true(l.dev.bps == 5e9);
	assert_true(l.port.bps == 480e6);
	assert_int_equal(l.cause, DEVLINK_PORT_LIMITS);
	assert_true(devlink_below(&l));
	devlink_describe(&l, buf, sizeof(buf));
	contains(buf, "the port is slower than the device");
}

static void sata_below_both(void **state)
{
	struct devlink l;
	char buf[1024];

	(void)state;
	read_ok("sda", &l);
	assert_int_equal(l.bus, DEVLINK_BUS_SATA);
	assert_string_equal(l.node, "ata1 link1");
	assert_true(l.cur.bps == 1.5e9);
	assert_true(l.dev.bps == 6e9);
	assert_true(l.port.bps == 6e9);
	assert_int_equal(l.cause, DEVLINK_BELOW_BOTH);
	assert_true(fabs(l.usable_bytes_per_s - 138e6) < 1);
	assert_true(fabs(l.capable_bytes_per_s - 552e6) < 1);
	contains(l.port.source, "AHCI CAP.ISS 3");
	contains(l.limit_note, "libata limits link1 to 1.5 Gbps");
	assert_string_equal(l.product, "ST1000DM003-1CH1");
	devlink_describe(&l, buf, sizeof(buf));
	contains(buf, "SATA 1.5 Gbps negotiated");
	contains(buf, "the device supports 6.0 Gbps (dev1.0 IDENTIFY word 76)");
}

static void nvme_gen3_x2_of_gen4_x4(void **state)
{
	struct devlink l;
	char buf[1024];

	(void)state;
	read_ok("nvme0n1", &l);
	assert_int_equal(l.bus, DEVLINK_BUS_PCIE);
	assert_string_equal(l.node, "PCI 0000:02:00.0");
	assert_true(l.cur.bps == 8e9);
	assert_int_equal(l.cur.lanes, 2);
	assert_true(l.dev.bps == 16e9);
	assert_int_equal(l.dev.lanes, 4);
	assert_int_equal(l.port.lanes, 4);
	assert_int_equal(l.cause, DEVLINK_BELOW_BOTH);
	assert_true(l.full_duplex);
	/* Gen3: 8 GT/s x 128/130 / 8 = 984.6 MB/s a lane, two lanes, 88 %. */
	assert_true(fabs(l.usable_bytes_per_s - 8e9 / 8 * 128 / 130 * 2 * 0.88) < 1);
	assert_true(fabs(l.capable_bytes_per_s - 16e9 / 8 * 128 / 130 * 4 * 0.88) < 1);
	devlink_describe(&l, buf, sizeof(buf));
	contains(buf, "PCIe 8.0 GT/s x2 negotiated");
	contains(buf, "the device supports 16.0 GT/s x4");
}

/* A fabricated tree in a private mkdtemp() directory, for the variants the fixture box lacks. */
struct tmp {
	char dir[64];
};

static void put(const struct tmp *t, const char *rel, const char *text)
{
	char path[PATH_MAX], cmd[PATH_MAX + 32];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", t->dir, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void lnk(const struct tmp *t, const char *target, const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", t->dir, rel);
	assert_int_equal(symlink(target, path), 0);
}

static void tmp_make(struct tmp *t)
{
	snprintf(t->dir, sizeof(t->dir), "/tmp/engpass-devlink.XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	put(t, "class/block/.keep", "");
}

static void tmp_remove(struct tmp *t)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->dir);
	assert_int_equal(system(cmd), 0);
}

/* Same speed as both support, fewer lanes: still below both (a x4 drive in a x4 slot at x1). */
static void pcie_width_only(void **state)
{
	struct tmp t;
	struct devlink l;

	(void)state;
	tmp_make(&t);
	put(&t, "devices/pci0000:00/0000:00:01.0/max_link_speed", "8.0 GT/s PCIe\n");
	put(&t, "devices/pci0000:00/0000:00:01.0/max_link_width", "4\n");
	put(&t, "devices/pci0000:00/0000:00:01.0/0000:01:00.0/max_link_speed", "8.0 GT/s PCIe\n");
	put(&t, "devices/pci0000:00/0000:00:01.0/0000:01:00.0/max_link_width", "4\n");
	put(&t, "devices/pci0000:00/0000:00:01.0/0000:01:00.0/current_link_speed", "8.0 GT/s PCIe\n");
	put(&t, "devices/pci0000:00/0000:00:01.0/0000:01:00.0/current_link_width", "1\n");
	put(&t, "devices/pci0000:00/0000:00:01.0/0000:01:00.0/nvme/nvme1/nvme1n1/size", "8\n");
	lnk(&t, "../../devices/pci0000:00/0000:00:01.0/0000:01:00.0/nvme/nvme1/nvme1n1", "class/block/nvme1n1");
	assert_int_equal(devlink_read(t.dir, "nvme1n1", &l), 0);
	assert_int_equal(l.cause, DEVLINK_BELOW_BOTH);
	assert_int_equal(l.cur.lanes, 1);
	/* The same at x4 in a x4 slot is at capability; in a x1 slot, the port limits. */
	put(&t, "devices/pci0000:00/0000:00:01.0/0000:01:00.0/current_link_width", "4\n");
	assert_int_equal(devlink_read(t.dir, "nvme1n1", &l), 0);
	assert_int_equal(l.cause, DEVLINK_AT_CAPABILITY);
	put(&t, "devices/pci0000:00/0000:00:01.0/0000:01:00.0/current_link_width", "1\n");
	put(&t, "devices/pci0000:00/0000:00:01.0/max_link_width", "1\n");
	assert_int_equal(devlink_read(t.dir, "nvme1n1", &l), 0);
	assert_int_equal(l.cause, DEVLINK_PORT_LIMITS);
	tmp_remove(&t);
}

/* Without bos_descriptors (before Linux 6.9): bcdUSB 2.10 leaves the capability unknown, 3.x is 5 Gbit/s or more. */
static void usb_without_bos(void **state)
{
	struct tmp t;
	struct devlink l;
	char buf[1024];

	(void)state;
	tmp_make(&t);
	put(&t, "devices/pci0000:00/0000:00:14.0/usb1/speed", "480\n");
	put(&t, "devices/pci0000:00/0000:00:14.0/usb1/version", " 2.00\n");
	put(&t, "devices/pci0000:00/0000:00:14.0/usb1/idVendor", "1d6b\n");
	put(&t, "devices/pci0000:00/0000:00:14.0/usb1/1-1/speed", "480\n");
	put(&t, "devices/pci0000:00/0000:00:14.0/usb1/1-1/version", " 2.10\n");
	put(&t, "devices/pci0000:00/0000:00:14.0/usb1/1-1/idVendor", "0781\n");
	put(&t, "devices/pci0000:00/0000:00:14.0/usb1/1-1/1-1:1.0/host0/target0:0:0/0:0:0:0/block/sde/size", "8\n");
	lnk(&t, "../../devices/pci0000:00/0000:00:14.0/usb1/1-1/1-1:1.0/host0/target0:0:0/0:0:0:0/block/sde",
	    "class/block/sde");
	assert_int_equal(devlink_read(t.dir, "sde", &l), 0);
	assert_true(l.reported);
	assert_true(isnan(l.dev.bps));
	assert_int_equal(l.cause, DEVLINK_AT_CAPABILITY);
	devlink_describe(&l, buf, sizeof(buf));
	contains(buf, "only its BOS descriptor tells");
	/* A 2.00 device is a USB 2.0 one: 480 is its capability. */
	put(&t, "devices/pci0000:00/0000:00:14.0/usb1/1-1/version", " 2.00\n");
	assert_int_equal(devlink_read(t.dir, "sde", &l), 0);
	assert_true(l.dev.bps == 480e6);
	assert_int_equal(l.cause, DEVLINK_AT_CAPABILITY);
	/* bcdUSB 3.00 at 480 on a USB 2 hub without a peer: the port limits. */
	put(&t, "devices/pci0000:00/0000:00:14.0/usb1/1-1/version", " 3.00\n");
	assert_int_equal(devlink_read(t.dir, "sde", &l), 0);
	assert_true(l.dev.bps == 5e9);
	assert_true(l.dev.at_least);
	assert_int_equal(l.cause, DEVLINK_PORT_LIMITS);
	devlink_describe(&l, buf, sizeof(buf));
	contains(buf, "the device supports at least 5 Gbit/s");
	tmp_remove(&t);
}

static void virtio_not_reported(void **state)
{
	struct devlink l;
	char buf[512];

	(void)state;
	read_ok("vda", &l);
	assert_int_equal(l.bus, DEVLINK_BUS_VIRTIO);
	assert_false(l.reported);
	assert_false(devlink_below(&l));
	assert_true(isnan(devlink_share(&l, 1e6, 1e6)));
	devlink_describe(&l, buf, sizeof(buf));
	contains(buf, "not reported: virtio (virtio1)");
}

static void loop_not_reported(void **state)
{
	struct devlink l;
	char buf[512];

	(void)state;
	read_ok("loop0", &l);
	assert_int_equal(l.bus, DEVLINK_BUS_VIRTUAL);
	assert_false(l.reported);
	devlink_describe(&l, buf, sizeof(buf));
	contains(buf, "a loop device over '/var/tmp/img'");
}

static void missing_device(void **state)
{
	struct devlink l;

	(void)state;
	assert_int_equal(devlink_read(root, "sdz", &l), -ENODEV);
	assert_int_equal(devlink_read(root, "../sda", &l), -ENODEV);
}

static void bos_parser(void **state)
{
	/* Header, USB 2.0 extension, SuperSpeed (5 Gbit/s). */
	static const unsigned char ss[] = { 0x05, 0x0f, 0x16, 0x00, 0x02, 0x07, 0x10, 0x02, 0x06, 0x00, 0x00, 0x00,
					    0x0a, 0x10, 0x03, 0x00, 0x0e, 0x00, 0x01, 0x0a, 0xff, 0x07 };
	/* Header and a SuperSpeedPlus capability with two sublink attributes: 10 Gb/s (LSE 3, LSM 10). */
	static const unsigned char ssp[] = { 0x05, 0x0f, 0x19, 0x00, 0x01, 0x14, 0x10, 0x0a, 0x00, 0x01, 0x00,
					     0x00, 0x00, 0x00, 0x11, 0x00, 0x00, 0x30, 0x00, 0x0a, 0x00,
					     0xb0, 0x40, 0x0a, 0x00 };
	/* Only the USB 2.0 extension: no SuperSpeed. */
	static const unsigned char hs[] = { 0x05, 0x0f, 0x0c, 0x00, 0x01, 0x07, 0x10, 0x02, 0x06, 0x00, 0x00, 0x00 };
	/* Truncated: wTotalLength past the data, and a zero-length capability. */
	static const unsigned char bad[] = { 0x05, 0x0f, 0xff, 0x00, 0x02, 0x00, 0x10, 0x03 };

	(void)state;
	assert_true(devlink_bos_max_bps(ss, sizeof(ss)) == 5e9);
	assert_true(devlink_bos_max_bps(ssp, sizeof(ssp)) == 10e9);
	assert_true(isnan(devlink_bos_max_bps(hs, sizeof(hs))));
	assert_true(isnan(devlink_bos_max_bps(bad, sizeof(bad))));
	assert_true(isnan(devlink_bos_max_bps(ss, 3)));
}

static void ata_id_parser(void **state)
{
	char text[256 * 5 + 1];
	size_t off = 0;

	(void)state;
	for (int i = 0; i < 256; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off, "%04x%c", i == 76 ? 0x0006 : 0, (i + 1) & 7 ? ' ' : '\n');
	assert_true(devlink_ata_id_max_bps(text) == 3e9);
	assert_true(isnan(devlink_ata_id_max_bps("0040 0000")));
	assert_true(isnan(devlink_ata_id_max_bps("")));
}

static void rate_parser(void **state)
{
	(void)state;
	assert_true(devlink_parse_rate("8.0 GT/s PCIe") == 8e9);
	assert_true(devlink_parse_rate("5 GT/s") == 5e9);
	assert_true(devlink_parse_rate("1.5 Gbps") == 1.5e9);
	assert_true(devlink_parse_rate("480") == 480e6);
	assert_true(devlink_parse_rate("1.5") == 1.5e6);
	assert_true(isnan(devlink_parse_rate("<unknown>")));
	assert_true(isnan(devlink_parse_rate("Unknown")));
	assert_true(isnan(devlink_parse_rate("Unknown speed")));
	assert_true(isnan(devlink_parse_rate("0")));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(usb3_stick_at_high_speed),
		cmocka_unit_test(partition_is_its_disk),
		cmocka_unit_test(usb3_stick_on_usb3),
		cmocka_unit_test(usb3_stick_in_usb2_port),
		cmocka_unit_test(sata_below_both),
		cmocka_unit_test(nvme_gen3_x2_of_gen4_x4),
		cmocka_unit_test(pcie_width_only),
		cmocka_unit_test(usb_without_bos),
		cmocka_unit_test(virtio_not_reported),
		cmocka_unit_test(loop_not_reported),
		cmocka_unit_test(missing_device),
		cmocka_unit_test(bos_parser),
		cmocka_unit_test(ata_id_parser),
		cmocka_unit_test(rate_parser),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}

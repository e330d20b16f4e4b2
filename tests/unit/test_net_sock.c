/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the link speed of src/core/kernel/net_sock.c over a fake sysfs
 * tree: a physical interface (a "device" link) gives its speed; a virtual
 * one (veth, tun, bridge: no "device") gives none, whatever its speed file
 * says (veth reports 10000); a down link (no readable speed) and an
 * interface that does not exist give none and are not called virtual.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/kernel/net_sock.h"

static char root[64];

static void put(const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void dir(const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

static int setup(void **state)
{
	char target[256], link[256];

	(void)state;
	snprintf(root, sizeof(root), "/tmp/engpass-netsock.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	dir("class");
	dir("class/net");
	dir("class/net/eth0");
	put("class/net/eth0/speed", "1000\n");
	dir("devices");
	dir("devices/virtio2");
	snprintf(target, sizeof(target), "%s/devices/virtio2", root);
	snprintf(link, sizeof(link), "%s/class/net/eth0/device", root);
	assert_int_equal(symlink(target, link), 0);
	dir("class/net/veth0");
	put("class/net/veth0/speed", "10000\n");
	dir("class/net/tun0");
	dir("class/net/eth1");
	snprintf(link, sizeof(link), "%s/class/net/eth1/device", root);
	assert_int_equal(symlink(target, link), 0);
	put("class/net/eth1/speed", "-1\n");
	return 0;
}

static int teardown(void **state)
{
	static const char *const files[] = {
		"class/net/eth0/speed", "class/net/eth0/device", "class/net/veth0/speed",
		"class/net/eth1/device", "class/net/eth1/speed",
	};
	static const char *const dirs[] = {
		"class/net/eth0", "class/net/veth0", "class/net/tun0", "class/net/eth1", "class/net", "class",
		"devices/virtio2", "devices", "",
	};
	char path[256];
	int r = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, files[i]);
		r |= unlink(path);
	}
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, dirs[i]);
		r |= rmdir(path);
	}
	return r ? -1 : 0;
}

static void test_link_speed(void **state)
{
	(void)state;
	assert_false(net_link_virtual(root, "eth0"));
	assert_true(net_link_speed_bps(root, "eth0") == 1e9);
	/* veth's made-up 10000 Mbit/s is not a speed. */
	assert_true(net_link_virtual(root, "veth0"));
	assert_true(net_link_speed_bps(root, "veth0") < 0);
	assert_true(net_link_virtual(root, "tun0"));
	assert_true(net_link_speed_bps(root, "tun0") < 0);
	/* A down link: a device, no speed, not virtual. */
	assert_false(net_link_virtual(root, "eth1"));
	assert_true(net_link_speed_bps(root, "eth1") < 0);
	/* No such interface, or a name that is a path: neither. */
	assert_false(net_link_virtual(root, "nope0"));
	assert_true(net_link_speed_bps(root, "nope0") < 0);
	assert_false(net_link_virtual(root, "../eth0"));
	assert_false(net_link_virtual(root, ""));
	assert_false(net_link_virtual(root, NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_link_speed),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

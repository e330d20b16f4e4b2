/* SPDX-License-Identifier: MIT */
/*
 * The link a block device negotiated, and what the device and its port
 * support; see devlink.h for where each figure is read.
 */
#include "core/kernel/devlink.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core/kernel/proc.h"
#include "lib/units.h"

/*
 * The payload each link carries in practice, in bytes/s. These are
 * assumptions, stated with their source, not measurements:
 *
 * USB (USB 2.0 spec table 5-10; USB 3.2 spec 4.4):
 *   12 Mbit/s   bulk at most 19 x 64 B per 1 ms frame = 1.216 MB/s; a
 *               mass-storage device reads about 1 MB/s.
 *   480 Mbit/s  bulk at most 13 x 512 B per 125 us microframe = 53.2 MB/s;
 *               Bulk-Only Transport waits for a status after every command,
 *               and USB 2 sticks and disks read 35-40 MiB/s: we take 40 MiB/s.
 *   5 Gbit/s    8b/10b: 500 MB/s on the wire; UAS enclosures reach about
 *               450 MB/s (Bulk-Only about 400): we take 450 MB/s.
 *   10 Gbit/s   128b/132b: 1212 MB/s; about 1050 MB/s in practice.
 *   20 Gbit/s   two 10 Gbit/s lanes: about 2100 MB/s.
 * SATA (SATA 3.x spec, 8b/10b): 150, 300, 600 MB/s after encoding; FIS
 *   framing and the handshake per frame leave about 92 % (6 Gbps SSDs top
 *   out at 550-560 MB/s): 138, 276, 552 MB/s.
 * PCIe (PCIe base spec): 2.5 and 5 GT/s use 8b/10b (250, 500 MB/s a lane),
 *   8, 16, 32 GT/s 128b/130b (985, 1969, 3938 MB/s a lane), 64 GT/s FLIT
 *   mode (about 7.5 GB/s a lane); TLP and DLLP overhead at a 256-byte
 *   payload leaves about 88 % (a Gen3 x4 NVMe drive reads about 3.5 GB/s
 *   of 3.94).
 */
#define USB2_PRACTICE (40.0 * 1024 * 1024)
#define SATA_EFFICIENCY 0.92
#define PCIE_EFFICIENCY 0.88

static bool known(double v)
{
	return !isnan(v);
}

static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* Cuts PATH at its last '/'; false when nothing is left to cut. */
static bool up(char *path)
{
	char *s = strrchr(path, '/');

	if (!s || s == path)
		return false;
	*s = '\0';
	return true;
}

static int rd(const char *dir, const char *file, char *buf, size_t len)
{
	char path[PATH_MAX];
	int r;

	buf[0] = '\0';
	if ((r = proc_path(path, sizeof(path), "%s/%s", dir, file)))
		return r;
	r = proc_read_line(path, buf, len);
	if (r)
		buf[0] = '\0';
	return r;
}

static bool has(const char *dir, const char *file)
{
	char path[PATH_MAX];

	return !proc_path(path, sizeof(path), "%s/%s", dir, file) && access(path, F_OK) == 0;
}

/* realpath of DIR/REL into OUT (PATH_MAX); false when it does not resolve. */
static bool resolve(const char *dir, const char *rel, char *out)
{
	char path[PATH_MAX];

	return !proc_path(path, sizeof(path), "%s/%s", dir, rel) && realpath(path, out);
}

/* "PREFIX" followed by digits only, the number into *N (may be NULL). */
static bool numbered(const char *s, const char *prefix, unsigned *n)
{
	size_t l = strlen(prefix);
	char *end;
	unsigned long v;

	if (strncmp(s, prefix, l) || !s[l] || s[l] < '0' || s[l] > '9')
		return false;
	v = strtoul(s + l, &end, 10);
	if (*end || v > UINT_MAX)
		return false;
	if (n)
		*n = (unsigned)v;
	return true;
}

/* The first entry of DIR whose name starts with PREFIX followed by a digit, into OUT; false when none. */
static bool first_entry(const char *dir, const char *prefix, char *out, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t l = strlen(prefix);
	bool found = false;

	if (!d)
		return false;
	out[0] = '\0';
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, prefix, l) || e->d_name[l] < '0' || e->d_name[l] > '9')
			continue;
		/* The smallest name, so the answer does not depend on readdir's order. */
		if (!found || strcmp(e->d_name, out) < 0)
			snprintf(out, len, "%.*s", (int)len - 1, e->d_name);
		found = true;
	}
	closedir(d);
	return found;
}

static void rate_init(struct devlink_rate *r)
{
	memset(r, 0, sizeof(*r));
	r->bps = NAN;
}

static void PRINTF_LIKE(3, 4) set_src(char *dst, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dst, len, fmt, ap);
	va_end(ap);
}

double devlink_parse_rate(const char *text)
{
	char *end;
	double v;

	while (*text == ' ')
		text++;
	v = strtod(text, &end);
	if (end == text || !(v > 0))
		return NAN;
	while (*end == ' ')
		end++;
	if (!strncmp(end, "GT/s", 4) || !strncmp(end, "Gbps", 4) || !strncmp(end, "Gbit/s", 6))
		return v * 1e9;
	if (!strncmp(end, "Mbps", 4) || !strncmp(end, "Mbit/s", 6) || !*end)
		return v * 1e6;
	return NAN;
}

/* ------------------------------------------------------------------ */
/* USB */

double devlink_bos_max_bps(const unsigned char *bos, size_t len)
{
	size_t total, off;
	double best = NAN;

	/* The BOS descriptor: bLength 5, bDescriptorType 0x0F, wTotalLength, bNumDeviceCaps. */
	if (len < 5 || bos[0] < 5 || bos[1] != 0x0F)
		return NAN;
	total = (size_t)bos[2] | (size_t)bos[3] << 8;
	if (total > len)
		total = len;
	for (off = bos[0]; off + 3 <= total && bos[off] >= 3; off += bos[off]) {
		const unsigned char *c = bos + off;
		size_t cl = c[0];

		if (off + cl > total)
			break;
		if (c[1] != 0x10)	/* DEVICE CAPABILITY */
			continue;
		if (c[2] == 0x03 && cl >= 6) {
			/* SuperSpeed USB: wSpeedsSupported bit 3 is 5 Gbit/s, bit 2 high speed. */
			unsigned speeds = (unsigned)c[4] | (unsigned)c[5] << 8;
			double v = speeds & 0x8 ? 5e9 : speeds & 0x4 ? 480e6 : speeds & 0x2 ? 12e6 : NAN;

			if (known(v) && (!known(best) || v > best))
				best = v;
		} else if (c[2] == 0x0A && cl >= 12) {
			/*
			 * SuperSpeedPlus: bmAttributes bits 4:0 are the count of
			 * sublink speed attributes minus one; each attribute is
			 * LSE (bits 5:4: b/s, Kb/s, Mb/s, Gb/s) and LSM (bits
			 * 31:16, the mantissa). NEEDSWORK: a Gen 2x2 device's
			 * two lanes are not read here (wFunctionalitySupport's
			 * lane counts); its negotiated 20000 raises the figure.
			 */
			uint32_t attr = (uint32_t)c[4] | (uint32_t)c[5] << 8 | (uint32_t)c[6] << 16 | (uint32_t)c[7] << 24;
			size_t n = (attr & 0x1F) + 1;

			for (size_t i = 0; i < n && 12 + 4 * i + 4 <= cl; i++) {
				const unsigned char *s = c + 12 + 4 * i;
				uint32_t a = (uint32_t)s[0] | (uint32_t)s[1] << 8 | (uint32_t)s[2] << 16 | (uint32_t)s[3] << 24;
				unsigned lse = (a >> 4) & 3, lsm = a >> 16;
				double v = lsm * pow(1000.0, lse);

				if (v > 0 && (!known(best) || v > best))
					best = v;
			}
		}
	}
	return best;
}

/* The bcdUSB in `version` (" 2.10") as 210; -1 when unreadable. */
static int bcd_usb(const char *text)
{
	unsigned maj, min;

	if (sscanf(text, " %u.%2x", &maj, &min) != 2 || maj > 9)
		return -1;
	return (int)(maj * 100 + (min >> 4) * 10 + (min & 0xF));
}

static double usb_speed(const char *dir)
{
	char buf[32];

	if (rd(dir, "speed", buf, sizeof(buf)))
		return NAN;
	return devlink_parse_rate(buf);
}

static void usb(const char *udev, struct devlink *out)
{
	char buf[64], port[PATH_MAX], peer[PATH_MAX], hub[PATH_MAX];
	struct proc_buf b = PROC_BUF_INIT;
	double bos = NAN, hs;
	bool have_bos = false;
	int bcd;

	out->bus = DEVLINK_BUS_USB;
	snprintf(out->node, sizeof(out->node), "usb %s", base_of(udev));
	if (!rd(udev, "product", buf, sizeof(buf)))
		snprintf(out->product, sizeof(out->product), "%s", buf);
	out->cur.bps = usb_speed(udev);
	out->cur.lanes = 1;
	rd(udev, "speed", buf, sizeof(buf));
	set_src(out->cur.source, sizeof(out->cur.source), "%s/speed: %s", base_of(udev), buf[0] ? buf : "unreadable");
	out->reported = known(out->cur.bps);
	if (!out->reported)
		snprintf(out->why, sizeof(out->why), "%s/speed is '%s': no negotiated speed", base_of(udev), buf);

	/* The device's own capability. */
	rd(udev, "version", buf, sizeof(buf));
	bcd = bcd_usb(buf);
	{
		char path[PATH_MAX];

		if (!proc_path(path, sizeof(path), "%s/bos_descriptors", udev) && !proc_buf_read_file(&b, path)) {
			have_bos = true;
			bos = devlink_bos_max_bps((const unsigned char *)b.data, b.len);
		}
		proc_buf_release(&b);
	}
	out->dev.lanes = 1;
	if (have_bos && known(bos) && bos > 480e6) {
		out->dev.bps = bos;
		set_src(out->dev.source, sizeof(out->dev.source), "its BOS descriptor's SuperSpeed%s capability",
			bos > 5e9 ? "Plus" : "");
	} else if (have_bos) {
		out->dev.bps = bcd >= 200 || bcd < 0 ? 480e6 : 12e6;
		set_src(out->dev.source, sizeof(out->dev.source), "its BOS descriptor: no SuperSpeed capability (bcdUSB %s)",
			buf);
	} else if (bcd >= 300) {
		out->dev.bps = 5e9;
		out->dev.at_least = true;
		set_src(out->dev.source, sizeof(out->dev.source),
			"bcdUSB %s: SuperSpeed; no bos_descriptors (Linux 6.9+) to say how fast", buf);
	} else if (bcd >= 201) {
		set_src(out->dev.source, sizeof(out->dev.source),
			"unknown: bcdUSB %s is a USB 2 device or a USB 3 one at high speed; only its BOS descriptor "
			"tells (bos_descriptors, Linux 6.9+)", buf);
	} else if (bcd >= 200) {
		out->dev.bps = 480e6;
		set_src(out->dev.source, sizeof(out->dev.source), "bcdUSB %s: a USB 2.0 device", buf);
	} else if (bcd >= 100) {
		out->dev.bps = 12e6;
		set_src(out->dev.source, sizeof(out->dev.source), "bcdUSB %s: a USB 1.x device", buf);
	} else {
		set_src(out->dev.source, sizeof(out->dev.source), "unknown: no readable version");
	}
	/* A device negotiates no faster than it can (a Gen 2x2 device's second lane, above). */
	if (known(out->cur.bps) && known(out->dev.bps) && out->cur.bps > out->dev.bps)
		out->dev.bps = out->cur.bps;

	/* The port: the hub's speed, and the hub port's SuperSpeed peer (xHCI's two root hubs). */
	snprintf(hub, sizeof(hub), "%s", udev);
	out->port.lanes = 1;
	if (up(hub) && known(hs = usb_speed(hub))) {
		out->port.bps = hs;
		set_src(out->port.source, sizeof(out->port.source), "hub %s %.4g Mbit/s", base_of(hub), hs / 1e6);
	} else {
		set_src(out->port.source, sizeof(out->port.source), "unknown: no hub speed above %s", base_of(udev));
	}
	if (resolve(udev, "port", port) && resolve(port, "peer", peer)) {
		char phub[PATH_MAX];
		double ps;

		snprintf(phub, sizeof(phub), "%s", peer);
		if (up(phub) && up(phub) && known(ps = usb_speed(phub))) {
			size_t n = strlen(out->port.source);

			snprintf(out->port.source + n, sizeof(out->port.source) - n, "; its port's peer %s on %s %.4g Mbit/s",
				 base_of(peer), base_of(phub), ps / 1e6);
			if (!known(out->port.bps) || ps > out->port.bps)
				out->port.bps = ps;
		}
	}
	if (known(out->cur.bps))
		out->full_duplex = out->cur.bps >= 5e9;
}

/* ------------------------------------------------------------------ */
/* SATA */

double devlink_ata_id_max_bps(const char *text)
{
	const char *p = text;
	unsigned long w = 0;

	/* Word 76: SATA capabilities; bits 1, 2, 3 are Gen1 1.5, Gen2 3.0, Gen3 6.0 Gbps. */
	for (int i = 0; i <= 76; i++) {
		char *end;

		while (*p == ' ' || *p == '\n')
			p++;
		if (!*p)
			return NAN;
		w = strtoul(p, &end, 16);
		if (end == p)
			return NAN;
		p = end;
	}
	if (w == 0 || w == 0xFFFF)
		return NAN;
	return w & 0x8 ? 6e9 : w & 0x4 ? 3e9 : w & 0x2 ? 1.5e9 : NAN;
}

static void sata(const char *ata, struct devlink *out)
{
	char link[64], cls[PATH_MAX], buf[64], dev[64], host[64], path[PATH_MAX];
	double lim;

	out->bus = DEVLINK_BUS_SATA;
	out->cur.lanes = out->dev.lanes = out->port.lanes = 1;
	if (!first_entry(ata, "link", link, sizeof(link)) ||
	    proc_path(cls, sizeof(cls), "%s/%s/ata_link/%s", ata, link, link) || !has(cls, "sata_spd")) {
		snprintf(out->node, sizeof(out->node), "%s", base_of(ata));
		snprintf(out->why, sizeof(out->why), "%s has no ata_link with sata_spd (a PATA port)", base_of(ata));
		return;
	}
	snprintf(out->node, sizeof(out->node), "%s %s", base_of(ata), link);
	rd(cls, "sata_spd", buf, sizeof(buf));
	out->cur.bps = devlink_parse_rate(buf);
	set_src(out->cur.source, sizeof(out->cur.source), "%s sata_spd: %s", link, buf);
	out->reported = known(out->cur.bps);
	if (!out->reported)
		snprintf(out->why, sizeof(out->why), "%s sata_spd is '%s' (link down, or no access to the SATA status)", link,
			 buf);

	/* The drive: IDENTIFY DEVICE word 76. */
	if (!proc_path(path, sizeof(path), "%s/%s", ata, link) && first_entry(path, "dev", dev, sizeof(dev))) {
		struct proc_buf b = PROC_BUF_INIT;
		char id[PATH_MAX];

		if (!proc_path(id, sizeof(id), "%s/%s/ata_device/%s/id", path, dev, dev) && !proc_buf_read_file(&b, id) &&
		    b.len) {
			out->dev.bps = devlink_ata_id_max_bps(b.data);
			set_src(out->dev.source, sizeof(out->dev.source), "%s IDENTIFY word 76", dev);
		}
		proc_buf_release(&b);
	}
	if (!known(out->dev.bps))
		set_src(out->dev.source, sizeof(out->dev.source), "unknown: no IDENTIFY data (ata_device/*/id)");

	/* The port: an AHCI host's CAP.ISS, then the hardware limit. */
	if (first_entry(ata, "host", host, sizeof(host)) &&
	    !proc_path(path, sizeof(path), "%s/%s/scsi_host/%s", ata, host, host) &&
	    !rd(path, "ahci_host_caps", buf, sizeof(buf))) {
		unsigned long cap = strtoul(buf, NULL, 16);
		unsigned iss = (unsigned)(cap >> 20) & 0xF;

		if (iss >= 1 && iss <= 3) {
			out->port.bps = iss == 3 ? 6e9 : iss == 2 ? 3e9 : 1.5e9;
			set_src(out->port.source, sizeof(out->port.source), "AHCI CAP.ISS %u (%s ahci_host_caps %s)", iss,
				host, buf);
		}
	}
	rd(cls, "hw_sata_spd_limit", buf, sizeof(buf));
	lim = devlink_parse_rate(buf);
	if (known(lim) && (!known(out->port.bps) || lim < out->port.bps)) {
		out->port.bps = lim;
		set_src(out->port.source, sizeof(out->port.source), "%s hw_sata_spd_limit: %s", link, buf);
	}
	if (!known(out->port.bps))
		set_src(out->port.source, sizeof(out->port.source),
			"unknown: not an AHCI host, and hw_sata_spd_limit is '%s' (no hardware limit set)", buf);
	rd(cls, "sata_spd_limit", buf, sizeof(buf));
	lim = devlink_parse_rate(buf);
	if (known(lim) && (!known(out->port.bps) || lim < out->port.bps) && (!known(out->dev.bps) || lim < out->dev.bps))
		snprintf(out->limit_note, sizeof(out->limit_note),
			 "libata limits %.15s to %.15s (sata_spd_limit): it lowers the limit after link errors "
			 "(dmesg: 'limiting SATA link speed'): a cable or port fault", link, buf);
	out->full_duplex = false;
}

/* ------------------------------------------------------------------ */
/* PCIe (NVMe) */

static void pci_rate(const char *dir, const char *speed, const char *width, struct devlink_rate *r)
{
	char s[48], w[16];
	char *end;
	long lanes;

	rd(dir, speed, s, sizeof(s));
	r->bps = devlink_parse_rate(s);
	rd(dir, width, w, sizeof(w));
	lanes = strtol(w, &end, 10);
	r->lanes = w[0] && !*end && lanes > 0 && lanes <= 32 ? (int)lanes : 0;
	set_src(r->source, sizeof(r->source), "%s %s: %s, %s: %s", base_of(dir), speed, s[0] ? s : "unreadable", width,
		w[0] ? w : "unreadable");
}

static void pcie(const char *fn, struct devlink *out)
{
	char parent[PATH_MAX];

	out->bus = DEVLINK_BUS_PCIE;
	snprintf(out->node, sizeof(out->node), "PCI %s", base_of(fn));
	pci_rate(fn, "current_link_speed", "current_link_width", &out->cur);
	pci_rate(fn, "max_link_speed", "max_link_width", &out->dev);
	out->reported = known(out->cur.bps) && out->cur.lanes > 0;
	if (!out->reported)
		snprintf(out->why, sizeof(out->why), "%s: no current link speed and width (%s)", base_of(fn), out->cur.source);
	snprintf(parent, sizeof(parent), "%s", fn);
	if (up(parent) && has(parent, "max_link_speed"))
		pci_rate(parent, "max_link_speed", "max_link_width", &out->port);
	else
		set_src(out->port.source, sizeof(out->port.source), "unknown: %s has no bridge with max_link_speed above it",
			base_of(fn));
	out->full_duplex = true;
}

/* ------------------------------------------------------------------ */
/* Devices without a link */

static void not_reported(struct devlink *out, enum devlink_bus bus, const char *node, const char *why)
{
	out->bus = bus;
	out->reported = false;
	snprintf(out->node, sizeof(out->node), "%.*s", (int)sizeof(out->node) - 1, node);
	snprintf(out->why, sizeof(out->why), "%.*s", (int)sizeof(out->why) - 1, why);
}

/* The disk under /devices/virtual: loop, zram, dm, md, ram, or a multipath NVMe head. */
static bool virtual_disk(const char *dir, struct devlink *out, char *walk_from)
{
	char buf[160], slaves[PATH_MAX], list[96] = "", ctrl[64];
	const char *n = out->disk;

	if (strstr(dir, "/nvme-subsystem/")) {
		char sub[PATH_MAX];

		/* A multipath head: the link is its first controller's (nvme-subsysN/nvmeX). */
		snprintf(sub, sizeof(sub), "%s", dir);
		if (up(sub) && first_entry(sub, "nvme", ctrl, sizeof(ctrl)) && resolve(sub, ctrl, walk_from))
			return false;
		not_reported(out, DEVLINK_BUS_PCIE, n, "an NVMe multipath head whose controllers sysfs does not list");
		return true;
	}
	if (!strncmp(n, "loop", 4)) {
		char b[PATH_MAX + 8];

		rd(dir, "loop/backing_file", buf, sizeof(buf));
		snprintf(b, sizeof(b), "a loop device over '%s': the link is that of the disk holding the file",
			 buf[0] ? buf : "?");
		not_reported(out, DEVLINK_BUS_VIRTUAL, n, b);
		return true;
	}
	if (!strncmp(n, "zram", 4)) {
		not_reported(out, DEVLINK_BUS_VIRTUAL, n, "zram: compressed RAM, no bus");
		return true;
	}
	if (!strncmp(n, "ram", 3)) {
		not_reported(out, DEVLINK_BUS_VIRTUAL, n, "a RAM disk, no bus");
		return true;
	}
	if (!proc_path(slaves, sizeof(slaves), "%s/slaves", dir)) {
		DIR *d = opendir(slaves);
		struct dirent *e;
		size_t off = 0;

		while (d && (e = readdir(d)))
			if (e->d_name[0] != '.' && off < sizeof(list))
				off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s", off ? " " : "", e->d_name);
		if (d)
			closedir(d);
	}
	snprintf(buf, sizeof(buf), "%s device: the links of its members count%s%s%s",
		 !strncmp(n, "dm-", 3) ? "a device-mapper" : !strncmp(n, "md", 2) ? "an md (software RAID)" : "a virtual",
		 list[0] ? " (" : "", list, list[0] ? ")" : "");
	not_reported(out, DEVLINK_BUS_VIRTUAL, n, buf);
	return true;
}

/* Walks up from the disk's directory DIR (below ROOT, both resolved) to the first bus it knows. */
static void walk(const char *root, const char *start, struct devlink *out)
{
	char dir[PATH_MAX], from[PATH_MAX], why[192];
	size_t rl = strlen(root);
	bool nvme = !strncmp(out->disk, "nvme", 4);

	snprintf(dir, sizeof(dir), "%s", start);
	if (!strncmp(dir + rl, "/devices/virtual/", 17) && virtual_disk(dir, out, from))
		return;
	if (!strncmp(dir + rl, "/devices/virtual/", 17))
		snprintf(dir, sizeof(dir), "%s", from);	/* a multipath head's controller */
	while (up(dir) && strlen(dir) > rl) {
		const char *b = base_of(dir);

		if (numbered(b, "virtio", NULL)) {
			snprintf(why, sizeof(why), "virtio (%s): a paravirtual disk has no physical link; the host's disk "
				 "and its bus are behind it, out of the guest's sight", b);
			not_reported(out, DEVLINK_BUS_VIRTIO, b, why);
			return;
		}
		if (!strncmp(b, "vbd-", 4) || !strncasecmp(b, "vmbus", 5)) {
			snprintf(why, sizeof(why), "%s: a paravirtual disk (Xen or Hyper-V) has no physical link", b);
			not_reported(out, DEVLINK_BUS_OTHER, b, why);
			return;
		}
		if (has(dir, "speed") && has(dir, "version") && has(dir, "idVendor")) {
			usb(dir, out);
			return;
		}
		if (numbered(b, "ata", NULL)) {
			sata(dir, out);
			return;
		}
		if (!strncmp(b, "mmc", 3) && strchr(b, ':')) {
			snprintf(why, sizeof(why), "MMC/SD card %s: its bus mode and clock are only in debugfs (mmcN/ios, "
				 "root), not read", b);
			not_reported(out, DEVLINK_BUS_MMC, b, why);
			return;
		}
		if (has(dir, "current_link_speed")) {
			if (nvme) {
				pcie(dir, out);
				return;
			}
			snprintf(why, sizeof(why), "behind PCI function %s through a bus not modelled (SAS, SCSI or RAID "
				 "host): its link is not read", b);
			not_reported(out, DEVLINK_BUS_OTHER, b, why);
			return;
		}
	}
	snprintf(why, sizeof(why), "no USB, SATA, NVMe or virtio device above %s in sysfs", out->disk);
	not_reported(out, DEVLINK_BUS_UNKNOWN, out->disk, why);
}

/* ------------------------------------------------------------------ */
/* Judgement */

static double min_known(double a, double b)
{
	if (!known(a))
		return b;
	if (!known(b))
		return a;
	return a < b ? a : b;
}

static int min_lanes(int a, int b)
{
	if (a <= 0)
		return b;
	if (b <= 0)
		return a;
	return a < b ? a : b;
}

/* Bytes/s a BUS link at BPS per lane over LANES carries in practice; NaN with *BASIS NULL when unknown. */
static double usable(enum devlink_bus bus, double bps, int lanes, const char **basis)
{
	*basis = NULL;
	if (!known(bps))
		return NAN;
	switch (bus) {
	case DEVLINK_BUS_USB:
		if (bps <= 1.5e6) {
			*basis = "low speed: no bulk transfers, so no mass storage";
			return NAN;
		}
		if (bps <= 12e6) {
			*basis = "USB full speed: about 1 MB/s for mass storage (1.216 MB/s bulk maximum)";
			return 1e6;
		}
		if (bps <= 480e6) {
			*basis = "USB 2 mass storage in practice: 35-40 MiB/s (53.2 MB/s bulk maximum)";
			return USB2_PRACTICE;
		}
		if (bps <= 5e9) {
			*basis = "USB 5 Gbit/s in practice: about 450 MB/s (500 MB/s after 8b/10b)";
			return 450e6;
		}
		if (bps <= 10e9) {
			*basis = "USB 10 Gbit/s in practice: about 1050 MB/s (1212 MB/s after 128b/132b)";
			return 1050e6;
		}
		*basis = "USB 20 Gbit/s in practice: about 2100 MB/s";
		return 2100e6 * bps / 20e9;
	case DEVLINK_BUS_SATA:
		*basis = "SATA after 8b/10b, 92 % left by FIS framing (6 Gbps SSDs read 550-560 MB/s)";
		return bps / 10 * SATA_EFFICIENCY;
	case DEVLINK_BUS_PCIE: {
		double lane = bps <= 5e9 ? bps / 10 : bps <= 32e9 ? bps / 8 * 128 / 130 : bps / 8 * 242 / 256;

		if (lanes <= 0)
			return NAN;
		*basis = "PCIe after line encoding, 88 % left by TLP and DLLP overhead (Gen3 x4 NVMe reads about 3.5 GB/s)";
		return lane * lanes * PCIE_EFFICIENCY;
	}
	default:
		return NAN;
	}
}

static void judge(struct devlink *l)
{
	double cap = min_known(l->dev.bps, l->port.bps);
	int cap_lanes = min_lanes(l->dev.lanes, l->port.lanes);
	const char *basis;
	bool dev_more;

	l->cause = DEVLINK_AT_CAPABILITY;
	l->usable_bytes_per_s = l->capable_bytes_per_s = NAN;
	l->usable_basis = NULL;
	if (!l->reported)
		return;
	l->usable_bytes_per_s = usable(l->bus, l->cur.bps, l->cur.lanes, &l->usable_basis);
	/* 1 % slack: "8.0 GT/s" and 8e9 are the same rate. */
	dev_more = known(l->dev.bps) &&
		   (l->cur.bps < 0.99 * l->dev.bps || (l->dev.lanes > 0 && l->cur.lanes < l->dev.lanes));
	if (!dev_more)
		return;
	if (!known(l->port.bps) && l->port.lanes <= 0) {
		l->cause = DEVLINK_BELOW_DEVICE;
		cap = l->dev.bps;
		cap_lanes = l->dev.lanes;
	} else if (l->cur.bps < 0.99 * cap || (cap_lanes > 0 && l->cur.lanes < cap_lanes)) {
		l->cause = DEVLINK_BELOW_BOTH;
	} else {
		l->cause = DEVLINK_PORT_LIMITS;
		return;
	}
	l->capable_bytes_per_s = usable(l->bus, cap, cap_lanes > 0 ? cap_lanes : l->cur.lanes, &basis);
}

int devlink_read(const char *sys_root, const char *name, struct devlink *out)
{
	char root[PATH_MAX], dir[PATH_MAX], path[PATH_MAX], buf[64];
	const char *sys = sys_root ? sys_root : "/sys";

	memset(out, 0, sizeof(*out));
	rate_init(&out->cur);
	rate_init(&out->dev);
	rate_init(&out->port);
	out->usable_bytes_per_s = out->capable_bytes_per_s = NAN;
	snprintf(out->disk, sizeof(out->disk), "%s", name);
	if (!name[0] || strchr(name, '/'))
		return -ENODEV;
	if (!realpath(sys, root))
		return -errno;
	if (proc_path(path, sizeof(path), "%s/class/block/%s", sys, name) || !realpath(path, dir)) {
		if (proc_path(path, sizeof(path), "%s/block/%s", sys, name) || !realpath(path, dir))
			return errno == ENOENT || errno == ENAMETOOLONG ? -ENODEV : -errno;
	}
	if (strncmp(dir, root, strlen(root)))
		return -ENODEV;
	if (has(dir, "partition"))
		up(dir);
	snprintf(out->disk, sizeof(out->disk), "%.*s", (int)sizeof(out->disk) - 1, base_of(dir));
	walk(root, dir, out);
	if (!out->product[0] && !rd(dir, "device/model", buf, sizeof(buf)))
		snprintf(out->product, sizeof(out->product), "%s", buf);
	judge(out);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Words */

const char *devlink_bus_name(enum devlink_bus b)
{
	switch (b) {
	case DEVLINK_BUS_USB:
		return "usb";
	case DEVLINK_BUS_SATA:
		return "sata";
	case DEVLINK_BUS_PCIE:
		return "pcie";
	case DEVLINK_BUS_VIRTIO:
		return "virtio";
	case DEVLINK_BUS_VIRTUAL:
		return "virtual";
	case DEVLINK_BUS_MMC:
		return "mmc";
	case DEVLINK_BUS_OTHER:
		return "other";
	case DEVLINK_BUS_UNKNOWN:
		break;
	}
	return "unknown";
}

const char *devlink_cause_name(enum devlink_cause c)
{
	switch (c) {
	case DEVLINK_BELOW_BOTH:
		return "below both";
	case DEVLINK_PORT_LIMITS:
		return "port limits";
	case DEVLINK_BELOW_DEVICE:
		return "below the device's";
	case DEVLINK_AT_CAPABILITY:
		break;
	}
	return "at capability";
}

bool devlink_below(const struct devlink *l)
{
	return l->reported && l->cause != DEVLINK_AT_CAPABILITY;
}

void devlink_rate_text(const struct devlink *l, const struct devlink_rate *r, char *buf, size_t len)
{
	const char *least = r->at_least ? "at least " : "";

	if (!known(r->bps)) {
		snprintf(buf, len, "unknown");
		return;
	}
	switch (l->bus) {
	case DEVLINK_BUS_USB:
		if (r->bps >= 1e9)
			snprintf(buf, len, "%s%.4g Gbit/s", least, r->bps / 1e9);
		else
			snprintf(buf, len, "%s%.4g Mbit/s", least, r->bps / 1e6);
		return;
	case DEVLINK_BUS_SATA:
		snprintf(buf, len, "%s%.1f Gbps", least, r->bps / 1e9);
		return;
	case DEVLINK_BUS_PCIE:
		if (r->lanes > 0)
			snprintf(buf, len, "%s%.1f GT/s x%d", least, r->bps / 1e9, r->lanes);
		else
			snprintf(buf, len, "%s%.1f GT/s (width unknown)", least, r->bps / 1e9);
		return;
	default:
		snprintf(buf, len, "%s%.4g Mbit/s", least, r->bps / 1e6);
		return;
	}
}

static const char *bus_word(enum devlink_bus b)
{
	return b == DEVLINK_BUS_USB ? "USB" : b == DEVLINK_BUS_SATA ? "SATA" : b == DEVLINK_BUS_PCIE ? "PCIe" : "link";
}

void devlink_describe(const struct devlink *l, char *buf, size_t len)
{
	char cur[48], dev[48], port[48], u[UNITS_FMT_LEN], c[UNITS_FMT_LEN];
	size_t off;

	if (!len)
		return;
	if (!l->reported) {
		snprintf(buf, len, "not reported: %s", l->why[0] ? l->why : "unknown bus");
		return;
	}
	devlink_rate_text(l, &l->cur, cur, sizeof(cur));
	devlink_rate_text(l, &l->dev, dev, sizeof(dev));
	devlink_rate_text(l, &l->port, port, sizeof(port));
	off = (size_t)snprintf(buf, len, "%s %s negotiated (%s%s%s%s); the device supports %s (%s), the port %s (%s): %s",
			       bus_word(l->bus), cur, l->node, l->product[0] ? " '" : "", l->product,
			       l->product[0] ? "'" : "", dev, l->dev.source, port, l->port.source,
			       l->cause == DEVLINK_BELOW_BOTH ? "negotiated below what both support" :
			       l->cause == DEVLINK_PORT_LIMITS ? "the port is slower than the device" :
			       l->cause == DEVLINK_BELOW_DEVICE ? "below what the device supports" : "at capability");
	if (off < len && l->limit_note[0])
		off += (size_t)snprintf(buf + off, len - off, "; %s", l->limit_note);
	if (off < len && known(l->usable_bytes_per_s)) {
		units_fmt_size(u, sizeof(u), l->usable_bytes_per_s, UNITS_FMT_PER_S);
		off += (size_t)snprintf(buf + off, len - off, "; about %s usable (%s)", u, l->usable_basis);
	}
	if (off < len && known(l->capable_bytes_per_s)) {
		units_fmt_size(c, sizeof(c), l->capable_bytes_per_s, UNITS_FMT_PER_S);
		snprintf(buf + off, len - off, ", %s at what both support", c);
	}
}

double devlink_share(const struct devlink *l, double read_bps, double write_bps)
{
	double r = known(read_bps) ? read_bps : 0, w = known(write_bps) ? write_bps : 0;

	if (!known(l->usable_bytes_per_s) || !(l->usable_bytes_per_s > 0) || (!known(read_bps) && !known(write_bps)))
		return NAN;
	return (l->full_duplex ? (r > w ? r : w) : r + w) / l->usable_bytes_per_s;
}

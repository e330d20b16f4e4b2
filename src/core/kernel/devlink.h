/* SPDX-License-Identifier: MIT */
/*
 * devlink: the link a block device negotiated with its port, and what the
 * device and the port support. The modern form of hdparm's DMA and UDMA
 * modes (seed 001): a USB 3 stick that came up at 480 Mbit/s, a SATA disk
 * at 1.5 Gbps on a 6 Gbps port, an NVMe drive at PCIe Gen3 x2 in a Gen4 x4
 * slot all read as a slow device unless the link is looked at.
 *
 * Where sysfs says it, found by walking up from the disk's sysfs directory
 * to the first bus it knows (the one nearest the disk: an NVMe drive in a
 * USB enclosure is a USB link):
 *
 *   USB   the usb_device directory (speed, version, idVendor): `speed` is
 *         the negotiated Mbit/s; the device's own capability is its BOS
 *         descriptor (`bos_descriptors`, Linux 6.9+: the SuperSpeed and
 *         SuperSpeedPlus capabilities), else its bcdUSB `version` (a
 *         SuperSpeed device at high speed reports 2.10, so 2.10 and up
 *         without a BOS leave the capability unknown); the port's is the
 *         hub's `speed` and, for an xHCI port, its SuperSpeed `peer`'s hub.
 *   SATA  ataN/linkN/ata_link/linkN: `sata_spd` (current), `sata_spd_limit`
 *         (libata's, lowered after link errors), `hw_sata_spd_limit`; the
 *         drive's capability from IDENTIFY word 76 (ata_device/devN.0/id);
 *         the port's from an AHCI host's CAP.ISS (scsi_host/hostM/
 *         ahci_host_caps) or hw_sata_spd_limit.
 *   NVMe  the PCI function above nvme/nvmeX: current_link_speed/width,
 *         max_link_speed/width (the device's); the port is the bridge
 *         above it (its max_link_speed/width).
 *   virtio, Xen, Hyper-V, loop, zram, device-mapper, md, MMC/SD, others:
 *         not reported, with the reason.
 *
 * Each link also carries the payload rate it allows in practice (the
 * usable fraction per bus is in devlink.c with its source), so a verdict
 * can say how close a step came to the link's ceiling.
 *
 * Reads below SYS_ROOT (NULL = "/sys"), so fixture trees work. Nothing
 * here prints or exits; no state is kept.
 */
#ifndef ENGPASS_DEVLINK_H
#define ENGPASS_DEVLINK_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/compiler.h"

enum devlink_bus {
	DEVLINK_BUS_UNKNOWN = 0,
	DEVLINK_BUS_USB,
	DEVLINK_BUS_SATA,
	DEVLINK_BUS_PCIE,	/* NVMe */
	DEVLINK_BUS_VIRTIO,
	DEVLINK_BUS_VIRTUAL,	/* loop, zram, device-mapper, md, ram */
	DEVLINK_BUS_MMC,
	DEVLINK_BUS_OTHER,	/* para-virtual (Xen, Hyper-V) or a bus not modelled (SAS, SCSI HBA, ...) */
};

/* Whether the negotiated link is below what the device and its port support. */
enum devlink_cause {
	DEVLINK_AT_CAPABILITY = 0,	/* the link runs at what both allow (or no figure says otherwise) */
	DEVLINK_BELOW_BOTH,		/* both the device and the port support more: negotiated down */
	DEVLINK_PORT_LIMITS,		/* the device supports more, the port does not */
	DEVLINK_BELOW_DEVICE,		/* the device supports more; the port's capability is unknown */
};

/* One rate: per lane, in bit/s of raw signalling (USB Mbit/s, SATA Gbps, PCIe GT/s) and lanes. */
struct devlink_rate {
	double bps;		/* per lane; NaN unknown */
	int lanes;		/* PCIe width; 1 for USB and SATA; 0 unknown */
	bool at_least;		/* a lower bound (bcdUSB 3.x without a BOS: 5 Gbit/s or more) */
	char source[112];	/* where the figure came from */
};

struct devlink {
	char disk[32];			/* the whole disk the link is of ("sdb") */
	enum devlink_bus bus;
	bool reported;			/* cur is known */
	char why[192];			/* not reported (or partly): why */
	char node[96];			/* where the link is: "usb 1-2", "ata1 link1", "PCI 0000:02:00.0" */
	char product[64];		/* USB product / ATA model when sysfs says; "" */
	struct devlink_rate cur, dev, port;
	char limit_note[192];		/* a limit set on the link (libata's sata_spd_limit); "" */
	enum devlink_cause cause;
	bool full_duplex;		/* reads and writes cross at once (USB 3, PCIe) or share the link (USB 2, SATA) */
	double usable_bytes_per_s;	/* payload the negotiated link carries in practice; NaN */
	double capable_bytes_per_s;	/* the same at what both the device and the port support; NaN */
	const char *usable_basis;	/* static: the assumption behind usable_bytes_per_s; NULL */
};

/*
 * Fills OUT for block device NAME ("sdb", "sdb1": a partition is taken as
 * its disk) from SYS_ROOT/class/block/NAME (NULL root = "/sys"). Returns 0
 * with OUT filled (reported or not: OUT->why says why not), -ENODEV when
 * sysfs has no such block device, or -errno of realpath().
 */
MUST_CHECK int devlink_read(const char *sys_root, const char *name, struct devlink *out);

/* "usb", "sata", "pcie", "virtio", "virtual", "mmc", "other" or "unknown" (static). */
const char *devlink_bus_name(enum devlink_bus b);

/* "at capability", "below both", "port limits", "below the device's" (static). */
const char *devlink_cause_name(enum devlink_cause c);

/* True when the link runs below what the device supports (BELOW_BOTH, PORT_LIMITS, BELOW_DEVICE). */
bool devlink_below(const struct devlink *l);

/* R's rate as a person writes it: "480 Mbit/s", "5 Gbit/s", "1.5 Gbps", "8.0 GT/s x2"; "unknown". */
void devlink_rate_text(const struct devlink *l, const struct devlink_rate *r, char *buf, size_t len);

/*
 * One line for L: "USB 480 Mbit/s (usb 1-2 'Ultra'); the device supports
 * 5 Gbit/s (...), the port 5 Gbit/s (...): negotiated below both; about
 * 40.0 MiB/s usable (...)", or "not reported: WHY". BUF is always
 * terminated.
 */
void devlink_describe(const struct devlink *l, char *buf, size_t len);

/*
 * The share of L's usable rate that READ and WRITE bytes/s (NaN = none)
 * used: their sum on a link that carries one direction at a time, the
 * larger on a full-duplex one. NaN when L has no usable rate or no figure
 * is known.
 */
double devlink_share(const struct devlink *l, double read_bps, double write_bps);

/* Parsers, exposed for the unit tests. */

/* A BOS descriptor set (bos_descriptors): the fastest rate it declares, bit/s per lane; NaN when none. */
double devlink_bos_max_bps(const unsigned char *bos, size_t len);

/* IDENTIFY DEVICE text (ata_device id: 256 hex words): word 76's fastest SATA generation in bit/s; NaN. */
double devlink_ata_id_max_bps(const char *text);

/* "8.0 GT/s PCIe", "8 GT/s", "5 GT/s" → 8e9; "1.5 Gbps" → 1.5e9; NaN for "Unknown", "<unknown>". */
double devlink_parse_rate(const char *text);

#endif

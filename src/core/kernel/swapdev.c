/* SPDX-License-Identifier: MIT */
/* Swap device signatures and /proc/swaps state; see swapdev.h. */
#include "swapdev.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/kernel/proc.h"

/* True when the LEN bytes of MAGIC are at OFF of BUF (of BLEN bytes). */
static bool at(const unsigned char *buf, size_t blen, size_t off, const void *magic, size_t len)
{
	return off + len <= blen && !memcmp(buf + off, magic, len);
}

enum swapdev_sig swapdev_signature(const void *p, size_t len, const char **what)
{
	static const size_t pages[] = { 4096, 8192, 16384, 65536 };
	static const struct {
		size_t off;
		const char *magic;
		size_t len;
		const char *name;
	} sigs[] = {
		{ 1080, "\x53\xef", 2, "ext2/3/4" },
		{ 0, "XFSB", 4, "XFS" },
		{ 65536 + 64, "_BHRfS_M", 8, "Btrfs" },
		{ 1024, "\x10\x20\xf5\xf2", 4, "F2FS" },
		{ 3, "EXFAT   ", 8, "exFAT" },
		{ 3, "NTFS    ", 8, "NTFS" },
		{ 82, "FAT32   ", 8, "FAT32" },
		{ 54, "FAT16   ", 8, "FAT16" },
		{ 54, "FAT12   ", 8, "FAT12" },
		{ 32769, "CD001", 5, "ISO 9660" },
		{ 0, "hsqs", 4, "SquashFS" },
		{ 0, "LUKS\xba\xbe", 6, "LUKS" },
		{ 512, "LABELONE", 8, "LVM2" },
		{ 0, "\xfc\x4e\x2b\xa9", 4, "Linux MD RAID" },
		{ 4096, "\xfc\x4e\x2b\xa9", 4, "Linux MD RAID" },
		{ 512, "EFI PART", 8, "a GPT partition table" },
		{ 510, "\x55\xaa", 2, "a DOS partition table or boot sector" },
	};
	const unsigned char *buf = p;

	for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		if (at(buf, len, pages[i] - 10, "SWAPSPACE2", 10) || at(buf, len, pages[i] - 10, "SWAP-SPACE", 10)) {
			if (what)
				*what = "swap";
			return SWAPDEV_SIG_SWAP;
		}
	}
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		if (at(buf, len, sigs[i].off, sigs[i].magic, sigs[i].len)) {
			if (what)
				*what = sigs[i].name;
			return SWAPDEV_SIG_OTHER;
		}
	}
	if (what)
		*what = NULL;
	return SWAPDEV_SIG_NONE;
}

/* The next white-space separated field of [*S, E) as [*B, *FE); false at the end. */
static bool field(const char **s, const char *e, const char **b, const char **fe)
{
	const char *p = *s;

	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	if (p == e)
		return false;
	*b = p;
	while (p < e && *p != ' ' && *p != '\t')
		p++;
	*fe = p;
	*s = p;
	return true;
}

static bool same_device(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && S_ISBLK(sa.st_mode) && S_ISBLK(sb.st_mode) &&
	       sa.st_rdev == sb.st_rdev;
}

int swapdev_state(const char *text, const char *path, struct swapdev_state *st)
{
	const char *line = text;
	bool header = false;

	memset(st, 0, sizeof(*st));
	st->size_bytes = st->used_bytes = -1;
	while (*line) {
		const char *e = strchr(line, '\n'), *pos = line, *f[5][2];
		char name[PATH_MAX], num[32];
		int nf = 0;

		if (!e)
			e = line + strlen(line);
		while (nf < 5 && field(&pos, e, &f[nf][0], &f[nf][1]))
			nf++;
		if (nf >= 1 && !strncmp(f[0][0], "Filename", 8)) {
			header = true;
		} else if (nf == 5 && !proc_unescape(name, sizeof(name), f[0][0], f[0][1]) &&
			   (!strcmp(name, path) || same_device(name, path))) {
			st->active = true;
			snprintf(st->type, sizeof(st->type), "%.*s", (int)(f[1][1] - f[1][0]), f[1][0]);
			snprintf(num, sizeof(num), "%.*s", (int)(f[2][1] - f[2][0]), f[2][0]);
			st->size_bytes = strtoll(num, NULL, 10) * 1024;
			snprintf(num, sizeof(num), "%.*s", (int)(f[3][1] - f[3][0]), f[3][0]);
			st->used_bytes = strtoll(num, NULL, 10) * 1024;
			snprintf(num, sizeof(num), "%.*s", (int)(f[4][1] - f[4][0]), f[4][0]);
			st->priority = (int)strtol(num, NULL, 10);
		}
		line = *e ? e + 1 : e;
	}
	return header ? 0 : -EINVAL;
}

int swapdev_state_read(const char *proc_root, const char *path, struct swapdev_state *st)
{
	struct proc_buf b = PROC_BUF_INIT;
	char file[PATH_MAX];
	int r;

	snprintf(file, sizeof(file), "%s/swaps", proc_root ? proc_root : "/proc");
	r = proc_buf_read_file(&b, file);
	if (!r)
		r = swapdev_state(b.data, path, st);
	proc_buf_release(&b);
	return r;
}

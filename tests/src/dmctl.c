// SPDX-License-Identifier: GPL-2.0
/*
 * dmctl - the few device-mapper operations the crash tests need, as one
 * static binary talking to /dev/mapper/control directly.
 *
 * dmsetup does the same, but it is linked dynamically, and under TCG a
 * dynamic executable costs ~0.2 s to start: the crash suite makes several
 * device-mapper calls per case and hundreds of cases per boot.  The
 * ioctls are those of include/uapi/linux/dm-ioctl.h; a table is a single
 * target, "START LENGTH TYPE PARAMS...".
 *
 *   dmctl create NAME TABLE...   create and activate; prints dm-N
 *   dmctl swap NAME TABLE...     suspend (no fs freeze, flush pending
 *                                I/O), load TABLE, resume
 *   dmctl suspend NAME | resume NAME
 *   dmctl remove NAME
 *   dmctl message NAME WORDS...  target message at sector 0 (e.g. mark X)
 *   dmctl minor NAME             prints dm-N
 *
 * Devices are used as /dev/dm-N (devtmpfs makes the node).  Exit status 0
 * done, 1 failed, 2 bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/dm-ioctl.h>

#define BUF_SIZE	16384

static const char *prog = "dmctl";

static union {
	struct dm_ioctl dmi;
	char raw[BUF_SIZE];
} buf;

static int control = -1;

static struct dm_ioctl *dm_init(const char *name, uint32_t flags)
{
	struct dm_ioctl *dmi = &buf.dmi;

	memset(&buf, 0, sizeof(buf));
	dmi->version[0] = DM_VERSION_MAJOR;
	dmi->version[1] = 0;
	dmi->version[2] = 0;
	dmi->data_size = sizeof(buf);
	dmi->data_start = sizeof(*dmi);
	dmi->flags = flags;
	if (name)
		snprintf(dmi->name, sizeof(dmi->name), "%s", name);
	return dmi;
}

static int dm_call(unsigned long cmd, const char *what, const char *name)
{
	if (control < 0) {
		control = open("/dev/mapper/control", O_RDWR);
		if (control < 0) {
			fprintf(stderr, "%s: open /dev/mapper/control: %s\n",
				prog, strerror(errno));
			return 1;
		}
	}
	if (ioctl(control, cmd, &buf.dmi)) {
		fprintf(stderr, "%s: %s %s: %s\n", prog, what, name,
			strerror(errno));
		return 1;
	}
	return 0;
}

/* The minor of the kernel's (huge) device number encoding. */
static unsigned int dev_minor(uint64_t dev)
{
	return (dev & 0xff) | ((dev >> 12) & 0xfff00);
}

/* Join argv into "START LEN TYPE PARAMS" and load it as one target. */
static int load(const char *name, char **argv)
{
	struct dm_ioctl *dmi = dm_init(name, 0);
	struct dm_target_spec *spec;
	unsigned long long start, len;
	char *params, *end;
	size_t used, room;

	if (!argv[0] || !argv[1] || !argv[2]) {
		fprintf(stderr, "%s: a table is START LENGTH TYPE [PARAMS...]\n",
			prog);
		return 2;
	}
	start = strtoull(argv[0], &end, 10);
	if (*end)
		goto bad;
	len = strtoull(argv[1], &end, 10);
	if (*end)
		goto bad;
	spec = (struct dm_target_spec *)(buf.raw + dmi->data_start);
	spec->sector_start = start;
	spec->length = len;
	snprintf(spec->target_type, sizeof(spec->target_type), "%s", argv[2]);
	params = (char *)(spec + 1);
	room = sizeof(buf) - (params - buf.raw) - 8;
	used = 0;
	for (argv += 3; *argv; argv++) {
		int n = snprintf(params + used, room - used, "%s%s",
				 used ? " " : "", *argv);

		if (n < 0 || (size_t)n >= room - used) {
			fprintf(stderr, "%s: table too long\n", prog);
			return 2;
		}
		used += n;
	}
	used = (used + 1 + 7) & ~(size_t)7;
	spec->next = 0;
	dmi->target_count = 1;
	dmi->data_size = (params + used) - buf.raw;
	return dm_call(DM_TABLE_LOAD, "load", name);
bad:
	fprintf(stderr, "%s: bad table start/length\n", prog);
	return 2;
}

static int suspend(const char *name)
{
	dm_init(name, DM_SUSPEND_FLAG | DM_SKIP_LOCKFS_FLAG);
	return dm_call(DM_DEV_SUSPEND, "suspend", name);
}

static int resume(const char *name)
{
	dm_init(name, 0);
	return dm_call(DM_DEV_SUSPEND, "resume", name);
}

static int print_minor(const char *name)
{
	struct dm_ioctl *dmi = dm_init(name, 0);

	if (dm_call(DM_DEV_STATUS, "status", name))
		return 1;
	printf("dm-%u\n", dev_minor(dmi->dev));
	return 0;
}

static int cmd_create(char **argv)
{
	int ret;

	dm_init(argv[0], 0);
	if (dm_call(DM_DEV_CREATE, "create", argv[0]))
		return 1;
	ret = load(argv[0], argv + 1);
	if (!ret)
		ret = resume(argv[0]);
	if (ret) {
		dm_init(argv[0], 0);
		dm_call(DM_DEV_REMOVE, "remove", argv[0]);
		return ret;
	}
	return print_minor(argv[0]);
}

static int cmd_swap(char **argv)
{
	int ret = suspend(argv[0]);

	if (ret)
		return ret;
	ret = load(argv[0], argv + 1);
	if (ret) {
		resume(argv[0]);
		return ret;
	}
	return resume(argv[0]);
}

static int cmd_remove(char **argv)
{
	dm_init(argv[0], 0);
	return dm_call(DM_DEV_REMOVE, "remove", argv[0]);
}

static int cmd_message(char **argv)
{
	struct dm_ioctl *dmi = dm_init(argv[0], 0);
	struct dm_target_msg *msg;
	size_t used = 0, room;
	char **w;

	msg = (struct dm_target_msg *)(buf.raw + dmi->data_start);
	msg->sector = 0;
	room = sizeof(buf) - dmi->data_start - sizeof(*msg) - 1;
	for (w = argv + 1; *w; w++) {
		int n = snprintf(msg->message + used, room - used, "%s%s",
				 used ? " " : "", *w);

		if (n < 0 || (size_t)n >= room - used) {
			fprintf(stderr, "%s: message too long\n", prog);
			return 2;
		}
		used += n;
	}
	return dm_call(DM_TARGET_MSG, "message", argv[0]);
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		printf("usage: %s create|swap NAME START LEN TYPE [PARAMS...]\n"
		       "       %s suspend|resume|remove|minor NAME\n"
		       "       %s message NAME WORDS...\n", prog, prog, prog);
		return 0;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: %s COMMAND NAME [ARGS...] (%s --help)\n",
			prog, prog);
		return 2;
	}
	if (!strcmp(cmd, "create"))
		return cmd_create(argv + 2);
	if (!strcmp(cmd, "swap"))
		return cmd_swap(argv + 2);
	if (!strcmp(cmd, "suspend"))
		return suspend(argv[2]);
	if (!strcmp(cmd, "resume"))
		return resume(argv[2]);
	if (!strcmp(cmd, "remove"))
		return cmd_remove(argv + 2);
	if (!strcmp(cmd, "minor"))
		return print_minor(argv[2]);
	if (!strcmp(cmd, "message") && argc > 3)
		return cmd_message(argv + 2);
	fprintf(stderr, "%s: unknown command '%s' (%s --help)\n", prog, cmd,
		prog);
	return 2;
}

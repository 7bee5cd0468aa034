// SPDX-License-Identifier: GPL-2.0
/*
 * logreplay - read a dm-log-writes log and replay it onto a device.
 *
 * dm-log-writes (Documentation/admin-guide/device-mapper/log-writes.rst)
 * records every write that reached the disk below it, in the order the
 * disk made them durable, on a second device.  The log starts with a
 * super block at byte 0 and its entries follow from byte SECTORSIZE on:
 *
 *   [ header: one SECTORSIZE block ][ data: nr_sectors * SECTORSIZE ]
 *
 * All numbers are little endian.  The super block holds a magic, a
 * version (1), the number of entries and the sector size of the logged
 * device; an entry header holds the sector and length of the write (in
 * SECTORSIZE units), its flags and, for a mark, the length of the mark's
 * name, which follows the header in the same block.  A flush is an entry
 * without data, a discard one whose range has no data in the log.
 *
 * The commands:
 *   list LOG              one line per entry: index, flags, sector, length
 *                         and the name of a mark
 *   points LOG            the entries worth stopping at: every flush, FUA
 *                         and mark, as "INDEX flush|fua|mark CHANGED NAME"
 *                         (CHANGED: 0 if no data since the previous one)
 *   find LOG NAME         the index of the first mark called NAME
 *   replay LOG DEV FROM TO
 *                         write entries FROM..TO (inclusive) onto DEV, so
 *                         that DEV, holding the state after entry FROM - 1,
 *                         ends up in the state right after entry TO.
 *                         Discarded ranges are written as zeroes.
 *
 * Written for the ext4fc crash tests; static (gcc -static), runs in the
 * guest and on the host.  Exit status 0 done, 1 failed, 2 bad usage.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LOG_MAGIC	0x6a736677736872ULL
#define LOG_VERSION	1ULL

#define LOG_FLUSH	(1 << 0)
#define LOG_FUA		(1 << 1)
#define LOG_DISCARD	(1 << 2)
#define LOG_MARK	(1 << 3)
#define LOG_METADATA	(1 << 4)

#define MAX_SECTORSIZE	4096
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define __packed	__attribute__((packed))
#define CHUNK		(1 << 20)

/* The on-disk super block and entry header, little endian. */
struct log_super {
	uint64_t magic;
	uint64_t version;
	uint64_t nr_entries;
	uint32_t sectorsize;
} __packed;

struct log_entry {
	uint64_t sector;
	uint64_t nr_sectors;
	uint64_t flags;
	uint64_t data_len;
} __packed;

/* An entry as read: its header and where it sits in the log. */
struct entry {
	uint64_t index;
	uint64_t pos;		/* byte offset of the header in the log */
	uint64_t sector;	/* in sectorsize units on the logged device */
	uint64_t nr_sectors;
	uint64_t flags;
	char mark[MAX_SECTORSIZE];
};

struct log {
	const char *path;
	int fd;
	uint64_t nr_entries;
	uint32_t sectorsize;
	uint64_t next_pos;	/* header of the next entry to read */
	uint64_t next_index;
};

static const char *prog = "logreplay";

static int read_at(int fd, void *buf, size_t len, uint64_t pos,
		   const char *path)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done,
				  pos + done);

		if (n < 0) {
			fprintf(stderr, "%s: read %s at %" PRIu64 ": %s\n",
				prog, path, pos + done, strerror(errno));
			return -1;
		}
		if (n == 0) {
			fprintf(stderr, "%s: %s ends at %" PRIu64 " (want %zu bytes more)\n",
				prog, path, pos + done, len - done);
			return -1;
		}
		done += n;
	}
	return 0;
}

static int write_at(int fd, const void *buf, size_t len, uint64_t pos,
		    const char *path)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pwrite(fd, (const char *)buf + done, len - done,
				   pos + done);

		if (n <= 0) {
			fprintf(stderr, "%s: write %s at %" PRIu64 ": %s\n",
				prog, path, pos + done,
				n < 0 ? strerror(errno) : "short write");
			return -1;
		}
		done += n;
	}
	return 0;
}

static int log_open(struct log *log, const char *path)
{
	struct log_super super;

	log->path = path;
	log->fd = open(path, O_RDONLY);
	if (log->fd < 0) {
		fprintf(stderr, "%s: open %s: %s\n", prog, path,
			strerror(errno));
		return -1;
	}
	if (read_at(log->fd, &super, sizeof(super), 0, path))
		return -1;
	if (le64toh(super.magic) != LOG_MAGIC) {
		fprintf(stderr, "%s: %s: not a dm-log-writes log (magic %#" PRIx64 ")\n",
			prog, path, le64toh(super.magic));
		return -1;
	}
	if (le64toh(super.version) != LOG_VERSION) {
		fprintf(stderr, "%s: %s: log version %" PRIu64 ", want %llu\n",
			prog, path, le64toh(super.version), LOG_VERSION);
		return -1;
	}
	log->nr_entries = le64toh(super.nr_entries);
	log->sectorsize = le32toh(super.sectorsize);
	if (log->sectorsize < 512 || log->sectorsize > MAX_SECTORSIZE ||
	    (log->sectorsize & (log->sectorsize - 1))) {
		fprintf(stderr, "%s: %s: bad sector size %u\n", prog, path,
			log->sectorsize);
		return -1;
	}
	log->next_pos = log->sectorsize;
	log->next_index = 0;
	return 0;
}

/* Read the next entry's header; 1 at the end of the log, -1 on error. */
static int log_next(struct log *log, struct entry *e)
{
	static unsigned char block[MAX_SECTORSIZE];
	struct log_entry raw;
	uint64_t data_len;

	if (log->next_index >= log->nr_entries)
		return 1;
	if (read_at(log->fd, block, log->sectorsize, log->next_pos, log->path))
		return -1;
	memcpy(&raw, block, sizeof(raw));
	e->index = log->next_index;
	e->pos = log->next_pos;
	e->sector = le64toh(raw.sector);
	e->nr_sectors = le64toh(raw.nr_sectors);
	e->flags = le64toh(raw.flags);
	data_len = le64toh(raw.data_len);
	e->mark[0] = '\0';
	if (e->flags & LOG_MARK) {
		if (data_len > log->sectorsize - sizeof(raw)) {
			fprintf(stderr, "%s: %s: entry %" PRIu64 ": mark of %" PRIu64 " bytes\n",
				prog, log->path, e->index, data_len);
			return -1;
		}
		memcpy(e->mark, block + sizeof(raw), data_len);
		e->mark[data_len] = '\0';
	}
	log->next_pos += log->sectorsize;
	if (!(e->flags & LOG_DISCARD))
		log->next_pos += e->nr_sectors * log->sectorsize;
	log->next_index++;
	return 0;
}

static void flag_letters(uint64_t flags, char *out)
{
	static const struct {
		uint64_t bit;
		char letter;
	} names[] = {
		{ LOG_FLUSH, 'F' }, { LOG_FUA, 'U' }, { LOG_DISCARD, 'D' },
		{ LOG_MARK, 'M' }, { LOG_METADATA, 'm' },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (flags & names[i].bit)
			*out++ = names[i].letter;
	if (!flags)
		*out++ = '-';
	*out = '\0';
}

static int cmd_list(struct log *log)
{
	struct entry e;
	char fl[8];
	int ret;

	printf("# %" PRIu64 " entries, sector size %u; flags: F flush, U fua, D discard, M mark, m metadata\n",
	       log->nr_entries, log->sectorsize);
	while (!(ret = log_next(log, &e))) {
		flag_letters(e.flags, fl);
		printf("%" PRIu64 " %s %" PRIu64 " %" PRIu64 "%s%s\n", e.index,
		       fl, e.sector, e.nr_sectors, e.mark[0] ? " " : "",
		       e.mark);
	}
	return ret < 0;
}

/*
 * "INDEX KIND CHANGED [NAME]": CHANGED is 1 when an entry since the
 * previous point (up to this one) wrote data, 0 when the device holds
 * the same bytes as at the previous point (a mark right after a FUA).
 */
static int cmd_points(struct log *log)
{
	const char *kind;
	int ret, changed = 1;
	struct entry e;

	while (!(ret = log_next(log, &e))) {
		if (e.nr_sectors)
			changed = 1;
		if (e.flags & LOG_MARK)
			kind = "mark";
		else if (e.flags & LOG_FUA)
			kind = "fua";
		else if (e.flags & LOG_FLUSH)
			kind = "flush";
		else
			continue;
		printf("%" PRIu64 " %s %d%s%s\n", e.index, kind, changed,
		       e.mark[0] ? " " : "", e.mark);
		changed = 0;
	}
	return ret < 0;
}

static int cmd_find(struct log *log, const char *name)
{
	struct entry e;
	int ret;

	while (!(ret = log_next(log, &e))) {
		if ((e.flags & LOG_MARK) && !strcmp(e.mark, name)) {
			printf("%" PRIu64 "\n", e.index);
			return 0;
		}
	}
	if (ret > 0)
		fprintf(stderr, "%s: %s: no mark '%s'\n", prog, log->path,
			name);
	return 1;
}

/* Copy @e's data (or zeroes, for a discard) to the device. */
static int apply(struct log *log, const struct entry *e, int dev,
		 const char *devpath)
{
	static unsigned char *buf;
	uint64_t left = e->nr_sectors * log->sectorsize;
	uint64_t src = e->pos + log->sectorsize;
	uint64_t dst = e->sector * log->sectorsize;

	if (!buf) {
		buf = malloc(CHUNK);
		if (!buf) {
			perror(prog);
			return -1;
		}
	}
	if (e->flags & LOG_DISCARD)
		memset(buf, 0, CHUNK);
	while (left) {
		size_t n = left < CHUNK ? left : CHUNK;

		if (!(e->flags & LOG_DISCARD) &&
		    read_at(log->fd, buf, n, src, log->path))
			return -1;
		if (write_at(dev, buf, n, dst, devpath))
			return -1;
		src += n;
		dst += n;
		left -= n;
	}
	return 0;
}

static int parse_index(const char *s, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-') {
		fprintf(stderr, "%s: bad entry index '%s'\n", prog, s);
		return -1;
	}
	return 0;
}

static int cmd_replay(struct log *log, const char *devpath, const char *from_s,
		      const char *to_s)
{
	uint64_t from, to;
	struct entry e;
	int dev, ret;

	if (parse_index(from_s, &from) || parse_index(to_s, &to))
		return 2;
	if (to >= log->nr_entries || from > to) {
		fprintf(stderr, "%s: entries %" PRIu64 "..%" PRIu64 " not in a log of %" PRIu64 "\n",
			prog, from, to, log->nr_entries);
		return 2;
	}
	dev = open(devpath, O_WRONLY);
	if (dev < 0) {
		fprintf(stderr, "%s: open %s: %s\n", prog, devpath,
			strerror(errno));
		return 1;
	}
	while (!(ret = log_next(log, &e)) && e.index <= to) {
		if (e.index < from || !e.nr_sectors)
			continue;
		if (apply(log, &e, dev, devpath))
			return 1;
	}
	if (ret < 0)
		return 1;
	if (fsync(dev) || close(dev)) {
		fprintf(stderr, "%s: sync %s: %s\n", prog, devpath,
			strerror(errno));
		return 1;
	}
	return 0;
}

static void print_usage(FILE *f)
{
	fprintf(f, "usage: %s list LOG\n"
		"       %s points LOG\n"
		"       %s find LOG MARK\n"
		"       %s replay LOG DEV FROM TO\n"
		"Reads a dm-log-writes log; replay writes entries FROM..TO (inclusive,\n"
		"counted from 0) onto DEV, discards as zeroes.\n",
		prog, prog, prog, prog);
}

int main(int argc, char **argv)
{
	struct log log;

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
			  !strcmp(argv[1], "help"))) {
		print_usage(stdout);
		return 0;
	}
	if (argc < 3) {
		print_usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "list") && argc == 3)
		return log_open(&log, argv[2]) ? 1 : cmd_list(&log);
	if (!strcmp(argv[1], "points") && argc == 3)
		return log_open(&log, argv[2]) ? 1 : cmd_points(&log);
	if (!strcmp(argv[1], "find") && argc == 4)
		return log_open(&log, argv[2]) ? 1 : cmd_find(&log, argv[3]);
	if (!strcmp(argv[1], "replay") && argc == 6)
		return log_open(&log, argv[2]) ? 1 :
			cmd_replay(&log, argv[3], argv[4], argv[5]);
	print_usage(stderr);
	return 2;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * logreplay - read a dm-log-writes log and replay it onto a device.
 *
 * dm-log-writes (Documentation/admin-guide/device-mapper/log-writes.rst)
 * records every write that reached the disk below it, in the order the
 * disk completed them, on a second device.  The log starts with a super
 * block at byte 0 and its entries follow from byte SECTORSIZE on:
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
 * Crash models.  A crash state is what the disk holds after a power cut
 * right after entry P of the log.  How dm-log-writes orders its log
 * (drivers/md/dm-log-writes.c, 6.1): a write with FUA or PREFLUSH is
 * logged when it completes; a write (or discard) with neither is held
 * back, and when a flush request is issued, the held writes that have
 * completed by then are logged with it, right before the flush's own
 * entry, when the flush completes.  So whatever is logged before a flush
 * entry F had completed before F was issued, or was FUA: all of it is
 * durable once F is logged.  A flush's own data (a PREFLUSH write) is
 * written after the flush and is durable only with FUA.
 *
 *   optimistic   every entry up to P: the disk persisted the writes in
 *                the order they completed (fstests' replay-log and its
 *                generic/482, our crash suite).
 *   pessimistic  only what a flush or a FUA made durable (CrashMonkey's
 *                model of a volatile write cache): with F the latest
 *                flush entry at or before P, every write logged before
 *                F; F's own data if it has FUA; after F up to P, the FUA
 *                writes only.  The writes without FUA after F (F's own
 *                data without FUA included) are dropped.  A write with
 *                PREFLUSH and FUA is a flush point that keeps its data.
 *
 * On a log written through device mapper in 6.1 the two agree at every
 * FUA entry: bio-based dm splits a PREFLUSH write with data into an empty
 * flush and the write without PREFLUSH (dm.c, dm_io_complete), and a
 * plain write reaches the log only in a flush's batch, so no write
 * without FUA sits between the latest flush and a FUA entry.  They differ
 * where a log has such writes: another logger, a later kernel, the
 * synthetic log of "selftest".  "check" prints, per point, what the
 * pessimistic model drops, so a run shows which case it is.
 *
 * The commands:
 *   list LOG              one line per entry: index, flags, sector, length
 *                         and the name of a mark
 *   points LOG            the entries worth stopping at: every flush, FUA
 *                         and mark, as "INDEX flush|fua|mark CHANGED NAME"
 *                         (CHANGED: 0 if no data since the previous one)
 *   find LOG NAME         the index of the first mark called NAME
 *   replay [-m MODEL] LOG DEV FROM TO
 *                         write entries FROM..TO (inclusive) onto DEV, so
 *                         that DEV, holding the state after entry FROM - 1
 *                         (all of it durable), ends up in the crash state
 *                         right after entry TO under MODEL (optimistic, the
 *                         default: all of them).  Discarded ranges are
 *                         written as zeroes.  FROM may be INDEX@SECTOR,
 *                         where the entry's header sits in the log (in log
 *                         sectors), as check passes it: no scan from 0.
 *   check [-m MODEL] LOG DEV FROM CMD
 *                         replay entries FROM.. onto DEV and, at every FUA
 *                         entry, run CMD (sh -c) once per model (both:
 *                         optimistic, then pessimistic where it drops a
 *                         write; a state the same as the optimistic one is
 *                         not checked twice).  DEV is kept at the latest
 *                         flush; CMD gets the rest in its environment and
 *                         writes it onto a copy of DEV with
 *                         "replay -m $LOGREPLAY_MODEL LOG COPY
 *                         $LOGREPLAY_FROM $LOGREPLAY_ENTRY":
 *                           LOGREPLAY_POINT    1, 2, ... (FUA entries seen)
 *                           LOGREPLAY_ENTRY    the FUA entry's index
 *                           LOGREPLAY_FROM     INDEX@SECTOR, the first entry
 *                                              not on DEV
 *                           LOGREPLAY_MODEL    optimistic or pessimistic
 *                           LOGREPLAY_DROPPED  writes the pessimistic model
 *                                              drops at this point
 *                         Prints a line per point: "point N entry E flush
 *                         F writes W dropped D" (F: the latest flush entry,
 *                         - if none since FROM; W: writes logged since it).
 *                         A CMD that fails stops the replay.  At the end DEV
 *                         holds the whole log.
 *   selftest              both models on a small synthetic log whose
 *                         states are known: check's points, replay from a
 *                         point's FROM and from entry 0.  A model gone
 *                         wrong fails here.
 *
 * Written for the ext4fc crash and stress tests; static (gcc -static),
 * runs in the guest and on the host.  Exit status 0 done, 1 failed, 2
 * bad usage.
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
#include <sys/wait.h>
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
	const char *mark;	/* "" but for a mark; until the next read */
};

struct log {
	const char *path;
	int fd;
	uint64_t nr_entries;
	uint32_t sectorsize;
	uint64_t next_pos;	/* header of the next entry to read */
	uint64_t next_index;
	char mark[MAX_SECTORSIZE];
};

enum model {
	OPTIMISTIC = 1,
	PESSIMISTIC = 2,
	BOTH = OPTIMISTIC | PESSIMISTIC,
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
	log->mark[0] = '\0';
	e->mark = log->mark;
	if (e->flags & LOG_MARK) {
		if (data_len > log->sectorsize - sizeof(raw)) {
			fprintf(stderr, "%s: %s: entry %" PRIu64 ": mark of %" PRIu64 " bytes\n",
				prog, log->path, e->index, data_len);
			return -1;
		}
		memcpy(log->mark, block + sizeof(raw), data_len);
		log->mark[data_len] = '\0';
	}
	log->next_pos += log->sectorsize;
	if (!(e->flags & LOG_DISCARD))
		log->next_pos += e->nr_sectors * log->sectorsize;
	log->next_index++;
	return 0;
}

/* An entry that changes the device: a write or a discard, not a mark. */
static int has_data(const struct entry *e)
{
	return e->nr_sectors && !(e->flags & LOG_MARK);
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

static int parse_u64(const char *s, const char *what, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-') {
		fprintf(stderr, "%s: bad %s '%s'\n", prog, what, s);
		return -1;
	}
	return 0;
}

static int parse_index(const char *s, uint64_t *out)
{
	return parse_u64(s, "entry index", out);
}

static int parse_model(const char *s, enum model *m)
{
	if (!strcmp(s, "optimistic"))
		*m = OPTIMISTIC;
	else if (!strcmp(s, "pessimistic"))
		*m = PESSIMISTIC;
	else if (!strcmp(s, "both"))
		*m = BOTH;
	else {
		fprintf(stderr, "%s: model '%s': optimistic, pessimistic or both\n",
			prog, s);
		return -1;
	}
	return 0;
}

/*
 * Put the reader at entry @s: "INDEX" reads the headers before it,
 * "INDEX@SECTOR" (the header's place in the log, as check gives it)
 * goes there at once.  The entry must be in the log.
 */
static int log_seek(struct log *log, const char *s, uint64_t *index)
{
	char buf[64], *at;
	uint64_t sector;
	struct entry e;

	if (strlen(s) >= sizeof(buf)) {
		fprintf(stderr, "%s: bad entry '%s'\n", prog, s);
		return 2;
	}
	strcpy(buf, s);
	at = strchr(buf, '@');
	if (at)
		*at++ = '\0';
	if (parse_index(buf, index) || (at && parse_u64(at, "log sector", &sector)))
		return 2;
	if (*index >= log->nr_entries) {
		fprintf(stderr, "%s: entry %" PRIu64 " not in a log of %" PRIu64 "\n",
			prog, *index, log->nr_entries);
		return 2;
	}
	if (at) {
		if (!sector) {
			fprintf(stderr, "%s: entry %s: log sector 0 is the super block\n",
				prog, s);
			return 2;
		}
		log->next_index = *index;
		log->next_pos = sector * log->sectorsize;
		return 0;
	}
	while (log->next_index < *index)
		if (log_next(log, &e))
			return 1;
	return 0;
}

/*
 * What a volatile write cache may still hold: the entries with data
 * logged since the latest flush (the flush's own data first).  The device
 * holds everything logged before; @from is the first entry not on it.
 */
struct cache {
	struct entry *e;
	size_t n, cap;
	struct entry from;
	int flushed;		/* a flush entry seen: from is it */
};

static int cache_add(struct cache *c, const struct entry *e)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		struct entry *ne = realloc(c->e, cap * sizeof(*ne));

		if (!ne) {
			perror(prog);
			return -1;
		}
		c->e = ne;
		c->cap = cap;
	}
	c->e[c->n++] = *e;
	return 0;
}

/* What @model keeps of the cache: all of it, or its FUA writes. */
static int keeps(enum model model, const struct entry *e)
{
	return model == OPTIMISTIC || (e->flags & LOG_FUA);
}

static size_t cache_dropped(const struct cache *c)
{
	size_t i, n = 0;

	for (i = 0; i < c->n; i++)
		n += !keeps(PESSIMISTIC, &c->e[i]);
	return n;
}

/* Write what @model keeps of the cache onto the device, in log order. */
static int cache_write(struct log *log, const struct cache *c,
		       enum model model, int dev, const char *devpath)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (keeps(model, &c->e[i]) &&
		    apply(log, &c->e[i], dev, devpath))
			return -1;
	return 0;
}

/* Called at each FUA entry by walk(); nonzero stops it. */
typedef int (*point_fn)(void *ctx, const struct cache *c,
			const struct entry *fua);

/*
 * The one loop over a range of entries: from where the reader is up to
 * entry @to, onto @dev.  At a flush entry the cache (everything logged
 * before it) goes onto the device; at each FUA entry @at_point sees the
 * cache; at @to the device gets what @model keeps of the cache.
 */
static int walk(struct log *log, int dev, const char *devpath, uint64_t to,
		enum model model, point_fn at_point, void *ctx)
{
	struct cache c = { 0 };
	struct entry e;
	int ret;

	c.from.index = log->next_index;
	c.from.pos = log->next_pos;
	while (!(ret = log_next(log, &e))) {
		if (e.flags & LOG_FLUSH) {
			ret = cache_write(log, &c, OPTIMISTIC, dev, devpath);
			if (ret)
				break;
			c.n = 0;
			c.from = e;
			c.flushed = 1;
		}
		ret = has_data(&e) ? cache_add(&c, &e) : 0;
		if (!ret && (e.flags & LOG_FUA) && at_point)
			ret = at_point(ctx, &c, &e) ? -1 : 0;
		if (ret || e.index == to)
			break;
	}
	if (ret > 0)
		fprintf(stderr, "%s: %s ends before entry %" PRIu64 "\n",
			prog, log->path, to);
	if (!ret)
		ret = cache_write(log, &c, model, dev, devpath);
	free(c.e);
	return ret ? -1 : 0;
}

static int open_dev(const char *devpath)
{
	int dev = open(devpath, O_WRONLY);

	if (dev < 0)
		fprintf(stderr, "%s: open %s: %s\n", prog, devpath,
			strerror(errno));
	return dev;
}

static int close_dev(int dev, const char *devpath)
{
	if (fsync(dev) || close(dev)) {
		fprintf(stderr, "%s: sync %s: %s\n", prog, devpath,
			strerror(errno));
		return -1;
	}
	return 0;
}

static int cmd_replay(struct log *log, const char *devpath, const char *from_s,
		      const char *to_s, enum model model)
{
	uint64_t from, to;
	int dev, ret;

	if (parse_index(to_s, &to))
		return 2;
	ret = log_seek(log, from_s, &from);
	if (ret)
		return ret;
	if (to >= log->nr_entries || from > to) {
		fprintf(stderr, "%s: entries %" PRIu64 "..%" PRIu64 " not in a log of %" PRIu64 "\n",
			prog, from, to, log->nr_entries);
		return 2;
	}
	dev = open_dev(devpath);
	if (dev < 0)
		return 1;
	if (walk(log, dev, devpath, to, model, NULL, NULL)) {
		close(dev);
		return 1;
	}
	return close_dev(dev, devpath) ? 1 : 0;
}

struct check {
	struct log *log;
	const char *cmd;
	enum model models;
	int dev;
	const char *devpath;
	uint64_t points;
};

static int run_cmd(const struct check *ck, const char *model,
		   const struct entry *fua)
{
	int st;

	if (setenv("LOGREPLAY_MODEL", model, 1)) {
		perror(prog);
		return -1;
	}
	fflush(stdout);
	st = system(ck->cmd);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "%s: '%s' failed (status %#x) at point %" PRIu64 " (entry %" PRIu64 ", %s model)\n",
			prog, ck->cmd, st, ck->points, fua->index, model);
		return -1;
	}
	return 0;
}

static int check_point(void *ctx, const struct cache *c,
		       const struct entry *fua)
{
	struct check *ck = ctx;
	size_t dropped = cache_dropped(c);
	char buf[64];

	ck->points++;
	if (c->flushed)
		snprintf(buf, sizeof(buf), "%" PRIu64, c->from.index);
	else
		strcpy(buf, "-");
	printf("point %" PRIu64 " entry %" PRIu64 " flush %s writes %zu dropped %zu\n",
	       ck->points, fua->index, buf, c->n, dropped);
	/* the snapshot CMD makes reads the device below the page cache */
	if (fsync(ck->dev)) {
		fprintf(stderr, "%s: sync %s: %s\n", prog, ck->devpath,
			strerror(errno));
		return -1;
	}
	snprintf(buf, sizeof(buf), "%" PRIu64, ck->points);
	setenv("LOGREPLAY_POINT", buf, 1);
	snprintf(buf, sizeof(buf), "%" PRIu64, fua->index);
	setenv("LOGREPLAY_ENTRY", buf, 1);
	snprintf(buf, sizeof(buf), "%" PRIu64 "@%" PRIu64, c->from.index,
		 c->from.pos / ck->log->sectorsize);
	setenv("LOGREPLAY_FROM", buf, 1);
	snprintf(buf, sizeof(buf), "%zu", dropped);
	setenv("LOGREPLAY_DROPPED", buf, 1);
	if ((ck->models & OPTIMISTIC) && run_cmd(ck, "optimistic", fua))
		return -1;
	/* under both, a state the same as the optimistic one is not redone */
	if ((ck->models & PESSIMISTIC) && (ck->models != BOTH || dropped) &&
	    run_cmd(ck, "pessimistic", fua))
		return -1;
	return 0;
}

static int cmd_check(struct log *log, const char *devpath, const char *from_s,
		     enum model models, const char *cmd)
{
	struct check ck = {
		.log = log, .cmd = cmd, .models = models, .devpath = devpath,
	};
	uint64_t from;
	int ret;

	ret = log_seek(log, from_s, &from);
	if (ret)
		return ret;
	ck.dev = open_dev(devpath);
	if (ck.dev < 0)
		return 1;
	if (walk(log, ck.dev, devpath, log->nr_entries - 1, OPTIMISTIC,
		 check_point, &ck)) {
		close(ck.dev);
		return 1;
	}
	return close_dev(ck.dev, devpath) ? 1 : 0;
}

/*
 * selftest: a log of 15 entries on an 8-sector device, each write filling
 * its sectors with one letter, and the state of each FUA point under
 * each model, by hand ('.' a zero sector).
 */
#define ST_SECTORS	8
#define ST_SS		512

static const struct st_entry {
	uint64_t flags;
	uint64_t sector, nr;
	char fill;		/* the letter its sectors hold */
	const char *mark;	/* a mark's name */
} st_log[] = {
	{ 0, 0, 1, 'a', NULL },			/*  0 */
	{ 0, 1, 1, 'b', NULL },			/*  1 */
	{ LOG_FLUSH, 0, 0, 0, NULL },		/*  2: a and b durable */
	{ 0, 2, 1, 'c', NULL },			/*  3 */
	{ LOG_FUA, 3, 1, 'd', NULL },		/*  4: point 1, c in the cache */
	{ LOG_DISCARD, 0, 1, 0, NULL },		/*  5 */
	{ LOG_MARK, 0, 0, 0, "mid" },		/*  6 */
	{ LOG_FLUSH | LOG_FUA, 4, 1, 'e', NULL },	/*  7: point 2, all durable */
	{ 0, 5, 1, 'f', NULL },			/*  8 */
	{ LOG_FLUSH, 6, 1, 'g', NULL },		/*  9: f durable, g not */
	{ LOG_FUA, 7, 1, 'h', NULL },		/* 10: point 3 */
	{ 0, 2, 2, 'i', NULL },			/* 11 */
	{ LOG_FUA, 1, 1, 'j', NULL },		/* 12: point 4 */
	{ LOG_FLUSH, 0, 0, 0, NULL },		/* 13 */
	{ LOG_MARK, 0, 0, 0, "end" },		/* 14 */
};

static const struct st_point {
	uint64_t entry;
	size_t dropped;
	const char *optimistic, *pessimistic;
} st_points[] = {
	{ 4, 1, "abcd....", "ab.d...." },
	{ 7, 0, ".bcde...", ".bcde..." },
	{ 10, 1, ".bcdefgh", ".bcdef.h" },
	{ 12, 2, ".jiiefgh", ".jcdef.h" },
};

struct selftest {
	const char *logpath, *devpath, *snappath;
	size_t point;
	int bad;
};

static int st_write_log(int fd)
{
	unsigned char block[ST_SS];
	struct log_super super = {
		.magic = htole64(LOG_MAGIC), .version = htole64(LOG_VERSION),
		.nr_entries = htole64(ARRAY_SIZE(st_log)),
		.sectorsize = htole32(ST_SS),
	};
	uint64_t pos = 0, i, k;

	memset(block, 0, sizeof(block));
	memcpy(block, &super, sizeof(super));
	if (write_at(fd, block, ST_SS, pos, "selftest log"))
		return -1;
	pos += ST_SS;
	for (i = 0; i < ARRAY_SIZE(st_log); i++) {
		const struct st_entry *s = &st_log[i];
		struct log_entry raw = {
			.sector = htole64(s->sector),
			.nr_sectors = htole64(s->nr),
			.flags = htole64(s->flags),
			.data_len = htole64(s->mark ? strlen(s->mark) : 0),
		};

		memset(block, 0, sizeof(block));
		memcpy(block, &raw, sizeof(raw));
		if (s->mark)
			strcpy((char *)block + sizeof(raw), s->mark);
		if (write_at(fd, block, ST_SS, pos, "selftest log"))
			return -1;
		pos += ST_SS;
		if (s->flags & LOG_DISCARD)
			continue;
		memset(block, s->fill, sizeof(block));
		for (k = 0; k < s->nr; k++, pos += ST_SS)
			if (write_at(fd, block, ST_SS, pos, "selftest log"))
				return -1;
	}
	return 0;
}

/* The device as letters, one a sector ('.' zeroes, '?' mixed). */
static int st_state(const char *path, char *out)
{
	unsigned char block[ST_SS];
	int fd = open(path, O_RDONLY), i, k;

	if (fd < 0) {
		fprintf(stderr, "%s: selftest: open %s: %s\n", prog, path,
			strerror(errno));
		return -1;
	}
	for (i = 0; i < ST_SECTORS; i++) {
		if (read_at(fd, block, ST_SS, (uint64_t)i * ST_SS, path)) {
			close(fd);
			return -1;
		}
		out[i] = block[0] ? block[0] : '.';
		for (k = 1; k < ST_SS; k++)
			if (block[k] != block[0])
				out[i] = '?';
	}
	out[ST_SECTORS] = '\0';
	close(fd);
	return 0;
}

static int st_new_dev(const char *path, const char *copy_of)
{
	unsigned char block[ST_SECTORS * ST_SS];
	int fd, ret;

	memset(block, 0, sizeof(block));
	if (copy_of) {
		fd = open(copy_of, O_RDONLY);
		if (fd < 0) {
			fprintf(stderr, "%s: selftest: open %s: %s\n", prog,
				copy_of, strerror(errno));
			return -1;
		}
		ret = read_at(fd, block, sizeof(block), 0, copy_of);
		close(fd);
		if (ret)
			return -1;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		fprintf(stderr, "%s: selftest: %s: %s\n", prog, path,
			strerror(errno));
		return -1;
	}
	ret = write_at(fd, block, sizeof(block), 0, path);
	return close(fd) || ret ? -1 : 0;
}

static void st_expect(struct selftest *st, const char *what, const char *got,
		      const char *want)
{
	int ok = !strcmp(got, want);

	printf("%-44s %s  %s%s\n", what, got, ok ? "ok" : "WRONG, want ",
	       ok ? "" : want);
	st->bad += !ok;
}

/* replay -m MODEL LOG DEV FROM TO, as a CMD of check would run it */
static int st_replay(struct selftest *st, const char *dev, const char *from,
		     uint64_t to, enum model model, char *state)
{
	struct log log;
	char to_s[32];
	int ret;

	snprintf(to_s, sizeof(to_s), "%" PRIu64, to);
	if (log_open(&log, st->logpath))
		return -1;
	ret = cmd_replay(&log, dev, from, to_s, model);
	close(log.fd);
	return ret || st_state(dev, state) ? -1 : 0;
}

static int st_point(void *ctx, const struct cache *c, const struct entry *fua)
{
	static const enum model models[] = { OPTIMISTIC, PESSIMISTIC };
	static const char *const names[] = { "optimistic", "pessimistic" };
	struct selftest *st = ctx;
	const struct st_point *p;
	char what[96], from[64], got[ST_SECTORS + 1];
	size_t m;

	if (st->point >= ARRAY_SIZE(st_points)) {
		printf("a FUA point at entry %" PRIu64 " not in the list  WRONG\n",
		       fua->index);
		st->bad++;
		return 0;
	}
	p = &st_points[st->point++];
	snprintf(what, sizeof(what), "point %zu (entry %" PRIu64 "), writes dropped",
		 st->point, fua->index);
	snprintf(got, sizeof(got), "%zu", cache_dropped(c));
	snprintf(from, sizeof(from), "%zu", p->dropped);
	st_expect(st, what, got, from);
	snprintf(from, sizeof(from), "%" PRIu64 "@%" PRIu64, c->from.index,
		 c->from.pos / ST_SS);
	for (m = 0; m < ARRAY_SIZE(models); m++) {
		const char *want = m ? p->pessimistic : p->optimistic;

		/* as check's CMD: a copy of the device, the rest on top */
		if (st_new_dev(st->snappath, st->devpath) ||
		    st_replay(st, st->snappath, from, fua->index, models[m], got))
			return -1;
		snprintf(what, sizeof(what), "point %zu, %s, from %s", st->point,
			 names[m], from);
		st_expect(st, what, got, want);
		/* the whole way from a blank device */
		if (st_new_dev(st->snappath, NULL) ||
		    st_replay(st, st->snappath, "0", fua->index, models[m], got))
			return -1;
		snprintf(what, sizeof(what), "point %zu, %s, from 0", st->point,
			 names[m]);
		st_expect(st, what, got, want);
	}
	return 0;
}

static int cmd_selftest(void)
{
	char dir[] = "/tmp/logreplay-selftest.XXXXXX";
	char logpath[64], devpath[64], snappath[64], got[ST_SECTORS + 1];
	struct selftest st = {
		.logpath = logpath, .devpath = devpath, .snappath = snappath,
	};
	struct log log;
	int fd, ret = -1;

	if (!mkdtemp(dir)) {
		perror(prog);
		return 1;
	}
	snprintf(logpath, sizeof(logpath), "%s/log", dir);
	snprintf(devpath, sizeof(devpath), "%s/dev", dir);
	snprintf(snappath, sizeof(snappath), "%s/snap", dir);
	fd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || st_write_log(fd) || close(fd) ||
	    st_new_dev(devpath, NULL) || log_open(&log, logpath))
		goto out;
	/* check's walk, with the points' CMD done in here */
	fd = open_dev(devpath);
	if (fd < 0)
		goto out;
	ret = walk(&log, fd, devpath, log.nr_entries - 1, OPTIMISTIC,
		   st_point, &st);
	close(log.fd);
	if (close_dev(fd, devpath) || ret)
		goto out;
	ret = -1;
	if (st.point != ARRAY_SIZE(st_points)) {
		printf("FUA points seen: %zu, want %zu  WRONG\n", st.point,
		       ARRAY_SIZE(st_points));
		st.bad++;
	}
	if (st_state(devpath, got))
		goto out;
	st_expect(&st, "device after check (the whole log)", got,
		  st_points[ARRAY_SIZE(st_points) - 1].optimistic);
	ret = 0;
out:
	unlink(logpath);
	unlink(devpath);
	unlink(snappath);
	rmdir(dir);
	if (ret) {
		fprintf(stderr, "%s: selftest could not run\n", prog);
		return 1;
	}
	printf("selftest: %s\n", st.bad ? "FAILED" : "both models as expected");
	return st.bad ? 1 : 0;
}

static void print_usage(FILE *f)
{
	fprintf(f, "usage: %s list LOG\n"
		"       %s points LOG\n"
		"       %s find LOG MARK\n"
		"       %s replay [-m MODEL] LOG DEV FROM TO\n"
		"       %s check [-m MODEL] LOG DEV FROM CMD\n"
		"       %s selftest\n"
		"Reads a dm-log-writes log; replay writes entries FROM..TO (inclusive,\n"
		"counted from 0; FROM may be INDEX@SECTOR) onto DEV, discards as zeroes:\n"
		"the crash state right after TO under MODEL, optimistic (every entry,\n"
		"the default) or pessimistic (what a flush or FUA made durable only).\n"
		"check runs CMD at every FUA entry, per model (optimistic, pessimistic\n"
		"or both); the comment at the top of logreplay.c says the rest.\n",
		prog, prog, prog, prog, prog, prog);
}

int main(int argc, char **argv)
{
	enum model model = 0;
	struct log log;

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
			  !strcmp(argv[1], "help"))) {
		print_usage(stdout);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "selftest"))
		return cmd_selftest();
	if (argc < 3) {
		print_usage(stderr);
		return 2;
	}
	/* replay and check: -m MODEL after the command */
	if (argc >= 4 && !strcmp(argv[2], "-m")) {
		if ((strcmp(argv[1], "replay") && strcmp(argv[1], "check")) ||
		    parse_model(argv[3], &model))
			return 2;
		if (!strcmp(argv[1], "replay") && model == BOTH) {
			fprintf(stderr, "%s: replay makes one state: -m optimistic or pessimistic\n",
				prog);
			return 2;
		}
		argv[3] = argv[1];
		argv += 2;
		argc -= 2;
	}
	if (!strcmp(argv[1], "list") && argc == 3)
		return log_open(&log, argv[2]) ? 1 : cmd_list(&log);
	if (!strcmp(argv[1], "points") && argc == 3)
		return log_open(&log, argv[2]) ? 1 : cmd_points(&log);
	if (!strcmp(argv[1], "find") && argc == 4)
		return log_open(&log, argv[2]) ? 1 : cmd_find(&log, argv[3]);
	if (!strcmp(argv[1], "replay") && argc == 6)
		return log_open(&log, argv[2]) ? 1 :
			cmd_replay(&log, argv[3], argv[4], argv[5],
				   model ? model : OPTIMISTIC);
	if (!strcmp(argv[1], "check") && argc == 6)
		return log_open(&log, argv[2]) ? 1 :
			cmd_check(&log, argv[3], argv[4],
				  model ? model : OPTIMISTIC, argv[5]);
	print_usage(stderr);
	return 2;
}

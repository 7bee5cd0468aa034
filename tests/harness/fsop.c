// SPDX-License-Identifier: GPL-2.0
/*
 * fsop - file system operations for the ext4fc tests that busybox lacks.
 *
 * One binary, linked static (gcc -static -O2 -Wall) into build/bin/fsop
 * so it runs in the QEMU guest without libraries (and on the host).
 *
 * Each subcommand does one system call (or one loop of them) on its
 * arguments and reports the result by its exit status: 0 done, 1 the
 * operation failed (a message names the operation, the file and the
 * error), 2 bad usage.  Sizes and offsets are decimal, 0x hex, or carry a
 * K, M, G or T suffix (powers of 1024).
 *
 * The data pattern of pwrite/verify depends only on the seed and the
 * absolute file offset, so any range can be checked after a crash without
 * knowing how it was written.  cksum is FNV-1a (64 bit) of the contents,
 * the same on every run and every machine.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/xattr.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <linux/fsverity.h>
#include <linux/types.h>

#ifndef EXT4_IOC_SHUTDOWN
#define EXT4_IOC_SHUTDOWN		_IOR('X', 125, __u32)
#endif
#define EXT4_GOING_FLAGS_DEFAULT	0x0	/* going down */
#define EXT4_GOING_FLAGS_LOGFLUSH	0x1	/* flush log but not data */
#define EXT4_GOING_FLAGS_NOLOGFLUSH	0x2	/* flush neither log nor data */

#define BUF_SIZE	(1 << 20)
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define FNV64_OFFSET	0xcbf29ce484222325ULL
#define FNV64_PRIME	0x100000001b3ULL

static const char *prog = "fsop";

static int fail(const char *op, const char *path)
{
	fprintf(stderr, "%s: %s %s: %s\n", prog, op, path, strerror(errno));
	return 1;
}

static int bad_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", prog);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (run '%s help')\n", prog);
	return 2;
}

/* Parse a non-negative size; returns 0, or -1 when @s is not one. */
static int parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (*s == '-' || *s == '\0')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno)
		return -1;
	switch (*end) {
	case 'k': case 'K':
		shift = 10;
		break;
	case 'm': case 'M':
		shift = 20;
		break;
	case 'g': case 'G':
		shift = 30;
		break;
	case 't': case 'T':
		shift = 40;
		break;
	case '\0':
		break;
	default:
		return -1;
	}
	if (shift && *++end != '\0')
		return -1;
	if (shift && v > (UINT64_MAX >> shift))
		return -1;
	v <<= shift;
	if (v > INT64_MAX)
		return -1;
	*out = v;
	return 0;
}

static int get_size(const char *what, const char *s, uint64_t *out)
{
	if (parse_size(s, out) == 0)
		return 0;
	fprintf(stderr, "%s: bad %s '%s': want a number, e.g. 4096, 0x1000, 4K\n",
		prog, what, s);
	return 2;
}

/* splitmix64 finalizer: the pattern's 8 bytes at word @w of seed @seed. */
static uint64_t pattern_word(uint64_t seed, uint64_t w)
{
	uint64_t z = w ^ (seed * 0xd6e8feb86659fd93ULL);

	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void pattern_fill(unsigned char *buf, size_t len, uint64_t off,
			 uint64_t seed)
{
	uint64_t word = 0;
	size_t i;

	for (i = 0; i < len; i++, off++) {
		if (i == 0 || (off & 7) == 0)
			word = pattern_word(seed, off >> 3);
		buf[i] = word >> (8 * (off & 7));
	}
}

static unsigned char *get_buf(void)
{
	static unsigned char *buf;

	if (!buf)
		buf = malloc(BUF_SIZE);
	if (!buf) {
		perror(prog);
		exit(1);
	}
	return buf;
}

static int open_path(const char *op, const char *path, int flags, int *fd)
{
	*fd = open(path, flags, 0644);
	if (*fd < 0)
		return fail(op, path);
	return 0;
}

static int close_fd(const char *op, const char *path, int fd)
{
	if (close(fd))
		return fail(op, path);
	return 0;
}

static int cmd_shutdown(char **argv)
{
	const char *mode = argv[1] ? argv[1] : "default";
	__u32 flags;
	int fd, ret;

	if (!strcmp(mode, "default"))
		flags = EXT4_GOING_FLAGS_DEFAULT;
	else if (!strcmp(mode, "logflush"))
		flags = EXT4_GOING_FLAGS_LOGFLUSH;
	else if (!strcmp(mode, "nologflush"))
		flags = EXT4_GOING_FLAGS_NOLOGFLUSH;
	else
		return bad_usage("shutdown: unknown mode '%s' (default, logflush or nologflush)",
				 mode);
	ret = open_path("shutdown", argv[0], O_RDONLY, &fd);
	if (ret)
		return ret;
	if (ioctl(fd, EXT4_IOC_SHUTDOWN, &flags))
		return fail("shutdown", argv[0]);
	return close_fd("shutdown", argv[0], fd);
}

static int do_sync(const char *op, const char *path, int (*fn)(int))
{
	int fd, ret;

	ret = open_path(op, path, O_RDONLY, &fd);
	if (ret)
		return ret;
	if (fn(fd))
		return fail(op, path);
	return close_fd(op, path, fd);
}

static int cmd_fsync(char **argv)
{
	return do_sync("fsync", argv[0], fsync);
}

static int cmd_fdatasync(char **argv)
{
	return do_sync("fdatasync", argv[0], fdatasync);
}

static int cmd_syncfs(char **argv)
{
	return do_sync("syncfs", argv[0], syncfs);
}

/*
 * Writeback as the flusher does it (WB_SYNC_NONE: without WAIT_BEFORE,
 * sync_file_range() does not ask for data integrity), waited for: the
 * data is on the device, neither FUA nor flushed, the inode's metadata
 * not committed.
 */
static int bg_writeback(int fd)
{
	return sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE |
			       SYNC_FILE_RANGE_WAIT_AFTER);
}

static int cmd_writeback(char **argv)
{
	return do_sync("writeback", argv[0], bg_writeback);
}

static int cmd_pwrite(char **argv)
{
	uint64_t off, len, seed = 0;
	unsigned char *buf = get_buf();
	int fd, ret, flags = O_WRONLY | O_CREAT;

	ret = get_size("offset", argv[1], &off) ?:
	      get_size("length", argv[2], &len) ?:
	      (argv[3] ? get_size("seed", argv[3], &seed) : 0);
	if (ret)
		return ret;
	if (argv[3] && argv[4]) {
		if (!strcmp(argv[4], "sync"))
			flags |= O_SYNC;
		else if (!strcmp(argv[4], "dsync"))
			flags |= O_DSYNC;
		else
			return bad_usage("pwrite: unknown flag '%s' (sync or dsync)",
					 argv[4]);
	}
	ret = open_path("pwrite", argv[0], flags, &fd);
	if (ret)
		return ret;
	while (len) {
		size_t n = len < BUF_SIZE ? len : BUF_SIZE;
		ssize_t done;

		pattern_fill(buf, n, off, seed);
		done = pwrite(fd, buf, n, off);
		if (done < 0)
			return fail("pwrite", argv[0]);
		if (done == 0) {
			errno = EIO;
			return fail("pwrite", argv[0]);
		}
		off += done;
		len -= done;
	}
	return close_fd("pwrite", argv[0], fd);
}

/* N one-block extents: block 2i of FILE gets SEED's pattern, 2i+1 a hole. */
static int cmd_fragment(char **argv)
{
	uint64_t n, seed, i;
	unsigned char *buf = get_buf();
	int fd, ret;

	ret = get_size("count", argv[1], &n) ?:
	      get_size("seed", argv[2], &seed);
	if (ret)
		return ret;
	ret = open_path("fragment", argv[0], O_WRONLY | O_CREAT, &fd);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		uint64_t off = i * 2 * 4096;

		pattern_fill(buf, 4096, off, seed);
		if (pwrite(fd, buf, 4096, off) != 4096)
			return fail("fragment", argv[0]);
	}
	return close_fd("fragment", argv[0], fd);
}

static int cmd_verify(char **argv)
{
	uint64_t off, len, seed = 0;
	unsigned char *buf = get_buf();
	unsigned char want[64];
	int fd, ret;

	ret = get_size("offset", argv[1], &off) ?:
	      get_size("length", argv[2], &len) ?:
	      (argv[3] ? get_size("seed", argv[3], &seed) : 0);
	if (ret)
		return ret;
	ret = open_path("verify", argv[0], O_RDONLY, &fd);
	if (ret)
		return ret;
	while (len) {
		size_t n = len < BUF_SIZE ? len : BUF_SIZE;
		ssize_t got, i;

		got = pread(fd, buf, n, off);
		if (got < 0)
			return fail("verify", argv[0]);
		if (got == 0) {
			fprintf(stderr, "%s: verify %s: file ends at offset %" PRIu64
				", %" PRIu64 " bytes short\n",
				prog, argv[0], off, len);
			return 1;
		}
		for (i = 0; i < got; i += sizeof(want)) {
			size_t m = (size_t)(got - i) < sizeof(want) ?
				   (size_t)(got - i) : sizeof(want);
			size_t j;

			pattern_fill(want, m, off + i, seed);
			if (!memcmp(buf + i, want, m))
				continue;
			for (j = 0; buf[i + j] == want[j]; j++)
				;
			fprintf(stderr, "%s: verify %s: mismatch at offset %" PRIu64
				": 0x%02x, want 0x%02x (seed %" PRIu64 ")\n",
				prog, argv[0], off + i + j, buf[i + j], want[j],
				seed);
			return 1;
		}
		off += got;
		len -= got;
	}
	return close_fd("verify", argv[0], fd);
}

static int cmd_fallocate(char **argv)
{
	static const struct {
		const char *name;
		int mode;
	} modes[] = {
		{ "keep", FALLOC_FL_KEEP_SIZE },
		{ "nokeep", 0 },
		{ "punch", FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE },
		{ "zero", FALLOC_FL_ZERO_RANGE },
		{ "collapse", FALLOC_FL_COLLAPSE_RANGE },
		{ "insert", FALLOC_FL_INSERT_RANGE },
	};
	uint64_t off, len;
	size_t i;
	int fd, ret, flags = O_WRONLY;

	for (i = 0; i < ARRAY_SIZE(modes); i++)
		if (!strcmp(argv[1], modes[i].name))
			break;
	if (i == ARRAY_SIZE(modes))
		return bad_usage("fallocate: unknown mode '%s' (keep, nokeep, punch, zero, collapse, insert)",
				 argv[1]);
	ret = get_size("offset", argv[2], &off) ?:
	      get_size("length", argv[3], &len);
	if (ret)
		return ret;
	if (!(modes[i].mode & ~FALLOC_FL_KEEP_SIZE))
		flags |= O_CREAT;	/* plain allocation may create the file */
	ret = open_path("fallocate", argv[0], flags, &fd);
	if (ret)
		return ret;
	if (fallocate(fd, modes[i].mode, off, len))
		return fail("fallocate", argv[0]);
	return close_fd("fallocate", argv[0], fd);
}

static int cmd_truncate(char **argv)
{
	uint64_t size;
	int ret;

	ret = get_size("size", argv[1], &size);
	if (ret)
		return ret;
	if (truncate(argv[0], size))
		return fail("truncate", argv[0]);
	return 0;
}

static int cmd_rename_exchange(char **argv)
{
	if (renameat2(AT_FDCWD, argv[0], AT_FDCWD, argv[1], RENAME_EXCHANGE)) {
		fprintf(stderr, "%s: rename-exchange %s %s: %s\n",
			prog, argv[0], argv[1], strerror(errno));
		return 1;
	}
	return 0;
}

static const struct {
	const char *name;
	unsigned int flags;
} rename_flags[] = {
	{ "none", 0 },
	{ "noreplace", RENAME_NOREPLACE },
	{ "exchange", RENAME_EXCHANGE },
	{ "whiteout", RENAME_WHITEOUT },
};

static int cmd_rename(char **argv)
{
	unsigned int flags = 0;
	size_t i;

	if (argv[2]) {
		for (i = 0; i < ARRAY_SIZE(rename_flags); i++)
			if (!strcmp(argv[2], rename_flags[i].name))
				break;
		if (i == ARRAY_SIZE(rename_flags))
			return bad_usage("rename: unknown flag '%s' (none, noreplace, exchange, whiteout)",
					 argv[2]);
		flags = rename_flags[i].flags;
	}
	if (renameat2(AT_FDCWD, argv[0], AT_FDCWD, argv[1], flags)) {
		fprintf(stderr, "%s: rename %s %s: %s\n",
			prog, argv[0], argv[1], strerror(errno));
		return 1;
	}
	return 0;
}

static int cmd_mkdir(char **argv)
{
	if (mkdir(argv[0], 0755))
		return fail("mkdir", argv[0]);
	return 0;
}

/* mkdirs: DIR/d1..dN, in one process (65,000 of them take a minute). */
static int cmd_mkdirs(char **argv)
{
	char path[4096];
	uint64_t n, i;
	int ret;

	ret = get_size("count", argv[1], &n);
	if (ret)
		return ret;
	for (i = 1; i <= n; i++) {
		snprintf(path, sizeof(path), "%s/d%" PRIu64, argv[0], i);
		if (mkdir(path, 0755))
			return fail("mkdirs", path);
	}
	return 0;
}

static int cmd_creat(char **argv)
{
	int fd, ret;

	ret = open_path("creat", argv[0], O_WRONLY | O_CREAT, &fd);
	if (ret)
		return ret;
	return close_fd("creat", argv[0], fd);
}

static int cmd_chmod(char **argv)
{
	unsigned long mode;
	char *end;

	mode = strtoul(argv[1], &end, 8);
	if (*end || end == argv[1] || mode > 07777)
		return bad_usage("chmod: bad mode '%s' (octal)", argv[1]);
	if (chmod(argv[0], mode))
		return fail("chmod", argv[0]);
	return 0;
}

/*
 * sparse-copy SRC DST: copy SRC onto DST (a device or file of at least
 * SRC's size that reads as zeroes), writing only the 4 KiB blocks of SRC
 * that are not all zero.  The crash tests lay a template file system on
 * a fresh region this way: faster than a mkfs under TCG.
 */
static int cmd_sparse_copy(char **argv)
{
	unsigned char *buf = get_buf();
	int in, out, ret;
	off_t off = 0;
	ssize_t n, i, j;

	ret = open_path("sparse-copy", argv[0], O_RDONLY, &in);
	if (ret)
		return ret;
	out = open(argv[1], O_WRONLY);
	if (out < 0)
		return fail("sparse-copy", argv[1]);
	while ((n = read(in, buf, BUF_SIZE)) > 0) {
		for (i = 0; i < n; i += 4096) {
			ssize_t len = n - i < 4096 ? n - i : 4096;

			for (j = 0; j < len && !buf[i + j]; j++)
				;
			if (j == len)
				continue;
			if (pwrite(out, buf + i, len, off + i) != len)
				return fail("sparse-copy", argv[1]);
		}
		off += n;
	}
	if (n < 0)
		return fail("sparse-copy", argv[0]);
	if (fsync(out))
		return fail("sparse-copy", argv[1]);
	close(in);
	return close_fd("sparse-copy", argv[1], out);
}

static int cmd_link(char **argv)
{
	if (link(argv[0], argv[1])) {
		fprintf(stderr, "%s: link %s %s: %s\n",
			prog, argv[0], argv[1], strerror(errno));
		return 1;
	}
	return 0;
}

/* "S.NSEC" (nanoseconds optional), "now" or "omit" into @ts. */
static int parse_time(const char *s, struct timespec *ts)
{
	unsigned long long sec, nsec = 0;
	char *end;

	if (!strcmp(s, "now")) {
		ts->tv_sec = 0;
		ts->tv_nsec = UTIME_NOW;
		return 0;
	}
	if (!strcmp(s, "omit")) {
		ts->tv_sec = 0;
		ts->tv_nsec = UTIME_OMIT;
		return 0;
	}
	errno = 0;
	sec = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	if (*end == '.') {
		const char *p = end + 1;
		int digits = 0;

		nsec = strtoull(p, &end, 10);
		digits = end - p;
		if (digits < 1 || digits > 9)
			return -1;
		while (digits++ < 9)
			nsec *= 10;
	}
	if (*end != '\0')
		return -1;
	ts->tv_sec = sec;
	ts->tv_nsec = nsec;
	return 0;
}

static int cmd_utimes(char **argv)
{
	struct timespec ts[2];

	if (parse_time(argv[1], &ts[0]))
		return bad_usage("utimes: bad atime '%s' (S.NSEC, now or omit)",
				 argv[1]);
	if (parse_time(argv[2], &ts[1]))
		return bad_usage("utimes: bad mtime '%s' (S.NSEC, now or omit)",
				 argv[2]);
	if (utimensat(AT_FDCWD, argv[0], ts, AT_SYMLINK_NOFOLLOW))
		return fail("utimes", argv[0]);
	return 0;
}

static int cmd_chown(char **argv)
{
	uint64_t uid, gid;
	int ret;

	ret = get_size("uid", argv[1], &uid) ?: get_size("gid", argv[2], &gid);
	if (ret)
		return ret;
	if (lchown(argv[0], uid, gid))
		return fail("chown", argv[0]);
	return 0;
}

/* FNV-1a 64 of @fd's contents; returns -1 on a read error. */
static int hash_fd(int fd, uint64_t *hash)
{
	unsigned char *buf = get_buf();
	ssize_t n, i;

	*hash = FNV64_OFFSET;
	while ((n = read(fd, buf, BUF_SIZE)) > 0)
		for (i = 0; i < n; i++)
			*hash = (*hash ^ buf[i]) * FNV64_PRIME;
	return n < 0 ? -1 : 0;
}

/* " xattr=NAME:HEXVALUE,..." sorted by name, or " xattr=-". */
static int print_xattrs(const char *path)
{
	static char names[65536], value[65536];
	const char *sorted[256];
	ssize_t n, v, i;
	int nr = 0, a, b, j;

	n = llistxattr(path, names, sizeof(names));
	if (n < 0)
		return -1;
	for (i = 0; i < n && nr < (int)ARRAY_SIZE(sorted); i += strlen(names + i) + 1)
		sorted[nr++] = names + i;
	for (a = 1; a < nr; a++)
		for (b = a; b > 0 && strcmp(sorted[b - 1], sorted[b]) > 0; b--) {
			const char *t = sorted[b];

			sorted[b] = sorted[b - 1];
			sorted[b - 1] = t;
		}
	printf(" xattr=");
	if (!nr)
		putchar('-');
	for (a = 0; a < nr; a++) {
		v = lgetxattr(path, sorted[a], value, sizeof(value));
		if (v < 0)
			return -1;
		printf("%s%s:", a ? "," : "", sorted[a]);
		for (j = 0; j < v; j++)
			printf("%02x", (unsigned char)value[j]);
		if (!v)
			putchar('-');
	}
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/* " entries=NAME:T,..." (T: f d l o) sorted, without . and .., or "-". */
static int print_entries(const char *path)
{
	char **names = NULL;
	struct dirent *de;
	size_t nr = 0, i;
	DIR *d;

	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char t = de->d_type == DT_REG ? 'f' : de->d_type == DT_DIR ? 'd' :
			 de->d_type == DT_LNK ? 'l' : 'o';
		char **more;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		more = realloc(names, (nr + 1) * sizeof(*names));
		if (!more)
			return -1;
		names = more;
		if (asprintf(&names[nr], "%s:%c", de->d_name, t) < 0)
			return -1;
		nr++;
	}
	closedir(d);
	qsort(names, nr, sizeof(*names), name_cmp);
	printf(" entries=");
	if (!nr)
		putchar('-');
	for (i = 0; i < nr; i++) {
		printf("%s%s", i ? "," : "", names[i]);
		free(names[i]);
	}
	free(names);
	return 0;
}

/* FNV-1a 64 of a symlink's target; -1 on error. */
static int hash_link(const char *path, uint64_t *hash)
{
	char *buf = (char *)get_buf();
	ssize_t n, i;

	n = readlink(path, buf, BUF_SIZE);
	if (n < 0)
		return -1;
	*hash = FNV64_OFFSET;
	for (i = 0; i < n; i++)
		*hash = (*hash ^ (unsigned char)buf[i]) * FNV64_PRIME;
	return 0;
}

/*
 * One manifest line for @path: "PATH missing", or
 * "PATH f ino= size= mode= nlink= uid= gid= mtime= ctime= data= xattr=" for
 * a regular file, "PATH d ino= mode= nlink= uid= gid= entries= xattr=" for a
 * directory, "PATH l ..." for a symlink (the fields of a file, data the
 * hash of its target), "PATH o ..." for anything else (data=rdev:MAJ:MIN).
 * No atime: reading changes it.
 */
static int state_one(const char *path)
{
	struct stat st;
	uint64_t hash;
	int fd;

	if (lstat(path, &st)) {
		if (errno != ENOENT)
			return fail("state", path);
		printf("%s missing\n", path);
		return 0;
	}
	if (S_ISREG(st.st_mode)) {
		fd = open(path, O_RDONLY | O_NOATIME);
		if (fd < 0)
			fd = open(path, O_RDONLY);
		if (fd < 0 || hash_fd(fd, &hash))
			return fail("state", path);
		close(fd);
		printf("%s f ino=%llu size=%lld mode=%o nlink=%lu uid=%u gid=%u mtime=%lld.%09ld ctime=%lld.%09ld data=%016" PRIx64,
		       path, (unsigned long long)st.st_ino,
		       (long long)st.st_size, st.st_mode,
		       (unsigned long)st.st_nlink, st.st_uid, st.st_gid,
		       (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
		       (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec, hash);
	} else if (S_ISDIR(st.st_mode)) {
		printf("%s d ino=%llu mode=%o nlink=%lu uid=%u gid=%u", path,
		       (unsigned long long)st.st_ino, st.st_mode,
		       (unsigned long)st.st_nlink, st.st_uid, st.st_gid);
		if (print_entries(path))
			return fail("state", path);
	} else if (S_ISLNK(st.st_mode)) {
		if (hash_link(path, &hash))
			return fail("state", path);
		printf("%s l ino=%llu size=%lld mode=%o nlink=%lu uid=%u gid=%u mtime=%lld.%09ld ctime=%lld.%09ld data=%016" PRIx64,
		       path, (unsigned long long)st.st_ino,
		       (long long)st.st_size, st.st_mode,
		       (unsigned long)st.st_nlink, st.st_uid, st.st_gid,
		       (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
		       (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec, hash);
	} else {
		/* a device node, fifo or socket: its data is its device number */
		printf("%s o ino=%llu size=%lld mode=%o nlink=%lu uid=%u gid=%u mtime=%lld.%09ld ctime=%lld.%09ld data=rdev:%u:%u",
		       path, (unsigned long long)st.st_ino,
		       (long long)st.st_size, st.st_mode,
		       (unsigned long)st.st_nlink, st.st_uid, st.st_gid,
		       (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
		       (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec,
		       major(st.st_rdev), minor(st.st_rdev));
	}
	if (print_xattrs(path))
		return fail("state", path);
	putchar('\n');
	return 0;
}

static int cmd_state(char **argv)
{
	int ret = 0;

	for (; *argv; argv++)
		ret |= state_one(*argv);
	return ret;
}

static int cmd_symlink(char **argv)
{
	if (symlink(argv[0], argv[1])) {
		fprintf(stderr, "%s: symlink %s %s: %s\n",
			prog, argv[0], argv[1], strerror(errno));
		return 1;
	}
	return 0;
}

static int cmd_mknod(char **argv)
{
	uint64_t maj = 0, min = 0;
	mode_t type;
	int ret;

	if (!strcmp(argv[1], "fifo"))
		type = S_IFIFO;
	else if (!strcmp(argv[1], "chr"))
		type = S_IFCHR;
	else if (!strcmp(argv[1], "blk"))
		type = S_IFBLK;
	else
		return bad_usage("mknod: unknown type '%s' (fifo, chr or blk)",
				 argv[1]);
	if (type != S_IFIFO) {
		if (!argv[2] || !argv[3])
			return bad_usage("mknod: %s needs MAJOR MINOR", argv[1]);
		ret = get_size("major", argv[2], &maj) ?:
		      get_size("minor", argv[3], &min);
		if (ret)
			return ret;
	}
	if (mknod(argv[0], type | 0644, makedev(maj, min)))
		return fail("mknod", argv[0]);
	return 0;
}

/*
 * tmpfile DIR NAME LEN SEED [fsync] [syncfs]: an O_TMPFILE file in DIR, LEN
 * bytes of the pwrite pattern of SEED written to it (fsync'd while it has no
 * name, and then a full commit of the file system with it on the orphan list,
 * if asked), then given NAME with linkat(AT_EMPTY_PATH).
 */
static int cmd_tmpfile(char **argv)
{
	unsigned char *buf = get_buf();
	uint64_t len, seed, off = 0;
	bool do_fsync = false, do_syncfs = false;
	int fd, ret, i;

	ret = get_size("length", argv[2], &len) ?:
	      get_size("seed", argv[3], &seed);
	if (ret)
		return ret;
	for (i = 4; argv[i]; i++) {
		if (!strcmp(argv[i], "fsync"))
			do_fsync = true;
		else if (!strcmp(argv[i], "syncfs"))
			do_syncfs = true;
		else
			return bad_usage("tmpfile: unknown flag '%s' (fsync, syncfs)",
					 argv[i]);
	}
	fd = open(argv[0], O_TMPFILE | O_RDWR, 0644);
	if (fd < 0)
		return fail("tmpfile: open O_TMPFILE in", argv[0]);
	while (off < len) {
		size_t n = len - off < BUF_SIZE ? len - off : BUF_SIZE;
		ssize_t done;

		pattern_fill(buf, n, off, seed);
		done = pwrite(fd, buf, n, off);
		if (done <= 0) {
			if (!done)
				errno = EIO;
			return fail("tmpfile: pwrite in", argv[0]);
		}
		off += done;
	}
	if (do_fsync && fsync(fd))
		return fail("tmpfile: fsync (no name yet) in", argv[0]);
	if (do_syncfs && syncfs(fd))
		return fail("tmpfile: syncfs (no name yet) in", argv[0]);
	if (linkat(fd, "", AT_FDCWD, argv[1], AT_EMPTY_PATH))
		return fail("tmpfile: linkat to", argv[1]);
	return close_fd("tmpfile", argv[1], fd);
}

/*
 * fill FILE: allocate (fallocate, size growing) until the file system has
 * no block left: chunks of 1 MiB, then halving down to one block; after a
 * syncfs (delayed allocation's reservations go back to the free count
 * once written) again, until a round gains nothing.  Prints the bytes
 * allocated.
 */
static int cmd_fill(char **argv)
{
	uint64_t size, chunk, total = 0, round;
	struct stat st;
	int fd;

	fd = open(argv[0], O_WRONLY | O_CREAT, 0644);
	if (fd < 0)
		return fail("fill", argv[0]);
	if (fstat(fd, &st))
		return fail("fill", argv[0]);
	size = st.st_size;
	do {
		if (syncfs(fd))
			return fail("fill: syncfs", argv[0]);
		round = 0;
		for (chunk = 1 << 20; chunk >= (uint64_t)st.st_blksize;) {
			if (!fallocate(fd, 0, size, chunk)) {
				size += chunk;
				round += chunk;
				continue;
			}
			if (errno != ENOSPC)
				return fail("fill: fallocate", argv[0]);
			chunk /= 2;
		}
		total += round;
	} while (round);
	printf("%" PRIu64 "\n", total);
	return close_fd("fill", argv[0], fd);
}

/*
 * burst DIR N: files DIR/s1 .. DIR/sN, each created, written (i * 100
 * bytes of the pattern of seed i) and fsync'd in turn, in this one
 * process, so that fsyncs of several bursts run at once race each
 * other's commits; prints each file's state line after its fsync.
 */
static int cmd_burst(char **argv)
{
	unsigned char *buf = get_buf();
	char path[4096];
	uint64_t n, i;
	int fd, ret;

	ret = get_size("count", argv[1], &n);
	if (ret)
		return ret;
	for (i = 1; i <= n; i++) {
		size_t len = i * 100 < BUF_SIZE ? i * 100 : BUF_SIZE;

		snprintf(path, sizeof(path), "%s/s%" PRIu64, argv[0], i);
		ret = open_path("burst", path, O_WRONLY | O_CREAT, &fd);
		if (ret)
			return ret;
		pattern_fill(buf, len, 0, i);
		if (pwrite(fd, buf, len, 0) != (ssize_t)len)
			return fail("burst: pwrite", path);
		if (fsync(fd))
			return fail("burst: fsync", path);
		ret = close_fd("burst", path, fd);
		if (ret)
			return ret;
		ret = state_one(path);
		fflush(stdout);
		if (ret)
			return ret;
	}
	return 0;
}

static int cmd_setxattr(char **argv)
{
	const char *value = argv[2] ? argv[2] : "";

	if (setxattr(argv[0], argv[1], value, strlen(value), 0))
		return fail("setxattr", argv[0]);
	return 0;
}

static int cmd_removexattr(char **argv)
{
	if (removexattr(argv[0], argv[1]))
		return fail("removexattr", argv[0]);
	return 0;
}

static int cmd_getxattr(char **argv)
{
	char *buf = (char *)get_buf();
	ssize_t n;

	n = getxattr(argv[0], argv[1], buf, BUF_SIZE);
	if (n < 0)
		return fail("getxattr", argv[0]);
	fwrite(buf, 1, n, stdout);
	putchar('\n');
	return 0;
}

static int cmd_listxattr(char **argv)
{
	char *buf = (char *)get_buf();
	ssize_t n, i;

	n = llistxattr(argv[0], buf, BUF_SIZE);
	if (n < 0)
		return fail("listxattr", argv[0]);
	for (i = 0; i < n; i += strlen(buf + i) + 1)
		puts(buf + i);
	return 0;
}

static int get_flags(const char *op, const char *path, int *fd, int *flags)
{
	int ret;

	ret = open_path(op, path, O_RDONLY | O_NONBLOCK, fd);
	if (ret)
		return ret;
	if (ioctl(*fd, FS_IOC_GETFLAGS, flags))
		return fail(op, path);
	return 0;
}

static int cmd_setflags(char **argv)
{
	int fd, flags, ret;

	if (strcmp(argv[1], "+j") && strcmp(argv[1], "-j"))
		return bad_usage("setflags: unknown change '%s' (+j or -j)",
				 argv[1]);
	ret = get_flags("setflags", argv[0], &fd, &flags);
	if (ret)
		return ret;
	if (argv[1][0] == '+')
		flags |= FS_JOURNAL_DATA_FL;
	else
		flags &= ~FS_JOURNAL_DATA_FL;
	if (ioctl(fd, FS_IOC_SETFLAGS, &flags))
		return fail("setflags", argv[0]);
	return close_fd("setflags", argv[0], fd);
}

static int cmd_getflags(char **argv)
{
	int fd, flags, ret;

	ret = get_flags("getflags", argv[0], &fd, &flags);
	if (ret)
		return ret;
	printf("0x%08x\n", flags);
	return close_fd("getflags", argv[0], fd);
}

/*
 * verity: fs-verity on FILE (sha256, 4 KiB blocks): the kernel writes the
 * Merkle tree and its descriptor past i_size, then sets the inode flag.
 * FILE must have no writer open.
 */
static int cmd_verity(char **argv)
{
	struct fsverity_enable_arg arg = {
		.version = 1,
		.hash_algorithm = FS_VERITY_HASH_ALG_SHA256,
		.block_size = 4096,
	};
	int fd, ret;

	ret = open_path("verity", argv[0], O_RDONLY, &fd);
	if (ret)
		return ret;
	if (ioctl(fd, FS_IOC_ENABLE_VERITY, &arg))
		return fail("verity (FS_IOC_ENABLE_VERITY)", argv[0]);
	return close_fd("verity", argv[0], fd);
}

static int cmd_stat(char **argv)
{
	struct stat st;

	if (lstat(argv[0], &st))
		return fail("stat", argv[0]);
	printf("%lld %o %lu %u %u %lld.%09ld %lld.%09ld %lld.%09ld\n",
	       (long long)st.st_size, st.st_mode, (unsigned long)st.st_nlink,
	       st.st_uid, st.st_gid,
	       (long long)st.st_atim.tv_sec, st.st_atim.tv_nsec,
	       (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
	       (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
	return 0;
}

static int cmd_cksum(char **argv)
{
	unsigned char *buf = get_buf();
	uint64_t hash = FNV64_OFFSET, size = 0;
	ssize_t n, i;
	int fd, ret;

	ret = open_path("cksum", argv[0], O_RDONLY, &fd);
	if (ret)
		return ret;
	while ((n = read(fd, buf, BUF_SIZE)) > 0) {
		for (i = 0; i < n; i++)
			hash = (hash ^ buf[i]) * FNV64_PRIME;
		size += n;
	}
	if (n < 0)
		return fail("cksum", argv[0]);
	printf("%016" PRIx64 " %" PRIu64 "\n", hash, size);
	return close_fd("cksum", argv[0], fd);
}

static const struct command {
	const char *name;
	int min_args;
	int max_args;
	const char *args;
	const char *help;
	int (*fn)(char **argv);	/* argv[n] is NULL past the last */
} commands[] = {
	{ "shutdown", 1, 2, "PATH [default|logflush|nologflush]",
	  "EXT4_IOC_SHUTDOWN the file system of PATH (mode default: default)",
	  cmd_shutdown },
	{ "fsync", 1, 1, "FILE", "fsync(2) FILE (or directory)", cmd_fsync },
	{ "fdatasync", 1, 1, "FILE", "fdatasync(2) FILE", cmd_fdatasync },
	{ "writeback", 1, 1, "FILE",
	  "sync_file_range(2) WRITE|WAIT_AFTER: the flusher's writeback, waited for",
	  cmd_writeback },
	{ "syncfs", 1, 1, "PATH", "syncfs(2) the file system of PATH",
	  cmd_syncfs },
	{ "pwrite", 3, 5, "FILE OFFSET LEN [SEED [sync|dsync]]",
	  "write the pattern of SEED (default 0) at OFFSET; creates, never truncates; opened O_SYNC or O_DSYNC if asked",
	  cmd_pwrite },
	{ "verify", 3, 4, "FILE OFFSET LEN [SEED]",
	  "check that FILE holds the pwrite pattern of SEED there", cmd_verify },
	{ "fallocate", 4, 4, "FILE MODE OFFSET LEN",
	  "fallocate(2); MODE: keep nokeep punch zero collapse insert",
	  cmd_fallocate },
	{ "fragment", 3, 3, "FILE N SEED",
	  "N one-block extents: 4 KiB of SEED's pattern at every other 4 KiB block",
	  cmd_fragment },
	{ "truncate", 2, 2, "FILE SIZE", "truncate(2)", cmd_truncate },
	{ "rename-exchange", 2, 2, "A B", "renameat2(2) RENAME_EXCHANGE",
	  cmd_rename_exchange },
	{ "rename", 2, 3, "A B [none|noreplace|exchange|whiteout]",
	  "renameat2(2) with the flag", cmd_rename },
	{ "link", 2, 2, "A B", "link(2)", cmd_link },
	{ "mkdir", 1, 1, "DIR", "mkdir(2), mode 0755", cmd_mkdir },
	{ "mkdirs", 2, 2, "DIR N", "DIR/d1..dN, mkdir(2) each", cmd_mkdirs },
	{ "creat", 1, 1, "FILE", "create FILE (O_CREAT, not truncated)",
	  cmd_creat },
	{ "chmod", 2, 2, "PATH MODE", "chmod(2), MODE octal", cmd_chmod },
	{ "sparse-copy", 2, 2, "SRC DST",
	  "copy SRC onto DST (which reads as zeroes) writing only its non-zero 4 KiB blocks",
	  cmd_sparse_copy },
	{ "utimes", 3, 3, "FILE ATIME MTIME",
	  "utimensat(2); times S.NSEC, now or omit", cmd_utimes },
	{ "chown", 3, 3, "FILE UID GID", "lchown(2)", cmd_chown },
	{ "burst", 2, 2, "DIR N",
	  "DIR/s1..sN: each created, written (i*100 bytes of seed i) and fsync'd in turn; prints each one's state after its fsync",
	  cmd_burst },
	{ "symlink", 2, 2, "TARGET NAME", "symlink(2)", cmd_symlink },
	{ "mknod", 2, 4, "NAME fifo|chr|blk [MAJOR MINOR]",
	  "mknod(2), mode 0644", cmd_mknod },
	{ "tmpfile", 4, 6, "DIR NAME LEN SEED [fsync] [syncfs]",
	  "O_TMPFILE in DIR, LEN bytes of SEED's pattern (fsync'd, syncfs'd nameless if asked), then linkat(2) to NAME",
	  cmd_tmpfile },
	{ "fill", 1, 1, "FILE",
	  "fallocate FILE larger until the file system is full (ENOSPC at one block); prints the bytes",
	  cmd_fill },
	{ "state", 1, 4096, "PATH...",
	  "one manifest line per PATH: type (f d l o), ino, size, mode, nlink, uid, gid, mtime, ctime, data hash (symlink: of its target; device: rdev), xattrs (dirs: entries); or PATH missing",
	  cmd_state },
	{ "setxattr", 2, 3, "FILE NAME [VALUE]",
	  "setxattr(2) NAME (e.g. user.x) to VALUE (default empty)",
	  cmd_setxattr },
	{ "removexattr", 2, 2, "FILE NAME", "removexattr(2)", cmd_removexattr },
	{ "getxattr", 2, 2, "FILE NAME", "print the value of NAME",
	  cmd_getxattr },
	{ "listxattr", 1, 1, "FILE", "print the xattr names, one a line",
	  cmd_listxattr },
	{ "setflags", 2, 2, "FILE +j|-j",
	  "set or clear FS_JOURNAL_DATA_FL (FS_IOC_SETFLAGS)", cmd_setflags },
	{ "getflags", 1, 1, "FILE", "print FS_IOC_GETFLAGS in hex",
	  cmd_getflags },
	{ "verity", 1, 1, "FILE",
	  "enable fs-verity (FS_IOC_ENABLE_VERITY, sha256, 4 KiB blocks)",
	  cmd_verity },
	{ "stat", 1, 1, "FILE",
	  "lstat: size mode(octal) nlink uid gid atime mtime ctime (s.ns)",
	  cmd_stat },
	{ "cksum", 1, 1, "FILE",
	  "FNV-1a 64 of the contents (hex) and the byte count", cmd_cksum },
};

#define NR_COMMANDS	ARRAY_SIZE(commands)

static void print_help(FILE *f)
{
	size_t i;

	fprintf(f, "usage: %s COMMAND ARGS...\n\n", prog);
	for (i = 0; i < NR_COMMANDS; i++)
		fprintf(f, "  %s %s\n      %s\n", commands[i].name,
			commands[i].args, commands[i].help);
	fprintf(f, "  batch\n      run commands from stdin, one a line, in one process; stop at the first failure\n");
	fprintf(f, "\nSizes: 4096, 0x1000, 4K, 1M, 1G.  Exit status: 0 done, 1 the operation failed, 2 bad usage.\n");
}

/* Run the command argv[0] with its @argc - 1 arguments. */
static int run(int argc, char **argv)
{
	const struct command *c;
	size_t i;
	int n;

	for (i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(argv[0], commands[i].name))
			break;
	if (i == NR_COMMANDS)
		return bad_usage("unknown command '%s'", argv[0]);
	c = &commands[i];
	n = argc - 1;
	if (n < c->min_args || n > c->max_args) {
		fprintf(stderr, "usage: %s %s %s\n", prog, c->name, c->args);
		return 2;
	}
	return c->fn(argv + 1);
}

/*
 * batch: one command a line from stdin (words split at blanks, no
 * quoting), in this one process: a static binary still costs a few tens
 * of milliseconds to start under TCG.  Stops at the first that fails.
 */
static int run_batch(void)
{
	char line[8192], *words[64], *tok, *save;
	int n, ret;

	while (fgets(line, sizeof(line), stdin)) {
		n = 0;
		for (tok = strtok_r(line, " \t\n", &save);
		     tok && n < (int)ARRAY_SIZE(words) - 1;
		     tok = strtok_r(NULL, " \t\n", &save))
			words[n++] = tok;
		if (!n || words[0][0] == '#')
			continue;
		words[n] = NULL;
		ret = run(n, words);
		fflush(stdout);
		if (ret)
			return ret;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		print_help(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "--help")) {
		print_help(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "batch") && argc == 2)
		return run_batch();
	return run(argc - 1, argv + 1);
}

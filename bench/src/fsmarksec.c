// SPDX-License-Identifier: GPL-2.0
/*
 * fsmarksec - fs_mark's create + write + fsync loop as it runs on a system
 * with SELinux labels and default ACLs, for the ext4fc benchmarks (bench/,
 * issue 15).
 *
 * "fsmarksec -d DIR -p" prepares DIR: creates it if missing and gives it a
 * default ACL with a named user (system.posix_acl_default), so that every
 * file created in it inherits an extended access ACL
 * (system.posix_acl_access: ext4 stores 28 bytes in its compact format).
 *
 * A run starts THREADS threads; each creates NFILES files in DIR
 * (DIR/t<thread>.<n>, O_EXCL), and for each writes SIZE bytes, sets
 * security.selinux to LABEL with fsetxattr() (as the SELinux policy
 * would at create time; the default label is 32 characters, 33 bytes
 * with its NUL, the size of a real one), fsyncs and closes it.  After
 * the run it checks that a file holds both xattrs.
 *
 * The result is one line of key=value pairs: files, fsyncs, seconds,
 * files per second and the fsync latency p50, p99 and max in
 * microseconds.
 *
 * Linked static (gcc -static -O2 -pthread) into build/bin/fsmarksec.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/xattr.h>

#include "pctl.h"
#include "util.h"

#define MAX_THREADS	256
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define DEF_LABEL	"system_u:object_r:unlabeled_t:s0"

static const char *prog = "fsmarksec";

struct options {
	const char *dir;
	const char *label;
	unsigned int threads;
	unsigned long nfiles;		/* per thread */
	unsigned long size;
};

struct worker {
	unsigned int id;
	const struct options *opt;
	unsigned long done;
	uint64_t *lat_ns;		/* one per fsync */
	char *buf;
	int err;			/* errno of the failure */
	const char *what;		/* what failed */
	char path[4096];		/* the file it failed on */
};

static void file_name(char *p, size_t len, const char *dir, unsigned int t,
		      unsigned long n)
{
	snprintf(p, len, "%s/t%u.%lu", dir, t, n);
}

static void *worker_fail(struct worker *w, const char *what)
{
	w->err = errno ? errno : EIO;
	w->what = what;
	return NULL;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	const struct options *o = w->opt;
	size_t llen = strlen(o->label) + 1;
	uint64_t t0;
	unsigned long i;
	ssize_t r;
	int fd;

	for (i = 0; i < o->nfiles; i++) {
		file_name(w->path, sizeof(w->path), o->dir, w->id, i);
		fd = open(w->path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0)
			return worker_fail(w, "create");
		r = write(fd, w->buf, o->size);
		if (r < 0 || (unsigned long)r != o->size)
			return worker_fail(w, "write");
		if (fsetxattr(fd, "security.selinux", o->label, llen, 0))
			return worker_fail(w, "fsetxattr security.selinux");
		t0 = now_ns();
		if (fsync(fd))
			return worker_fail(w, "fsync");
		w->lat_ns[w->done++] = now_ns() - t0;
		if (close(fd))
			return worker_fail(w, "close");
	}
	return NULL;
}

/* little-endian, as the kernel's posix_acl_xattr_* structures */
static void put_le16(unsigned char *p, unsigned int v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
}

static void put_le32(unsigned char *p, uint32_t v)
{
	put_le16(p, v & 0xffff);
	put_le16(p + 2, v >> 16);
}

/*
 * DIR's default ACL: user::rwx user:1000:rw- group::r-x mask::rwx
 * other::r-x, in the xattr format of <linux/posix_acl_xattr.h> (version
 * 2, then tag, perm and id per entry, ordered by tag).  The named user
 * makes the inherited access ACL an extended one, which ext4 must store.
 */
static int prepare(const struct options *o)
{
	static const struct { unsigned int tag, perm; uint32_t id; } e[] = {
		{ 0x01, 7, 0xffffffff },	/* ACL_USER_OBJ */
		{ 0x02, 6, 1000 },		/* ACL_USER */
		{ 0x04, 5, 0xffffffff },	/* ACL_GROUP_OBJ */
		{ 0x10, 7, 0xffffffff },	/* ACL_MASK */
		{ 0x20, 5, 0xffffffff },	/* ACL_OTHER */
	};
	unsigned char v[4 + ARRAY_SIZE(e) * 8];
	size_t i;

	if (mkdir(o->dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "%s: mkdir %s: %s\n", prog, o->dir, strerror(errno));
		return 1;
	}
	put_le32(v, 2);				/* POSIX_ACL_XATTR_VERSION */
	for (i = 0; i < ARRAY_SIZE(e); i++) {
		put_le16(v + 4 + i * 8, e[i].tag);
		put_le16(v + 6 + i * 8, e[i].perm);
		put_le32(v + 8 + i * 8, e[i].id);
	}
	if (setxattr(o->dir, "system.posix_acl_default", v, sizeof(v), 0)) {
		fprintf(stderr, "%s: setxattr system.posix_acl_default on %s: %s (is the file system mounted with ACLs? ext4's default is 'acl')\n",
			prog, o->dir, strerror(errno));
		return 1;
	}
	return 0;
}

/* After the run: the first file has its inherited ACL and its label. */
static int check_file(const struct options *o)
{
	char path[4096], val[256];
	ssize_t n;

	file_name(path, sizeof(path), o->dir, 0, 0);
	n = getxattr(path, "system.posix_acl_access", val, sizeof(val));
	if (n <= 0) {
		fprintf(stderr, "%s: %s has no system.posix_acl_access (%s): did DIR get its default ACL ('%s -d DIR -p' first)?\n",
			prog, path, n < 0 ? strerror(errno) : "empty", prog);
		return 1;
	}
	n = getxattr(path, "security.selinux", val, sizeof(val));
	if (n != (ssize_t)strlen(o->label) + 1 || memcmp(val, o->label, n)) {
		fprintf(stderr, "%s: %s: security.selinux does not read back as set (%s)\n",
			prog, path, n < 0 ? strerror(errno) : "different value");
		return 1;
	}
	return 0;
}

static int run(const struct options *o)
{
	struct worker *ws;
	uint64_t *all, t0;
	unsigned long i, n = 0;
	double secs;
	int err = 0;

	ws = calloc(o->threads, sizeof(*ws));
	/* one array, a slice per thread: all of it once every file is done */
	all = calloc((size_t)o->threads * o->nfiles + 1, sizeof(uint64_t));
	if (!ws || !all) {
		perror(prog);
		return 1;
	}
	for (i = 0; i < o->threads; i++) {
		ws[i].id = i;
		ws[i].opt = o;
		ws[i].lat_ns = all + i * o->nfiles;
		ws[i].buf = malloc(o->size + 1);
		if (!ws[i].buf) {
			perror(prog);
			return 1;
		}
		memset(ws[i].buf, 'x', o->size + 1);
	}
	t0 = now_ns();
	if (run_workers(ws, sizeof(*ws), o->threads, worker_main, prog))
		return 1;
	for (i = 0; i < o->threads; i++) {
		n += ws[i].done;
		if (ws[i].what) {
			fprintf(stderr, "%s: %s %s: %s\n", prog, ws[i].what,
				ws[i].path, strerror(ws[i].err));
			err = 1;
		}
	}
	secs = (now_ns() - t0) / 1e9;
	if (err)
		return 1;
	if (check_file(o))
		return 1;
	qsort(all, n, sizeof(uint64_t), cmp_u64);
	printf("fsmarksec: threads=%u files=%lu fsyncs=%lu secs=%.3f files_per_s=%.1f fsync_p50_us=%.0f fsync_p99_us=%.0f fsync_max_us=%.0f\n",
	       o->threads, n, n, secs, secs > 0 ? n / secs : 0,
	       pct_us(all, n, 50), pct_us(all, n, 99), pct_us(all, n, 100));
	return 0;
}

static void __noreturn usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: %s -d DIR -p\n"
		"       %s -d DIR [-t THREADS] [-n NFILES] [-s SIZE] [-l LABEL]\n"
		"-p prepares DIR (creates it, sets a default ACL with a named user);\n"
		"without it, THREADS threads each create NFILES files in DIR: write\n"
		"SIZE bytes, set security.selinux to LABEL, fsync, close.\n"
		"Defaults: THREADS 1, NFILES 100, SIZE 4096, LABEL %s.\n",
		prog, prog, DEF_LABEL);
	exit(status);
}


int main(int argc, char **argv)
{
	struct options o = {
		.label = DEF_LABEL, .threads = 1, .nfiles = 100, .size = 4096,
	};
	int c, prep = 0;

	while ((c = getopt(argc, argv, "d:pt:n:s:l:h")) != -1) {
		switch (c) {
		case 'd':
			o.dir = optarg;
			break;
		case 'p':
			prep = 1;
			break;
		case 't':
			o.threads = get_num("-t", optarg, 1, MAX_THREADS);
			break;
		case 'n':
			o.nfiles = get_num("-n", optarg, 1, 1UL << 24);
			break;
		case 's':
			o.size = get_num("-s", optarg, 0, 1UL << 26);
			break;
		case 'l':
			if (strlen(optarg) > 200) {
				fprintf(stderr, "%s: -l: a label of at most 200 characters, please\n",
					prog);
				return 2;
			}
			o.label = optarg;
			break;
		case 'h':
			usage(0);
		default:
			usage(2);
		}
	}
	if (!o.dir || optind != argc)
		usage(2);
	return prep ? prepare(&o) : run(&o);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * acegen - seeded generator of crash workloads in the style of ACE
 * (the Automatic Crash Explorer of CrashMonkey): a small tree, then one to
 * three operations on it, each possibly followed by an fsync or fdatasync,
 * the last one always, then a power cut.
 *
 * "acegen SEED" prints the workload of SEED on stdout, one step a line,
 * in the language tests/crash/lib/crash.sh runs (see there):
 *
 *   # seed 42: 3 ops
 *   bs 4096                    block size for mkfs
 *   mkdir A                    the setup ...
 *   write A/foo 0 8192 17
 *   sync                       ... ends with a full commit
 *   rename A/foo B/bar         the operations, each possibly
 *   fsync B                    followed by a persistence point
 *   ...
 *
 * "acegen -t SEED" prints a concurrent workload instead: two to four
 * threads, each with a tree of its own (t1/, t2/, ...) made in the
 * setup, then two to six operations each, most followed by an fsync or
 * fdatasync, and in some threads a burst of small files each written and
 * fsync'd ("many"), all run at once after the setup's sync:
 *
 *   mkdir t1 ... sync
 *   thread 1                   thread 1's steps
 *   write t1/A/foo 0 4096 7
 *   fsync t1/A/foo
 *   thread 2 ...
 *   join
 *
 * "acegen -t -n OPS [-p THREADS] [-f PCT] SEED" prints a long concurrent
 * workload, for make stress's data oracle (tests/stress): THREADS threads
 * (default: two to four), OPS operations each, an fsync or fdatasync after
 * an operation with a chance of PCT % (default 60) and after the last.
 * Such a workload also draws what the short ones never do (so their seeds
 * keep their workloads): O_TMPFILE files given a name ("tmpfile"), files
 * held open ("hold", "release"), most of them unlinked while held and
 * some written first, a file's dirty pages written back as the flusher
 * does ("writeback"), and the inode cache dropped ("evict").
 *
 * The same seed gives the same workload on every machine: the generator
 * uses its own PRNG (xorshift64*, seeded through splitmix64), no libc
 * random numbers, and a model of the tree (names, inode sizes, xattrs,
 * link counts) so that every operation it emits is valid when run.
 *
 * Static (gcc -static), runs in the guest and on the host.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define MAX_LINES	512
#define MAX_THREADS	4
#define NO_INODE	(-1)

static uint64_t rng_state;

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rnd(void)
{
	return xorshift64s(&rng_state);
}

/* A number in [0, n). */
static unsigned int below(unsigned int n)
{
	return n ? (rnd() >> 33) % n : 0;
}

static int chance(unsigned int percent)
{
	return below(100) < percent;
}

/* The names the workload may use; which of them exist is the model. */
static const char * const file_names[] = {
	"foo", "bar", "A/foo", "A/bar", "B/foo", "B/bar", "A/C/foo",
};

static const char * const dir_names[] = { "A", "B", "A/C", "B/D", "E" };

#define NR_PATHS	32
#define NR_INODES	32
#define NR_XATTRS	3

struct inode {
	int used;
	int is_dir;
	uint64_t size;
	int nlink;
	int xattr[NR_XATTRS];
	int journal_data;
};

/* path -> inode; renames move paths, so paths are strings. */
struct dentry {
	char path[64];
	int ino;
};

static struct inode inodes[NR_INODES];
static struct dentry dentries[NR_PATHS];
static unsigned int bs = 4096;
/* -n: a long workload, with the operations of long_ops[] */
static int long_mode;
/* -f: the chance of a point after an operation (threads) */
static unsigned int point_pct = 60;
#define NR_HOLD		4
/* the descriptors a thread holds open ("hold N"), 1..NR_HOLD */
static int held[NR_HOLD + 1];
static char lines[MAX_LINES][160];
static int nr_lines;

static void emit(const char *fmt, ...)
{
	va_list ap;

	if (nr_lines == MAX_LINES) {
		fprintf(stderr, "acegen: too many lines\n");
		exit(1);
	}
	va_start(ap, fmt);
	vsnprintf(lines[nr_lines++], sizeof(lines[0]), fmt, ap);
	va_end(ap);
}

static struct dentry *lookup(const char *path)
{
	size_t i;

	for (i = 0; i < NR_PATHS; i++)
		if (dentries[i].ino != NO_INODE && !strcmp(dentries[i].path, path))
			return &dentries[i];
	return NULL;
}

static int exists(const char *path)
{
	return !*path || lookup(path);
}

static int is_dir(const char *path)
{
	struct dentry *d = lookup(path);

	return !*path || (d && inodes[d->ino].is_dir);
}

static void parent_of(const char *path, char *out)
{
	const char *slash = strrchr(path, '/');

	if (!slash) {
		out[0] = '\0';
		return;
	}
	memcpy(out, path, slash - path);
	out[slash - path] = '\0';
}

static int parent_exists(const char *path)
{
	char parent[64];

	parent_of(path, parent);
	return is_dir(parent);
}

/* Is @path @dir or below it? */
static int below_dir(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/');
}

static int dir_empty(const char *dir)
{
	size_t i;

	for (i = 0; i < NR_PATHS; i++)
		if (dentries[i].ino != NO_INODE && strcmp(dentries[i].path, dir) &&
		    below_dir(dentries[i].path, dir))
			return 0;
	return 1;
}

static int new_inode(int dir)
{
	int i;

	for (i = 0; i < NR_INODES; i++)
		if (!inodes[i].used) {
			memset(&inodes[i], 0, sizeof(inodes[i]));
			inodes[i].used = 1;
			inodes[i].is_dir = dir;
			return i;
		}
	fprintf(stderr, "acegen: out of inodes\n");
	exit(1);
}

static void add_dentry(const char *path, int ino)
{
	size_t i;

	for (i = 0; i < NR_PATHS; i++)
		if (dentries[i].ino == NO_INODE) {
			snprintf(dentries[i].path, sizeof(dentries[i].path), "%s", path);
			dentries[i].ino = ino;
			inodes[ino].nlink++;
			return;
		}
	fprintf(stderr, "acegen: out of dentries\n");
	exit(1);
}

static void drop_dentry(struct dentry *d)
{
	struct inode *in = &inodes[d->ino];

	if (--in->nlink == 0)
		in->used = 0;
	d->ino = NO_INODE;
}

/* Pick one of @names (n of them) that exists (want 1) or not (want 0). */
static const char *pick(const char * const *names, size_t n, int want,
			int dirs)
{
	const char *ok[16];
	size_t i, nr = 0;

	for (i = 0; i < n; i++) {
		int e = exists(names[i]) && is_dir(names[i]) == dirs;

		if (want ? e : !exists(names[i]) && parent_exists(names[i]))
			ok[nr++] = names[i];
	}
	return nr ? ok[below(nr)] : NULL;
}

static const char *pick_file(int want)
{
	return pick(file_names, ARRAY_SIZE(file_names), want, 0);
}

static const char *pick_dir(int want)
{
	return pick(dir_names, ARRAY_SIZE(dir_names), want, 1);
}

static struct inode *inode_of(const char *path)
{
	return &inodes[lookup(path)->ino];
}

static uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* An offset near the file: block aligned, unaligned, or past the end. */
static uint64_t pick_offset(uint64_t size)
{
	uint64_t blocks = size / bs + 2;

	switch (below(4)) {
	case 0:
		return 0;
	case 1:
		return below(blocks) * (uint64_t)bs;
	case 2:
		return below(blocks * bs);
	default:
		return size;
	}
}

static uint64_t pick_len(void)
{
	return chance(50) ? (1 + below(4)) * (uint64_t)bs : 1 + below(3 * bs);
}

static unsigned int data_seed(void)
{
	return 1 + below(1000);
}

/*
 * write_op: a write to a (new or existing) file; with @sync an O_SYNC or
 * O_DSYNC one.  The random draws are made in a fixed order, so a seed
 * gives the same workload whatever the compiler does with arguments.
 */
static int write_op(int sync)
{
	const char *f = pick_file(chance(80));
	uint64_t off, len;
	unsigned int seed;

	if (!f)
		return 0;
	if (!exists(f))
		add_dentry(f, new_inode(0));
	off = pick_offset(inode_of(f)->size);
	len = pick_len();
	seed = data_seed();
	if (sync)
		emit("swrite %s %" PRIu64 " %" PRIu64 " %u %s", f, off, len,
		     seed, chance(50) ? "sync" : "dsync");
	else
		emit("write %s %" PRIu64 " %" PRIu64 " %u", f, off, len, seed);
	inode_of(f)->size = max64(inode_of(f)->size, off + len);
	return 1;
}

static int op_write(void)
{
	return write_op(0);
}

static int op_sync_write(void)
{
	return write_op(1);
}

static int op_creat(void)
{
	const char *f = pick_file(0);

	if (!f)
		return 0;
	add_dentry(f, new_inode(0));
	emit("creat %s", f);
	return 1;
}

static int op_truncate(void)
{
	const char *f = pick_file(1);
	struct inode *in;
	uint64_t size;

	if (!f)
		return 0;
	in = inode_of(f);
	if (chance(50) && in->size)
		size = below(in->size);		/* down */
	else
		size = in->size + 1 + below(4 * bs);	/* up */
	emit("trunc %s %" PRIu64, f, size);
	in->size = size;
	return 1;
}

static int op_falloc(int ineligible)
{
	static const char * const modes[] = { "keep", "nokeep", "punch", "zero" };
	const char *f = pick_file(1), *mode;
	struct inode *in;
	uint64_t off, len;

	if (!f)
		return 0;
	in = inode_of(f);
	if (ineligible) {
		/* blocks wholly before the last byte */
		uint64_t mb = in->size ? (in->size - 1) / bs : 0;

		if (chance(50)) {
			/* collapse: aligned, must end before EOF */
			if (mb < 1)
				return 0;
			off = below(mb) * (uint64_t)bs;
			len = (1 + below(mb - off / bs)) * (uint64_t)bs;
			emit("falloc %s collapse %" PRIu64 " %" PRIu64, f, off, len);
			in->size -= len;
		} else {
			/* insert: aligned, must start before EOF */
			if (!in->size)
				return 0;
			off = below((in->size - 1) / bs + 1) * (uint64_t)bs;
			len = (1 + below(3)) * (uint64_t)bs;
			emit("falloc %s insert %" PRIu64 " %" PRIu64, f, off, len);
			in->size += len;
		}
		return 1;
	}
	mode = modes[below(ARRAY_SIZE(modes))];
	off = pick_offset(in->size);
	len = pick_len();
	emit("falloc %s %s %" PRIu64 " %" PRIu64, f, mode, off, len);
	if (!strcmp(mode, "nokeep") || !strcmp(mode, "zero"))
		in->size = max64(in->size, off + len);
	return 1;
}

static int op_link(void)
{
	const char *a = pick_file(1), *b = pick_file(0);

	if (!a || !b)
		return 0;
	emit("link %s %s", a, b);
	add_dentry(b, lookup(a)->ino);
	return 1;
}

static int op_unlink(void)
{
	const char *f = pick_file(1);

	if (!f)
		return 0;
	emit("unlink %s", f);
	drop_dentry(lookup(f));
	return 1;
}

/* Rename a file, within its directory or across, onto a new name or over
 * an existing file.
 */
static int op_rename_file(void)
{
	const char *a = pick_file(1), *b = pick_file(chance(25));
	struct dentry *da, *db;

	if (!a || !b || !strcmp(a, b))
		return 0;
	da = lookup(a);
	db = lookup(b);
	if (db && db->ino == da->ino)
		return 0;	/* rename to a link of itself: a no-op */
	emit("rename %s %s", a, b);
	if (db)
		drop_dentry(db);
	snprintf(da->path, sizeof(da->path), "%s", b);
	return 1;
}

static int op_rename_dir(void)
{
	const char *a = pick_dir(1), *b = pick_dir(0);
	char old[64];
	size_t i, n;

	if (!a || !b || below_dir(b, a))
		return 0;
	emit("rename %s %s", a, b);
	snprintf(old, sizeof(old), "%s", a);
	n = strlen(old);
	for (i = 0; i < NR_PATHS; i++) {
		struct dentry *d = &dentries[i];
		char rest[64];

		if (d->ino == NO_INODE || !below_dir(d->path, old))
			continue;
		snprintf(rest, sizeof(rest), "%s", d->path + n);
		snprintf(d->path, sizeof(d->path), "%s%s", b, rest);
	}
	return 1;
}

static int op_exchange(void)
{
	const char *a = pick_file(1), *b = pick_file(1);
	struct dentry *da, *db;
	int t;

	if (!a || !b || !strcmp(a, b))
		return 0;
	da = lookup(a);
	db = lookup(b);
	if (da->ino == db->ino)
		return 0;
	emit("xchg %s %s", a, b);
	t = da->ino;
	da->ino = db->ino;
	db->ino = t;
	return 1;
}

static int op_mkdir(void)
{
	const char *d = pick_dir(0);

	if (!d)
		return 0;
	emit("mkdir %s", d);
	add_dentry(d, new_inode(1));
	return 1;
}

static int op_rmdir(void)
{
	const char *ok[8];
	size_t i, nr = 0;

	for (i = 0; i < ARRAY_SIZE(dir_names); i++)
		if (exists(dir_names[i]) && dir_empty(dir_names[i]))
			ok[nr++] = dir_names[i];
	if (!nr)
		return 0;
	i = below(nr);
	emit("rmdir %s", ok[i]);
	drop_dentry(lookup(ok[i]));
	return 1;
}

static const char *pick_any(void)
{
	return chance(80) || !pick_dir(1) ? pick_file(1) : pick_dir(1);
}

static int op_chmod(void)
{
	static const char * const modes[] = { "600", "640", "644", "700", "755" };
	const char *f = pick_any();

	if (!f)
		return 0;
	emit("chmod %s %s", f, modes[below(ARRAY_SIZE(modes))]);
	return 1;
}

static int op_chown(void)
{
	static const unsigned int ids[] = { 0, 1000, 4242 };
	const char *f = pick_any();

	if (!f)
		return 0;
	emit("chown %s %u %u", f, ids[below(3)], ids[below(3)]);
	return 1;
}

static int op_utimes(void)
{
	const char *f = pick_any();

	if (!f)
		return 0;
	emit("utimes %s %u.%09u %u.%09u", f, 1500000000 + below(100000000),
	     below(1000000000), 1500000000 + below(100000000),
	     below(1000000000));
	return 1;
}

static int op_setxattr(void)
{
	const char *f = pick_file(1);
	struct inode *in;
	unsigned int x;
	char value[512];
	unsigned int i, n;

	if (!f)
		return 0;
	in = inode_of(f);
	x = below(NR_XATTRS);
	/* mostly in-inode values; now and then one that needs a block */
	n = chance(20) ? 200 + below(300) : 1 + below(24);
	for (i = 0; i < n; i++)
		value[i] = 'a' + below(26);
	value[n] = '\0';
	emit("setx %s user.x%u %s", f, x, value);
	in->xattr[x] = 1;
	return 1;
}

static int op_removexattr(void)
{
	const char *f = pick_file(1);
	struct inode *in;
	unsigned int x;

	if (!f)
		return 0;
	in = inode_of(f);
	for (x = 0; x < NR_XATTRS; x++)
		if (in->xattr[x])
			break;
	if (x == NR_XATTRS)
		return 0;
	emit("rmx %s user.x%u", f, x);
	in->xattr[x] = 0;
	return 1;
}

static int op_journal_flag(void)
{
	const char *f = pick_file(1);
	struct inode *in;

	if (!f)
		return 0;
	in = inode_of(f);
	in->journal_data = !in->journal_data;
	emit("jflag %s %s", f, in->journal_data ? "+j" : "-j");
	return 1;
}

static const struct {
	int (*fn)(void);
	unsigned int weight;
} ops[] = {
	{ op_write, 14 },
	{ op_creat, 5 },
	{ op_truncate, 6 },
	{ op_link, 5 },
	{ op_unlink, 5 },
	{ op_rename_file, 8 },
	{ op_mkdir, 4 },
	{ op_rmdir, 3 },
	{ op_chmod, 3 },
	{ op_chown, 2 },
	{ op_utimes, 3 },
	{ op_sync_write, 4 },
	{ op_setxattr, 4 },
	{ op_removexattr, 2 },
	{ op_rename_dir, 3 },
	{ op_exchange, 3 },
	{ op_journal_flag, 2 },
};

/* An O_TMPFILE file, written (fsync'd while nameless, now and then), then
 * linkat(2) to a new name in the directory it was made in.
 */
static int op_tmpfile(void)
{
	const char *f = pick_file(0);
	char dir[64];
	uint64_t len;
	unsigned int seed;

	if (!f)
		return 0;
	parent_of(f, dir);
	len = pick_len();
	seed = data_seed();
	emit("tmpfile %s %s %" PRIu64 " %u%s", *dir ? dir : ".", f, len, seed,
	     chance(30) ? " fsync" : "");
	add_dentry(f, new_inode(0));
	inode_of(f)->size = len;
	return 1;
}

/* A file held open (made by the open if new), maybe written, and most of
 * the time unlinked while held: SQLite's temporary files.
 */
static int op_hold(void)
{
	const char *f = pick_file(chance(50));
	unsigned int n;

	for (n = 1; n <= NR_HOLD && held[n]; n++)
		;
	if (!f || n > NR_HOLD)
		return 0;
	emit("hold %u %s", n, f);
	held[n] = 1;
	if (!exists(f))
		add_dentry(f, new_inode(0));
	if (chance(60)) {
		uint64_t off = pick_offset(inode_of(f)->size), len = pick_len();

		emit("write %s %" PRIu64 " %" PRIu64 " %u", f, off, len,
		     data_seed());
		inode_of(f)->size = max64(inode_of(f)->size, off + len);
	}
	if (chance(70)) {
		emit("unlink %s", f);
		drop_dentry(lookup(f));
	}
	return 1;
}

/* The last close of a held file (an unlinked one is deleted then). */
static int op_release(void)
{
	unsigned int ok[NR_HOLD], nr = 0, n;

	for (n = 1; n <= NR_HOLD; n++)
		if (held[n])
			ok[nr++] = n;
	if (!nr)
		return 0;
	n = ok[below(nr)];
	emit("release %u", n);
	held[n] = 0;
	return 1;
}

/* A write, then the file's dirty pages written as the flusher writes
 * them (no FUA, no flush), as for a file left dirty for 30 s before its
 * fsync.
 */
static int op_writeback(void)
{
	const char *f;

	if (!op_write())
		return 0;
	f = lines[nr_lines - 1] + strlen("write ");
	emit("writeback %.*s", (int)strcspn(f, " "), f);
	return 1;
}

static int op_evict(void)
{
	emit("evict");
	return 1;
}

static int op_falloc_eligible(void)
{
	return op_falloc(0);
}

static int op_falloc_range(void)
{
	return op_falloc(1);
}

static const struct {
	int (*fn)(void);
	unsigned int weight;
} more_ops[] = {
	{ op_falloc_eligible, 8 },
	{ op_falloc_range, 3 },
};

/* Only in a long workload (-n): the short ones keep their seeds' draws. */
static const struct {
	int (*fn)(void);
	unsigned int weight;
} long_ops[] = {
	{ op_tmpfile, 3 },
	{ op_hold, 3 },
	{ op_release, 2 },
	{ op_evict, 1 },
	{ op_writeback, 3 },
};

static void one_op(void)
{
	unsigned int total = 0, r, i, tries;

	for (i = 0; i < ARRAY_SIZE(ops); i++)
		total += ops[i].weight;
	for (i = 0; i < ARRAY_SIZE(more_ops); i++)
		total += more_ops[i].weight;
	for (i = 0; long_mode && i < ARRAY_SIZE(long_ops); i++)
		total += long_ops[i].weight;
	for (tries = 0; tries < 100; tries++) {
		r = below(total);
		for (i = 0; i < ARRAY_SIZE(ops); i++) {
			if (r < ops[i].weight)
				break;
			r -= ops[i].weight;
		}
		if (i < ARRAY_SIZE(ops)) {
			if (ops[i].fn())
				return;
			continue;
		}
		for (i = 0; i < ARRAY_SIZE(more_ops); i++) {
			if (r < more_ops[i].weight)
				break;
			r -= more_ops[i].weight;
		}
		if (i < ARRAY_SIZE(more_ops)) {
			if (more_ops[i].fn())
				return;
			continue;
		}
		for (i = 0; i < ARRAY_SIZE(long_ops); i++) {
			if (r < long_ops[i].weight)
				break;
			r -= long_ops[i].weight;
		}
		if (long_ops[i].fn())
			return;
	}
	op_write();	/* always possible: creates when nothing exists */
}

/* fsync or fdatasync of something the last op touched, or of anything. */
static void persist(void)
{
	char touched[64], parent[64];
	const char *last = lines[nr_lines - 1], *p, *target;
	const char *q;
	size_t n;

	p = strchr(last, ' ');
	p = p ? p + 1 : "";
	q = strchr(p, ' ');
	n = q ? (size_t)(q - p) : strlen(p);
	snprintf(touched, sizeof(touched), "%.*s", (int)n, p);
	/* after a rename, the new name is the one that exists */
	if (!strncmp(last, "rename ", 7) || !strncmp(last, "link ", 5)) {
		q = strrchr(last, ' ');
		snprintf(touched, sizeof(touched), "%s", q + 1);
	}
	switch (below(6)) {
	case 0:
	case 1:
	case 2:
		target = exists(touched) && *touched ? touched : pick_any();
		break;
	case 3:
		parent_of(touched, parent);
		target = is_dir(parent) && *parent ? parent : ".";
		break;
	case 4:
		target = pick_any();
		break;
	default:
		target = pick_dir(1);
		break;
	}
	if (!target)
		target = ".";
	if (!strcmp(target, "") || is_dir(target) || !strcmp(target, "."))
		emit("fsync %s", *target ? target : ".");
	else
		emit("%s %s", chance(70) ? "fsync" : "fdatasync", target);
}

/* The tree every workload starts from (then "sync"). */
static void setup_tree(void)
{
	size_t i;

	emit("mkdir A");
	add_dentry("A", new_inode(1));
	emit("mkdir B");
	add_dentry("B", new_inode(1));
	emit("mkdir A/C");
	add_dentry("A/C", new_inode(1));
	for (i = 0; i < ARRAY_SIZE(file_names); i++) {
		uint64_t len;

		if (!chance(60))
			continue;
		len = chance(20) ? 0 : chance(50) ? (1 + below(6)) * (uint64_t)bs :
		      1 + below(6 * bs);
		if (len)
			emit("write %s 0 %" PRIu64 " %u", file_names[i], len,
			     data_seed());
		else
			emit("creat %s", file_names[i]);
		add_dentry(file_names[i], new_inode(0));
		inode_of(file_names[i])->size = len;
	}
}

/* Which of a step's words (1 the first after the verb) are paths. */
static void path_words(const char *verb, int *first, int *last)
{
	static const char * const two[] = { "link", "rename", "xchg", "tmpfile" };
	size_t i;

	*first = 1;
	*last = 1;
	for (i = 0; i < ARRAY_SIZE(two); i++)
		if (!strcmp(verb, two[i]))
			*last = 2;
	if (!strcmp(verb, "hold"))	/* hold N F */
		*first = *last = 2;
	if (!strcmp(verb, "release") || !strcmp(verb, "evict"))
		*last = 0;
}

/* A step with a thread's directory in front of its paths. */
#define WIDE	(sizeof(lines[0]) + 8)

/*
 * Put thread @t's directory in front of every path of lines[0..nr_lines)
 * ("." is the directory itself), into @dst.
 */
static void prefix_paths(int t, char (*dst)[WIDE])
{
	char copy[sizeof(lines[0])], *save, *w, *out;
	int i, n, p0, p1;
	size_t len;

	for (i = 0; i < nr_lines; i++) {
		memcpy(copy, lines[i], sizeof(copy));
		out = dst[i];
		len = 0;
		p0 = p1 = 1;
		for (n = 0, w = strtok_r(copy, " ", &save); w;
		     w = strtok_r(NULL, " ", &save), n++) {
			const char *sep = n ? " " : "";

			if (n == 0)
				path_words(w, &p0, &p1);
			if (n >= p0 && n <= p1 && !strcmp(w, "."))
				len += snprintf(out + len, WIDE - len, "%st%d",
						sep, t);
			else if (n >= p0 && n <= p1)
				len += snprintf(out + len, WIDE - len,
						"%st%d/%s", sep, t, w);
			else
				len += snprintf(out + len, WIDE - len, "%s%s",
						sep, w);
			if (len >= WIDE) {
				fprintf(stderr, "acegen: step too long: %s\n",
					lines[i]);
				exit(1);
			}
		}
	}
}

static char setup_lines[MAX_LINES][WIDE];
static int setup_nr;
static char thread_lines[MAX_THREADS][MAX_LINES][WIDE];
static int thread_nr[MAX_THREADS];

/*
 * A concurrent workload: per thread a tree of its own and its operations,
 * generated with the model of that tree; the setups go to setup_lines,
 * each thread's operations to thread_lines.  Returns the thread count.
 */
static int threads(int want_threads, int want_ops)
{
	int nthreads = 2 + below(3), t, i, nops, many_at;

	if (want_threads)
		nthreads = want_threads;
	for (t = 1; t <= nthreads; t++) {
		for (i = 0; i < NR_PATHS; i++)
			dentries[i].ino = NO_INODE;
		memset(inodes, 0, sizeof(inodes));
		memset(held, 0, sizeof(held));
		nr_lines = 0;
		emit("mkdir .");
		setup_tree();
		/* a burst of create+write+fsync: fsyncs racing the others' */
		many_at = -1;
		nops = 2 + below(5);
		if (want_ops)
			nops = want_ops;
		if (chance(40)) {
			emit("mkdir M");
			many_at = below(nops);
		}
		if (setup_nr + nr_lines > MAX_LINES) {
			fprintf(stderr, "acegen: too many lines\n");
			exit(1);
		}
		prefix_paths(t, setup_lines + setup_nr);
		setup_nr += nr_lines;
		nr_lines = 0;
		for (i = 0; i < nops; i++) {
			if (i == many_at)
				emit("many M %u", 2 + below(5));
			one_op();
			if (i == nops - 1 || chance(point_pct))
				persist();
		}
		prefix_paths(t, thread_lines[t - 1]);
		thread_nr[t - 1] = nr_lines;
	}
	return nthreads;
}

static void print_usage(FILE *f)
{
	fprintf(f, "usage: acegen [-t [-n OPS] [-p THREADS] [-f PCT]] SEED\n"
		"prints the crash workload of SEED (tests/crash/lib/crash.sh runs it);\n"
		"-t: a concurrent one (2-4 threads, each in its own tree);\n"
		"-n OPS: a long concurrent one, OPS operations a thread (1-%d), with\n"
		"   tmpfile, hold/release (unlinked while held), writeback, evict too;\n"
		"-p THREADS: that many threads (1-%d); -f PCT: a point after an\n"
		"   operation with a chance of PCT %% (0-100, default 60)\n",
		MAX_LINES / 8, MAX_THREADS);
}

/* A number from @s in [@lo, @hi], or -1. */
static int number(const char *s, int lo, int hi)
{
	char *end;
	long v = strtol(s, &end, 10);

	return *end || end == s || v < lo || v > hi ? -1 : (int)v;
}

int main(int argc, char **argv)
{
	uint64_t seed, x;
	int nops, i, t, nthreads, threaded = 0, want_threads = 0, want_ops = 0;
	int pct = -1, v;
	const char *arg;
	char *end;

	for (i = 1; i < argc - 1; i++) {
		if (!strcmp(argv[i], "-t")) {
			threaded = 1;
			continue;
		}
		if (i + 1 == argc - 1)
			break;	/* an option that wants a value, and only SEED left */
		if (!strcmp(argv[i], "-n"))
			v = want_ops = number(argv[++i], 1, MAX_LINES / 8);
		else if (!strcmp(argv[i], "-p"))
			v = want_threads = number(argv[++i], 1, MAX_THREADS);
		else if (!strcmp(argv[i], "-f"))
			v = pct = number(argv[++i], 0, 100);
		else
			break;
		if (v < 0) {
			fprintf(stderr, "acegen: bad value '%s' for %s\n", argv[i], argv[i - 1]);
			print_usage(stderr);
			return 2;
		}
	}
	if (argc >= 2 && (!strcmp(argv[argc - 1], "--help") || !strcmp(argv[argc - 1], "-h"))) {
		print_usage(stdout);
		return 0;
	}
	if (argc < 2 || i != argc - 1 ||
	    (!threaded && (want_ops || want_threads || pct >= 0))) {
		print_usage(stderr);
		return 2;
	}
	long_mode = want_ops > 0;
	if (pct >= 0)
		point_pct = pct;
	arg = argv[argc - 1];
	seed = strtoull(arg, &end, 10);
	if (*end || end == arg) {
		fprintf(stderr, "acegen: bad seed '%s'\n", arg);
		return 2;
	}
	/* a threaded workload draws from a stream of its own */
	x = threaded ? seed ^ 0x7468726561647321ULL : seed;
	rng_state = splitmix64(&x) | 1;
	for (i = 0; i < NR_PATHS; i++)
		dentries[i].ino = NO_INODE;
	bs = chance(25) ? 1024 : 4096;
	if (threaded) {
		nthreads = threads(want_threads, want_ops);
		printf("# seed %" PRIu64 " (threads): %d threads, block size %u", seed,
		       nthreads, bs);
		if (long_mode)
			printf(", %d operations each, a point after %u %%", want_ops,
			       point_pct);
		printf("\n");
		printf("bs %u\n", bs);
		for (i = 0; i < setup_nr; i++)
			printf("%s\n", setup_lines[i]);
		printf("sync\n");
		for (t = 0; t < nthreads; t++) {
			printf("thread %d\n", t + 1);
			for (i = 0; i < thread_nr[t]; i++)
				printf("%s\n", thread_lines[t][i]);
		}
		printf("join\n");
		return 0;
	}
	nops = 1 + below(3);
	setup_tree();
	emit("sync");
	for (i = 0; i < nops; i++) {
		one_op();
		if (i == nops - 1 || chance(35))
			persist();
	}
	printf("# seed %" PRIu64 ": %d op(s), block size %u\n", seed, nops, bs);
	printf("bs %u\n", bs);
	for (i = 0; i < nr_lines; i++)
		printf("%s\n", lines[i]);
	return 0;
}

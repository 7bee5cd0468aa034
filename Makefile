# SPDX-License-Identifier: GPL-2.0
#
# ext4fc: ext4's fast-commit engine as out-of-tree modules jbd2fc.ko and
# ext4fc.ko, built from the installed linux-source-6.1 tarball and tested
# in QEMU.  See README.md; 'make help' lists the targets.

SHELL := /bin/bash
TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
BUILD ?= $(TOP)/build
TARBALL ?= /usr/src/linux-source-6.1.tar.xz
# Empty counts as unset: 'make run' exports the KVER it found before it
# installed the kernel packages (none on a fresh machine) to its sub-make.
ifeq ($(strip $(KVER)),)
KVER = $(shell $(TOP)/scripts/kver.sh 2>/dev/null)
endif
KDIR ?= /lib/modules/$(KVER)/build
SRC := $(BUILD)/src
JOBS ?= $(shell nproc)
Q ?= @

# What 'make deps' installs (Debian 12).  Targets that miss one say which.
# Only the tests, benchmarks, style check and fstests use these (fstests:
# its build dependencies, then what it runs from the host's userland).
TEST_PACKAGES := shellcheck fsmark dbench gnuplot-nox clang python3 \
	autoconf automake libtool uuid-dev xfslibs-dev libattr1-dev \
	libacl1-dev libaio-dev liburing-dev libgdbm-dev libcap-dev \
	xfsprogs btrfs-progs attr acl bc psmisc fio udev gawk keyutils quota \
	sqlite3
PACKAGES := linux-source-6.1 linux-image-amd64 linux-headers-amd64 \
	gcc make libc6-dev kmod xz-utils git qemu-system-x86 busybox-static \
	e2fsprogs cpio dmsetup $(TEST_PACKAGES)

# 'make run', 'make check' and 'make bench(-full)' first check the packages they
# need (scripts/deps.sh: one dpkg-query; as root it installs what is
# missing, otherwise it says 'sudo make deps' and stops).  check and bench
# need all of PACKAGES; run all but TEST_PACKAGES.
NOT_FOR_RUN := $(TEST_PACKAGES)
RUN_PACKAGES := $(filter-out $(NOT_FOR_RUN),$(PACKAGES))
# '+': the check runs under 'make -n' too, and then only says what it
# would install.
DEPS_CHECK = +$(Q)$(TOP)/scripts/deps.sh
# Non-empty under 'make -n' (GNU make's manual, "Testing Flags").
DRY_RUN = $(findstring n,$(firstword -$(MAKEFLAGS)))

MODULES := $(BUILD)/jbd2fc.ko $(BUILD)/ext4fc.ko
HELPERS := $(BUILD)/bin/fsop
# Crash-consistency suite (tests/crash): workload generator, log replay,
# a static device-mapper client.
HELPERS += $(BUILD)/bin/acegen $(BUILD)/bin/logreplay $(BUILD)/bin/dmctl
# Benchmark workloads (bench/README.md), static like fsop.
HELPERS += $(BUILD)/bin/varmail $(BUILD)/bin/fsynclat $(BUILD)/bin/interfere
HELPERS += $(BUILD)/bin/fsmarksec $(BUILD)/bin/randw $(BUILD)/bin/metafsync
# Corrupted fast-commit areas (tests/corrupt): find, list and mutate them.
HELPERS += $(BUILD)/bin/fccorrupt
INITRAMFS := $(BUILD)/initramfs.cpio.gz
# Host tools: fcdump reads an image's fast-commit area with the parser the
# kernel uses (ext4fc/fc_parse.c, compiled unchanged).  Static, so the
# initramfs (which takes all of build/bin) has it in the guest too.
TOOLS := $(BUILD)/bin/fcdump
# The small C helpers (crc32c, die, get_num, xorshift64*) that the host
# tools, the test helpers and the benchmark workloads share.
UTIL := $(TOP)/tools/util.h
PARSER := $(TOP)/ext4fc/fc_parse.c $(TOP)/ext4fc/fc_parse.h $(TOP)/ext4fc/fc_format.h

# Our own files overlaid into build/src, and the series.
OWN_FILES := $(wildcard $(TOP)/ext4fc/*.[ch] $(TOP)/jbd2fc/*.[ch]) \
	$(shell find $(TOP)/include -name '*.h' 2>/dev/null)
SERIES := $(foreach c,include jbd2fc ext4fc,$(TOP)/$(c)/patches/series \
	$(wildcard $(TOP)/$(c)/patches/*.patch))
PREP_INPUTS := $(TARBALL) $(TOP)/scripts/prepare-src.sh \
	$(TOP)/scripts/rename.sed $(TOP)/scripts/rename-kbuild.sed \
	$(TOP)/scripts/gen-symbols.sh $(SERIES) $(OWN_FILES)
# Everything kbuild compiles (through the overlay links too).
KSOURCES := $(shell test -d $(SRC) && find $(SRC)/fs $(SRC)/include \
	\( -name '*.[ch]' ! -name '*.mod.c' -o -name Makefile \) 2>/dev/null)

# fstests (xfstests): where from (scripts/fstests-src.sh; empty: the pinned
# tarball in ../shared/third_party, else upstream's git at 63a29724), and
# where it is unpacked and configured.  fsstress and replay-log are built
# static from it for the busybox guest (the stress tests pass fsstress in
# with run-qemu.sh -f; replay-log, fstests' own replayer, stays for
# comparisons with logreplay, which make stress uses since its crash models).
FSTESTS_SRC ?=
FSTESTS := $(BUILD)/fstests
FSTESTS_STATIC := $(BUILD)/fstests-static
STRESS_BINS := $(FSTESTS_STATIC)/fsstress $(FSTESTS_STATIC)/replay-log

export KVER BUILD TARBALL FSTESTS_SRC

# Rebuild when KVER (or FSTESTS_SRC) changes.  Not for 'make deps' or
# 'make help' alone: 'sudo make deps' must not leave a build/ owned by root.
ifneq ($(if $(MAKECMDGOALS),$(filter-out deps help,$(MAKECMDGOALS)),all),)
$(shell mkdir -p $(BUILD) && { [ "$$(cat $(BUILD)/kver 2>/dev/null)" = "$(KVER)" ] || \
	echo "$(KVER)" >$(BUILD)/kver; })
$(shell { [ "$$(cat $(BUILD)/fstests-src 2>/dev/null)" = "$(FSTESTS_SRC)" ] && \
	[ -f $(BUILD)/fstests-src ]; } || echo "$(FSTESTS_SRC)" >$(BUILD)/fstests-src)
endif

need = @command -v $(1) >/dev/null 2>&1 || { \
	echo "$(2) is not installed ($(1) not found): run 'make deps' (or apt-get install $(2))" >&2; exit 1; }

.PHONY: all help deps modules src export-patches reset-src initramfs helpers \
	tools fuzz run check check-build style clean distclean check-kver FORCE
all: modules helpers initramfs tools

FORCE:

help:
	@echo "make run            the demo: mount ext4fc in QEMU, fsync, power cut, replay (~1 min)"
	@echo "make check          the test suite in QEMU, fstests style (about 25 min)"
	@echo "                    (both install missing Debian packages first, as root)"
	@echo "make                build build/{jbd2fc,ext4fc}.ko, helpers, initramfs, fcdump"
	@echo "make bench          benchmarks, ~35 min: ext4fc vs stock ext4, fc on/off (build/bench)"
	@echo "make bench-full     the same, longer runs and more repetitions (build/bench-full)"
	@echo "make bench-nvme     issue 30's table, ~17 min: selective flushing on an NVMe disk (build/bench-nvme)"
	@echo "make crash-long     randomized crash workloads: SEEDS=N (1000) START=M (1) KIND=seed|cseed"
	@echo "make fstests        fstests in QEMU, ext4fc beside stock ext4 (hours): TESTS=\"generic/455 ...\""
	@echo "                    GROUPS=\"log ...\" SHARD=K/N JOBS=N (guests at once); default set: log,"
	@echo "                    generic/455 457 482, ext4/quick.  fstests-report DIRS=\"...\" merges shards"
	@echo "make stress         fsstress on dm-log-writes, replayed to every FUA write, ext4fc"
	@echo "                    beside stock ext4: SEEDS=N (20) START=M MIX=fsync|default|heavy|both|all"
	@echo "                    MODEL=optimistic|pessimistic|both (crash model: every write up to the"
	@echo "                    point, or only what a flush or FUA made durable) DISK=virtio|nvme"
	@echo "                    FS=\"ext4fc ext4\" (also ext4fc+iso, ext4fc+sf: mount options)"
	@echo "                    ORACLE=fsck|data (data: acegen's concurrent workloads instead of"
	@echo "                    fsstress, every fsync's promise checked at every point, then e2fsck)"
	@echo "make corrupt-images corrupted fast-commit areas mounted in QEMU: N=images (500) START=M (0)"
	@echo "make fuzz           libFuzzer+ASan on the fc record parser: SECONDS=N (60)"
	@echo "make deps           install the Debian packages every target needs (as root)"
	@echo "make export-patches turn commits made in build/src into patches/series"
	@echo "make reset-src      drop build/src (work not exported is lost) and redo it"
	@echo "make style          checkpatch on our C files and patches, shellcheck"
	@echo "make clean          remove build outputs but keep build/src"
	@echo "make distclean      remove build/ entirely"
	@echo "tests/check.sh TEST one test or group, e.g. tests/check.sh ext4fc/009"
	@echo "variables: KVER=$(KVER) TARBALL=$(TARBALL) BUILD=$(BUILD) JOBS=$(JOBS)"

deps:
	$(DEPS_CHECK) deps $(PACKAGES)

check-kver:
	@if [ -z "$(KVER)" ]; then $(TOP)/scripts/kver.sh >/dev/null; exit 1; fi
	@test -e $(KDIR)/Makefile || { echo "kernel headers missing: $(KDIR) (install linux-headers-$(KVER) or run 'make deps')" >&2; exit 1; }

# --- the kernel tree -------------------------------------------------------

src: $(BUILD)/.src-stamp

# Not a raw 'No rule to make target' when the kernel source is missing.
$(TARBALL):
	@echo "$(TARBALL) is missing: the kernel source the modules are built from; install linux-source-6.1 ('sudo make deps' installs everything; 'make run' does it itself as root)" >&2
	@exit 2

$(BUILD)/.src-stamp: $(PREP_INPUTS) $(BUILD)/kver | check-kver
	$(call need,git,git)
	$(call need,xz,xz-utils)
	$(Q)ver=$$($(TOP)/scripts/versions.sh $(KVER) $(TARBALL)) && \
		EXPECT_VERSION=$${ver%% *} $(TOP)/scripts/prepare-src.sh
	$(Q)touch $@

modules: $(MODULES)

$(BUILD)/.modules-stamp: $(BUILD)/.src-stamp $(KSOURCES) $(TOP)/Kbuild $(BUILD)/kver | check-kver
	$(call need,gcc,gcc)
	$(Q)$(if $(DRY_RUN),echo "make -n: kbuild would build the modules in $(SRC)", \
		set -o pipefail; $(MAKE) -s -C $(KDIR) M=$(SRC) -j$(JOBS) modules 2>&1 | \
		{ grep -v '^Skipping BTF generation' || true; })
	$(Q)for m in fs/jbd2/jbd2fc fs/ext4/ext4fc; do \
		cmp -s $(SRC)/$$m.ko $(BUILD)/$${m##*/}.ko || \
			install -m 644 $(SRC)/$$m.ko $(BUILD)/$${m##*/}.ko; done
	$(Q)touch $@

$(MODULES): $(BUILD)/.modules-stamp
	@:

export-patches:
	$(Q)$(TOP)/scripts/export-patches.sh
	$(Q)touch $(BUILD)/.src-stamp

reset-src:
	rm -rf $(SRC) $(BUILD)/.src-stamp $(BUILD)/.modules-stamp
	$(Q)$(MAKE) --no-print-directory src

# --- guest side ------------------------------------------------------------

helpers: $(HELPERS)

# fsop: the harness's own guest tool (tests/harness).
$(BUILD)/bin/fsop: $(TOP)/tests/harness/fsop.c
	$(call need,gcc,gcc)
	$(Q)mkdir -p $(dir $@)
	$(Q)test -e /usr/lib/x86_64-linux-gnu/libc.a || { echo "static libc missing: install libc6-dev (or run 'make deps')" >&2; exit 1; }
	$(Q)gcc -static -O2 -Wall -Wextra -o $@ $<

# Benchmark workloads: bench owns their sources (bench/src).
$(BUILD)/bin/varmail $(BUILD)/bin/fsynclat $(BUILD)/bin/interfere $(BUILD)/bin/fsmarksec $(BUILD)/bin/randw \
		$(BUILD)/bin/metafsync: $(BUILD)/bin/%: $(TOP)/bench/src/%.c $(TOP)/bench/src/pctl.h $(UTIL)
	$(call need,gcc,gcc)
	$(Q)mkdir -p $(dir $@)
	$(Q)test -e /usr/lib/x86_64-linux-gnu/libc.a || { echo "static libc missing: install libc6-dev (or run 'make deps')" >&2; exit 1; }
	$(Q)gcc -static -O2 -Wall -Wextra -pthread -I$(TOP)/tools -o $@ $<

$(BUILD)/bin/acegen $(BUILD)/bin/logreplay $(BUILD)/bin/dmctl $(BUILD)/bin/fccorrupt: $(BUILD)/bin/%: $(TOP)/tests/src/%.c
	$(call need,gcc,gcc)
	$(Q)mkdir -p $(dir $@)
	$(Q)test -e /usr/lib/x86_64-linux-gnu/libc.a || { echo "static libc missing: install libc6-dev (or run 'make deps')" >&2; exit 1; }
	$(Q)gcc -static -O2 -Wall -Wextra -I$(TOP)/ext4fc -I$(TOP)/tools -o $@ $<

# fccorrupt writes records in the format the kernel reads (ext4fc/fc_format.h).
$(BUILD)/bin/fccorrupt: $(TOP)/ext4fc/fc_format.h
$(BUILD)/bin/acegen $(BUILD)/bin/fccorrupt: $(UTIL)

# fstests, unpacked and configured once (a new FSTESTS_SRC: again).
$(FSTESTS)/.ext4fc-configured: $(TOP)/scripts/fstests-src.sh $(BUILD)/fstests-src
	$(Q)$(TOP)/scripts/fstests-src.sh
	$(Q)touch $@

# The whole suite, built in place (fstests' own make; its warnings are its
# business).  run-qemu.sh --host-root guests run it from there.
.PHONY: fstests-build fstests fstests-report
fstests-build: $(FSTESTS)/.ext4fc-built

$(FSTESTS)/.ext4fc-built: $(FSTESTS)/.ext4fc-configured
	$(call need,autoconf,autoconf)
	@echo "  FSTESTS make (a few minutes, once)"
	$(Q)$(if $(DRY_RUN),echo "make -n: fstests' make would build the suite in $(FSTESTS)", \
		$(MAKE) -s -C $(FSTESTS) -j$(JOBS) >$(FSTESTS)/build.log 2>&1 || \
		{ tail -n 20 $(FSTESTS)/build.log >&2; echo "fstests did not build: see $(FSTESTS)/build.log (missing -dev package? 'make deps')" >&2; exit 1; })
	$(Q)touch $@

# fstests side by side (tests/fstests/run.sh --help): TESTS, GROUPS, SHARD,
# JOBS (guests at once; 1 unless given), FSTESTS_FS (default both),
# FSTESTS_ARGS for more options.
FSTESTS_JOBS := $(if $(filter command line environment,$(origin JOBS)),$(JOBS),1)
FSTESTS_FS ?= ext4fc ext4
fstests:
	$(DEPS_CHECK) fstests $(PACKAGES)
	$(Q)$(MAKE) --no-print-directory all fstests-build
	$(Q)$(TOP)/tests/fstests/run.sh --fs "$(FSTESTS_FS)" --jobs $(FSTESTS_JOBS) \
		$(if $(TESTS),--tests "$(TESTS)") $(if $(GROUPS),--groups "$(GROUPS)") \
		$(if $(SHARD),--shard $(SHARD)) $(FSTESTS_ARGS)

# Merge results from several machines (shards): DIRS="dir1 dir2 ...".
fstests-report:
	$(if $(DIRS),,$(error fstests-report: give the result directories, e.g. DIRS="build/results/shard-1 build/results/shard-2"))
	$(Q)python3 $(TOP)/tests/fstests/report.py -o $(BUILD)/results/fstests-merged.md $(DIRS)
	@echo "merged report: $(BUILD)/results/fstests-merged.md"

# fsstress and replay-log, static, with the flags fstests' own Makefiles
# give them; their warnings are fstests' business.
.PHONY: stress-helpers
stress-helpers: $(STRESS_BINS)

$(FSTESTS_STATIC)/fsstress: $(FSTESTS)/.ext4fc-configured
	$(call need,gcc,gcc)
	$(Q)mkdir -p $(dir $@)
	$(Q)test -e /usr/lib/x86_64-linux-gnu/liburing.a -a -e /usr/lib/x86_64-linux-gnu/libaio.a || \
		{ echo "static liburing/libaio missing: install liburing-dev libaio-dev (or run 'make deps')" >&2; exit 1; }
	$(Q)gcc -static -O2 -w -std=gnu11 -funsigned-char -fno-strict-aliasing \
		-D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -DXFS -DAIO -DURING -DFALLOCATE \
		-DHAVE_COPY_FILE_RANGE -I$(FSTESTS)/include -I$(FSTESTS)/src \
		-o $@ $(FSTESTS)/ltp/fsstress.c -laio -luring -lpthread -lm

$(FSTESTS_STATIC)/replay-log: $(FSTESTS)/.ext4fc-configured
	$(call need,gcc,gcc)
	$(Q)mkdir -p $(dir $@)
	$(Q)gcc -static -O2 -w -std=gnu11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 \
		-I$(FSTESTS)/include -I$(FSTESTS)/src -o $@ \
		$(FSTESTS)/src/log-writes/replay-log.c $(FSTESTS)/src/log-writes/log-writes.c

tools: $(TOOLS)

$(BUILD)/bin/fcdump: $(TOP)/tools/fcdump.c $(UTIL) $(PARSER)
	$(call need,gcc,gcc)
	$(Q)mkdir -p $(dir $@)
	$(Q)test -e /usr/lib/x86_64-linux-gnu/libc.a || { echo "static libc missing: install libc6-dev (or run 'make deps')" >&2; exit 1; }
	$(Q)gcc -static -O2 -Wall -Wextra -I$(TOP)/ext4fc -I$(TOP)/tools -o $@ \
		$(TOP)/tools/fcdump.c $(TOP)/ext4fc/fc_parse.c

# The parser under libFuzzer + AddressSanitizer (tests/fuzz/README).
FUZZER := $(BUILD)/fuzz/fc_parse_fuzz
SECONDS ?= 60

$(FUZZER): $(TOP)/tests/fuzz/fc_parse_fuzz.c $(UTIL) $(PARSER)
	$(call need,clang,clang)
	$(Q)mkdir -p $(dir $@)
	$(Q)clang -g -O1 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=undefined -Wall -Wextra \
		-I$(TOP)/ext4fc -I$(TOP)/tools -o $@ \
		$(TOP)/tests/fuzz/fc_parse_fuzz.c $(TOP)/ext4fc/fc_parse.c

fuzz: $(FUZZER)
	$(Q)$(TOP)/tests/fuzz/run.sh $(SECONDS)

initramfs: $(INITRAMFS)

# build-initramfs.sh lists the optional host files it did not find in
# $(INITRAMFS).skipped; one that is there now makes the initramfs stale.
INITRAMFS_NOW_THERE = $(wildcard $(shell cat $(INITRAMFS).skipped 2>/dev/null))

# The QEMU harness (tests/harness): its list, its /init, its builder.
HARNESS := $(TOP)/tests/harness
$(INITRAMFS): $(HARNESS)/build-initramfs.sh $(HARNESS)/files.list \
		$(HARNESS)/init $(MODULES) $(HELPERS) $(TOOLS) $(BUILD)/kver \
		$(if $(INITRAMFS_NOW_THERE),FORCE)
	$(Q)$(HARNESS)/build-initramfs.sh $@

# --- running ---------------------------------------------------------------

# run, check and bench(-full): the package check, then a make of their own,
# which reads KVER and the rest afresh once the kernel packages are in.
run:
	$(DEPS_CHECK) run $(RUN_PACKAGES)
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(TOP)/tests/demo.sh

check:
	$(DEPS_CHECK) check $(PACKAGES)
	$(Q)$(MAKE) --no-print-directory check-build
	$(Q)$(TOP)/tests/check.sh

# The fuzz test needs clang; without it, it says so and is skipped.
check-build: all stress-helpers fstests-build $(if $(shell command -v clang),$(FUZZER))

# Randomized crash workloads at length (tests/crash/long.sh): seeds
# START..START+SEEDS-1, a QEMU boot per BATCH (100) seeds; KIND=cseed:
# the concurrent workloads (acegen -t).
SEEDS ?= 1000
START ?= 1
KIND ?= seed
.PHONY: crash-long
crash-long: all
	$(Q)KIND=$(KIND) $(TOP)/tests/crash/long.sh $(SEEDS) $(START)

# Crash consistency under concurrent stress (tests/stress/run.sh): fstests'
# fsstress on dm-log-writes, the log replayed to every FUA write, each
# point mounted and e2fsck'd; ext4fc beside stock ext4 in the same boots.
# SEEDS (20 here) START MIX=fsync|default|heavy|both|all FS="ext4fc ext4" (also
# ext4fc+iso, ext4fc+sf: written with fsync_isolation, fc_selective_flush)
# MODEL=optimistic|pessimistic|both (the crash model, tests/src/logreplay.c)
# DISK=virtio|nvme (nvme: FUA reaches the disk); ORACLE=fsck|data (data:
# acegen's concurrent workloads, and what each fsync promised checked at
# every point as the crash suite checks it); more options in STRESS_ARGS
# (tests/stress/run.sh --help).
MIX ?= both
FS ?= ext4fc ext4
MODEL ?= optimistic
DISK ?= virtio
ORACLE ?= fsck
STRESS_SEEDS := $(if $(filter command line environment,$(origin SEEDS)),$(SEEDS),20)
.PHONY: stress
stress: all stress-helpers
	$(Q)$(TOP)/tests/stress/run.sh --seeds $(STRESS_SEEDS) --start $(START) \
		--mix $(MIX) --fs "$(FS)" --model $(MODEL) --disk $(DISK) --oracle $(ORACLE) $(STRESS_ARGS)

# Corrupted fast-commit areas mounted in the guest (tests/corrupt): N
# images from START, a QEMU boot per BATCH (100).
N ?= 500
.PHONY: corrupt-images
corrupt-images: all
	$(Q)$(TOP)/tests/corrupt/campaign.sh $(N) $(START)

# Benchmarks (bench/README.md): one boot, four configurations, results in
# build/bench/ (table.md, results.csv, plot.png).  BENCH_ARGS: more options
# for bench/run.sh (bench/run.sh --help).
.PHONY: bench bench-full bench-nvme
bench:
	$(DEPS_CHECK) bench $(PACKAGES)
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(TOP)/bench/run.sh --profile quick -o $(BUILD)/bench $(BENCH_ARGS)

bench-full:
	$(DEPS_CHECK) bench $(PACKAGES)
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(TOP)/bench/run.sh --profile full -o $(BUILD)/bench-full $(BENCH_ARGS)

# Issue 30's table: selective flushing on the NVMe disk (FUA), ext4fc+fc,
# ext4fc+sf, ext4+fc and ext4fc-nofc alternating, 3 repetitions.
bench-nvme:
	$(DEPS_CHECK) bench $(PACKAGES)
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(TOP)/bench/run.sh --profile nvme -o $(BUILD)/bench-nvme $(BENCH_ARGS)

style: $(BUILD)/.src-stamp
	$(call need,shellcheck,shellcheck)
	$(Q)$(TOP)/scripts/style.sh

clean:
	$(Q)if [ -d $(SRC) ] && [ -n "$(KVER)" ]; then $(MAKE) -s -C $(KDIR) M=$(SRC) clean; fi
	rm -rf $(MODULES) $(BUILD)/bin $(INITRAMFS) $(BUILD)/.modules-stamp $(BUILD)/results

distclean:
	rm -rf $(BUILD)

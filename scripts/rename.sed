# rename.sed: the mechanical ext4 -> ext4fc, jbd2 -> jbd2fc rename.
#
# Applied by scripts/prepare-src.sh to every file of the extracted tree
# (fs/ext4, fs/jbd2 and the forked headers) right after the pristine base
# is committed; the result is committed as "rename" and our patch series
# applies on top of it.  Only names that are global in a running kernel
# change: module names, file system type, /proc and /sys directories, slab
# caches, kernel threads, workqueues, shrinkers, trace systems and log
# prefixes.  Exported jbd2 symbols are renamed by the generated
# jbd2fc-symbols.h instead (force-included), so C identifiers stay as they
# are and our patches read like upstream ones.
#
# Deliberate exceptions (not renamed):
#  - on-disk magics, feature names and the fscrypt key prefix "ext4:"
#    (the image stays a plain ext4 image; keys must keep working);
#  - function names in messages ("ext4_iget: ..."): they name code;
#  - C identifiers (ext4_*, jbd2_*) and struct names.

# The forked headers get new names so the stock ones can never be picked up.
s|<linux/jbd2\.h>|<linux/jbd2fc.h>|g
s|<trace/events/ext4\.h>|<trace/events/ext4fc.h>|g
s|<trace/events/jbd2\.h>|<trace/events/jbd2fc.h>|g
s|_LINUX_JBD2_H|_LINUX_JBD2FC_H|g

# Trace systems: /sys/kernel/tracing/events/{ext4fc,jbd2fc}/.
s|^#define TRACE_SYSTEM ext4$|#define TRACE_SYSTEM ext4fc|
s|^#define TRACE_SYSTEM jbd2$|#define TRACE_SYSTEM jbd2fc|
# jbd2_submit_inode_data is both an exported function and a trace event;
# jbd2fc-symbols.h renames the token inside TRACE_EVENT(), so the call site
# must use the renamed event.
s|trace_jbd2_submit_inode_data(|trace_jbd2fc_submit_inode_data(|g

# File system type and module alias: only "ext4fc" is registered.
s|\.name\([[:space:]]*\)= "ext4",|.name\1= "ext4fc",|
s|MODULE_ALIAS_FS("ext4")|MODULE_ALIAS_FS("ext4fc")|

# /proc/fs/ext4fc, /proc/fs/jbd2fc, /sys/fs/ext4fc.
s|"fs/ext4"|"fs/ext4fc"|g
s|"fs/jbd2"|"fs/jbd2fc"|g
s|kobject_create_and_add("ext4", fs_kobj)|kobject_create_and_add("ext4fc", fs_kobj)|

# Slab caches (their names are global: /proc/slabinfo, /sys/kernel/slab).
s/"ext4_\(inode_cache\|extent_status\|pending_reservation\|bio_post_read_ctx\|groupinfo_[0-9]*k\)"/"ext4fc_\1"/g
s/"jbd2_\(journal_head\|transaction_s\|[0-9]*k\)"/"jbd2fc_\1"/g
# KMEM_CACHE() names a cache after its struct; name ours explicitly
# (KMEM_CACHE_NAMED is defined in include/ext4fc-rename.h).
s/KMEM_CACHE(\(ext4\|jbd2\)_\([a-z_]*\),/KMEM_CACHE_NAMED(\1_\2, "\1fc_\2",/g

# Kernel threads, workqueues, shrinkers.
s|"jbd2/%s"|"jbd2fc/%s"|g
s|"ext4lazyinit"|"ext4fclazyinit"|g
s|"kmmpd-%\.\*s"|"kmmpdfc-%.*s"|g
s|"ext4-rsv-conversion"|"ext4fc-rsv-conversion"|g
s|"ext4-es:%s"|"ext4fc-es:%s"|g
s|"jbd2-journal:(%u:%u)"|"jbd2fc-journal:(%u:%u)"|g

# Log prefixes, so a console with both file systems reads unambiguously.
s|"EXT4-fs|"EXT4FC-fs|g
s|"%sEXT4-fs |"%sEXT4FC-fs |g
s|"%sEXT4-fs:|"%sEXT4FC-fs:|g
s|"JBD2: |"JBD2FC: |g
s|"JBD2 |"JBD2FC |g

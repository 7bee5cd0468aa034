# rename-kbuild.sed: module names in fs/ext4/Makefile and fs/jbd2/Makefile.
# Both are always built as modules (obj-m); the KUnit test is not built.
s|^obj-\$(CONFIG_EXT4_FS)[[:space:]]*+= ext4\.o|obj-m += ext4fc.o|
s|^ext4-|ext4fc-|
/CONFIG_EXT4_KUNIT_TESTS/d
/^ext4fc-inode-test-objs/d
s|^obj-\$(CONFIG_JBD2)[[:space:]]*+= jbd2\.o|obj-m += jbd2fc.o|
s|^jbd2-objs|jbd2fc-objs|

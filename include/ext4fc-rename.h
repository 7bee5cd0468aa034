/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ext4fc-rename.h - force-included (gcc -include) into every object of
 * jbd2fc.ko and ext4fc.ko, before anything else.
 *
 * Stock jbd2.ko and ext4.ko may be loaded in the same kernel, so every
 * symbol jbd2 exports gets a jbd2fc_ name (generated list, see
 * scripts/gen-symbols.sh) and every slab cache gets an ext4fc_/jbd2fc_
 * name (see KMEM_CACHE() lines in scripts/rename.sed).
 */
#ifndef _EXT4FC_RENAME_H
#define _EXT4FC_RENAME_H

#include <generated/jbd2fc-symbols.h>

/* KMEM_CACHE() with an explicit cache name. */
#define KMEM_CACHE_NAMED(__struct, __name, __flags)			\
	kmem_cache_create((__name), sizeof(struct __struct),		\
			  __alignof__(struct __struct), (__flags), NULL)

#endif /* _EXT4FC_RENAME_H */

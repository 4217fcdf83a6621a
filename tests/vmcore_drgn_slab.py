# SPDX-License-Identifier: MIT
# drgn script: per slab cache, its name, object size and the objects
# allocated, counted by drgn's own SLUB walk (every object of every slab,
# free ones told apart by its free lists), one line each:
#   drgn -q -c DUMP -s VMLINUX tests/vmcore_drgn_slab.py > NAME.drgn-slab
# (drgn 0.0.22 reads kdump-compressed dumps; tests/vmcore_check.py drgn
# compares memdb's rows with it.)
import sys

from drgn.helpers.linux.slab import (for_each_slab_cache,
                                     slab_cache_for_each_allocated_object)

for s in for_each_slab_cache(prog):  # noqa: F821 (drgn's global)
    name = s.name.string_().decode()
    n = 0
    try:
        for _ in slab_cache_for_each_allocated_object(s, "void"):
            n += 1
    except Exception as ex:  # a cache drgn cannot walk: say so
        print("%s: %s" % (name, ex), file=sys.stderr)
        continue
    print(name, int(s.object_size), n)

build-clang/obj/common/u64map.o: common/u64map.c common/u64map.h

common/u64map.h:

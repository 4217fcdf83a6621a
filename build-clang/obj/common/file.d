build-clang/obj/common/file.o: common/file.c common/file.h common/error.h

common/file.h:

common/error.h:

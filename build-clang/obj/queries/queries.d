build-clang/obj/queries/queries.o: queries/queries.c queries/queries.h \
  build-clang/gen/queries.inc

queries/queries.h:

build-clang/gen/queries.inc:

build-clang/obj/ingest/kallsyms.o: ingest/kallsyms.c \
  ingest/../common/file.h ingest/../common/error.h ingest/kallsyms.h

ingest/../common/file.h:

ingest/../common/error.h:

ingest/kallsyms.h:

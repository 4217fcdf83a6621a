build-clang/obj/ingest/kmemtrace.o: ingest/kmemtrace.c ingest/kmemtrace.h \
  ingest/../common/bytes.h ingest/../common/error.h ingest/event.h

ingest/kmemtrace.h:

ingest/../common/bytes.h:

ingest/../common/error.h:

ingest/event.h:

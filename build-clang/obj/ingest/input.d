build-clang/obj/ingest/input.o: ingest/input.c ingest/input.h \
  ingest/ingest.h ingest/../common/bytes.h ingest/../common/error.h \
  ingest/event.h

ingest/input.h:

ingest/ingest.h:

ingest/../common/bytes.h:

ingest/../common/error.h:

ingest/event.h:

build-clang/obj/ingest/kt_capture.o: ingest/kt_capture.c \
  ingest/../common/file.h ingest/../common/error.h ingest/input.h \
  ingest/ingest.h ingest/../common/bytes.h ingest/event.h \
  ingest/kmemtrace.h

ingest/../common/file.h:

ingest/../common/error.h:

ingest/input.h:

ingest/ingest.h:

ingest/../common/bytes.h:

ingest/event.h:

ingest/kmemtrace.h:

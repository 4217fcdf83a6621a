build-clang/obj/db/db.o: db/db.c db/db.h db/../common/error.h \
  db/../ingest/ingest.h db/../ingest/../common/bytes.h \
  db/../ingest/../common/error.h db/../ingest/event.h \
  build-clang/gen/schema.inc

db/db.h:

db/../common/error.h:

db/../ingest/ingest.h:

db/../ingest/../common/bytes.h:

db/../ingest/../common/error.h:

db/../ingest/event.h:

build-clang/gen/schema.inc:

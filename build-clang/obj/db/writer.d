build-clang/obj/db/writer.o: db/writer.c db/../ingest/event.h db/writer.h \
  db/db.h db/../common/error.h db/../ingest/ingest.h \
  db/../ingest/../common/bytes.h db/../ingest/../common/error.h \
  db/pair.h db/../common/u64map.h

db/../ingest/event.h:

db/writer.h:

db/db.h:

db/../common/error.h:

db/../ingest/ingest.h:

db/../ingest/../common/bytes.h:

db/../ingest/../common/error.h:

db/pair.h:

db/../common/u64map.h:

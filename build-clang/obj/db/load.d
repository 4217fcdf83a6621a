build-clang/obj/db/load.o: db/load.c db/db.h db/../common/error.h \
  db/../ingest/ingest.h db/../ingest/../common/bytes.h \
  db/../ingest/../common/error.h db/../ingest/event.h db/pair.h \
  db/../common/u64map.h db/stats.h db/writer.h

db/db.h:

db/../common/error.h:

db/../ingest/ingest.h:

db/../ingest/../common/bytes.h:

db/../ingest/../common/error.h:

db/../ingest/event.h:

db/pair.h:

db/../common/u64map.h:

db/stats.h:

db/writer.h:

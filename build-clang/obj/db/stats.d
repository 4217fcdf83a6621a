build-clang/obj/db/stats.o: db/stats.c db/../ingest/event.h db/stats.h \
  db/../common/error.h db/../common/u64map.h db/pair.h

db/../ingest/event.h:

db/stats.h:

db/../common/error.h:

db/../common/u64map.h:

db/pair.h:
